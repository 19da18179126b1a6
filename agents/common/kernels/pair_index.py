"""The compiled m-th-largest pair index per arm (LinGIFA: Réda, Kaufmann & Delahaye-Duriez 2021)."""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, error_model="numpy")
def kth_smallest(buf: np.ndarray, n: int, kth: int) -> float:  # pragma: no cover - compiled
    """The ``kth`` smallest (0-based) of ``buf[:n]``, which it reorders: ``np.partition``'s value.

    Quickselect (Hoare 1961) with a median-of-three pivot and a three-way partition (Dijkstra's
    Dutch flag), so runs of equal values cost one pass: O(n) expected. The order statistic is
    one value whatever the algorithm, so the result equals ``np.partition(buf[:n], kth)[kth]``
    bit for bit. ``buf`` holds no NaN.
    """
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        a, b, c = buf[lo], buf[mid], buf[hi]
        if a > b:
            a, b = b, a
        if b > c:
            b = c
            if a > b:
                b = a
        pivot = b  # the median of the three
        lt, i, gt = lo, lo, hi  # [lo, lt) < pivot, [lt, i) == pivot, (gt, hi] > pivot
        while i <= gt:
            v = buf[i]
            if v < pivot:
                buf[i] = buf[lt]
                buf[lt] = v
                lt += 1
                i += 1
            elif v > pivot:
                buf[i] = buf[gt]
                buf[gt] = v
                gt -= 1
            else:
                i += 1
        if kth < lt:
            hi = lt - 1
        elif kth > gt:
            lo = gt + 1
        else:
            return pivot
    return buf[kth]


@numba.njit(cache=True, error_model="numpy")
def pair_index_rows(  # pragma: no cover - compiled
    p: np.ndarray,
    d_rows: np.ndarray,
    d_cols: np.ndarray,
    mu_rows: np.ndarray,
    mu_cols: np.ndarray,
    own: np.ndarray,
    c: float,
    m: int,
    index: np.ndarray,
    keep: int,
    row: np.ndarray,
) -> None:
    """Per row r, the m-th largest pair index over the columns s ≠ ``own[r]`` (LinGIFA's B_j).

    The pair index is B[r, s] = μ̂_s − μ̂_r + C‖x_s − x_r‖_{A⁻¹} with ‖x_s − x_r‖² =
    d_r + d_s − 2 p[r, s] (p: the block of X A⁻¹ Xᵀ, from BLAS), evaluated in the same order of
    rounded operations as the NumPy expression ``(−2p + d_r + d_s)``, abs, sqrt, ×C, + μ̂_s − μ̂_r,
    so the values are bit-identical; ``own[r]`` (−1: none) is the column of the arm itself.
    The m-th largest keeps the m largest values in a sorted buffer (O(n·m) per row, for the small
    m of top-m problems) or, for m > 16, selects it in place by :func:`kth_smallest` (O(n)).
    ``index[r]`` receives it; ``row`` receives the whole row ``keep`` (−1: none), with −inf at
    ``own[keep]``. Needs at least m columns besides ``own[r]`` in every row.
    """
    n_rows, n = p.shape
    top = np.empty(m)
    buf = np.empty(n)
    for r in range(n_rows):
        dr, mr, skip = d_rows[r], mu_rows[r], own[r]
        for s in range(n):  # branch-free: the compiler vectorises the square roots
            v = p[r, s] * -2.0
            v = v + dr
            v = v + d_cols[s]
            v = math.sqrt(abs(v))
            v = v * c
            v = v + mu_cols[s]
            buf[s] = v - mr
        if skip >= 0:
            buf[skip] = -np.inf
        if r == keep:  # a loop: `row[:] = buf` compiles its shape checks (+2 s cold)
            for s in range(n):
                row[s] = buf[s]
        if m > 16:
            index[r] = kth_smallest(buf, n, n - m)
            continue
        for q in range(m):
            top[q] = -np.inf
        for s in range(n):
            v = buf[s]
            if v > top[m - 1]:  # insertion into the descending buffer of the m largest
                q = m - 1
                while q > 0 and top[q - 1] < v:
                    top[q] = top[q - 1]
                    q -= 1
                top[q] = v
        index[r] = top[m - 1]
