"""Transductive designs: the entry point that chooses among the solvers."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bandit_envs.theory.design._certificate import (
    LP_MAX_ENTRIES,
    TransductiveProblem,
    candidate_targets,
    lp_certificate,
    safe_exact,
)
from bandit_envs.theory.design._common import (
    DesignResult,
    check_features,
    check_init,
    information_inverse,
)
from bandit_envs.theory.design._frank_wolfe import transductive_fw
from bandit_envs.theory.design._interior_point import transductive_ip
from bandit_envs.theory.design._slsqp import (
    POLISH_MAX_ARMS,
    drop_tiny_weights,
    polish_arm_budget,
    slsqp_polish,
)

#: Solvers of :func:`transductive_design`.
METHODS = ("frank_wolfe", "interior_point")


def transductive_design(
    features: ArrayLike,
    targets: ArrayLike,
    target_weights: ArrayLike | None = None,
    *,
    tol: float = 1e-3,
    max_iter: int = 5_000,
    init: ArrayLike | None = None,
    method: str = "frank_wolfe",
    finish: bool = True,
) -> DesignResult:
    """Transductive design ``min_w max_j c_j ‖y_j‖²_{A(w)⁻¹}`` with a certified duality gap.

    This is the XY-allocation of Soare, Lazaric & Munos (2014), eq. (14) and (25), when the
    targets are the pairwise differences, and their oracle allocation and complexity ``H_LB``
    (eq. (5)–(6)) when the targets are ``x* − x`` with weights ``1/Δ_x²``. The criterion is
    convex in ``w`` (a maximum of the matrix-fractional functions ``w ↦ c_j y_jᵀA(w)⁻¹y_j``).

    Every solver certifies its result by the bound ``T* ≥ 2h_p(w) − max_k d_k(w)``, valid for
    any ``p`` in the simplex over the targets (``h_p(w) = Σ_j p_j c_j‖y_j‖²_{A(w)⁻¹}`` is convex,
    and ``d_k = Σ_j p_j c_j (x_kᵀA⁻¹y_j)²`` is minus its gradient), so ``converged`` reports
    honestly whether ``(value − lower_bound) / value ≤ tol`` was certified.

    * ``method="frank_wolfe"`` (default): Frank–Wolfe with away steps and exact line search on a
      log-sum-exp smoothing of the max (:func:`transductive_fw`), until the certified gap is
      below ``tol`` or stops halving (100 iterations). Small problems, those where a support of
      Carathéodory size fits in :data:`POLISH_MAX_ARMS` SLSQP variables
      (``min(K, r(r+1)/2 + r) ≤ 150``: every ``K ≤ 150``, any ``K`` when the rank ``r ≤ 15``),
      then get the bound re-optimised over ``p`` by a linear program and are polished by SLSQP
      on the epigraph form, after which the certificate is recomputed. Larger problems are
      finished by the interior point below, started from Frank–Wolfe's design.
    * ``method="interior_point"``: a primal–dual interior-point method on the epigraph form
      ``min t`` s.t. ``f_j(w) ≤ t`` (:func:`ip_restricted`), on working sets of targets and
      arms that grow by constraint and column generation (:func:`transductive_ip`). Its Newton
      steps cost ``O(n²r² + n³)`` for ``n`` working arms, and a few tens of them reach high
      accuracy, also where Frank–Wolfe stalls. ``init`` only chooses the starting working sets.

    Optima with tiny weights (``~1e-5``) are resolved: the polish works on the logarithm of the
    constraints, and the smoothed Frank–Wolfe steps are exact line searches. Optima where
    ``A(w)`` is singular (e.g. one target along one arm) are approached with weights of about
    ``1e-10`` left on the arms that keep ``A(w)`` invertible. Which solver runs when, and why:
    ``docs/design.md``, "Optimal designs and rounding".

    Args:
        features: Arm features ``x_k``, shape ``(K, h)``; need not span ``R^h``.
        targets: Target directions ``y_j``, shape ``(J, h)`` (or ``(h,)`` for one target). Every
            target must lie in the span of the features.
        target_weights: Non-negative weights ``c_j``, shape ``(J,)``; default all ones. Targets
            with ``c_j = 0`` (or ``y_j = 0``) are ignored.
        tol: Relative tolerance on the certified duality gap.
        max_iter: Maximum number of Frank–Wolfe iterations (and of Newton steps per
            interior-point round). Frank–Wolfe also stops early once its certified gap stops
            halving (100 iterations).
        init: Optional starting design, shape ``(K,)``, whose information matrix must be
            invertible on the span of the arms. Default: uniform.
        method: ``"frank_wolfe"`` (default) or ``"interior_point"`` (see above); ``max_iter``
            bounds the Newton steps of each interior-point round.
        finish: ``False`` returns Frank–Wolfe's design after at most ``max_iter`` iterations,
            with its certificate, without the SLSQP polish or the interior-point finish: the
            cheap warm-started update of sequential agents that re-solve often (each call
            then costs ``O(max_iter · K r J)``). Only with ``method="frank_wolfe"``.

    Returns:
        A :class:`DesignResult`; ``value = max_j c_j‖y_j‖²_{A(w)⁻¹}`` and ``lower_bound`` a
        certified lower bound on the optimum. If every target is ignorable the value is 0.

    Raises:
        ValueError: On bad shapes, non-finite or negative inputs, a target outside the span of
            the features, or a singular ``init``.
    """
    _, z, u = check_features(features)
    k, r = z.shape
    h = u.shape[0]
    y = np.asarray(targets, dtype=np.float64)
    if y.ndim == 1:
        y = y[None, :]
    if y.ndim != 2 or y.shape[1] != h or y.shape[0] < 1:
        raise ValueError(
            f"targets is expected to have shape (J, {h}) with J >= 1 (the feature dimension is "
            f"{h}). Got shape {np.shape(targets)}."
        )
    if not np.all(np.isfinite(y)):
        raise ValueError("targets must be finite; it contains NaN or inf.")
    n_targets = y.shape[0]
    if target_weights is None:
        c = np.ones(n_targets)
    else:
        c = np.asarray(target_weights, dtype=np.float64)
        if c.shape != (n_targets,):
            raise ValueError(
                f"target_weights is expected to have shape ({n_targets},). Got shape {c.shape}."
            )
        if not (np.all(np.isfinite(c)) and np.all(c >= 0)):
            raise ValueError("target_weights must be finite and non-negative.")
    if not (np.isfinite(tol) and 0 < tol < 1):
        raise ValueError(f"tol is expected in (0, 1). Got {tol!r}.")
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter is expected to be a non-negative integer. Got {max_iter!r}.")
    if method not in METHODS:
        raise ValueError(f"method is expected to be one of {METHODS}. Got {method!r}.")
    if not isinstance(finish, (bool, np.bool_)):
        raise ValueError(f"finish is expected to be True or False. Got {finish!r}.")
    if not finish and method != "frank_wolfe":
        raise ValueError(
            f"finish=False skips the finish of Frank-Wolfe; it needs method='frank_wolfe', "
            f"got method={method!r}."
        )
    yr = y @ u
    x_scale = float(np.max(np.linalg.norm(np.asarray(features, dtype=np.float64), axis=1)))
    resid = np.linalg.norm(y - yr @ u.T, axis=1)
    outside = np.flatnonzero(resid > 1e-8 * (np.linalg.norm(y, axis=1) + x_scale))
    if outside.size:
        raise ValueError(
            f"{outside.size} target(s) are not in the span of the features (first: index "
            f"{int(outside[0])}, distance {float(resid[outside[0]]):.3g}); their variance is "
            "infinite under every design. The features span a subspace of dimension "
            f"{r} < {h}; only directions inside it are estimable."
        )
    w0 = check_init(init, k)
    if w0 is None:
        w0 = np.full(k, 1.0 / k)
    elif information_inverse(z, w0) is None:
        raise ValueError(
            "init does not span the arms: its information matrix is singular on their span."
        )
    keep = (c > 0) & (np.linalg.norm(yr, axis=1) > 0)
    if not np.any(keep):
        return DesignResult(weights=w0, value=0.0, lower_bound=0.0, iterations=0, converged=True)
    prob = TransductiveProblem(z, np.ascontiguousarray(yr[keep]), c[keep])
    if method == "interior_point":
        w, value, lower, iters, converged = transductive_ip(prob, w0, tol, int(max_iter))
        return DesignResult(
            weights=w, value=value, lower_bound=lower, iterations=iters, converged=converged
        )
    polish = polish_arm_budget(k, r) <= POLISH_MAX_ARMS
    w, _, lower, iters, converged = transductive_fw(prob, w0, tol, int(max_iter), stall_window=100)
    f = safe_exact(prob, w)[1]
    value = float(f.max())
    converged = value - lower <= tol * value
    if not finish:
        return DesignResult(
            weights=w,
            value=value,
            lower_bound=min(lower, value),
            iterations=iters,
            converged=bool(converged),
        )
    if not converged and polish:
        rows = candidate_targets(f, max(50, 5 * r))
        if k * rows.size <= LP_MAX_ENTRIES:
            lower = max(lower, lp_certificate(prob, w, rows)[0])
        converged = value - lower <= tol * value
    if not converged and not polish:
        # Too large for the SLSQP polish: Frank-Wolfe stalled (its certified gap did not halve
        # in 100 iterations); finish by interior point, started from its working sets (its
        # certificate replaces the LP's, an LP over K × targets entries, too large here).
        w_ip, v_ip, lb_ip, ip_iters, _ = transductive_ip(prob, w, tol, int(max_iter), warm=True)
        iters += ip_iters
        lower = max(lower, lb_ip)
        if v_ip < value:
            w, value = w_ip, v_ip
        converged = value - lower <= tol * value
    if not converged and polish:
        w_pol, lb_pol, pol_iters = slsqp_polish(prob, w, tol)
        iters += pol_iters
        lower = max(lower, lb_pol)
        w_pol = drop_tiny_weights(prob, w_pol, 1e-9)
        f_pol = safe_exact(prob, w_pol)[1]
        if f_pol.max() <= value:
            w, f, value = w_pol, f_pol, float(f_pol.max())
        if value - lower > tol * value:
            rows = candidate_targets(f, max(50, 5 * r))
            if k * rows.size <= LP_MAX_ENTRIES:
                lower = max(lower, lp_certificate(prob, w, rows)[0])
        converged = value - lower <= tol * value
    lower = min(lower, value)
    return DesignResult(
        weights=w, value=value, lower_bound=lower, iterations=iters, converged=bool(converged)
    )
