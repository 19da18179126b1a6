"""Misspecified linear math, model and ids (Li, Ma, Hua & Zhu 2025, Sec. 5)."""

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from scipy.optimize import minimize

import bandit_envs  # noqa: F401
from bandit_envs import (
    AllEpsilonGood,
    InvalidInstanceError,
    InvalidParameterError,
    MisspecifiedLinearGaussian,
)
from bandit_envs.envs.all_eps_good import adaptive_instance
from bandit_envs.theory.eps_good import eps_good_lower_bound, unstructured_eps_good_lower_bound
from bandit_envs.theory.linalg import projected_least_squares
from bandit_envs.theory.misspecification import (
    chebyshev_deviation,
    dead_zone_loss,
    misspecified_lower_bounds,
    orthogonal_estimate,
    radius_inflation,
    residual_deviation,
    structure_threshold,
)

ALLOWED_WARNINGS = (
    "A Box observation space minimum value is -infinity",
    "A Box observation space maximum value is infinity",
)
IDS = ["MisspecifiedEpsGood-Adaptive-v0", "MisspecifiedEpsGood-Custom-v0"]


def _good(mu, eps):
    mu = np.asarray(mu).ravel()
    return tuple(int(i) for i in np.flatnonzero(mu >= mu.max() - eps))


# ------------------------------------------------------------------ realizability


def test_chebyshev_deviation_by_hand():
    # one feature column of ones: the best constant is the midrange, deviation = half the range
    theta, dev = chebyshev_deviation(np.ones((3, 1)), [1.0, 0.2, 0.6])
    assert dev == pytest.approx(0.4) and theta[0] == pytest.approx(0.6)
    # a linear instance has deviation 0
    x, th = adaptive_instance(6, 2, 1.0, 0.2)
    assert chebyshev_deviation(x, x @ th)[1] == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------------------ the orthogonal estimator


def _random_round(seed, k=9, h=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(k, h))
    counts = rng.integers(0, 30, size=k)
    counts[:h] = np.maximum(counts[:h], 1)  # enough pulled arms
    sums = counts * (x @ rng.normal(size=h) + rng.normal(scale=0.5, size=k))
    return x, counts, sums.astype(float)


@pytest.mark.parametrize("seed", range(4))
def test_orthogonal_estimator_is_ols_at_zero_misspecification(seed):
    # without misspecification the estimator of eq. (30) is OLS (Sec. 5)
    x, counts, sums = _random_round(seed)
    fit = orthogonal_estimate(x, counts, sums, 0.0)
    ols = projected_least_squares(x, counts, sums)
    np.testing.assert_allclose(fit.theta, ols, atol=1e-10)
    np.testing.assert_allclose(fit.means, x @ ols, atol=1e-10)
    np.testing.assert_array_equal(fit.deviation, 0.0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("bound", [0.05, 0.3, 1.0])
def test_dead_zone_reduction_solves_the_box_constrained_problem(seed, bound):
    # eq. (30) as a QP over (theta, delta) has the minimum of our dead-zone reduction,
    # sum_i N_i (|tilde mu_i - a_i^T theta| - L_m)_+^2
    x, counts, sums = _random_round(seed)
    fit = orthogonal_estimate(x, counts, sums, bound)
    assert fit.converged
    pulled = counts > 0
    tilde = sums[pulled] / counts[pulled]
    h, kp = x.shape[1], int(pulled.sum())

    def qp(v):
        r = x[pulled] @ v[:h] + v[h:] - tilde
        return float(counts[pulled] @ (r * r))

    best = np.inf
    for start in (np.zeros(h + kp), np.r_[fit.theta, np.zeros(kp)]):
        res = minimize(
            qp,
            start,
            method="L-BFGS-B",
            bounds=[(None, None)] * h + [(-bound, bound)] * kp,
            options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000},
        )
        best = min(best, res.fun)
    assert fit.objective == pytest.approx(dead_zone_loss(x, counts, sums, fit.theta, bound))
    assert fit.objective <= best + 1e-7 * max(1.0, best)
    assert fit.objective == pytest.approx(best, rel=1e-5, abs=1e-8)
    # the returned (theta, delta) is feasible for the QP and attains the objective
    assert np.all(np.abs(fit.deviation) <= bound + 1e-15)
    assert qp(np.r_[fit.theta, fit.deviation[pulled]]) == pytest.approx(fit.objective, abs=1e-9)
    # unpulled arms get deviation 0 (our choice: the paper leaves them open)
    np.testing.assert_array_equal(fit.deviation[~pulled], 0.0)
    np.testing.assert_allclose(fit.means, x @ fit.theta + fit.deviation)


