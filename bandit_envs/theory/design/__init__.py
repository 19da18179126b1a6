"""Optimal experimental designs over a finite set of arms, and their rounding.

A *design* is a probability vector ``w`` over the ``K`` arms; its information matrix is
``A(w) = Σ_k w_k x_k x_kᵀ`` (spec 001 §1.3, ``Λ_λ``). This module computes

* G-optimal designs ``min_w max_k x_kᵀ A(w)⁻¹ x_k`` (spec 001 §2.1, Eq. 12/21), through the
  Kiefer–Wolfowitz equivalence with D-optimality (spec 001 Prop. 3): Frank–Wolfe
  (Fedorov–Wynn) with exact line search and away steps (Wolfe–Atwood);
* transductive designs ``min_w max_j c_j ‖y_j‖²_{A(w)⁻¹}`` (spec 001 §1.5 Eq. 6, §1.8, §2.2:
  XY-allocation, oracle allocation) by Frank–Wolfe on a log-sum-exp smoothing of the max, with a
  certified duality gap, and an SLSQP polish for small problems;
* the efficient rounding of Pukelsheim (2006, ch. 12; spec 001 §2.6, corrected text).

All solvers work in the coordinates of an orthonormal basis of the span of the arms
(:func:`bandit_envs.theory.linalg.reduce_features`), so features that do not span ``R^h`` are fine: the
criteria are then those of projected least squares, and "rank" replaces "dimension" in
Kiefer–Wolfowitz.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.linalg import reduce_features

__all__ = [
    "DesignResult",
    "g_optimal_design",
    "transductive_design",
    "xy_design",
    "xy_pair_value",
    "round_design",
    "pairwise_differences",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class DesignResult:
    """Result of a design optimisation.

    Attributes:
        weights: The design ``w``, shape ``(K,)``, non-negative, summing to 1.
        value: The criterion at ``weights`` (G: ``max_k x_kᵀA(w)⁻¹x_k``; transductive:
            ``max_j c_j‖y_j‖²_{A(w)⁻¹}``).
        lower_bound: A certified lower bound on the optimal value; ``value − lower_bound`` is the
            duality gap certificate.
        iterations: Number of solver iterations used.
        converged: Whether the requested tolerance was certified.
    """

    weights: FloatArray
    value: float
    lower_bound: float
    iterations: int
    converged: bool

    @property
    def gap(self) -> float:
        """Absolute duality gap ``value − lower_bound`` (≥ 0)."""
        return max(self.value - self.lower_bound, 0.0)

    @property
    def relative_gap(self) -> float:
        """Relative duality gap ``(value − lower_bound) / value`` (0 when ``value == 0``)."""
        return self.gap / self.value if self.value > 0 else 0.0


# --------------------------------------------------------------------------- helpers
def _check_features(features: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Validate features and return ``(X, Z, U)`` (reduced coordinates ``Z = X U``)."""
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(
            f"features is expected to be a 2-D array (K, h) with K, h >= 1. Got shape {x.shape}."
        )
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite; it contains NaN or inf.")
    z, u = reduce_features(x)
    if z.shape[1] == 0:
        raise ValueError("features are all zero: no design gives any information.")
    return x, z, u


def _check_init(init: ArrayLike | None, k: int) -> FloatArray | None:
    """Validate an initial design (non-negative, finite, positive sum) and normalise it."""
    if init is None:
        return None
    w = np.asarray(init, dtype=np.float64)
    if w.shape != (k,):
        raise ValueError(f"init is expected to have shape ({k},). Got shape {w.shape}.")
    if not (np.all(np.isfinite(w)) and np.all(w >= 0) and w.sum() > 0):
        raise ValueError("init must be finite, non-negative and not all zero.")
    return w / w.sum()


def _information_inverse(z: FloatArray, w: FloatArray) -> FloatArray | None:
    """``A(w)⁻¹`` in reduced coordinates, or ``None`` if ``A(w)`` is numerically singular."""
    m = (z.T * w) @ z
    m = 0.5 * (m + m.T)
    evals, evecs = np.linalg.eigh(m)
    if evals[0] <= 1e-13 * max(evals[-1], np.finfo(float).tiny):
        return None
    inv = (evecs / evals) @ evecs.T
    return 0.5 * (inv + inv.T)


def _require_inverse(z: FloatArray, w: FloatArray) -> FloatArray:
    """``A(w)⁻¹`` in reduced coordinates; raise if the design is singular (internal invariant)."""
    inv = _information_inverse(z, w)
    if inv is None:
        raise np.linalg.LinAlgError(
            "internal error: the design's information matrix became singular; please report."
        )
    return inv


def _leverages(z: FloatArray, inv: FloatArray) -> FloatArray:
    """Row-wise ``z_kᵀ M z_k`` (vectorised, clipped at 0)."""
    return np.maximum(((z @ inv) * z).sum(axis=1), 0.0)


def _spanning_start(z: FloatArray) -> FloatArray:
    """Uniform design on ``r`` arms picked by pivoted Gram–Schmidt (largest residual first).

    This is a volume-greedy start in the spirit of Kumar & Yildirim (2005): its information
    matrix is invertible and reasonably conditioned, and its support is small, so that
    Frank–Wolfe with away steps does not have to remove thousands of arms one by one.
    """
    k, r = z.shape
    resid = z.copy()
    norms = (resid * resid).sum(axis=1)
    chosen = np.zeros(k, dtype=bool)
    for _ in range(r):  # r pivots (a loop over dimensions, each step vectorised over arms)
        norms[chosen] = -1.0
        j = int(np.argmax(norms))
        if norms[j] <= 0.0:
            break
        chosen[j] = True
        q = resid[j] / math.sqrt(norms[j])
        resid -= np.outer(resid @ q, q)
        norms = (resid * resid).sum(axis=1)
    w = chosen.astype(np.float64)
    return w / w.sum()


