"""The catalogue: agent names and environment ids, lookups with "did you mean", compatibility."""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
from typing import Any, cast

import gymnasium as gym

import bandit_envs  # noqa: F401 - registers the ids with Gymnasium
from agents.base import AgentCard, BaseAgent
from agents.discovery import find_agents
from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.problem import SETTINGS
from bandit_envs.core.protocols import AgentCapabilities, compatibility
from bandit_envs.envs.registration import EnvEntry, env_entries
from bandit_envs.errors import InvalidParameterError, UnknownNameError


@dataclasses.dataclass(frozen=True)
class AgentEntry:
    """A catalogue entry: the agent's name, its class, and its paper."""

    name: str
    entry_point: str
    summary: str
    source: str

    def load(self) -> type[BaseAgent]:
        """Import and return the agent class."""
        module, _, attr = self.entry_point.partition(":")
        cls: type[BaseAgent] = getattr(importlib.import_module(module), attr)
        return cls

    @property
    def capabilities(self) -> AgentCapabilities:
        """The agent's declared capabilities."""
        return self.load().capabilities

    @property
    def card(self) -> AgentCard:
        """The agent's card: summary, paper, heuristic stopping rules, quick test parameters."""
        card: AgentCard = vars(self.load())["card"]  # catalogue classes set their own card
        return card


def _discovered() -> tuple[AgentEntry, ...]:
    """One entry per agent class found in the family folders of ``agents`` (its card's facts)."""
    entries = []
    for name, cls in find_agents().items():
        card: AgentCard = vars(cls)["card"]  # find_agents returns the classes that set one
        entries.append(
            AgentEntry(
                name=name,
                entry_point=f"{cls.__module__}:{cls.__qualname__}",
                summary=card.summary,
                source=card.paper,
            )
        )
    return tuple(entries)


#: every agent of the catalogue, discovered from the classes' cards (see :mod:`agents.discovery`).
AGENTS: tuple[AgentEntry, ...] = _discovered()

_AGENTS_BY_NAME = {entry.name: entry for entry in AGENTS}
#: every environment id, declared next to its factory (see :mod:`bandit_envs.envs.registration`).
ENVS: tuple[EnvEntry, ...] = env_entries()
_ENVS_BY_ID = {entry.id: entry for entry in ENVS}


def suggestions(name: str, known: list[str], n: int = 3) -> list[str]:
    """The names of ``known`` that ``name`` may have meant, best first.

    A name that differs only in case is the one suggestion (``"Rage"``: ``["RAGE"]``);
    otherwise the closest names by :func:`difflib.get_close_matches`, compared without case.
    """
    folded = name.casefold()
    same = [k for k in known if k.casefold() == folded]
    if same:
        return same
    by_fold: dict[str, str] = {}
    for k in known:
        by_fold.setdefault(k.casefold(), k)
    close = difflib.get_close_matches(folded, list(by_fold), n=n, cutoff=0.5)
    return [by_fold[c] for c in close]


def _unknown(kind: str, name: str, known: list[str]) -> UnknownNameError:
    close = suggestions(name, known)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return UnknownNameError(f"Unknown {kind} {name!r}.{hint} Known {kind}s: {', '.join(known)}.")


def list_agents() -> list[str]:
    """The names of every agent in the catalogue."""
    return [entry.name for entry in AGENTS]


def list_envs() -> list[str]:
    """The ids of every environment of the suite (all registered with Gymnasium)."""
    return [entry.id for entry in ENVS]


def agent_entry(name: str) -> AgentEntry:
    """The catalogue entry of agent ``name`` (raises UnknownNameError with suggestions)."""
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"agent_entry: an agent name is a string such as 'Uniform'; got {name!r}."
        )
    try:
        return _AGENTS_BY_NAME[name]
    except KeyError:
        raise _unknown("agent", name, list_agents()) from None


