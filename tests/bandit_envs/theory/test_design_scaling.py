"""The design solvers' speed-ups keep their results.

The ``REF_*`` literals were recorded from the solvers *before* the speed-ups (same seeded
problems, default tolerances). Paths whose arithmetic did not change (cold G, small XY, the
polished transductive designs) must reproduce them to round-off; the new paths (XY by pair
generation, warm-started G by Newton steps) must agree within the solver tolerance, and their
certificates must be consistent with the old ones (each lower bound below the other's value).
"""

from __future__ import annotations

import numpy as np
import pytest

from bandit_envs.theory.design import (
    XY_DENSE_MAX_PAIRS,
    g_optimal_design,
    pairwise_differences,
    round_design,
    transductive_design,
    xy_design,
    xy_pair_value,
)
from bandit_envs.theory.design import _interior_point as ip_module
from bandit_envs.theory.design import _pairs as pairs_module
from bandit_envs.theory.design._interior_point import IP_SYRK_MIN_ARMS, ip_restricted
from bandit_envs.theory.design._pairs import SCAN_FLOAT32_MIN_ARMS, pair_scan


def feats(k: int, h: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((k, h))


def xy_value(x: np.ndarray, w: np.ndarray) -> float:
    """max over pairs of ‖x_i − x_j‖²_{A(w)⁻¹}, brute force."""
    y = pairwise_differences(x)
    inv = np.linalg.inv((x.T * w) @ x)
    return float(np.max(np.einsum("ji,ik,jk->j", y, inv, y)))


# --------------------------------------------------------------------------- recorded references
#: (K, h, seed) -> (value, lower bound, {arm: weight}) of g_optimal_design(tol=1e-6) before.
REF_G = {
    (30, 3, 0): (
        3.000002389135479,
        3.0,
        {
            4: 0.070807786165,
            13: 0.237106299607,
            15: 0.289887905711,
            16: 0.161068515132,
            20: 0.129948010409,
            23: 0.111181482976,
        },
    ),
    (60, 5, 1): (
        5.000004167358559,
        5.0,
        {
            4: 0.146682770206,
            6: 0.118588088355,
            24: 0.124662137864,
            31: 0.160764103591,
            40: 0.196327655045,
            52: 0.091398399456,
            54: 0.161576845483,
        },
    ),
    (200, 8, 2): (8.000007363213161, 8.0, None),
}
#: (K, h, seed) -> (value, lower bound) of xy_design() (tol=1e-3) before.
REF_XY = {
    (8, 2, 3): (5.908922155198555, 5.904440468916255),
    (40, 4, 4): (12.774534127801838, 12.697361565947514),
    (120, 3, 5): (10.118696946448395, 9.988783326712397),
    (150, 6, 6): (19.266201828212306, 19.266201444388653),
}
#: weights of xy_design on (8, 2, 3) before (a dense, unchanged path).
REF_XY_WEIGHTS_8 = {0: 0.325229259373, 3: 0.331340460234, 4: 0.343430280393}
#: (K, h, seed) -> (value, lower bound) of transductive_design(x, x[0] − x[1:]) before.
REF_TR = {
    (30, 4, 7): (4.721647257285218, 4.721647237869328),
    (200, 6, 8): (11.135804279478059, 11.135804113393961),
}


@pytest.mark.parametrize("key", list(REF_G))
def test_cold_g_design_reproduces_the_recorded_solution(key):
    value, lower, support = REF_G[key]
    res = g_optimal_design(feats(*key), tol=1e-6)
    assert res.converged and res.lower_bound == lower
    assert res.value == pytest.approx(value, rel=1e-9)
    if support is not None:
        expected = np.zeros(key[0])
        expected[list(support)] = list(support.values())
        np.testing.assert_allclose(res.weights, expected, atol=1e-9)


@pytest.mark.parametrize("key", list(REF_XY))
def test_xy_design_agrees_with_the_recorded_solution(key):
    value, lower = REF_XY[key]
    x = feats(*key)
    res = xy_design(x)
    assert res.converged and res.relative_gap <= 1e-3
    assert res.value == pytest.approx(xy_value(x, res.weights), rel=1e-9)
    # Certified intervals of before and after overlap; the new value is within tol of the old.
    assert res.lower_bound <= value * (1 + 1e-9)
    assert lower <= res.value * (1 + 1e-9)
    assert res.value <= value * (1 + 1e-3)
    if key[0] * (key[0] - 1) // 2 <= XY_DENSE_MAX_PAIRS:  # unchanged dense path
        assert res.value == pytest.approx(value, rel=1e-9)
        expected = np.zeros(key[0])
        expected[list(REF_XY_WEIGHTS_8)] = list(REF_XY_WEIGHTS_8.values())
        np.testing.assert_allclose(res.weights, expected, atol=1e-9)


@pytest.mark.parametrize("key", list(REF_TR))
def test_transductive_design_reproduces_the_recorded_solution(key):
    value, lower = REF_TR[key]
    x = feats(*key)
    res = transductive_design(x, x[0] - x[1:])
    assert res.converged
    assert res.value == pytest.approx(value, rel=1e-9)
    assert res.lower_bound == pytest.approx(lower, rel=1e-9)  # one BLAS thread: tests/conftest.py


# --------------------------------------------------------------------------- XY by pair generation
def test_pair_scan_matches_brute_force():
    rng = np.random.default_rng(20)
    for k, r in [(2, 1), (7, 3), (300, 4), (700, 6)]:  # 700 > one block of rows
        v = rng.standard_normal((k, r)) + 5.0  # an offset: the products cancel
        i, j = np.triu_indices(k, 1)
        f = ((v[i] - v[j]) ** 2).sum(axis=1)
        top, pi, pj, pf = pair_scan(v, 0.0, 0.8, 50)
        assert top == pytest.approx(f.max(), rel=1e-12)
        want = np.flatnonzero(f >= 0.8 * f.max())
        want = want[np.lexsort((j[want], i[want], -f[want]))][:50]
        np.testing.assert_array_equal(pi, i[want])
        np.testing.assert_array_equal(pj, j[want])
        np.testing.assert_allclose(pf, f[want], rtol=1e-12)
        floor = float(np.quantile(f, 0.99))
        top2, qi, qj, _ = pair_scan(v, floor, 0.0, 10**6)
        assert top2 == top
        assert set(zip(qi.tolist(), qj.tolist(), strict=True)) == set(
            zip(i[f >= floor].tolist(), j[f >= floor].tolist(), strict=True)
        )


@pytest.mark.parametrize("offset", [0.0, 30.0])
def test_pair_scan_float32_screen_matches_brute_force(offset):
    """From SCAN_FLOAT32_MIN_ARMS rows the screen is float32: the result is still the exact one."""
    k = SCAN_FLOAT32_MIN_ARMS + 300
    rng = np.random.default_rng(23)
    v = rng.standard_normal((k, 6)) + offset  # the offset makes the norms large: centred first
    v[7] = v[11] + 1e-7  # a near tie far below the maximum, and a duplicated row
    v[k - 1] = v[3]
    sq = (v * v).sum(axis=1)
    full = sq[:, None] + sq[None, :] - 2.0 * (v @ v.T)
    i, j = np.triu_indices(k, 1)
    approx = full[i, j]
    best = int(np.argmax(approx))
    # The exact values near the top, recomputed from the differences as the scan does.
    near = np.flatnonzero(approx >= 0.3 * approx[best] - 1e-6)
    d = v[i[near]] - v[j[near]]
    f = np.einsum("ij,ij->i", d, d)
    top, pi, pj, pf = pair_scan(v, 0.0, 0.95, 10**6)
    assert top == f.max()
    want = near[f >= 0.95 * f.max()]
    fw = f[f >= 0.95 * f.max()]
    order = np.lexsort((j[want], i[want], -fw))
    np.testing.assert_array_equal(pi, i[want][order])
    np.testing.assert_array_equal(pj, j[want][order])
    np.testing.assert_array_equal(pf, fw[order])
    floor = float(np.quantile(f, 0.5))
    _, qi, qj, _ = pair_scan(v, floor, 0.0, 10**6)
    assert set(zip(qi.tolist(), qj.tolist(), strict=True)) == set(
        zip(i[near][f >= floor].tolist(), j[near][f >= floor].tolist(), strict=True)
    )


def test_pair_scan_float32_screen_is_the_float64_selection_on_a_design():
    """The float32 screen and the float64 products keep the same pairs (margins are rigorous)."""
    x = feats(SCAN_FLOAT32_MIN_ARMS + 100, 8, 24)
    res = xy_design(x[:300], tol=1e-2)  # a design on the first arms, then all arms' coordinates
    w = np.zeros(x.shape[0])
    w[:300] = res.weights
    inv = np.linalg.inv((x.T * w) @ x)
    v = x @ np.linalg.cholesky(inv)
    got = pair_scan(v, 0.0, 0.7, 500)
    want = pair_scan_float64(v, 0.0, 0.7, 500)
    assert got[0] == want[0]
    for a, b in zip(got[1:], want[1:], strict=True):
        np.testing.assert_array_equal(a, b)


def pair_scan_float64(v: np.ndarray, floor: float, frac: float, cap: int):
    """:func:`pair_scan` with the float64 products (the path below SCAN_FLOAT32_MIN_ARMS)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pairs_module, "SCAN_FLOAT32_MIN_ARMS", v.shape[0] + 1)
        return pair_scan(v, floor, frac, cap)


def test_ip_restricted_symmetric_update_matches_the_full_product():
    """Large restricted problems form JᵀDJ by a symmetric rank-m update: same Newton steps."""
    rng = np.random.default_rng(25)
    k, r, m = IP_SYRK_MIN_ARMS + 50, 30, 200  # m ≤ r(r+1): the J-product form of the Newton matrix
    z = rng.standard_normal((k, r))
    y = z[rng.integers(k, size=m)] - z[rng.integers(k, size=m)]
    c = np.full(m, 1.0 / r)
    w0 = np.full(k, 1.0 / k)
    new = ip_restricted(z, y, c, w0, 1e-8, 200)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ip_module, "IP_SYRK_MIN_ARMS", k + 1)
        old = ip_restricted(z, y, c, w0, 1e-8, 200)
    assert new[1] == pytest.approx(old[1], rel=1e-9)
    np.testing.assert_allclose(new[0], old[0], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(new[2], old[2], rtol=1e-6, atol=1e-12)


def test_ip_restricted_predictor_corrector_reaches_the_same_optimum():
    """The symmetric (large-problem) path is Mehrotra's predictor–corrector: same optimum."""
    rng = np.random.default_rng(26)
    k, r, m = 120, 6, 40
    z = rng.standard_normal((k, r))
    y = z[rng.integers(k, size=m)] - z[rng.integers(k, size=m)]
    c = np.full(m, 1.0 / r)
    w0 = np.full(k, 1.0 / k)
    new = ip_restricted(z, y, c, w0, 1e-9, 200, True)
    old = ip_restricted(z, y, c, w0, 1e-9, 200)
    assert new[3] < 200 and old[3] < 200
    assert new[1] == pytest.approx(old[1], rel=1e-6)
    for w in (new[0], old[0]):  # t is the restricted optimum: max_j f_j(w) at the design
        inv = np.linalg.inv((z.T * w) @ z)
        assert float(np.max(c * np.einsum("ji,ik,jk->j", y, inv, y))) == pytest.approx(
            old[1], rel=1e-6
        )
    assert new[2].sum() == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(("k", "h"), [(90, 4), (200, 6)])
def test_large_pair_generation_path_agrees_with_the_materialised_solver(k, h):
    """From XY_SYRK_MIN_ARMS arms (lowered here): predictor–corrector solves and, from a
    caller's init, the near-optimal working sets; certified against the materialised solver."""
    x = feats(k, h, 31 + k)
    dense = xy_design(x, method="interior_point", tol=1e-4)
    moved = x + 1e-3 * feats(k, h, 32 + k)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pairs_module, "XY_SYRK_MIN_ARMS", 2)
        lazy = xy_design(x, method="pair_generation", tol=1e-4)
        warm = xy_design(moved, method="pair_generation", tol=1e-4, init=lazy.weights)
    assert lazy.converged and lazy.relative_gap <= 1e-4
    assert lazy.value == pytest.approx(xy_value(x, lazy.weights), rel=1e-9)
    assert lazy.lower_bound <= dense.value * (1 + 1e-9)
    assert dense.lower_bound <= lazy.value * (1 + 1e-9)
    assert warm.converged and warm.relative_gap <= 1e-4
    assert warm.value == pytest.approx(xy_value(moved, warm.weights), rel=1e-9)
    dense_moved = xy_design(moved, method="interior_point", tol=1e-4)
    assert warm.lower_bound <= dense_moved.value * (1 + 1e-9)
    assert dense_moved.lower_bound <= warm.value * (1 + 1e-9)


