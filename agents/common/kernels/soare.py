"""Compiled per-pull steps of Soare, Lazaric & Munos (NIPS 2014)'s allocations.

* The greedy design step ``argmin_x max_v w_v vᵀ(A + x xᵀ)⁻¹v`` (App. C, Eq. 22 and Eq. 26)
  on the Sherman–Morrison ingredients ``P = V B Xᵀ``, ``q = diag(V B Vᵀ)``, ``s = diag(X B Xᵀ)``
  (``B = A⁻¹``), with the lexicographic tie-break of
  :func:`agents.linear_bai.greedy_allocation.select_greedy` (``greedy_choice``,
  ``select_greedy_scores``), the rank-one update of the ingredients after a pull
  (``greedy_add``) and whole runs of greedy pulls in one call (``greedy_run``).
* Least squares with Sherman–Morrison updates of ``A⁻¹`` (App. C, Eq. 22) fused with the
  empirical stopping rule (Eq. 11, Lemma 3) in one call per pull (``gram_pull``), and the rule
  alone (``empirical_stop_rule``).
* The round of the fully adaptive XY baseline (Sec. 6): elimination with the widths of Prop. 2
  and the greedy XY arm of the surviving directions (``fully_adaptive_round``).

Every expression keeps the operation order of the NumPy code it replaced (elementwise
updates, sequential sums), so the pull sequences and seeded episodes are unchanged.
"""

from __future__ import annotations

import math

import numba
import numpy as np


