"""bandit_envs.rl.wrappers: the sufficient-statistics observation, action masks, Discrete pulls."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from conftest import skip_without_data
from gymnasium.utils.env_checker import check_env

import bandit_envs
from bandit_envs import (
    ActionMask,
    BanditStatistics,
    DiscretePulls,
    InvalidActionError,
    InvalidParameterError,
    PlugInRecommender,
    SufficientStatistics,
)
from bandit_envs.rl.wrappers import action_mask

CUSTOM_EXAMPLES = {
    "LinearBAI-Custom-v0": {"features": np.eye(3), "theta": [1.0, 0.5, 0.2]},
    "LinearPSI-Custom-v0": {"means": [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]]},
}


def make(env_id, **kw):
    skip_without_data(env_id)
    return gym.make(env_id, **{**CUSTOM_EXAMPLES.get(env_id, {}), **kw})


def _sample_ids():
    """Per family, its first id and its -Custom-v0 id (registry-driven)."""
    out, seen = [], set()
    for entry in bandit_envs.envs.env_entries():
        if entry.family not in seen or entry.id.endswith("-Custom-v0"):
            out.append(entry.id)
            seen.add(entry.family)
    return out


# Gymnasium's checker advises against infinite Box bounds (outcomes and estimates are unbounded)
# and against checking a wrapped environment; these notes are the only ones allowed.
ALLOWED_WARNINGS = (
    "A Box observation space minimum value is -infinity",
    "A Box observation space maximum value is infinity",
    "is different from the unwrapped version",
)

WRAPPINGS = {
    "statistics": SufficientStatistics,
    "masked-statistics": lambda env: ActionMask(SufficientStatistics(env)),
    "discrete-masked-statistics": lambda env: ActionMask(SufficientStatistics(DiscretePulls(env))),
}


@pytest.mark.parametrize("wrapping", list(WRAPPINGS))
@pytest.mark.parametrize("setting", [{}, {"budget": 50}], ids=["default", "budget"])
@pytest.mark.parametrize("env_id", _sample_ids())
def test_gymnasium_check_env(env_id, setting, wrapping):
    env = WRAPPINGS[wrapping](make(env_id, **setting))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    unexpected = [
        str(w.message) for w in caught if not any(a in str(w.message) for a in ALLOWED_WARNINGS)
    ]
    assert not unexpected, unexpected


def test_wrapped_spec_remakes_the_same_stack():
    env = ActionMask(
        SufficientStatistics(make("LinearBAI-Soare-v0", budget=20), ridge=2.0), early_stop=False
    )
    again = env.spec.make()
    assert isinstance(again, ActionMask) and not again.early_stop
    assert isinstance(again.env, SufficientStatistics) and again.env.statistics.ridge == 2.0


# --------------------------------------------------------------------------- statistics


def direct_statistics(features, arms, outcomes, batch_counts, batch_sums, k, ridge):
    """Counts, means, θ̂ and (A + λI)⁻¹ computed from scratch."""
    m = outcomes.shape[1] if len(outcomes) else batch_sums.shape[1]
    counts = np.bincount(arms, minlength=k) + batch_counts
    sums = np.zeros((k, m))
    np.add.at(sums, arms, outcomes)
    sums += batch_sums
    means = sums / np.maximum(counts, 1)[:, None]
    if features is None:
        return counts, means, None, None
    gram = (features.T * counts) @ features + ridge * np.eye(features.shape[1])
    inverse = np.linalg.inv(gram)
    theta = inverse @ (features.T @ sums)
    return counts, means, (theta[:, 0] if m == 1 else theta), inverse


@pytest.mark.parametrize(
    "env_id, kw",
    [
        ("LinearBAI-Soare-v0", {"budget": 400}),
        ("LinearPSI-Synthetic-v0", {"K": 12}),  # m = 2, h = 8 > rank at first
        ("LinearEpsGood-FreeWilson-v0", {}),  # rank-deficient (16 of 21)
        ("ConstrainedMixed-Custom-v0", {"known_arms": (4,)}),  # no features, m = 2
    ],
)
def test_statistics_equal_a_direct_computation(env_id, kw):
    ridge = 0.5
    raw = make(env_id, **kw)
    env = SufficientStatistics(make(env_id, **kw), ridge=ridge, horizon=100)
    base = raw.unwrapped
    k, features = base.n_arms, base.problem.features
    raw.reset(seed=5)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    arms, outcomes = [], []
    batch_counts = np.zeros(k, dtype=np.int64)
    batch_sums = np.zeros((k, base.model.outcome_dim))
    for phase in range(3):
        if phase == 1:  # the exact batch path, between single pulls
            counts = rng.integers(0, 4, size=k)
            counts[0] += 1
            sums = raw.unwrapped.step_batch(counts)[0]
            obs, _, _, _, info = env.step_batch(counts)
            np.testing.assert_array_equal(info["sums"], sums)
            batch_counts += counts
            batch_sums += sums
            continue
        for arm in rng.integers(0, k, size=25):
            outcome = raw.step(int(arm))[0]
            obs = env.step(env.unwrapped.pull_action(int(arm)))[0]
            arms.append(int(arm))
            outcomes.append(outcome)
    counts, means, theta, inverse = direct_statistics(
        features, np.array(arms), np.array(outcomes), batch_counts, batch_sums, k, ridge
    )
    got = env.statistics.unflatten(obs)
    np.testing.assert_allclose(got["counts"], counts / 100)
    np.testing.assert_allclose(got["means"], means, rtol=1e-12, atol=1e-12)
    assert got["time"] == pytest.approx(counts.sum() / 100)
    if features is None:
        assert set(got) == {"counts", "means", "time"}
    else:
        np.testing.assert_allclose(got["theta"], theta, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(got["inverse"], inverse, rtol=1e-8, atol=1e-12)
    assert obs.shape == env.observation_space.shape and env.observation_space.contains(obs)


def test_reset_clears_the_statistics_and_the_default_horizon_is_the_budget():
    env = SufficientStatistics(make("LinearBAI-Soare-v0", budget=40))
    first, _ = env.reset(seed=1)
    lay = env.layout
    np.testing.assert_array_equal(first[lay["theta"]], 0.0)
    h = env.unwrapped.problem.features.shape[1]
    np.testing.assert_allclose(env.statistics.unflatten(first)["inverse"], np.eye(h))
    for arm in (0, 1, 1, 2):
        obs = env.step(arm)[0]
    np.testing.assert_allclose(obs[lay["counts"]], np.array([1, 2, 1]) / 40)
    assert obs[lay["time"]][0] == 4 / 40
    assert env.observation_space.high[lay["counts"]].max() == 1.0
    again, _ = env.reset(seed=1)
    np.testing.assert_array_equal(again, first)


def test_stop_and_budget_steps_leave_the_statistics_unchanged():
    env = SufficientStatistics(make("LinearBAI-Soare-v0", budget=3))
    env.reset(seed=0)
    for arm in (0, 1, 2):
        obs = env.step(arm)[0]
    final, _, terminated, _, info = env.step(1)  # budget spent: graded, not pulled
    assert terminated and info["samples"] == 3
    np.testing.assert_array_equal(final, obs)


def test_fixed_confidence_statistics_and_max_samples():
    env = SufficientStatistics(make("LinearBAI-Soare-v0", max_samples=5), horizon=4)
    env.reset(seed=0)
    for arm in (0, 1, 2, 0):
        env.step(arm)
    obs, _, terminated, truncated, _ = env.step(2)  # the fifth pull is made, then truncated
    assert truncated and not terminated
    assert obs[env.layout["time"]][0] == 5 / 4
    assert env.observation_space.high[env.layout["time"]][0] == np.inf  # horizon < cap
    assert env.observation_space.contains(obs)
    capped = SufficientStatistics(make("LinearBAI-Soare-v0", max_samples=5))
    assert capped.observation_space.high[capped.layout["time"]][0] == 1.0


def test_single_pulls_update_incrementally(monkeypatch):
    """One pull is a rank-one update, O(m + h²·m): no matrix is inverted or solved."""
    env = SufficientStatistics(make("LinearBAI-Sphere-v0", budget=1000))
    env.reset(seed=0)

    def refuse(*args, **kwargs):
        raise AssertionError("a single pull must not invert, solve or factorise a matrix")

    for name in ("inv", "pinv", "solve", "lstsq", "eigh", "svd", "cholesky"):
        monkeypatch.setattr(np.linalg, name, refuse)
    for arm in np.random.default_rng(0).integers(0, env.unwrapped.n_arms, size=300).tolist():
        env.step(arm)
    assert env.statistics.t == 300


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ridge": 0.0}, "ridge must be a finite number > 0; got 0.0"),
        ({"horizon": -3}, "horizon must be a finite number > 0; got -3"),
        ({"horizon": float("nan")}, "horizon must be a finite number > 0; got nan"),
    ],
)
def test_bad_statistics_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        SufficientStatistics(make("LinearBAI-Soare-v0"), **kwargs)


def test_wrapping_something_else_is_refused():
    with pytest.raises(InvalidParameterError, match="must be a PureExplorationEnv"):
        SufficientStatistics(gym.make("CartPole-v1"))
    with pytest.raises(InvalidParameterError, match="Apply SufficientStatistics below"):
        SufficientStatistics(SufficientStatistics(make("LinearBAI-Soare-v0")))


def test_unflatten_checks_the_shape():
    stats = BanditStatistics(make("LinearBAI-Soare-v0").unwrapped.problem)
    with pytest.raises(InvalidParameterError, match=r"shape \(12,\); got \(3,\)"):
        stats.unflatten(np.zeros(3))


# --------------------------------------------------------------------------- action masks


def test_known_arms_are_masked_and_masked_sampling_never_pulls_them():
    env = ActionMask(
        SufficientStatistics(make("ConstrainedMixed-Custom-v0", known_arms=(1, 3), budget=40))
    )
    _, info = env.reset(seed=0)
    k, n_items = env.unwrapped.n_arms, env.unwrapped.n_items
    mask = env.action_masks()
    assert mask.shape == (k + 1 + 2 * n_items,)
    np.testing.assert_array_equal(mask[: k + 1], [True, False, True, False, True, True])
    assert mask[k + 1 :].all()
    np.testing.assert_array_equal(info["action_mask"], mask)
    env.action_space.seed(0)
    sizes = env.action_space.nvec
    while True:
        mask = env.action_masks()
        blocks = np.split(mask, np.cumsum(sizes)[:-1])
        action = env.action_space.sample(mask=tuple(b.astype(np.int8) for b in blocks))
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert info["pulls"][1] == info["pulls"][3] == 0


def test_budget_spent_masks_every_arm_and_early_stop_false_masks_stop():
    env = ActionMask(make("LinearBAI-Soare-v0", budget=2), early_stop=False)
    env.reset(seed=0)
    k = env.unwrapped.n_arms
    np.testing.assert_array_equal(env.action_masks()[: k + 1], [True] * k + [False])
    env.step(0)
    _, _, _, _, info = env.step(1)
    np.testing.assert_array_equal(info["action_mask"][: k + 1], [False] * k + [True])


def test_discrete_mask_and_the_mask_function():
    env = ActionMask(DiscretePulls(make("ConstrainedMixed-Custom-v0", known_arms=(0,))))
    env.reset(seed=0)
    np.testing.assert_array_equal(env.action_masks(), [False, True, True, True, True, True])
    spec = env.unwrapped.problem
    np.testing.assert_array_equal(
        action_mask(spec, 0, discrete=True, mask_known_arms=False), [True] * 6
    )


def test_mask_arguments_are_checked():
    with pytest.raises(InvalidParameterError, match="early_stop=False applies to the fixed-budget"):
        ActionMask(make("LinearBAI-Soare-v0"), early_stop=False)
    with pytest.raises(InvalidParameterError, match="apply ActionMask on top of DiscretePulls"):
        DiscretePulls(ActionMask(make("LinearBAI-Soare-v0")))


# --------------------------------------------------------------------------- Discrete pulls


def test_discrete_pulls_stop_answers_with_the_plug_in_rule():
    env = DiscretePulls(
        make("LinearBAI-Custom-v0", features=np.eye(3), theta=[0.2, 1.0, 0.5], sigma=0.0)
    )
    assert env.action_space == gym.spaces.Discrete(4)
    env.reset(seed=0)
    for arm in (0, 1):
        env.step(arm)
    _, reward, terminated, _, info = env.step(3)
    assert terminated and info["answer"] == frozenset({1}) and reward == 1.0
    assert env.recommender.counts.tolist() == [1, 1, 0]


def test_discrete_pulls_budget_spent_is_answered_by_the_recommender():
    env = DiscretePulls(
        make(
            "LinearPSI-Custom-v0", means=[[1.0, 0.0], [0.0, 1.0], [0.2, -0.1]], sigma=0.0, budget=3
        )
    )
    env.reset(seed=0)
    for arm in (0, 1, 2):
        env.step(arm)
    _, _, terminated, _, info = env.step(0)  # any action is now graded, with the plug-in answer
    assert terminated and info["answer"] == frozenset({0, 1}) and info["correct"]


def test_discrete_pulls_batch_path_feeds_the_recommender_through_every_wrapper():
    env = ActionMask(SufficientStatistics(DiscretePulls(make("LinearBAI-Soare-v0", budget=30))))
    env.reset(seed=0)
    obs, _, _, _, info = env.step_batch(np.array([4, 2, 3]))
    assert env.unwrapped.samples == 9 and "action_mask" in info and "sums" in info
    recommender = env.env.env.recommender
    assert recommender.counts.tolist() == [4, 2, 3]
    np.testing.assert_allclose(recommender.sums, info["sums"])
    np.testing.assert_allclose(obs[env.env.layout["counts"]], np.array([4, 2, 3]) / 30)


def test_plug_in_recommender_uses_known_means_and_features():
    env = make("ConstrainedMixed-Custom-v0", known_arms=(1,))
    rec = PlugInRecommender(env.unwrapped.task)
    rec.reset(env.unwrapped.problem, np.random.default_rng(0))
    known = env.unwrapped.problem.extras["known_means"][0]
    np.testing.assert_array_equal(rec.estimated_means()[1], known)
    env = make("LinearBAI-Soare-v0")
    rec = PlugInRecommender(env.unwrapped.task)
    rec.reset(env.unwrapped.problem, np.random.default_rng(0))
    rec.observe(0, np.array([2.0]))
    rec.observe(1, np.array([1.0]))
    # arm 2 was never pulled; it is estimated through the features (x_2 = (cos ω, sin ω))
    means = rec.estimated_means()[:, 0]
    features = env.unwrapped.problem.features
    np.testing.assert_allclose(means[2], features[2] @ np.array([2.0, 1.0]))
    assert rec.recommend() == frozenset({2})


def test_discrete_pulls_refuses_bad_actions_and_bad_stacks():
    env = DiscretePulls(make("LinearBAI-Soare-v0"))
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"an integer in 0..3 \(arm, or 3 to stop\)"):
        env.step(4)
    with pytest.raises(InvalidActionError, match="an integer in 0..3"):
        env.step(np.array([0, 1, 0, 0]))
    with pytest.raises(InvalidParameterError, match="Apply DiscretePulls below SufficientStat"):
        DiscretePulls(SufficientStatistics(make("LinearBAI-Soare-v0")))
    with pytest.raises(InvalidParameterError, match="the recommender lacks"):
        DiscretePulls(make("LinearBAI-Soare-v0"), recommender=object())


COPY_WRAPPINGS = {
    "statistics": SufficientStatistics,
    "masked-statistics": lambda env: ActionMask(SufficientStatistics(env)),
    "discrete-masked-statistics": lambda env: ActionMask(SufficientStatistics(DiscretePulls(env))),
}


@pytest.mark.parametrize("wrapping", list(COPY_WRAPPINGS))
@pytest.mark.parametrize("env_id", _sample_ids())
def test_a_wrapped_env_copied_mid_episode_continues_exactly(env_id, wrapping):
    import copy
    import pickle

    env = COPY_WRAPPINGS[wrapping](make(env_id))
    k = env.unwrapped.n_arms
    discrete = wrapping.startswith("discrete")

    def act(x, arm):
        return arm if discrete else x.unwrapped.pull_action(arm)

    env.reset(seed=4)
    for t in range(5):
        env.step(act(env, (2 * t + 1) % k))
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]

    def go_on(x):
        out = [x.step(act(x, t % k)) for t in range(6)]
        masks = [x.action_masks()] if hasattr(x, "action_masks") else []
        stop = x.step(k if discrete else x.unwrapped.stop_action({0}))
        return out, masks, stop

    expected = go_on(env)
    for twin in copies:
        got = go_on(twin)
        for (o1, r1, t1, u1, i1), (o2, r2, t2, u2, i2) in zip(
            expected[0] + [expected[2]], got[0] + [got[2]], strict=True
        ):
            np.testing.assert_array_equal(o2, o1)
            assert (r2, t2, u2) == (r1, t1, u1)
            assert sorted(i2) == sorted(i1) and i2.get("samples") == i1.get("samples")
            assert i2.get("answer") == i1.get("answer") and i2.get("correct") == i1.get("correct")
            if "action_mask" in i1:
                np.testing.assert_array_equal(i2["action_mask"], i1["action_mask"])
        for m1, m2 in zip(expected[1], got[1], strict=True):
            np.testing.assert_array_equal(m2, m1)
        assert got[2][2] and got[2][4]["stop_reason"] == "stopped"
