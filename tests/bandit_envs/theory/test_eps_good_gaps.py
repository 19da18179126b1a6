"""The all-ε-good math of Li, Ma, Hua & Zhu (2025): good set, gaps, Theorem 3.2's lower bound,
GLR statistics."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from bandit_envs import InvalidInstanceError, InvalidParameterError
from bandit_envs.core.models import LinearGaussian, MisspecifiedLinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood
from bandit_envs.envs.all_eps_good import adaptive_instance, free_wilson_instance
from bandit_envs.theory.design import transductive_design
from bandit_envs.theory.eps_good import (
    eps_good_culprits,
    eps_good_gaps,
    eps_good_glr,
    eps_good_lower_bound,
    good_mask,
    unstructured_eps_good_lower_bound,
)
from bandit_envs.theory.linalg import reduce_features


def objective(features, theta, epsilon, p):
    """Theorem 3.2's max over culprits at allocation p, written out independently (additive)."""
    x = np.asarray(features, float)
    mu = x @ theta
    best = int(np.argmax(mu))
    good = mu >= mu[best] - epsilon
    vinv = np.linalg.pinv((x.T * p) @ x)
    values = []
    for i in np.flatnonzero(good):
        for j in range(len(mu)):
            if j != i:
                y = x[i] - x[j]
                values.append(2 * y @ vinv @ y / (mu[i] - mu[j] + epsilon) ** 2)
    for m in np.flatnonzero(~good):
        y = x[best] - x[m]
        values.append(2 * y @ vinv @ y / (mu[best] - mu[m] - epsilon) ** 2)
    return max(values)


# -------------------------------------------------------- good set and gaps (Section 2, eq. 2)


def test_good_set_uses_greater_or_equal_and_its_gaps():
    """Eq. (2) uses ≥: an arm exactly on the threshold μ_1 − ε is good, and then α_ε = 0."""
    mu = [1.0, 0.9, 0.5]
    assert good_mask(mu, 0.1).tolist() == [True, True, False]
    g = eps_good_gaps(mu, 0.1)
    assert g.good_set == (0, 1) and g.best == 0
    assert g.alpha == pytest.approx(0.0, abs=1e-15) and g.beta == pytest.approx(0.4)
    assert g.r_upper == math.inf
    np.testing.assert_allclose(g.gaps, [0.0, 0.1, 0.5])


def test_gaps_xi_and_r_upper_by_hand():
    g = eps_good_gaps([2.0, 1.8, 1.0, 0.2], 0.5)  # threshold 1.5: alpha 0.3, beta 0.5
    assert g.good_set == (0, 1) and g.threshold == 1.5
    assert g.alpha == pytest.approx(0.3) and g.beta == pytest.approx(0.5)
    assert g.xi == pytest.approx(0.3 / 16)
    assert g.r_upper == max(math.ceil(math.log2(4 / 0.3)), math.ceil(math.log2(4 / 0.5))) == 4
    every = eps_good_gaps([1.0, 0.9], 0.5)  # no bad arm: beta = inf, only the alpha term
    assert every.beta == math.inf and every.r_upper == math.ceil(math.log2(4 / 0.4)) == 4
    assert eps_good_gaps([10.0, 0.0], 20.0).r_upper == 1  # at least one round
    mult = eps_good_gaps([2.0, 1.5, 0.5], 0.5, multiplicative=True)  # threshold 1.0
    assert mult.good_set == (0, 1) and mult.alpha == 0.5 and mult.beta == 0.5
    with pytest.raises(InvalidInstanceError, match="positive best mean"):
        eps_good_gaps([-1.0, -2.0], 0.5, multiplicative=True)
    with pytest.raises(InvalidParameterError, match="epsilon must be a finite float >= 0"):
        good_mask([1.0, 0.0], -0.1)


