"""The δ-audit: a reduced audit runs, its flags follow the Clopper–Pearson rule, and it resumes.

The full audit (every fixed-confidence agent, 1000 seeds per easy instance) is in docs/audit.md;
CI runs the reduced one below as part of the default suite.
"""

from __future__ import annotations

import inspect
import json

import pytest

import registry
from bandit_envs.core.protocols import compatibility
from bandit_envs.errors import InvalidParameterError, UnknownNameError
from registry import agent_entry, list_envs, make_env
from registry.audit import (
    AUDIT_COLUMNS,
    EASY_INSTANCES,
    AuditCell,
    audit_cells,
    audit_report,
    audit_row,
    audit_table,
    fixed_confidence_agents,
    heuristic_note,
    is_violation,
    run_audit,
)
from registry.cli import main

REDUCED_AGENTS = ["Uniform", "LinGapE", "XYOracle"]
REDUCED_ENV = "basis-d3"
BASIS = next(i for i in EASY_INSTANCES if i.name == REDUCED_ENV)


def _records(wrong: int, runs: int, truncated: int = 0, crashed: int = 0) -> list[dict]:
    """Constructed episode records: ``wrong`` wrong answers, ``truncated`` of them truncated."""
    out = [
        {
            "status": "ok",
            "correct": i >= wrong,
            "samples": 10,
            "wall_time": 0.01,
            "stop_reason": "max_samples" if i < truncated else "stopped",
        }
        for i in range(runs)
    ]
    return out + [{"status": "error"} for _ in range(crashed)]


# ---------------------------------------------------------------- flags on constructed counts


@pytest.mark.parametrize(
    ("errors", "runs", "delta", "flagged"),
    [
        (150, 1000, 0.1, True),  # rate 0.15, interval [0.128, 0.174]
        (125, 1000, 0.1, True),  # rate 0.125, interval [0.105, 0.147]: just above
        (110, 1000, 0.1, False),  # rate 0.11 > delta, but the interval [0.091, 0.131] contains it
        (100, 1000, 0.1, False),
        (0, 1000, 0.1, False),
        (3, 10, 0.1, False),  # 30% wrong, but 10 runs cannot tell: interval [0.067, 0.652]
        (4, 10, 0.1, True),  # interval [0.122, 0.738]
        (60, 1000, 0.05, False),
        (70, 1000, 0.05, True),
        (0, 0, 0.1, False),  # nothing ran
    ],
)
def test_violation_is_the_interval_above_delta(errors, runs, delta, flagged):
    assert is_violation(errors, runs, delta) is flagged


def test_row_flags_violation_heuristic_oracle_and_crashes():
    cell = AuditCell("Uniform", BASIS, 0.1)
    bad = audit_row(cell, _records(wrong=200, runs=1000, truncated=30, crashed=2))
    assert bad["violation"] and bad["flag"] == "VIOLATION, CRASHED"
    assert (bad["runs"], bad["errors"], bad["truncated"], bad["crashed"]) == (1000, 200, 30, 2)
    assert bad["error_rate"] == 0.2 and bad["ci_low"] < 0.2 < bad["ci_high"]
    assert bad["heuristic"] is None

    good = audit_row(cell, _records(wrong=90, runs=1000))
    assert not good["violation"] and good["flag"] == ""

    heuristic = audit_row(AuditCell("LinGapE", BASIS, 0.1), _records(wrong=200, runs=1000))
    assert heuristic["flag"] == "VIOLATION, heuristic threshold"
    oracle = audit_row(AuditCell("XYOracle", BASIS, 0.1), _records(wrong=0, runs=50))
    assert oracle["agent"] == "XYOracle (oracle)" and oracle["flag"] == "oracle"


def test_only_non_heuristic_violations_are_genuine():
    from registry.audit import AuditResult

    rows = [
        audit_row(AuditCell("LinGapE", BASIS, 0.1), _records(200, 1000)),
        audit_row(AuditCell("Uniform", BASIS, 0.1), _records(200, 1000)),
        audit_row(AuditCell("RAGE", BASIS, 0.1), _records(5, 1000)),
    ]
    result = AuditResult(rows, [], 0, 0, 0.0)
    assert [r["agent"] for r in result.violations] == ["LinGapE", "Uniform"]
    assert [r["agent"] for r in result.genuine_violations] == ["Uniform"]
    text = audit_report(result)
    assert "Uniform on basis-d3: 200/1000 wrong" in text and "GENUINE" in text
    assert "LinGapE: confidence='heuristic'" in text


# ------------------------------------------------------------------------ the tables


def test_easy_instances_build_and_cover_every_fixed_confidence_id():
    names = [i.name for i in EASY_INSTANCES]
    assert len(set(names)) == len(names)
    fc = fixed_confidence_agents()
    covered = {i.env_id for i in EASY_INSTANCES}
    for instance in EASY_INSTANCES:
        if not instance.default:
            continue  # real data: built by the data tests
        spec = make_env(instance.env_id, **instance.env_kwargs(0.1)).unwrapped.problem
        assert spec.max_samples == instance.max_samples
        assert any(compatibility(agent_entry(a).capabilities, spec, a)[0] for a in fc), instance
    # every non-real-data id whose default instance some fixed-confidence agent can run has one
    for env_id in list_envs():
        if env_id.endswith("-Custom-v0") or env_id in ("LinearPSI-NoC-v0", "LinearPSI-Energy-v0"):
            continue
        spec = make_env(env_id, delta=0.1).unwrapped.problem
        if any(compatibility(agent_entry(a).capabilities, spec, a)[0] for a in fc):
            assert env_id in covered, env_id
    assert {
        "LinearBAI-Custom-v0",
        "LinearPSI-Custom-v0",
        "LinearEpsGood-Custom-v0",
        "MisspecifiedEpsGood-Custom-v0",
        "LogisticEpsGood-Custom-v0",
    } <= covered


