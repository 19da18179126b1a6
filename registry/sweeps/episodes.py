"""The episodes of a sweep: the plan, the episode seeds, and running one episode into a record.

Every episode's seed is derived with :class:`numpy.random.SeedSequence` from (sweep seed, env
setting label, agent setting label, run index), so a record never depends on the backend, the
number of workers or the order in which episodes run. :func:`run_one` is the only place an
episode runs; every backend calls it (directly, or through :func:`run_chunk` in its workers).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import sys
import traceback
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from bandit_envs.core.protocols import compatibility
from bandit_envs.core.runner import run_episode
from bandit_envs.core.watch import EpisodeProgress
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError
from registry.catalogue import make_agent, other_setting_note, setting_compatibility
from registry.sweeps.settings import AgentSetting, EnvSetting, agent_settings, env_settings


def _stable_int(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def episode_seed(sweep_seed: int, env: EnvSetting, agent: AgentSetting, run: int) -> int:
    """The seed of one episode, from (sweep seed, env setting, agent setting, run index)."""
    ss = np.random.SeedSequence(
        entropy=sweep_seed, spawn_key=(_stable_int(env.label), _stable_int(agent.label), run)
    )
    return int(ss.generate_state(1, dtype=np.uint32)[0])


@dataclasses.dataclass(frozen=True)
class Episode:
    """One unit of work of a sweep."""

    env: EnvSetting
    agent: AgentSetting
    run: int
    seed: int
    batch: bool | None = None

    @property
    def key(self) -> str:
        """The episode's identity in the results file."""
        return f"{self.env.label} | {self.agent.label} | run {self.run}"


