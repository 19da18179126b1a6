"""Pareto dominance, PSI gaps and complexities (Kone, Kaufmann & Richert, Sec. 2)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

import bandit_envs.theory.pareto._dominance as dominance
from bandit_envs.errors import InvalidAnswerError, InvalidParameterError
from bandit_envs.theory.pareto import (
    ape_confidence,
    ape_width_terms,
    complexities,
    dominance_margins,
    empirical_gaps,
    is_eps_pareto_set,
    pareto_mask,
    pareto_set,
    psi_gaps,
)

HAND = np.array([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4], [0.6, 0.6]])


# ----------------------------------------------------------------------- independent references


def dominated_matrix(mu: np.ndarray) -> np.ndarray:
    """dom[i, j]: mu_i is dominated by mu_j (Definition 1), by full broadcasting."""
    weak = (mu[:, None, :] <= mu[None, :, :]).all(-1)
    strict = (mu[:, None, :] < mu[None, :, :]).any(-1)
    return weak & strict


def brute_mask(mu: np.ndarray) -> np.ndarray:
    return ~dominated_matrix(mu).any(1)


def margins(mu: np.ndarray) -> np.ndarray:
    """M[i, j] = max_c (mu_i(c) - mu_j(c)) by broadcasting."""
    return (mu[:, None, :] - mu[None, :, :]).max(-1)


def paper_gaps(mu: np.ndarray) -> np.ndarray:
    """Kone et al. eq. (1) literally: Δ*_i = max over ALL j (incl. i), δ*_i = min over j ≠ i."""
    k = len(mu)
    big_m = margins(mu)
    small_m = -big_m
    delta_star = small_m.max(1)  # j = i included: m(i, i) = 0
    terms = np.minimum(big_m, np.maximum(big_m.T, 0) + np.maximum(delta_star, 0)[None, :])
    terms[np.eye(k, dtype=bool)] = np.inf
    small_delta = terms.min(1)
    return np.where(brute_mask(mu), small_delta, delta_star)


def max_form_gaps(mu: np.ndarray) -> np.ndarray:
    """Eq. (8) (App. C), vectorised: max(Δ*, δ*) with Δ* over j ≠ i; no Pareto set needed."""
    k = len(mu)
    eye = np.eye(k, dtype=bool)
    big_m = margins(mu)
    delta_star = np.where(eye, -np.inf, -big_m).max(1)
    terms = np.minimum(big_m, np.maximum(big_m.T, 0) + np.maximum(delta_star, 0)[None, :])
    terms[eye] = np.inf
    return np.maximum(delta_star, terms.min(1))


def auer_gaps(mu: np.ndarray) -> np.ndarray:
    """Auer et al. 2016: dominated i: max_j m(i, j); optimal i: min(δ⁺_i, δ⁻_i)."""
    k = len(mu)
    big_m = margins(mu)
    opt = brute_mask(mu)
    out = np.empty(k)
    sub_gap = (-big_m).max(1)
    for i in range(k):
        if not opt[i]:
            out[i] = sub_gap[i]
            continue
        plus = [min(big_m[i, j], big_m[j, i]) for j in range(k) if opt[j] and j != i]
        minus = [max(big_m[j, i], 0.0) + sub_gap[j] for j in range(k) if not opt[j]]
        out[i] = min(plus + minus, default=np.inf)
    return out


def cpp_gaps(mu: np.ndarray) -> np.ndarray:
    """The authors' C++ compute_gap: min(d1, d2, d3) for optimal arms."""
    k = len(mu)
    big_m = margins(mu)
    opt = brute_mask(mu)
    sub_gap = (-big_m).max(1)
    out = np.empty(k)
    for i in range(k):
        if not opt[i]:
            out[i] = sub_gap[i]
            continue
        d1 = min((big_m[i, j] for j in range(k) if j != i), default=np.inf)
        d2 = min((big_m[j, i] for j in range(k) if opt[j] and j != i), default=np.inf)
        d3 = min((max(big_m[j, i], 0) + sub_gap[j] for j in range(k) if not opt[j]), default=np.inf)
        out[i] = min(d1, d2, d3)
    return out


