"""The environment contract of docs/concepts.md: spaces, seeding, termination, rewards, errors."""

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from conftest import skip_without_data
from gymnasium.utils.env_checker import check_env

import bandit_envs
from bandit_envs import (
    BudgetExceededError,
    EpisodeOver,
    InvalidActionError,
    InvalidAnswerError,
    InvalidInstanceError,
    InvalidParameterError,
    ResetNeeded,
)
from bandit_envs.core.env import DEFAULT_MAX_SAMPLES

CUSTOM = dict(features=np.eye(3), theta=[1.0, 0.5, 0.2])


def make(env_id="LinearBAI-Soare-v0", **kw):
    if env_id == "LinearBAI-Custom-v0":
        kw = {**CUSTOM, **kw}
    if env_id == "LinearPSI-Custom-v0":
        kw = {"means": [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]], **kw}
    return gym.make(env_id, **kw)


# The observation space is Box(-inf, inf) (docs/concepts.md): outcomes are unbounded Gaussians.
# Gymnasium's checker advises against infinite bounds; these two notes are the only ones allowed.
ALLOWED_WARNINGS = (
    "A Box observation space minimum value is -infinity",
    "A Box observation space maximum value is infinity",
)


@pytest.mark.parametrize("env_id", [e.id for e in bandit_envs.envs.env_entries()])
@pytest.mark.parametrize("setting", [{}, {"budget": 50}])
def test_gymnasium_check_env(env_id, setting):
    skip_without_data(env_id)
    env = make(env_id, **setting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    unexpected = [
        str(w.message) for w in caught if not any(a in str(w.message) for a in ALLOWED_WARNINGS)
    ]
    assert not unexpected, unexpected


def test_spaces_and_reset_info(soare):
    k = 3
    assert soare.action_space == gym.spaces.MultiDiscrete([k + 1] + [2] * k)
    assert soare.observation_space.shape == (1,)
    assert soare.observation_space.dtype == np.float64
    obs, info = soare.reset(seed=0)
    assert np.array_equal(obs, np.zeros(1))
    spec = info["problem"]
    assert spec is soare.problem
    assert spec.task == "best_arm" and spec.setting == "fixed_confidence"
    assert spec.delta == 0.05 and spec.budget is None and spec.max_samples == DEFAULT_MAX_SAMPLES
    assert spec.features.shape == (3, 2) and spec.noise_std == 1.0
    # no truth in the ProblemSpec
    assert not any(name in ("theta", "means") for name in vars(spec))


def test_default_instance_matches_the_paper_family(soare):
    x = soare.problem.features
    np.testing.assert_allclose(x, [[1, 0], [0, 1], [np.cos(0.1), np.sin(0.1)]])
    np.testing.assert_allclose(soare.model.theta, [2.0, 0.0])
    paper = make(d=5, omega=0.01).unwrapped
    assert paper.problem.features.shape == (6, 5)
    mu = paper.model.means.ravel()
    assert mu.argmax() == 0
    assert mu[0] - mu[5] == pytest.approx(2 * (1 - np.cos(0.01)), rel=1e-9)


def test_pull_and_stop_correct(soare):
    soare.reset(seed=1)
    obs, reward, terminated, truncated, info = soare.step(1)
    assert obs.shape == (1,) and reward == 0.0 and not terminated and not truncated
    assert info == {"samples": 1}
    obs, reward, terminated, truncated, info = soare.step(soare.stop_action({0}))
    assert terminated and not truncated and reward == 1.0
    assert info["correct"] and info["answer"] == frozenset({0})
    assert info["true_answer"] == frozenset({0}) and info["stop_reason"] == "stopped"
    assert info["samples"] == 1 and list(info["pulls"]) == [0, 1, 0]
    assert info["precision"] == info["recall"] == info["f1"] == 1.0
    assert info["complexity"]["lower_bound"] > 0
    np.testing.assert_allclose(info["truth"]["theta"], [2.0, 0.0])


def test_rewards_are_keywords():
    env = make(sample_cost=0.01, correct_reward=5.0, wrong_reward=-3.0).unwrapped
    env.reset(seed=0)
    assert env.step(0)[1] == pytest.approx(-0.01)
    assert env.step(env.stop_action({2}))[1] == -3.0
    env.reset(seed=0)
    assert env.step(env.stop_action({0}))[1] == 5.0


def test_fixed_budget_grades_next_action_whatever_it_is():
    env = make(budget=2).unwrapped
    assert env.problem.setting == "fixed_budget" and env.problem.budget == 2
    assert env.problem.delta is None and env.problem.max_samples is None
    env.reset(seed=0)
    env.step(0)
    env.step(1)
    # budget spent: a "pull" action is graded as a stop with its answer bits
    action = env.pull_action(2)
    action[1] = 1
    _, reward, terminated, truncated, info = env.step(action)
    assert terminated and not truncated and info["stop_reason"] == "budget"
    assert info["answer"] == frozenset({0}) and info["correct"] and info["samples"] == 2
    # a plain int carries no answer: graded as the empty set (wrong)
    env.reset(seed=0)
    env.step(0), env.step(0)
    info = env.step(1)[4]
    assert info["answer"] == frozenset() and not info["correct"]


def test_fixed_budget_may_stop_early():
    env = make(budget=10).unwrapped
    env.reset(seed=0)
    env.step(0)
    info = env.step(env.stop_action({0}))[4]
    assert info["stop_reason"] == "stopped" and info["samples"] == 1


def test_max_samples_truncates_as_wrong():
    env = make(max_samples=3, wrong_reward=-1.0).unwrapped
    env.reset(seed=0)
    env.step(0), env.step(1)
    _, reward, terminated, truncated, info = env.step(2)
    assert truncated and not terminated and reward == -1.0
    assert info["stop_reason"] == "max_samples" and not info["correct"]
    assert info["answer"] is None and info["samples"] == 3


def test_seeding_changes_noise_not_instance():
    a, b = make().unwrapped, make().unwrapped
    outs = []
    for env, seed in ((a, 5), (b, 5), (a, 6)):
        env.reset(seed=seed)
        outs.append([env.step(i % 3)[0][0] for i in range(6)])
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]
    np.testing.assert_array_equal(a.model.theta, b.model.theta)