@pytest.mark.parametrize(("k", "h"), [(30, 2), (60, 5), (80, 12)])
def test_pair_generation_agrees_with_the_materialised_solvers(k, h):
    x = feats(k, h, 21 + k)
    lazy = xy_design(x, method="pair_generation", tol=1e-4)
    dense = xy_design(x, method="interior_point", tol=1e-4)
    for res in (lazy, dense):
        assert res.converged and res.relative_gap <= 1e-4
    assert lazy.value == pytest.approx(xy_value(x, lazy.weights), rel=1e-9)
    assert lazy.lower_bound <= dense.value * (1 + 1e-9)
    assert dense.lower_bound <= lazy.value * (1 + 1e-9)


def test_pair_generation_handles_rank_deficient_and_offset_features():
    rng = np.random.default_rng(22)
    x = rng.standard_normal((300, 3)) @ rng.standard_normal((3, 6)) + 10.0  # rank 4 with offset
    res = xy_design(x)
    assert res.converged
    y = pairwise_differences(x)
    pinv = np.linalg.pinv((x.T * res.weights) @ x, rcond=1e-12, hermitian=True)
    assert res.value == pytest.approx(np.max(np.einsum("ji,ik,jk->j", y, pinv, y)), rel=1e-6)
    same = xy_design(np.ones((250, 3)))
    assert same.value == 0.0 and same.converged


