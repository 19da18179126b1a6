"""G-optimal designs: Wolfe–Atwood (Frank–Wolfe with away steps) and an active-set Newton method."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from bandit_envs.theory.design._common import (
    DesignResult,
    FloatArray,
    IntArray,
    arm_leverages,
    check_features,
    check_init,
    information_inverse,
    require_inverse,
    spanning_start,
)


def wolfe_atwood(
    z: FloatArray,
    w: FloatArray,
    r: int,
    tol: float,
    max_iter: int,
    refresh_every: int = 250,
) -> tuple[FloatArray, int, bool]:
    """Frank–Wolfe with exact line search and away steps for D-optimality on the rows of ``z``.

    Maximises ``log det A(w)``; the gradient is ``g_k = z_kᵀA(w)⁻¹z_k`` with ``Σ_k w_k g_k = r``.
    Toward step to ``j = argmax g`` (Fedorov–Wynn step ``t = (g_j − r)/(r(g_j − 1))``), away step
    from the support arm ``i = argmin g`` (step from the same formula, clipped at the drop step
    ``t = −w_i/(1 − w_i)``), whichever has the larger relative violation (Wolfe 1970; Atwood 1973;
    linear convergence: Ahipaşaoğlu, Sun & Todd 2008). ``A⁻¹`` and ``g`` are updated by
    Sherman–Morrison in ``O(K r)`` per iteration and recomputed exactly every
    ``refresh_every`` iterations and before convergence is declared.

    Returns:
        ``(w, iterations, converged)`` where converged means ``max g ≤ r(1 + tol)`` (exact check).
    """
    bound = r * (1.0 + tol)
    inv = require_inverse(z, w)
    g = arm_leverages(z, inv)
    it = 0
    while True:
        if it % refresh_every == 0 and it > 0:
            inv = require_inverse(z, w)
            g = arm_leverages(z, inv)
        j = int(np.argmax(g))
        gmax = float(g[j])
        if gmax <= bound:
            inv = require_inverse(z, w)
            g = arm_leverages(z, inv)
            j = int(np.argmax(g))
            gmax = float(g[j])
            if gmax <= bound:
                return w, it, True
        if it >= max_iter:
            return w, it, False
        it += 1
        supp = np.flatnonzero(w > 0.0)
        i = int(supp[np.argmin(g[supp])])
        gmin = float(g[i])
        drop = False
        if gmax / r - 1.0 >= 1.0 - gmin / r or w[i] >= 1.0 - 1e-15:
            k, t = j, (gmax - r) / (r * (gmax - 1.0))
        else:
            k = i
            tmin = -w[i] / (1.0 - w[i])
            t = (gmin - r) / (r * (gmin - 1.0)) if gmin > 1.0 else tmin
            if t <= tmin:
                t, drop = tmin, True
        gk = float(g[k])
        u = inv @ z[k]
        s = t / (1.0 - t)
        c = s / (1.0 + s * gk)
        inv = (inv - c * np.outer(u, u)) / (1.0 - t)
        zu = z @ u
        g = np.maximum((g - c * zu * zu) / (1.0 - t), 0.0)
        w *= 1.0 - t
        if drop:
            w[k] = 0.0
        else:
            w[k] += t
        w /= w.sum()


#: Largest support of an ``init`` that :func:`g_optimal_design` refines by Newton steps directly
#: (a larger one is first thinned by Wolfe–Atwood, as a cold start).
_NEWTON_MAX_SUPPORT = 1500
#: Most arms entering the Newton free set per step (in units of the rank ``r``; at least 1).
_NEWTON_ADD_FRACTION = 0.5


def _newton_d_optimal(
    z: FloatArray, w: FloatArray, r: int, tol: float, max_steps: int
) -> tuple[FloatArray, int, bool]:
    """Active-set Newton method for D-optimality on the rows of ``z`` (warm starts).

    Maximises ``log det A(w)`` over the simplex. On a free set ``F`` (the support, plus arms
    violating ``g_k ≤ r(1 + tol)``, at most ``max(1, r/2)`` per step) the Newton direction
    with ``Σ_F d = 0`` has a closed form: the Hessian is ``−M`` with ``M = (Z_F A⁻¹ Z_Fᵀ)∘²``
    and ``M w = g`` (``g_k = z_kᵀA⁻¹z_k``), so ``d = w − ν M⁻¹1`` with ``ν = 1/(1ᵀM⁻¹1)``, and
    the squared Newton decrement is ``r − ν``. Arms of ``F`` at weight 0 whose direction is not
    positive leave ``F``. ``log det`` is self-concordant: the step is damped to
    ``1/(1 + λ)`` while ``λ ≥ 1/4`` (Nesterov & Nemirovskii), then full, and cut at the first
    weight that reaches 0 (that arm leaves the support). Near the optimum the convergence is
    quadratic, where Wolfe–Atwood's is linear with a rate that degrades with the support size.

    Returns:
        ``(w, steps, converged)``; converged means ``max g ≤ r(1 + tol)`` on these rows. Not
        converged (singular system, no progress, or ``max_steps``) leaves the caller to fall
        back to :func:`wolfe_atwood` from the returned ``w``.
    """
    from scipy.linalg import cho_factor, cho_solve

    bound = r * (1.0 + tol)
    n_add = max(1, int(_NEWTON_ADD_FRACTION * r))
    steps = 0
    while True:
        inv = information_inverse(z, w)
        if inv is None:
            return w, steps, False
        g = arm_leverages(z, inv)
        if float(g.max()) <= bound:
            return w, steps, True
        if steps >= max_steps:
            return w, steps, False
        steps += 1
        free = np.flatnonzero(w > 0.0)
        out = np.flatnonzero((g > bound) & (w <= 0.0))
        if out.size:
            free = np.union1d(free, out[np.argsort(-g[out], kind="stable")][:n_add])
        while True:
            zf = z[free]
            gram = (zf @ inv) @ zf.T
            m = gram * gram
            m[np.diag_indices_from(m)] += 1e-13 * float(np.trace(m)) / free.size
            try:
                b = cho_solve(cho_factor(m, check_finite=False), np.ones(free.size))
            except np.linalg.LinAlgError:
                return w, steps, False
            if not (np.all(np.isfinite(b)) and b.sum() > 0.0):
                return w, steps, False
            nu = 1.0 / float(b.sum())
            d = w[free] - nu * b
            entering = (w[free] <= 0.0) & (d <= 0.0)
            if not np.any(entering):
                break
            free = free[~entering]
        lam = math.sqrt(max(r - nu, 0.0))
        alpha = 1.0 if lam < 0.25 else 1.0 / (1.0 + lam)
        w_new = w.copy()
        w_new[free] += alpha * d
        if np.any(w_new[free] < 0.0):
            # Projected step (every arm that would go negative leaves at once), kept if it
            # increases log det; otherwise the step is cut at the first weight reaching 0.
            proj = np.maximum(w_new, 0.0)
            proj /= proj.sum()
            if _log_det(z, proj) >= _log_det(z, w):
                w_new = proj
            else:
                neg = np.flatnonzero(d < 0.0)
                ratios = -w[free[neg]] / d[neg]
                first = int(np.argmin(ratios))
                alpha = float(ratios[first])
                if alpha <= 0.0:
                    return w, steps, False
                w_new = w.copy()
                w_new[free] += alpha * d
                w_new[free[neg[first]]] = 0.0
        w = np.maximum(w_new, 0.0)
        w /= w.sum()


def _log_det(z: FloatArray, w: FloatArray) -> float:
    """``log det A(w)`` (``-inf`` if singular)."""
    sign, logdet = np.linalg.slogdet((z.T * w) @ z)
    return float(logdet) if sign > 0 else -math.inf


def _newton_working_set(g: FloatArray, w: FloatArray, r: int, bound: float) -> IntArray:
    """The arms of a restricted Newton solve of the G design, sorted.

    They are the support of ``w``, the violators (leverage ``g > bound``) and the
    ``max(4r, 2·|support|)`` largest leverages.
    """
    k = g.size
    n_extra = min(k, max(4 * r, 2 * int(np.count_nonzero(w))))
    top = np.argpartition(-g, n_extra - 1)[:n_extra] if n_extra < k else np.arange(k)
    ws = np.zeros(k, dtype=bool)
    ws[top] = True
    ws |= w > 0
    ws |= g > bound
    return np.flatnonzero(ws)


def _g_warm(
    z: FloatArray, w: FloatArray, tol: float, max_iter: int
) -> tuple[FloatArray, int, bool]:
    """G-optimal design from a warm start: working sets solved by :func:`_newton_d_optimal`.

    Each round takes the working set of :func:`g_optimal_design` (support, violators, largest
    leverages), refines it by Newton steps (falling back to Wolfe–Atwood if they stall) and
    checks every arm exactly. Returns ``(w, iterations, converged)``.
    """
    k, r = z.shape
    bound = r * (1.0 + tol)
    total = 0
    if np.count_nonzero(w) > _NEWTON_MAX_SUPPORT:  # e.g. a uniform init: thin it first
        w, total, _ = wolfe_atwood(z, w, r, max(tol, 1e-2), max_iter)
    while True:
        g = arm_leverages(z, require_inverse(z, w))
        if g.max() <= bound:
            return w, total, True
        if total >= max_iter:
            return w, total, False
        idx = _newton_working_set(g, w, r, bound)
        sub_w, its, ok = _newton_d_optimal(z[idx], w[idx].copy(), r, tol, max_iter - total)
        total += its
        if not ok and total < max_iter:
            sub_w, its, _ = wolfe_atwood(z[idx], sub_w, r, tol, max_iter - total)
            total += its
        w = np.zeros(k)
        w[idx] = sub_w


def g_optimal_design(
    features: ArrayLike,
    *,
    tol: float = 1e-6,
    max_iter: int = 10_000,
    init: ArrayLike | None = None,
) -> DesignResult:
    """G-optimal design ``argmin_w max_k x_kᵀ A(w)⁻¹ x_k``.

    The G-allocation of Soare, Lazaric & Munos (2014), eq. (12), in the continuous form of their
    eq. (21) (App. C). By the Kiefer–Wolfowitz theorem (their Prop. 3, App. B.1) the G-optimal and
    D-optimal designs coincide and the optimal value is the rank ``r`` of the features; for any
    design ``max_k x_kᵀA(w)⁻¹x_k ≥ r``. The D-optimal design is computed by Frank–Wolfe with exact
    line search and away steps (Fedorov–Wynn / Wolfe–Atwood). For large ``K`` the solver works on a
    working set (current support plus the arms with the largest leverages), and checks every arm
    exactly before declaring convergence; arms violating the bound are added to the working set.

    Warm starts: with ``init`` (e.g. a previous solution restricted to the arms that survive an
    elimination, or the solution of a nearby problem) the working sets are solved by an
    active-set Newton method (:func:`_newton_d_optimal`), which converges quadratically near
    the optimum; an ``init`` with more than :data:`_NEWTON_MAX_SUPPORT` support points is first
    thinned by Wolfe–Atwood. Without ``init`` the solver is Wolfe–Atwood throughout
    (``docs/design.md``, "Optimal designs and rounding", says why).

    Args:
        features: Arm features, shape ``(K, h)``; need not span ``R^h`` (the design is computed
            in the span, with ``A(w)⁻¹`` the inverse on the span).
        tol: Relative tolerance: stop once ``max_k x_kᵀA(w)⁻¹x_k ≤ r(1 + tol)``. This certifies
            G-efficiency ``≥ 1/(1 + tol)``.
        max_iter: Maximum number of iterations (Frank–Wolfe iterations and Newton steps, all
            phases together).
        init: Optional starting design, shape ``(K,)`` (normalised; its support must span the
            arms): a warm start, see above. Default: uniform on ``r`` well-spread arms chosen
            by pivoted Gram–Schmidt.

    Returns:
        A :class:`DesignResult` with ``value = max_k x_kᵀA(w)⁻¹x_k`` and ``lower_bound = r``.

    Raises:
        ValueError: On invalid features, tolerance, iteration count or ``init``.
    """
    _, z, _ = check_features(features)
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol is expected to be > 0. Got {tol!r}.")
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter is expected to be a non-negative integer. Got {max_iter!r}.")
    k, r = z.shape
    w = check_init(init, k)
    if w is None:
        w = spanning_start(z)
    elif information_inverse(z, w) is None:
        raise ValueError("init does not span the arms: its information matrix is singular.")
    else:
        w, total, converged = _g_warm(z, w, tol, max_iter)
        return _g_result(z, w, r, tol, total, converged)
    # Working-set strategy: the tail of the Frank-Wolfe iterations only involves arms with large
    # leverage, so iterate on those and re-check all arms exactly.
    bound = r * (1.0 + tol)
    total = 0
    converged = False
    phase_tol = max(tol, 1e-2) if k > 8 * r else tol
    w, its, _ = wolfe_atwood(z, w, r, phase_tol, max_iter)
    total += its
    while True:
        g = arm_leverages(z, require_inverse(z, w))
        if g.max() <= bound:
            converged = True
            break
        if total >= max_iter:
            break
        idx = _newton_working_set(g, w, r, bound)
        if idx.size == k:
            w, its, converged = wolfe_atwood(z, w, r, tol, max_iter - total)
            total += its
            break
        sub_w, its, _ = wolfe_atwood(z[idx], w[idx].copy(), r, tol, max_iter - total)
        total += its
        w = np.zeros(k)
        w[idx] = sub_w
    return _g_result(z, w, r, tol, total, converged)


def _g_result(
    z: FloatArray, w: FloatArray, r: int, tol: float, total: int, converged: bool
) -> DesignResult:
    """The :class:`DesignResult` of a G-optimal solve (value recomputed exactly)."""
    value = float(arm_leverages(z, require_inverse(z, w)).max())
    return DesignResult(
        weights=w,
        value=value,
        lower_bound=float(r),
        iterations=total,
        converged=bool(converged and value <= r * (1.0 + tol)),
    )
