"""Sweeps: identical records on every backend, crash-safe resume, error records, reports, CLI."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bandit_envs.core.runner import episode_seeds
from bandit_envs.errors import InvalidParameterError
from registry.cli import main
from registry.reporting import REPORT_COLUMNS, clopper_pearson, report, summarize
from registry.sweeps import (
    AgentSetting,
    EnvSetting,
    ResultsLog,
    episode_seed,
    export,
    plan,
    read_results,
    sweep,
)

TESTS = Path(__file__).resolve().parent
ENVS = [
    {"id": "LinearBAI-Soare-v0", "kwargs": {"omega": 0.5}},
    {"id": "LinearBAI-Soare-v0", "kwargs": {"budget": 150}},
]
AGENTS = ["Uniform", {"name": "Uniform", "kwargs": {"check_every": 5}}]
# the backend-equivalence sweep: 2 agents x 2 envs x 50 runs
EQUIV_ENVS = [
    {"id": "LinearBAI-Soare-v0", "kwargs": {"omega": 0.5}},
    {"id": "LinearBAI-Basis-v0", "kwargs": {"gap": 0.5, "d": 3}},
]
EQUIV_AGENTS = ["Uniform", "RAGE"]


def strip(records):
    out = []
    for r in records:
        r = dict(r)
        r.pop("wall_time", None)
        out.append(r)
    return sorted(out, key=lambda r: r["key"])


def test_plan_expands_grids_and_derives_seeds_independently_of_order():
    episodes = plan(
        [{"id": "LinearBAI-Soare-v0", "grid": {"delta": [0.05, 0.01], "d": [2, 3]}}],
        ["Uniform"],
        runs=3,
        seed=7,
    )
    assert len(episodes) == 12
    labels = {e.env.label for e in episodes}
    assert "LinearBAI-Soare-v0(d=3, delta=0.01)" in labels
    e = episodes[5]
    assert e.seed == episode_seed(7, e.env, e.agent, e.run)
    reordered = plan(
        [{"id": "LinearBAI-Soare-v0", "grid": {"d": [3, 2], "delta": [0.01, 0.05]}}],
        ["Uniform"],
        runs=3,
        seed=7,
    )
    assert {x.key: x.seed for x in episodes} == {x.key: x.seed for x in reordered}
    assert len({x.seed for x in episodes}) == 12
    other = plan(
        [{"id": "LinearBAI-Soare-v0", "kwargs": {"d": 2, "delta": 0.05}}], ["Uniform"], 1, seed=8
    )
    same_key = [x for x in episodes if x.key == other[0].key]
    assert len(same_key) == 1 and other[0].seed != same_key[0].seed  # another sweep seed


def test_serial_and_process_backends_give_identical_records(tmp_path):
    serial = sweep(EQUIV_ENVS, EQUIV_AGENTS, 50, seed=3, backend="serial", progress=False).records
    process = sweep(
        EQUIV_ENVS,
        EQUIV_AGENTS,
        50,
        seed=3,
        backend="process",
        n_jobs=2,
        out=tmp_path / "p",
        progress=False,
    ).records
    assert len(serial) == 200 and all(r["status"] == "ok" for r in serial)
    assert {r["agent_label"] for r in serial} == {"Uniform", "RAGE"}
    assert strip(serial) == strip(process)
    assert strip(read_results(tmp_path / "p")) == strip(serial)


def test_ray_backend_gives_identical_records():
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    serial = sweep(EQUIV_ENVS, EQUIV_AGENTS, 50, seed=3, backend="serial", progress=False).records
    try:
        via_ray = sweep(
            EQUIV_ENVS, EQUIV_AGENTS, 50, seed=3, backend="ray", n_jobs=2, progress=False
        ).records
    finally:
        ray.shutdown()
    assert strip(via_ray) == strip(serial)


SWEEP_SCRIPT = textwrap.dedent(
    """
    import sys
    from registry.sweeps import sweep
    envs = [{"id": "LinearBAI-Soare-v0", "grid": {"omega": [0.1, 0.2]}}]
    sweep(envs, ["Uniform"], 40, seed=11, out=sys.argv[1], backend="serial", progress=False)
    """
)


def test_sigkill_then_resume_loses_and_duplicates_nothing(tmp_path):
    folder = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", SWEEP_SCRIPT, str(folder)])
    results = folder / "results.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        if results.exists() and results.read_text().count("\n") >= 15:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = results.read_text().count("\n")
    assert 15 <= before < 80, "the sweep should have been killed part-way"
    envs = [{"id": "LinearBAI-Soare-v0", "grid": {"omega": [0.1, 0.2]}}]
    resumed = sweep(envs, ["Uniform"], 40, seed=11, out=folder, backend="serial", progress=False)
    assert resumed.skipped >= before - 1 and resumed.ran + resumed.skipped == 80
    full = sweep(envs, ["Uniform"], 40, seed=11, backend="serial", progress=False)
    on_disk = read_results(folder)
    keys = [r["key"] for r in on_disk]
    assert len(keys) == len(set(keys)) == 80
    assert strip(on_disk) == strip(full.records)


def test_a_cut_last_line_is_repaired_and_rerun(tmp_path):
    folder = tmp_path / "cut"
    sweep(ENVS[:1], ["Uniform"], 5, out=folder, backend="serial", progress=False)
    path = folder / "results.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2])  # a write cut by a kill
    with pytest.warns(RuntimeWarning, match="the last line is incomplete"):
        again = sweep(ENVS[:1], ["Uniform"], 5, out=folder, backend="serial", progress=False)
    assert again.ran == 1 and again.skipped == 4
    assert len(read_results(folder)) == 5
    # a corrupt line in the middle is not silently dropped
    text = path.read_text().splitlines(keepends=True)
    path.write_text(text[0] + "{not json\n" + "".join(text[1:]))
    with pytest.raises(InvalidParameterError, match="line 2 is not valid JSON"):
        ResultsLog(path)


FLAKY = "sweep_agents:FlakyUniform"
FLAKY_ENV = EnvSetting("LinearBAI-Soare-v0", {"omega": 0.5})


def crashing_runs(sweep_seed, runs):
    """The runs of FlakyUniform that crash under this sweep seed (computed from the seeds)."""
    from sweep_agents import FlakyUniform, first_draw

    agent = AgentSetting(FLAKY)
    return [
        r
        for r in range(runs)
        if first_draw(episode_seeds(episode_seed(sweep_seed, FLAKY_ENV, agent, r))[1])
        < FlakyUniform.FAIL_BELOW
    ]


@pytest.fixture
def one_crash(monkeypatch):
    """A sweep seed under which exactly one of 10 FlakyUniform runs crashes, and that run."""
    monkeypatch.syspath_prepend(str(TESTS))
    for seed in range(200):
        crashing = crashing_runs(seed, 10)
        if len(crashing) == 1:
            return seed, crashing[0]
    raise AssertionError("no sweep seed with exactly one crash")


def test_a_crashing_agent_leaves_one_error_record(tmp_path, one_crash):
    seed, bad_run = one_crash
    result = sweep(
        [FLAKY_ENV],
        [FLAKY, "Uniform"],
        10,
        seed=seed,
        out=tmp_path / "flaky",
        backend="process",
        n_jobs=2,
        progress=False,
    )
    assert len(result.records) == 20
    (error,) = result.crashed
    assert result.errors == result.crashed  # the older name
    assert error["run"] == bad_run and error["agent_label"] == FLAKY
    assert error["error_type"] == "RuntimeError"
    assert error["error_message"] == "deliberate failure of the test agent"
    assert "deliberate failure" in error["traceback"]
    assert sum(r["status"] == "ok" for r in result.records) == 19
    text = report(result.records)
    assert "1 episode(s) crashed" in text and f"run {bad_run}" in text
    row = [r for r in summarize(result.records) if r["agent"] == FLAKY][0]
    assert row["runs"] == 9 and row["crashed"] == 1 and "errors" not in row


def test_cli_run_exits_nonzero_after_a_crash_and_report_shows_it(tmp_path, one_crash, capsys):
    seed, bad_run = one_crash
    out = tmp_path / "cli"
    code = main(
        [
            "run",
            "--env",
            "LinearBAI-Soare-v0",
            "--env-kw",
            "omega=0.5",
            "--agent",
            FLAKY,
            "--runs",
            "10",
            "--seed",
            str(seed),
            "--out",
            str(out),
            "--backend",
            "serial",
            "--quiet",
        ]
    )
    assert code == 1
    assert "1 episode(s) crashed" in capsys.readouterr().out
    assert main(["report", str(out)]) == 1
    assert f"run {bad_run}" in capsys.readouterr().out


def test_config_file_runs_resumes_and_reports(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text(
        textwrap.dedent(f"""
        description = "two settings"
        [sweep]
        runs = 6
        seed = 1
        backend = "serial"
        out = "{tmp_path / "from_config"}"

        [[env]]
        id = "LinearBAI-Soare-v0"
        grid = {{ budget = [60, 300] }}

        [[agent]]
        name = "Uniform"
    """)
    )
    assert main(["run", str(config), "--quiet"]) == 0
    first = capsys.readouterr().out
    assert "Fixed budget" in first and "budget=300" in first
    assert main(["run", str(config), "--quiet"]) == 0
    assert "skipped 12 already finished" in capsys.readouterr().err
    assert (
        main(
            [
                "report",
                str(tmp_path / "from_config"),
                "--markdown",
                "--csv",
                str(tmp_path / "r.csv"),
            ]
        )
        == 0
    )
    md = capsys.readouterr().out
    assert "| env | agent | budget |" in md
    assert (tmp_path / "r.csv").read_text().count("\n") == 13
    assert main(["report", str(tmp_path / "from_config"), "--pool", "budget"]) == 0
    pooled = capsys.readouterr().out
    assert "budget=" not in pooled and "LinearBAI-Soare-v0 " in pooled


@pytest.mark.parametrize(
    "body, message",
    [
        (
            '[[env]]\nid="LinearBAI-Soare-v0"\n[[agnet]]\nname="Uniform"',
            "unknown key 'agnet' in the top level",
        ),
        (
            '[sweep]\nrun=3\n[[env]]\nid="LinearBAI-Soare-v0"\n[[agent]]\nname="Uniform"',
            "unknown key 'run' in [sweep]",
        ),
        (
            '[[env]]\nid="LinearBAI-Soare-v0"\nkwarg={d=3}\n[[agent]]\nname="Uniform"',
            "unknown key 'kwarg' in [[env]] #1",
        ),
        (
            '[[env]]\nid="LinearBAI-Soare-v0"\n[[agent]]\nname="Uniform"\ngrid={check_every=3}',
            "grid axis 'check_every' of Uniform must be a non-empty list",
        ),
        (
            '[sweep]\nbackend="gpu"\n[[env]]\nid="LinearBAI-Soare-v0"\n[[agent]]\nname="Uniform"',
            "[sweep] backend must be one of ['serial', 'process', 'ray']; got 'gpu'",
        ),
        (
            '[[env]]\nid="LinearBAI-Soare-v0"\nkwargs={delta=2.0}\n[[agent]]\nname="Uniform"',
            "env setting #1 LinearBAI-Soare-v0(delta=2.0): LinearBAI-Soare-v0: delta must be a "
            "float",
        ),
        (
            '[[env]]\nid="LinearBAI-Soar-v0"\n[[agent]]\nname="Uniform"',
            "env setting #1 LinearBAI-Soar-v0",
        ),
        (
            '[[env]]\nid="LinearBAI-Soare-v0"\n[[agent]]\nname="Unifrom"',
            "Did you mean 'Uniform' or 'PSIUniform'?",
        ),
        ('[[env]]\nid="LinearBAI-Soare-v0"', "no [[agent]] entry"),
        ("not toml [", "not valid TOML"),
    ],
)
def test_invalid_configs_exit_2_naming_the_key(tmp_path, capsys, body, message):
    config = tmp_path / "bad.toml"
    config.write_text(body)
    assert main(["run", str(config), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err, err


def test_resuming_into_a_folder_of_another_sweep_is_refused(tmp_path):
    sweep(ENVS[:1], ["Uniform"], 2, out=tmp_path / "x", backend="serial", progress=False)
    with pytest.raises(
        InvalidParameterError, match=r"holds a different sweep \(it differs in \['runs'\]\)"
    ):
        sweep(ENVS[:1], ["Uniform"], 3, out=tmp_path / "x", backend="serial", progress=False)


def test_export_csv_and_parquet(tmp_path):
    records = sweep(ENVS, ["Uniform"], 3, backend="serial", progress=False).records
    csv_path = export(records, tmp_path / "r.csv")
    header = csv_path.read_text().splitlines()[0].split(",")
    assert {"key", "samples", "correct", "pulls"} <= set(header)
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is optional")
    table = pq.read_table(export(records, tmp_path / "r.parquet"))
    assert table.num_rows == 6
    with pytest.raises(InvalidParameterError, match="must end in .csv or .parquet"):
        export(records, tmp_path / "r.xlsx")


def test_clopper_pearson_known_values():
    low, high = clopper_pearson(0, 100)
    assert low == 0.0 and high == pytest.approx(0.0362, abs=1e-4)
    low, high = clopper_pearson(5, 100)
    assert low == pytest.approx(0.0164, abs=1e-4) and high == pytest.approx(0.1128, abs=1e-4)


def _records(envs: int, agents: int, runs: int, env_label: str, agent_label: str) -> list:
    """Synthetic fixed-confidence records: ``runs`` per (env, agent), one wrong per group."""
    return [
        dict(
            key=f"{e}-{a}-{i}",
            env_label=env_label.format(e),
            agent_label=agent_label.format(a),
            status="ok",
            samples=1000 * (i + 1),
            correct=i > 0,
            wall_time=0.01,
            delta=0.05,
            budget=None,
            lower_bound=123.4,
        )
        for e in range(envs)
        for a in range(agents)
        for i in range(runs)
    ]


@pytest.mark.parametrize(
    ("env_label", "agent_label"),
    [
        ("LinearBAI-Soare-v0(delta=0.05, omega={})", "RAGE(gamma={})"),
        ("LinearEpsGood-Adaptive-v0(d=8, delta=0.05, epsilon=0.1, instance_seed={})", "LinFACTG{}"),
        ("E{}", 'LinFACTG(rounding="wrong", use_features="when_cheaper", v={}' + "x" * 90),
    ],
)
def test_default_report_fits_120_columns_and_wide_has_every_column(env_label, agent_label):
    records = _records(3, 2, 10, env_label, agent_label)
    text = report(records)
    assert max(map(len, text.splitlines())) <= 120, text
    assert "crashed" in text and "ci95" in text and "errors" not in text
    for column in ("samples_q10", "lower_bound", "ci_low"):
        assert column not in text
    wide = report(records, wide=True)
    assert max(map(len, wide.splitlines())) > 120
    header = next(line for line in wide.splitlines() if line.startswith("env"))
    assert header.split() == list(REPORT_COLUMNS) + (["f1_mean"] if "f1_mean" in header else [])
    # every (env, agent) row is in both, with its error rate 1/10
    assert text.count("     0.1  ") == wide.count("     0.1  ") == 6


def test_compact_report_shows_f1_only_when_it_says_more_than_the_error_rate():
    single = [dict(r, f1=float(r["correct"])) for r in _records(1, 1, 10, "E", "A")]
    assert "f1_mean" not in report(single) and "f1_mean" in report(single, wide=True)
    partial = [dict(r, f1=0.5 if not r["correct"] else 1.0) for r in single]
    assert "f1_mean" in report(partial)


def test_report_groups_crashes_and_wraps_them():
    crashes = [
        dict(
            key=f"E | A | run {i}",
            env_label="E",
            agent_label="A",
            run=i,
            seed=100 + i,
            status="error",
            error_type="RuntimeError",
            error_message="boom " * 60,
        )
        for i in range(5)
    ]
    text = report(crashes)
    assert "5 episode(s) crashed:" in text and "5 episodes (runs 0, 1, 2, 3, 4)" in text
    assert text.count("RuntimeError") == 1
    assert max(map(len, text.splitlines())) <= 120
    assert "run 2 (seed 102)" in report(crashes[2:3])
    assert "A on E: every episode crashed." in text


def test_delta_violation_is_flagged():
    records = [
        dict(
            key=f"k{i}",
            env_label="E",
            agent_label="A",
            status="ok",
            samples=10,
            correct=i >= 30,
            wall_time=0.0,
            delta=0.05,
            budget=None,
            lower_bound=None,
        )
        for i in range(100)
    ]
    row = summarize(records)[0]
    assert row["violation"] and row["ci_low"] > 0.05
    assert "DELTA VIOLATION: A on E" in report(records)


def test_pooling_reports_an_instance_family_as_one_row_with_f1():
    def rec(seed, run, correct, f1, bound):
        kwargs = {"d": 8, "instance_seed": seed}
        return dict(
            key=f"{seed}-{run}",
            env_id="E",
            env_kwargs=kwargs,
            env_label=f"E(d=8, instance_seed={seed})",
            agent_label="A",
            status="ok",
            samples=100 * (seed + 1),
            correct=correct,
            f1=f1,
            wall_time=0.0,
            delta=0.05,
            budget=None,
            lower_bound=bound,
        )

    records = [rec(0, 0, True, 1.0, 10.0), rec(0, 1, False, 0.5, 10.0), rec(1, 0, True, 1.0, 30.0)]
    assert [r["env"] for r in summarize(records)] == [
        "E(d=8, instance_seed=0)",
        "E(d=8, instance_seed=1)",
    ]
    (row,) = summarize(records, pool=["instance_seed"])
    assert row["env"] == "E(d=8)" and row["runs"] == 3
    assert row["samples_mean"] == pytest.approx(400 / 3)
    assert row["f1_mean"] == pytest.approx(2.5 / 3)
    assert row["lower_bound"] == pytest.approx(50 / 3)  # the mean of the draws' bounds
    assert row["error_rate"] == pytest.approx(1 / 3)
    text = report(records, pool=["instance_seed"])
    assert "f1_mean" in text and "E(d=8)" in text and "instance_seed" not in text
    # pooling every keyword leaves the bare id; records without F1 have no F1 column
    (row,) = summarize(records, pool=["d", "instance_seed"])
    assert row["env"] == "E"
    plain = [{k: v for k, v in r.items() if k != "f1"} for r in records]
    assert "f1_mean" not in report(plain)


def test_plots_are_valid_pngs(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    folder = tmp_path / "plots"
    sweep(
        [ENVS[0], {"id": "LinearBAI-Soare-v0", "grid": {"budget": [30, 90, 300]}}],
        AGENTS,
        20,
        out=folder,
        backend="serial",
        progress=False,
    )
    assert main(["plot", str(folder)]) == 0
    paths = [Path(p) for p in capsys.readouterr().out.split()]
    names = {p.name.split("_LinearBAI")[0] for p in paths}
    assert names == {"samples", "error_vs_budget", "pulls"}
    import matplotlib.image as mpimg

    for path in paths:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
        image = mpimg.imread(path)
        assert image.ndim == 3 and image.shape[0] > 200 and image.std() > 0.01


def test_agent_runs_override_keeps_seeds_and_is_validated():
    from registry.sweeps import AgentSetting, plan

    envs = [{"id": "LinearBAI-Soare-v0", "kwargs": {"budget": 50}}]
    base = plan(envs, ["Uniform"], runs=5)
    fewer = plan(envs, [{"name": "Uniform", "runs": 2}], runs=5)
    assert len(base) == 5 and len(fewer) == 2
    assert [e.seed for e in fewer] == [e.seed for e in base[:2]]
    with pytest.raises(InvalidParameterError, match="runs of agent Uniform"):
        AgentSetting("Uniform", {}, 0)
    with pytest.raises(InvalidParameterError, match="'runs'"):
        plan(envs, [{"name": "Uniform", "rounds": 2}], runs=5)


def test_worker_threads_limits_blas_threads_and_restores(monkeypatch):
    import os

    from registry.sweeps._pool import _THREAD_VARS, _worker_threads

    for name in _THREAD_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")  # the user's own choice is kept
    with _worker_threads(n_jobs=os.cpu_count() or 1):
        assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
        assert os.environ["OMP_NUM_THREADS"] == "1"
        assert os.environ["MKL_NUM_THREADS"] == "3"
    assert "OPENBLAS_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ
    assert os.environ["MKL_NUM_THREADS"] == "3"


def test_sweep_refuses_incompatible_pairs_unless_told_to_record_them():
    from bandit_envs import IncompatibleAgentError

    envs = [{"id": "LinearBAI-Soare-v0", "kwargs": {"budget": 40}}]
    with pytest.raises(IncompatibleAgentError, match=r"RAGE on LinearBAI-Soare-v0\(budget=40\)"):
        sweep(envs, ["Uniform", "RAGE"], 2, backend="serial", progress=False)
    result = sweep(
        envs, ["Uniform", "RAGE"], 2, backend="serial", progress=False, check_compatible=False
    )
    assert [r["error_type"] for r in result.crashed] == ["IncompatibleAgentError"] * 2