def test_orthogonal_estimator_absorbs_a_deviation_within_the_bound():
    # noiseless sums of a misspecified instance: every pulled arm's estimate is its mean,
    # whereas least squares is biased
    x, th = adaptive_instance(4, 2, 1.0, 0.3)
    nu = x @ th
    dev = residual_deviation(x, nu, 0.05, 0.3, "random", np.random.default_rng(0)).deviation
    counts = np.full(x.shape[0], 100)
    sums = counts * (nu + dev)
    fit = orthogonal_estimate(x, counts, sums, 0.05)
    np.testing.assert_allclose(fit.means, nu + dev, atol=1e-12)
    ols = x @ projected_least_squares(x, counts, sums)
    assert np.abs(ols - (nu + dev)).max() > 0.01
    assert fit.objective == 0.0


def test_radius_inflation_values():
    # Prop 5.4 corrected: L_m (sqrt(d) + 1), the arm's own deviation included; as printed: sqrt(d)
    assert radius_inflation(0.1, 4, "ols") == pytest.approx(0.3)
    assert radius_inflation(0.1, 4, "ols", paper=True) == pytest.approx(0.2)
    assert radius_inflation(0.1, 4, "orthogonal") == pytest.approx(0.4)  # EC.9.8: (sqrt d + 2)
    assert radius_inflation(0.1, 4, "orthogonal", paper=True) == pytest.approx(0.4)
    assert radius_inflation(0.0, 9, "ols") == 0.0
    with pytest.raises(InvalidParameterError, match="estimator must be 'ols' or 'orthogonal'"):
        radius_inflation(0.1, 4, "huber")
    with pytest.raises(InvalidParameterError, match="L_m must be a finite float >= 0; got -1"):
        orthogonal_estimate(np.eye(2), [1, 1], [0.0, 0.0], -1.0)


# ------------------------------------------------------------------ deviations and bounds


@pytest.mark.parametrize("kind", ["random", "adversarial"])
def test_residual_deviations_are_invisible_to_least_squares(kind):
    x, th = adaptive_instance(8, 3, 1.0, 0.3, m=8)
    nu = x @ th
    res = residual_deviation(x, nu, 0.04, 0.3, kind, np.random.default_rng(5))
    dev = res.deviation
    np.testing.assert_allclose(x.T @ dev, 0.0, atol=1e-12)
    assert np.abs(dev).max() == pytest.approx(0.04)
    # theta is the least-squares fit of the true means
    np.testing.assert_allclose(np.linalg.lstsq(x, nu + dev, rcond=None)[0], th, atol=1e-12)
    assert chebyshev_deviation(x, nu + dev)[1] <= 0.04 + 1e-12


