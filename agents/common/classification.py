"""Bookkeeping of elimination agents that classify arms: active, accepted and rejected arms.

Pareto set identification by elimination (GEGE, EGE-SH, EGE-SR, Racing, PAL) keeps a set of
active arms and, round after round, *accepts* some of them (declared in the answer) and *rejects*
others (declared out of it); either way they leave the active set. :class:`ClassificationBook`
holds that state once for all of them, and :func:`halving_keep` is the tie-breaking rule of the
successive-halving rounds of GEGE and EGE-SH.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ClassificationBook", "halving_keep"]


class ClassificationBook:
    """The active arms (sorted indices) and the arms accepted or rejected so far.

    Classifications are given as boolean masks over the current active arms; the arms they
    select leave the active set (in index order) and join the sorted lists of accepted or
    rejected arms.

    Args:
        n_arms: K; every arm starts active.

    Attributes:
        active: the active arms, an int array in increasing order.
    """

    def __init__(self, n_arms: int) -> None:
        self.active = np.arange(n_arms)
        self._accepted: list[int] = []
        self._rejected: list[int] = []

    @property
    def accepted(self) -> list[int]:
        """Arms accepted so far (a sorted copy)."""
        return list(self._accepted)

    @property
    def rejected(self) -> list[int]:
        """Arms rejected so far (a sorted copy)."""
        return list(self._rejected)

    def settle(self, accept: np.ndarray, reject: np.ndarray) -> None:
        """Accept ``active[accept]`` and reject ``active[reject]`` (disjoint masks), at once."""
        active = self.active
        self._accepted = sorted(self._accepted + active[accept].tolist())
        self._rejected = sorted(self._rejected + active[reject].tolist())
        self.active = active[~(accept | reject)]

    def accept(self, mask: np.ndarray) -> None:
        """Accept ``active[mask]``."""
        self.settle(mask, np.zeros_like(mask))

    def reject(self, mask: np.ndarray) -> None:
        """Reject ``active[mask]``."""
        self.settle(np.zeros_like(mask), mask)

    def answer(self, chosen: np.ndarray) -> frozenset[int]:
        """The accepted arms together with ``chosen`` (arm indices, e.g. some active arms)."""
        return frozenset(self._accepted) | frozenset(int(i) for i in chosen)


def halving_keep(gaps: np.ndarray, pareto: np.ndarray, n_keep: int) -> np.ndarray:
    """Positions of the ``n_keep`` smallest empirical gaps (Kone et al. 2025, Algorithm 2, line 6).

    Ties are broken in favour of empirically optimal arms, then by position: the proof of
    Theorem 2 needs that an arm of the empirical Pareto set ``S_r`` is never removed while an
    empirically sub-optimal arm with an equal gap is kept (the paper leaves ties open; this is
    also the tie-break of the authors' C++ EGE-SH). Returns the kept positions in increasing order.

    Args:
        gaps: empirical gaps ``Δ̂_{i,r}``, shape (n,).
        pareto: the empirical Pareto mask ``i ∈ S_r``, shape (n,).
        n_keep: how many to keep (``⌈h / 2^r⌉`` in GEGE, ``⌈|A_r| / 2⌉`` in EGE-SH).
    """
    order = np.lexsort((~np.asarray(pareto, dtype=bool), np.asarray(gaps, dtype=np.float64)))
    return np.sort(order[:n_keep])
