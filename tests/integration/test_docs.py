"""Every Python block of the README and the user-guide pages runs on its own, so none ever rots.

A reader copies one block, not a page: each block runs alone, in a fresh interpreter, with only
its own imports (a block that needs a name from another one fails here with ``NameError``, as it
would for the reader). One convention: a block whose first line is ``# <name>.py`` is a file the
reader is told to save; it runs alone too, and the page's other blocks may import it (it is
written next to them before they run).

The site itself is built in CI (``sphinx-build -W``, see docs/README.md); this test only needs the
library. A block that imports an optional extra is skipped without it; a block that makes a
data-backed id is skipped without that id's data set.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import skip_without_data

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "README.md"),
]
#: a Python block, also one indented inside a list item (dedented before it runs)
BLOCK = re.compile(r"^([ \t]*)```python\n(.*?)^[ \t]*```", re.S | re.M)
#: the first line of a block the reader saves as a module
FILE = re.compile(r"#\s*(\w+)\.py\s*$")
#: optional extras: the module a block imports → the extra that installs it
EXTRAS = {"stable_baselines3": "sb3", "matplotlib": "plot", "ray": "ray", "pyarrow": "parquet"}
#: blocks over this many seconds on a 2-core machine are marked slow (none is, today)
SLOW: set[tuple[str, int]] = set()


def blocks(page: Path) -> list[tuple[int, str]]:
    """``[(line number of the fence, dedented code), ...]`` of the page's Python blocks."""
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, textwrap.dedent(m.group(2)))
        for m in BLOCK.finditer(text)
    ]


def saved_files(page: Path) -> dict[str, str]:
    """The page's blocks that the reader saves as modules: ``{file name: code}``."""
    out = {}
    for _, code in blocks(page):
        match = FILE.match(code.splitlines()[0]) if code.strip() else None
        if match:
            out[f"{match.group(1)}.py"] = code
    return out


CASES = [
    pytest.param(
        page,
        line,
        code,
        id=f"{page.name}:{line}",
        marks=[pytest.mark.slow] if (page.name, line) in SLOW else [],
    )
    for page in PAGES
    for line, code in blocks(page)
]


def test_the_user_guide_has_examples():
    pages = {case.values[0].name for case in CASES}
    assert pages >= {"README.md", "getting-started.md", "concepts.md", "writing-an-agent.md"}


def test_a_block_is_found_at_its_line_and_dedented(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# T\n\n```python\nx = 1\n```\n\n1. item\n\n   ```python\n   # mod.py\n   y = 2\n   ```\n"
    )
    assert blocks(page) == [(3, "x = 1\n"), (9, "# mod.py\ny = 2\n")]
    assert saved_files(page) == {"mod.py": "# mod.py\ny = 2\n"}


def run_alone(code: str, folder: Path, files: dict[str, str]) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter in ``folder``, next to the ``files`` the reader saved."""
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    script = folder / "block.py"
    script.write_text(code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=folder
    )


def test_a_block_that_needs_another_fails(tmp_path):
    """The test would catch the reader's ``NameError``: nothing leaks between blocks."""
    out = run_alone('env = gym.make("LinearBAI-Soare-v0")\n', tmp_path, {})
    assert out.returncode != 0 and "NameError: name 'gym' is not defined" in out.stderr


@pytest.mark.parametrize(("page", "line", "code"), CASES)
def test_block_runs_alone(page, line, code, tmp_path):
    from registry.catalogue import ENVS

    for module, extra in EXTRAS.items():
        if re.search(rf"^\s*(from|import)\s+{module}\b", code, re.M):
            pytest.importorskip(module, reason=f"needs the {extra} extra")
    for entry in ENVS:
        if entry.datasets and f'"{entry.id}"' in code:
            skip_without_data(entry.id)
    files = {n: c for n, c in saved_files(page).items() if c != code}
    out = run_alone(code, tmp_path, files)
    assert out.returncode == 0, f"{page.name}, the block at line {line}:\n{out.stderr[-3000:]}"
