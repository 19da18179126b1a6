"""Track-and-Stop's compiled least-squares state against NumPy oracles computed here.

The oracles are brute force (the Gram matrix inverted from scratch, every GLR term formed),
so the kernels' Sherman–Morrison recursions are checked to round-off; the seeded records of
``tests/agents/test_sequential_fast_paths.py`` check that the agents' trajectories are those
of the NumPy code the kernels replaced, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.common.kernels import track_and_stop as tk
from bandit_envs.theory.eps_good import eps_good_glr, threshold_from_best
from bandit_envs.theory.thresholds import glr_best_arm


def _state(z: np.ndarray, counts: np.ndarray, reg: float) -> dict[str, np.ndarray]:
    """P = Z A⁻¹, q = diag(Z A⁻¹ Zᵀ) and (A + ηI)⁻¹ from scratch."""
    gram = (z.T * counts) @ z
    ainv = np.linalg.inv(gram)
    return {
        "p": z @ ainv,
        "q": np.einsum("ij,ij->i", z @ ainv, z),
        "minv": np.linalg.inv(gram + reg * np.eye(z.shape[1])),
    }


@pytest.mark.parametrize(("k", "r"), [(2, 1), (7, 3), (40, 5), (300, 20)])
def test_observe_is_the_recursive_least_squares_of_a_fresh_inverse(k, r):
    rng = np.random.default_rng(k + r)
    z = rng.standard_normal((k, r))
    theta = rng.standard_normal(r)
    reg = 0.5
    counts = np.zeros(k)
    counts[rng.choice(k, size=r, replace=False)] = 1.0
    counts += rng.integers(0, 3, size=k)
    while np.linalg.matrix_rank((z.T * counts) @ z) < r:
        counts[rng.integers(k)] += 1
    start = _state(z, counts, reg)
    p, q, minv = start["p"].copy(), start["q"].copy(), start["minv"].copy()
    b = z.T @ (counts * (z @ theta))
    b_ref = b.copy()
    means = np.empty(k)
    sigma = 0.7
    logdet = np.linalg.slogdet(np.eye(r) + (z.T * counts) @ z / reg)[1]
    for step in range(60):
        arm = int(rng.integers(k))
        y = float(z[arm] @ theta + rng.standard_normal())
        witness = int(rng.integers(-1, k)) if step % 3 else -1
        den, best, upper = tk.tas_observe(
            z, p, q, b, minv, means, arm, y, True, True, witness, sigma
        )
        counts[arm] += 1
        b_ref += y * z[arm]
        logdet += math.log(den)
        ref = _state(z, counts, reg)
        np.testing.assert_allclose(p, ref["p"], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(q, ref["q"], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(minv, ref["minv"], rtol=1e-8, atol=1e-12)
        assert logdet == pytest.approx(
            np.linalg.slogdet(np.eye(r) + (z.T * counts) @ z / reg)[1], rel=1e-9
        )
        np.testing.assert_allclose(means, p @ b, rtol=1e-12, atol=1e-12)
        assert best == int(np.argmax(means))
        np.testing.assert_array_equal(b, b_ref)
        gap = means[best] - means[witness] if witness >= 0 else 0.0
        if witness < 0 or witness == best or gap <= 0.0:
            assert math.isnan(upper)
        else:
            y_diff = z[best] - z[witness]
            norm = y_diff @ np.linalg.solve((z.T * counts) @ z, y_diff)
            assert upper == pytest.approx(gap**2 / (2 * sigma**2 * norm), rel=1e-7)
            assert upper >= gap**2 / (2 * sigma**2 * norm) * (1 - 1e-12)


def test_observe_on_a_noiseless_instance_recovers_the_means():
    """Rewards x·θ without noise: after the pulls, μ̂ = Z θ and x̂ the true best arm."""
    rng = np.random.default_rng(3)
    k, r = 50, 4
    z = rng.standard_normal((k, r))
    theta = rng.standard_normal(r)
    counts = np.zeros(k)
    counts[:r] = 1.0
    start = _state(z, counts, 1.0)
    p, q = start["p"].copy(), start["q"].copy()
    b = z[:r].T @ (z[:r] @ theta)
    means = np.empty(k)
    no_minv = np.empty((0, 0))
    for _ in range(200):
        arm = int(rng.integers(k))
        den, best, _ = tk.tas_observe(
            z, p, q, b, no_minv, means, arm, float(z[arm] @ theta), True, True, -1, 1.0
        )
        assert den == 1.0  # no (A + ηI)⁻¹ kept
    np.testing.assert_allclose(means, z @ theta, rtol=1e-9, atol=1e-9)
    assert best == int(np.argmax(z @ theta))


def test_observe_without_p_updates_only_b_and_minv():
    z = np.arange(12.0).reshape(4, 3)
    b, minv = np.zeros(3), np.eye(3)
    p, q, means = np.full((4, 3), 7.0), np.full(4, 7.0), np.full(4, 7.0)
    den, best, upper = tk.tas_observe(z, p, q, b, minv, means, 1, 2.0, False, False, 0, 1.0)
    x = z[1]
    np.testing.assert_array_equal(b, 2.0 * x)
    np.testing.assert_allclose(minv, np.linalg.inv(np.eye(3) + np.outer(x, x)), atol=1e-14)
    assert den == pytest.approx(1.0 + x @ x)
    assert (best, math.isnan(upper)) == (-1, True)
    assert (p == 7.0).all() and (q == 7.0).all() and (means == 7.0).all()


@pytest.mark.parametrize("seed", range(6))
def test_glr_is_the_brute_force_statistic_and_its_minimiser(seed):
    rng = np.random.default_rng(seed)
    k, r = 25, 4
    z = rng.standard_normal((k, r))
    counts = rng.integers(1, 6, size=k).astype(float)
    gram = (z.T * counts) @ z
    ainv = np.linalg.inv(gram)
    theta = rng.standard_normal(r)
    means = z @ theta
    best = int(np.argmax(means))
    p, q = z @ ainv, np.einsum("ij,ij->i", z @ ainv, z)
    z_stat, witness = tk.tas_glr(z, p, q, means, best, 0.8)
    terms = [
        math.inf
        if x == best
        else (means[best] - means[x]) ** 2
        / (2 * 0.64 * ((z[best] - z[x]) @ ainv @ (z[best] - z[x])))
        for x in range(k)
    ]
    assert z_stat == pytest.approx(min(terms), rel=1e-9)
    assert witness == int(np.argmin(terms))
    _, expected = glr_best_arm(z, theta, ainv, 0.8)
    assert z_stat == pytest.approx(expected, rel=1e-9)


def test_glr_conventions():
    z = np.eye(3)
    p, q = z.copy(), np.ones(3)
    tie = np.array([1.0, 1.0, 0.0])
    assert tk.tas_glr(z, p, q, tie, 0, 1.0)[0] == 0.0  # an alternative ties x̂
    strict = np.array([1.0, 0.5, 0.0])
    assert tk.tas_glr(z, p, q, strict, 0, 0.0) == (math.inf, -1)  # noiseless
    assert tk.tas_glr(z[:1], p[:1], q[:1], strict[:1], 0, 1.0) == (math.inf, -1)  # one arm
    z_stat, witness = tk.tas_glr(z, p, q, strict, 0, 1.0)
    assert (z_stat, witness) == (0.25 / 2 / 2, 1)


@pytest.mark.parametrize("k", [1, 5, 1000])
def test_track_is_numpys_c_tracking(k):
    rng = np.random.default_rng(k)
    cum = rng.random(k)
    counts = rng.integers(0, 3, size=k)
    for _ in range(30):
        w = rng.dirichlet(np.ones(k))
        expected_cum = cum + w
        expected = int(np.argmax(expected_cum - counts))
        assert tk.tas_track(cum, w, counts) == expected
        np.testing.assert_array_equal(cum, expected_cum)
        counts[expected] += 1


@pytest.mark.parametrize("multiplicative", [False, True])
@pytest.mark.parametrize(("k", "r", "eps"), [(1, 2, 0.1), (2, 2, 0.3), (9, 3, 0.2), (60, 5, 0.5)])
def test_eps_good_statistic_is_the_minimum_of_eps_good_glr_bit_for_bit(k, r, eps, multiplicative):
    """The compiled minimum equals :func:`eps_good_glr`'s statistic exactly (Ĝ of 1 to K arms)."""
    rng = np.random.default_rng(k * 7 + r)
    for trial in range(10):
        z = rng.standard_normal((k, r))
        counts = rng.integers(1, 5, size=k).astype(float)
        gram = (z.T * counts) @ z + np.eye(r) * 0.1
        ainv = np.linalg.inv(gram)
        p = z @ ainv
        q = np.einsum("ij,ij->i", p, z)
        means = z @ rng.standard_normal(r) + (2.0 if multiplicative else 0.0)
        if trial == 0:
            means[:] = means[0]  # every arm good
        best = int(np.argmax(means))
        s, c = (1.0 - eps, 0.0) if multiplicative else (1.0, eps)
        tau = threshold_from_best(float(means[best]), eps, multiplicative)
        for sigma in (0.0, 0.5):
            expected = eps_good_glr(
                z,
                None,
                None,
                eps,
                sigma=sigma,
                multiplicative=multiplicative,
                projected=p,
                leverages=q,
                means=means,
            ).statistic
            got = tk.eps_good_statistic(z, p, q, means, best, tau, s, c, sigma)
            assert got == expected
