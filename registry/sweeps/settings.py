"""Sweep settings: environments and agents with their keywords, and keyword grids.

A setting's :attr:`~EnvSetting.label` (``name(key=value, ...)``, keys sorted, values as JSON) is
its identity: the episode seeds and the keys of the results file are derived from it, so two
settings with the same keywords are the same setting however they were written.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from bandit_envs.errors import InvalidParameterError


def _canonical(value: Any) -> Any:
    """A JSON-compatible, order-independent form of a keyword value."""
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, np.ndarray):
        return _canonical(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise InvalidParameterError(
        f"sweep: keyword values must be JSON-like (numbers, strings, lists, dicts); got "
        f"{type(value).__name__} {value!r}."
    )


def _label(name: str, kwargs: Mapping[str, Any]) -> str:
    if not kwargs:
        return name
    inner = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(kwargs.items()))
    return f"{name}({inner})"


@dataclasses.dataclass(frozen=True)
class EnvSetting:
    """One environment of a sweep: an id and its ``gym.make`` keywords."""

    id: str
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", _canonical(dict(self.kwargs)))

    @property
    def label(self) -> str:
        """``id(key=value, ...)``: the setting's stable name."""
        return _label(self.id, self.kwargs)


@dataclasses.dataclass(frozen=True)
class AgentSetting:
    """One agent of a sweep: a catalogue name (or ``module:Class``) and its parameters.

    ``runs`` overrides the sweep's episodes per setting for this agent (e.g. fewer for an agent
    that needs minutes per episode). It is not part of the label, so the episode seeds of runs
    0..n-1 do not depend on it.
    """

    name: str
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    runs: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", _canonical(dict(self.kwargs)))
        runs = self.runs
        if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int) or runs < 1):
            raise InvalidParameterError(
                f"sweep: runs of agent {self.name} must be an integer >= 1; got {runs!r}."
            )

    @property
    def label(self) -> str:
        """``name(key=value, ...)``: the setting's stable name."""
        return _label(self.name, self.kwargs)


def expand_grid(
    name: str,
    kwargs: Mapping[str, Any] | None = None,
    grid: Mapping[str, Sequence[Any]] | None = None,
) -> list[dict[str, Any]]:
    """The cartesian product of ``grid`` axes, each merged into the fixed ``kwargs``."""
    kwargs = dict(kwargs or {})
    grid = dict(grid or {})
    for key, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise InvalidParameterError(
                f"sweep: grid axis {key!r} of {name} must be a non-empty list of values; got "
                f"{values!r}."
            )
        if key in kwargs:
            raise InvalidParameterError(
                f"sweep: {key!r} of {name} is both a fixed keyword and a grid axis."
            )
    keys = sorted(grid)
    return [
        {**kwargs, **dict(zip(keys, combo, strict=True))}
        for combo in itertools.product(*(grid[k] for k in keys))
    ]


def env_settings(envs: Iterable[Any]) -> list[EnvSetting]:
    """The env settings of a sweep's ``envs`` entries, grid axes expanded, in order.

    Args:
        envs: ids, :class:`EnvSetting` objects, or dicts ``{"id": ..., "kwargs": {...},
            "grid": {...}}`` whose grid axes are expanded (cartesian product,
            :func:`expand_grid`).

    Raises:
        InvalidParameterError: an entry of another kind, a dict with unknown keys or no id,
            a bad grid axis, or a keyword value that is not JSON-like.
    """
    out: list[EnvSetting] = []
    for item in envs:
        if isinstance(item, EnvSetting):
            out.append(item)
        elif isinstance(item, str):
            out.append(EnvSetting(item))
        elif isinstance(item, Mapping):
            unknown = set(item) - {"id", "kwargs", "grid"}
            if unknown or "id" not in item:
                raise InvalidParameterError(
                    f"sweep: an env entry takes the keys 'id', 'kwargs' and 'grid'; got "
                    f"{sorted(item)}."
                )
            out += [
                EnvSetting(item["id"], kw)
                for kw in expand_grid(item["id"], item.get("kwargs"), item.get("grid"))
            ]
        else:
            raise InvalidParameterError(
                f"sweep: envs must be ids, EnvSetting or dicts with 'id', 'kwargs', 'grid'; got "
                f"{item!r}."
            )
    return out


def _agent_ref(obj: Any) -> str:
    if isinstance(obj, str):
        return obj
    if isinstance(obj, type):
        return f"{obj.__module__}:{obj.__qualname__}"
    raise InvalidParameterError(
        f"sweep: an agent is a catalogue name, a 'module:Class' string or a class; got {obj!r}."
    )


def agent_settings(agents: Iterable[Any]) -> list[AgentSetting]:
    """The agent settings of a sweep's ``agents`` entries, grid axes expanded, in order.

    Args:
        agents: catalogue names, ``"module:Class"`` strings, classes, :class:`AgentSetting`
            objects, or dicts ``{"name": ..., "kwargs": {...}, "grid": {...}, "runs": n}``
            whose grid axes are expanded (:func:`expand_grid`).

    Raises:
        InvalidParameterError: as :func:`env_settings`, and a ``runs`` that is not an
            integer >= 1.
    """
    out: list[AgentSetting] = []
    for item in agents:
        if isinstance(item, AgentSetting):
            out.append(item)
        elif isinstance(item, (str, type)):
            out.append(AgentSetting(_agent_ref(item)))
        elif isinstance(item, Mapping):
            unknown = set(item) - {"name", "kwargs", "grid", "runs"}
            if unknown or "name" not in item:
                raise InvalidParameterError(
                    f"sweep: an agent entry takes the keys 'name', 'kwargs', 'grid' and 'runs'; "
                    f"got {sorted(item)}."
                )
            name = _agent_ref(item["name"])
            out += [
                AgentSetting(name, kw, item.get("runs"))
                for kw in expand_grid(name, item.get("kwargs"), item.get("grid"))
            ]
        else:
            raise InvalidParameterError(
                f"sweep: agents must be names, classes, AgentSetting or dicts with 'name', "
                f"'kwargs', 'grid'; got {item!r}."
            )
    return out


__all__ = ["AgentSetting", "EnvSetting", "agent_settings", "env_settings", "expand_grid"]
