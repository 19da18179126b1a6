"""The compiled kernels' small helpers (LinGapE's kernels are tested through the agent)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.common import kernels


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