def random_instance(rng: np.random.Generator, k_max: int = 11, d_max: int = 3) -> np.ndarray:
    k = int(rng.integers(1, k_max + 1))
    d = int(rng.integers(1, d_max + 1))
    kind = rng.integers(3)
    if kind == 0:
        return rng.normal(size=(k, d))
    if kind == 1:  # many arms on or near a concave front
        phi = rng.uniform(0, np.pi / 2, size=k)
        base = np.c_[np.cos(phi), np.sin(phi), rng.uniform(size=(k, max(d - 2, 0)))][:, :d]
        return base - rng.uniform(0, 0.3, size=(k, 1))
    return rng.uniform(size=(k, d))


# ------------------------------------------------------- margins m(i, j) = -M(i, j) (Sec. 2.1)


def test_margins_signs_and_antisymmetry() -> None:
    rng = np.random.default_rng(9)
    for _ in range(200):
        mu = np.round(random_instance(rng), 1)  # rounding creates ties and weak dominance
        big_m = dominance_margins(mu)
        small_m = -big_m
        np.testing.assert_array_equal(big_m, margins(mu))
        strictly = (mu[:, None, :] < mu[None, :, :]).all(-1)  # i ≺ j
        weakly = (mu[:, None, :] <= mu[None, :, :]).all(-1)  # i weakly dominated by j
        np.testing.assert_array_equal(small_m > 0, strictly)
        np.testing.assert_array_equal(big_m > 0, ~weakly)


def test_margins_rows_cols_and_masks() -> None:
    mu = np.random.default_rng(0).normal(size=(7, 3))
    full = dominance_margins(mu)
    np.testing.assert_array_equal(dominance_margins(mu, rows=[4, 1]), full[[4, 1]])
    np.testing.assert_array_equal(dominance_margins(mu, cols=[6, 0, 2]), full[:, [6, 0, 2]])
    mask = np.array([True, False, True, False, False, True, False])
    np.testing.assert_array_equal(dominance_margins(mu, rows=mask, cols=mask), full[mask][:, mask])
    assert dominance_margins(mu, rows=[]).shape == (0, 7)
    with pytest.raises(InvalidParameterError, match="outside the valid range 0..6"):
        dominance_margins(mu, rows=[7])
    with pytest.raises(InvalidParameterError, match=r"boolean mask must have shape \(7,\)"):
        dominance_margins(mu, cols=[True, False])
    with pytest.raises(InvalidParameterError, match="1-D array of arm indices"):
        dominance_margins(mu, rows=[0.5])


# ------------------------------------------------------------------- Pareto set (Definition 1)


def test_pareto_mask_hand_examples() -> None:
    np.testing.assert_array_equal(pareto_mask(HAND), [True, True, False, True])
    assert pareto_set(HAND) == frozenset({0, 1, 3})
    # identical vectors do not dominate each other; both stay if nothing else dominates them
    np.testing.assert_array_equal(pareto_mask([[1, 1], [1, 1], [0, 0]]), [True, True, False])
    # weak dominance (equal on one objective) is dominance, in either objective
    np.testing.assert_array_equal(pareto_mask([[1, 0], [1, 1]]), [False, True])
    np.testing.assert_array_equal(
        pareto_mask([[1, 0], [1, 1], [1, 1], [0, 2], [0, 1], [0.5, 2]]),
        [False, True, True, False, False, True],
    )
    np.testing.assert_array_equal(pareto_mask([[0, 0, 1], [0, 0, 1], [0, 1, 1]]), [0, 0, 1])
    # d = 1: every arm at the maximum is optimal
    np.testing.assert_array_equal(pareto_mask([[3.0], [1.0], [3.0]]), [True, False, True])
    np.testing.assert_array_equal(pareto_mask([[0.5, -2.0]]), [True])


def test_pareto_mask_matches_brute_force() -> None:
    rng = np.random.default_rng(10)
    for _ in range(300):
        mu = random_instance(rng, k_max=150, d_max=4)
        if rng.integers(2):
            mu = np.round(mu, 1)
        np.testing.assert_array_equal(pareto_mask(mu), brute_mask(mu))


