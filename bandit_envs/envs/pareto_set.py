"""Pareto set identification instances (Kone, Kaufmann & Richert, GEGE).

Each ``make_*`` function builds a :class:`~bandit_envs.PureExplorationEnv` with the
:class:`~bandit_envs.ParetoSet` task and is the entry point of a registered id:

| id | K × h × d | instance |
|---|---|---|
| ``LinearPSI-NoC-v0`` | 259 × 4 × 2 | Network-on-Chip data, the authors' build (Section 5.1) |
| ``LinearPSI-Energy-v0`` | 768 × 8 × 2 | UCI Energy efficiency, linearised or raw (App. I.2) |
| ``LinearPSI-Synthetic-v0`` | K × 8 × 2 | H1,lin and H2,lin constant in K (Section 5.1) |
| ``LinearPSI-Custom-v0`` | any | your own features and Θ, or means |

Every objective is maximised (the paper's Definition 1): data whose objectives are "lower is
better" are negated. Outcomes are ``μ_k + η`` with ``η ~ N(0, Σ)``, ``Σ = σ² I`` by default
(σ = 0.5 as in the authors' code, ``cyrille-kone/linear_psi``) or any covariance given by
``cov``. Setting keywords, as in the linear best-arm ids: ``delta=`` (fixed confidence) or
``budget=`` (fixed budget); with neither, δ = 0.1 (the authors' NoC notebook). ``epsilon > 0``
poses ε-PSI (Section 3.3, after Auer et al. 2016): every Pareto arm must be returned and every
returned arm must be ε-close.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian, MisspecifiedLinearGaussian, RewardModel
from bandit_envs.core.tasks import ParetoSet
from bandit_envs.core.validation import (
    array_ndim,
    check_matrix,
    check_nonnegative,
    check_positive_int,
)
from bandit_envs.data import load_energy, load_noc
from bandit_envs.envs.registration import env_factory, probe_problem
from bandit_envs.errors import DataError, InvalidParameterError
from bandit_envs.theory.pareto import psi_gaps

__all__ = [
    "DEFAULT_DELTA",
    "DEFAULT_SIGMA",
    "ENERGY_MEANS",
    "SYNTHETIC_H",
    "SYNTHETIC_SHRINK",
    "energy_instance",
    "make_custom",
    "make_energy",
    "make_noc",
    "make_synthetic",
    "noc_instance",
    "synthetic_base_means",
    "synthetic_instance",
]

#: noise standard deviation of every PSI id unless told otherwise (the authors' code).
DEFAULT_SIGMA = 0.5
#: confidence δ when neither ``delta`` nor ``budget`` is given (the authors' NoC notebook).
DEFAULT_DELTA = 0.1
#: the two ways to build the Energy means (least squares, or "as such": App. I of the paper).
ENERGY_MEANS = ("linear", "raw")
#: feature dimension h of the synthetic family (the paper's Section 5.1).
SYNTHETIC_H = 8
#: norm c < 1 of the extra synthetic arms' features, x_k = c·u/‖u‖ (our choice).
SYNTHETIC_SHRINK = 0.35
#: candidates drawn per rejection-sampling block (fixed, so instances are nested in K).
_BLOCK = 1024
#: relative margin by which an extra arm must clear each constraint (float round-off guard).
_MARGIN = 1e-9


# --------------------------------------------------------------------------------------------
# shared helpers


#: the decorator of this family's ids.
declare = functools.partial(
    env_factory, family="multi-output Pareto set", task="pareto_set", default_delta=DEFAULT_DELTA
)


def _check_sigma(sigma: Any, who: str) -> Any:
    """Validate ``sigma`` (a float ≥ 0, one per objective, or ``None``) with ``who``'s name."""
    if sigma is None:
        return None
    if isinstance(sigma, (numbers.Real, np.number)) or isinstance(sigma, bool):
        return check_nonnegative(sigma, "sigma", who)
    s = check_matrix(sigma, "sigma", who, ndim=1)
    if (s < 0).any():
        raise InvalidParameterError(
            f"{who}: sigma must be >= 0 (one standard deviation per objective); got {s.tolist()!r}."
        )
    return s


def _check_epsilon(epsilon: Any, who: str) -> float:
    return check_nonnegative(epsilon, "epsilon", who)


