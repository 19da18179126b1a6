"""The public description of a problem (:class:`ProblemSpec`), answers, and grading.

An *answer* is always a ``frozenset[int]`` of item indices (``docs/concepts.md``): the best arm is a
one-element set, a Pareto set or the set of ε-good arms is a set of arms, a constrained mixed arm
is an LP basis over arms and slack items. :func:`grade` compares an answer with the truth.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, Literal

import numpy as np

from bandit_envs.core.validation import (
    check_matrix,
    check_nonnegative,
    check_positive_int,
    check_probability,
)
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.answers import Answer

Setting = Literal["fixed_confidence", "fixed_budget"]
SETTINGS: tuple[str, ...] = ("fixed_confidence", "fixed_budget")


def _frozen_array(value: Any) -> np.ndarray:
    arr = np.array(value, dtype=np.float64, copy=True)
    arr.setflags(write=False)
    return arr


class ReadOnlyMapping(Mapping[str, Any]):
    """A read-only mapping that pickles and deep-copies (``types.MappingProxyType`` does not).

    It holds its own copy of the items it is given; item assignment raises ``TypeError``. Used
    for :attr:`ProblemSpec.extras`, so that an environment, its spec and its ``info`` dicts can
    be sent to worker processes (Gymnasium's async vector env, Stable-Baselines3's
    ``SubprocVecEnv``) and copied mid-episode.

    Args:
        data: the items (any mapping).
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = dict(data or {})

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:  # the dict's own, faster than Mapping's
        return key in self._data

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` (the dict's own lookup, faster than Mapping's)."""
        return self._data.get(key, default)

    def __repr__(self) -> str:
        return f"ReadOnlyMapping({self._data!r})"

    def __reduce__(self) -> tuple[type[ReadOnlyMapping], tuple[dict[str, Any]], tuple[str, ...]]:
        # NumPy copies lose the write flag: name the read-only arrays to clear it again
        frozen = tuple(
            key
            for key, value in self._data.items()
            if isinstance(value, np.ndarray) and not value.flags.writeable
        )
        return (type(self), (self._data,), frozen)

    def __setstate__(self, frozen: tuple[str, ...]) -> None:
        for key in frozen:
            self._data[key].setflags(write=False)


@dataclasses.dataclass(frozen=True, eq=False)
class ProblemSpec:
    """What an agent is told about a problem: everything public, nothing of the truth.

    Fields a problem does not use are ``None``. Arrays are float64 copies with the write flag
    cleared, so an agent cannot change the problem it was handed. The truth (parameters, means,
    the correct answer, gaps) is never here: it is revealed in the environment's final ``info``.
    Fields are checked at construction (and by :meth:`replace`): the setting with its δ or
    budget, positive sizes, K×h finite features, noise and ε ≥ 0, a mapping of extras; a bad
    one raises :class:`~bandit_envs.errors.InvalidParameterError`.

    Attributes:
        task: ``"best_arm"``, ``"pareto_set"``, ``"all_eps_good"``, ``"constrained_mixed"``, ...
        setting: ``"fixed_confidence"`` (δ given, the agent decides when to stop) or
            ``"fixed_budget"`` (``budget`` pulls at most, then an answer is due).
        n_arms: K, the number of arms (actions ``0 .. K-1``).
        n_items: the size of the answer universe (``K`` except for constrained mixed arms).
        outcome_dim: m, the length of one outcome vector.
        structure: the reward structure the environment guarantees: ``"linear"``, ``"glm"``,
            ``"misspecified_linear"``, ... Agents assuming a structure check it.
        features: K×h arm features (read-only), or ``None`` for unstructured problems.
        noise_std: the noise standard deviation σ (a float, or one per output).
        delta: the confidence parameter δ (fixed confidence), else ``None``.
        budget: the number of pulls T (fixed budget), else ``None``.
        max_samples: the safety cap of a fixed-confidence episode, else ``None``.
        epsilon: the slack of ε-tasks, else ``None``.
        cost_thresholds: thresholds of the constrained task, else ``None``.
        link: the link function of a GLM (``"logistic"``, ...), else ``None``.
        misspecification: the bound L_m on the deviation from linearity, if told, else ``None``.
        name: the instance's name (usually the environment id).
        extras: anything else the task makes public (a read-only :class:`ReadOnlyMapping`).

    """

    task: str
    setting: str
    n_arms: int
    n_items: int
    outcome_dim: int
    structure: str = "none"
    features: np.ndarray | None = None
    noise_std: float | np.ndarray | None = None
    delta: float | None = None
    budget: int | None = None
    max_samples: int | None = None
    epsilon: float | None = None
    cost_thresholds: np.ndarray | None = None
    link: str | None = None
    misspecification: float | None = None
    name: str | None = None
    extras: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        who = "ProblemSpec"
        if self.setting not in SETTINGS:
            raise InvalidParameterError(
                f"{who}: setting must be one of {SETTINGS}; got {self.setting!r}."
            )
        if not isinstance(self.task, str) or not self.task:
            raise InvalidParameterError(
                f"{who}: task must be a non-empty string such as 'best_arm'; got {self.task!r}."
            )
        for name in ("n_arms", "n_items", "outcome_dim"):
            object.__setattr__(self, name, check_positive_int(getattr(self, name), name, who))
        self._check_setting(who)
        if self.features is not None:
            features = check_matrix(self.features, "features", who, ndim=2, rows=self.n_arms)
            object.__setattr__(self, "features", _frozen_array(features))
        if self.cost_thresholds is not None:
            thresholds = _frozen_array(self.cost_thresholds)
            if thresholds.ndim != 1 or not np.isfinite(thresholds).all():
                raise InvalidParameterError(
                    f"{who}: cost_thresholds must be a 1-D array of finite floats; got "
                    f"{self.cost_thresholds!r}."
                )
            object.__setattr__(self, "cost_thresholds", thresholds)
        if isinstance(self.noise_std, np.ndarray) or isinstance(self.noise_std, (list, tuple)):
            noise = check_matrix(self.noise_std, "noise_std", who, ndim=1)
            if (noise < 0).any():
                raise InvalidParameterError(
                    f"{who}: noise_std must be >= 0; got {self.noise_std!r}."
                )
            object.__setattr__(self, "noise_std", _frozen_array(noise))
        elif self.noise_std is not None:
            check_nonnegative(self.noise_std, "noise_std", who)
        for name in ("epsilon", "misspecification"):
            if getattr(self, name) is not None:
                check_nonnegative(getattr(self, name), name, who)
        if not isinstance(self.extras, Mapping):
            raise InvalidParameterError(
                f"{who}: extras must be a mapping (e.g. a dict); got {self.extras!r}."
            )
        object.__setattr__(self, "extras", ReadOnlyMapping(self.extras))

    def _check_setting(self, who: str) -> None:
        """δ (and the safety cap) in fixed confidence, the budget in fixed budget."""
        if self.setting == "fixed_confidence":
            if self.delta is None or self.budget is not None:
                raise InvalidParameterError(
                    f"{who}: setting 'fixed_confidence' needs delta (a float in (0, 1)) and no "
                    f"budget; got delta={self.delta!r} and budget={self.budget!r}."
                )
            check_probability(self.delta, "delta", who)
            if self.max_samples is not None:
                check_positive_int(self.max_samples, "max_samples", who)
            return
        if self.budget is None or self.delta is not None or self.max_samples is not None:
            raise InvalidParameterError(
                f"{who}: setting 'fixed_budget' needs budget (an integer >= 1) and neither delta "
                f"nor max_samples; got budget={self.budget!r}, delta={self.delta!r} and "
                f"max_samples={self.max_samples!r}."
            )
        check_positive_int(self.budget, "budget", who)

    @property
    def feature_dim(self) -> int | None:
        """h, the number of feature columns, or ``None`` without features."""
        return None if self.features is None else int(self.features.shape[1])

    @property
    def fixed_confidence(self) -> bool:
        """Whether the agent decides when to stop (δ given)."""
        return self.setting == "fixed_confidence"

    @property
    def fixed_budget(self) -> bool:
        """Whether a budget of pulls is imposed."""
        return self.setting == "fixed_budget"

    def replace(self, **changes: Any) -> ProblemSpec:
        """Return a copy with some fields changed (e.g. a different δ), validated again."""
        fields = [f.name for f in dataclasses.fields(self)]
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise InvalidParameterError(
                f"ProblemSpec.replace: no field(s) {unknown}; the fields are {fields}."
            )
        return dataclasses.replace(self, **changes)

    def __reduce__(self) -> tuple[type[ProblemSpec], tuple[Any, ...]]:
        """Pickle and deep-copy through the constructor: the copy is checked and read-only too."""
        return (type(self), tuple(getattr(self, f.name) for f in dataclasses.fields(self)))

    def __repr__(self) -> str:
        shown = [f"task={self.task!r}", f"setting={self.setting!r}", f"n_arms={self.n_arms}"]
        if self.features is not None:
            shown.append(f"features=<{self.features.shape[0]}x{self.features.shape[1]}>")
        for key in ("delta", "budget", "epsilon", "noise_std", "structure", "name"):
            value = getattr(self, key)
            if value is not None:
                shown.append(f"{key}={value!r}")
        return f"ProblemSpec({', '.join(shown)})"


@dataclasses.dataclass(frozen=True)
class Grade:
    """The grading of an answer: exact correctness plus set-overlap metrics."""

    correct: bool
    precision: float
    recall: float
    f1: float


def set_metrics(answer: Answer, truth: Answer) -> tuple[float, float, float]:
    """Precision, recall and F1 of ``answer`` against ``truth`` (empty vs empty is perfect)."""
    hits = len(answer & truth)
    precision = hits / len(answer) if answer else float(not truth)
    recall = hits / len(truth) if truth else float(not answer)
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1


def grade(answer: Answer, truth: Answer, correct: bool | None = None) -> Grade:
    """Grade ``answer`` against ``truth``; correctness is exact set equality unless given."""
    precision, recall, f1 = set_metrics(answer, truth)
    return Grade(
        correct=(answer == truth) if correct is None else bool(correct),
        precision=precision,
        recall=recall,
        f1=f1,
    )
