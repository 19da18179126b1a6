"""Frank–Wolfe with away steps on a log-sum-exp smoothing of the transductive criterion."""

from __future__ import annotations

import math

import numpy as np

from bandit_envs.theory.design._certificate import TransductiveProblem
from bandit_envs.theory.design._common import FloatArray


def _softmax(values: FloatArray, mu: float) -> FloatArray:
    e = np.exp((values - values.max()) / mu)
    return e / e.sum()


def transductive_fw(
    prob: TransductiveProblem,
    w: FloatArray,
    tol: float,
    max_iter: int,
    refresh_every: int = 200,
    stall_window: int | None = None,
) -> tuple[FloatArray, float, float, int, bool]:
    """Frank–Wolfe with away steps on the log-sum-exp smoothing of ``max_j f_j(w)``.

    The smoothed objective is ``F_μ(w) = μ log Σ_j exp(f_j(w)/μ)``, with
    ``max_j f_j ≤ F_μ ≤ max_j f_j + μ log J``. At every iteration ``μ = ε · value / log J`` is
    re-chosen from the current value, so the smoothing error is at most ``ε`` relative; ``ε``
    starts at 1/2 and follows half the certified relative gap down to ``tol/2`` (continuation: a
    fixed sharp smoothing makes Frank–Wolfe zig-zag when many targets are nearly active).
    ``∂F_μ/∂w_k = −d_k(w)`` with ``d_k = Σ_j p_j c_j (z_kᵀA⁻¹y_j)²`` and ``p = softmax(f/μ)``
    (the derivative of an inverse: ``∂(yᵀA⁻¹y)/∂w_k = −(x_kᵀA⁻¹y)²``). The exact line search
    along the
    toward/away direction uses the closed form of ``f_j`` along ``(1−γ)w + γe_k`` (Sherman–Morrison)
    and Brent's root finder on the derivative.

    Certificate: for every ``w`` and every ``p`` in the simplex over targets, with
    ``h_p(w) = Σ_j p_j f_j(w)`` (convex in ``w``, ``Σ_k w_k d_k = h_p``),
    ``T* = min_w max_j f_j ≥ min_w h_p ≥ 2h_p(w) − max_k d_k(w)``. The best bound seen is kept.

    If ``stall_window`` is given, stop early (not converged) when the certified relative gap has
    not halved during the last ``stall_window`` iterations (used when a polish step follows).

    Returns:
        ``(best_w, best_value, best_lower_bound, iterations, converged)``.
    """
    from scipy.optimize import brentq

    z = prob.z
    n_targets = prob.y.shape[0]
    log_j = math.log(n_targets) if n_targets > 1 else 1.0
    inv, f = prob.exact(w)
    best_w, best_val = w.copy(), float(f.max())
    best_lb = 0.0
    eps = 0.5  # relative smoothing error, decreased with the certified gap down to tol / 2
    it = stalled = mark_it = 0
    mark_gap = math.inf
    since_refresh = 0
    while True:
        if since_refresh >= refresh_every:
            inv, f = prob.exact(w)
            since_refresh = 0
        val = float(f.max())
        if val < best_val:
            best_w, best_val = w.copy(), val
        eps = min(eps, max(0.5 * tol, 0.5 * (best_val - best_lb) / best_val))
        mu = eps * val / log_j if val > 0 else 1.0
        p = _softmax(f, mu)
        hp = float(p @ f)
        d = prob.scores(inv, p * prob.c)
        j = int(np.argmax(d))
        best_lb = max(best_lb, 2.0 * hp - float(d[j]))
        if best_val - best_lb <= tol * best_val:
            return best_w, best_val, best_lb, it, True
        if it >= max_iter:
            return best_w, best_val, best_lb, it, False
        if stall_window is not None:
            rel = (best_val - best_lb) / best_val
            if rel <= 0.5 * mark_gap:
                mark_gap, mark_it = rel, it
            elif it - mark_it >= stall_window:
                return best_w, best_val, best_lb, it, False
        it += 1
        # Arms whose removal would make A(w) singular ("critical": leverage w_k z_kᵀA⁻¹z_k = 1)
        # keep a tiny weight, so that optima on the boundary (singular A) are approached
        # without losing the invertibility the computations rely on.
        supp = np.flatnonzero(w > 0.0)
        zs = z[supp]
        critical = w[supp] * ((zs @ inv) * zs).sum(axis=1) >= 1.0 - 1e-6
        movable = supp[~critical | (w[supp] > _AWAY_FLOOR)]
        hi = 1.0 - 1e-9
        if np.any(critical & (supp != j)):
            hi = min(hi, 1.0 - _FW_FLOOR / float(w[supp[critical & (supp != j)]].min()))
        drop_at: float | None = None
        i = int(movable[np.argmin(d[movable])]) if movable.size else -1
        forward = i < 0 or w[i] >= 1.0 - 1e-12 or d[j] - hp >= hp - d[i]
        if forward and hi <= 0.0 and i >= 0 and w[i] < 1.0 - 1e-12:
            forward = False
        if forward:
            if hi <= 0.0:
                return best_w, best_val, best_lb, it, False
            k, lo = j, 0.0
        else:
            k, hi = i, 0.0
            crit_i = bool(critical[np.searchsorted(supp, i)])
            if crit_i:
                lo = (_AWAY_FLOOR - w[i]) / (1.0 - w[i])
            else:
                lo = drop_at = -w[i] / (1.0 - w[i])
        u = inv @ z[k]
        g = float(z[k] @ u)
        yu = prob.y @ u
        b = prob.c * yu * yu
        a = f
        gm1 = g - 1.0
        if drop_at is not None and 1.0 + lo * gm1 <= 1e-6 * (1.0 - lo):
            lo, drop_at = lo * (1.0 - 1e-6), None  # numerically critical: do not drop

        def along(
            gamma: float, a: FloatArray = a, b: FloatArray = b, gm1: float = gm1
        ) -> FloatArray:
            den = (1.0 - gamma) * (1.0 + gamma * gm1)
            return (a + gamma * (a * gm1 - b)) / den

        @np.errstate(all="ignore")
        def slope(
            gamma: float, a: FloatArray = a, b: FloatArray = b, gm1: float = gm1, mu: float = mu
        ) -> float:
            one = 1.0 + gamma * gm1
            den = (1.0 - gamma) * one
            num = a + gamma * (a * gm1 - b)
            dnum = a * gm1 - b
            dden = gm1 - 1.0 - 2.0 * gamma * gm1
            fj = num / den
            dfj = (dnum * den - num * dden) / (den * den)
            if not (np.all(np.isfinite(fj)) and np.all(np.isfinite(dfj))):
                return math.inf if gamma > 0 else -math.inf
            return float(_softmax(fj, mu) @ dfj)

        # The smoothed objective may have no descent along the chosen direction (the slope at
        # γ = 0 has the wrong sign, e.g. at a stationary point of the smoothing whose targets
        # share a direction): then γ = 0, a stall, which sharpens the smoothing below.
        if k == j:
            end_slope = slope(hi)
            if end_slope <= 0.0:
                gamma = hi
            elif slope(0.0) >= 0.0:
                gamma = 0.0
            else:
                gamma = brentq(slope, 0.0, hi, xtol=1e-15, rtol=1e-12)
        else:
            end_slope = slope(lo)
            if end_slope >= 0.0:
                gamma = lo
            elif slope(0.0) <= 0.0:
                gamma = 0.0
            else:
                gamma = brentq(slope, lo, 0.0, xtol=1e-15, rtol=1e-12)
        gamma = float(gamma)
        if gamma == 0.0:
            # No progress along this direction at machine precision: sharpen the smoothing.
            stalled += 1
            eps = max(0.5 * tol, 0.25 * eps)
            if stalled > 2:
                return best_w, best_val, best_lb, it, False
            inv, f = prob.exact(w)
            since_refresh = 0
            continue
        stalled = 0
        w = w * (1.0 - gamma)
        if drop_at is not None and gamma == drop_at:
            w[k] = 0.0
        else:
            w[k] += gamma
        w = np.maximum(w, 0.0)
        w /= w.sum()
        if 1.0 - gamma < 1e-3 or (k == i and 1.0 + gamma * gm1 < 1e-3 * (1.0 - gamma)):
            # Near-singular step: the rank-one formulas lose accuracy; recompute exactly.
            inv, f = prob.exact(w)
            since_refresh = 0
        else:
            f = np.maximum(along(gamma), 0.0)
            s = gamma / (1.0 - gamma)
            inv = (inv - (s / (1.0 + s * g)) * np.outer(u, u)) / (1.0 - gamma)
            since_refresh += 1


#: Smallest weight an away step leaves on an arm needed for the invertibility of ``A(w)``.
_AWAY_FLOOR = 1e-10
#: Smallest weight a toward step leaves on an arm needed for the invertibility of ``A(w)``.
_FW_FLOOR = 1e-12
