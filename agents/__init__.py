"""The agent zoo: identification algorithms that run on any compatible environment.

Every agent implements ``reset / select / observe / recommend`` (``bandit_envs.Agent``);
:func:`check_agent` tells whether an agent of your own honours that protocol. Every agent of
the catalogue is importable from here (``from agents import LinGapE, GEGE, SFSR``): the names
are found in the family folders (:mod:`agents.discovery`), so a new agent module needs no
edit of this file.
"""

from __future__ import annotations

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.checks import AgentCheckError, CheckResult, check_agent
from agents.discovery import find_agents
from bandit_envs.rl.adapters import AgentPolicy, PolicyAgent

globals().update(find_agents())

__all__ = [
    "AgentCard",
    "AgentCheckError",
    "AgentPolicy",
    "BaseAgent",
    "CheckResult",
    "Heuristic",
    "PolicyAgent",
    "check_agent",
    *find_agents(),
]


def __getattr__(name: str) -> type[BaseAgent]:
    # Every agent is set above; this only types the discovered names for static checkers.
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