# --------------------------------------------------------------------------- G-optimal design
def _wolfe_atwood(
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
    inv = _require_inverse(z, w)
    g = _leverages(z, inv)
    it = 0
    while True:
        if it % refresh_every == 0 and it > 0:
            inv = _require_inverse(z, w)
            g = _leverages(z, inv)
        j = int(np.argmax(g))
        gmax = float(g[j])
        if gmax <= bound:
            inv = _require_inverse(z, w)
            g = _leverages(z, inv)
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
        back to :func:`_wolfe_atwood` from the returned ``w``.
    """
    from scipy.linalg import cho_factor, cho_solve

    bound = r * (1.0 + tol)
    n_add = max(1, int(_NEWTON_ADD_FRACTION * r))
    steps = 0
    while True:
        inv = _information_inverse(z, w)
        if inv is None:
            return w, steps, False
        g = _leverages(z, inv)
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
        w, total, _ = _wolfe_atwood(z, w, r, max(tol, 1e-2), max_iter)
    while True:
        g = _leverages(z, _require_inverse(z, w))
        if g.max() <= bound:
            return w, total, True
        if total >= max_iter:
            return w, total, False
        idx = _newton_working_set(g, w, r, bound)
        sub_w, its, ok = _newton_d_optimal(z[idx], w[idx].copy(), r, tol, max_iter - total)
        total += its
        if not ok and total < max_iter:
            sub_w, its, _ = _wolfe_atwood(z[idx], sub_w, r, tol, max_iter - total)
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
    """G-optimal design ``argmin_w max_k x_kᵀ A(w)⁻¹ x_k`` (spec 001 §2.1, Eq. 12/21; §2.6).

    By the Kiefer–Wolfowitz theorem (spec 001 Prop. 3, App. A) the G-optimal and D-optimal
    designs coincide and the optimal value is the rank ``r`` of the features; for any design
    ``max_k x_kᵀA(w)⁻¹x_k ≥ r``. The D-optimal design is computed by Frank–Wolfe with exact line
    search and away steps (Fedorov–Wynn / Wolfe–Atwood). For large ``K`` the solver works on a
    working set (current support plus the arms with the largest leverages), and checks every arm
    exactly before declaring convergence; arms violating the bound are added to the working set.

    Warm starts: with ``init`` (e.g. a previous solution restricted to the arms that survive an
    elimination, or the solution of a nearby problem) the working sets are solved by an
    active-set Newton method (:func:`_newton_d_optimal`), which converges quadratically near
    the optimum where Wolfe–Atwood needs thousands of iterations for ``tol = 1e-6``; an
    ``init`` with more than :data:`_NEWTON_MAX_SUPPORT` support points is first thinned by
    Wolfe–Atwood. Without ``init`` the solver is Wolfe–Atwood throughout.

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
    _, z, _ = _check_features(features)
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol is expected to be > 0. Got {tol!r}.")
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter is expected to be a non-negative integer. Got {max_iter!r}.")
    k, r = z.shape
    w = _check_init(init, k)
    if w is None:
        w = _spanning_start(z)
    elif _information_inverse(z, w) is None:
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
    w, its, _ = _wolfe_atwood(z, w, r, phase_tol, max_iter)
    total += its
    while True:
        g = _leverages(z, _require_inverse(z, w))
        if g.max() <= bound:
            converged = True
            break
        if total >= max_iter:
            break
        idx = _newton_working_set(g, w, r, bound)
        if idx.size == k:
            w, its, converged = _wolfe_atwood(z, w, r, tol, max_iter - total)
            total += its
            break
        sub_w, its, _ = _wolfe_atwood(z[idx], w[idx].copy(), r, tol, max_iter - total)
        total += its
        w = np.zeros(k)
        w[idx] = sub_w
    return _g_result(z, w, r, tol, total, converged)


def _g_result(
    z: FloatArray, w: FloatArray, r: int, tol: float, total: int, converged: bool
) -> DesignResult:
    """The :class:`DesignResult` of a G-optimal solve (value recomputed exactly)."""
    value = float(_leverages(z, _require_inverse(z, w)).max())
    return DesignResult(
        weights=w,
        value=value,
        lower_bound=float(r),
        iterations=total,
        converged=bool(converged and value <= r * (1.0 + tol)),
    )


# --------------------------------------------------------------------------- transductive design
def pairwise_differences(features: ArrayLike) -> FloatArray:
    """All differences ``x_i − x_j`` for ``i < j`` (spec 001 §1.1, the set 𝒴 as unordered pairs).

    Args:
        features: Arm features, shape ``(K, h)``.

    Returns:
        Shape ``(K(K−1)/2, h)``, rows ordered as :func:`numpy.triu_indices` ``(K, 1)``.
    """
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"features is expected to be a 2-D array (K, h). Got shape {x.shape}.")
    i, j = np.triu_indices(x.shape[0], 1)
    return x[i] - x[j]


