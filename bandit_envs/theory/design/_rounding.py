"""Efficient rounding of a design to integer pull counts (Adams apportionment)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bandit_envs.theory.design._common import FloatArray, IntArray

#: :func:`round_design` adjusts the start's total by a heap beyond this many unit steps (each
#: vectorised step costs ``O(p)``; the heap costs ``O(p)`` once and ``O(log p)`` per step).
_ROUND_HEAP_STEPS = 32


def _adams_adjust(counts: IntArray, ws: FloatArray, delta: int) -> IntArray:
    """Add (``delta > 0``) or remove (``delta < 0``) ``|delta|`` pulls one at a time, by a heap.

    The same choices as :func:`round_design`'s vectorised loops: add to the smallest next key
    ``counts_i / w_i`` (lowest index on ties), remove from the largest last key
    ``(counts_i − 1) / w_i`` (highest index on ties); the keys are the same float64 quotients.
    """
    import heapq

    c = counts.tolist()
    wl = ws.tolist()
    if delta > 0:
        heap = [(ci / wi, i) for i, (ci, wi) in enumerate(zip(c, wl, strict=True))]
        heapq.heapify(heap)
        for _ in range(delta):
            _, i = heapq.heappop(heap)
            c[i] += 1
            heapq.heappush(heap, (c[i] / wl[i], i))
    else:
        heap = [(-((ci - 1) / wi), -i) for i, (ci, wi) in enumerate(zip(c, wl, strict=True))]
        heapq.heapify(heap)
        for _ in range(-delta):
            _, mi = heapq.heappop(heap)
            i = -mi
            c[i] -= 1
            heapq.heappush(heap, (-((c[i] - 1) / wl[i]), mi))
    return np.asarray(c, dtype=np.int64)


def round_design(weights: ArrayLike, n: int, *, support_tol: float = 1e-12) -> IntArray:
    """Efficient rounding of a design to ``n`` integer pulls (Pukelsheim 2006, ch. 12).

    The procedure of Soare, Lazaric & Munos (2014), App. C, whose text has two misprints:
    "``n_j/λ_j = min_i (n − 1)/λ_i`` … to ``n_{j+1}``" should read "``min_i n_i/λ_i`` … to
    ``n_j + 1``", and "… to ``n − 1``" should read "to ``n_k − 1``". Corrected: with ``p``
    support points (``w_i > support_tol``, weights normalised on the support) and ``n ≥ p``,
    start from ``n_i = ⌈(n − p/2) w_i⌉``; while
    ``Σ n_i < n`` increment a count with the smallest ``n_j / w_j``; while ``Σ n_i > n`` decrement
    a count with the largest ``(n_k − 1) / w_k``. This is Adams' divisor apportionment: the
    result equals the first ``n`` pulls of the sequential rule "pull ``argmin_i T_i / w_i``"
    (ties to the lowest index) started from ``T = 0``. The implementation enforces exactly that
    set (the ``n`` smallest keys ``((s − 1)/w_i, i)``, ``s = 1, 2, …``), so the result is

    * exact: ``Σ n_i = n``;
    * at least 1 on every support point and 0 elsewhere;
    * monotone in ``n``: going from ``n`` to ``n + 1`` increments exactly one count by 1.

    Efficiency (Soare et al. 2014, Lemma 6): rounding a G-optimal design on ``d`` dimensions gives
    ``max_x x^T A⁻¹ x ≤ (1 + (d + d² + 2)/(2n)) d`` for ``n ≥ d``.

    Args:
        weights: Design weights, shape ``(K,)``, finite and non-negative, not all zero.
        n: Total number of pulls.
        support_tol: Weights ``≤ support_tol`` (after normalisation) are outside the support.

    Examples:
        >>> round_design([0.5, 0.25, 0.25, 0.0], 10).tolist()
        [5, 3, 2, 0]

    Returns:
        Integer counts, shape ``(K,)``, dtype int64.

    Raises:
        ValueError: On invalid weights, or if ``n`` is smaller than the support size.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"weights is expected to be a non-empty 1-D array. Got shape {w.shape}.")
    if not (np.all(np.isfinite(w)) and np.all(w >= 0) and w.sum() > 0):
        raise ValueError("weights must be finite, non-negative and not all zero.")
    if isinstance(n, bool) or int(n) != n:
        raise ValueError(f"n is expected to be an integer. Got {n!r}.")
    n = int(n)
    w = w / w.sum()
    supp = np.flatnonzero(w > support_tol)
    p = supp.size
    if n < p:
        raise ValueError(
            f"Efficient rounding needs n >= the support size: n = {n} pulls for p = {p} support "
            f"points (weights > {support_tol:g}). Increase n or sparsify the design."
        )
    ws = w[supp] / w[supp].sum()
    counts = np.maximum(np.ceil((n - p / 2.0) * ws), 1.0).astype(np.int64)
    # Adams keys: the s-th pull of point i has key ((s - 1) / w_i, i). A count vector is the
    # apportionment for n iff it takes the n smallest keys, i.e. every taken "last" key is
    # smaller (lexicographically) than every untaken "next" key.
    total = int(counts.sum())
    if abs(total - n) > _ROUND_HEAP_STEPS:
        counts = _adams_adjust(counts, ws, n - total)
        total = n
    while total < n:  # at most p/2 + 1 iterations (Pukelsheim's bound on the start's error)
        i = int(np.argmin(counts / ws))  # next keys; argmin takes the lowest index on ties
        counts[i] += 1
        total += 1
    while total > n:
        last = (counts - 1) / ws
        i = int(len(last) - 1 - np.argmax(last[::-1]))  # largest key; highest index on ties
        counts[i] -= 1
        total -= 1
    while True:  # exchange until the n smallest keys are taken (normally no iteration)
        last = np.where(counts > 1, (counts - 1) / ws, -np.inf)
        nxt = counts / ws
        i_out = int(len(last) - 1 - np.argmax(last[::-1]))
        i_in = int(np.argmin(nxt))
        if last[i_out] < nxt[i_in] or (last[i_out] == nxt[i_in] and i_out < i_in):
            break
        counts[i_out] -= 1
        counts[i_in] += 1
    out = np.zeros(w.shape[0], dtype=np.int64)
    out[supp] = counts
    return out
