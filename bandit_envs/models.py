"""Reward models: what one pull of an arm returns, one pull at a time or in exact batches.

A reward model owns the truth (parameters, means) and draws outcome vectors of length m. Every
model has two sampling paths that are *equal in distribution*:

* :meth:`RewardModel.sample` — one outcome of one arm;
* :meth:`RewardModel.sample_sums` — for pull counts ``n_k``, the per-arm sums of ``n_k``
  outcomes, drawn exactly (a sum of n Gaussian outcomes is one Gaussian draw), so a phase of
  10⁶ pulls costs O(K).
"""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from bandit_envs.errors import InvalidParameterError
from bandit_envs.validation import check_matrix, read_only


class RewardModel(abc.ABC):
    """Abstract reward model over ``n_arms`` arms with outcomes in R^outcome_dim."""

    #: the structure the model guarantees to agents (``ProblemSpec.structure``).
    structure: str = "none"

    @property
    @abc.abstractmethod
    def n_arms(self) -> int:
        """K, the number of arms."""

    @property
    @abc.abstractmethod
    def outcome_dim(self) -> int:
        """m, the length of an outcome vector."""

    @property
    @abc.abstractmethod
    def means(self) -> np.ndarray:
        """The true mean outcomes, shape (K, m), read-only. Part of the truth."""

    @abc.abstractmethod
    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """Draw one outcome of ``arm``: a float64 vector of shape (m,)."""

    @abc.abstractmethod
    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draw, for each arm k, the sum of ``counts[k]`` outcomes: shape (K, m), exactly."""

    def public_fields(self) -> dict[str, Any]:
        """Fields of :class:`~bandit_envs.ProblemSpec` this model makes public."""
        return {"structure": self.structure}

    def truth(self) -> dict[str, Any]:
        """The model's hidden parameters, revealed in the final ``info``."""
        return {"means": self.means}


class LinearGaussian(RewardModel):
    """Linear model with Gaussian noise: outcome = xₖᵀΘ + σ·ε, ε ~ N(0, I_m).

    Covers scalar linear bandits (θ of shape (h,), m = 1; Soare et al. 2014 §2) and the
    multi-output linear model of Pareto set identification (Θ of shape (h, d), m = d; Kone et
    al.). With identity features it is the unstructured Gaussian bandit.

    Args:
        features: K×h arm features.
        theta: the parameter, shape (h,) or (h, m).
        sigma: noise standard deviation, a float ≥ 0 or one per output (shape (m,)).
            ``sigma = 0`` gives a noiseless instance (outcomes equal the means).

    """

    structure = "linear"

    def __init__(self, features: Any, theta: Any, sigma: Any = 1.0) -> None:
        who = "LinearGaussian"
        x = check_matrix(features, "features", who, ndim=2)
        th = check_matrix(theta, "theta", who, ndim=(1, 2))
        if th.shape[0] != x.shape[1]:
            raise _shape_error(who, x.shape, th.shape)
        m = 1 if th.ndim == 1 else th.shape[1]
        s = check_matrix(np.atleast_1d(np.asarray(sigma, dtype=float)), "sigma", who, ndim=1)
        if s.shape not in ((1,), (m,)):
            raise _sigma_error(who, s.shape, m)
        if (s < 0).any():
            raise InvalidParameterError(f"{who}: sigma must be >= 0; got {sigma!r}.")
        self._features = read_only(x)
        self._theta = read_only(th)
        self._m = m
        self._sigma_vec = read_only(np.broadcast_to(s, (m,)).copy())
        means = x @ th
        self._means = read_only(means.reshape(x.shape[0], m))

    @property
    def n_arms(self) -> int:  # noqa: D102
        return int(self._features.shape[0])

    @property
    def outcome_dim(self) -> int:  # noqa: D102
        return self._m

    @property
    def means(self) -> np.ndarray:  # noqa: D102
        return self._means

    @property
    def features(self) -> np.ndarray:
        """The K×h feature matrix (read-only)."""
        return self._features

    @property
    def theta(self) -> np.ndarray:
        """The true parameter (read-only): shape (h,) or (h, m)."""
        return self._theta

    @property
    def sigma(self) -> float | np.ndarray:
        """σ: a float when all outputs share it, else the (m,) vector."""
        s = self._sigma_vec
        return float(s[0]) if np.all(s == s[0]) else s

    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """One outcome of ``arm``: ``means[arm] + σ ⊙ ε`` (shape (m,))."""
        return self._means[arm] + self._sigma_vec * rng.standard_normal(self._m)

    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-arm sums of ``counts[k]`` outcomes: N(n·μₖ, n·σ²) per output, one draw each."""
        n = np.asarray(counts, dtype=np.float64)[:, None]
        noise = rng.standard_normal((self.n_arms, self._m))
        return n * self._means + np.sqrt(n) * self._sigma_vec * noise

    def public_fields(self) -> dict[str, Any]:
        """Features and σ are public; θ and the means are not."""
        return {"structure": self.structure, "features": self._features, "noise_std": self.sigma}

    def truth(self) -> dict[str, Any]:
        """θ and the means."""
        return {"theta": self._theta, "means": self._means}


def _shape_error(who: str, fshape: tuple[int, ...], tshape: tuple[int, ...]) -> Exception:
    return InvalidParameterError(
        f"{who}: theta must have as many rows as features has columns ({fshape[1]}); "
        f"got features of shape {fshape} and theta of shape {tshape}."
    )


def _sigma_error(who: str, shape: tuple[int, ...], m: int) -> Exception:
    return InvalidParameterError(
        f"{who}: sigma must be a float or have one entry per output ({m}); got shape {shape}."
    )