def test_heuristic_rules_name_real_parameters():
    for name in registry.list_agents():
        cls = agent_entry(name).load()
        for rule in cls.card.heuristics:
            assert rule.param in inspect.signature(cls.__init__).parameters, (name, rule)
    assert heuristic_note("RAGE") is None
    assert heuristic_note("APE") is None
    assert heuristic_note("APE", {"threshold": "heuristic"}).startswith("threshold='heuristic'")
    assert heuristic_note("GEGE", {"constants": "practical"}) is not None
    assert heuristic_note("LinGapE", {"confidence": "self_normalized_ols"}) is None
    assert heuristic_note("LinGapE") is not None  # the default is the heuristic width


def test_cells_follow_compatibility_and_refuse_bad_selections():
    cells, skipped = audit_cells(
        ["LinGapE", "APE", "LinFACTG"], ["basis-d3", "psi-custom-4arm"], [0.1, 0.05]
    )
    assert [(c.agent, c.instance.name, c.delta) for c in cells] == [
        ("LinGapE", "basis-d3", 0.1),
        ("LinGapE", "basis-d3", 0.05),
        ("APE", "psi-custom-4arm", 0.1),
        ("APE", "psi-custom-4arm", 0.05),
    ]
    assert not skipped
    assert str(cells[1].folder) == "LinGapE/basis-d3/delta=0.05"
    with pytest.raises(InvalidParameterError, match="ODLinBAI does not run in the fixed-conf"):
        audit_cells(["ODLinBAI"])
    with pytest.raises(UnknownNameError, match="Did you mean 'basis-d3'"):
        audit_cells(None, ["basis"])
    with pytest.raises(InvalidParameterError, match="every delta must be a number in"):
        audit_cells(None, None, [1.5])


# ------------------------------------------------------------------------ running and resuming


def test_reduced_audit_has_the_right_columns(tmp_path):
    result = run_audit(
        REDUCED_AGENTS, [REDUCED_ENV], runs=30, out=tmp_path, n_jobs=2, log=lambda line: None
    )
    assert [r["agent"] for r in result.rows] == ["LinGapE", "XYOracle (oracle)", "Uniform"]
    for row in result.rows:
        assert set(AUDIT_COLUMNS) <= set(row)
        assert row["runs"] == 30 and row["crashed"] == 0 and row["delta"] == 0.1
        assert row["ci_low"] <= row["error_rate"] <= row["ci_high"]
        assert row["samples_mean"] > 0
    assert [r["flag"] for r in result.rows] == ["heuristic threshold", "oracle", ""]
    assert result.ran == 90 and result.resumed == 0
    header = audit_table(result.rows, markdown=True).splitlines()[0]
    assert header == "| " + " | ".join(AUDIT_COLUMNS) + " |"


def test_a_killed_audit_resumes_without_rerunning_finished_episodes(tmp_path):
    kw = {"runs": 12, "out": tmp_path, "backend": "serial", "log": lambda line: None}
    first = run_audit(["Uniform"], [REDUCED_ENV], **kw)
    results = tmp_path / "Uniform" / REDUCED_ENV / "delta=0.1" / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 12 and first.ran == 12
    # what a kill leaves behind: the first 7 episodes, and a write cut in the middle
    results.write_text("".join(lines[:7]) + lines[7][:25], encoding="utf-8")
    with pytest.warns(RuntimeWarning, match="last line is incomplete"):
        resumed = run_audit(["Uniform"], [REDUCED_ENV], **kw)
    assert (resumed.ran, resumed.resumed) == (5, 7)
    kept = results.read_text(encoding="utf-8").splitlines(keepends=True)
    assert kept[:7] == lines[:7]  # finished episodes untouched (their wall times would differ)
    by_key = {json.loads(line)["key"]: json.loads(line) for line in kept}
    assert {k: r["correct"] for k, r in by_key.items()} == {
        json.loads(line)["key"]: json.loads(line)["correct"] for line in lines
    }
    assert resumed.rows[0]["runs"] == 12
    again = run_audit(["Uniform"], [REDUCED_ENV], **kw)
    assert (again.ran, again.resumed) == (0, 12)


def test_cli_audit(tmp_path, capsys):
    argv = [
        "audit",
        "--agents",
        "Uniform,LinGapE",
        "--envs",
        REDUCED_ENV,
        "--runs",
        "5",
        "--agent-runs",
        "LinGapE=3",
        "--out",
        str(tmp_path),
        "--backend",
        "serial",
        "--markdown",
        "--quiet",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| " + " | ".join(AUDIT_COLUMNS) + " |" in out
    assert "| Uniform | basis-d3 (LinearBAI-Basis-v0) | 0.1 | 5 |" in out
    assert "| LinGapE | basis-d3 (LinearBAI-Basis-v0) | 0.1 | 3 |" in out
    assert main(["audit", "--list"]) == 0
    assert "psi-synthetic-k8" in capsys.readouterr().out
    assert main(["audit", "--agents", "KGCB", "--out", str(tmp_path)]) == 2
    assert "KGCB does not run in the fixed-confidence setting" in capsys.readouterr().err