@pytest.mark.parametrize("eps, r_upper", [(0.1, 8), (0.2, 7), (0.3, 6)])
def test_adaptive_gaps_alpha_eps_over_m_and_beta_eps_over_n(eps, r_upper):
    """The adaptive setting (EC.12.1) with our fix of its on-threshold arm (disturbing arms at
    X̃ − iε/n): α_ε = ε/m̃, β_ε = ε/n, and R_upper = 8, 7, 6 for m̃ = 4."""
    for m_tilde in (1, 2, 3, 4, 5):
        x, theta = adaptive_instance(8, m_tilde, 1.0, eps)
        g = eps_good_gaps(x @ theta, eps)
        n = 6 - m_tilde
        assert g.good_set == tuple(range(m_tilde))
        assert g.alpha == pytest.approx(eps / m_tilde) and g.beta == pytest.approx(eps / n)
    x, theta = adaptive_instance(8, 4, 1.0, eps)
    assert eps_good_gaps(x @ theta, eps).r_upper == r_upper


# ------------------------------------------------------------------- lower bound (Theorem 3.2)


def test_two_arm_example_is_32():
    lb = eps_good_lower_bound(np.eye(2), [1.0, 0.0], 0.5)
    assert lb.t_star == pytest.approx(32.0, abs=1e-3) and lb.converged
    np.testing.assert_allclose(lb.weights, [0.5, 0.5], atol=1e-4)
    assert lb.certified <= lb.t_star and lb.relative_gap <= 1e-4


def test_static_d8_is_120_at_the_reference_allocation():
    """Static setting (EC.12.2), d = 8, m̃ = 4, Δ = 1, ε = 0.5: T* = 120 at p = (0.2, 2/15 ×3,
    0.1 ×4), our reference value (the paper prints no T*)."""
    theta = np.r_[np.ones(4), np.zeros(4)]
    lb = eps_good_lower_bound(np.eye(8), theta, 0.5)
    assert lb.t_star == pytest.approx(120.0, abs=0.05) and lb.converged
    np.testing.assert_allclose(lb.weights, [0.2] + [2 / 15] * 3 + [0.1] * 4, atol=1e-4)
    # the closed form at that allocation, independently
    assert objective(np.eye(8), theta, 0.5, np.r_[0.2, [2 / 15] * 3, [0.1] * 4]) == (
        pytest.approx(120.0)
    )


@pytest.mark.parametrize("d, value", [(12, 165.3), (16, 207.5)])
def test_static_d12_d16(d, value):
    lb = eps_good_lower_bound(np.eye(d), np.r_[np.ones(4), np.zeros(d - 4)], 0.5)
    assert lb.t_star == pytest.approx(value, rel=1e-2) and lb.converged


@pytest.mark.parametrize("eps, value", [(0.1, 1.48e4), (0.2, 3.75e3), (0.3, 1.68e3)])
def test_adaptive_d8_values_and_allocation(eps, value):
    x, theta = adaptive_instance(8, 4, 1.0, eps)
    lb = eps_good_lower_bound(x, theta, eps)
    assert lb.t_star == pytest.approx(value, rel=1e-2) and lb.converged
    w = lb.weights
    assert 0.42 <= w[0] <= 0.47 and 0.42 <= w[3] <= 0.47  # e_1 and the worst good arm e_4
    assert 0.05 <= w[1] <= 0.07 and 0.05 <= w[2] <= 0.07
    assert 0.01 <= w[7] <= 0.035  # e_8 mixes into the disturbing arms
    assert objective(x, theta, eps, w) == pytest.approx(lb.t_star, rel=1e-9)


def test_sigma_scales_the_bound_and_single_arm():
    base = eps_good_lower_bound(np.eye(2), [1.0, 0.0], 0.5)
    twice = eps_good_lower_bound(np.eye(2), [1.0, 0.0], 0.5, sigma=2.0)
    assert twice.t_star == pytest.approx(4 * base.t_star)
    np.testing.assert_allclose(twice.weights, base.weights)
    assert eps_good_lower_bound(np.eye(2), [1.0, 0.0], 0.5, sigma=0.0).t_star == 0.0
    one = eps_good_lower_bound(np.ones((1, 1)), [1.0], 0.5)
    assert one.t_star == 0.0 and one.weights.tolist() == [1.0]


