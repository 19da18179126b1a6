"""The environment ids of the suite: each factory declares its id, next to its code.

A family module in :mod:`bandit_envs.envs` decorates each factory with :func:`env_factory`,
which records an :class:`EnvEntry` (the id, its family and task, what it reproduces, its default
setting, its designated default agent, the data sets it reads, small keywords for quick tests)
and checks the keywords
``gym.make`` passes. :func:`env_entries` imports every module of the folder and returns the
entries; :func:`register_envs` registers them with Gymnasium (``import bandit_envs`` does it).
Keyword defaults are those of the factory's signature (:meth:`EnvEntry.keywords`), so they are
written once. :func:`probe_problem` does the same for the small problems ``agents.check_agent``
runs agents on. A new family is therefore one new module here, plus its task and model.

Ids read ``<Structure><Task>-<Instance>-v<k>``; ``gym.make("bandit_envs:<id>")`` imports this
package first.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import gymnasium as gym

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.errors import InvalidParameterError

__all__ = [
    "EnvEntry",
    "Probe",
    "env_entries",
    "env_factory",
    "probe_problem",
    "probe_problems",
    "refuse_time_limit",
    "register_envs",
]

_F = TypeVar("_F", bound=Callable[..., Any])

#: keywords of every id that choose the setting (see :func:`env_factory`).
_SETTING_KEYWORDS = ("delta", "budget")


@dataclasses.dataclass(frozen=True)
class EnvEntry:
    """A catalogue entry: an id, its factory, and what it reproduces.

    Attributes:
        id: the registered id.
        factory: the decorated factory (``gym.make`` calls it).
        family: the problem family, e.g. ``"linear best arm"``.
        task: the task name of its problems (``ProblemSpec.task``).
        summary: what the instance is, in a sentence or two (keyword defaults are not repeated
            here: :meth:`keywords` reads them from the signature).
        source: the paper (and section) the instance comes from, or ``"-"``.
        datasets: real data sets the id reads (names of :mod:`bandit_envs.data`).
        default_delta: the confidence δ used when neither ``delta`` nor ``budget`` is given, or
            when only ``max_samples`` is (fixed confidence by default when ``default_budget``
            is None).
        default_budget: the budget used when neither ``delta`` nor ``budget`` is given (fixed
            budget by default), a number or a function of the factory's bound arguments.
        quick: keywords of a small, fast instance for tests (the zoo matrix test).
        quick_budget: a fixed budget large enough for every agent on the quick instance.
        default_agent: the name of a catalogue agent (``registry.catalogue.list_agents()``)
            that, built with its own defaults, solves the id at its defaults: it stops (or uses
            up the default budget) with the right answer, within the default ``max_samples``.
            The paper's own agent where the id reproduces a paper. ``None`` for an id that
            designates none (every id of the suite designates one; a test checks it).
    """

    id: str
    factory: Callable[..., PureExplorationEnv]
    family: str
    task: str
    summary: str
    source: str
    datasets: tuple[str, ...] = ()
    default_delta: float | None = None
    default_budget: int | Callable[[Mapping[str, Any]], int] | None = None
    quick: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    quick_budget: int = 2000
    default_agent: str | None = None

    @property
    def entry_point(self) -> str:
        """``"module:function"`` of the factory, as Gymnasium's registry wants it."""
        return f"{self.factory.__module__}:{self.factory.__name__}"

    def keywords(self) -> dict[str, Any]:
        """The id's own keywords and their defaults, read from the factory's signature.

        ``delta``/``budget`` are left out (see :meth:`default_setting`), as are the
        environment's keywords every id accepts (``max_samples``, ``sample_cost``, ...).
        A keyword without a default (required) maps to ``inspect.Parameter.empty``.
        """
        params = inspect.signature(self.factory).parameters.values()
        return {
            p.name: p.default
            for p in params
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name not in _SETTING_KEYWORDS
        }

    def default_setting(self) -> dict[str, Any]:
        """``{"delta": δ}`` or ``{"budget": T}``: the setting at the default keywords."""
        if self.default_budget is not None:
            budget = self.default_budget
            if callable(budget):
                budget = budget({k: v for k, v in self.keywords().items()})
            return {"budget": budget}
        return {"delta": self.default_delta}


_ENTRIES: dict[str, EnvEntry] = {}


