"""Misspecified linear and logistic all ε-good instances (spec 002 §1.6–§1.7; Li et al. §5–§6).

Each ``make_*`` function builds a :class:`~bandit_envs.PureExplorationEnv` and is the entry point
of a registered id:

| id | model | instance |
|---|---|---|
| ``MisspecifiedEpsGood-Adaptive-v0`` | Gaussian, ``μ = Ψθ + Δ_m`` | adaptive instance + deviation |
| ``MisspecifiedEpsGood-Custom-v0`` | Gaussian, ``μ = Ψθ + Δ_m`` | your features, θ, deviation |
| ``LogisticEpsGood-Adaptive-v0`` | Bernoulli, ``μ = σ(Ψθ)`` | adaptive θ, logistic link |
| ``LogisticEpsGood-Custom-v0`` | Bernoulli, ``μ = σ(Ψθ)`` | your features and θ |

The paper reports no misspecification or GLM experiment (spec 002 §1.7, §5 item 20): these
instances are ours, built on the paper's adaptive construction
(:func:`bandit_envs.envs.all_eps_good.adaptive_draw`, spec 002 §4.2, with the same keywords and
the same ``instance_seed`` draws). The misspecification level ``L_m`` is told to agents in
``ProblemSpec.misspecification`` unless ``bound_known=False``; logistic instances publish
``ProblemSpec.link = "logistic"`` and, in ``ProblemSpec.extras["predictor_bound"]``, a bound ``B``
on ``|a_kᵀθ|`` (what LinFACT-GLM needs for ``c_min = σ̇(B)``, spec 002 §1.7). Both Custom ids
also pose the best-arm task (``task="best_arm"``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LogisticGLM, MisspecifiedLinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood, BestArm, Task
from bandit_envs.core.validation import check_matrix, check_nonnegative, env_factory
from bandit_envs.envs.all_eps_good import DEFAULT_DELTA, _env, _positive, adaptive_draw
from bandit_envs.errors import InvalidInstanceError, InvalidParameterError
from bandit_envs.theory.glm import get_link
from bandit_envs.theory.misspecification import residual_deviation

__all__ = [
    "DEVIATIONS",
    "make_logistic_adaptive",
    "make_logistic_custom",
    "make_misspecified_adaptive",
    "make_misspecified_custom",
]

#: the deviation kinds of ``MisspecifiedEpsGood-Adaptive-v0``.
DEVIATIONS = ("random", "adversarial")
#: the tasks the Custom ids pose.
TASKS = ("all_eps_good", "best_arm")


def _check_bool(value: Any, name: str, who: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{who}: {name} must be True or False; got {value!r}.")
    return bool(value)


def _check_level(value: Any, who: str) -> float:
    return check_nonnegative(value, "L_m", who)


def _good(means: np.ndarray, epsilon: float) -> tuple[int, ...]:
    mu = np.asarray(means, dtype=float).reshape(-1)
    return tuple(int(i) for i in np.flatnonzero(mu >= mu.max() - epsilon))


def _task(
    task: Any,
    epsilon: Any,
    multiplicative: Any,
    who: str,
    example: str,
    hints: dict[str, float] | None = None,
) -> tuple[Task, dict[str, Any]]:
    """The Custom ids' task: all ε-good arms (``epsilon`` required) or the best arm."""
    if task not in TASKS:
        raise InvalidParameterError(f"{who}: task must be one of {TASKS}; got {task!r}.")
    multiplicative = _check_bool(multiplicative, "multiplicative", who)
    if task == "best_arm":
        if epsilon is not None or multiplicative:
            raise InvalidParameterError(
                f"{who}: epsilon and multiplicative are keywords of task='all_eps_good'; the "
                f"best-arm task takes neither (got epsilon={epsilon!r}, "
                f"multiplicative={multiplicative!r})."
            )
        return BestArm(), {"task": task}
    if epsilon is None:
        raise InvalidParameterError(f"{who}: epsilon= is required; e.g. {example}.")
    eps = _positive(epsilon, "epsilon", who)
    if multiplicative and eps > 1.0:
        raise InvalidParameterError(
            f"{who}: with multiplicative=True epsilon must be in (0, 1]; got {eps!r}."
        )
    return (
        AllEpsilonGood(eps, multiplicative=multiplicative, hints=hints),
        {"task": task, "epsilon": eps, "multiplicative": multiplicative},
    )