def test_pair_generation_warm_start_and_errors():
    x = feats(400, 8, 23)
    cold = xy_design(x)
    keep = np.arange(4, 400)
    warm = xy_design(x[keep], init=cold.weights[keep] + 1e-6)
    assert warm.converged and warm.relative_gap <= 1e-3
    assert warm.value <= cold.value * (1 + 1e-3)  # fewer pairs: the optimum cannot increase
    with pytest.raises(ValueError, match="method"):
        xy_design(x, method="simplex")
    with pytest.raises(ValueError, match="target_weights are not supported"):
        xy_design(x, method="pair_generation", target_weights=np.ones(400 * 399 // 2))
    with pytest.raises(ValueError, match="init does not span"):
        xy_design(x, method="pair_generation", init=np.r_[1.0, np.zeros(399)])
    with pytest.raises(ValueError, match="tol"):
        xy_design(x, method="pair_generation", tol=0.0)


# --------------------------------------------------------------------------- warm G, transductive
@pytest.mark.parametrize(("k", "h"), [(400, 5), (1500, 20)])
def test_warm_g_design_matches_the_cold_optimum(k, h):
    x = feats(k, h, 24)
    cold = g_optimal_design(x)
    rng = np.random.default_rng(25)
    keep = np.sort(rng.choice(k, size=k - k // 50, replace=False))
    near = x + 1e-3 * rng.standard_normal(x.shape)
    for xx, init in ((x[keep], cold.weights[keep]), (near, cold.weights), (x, np.ones(k))):
        warm = g_optimal_design(xx, init=init)
        assert warm.converged and h <= warm.value <= h * (1 + 1e-6)
        # the D-optimal information matrix is unique: compare with a cold solve
        ref = g_optimal_design(xx)
        a_warm = (xx.T * warm.weights) @ xx
        a_ref = (xx.T * ref.weights) @ xx
        np.testing.assert_allclose(a_warm, a_ref, atol=1e-2 * np.abs(a_ref).max())
    warm = g_optimal_design(near, init=cold.weights)
    assert warm.iterations <= 10  # Newton steps from a near-optimal start


def test_transductive_design_beyond_the_polish_finishes_by_interior_point():
    x = feats(300, 20, 26)
    y = x[0] - x[1:]
    res = transductive_design(x, y, max_iter=2000)
    assert res.converged and res.relative_gap <= 1e-3
    inv = np.linalg.inv((x.T * res.weights) @ x)
    assert res.value == pytest.approx(np.max(np.einsum("ji,ik,jk->j", y, inv, y)), rel=1e-8)


# --------------------------------------------------------------------------- rounding
def sequential_rounding(w: np.ndarray, n: int) -> np.ndarray:
    """The first n pulls of 'pull argmin_i T_i / w_i' (lowest index on ties) from T = 0."""
    w = w / w.sum()
    w = w / w.sum()  # the normalisations of round_design, so that the keys are the same floats
    counts = np.zeros(w.size, dtype=np.int64)
    for _ in range(n):
        counts[int(np.argmin(counts / w))] += 1
    return counts


@pytest.mark.parametrize("p", [200, 1000])
def test_round_design_heap_path_is_the_sequential_rule(p):
    rng = np.random.default_rng(27 + p)
    for w in (rng.dirichlet(np.ones(p)), np.ones(p), rng.integers(1, 4, size=p).astype(float)):
        w = w / w.sum()
        for n in (p, p + 7, 3 * p + 1):
            np.testing.assert_array_equal(round_design(w, n), sequential_rounding(w, n))


def test_round_design_large_support_gives_one_pull_each():
    # no speed assertion in unit tests: benchmarks/bench_rounding.py measures the rounding
    w = np.random.default_rng(28).dirichlet(np.ones(20_000))
    counts = round_design(w, 20_000)
    assert counts.sum() == 20_000 and np.all(counts == 1)


# --------------------------------------------------------------------------- XY on a subset's pairs
def test_xy_design_among_matches_the_materialised_transductive_design():
    """RAGE's phase design (targets: the pairs of the active arms, design over all arms)."""
    x = feats(70, 4, 29)
    among = np.sort(np.random.default_rng(30).choice(70, size=30, replace=False))
    targets = pairwise_differences(x[among])
    lazy = xy_design(x, among=among[::-1], method="pair_generation", tol=1e-4)
    dense = transductive_design(x, targets, tol=1e-4)
    for res in (lazy, dense):
        assert res.converged and res.relative_gap <= 1e-4
    assert lazy.weights.shape == (70,)
    assert lazy.value == pytest.approx(dense.value, rel=1e-4)
    assert lazy.lower_bound <= dense.value * (1 + 1e-9)
    assert dense.lower_bound <= lazy.value * (1 + 1e-9)
    inv = np.linalg.inv((x.T * lazy.weights) @ x)
    assert lazy.value == pytest.approx(
        np.max(np.einsum("ji,ik,jk->j", targets, inv, targets)), rel=1e-9
    )
    # fewer targets than all pairs: the optimum is strictly below the full XY design's here
    assert lazy.value < xy_design(x, tol=1e-4).lower_bound
    # the materialised methods take the same targets (auto: 435 pairs > 190: pair generation)
    ip = xy_design(x, among=among, method="interior_point", tol=1e-4)
    assert ip.value == pytest.approx(dense.value, rel=1e-4)
    small = xy_design(x, among=among[:12])  # 66 pairs: materialised Frank-Wolfe
    ref = transductive_design(x, pairwise_differences(x[among[:12]]))
    assert small.value == ref.value and small.lower_bound == ref.lower_bound


def test_xy_pair_value_is_the_exact_value_on_the_materialised_pairs():
    from agents.linear_bai.rage import xy_value

    rng = np.random.default_rng(31)
    x = feats(600, 5, 32) + 2.0  # 600 > two blocks of rows of the scan
    among = np.sort(rng.choice(600, size=400, replace=False))
    targets = pairwise_differences(x[among])
    for w in (rng.dirichlet(np.ones(600)), np.r_[rng.dirichlet(np.ones(20)), np.zeros(580)]):
        got = xy_pair_value(x, w, among=among)
        assert got == pytest.approx(xy_value(x, w, targets), rel=1e-12, abs=0)
        assert xy_pair_value(x, w) == pytest.approx(
            xy_value(x, w, pairwise_differences(x)), rel=1e-12, abs=0
        )
    # a design missing a direction: inf, as xy_value; unless the pairs stay in its range
    w = np.zeros(600)
    w[:3] = 1.0
    assert xy_pair_value(x, w, among=among) == xy_value(x, w, targets) == np.inf
    flat = np.c_[x[:, :2], np.zeros((600, 1))]  # rank 2 in R^3
    assert xy_pair_value(flat, w, among=[0, 1, 2]) == pytest.approx(
        xy_value(flat, w, pairwise_differences(flat[:3])), rel=1e-12
    )
    assert xy_pair_value(np.ones((5, 2)), np.ones(5)) == 0.0


@pytest.mark.parametrize(
    ("among", "message"),
    [
        ([3, 1, 3], "among is expected to hold distinct arms. Got arm 3 more than once."),
        ([0, 10], "among is expected to hold arm indices in [0, 10). Got 10 at position 1."),
        ([-1, 2], "among is expected to hold arm indices in [0, 10). Got -1 at position 0."),
        ([4], "among is expected to hold at least 2 arms (its pairs are the targets). Got 1."),
        ([], "among is expected to hold at least 2 arms (its pairs are the targets). Got 0."),
        (
            [0.0, 1.0],
            "among is expected to be a 1-D array of integer arm indices. Got shape (2,) "
            "and dtype float64.",
        ),
        (
            [[0, 1]],
            "among is expected to be a 1-D array of integer arm indices. Got shape (1, 2) "
            "and dtype int64.",
        ),
        (
            [True, False],
            "among is expected to be a 1-D array of integer arm indices. Got shape "
            "(2,) and dtype bool.",
        ),
    ],
)
def test_among_is_validated(among, message):
    from bandit_envs.errors import InvalidParameterError

    x = feats(10, 3, 33)
    for call in (
        lambda: xy_design(x, among=among),
        lambda: xy_design(x, among=among, method="interior_point"),
        lambda: xy_pair_value(x, np.ones(10), among=among),
    ):
        with pytest.raises(InvalidParameterError) as err:
            call()
        assert str(err.value) == message
