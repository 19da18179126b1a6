"""Pure-exploration bandit problems as Gymnasium environments.

``import bandit_envs`` registers every environment id with Gymnasium::

    import gymnasium as gym
    import bandit_envs

    env = gym.make("LinearBAI-Soare-v0")          # fixed confidence, delta = 0.05
    env = gym.make("LinearBAI-Soare-v0", budget=2000)   # fixed budget

Main names: :class:`ProblemSpec` (what agents are told), :class:`PureExplorationEnv` (the one
environment class), :class:`Agent` (the agent protocol), :func:`run_episode` (the runner),
:func:`sweep` (envs × agents × runs on any backend, resumable) and :func:`report`.
"""

from bandit_envs.env import PureExplorationEnv
from bandit_envs.eps_good import (
    EpsGoodGaps,
    EpsGoodLowerBound,
    eps_good_gaps,
    eps_good_lower_bound,
    good_mask,
)
from bandit_envs.errors import (
    AgentProtocolError,
    BanditEnvError,
    BudgetExceededError,
    CorruptResultsError,
    EpisodeOver,
    IncompatibleAgentError,
    InvalidActionError,
    InvalidAnswerError,
    InvalidInstanceError,
    InvalidParameterError,
    ResetNeeded,
    ResultsWriteError,
    UnknownNameError,
    WorkerLostError,
)
from bandit_envs.lp import (
    BasisScan,
    Hardness,
    LPSolution,
    OptimalBasis,
    intersection_values,
    lagrangian_scores,
    mixing_weights,
    optimal_basis,
    scan_bases,
    split_answer,
    standard_form,
)
from bandit_envs.models import (
    ConstrainedGaussian,
    LinearGaussian,
    LogisticGLM,
    MisspecifiedLinearGaussian,
    PoissonGLM,
    RewardModel,
)
from bandit_envs.pareto import (
    PSIGaps,
    dominance_margins,
    empirical_gaps,
    is_eps_pareto_set,
    pareto_mask,
    psi_gaps,
)
from bandit_envs.problem import Answer, Grade, ProblemSpec, as_answer, grade
from bandit_envs.protocols import (
    Agent,
    AgentCapabilities,
    BatchAgent,
    OracleAgent,
    compatibility,
)
from bandit_envs.registration import ENVS, register_envs
from bandit_envs.reporting import report, summarize
from bandit_envs.runner import EpisodeResult, run_episode
from bandit_envs.sweeps import read_results, sweep
from bandit_envs.tasks import AllEpsilonGood, BestArm, ConstrainedMixedSupport, ParetoSet, Task
from bandit_envs.wrappers import (
    ActionMask,
    BanditStatistics,
    DiscretePulls,
    PlugInRecommender,
    SufficientStatistics,
)

__version__ = "0.1.0"

register_envs()

__all__ = [
    "ActionMask",
    "Agent",
    "AgentCapabilities",
    "AgentProtocolError",
    "AllEpsilonGood",
    "Answer",
    "BanditEnvError",
    "BanditStatistics",
    "BasisScan",
    "BatchAgent",
    "BestArm",
    "BudgetExceededError",
    "ConstrainedGaussian",
    "ConstrainedMixedSupport",
    "CorruptResultsError",
    "DiscretePulls",
    "ENVS",
    "EpisodeOver",
    "EpisodeResult",
    "EpsGoodGaps",
    "EpsGoodLowerBound",
    "Grade",
    "Hardness",
    "IncompatibleAgentError",
    "InvalidActionError",
    "InvalidAnswerError",
    "InvalidInstanceError",
    "InvalidParameterError",
    "LPSolution",
    "LinearGaussian",
    "LogisticGLM",
    "MisspecifiedLinearGaussian",
    "OptimalBasis",
    "OracleAgent",
    "PSIGaps",
    "ParetoSet",
    "PlugInRecommender",
    "PoissonGLM",
    "ProblemSpec",
    "PureExplorationEnv",
    "ResetNeeded",
    "ResultsWriteError",
    "RewardModel",
    "SufficientStatistics",
    "Task",
    "UnknownNameError",
    "WorkerLostError",
    "__version__",
    "as_answer",
    "compatibility",
    "dominance_margins",
    "empirical_gaps",
    "eps_good_gaps",
    "eps_good_lower_bound",
    "good_mask",
    "grade",
    "intersection_values",
    "is_eps_pareto_set",
    "lagrangian_scores",
    "mixing_weights",
    "optimal_basis",
    "pareto_mask",
    "psi_gaps",
    "read_results",
    "report",
    "run_episode",
    "scan_bases",
    "split_answer",
    "standard_form",
    "summarize",
    "sweep",
]
