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
    """Linear model with Gaussian noise: outcome = xₖᵀΘ + η, η ~ N(0, Σ).

    Covers scalar linear bandits (θ of shape (h,), m = 1; Soare et al. 2014 §2) and the
    multi-output linear model of Pareto set identification (Θ of shape (h, d), m = d; Kone et
    al., spec 000 §1.1). With identity features it is the unstructured Gaussian bandit. The noise
    is ``Σ = diag(σ²)`` (independent outputs) unless a full covariance ``cov`` is given (spec 000
    §1.1 and §6.10: the coordinates of η may be correlated; agents are told only the marginal
    standard deviations ``sqrt(diag Σ)`` as ``noise_std``).

    Args:
        features: K×h arm features.
        theta: the parameter, shape (h,) or (h, m).
        sigma: noise standard deviation, a float ≥ 0 or one per output (shape (m,)); default 1.0
            when ``cov`` is not given. ``sigma = 0`` gives a noiseless instance (outcomes equal the
            means).
        cov: a full m×m noise covariance Σ (symmetric positive semi-definite; singular allowed).
            Give ``sigma`` or ``cov``; when both are given ``sigma`` must equal
            ``sqrt(diag(cov))`` (so the two can never disagree). The marginal ``σ`` is then
            ``sqrt(diag(cov))``. A diagonal ``cov`` is sampled exactly like the matching ``sigma``.

    """

    structure = "linear"

    def __init__(self, features: Any, theta: Any, sigma: Any = None, cov: Any = None) -> None:
        who = "LinearGaussian"
        x = check_matrix(features, "features", who, ndim=2)
        th = check_matrix(theta, "theta", who, ndim=(1, 2))
        if th.shape[0] != x.shape[1]:
            raise _shape_error(who, x.shape, th.shape)
        m = 1 if th.ndim == 1 else th.shape[1]
        self._features = read_only(x)
        self._theta = read_only(th)
        self._m = m
        #: L with L Lᵀ = Σ for a non-diagonal Σ; None when Σ is diagonal (the σ ⊙ ε fast path).
        self._noise_factor: np.ndarray | None = None
        self._cov_given = cov is not None
        if cov is None:
            s = _check_sigma(sigma, m, who)
            self._sigma_vec = read_only(s)
            self._cov = read_only(np.diag(s**2))
        else:
            c = _check_cov(cov, m, who)
            marginal = np.sqrt(np.clip(np.diag(c), 0.0, None))
            if sigma is not None and not np.allclose(
                _check_sigma(sigma, m, who), marginal, rtol=1e-9, atol=0.0
            ):
                raise InvalidParameterError(
                    f"{who}: give sigma or cov, not two different noise levels; sigma must equal "
                    f"sqrt(diag(cov)) = {marginal.tolist()!r} when both are given; got sigma "
                    f"{sigma!r}."
                )
            self._sigma_vec = read_only(marginal)
            self._cov = read_only(c)
            if np.count_nonzero(c - np.diag(np.diag(c))):
                self._noise_factor = read_only(_factor(c))
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
        """Marginal σ = sqrt(diag Σ): a float when all outputs share it, else the (m,) vector."""
        s = self._sigma_vec
        return float(s[0]) if np.all(s == s[0]) else s

    @property
    def noise_cov(self) -> np.ndarray:
        """The m×m noise covariance Σ (read-only): ``cov`` if given, else ``diag(σ²)``."""
        return self._cov

    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """One outcome of ``arm``: ``means[arm] + σ ⊙ ε``, or ``means[arm] + L ε`` (L Lᵀ = Σ)."""
        if self._noise_factor is None:
            return self._means[arm] + self._sigma_vec * rng.standard_normal(self._m)
        return self._means[arm] + self._noise_factor @ rng.standard_normal(self._m)

    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-arm sums of ``counts[k]`` outcomes: one exact draw of N(n·μₖ, n·Σ) each."""
        n = np.asarray(counts, dtype=np.float64)[:, None]
        noise = rng.standard_normal((self.n_arms, self._m))
        if self._noise_factor is None:
            return n * self._means + np.sqrt(n) * self._sigma_vec * noise
        return n * self._means + np.sqrt(n) * (noise @ self._noise_factor.T)

    def public_fields(self) -> dict[str, Any]:
        """Features and the marginal σ are public; θ, the means and Σ's correlations are not."""
        return {"structure": self.structure, "features": self._features, "noise_std": self.sigma}

    def truth(self) -> dict[str, Any]:
        """θ and the means (and ``noise_cov`` when a covariance was given)."""
        if self._cov_given:
            return {"theta": self._theta, "means": self._means, "noise_cov": self._cov}
        return {"theta": self._theta, "means": self._means}


