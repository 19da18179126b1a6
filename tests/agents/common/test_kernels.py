"""The compiled kernels' small helpers (LinGapE's kernels are tested through the agent)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.common import kernels
from agents.common.kernels import lingape as lingape_kernels


@pytest.mark.parametrize("k", [1, 2, 7, 8, 9, 63, 1000])
def test_argmax_column_is_numpys_first_maximiser(k):
    rng = np.random.default_rng(k)
    for trial in range(20):
        m = np.asfortranarray(rng.integers(-3, 4, size=(k, 3)).astype(float))  # many ties
        if trial % 4 == 0:
            m[rng.integers(k), 1] = -np.inf
        if trial % 5 == 0:
            m[:, 1] = -np.inf  # all equal: the first index, as numpy
        for c in range(3):
            assert kernels.argmax_column(m, c) == int(np.argmax(m[:, c]))


def test_ratio_arm_is_the_first_argmin_of_counts_over_p():
    rng = np.random.default_rng(0)
    for _ in range(50):
        counts = rng.integers(0, 5, size=30)
        support = np.sort(rng.choice(30, size=int(rng.integers(1, 8)), replace=False))
        inv_p = 1.0 / rng.choice([0.25, 0.5, 1.0], size=support.size)  # ties are frequent
        expected = int(support[(counts[support] * inv_p).argmin()])
        assert kernels.ratio_arm(counts, support, inv_p) == expected


@pytest.mark.parametrize("m", [1, 3, 16, 17, 40])
def test_pair_index_rows_is_numpys_block_and_partition_bit_for_bit(m):
    """The m-th largest pair index per row equals NumPy's elementwise block + ``np.partition``."""
    rng = np.random.default_rng(m)
    n_rows, n = 37, 60
    w, z = rng.normal(size=(n_rows, 4)), rng.normal(size=(n, 4))
    p = w @ z.T
    d_rows, d_cols = rng.uniform(0.1, 2.0, n_rows), rng.uniform(0.1, 2.0, n)
    d_cols[:5] = 0.0  # ‖x_i − x_j‖² rounds below zero: abs
    mu_rows, mu_cols = rng.normal(size=n_rows), rng.normal(size=n)
    mu_cols[10:20] = 0.5  # ties in the values
    own = rng.integers(-1, n, size=n_rows)
    c = 1.7
    block = p * -2.0
    block += d_rows[:, None]
    block += d_cols
    np.abs(block, out=block)
    np.sqrt(block, out=block)
    block *= c
    block += mu_cols
    block -= mu_rows[:, None]
    hit = np.flatnonzero(own >= 0)
    block[hit, own[hit]] = -np.inf
    want = np.partition(block, n - m, axis=1)[:, n - m]
    index, row = np.full(n_rows, np.nan), np.full(n, np.nan)
    kernels.pair_index_rows(p, d_rows, d_cols, mu_rows, mu_cols, own, c, m, index, 5, row)
    assert np.array_equal(index, want)  # exact, not approximate
    assert np.array_equal(row, block[5])
    untouched = np.full(n, np.nan)
    kernels.pair_index_rows(p, d_rows, d_cols, mu_rows, mu_cols, own, c, m, index, -1, untouched)
    assert np.isnan(untouched).all()


# ------------------------------------------------------------------ LinGapE's packed state


def test_lingape_width_is_the_formula_bit_for_bit():
    """The compiled width equals the three formulas evaluated by Python's math (same rounding:
    the seeded records of LinGapE rely on it)."""
    sigma, delta, r, lam, s, ridge = 0.7, 0.05, 5, 0.3, 2.0, 0.4
    for t, logdet, logdet0 in [(12, 3.1, 1.2), (10**5, 41.7, -2.5), (7, -1.0, -1.0)]:
        heuristic = sigma * math.sqrt(2.0 * math.log((1.0 + math.log(t)) / delta))
        inner = 0.5 * logdet - 0.5 * r * math.log(lam) + math.log(1.0 / delta)
        proven = sigma * math.sqrt(2.0 * max(inner, 0.0)) + math.sqrt(lam) * s
        inner = (
            0.5 * r * math.log((1.0 + ridge) / ridge)
            + 0.5 * (logdet - logdet0)
            + math.log(1.0 / delta)
        )
        ols = sigma * math.sqrt(2.0 * (1.0 + ridge) * max(inner, 0.0))
        for code, want in [
            (lingape_kernels.HEURISTIC, heuristic),
            (lingape_kernels.SELF_NORMALIZED, proven),
            (lingape_kernels.SELF_NORMALIZED_OLS, ols),
        ]:
            got = lingape_kernels.lingape_width(
                code, t, logdet, logdet0, sigma, delta, r, lam, s, ridge
            )
            assert got == want


