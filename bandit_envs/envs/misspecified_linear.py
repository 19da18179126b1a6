"""Misspecified linear all ε-good instances (Li, Ma, Hua & Zhu 2025, Section 5).

| id | model | instance |
|---|---|---|
| ``MisspecifiedEpsGood-Adaptive-v0`` | Gaussian, ``μ = Ψθ + Δ_m`` | adaptive instance + deviation |
| ``MisspecifiedEpsGood-Custom-v0`` | Gaussian, ``μ = Ψθ + Δ_m`` | your features, θ, deviation |

The paper reports no misspecification experiment: these instances are ours, built on the paper's
adaptive construction (:func:`bandit_envs.envs.all_eps_good.adaptive_draw`, App. EC.12.1, with
the same keywords and the same ``instance_seed`` draws). The misspecification level ``L_m`` is
told to agents in ``ProblemSpec.misspecification`` unless ``bound_known=False``. The Custom id
also poses the best-arm task (``task="best_arm"``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import MisspecifiedLinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood
from bandit_envs.core.validation import check_matrix, check_nonnegative
from bandit_envs.envs._common import (
    build_env,
    check_bool,
    check_level,
    custom_task,
    good_set,
    reprefix,
)
from bandit_envs.envs.all_eps_good import DEFAULT_DELTA, adaptive_draw
from bandit_envs.envs.registration import env_factory
from bandit_envs.errors import InvalidInstanceError, InvalidParameterError
from bandit_envs.theory.misspecification import residual_deviation

__all__ = ["DEVIATIONS", "make_misspecified_adaptive", "make_misspecified_custom"]

#: the deviation kinds of ``MisspecifiedEpsGood-Adaptive-v0``.
DEVIATIONS = ("random", "adversarial")

#: the decorator of this family's ids.
declare = functools.partial(
    env_factory, family="misspecified linear", task="all_eps_good", default_delta=DEFAULT_DELTA
)

# misspecified linear


@declare(
    "MisspecifiedEpsGood-Adaptive-v0",
    default_agent="LinFACTMIS",
    summary="the adaptive instance plus a deviation Delta_m in the residual space of the "
    "features, |Delta_m|_inf = L_m: random signs, or adversarial (flips the least-squares fit's "
    "answer above a flip level); L_m told in ProblemSpec.misspecification unless "
    "bound_known=False",
    source="misspecified model of Li, Ma, Hua & Zhu 2025 (LinFACT), Section 5, eq. 28-29, on the "
    "instance of App. EC.12.1 (the paper has no misspecified experiment)",
    quick={"d": 4, "m_tilde": 2, "x_tilde": 1.0, "epsilon": 0.3, "sigma": 0.1, "L_m": 0.01},
)
def make_misspecified_adaptive(
    d: int = 8,
    epsilon: float = 0.1,
    m: int = 4,
    m_var: float = 3.0,
    x_mean: float = 1.0,
    x_std: float = 0.1,
    m_tilde: int | None = None,
    x_tilde: float | None = None,
    L_m: float = 0.01,  # noqa: N803 - the paper's name for the misspecification level
    deviation: str = "random",
    bound_known: bool = True,
    sigma: float = 1.0,
    instance_seed: int = 0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``MisspecifiedEpsGood-Adaptive-v0``: the adaptive instance plus a deviation.

    ## Description
    The misspecified linear model of Li, Ma, Hua & Zhu (2025), Section 5 (eq. 28–29): ``μ = Ψθ +
    Δ_m`` with ``‖Δ_m‖_∞ ≤ L_m``, on the features and θ of ``LinearEpsGood-Adaptive-v0`` (the same
    keywords and the same ``(m̃, X̃)`` draws from ``instance_seed``). The deviation lies in the
    residual space of the features (``ΨᵀΔ_m = 0``), so ``Ψθ`` is exactly the least-squares linear
    fit of the true means and no part of ``Δ_m`` can be absorbed into θ
    (:func:`bandit_envs.theory.misspecification.residual_deviation`):

    * ``deviation="random"``: random signs (from ``instance_seed``) projected onto the residual
      space and scaled to ``‖Δ_m‖_∞ = L_m``;
    * ``deviation="adversarial"``: the deviation that pushes one arm across the threshold as
      fast as possible; above ``flip_level`` (in ``instance_info``) the true ``G_ε`` differs from
      the answer of the linear fit ``G_ε(Ψθ)`` (``instance_info["flipped"]``).

    ``G_ε`` is the good set of the *true* means (as in the paper's Section 5). The final
    ``info["complexity"]`` holds the gaps of the true means, the unstructured ``T_star``,
    ``T_star_linear``, ``minimax_deviation`` and ``L_mu_bound`` (Proposition 5.3's level; the
    ``lower_bound`` is the unstructured one above it), see
    :func:`bandit_envs.theory.misspecification.misspecified_complexity`.

    Default agent: ``LinFACTMIS`` at its defaults (told ``L_m``, so its rounds are bought with
    or without the features, whichever is cheaper), which stops with ``G_ε`` after about
    3.8·10⁶ samples. At the default ``L_m = 0.01`` the deviation lowers ``α_ε`` to 0.015 while
    the inflated radius of the paper's rounds (``use_features="always"``, Proposition 5.4)
    never falls below ``L_m(√d_r + 1) ≈ 0.032``: those rounds never classify the good arms and
    run to ``max_samples`` here; they stop for ``L_m`` up to about 0.003 (1.5·10⁶ samples at
    ``L_m = 0.001``).

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``d``, ``epsilon``, ``m``, ``m_var`` | as ``LinearEpsGood-Adaptive-v0`` | 8, 0.1, 4, 3.0 |
    | ``x_mean``, ``x_std``, ``m_tilde``, ``x_tilde`` | as there | 1.0, 0.1, drawn, drawn |
    | ``L_m`` | misspecification level ``‖Δ_m‖_∞``, ≥ 0 | 0.01 |
    | ``deviation`` | ``"random"`` or ``"adversarial"`` | ``"random"`` |
    | ``bound_known`` | tell agents ``L_m`` (``ProblemSpec.misspecification``) | True |
    | ``sigma`` | noise σ ≥ 0 | 1.0 |
    | ``instance_seed`` | seed of the (m̃, X̃) draw and of the random signs, ≥ 0 | 0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.05 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords (``max_samples``, …) | |

    Raises:
        InvalidParameterError: a bad keyword value (``L_m < 0``, an unknown ``deviation``, …).
        InvalidInstanceError: the deviation puts an arm exactly on the threshold (e.g. an
            adversarial ``L_m`` equal to the flip level).
    """
    who = "MisspecifiedEpsGood-Adaptive-v0"
    features, theta, info = adaptive_draw(
        who, d, epsilon, m, m_var, x_mean, x_std, m_tilde, x_tilde, False, instance_seed
    )
    level = check_level(L_m, who)
    if deviation not in DEVIATIONS:
        raise InvalidParameterError(
            f"{who}: deviation must be one of {DEVIATIONS}; got {deviation!r}."
        )
    bound_known = check_bool(bound_known, "bound_known", who)
    sigma = check_nonnegative(sigma, "sigma", who)
    eps = info["epsilon"]
    linear = features @ theta
    rng = np.random.default_rng([info["instance_seed"], 2])
    dev = residual_deviation(features, linear, level, eps, deviation, rng)
    means = linear + dev.deviation
    model = MisspecifiedLinearGaussian(
        features, means[:, None], sigma, bound=level if bound_known else None, theta=theta
    )
    task = AllEpsilonGood(eps, hints={"m_hint": float(info["m"]), "threshold_hint": info["x_mean"]})
    info.pop("paper_literal")
    info.update(
        L_m=level,
        deviation=deviation,
        bound_known=bound_known,
        sigma=sigma,
        target=dev.target,
        flip_level=dev.flip_level,
        flipped=good_set(means, eps) != good_set(linear, eps),
    )
    try:
        return build_env(model, task, who, info, delta, budget, env_kwargs)
    except InvalidInstanceError as exc:
        raise InvalidInstanceError(
            f"{who}: the {deviation} deviation of size L_m = {level!r} puts an arm on the "
            f"threshold (flip level {dev.flip_level!r}); change L_m. {exc}"
        ) from None


