"""Pickled and deep copies of every env id: the env, its spec and its infos (docs/rl.md, "Copies").

Vector envs send infos from worker processes, and users copy envs (or send them to workers)
mid-episode. Registry-driven: every id of ``bandit_envs.envs.env_entries()`` is copied before its
first reset and mid-episode, wrapped by ``gym.make`` and unwrapped, by ``pickle`` and by
``copy.deepcopy``, in both settings and with a truncating safety cap. A copy must then continue
exactly as the original does (same random generator state, same outcomes, rewards, ends and
infos) and keep its arrays read-only.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import assert_same, skip_without_data

import bandit_envs

CUSTOM = {
    "LinearBAI-Custom-v0": {"features": np.eye(3), "theta": [1.0, 0.5, 0.2]},
    "LinearPSI-Custom-v0": {"means": [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]]},
}
IDS = [e.id for e in bandit_envs.envs.env_entries()]
COPIES = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
    "pickle-unwrapped": lambda env: pickle.loads(pickle.dumps(env.unwrapped)),
    "deepcopy-unwrapped": lambda env: copy.deepcopy(env.unwrapped),
}


def make(env_id: str, **kw: Any) -> gym.Env:
    skip_without_data(env_id)
    return gym.make(env_id, **{**CUSTOM.get(env_id, {}), **kw})


def read_only_arrays(obj: Any) -> list[str]:
    return sorted(
        name
        for name, value in vars(obj).items()
        if isinstance(value, np.ndarray) and not value.flags.writeable
    )


def script(k: int, seed: int) -> tuple[list[Any], list[Any]]:
    """The actions before the copy and after it: pulls, batches, a render, a stop."""
    rng = np.random.default_rng(seed)
    before = [int(a) for a in rng.integers(k, size=5)] + [("batch", np.ones(k, dtype=np.int64))]
    after: list[Any] = [int(a) for a in rng.integers(k, size=3)]
    after += [("batch", np.arange(k, dtype=np.int64) % 3 + 1), "render"]
    after += [int(a) for a in rng.integers(k, size=3)] + [("stop", {0})]
    return before, after


def pulls_in(actions: list[Any]) -> int:
    return sum(
        1 if isinstance(a, int) else int(a[1].sum()) if a[0] == "batch" else 0 for a in actions
    )


def play(env: gym.Env, actions: list[Any]) -> list[Any]:
    """What the env returns for ``actions``, up to the end of the episode."""
    base = env.unwrapped
    out: list[Any] = []
    for action in actions:
        if action == "render":
            out.append(env.render())
            continue
        if isinstance(action, int):
            result = env.step(action)
        elif action[0] == "batch":
            result = base.step_batch(action[1])
        else:
            result = env.step(base.stop_action(action[1]))
        out.append(result)
        if result[2] or result[3]:
            break
    return out


def setting_for(env_id: str, setting: str) -> dict[str, Any]:
    """Keywords of ``setting``; the budget and the cap end the episode inside the script."""
    if setting == "confidence":
        return {}
    before, after = script(make(env_id).unwrapped.n_arms, 0)
    total = pulls_in(before) + pulls_in(after)
    if setting == "budget":  # the stop after the budget is graded as the budget's answer
        return {"budget": total}
    return {"max_samples": total}  # the last pull truncates the episode


@pytest.mark.parametrize("setting", ["confidence", "budget", "max_samples"])
@pytest.mark.parametrize("env_id", IDS)
def test_a_copy_made_mid_episode_continues_exactly(env_id, setting):
    env = make(env_id, render_mode="ansi", **setting_for(env_id, setting))
    base = env.unwrapped
    before, after = script(base.n_arms, 0)
    _, info = env.reset(seed=7)
    play(env, before)
    copies = {name: how(env) for name, how in COPIES.items()}
    for name, clone in copies.items():
        twin = clone.unwrapped
        assert twin is not base and twin.model is not base.model, name
        assert twin.np_random.bit_generator.state == base.np_random.bit_generator.state, name
        assert_same(base.pulls, twin.pulls, name)
        assert read_only_arrays(twin.model) == read_only_arrays(base.model), name
        assert read_only_arrays(twin.task) == read_only_arrays(base.task), name
        for value in (twin.problem.features, twin.problem.cost_thresholds):
            assert value is None or not value.flags.writeable, name
    expected = play(env, after)
    assert expected[-1][2] or expected[-1][3], "the script ends the episode"
    end = {"confidence": "stopped", "budget": "budget", "max_samples": "max_samples"}[setting]
    assert expected[-1][4]["stop_reason"] == end
    for name, clone in copies.items():
        assert_same(expected, play(clone, after), name)


@pytest.mark.parametrize("env_id", IDS)
def test_envs_specs_and_infos_pickle_before_and_after_episodes(env_id):
    env = make(env_id)
    for name, how in COPIES.items():  # a fresh env, never reset, copies too
        clone = how(env)
        assert_same(env.reset(seed=3), clone.reset(seed=3), name)
    assert_same(vars(pickle.loads(pickle.dumps(env.spec))), vars(env.spec))  # the EnvSpec
    _, info = env.reset(seed=3)
    infos = [info, env.step(0)[4], env.step(env.unwrapped.stop_action({0}))[4]]
    assert infos[0]["problem"] is env.unwrapped.problem and "truth" in infos[2]
    for info in infos:
        assert_same(pickle.loads(pickle.dumps(info)), info)
        assert_same(copy.deepcopy(info), info)
    spec = env.unwrapped.problem
    assert_same(pickle.loads(pickle.dumps(spec)), spec)
    assert_same(copy.deepcopy(spec), spec)
