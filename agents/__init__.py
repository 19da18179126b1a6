"""The agent zoo: identification algorithms that run on any compatible environment.

Every agent implements ``reset / select / observe / recommend`` (``bandit_envs.Agent``);
:func:`check_agent` tells whether an agent of your own honours that protocol.
"""

from agents.base import BaseAgent
from agents.checks import AgentCheckError, CheckResult, check_agent
from agents.linear_bai.uniform import Uniform
from bandit_envs.rl.adapters import AgentPolicy, PolicyAgent

__all__ = [
    "AgentCheckError",
    "AgentPolicy",
    "BaseAgent",
    "CheckResult",
    "PolicyAgent",
    "Uniform",
    "check_agent",
]
