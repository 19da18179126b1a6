"""`bandit-bench list`: filters, the agent and id views, the compact compatibility matrix."""

from __future__ import annotations

import inspect
import re
import sys

import pytest

import registry
from registry.catalogue import AGENTS, ENVS, compatibility_matrix
from registry.cli import main
from registry.listing import _parameters


def _list(capsys, *args):
    code = main(["list", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _field(out, prefix):
    """The text of the view line starting with ``prefix``, its wrapped continuation joined."""
    lines = out.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("  " + prefix))
    parts = [lines[i]]
    for line in lines[i + 1 :]:
        if not line.startswith("    "):
            break
        parts.append(line)
    return " ".join(" ".join(parts).split()).split(": ", 1)[1]


def _matrix_rows(out):
    """{agent: {id: cell}} from the printed matrix (columns: numbers of the ids above)."""
    lines = out.splitlines()
    numbers = {}
    for line in lines:
        m = re.match(r"\s+(\d+) (\S+-v0)\b", line)
        if m:
            numbers[int(m.group(1))] = m.group(2)
    start = next(i for i, line in enumerate(lines) if line.startswith("Compatibility"))
    head = next(i for i in range(start, len(lines)) if re.fullmatch(r"\s+[\d ]+", lines[i]))
    columns = [numbers[int(n)] for n in lines[head].split()]
    rows = {}
    for line in lines[head + 1 :]:
        name, *cells = line.split()
        rows[name] = dict(zip(columns, cells, strict=True))
    return rows


def test_overview_is_compact_and_its_matrix_is_the_catalogue(capsys):
    code, out, _ = _list(capsys)
    assert code == 0
    assert len(out.splitlines()) < 120  # it was 557 lines, 390 of them compatibility rows
    for entry in ENVS:
        assert entry.id in out
    rows = _matrix_rows(out)
    assert list(rows) == [a.name for a in AGENTS]
    matrix = compatibility_matrix()
    anywhere = compatibility_matrix("any")
    for (agent, env_id), (ok, why) in matrix.items():
        cell = rows[agent][env_id]
        if why.startswith("not checked"):
            assert cell == "?"
        else:
            assert cell == ("Y" if ok else "s" if anywhere[(agent, env_id)][0] else "."), (
                agent,
                env_id,
            )
    # the setting counts: fixed-budget agents do not run on a fixed-confidence default
    for agent in ("ODLinBAI", "BayesGap", "KGCB"):
        assert rows[agent]["LinearBAI-Soare-v0"] == "s"
    assert rows["RAGE"]["LinearBAI-Soare-v0"] == "Y"


def test_filters_narrow_ids_agents_and_matrix(capsys):
    code, out, _ = _list(capsys, "--family", "linear best arm", "--setting", "budget")
    assert code == 0
    rows = _matrix_rows(out)
    assert set(rows) == {
        a.name
        for a in AGENTS
        if "fixed_budget" in a.capabilities.settings and "best_arm" in a.capabilities.tasks
    }
    assert all(cell == "Y" for row in rows.values() for cell in row.values())
    assert "LinearPSI" not in out and "posed in fixed budget" in out
    code, out, _ = _list(capsys, "--task", "PARETO_SET")  # case does not matter
    assert code == 0 and set(_matrix_rows(out)) == {
        a.name for a in AGENTS if "pareto_set" in a.capabilities.tasks
    }
    code, out, _ = _list(capsys, "--family", "linear best arm", "--task", "pareto_set")
    assert code == 0 and out == "Nothing matches these filters.\n"
    code, _, err = _list(capsys, "--family", "linear")
    assert code == 2
    assert "no family 'linear'. Did you mean 'linear best arm' or 'generalized linear'?" in err
    code, _, err = _list(capsys, "--setting", "fixed")
    assert code == 2 and "no setting 'fixed'" in err


@pytest.mark.parametrize("name", [a.name for a in AGENTS])
def test_agent_view_has_paper_parameters_defaults_constraints_and_ids(capsys, name):
    code, out, _ = _list(capsys, "--agent", name)
    assert code == 0
    entry = registry.agent_entry(name)
    cls = entry.load()
    assert out.startswith(f"{name}: ")
    flat = " ".join(out.split())
    assert " ".join(entry.card.paper.split()) in flat
    signature = inspect.signature(cls.__init__).parameters
    for pname, default, constraint in _parameters(cls):
        assert default == repr(signature[pname].default)
        assert re.search(rf"\n    {re.escape(pname)} +{re.escape(default)}  ", out), pname
        assert " ".join(constraint.split()) in flat
    if cls.__init__ is not object.__init__:  # every parameter is listed
        assert [p[0] for p in _parameters(cls)] == [p for p in signature if p != "self"]
    matrix = compatibility_matrix()
    runs = [e for (a, e), (ok, _) in matrix.items() if a == name and ok]
    listed = _field(out, "runs on (default setting)")
    assert listed.split(", ") == runs or (listed == "no id" and not runs)


@pytest.mark.parametrize("entry", ENVS, ids=[e.id for e in ENVS])
def test_env_view_has_keywords_defaults_setting_and_agents(capsys, entry):
    code, out, _ = _list(capsys, "--env", entry.id)
    assert code == 0
    for key, value in entry.keywords().items():
        shown = "(required)" if value is inspect.Parameter.empty else repr(value)
        assert re.search(rf"\n    {re.escape(key)} +{re.escape(shown)}\n", out), key
    setting = ", ".join(f"{k}={v}" for k, v in entry.default_setting().items())
    assert f"default setting: {setting} (" in out
    assert " ".join(entry.source.split()) in " ".join(out.split())
    if entry.id.endswith("-Custom-v0"):
        return
    matrix = compatibility_matrix()
    runs = [a.name for a in AGENTS if matrix[(a.name, entry.id)][0]]
    if matrix[(AGENTS[0].name, entry.id)][1].startswith("not checked"):
        assert "agents: not checked: needs the" in out
    else:
        listed = _field(out, "agents in its default setting")
        assert listed.split(", ") == runs or (listed == "none" and not runs)


def test_an_own_class_and_the_default_agent_are_shown(capsys, tmp_path, monkeypatch):
    (tmp_path / "mine.py").write_text(
        "from agents import Uniform\n\nclass Mine(Uniform):\n    '''My own agent.'''\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mine", raising=False)
    code, out, _ = _list(capsys, "--agent", "mine:Mine")
    assert code == 0 and out.startswith("mine:Mine: My own agent.")
    assert "runs on (default setting): LinearBAI-Soare-v0, LinearBAI-Basis-v0" in out
    assert "check_every  1" in out
    entry = registry.env_entry("LinearBAI-Soare-v0")
    object.__setattr__(entry, "default_agent", "RAGE")  # as the registration declares it
    try:
        _, out, _ = _list(capsys, "--env", "LinearBAI-Soare-v0")
        assert "\n  default agent: RAGE\n" in out
        _, out, _ = _list(capsys)
        assert re.search(r"LinearBAI-Soare-v0 .*default agent: RAGE\n", out)
        _, out, _ = _list(capsys, "--agent", "RAGE")
        assert "default agent of: LinearBAI-Soare-v0" in out
    finally:
        object.__delattr__(entry, "default_agent")
    sys.modules.pop("mine", None)


def test_long_describes_every_selected_id_and_agent(capsys):
    code, out, _ = _list(capsys, "--family", "constrained best mixed arm", "--long")
    assert code == 0
    assert out.count("\n  family: constrained best mixed arm; task: constrained_mixed") == 5
    for name in ("SFSR", "SFSRL", "USLP"):
        assert f"\n{name}: " in out


def test_ids_without_their_data_set_are_marked_not_checked(capsys, monkeypatch, tmp_path):
    from bandit_envs import data

    monkeypatch.setenv(data.DATA_ENV_VAR, str(tmp_path))  # an empty data folder
    code, out, _ = _list(capsys, "--task", "pareto_set")
    assert code == 0
    rows = _matrix_rows(out)
    assert rows["GEGE"]["LinearPSI-NoC-v0"] == "?" and rows["GEGE"]["LinearPSI-Synthetic-v0"] == "Y"
    code, out, _ = _list(capsys, "--env", "LinearPSI-NoC-v0")
    assert code == 0
    assert "agents: not checked: needs the noc data set (set BANDIT_ENVS_DATA, or run" in out
