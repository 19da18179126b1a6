"""Track-and-Stop's compiled per-pull state (Garivier & Kaufmann 2016; Jedra & Proutière 2020).

**Track-and-Stop's least-squares state** (Jedra & Proutière 2020, Sec. 3.1–3.3, with recursive
least squares): for the features Z (K × r, C order) and the Gram matrix A_t of the pulled arms,

* ``p`` (K × r) = Z A_t⁻¹ (row k is A_t⁻¹z_k) and ``q`` (K,) the leverages z_kᵀA_t⁻¹z_k, kept by
  Sherman–Morrison: with u = A_t⁻¹x and c = 1 + xᵀu for the pulled arm x,
  P ← P − (Z u / c) uᵀ and q ← q − c (Z u / c)², O(K r);
* ``b`` (r,) = Σ_s y_s x_s, and the means μ̂ = P b = Z θ̂ (O(K r));
* for the self-normalised threshold (Abbasi-Yadkori et al. 2011), ``minv`` = (A_t + ηI)⁻¹
  with the same update, and the factor c of the matrix determinant lemma
  (log det(I + A_{t+1}/η) = log det(I + A_t/η) + log c);
* the C-tracking sums Σ_s w(s) of Garivier & Kaufmann (2016, Sec. 3.1) and the next tracked arm
  argmax_k Σ_s w_k(s) − N_k(t).

:func:`tas_observe` makes the whole update of one pull and the statistics the stopping rule
reads (the empirical best arm, and the GLR term of one alternative, which certifies in O(r) that
the test fails); :func:`tas_glr` is the full GLR statistic
Z(t) = min_{x≠x̂} Δ̂(x̂, x)²/(2σ²‖x̂ − x‖²_{A_t⁻¹}) in O(K r) (Jedra & Proutière 2020, Sec. 3.3).

The matrix–vector products (Z u, P b, (A + ηI)⁻¹x, Z A⁻¹z_x̂) are BLAS calls (``numpy.dot``
compiled by numba calls the BLAS that SciPy ships), the rest elementwise loops in the order of
the NumPy expressions they replace: an adaptive agent's trajectory can branch on one rounding
(a near-tie in a design solve), and summing the products in another order than the BLAS does
changes about a third of them in the last bit.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, error_model="numpy")
def tas_means(p: np.ndarray, b: np.ndarray, means: np.ndarray) -> int:  # pragma: no cover
    """μ̂ = P b into ``means`` (one BLAS product); return argmax μ̂ (first maximiser). O(K r)."""
    np.dot(p, b, means)
    best = 0
    top = -np.inf
    for i in range(means.shape[0]):
        if means[i] > top:
            best, top = i, means[i]
    return best


@numba.njit(cache=True, error_model="numpy")
def tas_observe(  # pragma: no cover - compiled
    z: np.ndarray,
    p: np.ndarray,
    q: np.ndarray,
    b: np.ndarray,
    minv: np.ndarray,
    means: np.ndarray,
    arm: int,
    y: float,
    update_p: bool,
    with_means: bool,
    witness: int,
    sigma: float,
) -> tuple[float, int, float]:
    """One pull of arm ``arm`` with reward ``y``: the whole least-squares update.

    b += y x; (A + ηI)⁻¹ by Sherman–Morrison when ``minv`` is not empty (r × r; empty: no
    proven threshold); P and q by Sherman–Morrison when ``update_p`` (A_t invertible); then,
    when ``with_means``, μ̂ = P b, its argmax x̂ and the GLR term of the alternative ``witness``
    (an upper bound on Z(t), with a relative margin of 1e-9 for the round-off between this
    O(r) norm and the O(K r) one; NaN when it bounds nothing: no witness, x̂ itself, a gap or
    norm ≤ 0, or σ ≤ 0).

    Returns:
        (1 + xᵀ(A + ηI)⁻¹x, or 1.0 without ``minv``; x̂, or −1 without means; the bound).
    """
    k, r = z.shape
    for j in range(r):
        b[j] += y * z[arm, j]
    den_m = 1.0
    x = z[arm]
    if minv.shape[0] > 0:
        mx = np.dot(minv, x)
        den_m = 1.0 + np.dot(x, mx)
        for i in range(r):
            for j in range(r):
                minv[i, j] -= mx[i] * mx[j] / den_m
    if update_p:
        u = p[arm].copy()  # A⁻¹x, before P changes
        den = 1.0 + q[arm]
        zu_all = np.dot(z, u)
        for i in range(k):
            zu = zu_all[i] / den
            for j in range(r):
                p[i, j] -= zu * u[j]
            q[i] -= zu * zu * den
    if not with_means:
        return den_m, -1, math.nan
    best = tas_means(p, b, means)
    upper = math.nan
    if witness >= 0 and witness != best and sigma > 0.0:
        gap = means[best] - means[witness]
        if gap > 0.0:
            s = 0.0
            for j in range(r):
                s += z[witness, j] * p[best, j]
            norm = q[best] + q[witness] - 2.0 * s
            if norm > 0.0:
                upper = gap * gap / norm / (2.0 * sigma * sigma) * (1.0 + 1e-9)
    return den_m, best, upper


@numba.njit(cache=True, error_model="numpy")
def tas_glr(  # pragma: no cover - compiled
    z: np.ndarray, p: np.ndarray, q: np.ndarray, means: np.ndarray, best: int, sigma: float
) -> tuple[float, int]:
    """Z(t) = min_{x≠x̂} Δ̂(x̂, x)²/(2σ²‖x̂ − x‖²_{A⁻¹}) and its minimiser, O(K r).

    ‖x̂ − x‖²_{A⁻¹} = q_x̂ + q_x − 2 z_xᵀ(A⁻¹z_x̂) from P and q (negative round-off clipped to 0).
    Conventions of a GLR (Garivier & Kaufmann 2016): 0 when an alternative ties or beats x̂,
    ``inf`` when σ = 0 and x̂ is strictly best, ``inf`` with one arm. The minimiser is the
    first x ≠ x̂ with the smallest Δ̂²/‖x̂ − x‖² (a gap and a norm both 0 count first, as NaN
    in ``numpy.argmin``); −1 with one arm or σ = 0.
    """
    k, r = z.shape
    if k < 2:
        return math.inf, -1
    mb = means[best]
    cross = np.dot(z, p[best])
    min_gap = np.inf
    ratio_min = np.inf
    arg = -1
    nan_arg = -1
    for i in range(k):
        if i == best:
            continue
        gap = mb - means[i]
        min_gap = min(min_gap, gap)
        norm = max(q[best] + q[i] - 2.0 * cross[i], 0.0)
        ratio = gap * gap / norm
        if ratio != ratio:  # 0/0
            if nan_arg < 0:
                nan_arg = i
        elif ratio < ratio_min or arg < 0:
            ratio_min, arg = ratio, i
    if min_gap <= 0.0:
        z_stat = 0.0
    elif sigma == 0.0:
        return math.inf, -1
    else:
        z_stat = ratio_min / (2.0 * sigma * sigma)
    if sigma <= 0.0:
        return z_stat, -1
    return z_stat, nan_arg if nan_arg >= 0 else arg


@numba.njit(cache=True, error_model="numpy")
def tas_track(cum: np.ndarray, w: np.ndarray, counts: np.ndarray) -> int:  # pragma: no cover
    """C-tracking (Garivier & Kaufmann 2016, Sec. 3.1): Σ_s w(s) += w, then argmax Σ_s w(s) − N."""
    best = 0
    top = -np.inf
    for i in range(cum.shape[0]):
        c = cum[i] + w[i]
        cum[i] = c
        v = c - counts[i]
        if v > top:
            best, top = i, v
    return best


@numba.njit(cache=True, error_model="numpy")
def _glr_term(margin: float, norm: float, two_var: float) -> float:  # pragma: no cover
    """max(b, 0)²/(2σ²‖y‖²): ``inf`` for a positive margin with ‖y‖ = 0 or σ = 0, 0/0 = 0."""
    b = max(margin, 0.0)
    num = b * b
    den = two_var * max(norm, 0.0)
    if den > 0.0:
        return num / den
    return 0.0 if num == 0.0 else math.inf


@numba.njit(cache=True, error_model="numpy")
def eps_good_statistic(  # pragma: no cover - compiled
    z: np.ndarray,
    p: np.ndarray,
    q: np.ndarray,
    means: np.ndarray,
    best: int,
    tau: float,
    s: float,
    c: float,
    sigma: float,
) -> float:
    """min_x Λ̂_x, the all-ε-good GLR statistic (Li, Ma, Hua & Zhu 2025, App. EC.2), O(|Ĝ| K r).

    Ĝ = {i : μ̂_i ≥ τ} with τ = max μ̂ − ε (s = 1, c = ε) or (1 − ε) max μ̂ (s = 1 − ε, c = 0);
    pair culprits y = a_i − s a_j (i ∈ Ĝ, j ≠ i) with margin μ̂_i − s μ̂_j + c, bad-arm culprits
    y = s a_x̂ − a_m (m ∉ Ĝ) with margin s μ̂_x̂ − μ̂_m − c, each Λ̂ = max(b, 0)²/(2σ²‖y‖²_{A⁻¹})
    from P = Z A⁻¹ and the leverages q; ``inf`` without culprits. The products a_jᵀA⁻¹a_i are
    one BLAS product over the rows of Ĝ, as :func:`bandit_envs.theory.eps_good.eps_good_glr`
    forms them (whose per-culprit statistics this minimum is, bit for bit).
    """
    k, r = z.shape
    n_good = 0
    for i in range(k):
        if means[i] >= tau:
            n_good += 1
    good_idx = np.empty(n_good, dtype=np.int64)
    n_good = 0
    for i in range(k):
        if means[i] >= tau:
            good_idx[n_good] = i
            n_good += 1
    two_var = 2.0 * sigma * sigma
    ss = s * s
    two_s = 2.0 * s
    stat = math.inf
    if n_good > 0 and k > 1:
        pg = np.empty((n_good, r))
        for a in range(n_good):
            pg[a] = p[good_idx[a]]
        cross = np.dot(pg, z.T)  # a_iᵀA⁻¹a_j, i ∈ Ĝ
        for a in range(n_good):
            i = good_idx[a]
            for j in range(k):
                if j == i:
                    continue
                norm = q[i] + ss * q[j] - two_s * cross[a, j]
                stat = min(stat, _glr_term(means[i] - s * means[j] + c, norm, two_var))
    if n_good < k:
        crossb = np.dot(z, p[best])
        lb = ss * q[best]
        mb = s * means[best]
        for m in range(k):
            if means[m] >= tau:
                continue
            norm = lb + q[m] - two_s * crossb[m]
            stat = min(stat, _glr_term(mb - means[m] - c, norm, two_var))
    return stat
