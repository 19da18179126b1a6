"""Sweep configuration files (TOML): loading and validation with the offending key named.

Format (see ``experiments/README.md``)::

    [sweep]
    runs = 200          # episodes per (env setting, agent setting)
    seed = 0            # the sweep seed
    backend = "process" # serial | process | ray
    jobs = 2            # worker processes
    out = "results/soare"  # optional; the command line's --out wins

    [[env]]
    id = "LinearBAI-Soare-v0"
    kwargs = { d = 2 }              # fixed gym.make keywords
    grid = { delta = [0.05, 0.01] } # axes of a cartesian product

    [[agent]]
    name = "Uniform"
    grid = { check_every = [1, 10] }
    runs = 20                       # optional: this agent's own episodes per setting
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

from bandit_envs.errors import BanditEnvError, InvalidParameterError
from registry.sweeps import (
    BACKENDS,
    AgentSetting,
    EnvSetting,
    agent_settings,
    build_env,
    env_settings,
    incompatible_pairs,
    resolve_agent,
)
from registry.sweeps.episodes import pairs_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TOP_KEYS = {"description", "sweep", "env", "agent"}
SWEEP_KEYS = {"runs", "seed", "backend", "jobs", "out", "batch", "address"}
ENV_KEYS = {"id", "kwargs", "grid"}
AGENT_KEYS = {"name", "kwargs", "grid", "runs"}


class ConfigError(InvalidParameterError):
    """A sweep configuration is invalid; the message names the file and the key."""


@dataclasses.dataclass
class SweepConfig:
    """A validated sweep configuration."""

    envs: list[EnvSetting]
    agents: list[AgentSetting]
    runs: int = 100
    seed: int = 0
    backend: str = "process"
    jobs: int | None = None
    out: str | None = None
    batch: bool | None = None
    address: str | None = None
    description: str = ""
    source: str = "<flags>"


def _unknown(where: str, keys: set[str], valid: set[str], source: str) -> None:
    extra = sorted(keys - valid)
    if extra:
        raise ConfigError(
            f"{source}: unknown key {extra[0]!r} in {where}; valid keys: "
            f"{', '.join(sorted(valid))}."
        )


def _typed(value: Any, kind: type | tuple[type, ...], key: str, source: str, what: str) -> Any:
    if isinstance(value, bool) and kind is not bool:
        raise ConfigError(f"{source}: {key} must be {what}; got {value!r}.")
    if not isinstance(value, kind):
        raise ConfigError(f"{source}: {key} must be {what}; got {value!r}.")
    return value


def parse_config(data: dict[str, Any], source: str = "<config>") -> SweepConfig:
    """Validate a parsed TOML document; errors name the file and the key."""
    _unknown("the top level", set(data), TOP_KEYS, source)
    sweep = data.get("sweep", {})
    _typed(sweep, dict, "[sweep]", source, "a table")
    _unknown("[sweep]", set(sweep), SWEEP_KEYS, source)
    envs_raw = data.get("env")
    agents_raw = data.get("agent")
    if not envs_raw:
        raise ConfigError(f'{source}: no [[env]] entry; add at least one, e.g. [[env]] id = "...".')
    if not agents_raw:
        raise ConfigError(
            f'{source}: no [[agent]] entry; add at least one, e.g. [[agent]] name = "Uniform".'
        )
    _typed(envs_raw, list, "env", source, "an array of tables ([[env]])")
    _typed(agents_raw, list, "agent", source, "an array of tables ([[agent]])")
    for kind, entries, keys, label, example in (
        ("env", envs_raw, ENV_KEYS, "id", "an environment id"),
        ("agent", agents_raw, AGENT_KEYS, "name", "an agent name"),
    ):
        for i, entry in enumerate(entries, start=1):
            where = f"[[{kind}]] #{i}"
            _typed(entry, dict, where, source, "a table")
            _unknown(where, set(entry), keys, source)
            if label not in entry:
                raise ConfigError(f"{source}: {where} has no {label!r}.")
            _typed(entry[label], str, f"{where} {label}", source, f"a string ({example})")
            for table in ("kwargs", "grid"):
                if table in entry:
                    _typed(
                        entry[table],
                        dict,
                        f"{where} {table}",
                        source,
                        "a table such as { delta = 0.05 }",
                    )
    try:
        envs = env_settings(envs_raw)
        agents = agent_settings(agents_raw)
    except InvalidParameterError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    config = SweepConfig(
        envs=envs, agents=agents, source=source, description=str(data.get("description", ""))
    )
    if "runs" in sweep:
        config.runs = _typed(sweep["runs"], int, "[sweep] runs", source, "an integer >= 1")
        if config.runs < 1:
            raise ConfigError(f"{source}: [sweep] runs must be an integer >= 1; got {config.runs}.")
    if "seed" in sweep:
        config.seed = _typed(sweep["seed"], int, "[sweep] seed", source, "an integer >= 0")
        if config.seed < 0:
            raise ConfigError(f"{source}: [sweep] seed must be an integer >= 0; got {config.seed}.")
    if "backend" in sweep:
        config.backend = _typed(
            sweep["backend"], str, "[sweep] backend", source, f"one of {list(BACKENDS)}"
        )
        if config.backend not in BACKENDS:
            raise ConfigError(
                f"{source}: [sweep] backend must be one of {list(BACKENDS)}; got "
                f"{config.backend!r}."
            )
    if "jobs" in sweep:
        config.jobs = _typed(sweep["jobs"], int, "[sweep] jobs", source, "an integer >= 1")
        if config.jobs < 1:
            raise ConfigError(f"{source}: [sweep] jobs must be an integer >= 1; got {config.jobs}.")
    if "out" in sweep:
        config.out = _typed(sweep["out"], str, "[sweep] out", source, "a folder path")
    if "batch" in sweep:
        config.batch = _typed(sweep["batch"], bool, "[sweep] batch", source, "true or false")
    if "address" in sweep:
        config.address = _typed(sweep["address"], str, "[sweep] address", source, "a Ray address")
    return config


def load_config(path: str | Path) -> SweepConfig:
    """Read and validate a TOML sweep configuration."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}).") from None
    return parse_config(data, str(path))


def validate_settings(config: SweepConfig) -> None:
    """Build every env setting and agent setting once, so bad keywords fail before running.

    Then check every (env setting, agent setting) pair: an agent that cannot run on an env
    (another task, the other setting, a structure it does not assume) is refused here, naming
    every such pair and the reason, instead of crashing every episode of the pair.
    """
    for i, env in enumerate(config.envs, start=1):
        try:
            build_env(env)
        except (BanditEnvError, gym.error.Error, TypeError, ValueError, KeyError) as exc:
            raise ConfigError(f"{config.source}: env setting #{i} {env.label}: {exc}") from None
    for i, agent in enumerate(config.agents, start=1):
        try:
            resolve_agent(agent.name, agent.kwargs)
        except (
            BanditEnvError,
            TypeError,
            ValueError,
            KeyError,
            ImportError,
            AttributeError,
        ) as exc:
            raise ConfigError(f"{config.source}: agent setting #{i} {agent.label}: {exc}") from None
    bad = incompatible_pairs(config.envs, config.agents)
    if bad:
        raise ConfigError(
            f"{config.source}: {len(bad)} (env setting, agent setting) pair(s) cannot run; "
            "nothing was run. Every env is paired with every agent: remove the agent from the "
            "sweep (or split it in two), or pose the env in the agent's setting.\n"
            + pairs_text(bad)
        )