def test_adversarial_deviation_flips_the_linear_answer_exactly_above_its_level():
    x, th = adaptive_instance(8, 3, 1.0, 0.3, m=8)
    nu = x @ th
    level = residual_deviation(x, nu, 1.0, 0.3, "adversarial").flip_level
    assert 0 < level < 0.3
    for factor, flips in [(0.9, False), (1.1, True)]:
        res = residual_deviation(x, nu, factor * level, 0.3, "adversarial")
        assert (_good(nu + res.deviation, 0.3) != _good(nu, 0.3)) is flips
        assert res.target == 8  # the best disturbing arm is pushed over the threshold
    # the deviation scales linearly with L_m
    one = residual_deviation(x, nu, 1.0, 0.3, "adversarial").deviation
    np.testing.assert_allclose(
        residual_deviation(x, nu, 0.2, 0.3, "adversarial").deviation, 0.2 * one
    )
    with pytest.raises(InvalidParameterError, match="kind must be 'random' or 'adversarial'"):
        residual_deviation(x, nu, 0.1, 0.3, "worst")
    with pytest.raises(InvalidParameterError, match="needs a generator rng"):
        residual_deviation(x, nu, 0.1, 0.3, "random")


def test_structure_threshold_and_bound_bracket():
    # identity features: every mean vector is linear, no deviation is ever needed
    mu = np.array([1.0, 0.85, 0.55, 0.2])
    assert structure_threshold(np.eye(4), mu, 0.3) == pytest.approx(0.0, abs=1e-9)
    t_lin, t_un = misspecified_lower_bounds(np.eye(4), mu, 0.3)
    assert t_lin == pytest.approx(t_un, rel=1e-3)
    # a linear instance: T_lin is Theorem 3.2's linear bound, below the unstructured one
    x, th = adaptive_instance(8, 3, 1.0, 0.3, m=8)
    nu = x @ th
    t_lin, t_un = misspecified_lower_bounds(x, nu, 0.3, sigma=2.0)
    assert t_lin == pytest.approx(eps_good_lower_bound(x, th, 0.3, sigma=2.0).t_star, rel=1e-3)
    assert t_un == pytest.approx(
        unstructured_eps_good_lower_bound(nu, 0.3, sigma=2.0).t_star, rel=1e-3
    )
    assert t_lin < t_un / 3
    # by hand: one constant feature (linear means are constants, dev(v) = (max v - min v)/2),
    # mu = (1, 0.5, 0), eps = 0.6: G = {0, 1}. Culprit margins: pairs (0,1) 1.1, (0,2) 1.6,
    # (1,0) 0.1, (1,2) 1.1; bad arm 2: 0.4. Largest moves: arm 0 +0.1 / -1.6, arm 1 +1.1 / -1.1,
    # arm 2 +1.6; the deviations after them: 0.55, 0.55, 0.8, 0.8, 0.55, so L̄_mu = 0.8,
    # below Proposition 5.3's max mu - min mu = 1.
    assert structure_threshold(np.ones((3, 1)), [1.0, 0.5, 0.0], 0.6) == pytest.approx(0.8)


def test_task_complexity_of_a_told_bound():
    x, th = adaptive_instance(8, 3, 1.0, 0.3, m=8)
    nu = x @ th
    dev = residual_deviation(x, nu, 0.03, 0.3, "random", np.random.default_rng(1)).deviation
    mu = nu + dev
    told = MisspecifiedLinearGaussian(x, mu[:, None], 1.0, bound=0.03, theta=th)
    untold = MisspecifiedLinearGaussian(x, mu[:, None], 1.0, theta=th)
    c = AllEpsilonGood(0.3).complexity(told)
    cu = AllEpsilonGood(0.3).complexity(untold)
    assert cu["lower_bound"] == cu["T_star"] and "T_star_linear" not in cu
    assert c["T_star"] == pytest.approx(cu["T_star"])
    assert c["misspecification"] == 0.03 and c["minimax_deviation"] <= 0.03 + 1e-12
    assert c["T_star_linear"] < c["T_star"] and c["L_mu_bound"] > 0.03
    assert c["lower_bound"] == c["T_star_linear"]  # L_m < L̄_mu: the linear-shift bound
    loose = MisspecifiedLinearGaussian(x, mu[:, None], 1.0, bound=c["L_mu_bound"] + 0.01)
    assert AllEpsilonGood(0.3).complexity(loose)["lower_bound"] == pytest.approx(c["T_star"])


# ------------------------------------------------------------------ the model


