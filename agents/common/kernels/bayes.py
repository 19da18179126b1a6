"""Compiled per-pull steps of the Bayesian fixed-budget agents (BayesGap and KGCB).

* :func:`posterior_update` — the Kalman rank-one update of a Gaussian linear posterior
  (Frazier, Powell & Dayanik 2009, eq. (4)–(5)): O(K r + r²) a pull, plus O(K²) with the K × K
  covariance of the means.
* :func:`bayesgap_choose` — BayesGap's decision (Hoffman, Shahriari & de Freitas 2014,
  Algorithm 1; the gap index of UGapE, Gabillon et al. 2012) with β of their Theorem 1 on an
  estimated hardness: three O(K) passes.
* :func:`log_gain_rows`, :func:`kgcb_choose` — the exact knowledge gradient of Frazier, Powell &
  Dayanik (2009, §4, Algorithm 1) in log space: per measurement, the upper envelope of the K
  lines z ↦ μ_i + σ̃_i z (a pre-filter keeps the few lines that can reach it, then a sort by
  slope and one monotone-chain pass), and a log-sum-exp of the terms (b_{i+1} − b_i) f(−|c_i|).
* :func:`log_f_neg_into` — log f(−s), f(z) = zΦ(z) + φ(z) (their eq. (14)), which never
  underflows.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
#: from this s on, 1 − sR(s) comes from the continued fraction of the Mills ratio R,
_FRACTION_FROM = 4.0
#: and from this s on from its asymptotic series.
_SERIES_FROM = 10.0
#: log-sum-exp: a term below the largest by more than this adds less than half an ulp to 1.
_NEGLIGIBLE = -38.0
#: relative slack of the pre-filter's dominance test (borderline lines are kept).
_SLACK = 1e-12


# --------------------------------------------------------------------------- log f(−s)
@numba.njit(cache=True, error_model="numpy")
def _f_neg_parts(s: float) -> tuple[float, float]:  # pragma: no cover - compiled
    """(q, ρ) with f(−s) = e^q ρ for s ≥ 0 (f(z) = zΦ(z) + φ(z)), ρ in (0, 1], never 0.

    f(−s) = φ(s)(1 − sR(s)), R(s) = Φ(−s)/φ(s) the Mills ratio: q = −s²/2 − ½log 2π and
    ρ = 1 − sR(s), to ~1e-15 relative. Below s = 4, R(s) = √(π/2)·erfc(s/√2)·e^{s²/2}
    (cancellation in 1 − sR at most s² ≤ 16 ulp). On [4, 10), Laplace's continued fraction
    1/R(s) = s + 1/(s + 2/(s + 3/(s + …))): with T = 1/R − s = 1/(s + 2/(s + 3/…)),
    ρ = T/(s + T) without cancellation (5 + 120/s terms). From s = 10, the asymptotic series
    ρ = u(1 − 3u(1 − 5u(1 − 7u(…)))), u = s⁻², truncated after 4 + 160/s terms (its first
    omitted term is below 1e-16 relative there).
    """
    s = min(s, 1e100)
    q = -0.5 * s * s - _HALF_LOG_2PI
    if s < _FRACTION_FROM:
        return q, 1.0 - s * (_SQRT_HALF_PI * math.erfc(s * _INV_SQRT2) * math.exp(0.5 * s * s))
    if s < _SERIES_FROM:
        t = 0.0
        for k in range(5 + int(120.0 / s), 1, -1):
            t = k / (s + t)
        t = 1.0 / (s + t)
        return q, t / (s + t)
    u = 1.0 / (s * s)
    acc = 1.0
    for j in range(4 + int(160.0 / s), 0, -1):
        acc = 1.0 - (2 * j + 1) * u * acc
    return q, u * acc


@numba.njit(cache=True, error_model="numpy")
def _log_f_neg(s: float) -> float:  # pragma: no cover - compiled
    """The log of f(−s) for s ≥ 0: q + log ρ of :func:`_f_neg_parts` (never −inf)."""
    q, rho = _f_neg_parts(s)
    return q + math.log(rho)


@numba.njit(cache=True, error_model="numpy")
def log_f_neg_into(s: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[i] = log f(−s[i])`` for every entry of the 1-D array ``s`` (entries ≥ 0)."""
    for i in range(s.shape[0]):
        out[i] = _log_f_neg(s[i])


# --------------------------------------------------------------------------- the envelope
@numba.njit(cache=True, error_model="numpy")
def _before(b: np.ndarray, a: np.ndarray, i: int, j: int) -> bool:  # pragma: no cover
    """Line i sorts before line j: smaller slope, then smaller intercept, then smaller index."""
    if b[i] != b[j]:
        return b[i] < b[j]
    if a[i] != a[j]:
        return a[i] < a[j]
    return i < j


