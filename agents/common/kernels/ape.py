"""APE's compiled pairwise state (Kone, Kaufmann & Richert 2023).

**APE's pairwise state** (Kone, Kaufmann & Richert 2023): the stacked (2K × K) matrix of
M̂ − β and M̂ + β with a lower bound and a witness column per row (``ape_apply``,
``ape_screen``, ``ape_leader``, ``ape_resolve_all``); a pull costs O(K d) for the pulled
arm's row and column plus the rows its stopping test and leader make exact.
"""

from __future__ import annotations

import math

import numba
import numpy as np

# ---------------------------------------------------------------------------------------------
# APE (Kone, Kaufmann & Richert 2023, Adaptive Pareto Exploration): the pairwise state is the
# stacked (2K, K) matrix ``flat`` — rows r < K are M̂ − β (row r), rows K + r are M̂ + β (row r),
# diagonal +inf — with, per row, ``mins[r]`` a lower bound on its minimum and ``args[r]`` a
# column whose entry bounds it from above (exact when the two are equal). h_i = mins[i] and
# −g_i = mins[K + i] once exact.


@numba.njit(cache=True, error_model="numpy")
def _first_argmin(v: np.ndarray) -> int:  # pragma: no cover - compiled
    """The first index of the smallest entry (as ``numpy.argmin``; no NaN)."""
    best, j = v[0], 0
    for i in range(1, v.shape[0]):
        if v[i] < best:
            best, j = v[i], i
    return j


@numba.njit(cache=True, error_model="numpy")
def _ape_resolve_row(
    flat: np.ndarray, mins: np.ndarray, args: np.ndarray, r: int
) -> float:  # pragma: no cover
    """Make row ``r`` exact; return its minimum."""
    j = _first_argmin(flat[r])
    mins[r] = flat[r, j]
    args[r] = j
    return flat[r, j]


@numba.njit(cache=True, error_model="numpy")
def ape_resolve_all(
    flat: np.ndarray, mins: np.ndarray, args: np.ndarray
) -> None:  # pragma: no cover
    """Make every row exact (the inexact ones are rescanned, ``O(K²)`` at worst)."""
    for r in range(flat.shape[0]):
        if mins[r] < flat[r, args[r]]:
            _ape_resolve_row(flat, mins, args, r)


@numba.njit(cache=True, error_model="numpy")
def ape_apply(  # pragma: no cover - compiled
    flat: np.ndarray,
    mins: np.ndarray,
    args: np.ndarray,
    mu_t: np.ndarray,
    inv: np.ndarray,
    ell: np.ndarray,
    totals: np.ndarray,
    a: int,
    n: float,
    ell_a: float,
    c0: float,
    scale: float,
) -> None:
    """Arm ``a``'s new statistics (sums ``totals`` over ``n`` pulls): row and column ``a``.

    M̂(j, a) = max_c (μ_jc − μ_ac) and M̂(a, j) = −min_c (μ_jc − μ_ac) (Kone et al. 2023),
    β_aj = scale · √((ℓ_j + (c0 + ℓ_a)) (1/T_j + 1/T_a)); a new column entry below a row's lower
    bound is that row's exact minimum, and row ``a`` is rescanned. ``O(K d)``.
    """
    k, d = mu_t.shape[1], mu_t.shape[0]
    inv_a = 1.0 / n
    inv[a] = inv_a
    ell[a] = ell_a
    for c in range(d):
        mu_t[c, a] = totals[c] / n
    z = c0 + ell_a
    for j in range(k):
        hi = mu_t[0, j] - mu_t[0, a]
        lo = hi
        for c in range(1, d):
            t = mu_t[c, j] - mu_t[c, a]
            lo = min(lo, t)
            hi = max(hi, t)
        beta = math.sqrt((ell[j] + z) * (inv[j] + inv_a)) * scale
        col_lower = hi + -beta
        col_upper = hi + beta
        flat[j, a] = col_lower
        flat[k + j, a] = col_upper
        flat[a, j] = -beta - lo
        flat[k + a, j] = beta - lo
        if col_lower < mins[j]:
            mins[j] = col_lower
            args[j] = a
        if col_upper < mins[k + j]:
            mins[k + j] = col_upper
            args[k + j] = a
    flat[a, a] = np.inf
    flat[k + a, a] = np.inf
    _ape_resolve_row(flat, mins, args, a)
    _ape_resolve_row(flat, mins, args, k + a)


@numba.njit(cache=True, error_model="numpy")
def _ape_violator(  # pragma: no cover - compiled
    upper_h: np.ndarray, neg_g: np.ndarray, eps: float, witness: np.ndarray
) -> bool:
    """Whether some arm has ``upper_h + ε < 0`` and ``−g > 0`` (recorded in ``witness[0]``)."""
    w, worst = -1, np.inf
    for i in range(upper_h.shape[0]):
        v = max(upper_h[i] + eps, -neg_g[i])
        if v < worst:
            w, worst = i, v
    if worst < 0.0:
        witness[0] = w
        return True
    return False


@numba.njit(cache=True, error_model="numpy")
def ape_screen(  # pragma: no cover - compiled
    flat: np.ndarray,
    mins: np.ndarray,
    args: np.ndarray,
    eps: float,
    witness: np.ndarray,
    work: np.ndarray,
) -> bool:
    """The necessary part of APE's stopping rule: False when some arm certainly violates it.

    Every arm needs h_i + ε ≥ 0 (if in S(t)) or g_i ≥ 0 (if not); an arm with (an upper bound
    of h_i) + ε < 0 and (a lower bound of −g_i) > 0 fails both. Tried first on the last such
    arm, then on the bounds, then on the exact rows (all made exact). True: the full rule
    (``Z1 ≥ 0`` and ``Z2 ≥ 0``) has to decide. ``work``: K floats of scratch.
    """
    k = flat.shape[1]
    neg_g = mins[k:]
    w = witness[0]
    if w >= 0 and flat[w, args[w]] + eps < 0.0 and neg_g[w] > 0.0:
        return False
    upper_h = work
    for i in range(k):
        upper_h[i] = flat[i, args[i]]
    if _ape_violator(upper_h, neg_g, eps, witness):
        return False
    ape_resolve_all(flat, mins, args)
    return not _ape_violator(mins[:k], neg_g, eps, witness)


@numba.njit(cache=True, error_model="numpy")
def ape_leader(  # pragma: no cover - compiled
    flat: np.ndarray, mins: np.ndarray, args: np.ndarray, score: np.ndarray
) -> tuple[int, int]:
    """APE's pair: ``b_t`` = argmax of ``−g_i`` over ``i ∉ OPT(t)`` and ``c_t`` = argmin of row b.

    Starts from the upper bounds of −g_i, with the arms certainly in OPT(t) (h_i > 0) at −inf,
    and makes exact only the rows the argmax needs (the first index wins ties, as ``argmax``).
    """
    k = flat.shape[1]
    for i in range(k):
        score[i] = -np.inf if mins[i] > 0.0 else flat[k + i, args[k + i]]
    while True:
        b, top = 0, score[0]
        for i in range(1, k):
            if score[i] > top:
                b, top = i, score[i]
        if mins[k + b] < top:  # −g_b only bounded: compute it
            score[b] = _ape_resolve_row(flat, mins, args, k + b)
        elif mins[b] <= 0.0 < flat[b, args[b]] and _ape_resolve_row(flat, mins, args, b) > 0.0:
            score[b] = -np.inf  # h_b was only bounded, and b ∈ OPT(t)
        else:
            return b, _first_argmin(flat[b])
