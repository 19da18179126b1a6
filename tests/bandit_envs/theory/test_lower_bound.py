"""T*(θ) and the design solvers, checked against independent computations (brute force, closed
forms, reference values)."""

import math

import numpy as np
import pytest

from bandit_envs.envs.linear_best_arm import soare_features
from bandit_envs.theory.complexity import linear_best_arm_complexity
from bandit_envs.theory.design import g_optimal_design, transductive_design, xy_design


def grid_t_star(features, theta, sigma, n=400, refine=3):
    """T* by brute force over the 3-arm simplex: a dense grid, then refined grids around the best.

    Written from the definition, sharing no code with the library:
    T* = min_w max_{x != x*} 2 sigma^2 ||x* - x||^2_{A(w)^-1} / gap_x^2.
    """
    mu = features @ theta
    best = int(np.argmax(mu))
    others = [k for k in range(len(mu)) if k != best]

    def value(w1, w2):
        w = np.stack([w1, w2, 1.0 - w1 - w2], axis=-1)
        a = np.einsum("...k,ki,kj->...ij", w, features, features)
        det = a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
        inv = (
            np.stack(
                [
                    np.stack([a[..., 1, 1], -a[..., 0, 1]], -1),
                    np.stack([-a[..., 1, 0], a[..., 0, 0]], -1),
                ],
                -2,
            )
            / det[..., None, None]
        )
        worst = np.zeros_like(w1)
        for k in others:
            y = features[best] - features[k]
            worst = np.maximum(
                worst,
                2 * sigma**2 * np.einsum("i,...ij,j->...", y, inv, y) / (mu[best] - mu[k]) ** 2,
            )
        return np.where((w1 >= 0) & (w2 >= 0) & (w1 + w2 <= 1) & (det > 1e-300), worst, np.inf)

    lo1, hi1, lo2, hi2 = 0.0, 1.0, 0.0, 1.0
    best_value = np.inf
    for _ in range(refine + 1):
        g1, g2 = np.meshgrid(np.linspace(lo1, hi1, n), np.linspace(lo2, hi2, n), indexing="ij")
        with np.errstate(all="ignore"):
            v = value(g1, g2)
        i = np.unravel_index(np.argmin(v), v.shape)
        best_value = min(best_value, float(v[i]))
        step1, step2 = 4 * (hi1 - lo1) / n, 4 * (hi2 - lo2) / n
        lo1, hi1 = max(0.0, g1[i] - step1), min(1.0, g1[i] + step1)
        lo2, hi2 = max(0.0, g2[i] - step2), min(1.0, g2[i] + step2)
    return best_value


def test_t_star_of_the_default_soare_instance_matches_a_grid_search():
    x = soare_features(2, 0.1)
    theta = np.array([2.0, 0.0])
    lib = linear_best_arm_complexity(x, theta, 1.0)
    grid = grid_t_star(x, theta, 1.0)
    assert lib["lower_bound"] == pytest.approx(grid, rel=0.01)
    assert lib["lower_bound"] <= grid * (1 + 1e-9)  # the library's optimum is at least as good
    # and the env exposes the same number
    import gymnasium as gym

    env = gym.make("LinearBAI-Soare-v0").unwrapped
    c = env.complexity()
    assert c["lower_bound"] == pytest.approx(lib["lower_bound"], rel=1e-9)
    w = c["oracle_weights"]
    assert w.shape == (3,) and w.sum() == pytest.approx(1.0) and (w >= 0).all()
    # one critical direction y = e1 - x3 on orthogonal arms: w_i ∝ |y_i| (Cauchy-Schwarz), so
    # w(e1)/w(e2) = tan(omega/2)
    assert w[0] / w[1] == pytest.approx(math.tan(0.05), rel=0.02)


@pytest.mark.parametrize("d, expected", [(2, 10100.08), (5, 10100.84), (10, 10102.09)])
def test_h_lb_of_the_paper_instance(d, expected):
    """H_LB (Eq. 6 of Soare, Lazaric & Munos 2014) of their Section 6 instance, omega = 0.01, for
    d = 2, 5, 10: our reference values, computed independently (the paper has none), 0.1 %."""
    theta = np.zeros(d)
    theta[0] = 2.0
    c = linear_best_arm_complexity(soare_features(d, 0.01), theta, 1.0)
    assert c["h_lb"] == pytest.approx(expected, rel=1e-3)
    assert c["lower_bound"] == pytest.approx(2 * c["h_lb"])


@pytest.mark.parametrize("seed", range(6))
def test_kiefer_wolfowitz_on_random_instances(seed):
    """The optimal G value equals the dimension of the span; any design is >= it."""
    rng = np.random.default_rng(seed)
    k, h = rng.integers(5, 60), rng.integers(2, 8)
    x = rng.standard_normal((k, h))
    if seed % 3 == 2:  # rank-deficient: arms in a 2-D subspace of R^h
        x = x[:, :2] @ rng.standard_normal((2, h))
    rank = np.linalg.matrix_rank(x)
    res = g_optimal_design(x, tol=1e-9)
    z = x @ np.linalg.pinv(x.T @ (res.weights[:, None] * x)) @ x.T
    g_value = float(np.max(np.diag(z)))
    assert g_value == pytest.approx(rank, rel=1e-6)
    for _ in range(5):
        w = rng.dirichlet(np.ones(k))
        zz = x @ np.linalg.pinv(x.T @ (w[:, None] * x)) @ x.T
        assert np.max(np.diag(zz)) >= rank * (1 - 1e-9)


def test_uniform_canonical_design_is_g_optimal():
    x = np.eye(4)
    res = g_optimal_design(x)
    np.testing.assert_allclose(res.weights, 0.25, atol=1e-6)
    assert res.value == pytest.approx(4.0, rel=1e-6)


def test_xy_design_value_of_the_appendix_a_example():
    """Soare, Lazaric & Munos 2014, App. A: x = (1, ±eps/2), lambda = (1/2, 1/2): XY value 4."""
    eps = 0.3
    res = xy_design(np.array([[1.0, eps / 2], [1.0, -eps / 2]]))
    assert res.value == pytest.approx(4.0, rel=1e-3)
    np.testing.assert_allclose(res.weights, 0.5, atol=1e-3)


def test_transductive_design_certificate_is_honest():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((12, 3))
    y = x[:1] - x[1:]
    res = transductive_design(x, y, tol=1e-4)
    assert res.converged and res.lower_bound <= res.value
    # the value is attained by the returned weights
    inv = np.linalg.inv(x.T @ (res.weights[:, None] * x))
    assert float(np.max(np.einsum("ij,jk,ik->i", y, inv, y))) == pytest.approx(res.value, rel=1e-8)
    # and no random design beats the certified lower bound
    for _ in range(50):
        w = rng.dirichlet(np.ones(12))
        inv = np.linalg.inv(x.T @ (w[:, None] * x))
        assert np.max(np.einsum("ij,jk,ik->i", y, inv, y)) >= res.lower_bound * (1 - 1e-12)
