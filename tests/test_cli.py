"""The bandit-bench command line."""

import subprocess
import sys

from registry.cli import main


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "LinearBAI-Soare-v0" in out and "Uniform" in out and "Compatibility" in out


def test_demo_small(capsys):
    assert main(["demo", "--seeds", "3"]) == 0
    out = capsys.readouterr().out
    assert "Fixed confidence" in out and "Fixed budget" in out and "ratio" in out
    assert "delta=0.05" in out and "budget=3000" in out


def test_console_script_help():
    out = subprocess.run([sys.executable, "-m", "registry.cli", "--help"], capture_output=True,
                         text=True)
    assert out.returncode == 0 and "demo" in out.stdout and "list" in out.stdout
