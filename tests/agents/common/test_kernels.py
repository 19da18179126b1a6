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