@numba.njit(cache=True, error_model="numpy")
def _sift_down(
    b: np.ndarray, a: np.ndarray, idx: np.ndarray, root: int, end: int
) -> None:  # pragma: no cover - compiled
    """Restore the max-heap (order :func:`_before`) of ``idx[:end]`` below ``root``."""
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and _before(b, a, idx[child], idx[child + 1]):
            child += 1
        if not _before(b, a, idx[root], idx[child]):
            return
        idx[root], idx[child] = idx[child], idx[root]
        root = child


@numba.njit(cache=True, error_model="numpy")
def _sort_lines(
    b: np.ndarray, a: np.ndarray, idx: np.ndarray, m: int, insertion_max: int
) -> None:  # pragma: no cover - compiled
    """Sort ``idx[:m]`` by (slope, intercept, index).

    Insertion sort up to ``insertion_max`` lines, else heap sort (the order is total, so both
    give the same result).
    """
    if m <= insertion_max:
        for p in range(1, m):
            v = idx[p]
            q = p - 1
            while q >= 0 and _before(b, a, v, idx[q]):
                idx[q + 1] = idx[q]
                q -= 1
            idx[q + 1] = v
        return
    # heap sort: a max-heap of the order _before, its root swapped to the end
    for start in range(m // 2 - 1, -1, -1):
        _sift_down(b, a, idx, start, m)
    for end in range(m - 1, 0, -1):
        idx[0], idx[end] = idx[end], idx[0]
        _sift_down(b, a, idx, 0, end)


@numba.njit(cache=True, error_model="numpy")
def _prefilter(
    a: np.ndarray, b: np.ndarray, top: int, idx: np.ndarray, mask: np.ndarray, lo: int, hi: int
) -> tuple[int, int, int]:  # pragma: no cover - compiled
    """Write into ``idx`` the lines that may lie on the upper envelope: (their number, lo, hi).

    E(z) = max of three lines L = ``lo``, ``top`` (a largest intercept) and R = ``hi`` with
    b_L ≤ b_top ≤ b_R is a convex lower bound of the envelope. A line ℓ with b_L ≤ b_ℓ ≤ b_R
    and ℓ ≤ E at E's breakpoints is ≤ E everywhere (ℓ − E is concave, non-decreasing left of
    the first breakpoint and non-increasing right of the last), so it never rises above the
    envelope and is dropped; lines of slope outside [b_L, b_R] are kept, and a relative slack
    keeps borderline lines. L and R may be any lines (e.g. the previous pull's extremes, which
    rarely move): when they do not bracket b_top or have equal slopes, the smallest and largest
    slopes are found first (an O(K) pass). The returned lo, hi are the extremes of the kept
    lines, i.e. of all lines. The slopes may be scaled by any positive factor (the test is
    invariant). The number is 0 when every slope is equal (the envelope is one line).
    ``mask``: 8⌈K/8⌉ bytes of scratch, zero past K.
    """
    k = b.shape[0]
    if lo < 0 or hi < 0 or not b[lo] <= b[top] <= b[hi] or b[lo] == b[hi]:
        lo, hi = 0, 0
        for i in range(1, k):
            if b[i] < b[lo]:
                lo = i
            if b[i] > b[hi]:
                hi = i
        if b[lo] == b[hi]:
            return 0, lo, hi
    b_lo, b_hi = b[lo], b[hi]
    z1 = z2 = 0.0
    n_break = 0
    # the three lines' envelope: L, then the top line if it rises above L ∩ R, then R
    z0 = (a[lo] - a[hi]) / (b_hi - b_lo)
    if a[top] + b[top] * z0 > a[lo] + b_lo * z0:
        if b[top] > b_lo:
            z1 = (a[lo] - a[top]) / (b[top] - b_lo)
            n_break += 1
        if b_hi > b[top]:
            z2 = (a[top] - a[hi]) / (b_hi - b[top])
            if n_break == 0:
                z1 = z2
            n_break += 1
    else:
        z1 = z0
        n_break = 1
    if n_break == 1:
        z2 = z1
    e1 = max(a[lo] + b_lo * z1, a[top] + b[top] * z1, a[hi] + b_hi * z1)
    e2 = max(a[lo] + b_lo * z2, a[top] + b[top] * z2, a[hi] + b_hi * z2)
    big_b = max(abs(b_lo), abs(b_hi))
    t1 = e1 - _SLACK * (abs(e1) + big_b * abs(z1) + 1.0)
    t2 = e2 - _SLACK * (abs(e2) + big_b * abs(z2) + 1.0)
    for i in range(k):  # one vectorised pass, then the few kept lines, eight at a time
        v = b[i]
        mask[i] = (v < b_lo) | (v > b_hi) | (a[i] + v * z1 > t1) | (a[i] + v * z2 > t2)
    words = mask.view(np.uint64)
    m = 0
    for w in range(words.shape[0]):
        if words[w] != 0:
            for i in range(8 * w, min(8 * w + 8, k)):
                if mask[i]:
                    idx[m] = i
                    m += 1
    for p in range(m):
        i = idx[p]
        if b[i] < b[lo]:
            lo = i
        if b[i] > b[hi]:
            hi = i
    return m, lo, hi


@numba.njit(cache=True, error_model="numpy")
def _segment_term(c: float, db: float) -> float:  # pragma: no cover - compiled
    """log(db · f(−c)) for a slope gap db > 0 and a crossing c ≥ 0 (one log when it can)."""
    q, rho = _f_neg_parts(c)
    w = db * rho
    return q + (math.log(w) if w > 1e-300 else math.log(db) + math.log(rho))


@numba.njit(cache=True, error_model="numpy")
def _log_gain(
    a: np.ndarray,
    row: np.ndarray,
    scale: float,
    top: int,
    idx: np.ndarray,
    b: np.ndarray,
    terms: np.ndarray,
    mask: np.ndarray,
    ends: np.ndarray,
    prefilter: bool,
    insertion_max: int,
) -> float:  # pragma: no cover - compiled
    """log(E[max_i a_i + b_i Z] − max_i a_i), Z ~ N(0, 1), b = row/scale; −inf for a 0 gain.

    Frazier, Powell & Dayanik (2009, Algorithm 1): the lines sorted by slope (of equal slopes
    only the largest intercept), their upper envelope (monotone chain: the last kept line is
    dropped while it is on or below the segment from the one before it to the new line), and
    Σ over consecutive envelope lines (p, i) of (b_i − b_p) f(−|c|), c = (a_p − a_i)/(b_i − b_p)
    their crossing, in log space: the largest term t* plus log(1 + Σ e^{t − t*}) over the
    others in slope order (terms that cannot change that sum are not evaluated).

    ``top``: an index of max a; the slopes b_i = row_i/scale are formed only for the lines the
    pre-filter keeps. ``idx`` (K integers), ``b`` and ``terms`` (K floats), ``mask`` (8⌈K/8⌉
    bytes, zero past K): scratch. ``ends``: the (lo, hi) lines where the pre-filter
    (:func:`_prefilter`) starts, replaced by the extremes of ``row``'s slopes.
    """
    k = row.shape[0]
    if prefilter:
        m, ends[0], ends[1] = _prefilter(a, row, top, idx, mask, ends[0], ends[1])
        if m == 0:
            return -np.inf
    else:
        m = k
        for i in range(k):
            idx[i] = i
    for p in range(m):
        i = idx[p]
        b[i] = row[i] / scale
    _sort_lines(b, a, idx, m, insertion_max)
    n = 0  # the envelope so far: idx[:n] (the stack overwrites the sorted lines it has read)
    for p in range(m):
        i = idx[p]
        if p + 1 < m and b[idx[p + 1]] == b[i]:
            continue  # a larger intercept of the same slope follows
        while n >= 2:
            q, r = idx[n - 2], idx[n - 1]
            if (a[r] - a[q]) * (b[i] - b[q]) <= (a[i] - a[q]) * (b[r] - b[q]):
                n -= 1
            else:
                break
        idx[n] = i
        n += 1
    if n < 2:
        return -np.inf
    # crossings |c| into ``terms``; the segment of smallest |c| first: its term t* bounds the
    # others, t ≤ −c²/2 − ½log 2π + log max(b_i − b_p), so a segment whose bound is below
    # t* + _NEGLIGIBLE cannot change the sum (nor be the largest) and is not evaluated
    first, big = 1, 0.0
    for p in range(1, n):
        i, j = idx[p], idx[p - 1]
        db = b[i] - b[j]
        terms[p] = abs(a[j] - a[i]) / db
        big = max(big, db)
        if terms[p] < terms[first]:
            first = p
    best, top_p = _segment_term(terms[first], b[idx[first]] - b[idx[first - 1]]), first
    terms[first] = best
    cut = best + _NEGLIGIBLE + _HALF_LOG_2PI - math.log(big)
    for p in range(1, n):
        if p == first:
            continue
        c = terms[p]
        if -0.5 * c * c < cut:
            terms[p] = -np.inf
            continue
        t = _segment_term(c, b[idx[p]] - b[idx[p - 1]])
        terms[p] = t
        if t > best:
            best, top_p = t, p
    total = 1.0  # the largest term, then the others in slope order
    for p in range(1, n):
        gap = terms[p] - best
        if p != top_p and gap > _NEGLIGIBLE:  # below: 1 + e^gap rounds to 1, skip the exp
            total += math.exp(gap)
    return best + math.log(total)


@numba.njit(cache=True, error_model="numpy")
def _first_argmax(v: np.ndarray) -> int:  # pragma: no cover - compiled
    """The first index of the largest entry (as ``numpy.argmax``; no NaN)."""
    best, j = v[0], 0
    for i in range(1, v.shape[0]):
        if v[i] > best:
            best, j = v[i], i
    return j


@numba.njit(cache=True, error_model="numpy")
def log_gain_rows(  # pragma: no cover - compiled
    a: np.ndarray,
    slopes: np.ndarray,
    out: np.ndarray,
    prefilter_from: int,
    insertion_max: int,
) -> None:
    """``out[r]`` = log(E[max_i a_i + slopes[r, i] Z] − max a) for every row r (exact, log space).

    Above ``prefilter_from`` lines a pre-filter drops lines dominated by three envelope lines;
    sorts of up to ``insertion_max`` lines are insertion sorts, longer ones heap sorts. Every
    route is exact; they differ in cost only.
    """
    k = a.shape[0]
    idx = np.empty(k, dtype=np.int64)
    b = np.empty(k)
    terms = np.empty(k)
    mask = np.zeros(8 * ((k + 7) // 8), dtype=np.uint8)
    ends = np.full(2, -1, dtype=np.int64)
    top = _first_argmax(a)
    for r in range(slopes.shape[0]):
        ends[:] = -1
        out[r] = _log_gain(
            a, slopes[r], 1.0, top, idx, b, terms, mask, ends, k > prefilter_from, insertion_max
        )


@numba.njit(cache=True, error_model="numpy")
def kgcb_choose(  # pragma: no cover - compiled
    mu: np.ndarray,
    cov: np.ndarray,
    noise_var: float,
    out: np.ndarray,
    work: np.ndarray,
    idx: np.ndarray,
    ends: np.ndarray,
    prefilter_from: int,
    insertion_max: int,
) -> tuple[int, int]:
    """KGCB's decision: log ν_x for every measurement x into ``out``; (first maximiser, ties).

    ν_x = E[max_i μ_i^{n+1} | measure x] − max_i μ_i^n (Frazier, Powell & Dayanik 2009, eq. (9))
    with μ^{n+1} = μ^n + σ̃(x) Z, σ̃(x) = Σ e_x/√(λ + Σ_xx) (their eq. (6)): the log gain of the
    lines (μ_i, σ̃_i(x)). Ties: entries ≥ top − 1e-12·max(1, |top|), returned as their number
    with the first of them (all K when every ν_x is 0). ``work``: 2K floats; ``idx``: K ints;
    ``ends`` (K × 2 ints, −1 at first): per measurement the lines of smallest and largest slope
    at the last call, where the pre-filter starts (any values give the same result).
    """
    k = mu.shape[0]
    b = work[:k]
    terms = work[k:]
    mask = np.zeros(8 * ((k + 7) // 8), dtype=np.uint8)
    top = _first_argmax(mu)
    prefilter = k > prefilter_from
    for x in range(k):
        sd = math.sqrt(noise_var + max(cov[x, x], 0.0))
        out[x] = _log_gain(
            mu, cov[x], sd, top, idx, b, terms, mask, ends[x], prefilter, insertion_max
        )
    best = out[_first_argmax(out)]
    if best == -np.inf:
        return 0, k
    cut = best - 1e-12 * max(1.0, abs(best))
    first, ties = -1, 0
    for x in range(k):
        if out[x] >= cut:
            ties += 1
            if first < 0:
                first = x
    return first, ties


# --------------------------------------------------------------------------- the posterior
@numba.njit(cache=True, error_model="numpy")
def posterior_update(  # pragma: no cover - compiled
    z: np.ndarray,
    cov_theta: np.ndarray,
    mean_theta: np.ndarray,
    mu: np.ndarray,
    var: np.ndarray,
    cov: np.ndarray,
    work: np.ndarray,
    arm: int,
    y: float,
    noise_var: float,
) -> None:
    """One observation ``y`` of ``arm``: the Kalman rank-one update, in place.

    s = S z_a, d = λ + z_aᵀ s, c = Z s (= Cov(μ, μ_a)), g = (y − μ_a)/d: m += g s, μ += g c,
    S −= s sᵀ/d, and either (``cov`` of shape K × K) C −= c cᵀ/d with var = diag C, or (``cov``
    empty) var −= c²/d (Frazier, Powell & Dayanik 2009, eq. (4)–(5)). ``work``: 2(r + K) floats.
    Dot products are sequential sums. O(K r + r²), plus O(K²) with ``cov``.
    """
    k, r = z.shape
    s = work[:r]
    c = work[r : r + k]
    za = z[arm]
    for i in range(r):
        acc = 0.0
        for j in range(r):
            acc += cov_theta[i, j] * za[j]
        s[i] = acc
    quad = 0.0
    for j in range(r):
        quad += za[j] * s[j]
    den = noise_var + quad
    for i in range(k):
        acc = 0.0
        for j in range(r):
            acc += z[i, j] * s[j]
        c[i] = acc
    gain = (y - mu[arm]) / den
    for j in range(r):
        mean_theta[j] += gain * s[j]
    for i in range(k):
        mu[i] += gain * c[i]
    sd_ = work[r + k : 2 * r + k]  # s/d
    for j in range(r):
        sd_[j] = s[j] / den
    for i in range(r):
        si = s[i]
        for j in range(r):
            cov_theta[i, j] -= si * sd_[j]
    if cov.shape[0] == k:
        cd = work[2 * r + k :]  # c/d
        for j in range(k):
            cd[j] = c[j] / den
        for i in range(k):
            ci = c[i]
            row = cov[i]
            for j in range(k):
                row[j] -= ci * cd[j]
            var[i] = row[i]
    else:
        for i in range(k):
            var[i] -= c[i] * c[i] / den


# --------------------------------------------------------------------------- BayesGap
@numba.njit(cache=True, error_model="numpy")
def _top_two(
    mu: np.ndarray, sd: np.ndarray, w: float
) -> tuple[int, float, float]:  # pragma: no cover - compiled
    """(first argmax, max, largest of the others) of U = μ + w·σ."""
    k = mu.shape[0]
    top, first, second = 0, mu[0] + w * sd[0], -np.inf
    for i in range(1, k):
        u = mu[i] + w * sd[i]
        if u > first:
            top, second, first = i, first, u
        elif u > second:
            second = u
    return top, first, second


@numba.njit(cache=True, error_model="numpy")
def bayesgap_choose(  # pragma: no cover - compiled
    mu: np.ndarray,
    var: np.ndarray,
    sd: np.ndarray,
    beta: float,
    beta_num: float,
    gap_eps: float,
    h_floor: float,
) -> tuple[int, float, int, float]:
    """BayesGap's next arm (Hoffman, Shahriari & de Freitas 2014, Algorithm 1).

    σ = √max(var, 0) into ``sd``. β: the given ``beta`` if > 0, else Theorem 1's
    √(``beta_num``/(4Ĥ_ε)) with Ĥ_ε = Σ_k max(½(|B⁽³⁾_k| + ε), h_floor)⁻², B⁽³⁾ the gap index
    of the bounds μ ± 3σ. Then U, L = μ ± βσ, B_k = max_{i≠k} U_i − L_k, J = argmin B (first),
    j = argmax_{k≠J} U_k (first); the arm is J if σ_J ≥ σ_j, else j.

    Returns (arm, β, J, B_J).
    """
    k = mu.shape[0]
    for i in range(k):
        sd[i] = math.sqrt(max(var[i], 0.0))
    if not beta > 0.0:
        top, first, second = _top_two(mu, sd, 3.0)
        hardness = 0.0
        for i in range(k):
            wide = 3.0 * sd[i]
            b3 = (second if i == top else first) - (mu[i] - wide)
            inv_h = 1.0 / max(0.5 * (abs(b3) + gap_eps), h_floor)
            hardness += inv_h * inv_h
        beta = math.sqrt(beta_num / (4.0 * hardness))
    top, first, second = _top_two(mu, sd, beta)
    cand, gap_cand = 0, np.inf
    for i in range(k):
        width = beta * sd[i]
        g = (second if i == top else first) - (mu[i] - width)
        if g < gap_cand:
            cand, gap_cand = i, g
    challenger, best = -1, -np.inf
    for i in range(k):
        if i != cand:
            u = mu[i] + beta * sd[i]
            if challenger < 0 or u > best:
                challenger, best = i, u
    arm = cand if sd[cand] >= sd[challenger] else challenger
    return arm, beta, cand, gap_cand
