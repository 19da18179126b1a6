"""An instance's complexity measures, computed on first access and cached.

Solving an instance's lower bound — T*(θ) of Soare, Lazaric & Munos (2014, Section 3), the
all-ε-good bound of Li, Ma, Hua & Zhu (2025, Theorem 3.2), the hardness of Tang et al. (2024) —
runs a solver (and, the first time in a process, imports it). An episode must not pay for that
unless someone reads the result, so the environment holds an :class:`InstanceComplexity` (one per
instance, computed at most once) and puts a :class:`ComplexityInfo` in every final ``info``: a
read-only mapping that computes the measures when it is first read. Both are plain picklable
objects (the model and the task, plus the measures once computed).

Instances built twice with the same model and task (a sweep, the checker) share a small
process-wide cache keyed by a fingerprint of both, so their lower bound is solved once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from bandit_envs.core.models import RewardModel
    from bandit_envs.core.tasks import Task

__all__ = ["ComplexityInfo", "InstanceComplexity", "fingerprint", "instance_complexity"]

#: complexity measures of recently used instances, keyed by :func:`fingerprint`, most recent last.
_CACHE: dict[str, dict[str, Any]] = {}
_CACHE_SIZE = 128


def fingerprint(model: RewardModel, task: Task) -> str:
    """A digest of everything the complexity measures depend on: the model's and task's fields."""
    digest = hashlib.sha256()
    digest.update(f"{type(model).__qualname__}|{type(task).__qualname__}|".encode())
    digest.update(repr(sorted(vars(task).items())).encode())
    fields = {**model.public_fields(), **model.truth()}
    for name in sorted(fields):
        value = fields[name]
        digest.update(name.encode())
        if isinstance(value, (np.ndarray, float, int)):
            arr = np.ascontiguousarray(value, dtype=np.float64)
            digest.update(repr(arr.shape).encode() + arr.tobytes())
        else:
            digest.update(repr(value).encode())
    return digest.hexdigest()


def instance_complexity(model: RewardModel, task: Task) -> dict[str, Any]:
    """``task.complexity(model)``, cached process-wide; its arrays are read-only (shared)."""
    key = fingerprint(model, task)
    cached = _CACHE.pop(key, None)
    if cached is None:
        cached = task.complexity(model)
        for value in cached.values():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
    _CACHE[key] = cached  # most recently used last
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    return cached


class InstanceComplexity:
    """The complexity measures of one instance, computed at the first :meth:`get` only.

    Args:
        model: the instance's reward model.
        task: the instance's task.

    """

    __slots__ = ("_data", "model", "task")

    def __init__(self, model: RewardModel, task: Task) -> None:
        self.model = model
        self.task = task
        self._data: dict[str, Any] | None = None

    @property
    def computed(self) -> bool:
        """Whether the measures have been computed (nothing is solved by asking)."""
        return self._data is not None

    def get(self) -> dict[str, Any]:
        """The measures (computed now if needed; later calls return the same dict)."""
        if self._data is None:
            self._data = instance_complexity(self.model, self.task)
        return self._data

    def __getstate__(self) -> tuple[Any, Any, Any]:
        return self.model, self.task, self._data

    def __setstate__(self, state: tuple[Any, Any, Any]) -> None:
        self.model, self.task, self._data = state


class ComplexityInfo(Mapping[str, Any]):
    """``info["complexity"]``: a read-only mapping computed when first read.

    Reading any key (or its length, or iterating) computes the instance's measures once (see
    :class:`InstanceComplexity`) and copies them, so that every final ``info`` owns its arrays.
    ``computed`` tells whether that has happened. It compares equal to a dict of the same items.
    """

    __slots__ = ("_data", "_source")

    def __init__(self, source: InstanceComplexity) -> None:
        self._source = source
        self._data: dict[str, Any] | None = None

    @property
    def computed(self) -> bool:
        """Whether this mapping has been read (and so its measures computed)."""
        return self._data is not None

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            shared = self._source.get().items()
            self._data = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in shared}
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __eq__(self, other: object) -> bool:
        """Same keys and equal values; arrays compare element-wise (``np.array_equal``)."""
        if not isinstance(other, Mapping):
            return NotImplemented
        mine = self._load()
        if mine.keys() != set(other.keys()):
            return False
        return all(_same(value, other[key]) for key, value in mine.items())

    __hash__ = None  # type: ignore[assignment]  # a mapping, like dict

    def __repr__(self) -> str:
        if self._data is None:
            return "ComplexityInfo(<not computed yet: read a key to compute it>)"
        return f"ComplexityInfo({self._data!r})"

    def __getstate__(self) -> tuple[Any, Any]:
        return self._source, self._data

    def __setstate__(self, state: tuple[Any, Any]) -> None:
        self._source, self._data = state


def _same(a: Any, b: Any) -> bool:
    """Equality of two measures: arrays element-wise (NaN equals NaN), the rest with ``==``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" and b.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # NaN measures (e.g. an undefined gap) of equal instances
    return bool(a == b)