def test_identity_features_give_the_unstructured_program():
    """Remark 3.3: with e_i the norms are 1/p_i + 1/p_j; solved here by an independent method."""
    mu = np.array([1.0, 0.85, 0.55, 0.2])
    eps = 0.3  # good {0, 1}, bad {2, 3}
    lb = unstructured_eps_good_lower_bound(mu, eps, tol=1e-6)
    # all allocations p with p_2 = 1 - p_0 - p_1 - p_3: a fine independent search (scipy, SLSQP)
    from scipy.optimize import minimize

    def f(v):
        p = np.abs(v) / np.abs(v).sum()
        return objective(np.eye(4), mu, eps, p)

    best = min(
        minimize(
            f, x0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-10, "maxiter": 20000}
        ).fun
        for x0 in (np.full(4, 0.25), lb.weights + 0.01)
    )
    assert lb.t_star == pytest.approx(best, rel=1e-4)
    assert lb.certified <= best * (1 + 1e-9)
    # the same instance with rotated features gives the same program
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))
    rotated = eps_good_lower_bound(q, q.T @ mu, eps, tol=1e-6)
    assert rotated.t_star == pytest.approx(lb.t_star, rel=1e-5)
    np.testing.assert_allclose(rotated.weights, lb.weights, atol=1e-3)


def test_projection_onto_the_span_leaves_the_bound_unchanged():
    x, theta = adaptive_instance(8, 3, 1.0, 0.2)
    base = eps_good_lower_bound(x, theta, 0.2)
    padded = np.hstack([x, np.zeros((x.shape[0], 3)), x[:, :1]])  # rank 8 in R^12
    lb = eps_good_lower_bound(padded, np.r_[theta, 5.0, -1.0, 2.0, 0.0], 0.2)
    assert lb.t_star == pytest.approx(base.t_star, rel=1e-3)


