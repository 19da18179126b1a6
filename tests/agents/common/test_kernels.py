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
