"""The core of the suite: the environment, the problem description, tasks, reward models, runner.

:class:`PureExplorationEnv` is the one environment class; it is made of a reward model
(:mod:`bandit_envs.core.models`, :mod:`bandit_envs.core.glm_models`) and a task
(:mod:`bandit_envs.core.tasks`), and tells agents a :class:`ProblemSpec`. Agents follow the
protocol of :mod:`bandit_envs.core.protocols`; :func:`run_episode` plays one episode.
"""

from bandit_envs.core.env import DEFAULT_MAX_SAMPLES, PureExplorationEnv
from bandit_envs.core.glm_models import LogisticGLM, PoissonGLM
from bandit_envs.core.models import (
    ConstrainedGaussian,
    LinearGaussian,
    MisspecifiedLinearGaussian,
    RewardModel,
)
from bandit_envs.core.problem import SETTINGS, Answer, Grade, ProblemSpec, grade
from bandit_envs.core.protocols import (
    STRUCTURES,
    Agent,
    AgentCapabilities,
    BatchAgent,
    OracleAgent,
    compatibility,
)
from bandit_envs.core.runner import EpisodeResult, episode_seeds, run_episode
from bandit_envs.core.tasks import (
    AllEpsilonGood,
    BestArm,
    ConstrainedMixedSupport,
    ParetoSet,
    Task,
)
from bandit_envs.core.watch import EpisodeProgress
from bandit_envs.theory.answers import as_answer

__all__ = [
    "DEFAULT_MAX_SAMPLES",
    "SETTINGS",
    "STRUCTURES",
    "Agent",
    "AgentCapabilities",
    "AllEpsilonGood",
    "Answer",
    "BatchAgent",
    "BestArm",
    "ConstrainedGaussian",
    "ConstrainedMixedSupport",
    "EpisodeResult",
    "EpisodeProgress",
    "Grade",
    "LinearGaussian",
    "LogisticGLM",
    "MisspecifiedLinearGaussian",
    "OracleAgent",
    "ParetoSet",
    "PoissonGLM",
    "ProblemSpec",
    "PureExplorationEnv",
    "RewardModel",
    "Task",
    "as_answer",
    "compatibility",
    "episode_seeds",
    "grade",
    "run_episode",
]
