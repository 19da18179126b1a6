"""Generalized linear models: canonical links and maximum likelihood.

The math of Section 6 of Li, Ma, Hua & Zhu (2025), "Identifying All ε-Best Arms in (Misspecified)
Linear Bandits" (arXiv 2510.00073), written once for the GLM reward models
(:class:`~bandit_envs.core.models.LogisticGLM`, :class:`~bandit_envs.core.models.PoissonGLM`) and
the LinFACT-GLM agent:

* :data:`LINKS`: the canonical exponential families used here, each with its inverse link
  ``μ_link = ḃ`` (eq. 36), the derivative ``μ̇_link = b̈`` (the variance function) and the
  cumulant ``b`` of the log-likelihood (eq. 37–38); ``"identity"`` (Gaussian, the linear model),
  ``"logistic"`` (Bernoulli) and ``"poisson"``;
* :func:`glm_mle`: the maximum likelihood estimator of eq. 38 — the root of the estimating equation
  (eq. 39) ``Σ_s (X_s − μ_link(a_{A_s}ᵀθ)) a_{A_s} = 0`` — by Newton's method (IRLS, "iteratively
  reweighted least squares", which the paper suggests after eq. 39) from per-arm pull counts and
  outcome sums (the sufficient statistics of a canonical GLM), with safeguards the paper leaves
  open: a small ridge (the MLE does not exist with separable data: an arm whose pulls all failed has
  ``θ̂ → −∞`` along its direction), backtracking line search (every step increases the penalised
  likelihood) and an iteration cap.

Assumption 6 of the paper (Sec. 6): ``μ̇_link(aᵀθ̌) ≥ c_min > 0`` for every arm and every ``θ̌``
between ``θ`` and ``θ̂``. With a known bound ``|aᵀθ| ≤ B`` on the linear predictors,
:meth:`Link.min_slope` gives ``c_min = inf_{|x| ≤ B} μ̇_link(x)`` (logistic: ``σ̇(B)``) and
:meth:`Link.max_slope` the Lipschitz constant ``sup_{|x| ≤ B} μ̇_link(x)`` that turns an error on
the linear predictor into one on the mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from bandit_envs.errors import InvalidParameterError

__all__ = ["GLMFit", "LINKS", "Link", "get_link", "glm_mle"]

FloatArray = NDArray[np.float64]

#: linear predictors are clipped to this before ``exp`` (Poisson): ``exp(700)`` is finite.
_EXP_CAP = 700.0


class Link:
    """A canonical link: inverse link ``μ_link``, its slope ``μ̇_link`` and the cumulant ``b``.

    Subclasses implement :meth:`mean`, :meth:`slope`, :meth:`cumulant`, :meth:`min_slope` and
    :meth:`max_slope`; ``name`` is what ``ProblemSpec.link`` says.
    """

    name: str = ""

    def mean(self, eta: ArrayLike) -> FloatArray:
        """``μ_link(η)``, the mean outcome at linear predictor ``η``."""
        raise NotImplementedError

    def slope(self, eta: ArrayLike) -> FloatArray:
        """``μ̇_link(η)`` (= ``b̈(η)``, the variance of a canonical family)."""
        raise NotImplementedError

    def cumulant(self, eta: ArrayLike) -> FloatArray:
        """``b(η)``: the log-likelihood of outcome ``x`` is ``xη − b(η) + c(x)`` (eq. 37)."""
        raise NotImplementedError

    def min_slope(self, bound: float) -> float:
        """``inf_{|x| ≤ bound} μ̇_link(x)``: ``c_min`` of Assumption 6 for ``|aᵀθ| ≤ bound``."""
        raise NotImplementedError

    def max_slope(self, bound: float | None = None) -> float:
        """``sup_{|x| ≤ bound} μ̇_link(x)`` (``None``: over the real line; may be ``inf``)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"Link({self.name!r})"


class _Identity(Link):
    """Gaussian family: ``μ_link(η) = η``, ``b(η) = η²/2``; the MLE is least squares."""

    name = "identity"

    def mean(self, eta: ArrayLike) -> FloatArray:
        return np.asarray(eta, dtype=np.float64).copy()

    def slope(self, eta: ArrayLike) -> FloatArray:
        return np.ones_like(np.asarray(eta, dtype=np.float64))

    def cumulant(self, eta: ArrayLike) -> FloatArray:
        e = np.asarray(eta, dtype=np.float64)
        return 0.5 * e * e

    def min_slope(self, bound: float) -> float:
        return 1.0

    def max_slope(self, bound: float | None = None) -> float:
        return 1.0