def test_batch_sums_are_exact_gaussian_sums():
    env = make(budget=10**9).unwrapped
    counts = np.array([1000, 0, 250])
    draws = []
    for seed in range(400):
        env.reset(seed=seed)
        sums = env.step_batch(counts)[0]
        draws.append(sums[:, 0])
    draws = np.array(draws)
    mu = env.model.means[:, 0]
    # mean n*mu and standard deviation sqrt(n) (sigma = 1), within 4 standard errors
    assert np.all(np.abs(draws.mean(0) - counts * mu) <= 4 * np.sqrt(counts / 400) + 1e-9)
    assert np.all(np.abs(draws.std(0) - np.sqrt(counts)) <= 0.15 * np.sqrt(counts) + 1e-12)
    assert np.all(draws[:, 1] == 0.0)
    assert env.samples == 1250 and list(env.pulls) == [1000, 0, 250]


def test_render_ansi():
    env = make(render_mode="ansi").unwrapped
    env.reset(seed=0)
    env.step(1)
    text = env.render()
    assert "LinearBAI-Soare-v0" in text and "samples 1" in text and "pulls [0 1 0]" in text


# --------------------------------------------------------------------- invalid use, one by one


def test_step_before_reset():
    env = make().unwrapped
    with pytest.raises(
        ResetNeeded,
        match=re.escape(
            "LinearBAI-Soare-v0: cannot call step() before reset(); call env.reset(seed=...) "
            "to start an episode."
        ),
    ):
        env.step(0)
    with pytest.raises(ResetNeeded, match=re.escape("cannot call step_batch() before reset()")):
        env.step_batch(np.ones(3, dtype=int))


def test_step_after_end(soare):
    soare.reset(seed=0)
    soare.step(soare.stop_action({0}))
    with pytest.raises(
        EpisodeOver,
        match=re.escape(
            "LinearBAI-Soare-v0: the episode has ended (stopped); call env.reset() to start a "
            "new one."
        ),
    ):
        soare.step(0)
    assert issubclass(EpisodeOver, gym.error.ResetNeeded)


@pytest.mark.parametrize(
    "action, message",
    [
        (3 + 1, "arm 4 is out of range; pull an arm 0..2 or stop with 3."),
        (-1, "arm -1 is out of range; pull an arm 0..2 or stop with 3."),
        (1.0, "an action is an arm index (int) or an integer array of shape (4,)"),
        (True, "an action is an arm index (int) or an integer array of shape (4,)"),
        (np.array([3, 1, 0]), "an action is an arm index (int) or an integer array of shape (4,)"),
        (np.array([3, 2, 0, 0]), "answer bits must be 0 or 1; bit 0 is 2."),
        ("stop", "an action is an arm index (int) or an integer array of shape (4,)"),
    ],
)
def test_malformed_actions(soare, action, message):
    soare.reset(seed=0)
    with pytest.raises(InvalidActionError, match=re.escape(message)):
        soare.step(action)


def test_malformed_stop_answer(soare):
    with pytest.raises(
        InvalidAnswerError,
        match=re.escape("stop_action: answer contains item 7, outside the valid range 0..2."),
    ):
        soare.stop_action({7})
    with pytest.raises(InvalidAnswerError, match="must be a set of item indices"):
        soare.stop_action(0)


