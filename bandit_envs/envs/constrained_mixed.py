"""Constrained best mixed arm instances (Tang, Jain, Nayyar & Nuzzo 2024, arXiv 2405.15090).

Each ``make_*`` function builds a :class:`~bandit_envs.PureExplorationEnv` with the
:class:`~bandit_envs.core.tasks.ConstrainedMixedSupport` task and the
:class:`~bandit_envs.core.models.ConstrainedGaussian` model, and is the entry point of a
registered id (the instances as numbers are in :mod:`bandit_envs.envs._constrained_instances`):

| id | K, L | instance |
|---|---|---|
| ``ConstrainedMixed-Table1-v0`` | 24, 2 | the six instances of Appendix C, Table 1 |
| ``ConstrainedMixed-Hard-v0`` | K, 1 | Appendix A's template where SFSR-L fails (our numbers) |
| ``ConstrainedMixed-L1-v0`` | 16, 1 | our stand-ins for the instances of Section 5 |
| ``ConstrainedMixed-Random-v0`` | 24, 2 or K, 1 | the Appendix-C generator, or an L = 1 generator |
| ``ConstrainedMixed-Custom-v0`` | any | your own rewards, costs and thresholds |

One pull returns ``(reward, cost_1..cost_L)`` with Gaussian noise σ_r (default 1) and σ_c
(default 0.5), the paper's. The answer is the optimal LP basis over ``K + L`` items (the slack
item of constraint ``l`` is ``K + l``); :func:`bandit_envs.theory.lp.split_answer` splits it into
the support arms and the non-binding constraints.

**Setting.** The paper's problem is fixed budget: ``budget=`` (default per id, from the paper's
budget ranges). ``delta=`` builds the same problem in fixed confidence (the paper leaves it to
future work; no catalogued agent solves it), and so does ``max_samples=`` alone, the
fixed-confidence safety cap, with δ = :data:`DEFAULT_DELTA` (the paper has no δ).

Random instances are drawn from ``instance_seed``; the episode seed changes the noise only.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import ConstrainedGaussian, check_rewards_costs
from bandit_envs.core.tasks import ConstrainedMixedSupport
from bandit_envs.core.validation import (
    check_matrix,
    check_nonnegative,
    check_positive_int,
)
from bandit_envs.envs._constrained_instances import (
    L1_INSTANCES,
    TABLE1,
    TABLE1_BOLD,
    TABLE1_C1,
    TABLE1_C2,
    appendix_c_instance,
    hard_instance,
    l1_instance,
    table1_instance,
)
from bandit_envs.envs.registration import env_factory, probe_problem
from bandit_envs.errors import InvalidInstanceError, InvalidParameterError

__all__ = [
    "DEFAULT_DELTA",
    "HARD_BUDGET",
    "L1_INSTANCES",
    "RANDOM_BUDGETS",
    "TABLE1",
    "TABLE1_BOLD",
    "TABLE1_BUDGET",
    "TABLE1_C1",
    "TABLE1_C2",
    "appendix_c_instance",
    "hard_instance",
    "l1_instance",
    "make_custom",
    "make_hard",
    "make_random",
    "make_table1",
    "table1_instance",
]

#: δ of the fixed-confidence variant when ``max_samples=`` is given without ``delta=``.
DEFAULT_DELTA = 0.1
#: default budget of the Table-1 id (our choice within the range 10k–160k we run for L = 2).
TABLE1_BUDGET = 40_000
#: default budget of the Hard id (where SFSR and SFSR-L differ clearly; our choice).
HARD_BUDGET = 10_000
#: default budgets of the Random id by L (L = 1: the A-type grid 10³–10⁴; L = 2: as Table 1).
RANDOM_BUDGETS = {1: 5_000, 2: 40_000}
#: default budget of the Custom id.
CUSTOM_BUDGET = 5_000


# --------------------------------------------------------------------------------------------
# shared helpers


def _setting(delta: float | None, budget: int | None, max_samples: int | None) -> dict[str, Any]:
    """The setting keywords (the id's decorator has filled in the default setting)."""
    out: dict[str, Any] = {"delta": delta, "budget": budget}
    if max_samples is not None:
        out["max_samples"] = max_samples
    return out


def _random_budget(arguments: Mapping[str, Any]) -> int:
    """The default budget of ``ConstrainedMixed-Random-v0``: by the number of constraints L."""
    return RANDOM_BUDGETS.get(arguments.get("L", 2), RANDOM_BUDGETS[2])


#: the decorator of this family's ids.
declare = functools.partial(
    env_factory,
    family="constrained best mixed arm",
    task="constrained_mixed",
    default_delta=DEFAULT_DELTA,
)


def _env(
    who: str,
    rewards: np.ndarray,
    costs: np.ndarray,
    thresholds: np.ndarray,
    sigma_r: float,
    sigma_c: float,
    info: dict[str, Any],
    setting: dict[str, Any],
    env_kwargs: dict[str, Any],
    known_arms: Any = (),
) -> PureExplorationEnv:
    try:
        model = ConstrainedGaussian(rewards, costs, sigma_r, sigma_c, known_arms)
    except InvalidParameterError as exc:
        raise InvalidParameterError(_reword(exc, "ConstrainedGaussian: ", who)) from None
    task = ConstrainedMixedSupport(thresholds)
    try:
        return PureExplorationEnv(
            model, task, name=who, instance_info=info, **setting, **env_kwargs
        )
    except InvalidInstanceError as exc:
        raise InvalidInstanceError(_reword(exc, "ConstrainedMixedSupport: ", who)) from None


def _reword(exc: Exception, prefix: str, who: str) -> str:
    """The message of ``exc`` with its leading ``prefix`` replaced by ``who``."""
    text = str(exc)
    return f"{who}: {text[len(prefix) :]}" if text.startswith(prefix) else text


def _sigmas(sigma_r: Any, sigma_c: Any, who: str) -> tuple[float, float]:
    return check_nonnegative(sigma_r, "sigma_r", who), check_nonnegative(sigma_c, "sigma_c", who)


# --------------------------------------------------------------------------------------------
# Table 1 (Appendix C)


@declare(
    "ConstrainedMixed-Table1-v0",
    default_agent="SFSR",
    summary="K=24 arms on the cost grid c1 x c2, L=2, cbar=(1,1); answer = optimal LP basis over "
    "26 items (slacks 24, 25); instance in D1P, D2P, D3P, D1I, D2I, D3I",
    source="Tang, Jain, Nayyar & Nuzzo 2024 (arXiv 2405.15090), Appendix C, Table 1",
    default_budget=TABLE1_BUDGET,
)
def make_table1(
    instance: str = "D1P",
    sigma_r: float = 1.0,
    sigma_c: float = 0.5,
    *,
    delta: float | None = None,
    budget: int | None = None,
    max_samples: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``ConstrainedMixed-Table1-v0``: the six L = 2 instances of Tang et al. (2024), Appendix C.

    ## Description
    ``K = K0 = 24`` arms with costs on the grid ``c_1 ∈ {0.4, …, 1.4}`` × ``c_2 ∈ {0.7, …, 1.3}``,
    thresholds ``c̄ = (1, 1)``, rewards from Table 1 (:func:`table1_instance`, exact numbers).
    Family Dj has j support arms (D1: ``r = 1 − W``; D2: ``r = c_1 − W``; D3: ``r = c_1 + c_2 − W``;
    P: ``W`` a permutation of {0, 0.02, …, 0.46}; I: i.i.d. on {0, …, 0.28}; +0.02 on the support).
    Answers over 26 items (slacks 24 and 25). The paper runs 5000 episodes per budget (its grid of
    budgets is not given in the text).

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``instance`` | ``"D1P"``, ``"D2P"``, ``"D3P"``, ``"D1I"``, ``"D2I"``, ``"D3I"`` | ``"D1P"`` |
    | ``sigma_r`` / ``sigma_c`` | reward / cost noise, ≥ 0 | 1.0 / 0.5 |
    | ``budget`` | fixed budget N | 40000 |
    | ``delta`` | fixed confidence instead (no paper value) | — |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |

    Raises:
        InvalidParameterError: an unknown instance name (the message lists the valid ones) or a
            bad keyword value.
    """
    who = "ConstrainedMixed-Table1-v0"
    if not isinstance(instance, str) or instance not in TABLE1:
        raise InvalidParameterError(
            f"{who}: instance must be one of {sorted(TABLE1)} (Appendix C, Table 1); got "
            f"{instance!r}."
        )
    sigma_r, sigma_c = _sigmas(sigma_r, sigma_c, who)
    rewards, costs, cbar = table1_instance(instance)
    info = {"instance": instance, "sigma_r": sigma_r, "sigma_c": sigma_c}
    return _env(
        who,
        rewards,
        costs,
        cbar,
        sigma_r,
        sigma_c,
        info,
        _setting(delta, budget, max_samples),
        env_kwargs,
    )


# --------------------------------------------------------------------------------------------
# Appendix A (the template where SFSR-L fails)


@declare(
    "ConstrainedMixed-Hard-v0",
    default_agent="SFSR",
    summary="L=1: arm 0 (0, 0), arm 1 (1.2, 1.2) just infeasible, K-2 clones at (0.9, 0.8) just "
    "below the optimal segment, so the Lagrangian score (SFSR-L) rejects arm 0 (reconstructed "
    "numbers 'H2r')",
    source="Tang, Jain, Nayyar & Nuzzo 2024, Appendix A (our numbers)",
    default_budget=HARD_BUDGET,
    quick={"K": 4},
)
def make_hard(
    K: int = 16,  # noqa: N803 - the paper's name for the number of arms
    sigma_r: float = 1.0,
    sigma_c: float = 0.5,
    *,
    delta: float | None = None,
    budget: int | None = None,
    max_samples: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``ConstrainedMixed-Hard-v0``: Appendix A's construction where the Lagrangian score fails.

    ## Description
    L = 1 (:func:`hard_instance`): the best mixed arm mixes arm 0 (low cost, low reward) and arm 1
    (high reward, cost slightly above ``c̄``); the K − 2 identical arms 2..K−1 sit just below the
    segment. After round 1 one overestimated clone j suffices for the empirical frontier to become
    (1, j), whose slope makes arm 0's reduced cost the lowest, so SFSR-L rejects it, while its IV
    score stays near the optimum (Tang et al. 2024, Appendix A). The paper's figure has no
    numbers; these are ours. In our simulations at N = 10⁴ (K = 16) the error rates are about
    SFSR 0.07, SFSR-L 0.58, USLP 0.24 (not the paper's). Δ0² = 0.16, Δ_(3)² ≈ 0.00497 (K = 16).

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``K`` | number of arms, ≥ 3 | 16 |
    | ``sigma_r`` / ``sigma_c`` | reward / cost noise, ≥ 0 | 1.0 / 0.5 |
    | ``budget`` | fixed budget N | 10000 |
    | ``delta`` | fixed confidence instead (no paper value) | — |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |
    """
    who = "ConstrainedMixed-Hard-v0"
    k = check_positive_int(K, "K", who, minimum=3)
    sigma_r, sigma_c = _sigmas(sigma_r, sigma_c, who)
    rewards, costs, cbar = hard_instance(k)
    info = {"K": k, "sigma_r": sigma_r, "sigma_c": sigma_c, "reconstruction": "H2r"}
    return _env(
        who,
        rewards,
        costs,
        cbar,
        sigma_r,
        sigma_c,
        info,
        _setting(delta, budget, max_samples),
        env_kwargs,
    )


# --------------------------------------------------------------------------------------------
# our L = 1 reconstructions (stand-ins for the instances of the paper's Figures 2-3)

#: default budget of the L1 id (within the range 10³–2·10⁴ where we compare the agents).
L1_BUDGET = 5_000


@declare(
    "ConstrainedMixed-L1-v0",
    default_agent="SFSR",
    summary="K=16, L=1, cbar=1: reconstructed stand-ins for the paper's Fig. 2-3 (not its "
    "numbers): A1r (deterministic optimum), A2r, A3r (two-arm mixes), H1r (support arm just "
    "above cbar), H2r (App. A)",
    source="Tang, Jain, Nayyar & Nuzzo 2024, Section 5 (our reconstructions)",
    default_budget=L1_BUDGET,
    quick={"instance": "A2r"},
)
def make_l1(
    instance: str = "A1r",
    sigma_r: float = 1.0,
    sigma_c: float = 0.5,
    *,
    delta: float | None = None,
    budget: int | None = None,
    max_samples: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``ConstrainedMixed-L1-v0``: the L = 1, K = 16 instances standing in for Figures 2-3.

    ## Description
    **Our reconstructions, not the paper's instances** (Tang et al. 2024 draw A1-A3 and H1-H3 only
    in the figures of Section 5, without their numbers). ``c̄ = 1``, arms as (cost, reward) points
    (:data:`L1_INSTANCES`):

    * ``A1r`` — an "average" instance with a deterministic optimum, ``I* = {1, slack}``;
    * ``A2r``, ``A3r`` — "average" instances whose optimum mixes two arms: ``{7, 15}``, ``{2, 4}``;
    * ``H1r`` — a support arm just above ``c̄`` (Δ0-dominated, every gap ≈ Δ0): the IV score is
      the weaker flavour there, and uniform sampling wins (in our simulations);
    * ``H2r`` — Appendix A's construction where the Lagrangian score fails (as
      ``ConstrainedMixed-Hard-v0`` with K = 16).

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``instance`` | ``"A1r"``, ``"A2r"``, ``"A3r"``, ``"H1r"``, ``"H2r"`` | ``"A1r"`` |
    | ``sigma_r`` / ``sigma_c`` | reward / cost noise, ≥ 0 | 1.0 / 0.5 |
    | ``budget`` | fixed budget N | 5000 |
    | ``delta`` | fixed confidence instead (no paper value) | — |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |

    Raises:
        InvalidParameterError: an unknown instance name (the message lists the valid ones) or a
            bad keyword value.
    """
    who = "ConstrainedMixed-L1-v0"
    if not isinstance(instance, str) or instance not in L1_INSTANCES:
        raise InvalidParameterError(
            f"{who}: instance must be one of {sorted(L1_INSTANCES)} (our reconstructions of "
            f"the paper's Section 5 instances); got {instance!r}."
        )
    sigma_r, sigma_c = _sigmas(sigma_r, sigma_c, who)
    rewards, costs = (np.array(v, dtype=np.float64) for v in L1_INSTANCES[instance])
    info = {
        "instance": instance,
        "sigma_r": sigma_r,
        "sigma_c": sigma_c,
        "reconstruction": instance,
    }
    return _env(
        who,
        rewards,
        costs[None, :],
        np.ones(1),
        sigma_r,
        sigma_c,
        info,
        _setting(delta, budget, max_samples),
        env_kwargs,
    )


@declare(
    "ConstrainedMixed-Random-v0",
    default_agent="SFSR",
    summary="L=2: the Appendix-C generator (grid costs, r = 1 / c1 / c1+c2 minus W, W a "
    "permutation 'P' or i.i.d. 'I', redrawn until j support arms, +0.02 on them); L=1: the "
    "A1r/A2r recipes with K arms (not the paper's); default budget 40000 (L=2) or 5000 (L=1)",
    source="Tang, Jain, Nayyar & Nuzzo 2024, Appendix C",
    default_budget=_random_budget,
    quick={"L": 1, "K": 6},
)
def make_random(
    L: int = 2,  # noqa: N803 - the paper's name for the number of constraints
    family: int = 1,
    w_mode: str | None = None,
    K: int | None = None,  # noqa: N803
    sigma_r: float = 1.0,
    sigma_c: float = 0.5,
    instance_seed: int = 0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    max_samples: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``ConstrainedMixed-Random-v0``: random instances, the Appendix-C generator or an L = 1 one.

    ## Description
    * ``L=2`` (default): :func:`appendix_c_instance`, the paper's own recipe of Table 1
      (K = 24, ``family`` j ∈ {1, 2, 3} support arms, ``w_mode`` "P" or "I").
    * ``L=1``: :func:`l1_instance`, the recipes of the reconstructions A1r (``family=1``,
      deterministic optimum) and A2r/A3r (``family=2``, a two-arm mix), with ``K`` arms; **not**
      the paper's (its L = 1 instances are not in the text).

    The draw comes from ``instance_seed``; ``env.unwrapped.instance_info`` records it (and ``W``
    for L = 2).

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``L`` | number of constraints: 1 or 2 | 2 |
    | ``family`` | support size j: 1–3 (L = 2) or 1–2 (L = 1) | 1 |
    | ``w_mode`` | ``"P"`` (permutation) or ``"I"`` (i.i.d.) noise vector, L = 2 only | ``"P"`` |
    | ``K`` | number of arms, L = 1 only (≥ 3); L = 2 has the 24-arm grid | 16 |
    | ``sigma_r`` / ``sigma_c`` | reward / cost noise, ≥ 0 | 1.0 / 0.5 |
    | ``instance_seed`` | seed of the instance draw, ≥ 0 | 0 |
    | ``budget`` | fixed budget N | 40000 (L = 2), 5000 (L = 1) |
    | ``delta`` | fixed confidence instead (no paper value) | — |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |
    """
    who = "ConstrainedMixed-Random-v0"
    if isinstance(L, bool) or not isinstance(L, numbers.Integral) or L not in (1, 2):
        raise InvalidParameterError(
            f"{who}: L must be 1 (the L = 1 generator) or 2 (the Appendix-C generator); got {L!r}."
        )
    top = 3 if L == 2 else 2
    if (
        isinstance(family, bool)
        or not isinstance(family, numbers.Integral)
        or not (1 <= family <= top)
    ):
        raise InvalidParameterError(
            f"{who}: family (the number of support arms) must be an integer in [1, {top}] for "
            f"L = {L}; got {family!r}."
        )
    sigma_r, sigma_c = _sigmas(sigma_r, sigma_c, who)
    instance_seed = check_positive_int(instance_seed, "instance_seed", who, minimum=0)
    rng = np.random.default_rng(instance_seed)
    info: dict[str, Any] = {
        "L": int(L),
        "family": int(family),
        "sigma_r": sigma_r,
        "sigma_c": sigma_c,
        "instance_seed": instance_seed,
    }
    if L == 2:
        if K is not None and K != 24:
            raise InvalidParameterError(
                f"{who}: the Appendix-C generator (L = 2) has the 24-arm cost grid; K must be "
                f"None or 24; got {K!r}."
            )
        mode = "P" if w_mode is None else w_mode
        if mode not in ("P", "I"):
            raise InvalidParameterError(
                f"{who}: w_mode must be 'P' (a permutation of 0, 0.02, ..., 0.46) or 'I' (i.i.d. "
                f"on 0, 0.02, ..., 0.28); got {w_mode!r}."
            )
        rewards, costs, cbar, w, draws = appendix_c_instance(int(family), mode, rng)
        info.update({"K": 24, "w_mode": mode, "W": w, "draws": draws})
    else:
        if w_mode is not None:
            raise InvalidParameterError(
                f"{who}: w_mode belongs to the Appendix-C generator (L = 2); drop it for L = 1; "
                f"got {w_mode!r}."
            )
        k = check_positive_int(16 if K is None else K, "K", who, minimum=3)
        rewards, costs, cbar, draws = l1_instance(k, int(family), rng)
        info.update({"K": k, "draws": draws})
    return _env(
        who,
        rewards,
        costs,
        cbar,
        sigma_r,
        sigma_c,
        info,
        _setting(delta, budget, max_samples),
        env_kwargs,
    )


# --------------------------------------------------------------------------------------------
# custom


#: our toy instance (c̄ = 1): I* = {1, 2} with value 1.12.
_TOY_REWARDS = (0.3, 1.2, 0.8, 0.5, 1.0)
_TOY_COSTS = (0.2, 1.1, 0.6, 1.4, 1.6)


@declare(
    "ConstrainedMixed-Custom-v0",
    default_agent="SFSR",
    summary="your own rewards (K), costs (L x K), thresholds (L), known_arms, sigma_r, sigma_c "
    "(no arrays: a K=5, L=1 toy)",
    default_budget=CUSTOM_BUDGET,
)
def make_custom(
    rewards: Any = None,
    costs: Any = None,
    thresholds: Any = None,
    known_arms: Any = (),
    sigma_r: float = 1.0,
    sigma_c: float = 0.5,
    *,
    delta: float | None = None,
    budget: int | None = None,
    max_samples: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``ConstrainedMixed-Custom-v0``: constrained best mixed arm on your own instance.

    Give ``rewards`` (K,) and ``costs`` (L, K), or (K,) for one constraint, and optionally
    ``thresholds`` (L,) (default ``c̄ = 1`` for every constraint). With no arrays, a toy is built
    (K = 5, L = 1, ``I* = {1, 2}``). An infeasible instance is
    accepted (its answer is the empty set); one violating Assumption 1 is refused, with the reason.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``rewards`` | mean rewards, shape (K,), K ≥ 2 | the toy |
    | ``costs`` | mean costs, shape (L, K) or (K,) | the toy |
    | ``thresholds`` | ``c̄``, shape (L,) or a float | 1.0 each |
    | ``known_arms`` | arms whose means the agent is told (``ProblemSpec.extras``) | () |
    | ``sigma_r`` / ``sigma_c`` | reward / cost noise, ≥ 0 | 1.0 / 0.5 |
    | ``budget`` | fixed budget N | 5000 |
    | ``delta`` | fixed confidence instead | — |
    | other | :class:`~bandit_envs.PureExplorationEnv` keywords | |

    Raises:
        InvalidParameterError: missing or mis-shaped arrays, non-finite values, bad σ or
            ``known_arms``.
        InvalidInstanceError: Assumption 1 fails.
    """
    who = "ConstrainedMixed-Custom-v0"
    example = (
        f"gym.make('{who}', rewards=[0.3, 1.2, 0.8], costs=[[0.2, 1.1, 0.6]], thresholds=[1.0])"
    )
    if rewards is None and costs is None:
        rewards, costs = _TOY_REWARDS, _TOY_COSTS
    if rewards is None or costs is None:
        raise InvalidParameterError(
            f"{who}: give both rewards= (shape (K,)) and costs= (shape (L, K)); e.g. {example}."
        )
    r, c = check_rewards_costs(rewards, costs, who)
    if thresholds is None:
        cbar = np.ones(c.shape[0])
    else:
        cbar = check_matrix(thresholds, "thresholds", who, ndim=(0, 1)).reshape(-1)
        if cbar.shape != (c.shape[0],):
            raise InvalidParameterError(
                f"{who}: thresholds must have one entry per cost row (L = {c.shape[0]}); got "
                f"shape {np.shape(thresholds)}."
            )
    sigma_r, sigma_c = _sigmas(sigma_r, sigma_c, who)
    info = {
        "K": r.size,
        "L": c.shape[0],
        "known_arms": known_arms,
        "sigma_r": sigma_r,
        "sigma_c": sigma_c,
    }
    return _env(
        who,
        r,
        c,
        cbar,
        sigma_r,
        sigma_c,
        info,
        _setting(delta, budget, max_samples),
        env_kwargs,
        known_arms=known_arms,
    )


# --------------------------------------------------------------------------- probe problems
# All satisfy Assumption 1 of Tang et al.: mixed and deterministic optima, L = 2, a known arm,
# an infeasible instance (answer ∅) and a noiseless one.


def _probe(
    rewards: Any,
    costs: Any,
    thresholds: Any,
    name: str,
    *,
    sigma: tuple[float, float] = (1.0, 0.5),
    known: Any = (),
    **setting: Any,
) -> PureExplorationEnv:
    model = ConstrainedGaussian(rewards, costs, sigma[0], sigma[1], known_arms=known)
    return PureExplorationEnv(model, ConstrainedMixedSupport(thresholds), name=name, **setting)


@probe_problem("constrained_mixed", "K=5, L=1, mixed optimum {1, 2}")
def _probe_toy(**setting: Any) -> PureExplorationEnv:
    return _probe(_TOY_REWARDS, _TOY_COSTS, [1.0], "probe-cm-toy", **setting)


@probe_problem(
    "constrained_mixed", "easy: K=3, L=1, deterministic optimum {0, slack}, sigma 0.1", easy=True
)
def _probe_easy(**setting: Any) -> PureExplorationEnv:
    rewards, costs = [1.0, 0.2, 0.5], [[0.5, 0.4, 0.3]]
    return _probe(rewards, costs, [1.0], "probe-cm-easy", sigma=(0.1, 0.05), **setting)


@probe_problem("constrained_mixed", "K=4, L=2")
def _probe_two_constraints(**setting: Any) -> PureExplorationEnv:
    rewards = [1.0, 0.2, 1.5, 0.6]
    costs = [[0.5, 0.3, 1.5, 1.2], [0.4, 1.6, 0.6, 0.5]]
    return _probe(rewards, costs, [1.0, 1.0], "probe-cm-l2", **setting)


@probe_problem("constrained_mixed", "K=5, L=1, arm 4 known")
def _probe_known(**setting: Any) -> PureExplorationEnv:
    return _probe(_TOY_REWARDS, _TOY_COSTS, [1.0], "probe-cm-known", known=(4,), **setting)


@probe_problem("constrained_mixed", "infeasible (every cost above the threshold; answer ∅)")
def _probe_infeasible(**setting: Any) -> PureExplorationEnv:
    return _probe([1.0, 0.5, 0.2], [[2.0, 2.5, 3.0]], [1.0], "probe-cm-infeasible", **setting)


@probe_problem("constrained_mixed", "noiseless (sigma=0), K=5, L=1")
def _probe_noiseless(**setting: Any) -> PureExplorationEnv:
    return _probe(
        _TOY_REWARDS, _TOY_COSTS, [1.0], "probe-cm-noiseless", sigma=(0.0, 0.0), **setting
    )
