"""The design solvers (G-optimal, XY, transductive, rounding) against closed forms and the
statements of Soare, Lazaric & Munos (2014): Prop. 3, App. A, Lemmas 6 and 7."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bandit_envs.theory.design import (
    DesignResult,
    g_optimal_design,
    pairwise_differences,
    round_design,
    transductive_design,
    xy_design,
)


def g_value(features: np.ndarray, w: np.ndarray) -> float:
    """max_k x_k^T A(w)^+ x_k, computed independently (pseudo-inverse on the span)."""
    a = (features.T * w) @ features
    pinv = np.linalg.pinv(a, rcond=1e-10, hermitian=True)
    return float(np.max(np.einsum("ki,ij,kj->k", features, pinv, features)))


def transductive_value(features: np.ndarray, targets: np.ndarray, w: np.ndarray) -> float:
    a = (features.T * w) @ features
    pinv = np.linalg.pinv(a, rcond=1e-12, hermitian=True)
    return float(np.max(np.einsum("ji,ik,jk->j", targets, pinv, targets)))


# --------------------------------------------------------------------------- Kiefer-Wolfowitz
KW_CASES = [(20, 3, 3), (50, 5, 5), (200, 10, 10), (40, 8, 4), (15, 6, 2), (300, 20, 20)]


@pytest.mark.parametrize(("k", "h", "r"), KW_CASES)
def test_kiefer_wolfowitz_g_optimal_value_equals_rank(k: int, h: int, r: int) -> None:
    rng = np.random.default_rng(k + 7 * h + r)
    feats = rng.standard_normal((k, r)) @ rng.standard_normal((r, h))
    res = g_optimal_design(feats, tol=1e-6)
    assert res.converged
    assert res.lower_bound == r
    w = res.weights
    assert w.shape == (k,) and np.all(w >= 0) and math.isclose(w.sum(), 1.0, rel_tol=1e-12)
    value = g_value(feats, w)
    assert value == pytest.approx(r, rel=1e-6)
    assert res.value == pytest.approx(value, rel=1e-9)
    # any design has G value >= rank (Kiefer-Wolfowitz; Soare et al.'s Prop. 3)
    for _ in range(5):
        rand_w = rng.dirichlet(np.ones(k))
        assert g_value(feats, rand_w) >= r * (1 - 1e-10)


def test_canonical_basis_uniform_design_value_is_d() -> None:
    for d in (2, 5, 9):
        feats = np.eye(d)
        uniform = np.full(d, 1.0 / d)
        assert g_value(feats, uniform) == pytest.approx(d, rel=1e-15)
        res = g_optimal_design(feats)
        np.testing.assert_allclose(res.weights, uniform, rtol=1e-6)
        assert res.value == pytest.approx(d, rel=1e-12)


def test_g_design_soare_instance_extra_arm_also_at_d() -> None:
    # Soare et al.'s Section 6 instance: the uniform design on e1..ed gives x_{d+1} the value d
    d, om = 5, 0.01
    feats = np.vstack([np.eye(d), np.r_[math.cos(om), math.sin(om), np.zeros(d - 2)]])
    w = np.r_[np.full(d, 1.0 / d), 0.0]
    assert g_value(feats, w) == pytest.approx(d, rel=1e-12)
    assert g_optimal_design(feats).value == pytest.approx(d, rel=1e-6)


def test_g_design_large_instance_converges() -> None:
    # its speed is measured in benchmarks/bench_design_scaling.py
    rng = np.random.default_rng(11)
    feats = rng.standard_normal((2000, 20))
    res = g_optimal_design(feats)
    assert res.converged and res.value <= 20 * (1 + 1e-6)


def test_g_design_init_and_errors() -> None:
    rng = np.random.default_rng(12)
    feats = rng.standard_normal((10, 3))
    res = g_optimal_design(feats, init=np.ones(10))
    assert res.converged
    with pytest.raises(ValueError, match="init does not span"):
        g_optimal_design(feats, init=np.r_[1.0, np.zeros(9)])
    with pytest.raises(ValueError, match="init is expected to have shape"):
        g_optimal_design(feats, init=np.ones(3))
    with pytest.raises(ValueError, match="features are all zero"):
        g_optimal_design(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="2-D array"):
        g_optimal_design(np.ones(4))
    with pytest.raises(ValueError, match="finite"):
        g_optimal_design(np.array([[1.0, np.inf]]))
    with pytest.raises(ValueError, match="tol"):
        g_optimal_design(feats, tol=0.0)


def test_g_design_reports_non_convergence_honestly() -> None:
    rng = np.random.default_rng(13)
    res = g_optimal_design(rng.standard_normal((500, 10)), max_iter=3)
    assert not res.converged
    assert res.value > 10 * (1 + 1e-6)
    assert res.iterations <= 3


# --------------------------------------------------------------------------- App. A examples
@pytest.mark.parametrize("eps", [0.9, 0.3, 1e-2])
def test_app_a_symmetric_pair(eps: float) -> None:
    # x_{1,2} = (1, ±ε/2), λ = (½, ½): G value 2 and XY value 4 (Soare et al., App. A)
    feats = np.array([[1.0, eps / 2], [1.0, -eps / 2]])
    half = np.array([0.5, 0.5])
    assert g_value(feats, half) == pytest.approx(2.0, rel=1e-12)
    assert transductive_value(feats, pairwise_differences(feats), half) == pytest.approx(4.0)
    g = g_optimal_design(feats)
    np.testing.assert_allclose(g.weights, half, rtol=1e-6)
    assert g.value == pytest.approx(2.0, rel=1e-6)
    xy = xy_design(feats, tol=1e-8)
    assert xy.converged
    np.testing.assert_allclose(xy.weights, half, rtol=1e-6)
    assert xy.value == pytest.approx(4.0, rel=1e-8)


@pytest.mark.parametrize("eps", [0.5, 0.1, 1e-3])
def test_app_a_collinear_pair(eps: float) -> None:
    # x1 = (1, 0), x2 = (1 − ε, 0): all mass on x1; G value 1, XY value ε² (Soare et al., App. A)
    feats = np.array([[1.0, 0.0], [1.0 - eps, 0.0]])
    g = g_optimal_design(feats)
    assert g.value == pytest.approx(1.0, rel=1e-6)
    assert g.weights[0] == pytest.approx(1.0, abs=1e-6)
    xy = xy_design(feats, tol=1e-8)
    assert xy.converged
    assert xy.value == pytest.approx(eps**2, rel=1e-7)
    assert xy.weights[0] == pytest.approx(1.0, abs=1e-6)
    assert xy.lower_bound <= xy.value


# --------------------------------------------------------------------------- transductive
@pytest.mark.parametrize(
    "y", [[1.0, -2.0, 3.0], [3.0, 1e-3, 0.5, 5.0], [1.0, 0.0, 2.0], [0.2, 0.0]]
)
def test_single_direction_orthogonal_arms_closed_form(y: list[float]) -> None:
    # Cauchy-Schwarz: min_w ||y||²_{A(w)^{-1}} = (Σ|y_i|)², attained at w_i ∝ |y_i|
    yv = np.asarray(y)
    res = transductive_design(np.eye(yv.size), yv, tol=1e-7)
    assert res.converged
    assert res.value == pytest.approx(np.abs(yv).sum() ** 2, rel=1e-6)
    assert res.lower_bound <= np.abs(yv).sum() ** 2 * (1 + 1e-12)
    np.testing.assert_allclose(res.weights, np.abs(yv) / np.abs(yv).sum(), atol=1e-4)


def test_transductive_certificate_and_value_are_consistent() -> None:
    rng = np.random.default_rng(14)
    feats = rng.standard_normal((12, 4))
    targets = rng.standard_normal((9, 4))
    c = rng.uniform(0.5, 2.0, size=9)
    res = transductive_design(feats, targets, c, tol=1e-4)
    assert res.converged
    assert 0 <= res.value - res.lower_bound <= 1e-4 * res.value
    assert res.relative_gap <= 1e-4
    expected = np.max(
        c
        * np.einsum("ji,ik,jk->j", targets, np.linalg.inv((feats.T * res.weights) @ feats), targets)
    )
    assert res.value == pytest.approx(expected, rel=1e-9)
    # the certified lower bound is below the value of random designs
    for _ in range(20):
        w = rng.dirichlet(np.ones(12))
        val = np.max(
            c * np.einsum("ji,ik,jk->j", targets, np.linalg.inv((feats.T * w) @ feats), targets)
        )
        assert val >= res.lower_bound


def test_xy_design_random_instance() -> None:
    rng = np.random.default_rng(15)
    feats = rng.standard_normal((40, 5))
    res = xy_design(feats)
    assert isinstance(res, DesignResult)
    assert res.converged and res.relative_gap <= 1e-3
    assert res.value == pytest.approx(
        transductive_value(feats, pairwise_differences(feats), res.weights), rel=1e-8
    )
    # XY value is at most 4× the G value of the G-optimal design (triangle inequality, as
    # in the proof of Soare et al.'s Lemma 7)
    g = g_optimal_design(feats)
    assert res.value <= 4 * g.value * (1 + 1e-6)


def test_transductive_rank_deficient_features() -> None:
    rng = np.random.default_rng(16)
    feats = rng.standard_normal((15, 3)) @ rng.standard_normal((3, 7))
    targets = pairwise_differences(feats)[:20]
    res = transductive_design(feats, targets, tol=1e-4)
    assert res.converged
    assert res.value == pytest.approx(transductive_value(feats, targets, res.weights), rel=1e-7)


def test_transductive_errors() -> None:
    feats = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    with pytest.raises(ValueError, match="not in the span of the features"):
        transductive_design(feats, np.array([[0.0, 0.0, 1.0]]))
    with pytest.raises(ValueError, match="targets is expected to have shape"):
        transductive_design(feats, np.ones((2, 2)))
    with pytest.raises(ValueError, match="target_weights is expected to have shape"):
        transductive_design(feats, np.ones((2, 3)) * [1, 1, 0], np.ones(3))
    with pytest.raises(ValueError, match="non-negative"):
        transductive_design(feats, np.array([[1.0, 0.0, 0.0]]), np.array([-1.0]))
    with pytest.raises(ValueError, match="targets must be finite"):
        transductive_design(feats, np.array([[np.nan, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="init does not span"):
        transductive_design(feats, np.array([[1.0, 0.0, 0.0]]), init=np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="K >= 2"):
        xy_design(np.ones((1, 3)))
    # all-zero targets: nothing to estimate
    res = transductive_design(feats, np.zeros((2, 3)))
    assert res.value == 0.0 and res.converged


# --------------------------------------------------------------------------- rounding
def adams(weights: np.ndarray, n: int, support_tol: float = 1e-12) -> np.ndarray:
    w = weights / weights.sum()
    supp = np.flatnonzero(w > support_tol)
    ws = w[supp] / w[supp].sum()
    t = np.zeros(supp.size, dtype=int)
    for _ in range(n):
        t[np.argmin(t / ws)] += 1
    out = np.zeros(w.size, dtype=int)
    out[supp] = t
    return out


WEIGHT_CASES = [
    np.array([0.5, 0.3, 0.2]),
    np.full(4, 0.25),
    np.array([0.0, 1.0, 0.0, 3.0, 2.0]),
    np.array([1e-5, 1 - 2e-5, 1e-5, 0.0]),
    np.array([1.0]),
]


@pytest.mark.parametrize("weights", WEIGHT_CASES)
def test_round_design_properties(weights: np.ndarray) -> None:
    p = int(np.count_nonzero(weights / weights.sum() > 1e-12))
    prev = None
    for n in range(p, p + 40):
        counts = round_design(weights, n)
        assert counts.dtype == np.int64
        assert counts.sum() == n
        assert np.all(counts[weights > 0] >= 1)
        assert np.all(counts[weights == 0] == 0)
        np.testing.assert_array_equal(counts, adams(weights, n))
        if prev is not None:
            diff = counts - prev
            assert diff.sum() == 1 and np.count_nonzero(diff) == 1 and diff.min() >= 0
        prev = counts


def test_round_design_random_weights_monotone_and_adams() -> None:
    rng = np.random.default_rng(17)
    for _ in range(50):
        w = rng.dirichlet(np.ones(rng.integers(2, 9)))
        prev = round_design(w, w.size)
        for n in range(w.size + 1, w.size + 25):
            counts = round_design(w, n)
            assert np.count_nonzero(counts - prev) == 1 and (counts - prev).sum() == 1
            prev = counts
        np.testing.assert_array_equal(prev, adams(w, w.size + 24))


def test_round_design_efficiency_lemma_6() -> None:
    # rounded G design: rho^G <= (1 + (d + d² + 2)/(2t)) d for t >= d (Soare et al.'s Lemma 6)
    rng = np.random.default_rng(18)
    feats = rng.standard_normal((30, 4))
    d = 4
    w = g_optimal_design(feats).weights
    w = np.where(w > 1e-9, w, 0.0)
    p = int(np.count_nonzero(w))
    for t in (p, 2 * p, 100):
        counts = round_design(w, t)
        rho = g_value(feats, counts / t)
        assert rho <= (1 + (d + d * d + 2) / (2 * t)) * d


def test_round_design_errors() -> None:
    with pytest.raises(ValueError, match="n = 2 pulls for p = 3 support points"):
        round_design(np.array([0.2, 0.3, 0.5]), 2)
    with pytest.raises(ValueError, match="non-negative"):
        round_design(np.array([0.5, -0.5]), 4)
    with pytest.raises(ValueError, match="integer"):
        round_design(np.array([0.5, 0.5]), 2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="1-D"):
        round_design(np.ones((2, 2)), 4)


def test_transductive_design_without_finish_stops_after_max_iter():
    rng = np.random.default_rng(0)
    feats = rng.standard_normal((400, 6))
    targets = feats[0] - feats[1:]
    weights = 1.0 / (0.1 + rng.random(399)) ** 2
    full = transductive_design(feats, targets, weights, tol=1e-3)
    assert full.converged
    for iters in (1, 3, 10):
        quick = transductive_design(
            feats, targets, weights, tol=1e-3, max_iter=iters, finish=False, init=full.weights
        )
        assert quick.iterations <= iters
        assert quick.lower_bound <= full.value * (1 + 1e-9)  # a valid certificate
        assert quick.lower_bound <= quick.value
        assert quick.value <= full.value * (1 + 2e-3)  # warm: it starts at the optimum
        assert quick.weights.shape == (400,) and abs(quick.weights.sum() - 1.0) < 1e-9
    cold = transductive_design(feats, targets, weights, max_iter=5, finish=False)
    assert cold.iterations <= 5 and not cold.converged and cold.value > full.value


def test_transductive_design_finish_is_checked():
    feats = np.eye(3)
    with pytest.raises(ValueError, match="finish is expected to be True or False"):
        transductive_design(feats, feats[0] - feats[1:], finish="no")
    with pytest.raises(ValueError, match="needs method='frank_wolfe'"):
        transductive_design(feats, feats[0] - feats[1:], finish=False, method="interior_point")
