"""All ε-good arms in (linear) bandits: the good set, its gaps, the lower bound and GLR statistics.

The math of Li, Ma, Hua & Zhu (2025), "Identifying All ε-Best Arms in (Misspecified) Linear
Bandits" (arXiv 2510.00073), written once for the :class:`~bandit_envs.core.tasks.AllEpsilonGood`
task, the ε-good environments and the agents:

* :func:`eps_good_threshold`, :func:`good_mask` and :func:`eps_good_gaps`: ``G_ε`` (Definition
  2.1, eq. (2); the threshold is the task's), the gaps ``α_ε``, ``β_ε`` (Sec. 2),
  ``ξ = min(α_ε, β_ε)/16`` (Theorems 4.1–4.2) and the round ``R_upper`` by which LinFACT stops
  on its clean event (Lemma EC.16);
* :func:`eps_good_lower_bound`: the characteristic time ``T*(μ)`` of Theorem 3.2 (eq. (19),
  Sec. 3) and its optimal allocation ``p*``, solved with a certified duality gap;
* :func:`eps_good_glr`: the per-culprit GLR statistics of the Gaussian linear problem
  (App. EC.2, Proposition EC.1 with EC.4.18 / EC.4.22), for Track-and-Stop style stopping rules.

Culprits (Theorem 3.2). With arm ``1`` the best arm (the paper assumes it unique; among tied best
arms we take the lowest index, so that ``T*`` is defined on instances with ties such as the static
instances of App. EC.12.2), ``y_ij = a_i − a_j`` for ``i ∈ G_ε, j ≠ i`` with margin
``b_ij = y_ijᵀθ + ε = μ_i − μ_j + ε`` (an alternative where good arm ``i`` falls more than ε below
arm ``j``), and ``y_m = a_1 − a_m`` for ``m ∉ G_ε`` with margin ``b_m = y_mᵀθ − ε`` (an alternative
where bad arm ``m`` rises to within ε of the best arm). The information of culprit ``x`` under an
allocation ``p`` is ``C_x(p) = b_x² / (2‖y_x‖²_{V_p⁻¹})`` (EC.4.18, EC.4.22), and

``T*(μ) = min_{p ∈ S_K} max_x 2‖y_x‖²_{V_p⁻¹} / b_x²``,  ``V_p = Σ_i p_i a_i a_iᵀ``,

so that every δ-PAC algorithm has ``E[τ_δ] ≥ T*(μ) log(1/(2.4δ))`` for ``N(μ_i, 1)`` rewards (σ²
times that for ``N(μ_i, σ²)``). With no bad arm the second family is empty. With
identity features it is the unstructured bound of Al Marjani et al. (2022) (Remark 3.3).

Multiplicative variant (``G_ε = {i : μ_i ≥ (1 − ε)·max μ}``; mentioned, not studied, by the paper):
the same construction with ``y_ij = a_i − (1 − ε)a_j``, ``b_ij = μ_i − (1 − ε)μ_j`` and
``y_m = (1 − ε)a_1 − a_m``, ``b_m = (1 − ε)μ_1 − μ_m`` (each alternative is again a half-space of
θ, so the closed forms of EC.4.12 / EC.4.20 carry over). This derivation is ours.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bandit_envs.errors import InvalidInstanceError, InvalidParameterError
from bandit_envs.theory.design import transductive_design

__all__ = [
    "DEFAULT_TOL",
    "EpsGoodGLR",
    "EpsGoodGaps",
    "EpsGoodLowerBound",
    "eps_good_culprits",
    "eps_good_gaps",
    "eps_good_glr",
    "eps_good_lower_bound",
    "check_epsilon",
    "eps_good_threshold",
    "threshold_from_best",
    "good_mask",
    "unstructured_eps_good_lower_bound",
]

FloatArray = NDArray[np.float64]

#: Relative duality gap certified by :func:`eps_good_lower_bound` by default.
DEFAULT_TOL = 1e-4


def _means(means: ArrayLike, who: str) -> FloatArray:
    mu = np.asarray(means, dtype=np.float64).reshape(-1)
    if mu.size == 0:
        raise InvalidParameterError(f"{who}: means must not be empty.")
    if not np.all(np.isfinite(mu)):
        raise InvalidParameterError(f"{who}: means must be finite; got {mu.tolist()!r}.")
    return mu


def check_epsilon(epsilon: object, multiplicative: bool) -> float:
    """``ε`` as a float: finite, ``> 0``, and ``≤ 1`` with the multiplicative definition.

    The check of the ``AllEpsilonGood`` task, whose messages these are.

    Raises:
        InvalidParameterError: ``epsilon`` is not a finite float ``>= 0``.
        InvalidInstanceError: ``epsilon`` is 0, or above 1 with the multiplicative definition.
    """
    who = "AllEpsilonGood"
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise InvalidParameterError(f"{who}: epsilon must be a finite float >= 0; got {epsilon!r}.")
    eps = float(epsilon)
    if not np.isfinite(eps) or eps < 0:
        raise InvalidParameterError(f"{who}: epsilon must be a finite float >= 0; got {epsilon!r}.")
    if eps == 0.0:
        raise InvalidInstanceError(
            f"{who}: epsilon must be > 0 (with epsilon = 0 the best arm sits on the "
            "threshold and the problem has infinite complexity; use the best-arm task instead)."
        )
    if multiplicative and eps > 1.0:
        raise InvalidInstanceError(
            f"{who}: the multiplicative definition needs 0 < epsilon <= 1, got {eps!r}."
        )
    return eps


def eps_good_threshold(means: ArrayLike, epsilon: float, *, multiplicative: bool = False) -> float:
    """The threshold of ``G_ε``: ``max μ − ε``, or ``(1 − ε)·max μ`` when multiplicative.

    Li, Ma, Hua & Zhu (2025), eq. (2); the multiplicative variant is the one the paper mentions.
    ``epsilon`` is checked as the ``AllEpsilonGood`` task checks it (``ε > 0``, and ``ε ≤ 1`` when
    multiplicative), and the threshold is the task's, computed in the same floating-point order.

    Raises:
        InvalidParameterError: ``epsilon`` is not a finite float ``>= 0``.
        InvalidInstanceError: ``epsilon`` is 0, or above 1 with the multiplicative definition.
    """
    eps = check_epsilon(epsilon, multiplicative)
    return threshold_from_best(float(np.max(np.asarray(means, dtype=float))), eps, multiplicative)


def threshold_from_best(best_mean: float, epsilon: float, multiplicative: bool) -> float:
    """``best_mean − ε``, or ``(1 − ε)·best_mean`` when multiplicative; ``ε`` is not checked.

    The arithmetic of :func:`eps_good_threshold`, for callers that checked ``ε`` once already
    (the task, whose agents ask for the threshold of their estimates after every pull).
    """
    return (1.0 - epsilon) * best_mean if multiplicative else best_mean - epsilon


def good_mask(means: ArrayLike, epsilon: float, *, multiplicative: bool = False) -> np.ndarray:
    """``G_ε`` as a boolean mask: ``μ_i ≥`` the task's threshold (Li et al. 2025, eq. (2), ``≥``).

    The threshold is :func:`eps_good_threshold` (``max μ − ε``, or ``(1 − ε)·max μ``). For
    example ``μ = (1, 0.9, 0.5)``, ``ε = 0.1`` gives ``{0, 1}`` (arm 1 is on the threshold).

    Args:
        means: the means ``μ`` (true or estimated), shape ``(K,)``.
        epsilon: the slack ``ε > 0``.
        multiplicative: use the multiplicative definition.

    Returns:
        A boolean array of shape ``(K,)``.
    """
    mu = _means(means, "good_mask")
    return mu >= eps_good_threshold(mu, epsilon, multiplicative=multiplicative)


@dataclass(frozen=True)
class EpsGoodGaps:
    """The good set and the gaps of an all-ε-good instance (Li et al. 2025, Sec. 2).

    Attributes:
        threshold: ``max μ − ε`` (or ``(1 − ε)·max μ``).
        best: index of the best arm (lowest index among ties).
        good: boolean mask of ``G_ε``, shape ``(K,)``.
        gaps: ``Δ_i = max μ − μ_i``, shape ``(K,)``.
        alpha: ``α_ε = min_{i ∈ G_ε} (μ_i − threshold)`` (0 if an arm is on the threshold).
        beta: ``β_ε = min_{i ∉ G_ε} (threshold − μ_i)``, ``inf`` if every arm is good.
        xi: ``ξ = min(α_ε, β_ε)/16`` (the "minimum gap" of Theorems 4.1–4.2).
        r_upper: ``R_upper = max(⌈log₂(4/α_ε)⌉, ⌈log₂(4/β_ε)⌉)``, at least 1 (LinFACT runs at
            least one round); the ``β_ε`` term is absent when every arm is good; ``inf`` when
            ``α_ε = 0``.
    """

    threshold: float
    best: int
    good: np.ndarray
    gaps: np.ndarray
    alpha: float
    beta: float
    xi: float
    r_upper: float

    @property
    def good_set(self) -> tuple[int, ...]:
        """``G_ε`` as a sorted tuple of arm indices."""
        return tuple(int(i) for i in np.flatnonzero(self.good))


def _rounds(gap: float) -> float:
    if gap == math.inf:
        return 1.0
    if gap <= 0.0:
        return math.inf
    # the tiny slack keeps exact powers of two exact (⌈log₂ 8⌉ = 3 despite round-off)
    return float(max(1, math.ceil(math.log2(4.0 / gap) - 1e-12)))


def eps_good_gaps(means: ArrayLike, epsilon: float, *, multiplicative: bool = False) -> EpsGoodGaps:
    """``G_ε``, ``α_ε``, ``β_ε``, ``ξ`` and ``R_upper`` of the means (Li et al. 2025, Sec. 2).

    Additive: ``α_ε = min_{i∈G_ε}(ε − Δ_i)``, ``β_ε = min_{i∉G_ε}(Δ_i − ε)``. Multiplicative: the
    same distances to the threshold ``(1 − ε)·max μ``. Nothing is refused here: an arm on the
    threshold gives ``α_ε = 0`` and ``R_upper = inf`` (e.g. ``μ = (1, 0.9, 0.5)``, ``ε = 0.1``
    gives ``G_ε = {0, 1}``, ``α_ε = 0``, ``β_ε = 0.4``).

    Raises:
        InvalidInstanceError: multiplicative definition with a best mean ``≤ 0`` (as the task).
    """
    mu = _means(means, "eps_good_gaps")
    eps = check_epsilon(epsilon, multiplicative)
    best = int(np.argmax(mu))
    if multiplicative and mu[best] <= 0.0:
        raise InvalidInstanceError(
            f"eps_good_gaps: the multiplicative definition needs a positive best mean; the best "
            f"mean here is {float(mu[best])!r}."
        )
    thr = threshold_from_best(float(np.max(mu)), eps, multiplicative)
    good = mu >= thr
    alpha = float(np.min(mu[good] - thr))
    beta = float(np.min(thr - mu[~good])) if np.any(~good) else math.inf
    r_upper = max(_rounds(alpha), _rounds(beta))
    return EpsGoodGaps(
        threshold=thr,
        best=best,
        good=good,
        gaps=float(mu[best]) - mu,
        alpha=alpha,
        beta=beta,
        xi=min(alpha, beta) / 16.0,
        r_upper=r_upper if r_upper == math.inf else int(r_upper),
    )


def _scale_offset(epsilon: float, multiplicative: bool) -> tuple[float, float]:
    """``(s, c)`` with pair culprits ``y = a_i − s·a_j``, ``b = μ_i − s·μ_j + c`` (module doc)."""
    return (1.0 - epsilon, 0.0) if multiplicative else (1.0, epsilon)


def _culprits(
    mu: FloatArray, good: np.ndarray, best: int, epsilon: float, multiplicative: bool
) -> tuple[np.ndarray, np.ndarray, FloatArray, np.ndarray, FloatArray, float]:
    """Index arrays and margins of both culprit families (Theorem 3.2; module docstring).

    Returns:
        ``(i, j, b_pair, m, b_bad, s)``: pairs ``(i, j)``, ``i ∈ G_ε``, ``j ≠ i``, with margins
        ``b_ij``; bad arms ``m`` with margins ``b_m``; and the scale ``s`` of the directions.
    """
    s, c = _scale_offset(epsilon, multiplicative)
    k = mu.shape[0]
    good_idx = np.flatnonzero(good)
    ii = np.repeat(good_idx, k)
    jj = np.tile(np.arange(k), good_idx.size)
    keep = ii != jj
    ii, jj = ii[keep], jj[keep]
    bad_idx = np.flatnonzero(~good)
    b_pair = mu[ii] - s * mu[jj] + c
    b_bad = s * mu[best] - mu[bad_idx] - c
    return ii, jj, b_pair, bad_idx, b_bad, s


def eps_good_culprits(
    features: ArrayLike,
    means: ArrayLike,
    epsilon: float,
    *,
    multiplicative: bool = False,
    dedupe: bool = True,
) -> tuple[FloatArray, FloatArray]:
    """Directions ``y_x`` and margins ``b_x`` of every culprit of Theorem 3.2 (module doc).

    Pairs ``(i, j)``, ``i ∈ G_ε``, ``j ≠ i`` first (``y = a_i − s·a_j``, ``b = μ_i − s·μ_j + c``),
    then bad arms ``m`` (``y = s·a_1 − a_m``, ``b = s·μ_1 − μ_m − c``), with ``(s, c) = (1, ε)``
    (additive) or ``(1 − ε, 0)`` (multiplicative) and ``G_ε``, arm 1 computed on ``means`` (true
    or estimated). The allocation of Theorem 3.2 is the transductive design with targets ``y``
    and weights ``2/b²``; a Track-and-Stop agent uses it on ``μ̂``. With ``dedupe`` (additive
    only) a pair of good arms appears once, with the smaller margin (``y_ji = −y_ij``). Margins
    are not floored: an estimated arm on the threshold gives ``b = 0``.

    Returns:
        ``(targets (J, h), margins (J,))``.
    """
    x = np.asarray(features, dtype=np.float64)
    mu = _means(means, "eps_good_culprits")
    if x.ndim != 2 or x.shape[0] != mu.size:
        raise InvalidParameterError(
            f"eps_good_culprits: features must be a 2-D array with one row per mean ({mu.size}); "
            f"got shape {x.shape}."
        )
    good = good_mask(mu, epsilon, multiplicative=multiplicative)
    best = int(np.argmax(mu))
    ii, jj, b_pair, bad, b_bad, s = _culprits(mu, good, best, epsilon, multiplicative)
    if dedupe and not multiplicative:
        both = good[jj]
        keep = ~both | (mu[ii] < mu[jj]) | ((mu[ii] == mu[jj]) & (ii < jj))
        ii, jj, b_pair = ii[keep], jj[keep], b_pair[keep]
    targets = np.vstack([x[ii] - s * x[jj], s * x[best] - x[bad]])
    return targets, np.r_[b_pair, b_bad]


@dataclass(frozen=True)
class EpsGoodLowerBound:
    """The lower bound ``T*(μ)`` of Theorem 3.2 and its optimal allocation (Li et al. 2025).

    Attributes:
        t_star: ``σ²·T*(μ)`` at the returned allocation (an upper estimate of the optimum:
            the optimum lies in ``[certified, t_star]``).
        weights: the optimal allocation ``p*`` over the ``K`` arms (EC.4.8), shape ``(K,)``.
        certified: a certified lower bound on the optimum (duality-gap certificate).
        converged: whether ``(t_star − certified) ≤ tol·t_star`` was certified.
        iterations: Newton steps of the interior-point solver.
        gaps: the :class:`EpsGoodGaps` of the instance.
    """

    t_star: float
    weights: np.ndarray
    certified: float
    converged: bool
    iterations: int
    gaps: EpsGoodGaps

    @property
    def relative_gap(self) -> float:
        """``(t_star − certified)/t_star`` (0 when ``t_star = 0``)."""
        return (self.t_star - self.certified) / self.t_star if self.t_star > 0 else 0.0


def eps_good_lower_bound(
    features: ArrayLike,
    theta: ArrayLike,
    epsilon: float,
    *,
    sigma: float = 1.0,
    multiplicative: bool = False,
    tol: float = DEFAULT_TOL,
    max_iter: int = 300,
) -> EpsGoodLowerBound:
    """``T*(μ)`` of Theorem 3.2 (Li et al. 2025, eq. (19)) and the optimal allocation ``p*``.

    ``T*(μ) = min_{p ∈ S_K} max{ max_{i∈G_ε, j≠i} 2‖a_i − a_j‖²_{V_p⁻¹}/(μ_i − μ_j + ε)²,
    max_{m∉G_ε} 2‖a_1 − a_m‖²_{V_p⁻¹}/(μ_1 − μ_m − ε)² }``, times ``σ²`` for ``N(0, σ²)`` noise:
    ``E[τ_δ] ≥ T*·log(1/(2.4δ))``. It is a transductive design problem
    (:func:`bandit_envs.theory.design.transductive_design` with targets ``y_x`` and weights
    ``2/b_x²``), convex in ``p`` (a max of matrix-fractional functions). The features are projected
    onto their span first (every ``y_x`` lies in it), so rank-deficient features are fine (the
    Free-Wilson features of the paper's Sec. 7.2 have rank 16 < 21). Memory: ``O(|G_ε|·K·h)`` for
    the culprits.

    Solver: the interior-point method of ``transductive_design`` (``method="interior_point"``:
    primal–dual Newton steps on working sets of culprits and arms grown by constraint and
    column generation) with the certificate ``T* ≥ 2h_q(p) − max_k d_k(p)``; the result is
    certified to the relative tolerance ``tol`` (default :data:`DEFAULT_TOL` = 1e-4; reported in
    ``converged``/``certified``). On a machine whose cores are busy, multi-threaded BLAS slows
    the factorisations of the large instances down: set ``OPENBLAS_NUM_THREADS=1``, as the
    sweeps' workers do (``docs/performance.md`` has the timings). Worked values: ``K = 2``,
    ``e_i``, ``μ = (1, 0)``, ``ε = 0.5``: ``T* = 32`` (``8(1/p_1 + 1/p_2)`` at ``p = (1/2, 1/2)``);
    the static instance of App. EC.12.2 with ``d = 8``: ``T* = 120`` at
    ``p = (0.2, 2/15 ×3, 0.1 ×4)``.

    Args:
        features: arm features ``a_i``, shape ``(K, h)`` (identity for unstructured bandits).
        theta: the parameter θ, shape ``(h,)``.
        epsilon: the slack ``ε > 0``.
        sigma: the noise standard deviation σ ≥ 0 (``T*`` scales with σ²; with σ = 0 the bound
            is 0 and the weights are those of σ = 1).
        multiplicative: use the multiplicative definition (module docstring).
        tol: relative tolerance of the certified duality gap, in ``(0, 1)``.
        max_iter: Newton steps per interior-point round.

    Returns:
        An :class:`EpsGoodLowerBound`.

    Raises:
        InvalidParameterError: bad shapes or values.
        InvalidInstanceError: an arm on the threshold (``α_ε = 0`` or ``β_ε = 0``: ``T* = ∞``),
            or the multiplicative definition with a best mean ``≤ 0``.
    """
    who = "eps_good_lower_bound"
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise InvalidParameterError(
            f"{who}: features must be a 2-D array (K, h) with K, h >= 1; got shape {x.shape}."
        )
    if not np.all(np.isfinite(x)):
        raise InvalidParameterError(f"{who}: features must be finite; it contains NaN or inf.")
    th = np.asarray(theta, dtype=np.float64)
    if th.shape != (x.shape[1],):
        raise InvalidParameterError(
            f"{who}: theta must have shape ({x.shape[1]},) to match features {x.shape}; got "
            f"shape {th.shape}."
        )
    sigma = float(sigma)
    if not (np.isfinite(sigma) and sigma >= 0.0):
        raise InvalidParameterError(f"{who}: sigma must be a finite float >= 0; got {sigma!r}.")
    mu = _means(x @ th, who)
    gaps = eps_good_gaps(mu, epsilon, multiplicative=multiplicative)
    if gaps.alpha <= 0.0 or gaps.beta <= 0.0:
        on = np.flatnonzero(mu == gaps.threshold)
        raise InvalidInstanceError(
            f"{who}: arm(s) {on.tolist()} lie exactly on the threshold {gaps.threshold!r}: "
            "alpha_eps or beta_eps is 0 and T* is infinite (Li et al. 2025, Sec. 2)."
        )
    targets, margins = eps_good_culprits(x, mu, epsilon, multiplicative=multiplicative)
    if targets.shape[0] == 0:  # a single arm: nothing to identify
        return EpsGoodLowerBound(0.0, np.ones(x.shape[0]), 0.0, True, 0, gaps)
    res = transductive_design(
        x, targets, 2.0 / margins**2, tol=tol, max_iter=max_iter, method="interior_point"
    )
    var = sigma * sigma
    weights = res.weights.copy()
    weights.setflags(write=False)
    return EpsGoodLowerBound(
        t_star=var * res.value,
        weights=weights,
        certified=var * res.lower_bound,
        converged=res.converged,
        iterations=res.iterations,
        gaps=gaps,
    )


def unstructured_eps_good_lower_bound(
    means: ArrayLike, epsilon: float, **kwargs: object
) -> EpsGoodLowerBound:
    """``T*`` of the unstructured Gaussian bandit: identity features (Remark 3.3).

    This is Al Marjani et al. (2022)'s all-ε lower bound as Theorem 3.2 states it; ``**kwargs``
    go to :func:`eps_good_lower_bound` (``sigma``, ``multiplicative``, ``tol``, ``max_iter``).
    """
    mu = _means(means, "unstructured_eps_good_lower_bound")
    return eps_good_lower_bound(np.eye(mu.size), mu, epsilon, **kwargs)  # type: ignore[arg-type]


@dataclass(frozen=True)
class EpsGoodGLR:
    """Per-culprit GLR statistics on the empirical instance (Li et al. 2025, App. EC.2).

    Attributes:
        means: the estimated means ``μ̂ = Aθ̂``, shape ``(K,)``.
        good: boolean mask of the empirical good set ``Ĝ_ε``.
        best: the empirical best arm (lowest index among ties).
        pair_stats: ``Λ̂_ij`` for ``i ∈ Ĝ_ε`` (rows, in increasing arm order) and every arm ``j``
            (columns), shape ``(|Ĝ_ε|, K)``; ``inf`` at ``j = i``.
        bad_stats: ``Λ̂_m`` for every arm, shape ``(K,)``; ``inf`` for ``m ∈ Ĝ_ε``.
        statistic: ``min_x Λ̂_x`` (``inf`` when there is no culprit, i.e. ``K = 1``).
        culprit: the minimising culprit, ``("pair", i, j)`` or ``("bad", m)`` (``None`` if none).
    """

    means: np.ndarray
    good: np.ndarray
    best: int
    pair_stats: np.ndarray
    bad_stats: np.ndarray
    statistic: float
    culprit: tuple[str, int] | tuple[str, int, int] | None

    @property
    def good_set(self) -> tuple[int, ...]:
        """``Ĝ_ε`` as a sorted tuple."""
        return tuple(int(i) for i in np.flatnonzero(self.good))


def _glr_ratio(margin: FloatArray, norms: FloatArray, sigma: float) -> FloatArray:
    """``max(b, 0)²/(2σ²‖y‖²)``, ``inf`` for a positive margin with ``‖y‖ = 0`` or ``σ = 0``."""
    b = np.maximum(margin, 0.0)
    num = b * b
    den = 2.0 * sigma * sigma * np.maximum(norms, 0.0)
    out = np.full(num.shape, np.inf)
    np.divide(num, den, out=out, where=den > 0.0)
    out[(den <= 0.0) & (num == 0.0)] = 0.0
    return out


def eps_good_glr(
    features: ArrayLike,
    theta_hat: ArrayLike | None,
    gram_inv: ArrayLike | None,
    epsilon: float,
    *,
    sigma: float = 1.0,
    multiplicative: bool = False,
    projected: ArrayLike | None = None,
    leverages: ArrayLike | None = None,
    means: ArrayLike | None = None,
) -> EpsGoodGLR:
    """GLR statistics ``Λ̂_{t,x}`` of the empirical instance's culprits (Li et al. 2025, App. EC.2).

    ``Λ̂_ij = (y_ijᵀθ̂ + ε)²/(2σ²‖y_ij‖²_{V_t⁻¹})`` for ``i ∈ Ĝ_ε, j ≠ i`` and
    ``Λ̂_m = (y_mᵀθ̂ − ε)²/(2σ²‖y_m‖²_{V_t⁻¹})`` for ``m ∉ Ĝ_ε`` (Proposition EC.1 with EC.4.18,
    EC.4.22), culprits and the best arm computed on ``μ̂`` (the multiplicative variant as in the
    module docstring). A margin ``≤ 0`` (an empirical arm on the threshold) gives 0. The SGLR
    rule (EC.2.12) stops when ``min_x Λ̂_x`` exceeds a threshold ``β̂_t(δ)``, which the paper does
    not specify. At the true θ with ``V_t = t·V_{p*}`` the minimum equals ``t/T*``: the statistic
    and :func:`eps_good_lower_bound` agree.

    ``features`` may be in any coordinates (e.g. an orthonormal basis of their span), with
    ``gram_inv`` the inverse Gram matrix in the same coordinates. Cost ``O(K h² + |Ĝ_ε| K h)``,
    vectorised over arms.

    Args:
        features: arm features, shape ``(K, h)``.
        theta_hat: the estimate θ̂, shape ``(h,)``.
        gram_inv: ``V_t⁻¹``, shape ``(h, h)``, symmetric (may be ``None`` when ``projected``
            and ``leverages`` are given).
        epsilon: the slack ``ε > 0``.
        sigma: the noise standard deviation σ ≥ 0 (σ = 0: ``inf`` for every positive margin).
        multiplicative: use the multiplicative definition.
        projected: optionally ``features @ gram_inv`` (rows ``V_t⁻¹a_k``), shape ``(K, h)``,
            kept up to date by the caller (rank-one updates): the cost drops to
            ``O(|Ĝ_ε| K h)``.
        leverages: optionally ``‖a_k‖²_{V_t⁻¹}``, shape ``(K,)`` (with ``projected``).
        means: optionally ``μ̂ = Aθ̂``, shape ``(K,)``, when the caller maintains it
            incrementally; ``theta_hat`` may then be ``None``.

    Returns:
        An :class:`EpsGoodGLR`.
    """
    who = "eps_good_glr"
    x = np.asarray(features, dtype=np.float64)
    if means is not None:
        mu = np.asarray(means, dtype=np.float64)
        if x.ndim != 2 or mu.shape != (x.shape[0],):
            raise InvalidParameterError(
                f"{who}: expected features (K, h) and means (K,); got shapes {x.shape} and "
                f"{mu.shape}."
            )
        th = np.zeros(x.shape[1] if x.ndim == 2 else 0)
    else:
        th = np.asarray(theta_hat, dtype=np.float64)
    if projected is None or leverages is None:
        inv = np.asarray(gram_inv, dtype=np.float64)
        if x.ndim != 2 or th.shape != (x.shape[1],) or inv.shape != (x.shape[1], x.shape[1]):
            raise InvalidParameterError(
                f"{who}: expected features (K, h), theta_hat (h,) and gram_inv (h, h); got "
                f"shapes {x.shape}, {th.shape} and {inv.shape}."
            )
        xv = x @ inv
        lev = np.einsum("ij,ij->i", xv, x)  # a_kᵀV⁻¹a_k
    else:
        xv = np.asarray(projected, dtype=np.float64)
        lev = np.asarray(leverages, dtype=np.float64)
        if (
            x.ndim != 2
            or th.shape != (x.shape[1],)
            or xv.shape != x.shape
            or lev.shape != (x.shape[0],)
        ):
            raise InvalidParameterError(
                f"{who}: expected features (K, h), theta_hat (h,), projected (K, h) and "
                f"leverages (K,); got shapes {x.shape}, {th.shape}, {xv.shape} and {lev.shape}."
            )
    if means is None:
        mu = x @ th
    k = mu.shape[0]
    best = int(np.argmax(mu))
    s, c = _scale_offset(epsilon, multiplicative)
    good = good_mask(mu, epsilon, multiplicative=multiplicative)
    good_idx = np.flatnonzero(good)
    cross = xv[good_idx] @ x.T  # a_iᵀV⁻¹a_j, i ∈ Ĝ
    pair_norms = lev[good_idx][:, None] + s * s * lev[None, :] - 2.0 * s * cross
    pair_margin = mu[good_idx][:, None] - s * mu[None, :] + c
    pair_stats = _glr_ratio(pair_margin, pair_norms, float(sigma))
    pair_stats[np.arange(good_idx.size), good_idx] = np.inf
    bad_norms = s * s * lev[best] + lev - 2.0 * s * (xv[best] @ x.T)
    bad_stats = _glr_ratio(s * mu[best] - mu - c, bad_norms, float(sigma))
    bad_stats[good] = np.inf
    culprit: tuple[str, int] | tuple[str, int, int] | None = None
    statistic = math.inf
    if pair_stats.size and k > 1:
        r, col = np.unravel_index(int(np.argmin(pair_stats)), pair_stats.shape)
        if pair_stats[r, col] < statistic:
            statistic = float(pair_stats[r, col])
            culprit = ("pair", int(good_idx[r]), int(col))
    if np.any(~good):
        m = int(np.argmin(bad_stats))
        if bad_stats[m] < statistic or culprit is None:
            statistic = float(bad_stats[m])
            culprit = ("bad", m)
    return EpsGoodGLR(
        means=mu,
        good=good,
        best=best,
        pair_stats=pair_stats,
        bad_stats=bad_stats,
        statistic=statistic,
        culprit=culprit,
    )