@pytest.mark.parametrize("d", [2, 3, 8])
def test_blocked_paths_are_exact(monkeypatch: pytest.MonkeyPatch, d: int) -> None:
    """Tiny blocks force every chunked code path; results must not change at all."""
    rng = np.random.default_rng(d)
    instances = [np.round(rng.normal(size=(300, d)), 1), rng.normal(size=(300, d))]
    phi = np.linspace(0, np.pi / 2, 300)
    instances.append(np.c_[np.cos(phi), np.sin(phi), np.zeros((300, d - 2))])  # all optimal
    expected = [(pareto_mask(mu), psi_gaps(mu).gaps) for mu in instances]
    monkeypatch.setattr(dominance, "BLOCK_ELEMENTS", 7)
    monkeypatch.setattr(dominance, "_MASK_BLOCK", 5)
    for mu, (mask, gaps) in zip(instances, expected, strict=True):
        np.testing.assert_array_equal(pareto_mask(mu), mask)
        np.testing.assert_array_equal(pareto_mask(mu), brute_mask(mu))
        np.testing.assert_array_equal(psi_gaps(mu).gaps, gaps)
        np.testing.assert_allclose(gaps, max_form_gaps(mu), rtol=1e-12, atol=1e-15)
        answer = np.flatnonzero(mask | (gaps < 0.05))
        assert is_eps_pareto_set(answer, mu, 0.05)


