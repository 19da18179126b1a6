"""m-LinGapE's compiled decision on LinGapE's column state (Réda, Kaufmann & Delahaye-Duriez 2021).

m-LinGapE (Réda, Kaufmann & Delahaye-Duriez, "Top-m identification for linear bandits", AISTATS
2021) keeps LinGapE's statistics (Xu, Honda & Sugiyama 2018) and changes only the decision: the
top-m set J(t), the pair (b_t, c_t) = argmax_{j ∈ J, i ∉ J} B_{i,j}(t) and the gap index B(t) of
that pair, with B_{i,j}(t) = μ̂_i − μ̂_j + C_t‖x_i − x_j‖_{A_t⁻¹}. The kernels here read the column
state of :mod:`agents.common.kernels.lingape` (μ̂, e = 1 + diag(X A⁻¹ Xᵀ) and lazily caught-up
columns of G = X A⁻¹ Xᵀ): a row j of pair indices costs one column G[:, j] and O(K).

The integer work array ``idx`` (3K entries) holds the members of J (ascending), then the rows
and the columns of the pairs that the bounds cannot exclude; ``work`` (K) holds the widths
s_k = C‖x_k‖_{A⁻¹}.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from agents.common.kernels.lingape import argmax_column, lingape_column, lingape_observe

#: relative slack of the pruning bounds against round-off (1e-9 · (1 + |L|))
SLACK = 1e-9

#: the pruning runs from this many members of J up: below, its two extra passes over the arms
#: (widths, columns) cost more than the rows they save (measured at K = 1000, h = 20, |J| = 2)
PRUNE_ROWS = 4


@numba.njit(cache=True, error_model="numpy")
def top_m_set(  # pragma: no cover - compiled
    m: np.ndarray, top_m: int, eps: float, in_j: np.ndarray, idx: np.ndarray
) -> int:
    """J(t) into ``in_j`` and its members, ascending, into ``idx[:|J|]``; returns |J|.

    With ``top_m`` ≥ 1: the ``top_m`` arms with the largest μ̂ = ``m[:, 1]``, the lowest index
    first on ties (as a stable sort of −μ̂), kept in a buffer sorted by value (O(K) compares, an
    insertion only when an arm beats the current m-th). With ``top_m`` < 1: the empirical
    ε-good set {k : μ̂_k ≥ max μ̂ − ε}, without its first minimiser when it holds every arm.
    """
    k = m.shape[0]
    for a in range(k):
        in_j[a] = False
    if top_m >= 1:
        buf = idx[2 * k : 2 * k + top_m]  # the columns' part is free until the pairs
        n = 0
        for a in range(k):
            v = m[a, 1]
            if n == top_m and not v > m[buf[n - 1], 1]:
                continue
            q = n if n < top_m else top_m - 1
            while q > 0 and m[buf[q - 1], 1] < v:  # after every arm with a mean ≥ v
                buf[q] = buf[q - 1]
                q -= 1
            buf[q] = a
            if n < top_m:
                n += 1
        for q in range(n):
            in_j[buf[q]] = True
    else:
        top = m[argmax_column(m, 1), 1]
        threshold = top - eps
        n = 0
        for a in range(k):
            if m[a, 1] >= threshold:
                in_j[a] = True
                n += 1
        if n == k:  # at most K − 1 arms: drop the first minimiser
            low = 0
            for a in range(1, k):
                if m[a, 1] < m[low, 1]:
                    low = a
            in_j[low] = False
    n = 0
    for a in range(k):
        if in_j[a]:
            idx[n] = a
            n += 1
    return n


@numba.njit(cache=True, error_model="numpy")
def _pair_row(  # pragma: no cover - compiled
    m: np.ndarray, col: int, j: int, width: float, idx: np.ndarray, nj: int
) -> tuple[int, float]:
    """(i, B_{i,j}) for i = argmax_{i ∉ J} B_{i,j} (first maximiser), in one pass over the arms.

    The pass writes μ̂_i + C‖x_i − x_j‖ into the work column of ``m`` (separate loops
    vectorise the square roots), with ‖x_i − x_j‖² = e_i + e_j − 2 − 2 G_ij, in the rounded
    operations of LinGapE's index (so that m = 1 is LinGapE bit for bit).
    """
    k = m.shape[0]
    w = m.shape[1] - 1
    base = m[j, 0] - 2.0
    for a in range(k):
        m[a, w] = m[a, 1] + width * math.sqrt(abs(m[a, 0] + base - 2.0 * m[a, col]))
    for q in range(nj):
        m[idx[q], w] = -np.inf
    i = argmax_column(m, w)
    return i, m[i, w] - m[j, 1]


@numba.njit(cache=True, error_model="numpy")
def mlingape_prune(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    glog: np.ndarray,
    ulog: np.ndarray,
    ints: np.ndarray,
    in_j: np.ndarray,
    idx: np.ndarray,
    nj: int,
    work: np.ndarray,
    width: float,
) -> tuple[int, int, int, int, float]:
    """The rows j ∈ J and columns i ∉ J whose B_{i,j} can reach the maximum (exact pruning).

    With s_k = C‖x_k‖_{A⁻¹}, B_{i,j} ≤ u_i + v_j with u = μ̂ + s, v = s − μ̂ (triangle
    inequality). The exact row of j₀ = argmax_J v gives L = max_i B_{i,j₀} ≤ max B; a pair with
    u_i + v_j < L cannot be the maximiser, so rows with v_j + max u < L and then columns with
    u_i + max v < L are dropped (with a relative slack of :data:`SLACK`).

    Returns:
        ``(rows, cols, j₀, i₀, L)``: the rows fill ``idx[K:K + rows]``, the columns
        ``idx[2K:2K + cols]`` (both ascending); (i₀, L) is the maximiser and value of j₀'s row.
    """
    k = m.shape[0]
    for a in range(k):  # the widths s (vectorised square roots)
        work[a] = width * math.sqrt(max(m[a, 0] - 1.0, 0.0))
    j0 = idx[0]
    for q in range(1, nj):
        j = idx[q]
        if work[j] - m[j, 1] > work[j0] - m[j0, 1]:
            j0 = j
    col = lingape_column(z, m, ru, ainv, glog, ulog, ints, j0)
    i0, exact = _pair_row(m, col, j0, width, idx, nj)
    low = exact - SLACK * (1.0 + abs(exact))
    max_u = -np.inf
    for a in range(k):
        if not in_j[a]:
            max_u = max(max_u, m[a, 1] + work[a])
    rows = 0
    max_v = -np.inf
    for q in range(nj):
        j = idx[q]
        v = work[j] - m[j, 1]
        if v + max_u >= low:
            idx[k + rows] = j
            rows += 1
            max_v = max(max_v, v)
    cols = 0
    for a in range(k):
        if not in_j[a] and m[a, 1] + work[a] + max_v >= low:
            idx[2 * k + cols] = a
            cols += 1
    return rows, cols, j0, i0, exact


@numba.njit(cache=True, error_model="numpy")
def mlingape_select(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    glog: np.ndarray,
    ulog: np.ndarray,
    ints: np.ndarray,
    in_j: np.ndarray,
    idx: np.ndarray,
    work: np.ndarray,
    top_m: int,
    eps: float,
    width: float,
    tolerance: float,
    prune: bool,
    greedy: bool,
) -> tuple[int, int, float, int]:
    """m-LinGapE's decision (Réda, Kaufmann & Delahaye-Duriez 2021) on the column state.

    J(t) by :func:`top_m_set` (``top_m`` < 1: the empirical ε-good set); then
    B(t) = max_{j ∈ J, i ∉ J} B_{i,j}(t), b_t and c_t its first maximiser in the order (j, i)
    ascending: every row of J in one pass over the arms each, or, with ``prune``, the exact row
    of j₀ and the pairs :func:`mlingape_prune` keeps. If B > ``tolerance`` and ``greedy``: the
    arm argmax_a (G_ba − G_ca)² / e_a (LinGapE's greedy rule for the direction x_b − x_c).

    Returns:
        ``(b, c, B, arm)``; ``arm`` is −1 when B ≤ ``tolerance`` or not ``greedy``.
    """
    k = m.shape[0]
    nj = top_m_set(m, top_m, eps, in_j, idx)
    if prune and nj >= PRUNE_ROWS:
        rows, cols, b, c, index = mlingape_prune(
            z, m, ru, ainv, glog, ulog, ints, in_j, idx, nj, work, width
        )
        j0 = b
        for q in range(rows):
            j = idx[k + q]
            if j == j0:  # its whole row is known
                continue
            col = lingape_column(z, m, ru, ainv, glog, ulog, ints, j)
            base = m[j, 0] - 2.0
            top, at = -np.inf, -1
            for p in range(cols):
                a = idx[2 * k + p]
                v = m[a, 1] + width * math.sqrt(abs(m[a, 0] + base - 2.0 * m[a, col]))
                if v > top:
                    top, at = v, a
            value = top - m[j, 1]
            if at >= 0 and (value > index or (value == index and j < b)):
                b, c, index = j, at, value
    else:
        b, c, index = -1, -1, -np.inf
        for q in range(nj):
            j = idx[q]
            col = lingape_column(z, m, ru, ainv, glog, ulog, ints, j)
            i, value = _pair_row(m, col, j, width, idx, nj)
            if value > index or b < 0:
                b, c, index = j, i, value
    if not greedy or index <= tolerance:
        return b, c, index, -1
    col_b = lingape_column(z, m, ru, ainv, glog, ulog, ints, b)
    col_c = lingape_column(z, m, ru, ainv, glog, ulog, ints, c)  # G[:, b], just used, is kept
    w = m.shape[1] - 1
    for a in range(k):
        diff = m[a, col_b] - m[a, col_c]
        m[a, w] = diff * diff / m[a, 0]
    return b, c, index, argmax_column(m, w)


@numba.njit(cache=True, error_model="numpy")
def mlingape_step(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    glog: np.ndarray,
    ulog: np.ndarray,
    ints: np.ndarray,
    counts: np.ndarray,
    sums: np.ndarray,
    arm: int,
    y: float,
    in_j: np.ndarray,
    idx: np.ndarray,
    work: np.ndarray,
    top_m: int,
    eps: float,
    width: float,
    tolerance: float,
    prune: bool,
    greedy: bool,
) -> tuple[int, int, float, int]:
    """LinGapE's update, then :func:`mlingape_select` with the next width: one call per pull.

    The update is :func:`agents.common.kernels.lingape.lingape_observe` (``counts`` and ``sums``
    too).
    """
    lingape_observe(z, m, ru, ainv, glog, ulog, ints, counts, sums, arm, y)
    return mlingape_select(
        z,
        m,
        ru,
        ainv,
        glog,
        ulog,
        ints,
        in_j,
        idx,
        work,
        top_m,
        eps,
        width,
        tolerance,
        prune,
        greedy,
    )
