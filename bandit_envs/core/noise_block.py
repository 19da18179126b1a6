"""Standard normal draws taken from the environment's Generator in blocks, in stream order.

One pull of a Gaussian model with diagonal noise is ``μ_arm + σ ⊙ ε`` with ε the next m standard
normals of the environment's Generator. Drawing them one call at a time costs about 0.3 µs per
value; :class:`NormalBlock` draws a block of them with one call and hands them out in order.
``rng.standard_normal(n)`` fills its array one draw at a time, so the values and their order are
those of n single draws: every outcome is bit-identical to the vector expression.

Drawing ahead moves the Generator past values nobody has used yet, so the block is given back
(:meth:`NormalBlock.sync`) before anything else reads the Generator: the Generator's state saved
before the block is restored and exactly the values handed out are drawn again, which leaves it
where single draws would have left it. The environment calls :meth:`~NormalBlock.sync` whenever
its ``np_random`` is read (the batch path, a reset, a wrapper, a user) or replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["NormalBlock"]

#: pulls per block (the block holds this many outcomes' worth of standard normals)
BLOCK_PULLS = 256


class NormalBlock:
    """Outcomes ``μ_arm + σ ⊙ ε`` of a diagonal Gaussian model from block-drawn normals.

    Args:
        means: the mean outcomes, shape (K, m).
        sigma: the per-output noise standard deviations, shape (m,).
    """

    __slots__ = ("_m", "_means", "_rng", "_sigma", "_state", "i", "values")

    def __init__(self, means: np.ndarray, sigma: np.ndarray) -> None:
        self._means: list[list[float]] = np.asarray(means, dtype=np.float64).tolist()
        self._sigma: list[float] = np.asarray(sigma, dtype=np.float64).tolist()
        self._m = len(self._sigma)
        self.values: list[float] = []  # the block (Python floats)
        self.i = 0  # values handed out
        self._rng: np.random.Generator | None = None
        self._state: Mapping[str, Any] | None = None  # the Generator's state before the block

    def draw(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """One outcome of ``arm``: the next m normals of ``rng``'s stream, scaled and shifted."""
        values, i, m = self.values, self.i, self._m
        if i + m > len(values) or rng is not self._rng:
            self.sync()
            self._state = rng.bit_generator.state
            self._rng = rng
            self.values = values = rng.standard_normal(BLOCK_PULLS * m).tolist()
            i = 0
        self.i = i + m
        row, s = self._means[arm], self._sigma
        if m == 2:
            first = row[0] + s[0] * values[i]
            return np.array((first, row[1] + s[1] * values[i + 1]))
        if m == 3:
            first = row[0] + s[0] * values[i]
            second = row[1] + s[1] * values[i + 1]
            return np.array((first, second, row[2] + s[2] * values[i + 2]))
        return np.array([row[j] + s[j] * values[i + j] for j in range(m)])

    def sync(self) -> None:
        """Give back the values not handed out: the Generator as if drawn one value at a time."""
        rng, state = self._rng, self._state
        if rng is not None and state is not None and self.i < len(self.values):
            rng.bit_generator.state = state
            if self.i:
                rng.standard_normal(self.i)
        self.values = []
        self.i = 0
        self._rng = None
        self._state = None
