"""Rules of the code base that no linter checks: what package code cites, module sizes, privacy.

* Package code cites the papers (authors, year, algorithm or equation), never the project's
  working documents, which users do not have: no specification sections, no design-document
  sections, no issue numbers, no line numbers of our copies of the paper texts.
* Nothing else a user reads (tests and their skip messages, docs, examples, benchmarks,
  experiments, the README) points at those documents or at the folder they sit in beside the
  checkout: a message names the data set, its source, the cache, the environment variable.
* No module of the three packages is longer than 800 lines.
* No module imports a private name (``_name``) of another module: what two modules share is
  public in one of them or lives in a shared module.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bandit_envs", "agents", "registry")
SOURCES = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
MAX_LINES = 800

#: references a user cannot follow: our specifications, design document, issues, and the line
#: numbers of our text copies of the papers (``L212``); papers are cited by their own numbering.
WORKING_DOCUMENTS = re.compile(
    r"spec(?:s/| 00\d)|specification §|DESIGN(?:\.md| §)|\bissues? \d+|\bmy note\b|\bL\d{3,4}\b"
)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_there_are_sources():
    assert len(SOURCES) > 50


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_package_code_cites_papers_not_working_documents(path):
    hits = [
        f"{_rel(path)}:{n}: {line.strip()}"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if WORKING_DOCUMENTS.search(line)
    ]
    assert not hits, "\n".join(hits)


#: the same, and the folder of our working documents and data beside the checkout
OUR_FOLDERS = re.compile(
    r"\.\./shared\b|shared/(?:specs|papers|data/README)|spec(?:s/| 00\d)|specification §"
    r"|DESIGN(?:\.md| §)|\bissues? #?\d+|\bmy note\b"
)
#: what a user reads besides the packages (the changelogs record history, this file the rule)
_USER_FOLDERS = ("tests", "docs", "examples", "benchmarks", "experiments")
READ_BY_USERS = sorted(
    p
    for p in [*(q for d in _USER_FOLDERS for q in (ROOT / d).rglob("*")), ROOT / "README.md"]
    if p.suffix in {".py", ".md", ".toml", ".txt", ".rst"}
    and "_build" not in p.parts
    and p.name not in {"changelog.md", "test_source_hygiene.py"}
)


def test_nothing_a_user_reads_points_at_our_working_files():
    assert len(READ_BY_USERS) > 50
    hits = [
        f"{_rel(path)}:{n}: {line.strip()}"
        for path in READ_BY_USERS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUR_FOLDERS.search(line)
    ]
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_modules_are_short(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{_rel(path)} has {n} lines; split it by concept (at most {MAX_LINES})"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_no_private_name_is_imported_from_another_module(path):
    own = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] not in PACKAGES or node.module == own:
                continue
            package = ROOT.joinpath(*node.module.split("."))
            bad += [
                f"line {node.lineno}: from {node.module} import {alias.name}"
                for alias in node.names
                if alias.name.startswith("_")
                and not alias.name.startswith("__")
                # a private submodule, imported by a module of its own package, is fine
                and not (
                    own.startswith(node.module + ".")
                    and (package / f"{alias.name}.py").is_file() | (package / alias.name).is_dir()
                )
            ]
    assert not bad, f"{_rel(path)} imports private names of other modules: {bad}"
