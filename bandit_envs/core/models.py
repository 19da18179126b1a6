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

from bandit_envs.core.validation import (
    KeepsReadOnlyArrays,
    check_feature_scale,
    check_matrix,
    check_nonnegative,
    read_only,
    theta_shape_error,
)
from bandit_envs.errors import InvalidParameterError


class RewardModel(KeepsReadOnlyArrays, abc.ABC):
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

    def diagonal_noise(self) -> np.ndarray | None:
        """σ (m,) when one outcome is exactly ``means[arm] + σ ⊙ rng.standard_normal(m)``.

        The environment then draws the outcome itself from block-drawn normals (the same
        values, bit for bit). ``None`` (the default) otherwise; a subclass whose :meth:`sample`
        differs from its parent's gets ``None`` unless it defines this method itself.
        """
        return None

    def _own_sampler(self, owner: type) -> bool:
        """Whether :meth:`sample` is the one ``owner`` defines (not a subclass's override)."""
        return type(self).sample is owner.__dict__["sample"]

    def truth(self) -> dict[str, Any]:
        """The model's hidden parameters, revealed in the final ``info``."""
        return {"means": self.means}


class LinearGaussian(RewardModel):
    """Linear model with Gaussian noise: outcome = xₖᵀΘ + η, η ~ N(0, Σ).

    Covers scalar linear bandits (θ of shape (h,), m = 1; Soare, Lazaric & Munos 2014,
    Section 2) and the multi-output linear model of Pareto set identification (Θ of shape (h, d),
    m = d; Kone, Kaufmann & Richert, Section 2). With identity features it is the unstructured
    Gaussian bandit. The noise is ``Σ = diag(σ²)`` (independent outputs) unless a full covariance
    ``cov`` is given (Kone, Kaufmann & Richert, Section 2.2, allow the coordinates of η to be
    correlated; agents are told only the marginal standard deviations ``sqrt(diag Σ)`` as
    ``noise_std``).

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
        x = check_feature_scale(check_matrix(features, "features", who, ndim=2), who)
        self._build(x, theta, sigma, cov, who)

    def _build(self, x: np.ndarray, theta: Any, sigma: Any, cov: Any, who: str) -> None:
        """The constructor after the features' scale check.

        ``MisspecifiedLinearGaussian`` builds its noise model on the means as features, which
        that check does not concern.
        """
        th = check_matrix(theta, "theta", who, ndim=(1, 2))
        if th.shape[0] != x.shape[1]:
            raise theta_shape_error(who, x.shape, th.shape)
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
        with np.errstate(over="ignore", invalid="ignore"):
            means = x @ th
        self._means = read_only(_check_means(means.reshape(x.shape[0], m), who))
        self._rows = _float_rows(self._means, self._sigma_vec, self._noise_factor is None)

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

    def diagonal_noise(self) -> np.ndarray | None:  # noqa: D102
        if self._noise_factor is not None or not self._own_sampler(LinearGaussian):
            return None
        return self._sigma_vec

    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """One outcome of ``arm``: ``means[arm] + σ ⊙ ε``, or ``means[arm] + L ε`` (L Lᵀ = Σ)."""
        if self._rows is not None:
            return _draw_row(self._rows, arm, rng)
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
    """Gaussian outcomes around arbitrary means, with features exposed.

    The real data "used as such (mis-specified setting)" of Kone, Kaufmann & Richert
    (Appendix I): agents are given features
    ``x_k``, but the means ``μ_k`` are data, not ``Θᵀx_k`` for any Θ. The problem's structure is
    ``"misspecified_linear"``, so agents that assume an exactly linear model are told it is not.
    Sampling is that of :class:`~bandit_envs.LinearGaussian` (same noise, same random stream).

    Args:
        features: K×h arm features shown to agents.
        means: K×d true means.
        sigma: noise standard deviation, a float ≥ 0 or one per objective (default 1.0 without
            ``cov``).
        cov: a full d×d noise covariance instead of ``sigma`` (as in ``LinearGaussian``).

    Keyword-only (the misspecified linear model of Li, Ma, Hua & Zhu 2025, Section 5, eq. 28–29,
    ``μ = Ψθ + Δ_m`` with ``‖Δ_m‖_∞ ≤ L_m``):

    * ``bound``: the misspecification level ``L_m ≥ 0`` told to agents, published as
      ``ProblemSpec.misspecification`` (public, like every field of the spec). It must be
      consistent: some θ has ``‖μ_k − Θᵀx_k‖_∞ ≤ L_m`` for every arm (the given ``theta`` if any,
      else the Chebyshev fit :func:`bandit_envs.theory.misspecification.chebyshev_deviation`, per
      output). ``None`` (default): ``L_m`` is not told, ``ProblemSpec.misspecification`` stays
      ``None``.
    * ``theta``: the linear part Θ of the decomposition (shape (h,) or (h, d)); the deviation
      ``Δ_m = μ − XΘ`` is then part of the truth.

    The truth (revealed at the end of an episode) holds the means, the least-squares fit
    ``theta_ls = argmin_Θ ‖XΘ − μ‖_F`` and ``ls_deviation = max_k ‖μ_k − Θ_lsᵀx_k‖_∞`` (an upper
    bound on the smallest valid ``L_m``), plus ``theta`` and ``deviation`` when ``theta`` was
    given and ``misspecification`` (the bound) when one was given.
    """

    structure = "misspecified_linear"

    def __init__(
        self,
        features: Any,
        means: Any,
        sigma: Any = None,
        cov: Any = None,
        *,
        bound: Any = None,
        theta: Any = None,
    ) -> None:
        who = "MisspecifiedLinearGaussian"
        x = check_feature_scale(check_matrix(features, "features", who, ndim=2), who)
        mu = check_matrix(means, "means", who, ndim=2)
        if mu.shape[0] != x.shape[0]:
            raise InvalidParameterError(
                f"{who}: means must have one row per arm, like features ({x.shape[0]} rows); got "
                f"features of shape {x.shape} and means of shape {mu.shape}."
            )
        # features = μ, Θ = I: LinearGaussian's noise and sampling, with means exactly μ.
        try:
            self._noise = LinearGaussian.__new__(LinearGaussian)
            self._noise._build(mu, np.eye(mu.shape[1]), sigma, cov, "LinearGaussian")
        except InvalidParameterError as exc:
            raise InvalidParameterError(str(exc).replace("LinearGaussian:", f"{who}:", 1)) from None
        self._features = read_only(x)
        self._means = self._noise.means
        theta_ls = np.linalg.lstsq(x, mu, rcond=None)[0]
        self._theta_ls = read_only(theta_ls)
        self._ls_deviation = float(np.abs(mu - x @ theta_ls).max())
        self._theta: np.ndarray | None = None
        self._deviation: np.ndarray | None = None
        if theta is not None:
            th = check_matrix(theta, "theta", who, ndim=(1, 2))
            if (
                th.shape[0] != x.shape[1]
                or (th.ndim == 2 and th.shape[1] != mu.shape[1])
                or (th.ndim == 1 and mu.shape[1] != 1)
            ):
                raise InvalidParameterError(
                    f"{who}: theta must have one row per feature column ({x.shape[1]}) and one "
                    f"column per output ({mu.shape[1]}); got shape {th.shape}."
                )
            self._theta = read_only(th)
            self._deviation = read_only(mu - x @ th.reshape(x.shape[1], -1))
        self._bound: float | None = None
        if bound is not None:
            self._bound = _check_bound_consistent(bound, x, mu, self._deviation, who)

    @property
    def n_arms(self) -> int:  # noqa: D102
        return int(self._features.shape[0])

    @property
    def outcome_dim(self) -> int:  # noqa: D102
        return self._noise.outcome_dim

    @property
    def bound(self) -> float | None:
        """The misspecification level ``L_m`` told to agents, or ``None`` (not told)."""
        return self._bound

    @property
    def theta(self) -> np.ndarray | None:
        """The linear part Θ of ``μ = XΘ + Δ_m`` if it was given, else ``None`` (read-only)."""
        return self._theta

    @property
    def deviation(self) -> np.ndarray | None:
        """``Δ_m = μ − XΘ`` (K×d) if Θ was given, else ``None`` (read-only)."""
        return self._deviation

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
        """Structure, features, the marginal σ and ``L_m`` if told; not the means or the fit."""
        return {
            "structure": self.structure,
            "features": self._features,
            "noise_std": self.sigma,
            "misspecification": self._bound,
        }

    def truth(self) -> dict[str, Any]:
        """Means, least-squares fit and its deviation (and ``noise_cov`` if a ``cov`` was given).

        Plus ``theta`` and ``deviation`` (when Θ was given) and ``misspecification`` (the bound,
        when given).
        """
        out: dict[str, Any] = {
            "means": self._means,
            "theta_ls": self._theta_ls,
            "ls_deviation": self._ls_deviation,
        }
        if "noise_cov" in self._noise.truth():
            out["noise_cov"] = self._noise.noise_cov
        if self._theta is not None:
            out["theta"] = self._theta
            out["deviation"] = self._deviation
        if self._bound is not None:
            out["misspecification"] = self._bound
        return out


class ConstrainedGaussian(RewardModel):
    """Rewards and costs of constrained best mixed arm identification.

    One pull of arm ``a`` returns the vector ``(R_a, C_{1,a}, …, C_{L,a})`` with
    ``R_a ~ N(r_a, σ_r²)`` and ``C_{l,a} ~ N(c_{l,a}, σ_c²)``, all components independent and
    independent across pulls (Tang, Jain, Nayyar & Nuzzo 2024, Section 2; one σ_r for every
    reward and one σ_c for every cost, the paper's only model). ``means`` has shape (K, L + 1):
    column 0 the rewards, column ``1 + l`` cost type ``l``.

    **Known arms** (the paper's Section 2). Arms listed in ``known_arms`` have means given to the
    agent: they are public in ``ProblemSpec.extras`` as ``"known_arms"`` (a sorted tuple of arm
    indices) and ``"known_means"`` (a read-only array of shape (len(known_arms), L + 1), rows in
    the order of ``known_arms``, laid out like an outcome). The paper lists them last
    (``K0 + 1 .. K``); any arms may be known here, but at least one must be unknown. A known arm
    can still be pulled (it returns noisy outcomes like any arm); the paper's algorithms never
    pull one. Every experiment of the paper has no known arm (``K0 = K``).

    Args:
        rewards: mean rewards ``r``, shape (K,), K ≥ 2.
        costs: mean costs ``c``, shape (L, K) with L ≥ 1 (row ``l`` is cost type ``l``), or (K,)
            for L = 1.
        sigma_r: reward noise σ_r ≥ 0 (default 1.0, the paper's).
        sigma_c: cost noise σ_c ≥ 0 (default 0.5, the paper's).
        known_arms: indices of the arms whose means the agent is told (default none).

    """

    structure = "none"

    def __init__(
        self,
        rewards: Any,
        costs: Any,
        sigma_r: float = 1.0,
        sigma_c: float = 0.5,
        known_arms: Any = (),
    ) -> None:
        who = "ConstrainedGaussian"
        r, c = check_rewards_costs(rewards, costs, who)
        self._sigma_r = check_nonnegative(sigma_r, "sigma_r", who)
        self._sigma_c = check_nonnegative(sigma_c, "sigma_c", who)
        self._known = _check_known(known_arms, r.size, who)
        self._rewards = read_only(r)
        self._costs = read_only(c)
        self._m = c.shape[0] + 1
        self._means = read_only(np.column_stack([r, c.T]))
        self._sigma_vec = read_only(
            np.array([self._sigma_r] + [self._sigma_c] * c.shape[0], dtype=np.float64)
        )
        self._rows = _float_rows(self._means, self._sigma_vec, True)
        known_means = self._means[list(self._known)].copy()
        self._known_means = read_only(known_means.reshape(len(self._known), self._m))

    @property
    def n_arms(self) -> int:  # noqa: D102
        return int(self._rewards.size)

    @property
    def outcome_dim(self) -> int:  # noqa: D102
        return self._m

    @property
    def n_constraints(self) -> int:
        """L, the number of cost types."""
        return self._m - 1

    @property
    def means(self) -> np.ndarray:  # noqa: D102
        return self._means

    @property
    def rewards(self) -> np.ndarray:
        """The mean rewards ``r`` (K,), read-only."""
        return self._rewards

    @property
    def costs(self) -> np.ndarray:
        """The mean costs ``c`` (L, K), read-only."""
        return self._costs

    @property
    def sigma_r(self) -> float:
        """σ_r, the reward noise."""
        return self._sigma_r

    @property
    def sigma_c(self) -> float:
        """σ_c, the cost noise (shared by every cost type)."""
        return self._sigma_c

    @property
    def noise_std(self) -> np.ndarray:
        """Per-component noise ``(σ_r, σ_c, …, σ_c)``, shape (L + 1,), read-only."""
        return self._sigma_vec

    @property
    def known_arms(self) -> tuple[int, ...]:
        """The arms whose means are public (sorted)."""
        return self._known

    @property
    def unknown_mask(self) -> np.ndarray:
        """Boolean mask (K,) of the unknown arms ``a ≤ K0`` (the only ones a gap may move)."""
        mask = np.ones(self.n_arms, dtype=bool)
        mask[list(self._known)] = False
        return mask

    def diagonal_noise(self) -> np.ndarray | None:  # noqa: D102
        return self._sigma_vec if self._own_sampler(ConstrainedGaussian) else None

    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        """One outcome of ``arm``: ``means[arm] + (σ_r, σ_c, …) ⊙ ε``, ε ~ N(0, I_{L+1})."""
        if self._rows is not None:
            return _draw_row(self._rows, arm, rng)
        return self._means[arm] + self._sigma_vec * rng.standard_normal(self._m)

    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-arm sums of ``counts[k]`` outcomes: one exact draw of ``N(n μ_k, n diag(σ²))``."""
        n = np.asarray(counts, dtype=np.float64)[:, None]
        noise = rng.standard_normal((self.n_arms, self._m))
        return n * self._means + np.sqrt(n) * self._sigma_vec * noise

    def public_fields(self) -> dict[str, Any]:
        """Noise levels and the known arms' means; the other means are not public."""
        return {
            "structure": self.structure,
            "noise_std": self._sigma_vec,
            "extras": {"known_arms": self._known, "known_means": self._known_means},
        }

    def truth(self) -> dict[str, Any]:
        """The means (K, L + 1), and the rewards and costs separately."""
        return {"means": self._means, "rewards": self._rewards, "costs": self._costs}


#: outcome dimensions up to which one pull is drawn with Python floats (:func:`_draw_row`);
#: from m = 3 on, m scalar draws cost as much as NumPy's vector operations (measured).
FLOAT_PATH_MAX_DIM = 2


def _float_rows(
    means: np.ndarray, sigma: np.ndarray, diagonal: bool
) -> tuple[list[list[float]], list[float]] | None:
    """The means' rows and σ as Python floats, for :func:`_draw_row`; None where it does not apply.

    Only for a diagonal noise and m ≤ :data:`FLOAT_PATH_MAX_DIM`.
    """
    if not diagonal or means.shape[1] > FLOAT_PATH_MAX_DIM:
        return None
    return means.tolist(), sigma.tolist()


def _draw_row(
    rows: tuple[list[list[float]], list[float]], arm: int, rng: np.random.Generator
) -> np.ndarray:
    """One outcome ``μ_arm + σ ⊙ ε`` with Python floats: the same draws and the same arithmetic.

    ``rng.standard_normal()`` called m times consumes the stream exactly as one
    ``rng.standard_normal(m)`` does (NumPy fills an array one draw at a time), and each output is
    ``μ_i + σ_i·ε_i`` in float64 as in the vector expression, so the outcomes are bit-identical to
    ``means[arm] + sigma * rng.standard_normal(m)``, at about half the cost of the NumPy calls.
    """
    means, sigma = rows
    row = means[arm]
    normal = rng.standard_normal
    if len(sigma) == 1:
        return np.array((row[0] + sigma[0] * normal(),))
    first = row[0] + sigma[0] * normal()  # drawn first, as element 0 of the vector draw
    return np.array((first, row[1] + sigma[1] * normal()))


def check_rewards_costs(rewards: Any, costs: Any, who: str) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(r, c)`` of a constrained instance: ``r`` (K,), K ≥ 2, ``c`` (L, K).

    ``costs`` of shape (K,) is read as one constraint (L = 1). Raises
    :class:`~bandit_envs.errors.InvalidParameterError` naming ``who`` for wrong shapes, fewer than
    two arms or non-finite values.
    """
    r = check_matrix(rewards, "rewards", who, ndim=1)
    c = check_matrix(costs, "costs", who, ndim=(1, 2))
    if c.ndim == 1:
        c = c[None, :]
    if c.shape[1] != r.size:
        raise InvalidParameterError(
            f"{who}: costs must have shape (L, K) with one column per arm (K = {r.size} "
            f"rewards); got costs of shape {np.shape(costs)}."
        )
    if r.size < 2:
        raise InvalidParameterError(f"{who}: there must be at least 2 arms; got {r.size}.")
    return r, c


def _check_known(known: Any, k: int, who: str) -> tuple[int, ...]:
    """Sorted distinct arm indices in ``0..k-1`` leaving at least one arm unknown, or raise."""
    if isinstance(known, (str, bytes)) or not hasattr(known, "__iter__"):
        raise InvalidParameterError(
            f"{who}: known_arms must be a sequence of arm indices; got {known!r}."
        )
    items = list(known)
    ints = []
    for item in items:
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
            raise InvalidParameterError(
                f"{who}: known_arms must contain integer arm indices; got {item!r} in {known!r}."
            )
        if not 0 <= int(item) < k:
            raise InvalidParameterError(
                f"{who}: known_arms must be arm indices in 0..{k - 1}; got {int(item)}."
            )
        ints.append(int(item))
    if len(set(ints)) != len(ints):
        raise InvalidParameterError(f"{who}: known_arms must not repeat an arm; got {known!r}.")
    if len(ints) >= k:
        raise InvalidParameterError(
            f"{who}: at least one arm must be unknown (K0 >= 1: the budget schedule of Tang et al. "
            f"2024, eq. 7, shares the pulls among the unknown arms); got known_arms "
            f"{sorted(ints)} for {k} arms."
        )
    return tuple(sorted(ints))


def _sigma_error(who: str, shape: tuple[int, ...], m: int) -> Exception:
    return InvalidParameterError(
        f"{who}: sigma must be a float or have one entry per output ({m}); got shape {shape}."
    )


def _check_sigma(sigma: Any, m: int, who: str) -> np.ndarray:
    """Return σ as an (m,) float64 vector of finite values ≥ 0 (``None`` means 1.0), or raise."""
    raw = 1.0 if sigma is None else sigma
    # an object array defers the float conversion to check_matrix, which names the argument
    s = check_matrix(np.atleast_1d(np.asarray(raw, dtype=object)), "sigma", who, ndim=1)
    if s.shape not in ((1,), (m,)):
        raise _sigma_error(who, s.shape, m)
    if (s < 0).any():
        raise InvalidParameterError(f"{who}: sigma must be >= 0; got {sigma!r}.")
    if (s > _MAX_SIGMA).any():
        raise InvalidParameterError(
            f"{who}: sigma must be at most {_MAX_SIGMA:g} (its square, the noise variance, must "
            f"be a finite float64); got {sigma!r}."
        )
    return np.broadcast_to(s, (m,)).copy()


#: the largest σ whose variance σ² (and a sum of 10¹² of them) stays a finite float64.
_MAX_SIGMA = 1e140


#: the largest mean magnitude: a sum of 10¹² outcomes (≤ 10¹¹²) and its square (≤ 10²²⁴), which
#: agents' statistics form, stay finite float64 (θ ~ 1e300 made Uniform's GLR overflow).
_MAX_MEAN = 1e100


def _check_means(means: np.ndarray, who: str) -> np.ndarray:
    """Refuse means that overflow float64, whose differences (the gaps) do, or above 1e100."""
    with np.errstate(over="ignore", invalid="ignore"):
        spread = means.max(axis=0) - means.min(axis=0)
    if not (np.isfinite(means).all() and np.isfinite(spread).all()):
        worst = float(np.nanmax(np.abs(np.where(np.isnan(means), np.inf, means))))
        raise InvalidParameterError(
            f"{who}: the arm means (or their differences) overflow float64 (largest magnitude "
            f"{worst!r}); rescale the features, theta or means."
        )
    worst = float(np.abs(means).max()) if means.size else 0.0
    if worst > _MAX_MEAN:
        raise InvalidParameterError(
            f"{who}: the arm means must be at most {_MAX_MEAN:g} in magnitude (sums of many "
            f"outcomes and their squares must stay finite float64); got a mean of magnitude "
            f"{worst!r}. Rescale the features, theta or means (and sigma with them)."
        )
    return means


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


# --------------------------------------------------------------------------------------------
# the misspecification bound (Li, Ma, Hua & Zhu 2025, Section 5)


def _check_bound_consistent(
    bound: Any, x: np.ndarray, mu: np.ndarray, deviation: np.ndarray | None, who: str
) -> float:
    """Return ``L_m`` if some θ puts every mean within ``L_m`` of ``Θᵀx_k``, else raise."""
    from bandit_envs.theory.misspecification import chebyshev_deviation

    if isinstance(bound, bool) or not isinstance(bound, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(f"{who}: bound must be a finite float >= 0; got {bound!r}.")
    b = float(bound)
    if not np.isfinite(b) or b < 0:
        raise InvalidParameterError(f"{who}: bound must be a finite float >= 0; got {bound!r}.")
    if deviation is not None:
        worst, what = float(np.abs(deviation).max()), "the deviation means - features @ theta"
    else:
        worst = max(chebyshev_deviation(x, mu[:, j])[1] for j in range(mu.shape[1]))
        what = "the best (Chebyshev) linear fit of the means"
    tol = 1e-9 * max(1.0, float(np.abs(mu).max()))
    if worst > b + tol:
        raise InvalidParameterError(
            f"{who}: bound L_m = {b!r} is inconsistent with the means: {what} is off by "
            f"{worst!r} > L_m on some arm; give a bound >= {worst!r}."
        )
    return b
