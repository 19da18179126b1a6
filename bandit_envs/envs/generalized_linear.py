"""Logistic (generalized linear) all ε-good instances (Li, Ma, Hua & Zhu 2025, Section 6).

| id | model | instance |
|---|---|---|
| ``LogisticEpsGood-Adaptive-v0`` | Bernoulli, ``μ = σ(Ψθ)`` | adaptive θ, logistic link |
| ``LogisticEpsGood-Custom-v0`` | Bernoulli, ``μ = σ(Ψθ)`` | your features and θ |

The paper reports no GLM experiment: these instances are ours, built on the paper's adaptive
construction (:func:`bandit_envs.envs.all_eps_good.adaptive_draw`, App. EC.12.1). They publish
``ProblemSpec.link = "logistic"`` and, in ``ProblemSpec.extras["predictor_bound"]``, a bound
``B`` on ``|a_kᵀθ|`` (what LinFACT-GLM needs for ``c_min = σ̇(B)``, Section 6). The Custom id also
poses the best-arm task (``task="best_arm"``).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.glm_models import LogisticGLM
from bandit_envs.core.tasks import AllEpsilonGood
from bandit_envs.core.validation import check_matrix, check_nonnegative
from bandit_envs.envs._common import build_env, custom_task, reprefix
from bandit_envs.envs.all_eps_good import DEFAULT_DELTA, adaptive_draw
from bandit_envs.envs.registration import env_factory
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.glm import get_link

__all__ = ["make_logistic_adaptive", "make_logistic_custom"]

#: the decorator of this family's ids.
declare = functools.partial(
    env_factory, family="generalized linear", task="all_eps_good", default_delta=DEFAULT_DELTA
)


# --------------------------------------------------------------------------------------------
# logistic


@declare(
    "LogisticEpsGood-Adaptive-v0",
    default_agent="LinFACTGLM",
    summary="Bernoulli outcomes with mean sigmoid(a.theta) on the adaptive instance's features "
    "and theta; epsilon on the predictor scale, moved to the mean scale so that G_eps is "
    "unchanged; predictor bound B published in extras",
    source="GLM of Li, Ma, Hua & Zhu 2025 (LinFACT), Section 6, eq. 36 (logistic link), on the "
    "instance of App. EC.12.1 (the paper has no GLM experiment)",
    quick={"d": 4, "m_tilde": 2, "x_tilde": 1.0, "epsilon": 1.0},
)
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
    """``LogisticEpsGood-Adaptive-v0``: the adaptive instance as a logistic bandit.

    ## Description
    Bernoulli outcomes with mean ``σ(a_kᵀθ)`` (Li, Ma, Hua & Zhu 2025, Section 6, eq. 36,
    logistic link;
    :class:`~bandit_envs.core.glm_models.LogisticGLM`), with the features and θ of
    ``LinearEpsGood-Adaptive-v0`` (same keywords, same ``(m̃, X̃)`` draws). ``epsilon`` and
    ``x_tilde`` are on the linear-predictor scale, as in the linear id; the task's ε is moved
    to the mean scale, ``ε_μ = σ(X̃ + ε) − σ(X̃)``, so that the threshold ``σ(X̃ + ε) − ε_μ =
    σ(X̃)`` separates the same arms: ``G_ε = {e_1..e_m̃}`` as in the linear instance (our
    decision: the paper does not say on which scale ε applies to a GLM; we define G_ε on the mean
    scale). The gaps shrink by the slope of σ (about 0.2 at ``X̃ = 1``).

    Public: ``ProblemSpec.link = "logistic"``, ``noise_std = 0.5`` (Bernoulli outcomes are
    1/2-sub-Gaussian), and ``extras["predictor_bound"] = B = max(1.5·x_mean, X̃) + ε``, a bound on
    every ``|a_kᵀθ|`` of the family (it holds for every draw: ``X̃ ≤ 1.5·x_mean``), so that an
    agent can use ``c_min = σ̇(B)`` (the paper's Section 6.1). ``extras`` also holds
    ``m_hint = m`` and ``threshold_hint = σ(x_mean)``.

    Default agent: ``LinFACTGLM`` at its defaults (eq. 40 counts with ``c_min = σ̇(B)``, the
    radius ``ε_r/4`` on the mean scale), which stops with ``G_ε`` after about 6.2·10⁶ samples;
    with the radius ``ε_r`` on the means (``lipschitz_radius=False``) it needs 1.05·10⁸, more
    than the default ``max_samples``.

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
        raise reprefix(exc, who, "LogisticGLM") from None
    task = AllEpsilonGood(
        eps_mean,
        hints={
            "m_hint": float(info["m"]),
            "threshold_hint": float(logistic.mean(x_m)),
            "predictor_bound": bound,
        },
    )
    info.update(epsilon_mean=eps_mean, predictor_bound=bound)
    return build_env(model, task, who, info, delta, budget, env_kwargs)


@declare(
    "LogisticEpsGood-Custom-v0",
    default_agent="LinFACTGLM",
    summary="your own logistic bandit: features and theta, or probabilities alone "
    "(unstructured), or features with probabilities whose logits are linear; epsilon, "
    "predictor_bound, task='all_eps_good' or 'best_arm' (no arrays: a 3-arm example)",
)
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
    """``LogisticEpsGood-Custom-v0``: your own logistic bandit (Li et al. 2025, Section 6).

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
        raise reprefix(exc, who, "LogisticGLM") from None
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
    the_task, info = custom_task(task, epsilon, multiplicative, who, example, hints)
    info.update(kind=kind, predictor_bound=bound)
    if not math.isfinite(bound):  # pragma: no cover - check_nonnegative refuses inf
        raise InvalidParameterError(f"{who}: predictor_bound must be finite.")
    return build_env(model, the_task, who, info, delta, budget, env_kwargs)
