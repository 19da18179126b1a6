"""Compiled per-pull kernels of the sequential agents (numba, compiled once per machine).

Each kernel is the only implementation of its step (no NumPy twin to keep in step); the agent
class stays the protocol shell that owns the state arrays and calls the kernel from ``select``
and ``observe``. Kernels are ``numba.njit(cache=True)``: the first call in a process loads the
machine code from numba's on-disk cache (``__pycache__``), or compiles it (a few seconds, once).

Why here: ``agents.common`` is the lowest layer of :mod:`agents`, so every agent family
(``linear_bai``, ``eps_good``, …) may call these kernels; they need nothing from
:mod:`bandit_envs`.

**LinGapE's column state** (Xu, Honda & Sugiyama 2018, with recursive least squares): for the
features X (K × r, Fortran order) and the design matrix A_t, the arrays are

* ``m`` (K × (P + 2), Fortran order): ``[e | μ̂ | G[:, s₁] | … | G[:, s_P]]`` with e = 1 +
  diag(X A⁻¹ Xᵀ), μ̂ = X θ̂ and P kept columns of G = X A⁻¹ Xᵀ (the first ``p`` in use);
* ``ru`` (r × (P + 1)): ``[θ̂ | A⁻¹x_{s₁} | …]``, aligned with ``m[:, 1:]``;
* ``ainv`` (r × r): A⁻¹ up to the pending Sherman–Morrison terms ``pend`` (r + 1 rows: the
  vector u = A⁻¹x_a and, in the last row, its coefficient c = 1/e_a);
* ``ints``: the header (pending count, use tick, columns computed since the last exact
  refresh, p in use), then the arm of each kept column (−1: none), its last use, and for each
  arm its column of ``m`` (−1: not kept) — see :func:`lingape_ints`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = [
    "COLUMNS",
    "MISSES",
    "NPEND",
    "TICK",
    "lingape_column",
    "lingape_fold",
    "lingape_ints",
    "lingape_observe",
    "lingape_select",
    "lingape_slots",
]

#: positions in the integer header of LinGapE's column state
NPEND, TICK, MISSES, COLUMNS = 0, 1, 2, 3
_HEADER = 4
#: the first kept column of ``m`` (columns 0 and 1 are e and μ̂)
_FIRST = 2


def lingape_ints(n_arms: int, max_columns: int, columns: int) -> np.ndarray:
    """The integer part of LinGapE's column state: no column kept, ``columns`` in use.

    Args:
        n_arms: K.
        max_columns: P, the kept columns allocated in ``m``.
        columns: p ≤ P, the kept columns in use (doubled by the agent up to P).

    Returns:
        The int64 array ``[header | arm of each column | last use | column of each arm]``.
    """
    ints = np.full(_HEADER + 2 * max_columns + n_arms, -1, dtype=np.int64)
    ints[:_HEADER] = 0
    ints[COLUMNS] = columns
    return ints


def lingape_slots(ints: np.ndarray, max_columns: int) -> dict[int, int]:
    """The kept columns as {arm: its column of ``m``} (a view for tests and refreshes)."""
    arms = ints[_HEADER : _HEADER + max_columns]
    return {int(a): s + _FIRST for s, a in enumerate(arms) if a >= 0}


@numba.njit(cache=True)
def lingape_fold(ainv: np.ndarray, pend: np.ndarray, ints: np.ndarray) -> None:  # pragma: no cover
    """A⁻¹ −= Σ c_τ u_τ u_τᵀ over the pending pulls (the telescoped Sherman–Morrison steps)."""
    r = ainv.shape[0]
    for t in range(ints[NPEND]):
        c = pend[r, t]
        for b in range(r):
            cb = c * pend[b, t]
            for a in range(r):
                ainv[a, b] -= pend[a, t] * cb
    ints[NPEND] = 0


@numba.njit(cache=True)
def lingape_column(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    pend: np.ndarray,
    ints: np.ndarray,
    arm: int,
) -> int:
    """The column of ``m`` holding G[:, arm] (and of ``ru`` + 1 holding A⁻¹x_arm).

    If it is not kept, the least recently used column is replaced: A⁻¹ is folded, then
    A⁻¹x_arm (O(r²)) and X A⁻¹x_arm (O(K r)) are computed.
    """
    k, r = z.shape
    pmax = m.shape[1] - _FIRST
    used0 = _HEADER + pmax
    of0 = _HEADER + 2 * pmax
    col = ints[of0 + arm]
    if col < 0:
        best = 0
        for s in range(1, ints[COLUMNS]):
            if ints[used0 + s] < ints[used0 + best]:
                best = s
        old = ints[_HEADER + best]
        if old >= 0:
            ints[of0 + old] = -1
        lingape_fold(ainv, pend, ints)
        ints[MISSES] += 1
        col = best + _FIRST
        for a in range(r):
            acc = 0.0
            for b in range(r):
                acc += ainv[a, b] * z[arm, b]
            ru[a, col - 1] = acc
        for i in range(k):
            m[i, col] = 0.0
        for b in range(r):
            ub = ru[b, col - 1]
            for i in range(k):
                m[i, col] += z[i, b] * ub
        ints[_HEADER + best] = arm
        ints[of0 + arm] = col
    ints[TICK] += 1
    ints[used0 + col - _FIRST] = ints[TICK]
    return col


@numba.njit(cache=True)
def lingape_observe(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    pend: np.ndarray,
    ints: np.ndarray,
    arm: int,
    y: float,
) -> float:
    """One Sherman–Morrison step for a pull of ``arm`` with reward ``y``; returns log e_a.

    With g = X A⁻¹x_a (the column of arm a), u = A⁻¹x_a and c = 1/e_a: every column U_q of
    ``m[:, 1:]`` becomes U_q − c v_q g and every column of ``ru`` R_q − c v_q u, where v is row a
    of ``m[:, 1:]`` with μ̂_a − y in place of μ̂_a (so μ̂ += c (y − μ̂_a) g and θ̂ += c (y − μ̂_a) u,
    recursive least squares, and G[:, s] −= c G_as g); e −= c g∘g; (c, u) waits in ``pend``
    (folded into A⁻¹ when 32 wait or a new column is needed). O(K p + r p) per pull.
    """
    col = lingape_column(z, m, ru, ainv, pend, ints, arm)
    k, r = z.shape
    width = ints[COLUMNS] + 1  # μ̂ and the kept columns in use
    e_a = m[arm, 0]
    c = 1.0 / e_a
    v = np.empty(width)
    for q in range(width):
        v[q] = m[arm, q + 1]
    v[0] -= y
    own = col - 1
    for q in range(width):  # the pulled arm's own column last: g is read from it
        if q != own:
            f = c * v[q]
            for i in range(k):
                m[i, q + 1] -= f * m[i, col]
            for b in range(r):
                ru[b, q] -= f * ru[b, own]
    for i in range(k):
        g = m[i, col]
        m[i, 0] -= c * (g * g)
    n = ints[NPEND]
    for b in range(r):
        pend[b, n] = ru[b, own]
    pend[r, n] = c
    ints[NPEND] = n + 1
    f = c * v[own]
    for i in range(k):
        m[i, col] -= f * m[i, col]
    for b in range(r):
        ru[b, own] -= f * ru[b, own]
    if n + 1 == pend.shape[1]:
        lingape_fold(ainv, pend, ints)
    return math.log(e_a)


@numba.njit(cache=True)
def lingape_select(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    pend: np.ndarray,
    ints: np.ndarray,
    width: float,
    epsilon: float,
    greedy: bool,
) -> tuple[int, int, float, int]:
    """LinGapE's decision (Xu, Honda & Sugiyama 2018, Algorithm 1) in one pass over the arms.

    i = argmax μ̂ (first maximiser); j = argmax_{j≠i} μ̂_j + C ‖x_j − x_i‖_{A⁻¹} with
    ‖x_j − x_i‖²_{A⁻¹} = e_j + e_i − 2 − 2 G_ji; B = that maximum − μ̂_i. If B > ε and
    ``greedy``: the arm argmax_a (G_ia − G_ja)² / e_a, which minimises ‖x_i − x_j‖²_{(A +
    x_a x_aᵀ)⁻¹} (the greedy rule of the authors' experiments).

    Returns:
        ``(i, j, B, arm)``; ``arm`` is −1 when B ≤ ε or not ``greedy``. With one arm, j = i and
        B = −∞.
    """
    k = m.shape[0]
    i = 0
    for a in range(1, k):
        if m[a, 1] > m[i, 1]:
            i = a
    col_i = lingape_column(z, m, ru, ainv, pend, ints, i)
    base = m[i, 0] - 2.0
    best = -np.inf
    j = -1
    for a in range(k):
        if a != i:
            s = m[a, 0] + base - 2.0 * m[a, col_i]
            val = m[a, 1] + width * math.sqrt(abs(s))
            if val > best or j < 0:
                best = val
                j = a
    if j < 0:
        return i, i, -np.inf, -1
    index = best - m[i, 1]
    if not greedy or index <= epsilon:
        return i, j, index, -1
    col_j = lingape_column(z, m, ru, ainv, pend, ints, j)  # G[:, i], just used, is kept
    arm = 0
    top = -1.0
    for a in range(k):
        diff = m[a, col_i] - m[a, col_j]
        score = diff * diff / m[a, 0]
        if score > top:
            top = score
            arm = a
    return i, j, index, arm
