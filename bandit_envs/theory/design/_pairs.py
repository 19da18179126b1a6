"""XY designs by pair generation: the pairwise differences are scanned in blocks, never stored."""

from __future__ import annotations

import math

import numpy as np

from bandit_envs.theory.design._common import FloatArray, IntArray, spanning_start
from bandit_envs.theory.design._interior_point import (
    IP_MIN_TOL,
    IP_START_ARMS,
    heaviest_arms,
    ip_restricted,
    next_working_arms,
)

#: Rows of arms per block of :func:`pair_scan` (a block holds ``_PAIR_BLOCK × K`` values).
_PAIR_BLOCK = 256
#: From this many arms, :func:`pair_scan` screens the pairs in float32 (with a rigorous margin);
#: below, in float64 (every design on the library's standard instances, bit for bit as before).
SCAN_FLOAT32_MIN_ARMS = 2000


#: Pairs added to the working set per round of :func:`xy_pair_generation`.
_XY_ADD_PAIRS = 200
#: Arms whose weight is below this fraction of the largest leave the pair-generation working set.
_XY_KEEP_ARM = 1e-3
#: From this many arms, every restricted solve of :func:`xy_pair_generation` forms its Newton
#: matrix by the symmetric rank update (``ip_restricted``'s ``symmetric``), whatever the size of
#: the working set, and a warm start's first working sets are those of a near-optimal design
#: (:func:`xy_pair_generation`); below, as :func:`ip_restricted` decides and with the cold
#: working sets (bit for bit as before).
XY_SYRK_MIN_ARMS = 2000
#: From :data:`XY_SYRK_MIN_ARMS` arms, a warm start's first working set of pairs is the pairs
#: within this fraction of the largest at the start design (at most :data:`_XY_WARM_PAIRS`).
_XY_WARM_FRAC = 0.99
#: Most pairs in a warm start's first working set (from :data:`XY_SYRK_MIN_ARMS` arms).
_XY_WARM_PAIRS = 1000


def _whitened(z: FloatArray, w: FloatArray) -> FloatArray:
    """Coordinates ``V = Z R⁻¹`` with ``A(w) = RᵀR``, so that ``‖y‖²_{A(w)⁻¹} = ‖yᵀR⁻¹‖²``.

    From the QR factorisation of ``diag(√w) Z`` (as :meth:`TransductiveProblem.exact`); if ``A(w)``
    is numerically singular, from its eigendecomposition with eigenvalues floored at
    ``1e-15·λ_max`` (as :func:`stable_inverse`).
    """
    from scipy.linalg.lapack import dtrtri

    rmat = np.linalg.qr(np.sqrt(w)[:, None] * z, mode="r")
    diag = np.abs(np.diag(rmat))
    if diag.size == z.shape[1] and diag.min() > 1e-8 * max(diag.max(), 1e-300):
        rinv, info = dtrtri(rmat)
        if info == 0:
            return np.ascontiguousarray(z @ rinv)
    m = (z.T * w) @ z
    evals, evecs = np.linalg.eigh(0.5 * (m + m.T))
    floor = max(float(evals[-1]), np.finfo(float).tiny) * 1e-15
    return np.ascontiguousarray(z @ (evecs / np.sqrt(np.maximum(evals, floor))))