def test_larger_instance_against_brute_force() -> None:
    mu = np.random.default_rng(1500).normal(size=(1500, 3))
    result = psi_gaps(mu)
    np.testing.assert_array_equal(result.pareto, brute_mask(mu))
    np.testing.assert_allclose(result.gaps, max_form_gaps(mu), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        ([1.0, 2.0], r"2-D array of shape \(K, d\).*got shape \(2,\)"),
        (np.zeros((0, 2)), r"got shape \(0, 2\)"),
        ([[1.0, np.nan]], r"means must be finite; entry \(0, 1\) is nan"),
        ([["a", "b"]], "must be a numeric array"),
    ],
)
def test_bad_means_are_refused(bad: object, match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        pareto_mask(bad)
    with pytest.raises(InvalidParameterError, match=match):
        psi_gaps(bad)


# --------------------------------------------------------------------- PSI gaps (eq. 1, eq. 8)


def test_hand_gaps_and_complexities() -> None:
    result = psi_gaps(HAND)
    np.testing.assert_allclose(result.gaps, [0.4, 0.4, 0.2, 0.2], rtol=1e-12)
    np.testing.assert_array_equal(result.pareto, [True, True, False, True])
    np.testing.assert_array_equal(result.arms, np.arange(4))
    c = complexities(result.gaps, 2)
    assert c["H1"] == pytest.approx(2 / 0.16 + 2 / 0.04)  # 62.5
    assert c["H2"] == pytest.approx(50.0)  # max(1/0.04, 2/0.04, 3/0.16, 4/0.16)
    assert c["H1_lin"] == pytest.approx(50.0)
    assert c["H2_lin"] == pytest.approx(50.0)
    assert c["min_gap"] == pytest.approx(0.2)


def test_degenerate_gaps() -> None:
    assert psi_gaps([[0.3, 0.7]]).gaps.tolist() == [np.inf]  # lone arm: δ* = min over nothing
    # identical vectors and weak-only dominance give zero gaps
    assert psi_gaps([[1.0, 1.0], [1.0, 1.0]]).gaps.tolist() == [0.0, 0.0]
    gaps = psi_gaps([[1.0, 0.0], [1.0, 1.0]]).gaps
    assert gaps[0] == 0.0


def test_one_objective_reduces_to_best_arm_gaps() -> None:
    mu = np.array([[0.3], [1.0], [0.9], [-2.0]])
    np.testing.assert_allclose(psi_gaps(mu).gaps, [0.7, 0.1, 0.1, 3.0])


def test_paper_auer_cpp_and_max_forms_agree() -> None:
    """Eq. (1), Auer et al.'s form, the authors' C++ form and eq. (8) agree on 1200 random
    instances (K ≤ 11, d ≤ 3); all gaps > 0."""
    rng = np.random.default_rng(11)
    for _ in range(1200):
        mu = random_instance(rng)
        ours = psi_gaps(mu).gaps
        for reference in (paper_gaps, auer_gaps, cpp_gaps, max_form_gaps):
            np.testing.assert_allclose(ours, reference(mu), rtol=1e-12, atol=1e-15)
        assert (ours > 0).all()


def test_suboptimal_gap_is_smallest_undominating_shift() -> None:
    """Sec. 2.1: Δ_i = min{t : μ_i + t·1 is not strictly dominated by any arm}, by bisection."""
    rng = np.random.default_rng(12)
    for n in range(150):
        mu = HAND if n == 0 else random_instance(rng, k_max=30, d_max=4)
        result = psi_gaps(mu)
        sub = np.flatnonzero(~result.pareto)
        if sub.size == 0:
            continue
        lo = np.zeros(sub.size)
        hi = np.full(sub.size, float(mu.max() - mu.min()) + 1.0)
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            shifted = mu[sub] + mid[:, None]
            dominated = (shifted[:, None, :] < mu[None, :, :]).all(-1).any(1)
            lo = np.where(dominated, mid, lo)
            hi = np.where(dominated, hi, mid)
        np.testing.assert_allclose(result.gaps[sub], hi, atol=1e-12)


# ---------------------------------------------------------------------- empirical gaps (eq. 5)


def test_empirical_gaps_on_true_means_are_true_gaps() -> None:
    rng = np.random.default_rng(13)
    for _ in range(200):
        mu = random_instance(rng, k_max=40)
        truth = psi_gaps(mu)
        emp = empirical_gaps(mu)
        np.testing.assert_array_equal(emp.gaps, truth.gaps)
        np.testing.assert_array_equal(emp.pareto, truth.pareto)
        emp_all = empirical_gaps(mu, np.ones(len(mu), dtype=bool))
        np.testing.assert_array_equal(emp_all.gaps, truth.gaps)


def test_empirical_gaps_restrict_to_the_active_set() -> None:
    """Eq. (5) on A (typo fixed: (Δ̂*_j)_+), Δ̂ = max(Δ̂*, δ̂*), rows follow the sorted arms."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        k = int(rng.integers(2, 30))
        mu_hat = rng.normal(size=(k, int(rng.integers(1, 4))))
        active = rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False)
        result = empirical_gaps(mu_hat, active)
        arms = np.sort(active)
        np.testing.assert_array_equal(result.arms, arms)
        np.testing.assert_allclose(result.gaps, max_form_gaps(mu_hat[arms]), rtol=1e-12)
        np.testing.assert_array_equal(result.pareto, brute_mask(mu_hat[arms]))
        as_mask = np.zeros(k, dtype=bool)
        as_mask[active] = True
        np.testing.assert_array_equal(empirical_gaps(mu_hat, as_mask).gaps, result.gaps)


def test_empirical_gaps_ignore_inactive_rows() -> None:
    mu_hat = np.array([[1.0, 0.0], [np.nan, np.nan], [0.0, 1.0], [5.0, 5.0]])
    result = empirical_gaps(mu_hat, [2, 0])
    np.testing.assert_array_equal(result.arms, [0, 2])
    np.testing.assert_allclose(result.gaps, [1.0, 1.0])
    assert result.pareto.tolist() == [True, True]


@pytest.mark.parametrize(
    ("active", "match"),
    [
        ([0, 0], "active must list each arm once; arm 0 appears more than once"),
        ([4], "active contains arm 4, outside the valid range 0..3"),
        ([], "active must contain at least one arm"),
        ([True, False], r"boolean mask must have shape \(4,\)"),
        ([1, 3], "means_hat must be finite on the active arms; arm 1, objective 0 is nan"),
    ],
)
def test_empirical_gaps_bad_arguments(active: object, match: str) -> None:
    mu_hat = np.array([[1.0, 0.0], [np.nan, 1.0], [0.0, 1.0], [0.5, 0.5]])
    with pytest.raises(InvalidParameterError, match=match):
        empirical_gaps(mu_hat, active)


def test_empirical_gaps_needs_a_matrix() -> None:
    with pytest.raises(InvalidParameterError, match=r"means_hat must be a 2-D array"):
        empirical_gaps(np.zeros(3))


# ------------------------------------------------- complexities H1, H2, H1_lin, H2_lin (eq. 2)


def test_unstructured_reduction() -> None:
    rng = np.random.default_rng(14)
    for _ in range(50):
        mu = random_instance(rng)
        c = complexities(psi_gaps(mu).gaps, len(mu))
        assert c["H1_lin"] == c["H1"]
        assert c["H2_lin"] == c["H2"]


def test_complexity_inequalities() -> None:
    rng = np.random.default_rng(15)
    for _ in range(500):
        gaps = psi_gaps(random_instance(rng, k_max=20)).gaps
        h = int(rng.integers(1, len(gaps) + 1))
        c = complexities(gaps, h)
        harmonic = sum(1.0 / i for i in range(1, h + 1))
        assert c["H1_lin"] <= c["H1"] * (1 + 1e-12)
        assert c["H2_lin"] <= c["H2"] * (1 + 1e-12)
        assert c["H2_lin"] <= c["H1_lin"] * (1 + 1e-12)
        assert c["H1_lin"] <= harmonic * c["H2_lin"] * (1 + 1e-12)
        assert c["min_gap"] == gaps.min()
        assert c["H2"] <= c["H1"] * (1 + 1e-12)


def test_complexities_edge_cases_and_errors() -> None:
    assert complexities([np.inf], 1) == {
        "H1": 0.0,
        "H2": 0.0,
        "H1_lin": 0.0,
        "H2_lin": 0.0,
        "min_gap": np.inf,
    }
    assert complexities([0.0, 1.0], 1)["H1_lin"] == np.inf
    with pytest.raises(InvalidParameterError, match=r"h must be an integer in 1..2; got 3"):
        complexities([0.5, 1.0], 3)
    with pytest.raises(InvalidParameterError, match=r"h must be an integer in 1..2; got 1.0"):
        complexities([0.5, 1.0], 1.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"gaps must be >= 0 \(inf allowed\); got"):
        complexities([0.5, -1.0], 1)
    with pytest.raises(InvalidParameterError, match="gaps must be a non-empty 1-D array"):
        complexities([[0.5]], 1)


# ----------------------------------------------------------------------- ε-Pareto sets


def test_eps_pareto_hand_example() -> None:
    # gaps: arms 0, 1 → 0.4 (optimal), arm 2 → 0.2 (dominated), arm 3 → 0.2 (optimal)
    assert is_eps_pareto_set({0, 1, 3}, HAND, 0.0)
    assert not is_eps_pareto_set({0, 1, 2, 3}, HAND, 0.0)
    assert not is_eps_pareto_set({0, 1, 2, 3}, HAND, 0.1)  # Δ_2 = 0.2 > 0.1
    assert is_eps_pareto_set({0, 1, 2, 3}, HAND, 0.25)
    assert not is_eps_pareto_set({0, 1}, HAND, 0.25)  # a Pareto arm is missing
    assert not is_eps_pareto_set(set(), HAND, 1.0)


def test_eps_pareto_random_instances() -> None:
    rng = np.random.default_rng(16)
    for _ in range(300):
        mu = random_instance(rng, k_max=25)
        result = psi_gaps(mu)
        assert is_eps_pareto_set(np.flatnonzero(result.pareto), mu, 0.0)
        sub = np.flatnonzero(~result.pareto)
        if sub.size == 0:
            continue
        eps = float(rng.uniform(0, 1.5 * result.gaps[sub].max()))
        close = sub[result.gaps[sub] < eps]
        far = sub[result.gaps[sub] > eps]
        good = set(np.flatnonzero(result.pareto).tolist()) | set(close.tolist())
        assert is_eps_pareto_set(good, mu, eps)
        for arm in far[:3]:
            assert not is_eps_pareto_set(good | {int(arm)}, mu, eps)
        if np.flatnonzero(result.pareto).size:
            missing = good - {int(np.flatnonzero(result.pareto)[0])}
            assert not is_eps_pareto_set(missing, mu, eps)


def test_eps_pareto_errors() -> None:
    with pytest.raises(InvalidParameterError, match="eps must be a finite float >= 0; got -0.1"):
        is_eps_pareto_set({0}, HAND, -0.1)
    with pytest.raises(InvalidParameterError, match="eps must be a finite float >= 0; got nan"):
        is_eps_pareto_set({0}, HAND, float("nan"))
    with pytest.raises(InvalidAnswerError, match="answer contains item 4, outside the valid"):
        is_eps_pareto_set({0, 4}, HAND, 0.1)
    with pytest.raises(InvalidAnswerError, match="must contain integer item indices; got 1.5"):
        is_eps_pareto_set([0, 1.5], HAND, 0.1)


# --------------------------------------------------------------- NoC reference values (Sec. 5)


def noc_means() -> tuple[np.ndarray, np.ndarray]:
    """NoC as the authors' public notebook builds it (unit-norm rows, least-squares means, both
    objectives negated), read through BANDIT_ENVS_DATA."""
    folder = os.environ.get("BANDIT_ENVS_DATA")
    path = Path(folder) / "noc_CM_log.csv" if folder else None
    if path is None or not path.is_file():
        pytest.skip(
            "NoC reference values need noc_CM_log.csv in the folder named by BANDIT_ENVS_DATA "
            f"(currently {folder!r}); `bandit-bench data info noc` says where it comes from"
        )
    arr = np.loadtxt(path, delimiter=";", skiprows=1)
    x, y = arr[:, :4], arr[:, 4:]
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    theta = np.linalg.lstsq(x.T @ x, x.T @ y, rcond=None)[0]
    return x, -x @ theta


def test_noc_reference_values() -> None:
    """Our reference values (the paper prints none): K = 259, h = 4, d = 2,
    S* = {0, 140, 164, 180}, the smallest gaps and the four complexities."""
    x, mu = noc_means()
    assert mu.shape == (259, 2)
    result = psi_gaps(mu)
    assert pareto_set(mu) == frozenset({0, 140, 164, 180})
    assert np.flatnonzero(result.pareto).tolist() == [0, 140, 164, 180]
    rank = int(np.linalg.matrix_rank(x))
    assert rank == 4
    start = [0.04296, 0.04296, 0.04740, 0.04740, 0.06649, 0.07452, 0.07675, 0.08178]
    np.testing.assert_allclose(np.sort(result.gaps)[:8], start, atol=5e-6)
    c = complexities(result.gaps, rank)
    assert c["min_gap"] == pytest.approx(0.04296, abs=5e-6)
    assert c["H1"] == pytest.approx(3993.6, abs=0.05)
    assert c["H2"] == pytest.approx(1780.25, abs=0.005)
    assert c["H1_lin"] == pytest.approx(1973.8, abs=0.05)
    assert c["H2_lin"] == pytest.approx(1780.25, abs=0.005)
    np.testing.assert_allclose(result.gaps, paper_gaps(mu), rtol=1e-12)


# ----------------------------------------------------------------------- APE's per-arm width terms


@pytest.mark.parametrize("threshold", ["union", "heuristic"])
def test_ape_width_terms_rebuild_ape_confidence(threshold: str) -> None:
    """β_ij = scale √((c0 + ℓ(T_i) + ℓ(T_j)) (1/T_i + 1/T_j)) equals ape_confidence (rounding)."""
    k, d, delta, sigma = 9, 3, 0.05, 0.7
    width = ape_width_terms(delta, sigma, threshold=threshold, n_arms=k, n_objectives=d)
    assert width.threshold == threshold and width.scale == pytest.approx(sigma * math.sqrt(2))
    counts = np.array([1, 2, 3, 7, 50, 1000], dtype=float)
    ell = np.array([width.ell(n) for n in counts])
    inv = 1.0 / counts
    rebuilt = width.scale * np.sqrt(
        (width.c0 + ell[:, None] + ell[None, :]) * (inv[:, None] + inv[None, :])
    )
    direct = ape_confidence(
        counts[:, None],
        counts[None, :],
        delta,
        sigma,
        threshold=threshold,
        n_arms=k,
        n_objectives=d,
    )
    np.testing.assert_allclose(rebuilt, direct, rtol=1e-13)


def test_ape_width_terms_hand_values() -> None:
    """The constants by hand: union c0 = log(d K(K−1) π⁴/(36 δ)), ℓ = 2 log T; heuristic 2 C_g."""
    union = ape_width_terms(0.1, 0.5, n_arms=4, n_objectives=2)
    assert union.c0 == pytest.approx(math.log(2 * 4 * 3 * math.pi**4 / 3.6))
    assert union.ell(1.0) == 0.0 and union.ell(10.0) == pytest.approx(2 * math.log(10))
    heur = ape_width_terms(0.01, 0.5, threshold="heuristic")
    c_g = math.log(100) / 2 + math.log(math.log(100) / 2)
    assert heur.c0 == pytest.approx(2 * c_g)
    assert heur.ell(1.0) == 0.0 and heur.ell(10.0) == pytest.approx(math.log(1 + math.log(10)))
    # δ close to 1: log(log(1/δ)/2) < 0 is clipped at 0
    assert ape_width_terms(0.5, 1.0, threshold="heuristic").c0 == pytest.approx(math.log(2))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"threshold": "tight"}, "ape_width_terms: threshold must be one of"),
        ({"delta": 0.0}, "delta must be a float in"),
        ({"sigma": float("nan")}, "sigma must be a finite float"),
        ({"n_objectives": 0}, "n_objectives must be an integer >= 1"),
    ],
)
def test_ape_width_terms_rejects_bad_input(kwargs: dict, match: str) -> None:
    args = {
        "delta": 0.1,
        "sigma": 1.0,
        "threshold": "union",
        "n_arms": 4,
        "n_objectives": 2,
        **kwargs,
    }
    with pytest.raises(InvalidParameterError, match=match):
        ape_width_terms(**args)
