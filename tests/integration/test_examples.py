"""Every script in examples/ runs, so the README's examples never rot."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


def test_there_are_examples():
    assert {p.name for p in EXAMPLES} >= {"gymnasium_loop.py", "custom_agent.py"}


#: extra arguments of scripts that write files (never into the repository from a test)
ARGS = {
    "render_gallery.py": lambda tmp: ["--out", str(tmp)],
    "ppo_vs_zoo.py": lambda tmp: ["--steps", "256", "--episodes", "5"],
    "sb3_subproc.py": lambda tmp: ["--envs", "2", "--steps", "256", "--episodes", "2"],
}
#: scripts that need an optional extra (skipped without it; CI installs it)
NEEDS = {"ppo_vs_zoo.py": "stable_baselines3", "sb3_subproc.py": "stable_baselines3"}


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    if script.name in NEEDS:
        pytest.importorskip(NEEDS[script.name])
    args = ARGS.get(script.name, lambda tmp: [])(tmp_path)
    out = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
