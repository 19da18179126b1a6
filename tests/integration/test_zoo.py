"""Registry-driven tests: every catalogued agent passes check_agent and runs on every compatible id.

New agents and new env ids join these tests by being declared (an agent class with a card, a
factory with its id and quick keywords); an entry that fails to build fails here (nothing is
silently dropped).
"""

from __future__ import annotations

import re

import gymnasium as gym
import pytest
from conftest import skip_without_data

import registry
from agents import check_agent
from bandit_envs import IncompatibleAgentError, run_episode

AGENTS = registry.list_agents()
ENV_IDS = [e for e in registry.list_envs() if not e.endswith("-Custom-v0")]


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
    entry = registry.env_entry(env_id)
    kw = dict(entry.quick)
    if setting == "fixed_budget":
        kw["budget"] = entry.quick_budget
    else:
        kw["max_samples"] = 100_000
    env = gym.make(env_id, **kw)
    agent = registry.make_agent(name, **registry.agent_entry(name).load().card.quick)
    ok, why = registry.is_compatible(agent, env)
    if not ok:  # declared incompatible: running it must be refused with the reason
        with pytest.raises(IncompatibleAgentError, match=re.escape(why.split(",")[0])):
            run_episode(env, agent, 0)
        return
    record = run_episode(env, agent, 0)
    assert record.samples > 0 and record.answer is not None or record.stop_reason == "max_samples"
    if setting == "fixed_budget":
        assert record.samples <= kw["budget"]
