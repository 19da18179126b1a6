"""Reinforcement-learning interfaces: Gymnasium wrappers and Stable-Baselines3 adapters.

The wrappers (:mod:`bandit_envs.rl.wrappers`) turn a pure-exploration environment into an RL
one: sufficient statistics as observations, a discrete action space, action masks, and a
plug-in recommendation at the stop. The adapters (:mod:`bandit_envs.rl.adapters`) run a policy
as an agent (:class:`PolicyAgent`) and an agent as a policy (:class:`AgentPolicy`); neither
imports Stable-Baselines3 or torch.
"""

from bandit_envs.rl.adapters import AgentPolicy, PolicyAgent
from bandit_envs.rl.wrappers import (
    ActionMask,
    BanditStatistics,
    DiscretePulls,
    PlugInRecommender,
    SufficientStatistics,
    action_mask,
)

__all__ = [
    "ActionMask",
    "AgentPolicy",
    "BanditStatistics",
    "DiscretePulls",
    "PlugInRecommender",
    "PolicyAgent",
    "SufficientStatistics",
    "action_mask",
]
