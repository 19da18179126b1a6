"""The bandit-bench command line."""

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

from registry.catalogue import ENVS
from registry.cli import main


def test_list(capsys):
    """The overview; each id's keywords and defaults are in its view (see also test_listing)."""
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "LinearBAI-Soare-v0" in out and "Uniform" in out and "Compatibility" in out
    assert main(["list", "--env", "LinearBAI-Soare-v0"]) == 0
    out = capsys.readouterr().out
    assert "    d      2\n    omega  0.1\n    scale  2.0\n    sigma  1.0\n" in out
    assert "default setting: delta=0.05 (fixed confidence)" in out
    assert main(["list", "--env", "ConstrainedMixed-Table1-v0"]) == 0
    assert "default setting: budget=40000 (fixed budget)" in capsys.readouterr().out
    for entry in ENVS:
        assert main(["list", "--env", entry.id]) == 0
        out = capsys.readouterr().out
        setting = ", ".join(f"{k}={v}" for k, v in entry.default_setting().items())
        assert f"default setting: {setting} (" in out, entry.id
        for key, value in entry.keywords().items():
            shown = "(required)" if value is inspect.Parameter.empty else repr(value)
            assert f"\n    {key}" in out and f"  {shown}\n" in out, (entry.id, key)


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


MY_AGENTS = '''
from agents import Uniform


class MyUniform(Uniform):
    """A user's own agent, in a module of the current directory."""
'''


def _records(folder):
    import json

    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def test_module_class_imports_from_the_current_directory(tmp_path, monkeypatch, capsys):
    """As `python -m` would: the console script's sys.path does not hold the current directory."""
    (tmp_path / "my_agents.py").write_text(MY_AGENTS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "my_agents", raising=False)
    args = ["run", "--env", "LinearBAI-Soare-v0", "--agent", "my_agents:MyUniform"]
    assert main([*args, "--runs", "2", "--out", "out", "--backend", "serial"]) == 0
    assert [r["status"] for r in _records(tmp_path / "out")] == ["ok", "ok"]
    sys.modules.pop("my_agents", None)


def test_a_missing_module_says_where_it_was_looked_for(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    args = ["run", "--env", "LinearBAI-Soare-v0", "--agent", "nope_agents:Mine", "--out", "o"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"no module named 'nope_agents' (looked in the current directory {tmp_path}" in err
    assert "Run the command from the folder that holds nope_agents.py" in err
    (tmp_path / "nope_agents.py").write_text("x = 1\n")
    assert main(args) == 2
    assert "nope_agents has no attribute 'Mine'" in capsys.readouterr().err


def test_own_agent_against_zoo_agents_in_worker_processes(tmp_path):
    """The documented path: from the agent's folder, process backend, per-agent parameters."""
    (tmp_path / "my_agents.py").write_text(MY_AGENTS)
    root = str(Path(__file__).resolve().parents[2])
    cmd = [sys.executable, "-P", "-m", "registry.cli", "run", "--env", "LinearBAI-Soare-v0"]
    cmd += ["--agent", "my_agents:MyUniform", "--agent", "Uniform", "--agent", "LinGapE"]
    cmd += [
        "--agent-kw",
        "my_agents:MyUniform:check_every=4",
        "--agent-kw",
        "Uniform:check_every=2",
    ]
    cmd += ["--runs", "3", "--out", "out", "--backend", "process", "--jobs", "2", "--quiet"]
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    kwargs = {(r["agent_name"], json.dumps(r["agent_kwargs"])) for r in _records(tmp_path / "out")}
    assert kwargs == {
        ("my_agents:MyUniform", '{"check_every": 4}'),
        ("Uniform", '{"check_every": 2}'),
        ("LinGapE", "{}"),
    }


def test_agent_kw_for_one_agent_and_for_all(tmp_path, capsys):
    base = ["run", "--env", "LinearBAI-Soare-v0", "--env-kw", "budget=40", "--backend", "serial"]
    base += ["--agent", "Uniform", "--agent", "PSIUniform", "--runs", "1"]
    assert main([*base, "--out", str(tmp_path / "a"), "--agent-kw", "check_every=3"]) == 2
    # PSIUniform has no check_every: the parameter for every agent is refused for it
    assert "PSIUniform(check_every=3): make_agent: PSIUniform has no parameter(s)" in (
        capsys.readouterr().err
    )
    out = tmp_path / "b"
    assert main([*base, "--out", str(out), "--agent-kw", "Uniform:check_every=3"]) == 2
    assert "PSIUniform solves ['pareto_set']" in capsys.readouterr().err  # next check: the task
    grid = ["--agent-grid", "Uniform:check_every=1,2", "--agent-kw", "Uniform:threshold=2.5"]
    args = ["run", "--env", "LinearBAI-Soare-v0", "--agent", "Uniform", "--agent", "LinGapE"]
    assert main([*args, *grid, "--runs", "1", "--out", str(out), "--backend", "serial"]) == 0
    labels = sorted(r["agent_label"] for r in _records(out))
    assert labels == [
        "LinGapE",
        "Uniform(check_every=1, threshold=2.5)",
        "Uniform(check_every=2, threshold=2.5)",
    ]
    bad = main([*args, "--agent-kw", "LinGape:epsilon=0.1", "--out", str(tmp_path / "c")])
    assert bad == 2
    assert (
        "--agent-kw LinGape:epsilon=0.1: 'LinGape' is not an --agent of this run. Did you mean "
        "'LinGapE'? Agents: Uniform, LinGapE." in capsys.readouterr().err
    )