def env_entry(env_id: str) -> EnvEntry:
    """The catalogue entry of environment ``env_id`` (raises UnknownNameError with suggestions)."""
    if not isinstance(env_id, str):
        raise InvalidParameterError(
            f"env_entry: an environment id is a string such as 'LinearBAI-Soare-v0'; got "
            f"{env_id!r}."
        )
    key = env_id.split(":", 1)[1] if env_id.startswith("bandit_envs:") else env_id
    try:
        return _ENVS_BY_ID[key]
    except KeyError:
        raise _unknown("environment", env_id, list_envs()) from None


def make_agent(name: str, **kwargs: Any) -> Any:
    """Build agent ``name`` with hyper-parameters ``kwargs``.

    Raises:
        UnknownNameError: no such agent (the message suggests close names).
        InvalidParameterError: a keyword the agent does not take (the message lists valid ones).

    """
    cls = agent_entry(name).load()
    params = [
        p.name
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    unknown = sorted(set(kwargs) - set(params))
    if unknown:
        raise InvalidParameterError(
            f"make_agent: {name} has no parameter(s) {unknown}; valid parameters are {params}."
        )
    return cls(**kwargs)


def make_env(env_id: str, **kwargs: Any) -> gym.Env:
    """``gym.make`` for an id of the suite, with a helpful error for unknown ids."""
    entry = env_entry(env_id)
    return gym.make(entry.id, **kwargs)


def unwrap(env: gym.Env) -> PureExplorationEnv:
    """The suite's environment under the wrappers of ``env`` (what ``gym.make`` of an id wraps).

    Example:
        >>> unwrap(make_env("LinearBAI-Soare-v0")).problem.n_arms
        3
    """
    return cast(PureExplorationEnv, env.unwrapped)


def is_compatible(agent: str | Any, env: str | gym.Env, **env_kwargs: Any) -> tuple[bool, str]:
    """Whether an agent (name or object) can run on an env (id or instance), and why not."""
    if isinstance(env, str):
        env = make_env(env, **env_kwargs)
    spec = unwrap(env).problem
    target = agent_entry(agent).capabilities if isinstance(agent, str) else agent
    ok, why = compatibility(target, spec)
    if isinstance(agent, str):
        why = why.replace("AgentCapabilities", agent)
    return ok, why


def _missing_data(names: tuple[str, ...]) -> str | None:
    """The first data set of ``names`` not available locally (no download), or None."""
    from bandit_envs.data import dataset_path
    from bandit_envs.errors import DataError

    for name in names:
        try:
            dataset_path(name, download=False)
        except DataError:
            return name
    return None


def _in_setting(spec: Any, setting: str) -> Any:
    """``spec`` posed in ``setting`` (a placeholder δ or budget: compatibility ignores them)."""
    if setting == spec.setting:
        return spec
    if setting == "fixed_confidence":
        return spec.replace(setting=setting, delta=0.1, budget=None)
    return spec.replace(setting=setting, budget=1000, delta=None, max_samples=None)


#: how to pose an id in each setting, for the messages.
HOW_TO_POSE = {
    "fixed_confidence": "fixed confidence (gym.make(id, delta=...); bandit-bench run --env-kw "
    "delta=0.05)",
    "fixed_budget": "fixed budget (gym.make(id, budget=...); bandit-bench run --env-kw budget=N)",
}


def default_setting_name(env_id: str) -> str:
    """``"fixed_confidence"`` or ``"fixed_budget"``: the setting ``env_id`` poses by default."""
    return "fixed_budget" if "budget" in env_entry(env_id).default_setting() else "fixed_confidence"


def setting_compatibility(
    agent: Any, spec: Any, name: str | None = None
) -> dict[str, tuple[bool, str]]:
    """``{setting: (compatible, reason)}``: whether ``agent`` runs on ``spec`` in each setting.

    Args:
        agent: an agent object or class, or :class:`~bandit_envs.AgentCapabilities` (an agent
            without ``capabilities`` is assumed compatible, as the runner does).
        spec: a :class:`~bandit_envs.ProblemSpec`; it is posed in both settings (with
            placeholder δ and budget, which compatibility does not read).
        name: the agent's name in the reasons.
    """
    target = agent
    if name is None and isinstance(agent, type):
        name = agent.__name__
    return {s: compatibility(target, _in_setting(spec, s), name) for s in SETTINGS}


def other_setting_note(by_setting: dict[str, tuple[bool, str]], setting: str) -> str:
    """The sentence saying how to pose an id so that the agent runs on it, or "".

    Args:
        by_setting: the agent's verdicts per setting (:func:`setting_compatibility`).
        setting: the setting in which it does not run.

    Returns:
        ``" It runs on this id in fixed budget (...)."`` when it runs in another setting.
    """
    others = [s for s, (ok, _) in by_setting.items() if ok and s != setting]
    return f" It runs on this id in {HOW_TO_POSE[others[0]]}." if others else ""


def compatibility_matrix(setting: str = "default") -> dict[tuple[str, str], tuple[bool, str]]:
    """``{(agent, env id): (compatible, reason)}`` over the whole catalogue (default keywords).

    Args:
        setting: which setting of each id is checked: ``"default"`` (the one ``gym.make(id)``
            poses: an agent that only runs in fixed budget is not compatible with an id whose
            default is fixed confidence, and the reason says how to pose the id so that it
            is), ``"fixed_confidence"``, ``"fixed_budget"``, or ``"any"`` (compatible in at
            least one setting: the family-level view of the catalogues).

    Ids whose real data set is not on this machine are not built (listing never downloads):
    their pairs say "not checked" and how to get the data. ``-Custom-v0`` ids are left out
    (their instance is the user's).
    """
    return {
        key: _verdict(by_setting, setting, default)
        for key, (by_setting, default) in setting_matrix().items()
    }


def _verdict(
    by_setting: dict[str, tuple[bool, str]] | str, setting: str, default: str
) -> tuple[bool, str]:
    """One cell of :func:`compatibility_matrix` from a :func:`setting_matrix` cell."""
    if isinstance(by_setting, str):  # not checked
        return False, by_setting
    if setting == "any":
        ok = any(v[0] for v in by_setting.values())
        return ok, "compatible" if ok else by_setting[default][1]
    if setting == "default":
        setting = default
    if setting not in by_setting:
        raise InvalidParameterError(
            f"compatibility_matrix: setting must be 'default', 'any' or one of {list(SETTINGS)}; "
            f"got {setting!r}."
        )
    ok, why = by_setting[setting]
    return ok, why if ok else why + other_setting_note(by_setting, setting)


def setting_matrix() -> dict[tuple[str, str], tuple[dict[str, tuple[bool, str]] | str, str]]:
    """``{(agent, env id): (per-setting verdicts, the id's default setting)}``.

    The verdicts are :func:`setting_compatibility`'s; for an id whose data set is missing they
    are one "not checked: ..." sentence instead. ``-Custom-v0`` ids are left out.
    """
    out: dict[tuple[str, str], tuple[dict[str, tuple[bool, str]] | str, str]] = {}
    for env_id in list_envs():
        if env_id.endswith("-Custom-v0"):
            continue
        default = default_setting_name(env_id)
        missing = _missing_data(env_entry(env_id).datasets)
        if missing:
            why = (
                f"not checked: needs the {missing} data set (set BANDIT_ENVS_DATA, or run "
                f"`bandit-bench data fetch {missing}`)"
            )
            out.update({(agent.name, env_id): (why, default) for agent in AGENTS})
            continue
        spec = unwrap(make_env(env_id)).problem
        for agent in AGENTS:
            verdicts = setting_compatibility(agent.capabilities, spec, agent.name)
            out[(agent.name, env_id)] = (verdicts, default)
    return out


__all__ = [
    "AGENTS",
    "ENVS",
    "AgentEntry",
    "agent_entry",
    "HOW_TO_POSE",
    "compatibility_matrix",
    "default_setting_name",
    "env_entry",
    "is_compatible",
    "list_agents",
    "list_envs",
    "make_agent",
    "make_env",
    "other_setting_note",
    "setting_compatibility",
    "setting_matrix",
    "suggestions",
    "unwrap",
]
