"""SLSQP polish of small transductive designs (epigraph form, working sets of targets and arms)."""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray

from bandit_envs.theory.design._certificate import (
    LP_MAX_ENTRIES,
    TransductiveProblem,
    candidate_targets,
    lp_certificate,
    safe_exact,
)
from bandit_envs.theory.design._common import FloatArray, spanning_start, stable_inverse

#: Largest working set of arms for the SLSQP polish. SLSQP's cost per iteration grows like the cube
#: of the number of variables (``docs/performance.md`` has the measurements), so problems whose
#: optimal support may exceed this (rank ``r`` with ``r(r+1)/2 + r`` above it) and that have more
#: arms are left to Frank–Wolfe alone.
POLISH_MAX_ARMS = 150


def polish_arm_budget(k: int, r: int) -> int:
    """Initial number of arms in the polish working set (enough for a Carathéodory support).

    An optimal design needs at most ``r(r+1)/2 + 1`` support points (Carathéodory's theorem;
    Soare, Lazaric & Munos 2014, App. C, Remark 1).
    """
    return min(k, max(2 * r, r * (r + 1) // 2 + r))


def _slsqp_epigraph(
    prob: TransductiveProblem,
    arms: NDArray[np.intp],
    rows: NDArray[np.intp],
    w_start: FloatArray,
    lower: float,
    maxiter: int = 1000,
) -> tuple[FloatArray, int]:
    """SLSQP on ``min s`` s.t. ``log f_j(w) ≤ s`` (``j ∈ rows``), ``Σw = 1``, ``w ≥ lower``.

    The variables are the weights of ``arms`` and ``s``.

    Returns:
        The design (on all ``K`` arms, zero outside ``arms``) and the number of iterations.
    """
    from scipy.optimize import minimize

    z = prob.z[arms]
    y = prob.y[rows]
    c = prob.c[rows]
    n = arms.shape[0]
    cache: dict[str, object] = {}

    def evaluate(x: FloatArray) -> tuple[FloatArray, FloatArray]:
        key = x.tobytes()
        if cache.get("key") != key:
            inv = stable_inverse(z, np.maximum(x[:n], 0.0))
            fv = c * np.maximum(((y @ inv) * y).sum(axis=1), 1e-300)
            cache.update(key=key, val=(fv, z @ inv @ y.T))
        return cache["val"]  # type: ignore[return-value]

    def cons(x: FloatArray) -> FloatArray:
        return x[n] - np.log(evaluate(x)[0])

    def cons_jac(x: FloatArray) -> FloatArray:
        fv, v = evaluate(x)
        jac = np.empty((rows.shape[0], n + 1))
        jac[:, :n] = (c * v * v).T / fv[:, None]
        jac[:, n] = 1.0
        return jac

    x0 = np.r_[np.clip(w_start[arms], lower, 1.0), 0.0]
    x0[:n] /= x0[:n].sum()
    x0[n] = float(np.log(evaluate(x0)[0].max()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = minimize(
            lambda x: x[n],
            x0,
            jac=lambda x: np.r_[np.zeros(n), 1.0],
            method="SLSQP",
            bounds=[(lower, 1.0)] * n + [(None, None)],
            constraints=[
                {"type": "ineq", "fun": cons, "jac": cons_jac},
                {
                    "type": "eq",
                    "fun": lambda x: np.array([x[:n].sum() - 1.0]),
                    "jac": lambda x: np.r_[np.ones(n), 0.0][None, :],
                },
            ],
            options={"maxiter": maxiter, "ftol": 1e-14},
        )
    w = np.zeros(prob.z.shape[0])
    sub = np.maximum(res.x[:n], 0.0) if np.all(np.isfinite(res.x)) else x0[:n]
    w[arms] = sub / sub.sum()
    return w, int(res.nit)


def slsqp_polish(
    prob: TransductiveProblem,
    w: FloatArray,
    tol: float,
    *,
    max_rounds: int = 12,
    max_total_iter: int = 3000,
    lower: float = 1e-10,
) -> tuple[FloatArray, float, int]:
    """Polish a design with SLSQP on the epigraph form, with working sets of targets and arms.

    Each round solves ``min s`` s.t. ``log f_j(w) ≤ s`` for the targets of the working set, over
    the designs supported on the arms of the working set (``s = log t``: the logarithm scales
    every constraint by the current value, which keeps optima with tiny weights resolvable;
    analytic gradients
    ``∂ log f_j / ∂w_k = −c_j (z_kᵀA⁻¹y_j)² / f_j``). Then all targets are checked (violators
    join the working set: constraint generation) and, through the LP certificate's ``p``, all
    arms (an arm with ``d_k > h_p`` would improve the design: column generation). The working
    set of arms only grows while it has fewer than :data:`POLISH_MAX_ARMS` arms.

    Returns:
        ``(best_w, best_lower_bound, iterations)``.
    """
    k, r = prob.z.shape
    n_targets = prob.y.shape[0]
    inv, f_all = safe_exact(prob, w)
    rows = candidate_targets(f_all, max(30, 3 * r))
    lb, p = lp_certificate(prob, w, rows)
    d = prob.scores(inv, p * prob.c)
    n_arms = polish_arm_budget(k, r)
    if n_arms >= k:
        arms = np.arange(k)
    else:
        spanning = np.flatnonzero(spanning_start(prob.z) > 0)
        half = max(1, n_arms // 2)
        arms = np.union1d(
            np.argsort(-w, kind="stable")[:half], np.argsort(-d, kind="stable")[:half]
        )
        arms = np.union1d(arms, spanning)
    best_w, best_val, best_lb = w, float(f_all.max()), lb
    total_it = 0
    for _ in range(max_rounds):
        if total_it >= max_total_iter:
            break
        w, nit = _slsqp_epigraph(prob, arms, rows, w, lower, min(1000, max_total_iter - total_it))
        total_it += nit
        inv, f_all = safe_exact(prob, w)
        value = float(f_all.max())
        if value < best_val:
            best_w, best_val = w, value
        top = float(f_all[rows].max())
        violators = np.flatnonzero(f_all > top * (1.0 + 0.1 * tol))
        if violators.size and rows.size < n_targets:
            extra = violators[np.argsort(-f_all[violators], kind="stable")][: max(rows.size, 10)]
            rows = np.union1d(rows, extra)
            continue
        if k * rows.size > LP_MAX_ENTRIES:
            break
        lb, p = lp_certificate(prob, w, rows)
        best_lb = max(best_lb, lb)
        if best_val - best_lb <= tol * best_val or arms.size >= k:
            break
        d = prob.scores(inv, p * prob.c)
        hp = float(p @ f_all)
        outside = np.setdiff1d(np.flatnonzero(d > hp * (1.0 + 0.1 * tol)), arms)
        room = POLISH_MAX_ARMS - arms.size
        if outside.size == 0 or room <= 0:
            break
        take = outside[np.argsort(-d[outside], kind="stable")][: min(room, max(10, arms.size // 2))]
        arms = np.union1d(arms, take)
    return best_w, best_lb, total_it


def drop_tiny_weights(prob: TransductiveProblem, w: FloatArray, threshold: float) -> FloatArray:
    """Set weights ``≤ threshold`` to zero if this keeps ``A(w)`` invertible and the value."""
    small = (w > 0) & (w <= threshold)
    if not np.any(small):
        return w
    cand = np.where(small, 0.0, w)
    cand /= cand.sum()
    try:
        new = float(prob.exact(cand)[1].max())
    except np.linalg.LinAlgError:
        return w
    old = float(safe_exact(prob, w)[1].max())
    return cand if new <= old * (1.0 + 1e-9) else w