def pair_scan(
    v: FloatArray, floor: float, frac: float, cap: int
) -> tuple[float, IntArray, IntArray, FloatArray]:
    """The largest ``‖v_i − v_j‖²`` over all pairs ``i < j``, and the pairs above a threshold.

    The ``K(K−1)/2`` values are never stored: blocks of :data:`_PAIR_BLOCK` rows are compared
    with the rows after them by one matrix product of the augmented coordinates
    ``[v_i, ‖v_i‖², 1]·[−2v_j, 1, ‖v_j‖²] = ‖v_i − v_j‖²`` (``O(K²r)`` flops in BLAS, ``O(K)``
    memory per block row); the pairs at or above a threshold are kept. The values of the kept
    pairs are recomputed from the differences in float64, so the maximum and the selection are
    those of the exact values, provided the screen's margin bounds the products' rounding error:

    * below :data:`SCAN_FLOAT32_MIN_ARMS` rows, float64 products; their error is at most about
      ``(r + 2)·ε·(‖v_i‖² + ‖v_j‖²)`` and the margin is 16 times that bound;
    * from :data:`SCAN_FLOAT32_MIN_ARMS` rows, a float32 screen (half the bytes and twice the
      BLAS rate of the float64 products, which are the scan's whole cost at 10⁴ arms) on the
      coordinates centred at their mean (the differences do not change; the norms, hence the
      error, shrink). With ``u = 2⁻²⁴``, rounding the ``r + 2`` entries of both factors to
      float32 and summing in any order errs by at most ``((r + 2)u/(1 − (r + 2)u) + 2u + u²)``
      times ``Σ_k |ℓ_k ρ_k| ≤ 2(‖v_i‖² + ‖v_j‖²) ≤ 4 max ‖v‖²`` (Higham 2002, Accuracy and
      Stability of Numerical Algorithms, Lemma 3.1 and eq. (3.5)); the margin is twice that
      bound, and is subtracted twice from the running maximum (screened value of the largest
      pair ``≥`` its exact value − margin ``≥`` any exact value − margin ``≥`` any screened
      value − 2·margin), so the largest pair and every pair above the threshold are kept.

    Args:
        v: Whitened arm coordinates (:func:`_whitened`), shape ``(K, r)``.
        floor: Keep pairs with a value ``≥ floor`` …
        frac: … and ``≥ frac`` times the maximum.
        cap: Keep at most this many pairs (the largest).

    Returns:
        ``(max_value, i, j, values)`` with the kept pairs sorted by decreasing value
        (ties: increasing ``(i, j)``).
    """
    k, r = v.shape
    if k >= SCAN_FLOAT32_MIN_ARMS:
        vc = v - v.mean(axis=0)
        sq = np.einsum("ij,ij->i", vc, vc)
        left = np.hstack([vc, sq[:, None], np.ones((k, 1))]).astype(np.float32)
        right = np.hstack([-2.0 * vc, np.ones((k, 1)), sq[:, None]]).astype(np.float32)
        u = float(np.finfo(np.float32).eps) / 2.0
        n = r + 2
        gamma = n * u / (1.0 - n * u) + 2.0 * u + u * u
        # Twice the bound (the margin), subtracted twice from the threshold.
        screen = 2.0 * (2.0 * gamma * 4.0 * float(sq.max(initial=0.0)))
    else:
        sq = np.einsum("ij,ij->i", v, v)
        left = np.hstack([v, sq[:, None], np.ones((k, 1))])
        right = np.hstack([-2.0 * v, np.ones((k, 1)), sq[:, None]])
        screen = 16.0 * (r + 2) * np.finfo(float).eps * 2.0 * float(sq.max(initial=0.0))
    running = -math.inf
    found_i: list[IntArray] = []
    found_j: list[IntArray] = []
    for start in range(0, k - 1, _PAIR_BLOCK):
        stop = min(k, start + _PAIR_BLOCK)
        block = left[start:stop] @ right[start:].T
        block[np.tril_indices(stop - start)] = -math.inf  # j <= i
        flat = block.ravel()
        running = max(running, float(flat.max()))
        thr = min(max(floor, frac * running), running) - screen  # the maximum is always kept
        thr_b = flat.dtype.type(thr)  # in the block's precision, never above thr
        if thr_b > thr:
            thr_b = np.nextafter(thr_b, flat.dtype.type(-math.inf))
        idx = np.flatnonzero(flat >= thr_b)
        if idx.size > cap:
            idx = idx[np.argpartition(-flat[idx], cap - 1)[:cap]]
        bi, bj = np.divmod(idx, block.shape[1])
        found_i.append(bi + start)
        found_j.append(bj + start)
    ii = np.concatenate(found_i) if found_i else np.zeros(0, dtype=np.int64)
    jj = np.concatenate(found_j) if found_j else np.zeros(0, dtype=np.int64)
    diff = v[ii] - v[jj]
    vals = np.einsum("ij,ij->i", diff, diff)
    top = float(vals.max(initial=0.0))
    keep = vals >= max(floor, frac * top)
    ii, jj, vals = ii[keep], jj[keep], vals[keep]
    order = np.lexsort((jj, ii, -vals))[:cap]
    return top, ii[order].astype(np.int64), jj[order].astype(np.int64), vals[order]


def _pair_scores(v: FloatArray, diff: FloatArray, q: FloatArray) -> FloatArray:
    """``d_k = Σ_j q_j (v_k·ṽ_j)²`` (:meth:`TransductiveProblem.scores` in whitened coordinates)."""
    m = (diff.T * q) @ diff
    return np.maximum(((v @ m) * v).sum(axis=1), 0.0)