class MisspecifiedLinearGaussian(RewardModel):
    """Gaussian outcomes around arbitrary means, with features exposed (spec 000 §8, App. I).

    The "used as such (mis-specified setting)" instances of the paper: agents are given features
    ``x_k``, but the means ``μ_k`` are data, not ``Θᵀx_k`` for any Θ. The problem's structure is
    ``"misspecified_linear"``, so agents that assume an exactly linear model are told it is not.
    Sampling is that of :class:`~bandit_envs.LinearGaussian` (same noise, same random stream).

    Args:
        features: K×h arm features shown to agents.
        means: K×d true means.
        sigma: noise standard deviation, a float ≥ 0 or one per objective (default 1.0 without
            ``cov``).
        cov: a full d×d noise covariance instead of ``sigma`` (as in ``LinearGaussian``).

    The truth (revealed at the end of an episode) holds the means, the least-squares fit
    ``theta_ls = argmin_Θ ‖XΘ − μ‖_F`` and ``ls_deviation = max_k ‖μ_k − Θ_lsᵀx_k‖_∞``, an upper
    bound on the misspecification level ``L_m`` (which is not told to agents:
    ``ProblemSpec.misspecification`` stays ``None``).
    """

    structure = "misspecified_linear"

    def __init__(self, features: Any, means: Any, sigma: Any = None, cov: Any = None) -> None:
        who = "MisspecifiedLinearGaussian"
        x = check_matrix(features, "features", who, ndim=2)
        mu = check_matrix(means, "means", who, ndim=2)
        if mu.shape[0] != x.shape[0]:
            raise InvalidParameterError(
                f"{who}: means must have one row per arm, like features ({x.shape[0]} rows); got "
                f"features of shape {x.shape} and means of shape {mu.shape}."
            )
        # features = μ, Θ = I: LinearGaussian's noise and sampling, with means exactly μ.
        try:
            self._noise = LinearGaussian(mu, np.eye(mu.shape[1]), sigma, cov)
        except InvalidParameterError as exc:
            raise InvalidParameterError(str(exc).replace("LinearGaussian:", f"{who}:", 1)) from None
        self._features = read_only(x)
        self._means = self._noise.means
        theta_ls = np.linalg.lstsq(x, mu, rcond=None)[0]
        self._theta_ls = read_only(theta_ls)
        self._ls_deviation = float(np.abs(mu - x @ theta_ls).max())

    @property
    def n_arms(self) -> int:  # noqa: D102
        return int(self._features.shape[0])

    @property
    def outcome_dim(self) -> int:  # noqa: D102
        return self._noise.outcome_dim

    @property
    def means(self) -> np.ndarray:  # noqa: D102
        return self._means

    @property
    def features(self) -> np.ndarray:
        """The K×h feature matrix shown to agents (read-only)."""
        return self._features

    @property
    def sigma(self) -> float | np.ndarray:
        """Marginal σ = sqrt(diag Σ), as in :attr:`LinearGaussian.sigma`."""
        return self._noise.sigma

    @property
    def noise_cov(self) -> np.ndarray:
        """The d×d noise covariance Σ (read-only)."""
        return self._noise.noise_cov

    @property
    def ls_deviation(self) -> float:
        """``max_k ‖μ_k − Θ_lsᵀx_k‖_∞`` for the least-squares fit Θ_ls (≥ the best L_m)."""
        return self._ls_deviation

    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """One outcome of ``arm``: ``means[arm] + η``."""
        return self._noise.sample(arm, rng)

    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-arm sums of ``counts[k]`` outcomes, one exact Gaussian draw each."""
        return self._noise.sample_sums(counts, rng)

    def public_fields(self) -> dict[str, Any]:
        """Structure, features and the marginal σ; the means and the fit are not public."""
        return {"structure": self.structure, "features": self._features, "noise_std": self.sigma}

    def truth(self) -> dict[str, Any]:
        """Means, least-squares fit and its deviation (and ``noise_cov`` if a ``cov`` was given)."""
        out: dict[str, Any] = {
            "means": self._means,
            "theta_ls": self._theta_ls,
            "ls_deviation": self._ls_deviation,
        }
        if "noise_cov" in self._noise.truth():
            out["noise_cov"] = self._noise.noise_cov
        return out


def _shape_error(who: str, fshape: tuple[int, ...], tshape: tuple[int, ...]) -> Exception:
    return InvalidParameterError(
        f"{who}: theta must have as many rows as features has columns ({fshape[1]}); "
        f"got features of shape {fshape} and theta of shape {tshape}."
    )


def _sigma_error(who: str, shape: tuple[int, ...], m: int) -> Exception:
    return InvalidParameterError(
        f"{who}: sigma must be a float or have one entry per output ({m}); got shape {shape}."
    )


def _check_sigma(sigma: Any, m: int, who: str) -> np.ndarray:
    """Return σ as an (m,) float64 vector of finite values ≥ 0 (``None`` means 1.0), or raise."""
    raw = 1.0 if sigma is None else sigma
    s = check_matrix(np.atleast_1d(np.asarray(raw, dtype=float)), "sigma", who, ndim=1)
    if s.shape not in ((1,), (m,)):
        raise _sigma_error(who, s.shape, m)
    if (s < 0).any():
        raise InvalidParameterError(f"{who}: sigma must be >= 0; got {sigma!r}.")
    return np.broadcast_to(s, (m,)).copy()


def _check_cov(cov: Any, m: int, who: str) -> np.ndarray:
    """Return ``cov`` as a symmetric PSD m×m float64 array (symmetrised), or raise."""
    c = check_matrix(cov, "cov", who, ndim=2)
    if c.shape != (m, m):
        raise InvalidParameterError(
            f"{who}: cov must be a square matrix with one row and column per output, shape "
            f"({m}, {m}); got shape {c.shape}."
        )
    scale = max(1.0, float(np.abs(c).max()))
    asym = np.abs(c - c.T)
    if (asym > 1e-12 * scale).any():
        i, j = (int(v) for v in np.unravel_index(np.argmax(asym), asym.shape))
        raise InvalidParameterError(
            f"{who}: cov must be symmetric; got cov[{i}, {j}] = {float(c[i, j])!r} but "
            f"cov[{j}, {i}] = {float(c[j, i])!r}."
        )
    c = 0.5 * (c + c.T)
    lowest = float(np.linalg.eigvalsh(c)[0])
    if lowest < -1e-12 * scale:
        raise InvalidParameterError(
            f"{who}: cov must be positive semi-definite (a covariance matrix); its smallest "
            f"eigenvalue is {lowest!r}."
        )
    return c


def _factor(c: np.ndarray) -> np.ndarray:
    """L with L Lᵀ = c: Cholesky when c is positive definite, else from the eigendecomposition."""
    try:
        return np.linalg.cholesky(c)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(c)
        return vectors * np.sqrt(np.clip(values, 0.0, None))
