"""The top layer: the catalogue (ids, agents, compatibility), sweeps, reports, the audit, the CLI.

>>> import registry
>>> "Uniform" in registry.list_agents()
True
>>> agent = registry.make_agent("Uniform")
"""

from registry.catalogue import (
    AGENTS,
    AgentEntry,
    agent_entry,
    compatibility_matrix,
    env_entry,
    is_compatible,
    list_agents,
    list_envs,
    make_agent,
    make_env,
)
from registry.reporting import report, summarize
from registry.sweeps import read_results, sweep

__all__ = [
    "AGENTS",
    "AgentEntry",
    "agent_entry",
    "compatibility_matrix",
    "env_entry",
    "is_compatible",
    "list_agents",
    "list_envs",
    "make_agent",
    "make_env",
    "read_results",
    "report",
    "summarize",
    "sweep",
]