def _renamed(exc: InvalidParameterError, who: str) -> InvalidParameterError:
    """The model's message, said by the environment id (one sentence shape everywhere)."""
    text = str(exc)
    for prefix in ("LinearGaussian: ", "MisspecifiedLinearGaussian: "):
        if text.startswith(prefix):
            text = f"{who}: {text[len(prefix) :]}"
    return type(exc)(text)


def _linear_model(features: Any, theta: Any, sigma: Any, cov: Any, who: str) -> LinearGaussian:
    """``LinearGaussian`` with σ defaulting to :data:`DEFAULT_SIGMA` when no ``cov`` is given."""
    sigma = _check_sigma(sigma, who)
    if sigma is None and cov is None:
        sigma = DEFAULT_SIGMA
    try:
        return LinearGaussian(features, theta, sigma, cov)
    except InvalidParameterError as exc:
        raise _renamed(exc, who) from None


def _env(
    model: RewardModel,
    epsilon: Any,
    who: str,
    info: dict[str, Any],
    delta: float | None,
    budget: int | None,
    env_kwargs: dict[str, Any],
) -> PureExplorationEnv:
    task = ParetoSet(_check_epsilon(epsilon, who))
    info = {**info, "epsilon": task.epsilon}
    return PureExplorationEnv(
        model, task, name=who, instance_info=info, delta=delta, budget=budget, **env_kwargs
    )


def _sigma_info(model: LinearGaussian | MisspecifiedLinearGaussian) -> Any:
    s = model.sigma
    return s if isinstance(s, float) else s.tolist()


# --------------------------------------------------------------------------------------------
# NoC (Kone, Kaufmann & Richert, Section 5.1)


def noc_instance(features: Any, objectives: Any) -> tuple[np.ndarray, np.ndarray]:
    """The authors' NoC construction (their notebook ``test.ipynb``), from raw data.

    ``X = features / ‖features‖₂`` row-wise; ``Θ_ls = lstsq(XᵀX, XᵀY)`` (least squares without
    intercept, solved through the normal equations as in the notebook); both objectives are
    negated (energy and ``inv_runtime`` count as "lower is better" there; we reproduce it), so the
    model's parameter is ``Θ = −Θ_ls`` and the means are ``μ = XΘ = −XΘ_ls``.

    Args:
        features: K×4 raw features (width, complexity, fifo, multiplier).
        objectives: K×2 raw objectives (energy, inv_runtime).

    Returns:
        ``(X, Θ)``: the row-normalised K×4 features and the 4×2 parameter.

    """
    who = "noc_instance"
    x = check_matrix(features, "features", who, ndim=2)
    y = check_matrix(objectives, "objectives", who, ndim=2, rows=x.shape[0])
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if (norms == 0).any():
        raise InvalidParameterError(
            f"{who}: features must have no all-zero row (rows are normalised to unit norm); row "
            f"{int(np.flatnonzero(norms[:, 0] == 0)[0])} is zero."
        )
    x = x / norms
    theta_ls = np.linalg.lstsq(x.T @ x, x.T @ y, rcond=None)[0]
    return x, -theta_ls


