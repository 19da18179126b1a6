"""The README's family/id/agent table says nothing the registry contradicts.

The table is generated (docs/scripts/readme_catalogue.py); a new agent or id appears in it when
a maintainer regenerates it, so the test only asks that what it lists is true: a contribution
needs no README edit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import skip_without_data

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "scripts" / "readme_catalogue.py"


def test_readme_catalogue_says_nothing_wrong():
    for env_id in ("LinearPSI-NoC-v0", "LinearPSI-Energy-v0"):
        skip_without_data(env_id)  # the compatibility matrix builds every id
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--check-facts"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr


def test_a_wrong_row_is_reported(tmp_path, monkeypatch):
    for env_id in ("LinearPSI-NoC-v0", "LinearPSI-Energy-v0"):
        skip_without_data(env_id)
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import readme_catalogue
    finally:
        sys.path.remove(str(SCRIPT.parent))
    start, end = readme_catalogue.START, readme_catalogue.END
    good = f"{start}\n{readme_catalogue.table()}\n{end}"
    assert readme_catalogue.wrong_facts(good) == []
    bad = good.replace("`LinGapE`", "`LinGapX`").replace("`LinearBAI-Soare-v0`", "`LinearBAI-Nope`")
    assert readme_catalogue.wrong_facts(bad) == [
        "LinearBAI-Nope is not an id of linear best arm",
        "LinGapX does not run on linear best arm",
    ]