def test_certificate_is_a_valid_lower_bound_at_random_allocations():
    x, theta = adaptive_instance(8, 3, 1.0, 0.2)
    lb = eps_good_lower_bound(x, theta, 0.2)
    assert lb.converged and lb.certified <= lb.t_star <= lb.certified * (1 + 1e-4)
    rng = np.random.default_rng(1)
    for p in rng.dirichlet(np.ones(x.shape[0]), size=50):
        assert objective(x, theta, 0.2, p) >= lb.certified
    assert objective(x, theta, 0.2, lb.weights) == pytest.approx(lb.t_star, rel=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_interior_point_agrees_with_frank_wolfe(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((12, 4))
    y = rng.standard_normal((30, 4))
    c = rng.random(30) + 0.1
    ip = transductive_design(x, y, c, tol=1e-6, method="interior_point")
    fw = transductive_design(x, y, c, tol=1e-4)
    assert ip.converged and fw.converged
    assert ip.lower_bound <= fw.value * (1 + 1e-9) and fw.lower_bound <= ip.value * (1 + 1e-9)
    assert ip.value == pytest.approx(fw.value, rel=1e-4)


def test_multiplicative_bound_by_hand():
    """K = 2, μ = (1, 0.2), ε = 0.5: culprits e_0 − e_1/2 (b = 0.9) and e_0/2 − e_1 (b = 0.3)."""

    def value(p0):
        p1 = 1 - p0
        return max(2 * (1 / p0 + 0.25 / p1) / 0.81, 2 * (0.25 / p0 + 1 / p1) / 0.09)

    exact = minimize_scalar(
        value, bounds=(1e-6, 1 - 1e-6), method="bounded", options={"xatol": 1e-12}
    ).fun
    lb = eps_good_lower_bound(np.eye(2), [1.0, 0.2], 0.5, multiplicative=True, tol=1e-6)
    assert lb.t_star == pytest.approx(exact, rel=1e-5)


def test_on_threshold_instances_are_refused():
    with pytest.raises(InvalidInstanceError, match="exactly on the threshold"):
        eps_good_lower_bound(np.eye(3), [1.0, 0.5, 0.0], 0.5)
    with pytest.raises(InvalidParameterError, match="theta must have shape"):
        eps_good_lower_bound(np.eye(3), [1.0, 0.5], 0.5)


def test_free_wilson_bound_is_certified():
    """K = 960, ~20 000 culprits, rank 16 < 21: the default LinearEpsGood-FreeWilson-v0."""
    x, theta, eps = free_wilson_instance(instance_seed=0)
    lb = eps_good_lower_bound(x, theta, eps)
    assert lb.converged and lb.relative_gap <= 1e-4
    assert np.isclose(lb.weights.sum(), 1.0) and (lb.weights >= 0).all()
    rng = np.random.default_rng(0)
    z, _ = reduce_features(x)
    for p in rng.dirichlet(np.ones(x.shape[0]), size=3):
        assert objective(z, np.linalg.lstsq(z, x @ theta, rcond=None)[0], eps, p) >= lb.certified


# ----------------------------------------------------- GLR statistics (EC.2, Proposition EC.1)


def test_glr_by_hand_two_arms():
    n = 10.0
    glr = eps_good_glr(np.eye(2), [1.0, 0.0], np.eye(2) / n, 0.5)
    assert glr.good_set == (0,) and glr.best == 0
    assert glr.bad_stats[1] == pytest.approx(0.25 / (2 * 0.2))
    assert glr.pair_stats[0, 1] == pytest.approx(2.25 / (2 * 0.2))
    assert glr.pair_stats[0, 0] == math.inf and glr.bad_stats[0] == math.inf
    assert glr.statistic == pytest.approx(0.625) and glr.culprit == ("bad", 1)
    assert eps_good_glr(np.eye(2), [1.0, 0.0], np.eye(2) / n, 0.5, sigma=0.0).statistic == (
        math.inf
    )
    on = eps_good_glr(np.eye(2), [1.0, 0.5], np.eye(2) / n, 0.5)  # arm 1 on the threshold
    assert on.statistic == 0.0


@pytest.mark.parametrize("multiplicative", [False, True])
def test_glr_at_the_truth_with_the_oracle_design_is_t_over_t_star(multiplicative):
    """At the truth with V_t = t·V_{p*} the GLR statistic is t/T*: Theorem 3.2 and the stopping
    rule of EC.2.3 agree."""
    x, theta = adaptive_instance(8, 3, 1.0, 0.2)
    lb = eps_good_lower_bound(x, theta, 0.2, multiplicative=multiplicative, tol=1e-6)
    t = 1000.0
    glr = eps_good_glr(
        x, theta, np.linalg.inv(t * (x.T * lb.weights) @ x), 0.2, multiplicative=multiplicative
    )
    assert glr.statistic == pytest.approx(t / lb.t_star, rel=1e-5)
    assert glr.good_set == lb.gaps.good_set


def test_glr_in_reduced_coordinates_for_rank_deficient_features():
    x, theta, eps = free_wilson_instance(sites=(2, 3, 2), n_good=3, instance_seed=1)
    z, u = reduce_features(x)
    assert z.shape == (12, 5)
    counts = np.arange(1, 13, dtype=float)
    inv = np.linalg.inv((z.T * counts) @ z)
    glr = eps_good_glr(z, u.T @ theta, inv, eps)
    assert glr.good_set == eps_good_gaps(x @ theta, eps).good_set
    # one statistic recomputed with the pseudo-inverse in the original coordinates
    i, j = glr.culprit[1], glr.culprit[-1]
    pinv = np.linalg.pinv((x.T * counts) @ x)
    mu = x @ theta
    if glr.culprit[0] == "pair":
        y, b = x[i] - x[j], mu[i] - mu[j] + eps
    else:
        y, b = x[glr.best] - x[j], mu[glr.best] - mu[j] - eps
    assert glr.statistic == pytest.approx(b * b / (2 * y @ pinv @ y), rel=1e-8)


# -------------------------------------------------------------------- the task's complexity


def test_task_complexity_for_linear_and_misspecified_models():
    task = AllEpsilonGood(0.5)
    model = LinearGaussian(np.eye(8), np.r_[np.ones(4), np.zeros(4)], 2.0)
    c = task.complexity(model)
    assert c["good_set"] == (0, 1, 2, 3) and c["best_arm"] == 0 and c["R_upper"] == 3
    assert c["alpha_eps"] == 0.5 and c["beta_eps"] == 0.5 and c["xi"] == 0.5 / 16
    assert c["T_star"] == c["lower_bound"] == pytest.approx(4 * 120.0, rel=1e-4)
    assert c["converged"] and 0.0 <= c["lower_bound_gap"] <= 1e-4 * c["T_star"]
    np.testing.assert_allclose(c["oracle_weights"], [0.2] + [2 / 15] * 3 + [0.1] * 4, atol=1e-4)
    mu = np.array([1.0, 0.85, 0.55, 0.2])
    mis = MisspecifiedLinearGaussian(np.ones((4, 1)), mu[:, None], 1.0)
    cm = AllEpsilonGood(0.3).complexity(mis)
    assert cm["T_star"] == pytest.approx(
        unstructured_eps_good_lower_bound(mu, 0.3).t_star, rel=1e-4
    )
    hints = AllEpsilonGood(0.3, hints={"m_hint": 4.0}).public_fields()
    assert hints == {"epsilon": 0.3, "extras": {"multiplicative": False, "m_hint": 4.0}}
    with pytest.raises(InvalidParameterError, match="hints must map names"):
        AllEpsilonGood(0.3, hints={"multiplicative": 1.0})


def test_culprits_and_glr_with_precomputed_projections():
    x, theta = adaptive_instance(8, 3, 1.0, 0.2)
    mu = x @ theta
    targets, margins = eps_good_culprits(x, mu, 0.2)
    k, n_good, n_bad = x.shape[0], 3, x.shape[0] - 3
    assert targets.shape == (n_good * (k - 1) - n_good * (n_good - 1) // 2 + n_bad, 8)
    assert (margins > 0).all() and margins.min() == pytest.approx(0.2 / 3)  # alpha_eps
    full, _ = eps_good_culprits(x, mu, 0.2, dedupe=False)
    assert full.shape[0] == n_good * (k - 1) + n_bad
    inv = np.linalg.inv((x.T * np.arange(1, k + 1)) @ x)
    plain = eps_good_glr(x, theta, inv, 0.2)
    xv = x @ inv
    fast = eps_good_glr(x, theta, None, 0.2, projected=xv, leverages=(xv * x).sum(axis=1))
    np.testing.assert_allclose(fast.pair_stats, plain.pair_stats)
    assert fast.statistic == plain.statistic and fast.culprit == plain.culprit
    # means maintained by the caller (a sequential agent's P·b) replace theta_hat
    given = eps_good_glr(x, None, None, 0.2, projected=xv, leverages=(xv * x).sum(axis=1), means=mu)
    np.testing.assert_allclose(given.bad_stats, plain.bad_stats)
    assert given.statistic == pytest.approx(plain.statistic) and given.culprit == plain.culprit
    with pytest.raises(InvalidParameterError, match="expected features"):
        eps_good_glr(x, theta, np.eye(3), 0.2)
    with pytest.raises(InvalidParameterError, match="means"):
        eps_good_glr(x, None, inv, 0.2, means=mu[:-1])
