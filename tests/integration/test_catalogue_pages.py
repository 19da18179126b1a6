"""The committed catalogue pages are current, and every relative link of the Markdown resolves.

``docs/catalogue/envs.md`` and ``agents.md`` are generated (``python
docs/scripts/catalogue_pages.py``) and committed, so that the links to them work when the Markdown
is read in the repository, not only on the built site. They list which agents run on which id,
which builds every id: the comparison needs the real data sets and is skipped without them.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import skip_without_data

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "docs" / "catalogue"
SCRIPT = ROOT / "docs" / "scripts" / "catalogue_pages.py"
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import bandit_docs  # noqa: E402

sys.path.remove(str(ROOT / "docs" / "_ext"))

#: Markdown a reader opens in the repository (generated and vendored folders excluded)
MARKDOWN = sorted(
    p
    for p in ROOT.rglob("*.md")
    if not {"_build", "results", ".git", ".venv", ".ci-venv", "node_modules"} & set(p.parts)
)
#: ``[text](target)``; the target's ``#anchor`` is not checked
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _needs_every_id():
    from registry.catalogue import ENVS

    for entry in ENVS:
        if entry.datasets:
            skip_without_data(entry.id)


def test_the_committed_catalogue_pages_are_current():
    _needs_every_id()
    for name, text in bandit_docs.catalogue_pages().items():
        path = FOLDER / name
        assert path.is_file(), f"docs/catalogue/{name} is missing: run {bandit_docs.REGENERATE}"
        committed = path.read_text(encoding="utf-8")
        diff = list(
            difflib.unified_diff(
                committed.splitlines(),
                text.splitlines(),
                f"docs/catalogue/{name} (committed)",
                "generated now",
                lineterm="",
                n=1,
            )
        )
        assert not diff, (
            f"docs/catalogue/{name} is out of date: run {bandit_docs.REGENERATE}\n"
            + "\n".join(diff[:60])
        )


def test_a_stale_page_is_found_and_rewritten(tmp_path):
    _needs_every_id()
    assert bandit_docs.write_catalogues(tmp_path) == ["envs.md", "agents.md"]
    assert bandit_docs.stale_pages(tmp_path) == []
    page = tmp_path / "agents.md"
    page.write_text(page.read_text(encoding="utf-8").replace("`LinGapE`", "`LinGapX`", 1))
    assert bandit_docs.stale_pages(tmp_path) == ["agents.md"]
    assert bandit_docs.write_catalogues(tmp_path) == ["agents.md"]
    assert bandit_docs.stale_pages(tmp_path) == []


def test_the_check_command_agrees():
    _needs_every_id()
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr


def test_the_command_refuses_without_the_data(tmp_path):
    env = {"BANDIT_ENVS_DATA": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, env=env
    )
    assert out.returncode == 2
    assert "set BANDIT_ENVS_DATA" in out.stderr and "bandit-bench data fetch" in out.stderr


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return [
        m.group(1)
        for m in LINK.finditer(text)
        if not re.match(r"[a-z][a-z0-9+.-]*:", m.group(1)) and not m.group(1).startswith("#")
    ]


def test_there_is_markdown_with_links():
    names = {p.relative_to(ROOT).as_posix() for p in MARKDOWN}
    assert {"README.md", "docs/getting-started.md", "docs/catalogue/envs.md"} <= names
    assert "catalogue/envs.md" in _links(ROOT / "docs" / "getting-started.md")


@pytest.mark.parametrize("page", MARKDOWN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve_in_the_repository(page):
    broken = [t for t in _links(page) if not (page.parent / t.split("#")[0]).exists()]
    assert not broken, f"{page.relative_to(ROOT)}: links to missing files: {broken}"