def test_model_bound_theta_and_public_fields():
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    mu = np.array([1.0, 0.2, 0.8])
    m = MisspecifiedLinearGaussian(x, mu[:, None], 0.5, bound=0.4, theta=[1.0, 0.2])
    assert m.bound == 0.4 and m.public_fields()["misspecification"] == 0.4
    np.testing.assert_allclose(m.deviation[:, 0], [0.0, 0.0, -0.4])
    assert set(m.truth()) >= {"theta", "deviation", "misspecification", "means"}
    plain = MisspecifiedLinearGaussian(x, mu[:, None], 0.5)
    assert plain.public_fields()["misspecification"] is None and plain.bound is None
    assert "deviation" not in plain.truth()
    # a bound below the Chebyshev deviation (0.4/3) is inconsistent; with theta, below |dev|
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "MisspecifiedLinearGaussian: bound L_m = 0.1 is "
            "inconsistent with the means: the best (Chebyshev) linear "
            "fit of the means is off by"
        ),
    ):
        MisspecifiedLinearGaussian(x, mu[:, None], 0.5, bound=0.1)
    MisspecifiedLinearGaussian(x, mu[:, None], 0.5, bound=0.134)
    with pytest.raises(InvalidParameterError, match="the deviation means - features @ theta"):
        MisspecifiedLinearGaussian(x, mu[:, None], 0.5, bound=0.3, theta=[1.0, 0.2])
    with pytest.raises(InvalidParameterError, match="bound must be a finite float >= 0; got -1"):
        MisspecifiedLinearGaussian(x, mu[:, None], 0.5, bound=-1.0)
    with pytest.raises(InvalidParameterError, match="theta must have one row per feature"):
        MisspecifiedLinearGaussian(x, mu[:, None], 0.5, theta=[1.0, 0.2, 0.0])