def xy_pair_generation(
    z: FloatArray,
    w0: FloatArray,
    tol: float,
    max_iter: int,
    warm: bool,
    max_rounds: int = 50,
    among: IntArray | None = None,
    spanning: IntArray | None = None,
    near_optimal: bool = False,
) -> tuple[FloatArray, float, float, int, bool]:
    """XY design by interior point on working sets of pairs and of arms (pairs never stored).

    The loop of :func:`transductive_ip` with the targets ``z_i − z_j`` (``i < j``) generated
    on demand: each round solves the problem restricted to a working set of pairs and of arms
    by :func:`ip_restricted`, then scans all pairs at the new design (:func:`pair_scan`,
    ``O(K²r)`` time, ``O(K)`` memory per block) for the value and for violators (pairs above the
    restricted optimum join, at most :data:`_XY_ADD_PAIRS` per round), and prices all arms
    (``d_k > h_p`` joins). The certificate is the one of :func:`transductive_fw` with ``p`` the
    restricted multipliers: ``T* ≥ 2h_p(w) − max_k d_k(w)`` (restricting the targets can only
    lower the optimum, so the bound holds for all pairs). With ``warm``, the start design's
    support joins the first working set of arms and the first restricted solve starts from it.

    With ``among`` (sorted arm indices), the targets are the pairs of those arms only: the scans
    run on their whitened coordinates and the pairs are mapped back to arm indices, while the
    design, the pricing of arms and the certificate stay over all ``K`` arms.

    ``near_optimal`` says that ``w0`` is a caller's start, such as the optimum on nearby
    features: from :data:`XY_SYRK_MIN_ARMS` arms, the first working sets are then the pairs
    within 1% of the largest and the arms of weight at least :data:`_XY_KEEP_ARM` times the
    largest (the likely active pairs and support of the optimum).

    ``spanning`` (the support of :func:`spanning_start` on ``z``, always kept in the working
    set of arms) is computed here unless the caller already has it.

    Returns:
        ``(best_w, best_value, best_lower_bound, iterations, converged)``.
    """
    k, r = z.shape

    def scan(
        v: FloatArray, floor: float, frac: float, cap: int = _XY_ADD_PAIRS
    ) -> tuple[float, IntArray, IntArray, FloatArray]:
        if among is None:
            return pair_scan(v, floor, frac, cap)
        top, si, sj, sf = pair_scan(v[among], floor, frac, cap)
        return top, among[si], among[sj], sf  # among is sorted: among[si] < among[sj]

    large = k >= XY_SYRK_MIN_ARMS
    v = _whitened(z, w0)
    if near_optimal and large:
        top, pi, pj, pf = scan(v, 0.0, _XY_WARM_FRAC, _XY_WARM_PAIRS)
    else:
        top, pi, pj, pf = scan(v, 0.0, 0.5)
    if top <= 0.0:  # all (target) arms coincide: every difference is 0
        return w0, 0.0, 0.0, 0, True
    scale = top
    c = 1.0 / scale
    keys = pi * k + pj
    if spanning is None:
        spanning = np.flatnonzero(spanning_start(z) > 0)
    if k <= IP_START_ARMS:
        arms = np.arange(k)
    else:
        d0 = _pair_scores(v, v[pi] - v[pj], pf / pf.sum() * c)
        arms = np.argpartition(-d0, IP_START_ARMS // 2)[: IP_START_ARMS // 2]
        arms = np.union1d(spanning, arms)
        if near_optimal and large:
            arms = np.union1d(arms, np.flatnonzero(w0 >= _XY_KEEP_ARM * float(w0.max())))
        elif warm:
            arms = np.union1d(arms, heaviest_arms(w0))
    if warm:
        w_arms = w0[arms] + 1e-3 / arms.size
    else:
        w_arms = np.full(arms.size, 1.0 / arms.size)
    w_arms = w_arms / w_arms.sum()
    best_w, best_val, best_lb = w0, math.inf, 0.0
    total = 0
    # The restricted solve stops at an average complementarity μ ≤ tol_in (scaled problem):
    # its duality gap is (#pairs + #arms)·μ, so tol_in is divided by that count. Early rounds,
    # far from the answer (large certified gap), are solved roughly.
    rel_gap, tighten = 1.0, 1.0
    converged = False
    for _ in range(max_rounds):
        keys = np.sort(keys)
        pi, pj = keys // k, keys % k
        y = z[pi] - z[pj]
        inner_tol = max(IP_MIN_TOL, 0.1 * tighten * max(tol, rel_gap) / (keys.size + arms.size))
        w_arms, t, lam, its = ip_restricted(
            z[arms], y, np.full(keys.size, c), w_arms, inner_tol, max_iter, large
        )
        total += its
        w = np.zeros(k)
        w[arms] = w_arms
        v = _whitened(z, w)
        top, vi, vj, vf = scan(v, t * (1.0 + 0.1 * tol) * scale, 0.0)
        value = top * c
        if value < best_val:
            best_w, best_val = w, value
        diff = v[pi] - v[pj]
        f_rows = np.einsum("ij,ij->i", diff, diff) * c
        p = lam / lam.sum()
        hp = float(p @ f_rows)
        d = _pair_scores(v, diff, p * c)
        best_lb = max(best_lb, 2.0 * hp - float(d.max()))
        rel_gap = (best_val - best_lb) / best_val
        if rel_gap <= tol:
            converged = True
            break
        new_keys = np.setdiff1d(vi * k + vj, keys)  # violators, at most _XY_ADD_PAIRS
        new_arms = np.setdiff1d(np.flatnonzero(d > hp * (1.0 + 0.1 * tol)), arms)
        if new_keys.size == 0 and new_arms.size == 0:
            if inner_tol <= IP_MIN_TOL:
                break
            tighten *= 0.1  # the restricted solve was too rough
        keys = np.union1d(keys, new_keys)
        arms, w_arms = next_working_arms(arms, w_arms, w, spanning, new_arms, d, _XY_KEEP_ARM)
    return best_w, best_val * scale, min(best_lb, best_val) * scale, total, converged
