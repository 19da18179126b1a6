"""The README's family/id/agent table is the registry's (docs/scripts/readme_catalogue.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import skip_without_data

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "scripts" / "readme_catalogue.py"


def test_readme_catalogue_is_current():
    for env_id in ("LinearPSI-NoC-v0", "LinearPSI-Energy-v0"):
        skip_without_data(env_id)  # the compatibility matrix builds every id
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
