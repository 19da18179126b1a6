"""All ε-good arms instances (Li, Ma, Hua & Zhu 2025, LinFACT).

Each ``make_*`` function builds a :class:`~bandit_envs.PureExplorationEnv` with the
:class:`~bandit_envs.AllEpsilonGood` task and is the entry point of a registered id:

| id | K × h | instance |
|---|---|---|
| ``LinearEpsGood-Adaptive-v0`` | (d + 6 − m̃) × d | synthetic I, "adaptive" (App. EC.12.1) |
| ``LinearEpsGood-Static-v0`` | d × d | synthetic II, "static" (App. EC.12.2) |
| ``LinearEpsGood-FreeWilson-v0`` | 960 × 21 (rank 16) | synthetic Free-Wilson (Section 7.2) |
| ``LinearEpsGood-Custom-v0`` | any | your own features and θ, or means |

Outcomes are ``μ_k + η`` with ``η ~ N(0, σ²)``, σ = 1 by default (the paper does not state its
noise law; we take N(0, 1), the model of its lower bound, Theorem 3.2). Setting keywords,
as in the other families: ``delta=`` (fixed confidence) or ``budget=`` (fixed budget; the
paper's BayesGap and KGCB baselines run in fixed budget); with neither, δ = 0.05 for the
synthetic ids (our choice: the paper does not state its δ) and δ = 0.1 for
Free-Wilson (the smallest δ of the paper's sweep 0.1, …, 0.9). ``max_samples`` caps a
fixed-confidence episode.

Random instances (the protocol of Section 7.1: 10 draws of ``(m̃, X̃)`` per setting) are drawn from
``instance_seed``; the episode seed changes the noise only. ``m̃`` and ``X̃`` come from
independent streams, so giving one explicitly does not change the draw of the other.
Public side information (the paper's fairness protocol for its baselines, Section 7) is in
``ProblemSpec.extras``: ``"m_hint"`` (the *expected* number of good arms, for top-m baselines)
and, where the paper gives one, ``"threshold_hint"`` (the *expected* threshold).
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian, MisspecifiedLinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood
from bandit_envs.core.validation import (
    array_ndim,
    check_matrix,
    check_nonnegative,
    check_positive_int,
)
from bandit_envs.envs._common import build_env, check_positive
from bandit_envs.envs.registration import env_factory, probe_problem
from bandit_envs.errors import InvalidInstanceError, InvalidParameterError

__all__ = [
    "DEFAULT_DELTA",
    "FREE_WILSON_DELTA",
    "FREE_WILSON_SITES",
    "adaptive_draw",
    "adaptive_instance",
    "draw_m_tilde",
    "draw_x_tilde",
    "free_wilson_features",
    "free_wilson_instance",
    "make_adaptive",
    "make_custom",
    "make_free_wilson",
    "make_static",
    "static_instance",
]

#: confidence δ of the synthetic ids when neither ``delta`` nor ``budget`` is given.
DEFAULT_DELTA = 0.05
#: confidence δ of the Free-Wilson id (the smallest δ of the paper's sweep, Section 7.2).
FREE_WILSON_DELTA = 0.1
#: substituents per site of Katz et al.'s narcotic analgetics series (the paper's Section 7.2).
FREE_WILSON_SITES = (4, 5, 4, 3, 4)
#: candidates drawn per block when sampling by rejection.
_BLOCK = 64
#: blocks tried before a rejection sampler gives up.
_MAX_BLOCKS = 1000

#: the decorator of this family's ids.
declare = functools.partial(env_factory, family="all eps-good", task="all_eps_good")


# --------------------------------------------------------------------------------------------
# shared helpers


def _round_half_up(x: np.ndarray) -> np.ndarray:
    return np.floor(x + 0.5)


def draw_m_tilde(
    rng: np.random.Generator, mean: float, var: float, low: int, high: int, who: str
) -> int:
    """``m̃ = round(N(mean, var))``, redrawn until it lies in ``[low, high]``.

    The paper draws the number of good arms "from a normal distribution centred at E[m] with
    variance 3.0" (Section 7.1) and does not say how it is rounded or kept valid; rounding half up
    and redrawing are our choices.

    Raises:
        InvalidParameterError: if the range is (practically) never reached.
    """
    if var == 0.0:
        value = int(_round_half_up(np.array(mean)))
        if not low <= value <= high:
            raise InvalidParameterError(
                f"{who}: with m_var = 0, m̃ = round(m) = {value} must lie in [{low}, {high}]."
            )
        return value
    for _ in range(_MAX_BLOCKS):
        draws = _round_half_up(rng.normal(mean, math.sqrt(var), _BLOCK))
        ok = np.flatnonzero((draws >= low) & (draws <= high))
        if ok.size:
            return int(draws[ok[0]])
    raise InvalidParameterError(
        f"{who}: m̃ ~ round(N({mean}, {var})) almost never lies in the valid range [{low}, "
        f"{high}]; choose m and m_var so that it does, or give m_tilde."
    )


def draw_x_tilde(rng: np.random.Generator, mean: float, std: float, who: str) -> float:
    """``X̃ ~ N(mean, std²)`` truncated to ``[mean/2, 3·mean/2]`` (our law; see below).

    The paper only says "with mean X"; the normal law, its spread and the truncation (which
    keeps ``X̃ > 0``, as the construction needs) are our choice.
    """
    if std == 0.0:
        return float(mean)
    for _ in range(_MAX_BLOCKS):
        draws = rng.normal(mean, std, _BLOCK)
        ok = np.flatnonzero((draws >= 0.5 * mean) & (draws <= 1.5 * mean))
        if ok.size:
            return float(draws[ok[0]])
    raise InvalidParameterError(  # pragma: no cover - needs std >> mean
        f"{who}: X̃ ~ N({mean}, {std}²) almost never lies in [{0.5 * mean}, {1.5 * mean}]; "
        f"lower x_std or give x_tilde."
    )


def _streams(instance_seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Independent generators for ``m̃`` and ``X̃`` (giving one does not move the other)."""
    return np.random.default_rng([instance_seed, 0]), np.random.default_rng([instance_seed, 1])


