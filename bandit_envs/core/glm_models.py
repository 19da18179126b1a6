"""Generalized linear reward models: scalar outcomes whose mean is a link of ``a_kᵀθ``.

The canonical GLMs of Li, Ma, Hua & Zhu (2025), Section 6 (eq. 36): Bernoulli outcomes with the
logistic link (:class:`LogisticGLM`) and Poisson outcomes with the log link
(:class:`PoissonGLM`). The link math is :mod:`bandit_envs.theory.glm`. Each model draws one
outcome at a time or, exactly, the per-arm sums of a batch of pulls (a Binomial or a Poisson
draw), as every :class:`~bandit_envs.core.models.RewardModel` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bandit_envs.core.models import RewardModel
from bandit_envs.core.validation import (
    check_feature_scale,
    check_matrix,
    read_only,
    theta_shape_error,
)
from bandit_envs.errors import InvalidParameterError

__all__ = ["LogisticGLM", "PoissonGLM"]


class _CanonicalGLM(RewardModel):
    """Scalar outcomes of a canonical GLM: ``E[X | arm k] = μ_link(a_kᵀθ)`` (Li et al. eq. 36).

    Subclasses set ``link_name`` and implement the draws; the link math is
    :mod:`bandit_envs.theory.glm`.
    """

    structure = "glm"
    link_name = ""

    def __init__(self, features: Any, theta: Any, who: str) -> None:
        from bandit_envs.theory.glm import get_link

        x = check_feature_scale(check_matrix(features, "features", who, ndim=2), who)
        th = check_matrix(theta, "theta", who, ndim=1)
        if th.shape[0] != x.shape[1]:
            raise theta_shape_error(who, x.shape, th.shape)
        self._link = get_link(self.link_name, who)
        self._features = read_only(x)
        self._theta = read_only(th)
        self._predictors = read_only(x @ th)
        self._means = read_only(self._link.mean(self._predictors).reshape(-1, 1))

    @property
    def n_arms(self) -> int:  # noqa: D102
        return int(self._features.shape[0])

    @property
    def outcome_dim(self) -> int:  # noqa: D102
        return 1

    @property
    def means(self) -> np.ndarray:  # noqa: D102
        return self._means

    @property
    def features(self) -> np.ndarray:
        """The K×h feature matrix (read-only)."""
        return self._features

    @property
    def theta(self) -> np.ndarray:
        """The true parameter θ (read-only)."""
        return self._theta

    @property
    def predictors(self) -> np.ndarray:
        """The linear predictors ``a_kᵀθ`` (read-only). Part of the truth."""
        return self._predictors

    @property
    def link(self) -> str:
        """The link's name (``ProblemSpec.link``)."""
        return self.link_name

    def noise_bound(self) -> float:
        """The ``noise_std`` told to agents (subclasses say what it bounds)."""
        raise NotImplementedError

    def public_fields(self) -> dict[str, Any]:
        """Structure ``"glm"``, features, the link and ``noise_std``; θ and the means are not."""
        return {
            "structure": self.structure,
            "features": self._features,
            "link": self.link_name,
            "noise_std": self.noise_bound(),
        }

    def truth(self) -> dict[str, Any]:
        """θ, the linear predictors and the means."""
        return {"theta": self._theta, "predictors": self._predictors, "means": self._means}


class LogisticGLM(_CanonicalGLM):
    """Bernoulli outcomes with logistic mean ``σ(a_kᵀθ) = 1/(1 + e^{−a_kᵀθ})``.

    The logistic bandit of Li, Ma, Hua & Zhu (2025), Section 6 (eq. 36 with ``μ_link = σ``).
    One pull returns 0.0
    or 1.0; the batch path draws the number of successes of ``n`` pulls as one Binomial(n, p)
    (exact). ``ProblemSpec.link`` is ``"logistic"`` and ``noise_std`` is 1/2: a Bernoulli variable
    is 1/2-sub-Gaussian (Hoeffding's lemma) and its standard deviation is at most 1/2, whatever
    ``p``. With identity features this is the unstructured Bernoulli bandit (θ = logit p).

    Args:
        features: K×h arm features.
        theta: θ, shape (h,).

    Raises:
        InvalidParameterError: bad shapes, non-finite values, or a probability that is not in
            the open interval (0, 1) in floating point (``|a_kᵀθ| ≳ 37``).
    """

    link_name = "logistic"

    def __init__(self, features: Any, theta: Any) -> None:
        who = "LogisticGLM"
        super().__init__(features, theta, who)
        p = self._means[:, 0]
        self._probs: list[float] = p.tolist()  # Python floats: one pull, no NumPy scalar
        bad = np.flatnonzero((p <= 0.0) | (p >= 1.0))
        if bad.size:
            k = int(bad[0])
            raise InvalidParameterError(
                f"{who}: every probability must lie in the open interval (0, 1); arm {k} has "
                f"linear predictor {float(self._predictors[k])!r}, whose probability rounds to "
                f"{float(p[k])!r}."
            )

    def noise_bound(self) -> float:
        """1/2: the sub-Gaussian constant (and the largest standard deviation) of a Bernoulli."""
        return 0.5

    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """One outcome of ``arm``: 1.0 with probability ``σ(a_armᵀθ)``, else 0.0."""
        return np.array((1.0 if rng.random() < self._probs[arm] else 0.0,))

    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-arm sums of ``counts[k]`` outcomes: one Binomial(counts[k], p_k) draw each."""
        n = np.asarray(counts, dtype=np.int64)
        return rng.binomial(n, self._means[:, 0]).astype(np.float64)[:, None]


class PoissonGLM(_CanonicalGLM):
    """Poisson outcomes with mean ``exp(a_kᵀθ)`` (Li, Ma, Hua & Zhu 2025, Section 6).

    The batch path draws the sum of ``n`` pulls as one Poisson(n·λ) (exact). ``noise_std`` is
    ``sqrt(max_k λ_k)``, the largest standard deviation; Poisson noise is not sub-Gaussian, so
    the sub-Gaussian guarantees of LinFACT-GLM do not strictly apply (a heuristic use).

    Args:
        features: K×h arm features.
        theta: θ, shape (h,).

    Raises:
        InvalidParameterError: bad shapes, non-finite values, or a mean above 1e9
            (``a_kᵀθ > 20.7``), whose batch sums could overflow.
    """

    link_name = "poisson"

    def __init__(self, features: Any, theta: Any) -> None:
        who = "PoissonGLM"
        super().__init__(features, theta, who)
        lam = self._means[:, 0]
        if (lam > 1e9).any() or (lam <= 0.0).any():
            k = int(np.flatnonzero((lam > 1e9) | (lam <= 0.0))[0])
            raise InvalidParameterError(
                f"{who}: every mean must lie in (0, 1e9]; arm {k} has linear predictor "
                f"{float(self._predictors[k])!r}, mean {float(lam[k])!r}."
            )

    def noise_bound(self) -> float:
        """``sqrt(max λ)``: the largest standard deviation of one outcome."""
        return float(np.sqrt(self._means.max()))

    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """One outcome of ``arm``: a Poisson(λ_arm) count."""
        return np.array([float(rng.poisson(self._means[arm, 0]))])

    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-arm sums of ``counts[k]`` outcomes: one Poisson(counts[k]·λ_k) draw each."""
        n = np.asarray(counts, dtype=np.float64)
        return rng.poisson(n * self._means[:, 0]).astype(np.float64)[:, None]
