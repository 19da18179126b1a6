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

    One pass over blocks of eight entries: each block's maximum by a tree of comparisons
    (independent, so the processor overlaps them), kept with the first block that strictly
    raised the running maximum; then the first entry equal to the maximum is searched from that
    block on (at most eight entries). About four times as fast as one compare chain followed by
    a scan of the whole column. The column holds no NaN (the agents' states are finite).
    """
    k = m.shape[0]
    x = m[:, c]
    n8 = k - k % 8
    top = -np.inf
    where = -1
    for a in range(0, n8, 8):
        block = max(
            max(max(x[a], x[a + 1]), max(x[a + 2], x[a + 3])),
            max(max(x[a + 4], x[a + 5]), max(x[a + 6], x[a + 7])),
        )
        if block > top:
            top = block
            where = a
    for a in range(n8, k):
        if x[a] > top:
            top = x[a]
            where = a
    if where < 0:  # every entry is −∞
        return 0
    for a in range(where, k):
        if x[a] == top:
            return a
    return 0  # unreachable


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
def _catch_up(  # pragma: no cover - compiled
    g: np.ndarray,
    u: np.ndarray,
    glog: np.ndarray,
    ulog: np.ndarray,
    arm: int,
    start: int,
    stop: int,
) -> None:
    """The logged updates τ = start … stop − 1 applied to a kept column of ``arm``.

    g −= c_τ (g_τ)_arm g_τ and u −= c_τ (g_τ)_arm u_τ, in the order of τ. Four updates per
    pass over g (each entry takes them in the same order as four passes would): a quarter of
    the loads and stores of g, the same rounded operations.
    """
    k, size, r = g.shape[0], glog.shape[1], u.shape[0]
    tau = start
    while tau + 4 <= stop:
        t0, t1, t2, t3 = tau % size, (tau + 1) % size, (tau + 2) % size, (tau + 3) % size
        f0 = ulog[r, t0] * glog[arm, t0]
        f1 = ulog[r, t1] * glog[arm, t1]
        f2 = ulog[r, t2] * glog[arm, t2]
        f3 = ulog[r, t3] * glog[arm, t3]
        g0, g1, g2, g3 = glog[:, t0], glog[:, t1], glog[:, t2], glog[:, t3]
        for i in range(k):
            v = g[i]
            v -= f0 * g0[i]
            v -= f1 * g1[i]
            v -= f2 * g2[i]
            v -= f3 * g3[i]
            g[i] = v
        for b in range(r):
            w = u[b]
            w -= f0 * ulog[b, t0]
            w -= f1 * ulog[b, t1]
            w -= f2 * ulog[b, t2]
            w -= f3 * ulog[b, t3]
            u[b] = w
        tau += 4
    for rest in range(tau, stop):
        t = rest % size
        f = ulog[r, t] * glog[arm, t]
        g0 = glog[:, t]
        for i in range(k):
            g[i] -= f * g0[i]
        for b in range(r):
            u[b] -= f * ulog[b, t]


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
            _catch_up(m[:, col], ru[:, col - 1], glog, ulog, arm, now - lag, now)
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


@numba.njit(cache=True, error_model="numpy", inline="always")
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
    # 1-D views: the compiler vectorises loops over columns of one array only through them
    gcol, logged, e, means = m[:, col], glog[:, t], m[:, 0], m[:, 1]
    for i in range(k):
        g = gcol[i]
        logged[i] = g
        means[i] -= f * g
        e[i] -= c * (g * g)
    for b in range(r):
        u = ru[b, col - 1]
        ulog[b, t] = u
        ru[b, 0] -= f * u
    ulog[r, t] = c
    ints[UPDATES] = now + 1
    counts[arm] += 1
    sums[arm, 0] += y
    return math.log(e_a)


@numba.njit(cache=True, error_model="numpy", inline="always")
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
    # 1-D views: the compiler vectorises loops over columns of one array only through them
    e, means, gi, work = m[:, 0], m[:, 1], m[:, col_i], m[:, w]
    for a in range(k):
        work[a] = means[a] + width * math.sqrt(abs(e[a] + base - 2.0 * gi[a]))
    if k == 1:
        return i, i, -np.inf, -1
    m[i, w] = -np.inf
    j = argmax_column(m, w)
    index = m[j, w] - m[i, 1]
    if not greedy or index <= epsilon:
        return i, j, index, -1
    col_j = lingape_column(z, m, ru, ainv, glog, ulog, ints, j)  # G[:, i], just used, is kept
    gi, gj = m[:, col_i], m[:, col_j]
    for a in range(k):
        diff = gi[a] - gj[a]
        work[a] = diff * diff / e[a]
    arm = argmax_column(m, w)
    return i, j, index, arm


# ----------------------------------------------------------------------------- the packed state
#
# LinGapE's whole per-pull state in two buffers, so that a pull is one kernel call with two
# array arguments (numba's dispatch costs about 0.1 µs per array argument): ``f`` (float64) and
# ``n`` (int64), each a header, then the arrays above as segments (Fortran-ordered matrices).

#: the int64 header: segment offsets and sizes, then the episode's integer state
(
    N_K, N_R, N_PMAX, N_LOG, N_INTS, N_COUNTS, N_SUPPORT,
    N_Z, N_M, N_RU, N_AINV, N_GLOG, N_ULOG, N_SUMS, N_INVP,
    N_T, N_SINCE, N_REFRESH, N_CONFIDENCE, N_GREEDY, N_BEST, N_CHALLENGER, N_PAIR_LO, N_PAIR_HI,
    N_SUPPORTED,
) = range(25)  # fmt: skip
_N_HEAD = 25
#: the float64 header: the width's constants, log det A, ε and the gap index B(t)
F_SIGMA, F_DELTA, F_LAM, F_S, F_RIDGE, F_LOGDET, F_LOGDET0, F_EPS, F_INDEX = range(9)
_F_HEAD = 9
#: the codes a packed kernel returns instead of an arm
STOP, NEED_DESIGN, REFRESH_DUE = -1, -2, -3
#: the confidence widths, as coded in ``n[N_CONFIDENCE]``
HEURISTIC, SELF_NORMALIZED, SELF_NORMALIZED_OLS = 0, 1, 2


def lingape_pack(
    n_arms: int, rank: int, max_columns: int, logged: int
) -> tuple[np.ndarray, np.ndarray]:
    """Allocate LinGapE's packed state (zeros, no column kept; the caller fills the header).

    Args:
        n_arms: K.
        rank: r, the columns of the reduced features.
        max_columns: P, the kept columns of G.
        logged: L, the logged updates.

    Returns:
        ``(f, n)``; :func:`lingape_unpack` gives the arrays as views.
    """
    k, r, p, size = n_arms, rank, max_columns, logged
    n_ints = _HEADER + 3 * p + k
    n = np.zeros(_N_HEAD + n_ints + 2 * k, dtype=np.int64)
    n[N_K], n[N_R], n[N_PMAX], n[N_LOG] = k, r, p, size
    n[N_INTS] = _N_HEAD
    n[N_COUNTS] = n[N_INTS] + n_ints
    n[N_SUPPORT] = n[N_COUNTS] + k
    n[n[N_INTS] : n[N_COUNTS]] = lingape_ints(k, p)
    n[N_PAIR_LO] = n[N_PAIR_HI] = -1
    sizes = (k * r, k * (p + 3), r * (p + 1), r * r, k * size, (r + 1) * size, k, k)
    offset = _F_HEAD
    for slot, length in zip(range(N_Z, N_INVP + 1), sizes, strict=True):
        n[slot] = offset
        offset += length
    return np.zeros(offset), n


@numba.njit(cache=True, error_model="numpy", inline="always")
def _fortran(f: np.ndarray, offset: int, rows: int, cols: int) -> np.ndarray:  # pragma: no cover
    """The (rows × cols) Fortran-ordered view of ``f`` from ``offset``."""
    return f[offset : offset + rows * cols].reshape((cols, rows)).T


@numba.njit(cache=True, error_model="numpy", inline="always")
def lingape_unpack(f: np.ndarray, n: np.ndarray) -> tuple:  # pragma: no cover
    """The arrays of the packed state, as views.

    ``(z, m, ru, ainv, glog, ulog, ints, counts, sums)``, the first seven in the argument order
    of the kernels above.
    """
    k, r, p, size = n[N_K], n[N_R], n[N_PMAX], n[N_LOG]
    return (
        _fortran(f, n[N_Z], k, r),
        _fortran(f, n[N_M], k, p + 3),
        _fortran(f, n[N_RU], r, p + 1),
        _fortran(f, n[N_AINV], r, r),
        _fortran(f, n[N_GLOG], k, size),
        _fortran(f, n[N_ULOG], r + 1, size),
        n[n[N_INTS] : n[N_COUNTS]],
        n[n[N_COUNTS] : n[N_COUNTS] + k],
        f[n[N_SUMS] : n[N_SUMS] + k].reshape((k, 1)),
    )


@numba.njit(cache=True, error_model="numpy", inline="always")
def lingape_design(f: np.ndarray, n: np.ndarray) -> tuple:  # pragma: no cover
    """The ratio rule's stored design, as views of length K: ``(support, inv_p)``.

    The first ``n[N_SUPPORTED]`` entries are those of the pair ``n[N_PAIR_LO]``, ``n[N_PAIR_HI]``.
    """
    k = n[N_K]
    return n[n[N_SUPPORT] : n[N_SUPPORT] + k], f[n[N_INVP] : n[N_INVP] + k]


@numba.njit(cache=True, error_model="numpy", inline="always")
def lingape_width(  # pragma: no cover - compiled
    confidence: int,
    t: int,
    logdet: float,
    logdet0: float,
    sigma: float,
    delta: float,
    rank: int,
    lam: float,
    bound: float,
    ridge: float,
) -> float:
    """LinGapE's confidence width C_t (see :class:`agents.linear_bai.lingape.LinGapE`).

    ``HEURISTIC``: σ √(2 log((1 + log t)/δ)); ``SELF_NORMALIZED`` (Abbasi-Yadkori, Pál &
    Szepesvári 2011, Thm 2): σ √(2 max(½ log det A − (r/2) log λ + log(1/δ), 0)) + √λ S;
    ``SELF_NORMALIZED_OLS`` (the same Thm 1 with the regulariser c A₀, c = ``ridge``):
    σ √(2 (1 + c) max((r/2) log((1 + c)/c) + ½ (log det A − log det A₀) + log(1/δ), 0)).
    """
    if confidence == HEURISTIC:
        return sigma * math.sqrt(2.0 * math.log((1.0 + math.log(t)) / delta))
    if confidence == SELF_NORMALIZED:
        inner = 0.5 * logdet - 0.5 * rank * math.log(lam) + math.log(1.0 / delta)
        return sigma * math.sqrt(2.0 * max(inner, 0.0)) + math.sqrt(lam) * bound
    inner = (
        0.5 * rank * math.log((1.0 + ridge) / ridge)
        + 0.5 * (logdet - logdet0)
        + math.log(1.0 / delta)
    )
    return sigma * math.sqrt(2.0 * (1.0 + ridge) * max(inner, 0.0))


@numba.njit(cache=True, error_model="numpy", inline="always")
def _packed_decide(  # pragma: no cover - compiled
    f: np.ndarray,
    n: np.ndarray,
    z: np.ndarray,
    m: np.ndarray,
    ru: np.ndarray,
    ainv: np.ndarray,
    glog: np.ndarray,
    ulog: np.ndarray,
    ints: np.ndarray,
    counts: np.ndarray,
) -> int:
    """:func:`lingape_packed_decide` on the unpacked views (unpacking costs ≈ 0.1–0.3 µs)."""
    width = lingape_width(
        n[N_CONFIDENCE], n[N_T], f[F_LOGDET], f[F_LOGDET0], f[F_SIGMA], f[F_DELTA], n[N_R],
        f[F_LAM], f[F_S], f[F_RIDGE],
    )  # fmt: skip
    eps = f[F_EPS]
    greedy = n[N_GREEDY] != 0
    i, j, index, arm = lingape_select(z, m, ru, ainv, glog, ulog, ints, width, eps, greedy)
    n[N_BEST] = i
    n[N_CHALLENGER] = j
    f[F_INDEX] = index
    if index <= eps:
        return STOP
    if greedy:
        return arm
    if n[N_PAIR_LO] == min(i, j) and n[N_PAIR_HI] == max(i, j):
        support, inv_p = lingape_design(f, n)
        count = n[N_SUPPORTED]
        return ratio_arm(counts, support[:count], inv_p[:count])
    return NEED_DESIGN


@numba.njit(cache=True, error_model="numpy")
def lingape_packed_decide(f: np.ndarray, n: np.ndarray) -> int:  # pragma: no cover - compiled
    """The next decision on the packed state: C_t, then :func:`lingape_select`, then the arm.

    i, j and B(t) are stored (``n[N_BEST]``, ``n[N_CHALLENGER]``, ``f[F_INDEX]``). Returns the
    arm to pull: the greedy arm, or the ratio rule's argmin_{a ∈ support} T_a/p*_a
    (:func:`ratio_arm`) when the stored design is the one of the pair {i, j}; ``STOP`` when
    B(t) ≤ ε; ``NEED_DESIGN`` when the ratio rule needs the design of a new pair (the caller
    solves it, stores it and calls :func:`ratio_arm`).
    """
    z, m, ru, ainv, glog, ulog, ints, counts, _ = lingape_unpack(f, n)
    return _packed_decide(f, n, z, m, ru, ainv, glog, ulog, ints, counts)


@numba.njit(cache=True, error_model="numpy")
def lingape_packed_step(  # pragma: no cover - compiled
    f: np.ndarray, n: np.ndarray, arm: int, outcome: np.ndarray
) -> int:
    """One pull of ``arm`` with reward ``outcome[0]`` on the packed state, then the next decision.

    :func:`lingape_observe` (log det A grows by its log e_a), then :func:`lingape_packed_decide`;
    returns what the latter returns, or ``REFRESH_DUE`` (only the counts and sums updated) when
    the pull completes ``n[N_REFRESH]`` updates since the last exact refresh. The outcome array
    is passed as it is (cheaper to dispatch than a scalar taken from it in Python).
    """
    y = float(outcome[0])
    n[N_T] += 1
    n[N_SINCE] += 1
    z, m, ru, ainv, glog, ulog, ints, counts, sums = lingape_unpack(f, n)
    if n[N_SINCE] >= n[N_REFRESH]:
        counts[arm] += 1
        sums[arm, 0] += y
        return REFRESH_DUE
    f[F_LOGDET] += lingape_observe(z, m, ru, ainv, glog, ulog, ints, counts, sums, arm, y)
    return _packed_decide(f, n, z, m, ru, ainv, glog, ulog, ints, counts)
