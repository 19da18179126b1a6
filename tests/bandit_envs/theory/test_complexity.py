from __future__ import annotations

import math

import numpy as np
import pytest

from bandit_envs.theory.complexity import linear_best_arm_complexity


def soare_instance(d: int, omega: float, theta1: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """Soare, Lazaric & Munos 2014, Section 6: e_1..e_d and (cos ω, sin ω, 0, …); θ = θ1 e_1."""
    arms = np.vstack([np.eye(d), np.r_[math.cos(omega), math.sin(omega), np.zeros(d - 2)]])
    theta = np.zeros(d)
    theta[0] = theta1
    return arms, theta


def grid_tstar_three_arms_2d(arms: np.ndarray, theta: np.ndarray, sigma: float) -> float:
    """T*(θ) for 3 arms in R², by brute force over the simplex (independent of the library).

    A dense grid over (w1, w2), w3 = 1 − w1 − w2, then repeated refinement around the best point.
    """
    means = arms @ theta
    best = int(np.argmax(means))
    others = [k for k in range(3) if k != best]
    ys = arms[best] - arms[others]
    gaps = means[best] - means[others]

    def criterion(w1: np.ndarray, w2: np.ndarray) -> np.ndarray:
        w3 = 1.0 - w1 - w2
        w = np.stack([w1, w2, w3], axis=-1)
        a00 = w @ (arms[:, 0] ** 2)
        a01 = w @ (arms[:, 0] * arms[:, 1])
        a11 = w @ (arms[:, 1] ** 2)
        det = a00 * a11 - a01**2
        out = np.zeros_like(w1)
        for y, gap in zip(ys, gaps, strict=True):
            with np.errstate(divide="ignore", invalid="ignore"):
                quad = (y[0] ** 2 * a11 - 2 * y[0] * y[1] * a01 + y[1] ** 2 * a00) / det
            out = np.maximum(out, 2 * sigma**2 * quad / gap**2)
        bad = (w3 < -1e-15) | (det <= 0) | (w1 < 0) | (w2 < 0)
        return np.where(bad, np.inf, out)

    g = np.linspace(0.0, 1.0, 401)
    w1, w2 = np.meshgrid(g, g, indexing="ij")
    vals = criterion(w1, w2)
    i = np.unravel_index(np.argmin(vals), vals.shape)
    c1, c2, best_val = w1[i], w2[i], vals[i]
    half = 1.0 / 400
    for _ in range(12):
        g1 = np.clip(np.linspace(c1 - 2 * half, c1 + 2 * half, 81), 0.0, 1.0)
        g2 = np.clip(np.linspace(c2 - 2 * half, c2 + 2 * half, 81), 0.0, 1.0)
        w1, w2 = np.meshgrid(g1, g2, indexing="ij")
        w2 = np.minimum(w2, 1.0 - w1)  # stay in the simplex (w3 >= 0)
        vals = criterion(w1, w2)
        i = np.unravel_index(np.argmin(vals), vals.shape)
        if vals[i] <= best_val:
            c1, c2, best_val = w1[i], w2[i], vals[i]
        half /= 4.0
    return float(best_val)


def test_tstar_soare_d2_matches_independent_grid_search() -> None:
    arms, theta = soare_instance(2, 0.1)
    out = linear_best_arm_complexity(arms, theta, 1.0)
    reference = grid_tstar_three_arms_2d(arms, theta, 1.0)
    assert out["lower_bound"] == pytest.approx(reference, rel=1e-2)
    assert out["converged"]
    assert out["lower_bound_gap"] <= 1e-6 * out["lower_bound"]
    assert out["best_arm"] == 0


@pytest.mark.parametrize(("d", "expected"), [(2, 10100.08), (5, 10100.84), (10, 10102.09)])
def test_h_lb_of_the_paper_instance(d: int, expected: float) -> None:
    # H_LB (Eq. 6) of Soare et al.'s Section 6 instance: our reference values (not in the paper)
    arms, theta = soare_instance(d, 0.01)
    out = linear_best_arm_complexity(arms, theta, 1.0)
    assert out["h_lb"] == pytest.approx(expected, rel=1e-3)
    assert out["lower_bound"] == pytest.approx(2 * out["h_lb"], rel=1e-15)
    assert out["converged"] and out["lower_bound_gap"] <= 1e-6 * out["lower_bound"]
    assert out["min_gap"] == pytest.approx(2 * (1 - math.cos(0.01)), rel=1e-9)
    np.testing.assert_allclose(out["gaps"][1:d], 2.0)
    assert out["gaps"][0] == 0.0


def test_oracle_weights_of_the_paper_instance() -> None:
    # our reference design: λ* ≈ (0.004973, 0.99495, 2.5e-5, 2.5e-5, 2.5e-5, ~0);
    # λ(e1)/λ(e2) = tan(ω/2) (single-direction rule λ_i ∝ |ỹ_i|)
    arms, theta = soare_instance(5, 0.01)
    w = linear_best_arm_complexity(arms, theta, 1.0)["oracle_weights"]
    assert w.sum() == pytest.approx(1.0, rel=1e-12)
    assert w[0] / w[1] == pytest.approx(math.tan(0.005), rel=2e-2)
    assert w[1] == pytest.approx(0.99495, rel=1e-4)
    np.testing.assert_allclose(w[2:5], 2.5e-5, rtol=2e-2)
    assert w[5] < 1e-4


def h_mab(gaps: np.ndarray) -> float:
    g = gaps.copy()
    g[g == 0] = np.min(g[g > 0])
    return float(np.sum(1.0 / g**2))


@pytest.mark.parametrize("seed", range(6))
def test_lemma_2_bounds_on_random_instances(seed: int) -> None:
    # Soare et al.'s Lemma 2 (Eq. 8), its lower bound corrected (as printed, it fails on the
    # paper's own instance): max_y ||y||²/(L²Δ_y²) <= H_LB <= 4d/Δ_min²
    rng = np.random.default_rng(seed)
    k, d = int(rng.integers(3, 25)), int(rng.integers(2, 6))
    arms = rng.standard_normal((k, d))
    theta = rng.standard_normal(d)
    out = linear_best_arm_complexity(arms, theta, 1.0)
    best = out["best_arm"]
    others = np.arange(k) != best
    ys = arms[best] - arms[others]
    gaps = out["gaps"][others]
    big_l = np.max(np.linalg.norm(arms, axis=1))
    lower = np.max(np.sum(ys**2, axis=1) / (big_l**2 * gaps**2))
    assert lower <= out["h_lb"] * (1 + 1e-9)
    assert out["h_lb"] <= 4 * d / out["min_gap"] ** 2
    assert out["converged"] and out["lower_bound_gap"] <= 1e-6 * out["lower_bound"]


@pytest.mark.parametrize("seed", range(5))
def test_canonical_basis_between_h_mab_and_twice_h_mab(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 12))
    theta = rng.uniform(0.0, 1.0, size=k)
    out = linear_best_arm_complexity(np.eye(k), theta, 1.0)
    hm = h_mab(out["gaps"])
    assert hm * (1 - 1e-9) <= out["h_lb"] <= 2 * hm * (1 + 1e-9)