def plan(
    envs: Iterable[Any],
    agents: Iterable[Any],
    runs: int,
    seed: int = 0,
    batch: bool | None = None,
) -> list[Episode]:
    """Every episode of a sweep, in a fixed order (envs, then agents, then runs).

    An agent setting with its own ``runs`` gets that many episodes instead of ``runs``.
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise InvalidParameterError(f"sweep: runs must be an integer >= 1; got {runs!r}.")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"sweep: seed must be an integer >= 0; got {seed!r}.")
    envs_, agents_ = env_settings(envs), agent_settings(agents)
    if not envs_ or not agents_:
        raise InvalidParameterError("sweep: give at least one env and one agent.")
    return [
        Episode(e, a, r, episode_seed(seed, e, a, r), batch)
        for e in envs_
        for a in agents_
        for r in range(runs if a.runs is None else a.runs)
    ]


def resolve_agent(name: str, kwargs: Mapping[str, Any]) -> Any:
    """Build an agent from a catalogue name or a ``module:Class`` string.

    Args:
        name: a name of the catalogue (built with :func:`registry.catalogue.make_agent`, which
            checks the keywords), or ``"module:Class"`` (the class is imported and called).
        kwargs: the agent's parameters.
    """
    if ":" in name:
        return load_agent_class(name)(**kwargs)
    return make_agent(name, **kwargs)


def load_agent_class(ref: str) -> Any:
    """The class named by ``"module:Class"`` (``Class`` may be dotted: ``"mod:Outer.Inner"``).

    The module is imported with :func:`importlib.import_module`, so it is found on
    ``sys.path``; ``bandit-bench`` puts the current directory first on it, as ``python -m``
    does, so ``my_agents:MyAgent`` finds ``./my_agents.py``.

    Raises:
        InvalidParameterError: the reference is malformed, the module cannot be found, or it
            has no such attribute; the message says which, and where modules are looked for.
    """
    module, _, attr = ref.partition(":")
    if not module or not attr or ":" in attr:
        raise InvalidParameterError(
            f"agent {ref!r}: a class of your own is written 'module:Class', e.g. "
            f"'my_agents:MyAgent' for class MyAgent in my_agents.py."
        )
    try:
        obj: Any = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not module.startswith(exc.name):
            raise  # the module was found; something it imports is missing
        raise InvalidParameterError(
            f"agent {ref!r}: no module named {exc.name!r} (looked in the current directory "
            f"{os.getcwd()} and the installed packages). Run the command from the folder that "
            f"holds {module.replace('.', '/')}.py, or add its folder to PYTHONPATH."
        ) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InvalidParameterError(
                f"agent {ref!r}: {getattr(obj, '__name__', module)} has no attribute {part!r} "
                f"(defined in {getattr(obj, '__file__', '?')})."
            )
        obj = getattr(obj, part)
    return obj


def incompatible_pairs(
    envs: Sequence[EnvSetting], agents: Sequence[AgentSetting]
) -> list[tuple[EnvSetting, AgentSetting, str]]:
    """The (env setting, agent setting) pairs whose agent cannot run on the env, with the reason.

    Every env setting is built (:func:`build_env`) and every agent setting resolved
    (:func:`resolve_agent`); what they raise propagates. The reason is the runner's (task,
    setting, structure, outcomes), and says in which setting the agent does run on the id when
    it does in the other one. Agents that declare no ``capabilities`` are assumed compatible.
    """
    out = []
    built = [resolve_agent(a.name, a.kwargs) for a in agents]
    for env_setting in envs:
        spec = build_env(env_setting).unwrapped.problem
        for agent_setting, agent in zip(agents, built, strict=True):
            name = agent_setting.label
            ok, why = compatibility(agent, spec, name)
            if not ok:
                by_setting = setting_compatibility(agent, spec, name)
                why += other_setting_note(by_setting, spec.setting)
                out.append((env_setting, agent_setting, why))
    return out


def check_compatible(envs: Sequence[EnvSetting], agents: Sequence[AgentSetting]) -> None:
    """Raise :class:`~bandit_envs.IncompatibleAgentError` naming every incompatible pair.

    The message lists each (env setting, agent setting) pair whose agent cannot run on the
    env, with the reason (:func:`incompatible_pairs`), so that nothing runs when some pairs
    could only crash.
    """
    bad = incompatible_pairs(envs, agents)
    if bad:
        raise IncompatibleAgentError(
            f"{len(bad)} (env setting, agent setting) pair(s) of the sweep cannot run; nothing "
            f"was run. Remove these agents from those envs (a sweep pairs every env with every "
            f"agent: split it in two), or pose the envs in the agent's setting:\n" + pairs_text(bad)
        )


def pairs_text(bad: Sequence[tuple[EnvSetting, AgentSetting, str]], most: int = 20) -> str:
    """The lines of a refusal: one per incompatible pair (at most ``most``), with its reason."""
    lines = [f"  {a.label} on {e.label}: {why}" for e, a, why in bad[:most]]
    if len(bad) > most:
        lines.append(f"  ... and {len(bad) - most} more pair(s).")
    return "\n".join(lines)


_ENV_CACHE: dict[str, Any] = {}


def build_env(setting: EnvSetting) -> Any:
    """The environment of ``setting`` (``gym.make(id, **kwargs)``), kept for reuse.

    Each process keeps the environments it built, by label (at most 65; the cache is emptied
    when it grows past that): :func:`run_one` reseeds an environment at every episode, so
    successive episodes of one setting share it instead of building it again. What
    ``gym.make`` raises (an unknown id, a bad keyword) propagates.
    """
    env = _ENV_CACHE.get(setting.label)
    if env is None:
        env = gym.make(setting.id, **setting.kwargs)
        if len(_ENV_CACHE) > 64:
            _ENV_CACHE.clear()
        _ENV_CACHE[setting.label] = env
    return env


def _header(episode: Episode) -> dict[str, Any]:
    """The fields every record of ``episode`` starts with."""
    return {
        "key": episode.key,
        "env_id": episode.env.id,
        "env_kwargs": episode.env.kwargs,
        "env_label": episode.env.label,
        "agent_name": episode.agent.name,
        "agent_kwargs": episode.agent.kwargs,
        "agent_label": episode.agent.label,
        "run": episode.run,
        "seed": episode.seed,
    }


def lost_record(episode: Episode, how: str) -> dict[str, Any]:
    """The error record of an episode whose worker process died twice while running it.

    Args:
        episode: the episode.
        how: how the worker died, e.g. ``"killed by signal SIGKILL"``.

    Returns:
        A record with ``status="error"`` and ``error_type="WorkerDied"``.
    """
    record = _header(episode)
    record.update(
        status="error",
        error_type="WorkerDied",
        error_message=(
            f"the worker process died while running this episode ({how}), also when it ran "
            f"alone; no record is possible. A crash in native code, the out-of-memory killer "
            f"or os.kill/os._exit in the agent do this; resume with retry_errors=True to try "
            f"again."
        ),
        traceback="",
    )
    return record


#: seconds between two lines about one long episode (none for a shorter episode).
LONG_EPISODE_EVERY = 60.0


def long_episode_line(p: EpisodeProgress) -> str:
    """One line about a running episode: who, how far, against the cap and the lower bound."""
    line = f"{p.agent} on {p.env_id} (seed {p.seed}): {p.samples:,} samples after {p.elapsed:.0f} s"
    if p.limit is not None:
        line += f" (cap {p.limit:,})"
    if p.lower_bound is not None:
        line += f", {p.samples / p.lower_bound:,.0f}x T*log(1/delta)"
    return line


def _say_long_episode(p: EpisodeProgress) -> None:
    print(f"bandit-bench: still running: {long_episode_line(p)}", file=sys.stderr, flush=True)


def run_one(episode: Episode) -> dict[str, Any]:
    """Run one episode and return its record (an error record if anything raised).

    An episode that runs longer than :data:`LONG_EPISODE_EVERY` seconds writes a line to stderr
    at that interval (:func:`long_episode_line`), from whichever process runs it.
    """
    record = _header(episode)
    try:
        env = build_env(episode.env)
        agent = resolve_agent(episode.agent.name, episode.agent.kwargs)
        result = run_episode(
            env,
            agent,
            episode.seed,
            batch=episode.batch,
            progress=_say_long_episode,
            progress_every=LONG_EPISODE_EVERY,
        )
    except Exception as exc:  # noqa: BLE001 - recorded, and the sweep goes on
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        record.update(
            status="error",
            error_type=type(exc).__name__,
            error_message=str(exc),
            traceback="".join(tb[-6:]),
        )
        return record
    out = result.to_dict()
    out.pop("seed")
    out.pop("env_id")
    record.update(status="ok", **out)
    return json.loads(json.dumps(record))  # the record exactly as the results file holds it


def run_chunk(episodes: Sequence[Episode]) -> list[dict[str, Any]]:
    """Run several episodes in one worker call (amortises the dispatch overhead)."""
    return [run_one(e) for e in episodes]


def chunks(items: Sequence[Any], n_jobs: int) -> Iterator[list[Any]]:
    """``items`` in consecutive chunks for ``n_jobs`` workers: about 4 per worker, at most 8 each.

    Several episodes per task amortise the cost of sending work to a worker; at least four
    chunks per worker keep the workers busy until the end of the sweep.
    """
    size = max(1, min(8, len(items) // (4 * n_jobs)))
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


#: What a backend yields: the records of each chunk of episodes as it finishes.
Records = Generator[list[dict[str, Any]], None, None]


__all__ = [
    "Episode",
    "Records",
    "build_env",
    "check_compatible",
    "chunks",
    "episode_seed",
    "incompatible_pairs",
    "load_agent_class",
    "lost_record",
    "plan",
    "resolve_agent",
    "run_chunk",
    "run_one",
]
