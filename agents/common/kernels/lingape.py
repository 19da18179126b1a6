"""LinGapE's compiled column state (Xu, Honda & Sugiyama 2018), shared by its relatives.

**LinGapE's column state** (Xu, Honda & Sugiyama 2018, with recursive least squares): for the
features X (K × r, Fortran order) and the design matrix A_t after T rank-one updates, the arrays
are

* ``m`` (K × (P + 3), Fortran order): ``[e | μ̂ | G[:, s₁] | … | G[:, s_P] | work]`` with
  e = 1 + diag(X A⁻¹ Xᵀ) and μ̂ = X θ̂ always current, and P kept columns of G = X A⁻¹ Xᵀ, each
  current as of its own update count (brought up to date when it is used: lazily);
* ``ru`` (r × (P + 1)): ``[θ̂ | A⁻¹x_{s₁} | …]``, aligned with ``m[:, 1:]``;
* ``ainv`` (r × r): A⁻¹ as of the last fold;
* the log of the last L updates τ (a ring): ``glog[:, τ mod L]`` = g_τ = X A_τ⁻¹x_{a_τ} and
  ``ulog[:, τ mod L]`` = (u_τ = A_τ⁻¹x_{a_τ}, c_τ = 1/(1 + x_{a_τ}ᵀu_τ)). By Sherman–Morrison
  G_{τ+1}[:, s] = G_τ[:, s] − c_τ g_τ (g_τ)_s, so a column that missed λ < L updates costs O(K λ)
  to catch up, otherwise O(K r) from A⁻¹ (folded first: A⁻¹ −= Σ c_τ u_τ u_τᵀ);
* ``ints``: the header (T, the last fold, the use tick, the columns recomputed from A⁻¹), then
  per kept column its arm (−1: none), last use and update count, and per arm its column of
  ``m`` (−1: not kept) — see :func:`lingape_ints`.

A pull then costs O(K) plus the catching up of the columns its decision reads (G[:, i] is read
at every pull, so it is at most a few updates behind): the kept columns cost nothing while unused.
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: positions in the integer header of LinGapE's column state
UPDATES, FOLDED, TICK, MISSES = 0, 1, 2, 3
_HEADER = 4
#: the first kept column of ``m`` (columns 0 and 1 are e and μ̂)
_FIRST = 2


def lingape_ints(n_arms: int, max_columns: int) -> np.ndarray:
    """The integer part of LinGapE's column state: no update, no column kept.

    Args:
        n_arms: K.
        max_columns: P, the kept columns allocated in ``m``.

    Returns:
        The int64 array ``[header | arm, last use, update count of each column | column of each
        arm]``.
    """
    ints = np.full(_HEADER + 3 * max_columns + n_arms, -1, dtype=np.int64)
    ints[:_HEADER] = 0
    return ints


def lingape_slots(ints: np.ndarray, max_columns: int) -> dict[int, int]:
    """The kept columns as {arm: its column of ``m``}."""
    arms = ints[_HEADER : _HEADER + max_columns]
    return {int(a): s + _FIRST for s, a in enumerate(arms) if a >= 0}


def lingape_lags(ints: np.ndarray, max_columns: int) -> dict[int, int]:
    """The kept columns as {arm: the updates it has yet to catch up}."""
    arms = ints[_HEADER : _HEADER + max_columns]
    versions = ints[_HEADER + 2 * max_columns : _HEADER + 3 * max_columns]
    return {int(a): int(ints[UPDATES] - v) for a, v in zip(arms, versions, strict=True) if a >= 0}


def lingape_mark_current(ints: np.ndarray, max_columns: int) -> None:
    """Record that A⁻¹ and every kept column are exact as of now (after an exact refresh)."""
    ints[FOLDED] = ints[UPDATES]
    ints[_HEADER + 2 * max_columns : _HEADER + 3 * max_columns] = ints[UPDATES]


@numba.njit(cache=True, error_model="numpy")
def argmax_column(m: np.ndarray, c: int) -> int:  # pragma: no cover - compiled
    """The first index of the largest entry of column ``c`` of ``m`` (as ``numpy.argmax``).

    Eight running maxima (independent chains the processor overlaps), then one scan for the
    first entry equal to the maximum: about twice as fast as a single compare chain. The column
    holds no NaN (the agents' states are finite).
    """
    k = m.shape[0]
    n8 = k - k % 8
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = -np.inf
    for a in range(0, n8, 8):
        b0 = max(b0, m[a, c])
        b1 = max(b1, m[a + 1, c])
        b2 = max(b2, m[a + 2, c])
        b3 = max(b3, m[a + 3, c])
        b4 = max(b4, m[a + 4, c])
        b5 = max(b5, m[a + 5, c])
        b6 = max(b6, m[a + 6, c])
        b7 = max(b7, m[a + 7, c])
    top = max(max(max(b0, b1), max(b2, b3)), max(max(b4, b5), max(b6, b7)))
    for a in range(n8, k):
        top = max(top, m[a, c])
    for a in range(k):
        if m[a, c] == top:
            return a
    return 0


@numba.njit(cache=True, error_model="numpy")
def ratio_arm(  # pragma: no cover - compiled
    counts: np.ndarray, support: np.ndarray, inv_p: np.ndarray
) -> int:
    """The ratio rule of Xu, Honda & Sugiyama (2018): argmin_{a ∈ support} T_a / p*_a.

    Args:
        counts: the pulls T_a of every arm.
        support: the arms with p*_a > 0, ascending (ties go to the lowest arm).
        inv_p: 1/p*_a on the support (the product T_a · (1/p*_a) is compared).

    Returns:
        The arm.
    """
    best = 0
    low = counts[support[0]] * inv_p[0]
    for s in range(1, support.shape[0]):
        value = counts[support[s]] * inv_p[s]
        if value < low:
            low = value
            best = s
    return int(support[best])


@numba.njit(cache=True, error_model="numpy")
def lingape_fold(ainv: np.ndarray, ulog: np.ndarray, ints: np.ndarray) -> None:  # pragma: no cover
    """A⁻¹ −= Σ c_τ u_τ u_τᵀ over the updates since the last fold (telescoped Sherman–Morrison)."""
    r = ainv.shape[0]
    size = ulog.shape[1]
    for tau in range(ints[FOLDED], ints[UPDATES]):
        t = tau % size
        c = ulog[r, t]
        for b in range(r):
            cb = c * ulog[b, t]
            for a in range(r):
                ainv[a, b] -= ulog[a, t] * cb
    ints[FOLDED] = ints[UPDATES]


@numba.njit(cache=True, error_model="numpy")
def lingape_column(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    glog: np.ndarray,
    ulog: np.ndarray,
    ints: np.ndarray,
    arm: int,
) -> int:
    """The column of ``m`` holding the current G[:, arm] (and of ``ru`` + 1, A⁻¹x_arm).

    A kept column is caught up through the log (O(K) per missed update) or, when it missed
    min(L, r) updates or more, recomputed; a column not kept replaces the least recently used
    one: A⁻¹ is folded, then A⁻¹x_arm (O(r²)) and X A⁻¹x_arm (O(K r)) are computed.
    """
    k, r = z.shape
    pmax = m.shape[1] - _FIRST - 1
    used0 = _HEADER + pmax
    ver0 = _HEADER + 2 * pmax
    of0 = _HEADER + 3 * pmax
    size = glog.shape[1]
    now = ints[UPDATES]
    col = ints[of0 + arm]
    fresh = col < 0
    if fresh:
        best = 0
        for s in range(1, pmax):
            if ints[used0 + s] < ints[used0 + best]:
                best = s
        old = ints[_HEADER + best]
        if old >= 0:
            ints[of0 + old] = -1
        ints[MISSES] += 1
        col = best + _FIRST
        ints[_HEADER + best] = arm
        ints[of0 + arm] = col
    else:
        lag = now - ints[ver0 + col - _FIRST]
        fresh = lag >= min(size, r)
        if not fresh:
            for tau in range(now - lag, now):
                t = tau % size
                f = ulog[r, t] * glog[arm, t]
                for i in range(k):
                    m[i, col] -= f * glog[i, t]
                for b in range(r):
                    ru[b, col - 1] -= f * ulog[b, t]
    if fresh:
        lingape_fold(ainv, ulog, ints)
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
    ints[ver0 + col - _FIRST] = now
    ints[TICK] += 1
    ints[used0 + col - _FIRST] = ints[TICK]
    return col


@numba.njit(cache=True, error_model="numpy")
def lingape_sync(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    glog: np.ndarray,
    ulog: np.ndarray,
    ints: np.ndarray,
) -> None:
    """Fold A⁻¹ and bring every kept column up to date (for inspection; no pull needs it)."""
    pmax = m.shape[1] - _FIRST - 1
    for s in range(pmax):
        arm = ints[_HEADER + s]
        if arm >= 0:
            lingape_column(z, m, ru, ainv, glog, ulog, ints, arm)
    lingape_fold(ainv, ulog, ints)


@numba.njit(cache=True, error_model="numpy")
def lingape_observe(  # pragma: no cover - compiled
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
) -> float:
    """One pull of ``arm`` with reward ``y`` (``counts`` and ``sums`` too); returns log e_a.

    The Sherman–Morrison step: with g = X A⁻¹x_a (the current column of arm a), u = A⁻¹x_a
    and c = 1/e_a, μ̂ −= c (μ̂_a − y) g and θ̂ −= c (μ̂_a − y) u (recursive least squares),
    e −= c g∘g, and (g, u, c) enters the log; the kept columns catch up when used. O(K + r)
    per pull, plus the catching up of the pulled arm's column.
    """
    col = lingape_column(z, m, ru, ainv, glog, ulog, ints, arm)
    k, r = z.shape
    size = glog.shape[1]
    now = ints[UPDATES]
    if now - ints[FOLDED] == size:  # the log is full: its oldest update enters A⁻¹
        lingape_fold(ainv, ulog, ints)
    t = now % size
    e_a = m[arm, 0]
    c = 1.0 / e_a
    f = c * (m[arm, 1] - y)
    for i in range(k):
        g = m[i, col]
        glog[i, t] = g
        m[i, 1] -= f * g
        m[i, 0] -= c * (g * g)
    for b in range(r):
        u = ru[b, col - 1]
        ulog[b, t] = u
        ru[b, 0] -= f * u
    ulog[r, t] = c
    ints[UPDATES] = now + 1
    counts[arm] += 1
    sums[arm, 0] += y
    return math.log(e_a)


@numba.njit(cache=True, error_model="numpy")
def lingape_select(  # pragma: no cover - compiled
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    glog: np.ndarray,
    ulog: np.ndarray,
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
    i = argmax_column(m, 1)
    col_i = lingape_column(z, m, ru, ainv, glog, ulog, ints, i)
    base = m[i, 0] - 2.0
    w = m.shape[1] - 1  # the work column: separate loops vectorise the square roots
    for a in range(k):
        m[a, w] = m[a, 1] + width * math.sqrt(abs(m[a, 0] + base - 2.0 * m[a, col_i]))
    if k == 1:
        return i, i, -np.inf, -1
    m[i, w] = -np.inf
    j = argmax_column(m, w)
    index = m[j, w] - m[i, 1]
    if not greedy or index <= epsilon:
        return i, j, index, -1
    col_j = lingape_column(z, m, ru, ainv, glog, ulog, ints, j)  # G[:, i], just used, is kept
    for a in range(k):
        diff = m[a, col_i] - m[a, col_j]
        m[a, w] = diff * diff / m[a, 0]
    arm = argmax_column(m, w)
    return i, j, index, arm


@numba.njit(cache=True, error_model="numpy")
def lingape_step(  # pragma: no cover - compiled
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
    width: float,
    epsilon: float,
    greedy: bool,
) -> tuple[int, int, float, int]:
    """:func:`lingape_observe`, then :func:`lingape_select` with the next width C_t.

    One kernel call per pull instead of two (each call costs about 0.1 µs per array argument).
    """
    lingape_observe(z, m, ru, ainv, glog, ulog, ints, counts, sums, arm, y)
    return lingape_select(z, m, ru, ainv, glog, ulog, ints, width, epsilon, greedy)