@functools.cache
def _env_keywords() -> tuple[str, ...]:
    """The keywords every id forwards to :class:`~bandit_envs.PureExplorationEnv`."""
    params = inspect.signature(PureExplorationEnv.__init__).parameters.values()
    return tuple(
        p.name
        for p in params
        if p.kind is p.KEYWORD_ONLY and p.name not in ("name", "instance_info", "delta", "budget")
    )


def env_factory(
    env_id: str,
    *,
    family: str,
    task: str,
    summary: str,
    source: str = "-",
    default_delta: float | None = None,
    default_budget: int | Callable[[Mapping[str, Any]], int] | None = None,
    datasets: tuple[str, ...] = (),
    quick: Mapping[str, Any] | None = None,
    quick_budget: int = 2000,
    default_agent: str | None = None,
) -> Callable[[_F], _F]:
    """Declare ``env_id``: decorate its factory with its catalogue facts (see :class:`EnvEntry`).

    The decorated factory (i) refuses an unknown ``gym.make`` keyword with
    :class:`InvalidParameterError` naming the id, the nearest valid keyword and the full list,
    instead of Python's bare ``TypeError``; (ii) fills in the default setting: with neither
    ``delta=`` nor ``budget=``, ``delta=default_delta`` (fixed confidence) or, when
    ``default_budget`` is set, ``budget=default_budget`` (fixed budget) — in that case
    ``max_samples=`` alone selects fixed confidence at ``default_delta``. The factory itself
    takes ``delta`` and ``budget`` keywords (default None) and passes them to
    :class:`~bandit_envs.PureExplorationEnv`.

    ``default_agent`` names the agent that solves the id at its defaults (see
    :class:`EnvEntry`); it is a name only, checked against the agent catalogue by the tests
    (this package does not import the agents).

    Raises:
        ValueError: the id is declared twice, neither default is given, or ``default_agent``
            is not a non-empty string.
    """
    if default_delta is None and default_budget is None:
        raise ValueError(f"{env_id}: give default_delta or default_budget.")
    if default_agent is not None and (not isinstance(default_agent, str) or not default_agent):
        raise ValueError(
            f"{env_id}: default_agent must be an agent name such as 'LinFACTG'; got "
            f"{default_agent!r}."
        )

    def decorate(factory: _F) -> _F:
        signature = inspect.signature(factory)
        own = [
            p.name
            for p in signature.parameters.values()
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        ]

        @functools.wraps(factory)
        def make(*args: Any, **kwargs: Any) -> Any:
            valid = own + [k for k in _env_keywords() if k not in own]
            unknown = sorted(set(kwargs) - set(valid))
            if unknown:
                close = difflib.get_close_matches(unknown[0], valid, n=1, cutoff=0.6)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                names = ", ".join(repr(k) for k in unknown)
                raise InvalidParameterError(
                    f"{env_id}: unknown keyword{'s' if len(unknown) > 1 else ''} {names}.{hint} "
                    f"Valid keywords: {', '.join(valid)}."
                )
            if kwargs.get("delta") is None and kwargs.get("budget") is None:
                if default_budget is None or kwargs.get("max_samples") is not None:
                    kwargs["delta"] = default_delta
                else:
                    bound = signature.bind_partial(*args, **kwargs)
                    bound.apply_defaults()
                    budget = default_budget
                    kwargs["budget"] = budget(bound.arguments) if callable(budget) else budget
            return factory(*args, **kwargs)

        where = f"{factory.__module__}:{factory.__name__}"
        if env_id in _ENTRIES and _ENTRIES[env_id].entry_point != where:
            raise ValueError(f"the id {env_id!r} is declared twice ({where}).")
        _ENTRIES[env_id] = EnvEntry(
            id=env_id,
            factory=make,
            family=family,
            task=task,
            summary=summary,
            source=source,
            datasets=tuple(datasets),
            default_delta=default_delta,
            default_budget=default_budget,
            quick=dict(quick or {}),
            quick_budget=quick_budget,
            default_agent=default_agent,
        )
        return make  # type: ignore[return-value]

    return decorate


# --------------------------------------------------------------------------- probe problems


