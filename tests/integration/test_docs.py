"""The documentation's Python examples run (each page's blocks as one script), so they never rot.

The site itself is built in CI (``sphinx-build -W``, see docs/README.md); this test only needs the
library. Pages whose examples need an optional extra are skipped without it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import skip_without_data

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(p for p in DOCS.glob("*.md") if p.name != "README.md")
#: pages whose examples need an optional extra
NEEDS = {"rl.md": "stable_baselines3"}
#: pages whose examples read a real data set
NEEDS_DATA = {"getting-started.md": "LinearPSI-NoC-v0"}
#: a Python block, also one indented inside a list item (dedented before it runs)
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def test_the_user_guide_has_examples():
    assert {p.name for p in PAGES if BLOCK.search(p.read_text(encoding="utf-8"))} >= {
        "getting-started.md",
        "concepts.md",
        "writing-an-agent.md",
    }


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_examples_run(page, tmp_path):
    blocks = BLOCK.findall(page.read_text(encoding="utf-8"))
    if not blocks:
        pytest.skip(f"{page.name} has no Python example")
    if page.name in NEEDS:
        pytest.importorskip(NEEDS[page.name])
    if page.name in NEEDS_DATA:
        skip_without_data(NEEDS_DATA[page.name])
    script = tmp_path / f"{page.stem}.py"
    script.write_text(
        "\n".join(textwrap.dedent(b) for b in blocks if "class Agent(Protocol)" not in b),
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-3000:]
