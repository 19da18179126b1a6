"""The complexity measures are computed on first access only, once per instance.

An episode whose final ``info["complexity"]`` nobody reads never solves the instance's lower
bound; ``run_episode`` reads it for ``EpisodeResult.lower_bound`` only after the episode's clock
has stopped, so the first episode of a fresh process is timed like the next ones.
"""

import copy
import pickle
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from agents import Uniform
from bandit_envs import BestArm, run_episode
from bandit_envs.core.complexity import ComplexityInfo

ROOT = Path(__file__).resolve().parents[3]


def finish(env, answer=(0,)):
    env.reset(seed=0)
    env.step(1)
    return env.step(env.stop_action(answer))[4]


@pytest.fixture
def counted(monkeypatch):
    """Count BestArm.complexity calls (on an instance no other test uses: a fresh cache key)."""
    calls = []
    original = BestArm.complexity

    def counting(self, model):
        calls.append(1)
        return original(self, model)

    monkeypatch.setattr(BestArm, "complexity", counting)
    return calls


def test_final_info_does_not_compute_until_read_then_once_per_instance(counted):
    env = gym.make("LinearBAI-Soare-v0", omega=0.3000003).unwrapped
    info = finish(env)
    assert isinstance(info["complexity"], ComplexityInfo) and not info["complexity"].computed
    assert counted == []
    assert "not computed" in repr(info["complexity"])
    lb = info["complexity"]["lower_bound"]
    assert lb > 0 and info["complexity"].computed and counted == [1]
    again = finish(env)  # a second episode, a second read: no new solve
    assert again["complexity"]["lower_bound"] == lb and env.complexity()["lower_bound"] == lb
    assert counted == [1]
    assert info["complexity"] == env.complexity() and dict(again["complexity"]).keys() == set(
        env.complexity()
    )


def test_each_info_owns_its_arrays():
    env = gym.make("LinearBAI-Soare-v0", omega=0.2).unwrapped
    a, b = finish(env)["complexity"], finish(env)["complexity"]
    assert a["gaps"] is not b["gaps"] and a["gaps"] is not env.complexity()["gaps"]
    a["gaps"][0] = 99.0  # writable, and only this info's copy changes
    assert env.complexity()["gaps"][0] != 99.0 and b["gaps"][0] != 99.0
    assert a != b and b == env.complexity()


def test_complexity_info_pickles_and_copies_before_and_after_reading():
    env = gym.make("LinearBAI-Soare-v0", omega=0.21).unwrapped
    info = finish(env)["complexity"]
    for clone in (pickle.loads(pickle.dumps(info)), copy.deepcopy(info)):
        assert not clone.computed
        assert clone["lower_bound"] == env.complexity()["lower_bound"]
    info["gaps"]
    clone = pickle.loads(pickle.dumps(info))
    assert clone.computed and clone == info
    np.testing.assert_array_equal(clone["oracle_weights"], info["oracle_weights"])


def test_the_record_times_the_episode_not_the_lower_bound(monkeypatch):
    original = BestArm.complexity

    def slow(self, model):
        time.sleep(0.5)
        return original(self, model)

    monkeypatch.setattr(BestArm, "complexity", slow)
    env = gym.make("LinearBAI-Soare-v0", omega=0.3000001)
    start = time.perf_counter()
    r = run_episode(env, Uniform(), 0)
    assert time.perf_counter() - start >= 0.5  # the lower bound was solved, for the record ...
    assert r.lower_bound is not None and r.lower_bound > 0
    assert r.wall_time < 0.5  # ... but not on the episode's clock


def test_a_fixed_budget_record_never_solves_the_lower_bound(counted):
    env = gym.make("LinearBAI-Soare-v0", omega=0.3000002, budget=30)
    r = run_episode(env, Uniform(), 0)
    assert r.lower_bound is None and counted == []


def test_a_fresh_process_running_an_episode_by_hand_imports_no_solver():
    code = (
        "import sys, gymnasium as gym, bandit_envs\n"
        "env = gym.make('LinearBAI-Soare-v0')\n"
        "env.reset(seed=0)\n"
        "for _ in range(30):\n"
        "    env.step(0)\n"
        "*_, info = env.step(env.unwrapped.stop_action({0}))\n"
        "assert info['correct'] and not info['complexity'].computed\n"
        "assert 'scipy.optimize' not in sys.modules, 'the lower bound was solved'\n"
        "info['complexity']['lower_bound']\n"
        "assert 'scipy.optimize' in sys.modules  # the test can fail: reading does solve it\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)
