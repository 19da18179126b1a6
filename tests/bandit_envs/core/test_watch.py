"""Long episodes are visible: the progress callback and the runaway warning of run_episode."""

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest

from agents import Uniform
from bandit_envs import BestArm, InvalidParameterError, run_episode
from bandit_envs.core.watch import (
    CHECK_EVERY,
    RUNAWAY_FLOOR,
    RUNAWAY_SAMPLES_WITHOUT_BOUND,
    EpisodeProgress,
)
from bandit_envs.errors import RunawayEpisodeWarning


class NeverStops:
    """Pulls arm 0 forever (one at a time, or in batches of ``chunk``): a broken stopping rule."""

    name = "NeverStops"

    def __init__(self, chunk=None):
        self.chunk = chunk

    def reset(self, spec, rng):
        self.k = spec.n_arms

    def select(self):
        return 0

    def observe(self, arm, outcome):
        pass

    def recommend(self):
        return frozenset({0})


class NeverStopsBatch(NeverStops):
    name = "NeverStopsBatch"

    def select_batch(self):
        counts = np.zeros(self.k, dtype=np.int64)
        counts[0] = self.chunk
        return counts

    def observe_batch(self, counts, sums):
        pass


def lower_bound(env):
    base = env.unwrapped
    return base.complexity()["lower_bound"] * np.log(1 / base.delta)


def test_a_runaway_episode_warns_once_naming_agent_env_and_multiple():
    env = gym.make("LinearBAI-Soare-v0", max_samples=3_000_000)
    lb = lower_bound(env)  # about 660 samples: the warning comes at 1000x, 660,000 samples
    with pytest.warns(RunawayEpisodeWarning) as caught:
        r = run_episode(env, NeverStopsBatch(chunk=50_000), 7)
    assert r.stop_reason == "max_samples" and not r.correct
    runaway = [w for w in caught if issubclass(w.category, RunawayEpisodeWarning)]
    assert len(runaway) == 1
    text = str(runaway[0].message)
    first = int(np.ceil(1000 * lb / 50_000)) * 50_000  # the first batch boundary past 1000x
    assert text.startswith(
        f"NeverStopsBatch on LinearBAI-Soare-v0 (seed 7) has drawn {first:,} samples in "
    )
    multiple = f"{first / lb:,.0f} times the lower bound T*·log(1/δ) = {lb:,.4g}"
    assert multiple in text and "(the warning comes at 1000 times)" in text
    assert "it is truncated, and counted wrong, at max_samples=3,000,000" in text
    assert runaway[0].filename == __file__  # points at the run_episode call


def test_the_one_pull_path_warns_too_and_the_multiple_is_a_parameter():
    env = gym.make("LinearBAI-Soare-v0", max_samples=200_000)
    with pytest.warns(RunawayEpisodeWarning, match=r"NeverStops on LinearBAI-Soare-v0"):
        r = run_episode(env, NeverStops(), 0, batch=False, runaway=10.0)
    # 10x the bound is below the floor: the warning comes at the first look past 10^5 samples
    assert r.samples == 200_000
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunawayEpisodeWarning)
        run_episode(env, NeverStops(), 0, batch=False, runaway=None)  # None: never


def test_instances_without_a_lower_bound_warn_at_ten_million_samples(monkeypatch):
    # as for a model with no known T* (a fresh instance, so that no cached measures are used)
    monkeypatch.setattr(BestArm, "complexity", lambda self, model: {"gaps": np.zeros(3)})
    env = gym.make(
        "LinearBAI-Soare-v0", omega=0.3000005, max_samples=RUNAWAY_SAMPLES_WITHOUT_BOUND + 10
    )
    with pytest.warns(RunawayEpisodeWarning, match="has no known lower bound") as caught:
        run_episode(env, NeverStopsBatch(chunk=1_000_000), 0)
    assert f"has drawn {RUNAWAY_SAMPLES_WITHOUT_BOUND:,} samples" in str(caught[0].message)


def test_correct_zoo_agents_and_short_episodes_stay_quiet(monkeypatch):
    solved = []
    original = BestArm.complexity
    monkeypatch.setattr(BestArm, "complexity", lambda s, m: solved.append(1) or original(s, m))
    env = gym.make("LinearBAI-Soare-v0", omega=0.3000004, max_samples=RUNAWAY_FLOOR - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunawayEpisodeWarning)
        r = run_episode(env, NeverStops(), 0, batch=False, runaway=1e-9)
    assert r.stop_reason == "max_samples"
    assert solved == [1]  # once, for the record after the episode: never below the floor
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunawayEpisodeWarning)
        assert run_episode(gym.make("LinearBAI-Soare-v0"), Uniform(), 0).correct


def test_progress_is_called_every_few_seconds_with_a_snapshot():
    calls = []
    env = gym.make("LinearBAI-Soare-v0", max_samples=5 * CHECK_EVERY + 1)
    run_episode(env, NeverStops(), 3, batch=False, progress=calls.append, progress_every=1e-9)
    assert [c.samples for c in calls] == [CHECK_EVERY * i for i in range(1, 6)]
    first = calls[0]
    assert isinstance(first, EpisodeProgress)
    assert (first.env_id, first.agent, first.seed) == ("LinearBAI-Soare-v0", "NeverStops", 3)
    assert first.max_samples == first.limit == 5 * CHECK_EVERY + 1 and first.budget is None
    assert first.lower_bound is None  # not looked up: the episode is not long yet
    assert 0 < first.elapsed <= calls[-1].elapsed

    batch_calls = []
    fb = gym.make("LinearBAI-Soare-v0", budget=10_000)
    agent = NeverStopsBatch(chunk=2000)
    run_episode(fb, agent, 0, progress=batch_calls.append, progress_every=1e-9)
    assert [c.samples for c in batch_calls] == [2000, 4000, 6000, 8000, 10_000]
    assert batch_calls[0].limit == batch_calls[0].budget == 10_000


def test_short_episodes_get_no_progress_call():
    calls = []
    run_episode(gym.make("LinearBAI-Soare-v0"), Uniform(), 0, progress=calls.append)
    assert calls == []


def test_an_exception_from_progress_ends_the_episode():
    class Stop(Exception):
        pass

    def give_up(p):
        if p.samples >= 2 * CHECK_EVERY:
            raise Stop(p.samples)

    env = gym.make("LinearBAI-Soare-v0")
    with pytest.raises(Stop):
        run_episode(env, NeverStops(), 0, batch=False, progress=give_up, progress_every=1e-9)
    assert env.unwrapped.samples == 2 * CHECK_EVERY


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"progress": 3}, "progress must be a callable taking an EpisodeProgress, or None; got 3."),
        ({"progress_every": 0}, "progress_every must be a positive number of seconds; got 0."),
        ({"progress_every": True}, "progress_every must be a positive number of seconds"),
        ({"runaway": -1.0}, "runaway must be a positive multiple of T*·log(1/δ), or None"),
        ({"runaway": float("nan")}, "runaway must be a positive multiple"),
    ],
)
def test_bad_watch_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        run_episode(gym.make("LinearBAI-Soare-v0"), Uniform(), 0, **kwargs)
