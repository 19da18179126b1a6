"""Pure-exploration bandit problems as Gymnasium environments.

``import bandit_envs`` registers every environment id with Gymnasium::

    import gymnasium as gym
    import bandit_envs

    env = gym.make("LinearBAI-Soare-v0")  # fixed confidence, delta = 0.05
    env = gym.make("LinearBAI-Soare-v0", budget=2000)  # fixed budget

The names below are the public surface: :class:`PureExplorationEnv` (the one environment class),
:class:`ProblemSpec` (what agents are told), the agent protocol (:class:`Agent`,
:class:`BatchAgent`, :class:`OracleAgent`, :class:`AgentCapabilities`), :func:`run_episode`,
the tasks and reward models an environment is made of, the errors, and the RL wrappers. The
shared math (optimal designs, least squares, thresholds, gaps, LP bases) is in
:mod:`bandit_envs.theory`; the factories behind the ids are in :mod:`bandit_envs.envs`.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.glm_models import LogisticGLM, PoissonGLM
from bandit_envs.core.models import (
    ConstrainedGaussian,
    LinearGaussian,
    MisspecifiedLinearGaussian,
    RewardModel,
)
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import (
    Agent,
    AgentCapabilities,
    BatchAgent,
    OracleAgent,
    compatibility,
)
from bandit_envs.core.runner import EpisodeResult, run_episode
from bandit_envs.core.tasks import AllEpsilonGood, BestArm, ConstrainedMixedSupport, ParetoSet, Task
from bandit_envs.core.watch import EpisodeProgress
from bandit_envs.envs.registration import register_envs
from bandit_envs.errors import (
    AgentProtocolError,
    BanditEnvError,
    BudgetExceededError,
    CorruptResultsError,
    DataError,
    EpisodeOver,
    IncompatibleAgentError,
    InvalidActionError,
    InvalidAnswerError,
    InvalidInstanceError,
    InvalidParameterError,
    ResetNeeded,
    ResultsWriteError,
    RunawayEpisodeWarning,
    UnknownNameError,
    WorkerLostError,
)
from bandit_envs.rl.wrappers import (
    ActionMask,
    BanditStatistics,
    DiscretePulls,
    PlugInRecommender,
    SufficientStatistics,
)
from bandit_envs.theory.answers import as_answer

__version__ = "0.2.0.dev0"

register_envs()

#: names exported here up to version 0.1, now in the module named (deprecated aliases, removed
#: in the next release).
_MOVED = {
    **dict.fromkeys(
        ("EpsGoodGaps", "EpsGoodLowerBound", "eps_good_gaps", "eps_good_lower_bound", "good_mask"),
        "bandit_envs.theory.eps_good",
    ),
    **dict.fromkeys(
        (
            "PSIGaps",
            "dominance_margins",
            "empirical_gaps",
            "is_eps_pareto_set",
            "pareto_mask",
            "psi_gaps",
        ),
        "bandit_envs.theory.pareto",
    ),
    **dict.fromkeys(
        (
            "BasisScan",
            "Hardness",
            "LPSolution",
            "OptimalBasis",
            "intersection_values",
            "lagrangian_scores",
            "mixing_weights",
            "optimal_basis",
            "scan_bases",
            "split_answer",
            "standard_form",
        ),
        "bandit_envs.theory.lp",
    ),
    **dict.fromkeys(("Grade", "grade"), "bandit_envs.core.problem"),
    "ENVS": "bandit_envs.envs.registration",
}
#: names that moved up to the registry package, which this package must not import.
_MOVED_UP = {
    "sweep": "registry.sweep",
    "read_results": "registry.read_results",
    "report": "registry.report",
    "summarize": "registry.summarize",
}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        module = _MOVED[name]
        warnings.warn(
            f"bandit_envs.{name} is deprecated and will be removed in the next release; import "
            f"it from {module}.",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(module), name)
    if name in _MOVED_UP:
        raise AttributeError(
            f"bandit_envs.{name} has moved to {_MOVED_UP[name]} (sweeps and reports belong to "
            f"the registry package, which knows the agents)."
        )
    raise AttributeError(f"module 'bandit_envs' has no attribute {name!r}")


__all__ = [
    "ActionMask",
    "Agent",
    "AgentCapabilities",
    "AgentProtocolError",
    "AllEpsilonGood",
    "Answer",
    "BanditEnvError",
    "BanditStatistics",
    "BatchAgent",
    "BestArm",
    "BudgetExceededError",
    "ConstrainedGaussian",
    "ConstrainedMixedSupport",
    "CorruptResultsError",
    "DataError",
    "DiscretePulls",
    "EpisodeOver",
    "EpisodeProgress",
    "EpisodeResult",
    "IncompatibleAgentError",
    "InvalidActionError",
    "InvalidAnswerError",
    "InvalidInstanceError",
    "InvalidParameterError",
    "LinearGaussian",
    "LogisticGLM",
    "MisspecifiedLinearGaussian",
    "OracleAgent",
    "ParetoSet",
    "PlugInRecommender",
    "PoissonGLM",
    "ProblemSpec",
    "PureExplorationEnv",
    "ResetNeeded",
    "ResultsWriteError",
    "RewardModel",
    "RunawayEpisodeWarning",
    "SufficientStatistics",
    "Task",
    "UnknownNameError",
    "WorkerLostError",
    "__version__",
    "as_answer",
    "compatibility",
    "run_episode",
]
