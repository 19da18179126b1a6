"""Registry-driven tests: every catalogued agent passes check_agent and runs on every compatible id.

New agents and new env ids join these tests by being added to the catalogue; an entry that fails
to build fails here (nothing is silently dropped).
"""

from __future__ import annotations

import re

import gymnasium as gym
import pytest
from conftest import skip_without_data

import registry
from agents import check_agent
from bandit_envs import IncompatibleAgentError, run_episode

#: small, quick keyword sets per id (the matrix runs every pair with short budgets)
QUICK = {
    "LinearBAI-Soare-v0": {"omega": 0.5},
    "LinearBAI-Basis-v0": {"gap": 0.5, "d": 3},
    "LinearBAI-Sphere-v0": {"n_arms": 8, "d": 3},
    "LinearPSI-NoC-v0": {},
    "LinearPSI-Energy-v0": {"sigma": 0.1},
    "LinearPSI-Synthetic-v0": {"K": 16},
    "LinearEpsGood-Adaptive-v0": {
        "d": 4,
        "m_tilde": 2,
        "x_tilde": 1.0,
        "epsilon": 0.3,
        "sigma": 0.1,
    },
    "LinearEpsGood-Static-v0": {"d": 4, "m_tilde": 2, "sigma": 0.2},
    "LinearEpsGood-FreeWilson-v0": {"sites": (2, 3, 2), "n_good": 3, "sigma": 0.2},
    "MisspecifiedEpsGood-Adaptive-v0": {
        "d": 4,
        "m_tilde": 2,
        "x_tilde": 1.0,
        "epsilon": 0.3,
        "sigma": 0.1,
        "L_m": 0.01,
    },
    "LogisticEpsGood-Adaptive-v0": {"d": 4, "m_tilde": 2, "x_tilde": 1.0, "epsilon": 1.0},
    "ConstrainedMixed-Table1-v0": {},
    "ConstrainedMixed-Hard-v0": {"K": 4},
    "ConstrainedMixed-L1-v0": {"instance": "A2r"},
    "ConstrainedMixed-Random-v0": {"L": 1, "K": 6},
}
#: fixed budgets where 2000 is too small for some agent (EGE-SH needs T >= K ceil(log2 K))
BUDGETS = {"LinearPSI-NoC-v0": 259 * 9, "LinearPSI-Energy-v0": 768 * 10}
AGENTS = registry.list_agents()
ENV_IDS = [e for e in registry.list_envs() if not e.endswith("-Custom-v0")]


def test_every_env_id_has_quick_keywords():
    assert set(ENV_IDS) <= set(QUICK), "add quick keywords for the new id to QUICK"


@pytest.mark.parametrize("name", AGENTS)
def test_catalogued_agent_passes_check_agent(name):
    results = check_agent(registry.make_agent(name))
    assert not [r for r in results if r.status == "failed"]
    status = {r.check: r.status for r in results}
    # every agent's task has probe problems: the checks that run episodes really ran
    for check in ("check_valid_actions", "check_seed_determinism", "check_pickle"):
        assert status[check] == "passed", (check, status[check])


def pairs():
    for name in AGENTS:
        caps = registry.agent_entry(name).capabilities
        for env_id in ENV_IDS:
            for setting in sorted(caps.settings):
                yield name, env_id, setting


@pytest.mark.parametrize("name, env_id, setting", list(pairs()))
def test_agent_runs_on_every_compatible_env(name, env_id, setting):
    skip_without_data(env_id)
    kw = dict(QUICK[env_id])
    if setting == "fixed_budget":
        kw["budget"] = BUDGETS.get(env_id, 2000)
    else:
        kw["max_samples"] = 100_000
    env = gym.make(env_id, **kw)
    agent = registry.make_agent(name)
    ok, why = registry.is_compatible(agent, env)
    if not ok:  # declared incompatible: running it must be refused with the reason
        with pytest.raises(IncompatibleAgentError, match=re.escape(why.split(",")[0])):
            run_episode(env, agent, 0)
        return
    record = run_episode(env, agent, 0)
    assert record.samples > 0 and record.answer is not None or record.stop_reason == "max_samples"
    if setting == "fixed_budget":
        assert record.samples <= kw["budget"]
