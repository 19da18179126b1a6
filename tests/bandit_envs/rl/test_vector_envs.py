"""Gymnasium's vector envs, the standard multi-core set-up (docs/rl.md, "Worker processes").

``gym.make_vec(..., vectorization_mode="async")`` runs each env in a worker process and sends its
observations and infos (the ``ProblemSpec`` included) back through a pipe, pickled. The async
vector env must give exactly what the in-process (sync) one gives for the same seeds and actions,
episode ends and automatic resets included. Stable-Baselines3's ``SubprocVecEnv`` is tested in
``test_sb3_compat.py``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import assert_same, skip_without_data

import bandit_envs
from bandit_envs import DiscretePulls, ProblemSpec, SufficientStatistics

#: one id per family (the workers build them from the registry, so custom ids need no arrays)
ONE_PER_FAMILY = [
    e.id
    for e in {e.family: e for e in reversed(bandit_envs.envs.env_entries())}.values()
    if not e.id.endswith("-Custom-v0")
]


def run(envs: gym.vector.VectorEnv, actions: list[np.ndarray]) -> list[Any]:
    out: list[Any] = [envs.reset(seed=[11, 12])]
    out += [envs.step(action) for action in actions]
    envs.close()
    return out


@pytest.mark.parametrize("env_id", ONE_PER_FAMILY)
def test_async_vector_env_steps_like_the_sync_one(env_id):
    skip_without_data(env_id)
    probe = gym.make(env_id).unwrapped
    k = probe.n_arms
    pull, stop = probe.pull_action, probe.stop_action({0})
    actions = [
        np.stack([pull(0), pull(1 % k)]),
        np.stack([pull(1 % k), stop]),  # env 1 stops: its final info crosses the pipe
        np.stack([pull(2 % k), pull(0)]),  # env 1 resets: a new ProblemSpec crosses the pipe
        np.stack([stop, pull(0)]),
    ]
    outputs = run(gym.make_vec(env_id, num_envs=2, vectorization_mode="async"), actions)
    expected = run(gym.make_vec(env_id, num_envs=2, vectorization_mode="sync"), actions)
    assert_same(expected, outputs)
    infos = [step[-1] for step in outputs]
    assert all(isinstance(spec, ProblemSpec) for spec in infos[0]["problem"])
    assert list(infos[2]["_correct"]) == [False, True] and infos[2]["stop_reason"][1] == "stopped"
    assert list(infos[3]["_problem"]) == [False, True]  # the automatic reset's info
    assert infos[4]["stop_reason"][0] == "stopped" and infos[4]["samples"][0] == 3


def test_async_vector_env_with_spawned_workers_and_rl_wrappers():
    # spawn: the workers import everything afresh and receive their env factories pickled
    def discrete_statistics(env: gym.Env) -> gym.Env:
        return SufficientStatistics(DiscretePulls(env))

    actions = [np.array([0, 1]), np.array([2, 3]), np.array([1, 0]), np.array([3, 2])]
    kwargs = {"num_envs": 2, "wrappers": [discrete_statistics], "budget": 6}
    outputs = run(
        gym.make_vec(
            "LinearBAI-Soare-v0",
            vectorization_mode="async",
            vector_kwargs={"context": "spawn"},
            **kwargs,
        ),
        actions,
    )
    expected = run(gym.make_vec("LinearBAI-Soare-v0", vectorization_mode="sync", **kwargs), actions)
    assert_same(expected, outputs)
    assert list(outputs[2][2]) == [False, True] and outputs[4][2][0]  # both stopped once