@declare(
    "LinearPSI-NoC-v0",
    default_agent="GEGE",
    summary="K=259 Network-on-Chip designs, h=4, d=2; row-normalised features, least-squares "
    "Theta, both objectives negated",
    source="Almer, Topham & Franke 2011, via Kone, Kaufmann & Richert (GEGE), Section 5.1",
    datasets=("noc",),
    quick_budget=259 * 9,
)
def make_noc(
    sigma: Any = None,
    cov: Any = None,
    epsilon: float = 0.0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearPSI-NoC-v0``: the Network-on-Chip instance of Kone et al. (Section 5.1).

    ## Description
    K = 259 hardware designs (Almer, Topham & Franke 2011), h = 4 features, d = 2 objectives,
    built exactly as the authors' notebook does (:func:`noc_instance`): row-normalised features,
    least-squares Θ without intercept, both objectives negated. The data file ``noc_CM_log.csv``
    is read by :func:`bandit_envs.data.load_noc` (the folder named by ``BANDIT_ENVS_DATA``,
    else the user cache, else a download from the authors' repository, sha256-checked).

    ## Instance & complexity (computed from the data; the tests check them)
    ``S* = {0, 140, 164, 180}``, rank(X) = 4, ``Δ_min = 0.04296`` (two arms tie),
    ``H1 = 3993.6``, ``H2 = 1780.25``, ``H1,lin = 1973.8``, ``H2,lin = 1780.25``
    (``env.unwrapped.complexity()``). The authors' fixed budgets run from ``K⌈log₂K⌉ = 2331``
    to ``2⌊H1/2 + 1⌋ + 1 = 3995``.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``sigma`` | noise σ, a float or one per objective | 0.5 (if no ``cov``) |
    | ``cov`` | a full 2×2 noise covariance instead of ``sigma`` | ``None`` |
    | ``epsilon`` | ε of ε-PSI (0: exact PSI) | 0.0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.1 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |

    Raises:
        DataError: the data file is not available (the message says which file to put where).
        InvalidParameterError: a bad keyword value.

    """
    who = "LinearPSI-NoC-v0"
    try:
        raw_x, raw_y = load_noc()
    except DataError as exc:
        raise DataError(
            f"{who} needs the NoC data set (Almer, Topham & Franke 2011). {exc}"
        ) from None
    x, theta = noc_instance(raw_x, raw_y)
    model = _linear_model(x, theta, sigma, cov, who)
    info = {"data": "noc", "sigma": _sigma_info(model)}
    return _env(model, epsilon, who, info, delta, budget, env_kwargs)


# --------------------------------------------------------------------------------------------
# Energy (Kone, Kaufmann & Richert, Appendix I.2)


def energy_instance(
    features: Any, targets: Any, means: str = "linear"
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Energy efficiency as a PSI instance (Kone et al., Appendix I.2), from the raw data.

    Our choices (the paper's Appendix I.2 gives none):

    * features: row-normalised raw building features, the NoC preprocessing. ``X2 = X3 + 2·X4``
      holds exactly and survives row scaling, so rank(X) = 7 < h = 8 (agents meet a design that
      does not span ℝ⁸; the complexities use h = rank = 7).
    * direction: heating and cooling loads are both minimised, so both are negated.
    * ``means="linear"``: ``μ = X Θ`` with ``Θ = −argmin ‖XΘ − Y‖_F`` (least squares without
      intercept; the minimum-norm solution, as X is rank-deficient). ``S* = {24, 25, 26, 27}``.
    * ``means="raw"``: ``μ = −Y``, the data as such (mis-specified: no Θ gives these means).
      ``S* = {24, 26}``. The 12 duplicated (Y1, Y2) rows are all dominated with positive gaps
      (smallest gap 0.03), so exact PSI is well-posed and nothing is deduplicated.

    Neither matches the paper's "Pareto front of 3 arms", which only the raw data *maximising*
    the loads gives (we checked every variant).

    Args:
        features: K×8 raw features.
        targets: K×2 raw loads (heating, cooling).
        means: ``"linear"`` or ``"raw"``.

    Returns:
        ``(X, means, Θ)``: row-normalised features, the K×2 means, and the 8×2 parameter
        (``None`` for ``"raw"``).

    """
    who = "energy_instance"
    if means not in ENERGY_MEANS:
        raise InvalidParameterError(
            f"{who}: means must be 'linear' (least-squares linearised) or 'raw' (the data as such, "
            f"mis-specified); got {means!r}."
        )
    x = check_matrix(features, "features", who, ndim=2)
    y = check_matrix(targets, "targets", who, ndim=2, rows=x.shape[0])
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    if means == "raw":
        return x, -y, None
    theta = -np.linalg.lstsq(x, y, rcond=None)[0]
    return x, x @ theta, theta


@declare(
    "LinearPSI-Energy-v0",
    default_agent="GEGE",
    summary="K=768 buildings, h=8 (rank 7), d=2 loads negated; means='linear' (least squares) "
    "or 'raw' (misspecified)",
    source="Tsanas & Xifara 2012 (UCI Energy efficiency), via Kone, Kaufmann & Richert, App. I.2",
    datasets=("energy",),
    quick={"sigma": 0.1},
    quick_budget=768 * 10,
)
def make_energy(
    means: str = "linear",
    sigma: Any = None,
    cov: Any = None,
    epsilon: float = 0.0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearPSI-Energy-v0``: the UCI Energy efficiency instance (Kone et al., Appendix I.2).

    ## Description
    K = 768 simulated buildings (Tsanas & Xifara 2012), h = 8 features (rank 7), d = 2
    objectives: heating and cooling loads, both minimised, hence negated. Features are
    row-normalised. ``means="linear"`` (default) gives a linear model (least squares, no
    intercept); ``means="raw"`` uses the data means as such, a mis-specified problem whose
    structure is ``"misspecified_linear"`` (features still shown). Details and the reasons for
    each choice: :func:`energy_instance`. Data: :func:`bandit_envs.data.load_energy`.

    ## Instance & complexity
    | ``means`` | ``S*`` | Δ_min | H1 | H1,lin (h = 7) | H2,lin |
    |---|---|---|---|---|---|
    | ``"linear"`` | {24, 25, 26, 27} | 0.01495 | 17910.7 | 17895.3 | 17873.3 |
    | ``"raw"`` | {24, 26} | 0.03 | 3535.8 | 3496.1 | 2500.0 |

    The paper's experiments use T = 10000 (fixed budget) and δ = 0.1; its σ is not given, 0.5
    (as on NoC) is the default here.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``means`` | ``"linear"`` or ``"raw"`` | ``"linear"`` |
    | ``sigma`` | noise σ, a float or one per objective | 0.5 (if no ``cov``) |
    | ``cov`` | a full 2×2 noise covariance instead of ``sigma`` | ``None`` |
    | ``epsilon`` | ε of ε-PSI (0: exact PSI) | 0.0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.1 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |

    Raises:
        DataError: the data file is not available (the message says which file to put where).
        InvalidParameterError: a bad keyword value.

    """
    who = "LinearPSI-Energy-v0"
    if means not in ENERGY_MEANS:
        raise InvalidParameterError(
            f"{who}: means must be 'linear' (least-squares linearised) or 'raw' (the data as such, "
            f"mis-specified); got {means!r}."
        )
    try:
        raw_x, raw_y = load_energy()
    except DataError as exc:
        raise DataError(
            f"{who} needs the Energy efficiency data set (Tsanas & Xifara 2012). {exc}"
        ) from None
    x, mu, theta = energy_instance(raw_x, raw_y, means)
    model: LinearGaussian | MisspecifiedLinearGaussian
    if theta is not None:
        model = _linear_model(x, theta, sigma, cov, who)
    else:
        model = _misspecified_model(x, mu, sigma, cov, who)
    info = {"data": "energy", "means": means, "sigma": _sigma_info(model)}
    return _env(model, epsilon, who, info, delta, budget, env_kwargs)


def _misspecified_model(
    features: Any, means: Any, sigma: Any, cov: Any, who: str
) -> MisspecifiedLinearGaussian:
    sigma = _check_sigma(sigma, who)
    if sigma is None and cov is None:
        sigma = DEFAULT_SIGMA
    try:
        return MisspecifiedLinearGaussian(features, means, sigma, cov)
    except InvalidParameterError as exc:
        raise _renamed(exc, who) from None


# --------------------------------------------------------------------------------------------
# synthetic (Kone, Kaufmann & Richert, Section 5.1 and Appendix I.1)


def synthetic_base_means() -> np.ndarray:
    """The means μ₁..μ₈ of the first h = 8 synthetic arms (our choice; the paper gives none).

    Five points on the concave front ``(0.5 + cos φ, 0.5 + sin φ)`` at
    ``φ = 0.50, 0.62, 0.79, 0.93, 1.10`` (Pareto-optimal, gaps 0.064–0.091 set by their
    neighbours), and three dominated points, each below a front point by a fixed offset, with gaps
    0.15, 0.16 and 0.19 (in [0.05, 0.2]). ``H1,lin = 973.28``, ``H2,lin = 600.27``.
    """
    angles = np.array([0.50, 0.62, 0.79, 0.93, 1.10])
    front = np.column_stack([0.5 + np.cos(angles), 0.5 + np.sin(angles)])
    dominated = front[1:4] - np.array([[0.15, 0.19], [0.17, 0.16], [0.21, 0.19]])
    return np.vstack([front, dominated])


def synthetic_instance(n_arms: int, instance_seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Features and Θ of the synthetic instance ν_K (Kone et al., Section 5.1, Fig. 1–2).

    Arms 1..h have canonical features ``x_i = e_i`` (h = 8), so Θ's rows are their means
    (:func:`synthetic_base_means`). Each extra arm has ``x_k = c·u/‖u‖``, ``u ~ U([0, 1]^h)``,
    ``c =`` :data:`SYNTHETIC_SHRINK`, and is kept only if (rejection sampling)

    1. its gap ``Δ_k = max_{p ∈ S*} min_c [μ_p(c) − μ_k(c)]`` exceeds every gap of arms 1..h (so
       it is strictly dominated, S* is unchanged, and the h smallest gaps stay those of arms
       1..h), and
    2. for every Pareto arm i, ``M(i, k) ∧ (M(k, i)_+ + Δ_k) > δ*_i``: the new arm does not lower
       the gap of i (the gaps of Section 2.1, eq. 1).

    The gap of a dominated arm depends on the Pareto arms only, and each extra arm enters a
    Pareto arm's gap through its own term only, so candidates can be checked one by one, in
    vectorised blocks. Hence every gap of arms 1..h, ``H1,lin`` and ``H2,lin`` are *exactly*
    those of ν_h for every K, while ``H1`` grows with K. Candidates are drawn in blocks of fixed
    size from ``default_rng(instance_seed)``, so ν_K's arms are the first K arms of ν_{K'} for
    every K ≤ K' (nested instances); about 60% of the candidates are accepted.

    Args:
        n_arms: K ≥ h = 8.
        instance_seed: seed of the extra arms (an integer ≥ 0).

    Returns:
        ``(features K×8, Θ 8×2)``.

    """
    who = "synthetic_instance"
    n_arms = check_positive_int(n_arms, "K", who, minimum=SYNTHETIC_H)
    instance_seed = check_positive_int(instance_seed, "instance_seed", who, minimum=0)
    theta = synthetic_base_means()
    base = psi_gaps(theta)
    pareto = theta[base.pareto]
    pareto_gaps = base.gaps[base.pareto]
    largest = float(base.gaps.max())
    rng = np.random.default_rng(instance_seed)
    chunks = [np.eye(SYNTHETIC_H)]
    need = n_arms - SYNTHETIC_H
    draws = 0
    while need > 0:
        u = rng.random((_BLOCK, SYNTHETIC_H))
        norms = np.linalg.norm(u, axis=1, keepdims=True)
        x = SYNTHETIC_SHRINK * u / np.where(norms > 0, norms, 1.0)
        mu = x @ theta
        diff = pareto[None, :, :] - mu[:, None, :]  # μ_p − μ_k, shape (block, |S*|, d)
        gap = diff.min(axis=2).max(axis=1)  # Δ_k = max_p m(k, p) = max_p min_c [μ_p − μ_k]
        m_ik = diff.max(axis=2)  # M(i, k) = max_c [μ_i(c) − μ_k(c)], i ∈ S*
        m_ki = -diff.min(axis=2)  # M(k, i) = max_c [μ_k(c) − μ_i(c)]
        term = np.minimum(m_ik, np.maximum(m_ki, 0.0) + gap[:, None])  # k's term in δ*_i
        ok = (norms[:, 0] > 0) & (gap > largest * (1.0 + _MARGIN))
        ok &= (term > pareto_gaps * (1.0 + _MARGIN)).all(axis=1)
        kept = x[ok][:need]
        chunks.append(kept)
        need -= kept.shape[0]
        draws += 1
        if draws > 100 + 10 * (n_arms // _BLOCK):  # ~60% are accepted with these constants
            raise RuntimeError(f"{who}: rejection sampling accepts almost no candidates.")
    return np.vstack(chunks), theta


@declare(
    "LinearPSI-Synthetic-v0",
    default_agent="GEGE",
    summary="h=8, d=2; arms e1..e8 with fixed means plus K-8 rejection-sampled arms, so "
    "H1,lin and H2,lin do not depend on K",
    source="Kone, Kaufmann & Richert (GEGE), Section 5.1, Fig. 1-2",
    quick={"K": 16},
)
def make_synthetic(
    K: int = 100,  # noqa: N803 - the paper's name for the number of arms
    sigma: Any = None,
    instance_seed: int = 0,
    cov: Any = None,
    epsilon: float = 0.0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearPSI-Synthetic-v0``: h = 8, d = 2, and H1,lin, H2,lin constant in K.

    ## Description
    The instance family of Kone et al.'s Fig. 1–2: the first h = 8 arms are ``e_1..e_8`` with
    fixed means (a concave front of five arms plus three dominated ones); ``K − 8`` extra arms,
    drawn from ``instance_seed`` by rejection sampling, keep every gap of the first eight
    unchanged and have larger gaps themselves (:func:`synthetic_instance`). So ``H1,lin =
    973.28`` and ``H2,lin = 600.27`` for every K and seed, while ``H1`` (the unstructured
    complexity) grows with K. The episode seed changes the noise only.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``K`` | number of arms, ≥ 8 | 100 |
    | ``sigma`` | noise σ, a float or one per objective | 0.5 (if no ``cov``) |
    | ``instance_seed`` | seed of the extra arms, ≥ 0 | 0 |
    | ``cov`` | a full 2×2 noise covariance instead of ``sigma`` | ``None`` |
    | ``epsilon`` | ε of ε-PSI (0: exact PSI) | 0.0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.1 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |

    The paper does not give its σ (we use 0.5, as on NoC); its fixed budget is ``T = H2,lin``,
    its δ 0.01 (Section 5.1).

    Raises:
        InvalidParameterError: a bad keyword value (e.g. ``K < 8``).

    """
    who = "LinearPSI-Synthetic-v0"
    n_arms = check_positive_int(K, "K", who, minimum=SYNTHETIC_H)
    seed = check_positive_int(instance_seed, "instance_seed", who, minimum=0)
    features, theta = synthetic_instance(n_arms, seed)
    model = _linear_model(features, theta, sigma, cov, who)
    info = {"K": n_arms, "instance_seed": seed, "sigma": _sigma_info(model)}
    return _env(model, epsilon, who, info, delta, budget, env_kwargs)


# --------------------------------------------------------------------------------------------
# custom


@declare(
    "LinearPSI-Custom-v0",
    default_agent="GEGE",
    summary="your own features (K x h) and theta (h x d), or means (K x d) alone (identity "
    "features: unstructured), or features with means (misspecified); sigma or cov, epsilon "
    "(no arrays: a 4-arm example with 2 objectives)",
)
def make_custom(
    features: Any = None,
    theta: Any = None,
    means: Any = None,
    sigma: Any = None,
    cov: Any = None,
    epsilon: float = 0.0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearPSI-Custom-v0``: Pareto set identification on your own instance.

    Give one of:

    * ``features`` (K×h) and ``theta`` (h×d): the linear model ``μ_k = Θᵀx_k``;
    * ``means`` (K×d) alone: the unstructured bandit, i.e. identity features ``x_k = e_k`` and
      ``Θ = means`` (unstructured agents ignore features; linear agents see h = K);
    * ``features`` (K×h) and ``means`` (K×d): the means used as such with the features shown, a
      mis-specified problem (structure ``"misspecified_linear"``,
      :class:`MisspecifiedLinearGaussian`), like ``LinearPSI-Energy-v0`` with ``means="raw"``.

    With no arrays, a four-arm example with two objectives (as the other Custom ids have one):
    ``means = ((1, 0), (0, 1), (0.6, 0.6), (0.3, 0.3))``, Pareto set ``{0, 1, 2}`` (arm 3 is
    dominated by arm 2).

    Every objective is maximised (negate "lower is better" objectives). With ``epsilon = 0`` an
    instance with a zero PSI gap (e.g. two identical Pareto-optimal mean vectors) is refused;
    use ``epsilon > 0`` for it (its complexity is infinite; our rule).

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``features`` | K×h arm features | ``None`` |
    | ``theta`` | h×d parameter Θ (2-D, one column per objective) | ``None`` |
    | ``means`` | K×d means | ``None`` |
    | ``sigma`` | noise σ, a float ≥ 0 or one per objective | 0.5 (if no ``cov``) |
    | ``cov`` | a full d×d noise covariance instead of ``sigma`` | ``None`` |
    | ``epsilon`` | ε of ε-PSI (0: exact PSI) | 0.0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.1 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |

    Raises:
        InvalidParameterError: missing or contradictory arrays, wrong shapes, non-finite values,
            fewer than 2 arms.
        InvalidInstanceError: ``epsilon = 0`` and an arm's PSI gap is 0.

    """
    who = "LinearPSI-Custom-v0"
    example = (
        f"gym.make('{who}', features=np.eye(3), theta=[[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]]) or "
        f"gym.make('{who}', means=[[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]])"
    )
    if theta is not None and means is not None:
        raise InvalidParameterError(
            f"{who}: give theta= (with features=) or means=, not both; e.g. {example}."
        )
    if features is None and theta is None and means is None:
        means = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6], [0.3, 0.3]]
    if theta is None and means is None:
        raise InvalidParameterError(
            f"{who}: features= (K×h) with theta= (h×d), or means= (K×d), is required; e.g. "
            f"{example}."
        )
    if theta is not None and features is None:
        raise InvalidParameterError(
            f"{who}: theta= needs features= (a K×h array, one row per arm); e.g. {example}."
        )
    arrays = {"features": features, "theta": theta, "means": means}
    for name, value in arrays.items():
        if value is not None and array_ndim(value, name, who) != 2:
            extra = (
                " For one objective pass a column (shape (h, 1) or (K, 1)), or use "
                "LinearBAI-Custom-v0 for best-arm identification."
                if name != "features" and np.ndim(value) == 1
                else ""
            )
            raise InvalidParameterError(
                f"{who}: {name} must be a 2-D array; got shape {np.shape(value)}.{extra}"
            )
    model: LinearGaussian | MisspecifiedLinearGaussian
    if theta is not None:
        model = _linear_model(features, theta, sigma, cov, who)
        kind = "linear"
    elif features is None:
        mu = check_matrix(means, "means", who, ndim=2)
        model = _linear_model(np.eye(mu.shape[0]), mu, sigma, cov, who)
        kind = "unstructured"
    else:
        model = _misspecified_model(features, means, sigma, cov, who)
        kind = "misspecified"
    if model.n_arms < 2:
        raise InvalidParameterError(
            f"{who}: the instance must have at least 2 arms (rows); got {model.n_arms}."
        )
    info = {"kind": kind, "sigma": _sigma_info(model)}
    return _env(model, epsilon, who, info, delta, budget, env_kwargs)


# --------------------------------------------------------------------------- probe problems


def _probe(
    features: Any, theta: Any, sigma: float, name: str, **setting: Any
) -> PureExplorationEnv:
    model = LinearGaussian(features, theta, sigma)
    return PureExplorationEnv(model, ParetoSet(), name=name, **setting)


_PLANE = np.array([[1.0, 0.0], [0.0, 1.0], [np.cos(0.5), np.sin(0.5)], [0.3, 0.3]])
_RANK2 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.5, 0.2, 0.0]])


@probe_problem("pareto_set", "4 arms in the plane, 2 objectives")
def _probe_plane(**setting: Any) -> PureExplorationEnv:
    return _probe(_PLANE, np.eye(2), 0.5, "probe-psi-plane", **setting)


@probe_problem("pareto_set", "easy: 3 arms, all gaps 0.5, sigma 0.2", easy=True)
def _probe_easy(**setting: Any) -> PureExplorationEnv:
    theta = [[1.0, 0.5], [0.5, 1.0], [0.0, 0.0]]
    return _probe(np.eye(3), theta, 0.2, "probe-psi-easy", **setting)


@probe_problem("pareto_set", "rank-deficient features (K=4, h=3, rank 2), 2 objectives")
def _probe_rank2(**setting: Any) -> PureExplorationEnv:
    theta = [[1.0, 0.2], [0.1, 1.0], [5.0, 5.0]]
    return _probe(_RANK2, theta, 0.3, "probe-psi-rank2", **setting)


@probe_problem("pareto_set", "noiseless (sigma=0), 2 objectives")
def _probe_noiseless(**setting: Any) -> PureExplorationEnv:
    return _probe(_PLANE, np.eye(2), 0.0, "probe-psi-noiseless", **setting)
