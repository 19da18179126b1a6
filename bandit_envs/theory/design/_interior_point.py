"""Primal–dual interior point for transductive designs, on working sets of targets and arms."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import cast

import numpy as np
from numpy.typing import NDArray

from bandit_envs.theory.design._certificate import (
    TransductiveProblem,
    candidate_targets,
    safe_exact,
)
from bandit_envs.theory.design._common import FloatArray, IntArray, spanning_start

#: Most targets added to the interior-point working set per round (constraint generation).
_IP_ADD_TARGETS = 200
#: Arms in the interior-point working set at the start (all arms when ``K`` is at most this).
IP_START_ARMS = 600
#: Smallest relative tolerance of a restricted interior-point solve (round-off floor).
IP_MIN_TOL = 1e-8
#: Working-set arms whose weight is below this fraction of the largest are dropped.
_IP_KEEP_ARM = 1e-6
#: Arms added to the interior-point working set per round (column generation).
_IP_ADD_ARMS = 200
#: From this many arms in a restricted problem, the Newton matrix's ``JᵀDJ`` term is a symmetric
#: rank-``m`` update of its lower triangle (BLAS ``dsyrk``) factorised by LAPACK ``dpotrf``;
#: below, the full product and ``numpy.linalg.cholesky`` (every smaller solve bit for bit as
#: before).
IP_SYRK_MIN_ARMS = 1000


def _ip_evaluate(
    z: FloatArray, y: FloatArray, c: FloatArray, w: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray] | None:
    """``(Z R⁻¹, Y R⁻¹, f)``, ``A(w) = RᵀR`` (QR of ``diag(√w) Z``); ``None`` if singular.

    ``(Z R⁻¹)(Y R⁻¹)ᵀ`` holds ``z_kᵀA⁻¹y_j`` and ``f_j = c_j‖y_jᵀR⁻¹‖²`` (as
    :meth:`TransductiveProblem.exact`, without squaring the condition number of ``A``).
    """
    from scipy.linalg.lapack import dtrtri

    rmat = np.linalg.qr(np.sqrt(w)[:, None] * z, mode="r")
    diag = np.abs(np.diag(rmat))
    if diag.size < z.shape[1] or diag.min() <= 1e-13 * max(diag.max(), 1e-300):
        return None
    rinv, info = dtrtri(rmat)
    if info != 0:  # pragma: no cover - excluded by the diagonal check above
        return None
    zr = z @ rinv
    yr = y @ rinv
    return zr, yr, c * np.einsum("ij,ij->i", yr, yr)


def _fraction_to_boundary(v: FloatArray, dv: FloatArray, frac: float = 0.995) -> float:
    """Largest step in ``(0, 1]`` keeping ``v + step·dv`` at least ``(1 − frac)·v`` (``v > 0``)."""
    neg = dv < 0
    if not np.any(neg):
        return 1.0
    return min(1.0, frac * float(np.min(-v[neg] / dv[neg])))


def _ip_newton(
    zr: FloatArray,
    yr: FloatArray,
    c: FloatArray,
    lam: FloatArray,
    dd: FloatArray,
    jac: FloatArray,
    nu: FloatArray,
    w: FloatArray,
    symmetric: bool = False,
) -> Callable[[FloatArray, float, float], FloatArray | None]:
    """The reduced Newton system of :func:`ip_restricted` in ``(Δw, Δt, Δη)``, factorised once.

    ``[[H, −b, 1], [−bᵀ, Σ_j λ_j/s_j, 0], [1ᵀ, 0, 0]]`` with
    ``H = Σ_j λ_j∇²f_j + Jᵀ diag(λ/s) J + diag(ν/w)`` (positive definite) and ``b = Jᵀ(λ/s)``.
    With ``Z̃ = Z R⁻¹`` and ``Ỹ = Y R⁻¹`` (so ``u_kj = z̃_k·ỹ_j``), ``Σ_j λ_j∇²f_j =
    2 (Z̃Z̃ᵀ) ∘ (Z̃ M Z̃ᵀ)`` with ``M = Ỹᵀ diag(cλ) Ỹ``, and ``JᵀDJ = L_Z (L_Yᵀ diag(c²λ/s) L_Y) L_Zᵀ``
    with ``L`` the rows' ``svec(z̃ z̃ᵀ)`` (used when it is cheaper than forming ``JᵀDJ``
    directly): ``O(n² r²)`` instead of ``O(n² J')``. From :data:`IP_SYRK_MIN_ARMS` arms, or
    with ``symmetric``, ``JᵀDJ`` is a symmetric rank update of the lower triangle only (BLAS
    ``dsyrk``, half the flops) factorised by LAPACK ``dpotrf``. ``H`` is factorised by Cholesky
    after a Jacobi scaling and the two bordering rows are eliminated (LU of the whole system if
    the factorisation fails).

    Returns:
        ``solve(rhs1, rhs2, rhs3)``: the solution for one right-hand side (several solves share
        the factorisation), or ``None`` if the system is singular.
    """
    n, r = zr.shape
    m = yr.shape[0]
    hmat = 2.0 * (zr @ zr.T) * (zr @ ((yr.T * (c * lam)) @ yr) @ zr.T)
    p = r * (r + 1) // 2
    if m > 2 * p:
        iu, ju = np.triu_indices(r)
        sq = np.where(iu == ju, 1.0, math.sqrt(2.0))
        lz = zr[:, iu] * zr[:, ju] * sq
        ly = yr[:, iu] * yr[:, ju] * sq
        hmat += lz @ (((ly.T * (c * c * dd)) @ ly) @ lz.T)
    elif n >= IP_SYRK_MIN_ARMS or symmetric:
        # Only the lower triangle: a symmetric rank-m update (half the flops of the product).
        from scipy.linalg.blas import dsyrk

        hmat += dsyrk(1.0, np.sqrt(dd)[:, None] * jac, trans=1, lower=1)
    else:
        hmat += (jac.T * dd) @ jac
    hmat[np.arange(n), np.arange(n)] += nu / w
    b = jac.T @ dd
    scale = 1.0 / np.sqrt(np.maximum(np.diag(hmat), 1e-300))
    chol: FloatArray | None
    if (n >= IP_SYRK_MIN_ARMS or symmetric) and m <= 2 * p:
        from scipy.linalg.lapack import dpotrf

        chol, info = dpotrf(hmat * scale[:, None] * scale[None, :], lower=1, clean=1)
        if info != 0:
            chol = None
            hmat = np.tril(hmat) + np.tril(hmat, -1).T  # the full matrix, for the LU fallback
    else:
        try:
            chol = np.linalg.cholesky(hmat * scale[:, None] * scale[None, :])
        except np.linalg.LinAlgError:
            chol = None
    if chol is not None:
        return partial(_ip_cholesky_solve, chol, scale, b, dd)
    return partial(_ip_lu_solve, hmat, b, dd, scale)


def _ip_cholesky_solve(
    chol: FloatArray,
    scale: FloatArray,
    b: FloatArray,
    dd: FloatArray,
    rhs1: FloatArray,
    rhs2: float,
    rhs3: float,
) -> FloatArray | None:
    """Solve the system of :func:`_ip_newton` from the Cholesky factor of the scaled ``H``."""
    from scipy.linalg import cho_solve

    n = b.size
    rhs = np.column_stack([rhs1, b, np.ones(n)]) * scale[:, None]
    x = cho_solve((chol, True), rhs, check_finite=False) * scale[:, None]
    # H Δw − bΔt + 1Δη = rhs1 ⇒ Δw = x0 + x1Δt − x2Δη; then the rows of Δt and Δη.
    mat2 = np.array([[dd.sum() - b @ x[:, 1], b @ x[:, 2]], [x[:, 1].sum(), -x[:, 2].sum()]])
    try:
        dt, deta = np.linalg.solve(mat2, [rhs2 + b @ x[:, 0], rhs3 - x[:, 0].sum()])
    except np.linalg.LinAlgError:
        return None
    return np.r_[x[:, 0] + x[:, 1] * dt - x[:, 2] * deta, dt, deta]


def _ip_lu_solve(
    hmat: FloatArray,
    b: FloatArray,
    dd: FloatArray,
    scale: FloatArray,
    rhs1: FloatArray,
    rhs2: float,
    rhs3: float,
) -> FloatArray | None:
    """Solve the system of :func:`_ip_newton` by LU of the whole bordered matrix (fallback)."""
    n = b.size
    kkt = np.zeros((n + 2, n + 2))
    kkt[:n, :n] = hmat
    kkt[:n, n] = kkt[n, :n] = -b
    kkt[n, n] = dd.sum()
    kkt[:n, n + 1] = kkt[n + 1, :n] = 1.0
    full = np.r_[scale, 1.0 / math.sqrt(max(float(dd.sum()), 1e-300)), 1.0]
    try:
        sol = np.linalg.solve(kkt * full[:, None] * full[None, :], np.r_[rhs1, rhs2, rhs3] * full)
    except np.linalg.LinAlgError:
        return None
    return sol * full


def ip_restricted(
    z: FloatArray,
    y: FloatArray,
    c: FloatArray,
    w: FloatArray,
    tol: float,
    max_iter: int,
    symmetric: bool = False,
) -> tuple[FloatArray, float, FloatArray, int]:
    """Primal–dual interior point for ``min t`` s.t. ``f_j(w) ≤ t``, ``Σw = 1``, ``w ≥ 0``.

    ``f_j(w) = c_j y_jᵀA(w)⁻¹y_j`` over the arms (rows of ``z``) and targets (rows of ``y``)
    given. Slacks ``s_j = t − f_j``, multipliers ``λ_j`` (of the targets), ``ν_k`` (of
    ``w_k ≥ 0``) and ``η`` (of ``Σw = 1``); Newton steps on the perturbed KKT conditions
    ``Σ_j λ_j∇f_j − ν + η1 = 0``, ``Σλ = 1``, ``f − t + s = 0``, ``λ∘s = ν∘w = μ`` with
    ``∇f_j = −c_j (z_kᵀA⁻¹y_j)²_k`` and ``∇²f_j = 2c_j (u_j u_jᵀ) ∘ (Z A⁻¹ Zᵀ)``,
    ``u_j = Z A⁻¹ y_j``. The barrier parameter ``μ`` is decreased (``μ ← min(μ/5, μ^1.5)``)
    once the KKT error is below ``10μ`` (the monotone strategy of IPOPT, Wächter & Biegler
    2006); steps stop at 99.5% of the way to the boundary of ``w, s ≥ 0`` and ``λ, ν ≥ 0``.
    The Newton system is reduced to ``(w, t, η)`` (:func:`_ip_newton`).

    With ``symmetric`` (large problems), the Newton matrix is always the symmetric rank update
    and each step is Mehrotra's predictor–corrector (Mehrotra 1992, "On the implementation of a
    primal–dual interior point method", SIAM J. Optim. 2(4)) instead of the monotone update: the
    affine-scaling direction (target ``μ = 0``) gives ``μ_aff`` after a full step to the
    boundary, the target ``σμ`` with ``σ = (μ_aff/μ)³`` (at least ``0.1·tol``), and the
    second-order term ``Δλ_aff∘Δs_aff`` of the corrector; both solves share one factorisation.

    Returns:
        ``(w, t, λ, iterations)``: the design, the epigraph variable, the multipliers of the
        targets (non-negative, summing to about 1: the dual weights of the certificate), and
        the number of Newton steps.
    """
    n, m = z.shape[0], y.shape[0]
    ev = _ip_evaluate(z, y, c, w)
    if ev is None:
        raise np.linalg.LinAlgError(
            "internal error: the interior-point start design is singular; please report."
        )
    zr, yr, f = ev
    t = 1.1 * float(f.max())
    s = t - f
    lam = np.full(m, 1.0 / m)
    u = zr @ yr.T
    d = (u * u) @ (c * lam)
    eta = float(d.max()) + float(lam @ f)
    nu = eta - d
    mu_b = float((lam @ s + nu @ w) / (m + n))
    it = 0
    while it < max_iter:
        u = zr @ yr.T  # u[k, j] = z_kᵀA⁻¹y_j
        jac = -((u * u) * c).T  # jac[j, k] = ∂f_j/∂w_k
        r_d = jac.T @ lam - nu + eta
        r_t = 1.0 - float(lam.sum())
        r_x = f - t + s
        r_e = float(w.sum()) - 1.0
        scale = max(1.0, t)
        res = max(
            float(np.abs(r_d).max()) / max(1.0, abs(eta)),
            abs(r_t),
            float(np.abs(r_x).max()) / scale,
            abs(r_e),
        )
        mu = float((lam @ s + nu @ w) / (m + n))
        if mu <= tol * scale and res <= tol:
            break
        comp = max(float(np.abs(lam * s - mu_b).max()), float(np.abs(nu * w - mu_b).max()))
        if max(res, comp / scale) <= 10.0 * mu_b / scale:
            mu_b = max(0.1 * tol * scale, min(0.2 * mu_b, mu_b**1.5))
        it += 1
        dd = lam / s
        solve = _ip_newton(zr, yr, c, lam, dd, jac, nu, w, symmetric)
        if symmetric:
            # Mehrotra's predictor–corrector: the affine-scaling direction (target μ = 0) gives
            # the centring σ = (μ_aff/μ)³ and the second-order term of the corrector.
            comp_s = -lam * s
            comp_w = -nu * w
        else:
            comp_s = mu_b - lam * s
            comp_w = mu_b - nu * w
        rhs1 = -r_d - jac.T @ (dd * r_x) - jac.T @ (comp_s / s) + comp_w / w
        rhs2 = -(r_t - cast(float, dd @ r_x) - float((comp_s / s).sum()))  # 1-D @ 1-D: a scalar
        sol = solve(rhs1, rhs2, -r_e)
        if sol is None:
            break
        dw, dt, deta = sol[:n], float(sol[n]), float(sol[n + 1])
        dlam = dd * (jac @ dw - dt + r_x) + comp_s / s
        ds = (comp_s - s * dlam) / lam
        dnu = (comp_w - nu * dw) / w
        if symmetric:
            a_p = min(_fraction_to_boundary(w, dw, 1.0), _fraction_to_boundary(s, ds, 1.0))
            a_d = min(_fraction_to_boundary(lam, dlam, 1.0), _fraction_to_boundary(nu, dnu, 1.0))
            mu_aff = float(
                ((lam + a_d * dlam) @ (s + a_p * ds) + (nu + a_d * dnu) @ (w + a_p * dw)) / (m + n)
            )
            target = max(0.1 * tol * scale, min(1.0, max(mu_aff, 0.0) / mu) ** 3 * mu)
            comp_s = target - lam * s - dlam * ds
            comp_w = target - nu * w - dnu * dw
            rhs1 = -r_d - jac.T @ (dd * r_x) - jac.T @ (comp_s / s) + comp_w / w
            rhs2 = -(r_t - cast(float, dd @ r_x) - float((comp_s / s).sum()))
            sol = solve(rhs1, rhs2, -r_e)
            if sol is None:
                break
            dw, dt, deta = sol[:n], float(sol[n]), float(sol[n + 1])
            dlam = dd * (jac @ dw - dt + r_x) + comp_s / s
            ds = (comp_s - s * dlam) / lam
            dnu = (comp_w - nu * dw) / w
        a_p = min(_fraction_to_boundary(w, dw), _fraction_to_boundary(s, ds))
        a_d = min(_fraction_to_boundary(lam, dlam), _fraction_to_boundary(nu, dnu))
        while True:  # keep A(w) invertible (it always is for w > 0 on a spanning set)
            ev = _ip_evaluate(z, y, c, w + a_p * dw)
            if ev is not None or a_p < 1e-12:
                break
            a_p *= 0.5
        if ev is None:  # pragma: no cover - w > 0 on a spanning set keeps A(w) invertible
            break
        w, t, s = w + a_p * dw, t + a_p * dt, s + a_p * ds
        zr, yr, f = ev
        lam, nu, eta = lam + a_d * dlam, nu + a_d * dnu, eta + a_d * deta
    return w / w.sum(), t, np.maximum(lam, 0.0), it


def heaviest_arms(w: FloatArray, frac: float = 1e-3) -> NDArray[np.intp]:
    """Arms of a warm start that join a working set.

    Those of weight ``≥ frac·max``, at most the ``IP_START_ARMS // 2`` heaviest (a Frank–Wolfe
    design keeps every arm at a tiny weight).
    """
    idx = np.flatnonzero(w >= frac * float(w.max()))
    n = IP_START_ARMS // 2
    if idx.size > n:
        idx = np.sort(idx[np.argsort(-w[idx], kind="stable")[:n]])
    return idx


def next_working_arms(
    arms: IntArray,
    w_arms: FloatArray,
    w: FloatArray,
    spanning: IntArray,
    new_arms: IntArray,
    d: FloatArray,
    keep_frac: float,
) -> tuple[IntArray, FloatArray]:
    """Column generation's next working set of arms, and its warm start.

    Keeps the arms that carry weight (at least ``keep_frac`` times the largest) and a spanning
    set, and adds up to :data:`_IP_ADD_ARMS` of the priced-in arms ``new_arms`` by decreasing
    score ``d``; an arm dropped here comes back if it is priced in later. The start is the
    current design ``w`` on the new set, moved strictly inside the simplex.
    """
    keep = arms[w_arms >= keep_frac * float(w_arms.max())]
    arms = np.union1d(
        np.union1d(keep, spanning),
        new_arms[np.argsort(-d[new_arms], kind="stable")][:_IP_ADD_ARMS],
    )
    start = w[arms] + 1e-3 / arms.size
    return arms, start / start.sum()


def transductive_ip(
    prob: TransductiveProblem,
    w0: FloatArray,
    tol: float,
    max_iter: int,
    max_rounds: int = 50,
    warm: bool = False,
) -> tuple[FloatArray, float, float, int, bool]:
    """Interior point with working sets of targets and arms, and a certified duality gap.

    Each round solves the problem restricted to a working set of targets and of arms by
    :func:`ip_restricted`, then checks every target (constraint generation: targets above the
    restricted optimum join) and every arm (column generation: arms with ``d_k > h_p`` would
    improve the design, ``p`` = the restricted multipliers). The certificate is the one of
    :func:`transductive_fw`, ``T* ≥ 2h_p(w) − max_k d_k(w)`` over all arms, with ``p`` the
    multipliers (zero outside the working set); at the optimum it is tight. The criterion is
    rescaled to be of order 1 at ``w0``, so that the interior point's tolerances are relative.
    With ``warm``, the support of ``w0`` joins the first working set of arms and the first
    restricted solve starts from ``w0`` (otherwise from uniform weights on the working set).

    Returns:
        ``(best_w, best_value, best_lower_bound, iterations, converged)``.
    """
    z = prob.z
    k, r = z.shape
    n_targets = prob.y.shape[0]
    inv, f0 = safe_exact(prob, w0)
    scale = float(f0.max())
    c = prob.c / scale
    scaled = TransductiveProblem(z, prob.y, c)
    f0 = f0 / scale
    rows = (
        np.arange(n_targets)
        if n_targets <= _IP_ADD_TARGETS
        else candidate_targets(f0, max(30, 3 * r), frac=0.5, n_max=_IP_ADD_TARGETS)
    )
    spanning = np.flatnonzero(spanning_start(z) > 0)
    if k <= IP_START_ARMS:
        arms = np.arange(k)
    else:
        q0 = np.zeros(n_targets)
        q0[rows] = f0[rows] / f0[rows].sum()
        d0 = scaled.scores(inv, q0 * c)
        top = np.argpartition(-d0, IP_START_ARMS // 2)[: IP_START_ARMS // 2]
        arms = np.union1d(spanning, top)
        if warm:
            arms = np.union1d(arms, heaviest_arms(w0))
    best_w, best_val, best_lb = w0, math.inf, 0.0
    total = 0
    inner_tol = max(IP_MIN_TOL, 0.1 * tol)
    if warm:
        w_arms = w0[arms] + 1e-3 / arms.size
        w_arms /= w_arms.sum()
    else:
        w_arms = np.full(arms.size, 1.0 / arms.size)
    converged = False
    for _ in range(max_rounds):
        w_arms, t, lam, its = ip_restricted(
            z[arms], prob.y[rows], c[rows], w_arms, inner_tol, max_iter
        )
        total += its
        w = np.zeros(k)
        w[arms] = w_arms
        inv, f = safe_exact(scaled, w)
        value = float(f.max())
        if value < best_val:
            best_w, best_val = w, value
        p = np.zeros(n_targets)
        p[rows] = lam / lam.sum()
        hp = float(p @ f)
        d = scaled.scores(inv, p * c)
        best_lb = max(best_lb, 2.0 * hp - float(d.max()))
        if best_val - best_lb <= tol * best_val:
            converged = True
            break
        new_rows = np.setdiff1d(np.flatnonzero(f > t * (1.0 + 0.1 * tol)), rows)
        new_arms = np.setdiff1d(np.flatnonzero(d > hp * (1.0 + 0.1 * tol)), arms)
        if new_rows.size == 0 and new_arms.size == 0:
            if inner_tol <= IP_MIN_TOL:
                break
            inner_tol = max(IP_MIN_TOL, 0.1 * inner_tol)  # the restricted solve was too rough
        rows = np.union1d(rows, new_rows[np.argsort(-f[new_rows], kind="stable")][:_IP_ADD_TARGETS])
        arms, w_arms = next_working_arms(arms, w_arms, w, spanning, new_arms, d, _IP_KEEP_ARM)
    return best_w, best_val * scale, min(best_lb, best_val) * scale, total, converged
