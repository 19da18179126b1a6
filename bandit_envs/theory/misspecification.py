"""Misspecified linear bandits: deviations, the orthogonal estimator, thresholds and bounds.

The math of Section 5 of Li, Ma, Hua & Zhu (2025), "Identifying All ε-Best Arms in (Misspecified)
Linear Bandits" (arXiv 2510.00073; proofs in E-Companion EC.8–EC.10), written once for the
misspecified environments, the task's complexity and the LinFACT-MIS agent. The model is
``μ = Ψθ + Δ_m`` with ``‖Δ_m‖_∞ ≤ L_m`` (eq. 28–29; the bound ``L_∞`` on ``‖μ‖_∞`` of eq. 29 is
not used here, i.e. ``L_∞ = ∞``).

* :func:`chebyshev_deviation`: ``min_θ ‖μ − Ψθ‖_∞``, the smallest ``L_m`` for which ``μ`` is
  realizable (a linear program);
* :func:`orthogonal_estimate`: the estimator of eq. 30 — the ``D_N``-weighted projection of the
  empirical means onto the realizable set — through a closed-form reduction (ours): minimising
  over the deviation first leaves the convex "dead-zone" loss
  ``f(θ) = Σ_k N_k (|μ̃_k − a_kᵀθ| − L_m)_+²``, minimised by a semismooth Newton method;
* :func:`radius_inflation`: the extra confidence radius with ``L_m`` known — ``L_m(√d + 1)`` for
  OLS (Proposition 5.4 says ``L_m√d``; it misses the arm's own deviation, an erratum) and
  ``(√d + 2)L_m`` for the orthogonal parameterization (EC.9.8);
* :func:`structure_threshold`: a certified upper bound ``L̄_μ`` on the level ``L_μ`` of
  Proposition 5.3 beyond which the structured lower bound equals the unstructured one;
* :func:`misspecified_lower_bounds`: two values bracketing the lower bound of the misspecified
  class, and :func:`misspecified_complexity` (what the all-ε-good task reports);
* :func:`residual_deviation`: deviation vectors in the residual space of the features (random,
  or adversarial: flipping the answer of the least-squares linear fit), for instance builders.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.design import transductive_design
from bandit_envs.theory.eps_good import eps_good_culprits, unstructured_eps_good_lower_bound

__all__ = [
    "OrthogonalFit",
    "ResidualDeviation",
    "chebyshev_deviation",
    "dead_zone_loss",
    "misspecified_complexity",
    "misspecified_lower_bounds",
    "orthogonal_estimate",
    "radius_inflation",
    "residual_deviation",
    "structure_threshold",
]

FloatArray = NDArray[np.float64]

#: arms up to which :func:`structure_threshold` solves one linear program per perturbation
#: (``2K`` of them); above, it uses the cheaper bound ``dev(μ) + |s|`` (still certified).
EXACT_THRESHOLD_MAX_ARMS = 200


def _check_features_means(
    features: ArrayLike, means: ArrayLike, who: str
) -> tuple[FloatArray, FloatArray]:
    x = np.asarray(features, dtype=np.float64)
    mu = np.asarray(means, dtype=np.float64).reshape(-1)
    if x.ndim != 2 or x.shape[0] != mu.size or mu.size == 0:
        raise InvalidParameterError(
            f"{who}: features must be a 2-D array with one row per mean ({mu.size}); got shape "
            f"{x.shape}."
        )
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(mu))):
        raise InvalidParameterError(f"{who}: features and means must be finite.")
    return x, mu


def _check_bound(bound: float, who: str) -> float:
    if (
        isinstance(bound, bool)
        or not isinstance(bound, (int, float, np.floating))
        or not (math.isfinite(bound) and bound >= 0)
    ):
        raise InvalidParameterError(f"{who}: L_m must be a finite float >= 0; got {bound!r}.")
    return float(bound)


# --------------------------------------------------------------------------- realizability


def chebyshev_deviation(features: ArrayLike, means: ArrayLike) -> tuple[FloatArray, float]:
    """``(θ_∞, L) = argmin / min_θ ‖μ − Ψθ‖_∞``: the smallest ``L_m`` with ``μ ∈ M`` (eq. 29).

    The linear program ``min t`` s.t. ``−t ≤ μ_k − a_kᵀθ ≤ t`` (HiGHS). ``L = 0`` iff ``μ`` is
    exactly linear in the features. Cost: one LP with ``h + 1`` variables and ``2K``
    constraints.

    Returns:
        ``θ_∞`` (shape ``(h,)``) and ``L = ‖μ − Ψθ_∞‖_∞``.
    """
    from scipy.optimize import linprog  # deferred: scipy.optimize is slow to import

    x, mu = _check_features_means(features, means, "chebyshev_deviation")
    k, h = x.shape
    ones = np.ones((k, 1))
    a_ub = np.block([[x, -ones], [-x, -ones]])
    b_ub = np.r_[mu, -mu]
    c = np.r_[np.zeros(h), 1.0]
    bounds = [(None, None)] * h + [(0.0, None)]
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded below
        raise RuntimeError(f"chebyshev_deviation: the linear program failed ({res.message}).")
    theta = np.asarray(res.x[:h], dtype=np.float64)
    return theta, float(np.max(np.abs(mu - x @ theta)))


# --------------------------------------------------------------------------- the estimator


def dead_zone_loss(
    features: ArrayLike, counts: ArrayLike, sums: ArrayLike, theta: ArrayLike, bound: float
) -> float:
    """``f(θ) = Σ_{k: N_k > 0} N_k (|μ̃_k − a_kᵀθ| − L_m)_+²`` with ``μ̃_k = s_k/N_k``.

    The value of eq. 30 once the deviation is minimised out: for fixed θ,
    ``min_{|δ_k| ≤ L_m} N_k(a_kᵀθ + δ_k − μ̃_k)² = N_k(|μ̃_k − a_kᵀθ| − L_m)_+²``.
    """
    x = np.asarray(features, dtype=np.float64)
    n = np.asarray(counts, dtype=np.float64)
    s = np.asarray(sums, dtype=np.float64)
    pulled = n > 0
    r = s[pulled] / n[pulled] - x[pulled] @ np.asarray(theta, dtype=np.float64)
    excess = np.maximum(np.abs(r) - float(bound), 0.0)
    return float(n[pulled] @ (excess * excess))


@dataclass(frozen=True)
class OrthogonalFit:
    """The orthogonal-parameterization estimate of eq. 30 (:func:`orthogonal_estimate`).

    Attributes:
        theta: ``θ̂_o``, shape ``(h,)``.
        deviation: ``Δ̂_m``, shape ``(K,)``: ``clip(μ̃_k − a_kᵀθ̂_o, ±L_m)`` for pulled arms,
            0 for arms not pulled (no data constrains them; the paper does not say).
        means: ``μ̂ = Ψθ̂_o + Δ̂_m``, shape ``(K,)``.
        objective: ``f(θ̂_o)`` (the dead-zone loss, = the minimum of eq. 30).
        iterations: Newton steps.
        converged: whether the gradient vanished (to round-off) within the cap.
    """

    theta: FloatArray
    deviation: FloatArray
    means: FloatArray
    objective: float
    iterations: int
    converged: bool


def orthogonal_estimate(
    features: ArrayLike,
    counts: ArrayLike,
    sums: ArrayLike,
    bound: float,
    *,
    max_iter: int = 100,
) -> OrthogonalFit:
    """The estimator of eq. 30 by a dead-zone reduction (ours).

    Eq. 30 is ``μ̂ = argmin_{ϑ ∈ M} ‖ϑ − μ̃‖²_{D_N}`` over the realizable set
    ``M = {Ψθ + δ : ‖δ‖_∞ ≤ L_m}`` (``L_∞ = ∞``): a box-constrained least squares in ``h + K``
    variables. Minimising over ``δ`` first (each ``δ_k`` is the clip of the residual) leaves
    ``f(θ) = Σ_k N_k (|μ̃_k − a_kᵀθ| − L_m)_+²`` (:func:`dead_zone_loss`), convex, piecewise
    quadratic and continuously differentiable. It is minimised by a semismooth Newton method with
    backtracking: on the active set ``S = {k : |r_k| > L_m}`` the loss is the least squares
    ``Σ_S N_k (r_k − sign(r_k) L_m)²``, whose minimiser is the Newton step; the iteration ends
    when the gradient vanishes (finitely many steps on a piecewise quadratic). It starts from the
    ordinary least squares estimate (minimum norm in the span of the pulled arms), so with
    ``L_m = 0`` it *is* OLS, and where the minimiser is not unique (every residual within
    ``L_m``) it returns the least-squares one. Then ``δ̂_k = clip(μ̃_k − a_kᵀθ̂, ±L_m)`` on pulled
    arms and 0 on the others, and ``μ̂ = Ψθ̂ + δ̂`` (so a pulled arm's estimate is its empirical
    mean moved at most ``L_m`` toward the linear fit).

    Args:
        features: arm features, shape ``(K, h)`` (reduced coordinates are fine).
        counts: pulls per arm ``N_k ≥ 0``, shape ``(K,)``.
        sums: outcome sums per arm, shape ``(K,)``.
        bound: ``L_m ≥ 0``.
        max_iter: the Newton iteration cap.

    Returns:
        An :class:`OrthogonalFit`.
    """
    who = "orthogonal_estimate"
    bound = _check_bound(bound, who)
    x = np.asarray(features, dtype=np.float64)
    n = np.asarray(counts, dtype=np.float64).reshape(-1)
    s = np.asarray(sums, dtype=np.float64).reshape(-1)
    if x.ndim != 2 or n.shape != (x.shape[0],) or s.shape != n.shape:
        raise InvalidParameterError(
            f"{who}: expected features (K, h), counts (K,) and sums (K,); got shapes {x.shape}, "
            f"{n.shape} and {s.shape}."
        )
    if not (np.all(np.isfinite(x)) and np.all(n >= 0) and np.all(np.isfinite(s))):
        raise InvalidParameterError(
            f"{who}: features, counts and sums must be finite, counts >= 0."
        )
    h = x.shape[1]
    pulled = np.flatnonzero(n > 0)
    if pulled.size == 0:
        zero = np.zeros(h)
        return OrthogonalFit(zero, np.zeros(x.shape[0]), x @ zero, 0.0, 0, True)
    xp, npl = x[pulled], n[pulled]
    tilde = s[pulled] / npl
    # the pulled arms' span: a basis U and coordinates, where the weighted Gram is invertible
    _, sv, vt = np.linalg.svd(xp * np.sqrt(npl)[:, None], full_matrices=False)
    keep = sv > 1e-12 * (sv[0] if sv.size and sv[0] > 0 else 1.0)
    u = vt[keep].T
    zp = xp @ u
    gram = (zp.T * npl) @ zp
    coef = np.linalg.solve(gram, zp.T @ (npl * tilde)) if u.shape[1] else np.zeros(0)

    def loss(c: FloatArray) -> float:
        e = np.maximum(np.abs(tilde - zp @ c) - bound, 0.0)
        return float(npl @ (e * e))

    value = loss(coef)
    iterations, converged = 0, True
    scale = float(npl @ (tilde * tilde)) + 1.0
    if bound > 0.0 and value > 0.0 and u.shape[1] > 0:
        converged = False
        for iterations in range(1, max_iter + 1):  # noqa: B007 - reported
            r = tilde - zp @ coef
            active = np.abs(r) > bound
            target = r - np.sign(r) * bound  # (|r| − L)_+ · sign(r) on the active set
            weights = np.where(active, npl, 0.0)
            grad = -(zp.T @ (weights * target))  # ∇f / 2
            # converged when the gradient is at the round-off level of its own terms
            floor = np.abs(zp).T @ np.abs(weights * target)
            if np.all(np.abs(grad) <= 1e-11 * floor + 1e-15 * scale):
                converged = True
                break
            hess = (zp.T * weights) @ zp + 1e-12 * np.trace(gram) / max(u.shape[1], 1) * np.eye(
                u.shape[1]
            )
            step = -np.linalg.solve(hess, grad)
            slope = float(grad @ step)
            t = 1.0
            while True:
                trial = coef + t * step
                trial_value = loss(trial)
                if trial_value <= value + 1e-4 * 2.0 * t * slope:
                    break
                t *= 0.5
                if t < 1e-12:
                    break
            if t < 1e-12:  # no descent left at floating-point resolution
                converged = True
                break
            coef, value = trial, trial_value
            if value == 0.0:
                converged = True
                break
    theta = u @ coef
    fitted = x @ theta
    deviation = np.zeros(x.shape[0])
    deviation[pulled] = np.clip(tilde - fitted[pulled], -bound, bound)
    means = fitted + deviation
    for arr in (theta, deviation, means):
        arr.setflags(write=False)
    return OrthogonalFit(theta, deviation, means, value, iterations, converged)


def radius_inflation(
    bound: float, dimension: float, estimator: str = "ols", *, paper: bool = False
) -> float:
    """The confidence radius added to ``ε_r`` when ``L_m`` is known (Prop. 5.4; EC.9.8).

    * ``"ols"``: ``L_m(√d + 1)``. The OLS estimate of a G-optimally sampled round errs by
      ``μ̂_i − μ_i = a_iᵀ(θ̂ − θ) − Δ_m(a_i)``: the noise (≤ ``ε_r``), the bias
      ``|a_iᵀV_r⁻¹ Σ_s Δ_m(a_{A_s}) a_{A_s}| ≤ L_m√d`` (EC.8.4) **and the arm's own deviation**
      ``|Δ_m(a_i)| ≤ L_m``, which EC.8.3 leaves out: Proposition 5.4's radius ``ε_r + L_m√d``
      (eq. 35, ``paper=True``) does not cover it, and its clean event fails when the deviation
      is adversarial (tests/agents/eps_good/test_linfact_robust.py shows it). We use the
      corrected radius by default.
    * ``"orthogonal"`` (EC.9.8): ``(√d + 2) L_m`` (the decomposition EC.9.1 is complete: the
      ``2L_m`` covers ``|Δ̂_m − Δ_m|``); ``paper`` changes nothing.

    ``dimension`` is the ``d`` of the design (LinFACT uses ``d_r``, the active span's dimension).
    Like the paper, the bound uses ``‖a‖²_{V_r⁻¹} ≤ d/T_r``, which ceil-rounding of the counts
    weakens by the factor ``1 + |supp π_r|/T_r`` (below 1.2 in round 1, → 1 afterwards).
    """
    bound = _check_bound(bound, "radius_inflation")
    root = math.sqrt(max(float(dimension), 0.0))
    if estimator == "ols":
        return bound * root if paper else bound * (root + 1.0)
    if estimator == "orthogonal":
        return bound * (root + 2.0)
    raise InvalidParameterError(
        f"radius_inflation: estimator must be 'ols' or 'orthogonal'; got {estimator!r}."
    )


# --------------------------------------------------------------------------- Proposition 5.3


def _unstructured_perturbations(
    means: FloatArray, epsilon: float, multiplicative: bool
) -> tuple[FloatArray, FloatArray]:
    """Per arm, the largest upward and downward moves of the closest unstructured alternatives.

    For a culprit with direction ``y`` (identity features) and margin ``b``, the closest
    alternative under an allocation ``p`` is ``μ − b D_p⁻¹y / ‖y‖²_{D_p⁻¹}``; over all ``p`` these
    points form the segment between the single-coordinate moves ``μ − (b/y_k) e_k``, ``k ∈
    supp(y)`` (let ``p_l → 0`` for the other coordinate).
    """
    k = means.size
    targets, margins = eps_good_culprits(
        np.eye(k), means, epsilon, multiplicative=multiplicative, dedupe=False
    )
    up, down = np.zeros(k), np.zeros(k)
    rows, cols = np.nonzero(targets)
    moves = -margins[rows] / targets[rows, cols]
    np.maximum.at(up, cols, np.maximum(moves, 0.0))
    np.minimum.at(down, cols, np.minimum(moves, 0.0))
    return up, down


def structure_threshold(
    features: ArrayLike,
    means: ArrayLike,
    epsilon: float,
    *,
    multiplicative: bool = False,
) -> float:
    """A certified ``L̄_μ ≥ L_μ`` of Proposition 5.3: beyond it, structure does not help.

    Proposition 5.3 (Sec. 5.3, after Réda et al. 2021, Lemma 2): there is ``L_μ ≤ max μ −
    min μ`` such that for ``L_m > L_μ`` the lower bound of the misspecified model equals the
    unstructured one. A sufficient level: every closest unstructured alternative — for every
    culprit and every allocation — is itself realizable, ``dev(ϑ) ≤ L_m`` with
    ``dev(v) = min_θ ‖v − Ψθ‖_∞`` (:func:`chebyshev_deviation`); then the infimum over the
    alternatives of the misspecified model is attained at the unstructured minimiser and the two
    bounds coincide. Those alternatives lie on segments between single-coordinate moves
    ``μ + s e_k`` (:func:`_unstructured_perturbations`), and ``dev`` is convex, so it is enough to
    check, for each arm, its largest upward and downward move: ``L̄_μ = max_k max(dev(μ + u_k e_k),
    dev(μ + l_k e_k))`` (``2K`` linear programs). For ``K >`` :data:`EXACT_THRESHOLD_MAX_ARMS`
    the cheaper certified bound ``dev(μ) + max_k max(u_k, −l_k)`` is returned instead.
    ``L_∞ = ∞`` (no bound on ``‖μ‖_∞``). The derivation of the endpoints is ours.

    Args:
        features: arm features ``Ψ``, shape ``(K, h)``.
        means: the true means ``μ``, shape ``(K,)``.
        epsilon: the slack ``ε > 0``.
        multiplicative: the multiplicative all-ε-good definition.

    Returns:
        ``L̄_μ``.
    """
    x, mu = _check_features_means(features, means, "structure_threshold")
    up, down = _unstructured_perturbations(mu, float(epsilon), multiplicative)
    if mu.size > EXACT_THRESHOLD_MAX_ARMS:
        base = chebyshev_deviation(x, mu)[1]
        return base + float(max(up.max(), -down.min()))
    worst = 0.0
    for k in range(mu.size):  # 2K small LPs; not a hot path (once per instance)
        for move in (up[k], down[k]):
            if move != 0.0:
                shifted = mu.copy()
                shifted[k] += move
                worst = max(worst, chebyshev_deviation(x, shifted)[1])
    return max(worst, chebyshev_deviation(x, mu)[1])


def misspecified_lower_bounds(
    features: ArrayLike,
    means: ArrayLike,
    epsilon: float,
    *,
    sigma: float = 1.0,
    multiplicative: bool = False,
    tol: float = 1e-4,
) -> tuple[float, float]:
    """``(T_lin, T_unstr)``, bracketing ``T*`` of the misspecified class (Sec. 5, Theorem 3.2).

    For the realizable set ``M`` of eq. 29 with any ``L_m ≥ dev(μ)``, the characteristic time
    ``T*_M`` of Theorem 3.2's construction over ``M`` satisfies ``T_lin ≤ T*_M ≤ T_unstr``:

    * the alternatives ``μ + Ψη`` (the same deviation, another θ) are in ``M``, and their
      information is that of the linear model with the *true* margins:
      ``T_lin = min_p max_x 2‖y_x‖²_{V_p⁻¹}/b_x²`` with directions ``y_x`` from the features and
      margins ``b_x`` from ``μ`` (:func:`bandit_envs.theory.eps_good.eps_good_culprits`); fewer
      alternatives can only make the bound smaller, so ``T*_M ≥ T_lin``;
    * ``M ⊆ R^K``, so ``T*_M ≤ T_unstr``, the unstructured bound (identity features), with
      equality for ``L_m ≥`` :func:`structure_threshold` (Proposition 5.3).

    Both are multiplied by ``σ²`` (``E[τ_δ] ≥ T*·log(1/(2.4δ))`` for ``N(μ_i, σ²)`` rewards).
    The bracket is ours (the paper does not compute the misspecified bound).

    Returns:
        ``(T_lin, T_unstr)``.
    """
    x, mu = _check_features_means(features, means, "misspecified_lower_bounds")
    var = float(sigma) ** 2
    unstr = unstructured_eps_good_lower_bound(
        mu, epsilon, sigma=1.0, multiplicative=multiplicative, tol=tol
    )
    return var * _linear_shift_bound(x, mu, epsilon, multiplicative, tol), var * unstr.t_star


def _linear_shift_bound(
    x: FloatArray, mu: FloatArray, epsilon: float, multiplicative: bool, tol: float
) -> float:
    """``T_lin`` of :func:`misspecified_lower_bounds` for σ = 1."""
    targets, margins = eps_good_culprits(x, mu, epsilon, multiplicative=multiplicative)
    norms = np.einsum("ij,ij->i", targets, targets)
    live = norms > 1e-24
    if np.any(~live & (margins > 0)):
        # two arms with equal features but different means: no linear shift separates them,
        # these culprits cost nothing in T_lin (infinite information)
        targets, margins = targets[live], margins[live]
    if targets.shape[0] == 0:
        return 0.0
    res = transductive_design(x, targets, 2.0 / margins**2, tol=tol, method="interior_point")
    return float(res.value)


def misspecified_complexity(
    features: ArrayLike,
    means: ArrayLike,
    epsilon: float,
    bound: float,
    *,
    t_unstructured: float | None = None,
    sigma: float = 1.0,
    multiplicative: bool = False,
) -> dict[str, float]:
    """Complexity measures of a misspecified instance whose bound ``L_m`` is told.

    Returns ``"misspecification"`` (``L_m``), ``"minimax_deviation"``
    (:func:`chebyshev_deviation`, the smallest valid ``L_m``), ``"L_mu_bound"``
    (:func:`structure_threshold`), ``"T_star_linear"`` (``T_lin`` of
    :func:`misspecified_lower_bounds`) and ``"lower_bound"``: the unstructured ``T*`` when
    ``L_m ≥ L̄_μ`` (then exact, Proposition 5.3), else ``T_lin`` (a valid lower bound of the
    class, possibly loose). ``t_unstructured`` saves recomputing the unstructured ``T*``.
    """
    x, mu = _check_features_means(features, means, "misspecified_complexity")
    bound = _check_bound(bound, "misspecified_complexity")
    var = float(sigma) ** 2
    t_lin = var * _linear_shift_bound(x, mu, epsilon, multiplicative, 1e-4)
    if t_unstructured is None:
        t_unstr = misspecified_lower_bounds(
            x, mu, epsilon, sigma=sigma, multiplicative=multiplicative
        )[1]
    else:
        t_unstr = float(t_unstructured)
    threshold = structure_threshold(x, mu, epsilon, multiplicative=multiplicative)
    return {
        "misspecification": bound,
        "minimax_deviation": chebyshev_deviation(x, mu)[1],
        "L_mu_bound": threshold,
        "T_star_linear": t_lin,
        "lower_bound": t_unstr if bound >= threshold else t_lin,
    }


# --------------------------------------------------------------------------- deviations


@dataclass(frozen=True)
class ResidualDeviation:
    """A deviation vector in the residual space of the features (:func:`residual_deviation`).

    Attributes:
        deviation: ``Δ_m``, shape ``(K,)``, with ``Ψᵀ Δ_m = 0`` and ``‖Δ_m‖_∞ ≤ L_m``.
        target: the arm the adversary pushes across the threshold (``None`` for random).
        flip_level: the ``L_m`` above which the adversarial deviation flips the answer of the
            least-squares fit (``inf`` if no arm can be flipped; ``None`` for random).
    """

    deviation: FloatArray
    target: int | None
    flip_level: float | None


def _residual_projector(x: FloatArray) -> FloatArray:
    """``I − Ψ Ψ⁺``: the orthogonal projector onto the residual space ``{v : Ψᵀv = 0}``."""
    q, sv, _ = np.linalg.svd(x, full_matrices=False)
    keep = sv > 1e-10 * (sv[0] if sv.size and sv[0] > 0 else 1.0)
    basis = q[:, keep]
    return np.eye(x.shape[0]) - basis @ basis.T


def residual_deviation(
    features: ArrayLike,
    linear_means: ArrayLike,
    bound: float,
    epsilon: float,
    kind: str,
    rng: np.random.Generator | None = None,
) -> ResidualDeviation:
    """A deviation ``Δ_m`` with ``ΨᵀΔ_m = 0`` and ``‖Δ_m‖_∞ ≤ L_m`` (for instance builders).

    The paper runs no misspecified experiment; these deviations are our construction. Because
    ``ΨᵀΔ_m = 0``, the linear part ``ν = Ψθ`` is exactly the least-squares fit of the
    true means ``μ = ν + Δ_m`` (equal weights): the deviation is invisible to a linear fit of
    all arms, and nothing of it can be absorbed into θ.

    * ``"random"``: random signs ``ζ ∈ {±1}^K`` from ``rng``, projected onto the residual space
      and rescaled so that ``‖Δ_m‖_∞ = L_m``.
    * ``"adversarial"``: for each arm ``k`` other than the best arm ``b`` of ``ν``, the linear
      program ``max ±(Δ_k − Δ_b)`` s.t. ``ΨᵀΔ = 0``, ``‖Δ‖_∞ ≤ 1`` (``+`` to raise a bad arm
      toward the threshold ``ν_b − ε``, ``−`` to sink a good arm below it) gives the push
      ``π_k`` per unit of ``L_m``; arm ``k`` crosses the threshold once ``L_m > m_k/π_k``
      (``m_k`` its margin to the threshold of ``ν``). The arm with the smallest such level is the
      target, and ``Δ_m = L_m Δ_1`` for its LP solution ``Δ_1``. For ``L_m`` above the flip
      level, ``G_ε(μ) ≠ G_ε(ν)``: the answer the least-squares linear fit gives is wrong (the
      level assumes the best arm stays best; the environments grade on the true means anyway).
      At exactly the flip level an arm sits on the threshold (refused by the task).

    Args:
        features: ``Ψ``, shape ``(K, h)``.
        linear_means: ``ν = Ψθ``, shape ``(K,)``.
        bound: ``L_m ≥ 0``.
        epsilon: ``ε > 0`` (additive), for the adversarial target.
        kind: ``"random"`` or ``"adversarial"``.
        rng: the generator of the random signs (``kind="random"``).

    Returns:
        A :class:`ResidualDeviation`.
    """
    from scipy.optimize import linprog  # deferred: scipy.optimize is slow to import

    who = "residual_deviation"
    x, nu = _check_features_means(features, linear_means, who)
    bound = _check_bound(bound, who)
    proj = _residual_projector(x)
    k = nu.size
    if kind == "random":
        if rng is None:
            raise InvalidParameterError(f"{who}: kind='random' needs a generator rng.")
        signs = rng.choice(np.array([-1.0, 1.0]), size=k)
        r = proj @ signs
        top = float(np.max(np.abs(r)))
        dev = np.zeros(k) if top <= 1e-12 or bound == 0.0 else bound * r / top
        return ResidualDeviation(dev, None, None)
    if kind != "adversarial":
        raise InvalidParameterError(f"{who}: kind must be 'random' or 'adversarial'; got {kind!r}.")
    best = int(np.argmax(nu))
    threshold = float(nu[best]) - float(epsilon)
    # equality constraints ΨᵀΔ = 0 through an orthonormal basis of the column space
    q, sv, _ = np.linalg.svd(x, full_matrices=False)
    basis = q[:, sv > 1e-10 * (sv[0] if sv.size and sv[0] > 0 else 1.0)]
    best_level, best_dir, target = math.inf, np.zeros(k), None
    for arm in range(k):  # K small LPs, once per instance
        if arm == best:
            continue
        good = nu[arm] >= threshold
        c = np.zeros(k)
        c[arm], c[best] = (1.0, -1.0) if good else (-1.0, 1.0)  # linprog minimises cᵀΔ
        res = linprog(
            c, A_eq=basis.T, b_eq=np.zeros(basis.shape[1]), bounds=[(-1.0, 1.0)] * k, method="highs"
        )
        push = -float(res.fun) if res.status == 0 else 0.0
        if push <= 1e-12:
            continue
        level = abs(float(nu[arm]) - threshold) / push
        if level < best_level:
            best_level, best_dir, target = level, np.asarray(res.x, dtype=np.float64), arm
    return ResidualDeviation(bound * best_dir, target, best_level)