def _reprefix(exc: InvalidParameterError, who: str, *models: str) -> InvalidParameterError:
    text = str(exc)
    for prefix in models:
        if text.startswith(prefix + ": "):
            text = f"{who}: {text[len(prefix) + 2 :]}"
    return type(exc)(text)


# --------------------------------------------------------------------------------------------
# misspecified linear


@env_factory("MisspecifiedEpsGood-Adaptive-v0")
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
    """``MisspecifiedEpsGood-Adaptive-v0``: the adaptive instance plus a deviation (spec 002 §1.6).

    ## Description
    The misspecified linear model of Li et al. §5 (eq. 28–29): ``μ = Ψθ + Δ_m`` with
    ``‖Δ_m‖_∞ ≤ L_m``, on the features and θ of ``LinearEpsGood-Adaptive-v0`` (the same keywords
    and the same ``(m̃, X̃)`` draws from ``instance_seed``). The deviation lies in the residual
    space of the features (``ΨᵀΔ_m = 0``), so ``Ψθ`` is exactly the least-squares linear fit of the
    true means and no part of ``Δ_m`` can be absorbed into θ
    (:func:`bandit_envs.theory.misspecification.residual_deviation`):

    * ``deviation="random"``: random signs (from ``instance_seed``) projected onto the residual
      space and scaled to ``‖Δ_m‖_∞ = L_m``;
    * ``deviation="adversarial"``: the deviation that pushes one arm across the threshold as
      fast as possible; above ``flip_level`` (in ``instance_info``) the true ``G_ε`` differs from
      the answer of the linear fit ``G_ε(Ψθ)`` (``instance_info["flipped"]``).

    ``G_ε`` is the good set of the *true* means (spec 002 §1.6). The final ``info["complexity"]``
    holds the gaps of the true means, the unstructured ``T_star``, ``T_star_linear``,
    ``minimax_deviation`` and ``L_mu_bound`` (Proposition 5.3's level; the ``lower_bound`` is
    the unstructured one above it), see
    :func:`bandit_envs.theory.misspecification.misspecified_complexity`.

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
    level = _check_level(L_m, who)
    if deviation not in DEVIATIONS:
        raise InvalidParameterError(
            f"{who}: deviation must be one of {DEVIATIONS}; got {deviation!r}."
        )
    bound_known = _check_bool(bound_known, "bound_known", who)
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
        flipped=_good(means, eps) != _good(linear, eps),
    )
    try:
        return _env(model, task, who, info, delta, budget, DEFAULT_DELTA, env_kwargs)
    except InvalidInstanceError as exc:
        raise InvalidInstanceError(
            f"{who}: the {deviation} deviation of size L_m = {level!r} puts an arm on the "
            f"threshold (flip level {dev.flip_level!r}); change L_m. {exc}"
        ) from None


@env_factory("MisspecifiedEpsGood-Custom-v0")
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
    """``MisspecifiedEpsGood-Custom-v0``: your own misspecified linear instance (spec 002 §1.6).

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
    bound_known = _check_bool(bound_known, "bound_known", who)
    level = None if L_m is None else _check_level(L_m, who)
    the_task, info = _task(task, epsilon, multiplicative, who, example)
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
        raise _reprefix(exc, who, "MisspecifiedLinearGaussian") from None
    if model.n_arms < 2:
        raise InvalidParameterError(
            f"{who}: the instance must have at least 2 arms; got {model.n_arms}."
        )
    info.update(kind=kind, L_m=bound, bound_known=bound_known, sigma=sigma)
    return _env(model, the_task, who, info, delta, budget, DEFAULT_DELTA, env_kwargs)


# --------------------------------------------------------------------------------------------
# logistic