# ------------------------------------------------------------------ the ids


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("setting", [{}, {"budget": 50}])
def test_gymnasium_check_env(env_id, setting):
    env = gym.make(env_id, **setting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    unexpected = [
        str(w.message) for w in caught if not any(a in str(w.message) for a in ALLOWED_WARNINGS)
    ]
    assert not unexpected, unexpected


@pytest.mark.parametrize("deviation", ["random", "adversarial"])
def test_adaptive_id_builds_the_adaptive_instance_plus_a_deviation(deviation):
    kw = {"d": 8, "m": 8, "m_tilde": 3, "x_tilde": 1.0, "epsilon": 0.3}
    env = gym.make("MisspecifiedEpsGood-Adaptive-v0", L_m=0.05, deviation=deviation, **kw).unwrapped
    lin = gym.make("LinearEpsGood-Adaptive-v0", **kw).unwrapped
    np.testing.assert_array_equal(env.problem.features, lin.problem.features)
    np.testing.assert_array_equal(env.model.theta, lin.model.theta)
    dev = env.model.deviation[:, 0]
    np.testing.assert_allclose(env.model.means[:, 0], lin.model.means[:, 0] + dev)
    assert np.abs(dev).max() == pytest.approx(0.05)
    np.testing.assert_allclose(env.problem.features.T @ dev, 0.0, atol=1e-12)
    spec = env.problem
    assert spec.structure == "misspecified_linear" and spec.misspecification == 0.05
    assert spec.extras["m_hint"] == 8.0 and spec.noise_std == 1.0
    info = env.instance_info
    assert info["L_m"] == 0.05 and info["deviation"] == deviation
    assert info["flipped"] == (env.complexity()["good_set"] != lin.complexity()["good_set"])
    if deviation == "adversarial":
        assert info["flipped"] and info["flip_level"] < 0.05 and info["target"] == 8
    c = env.complexity()
    assert c["misspecification"] == 0.05 and c["minimax_deviation"] <= 0.05 + 1e-12
    hidden = gym.make(
        "MisspecifiedEpsGood-Adaptive-v0", L_m=0.05, deviation=deviation, bound_known=False, **kw
    ).unwrapped
    assert hidden.problem.misspecification is None
    np.testing.assert_array_equal(hidden.model.means, env.model.means)
    zero = gym.make("MisspecifiedEpsGood-Adaptive-v0", L_m=0.0, **kw).unwrapped
    np.testing.assert_array_equal(zero.model.means, lin.model.means)


def test_random_deviation_follows_instance_seed_only():
    base = {"m_tilde": 3, "x_tilde": 1.0, "epsilon": 0.3}
    a = gym.make("MisspecifiedEpsGood-Adaptive-v0", instance_seed=1, **base).unwrapped
    b = gym.make("MisspecifiedEpsGood-Adaptive-v0", instance_seed=1, **base).unwrapped
    c = gym.make("MisspecifiedEpsGood-Adaptive-v0", instance_seed=2, **base).unwrapped
    np.testing.assert_array_equal(a.model.means, b.model.means)
    assert not np.array_equal(a.model.means, c.model.means)
    # the (m~, X~) draws are those of the linear id
    drawn = gym.make("MisspecifiedEpsGood-Adaptive-v0", instance_seed=4).unwrapped
    lin = gym.make("LinearEpsGood-Adaptive-v0", instance_seed=4).unwrapped
    assert drawn.instance_info["m_tilde"] == lin.instance_info["m_tilde"]
    assert drawn.instance_info["x_tilde"] == lin.instance_info["x_tilde"]


def test_seeding_batch_path_and_noiseless_sums():
    env = gym.make("MisspecifiedEpsGood-Adaptive-v0", sigma=0.0, L_m=0.02).unwrapped
    env.reset(seed=0)
    counts = np.arange(env.n_arms, dtype=np.int64) + 1
    sums = env.step_batch(counts)[0]
    np.testing.assert_allclose(sums[:, 0], counts * env.model.means[:, 0])
    noisy = gym.make("MisspecifiedEpsGood-Adaptive-v0", L_m=0.02).unwrapped

    def run(seed):
        noisy.reset(seed=seed)
        return np.array([noisy.step(k % noisy.n_arms)[0] for k in range(20)])

    np.testing.assert_array_equal(run(3), run(3))
    assert not np.allclose(run(3), run(4))


def test_custom_variants_and_the_best_arm_task():
    default = gym.make("MisspecifiedEpsGood-Custom-v0").unwrapped
    assert default.complexity()["good_set"] == (0,)
    nu = default.problem.features @ default.model.theta
    assert _good(nu, 0.15) == (2,)  # the linear part's answer differs: the deviation flips it
    assert default.problem.misspecification == 0.4
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    means = gym.make(
        "MisspecifiedEpsGood-Custom-v0", features=x, means=[1.0, 0.2, 0.8], epsilon=0.15
    ).unwrapped
    assert means.problem.misspecification == pytest.approx(0.4 / 3)
    assert means.instance_info["kind"] == "means"
    loose = gym.make(
        "MisspecifiedEpsGood-Custom-v0", features=x, means=[1.0, 0.2, 0.8], epsilon=0.15, L_m=2.0
    ).unwrapped
    assert loose.problem.misspecification == 2.0
    best = gym.make("MisspecifiedEpsGood-Custom-v0", task="best_arm", budget=30).unwrapped
    assert best.problem.task == "best_arm" and best._true_answer == frozenset({0})
    assert best.problem.misspecification == 0.4
    hidden = gym.make("MisspecifiedEpsGood-Custom-v0", bound_known=False).unwrapped
    assert hidden.problem.misspecification is None


@pytest.mark.parametrize(
    "env_id, kwargs, error, message",
    [
        (
            "MisspecifiedEpsGood-Adaptive-v0",
            {"L_m": -0.1},
            InvalidParameterError,
            "MisspecifiedEpsGood-Adaptive-v0: L_m must be a finite float >= 0; got -0.1.",
        ),
        (
            "MisspecifiedEpsGood-Adaptive-v0",
            {"L_m": float("inf")},
            InvalidParameterError,
            "L_m must be a finite float >= 0; got inf.",
        ),
        (
            "MisspecifiedEpsGood-Adaptive-v0",
            {"deviation": "worst"},
            InvalidParameterError,
            "MisspecifiedEpsGood-Adaptive-v0: deviation must be one of ('random', "
            "'adversarial'); got "
            "'worst'.",
        ),
        (
            "MisspecifiedEpsGood-Adaptive-v0",
            {"bound_known": "yes"},
            InvalidParameterError,
            "bound_known must be True or False; got 'yes'.",
        ),
        (
            "MisspecifiedEpsGood-Adaptive-v0",
            {"m_tilde": 6},
            InvalidParameterError,
            "MisspecifiedEpsGood-Adaptive-v0: m_tilde must be an integer in [1, 5]",
        ),
        (
            "MisspecifiedEpsGood-Adaptive-v0",
            {"sigma": -1.0},
            InvalidParameterError,
            "sigma must be a finite float >= 0; got -1.0.",
        ),
        (
            "MisspecifiedEpsGood-Adaptive-v0",
            {"paper_literal": True},
            TypeError,
            "unknown keyword 'paper_literal'",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"L_m": -1.0},
            InvalidParameterError,
            "MisspecifiedEpsGood-Custom-v0: L_m must be a finite float >= 0; got -1.0.",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"L_m": 0.1},
            InvalidParameterError,
            "MisspecifiedEpsGood-Custom-v0: bound L_m = 0.1 is inconsistent with the means",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"L_m": 0.1, "bound_known": False},
            InvalidParameterError,
            "bound L_m = 0.1 is inconsistent with the means",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"features": np.eye(2), "means": [1.0, 0.0], "theta": [1.0, 0.0]},
            InvalidParameterError,
            "give theta= and deviation=, or means=, not both",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"features": np.eye(2), "theta": [1.0, 0.0]},
            InvalidParameterError,
            "give both theta= and deviation= (or means=)",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"means": [1.0, 0.0]},
            InvalidParameterError,
            "features= (a K×h array) is required",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {
                "features": np.eye(2),
                "theta": [1.0, 0.0],
                "deviation": [0.0, 0.1, 0.2],
                "epsilon": 0.3,
            },
            InvalidParameterError,
            "deviation must have one entry per arm (2); got shape (3,).",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"features": np.eye(2), "theta": [1.0, 0.0], "deviation": [0.0, 0.1]},
            InvalidParameterError,
            "epsilon= is required",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"task": "best_arm", "epsilon": 0.2},
            InvalidParameterError,
            "epsilon and multiplicative are keywords of task='all_eps_good'",
        ),
        (
            "MisspecifiedEpsGood-Custom-v0",
            {"features": np.eye(2), "theta": [1.0, 0.0], "deviation": [0.0, 0.7], "epsilon": 0.3},
            InvalidInstanceError,
            "have means within",
        ),
    ],
)
def test_bad_keywords(env_id, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        gym.make(env_id, **kwargs)


def test_an_arm_on_the_threshold_names_the_deviation():
    x, th = adaptive_instance(8, 3, 1.0, 0.3, m=8)
    level = residual_deviation(x, x @ th, 1.0, 0.3, "adversarial").flip_level
    with pytest.raises(InvalidInstanceError, match="the adversarial deviation of size L_m"):
        gym.make(
            "MisspecifiedEpsGood-Adaptive-v0",
            d=8,
            m=8,
            m_tilde=3,
            x_tilde=1.0,
            epsilon=0.3,
            L_m=level,
            deviation="adversarial",
        )


def test_catalogue_lists_the_new_ids():
    import registry

    ids = registry.list_envs()
    for env_id in IDS + ["LogisticEpsGood-Adaptive-v0", "LogisticEpsGood-Custom-v0"]:
        assert env_id in ids
        assert registry.env_entry(env_id).task == "all_eps_good"