def test_sigma_scaling_and_noiseless() -> None:
    arms, theta = soare_instance(3, 0.1)
    one = linear_best_arm_complexity(arms, theta, 1.0)
    three = linear_best_arm_complexity(arms, theta, 3.0)
    zero = linear_best_arm_complexity(arms, theta, 0.0)
    assert three["lower_bound"] == pytest.approx(9 * one["lower_bound"], rel=1e-12)
    assert three["h_lb"] == pytest.approx(one["h_lb"], rel=1e-12)
    assert zero["lower_bound"] == 0.0 and zero["lower_bound_gap"] == 0.0
    np.testing.assert_allclose(zero["oracle_weights"], one["oracle_weights"], rtol=1e-12)
    assert zero["h_lb"] == pytest.approx(one["h_lb"], rel=1e-12)


def test_rank_deficient_features() -> None:
    # arms in a 2-D subspace of R^4: the complexity is that of the projected problem
    rng = np.random.default_rng(7)
    basis = np.linalg.qr(rng.standard_normal((4, 2)))[0]
    low = rng.standard_normal((6, 2))
    theta_low = rng.standard_normal(2)
    full = linear_best_arm_complexity(low @ basis.T, basis @ theta_low, 1.0)
    reduced = linear_best_arm_complexity(low, theta_low, 1.0)
    assert full["lower_bound"] == pytest.approx(reduced["lower_bound"], rel=1e-5)


def test_single_arm_is_trivial() -> None:
    out = linear_best_arm_complexity(np.array([[1.0, 2.0]]), np.array([0.5, 0.5]), 1.0)
    assert out["lower_bound"] == 0.0 and out["best_arm"] == 0
    np.testing.assert_array_equal(out["oracle_weights"], [1.0])


def test_errors() -> None:
    arms = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="best arm is not unique: arms \\[0, 2\\]"):
        linear_best_arm_complexity(arms, np.array([1.0, 0.0]), 1.0)
    with pytest.raises(ValueError, match="best arm is not unique"):
        linear_best_arm_complexity(np.eye(2), np.array([1.0, 1.0]), 1.0)
    with pytest.raises(ValueError, match="theta is expected to have shape \\(2,\\)"):
        linear_best_arm_complexity(np.eye(2), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="sigma"):
        linear_best_arm_complexity(np.eye(2), np.array([1.0, 0.0]), -1.0)
    with pytest.raises(ValueError, match="features is expected to be a 2-D array"):
        linear_best_arm_complexity(np.ones(3), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="finite"):
        linear_best_arm_complexity(np.eye(2), np.array([np.nan, 0.0]), 1.0)
