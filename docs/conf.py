"""Sphinx configuration of the bandit-envs documentation (build: see docs/README.md)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "bandit-envs"
author = "bandit-envs developers"
copyright = "2026, bandit-envs developers"  # noqa: A001 - Sphinx's name

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "myst_parser",
    "bandit_docs",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "reproductions/scripts", "README.md"]
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True
html_theme = "alabaster"
html_theme_options = {
    "description": "pure-exploration bandits for Gymnasium",
    "fixed_sidebar": True,
}
suppress_warnings = ["myst.header"]