def test_lingape_pack_views_share_the_buffers():
    f, n = lingape_kernels.lingape_pack(7, 3, 5, 4)
    z, m, ru, ainv, glog, ulog, ints, counts, sums = lingape_kernels.lingape_unpack(f, n)
    support, inv_p = lingape_kernels.lingape_design(f, n)
    shapes = [a.shape for a in (z, m, ru, ainv, glog, ulog, counts, sums, support, inv_p)]
    assert shapes == [(7, 3), (7, 8), (3, 6), (3, 3), (7, 4), (4, 4), (7,), (7, 1), (7,), (7,)]
    assert all(a.flags.f_contiguous for a in (z, m, ru, ainv, glog, ulog))
    assert np.array_equal(ints, kernels.lingape_ints(7, 5))
    floats = (z, m, ru, ainv, glog, ulog, sums, inv_p)
    for i, a in enumerate(floats):  # every float view is its own segment of f
        a[...] = i + 1.0
    assert all((a == i + 1.0).all() for i, a in enumerate(floats))
    assert np.shares_memory(m, f) and np.shares_memory(counts, n)
    assert f[: lingape_kernels.F_INDEX + 1].tolist() == [0.0] * (lingape_kernels.F_INDEX + 1)


def test_lingape_packed_step_is_recursive_least_squares_against_numpy():
    """From an exact start, each packed step's means, 1 + diag(X A⁻¹ Xᵀ), log det A and decision
    equal a fresh NumPy computation (noiseless: rewards x_aᵀθ)."""
    rng = np.random.default_rng(5)
    k, r = 9, 3
    z = rng.normal(size=(k, r))
    theta = rng.normal(size=r)
    f, n = lingape_kernels.lingape_pack(k, r, k, 4)
    zf, m, ru, ainv, glog, ulog, ints, counts, sums = lingape_kernels.lingape_unpack(f, n)
    zf[:] = z
    counts[:] = 1
    sums[:, 0] = z @ theta
    gram = z.T @ z
    inv = np.linalg.inv(gram)
    ainv[:] = inv
    m[:, 0] = 1.0 + np.einsum("kr,rs,ks->k", z, inv, z)
    ru[:, 0] = inv @ (z.T @ sums[:, 0])
    m[:, 1] = z @ ru[:, 0]
    n[lingape_kernels.N_T], n[lingape_kernels.N_REFRESH] = k, 10**6
    n[lingape_kernels.N_CONFIDENCE] = lingape_kernels.HEURISTIC
    n[lingape_kernels.N_GREEDY] = 1
    f[lingape_kernels.F_SIGMA], f[lingape_kernels.F_DELTA] = 1.0, 0.05
    f[lingape_kernels.F_LOGDET] = np.linalg.slogdet(gram)[1]
    arm = 0
    for _ in range(40):
        code = lingape_kernels.lingape_packed_step(f, n, arm, np.array([z[arm] @ theta]))
        gram = (z.T * counts) @ z
        inv = np.linalg.inv(gram)
        means = z @ inv @ (z.T @ sums[:, 0])
        g = z @ inv @ z.T
        np.testing.assert_allclose(m[:, 1], means, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(m[:, 0], 1.0 + np.diag(g), rtol=1e-10)
        assert f[lingape_kernels.F_LOGDET] == pytest.approx(np.linalg.slogdet(gram)[1], rel=1e-10)
        i = int(np.argmax(means))
        width = math.sqrt(2.0 * math.log((1.0 + math.log(n[lingape_kernels.N_T])) / 0.05))
        dist = np.abs(np.diag(g) + g[i, i] - 2.0 * g[:, i])
        index = means + width * np.sqrt(dist)
        index[i] = -np.inf
        j = int(np.argmax(index))
        assert (n[lingape_kernels.N_BEST], n[lingape_kernels.N_CHALLENGER]) == (i, j)
        assert f[lingape_kernels.F_INDEX] == pytest.approx(index[j] - means[i], abs=1e-9)
        if code == lingape_kernels.STOP:
            break
        score = (g[:, i] - g[:, j]) ** 2 / (1.0 + np.diag(g))
        assert code == int(np.argmax(score))
        arm = code
    assert counts.sum() > k
