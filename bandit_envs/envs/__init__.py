"""One module per problem family: the factories behind the registered ids.

Each factory declares its id with :func:`~bandit_envs.envs.registration.env_factory`;
:func:`env_entries` lists them all (importing every module of this folder), and
:func:`probe_problems` the small problems ``agents.check_agent`` uses.
"""

from bandit_envs.envs.registration import (
    EnvEntry,
    Probe,
    env_entries,
    env_factory,
    probe_problem,
    probe_problems,
    register_envs,
)

__all__ = [
    "EnvEntry",
    "Probe",
    "env_entries",
    "env_factory",
    "probe_problem",
    "probe_problems",
    "register_envs",
]