@pytest.mark.parametrize(
    "counts, message",
    [
        (np.array([1, 2]), "step_batch takes one non-negative integer count per arm, shape (3,)"),
        (np.array([1.0, 2.0, 3.0]), "step_batch takes one non-negative integer count per arm"),
        (np.array([1, -2, 3]), "pull counts must be >= 0; arm 1 has -2."),
        (np.array([0, 0, 0]), "step_batch needs at least one pull."),
    ],
)
def test_malformed_batches(soare, counts, message):
    soare.reset(seed=0)
    with pytest.raises(InvalidActionError, match=re.escape(message)):
        soare.step_batch(counts)


def test_batch_over_budget():
    env = make(budget=10).unwrapped
    env.reset(seed=0)
    env.step_batch(np.array([3, 3, 0]))
    with pytest.raises(
        BudgetExceededError,
        match=re.escape("the batch asks for 5 pulls but only 4 of the budget 10 remain."),
    ):
        env.step_batch(np.array([5, 0, 0]))


def test_batch_crossing_max_samples_truncates():
    env = make(max_samples=100).unwrapped
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step_batch(np.array([50, 50, 50]))
    assert truncated and not terminated and info["stop_reason"] == "max_samples"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"delta": 0.0}, "delta must be a float in the open interval (0, 1); got 0.0."),
        ({"delta": 1.5}, "delta must be a float in the open interval (0, 1); got 1.5."),
        ({"delta": "0.1"}, "delta must be a float in the open interval (0, 1); got '0.1'."),
        ({"budget": 0}, "budget must be an integer >= 1; got 0."),
        ({"budget": 10.5}, "budget must be an integer >= 1; got 10.5."),
        (
            {"delta": 0.1, "budget": 10},
            "give exactly one of delta= (fixed confidence) and budget= (fixed budget); got "
            "delta=0.1 and budget=10.",
        ),
        ({"budget": 10, "max_samples": 5}, "max_samples is the safety cap of the fixed-confidence"),
        ({"max_samples": 0}, "max_samples must be an integer >= 1; got 0."),
        ({"d": 1}, "d must be an integer >= 2; got 1."),
        ({"d": 2.5}, "d must be an integer >= 2; got 2.5."),
        ({"omega": 0.0}, "omega must be an angle in radians in (0, pi/2); got 0.0."),
        ({"omega": float("nan")}, "omega must be a finite float; got nan."),
        ({"scale": -1.0}, "scale must be > 0"),
        ({"sigma": -1.0}, "sigma must be a finite float >= 0; got -1.0."),
        ({"sample_cost": float("inf")}, "sample_cost must be a finite float; got inf."),
        (
            {"render_mode": "rgb"},
            "render_mode must be one of ['ansi', 'rgb_array', 'human'] or None; got 'rgb'.",
        ),
    ],
)
def test_bad_soare_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        gym.make("LinearBAI-Soare-v0", **kwargs)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"features": np.eye(3)}, "features= (K×h array) and theta= (length-h array) are required"),
        (
            {"features": np.eye(3), "theta": [1.0, np.nan, 0.0]},
            "theta must be finite; 1 entries are NaN or infinite, the first at index (1,)",
        ),
        (
            {"features": [[1.0, np.inf], [0.0, 1.0]], "theta": [1.0, 0.0]},
            "features must be finite; 1 entries are NaN or infinite, the first at index (0, 1)",
        ),
        (
            {"features": np.eye(3), "theta": [1.0, 0.0]},
            "theta must have as many rows as features has columns (3); got features of shape "
            "(3, 3) and theta of shape (2,).",
        ),
        ({"features": np.ones(3), "theta": [1.0]}, "features must be a 2-D array; got shape (3,)."),
        ({"features": np.eye(2), "theta": np.eye(2)}, "theta must be a 1-D array"),
        ({"features": [[1.0]], "theta": [1.0]}, "features must have at least 2 rows"),
        ({"features": [["a", "b"]], "theta": [1.0, 0.0]}, "features must be a numeric array"),
    ],
)
def test_bad_custom_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        gym.make("LinearBAI-Custom-v0", **kwargs)


def test_tied_best_arm_is_refused():
    with pytest.raises(
        InvalidInstanceError,
        match=re.escape("BestArm: the best arm is not unique: arms 0, 2 all have mean 1.0"),
    ):
        gym.make("LinearBAI-Custom-v0", features=np.eye(3), theta=[1.0, 0.5, 1.0])


def test_reset_options_are_refused(soare):
    with pytest.raises(InvalidParameterError, match="reset\\(\\) takes no options"):
        soare.reset(seed=0, options={"instance_seed": 3})


def test_custom_identity_features_is_unstructured_gaussian_bandit():
    env = gym.make(
        "LinearBAI-Custom-v0", features=np.eye(4), theta=[0.1, 0.9, 0.3, 0.2], sigma=0.0, budget=5
    ).unwrapped
    env.reset(seed=0)
    assert env.step(1)[0][0] == 0.9  # noiseless
