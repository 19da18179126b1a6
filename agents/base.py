"""An optional base class for agents: parameters, cloning, bookkeeping, and the catalogue card.

Nothing requires it — any object with ``reset / select / observe / recommend`` is an agent —
but zoo agents share it so that they all (i) store only hyper-parameters in ``__init__`` and
validate them at ``reset`` against a declared constraints table (the scikit-learn convention),
(ii) offer ``get_params``, ``clone`` and a readable ``repr``, and (iii) keep pull counts and
outcome sums the same way. A class that sets :attr:`BaseAgent.card` joins the catalogue: the
registry discovers it, so a new agent is one new module.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from agents.common.params import Constraint, Rule, validate_parameters
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities, compatibility
from bandit_envs.errors import AgentProtocolError, IncompatibleAgentError, InvalidParameterError


@dataclasses.dataclass(frozen=True)
class Heuristic:
    """A parameter value for which an agent's stopping rule has no δ-correctness proof.

    Attributes:
        param: the constructor parameter.
        applies: whether a value of it makes the rule heuristic.
        note: what the heuristic is, in a few words (shown by the δ-audit and the catalogue).
    """

    param: str
    applies: Callable[[Any], bool]
    note: str


@dataclasses.dataclass(frozen=True)
class AgentCard:
    """The catalogue facts of an agent class, written once next to its code.

    Attributes:
        summary: what the agent does, in one or two sentences.
        paper: the paper it implements (authors, venue and year, algorithm or section).
        heuristics: parameter values that make its stopping rule a published heuristic rather
            than a proven δ-correct rule (the δ-audit marks them; see :meth:`heuristic_note`).
        quick: hyper-parameters for fast test runs (the zoo matrix test); usually empty.
    """

    summary: str
    paper: str
    heuristics: tuple[Heuristic, ...] = ()
    quick: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def heuristic_note(self, params: Mapping[str, Any]) -> str | None:
        """Why the agent with ``params`` (all of its parameters) is not proven δ-correct, or None.

        Args:
            params: every constructor parameter with its value.

        Returns:
            ``"<param>=<value>: <note>"`` for each heuristic that applies, joined by ``"; "``.
        """
        notes = [
            f"{rule.param}={params[rule.param]!r}: {rule.note}"
            for rule in self.heuristics
            if rule.param in params and rule.applies(params[rule.param])
        ]
        return "; ".join(notes) or None


class BaseAgent:
    """Shared bookkeeping for zoo agents.

    Subclasses set :attr:`capabilities`, store their hyper-parameters unchanged in
    ``__init__``, declare what each may be in :attr:`parameters` (and :attr:`parameter_rules`
    for rules over several), and implement :meth:`select` and :meth:`recommend`; hooks
    :meth:`_on_reset`, :meth:`_on_observe` and :meth:`_on_observe_batch` are optional. Setting
    :attr:`card` puts the class in the catalogue.

    After ``reset`` the following are available: ``spec`` (the ProblemSpec), ``rng`` (the
    episode's generator), ``counts`` (pulls per arm), ``sums`` (per-arm sums of outcomes,
    shape (K, m)) and ``t`` (pulls so far).
    """

    capabilities: ClassVar[AgentCapabilities]
    #: the catalogue facts; only classes that set it themselves are catalogue agents.
    card: ClassVar[AgentCard | None] = None
    #: ``{parameter: constraint}``, checked at every ``reset`` (:mod:`agents.common.params`).
    parameters: ClassVar[Mapping[str, Constraint]] = {}
    #: rules over several parameters, checked after :attr:`parameters`.
    parameter_rules: ClassVar[tuple[Rule, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = set(cls.parameters) | {p for rule in cls.parameter_rules for p in rule.params}
        if not declared:
            return
        known = set(cls._param_names())
        unknown = sorted(declared - known)
        if unknown:
            raise TypeError(
                f"{cls.__name__}: the constraints name {unknown}, which are not parameters of "
                f"__init__ ({sorted(known)})."
            )

    @property
    def name(self) -> str:
        """The agent's name (its class name)."""
        return type(self).__name__

    # ------------------------------------------------------------- parameters (sklearn style)

    @classmethod
    def _param_names(cls) -> list[str]:
        if cls.__init__ is object.__init__:  # no hyper-parameters
            return []
        signature = inspect.signature(cls.__init__)
        names = []
        for p in signature.parameters.values():
            if p.name == "self":
                continue
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"{cls.__name__}.__init__ must not take *args or **kwargs.")
            names.append(p.name)
        return names

    def get_params(self) -> dict[str, Any]:
        """The constructor's arguments, as stored on the instance."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> BaseAgent:
        """Change hyper-parameters; unknown names raise with the list of valid ones."""
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise InvalidParameterError(
                    f"{self.name}: unknown parameter {key!r}; valid parameters are {valid}."
                )
            setattr(self, key, value)
        return self

    def clone(self) -> BaseAgent:
        """A fresh, un-reset agent with the same hyper-parameters."""
        return type(self)(**self.get_params())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{self.name}({args})"

    # ------------------------------------------------------------- protocol

    def reset(self, spec: ProblemSpec, rng: np.random.Generator) -> None:
        """Start an episode: check compatibility and parameters, clear the bookkeeping."""
        ok, why = compatibility(self, spec)
        if not ok:
            raise IncompatibleAgentError(why)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"{self.name}.reset: rng must be a numpy.random.Generator; got {type(rng)}."
            )
        validate_parameters(self.name, self.get_params(), self.parameters, self.parameter_rules)
        self.spec = spec
        self.rng = rng
        self.n_arms = spec.n_arms
        self.counts = np.zeros(spec.n_arms, dtype=np.int64)
        self.sums = np.zeros((spec.n_arms, spec.outcome_dim), dtype=np.float64)
        self.t = 0
        self._on_reset(spec)

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Record one outcome of ``arm``."""
        self._require_reset("observe")
        self.counts[arm] += 1
        self.sums[arm] += outcome
        self.t += 1
        self._on_observe(arm, outcome)

    def observe_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        """Record a batch: pull counts per arm and per-arm sums of outcomes."""
        self._require_reset("observe_batch")
        self.counts += counts
        self.sums += sums
        self.t += int(np.sum(counts))
        self._on_observe_batch(counts, sums)

    def select(self) -> int | None:
        """The next arm, or None to stop (subclasses implement it)."""
        raise NotImplementedError

    def recommend(self) -> Answer:
        """The current answer (subclasses implement it)."""
        raise NotImplementedError

    # ------------------------------------------------------------- hooks and helpers

    def _on_reset(self, spec: ProblemSpec) -> None:
        """Validate hyper-parameters against ``spec`` and set up per-episode state."""

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        """Update per-episode state after one pull (counts and sums already updated)."""

    def _on_observe_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        """Update per-episode state after a batch (counts and sums already updated)."""

    def _require_reset(self, method: str) -> None:
        if not hasattr(self, "spec"):
            raise AgentProtocolError(f"{self.name}: call reset(spec, rng) before {method}().")

    def _require_delta(self) -> float:
        """The problem's δ, for the code paths of the fixed-confidence setting."""
        delta = self.spec.delta
        if delta is None:
            raise AgentProtocolError(
                f"{self.name}: the problem gives no delta (it is not a fixed-confidence problem)."
            )
        return delta

    def _require_budget(self) -> int:
        """The problem's budget T, for the code paths of the fixed-budget setting."""
        budget = self.spec.budget
        if budget is None:
            raise AgentProtocolError(
                f"{self.name}: the problem gives no budget (it is not a fixed-budget problem)."
            )
        return budget