# --------------------------------------------------------------------------- greedy step
@numba.njit(cache=True, error_model="numpy")
def greedy_score_matrix(
    p: np.ndarray, q: np.ndarray, s: np.ndarray, w: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``out[i, x] = w_i (q_i − P_ix² / (1 + s_x))``: the scores of Eq. 22 for every target/arm."""
    m, k = p.shape
    for i in range(m):
        for x in range(k):
            out[i, x] = (q[i] - p[i, x] * p[i, x] / (1.0 + s[x])) * w[i]


@numba.njit(cache=True, error_model="numpy")
def _sort_decreasing(v: np.ndarray) -> None:  # pragma: no cover - compiled
    """Sort ``v`` in place, largest first (Shell's sort: it compiles far faster than np.sort)."""
    n = v.shape[0]
    gap = n // 2
    while gap > 0:
        for i in range(gap, n):
            t = v[i]
            j = i
            while j >= gap and v[j - gap] < t:
                v[j] = v[j - gap]
                j -= gap
            v[j] = t
        gap //= 2


@numba.njit(cache=True, error_model="numpy")
def _break_ties(
    cols: np.ndarray, cand: np.ndarray, n_cand: int, floor: float, rtol: float
) -> int:  # pragma: no cover - compiled
    """The lexicographic tie-break among ``n_cand`` candidates (``cols[c]``: their scores).

    Each candidate's scores are sorted in decreasing order; level by level (second largest,
    third largest, …) the candidates above ``low + rtol·|low| + floor`` drop out; the first
    remaining candidate wins.
    """
    m = cols.shape[1]
    for c in range(n_cand):
        _sort_decreasing(cols[c])
    alive = np.arange(n_cand)
    n_alive = n_cand
    for level in range(1, m):
        low = cols[alive[0], level]
        for a in range(1, n_alive):
            v = cols[alive[a], level]
            if v < low:
                low = v
        bound = low + rtol * abs(low) + floor
        kept = 0
        for a in range(n_alive):
            if cols[alive[a], level] <= bound:
                alive[kept] = alive[a]
                kept += 1
        n_alive = kept
        if n_alive == 1:
            break
    return int(cand[alive[0]])


@numba.njit(cache=True, error_model="numpy")
def _choose(
    colmax: np.ndarray, rtol: float
) -> tuple[int, float, np.ndarray, int]:  # pragma: no cover - compiled
    """The best column max, its first index, the tie floor and the tied candidates."""
    k = colmax.shape[0]
    j = 0
    best = colmax[0]
    for x in range(1, k):
        if colmax[x] < best:
            best, j = colmax[x], x
    floor = rtol * rtol * abs(best)
    limit = best + rtol * abs(best) + floor
    cand = np.empty(k, dtype=np.int64)
    n_cand = 0
    for x in range(k):
        if colmax[x] <= limit:
            cand[n_cand] = x
            n_cand += 1
    return j, floor, cand, n_cand


@numba.njit(cache=True, error_model="numpy")
def select_greedy_scores(scores: np.ndarray, rtol: float) -> int:  # pragma: no cover - compiled
    """``argmin_x max_i scores[i, x]`` with the lexicographic tie-break (see ``_break_ties``)."""
    m, k = scores.shape
    colmax = scores[0].copy()
    for i in range(1, m):
        for x in range(k):
            if scores[i, x] > colmax[x]:
                colmax[x] = scores[i, x]
    j, floor, cand, n_cand = _choose(colmax, rtol)
    if n_cand <= 1:
        return j
    cols = np.empty((n_cand, m))
    for c in range(n_cand):
        for i in range(m):
            cols[c, i] = scores[i, cand[c]]
    return _break_ties(cols, cand, n_cand, floor, rtol)


@numba.njit(cache=True, error_model="numpy")
def greedy_choice(
    p: np.ndarray, q: np.ndarray, s: np.ndarray, w: np.ndarray, rtol: float
) -> int:  # pragma: no cover - compiled
    """The greedy arm ``argmin_x max_i w_i (q_i − P_ix²/(1 + s_x))`` (Eq. 22), tie rule included.

    The score matrix is never stored: column maxima first, then the tied candidates' columns.
    """
    m, k = p.shape
    colmax = np.empty(k)
    den = 1.0 + s
    for x in range(k):
        colmax[x] = (q[0] - p[0, x] * p[0, x] / den[x]) * w[0]
    for i in range(1, m):
        for x in range(k):
            v = (q[i] - p[i, x] * p[i, x] / den[x]) * w[i]
            if v > colmax[x]:
                colmax[x] = v
    j, floor, cand, n_cand = _choose(colmax, rtol)
    if n_cand <= 1:
        return j
    cols = np.empty((n_cand, m))
    for c in range(n_cand):
        x = cand[c]
        for i in range(m):
            cols[c, i] = (q[i] - p[i, x] * p[i, x] / den[x]) * w[i]
    return _break_ties(cols, cand, n_cand, floor, rtol)


@numba.njit(cache=True, error_model="numpy")
def greedy_add(
    p: np.ndarray, q: np.ndarray, g: np.ndarray, s: np.ndarray, arm: int
) -> None:  # pragma: no cover - compiled
    """Rank-one update of the ingredients after a pull of ``arm`` (Sherman–Morrison, Eq. 22).

    With ``gs = G[:, a] / (1 + G_aa)``: ``q ← q − P[:, a]² / (1 + G_aa)``,
    ``P ← P − P[:, a] gsᵀ``, ``G ← G − G[:, a] gsᵀ``, ``s ← s − G[:, a] ⊙ gs``.
    """
    m, k = p.shape
    ga = g[:, arm].copy()
    pa = p[:, arm].copy()
    den = 1.0 + ga[arm]
    gs = ga / den
    c = 1.0 / den
    for i in range(m):
        q[i] -= pa[i] * pa[i] * c
        for x in range(k):
            p[i, x] -= pa[i] * gs[x]
    for i in range(k):
        for x in range(k):
            g[i, x] -= ga[i] * gs[x]
    for x in range(k):
        s[x] -= ga[x] * gs[x]


@numba.njit(cache=True, error_model="numpy")
def greedy_run(
    p: np.ndarray,
    q: np.ndarray,
    g: np.ndarray,
    s: np.ndarray,
    w: np.ndarray,
    counts: np.ndarray,
    seq: np.ndarray,
    start: int,
    n_steps: int,
    skip_last: bool,
    rtol: float,
    phase: bool,
    u_target: float,
    min_pos: int,
) -> int:  # pragma: no cover - compiled
    """Up to ``n_steps`` greedy pulls written to ``seq[start:]``; returns the number made.

    Each pull: the greedy arm, its count, the rank-one update (skipped for the last pull when
    ``skip_last``: the caller then recomputes the ingredients exactly). With ``phase``, stop
    after the first updated pull at position ≥ ``min_pos`` where
    ``U = max(max_i w_i q_i, 0) ≤ u_target`` (the end of an XY-Adaptive phase, Eq. 18).
    """
    m = q.shape[0]
    for t in range(n_steps):
        arm = greedy_choice(p, q, s, w, rtol)
        seq[start + t] = arm
        counts[arm] += 1
        if skip_last and t == n_steps - 1:
            return n_steps
        greedy_add(p, q, g, s, arm)
        if phase and start + t + 1 >= min_pos:
            u = 0.0
            if m > 0:
                u = q[0] * w[0]
                for i in range(1, m):
                    if q[i] * w[i] > u:
                        u = q[i] * w[i]
                u = max(u, 0.0)
            if u <= u_target:
                return t + 1
    return n_steps


# --------------------------------------------------------------------------- least squares
@numba.njit(cache=True, error_model="numpy")
def _stop_rule(
    z: np.ndarray, theta: np.ndarray, inv: np.ndarray, beta: float, arms: np.ndarray
) -> int:  # pragma: no cover - compiled
    """The empirical stopping rule (Eq. 11) among ``arms`` (all arms if empty); −1: go on."""
    k, d = z.shape
    n = arms.shape[0] if arms.shape[0] > 0 else k
    best, best_mean = -1, 0.0
    for a in range(n):
        x = arms[a] if arms.shape[0] > 0 else a
        mean = 0.0
        for c in range(d):
            mean += z[x, c] * theta[c]
        if best < 0 or mean > best_mean:
            best, best_mean = x, mean
    if n < 2:
        return best
    diff = np.empty(d)
    row = np.empty(d)
    min_gap, ratio = math.inf, -math.inf
    for a in range(n):
        x = arms[a] if arms.shape[0] > 0 else a
        for c in range(d):
            diff[c] = z[best, c] - z[x, c]
        gap = 0.0
        for c in range(d):
            gap += diff[c] * theta[c]
        for c in range(d):
            acc = 0.0
            for e in range(d):
                acc += diff[e] * inv[e, c]
            row[c] = acc
        quad = 0.0
        for c in range(d):
            quad += row[c] * diff[c]
        if quad <= 0.0:  # the best arm itself (and exact duplicates of it)
            gap = math.inf
        min_gap = min(min_gap, gap)
        ratio = max(ratio, quad / (gap * gap))
    if min_gap <= 0.0:
        return -1
    if beta * beta * ratio <= 1.0:
        return best
    return -1


@numba.njit(cache=True, error_model="numpy")
def empirical_stop_rule(
    z: np.ndarray, theta: np.ndarray, inv: np.ndarray, beta: float, arms: np.ndarray
) -> int:  # pragma: no cover - compiled
    """The empirical stopping rule of Eq. 11 (Lemma 3): the arm to return, or −1 to go on.

    Stop iff the empirical best ``x̂`` (first index on ties) has, for every other ``x'``,
    ``β‖x̂ − x'‖_{A⁻¹} ≤ (x̂ − x')ᵀθ̂`` with a positive gap; ``arms`` (non-empty) restricts both.
    """
    return _stop_rule(z, theta, inv, beta, arms)


@numba.njit(cache=True, error_model="numpy")
def _gram_update(
    inv: np.ndarray, b: np.ndarray, x: np.ndarray, reward: float
) -> None:  # pragma: no cover - compiled
    """``b ← b + x·r`` and ``A⁻¹ ← A⁻¹ − (A⁻¹x)(A⁻¹x)ᵀ/(1 + xᵀA⁻¹x)`` (Sherman–Morrison)."""
    d = x.shape[0]
    for c in range(d):
        b[c] += x[c] * reward
    bx = np.empty(d)
    for r in range(d):
        acc = 0.0
        for c in range(d):
            acc += inv[r, c] * x[c]
        bx[r] = acc
    xb = 0.0
    for c in range(d):
        xb += x[c] * bx[c]
    den = 1.0 + xb
    for r in range(d):
        for c in range(d):
            inv[r, c] = inv[r, c] - bx[r] * (bx[c] / den)


@numba.njit(cache=True, error_model="numpy")
def gram_pull(
    z: np.ndarray,
    inv: np.ndarray,
    b: np.ndarray,
    theta: np.ndarray,
    counts: np.ndarray,
    sums: np.ndarray,
    own_counts: np.ndarray,
    own_sums: np.ndarray,
    arm: int,
    reward: float,
    beta: float,
    check: bool,
) -> int:  # pragma: no cover - compiled
    """One pull in the least squares, then (``check``) the stopping rule: the answer or −1.

    The arm's count and reward sum (in the least squares' ``counts``, ``sums`` and in the
    caller's ``own_counts``, ``own_sums[:, 0]``), the Sherman–Morrison update of ``A⁻¹`` and
    ``b`` (App. C, Eq. 22), ``θ̂ = A⁻¹b`` written to ``theta``, and Eq. 11 over all arms.
    Returns −2 when no check was asked for, −3 (nothing done) when ``arm`` is out of range.
    """
    if arm < 0 or arm >= z.shape[0]:
        return -3
    counts[arm] += 1
    sums[arm] += reward
    own_counts[arm] += 1
    own_sums[arm, 0] += reward
    _gram_update(inv, b, z[arm], reward)
    if not check:
        return -2
    d = b.shape[0]
    for r in range(d):
        acc = 0.0
        for c in range(d):
            acc += inv[r, c] * b[c]
        theta[r] = acc
    return _stop_rule(z, theta, inv, beta, np.empty(0, dtype=np.int64))


@numba.njit(cache=True, error_model="numpy")
def gram_update(
    inv: np.ndarray, b: np.ndarray, x: np.ndarray, reward: float
) -> None:  # pragma: no cover - compiled
    """The Sherman–Morrison step of ``gram_pull`` alone (no stopping rule)."""
    _gram_update(inv, b, x, reward)


@numba.njit(cache=True, error_model="numpy")
def adams_pick(
    counts: np.ndarray, weights: np.ndarray, support: np.ndarray
) -> int:  # pragma: no cover - compiled
    """Adams tracking's next pull ``argmin_{i ∈ supp} T_i / w_i`` (first in ``support`` on ties)."""
    best, arm = math.inf, support[0]
    for a in range(support.shape[0]):
        i = support[a]
        key = counts[i] / weights[i]
        if key < best:
            best, arm = key, i
    return arm


# --------------------------------------------------------------------------- fully adaptive XY
@numba.njit(cache=True, error_model="numpy")
def fully_adaptive_round(
    z: np.ndarray,
    inv: np.ndarray,
    b: np.ndarray,
    log_arg: float,
    sigma: float,
    rank: int,
    sqrt_eta: float,
    norm_bound: float,
    rtol: float,
) -> int:  # pragma: no cover - compiled
    """One round of the fully adaptive XY baseline (Soare et al. 2014, Sec. 6, with Prop. 2).

    ``θ̂ = Ã⁻¹b``; ``β = σ√(d·log(log_arg)) + √η·S`` (d = ``rank``; S = ``norm_bound``, or ‖θ̂‖
    if negative);
    ``G = Z Ã⁻¹ Zᵀ``; x is dominated iff some x' has ``(x' − x)ᵀθ̂ > 0`` and
    ``β²‖x − x'‖² < ((x' − x)ᵀθ̂)²``. Returns ``−1 − x`` when x is the only arm left, else the
    greedy XY arm of the directions between the surviving arms (scores of Eq. 22 from G, with
    the tie rule of ``select_greedy_scores``).
    """
    k, d = z.shape
    theta = np.empty(d)
    for r in range(d):
        acc = 0.0
        for c in range(d):
            acc += inv[r, c] * b[c]
        theta[r] = acc
    if norm_bound < 0.0:
        sq = 0.0
        for c in range(d):
            sq += theta[c] * theta[c]
        norm_bound = math.sqrt(sq)
    beta = sigma * math.sqrt(rank * math.log(log_arg)) + sqrt_eta * norm_bound
    zi = np.empty((k, d))
    for x in range(k):
        for c in range(d):
            acc = 0.0
            for e in range(d):
                acc += z[x, e] * inv[e, c]
            zi[x, c] = acc
    g = np.empty((k, k))
    for x in range(k):
        for y in range(k):
            acc = 0.0
            for c in range(d):
                acc += zi[x, c] * z[y, c]
            g[x, y] = acc
    means = np.empty(k)
    for x in range(k):
        acc = 0.0
        for c in range(d):
            acc += z[x, c] * theta[c]
        means[x] = acc
    quad = np.empty((k, k))
    keep = np.empty(k, dtype=np.int64)
    n_keep = 0
    bb = beta * beta
    for x in range(k):
        alive = True
        for y in range(k):
            qv = max(g[x, x] + g[y, y] - 2.0 * g[x, y], 0.0)
            quad[x, y] = qv
            gap = means[y] - means[x]
            if gap > 0.0 and bb * qv < gap * gap:
                alive = False
        if alive:
            keep[n_keep] = x
            n_keep += 1
    if n_keep == 1:
        return -1 - int(keep[0])
    m = n_keep * (n_keep - 1) // 2
    scores = np.empty((m, k))
    r = 0
    for a in range(n_keep):
        i = keep[a]
        for c in range(a + 1, n_keep):
            j = keep[c]
            qv = quad[i, j]
            for x in range(k):
                pv = g[i, x] - g[j, x]
                scores[r, x] = qv - pv * pv / (1.0 + g[x, x])
            r += 1
    return select_greedy_scores(scores, rtol)