@declare(
    "MisspecifiedEpsGood-Custom-v0",
    default_agent="LinFACTMIS",
    summary="your own features with theta and deviation, or with means; L_m (default: the "
    "arrays' deviation), bound_known, epsilon, multiplicative, sigma, task='all_eps_good' or "
    "'best_arm' (no arrays: a 3-arm example whose deviation flips the linear answer)",
)
def make_misspecified_custom(
    features: Any = None,
    theta: Any = None,
    deviation: Any = None,
    means: Any = None,
    L_m: float | None = None,  # noqa: N803 - the paper's name
    bound_known: bool = True,
    epsilon: float | None = None,
    multiplicative: bool = False,
    sigma: float = 1.0,
    task: str = "all_eps_good",
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``MisspecifiedEpsGood-Custom-v0``: your own misspecified linear instance (Li et al., Sec. 5).

    Give ``features`` (K×h) with either

    * ``theta`` (h,) and ``deviation`` (K,): ``μ = Ψθ + Δ_m`` (``L_m`` defaults to
      ``‖Δ_m‖_∞``), or
    * ``means`` (K,): ``μ`` as data (``L_m`` defaults to the smallest valid level
      ``min_θ ‖μ − Ψθ‖_∞``, :func:`bandit_envs.theory.misspecification.chebyshev_deviation`).

    A given ``L_m`` must be consistent with the arrays (refused otherwise). It is told to agents
    (``ProblemSpec.misspecification``) unless ``bound_known=False``. ``task="all_eps_good"``
    (default, ``epsilon`` required, ``multiplicative`` allowed) or ``"best_arm"``. With no arrays,
    a three-arm example where the deviation flips the answer of the linear part: features
    ``e_1, e_2, e_1 + e_2``, ``θ = (1, 0.2)``, ``Δ_m = (0, 0, −0.4)``, ``ε = 0.15``: the linear part
    says ``{2}``, the truth is ``{0}``.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``features`` | K×h arm features | ``None`` |
    | ``theta``, ``deviation`` | θ (h,) and Δ_m (K,) | ``None`` |
    | ``means`` | K means (instead of θ and Δ_m) | ``None`` |
    | ``L_m`` | the bound told to agents, ≥ the arrays' deviation | from the arrays |
    | ``bound_known`` | tell agents ``L_m`` | True |
    | ``epsilon``, ``multiplicative`` | the all ε-good task | required, False |
    | ``sigma`` | noise σ ≥ 0 | 1.0 |
    | ``task`` | ``"all_eps_good"`` or ``"best_arm"`` | ``"all_eps_good"`` |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.05 |

    Raises:
        InvalidParameterError: missing or contradictory arrays, wrong shapes, ``L_m < 0`` or
            ``L_m`` below the arrays' deviation, a bad ``epsilon`` or ``task``.
        InvalidInstanceError: an arm on the threshold (or a tied best arm for ``best_arm``).
    """
    who = "MisspecifiedEpsGood-Custom-v0"
    example = (
        f"gym.make('{who}', features=np.eye(3), theta=[1.0, 0.9, 0.2], "
        f"deviation=[0.0, 0.05, 0.0], epsilon=0.3)"
    )
    if features is None and theta is None and deviation is None and means is None:
        features, theta, deviation = (
            [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
            [1.0, 0.2],
            [0.0, 0.0, -0.4],
        )
        if task == "all_eps_good" and epsilon is None:
            epsilon = 0.15
    if features is None:
        raise InvalidParameterError(f"{who}: features= (a K×h array) is required; e.g. {example}.")
    if means is not None and (theta is not None or deviation is not None):
        raise InvalidParameterError(
            f"{who}: give theta= and deviation=, or means=, not both; e.g. {example}."
        )
    if means is None and (theta is None or deviation is None):
        raise InvalidParameterError(
            f"{who}: give both theta= and deviation= (or means=); e.g. {example}."
        )
    sigma = check_nonnegative(sigma, "sigma", who)
    bound_known = check_bool(bound_known, "bound_known", who)
    level = None if L_m is None else check_level(L_m, who)
    the_task, info = custom_task(task, epsilon, multiplicative, who, example)
    try:
        x = check_matrix(features, "features", who, ndim=2)
        if means is None:
            th = check_matrix(theta, "theta", who, ndim=1, rows=None)
            if th.shape[0] != x.shape[1]:
                raise InvalidParameterError(
                    f"{who}: theta must have one entry per feature column ({x.shape[1]}); got "
                    f"shape {th.shape}."
                )
            dv = check_matrix(deviation, "deviation", who, ndim=1)
            if dv.shape[0] != x.shape[0]:
                raise InvalidParameterError(
                    f"{who}: deviation must have one entry per arm ({x.shape[0]}); got shape "
                    f"{dv.shape}."
                )
            mu = x @ th + dv
            bound = float(np.abs(dv).max()) if level is None else level
            kind = "theta+deviation"
        else:
            th = None
            mu = check_matrix(means, "means", who, ndim=1)
            if mu.shape[0] != x.shape[0]:
                raise InvalidParameterError(
                    f"{who}: means must have one entry per arm ({x.shape[0]}); got shape "
                    f"{mu.shape}."
                )
            if level is None:
                from bandit_envs.theory.misspecification import chebyshev_deviation

                level = chebyshev_deviation(x, mu)[1]
            bound = level
            kind = "means"
        model = MisspecifiedLinearGaussian(
            x, mu[:, None], sigma, bound=bound if bound_known else None, theta=th
        )
        if not bound_known:  # still refuse an inconsistent level, told or not
            MisspecifiedLinearGaussian(x, mu[:, None], sigma, bound=bound, theta=th)
    except InvalidParameterError as exc:
        raise reprefix(exc, who, "MisspecifiedLinearGaussian") from None
    if model.n_arms < 2:
        raise InvalidParameterError(
            f"{who}: the instance must have at least 2 arms; got {model.n_arms}."
        )
    info.update(kind=kind, L_m=bound, bound_known=bound_known, sigma=sigma)
    return build_env(model, the_task, who, info, delta, budget, env_kwargs)