def _check_m_tilde(value: Any, low: int, high: int, who: str, why: str) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or not (low <= int(value) <= high)
    ):
        raise InvalidParameterError(
            f"{who}: m_tilde must be an integer in [{low}, {high}] ({why}); got {value!r}."
        )
    return int(value)


# --------------------------------------------------------------------------------------------
# synthetic I: adaptive (Li, Ma, Hua & Zhu 2025, App. EC.12.1)


def adaptive_instance(
    d: int,
    m_tilde: int,
    x_tilde: float,
    epsilon: float,
    m: int = 4,
    paper_literal: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Features and θ of the adaptive instance (the paper's App. EC.12.1, Fig. 4a).

    ``θ = (X̃ + ε, X̃ + (m̃−1)ε/m̃, …, X̃ + ε/m̃, 0, …, 0) ∈ R^d`` (``θ_k = X̃ + (m̃−k+1)ε/m̃`` for
    ``k ≤ m̃``); arms ``e_1..e_d`` followed by ``n = 1.5m − m̃`` "disturbing" arms
    ``x_i = (c_i, 0, …, 0, √(1 − c_i²))``, ``i = 1..n``, all of unit norm, ``K = d + n``.

    * Default (our fix of the printed formula): ``c_i = (X̃ − iε/n)/(X̃ + ε)``, so
      ``μ(x_i) = X̃ − iε/n``: the disturbing arms lie in ``[X̃ − ε, X̃)``, below the threshold
      ``μ_1 − ε = X̃`` as the paper's Fig. 4 shows. Then ``G_ε = {e_1..e_m̃}``,
      ``α_ε = ε/m̃`` and ``β_ε = ε/n`` (the base arms are ``X̃`` below the threshold).
    * ``paper_literal=True``: the printed ``c_i = (X̃ − (n−i)ε/n)/(X̃ + ε)``, which puts ``x_n``
      exactly on the threshold (``μ(x_n) = X̃``): infinite complexity, refused by the task.

    Args:
        d: dimension (``d > m̃``, so that ``θ_d = 0``).
        m_tilde: the number of good arms ``m̃ ∈ [1, min(d − 1, 1.5m − 1)]``.
        x_tilde: ``X̃ = μ_1 − ε > 0``.
        epsilon: ε > 0.
        m: the expected number of good arms (even, so that ``n = 1.5m − m̃`` is an integer).
        paper_literal: use the printed construction.

    Returns:
        ``(features (d + n) × d, θ (d,))``.
    """
    n = 3 * m // 2 - m_tilde
    theta = np.zeros(d)
    k = np.arange(1, m_tilde + 1)
    theta[:m_tilde] = x_tilde + (m_tilde - k + 1) * epsilon / m_tilde
    i = np.arange(1, n + 1)
    offset = (n - i) if paper_literal else i
    cos = (x_tilde - offset * epsilon / n) / (x_tilde + epsilon)
    disturbing = np.zeros((n, d))
    disturbing[:, 0] = cos
    disturbing[:, d - 1] = np.sqrt(np.maximum(1.0 - cos * cos, 0.0))
    return np.vstack([np.eye(d), disturbing]), theta


def adaptive_draw(
    who: str,
    d: Any,
    epsilon: Any,
    m: Any,
    m_var: Any,
    x_mean: Any,
    x_std: Any,
    m_tilde: Any,
    x_tilde: Any,
    paper_literal: Any,
    instance_seed: Any,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Validate the adaptive family's keywords, draw ``(m̃, X̃)`` and build the instance.

    The shared core of ``LinearEpsGood-Adaptive-v0`` and of the ids built on the same
    construction (``MisspecifiedEpsGood-Adaptive-v0``, ``LogisticEpsGood-Adaptive-v0``):
    ``m̃ = round(N(m, m_var))`` redrawn into ``[1, min(d − 1, 1.5m − 1)]`` and
    ``X̃ ~ N(x_mean, x_std²)`` truncated to ``[x_mean/2, 3·x_mean/2]`` from ``instance_seed``
    (:func:`draw_m_tilde`, :func:`draw_x_tilde`; independent streams), unless given, then
    :func:`adaptive_instance`. Error messages name ``who``.

    Returns:
        ``(features, θ, info)`` with ``info`` holding the validated keywords and the draw
        (``d``, ``epsilon``, ``m``, ``m_tilde``, ``x_tilde``, ``x_mean``, ``paper_literal``,
        ``instance_seed``).
    """
    d = check_positive_int(d, "d", who, minimum=2)
    epsilon = check_positive(epsilon, "epsilon", who)
    m = check_positive_int(m, "m", who, minimum=2)
    if m % 2:
        raise InvalidParameterError(
            f"{who}: m must be an even integer >= 2 (the instance has n = 1.5m - m_tilde "
            f"disturbing arms); got {m!r}."
        )
    m_var = check_nonnegative(m_var, "m_var", who)
    x_mean = check_positive(x_mean, "x_mean", who)
    x_std = check_nonnegative(x_std, "x_std", who)
    if not isinstance(paper_literal, (bool, np.bool_)):
        raise InvalidParameterError(
            f"{who}: paper_literal must be True or False; got {paper_literal!r}."
        )
    instance_seed = check_positive_int(instance_seed, "instance_seed", who, minimum=0)
    high = min(d - 1, 3 * m // 2 - 1)
    why = "at least one good arm, at least one disturbing arm, and theta_d = 0"
    rng_m, rng_x = _streams(instance_seed)
    if m_tilde is None:
        m_tilde = draw_m_tilde(rng_m, m, m_var, 1, high, who)
    else:
        m_tilde = _check_m_tilde(m_tilde, 1, high, who, why)
    if x_tilde is None:
        x_tilde = draw_x_tilde(rng_x, x_mean, x_std, who)
    else:
        x_tilde = check_positive(x_tilde, "x_tilde", who)
    features, theta = adaptive_instance(d, m_tilde, x_tilde, epsilon, m, bool(paper_literal))
    info = {
        "d": d,
        "epsilon": epsilon,
        "m": m,
        "m_tilde": m_tilde,
        "x_tilde": x_tilde,
        "x_mean": x_mean,
        "paper_literal": bool(paper_literal),
        "instance_seed": instance_seed,
    }
    return features, theta, info


@declare(
    "LinearEpsGood-Adaptive-v0",
    default_agent="LinFACTG",
    summary="e1..e_d plus 1.5m - m~ unit disturbing arms just below the threshold; m~ good arms; "
    "(m~, X~) drawn from instance_seed; the on-threshold arm fixed (paper_literal=True for the "
    "printed one, refused)",
    source="Li, Ma, Hua & Zhu 2025 (LinFACT), App. EC.12.1, Table 1 settings 1-6",
    default_delta=DEFAULT_DELTA,
    quick={"d": 4, "m_tilde": 2, "x_tilde": 1.0, "epsilon": 0.3, "sigma": 0.1},
)
def make_adaptive(
    d: int = 8,
    epsilon: float = 0.1,
    m: int = 4,
    m_var: float = 3.0,
    x_mean: float = 1.0,
    x_std: float = 0.1,
    m_tilde: int | None = None,
    x_tilde: float | None = None,
    paper_literal: bool = False,
    sigma: float = 1.0,
    instance_seed: int = 0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearEpsGood-Adaptive-v0``: synthetic I of LinFACT (App. EC.12.1; Table 1, 1–6).

    ## Description
    Arms ``e_1..e_d`` and ``n = 1.5m − m̃`` unit "disturbing" arms nearly collinear with
    ``e_1`` whose means lie just below the threshold (:func:`adaptive_instance`); the good arms
    are ``e_1..e_m̃``. Hard part: separating good arms from the disturbing ones, which adaptive
    designs can focus on. ``m̃`` and ``X̃ = μ_1 − ε`` are drawn from ``instance_seed`` as in the
    paper's protocol (Section 7.1): ``m̃ = round(N(m, m_var))`` redrawn into
    ``[1, min(d − 1, 1.5m − 1)]``, ``X̃ ~ N(x_mean, x_std²)`` truncated to
    ``[x_mean/2, 3·x_mean/2]`` (:func:`draw_m_tilde`, :func:`draw_x_tilde`), or given
    explicitly with ``m_tilde`` / ``x_tilde``. The default uses our fix of the on-threshold arm
    (:func:`adaptive_instance`); ``paper_literal=True`` builds the printed construction, whose last
    disturbing arm sits on the threshold, and is refused with the task's error.

    Table 1 settings: ``d ∈ {8, 12}``, ``ε ∈ {0.1, 0.2, 0.3}``, ``m = 4``, ``X = 1`` (EC.12.1's
    "d = 10" contradicts Table 1; we follow Table 1). With ``m̃ = 4``, ``X̃ = 1``, ``d = 8``:
    ``T* ≈ 1.48e4, 3.75e3, 1.68e3`` for ``ε = 0.1, 0.2, 0.3`` (the lower bound of Theorem 3.2);
    ``α_ε = ε/m̃``, ``β_ε = ε/n``, ``R_upper = 8, 7, 6``.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``d`` | dimension, ≥ 2 | 8 |
    | ``epsilon`` | ε > 0 | 0.1 |
    | ``m`` | expected number of good arms E[m̃] (even, ≥ 2) | 4 |
    | ``m_var`` | variance of the normal m̃ is rounded from | 3.0 |
    | ``x_mean`` / ``x_std`` | mean (> 0) and spread of X̃ | 1.0 / 0.1 |
    | ``m_tilde`` / ``x_tilde`` | the instance's m̃ and X̃ instead of drawing them | drawn |
    | ``paper_literal`` | the printed construction (refused: an arm on the threshold) | False |
    | ``sigma`` | noise σ ≥ 0 | 1.0 |
    | ``instance_seed`` | seed of the (m̃, X̃) draw, ≥ 0 | 0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.05 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords (``max_samples``, …) | |

    ``ProblemSpec.extras`` holds ``m_hint = m`` and ``threshold_hint = x_mean`` (the expected
    values the paper gives its top-m and thresholding baselines).

    Raises:
        InvalidParameterError: a bad keyword value (e.g. ``m_tilde`` out of range,
            ``x_tilde ≤ 0``, ``epsilon ≤ 0``).
        InvalidInstanceError: ``paper_literal=True`` (an arm on the threshold).
    """
    who = "LinearEpsGood-Adaptive-v0"
    features, theta, info = adaptive_draw(
        who, d, epsilon, m, m_var, x_mean, x_std, m_tilde, x_tilde, paper_literal, instance_seed
    )
    sigma = check_nonnegative(sigma, "sigma", who)
    epsilon, m, x_tilde = info["epsilon"], info["m"], info["x_tilde"]
    model = LinearGaussian(features, theta, sigma)
    task = AllEpsilonGood(epsilon, hints={"m_hint": float(m), "threshold_hint": info["x_mean"]})
    info["sigma"] = sigma
    try:
        return build_env(model, task, who, info, delta, budget, env_kwargs)
    except InvalidInstanceError as exc:
        if not paper_literal:  # pragma: no cover - the fixed construction is always well posed
            raise
        raise InvalidInstanceError(
            f"{who} (paper_literal=True): the printed construction (App. EC.12.1) puts "
            f"the last disturbing arm exactly on the threshold X̃ = {x_tilde!r}. {exc}"
        ) from None


# --------------------------------------------------------------------------------------------
# synthetic II: static (Li, Ma, Hua & Zhu 2025, App. EC.12.2)


def static_instance(d: int, m_tilde: int, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Arms ``e_1..e_d`` and ``θ = (Δ, …, Δ, 0, …, 0)`` with ``m̃`` entries Δ (App. EC.12.2).

    With ``ε = Δ/2``: ``G_ε = {e_1..e_m̃}`` (the good arms first; their positions are irrelevant
    by symmetry), ``α_ε = β_ε = Δ/2``, ``R_upper = ⌈log₂(8/Δ)⌉``; the best arm is not unique.
    """
    theta = np.zeros(d)
    theta[:m_tilde] = gap
    return np.eye(d), theta


@declare(
    "LinearEpsGood-Static-v0",
    default_agent="LinFACTG",
    summary="arms e1..e_d, m~ of them with mean Delta, the others 0, epsilon = Delta/2; m~ drawn "
    "from instance_seed",
    source="Li, Ma, Hua & Zhu 2025 (LinFACT), App. EC.12.2, Table 1 settings 7-9, after Xu, "
    "Honda & Sugiyama 2018",
    default_delta=DEFAULT_DELTA,
    quick={"d": 4, "m_tilde": 2, "sigma": 0.2},
)
def make_static(
    d: int = 8,
    m: float = 4.0,
    Delta: float = 1.0,  # noqa: N803 - the paper's name for the gap
    m_var: float = 3.0,
    m_tilde: int | None = None,
    sigma: float = 1.0,
    instance_seed: int = 0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearEpsGood-Static-v0``: synthetic II of LinFACT (App. EC.12.2; Table 1, 7–9).

    ## Description
    The "static" instance after Xu et al. (2018): arms ``e_1..e_d``, ``m̃`` of them with mean
    ``Δ`` and the others 0, and ``ε = Δ/2`` (:func:`static_instance`). Every arm is equally
    informative, so static (uniform) allocations do well (Remark 7.1). ``m̃`` is drawn from
    ``instance_seed`` as in the adaptive id (``round(N(m, m_var))`` redrawn into ``[1, d − 1]``,
    our rounding, :func:`draw_m_tilde`) unless ``m_tilde`` is given. Table 1: ``d ∈ {8, 12, 16}``,
    ``Δ = 1``, ``m = 4``. With ``m̃ = 4``, ``Δ = 1``: ``T* = 120`` (d = 8, at
    ``p = (0.2, 2/15 ×3, 0.1 ×4)``), ``≈ 165.3`` (d = 12), ``≈ 207.4`` (d = 16).

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``d`` | number of arms = dimension, ≥ 2 | 8 |
    | ``m`` | expected number of good arms E[m̃] | 4 |
    | ``Delta`` | the good arms' mean Δ > 0 (ε = Δ/2) | 1.0 |
    | ``m_var`` | variance of the normal m̃ is rounded from | 3.0 |
    | ``m_tilde`` | the instance's m̃ ∈ [1, d − 1] instead of drawing it | drawn |
    | ``sigma`` | noise σ ≥ 0 | 1.0 |
    | ``instance_seed`` | seed of the m̃ draw, ≥ 0 | 0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.05 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords (``max_samples``, …) | |

    ``ProblemSpec.extras`` holds ``m_hint = m`` and ``threshold_hint = Δ/2`` (the paper's
    thresholding baseline gets the exact threshold, which is fixed here).

    Raises:
        InvalidParameterError: a bad keyword value (e.g. ``Delta <= 0``, ``m_tilde`` outside
            ``[1, d − 1]``).
    """
    who = "LinearEpsGood-Static-v0"
    d = check_positive_int(d, "d", who, minimum=2)
    m = check_positive(m, "m", who)
    gap = check_positive(Delta, "Delta", who)
    m_var = check_nonnegative(m_var, "m_var", who)
    sigma = check_nonnegative(sigma, "sigma", who)
    instance_seed = check_positive_int(instance_seed, "instance_seed", who, minimum=0)
    if m_tilde is None:
        m_tilde = draw_m_tilde(_streams(instance_seed)[0], m, m_var, 1, d - 1, who)
    else:
        m_tilde = _check_m_tilde(m_tilde, 1, d - 1, who, "at least one good and one bad arm")
    features, theta = static_instance(d, m_tilde, gap)
    model = LinearGaussian(features, theta, sigma)
    task = AllEpsilonGood(gap / 2.0, hints={"m_hint": m, "threshold_hint": gap / 2.0})
    info = {
        "d": d,
        "m": m,
        "Delta": gap,
        "epsilon": gap / 2.0,
        "m_tilde": m_tilde,
        "sigma": sigma,
        "instance_seed": instance_seed,
    }
    return build_env(model, task, who, info, delta, budget, env_kwargs)


# --------------------------------------------------------------------------------------------
# Free-Wilson (Li, Ma, Hua & Zhu 2025, Section 7.2)


def free_wilson_features(sites: tuple[int, ...] = FREE_WILSON_SITES) -> np.ndarray:
    """The Free-Wilson encoding of every compound (Katz, Osborne & Ionescu 1977).

    One compound per choice of one substituent at each site; its feature vector is
    ``(1, onehot(site 1), …, onehot(site N))`` of length ``1 + Σ l_n``. Compounds are listed in
    lexicographic order of their substituent indices (the last site varies fastest). The rank
    is ``1 + Σ (l_n − 1)`` (each block sums to the intercept): 16 for ``l = (4, 5, 4, 3, 4)``,
    with ``K = Π l_n = 960`` compounds and ``h = 21`` features.
    """
    choice = np.indices(sites).reshape(len(sites), -1).T  # K × N substituent indices
    k = choice.shape[0]
    features = np.zeros((k, 1 + sum(sites)))
    features[:, 0] = 1.0
    offsets = 1 + np.concatenate([[0], np.cumsum(sites)[:-1]])
    features[np.arange(k)[:, None], offsets[None, :] + choice] = 1.0
    return features


def free_wilson_instance(
    sites: tuple[int, ...] = FREE_WILSON_SITES,
    n_good: int = 20,
    scale: float = 2.7,
    min_gap: float = 0.5,
    instance_seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, float]:
    """A synthetic Free-Wilson instance: features, random contributions θ, and ε.

    **Synthetic**: the paper's instance uses the Free-Wilson coefficients of Katz, Osborne &
    Ionescu (1977), which are not in the paper and not available in machine-readable form
    (the paper's Section 7.2). This instance keeps the paper's structure — the encoding of
    :func:`free_wilson_features` (960 compounds, 21 indicator features of rank 16) and ε set so
    that exactly ``n_good`` compounds (20 in the paper) are ε-good — with random contributions:
    the base activity and every substituent contribution are i.i.d. ``N(0, scale²)``, drawn from
    ``instance_seed``. With ``scale = 2.7`` the resulting ε is 4.29 on average over instance
    seeds (the paper's ε is 4.325; the default seed gives 6.43). A draw is kept if the
    ``n_good``-th and ``(n_good+1)``-th largest means are at least ``min_gap`` apart (else θ is
    redrawn from the same stream), and ε puts the threshold half-way between them:
    ``ε = μ_(1) − (μ_(n_good) + μ_(n_good+1))/2``, so ``α_ε = β_ε ≥ min_gap/2``.

    Returns:
        ``(features K × h, θ (h,), ε)``.

    Raises:
        InvalidParameterError: if ``min_gap`` is (practically) never reached.
    """
    who = "free_wilson_instance"
    features = free_wilson_features(sites)
    h = features.shape[1]
    rng = np.random.default_rng(instance_seed)
    for _ in range(_MAX_BLOCKS):
        thetas = rng.normal(0.0, scale, (h, _BLOCK))
        means = features @ thetas
        top = -np.sort(-means, axis=0)[: n_good + 1]
        ok = np.flatnonzero(top[n_good - 1] - top[n_good] >= min_gap)
        if ok.size:
            j = int(ok[0])
            eps = float(top[0, j] - 0.5 * (top[n_good - 1, j] + top[n_good, j]))
            return features, thetas[:, j].copy(), eps
    raise InvalidParameterError(
        f"{who}: the {n_good}-th and {n_good + 1}-th means are almost never {min_gap} apart "
        f"with scale {scale}; lower min_gap or raise scale."
    )


@declare(
    "LinearEpsGood-FreeWilson-v0",
    default_agent="LinFACTG",
    summary="SYNTHETIC drug discovery: 960 compounds (5 sites, l = 4,5,4,3,4), 21 Free-Wilson "
    "indicator features of rank 16, random contributions from instance_seed (the paper's "
    "coefficients are not available), epsilon set so that exactly n_good compounds are good",
    source="structure of Li, Ma, Hua & Zhu 2025 (LinFACT), Section 7.2, and Katz, Osborne & "
    "Ionescu 1977; synthetic contributions",
    default_delta=FREE_WILSON_DELTA,
    quick={"sites": (2, 3, 2), "n_good": 3, "sigma": 0.2},
)
def make_free_wilson(
    sites: tuple[int, ...] = FREE_WILSON_SITES,
    n_good: int = 20,
    scale: float = 2.7,
    min_gap: float = 0.5,
    sigma: float = 1.0,
    instance_seed: int = 0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearEpsGood-FreeWilson-v0``: a SYNTHETIC drug-discovery instance (Section 7.2).

    ## Description
    The structure of the paper's real-data experiment (Section 7.2): compounds built from a base
    molecule with one substituent at each of 5 sites (``l = (4, 5, 4, 3, 4)``), activity = base +
    the substituents' contributions (the Free-Wilson model, Katz et al. 1977), so ``K = 960`` arms
    with ``h = 21`` indicator features of rank 16 (agents must project onto the span of the
    features, as in the paper's Section 2.2), and ε chosen so that exactly 20 compounds are ε-good.

    **This instance is synthetic.** The paper's contributions (Katz, Osborne & Ionescu 1977,
    J. Med. Chem. 20(11)) are not in the paper and not available in machine-readable form, so
    the contributions here are random (i.i.d. ``N(0, scale²)`` from ``instance_seed``), with ε
    strictly between the 20th and 21st gap (:func:`free_wilson_instance`). It reproduces the
    paper's structure and scale, not its numbers.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``sites`` | substituents per site, each ≥ 2 | (4, 5, 4, 3, 4) |
    | ``n_good`` | number of ε-good compounds, in [1, K − 1] | 20 |
    | ``scale`` | standard deviation of the contributions, > 0 | 2.7 |
    | ``min_gap`` | smallest gap between the n_good-th and next mean, ≥ 0 | 0.5 |
    | ``sigma`` | noise σ ≥ 0 | 1.0 |
    | ``instance_seed`` | seed of the contributions, ≥ 0 | 0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.1 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords (``max_samples``, …) | |

    ``ProblemSpec.extras`` holds ``m_hint = n_good`` (the paper's top-m baselines presumably
    get m = 20). The paper sweeps δ ∈ {0.1, …, 0.9}.

    Raises:
        InvalidParameterError: a bad keyword value.
    """
    who = "LinearEpsGood-FreeWilson-v0"
    if isinstance(sites, (str, bytes)) or not hasattr(sites, "__len__") or len(sites) == 0:
        raise InvalidParameterError(
            f"{who}: sites must be a non-empty sequence of integers >= 2 (substituents per "
            f"site); got {sites!r}."
        )
    sites = tuple(check_positive_int(v, "every entry of sites", who, minimum=2) for v in sites)
    k = int(np.prod(sites))
    if k > 100_000:
        raise InvalidParameterError(
            f"{who}: sites {sites} give {k} compounds; at most 100000 are supported."
        )
    n_good = check_positive_int(n_good, "n_good", who)
    if n_good >= k:
        raise InvalidParameterError(
            f"{who}: n_good must be an integer in [1, {k - 1}] (some compound must be bad); "
            f"got {n_good!r}."
        )
    scale = check_positive(scale, "scale", who)
    min_gap = check_nonnegative(min_gap, "min_gap", who)
    sigma = check_nonnegative(sigma, "sigma", who)
    instance_seed = check_positive_int(instance_seed, "instance_seed", who, minimum=0)
    features, theta, eps = free_wilson_instance(sites, n_good, scale, min_gap, instance_seed)
    model = LinearGaussian(features, theta, sigma)
    task = AllEpsilonGood(eps, hints={"m_hint": float(n_good)})
    info = {
        "sites": sites,
        "n_good": n_good,
        "scale": scale,
        "min_gap": min_gap,
        "epsilon": eps,
        "sigma": sigma,
        "instance_seed": instance_seed,
        "synthetic": True,
    }
    return build_env(model, task, who, info, delta, budget, env_kwargs)


# --------------------------------------------------------------------------------------------
# custom


@declare(
    "LinearEpsGood-Custom-v0",
    default_agent="LinFACTG",
    summary="your own features (K x h) and theta, or means alone (unstructured), or features "
    "with means (misspecified); epsilon, multiplicative, sigma (no arrays: a two-arm example "
    "with T* = 32)",
    default_delta=DEFAULT_DELTA,
)
def make_custom(
    features: Any = None,
    theta: Any = None,
    means: Any = None,
    epsilon: float | None = None,
    multiplicative: bool = False,
    sigma: float = 1.0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearEpsGood-Custom-v0``: all ε-good arms on your own instance (Li et al., Section 2).

    Give one of:

    * ``features`` (K×h) and ``theta`` (h,): the linear model ``μ_k = a_kᵀθ``;
    * ``means`` (K,) alone: the unstructured Gaussian bandit, i.e. identity features;
    * ``features`` (K×h) and ``means`` (K,): the means used as such with the features shown, a
      mis-specified problem (structure ``"misspecified_linear"``; its lower bound is the
      unstructured one);

    and ``epsilon`` (required with arrays). With no arrays at all, a two-arm example (features
    ``e_1, e_2``, ``θ = (1, 0)``, ``ε = 0.5``, ``T* = 32``) is built, a smoke-test instance.
    Instances with an arm within ``1e-9·max(1, max|μ|)`` of the threshold are refused (infinite
    complexity).

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``features`` | K×h arm features | ``None`` |
    | ``theta`` | θ, shape (h,) | ``None`` |
    | ``means`` | K means | ``None`` |
    | ``epsilon`` | ε > 0 (multiplicative: ≤ 1) | required with arrays |
    | ``multiplicative`` | ``G_ε = {i : μ_i ≥ (1 − ε) max μ}`` | False |
    | ``sigma`` | noise σ ≥ 0 | 1.0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.05 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords (``max_samples``, …) | |

    Raises:
        InvalidParameterError: missing or contradictory arrays, wrong shapes, non-finite values,
            fewer than 2 arms, a missing or bad ``epsilon``.
        InvalidInstanceError: an arm on the threshold.
    """
    who = "LinearEpsGood-Custom-v0"
    example = (
        f"gym.make('{who}', features=np.eye(3), theta=[1.0, 0.9, 0.2], epsilon=0.3) or "
        f"gym.make('{who}', means=[1.0, 0.9, 0.2], epsilon=0.3)"
    )
    if features is None and theta is None and means is None:
        features, theta = np.eye(2), np.array([1.0, 0.0])
        epsilon = 0.5 if epsilon is None else epsilon
    if theta is not None and means is not None:
        raise InvalidParameterError(
            f"{who}: give theta= (with features=) or means=, not both; e.g. {example}."
        )
    if theta is None and means is None:
        raise InvalidParameterError(
            f"{who}: features= needs theta= (or means=, for a mis-specified instance); e.g. "
            f"{example}."
        )
    if theta is not None and features is None:
        raise InvalidParameterError(
            f"{who}: theta= needs features= (a K×h array, one row per arm); e.g. {example}."
        )
    if epsilon is None:
        raise InvalidParameterError(f"{who}: epsilon= is required; e.g. {example}.")
    epsilon = check_positive(epsilon, "epsilon", who)
    if not isinstance(multiplicative, (bool, np.bool_)):
        raise InvalidParameterError(
            f"{who}: multiplicative must be True or False; got {multiplicative!r}."
        )
    if multiplicative and epsilon > 1.0:
        raise InvalidParameterError(
            f"{who}: with multiplicative=True epsilon must be in (0, 1]; got {epsilon!r}."
        )
    sigma = check_nonnegative(sigma, "sigma", who)
    for name, value, ndim in (("theta", theta, 1), ("means", means, 1)):
        if value is not None and array_ndim(value, name, who) != ndim:
            raise InvalidParameterError(
                f"{who}: {name} must be a 1-D array (all ε-good arms has scalar outcomes); got "
                f"shape {np.shape(value)}."
            )
    model: LinearGaussian | MisspecifiedLinearGaussian
    try:
        if theta is not None:
            model = LinearGaussian(features, theta, sigma)
            kind = "linear"
        elif features is None:
            mu = check_matrix(means, "means", who, ndim=1)
            model = LinearGaussian(np.eye(mu.size), mu, sigma)
            kind = "unstructured"
        else:
            mu = check_matrix(means, "means", who, ndim=1)
            model = MisspecifiedLinearGaussian(features, mu[:, None], sigma)
            kind = "misspecified"
    except InvalidParameterError as exc:
        text = str(exc)
        for prefix in ("LinearGaussian: ", "MisspecifiedLinearGaussian: "):
            if text.startswith(prefix):
                text = f"{who}: {text[len(prefix) :]}"
        raise type(exc)(text) from None
    if model.n_arms < 2:
        raise InvalidParameterError(
            f"{who}: the instance must have at least 2 arms; got {model.n_arms}."
        )
    task = AllEpsilonGood(epsilon, multiplicative=bool(multiplicative))
    info = {
        "kind": kind,
        "epsilon": epsilon,
        "multiplicative": bool(multiplicative),
        "sigma": sigma,
    }
    return build_env(model, task, who, info, delta, budget, env_kwargs)


# --------------------------------------------------------------------------- probe problems


def _probe(
    features: Any, theta: Any, eps: float, sigma: float, name: str, **setting: Any
) -> PureExplorationEnv:
    model = LinearGaussian(features, theta, sigma)
    return PureExplorationEnv(model, AllEpsilonGood(eps), name=name, **setting)


_PLANE = np.array([[1.0, 0.0], [0.0, 1.0], [np.cos(0.5), np.sin(0.5)]])
_RANK2 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.5, 0.2, 0.0]])


@probe_problem("all_eps_good", "3 arms in the plane, eps 0.4")
def _probe_plane(**setting: Any) -> PureExplorationEnv:
    return _probe(_PLANE, [1.0, 0.0], 0.4, 0.5, "probe-eps-plane", **setting)


@probe_problem("all_eps_good", "easy: 3 arms, means 1, 0.8, 0, eps 0.5, sigma 0.2", easy=True)
def _probe_easy(**setting: Any) -> PureExplorationEnv:
    return _probe(np.eye(3), [1.0, 0.8, 0.0], 0.5, 0.2, "probe-eps-easy", **setting)


@probe_problem("all_eps_good", "K=2, h=1, eps 0.2")
def _probe_two_arms(**setting: Any) -> PureExplorationEnv:
    return _probe([[1.0], [0.5]], [1.0], 0.2, 0.3, "probe-eps-k2-h1", **setting)


@probe_problem("all_eps_good", "rank-deficient features (K=4, h=3, rank 2), eps 0.5")
def _probe_rank2(**setting: Any) -> PureExplorationEnv:
    return _probe(_RANK2, [1.0, 0.3, 5.0], 0.5, 0.3, "probe-eps-rank2", **setting)


@probe_problem("all_eps_good", "noiseless (sigma=0), eps 0.4")
def _probe_noiseless(**setting: Any) -> PureExplorationEnv:
    return _probe(_PLANE, [1.0, 0.0], 0.4, 0.0, "probe-eps-noiseless", **setting)
