"""run_episode: records, seeding, batch path, protocol enforcement."""

import json
import re

import gymnasium as gym
import numpy as np
import pytest

import registry
from agents import Uniform
from bandit_envs import (
    AgentCapabilities,
    AgentProtocolError,
    IncompatibleAgentError,
    InvalidParameterError,
    run_episode,
)


def strip(record):
    d = record.to_dict()
    d.pop("wall_time")
    return d


def test_same_seed_same_record_different_seed_different_noise():
    env = gym.make("LinearBAI-Soare-v0", omega=0.3)
    a = strip(run_episode(env, Uniform(), seed=3))
    b = strip(run_episode(gym.make("LinearBAI-Soare-v0", omega=0.3), Uniform(), seed=3))
    c = strip(run_episode(env, Uniform(), seed=4))
    assert a == b
    assert a["samples"] != c["samples"]  # different noise ...
    # ... same instance
    assert a["true_answer"] == c["true_answer"] and a["lower_bound"] == c["lower_bound"]


def test_record_fields():
    env = gym.make("LinearBAI-Soare-v0", budget=90)
    r = run_episode(env, Uniform(), seed=0, batch=False)
    assert r.env_id == "LinearBAI-Soare-v0" and r.agent == "Uniform" and r.seed == 0
    assert r.samples == 90 and r.stop_reason == "budget" and r.pulls == (30, 30, 30)
    assert r.path == "single" and r.lower_bound is None and not r.oracle
    # one type for answers: frozensets, as in the env's final info
    assert r.answer in ({0}, {1}, {2}) and r.true_answer == frozenset({0})
    assert type(r.answer) is frozenset and type(r.true_answer) is frozenset
    assert r.wall_time > 0
    fc = run_episode(gym.make("LinearBAI-Soare-v0", omega=0.3), Uniform(), seed=0)
    t_star = gym.make("LinearBAI-Soare-v0", omega=0.3).unwrapped.complexity()["lower_bound"]
    assert fc.lower_bound == pytest.approx(t_star * np.log(1 / 0.05))
    assert fc.path == "batch" and fc.stop_reason == "stopped"


def test_unwrapped_and_wrapped_envs_give_the_same_record():
    wrapped = gym.make("LinearBAI-Soare-v0", omega=0.3)
    assert strip(run_episode(wrapped, Uniform(), 9)) == strip(
        run_episode(wrapped.unwrapped, Uniform(), 9)
    )


def test_fixed_budget_batch_equals_single_for_uniform_budget_split():
    env = gym.make("LinearBAI-Soare-v0", budget=100)
    single = run_episode(env, Uniform(), 1, batch=False)
    batch = run_episode(env, Uniform(), 1, batch=True)
    assert single.pulls == batch.pulls == (34, 33, 33)
    assert single.samples == batch.samples == 100


class DeclaresPareto:
    capabilities = AgentCapabilities(tasks=frozenset({"pareto_set"}))
    name = "ParetoOnly"

    def reset(self, spec, rng): ...
    def select(self):
        return None

    def observe(self, arm, outcome): ...
    def recommend(self):
        return frozenset()


def test_incompatible_agent_is_refused_with_the_reason():
    with pytest.raises(
        IncompatibleAgentError,
        match=re.escape(
            "ParetoOnly cannot run on LinearBAI-Soare-v0: ParetoOnly solves ['pareto_set'], but "
            "the problem's task is 'best_arm'."
        ),
    ):
        run_episode(gym.make("LinearBAI-Soare-v0"), DeclaresPareto(), 0)


def test_uniform_refuses_a_budget_smaller_than_k():
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "Uniform: the budget (2) is smaller than the number of arms (3); round robin needs "
            "at least one pull per arm."
        ),
    ):
        run_episode(gym.make("LinearBAI-Soare-v0", budget=2), Uniform(), 0)


def test_runner_argument_errors():
    env = gym.make("LinearBAI-Soare-v0")
    with pytest.raises(AgentProtocolError, match=r"object is not an agent; it lacks \['reset', "):
        run_episode(env, object(), 0)
    with pytest.raises(InvalidParameterError, match="seed must be an integer >= 0; got -1"):
        run_episode(env, Uniform(), -1)
    with pytest.raises(InvalidParameterError, match="env must be a PureExplorationEnv"):
        run_episode(gym.make("CartPole-v1"), Uniform(), 0)

    class OnePull:
        def reset(self, spec, rng): ...
        def select(self):
            return 0

        def observe(self, arm, outcome): ...
        def recommend(self):
            return frozenset({0})

    with pytest.raises(InvalidParameterError, match="batch=True, but OnePull does not offer"):
        run_episode(env, OnePull(), 0, batch=True)


def test_batch_that_exceeds_budget_is_a_protocol_error():
    class Greedy(Uniform):
        def select_batch(self):
            return np.full(self.n_arms, 100, dtype=np.int64)

    with pytest.raises(
        AgentProtocolError,
        match=re.escape(
            "Greedy.select_batch() asked for 300 pulls, but only 30 of the budget 30 remain."
        ),
    ):
        run_episode(gym.make("LinearBAI-Soare-v0", budget=30), Greedy(), 0)


def test_to_dict_keeps_answers_as_sorted_tuples_for_json():
    env = gym.make("LinearPSI-Synthetic-v0")
    r = run_episode(env, registry.make_agent("APE"), 0)
    assert type(r.answer) is frozenset and len(r.answer) > 1
    d = r.to_dict()
    assert d["answer"] == tuple(sorted(r.answer)) and d["true_answer"] == tuple(
        sorted(r.true_answer)
    )
    back = json.loads(json.dumps(d))
    assert back["answer"] == sorted(r.answer) and back["true_answer"] == sorted(r.true_answer)
    truncated = run_episode(gym.make("LinearBAI-Soare-v0", max_samples=5), Uniform(), 0)
    assert truncated.answer is None and truncated.to_dict()["answer"] is None
