"""The bandit-bench command line."""

import inspect
import subprocess
import sys

from registry.catalogue import ENVS
from registry.cli import main


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "LinearBAI-Soare-v0" in out and "Uniform" in out and "Compatibility" in out
    # every id with its keywords and their defaults (from the factory's signature) and its
    # default setting, as the factory declares them
    assert "keywords: d=2, omega=0.1, scale=2.0, sigma=1.0; default setting: delta=0.05" in out
    assert "default setting: budget=40000" in out  # a fixed-budget id (ConstrainedMixed)
    for entry in ENVS:
        keywords = ", ".join(
            f"{k}={'(required)' if v is inspect.Parameter.empty else repr(v)}"
            for k, v in entry.keywords().items()
        )
        setting = ", ".join(f"{k}={v}" for k, v in entry.default_setting().items())
        assert f"  {entry.id:<24} {entry.summary}\n" in out
        assert f"keywords: {keywords}; default setting: {setting}\n" in out, entry.id


def test_demo_small(capsys):
    assert main(["demo", "--seeds", "3"]) == 0
    out = capsys.readouterr().out
    assert "Fixed confidence" in out and "Fixed budget" in out and "ratio" in out
    assert "delta=0.05" in out and "budget=3000" in out


def test_console_script_help():
    out = subprocess.run(
        [sys.executable, "-m", "registry.cli", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "demo" in out.stdout and "list" in out.stdout
    assert "data" in out.stdout


def test_run_counts_agents_own_runs(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text(
        '[sweep]\nruns = 3\nbackend = "serial"\n'
        '[[env]]\nid = "LinearBAI-Soare-v0"\nkwargs = { budget = 30 }\n'
        '[[agent]]\nname = "Uniform"\nruns = 1\n'
        '[[agent]]\nname = "Uniform"\nkwargs = { check_every = 2 }\n'
    )
    assert main(["run", str(config), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "= 4 episodes" in err and "their own runs" in err
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4


def test_report_fits_120_columns_and_wide_gives_every_column(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["run", "--env", "LinearBAI-Soare-v0", "--env-grid", "omega=0.3,0.5", "--agent"]
    assert main([*args, "Uniform", "--agent", "LinGapE", "--runs", "3", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert max(map(len, text.splitlines())) <= 120 and "crashed" in text
    assert "samples_q90" not in text
    assert main(["report", str(out), "--wide"]) == 0
    wide = capsys.readouterr().out
    assert "samples_q90" in wide and "lower_bound" in wide and "crashed" in wide


def test_run_refuses_incompatible_pairs_before_the_first_episode(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        ["run", "--env", "LinearBAI-Soare-v0", "--agent", "RAGE", "--agent", "GEGE"]
        + ["--agent", "ODLinBAI", "--runs", "2", "--out", str(out), "--backend", "serial"]
    )
    assert code == 2 and not out.exists()  # nothing ran, no error records
    err = capsys.readouterr().err
    assert "2 (env setting, agent setting) pair(s) cannot run; nothing was run." in err
    assert (
        "  GEGE on LinearBAI-Soare-v0: GEGE solves ['pareto_set'], but the problem's task is "
        "'best_arm'.\n" in err
    )
    assert (
        "  ODLinBAI on LinearBAI-Soare-v0: ODLinBAI runs in ['fixed_budget'], but the problem is "
        "'fixed_confidence'. It runs on this id in fixed budget" in err
    )
    assert "RAGE on" not in err
    # posed in fixed budget, the same agent runs
    args = ["run", "--env", "LinearBAI-Soare-v0", "--env-kw", "budget=60", "--agent", "ODLinBAI"]
    assert main([*args, "--runs", "2", "--out", str(out), "--backend", "serial"]) == 0


def test_every_pair_of_a_grid_is_checked(tmp_path, capsys):
    args = ["run", "--env", "LinearBAI-Soare-v0", "--env-grid", "budget=50,100", "--agent", "RAGE"]
    assert main([*args, "--out", str(tmp_path / "o"), "--backend", "serial"]) == 2
    err = capsys.readouterr().err
    assert "RAGE on LinearBAI-Soare-v0(budget=50): RAGE runs in ['fixed_confidence']" in err
    assert "RAGE on LinearBAI-Soare-v0(budget=100)" in err
    assert "It runs on this id in fixed confidence (gym.make(id, delta=...)" in err