class _Transductive:
    """The transductive criterion in reduced coordinates: ``f_j(w) = c_j y_jᵀ A(w)⁻¹ y_j``."""

    def __init__(self, z: FloatArray, y: FloatArray, c: FloatArray) -> None:
        self.z = z
        self.y = y
        self.c = c

    def exact(self, w: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(A(w)⁻¹, f(w))`` computed accurately from a QR factorisation.

        With ``diag(√w) Z = Q R``, ``A(w) = RᵀR`` and ``f_j = c_j ‖y_jᵀR⁻¹‖²``: the condition
        number of ``A`` is not squared, which matters for the near-singular designs that occur
        when the optimum puts (almost) no weight on some directions.

        Raises:
            numpy.linalg.LinAlgError: If ``A(w)`` is numerically singular.
        """
        from scipy.linalg.lapack import dtrtri

        rmat = np.linalg.qr(np.sqrt(w)[:, None] * self.z, mode="r")
        diag = np.abs(np.diag(rmat))
        if diag.size < self.z.shape[1] or diag.min() <= 1e-8 * max(diag.max(), 1e-300):
            raise np.linalg.LinAlgError(
                "internal error: the design's information matrix became singular; please report."
            )
        # LAPACK's triangular inverse directly: scipy's solve_triangular wrapper costs 50 µs to
        # milliseconds per call on tiny matrices (its checks, and BLAS threads under load).
        rinv, info = dtrtri(rmat)
        if info != 0:  # pragma: no cover - excluded by the diagonal check above
            raise np.linalg.LinAlgError(f"internal error: dtrtri failed (info={info}).")
        inv = rinv @ rinv.T
        yr = self.y @ rinv
        return 0.5 * (inv + inv.T), self.c * (yr * yr).sum(axis=1)

    def values(self, inv: FloatArray) -> FloatArray:
        """``f_j`` for all targets, shape ``(J,)``."""
        return self.c * np.maximum(((self.y @ inv) * self.y).sum(axis=1), 0.0)

    def scores(self, inv: FloatArray, q: FloatArray) -> FloatArray:
        """``d_k = Σ_j q_j (z_kᵀ A⁻¹ y_j)²`` for all arms (``q = p ∘ c``): minus the gradient."""
        cq = (self.y.T * q) @ self.y
        m = inv @ cq @ inv
        return np.maximum(((self.z @ m) * self.z).sum(axis=1), 0.0)

    def cross(self, inv: FloatArray, rows: NDArray[np.intp]) -> FloatArray:
        """``D[k, j] = c_j (z_kᵀ A⁻¹ y_j)²`` for the targets ``rows``, shape ``(K, len(rows))``."""
        v = self.z @ inv @ self.y[rows].T
        return self.c[rows] * v * v


def _softmax(values: FloatArray, mu: float) -> FloatArray:
    e = np.exp((values - values.max()) / mu)
    return e / e.sum()


def _transductive_fw(
    prob: _Transductive,
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
    (spec 001 §1.8: ``∂(yᵀA⁻¹y)/∂w_k = −(x_kᵀA⁻¹y)²``). The exact line search along the
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
#: Largest working set of arms for the SLSQP polish. SLSQP's cost per iteration grows like the
#: cube of the number of variables (measured: ~5 ms at 65 arms, ~80 ms at 190 arms), so
#: problems whose optimal support may exceed this (rank ``r`` with ``r(r+1)/2 + r`` above it)
#: and that have more arms are left to Frank–Wolfe alone.
POLISH_MAX_ARMS = 150
#: Largest ``K × (number of candidate targets)`` for which the LP certificate is computed.
_LP_MAX_ENTRIES = 2_000_000


def _stable_inverse(z: FloatArray, w: FloatArray) -> FloatArray:
    """``A(w)⁻¹`` with eigenvalues floored at ``1e-15·λ_max`` (never fails; used by SLSQP)."""
    m = (z.T * w) @ z
    evals, evecs = np.linalg.eigh(0.5 * (m + m.T))
    floor = max(float(evals[-1]), np.finfo(float).tiny) * 1e-15
    inv = (evecs / np.maximum(evals, floor)) @ evecs.T
    return 0.5 * (inv + inv.T)


def _candidate_targets(
    f: FloatArray, n_min: int, frac: float = 0.95, n_max: int | None = None
) -> NDArray[np.intp]:
    """Indices of the ``n_min`` largest targets and of those with ``f_j ≥ frac·max f``.

    At most ``n_max`` (default ``4·n_min``) indices are returned, the largest values first.
    """
    n = f.shape[0]
    n_max = min(n, 4 * n_min if n_max is None else n_max)
    n_take = min(n_max, max(min(n, n_min), int(np.count_nonzero(f >= frac * f.max()))))
    if n_take >= n:
        return np.arange(n)
    return np.sort(np.argpartition(-f, n_take - 1)[:n_take])


def _lp_certificate(
    prob: _Transductive, w: FloatArray, rows: NDArray[np.intp]
) -> tuple[float, FloatArray]:
    """Best lower bound ``max_p 2h_p(w) − max_k d_k(w)`` over ``p`` supported on ``rows``.

    The bound is concave in ``p``; maximising it is the linear program
    ``max 2fᵀp − t  s.t.  D p ≤ t·1, Σp = 1, p ≥ 0`` with ``D[k, j] = c_j (z_kᵀA⁻¹y_j)²``
    (solved by HiGHS). The returned value is recomputed from the LP's ``p``, so it is a valid
    bound whatever the LP's own tolerances. At an optimal ``w`` the bound is tight (the KKT
    multipliers of the epigraph problem attain it).

    Returns:
        ``(bound, p)`` with ``p`` of shape ``(J,)`` (zero outside ``rows``); ``(0, 0)`` if the LP
        fails.
    """
    from scipy.optimize import linprog

    p_full = np.zeros(prob.y.shape[0])
    inv, f_all = _safe_exact(prob, w)
    f = f_all[rows]
    dmat = prob.cross(inv, rows)
    k, m = dmat.shape
    scale = float(f.max())
    if scale <= 0.0:
        return 0.0, p_full
    res = linprog(
        np.r_[-2.0 * f / scale, 1.0],
        A_ub=np.hstack([dmat / scale, -np.ones((k, 1))]),
        b_ub=np.zeros(k),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0.0, None)] * m + [(None, None)],
        method="highs",
    )
    if res.x is None:
        return 0.0, p_full
    p = np.maximum(res.x[:m], 0.0)
    if p.sum() <= 0.0:
        return 0.0, p_full
    p /= p.sum()
    p_full[rows] = p
    return float(2.0 * (f @ p) - (dmat @ p).max()), p_full


def _polish_arm_budget(k: int, r: int) -> int:
    """Initial number of arms in the polish working set (enough for a Carathéodory support).

    An optimal design needs at most ``r(r+1)/2 + 1`` support points (spec 001 Remark 1).
    """
    return min(k, max(2 * r, r * (r + 1) // 2 + r))


def _slsqp_epigraph(
    prob: _Transductive,
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
            inv = _stable_inverse(z, np.maximum(x[:n], 0.0))
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


def _slsqp_polish(
    prob: _Transductive,
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
    every constraint by the current value, spec 001 §1.8 (a); analytic gradients
    ``∂ log f_j / ∂w_k = −c_j (z_kᵀA⁻¹y_j)² / f_j``). Then all targets are checked (violators
    join the working set: constraint generation) and, through the LP certificate's ``p``, all
    arms (an arm with ``d_k > h_p`` would improve the design: column generation). The working
    set of arms only grows while it has fewer than :data:`POLISH_MAX_ARMS` arms.

    Returns:
        ``(best_w, best_lower_bound, iterations)``.
    """
    k, r = prob.z.shape
    n_targets = prob.y.shape[0]
    inv, f_all = _safe_exact(prob, w)
    rows = _candidate_targets(f_all, max(30, 3 * r))
    lb, p = _lp_certificate(prob, w, rows)
    d = prob.scores(inv, p * prob.c)
    n_arms = _polish_arm_budget(k, r)
    if n_arms >= k:
        arms = np.arange(k)
    else:
        spanning = np.flatnonzero(_spanning_start(prob.z) > 0)
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
        inv, f_all = _safe_exact(prob, w)
        value = float(f_all.max())
        if value < best_val:
            best_w, best_val = w, value
        top = float(f_all[rows].max())
        violators = np.flatnonzero(f_all > top * (1.0 + 0.1 * tol))
        if violators.size and rows.size < n_targets:
            extra = violators[np.argsort(-f_all[violators], kind="stable")][: max(rows.size, 10)]
            rows = np.union1d(rows, extra)
            continue
        if k * rows.size > _LP_MAX_ENTRIES:
            break
        lb, p = _lp_certificate(prob, w, rows)
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


def _safe_exact(prob: _Transductive, w: FloatArray) -> tuple[FloatArray, FloatArray]:
    """:meth:`_Transductive.exact`, falling back to an eigenvalue-floored inverse if singular."""
    try:
        return prob.exact(w)
    except np.linalg.LinAlgError:
        inv = _stable_inverse(prob.z, w)
        return inv, prob.values(inv)


def _drop_tiny_weights(prob: _Transductive, w: FloatArray, threshold: float) -> FloatArray:
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
    old = float(_safe_exact(prob, w)[1].max())
    return cand if new <= old * (1.0 + 1e-9) else w


# --------------------------------------------------------------------------- interior point
#: Solvers of :func:`transductive_design`.
_METHODS = ("frank_wolfe", "interior_point")
#: Most targets added to the interior-point working set per round (constraint generation).
_IP_ADD_TARGETS = 200
#: Arms in the interior-point working set at the start (all arms when ``K`` is at most this).
_IP_START_ARMS = 600
#: Smallest relative tolerance of a restricted interior-point solve (round-off floor).
_IP_MIN_TOL = 1e-8
#: Working-set arms whose weight is below this fraction of the largest are dropped.
_IP_KEEP_ARM = 1e-6
#: Arms added to the interior-point working set per round (column generation).
_IP_ADD_ARMS = 200