class _Logistic(Link):
    """Bernoulli family: ``μ_link = σ(η) = 1/(1 + e^{−η})``, ``b(η) = log(1 + e^η)``."""

    name = "logistic"

    def mean(self, eta: ArrayLike) -> FloatArray:
        return expit(np.asarray(eta, dtype=np.float64))

    def slope(self, eta: ArrayLike) -> FloatArray:
        e = np.asarray(eta, dtype=np.float64)
        return expit(e) * expit(-e)

    def cumulant(self, eta: ArrayLike) -> FloatArray:
        return np.logaddexp(0.0, np.asarray(eta, dtype=np.float64))

    def min_slope(self, bound: float) -> float:
        return float(self.slope(abs(float(bound))))

    def max_slope(self, bound: float | None = None) -> float:
        return 0.25


class _Poisson(Link):
    """Poisson family: ``μ_link(η) = e^η``, ``b(η) = e^η``."""

    name = "poisson"

    def mean(self, eta: ArrayLike) -> FloatArray:
        return np.exp(np.minimum(np.asarray(eta, dtype=np.float64), _EXP_CAP))

    def slope(self, eta: ArrayLike) -> FloatArray:
        return self.mean(eta)

    def cumulant(self, eta: ArrayLike) -> FloatArray:
        return self.mean(eta)

    def min_slope(self, bound: float) -> float:
        return math.exp(-abs(float(bound)))

    def max_slope(self, bound: float | None = None) -> float:
        return math.inf if bound is None else math.exp(min(abs(float(bound)), _EXP_CAP))


#: the links by name (``ProblemSpec.link``).
LINKS: dict[str, Link] = {link.name: link for link in (_Identity(), _Logistic(), _Poisson())}


def get_link(name: str, who: str = "get_link") -> Link:
    """The :class:`Link` called ``name``, or an error listing the known ones."""
    try:
        return LINKS[name]
    except (KeyError, TypeError):
        raise InvalidParameterError(
            f"{who}: link must be one of {sorted(LINKS)}; got {name!r}."
        ) from None


@dataclass(frozen=True)
class GLMFit:
    """The result of :func:`glm_mle`.

    Attributes:
        theta: the estimate ``θ̂``, shape ``(h,)``.
        converged: whether the Newton decrement fell below the tolerance within ``max_iter``.
        iterations: Newton steps taken.
        log_likelihood: the penalised log-likelihood ``Σ_k (s_k η_k − n_k b(η_k)) − λ‖θ‖²/2``
            at ``θ̂`` (without the ``c(x)`` terms).
        decrement: the last squared Newton decrement ``gᵀH⁻¹g`` (twice the predicted gain).
    """

    theta: FloatArray
    converged: bool
    iterations: int
    log_likelihood: float
    decrement: float


def _objective(
    link: Link, x: FloatArray, n: FloatArray, s: FloatArray, theta: FloatArray, ridge: float
) -> float:
    eta = x @ theta
    return float(s @ eta - n @ link.cumulant(eta) - 0.5 * ridge * theta @ theta)