@env_factory("LogisticEpsGood-Adaptive-v0")
def make_logistic_adaptive(
    d: int = 8,
    epsilon: float = 0.3,
    m: int = 4,
    m_var: float = 3.0,
    x_mean: float = 1.0,
    x_std: float = 0.1,
    m_tilde: int | None = None,
    x_tilde: float | None = None,
    instance_seed: int = 0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LogisticEpsGood-Adaptive-v0``: the adaptive instance as a logistic bandit (spec 002 §1.7).

    ## Description
    Bernoulli outcomes with mean ``σ(a_kᵀθ)`` (Li et al. §6, eq. 36, logistic link;
    :class:`~bandit_envs.core.models.LogisticGLM`), with the features and θ of
    ``LinearEpsGood-Adaptive-v0`` (same keywords, same ``(m̃, X̃)`` draws). ``epsilon`` and
    ``x_tilde`` are on the linear-predictor scale, as in the linear id; the task's ε is moved
    to the mean scale, ``ε_μ = σ(X̃ + ε) − σ(X̃)``, so that the threshold ``σ(X̃ + ε) − ε_μ =
    σ(X̃)`` separates the same arms: ``G_ε = {e_1..e_m̃}`` as in the linear instance (spec 002 §2.6
    decision: G_ε on the mean scale). The gaps shrink by the slope of σ (about 0.2 at
    ``X̃ = 1``).

    Public: ``ProblemSpec.link = "logistic"``, ``noise_std = 0.5`` (Bernoulli outcomes are
    1/2-sub-Gaussian), and ``extras["predictor_bound"] = B = max(1.5·x_mean, X̃) + ε``, a bound on
    every ``|a_kᵀθ|`` of the family (it holds for every draw: ``X̃ ≤ 1.5·x_mean``), so that an
    agent can use ``c_min = σ̇(B)`` (spec 002 §1.7). ``extras`` also holds ``m_hint = m`` and
    ``threshold_hint = σ(x_mean)``.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``d``, ``m``, ``m_var`` | as ``LinearEpsGood-Adaptive-v0`` | 8, 4, 3.0 |
    | ``x_mean``, ``x_std``, ``m_tilde``, ``x_tilde`` | as there | 1.0, 0.1, drawn, drawn |
    | ``epsilon`` | ε on the linear-predictor scale, > 0 | 0.3 |
    | ``instance_seed`` | seed of the (m̃, X̃) draw, ≥ 0 | 0 |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.05 |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords (``max_samples``, …) | |

    Raises:
        InvalidParameterError: a bad keyword value.
    """
    who = "LogisticEpsGood-Adaptive-v0"
    features, theta, info = adaptive_draw(
        who, d, epsilon, m, m_var, x_mean, x_std, m_tilde, x_tilde, False, instance_seed
    )
    info.pop("paper_literal")
    logistic = get_link("logistic", who)
    eps, x_t, x_m = info["epsilon"], info["x_tilde"], info["x_mean"]
    eps_mean = float(logistic.mean(x_t + eps) - logistic.mean(x_t))
    bound = max(1.5 * x_m, x_t) + eps
    try:
        model = LogisticGLM(features, theta)
    except InvalidParameterError as exc:
        raise _reprefix(exc, who, "LogisticGLM") from None
    task = AllEpsilonGood(
        eps_mean,
        hints={
            "m_hint": float(info["m"]),
            "threshold_hint": float(logistic.mean(x_m)),
            "predictor_bound": bound,
        },
    )
    info.update(epsilon_mean=eps_mean, predictor_bound=bound)
    return _env(model, task, who, info, delta, budget, DEFAULT_DELTA, env_kwargs)


@env_factory("LogisticEpsGood-Custom-v0")
def make_logistic_custom(
    features: Any = None,
    theta: Any = None,
    means: Any = None,
    epsilon: float | None = None,
    predictor_bound: float | None = None,
    multiplicative: bool = False,
    task: str = "all_eps_good",
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LogisticEpsGood-Custom-v0``: your own logistic bandit (spec 002 §1.7).

    Give one of:

    * ``features`` (K×h) and ``theta`` (h,): Bernoulli outcomes with mean ``σ(a_kᵀθ)``;
    * ``means`` (K,) alone: probabilities in the open interval (0, 1), the unstructured
      Bernoulli bandit (identity features, ``θ = logit(means)``);
    * ``features`` and ``means``: ``logit(means)`` must be exactly linear in the features (then θ
      is its least-squares solution); otherwise the keywords are refused as inconsistent.

    ``predictor_bound`` (published in ``extras["predictor_bound"]`` for the all ε-good task) is a
    bound ``B ≥ max_k |a_kᵀθ|`` (default: that maximum); a smaller one is refused. ``task`` is
    ``"all_eps_good"`` (``epsilon`` on the mean scale, required) or ``"best_arm"``. With no
    arrays: features ``e_1, e_2, e_3``, ``θ = (1, 0.5, −1)`` (probabilities 0.731, 0.622, 0.269),
    ``ε = 0.15``, ``G_ε = {0, 1}``.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``features``, ``theta`` | K×h features and θ (h,) | ``None`` |
    | ``means`` | K probabilities in (0, 1) | ``None`` |
    | ``epsilon``, ``multiplicative`` | the all ε-good task (mean scale) | required, False |
    | ``predictor_bound`` | ``B ≥ max_k abs(a_kᵀθ)`` told to agents | the maximum |
    | ``task`` | ``"all_eps_good"`` or ``"best_arm"`` | ``"all_eps_good"`` |
    | ``delta`` / ``budget`` | setting: confidence δ or budget T | δ = 0.05 |

    Raises:
        InvalidParameterError: missing or contradictory arrays, probabilities outside (0, 1),
            ``logit(means)`` not linear in the features, a too small ``predictor_bound``, a bad
            ``epsilon`` or ``task``.
        InvalidInstanceError: an arm on the threshold (or a tied best arm for ``best_arm``).
    """
    who = "LogisticEpsGood-Custom-v0"
    example = (
        f"gym.make('{who}', features=np.eye(3), theta=[1.0, 0.5, -1.0], epsilon=0.15) or "
        f"gym.make('{who}', means=[0.7, 0.6, 0.3], epsilon=0.15)"
    )
    if features is None and theta is None and means is None:
        features, theta = np.eye(3), [1.0, 0.5, -1.0]
        if task == "all_eps_good" and epsilon is None:
            epsilon = 0.15
    if theta is not None and means is not None:
        raise InvalidParameterError(
            f"{who}: give theta= (with features=) or means=, not both; e.g. {example}."
        )
    if theta is None and means is None:
        raise InvalidParameterError(f"{who}: features= needs theta= (or means=); e.g. {example}.")
    if theta is not None and features is None:
        raise InvalidParameterError(
            f"{who}: theta= needs features= (a K×h array, one row per arm); e.g. {example}."
        )
    try:
        if means is not None:
            p = check_matrix(means, "means", who, ndim=1)
            bad = np.flatnonzero((p <= 0.0) | (p >= 1.0))
            if bad.size:
                raise InvalidParameterError(
                    f"{who}: means must be probabilities in the open interval (0, 1); got "
                    f"means[{int(bad[0])}] = {float(p[bad[0]])!r}."
                )
            logit = np.log(p) - np.log1p(-p)
            if features is None:
                x, th = np.eye(p.size), logit
                kind = "unstructured"
            else:
                x = check_matrix(features, "features", who, ndim=2, rows=p.size)
                th = np.linalg.lstsq(x, logit, rcond=None)[0]
                off = float(np.abs(x @ th - logit).max())
                if off > 1e-9 * max(1.0, float(np.abs(logit).max())):
                    raise InvalidParameterError(
                        f"{who}: logit(means) is not linear in the features (the best linear fit "
                        f"is off by {off!r}): the keywords are inconsistent for a logistic model; "
                        f"give theta=, or use MisspecifiedEpsGood-Custom-v0 for non-linear means."
                    )
                kind = "logistic"
        else:
            x, th, kind = features, theta, "logistic"
        model = LogisticGLM(x, th)
    except InvalidParameterError as exc:
        raise _reprefix(exc, who, "LogisticGLM") from None
    if model.n_arms < 2:
        raise InvalidParameterError(
            f"{who}: the instance must have at least 2 arms; got {model.n_arms}."
        )
    top = float(np.abs(model.predictors).max())
    if predictor_bound is None:
        bound = top
    else:
        bound = check_nonnegative(predictor_bound, "predictor_bound", who)
        if bound < top * (1.0 - 1e-12):
            raise InvalidParameterError(
                f"{who}: predictor_bound must be >= max_k |a_k . theta| = {top!r} (a bound the "
                f"agents may rely on); got {predictor_bound!r}."
            )
    hints = {"predictor_bound": bound}
    the_task, info = _task(task, epsilon, multiplicative, who, example, hints)
    info.update(kind=kind, predictor_bound=bound)
    if not math.isfinite(bound):  # pragma: no cover - check_nonnegative refuses inf
        raise InvalidParameterError(f"{who}: predictor_bound must be finite.")
    return _env(model, the_task, who, info, delta, budget, DEFAULT_DELTA, env_kwargs)