@dataclasses.dataclass(frozen=True)
class Probe:
    """A small problem ``agents.check_agent`` runs agents on.

    Attributes:
        name: what it is, e.g. ``"rank-deficient features (K=4, h=3, rank 2)"``.
        task: the task of its problems.
        build: ``build(**setting)`` returns the environment for setting keywords such as
            ``delta=0.1, max_samples=20000`` or ``budget=60``.
        easy: whether a correct fixed-confidence agent must stop on it with the right answer.
    """

    name: str
    task: str
    build: Callable[..., PureExplorationEnv]
    easy: bool = False


_PROBES: list[Probe] = []


def probe_problem(task: str, name: str, *, easy: bool = False) -> Callable[[_F], _F]:
    """Declare the decorated ``build(**setting)`` function as a probe problem of ``task``."""

    def decorate(build: _F) -> _F:
        if not any(p.task == task and p.name == name for p in _PROBES):
            _PROBES.append(Probe(name=name, task=task, build=build, easy=easy))
        return build

    return decorate


# --------------------------------------------------------------------------- discovery


#: the order in which the catalogue lists the families; a new family module follows them.
_FAMILY_ORDER = (
    "linear_best_arm",
    "pareto_set",
    "all_eps_good",
    "misspecified_linear",
    "generalized_linear",
    "constrained_mixed",
)


@functools.cache
def _import_family_modules() -> None:
    """Import every module of :mod:`bandit_envs.envs`: their decorators fill the catalogue."""
    package = importlib.import_module("bandit_envs.envs")
    names = [
        info.name
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_") and info.name != "registration"
    ]
    rank = {name: i for i, name in enumerate(_FAMILY_ORDER)}
    for name in sorted(names, key=lambda n: (rank.get(n, len(rank)), n)):
        importlib.import_module(f"{package.__name__}.{name}")


def env_entries() -> tuple[EnvEntry, ...]:
    """Every declared id, by family and order of declaration."""
    _import_family_modules()
    return tuple(_ENTRIES.values())


def probe_problems(task: str | None = None) -> list[Probe]:
    """The probe problems of ``task`` (all of them when None), in order of declaration."""
    _import_family_modules()
    return [p for p in _PROBES if task is None or p.task == task]


# --------------------------------------------------------------------------- Gymnasium


def refuse_time_limit(env: gym.Env) -> gym.Env:
    """Refuse a ``gym.make(id, max_episode_steps=...)``; return ``env`` unchanged otherwise.

    Registered as each id's one additional wrapper (Gymnasium applies it after its own
    ``TimeLimit``), it wraps nothing: it only looks at the wrappers below it. A pure-exploration
    episode ends when the agent stops, at the fixed budget (``budget=``) or, in fixed
    confidence, at the ``max_samples=`` safety cap, each graded. A ``TimeLimit`` would instead
    truncate the episode with no answer and no grading, silently.

    Args:
        env: the environment ``gym.make`` has built and wrapped so far.

    Raises:
        InvalidParameterError: ``env`` is wrapped in a ``TimeLimit``.

    """
    layer = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, gym.wrappers.TimeLimit):
            name = getattr(env.unwrapped, "name", "this environment")
            steps = layer._max_episode_steps
            env.close()
            raise InvalidParameterError(
                f"{name}: gym.make does not take max_episode_steps (got {steps!r}): a "
                f"pure-exploration episode ends when the agent stops, or at the budget= of "
                f"fixed budget, or at the max_samples= safety cap of fixed confidence, always "
                f"graded; use budget= or max_samples= instead."
            )
        layer = layer.env
    return env


#: the wrapper spec of :func:`refuse_time_limit`, added to every id's ``EnvSpec``.
_REFUSE_TIME_LIMIT = gym.envs.registration.WrapperSpec(
    name="RefuseTimeLimit",
    entry_point="bandit_envs.envs.registration:refuse_time_limit",
    kwargs={},
)


def register_envs() -> None:
    """Register every id with Gymnasium (idempotent)."""
    for entry in env_entries():
        if entry.id not in gym.registry:
            gym.register(
                id=entry.id,
                entry_point=entry.entry_point,
                additional_wrappers=(_REFUSE_TIME_LIMIT,),
            )


def __getattr__(name: str) -> Any:
    # ``ENVS``, the tuple of entries of version 0.1, is now computed: env_entries().
    if name == "ENVS":
        return env_entries()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
