"""The compiled m-th-largest pair index per arm (Réda, Tirinzoni & Degenne 2021, LinGIFA)."""

from __future__ import annotations

import math

import numba
import numpy as np


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
    """Per row r, the m-th largest pair index over the columns s ≠ ``own[r]`` (Réda et al. 2021).

    The pair index is B[r, s] = μ̂_s − μ̂_r + C‖x_s − x_r‖_{A⁻¹} with ‖x_s − x_r‖² =
    d_r + d_s − 2 p[r, s] (p: the block of X A⁻¹ Xᵀ, from BLAS), evaluated in the same order of
    rounded operations as the NumPy expression ``(−2p + d_r + d_s)``, abs, sqrt, ×C, + μ̂_s − μ̂_r,
    so the values are bit-identical; ``own[r]`` (−1: none) is the column of the arm itself.
    The m-th largest keeps the m largest values in a sorted buffer (O(n·m) per row, for the small
    m of top-m problems) or, for m > 16, selects it with ``np.partition`` on a copy of the row.
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
        if r == keep:
            row[:] = buf
        if m > 16:
            index[r] = np.partition(buf, n - m)[n - m]
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
