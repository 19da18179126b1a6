"""The catalogue of the suite: environment ids, agent names, compatibility, and the CLI.

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
]
