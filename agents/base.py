"""An optional base class for agents: parameters, cloning and per-episode bookkeeping.

Nothing requires it — any object with ``reset / select / observe / recommend`` is an agent —
but zoo agents share it so that they all (i) store only hyper-parameters in ``__init__`` and
validate them at ``reset`` (the scikit-learn convention), (ii) offer ``get_params``, ``clone``
and a readable ``repr``, and (iii) keep pull counts and outcome sums the same way.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

import numpy as np

from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities, compatibility
from bandit_envs.errors import AgentProtocolError, IncompatibleAgentError, InvalidParameterError


class BaseAgent:
    """Shared bookkeeping for zoo agents.

    Subclasses set :attr:`capabilities`, store their hyper-parameters unchanged in
    ``__init__``, and implement :meth:`select` and :meth:`recommend`; hooks
    :meth:`_on_reset`, :meth:`_on_observe` and :meth:`_on_observe_batch` are optional.

    After ``reset`` the following are available: ``spec`` (the ProblemSpec), ``rng`` (the
    episode's generator), ``counts`` (pulls per arm), ``sums`` (per-arm sums of outcomes,
    shape (K, m)) and ``t`` (pulls so far).
    """

    capabilities: ClassVar[AgentCapabilities]

    @property
    def name(self) -> str:
        """The agent's name (its class name)."""
        return type(self).__name__

    # ------------------------------------------------------------- parameters (sklearn style)

    @classmethod
    def _param_names(cls) -> list[str]:
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