def _ip_evaluate(
    z: FloatArray, y: FloatArray, c: FloatArray, w: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray] | None:
    """``(Z R⁻¹, Y R⁻¹, f)``, ``A(w) = RᵀR`` (QR of ``diag(√w) Z``); ``None`` if singular.

    ``(Z R⁻¹)(Y R⁻¹)ᵀ`` holds ``z_kᵀA⁻¹y_j`` and ``f_j = c_j‖y_jᵀR⁻¹‖²`` (as
    :meth:`_Transductive.exact`, without squaring the condition number of ``A``).
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


def _ip_dense_step(
    zr: FloatArray,
    yr: FloatArray,
    c: FloatArray,
    lam: FloatArray,
    dd: FloatArray,
    jac: FloatArray,
    nu: FloatArray,
    w: FloatArray,
    rhs1: FloatArray,
    rhs2: float,
    rhs3: float,
) -> FloatArray | None:
    """The reduced Newton system of :func:`_ip_restricted` in ``(Δw, Δt, Δη)``.

    ``[[H, −b, 1], [−bᵀ, Σ_j λ_j/s_j, 0], [1ᵀ, 0, 0]]`` with
    ``H = Σ_j λ_j∇²f_j + Jᵀ diag(λ/s) J + diag(ν/w)`` (positive definite) and ``b = Jᵀ(λ/s)``.
    With ``Z̃ = Z R⁻¹`` and ``Ỹ = Y R⁻¹`` (so ``u_kj = z̃_k·ỹ_j``), ``Σ_j λ_j∇²f_j =
    2 (Z̃Z̃ᵀ) ∘ (Z̃ M Z̃ᵀ)`` with ``M = Ỹᵀ diag(cλ) Ỹ``, and ``JᵀDJ = L_Z (L_Yᵀ diag(c²λ/s) L_Y) L_Zᵀ``
    with ``L`` the rows' ``svec(z̃ z̃ᵀ)`` (used when it is cheaper than forming ``JᵀDJ``
    directly): ``O(n² r²)`` instead of ``O(n² J')``. ``H`` is factorised by Cholesky after a
    Jacobi scaling and the two bordering rows are eliminated (LU of the whole system if the
    factorisation fails). Returns the solution, or ``None`` if the system is singular.
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
    else:
        hmat += (jac.T * dd) @ jac
    hmat[np.arange(n), np.arange(n)] += nu / w
    b = jac.T @ dd
    scale = 1.0 / np.sqrt(np.maximum(np.diag(hmat), 1e-300))
    try:
        chol = np.linalg.cholesky(hmat * scale[:, None] * scale[None, :])
    except np.linalg.LinAlgError:
        chol = None
    if chol is not None:
        from scipy.linalg import cho_solve

        rhs = np.column_stack([rhs1, b, np.ones(n)]) * scale[:, None]
        x = cho_solve((chol, True), rhs, check_finite=False) * scale[:, None]
        # H Δw − bΔt + 1Δη = rhs1 ⇒ Δw = x0 + x1Δt − x2Δη; then the rows of Δt and Δη.
        mat2 = np.array([[dd.sum() - b @ x[:, 1], b @ x[:, 2]], [x[:, 1].sum(), -x[:, 2].sum()]])
        try:
            dt, deta = np.linalg.solve(mat2, [rhs2 + b @ x[:, 0], rhs3 - x[:, 0].sum()])
        except np.linalg.LinAlgError:
            return None
        return np.r_[x[:, 0] + x[:, 1] * dt - x[:, 2] * deta, dt, deta]
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


def _ip_restricted(
    z: FloatArray, y: FloatArray, c: FloatArray, w: FloatArray, tol: float, max_iter: int
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
    The Newton system is reduced to ``(w, t, η)`` (:func:`_ip_dense_step`).

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
        comp_s = mu_b - lam * s
        comp_w = mu_b - nu * w
        rhs1 = -r_d - jac.T @ (dd * r_x) - jac.T @ (comp_s / s) + comp_w / w
        rhs2 = -(r_t - dd @ r_x - float((comp_s / s).sum()))
        sol = _ip_dense_step(zr, yr, c, lam, dd, jac, nu, w, rhs1, rhs2, -r_e)
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


def _heaviest_arms(w: FloatArray, frac: float = 1e-3) -> NDArray[np.intp]:
    """Arms of a warm start that join a working set.

    Those of weight ``≥ frac·max``, at most the ``_IP_START_ARMS // 2`` heaviest (a Frank–Wolfe
    design keeps every arm at a tiny weight).
    """
    idx = np.flatnonzero(w >= frac * float(w.max()))
    n = _IP_START_ARMS // 2
    if idx.size > n:
        idx = np.sort(idx[np.argsort(-w[idx], kind="stable")[:n]])
    return idx


def _next_working_arms(
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


def _transductive_ip(
    prob: _Transductive,
    w0: FloatArray,
    tol: float,
    max_iter: int,
    max_rounds: int = 50,
    warm: bool = False,
) -> tuple[FloatArray, float, float, int, bool]:
    """Interior point with working sets of targets and arms, and a certified duality gap.

    Each round solves the problem restricted to a working set of targets and of arms by
    :func:`_ip_restricted`, then checks every target (constraint generation: targets above the
    restricted optimum join) and every arm (column generation: arms with ``d_k > h_p`` would
    improve the design, ``p`` = the restricted multipliers). The certificate is the one of
    :func:`_transductive_fw`, ``T* ≥ 2h_p(w) − max_k d_k(w)`` over all arms, with ``p`` the
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
    inv, f0 = _safe_exact(prob, w0)
    scale = float(f0.max())
    c = prob.c / scale
    scaled = _Transductive(z, prob.y, c)
    f0 = f0 / scale
    rows = (
        np.arange(n_targets)
        if n_targets <= _IP_ADD_TARGETS
        else _candidate_targets(f0, max(30, 3 * r), frac=0.5, n_max=_IP_ADD_TARGETS)
    )
    spanning = np.flatnonzero(_spanning_start(z) > 0)
    if k <= _IP_START_ARMS:
        arms = np.arange(k)
    else:
        q0 = np.zeros(n_targets)
        q0[rows] = f0[rows] / f0[rows].sum()
        d0 = scaled.scores(inv, q0 * c)
        top = np.argpartition(-d0, _IP_START_ARMS // 2)[: _IP_START_ARMS // 2]
        arms = np.union1d(spanning, top)
        if warm:
            arms = np.union1d(arms, _heaviest_arms(w0))
    best_w, best_val, best_lb = w0, math.inf, 0.0
    total = 0
    inner_tol = max(_IP_MIN_TOL, 0.1 * tol)
    if warm:
        w_arms = w0[arms] + 1e-3 / arms.size
        w_arms /= w_arms.sum()
    else:
        w_arms = np.full(arms.size, 1.0 / arms.size)
    converged = False
    for _ in range(max_rounds):
        w_arms, t, lam, its = _ip_restricted(
            z[arms], prob.y[rows], c[rows], w_arms, inner_tol, max_iter
        )
        total += its
        w = np.zeros(k)
        w[arms] = w_arms
        inv, f = _safe_exact(scaled, w)
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
            if inner_tol <= _IP_MIN_TOL:
                break
            inner_tol = max(_IP_MIN_TOL, 0.1 * inner_tol)  # the restricted solve was too rough
        rows = np.union1d(rows, new_rows[np.argsort(-f[new_rows], kind="stable")][:_IP_ADD_TARGETS])
        arms, w_arms = _next_working_arms(arms, w_arms, w, spanning, new_arms, d, _IP_KEEP_ARM)
    return best_w, best_val * scale, min(best_lb, best_val) * scale, total, converged


# --------------------------------------------------------------------------- XY on lazy pairs
#: Rows of arms per block of :func:`_pair_scan` (a block holds ``_PAIR_BLOCK × K`` values).
_PAIR_BLOCK = 256
#: :func:`xy_design` with ``method="auto"`` materialises the pairs up to this many.
XY_DENSE_MAX_PAIRS = 190
#: Pairs added to the working set per round of :func:`_xy_pair_generation`.
_XY_ADD_PAIRS = 200
#: Arms whose weight is below this fraction of the largest leave the pair-generation working set.
_XY_KEEP_ARM = 1e-3
#: Methods of :func:`xy_design`.
_XY_METHODS = ("auto", "pair_generation", *_METHODS)


def _whitened(z: FloatArray, w: FloatArray) -> FloatArray:
    """Coordinates ``V = Z R⁻¹`` with ``A(w) = RᵀR``, so that ``‖y‖²_{A(w)⁻¹} = ‖yᵀR⁻¹‖²``.

    From the QR factorisation of ``diag(√w) Z`` (as :meth:`_Transductive.exact`); if ``A(w)``
    is numerically singular, from its eigendecomposition with eigenvalues floored at
    ``1e-15·λ_max`` (as :func:`_stable_inverse`).
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


def _pair_scan(
    v: FloatArray, floor: float, frac: float, cap: int
) -> tuple[float, IntArray, IntArray, FloatArray]:
    """The largest ``‖v_i − v_j‖²`` over all pairs ``i < j``, and the pairs above a threshold.

    The ``K(K−1)/2`` values are never stored: blocks of :data:`_PAIR_BLOCK` rows are compared
    with the rows after them by one matrix product of the augmented coordinates
    ``[v_i, ‖v_i‖², 1]·[−2v_j, 1, ‖v_j‖²] = ‖v_i − v_j‖²`` (``O(K²r)`` flops in BLAS, ``O(K)``
    memory per block row). The products' rounding error is at most about
    ``(r + 2)·ε·(‖v_i‖² + ‖v_j‖²)``; pairs are screened with a margin of 16 times that bound
    and the values of the kept pairs are recomputed from the differences, so the maximum and
    the selection are those of the exact values.

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
    sq = np.einsum("ij,ij->i", v, v)
    left = np.hstack([v, sq[:, None], np.ones((k, 1))])
    right = np.hstack([-2.0 * v, np.ones((k, 1)), sq[:, None]])
    margin = 16.0 * (r + 2) * np.finfo(float).eps * 2.0 * float(sq.max(initial=0.0))
    running = -math.inf
    found_i: list[IntArray] = []
    found_j: list[IntArray] = []
    for start in range(0, k - 1, _PAIR_BLOCK):
        stop = min(k, start + _PAIR_BLOCK)
        block = left[start:stop] @ right[start:].T
        block[np.tril_indices(stop - start)] = -math.inf  # j <= i
        flat = block.ravel()
        running = max(running, float(flat.max()))
        thr = min(max(floor, frac * running), running) - margin  # the maximum is always kept
        idx = np.flatnonzero(flat >= thr)
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
    """``d_k = Σ_j q_j (v_k·ṽ_j)²`` (:meth:`_Transductive.scores` in whitened coordinates)."""
    m = (diff.T * q) @ diff
    return np.maximum(((v @ m) * v).sum(axis=1), 0.0)


def _xy_pair_generation(
    z: FloatArray,
    w0: FloatArray,
    tol: float,
    max_iter: int,
    warm: bool,
    max_rounds: int = 50,
    among: IntArray | None = None,
) -> tuple[FloatArray, float, float, int, bool]:
    """XY design by interior point on working sets of pairs and of arms (pairs never stored).

    The loop of :func:`_transductive_ip` with the targets ``z_i − z_j`` (``i < j``) generated
    on demand: each round solves the problem restricted to a working set of pairs and of arms
    by :func:`_ip_restricted`, then scans all pairs at the new design (:func:`_pair_scan`,
    ``O(K²r)`` time, ``O(K)`` memory per block) for the value and for violators (pairs above the
    restricted optimum join, at most :data:`_XY_ADD_PAIRS` per round), and prices all arms
    (``d_k > h_p`` joins). The certificate is the one of :func:`_transductive_fw` with ``p`` the
    restricted multipliers: ``T* ≥ 2h_p(w) − max_k d_k(w)`` (restricting the targets can only
    lower the optimum, so the bound holds for all pairs). With ``warm``, the start design's
    support joins the first working set of arms and the first restricted solve starts from it.

    With ``among`` (sorted arm indices), the targets are the pairs of those arms only: the scans
    run on their whitened coordinates and the pairs are mapped back to arm indices, while the
    design, the pricing of arms and the certificate stay over all ``K`` arms.

    Returns:
        ``(best_w, best_value, best_lower_bound, iterations, converged)``.
    """
    k, r = z.shape

    def scan(
        v: FloatArray, floor: float, frac: float
    ) -> tuple[float, IntArray, IntArray, FloatArray]:
        if among is None:
            return _pair_scan(v, floor, frac, _XY_ADD_PAIRS)
        top, si, sj, sf = _pair_scan(v[among], floor, frac, _XY_ADD_PAIRS)
        return top, among[si], among[sj], sf  # among is sorted: among[si] < among[sj]

    v = _whitened(z, w0)
    top, pi, pj, pf = scan(v, 0.0, 0.5)
    if top <= 0.0:  # all (target) arms coincide: every difference is 0
        return w0, 0.0, 0.0, 0, True
    scale = top
    c = 1.0 / scale
    keys = pi * k + pj
    spanning = np.flatnonzero(_spanning_start(z) > 0)
    if k <= _IP_START_ARMS:
        arms = np.arange(k)
    else:
        d0 = _pair_scores(v, v[pi] - v[pj], pf / pf.sum() * c)
        arms = np.argpartition(-d0, _IP_START_ARMS // 2)[: _IP_START_ARMS // 2]
        arms = np.union1d(spanning, arms)
        if warm:
            arms = np.union1d(arms, _heaviest_arms(w0))
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
        inner_tol = max(_IP_MIN_TOL, 0.1 * tighten * max(tol, rel_gap) / (keys.size + arms.size))
        w_arms, t, lam, its = _ip_restricted(
            z[arms], y, np.full(keys.size, c), w_arms, inner_tol, max_iter
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
            if inner_tol <= _IP_MIN_TOL:
                break
            tighten *= 0.1  # the restricted solve was too rough
        keys = np.union1d(keys, new_keys)
        arms, w_arms = _next_working_arms(arms, w_arms, w, spanning, new_arms, d, _XY_KEEP_ARM)
    return best_w, best_val * scale, min(best_lb, best_val) * scale, total, converged


def transductive_design(
    features: ArrayLike,
    targets: ArrayLike,
    target_weights: ArrayLike | None = None,
    *,
    tol: float = 1e-3,
    max_iter: int = 5_000,
    init: ArrayLike | None = None,
    method: str = "frank_wolfe",
) -> DesignResult:
    """Transductive design ``min_w max_j c_j ‖y_j‖²_{A(w)⁻¹}`` with a certified duality gap.

    This is the XY-allocation (spec 001 §2.2, Eq. 14/25) when the targets are the pairwise
    differences, and the oracle allocation / characteristic time (spec 001 §1.5 Eq. 5–6, §1.8)
    when the targets are ``x* − x`` with weights ``1/Δ_x²``. The criterion is convex in ``w``
    (spec 001 §1.7).

    Algorithm: Frank–Wolfe with away steps and exact line search on a log-sum-exp smoothing of the
    max (spec 001 §1.8 (b)). The smoothing error is kept below half the currently certified gap
    and, in the end, below ``tol/2`` relative. Every iteration computes the certified lower bound
    ``T* ≥ 2h_p(w) − max_k d_k(w)`` for ``p`` = the softmax weights (convexity of
    ``h_p(w) = Σ_j p_j c_j‖y_j‖²_{A(w)⁻¹}``, with ``d_k = Σ_j p_j c_j (x_kᵀA⁻¹y_j)²``), and stops
    once ``(value − lower_bound) / value ≤ tol``, or (not converged) once the certified gap has
    not halved in 100 iterations. Small problems then have the bound re-optimised over ``p`` by
    a linear program and are polished by SLSQP on the epigraph form (spec 001 §1.8 (a)), after
    which the certificate is recomputed. "Small" means that a support of Carathéodory size fits
    in :data:`POLISH_MAX_ARMS` SLSQP variables: ``min(K, r(r+1)/2 + r) ≤ 150`` (every
    ``K ≤ 150``; any ``K`` when the rank ``r ≤ 15``). Larger problems are finished by the
    interior-point method below, started from Frank–Wolfe's design (before issue 10 they ran
    Frank–Wolfe to ``max_iter`` and were often left uncertified). ``converged`` reports
    honestly whether ``tol`` was certified. Optima with tiny weights (``~1e-5``, spec 001 §1.8)
    are resolved: the polish works on the logarithm of the constraints, and the smoothed
    Frank–Wolfe steps are exact line searches. Optima where
    ``A(w)`` is singular (e.g. one target along one arm) are approached with weights of about
    ``1e-10`` left on the arms that keep ``A(w)`` invertible.

    ``method="interior_point"`` solves the epigraph form ``min t`` s.t. ``f_j(w) ≤ t`` by a
    primal–dual interior-point method (:func:`_ip_restricted`) on working sets of targets and
    arms that grow by constraint and column generation (:func:`_transductive_ip`), with the
    same certificate. Its Newton steps cost ``O(n²r² + n³)`` for ``n`` working arms (rank
    ``r``), and it converges in tens of steps to high accuracy (``tol = 1e-6`` is cheap on small
    problems), also where Frank–Wolfe stalls: the all-ε-good lower bound of a 960-arm,
    20 000-target instance (spec 002 §1.8) takes 0.5–3 s at ``tol = 1e-4``, where Frank–Wolfe
    is still 10% away after a minute. ``init`` only chooses the starting working sets.

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

    Returns:
        A :class:`DesignResult`; ``value = max_j c_j‖y_j‖²_{A(w)⁻¹}`` and ``lower_bound`` a
        certified lower bound on the optimum. If every target is ignorable the value is 0.

    Raises:
        ValueError: On bad shapes, non-finite or negative inputs, a target outside the span of
            the features, or a singular ``init``.
    """
    _, z, u = _check_features(features)
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
    if method not in _METHODS:
        raise ValueError(f"method is expected to be one of {_METHODS}. Got {method!r}.")
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
    w0 = _check_init(init, k)
    if w0 is None:
        w0 = np.full(k, 1.0 / k)
    elif _information_inverse(z, w0) is None:
        raise ValueError(
            "init does not span the arms: its information matrix is singular on their span."
        )
    keep = (c > 0) & (np.linalg.norm(yr, axis=1) > 0)
    if not np.any(keep):
        return DesignResult(weights=w0, value=0.0, lower_bound=0.0, iterations=0, converged=True)
    prob = _Transductive(z, np.ascontiguousarray(yr[keep]), c[keep])
    if method == "interior_point":
        w, value, lower, iters, converged = _transductive_ip(prob, w0, tol, int(max_iter))
        return DesignResult(
            weights=w, value=value, lower_bound=lower, iterations=iters, converged=converged
        )
    polish = _polish_arm_budget(k, r) <= POLISH_MAX_ARMS
    w, _, lower, iters, converged = _transductive_fw(prob, w0, tol, int(max_iter), stall_window=100)
    f = _safe_exact(prob, w)[1]
    value = float(f.max())
    converged = value - lower <= tol * value
    if not converged and polish:
        rows = _candidate_targets(f, max(50, 5 * r))
        if k * rows.size <= _LP_MAX_ENTRIES:
            lower = max(lower, _lp_certificate(prob, w, rows)[0])
        converged = value - lower <= tol * value
    if not converged and not polish:
        # Too large for the SLSQP polish: Frank-Wolfe stalled (its certified gap did not halve
        # in 100 iterations); finish by interior point, started from its working sets (its
        # certificate replaces the LP's, which costs seconds at K = 10⁴).
        w_ip, v_ip, lb_ip, ip_iters, _ = _transductive_ip(prob, w, tol, int(max_iter), warm=True)
        iters += ip_iters
        lower = max(lower, lb_ip)
        if v_ip < value:
            w, value = w_ip, v_ip
        converged = value - lower <= tol * value
    if not converged and polish:
        w_pol, lb_pol, pol_iters = _slsqp_polish(prob, w, tol)
        iters += pol_iters
        lower = max(lower, lb_pol)
        w_pol = _drop_tiny_weights(prob, w_pol, 1e-9)
        f_pol = _safe_exact(prob, w_pol)[1]
        if f_pol.max() <= value:
            w, f, value = w_pol, f_pol, float(f_pol.max())
        if value - lower > tol * value:
            rows = _candidate_targets(f, max(50, 5 * r))
            if k * rows.size <= _LP_MAX_ENTRIES:
                lower = max(lower, _lp_certificate(prob, w, rows)[0])
        converged = value - lower <= tol * value
    lower = min(lower, value)
    return DesignResult(
        weights=w, value=value, lower_bound=lower, iterations=iters, converged=bool(converged)
    )


def xy_design(
    features: ArrayLike,
    *,
    tol: float = 1e-3,
    max_iter: int = 5_000,
    init: ArrayLike | None = None,
    method: str = "auto",
    target_weights: ArrayLike | None = None,
    among: ArrayLike | None = None,
) -> DesignResult:
    """XY-allocation design: transductive design on all pairwise differences (spec 001 §2.2).

    ``min_w max_{i<j} ‖x_i − x_j‖²_{A(w)⁻¹}`` (Eq. 14/25), with the certified duality gap of
    :func:`transductive_design`. With ``among``, the targets are only the differences of the
    arms it lists, ``min_w max_{i<j ∈ among} ‖x_i − x_j‖²_{A(w)⁻¹}``, while the design ``w``
    is still over all ``K`` arms: RAGE's phase design λ*_k = argmin_λ max_{z,z'∈𝒵̂_k}
    ‖z − z'‖²_{A(λ)⁻¹} and its value ρ(𝒵̂_k) (Fiez et al. 2019, Alg. 1, with 𝒵 = 𝒳 and
    𝒵̂_k = ``among``; spec 001 §2.2, spec 003 §1.3). Below, "the pairs" means the pairs of
    ``among`` (``n = len(among)``, ``n(n−1)/2`` pairs; ``n = K`` by default). Two ways to handle
    them:

    * materialised (``method="frank_wolfe"`` or ``"interior_point"``): the differences are built
      by :func:`pairwise_differences` and passed to :func:`transductive_design` with that
      method. Memory ``O(K²h)``, and every Frank–Wolfe step touches every pair;
    * ``method="pair_generation"``: interior point on working sets of pairs and of arms
      (:func:`_xy_pair_generation`); the pairs are never stored. Each round scans all pairs at
      the current design in ``O(n²r)`` BLAS flops and ``O(n)`` memory per block of rows
      (:func:`_pair_scan`, on the whitened coordinates of the arms of ``among`` only), adds the
      violated pairs and the improving arms (any of the ``K``), and re-solves the restricted
      problem; the certificate covers all pairs (of ``among``). ``init`` gives the first
      restricted solve its start and its support joins the first working set of arms.

    ``method="auto"`` (default) materialises when there are at most
    :data:`XY_DENSE_MAX_PAIRS` pairs (or when ``target_weights`` are given) and solves by Frank–
    Wolfe, exactly as :func:`transductive_design` on :func:`pairwise_differences` (whose
    SLSQP polish makes it the most accurate there); otherwise it uses pair generation.
    :func:`xy_pair_value` gives the exact value of any design on the same pairs, also without
    storing them.

    Args:
        features: Arm features, shape ``(K, h)`` with ``K ≥ 2``.
        tol: Relative tolerance on the certified duality gap, in ``(0, 1)``.
        max_iter: Maximum iterations of the solver (Frank–Wolfe iterations, or Newton steps per
            interior-point round).
        init: Optional starting design, shape ``(K,)``, invertible on the span of the arms.
        method: ``"auto"``, ``"pair_generation"``, ``"frank_wolfe"`` or ``"interior_point"``.
        target_weights: Optional weights of the pairs, shape ``(n(n−1)/2,)`` in the order of
            :func:`pairwise_differences` of ``features[among]`` (materialised methods only).
        among: Optional indices of the arms whose pairwise differences are the targets (RAGE's
            active set 𝒵̂_k): distinct integers in ``[0, K)``, at least two, in any order (the
            design and its value do not depend on the order; ``target_weights`` follow it).
            Default: all arms.

    Returns:
        A :class:`DesignResult` with ``value = max_{i<j ∈ among} ‖x_i − x_j‖²_{A(w)⁻¹}``
        (weighted if ``target_weights`` are given), ``weights`` over all ``K`` arms, and a
        certified ``lower_bound``.

    Raises:
        ValueError: If there are fewer than two arms, on an unknown method, on
            ``target_weights`` with pair generation, or as :func:`transductive_design`.
        InvalidParameterError: (a ``ValueError``) if ``among`` is not a 1-D array of integers,
            has duplicates, an index outside ``[0, K)``, or fewer than two arms.
    """
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(
            f"xy_design needs features of shape (K, h) with K >= 2. Got shape {x.shape}."
        )
    if method not in _XY_METHODS:
        raise ValueError(f"method is expected to be one of {_XY_METHODS}. Got {method!r}.")
    k = x.shape[0]
    sub = None if among is None else _check_among(among, k)
    n = k if sub is None else sub.size
    if method == "auto":
        dense = n * (n - 1) // 2 <= XY_DENSE_MAX_PAIRS or target_weights is not None
        method = "frank_wolfe" if dense else "pair_generation"
    if method != "pair_generation":
        targets = pairwise_differences(x if sub is None else x[sub])
        return transductive_design(
            x,
            targets,
            target_weights,
            tol=tol,
            max_iter=max_iter,
            init=init,
            method=method,
        )
    if target_weights is not None:
        raise ValueError(
            "target_weights are not supported with method='pair_generation' (the pairs are "
            "not materialised); use method='frank_wolfe' or 'interior_point'."
        )
    _, z, _ = _check_features(x)
    if not (np.isfinite(tol) and 0 < tol < 1):
        raise ValueError(f"tol is expected in (0, 1). Got {tol!r}.")
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter is expected to be a non-negative integer. Got {max_iter!r}.")
    w0 = _check_init(init, k)
    if w0 is None:
        # Start from a rough G-optimal design: its support is nearly contained in the XY
        # design's (the XY criterion is within a factor 4 of G's, spec 001 Lemma 7).
        w0 = _wolfe_atwood(z, _spanning_start(z), z.shape[1], 1e-2, 10 * k)[0]
    elif _information_inverse(z, w0) is None:
        raise ValueError(
            "init does not span the arms: its information matrix is singular on their span."
        )
    w, value, lower, iters, converged = _xy_pair_generation(
        z, w0, tol, int(max_iter), True, among=None if sub is None else np.sort(sub)
    )
    return DesignResult(
        weights=w, value=value, lower_bound=lower, iterations=iters, converged=converged
    )


def _check_among(among: ArrayLike, k: int) -> IntArray:
    """Validate ``among`` (distinct arm indices in ``[0, K)``, at least two); as int64."""
    a = np.asarray(among)
    if a.ndim != 1 or a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or a.size == 0):
        raise InvalidParameterError(
            "among is expected to be a 1-D array of integer arm indices. Got "
            f"shape {a.shape} and dtype {a.dtype}."
        )
    a = a.astype(np.int64)
    if a.size < 2:
        raise InvalidParameterError(
            f"among is expected to hold at least 2 arms (its pairs are the targets). Got {a.size}."
        )
    bad = np.flatnonzero((a < 0) | (a >= k))
    if bad.size:
        raise InvalidParameterError(
            f"among is expected to hold arm indices in [0, {k}). Got {int(a[bad[0]])} at "
            f"position {int(bad[0])}."
        )
    uniq, counts = np.unique(a, return_counts=True)
    if uniq.size < a.size:
        raise InvalidParameterError(
            f"among is expected to hold distinct arms. Got arm {int(uniq[counts > 1][0])} more "
            "than once."
        )
    return a


def xy_pair_value(
    features: ArrayLike, weights: ArrayLike, *, among: ArrayLike | None = None
) -> float:
    """Exact ``max_{i<j ∈ among} ‖x_i − x_j‖²_{A(w)⁺}`` without storing the pairs.

    The value of a design on the pairs of ``among`` (RAGE's ρ(𝒵̂_k) = max_{z,z'∈𝒵̂_k}
    ‖z − z'‖²_{A(λ)⁻¹} at the weights actually rounded, Fiez et al. 2019, Alg. 1; spec 001
    §2.2 for all arms). ``A(w) = Σ_k w_k x_k x_kᵀ`` is inverted on its range (eigenvalues
    above ``1e-12`` times the largest, as :func:`agents.common.design_cache.pinv_parts`); the value
    is ``inf`` if some difference has a component outside that range (larger than ``1e-9``
    times the scale of the features and of the differences), exactly the rule of
    :func:`agents.linear_bai.rage.xy_value` on the materialised differences, to which it is equal up to
    round-off. The features are used as given (no change of basis). The maximum comes from
    the blocked scan of :func:`_pair_scan` on the whitened coordinates ``x_k V Λ^{-1/2}``:
    ``O(n²r)`` time and ``O(n)`` memory per block of :data:`_PAIR_BLOCK` rows (``n`` arms in
    ``among``); the maximum is recomputed from the differences, so it is the exact value.

    Args:
        features: Arm coordinates ``x_k``, shape ``(K, h)``.
        weights: The design ``w``, shape ``(K,)``, finite and non-negative (need not sum to 1:
            ``A(w)`` is used as given).
        among: Optional indices of the arms whose pairwise differences are measured (distinct
            integers in ``[0, K)``, at least two). Default: all arms.

    Returns:
        The value (``inf`` if a difference is not estimable under ``w``).

    Raises:
        ValueError: On bad shapes or non-finite or negative inputs.
        InvalidParameterError: (a ``ValueError``) on a bad ``among``, as :func:`xy_design`.
    """
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 1:
        raise ValueError(
            f"features is expected to be a 2-D array (K, h) with K >= 2, h >= 1. Got shape "
            f"{x.shape}."
        )
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite; it contains NaN or inf.")
    k = x.shape[0]
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,):
        raise ValueError(f"weights is expected to have shape ({k},). Got shape {w.shape}.")
    if not (np.all(np.isfinite(w)) and np.all(w >= 0)):
        raise ValueError("weights must be finite and non-negative.")
    xa = x if among is None else x[_check_among(among, k)]
    gram = (x.T * w) @ x
    evals, evecs = np.linalg.eigh(0.5 * (gram + gram.T))
    top = float(evals[-1]) if evals.size else 0.0
    keep = evals > 1e-12 * max(top, np.finfo(float).tiny)
    vecs, vals = evecs[:, keep], evals[keep]
    # Range check: the residual of x_i − x_j outside the range is res_i − res_j, whose largest
    # entry is, per coordinate, the spread max − min of the arms' residuals (likewise for the
    # largest entry of the differences themselves).
    resid = xa - (xa @ vecs) @ vecs.T
    spread = float(np.max(np.ptp(resid, axis=0)))
    scale = float(np.max(np.abs(x))) + float(np.max(np.ptp(xa, axis=0)))
    if spread > 1e-9 * max(scale, 1.0):
        return math.inf
    if vals.size == 0:
        return 0.0
    v = np.ascontiguousarray(xa @ (vecs / np.sqrt(vals)))
    return max(_pair_scan(v, 0.0, 1.0, 1024)[0], 0.0)


# --------------------------------------------------------------------------- rounding
#: :func:`round_design` adjusts the start's total by a heap beyond this many unit steps (each
#: vectorised step costs ``O(p)``; the heap costs ``O(p)`` once and ``O(log p)`` per step).
_ROUND_HEAP_STEPS = 32


def _adams_adjust(counts: IntArray, ws: FloatArray, delta: int) -> IntArray:
    """Add (``delta > 0``) or remove (``delta < 0``) ``|delta|`` pulls one at a time, by a heap.

    The same choices as :func:`round_design`'s vectorised loops: add to the smallest next key
    ``counts_i / w_i`` (lowest index on ties), remove from the largest last key
    ``(counts_i − 1) / w_i`` (highest index on ties); the keys are the same float64 quotients.
    """
    import heapq

    c = counts.tolist()
    wl = ws.tolist()
    if delta > 0:
        heap = [(ci / wi, i) for i, (ci, wi) in enumerate(zip(c, wl, strict=True))]
        heapq.heapify(heap)
        for _ in range(delta):
            _, i = heapq.heappop(heap)
            c[i] += 1
            heapq.heappush(heap, (c[i] / wl[i], i))
    else:
        heap = [(-((ci - 1) / wi), -i) for i, (ci, wi) in enumerate(zip(c, wl, strict=True))]
        heapq.heapify(heap)
        for _ in range(-delta):
            _, mi = heapq.heappop(heap)
            i = -mi
            c[i] -= 1
            heapq.heappush(heap, (-((c[i] - 1) / wl[i]), mi))
    return np.asarray(c, dtype=np.int64)


def round_design(weights: ArrayLike, n: int, *, support_tol: float = 1e-12) -> IntArray:
    """Efficient rounding of a design to ``n`` integer pulls (Pukelsheim 2006, ch. 12).

    Spec 001 App. C / §2.6 (corrected text): with ``p`` support points (``w_i > support_tol``,
    weights normalised on the support) and ``n ≥ p``, start from ``n_i = ⌈(n − p/2) w_i⌉``; while
    ``Σ n_i < n`` increment a count with the smallest ``n_j / w_j``; while ``Σ n_i > n`` decrement
    a count with the largest ``(n_k − 1) / w_k``. This is Adams' divisor apportionment: the
    result equals the first ``n`` pulls of the sequential rule "pull ``argmin_i T_i / w_i``"
    (ties to the lowest index) started from ``T = 0``. The implementation enforces exactly that
    set (the ``n`` smallest keys ``((s − 1)/w_i, i)``, ``s = 1, 2, …``), so the result is

    * exact: ``Σ n_i = n``;
    * at least 1 on every support point and 0 elsewhere;
    * monotone in ``n``: going from ``n`` to ``n + 1`` increments exactly one count by 1.

    Efficiency (spec 001 Lemma 6): rounding a G-optimal design on ``d`` dimensions gives
    ``max_x x^T A⁻¹ x ≤ (1 + (d + d² + 2)/(2n)) d`` for ``n ≥ d``.

    Args:
        weights: Design weights, shape ``(K,)``, finite and non-negative, not all zero.
        n: Total number of pulls.
        support_tol: Weights ``≤ support_tol`` (after normalisation) are outside the support.

    Examples:
        >>> round_design([0.5, 0.25, 0.25, 0.0], 10).tolist()
        [5, 3, 2, 0]

    Returns:
        Integer counts, shape ``(K,)``, dtype int64.

    Raises:
        ValueError: On invalid weights, or if ``n`` is smaller than the support size.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"weights is expected to be a non-empty 1-D array. Got shape {w.shape}.")
    if not (np.all(np.isfinite(w)) and np.all(w >= 0) and w.sum() > 0):
        raise ValueError("weights must be finite, non-negative and not all zero.")
    if isinstance(n, bool) or int(n) != n:
        raise ValueError(f"n is expected to be an integer. Got {n!r}.")
    n = int(n)
    w = w / w.sum()
    supp = np.flatnonzero(w > support_tol)
    p = supp.size
    if n < p:
        raise ValueError(
            f"Efficient rounding needs n >= the support size: n = {n} pulls for p = {p} support "
            f"points (weights > {support_tol:g}). Increase n or sparsify the design."
        )
    ws = w[supp] / w[supp].sum()
    counts = np.maximum(np.ceil((n - p / 2.0) * ws), 1.0).astype(np.int64)
    # Adams keys: the s-th pull of point i has key ((s - 1) / w_i, i). A count vector is the
    # apportionment for n iff it takes the n smallest keys, i.e. every taken "last" key is
    # smaller (lexicographically) than every untaken "next" key.
    total = int(counts.sum())
    if abs(total - n) > _ROUND_HEAP_STEPS:
        counts = _adams_adjust(counts, ws, n - total)
        total = n
    while total < n:  # at most p/2 + 1 iterations (Pukelsheim's bound on the start's error)
        i = int(np.argmin(counts / ws))  # next keys; argmin takes the lowest index on ties
        counts[i] += 1
        total += 1
    while total > n:
        last = (counts - 1) / ws
        i = int(len(last) - 1 - np.argmax(last[::-1]))  # largest key; highest index on ties
        counts[i] -= 1
        total -= 1
    while True:  # exchange until the n smallest keys are taken (normally no iteration)
        last = np.where(counts > 1, (counts - 1) / ws, -np.inf)
        nxt = counts / ws
        i_out = int(len(last) - 1 - np.argmax(last[::-1]))
        i_in = int(np.argmin(nxt))
        if last[i_out] < nxt[i_in] or (last[i_out] == nxt[i_in] and i_out < i_in):
            break
        counts[i_out] -= 1
        counts[i_in] += 1
    out = np.zeros(w.shape[0], dtype=np.int64)
    out[supp] = counts
    return out