def glm_mle(
    features: ArrayLike,
    counts: ArrayLike,
    sums: ArrayLike,
    link: str | Link,
    *,
    ridge: float = 1e-6,
    max_iter: int = 100,
    tol: float = 1e-12,
    init: ArrayLike | None = None,
) -> GLMFit:
    """Maximum likelihood ``θ̂`` of a canonical GLM from per-arm counts and sums (eq. 38–39).

    Maximises ``ℓ(θ) = Σ_k [s_k a_kᵀθ − n_k b(a_kᵀθ)] − (λ/2)‖θ‖²`` (``n_k`` pulls of arm ``k``
    with outcome sum ``s_k``; the log-likelihood of eq. 38 up to terms free of θ, plus the ridge)
    by Newton's method: ``g = Σ_k a_k (s_k − n_k μ_link(η_k)) − λθ`` (the estimating equation
    39), ``H = Σ_k n_k μ̇_link(η_k) a_k a_kᵀ + λI`` (IRLS weights ``n_k μ̇_link``), step ``H⁻¹g``
    shortened by backtracking until the penalised likelihood increases (Armijo). It stops when
    the squared Newton decrement ``gᵀH⁻¹g`` (an affine-invariant measure of the remaining gain,
    in log-likelihood units) is at most ``tol·max(1, |ℓ|)`` — relative, because gains below the
    round-off of ``ℓ`` cannot be seen — after one last full Newton step, or after ``max_iter``
    steps. ``ℓ`` is strictly
    concave when ``λ > 0``, so the maximiser is unique and Newton with line search converges;
    with ``λ = 0`` and separable data (e.g. an arm whose pulls all failed, alone in its
    direction) the MLE does not exist and the iterates diverge until the cap — hence the default
    ``λ = 10⁻⁶``, whose bias is of order ``λ/n``.

    Cost: ``O(K h² + h³)`` per Newton step, vectorised over arms. Arms with ``n_k = 0`` do not
    enter. Work in reduced coordinates (an orthonormal basis of the arms' span, as LinFACT does)
    when the features are rank-deficient; the ridge makes the problem well posed either way.

    Args:
        features: arm features ``a_k``, shape ``(K, h)``.
        counts: pulls per arm ``n_k ≥ 0``, shape ``(K,)``.
        sums: outcome sums per arm ``s_k``, shape ``(K,)``.
        link: a :class:`Link` or its name (``"identity"``, ``"logistic"``, ``"poisson"``).
        ridge: ``λ ≥ 0``.
        max_iter: the iteration cap, ``≥ 1``.
        tol: tolerance on the squared Newton decrement, relative to ``max(1, |ℓ|)``, ``> 0``.
        init: starting point (default 0), e.g. the previous round's estimate (a warm start);
            0 is used instead if its likelihood is higher.

    Returns:
        A :class:`GLMFit`.

    Raises:
        InvalidParameterError: bad shapes or values.
    """
    who = "glm_mle"
    lk = link if isinstance(link, Link) else get_link(link, who)
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or not np.all(np.isfinite(x)):
        raise InvalidParameterError(
            f"{who}: features must be a finite 2-D array (K, h); got shape {x.shape}."
        )
    k, h = x.shape
    n = np.asarray(counts, dtype=np.float64).reshape(-1)
    s = np.asarray(sums, dtype=np.float64).reshape(-1)
    if n.shape != (k,) or s.shape != (k,):
        raise InvalidParameterError(
            f"{who}: counts and sums must have one entry per arm ({k}); got shapes {n.shape} "
            f"and {s.shape}."
        )
    if not (np.all(np.isfinite(n)) and np.all(n >= 0) and np.all(np.isfinite(s))):
        raise InvalidParameterError(f"{who}: counts must be finite and >= 0, sums finite.")
    if not (math.isfinite(ridge) and ridge >= 0):
        raise InvalidParameterError(f"{who}: ridge must be a finite float >= 0; got {ridge!r}.")
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise InvalidParameterError(f"{who}: max_iter must be an integer >= 1; got {max_iter!r}.")
    if not (math.isfinite(tol) and tol > 0):
        raise InvalidParameterError(f"{who}: tol must be a finite float > 0; got {tol!r}.")
    pulled = n > 0
    xp, npl, spl = x[pulled], n[pulled], s[pulled]
    theta = np.zeros(h) if init is None else np.array(init, dtype=np.float64).reshape(-1)
    if theta.shape != (h,) or not np.all(np.isfinite(theta)):
        raise InvalidParameterError(f"{who}: init must be a finite vector of length {h}.")
    value = _objective(lk, xp, npl, spl, theta, ridge)
    if init is not None:  # a warm start far out (e.g. from separable data) can be worse than 0:
        zero_value = _objective(lk, xp, npl, spl, np.zeros(h), ridge)  # tiny curvature there
        if zero_value > value:
            theta, value = np.zeros(h), zero_value
    decrement = math.inf
    iterations = 0
    converged = False
    for iterations in range(1, max_iter + 1):  # noqa: B007 - reported
        eta = xp @ theta
        grad = xp.T @ (spl - npl * lk.mean(eta)) - ridge * theta
        hess = (xp.T * (npl * lk.slope(eta))) @ xp + ridge * np.eye(h)
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        decrement = float(grad @ step)
        if not math.isfinite(decrement):
            break
        if decrement <= tol * max(1.0, abs(value)):  # quadratic region: a last full step
            theta = theta + step
            value = _objective(lk, xp, npl, spl, theta, ridge)
            converged = True
            break
        t = 1.0
        while True:
            trial = theta + t * step
            trial_value = _objective(lk, xp, npl, spl, trial, ridge)
            if trial_value >= value + 1e-4 * t * decrement:
                break
            t *= 0.5
            if t < 1e-12:
                break
        if t < 1e-12:  # no ascent left at floating-point resolution
            converged = decrement <= 1e-9 * max(1.0, abs(value))
            break
        theta, value = trial, trial_value
    theta.setflags(write=False)
    return GLMFit(
        theta=theta,
        converged=converged,
        iterations=iterations,
        log_likelihood=value,
        decrement=decrement,
    )
