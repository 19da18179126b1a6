"""Every id, at its defaults, is solved by its designated default agent at the agent's defaults.

``gym.make(id)`` with no keyword, the agent ``EnvEntry.default_agent`` built with no keyword,
``run_episode`` on a few seeds: in fixed confidence the episode must stop on its own (not at the
default ``max_samples`` cap) with the right answer; in fixed budget it must end within the
default budget with the right answer. Ids whose first episode takes more than a few seconds on
one core are marked slow (``pytest -m slow``).
"""

from __future__ import annotations

import time

import gymnasium as gym
import pytest
from conftest import skip_without_data

import bandit_envs  # noqa: F401
from bandit_envs import run_episode
from bandit_envs.core.protocols import compatibility
from bandit_envs.envs.registration import env_entries, env_factory
from registry.catalogue import list_agents, make_agent

ENTRIES = {entry.id: entry for entry in env_entries()}

#: ids whose default agent needs more than a few seconds (measured on one core: PELEG on the
#: 100-arm sphere ~8 s; LinFACT-G's first G-optimal designs on Free-Wilson's 10^3 arms ~17 s).
SLOW = {"LinearBAI-Sphere-v0", "LinearEpsGood-FreeWilson-v0"}

SEEDS = (0, 1, 2)


def _param(env_id: str) -> object:
    marks = [pytest.mark.slow] if env_id in SLOW else []
    return pytest.param(env_id, marks=marks, id=env_id)


def test_every_id_names_a_catalogue_agent():
    agents = set(list_agents())
    missing = [e.id for e in ENTRIES.values() if e.default_agent is None]
    assert not missing, f"ids without a default_agent in their @env_factory(...): {missing}"
    unknown = {e.id: e.default_agent for e in ENTRIES.values() if e.default_agent not in agents}
    assert not unknown, f"default_agent names not in the agent catalogue: {unknown}"


def test_the_slow_list_names_registered_ids():
    assert SLOW <= set(ENTRIES)


@pytest.mark.parametrize("bad", ["", 3, ("LinFACTG",)])
def test_env_factory_refuses_a_bad_default_agent(bad):
    with pytest.raises(ValueError, match="default_agent must be an agent name"):
        env_factory(
            "Nothing-v0",
            family="f",
            task="best_arm",
            summary="s",
            default_delta=0.1,
            default_agent=bad,
        )


@pytest.mark.parametrize("env_id", [_param(i) for i in ENTRIES])
def test_default_agent_solves_the_id_at_its_defaults(env_id):
    skip_without_data(env_id)
    entry = ENTRIES[env_id]
    env = gym.make(env_id)
    base = env.unwrapped
    agent_name = entry.default_agent
    ok, why = compatibility(make_agent(agent_name).capabilities, base.problem)
    assert ok, f"{env_id}: its default agent {agent_name} is not compatible: {why}"
    fixed_budget = base.setting == "fixed_budget"
    for seed in SEEDS:
        start = time.perf_counter()
        # an episode that passes 1000 x T*log(1/delta) is a runaway even if it stops: the
        # RunawayEpisodeWarning is an error under pytest (pyproject.toml's filterwarnings)
        record = run_episode(env, make_agent(agent_name), seed)
        wall = time.perf_counter() - start
        what = (
            f"{env_id} with {agent_name}, seed {seed}: {record.stop_reason} after "
            f"{record.samples} samples ({wall:.2f} s), answer {record.answer}, truth "
            f"{record.true_answer}"
        )
        if fixed_budget:
            assert record.stop_reason in ("stopped", "budget"), what
            assert record.samples <= base.budget, what
        else:
            assert record.stop_reason == "stopped", what  # not cut by the max_samples cap
            assert record.samples < base.max_samples, what
        assert record.correct, what
