"""Shared bookkeeping of phase-based agents: a planned allocation pulled one at a time or at once.

An agent that plans a phase (pull counts per arm) and then acts on the phase's data only needs
the same four protocol methods whichever path the runner uses: the one-pull path walks through
the allocation arm by arm, the batch path hands it over whole, and both finish the phase at the
same sample count — which makes the two paths exactly equivalent.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class _PhasedAgent(Protocol):
    """What :class:`PhaseTracking`'s methods need from the agent that mixes it in."""

    _planned: bool
    _remaining: np.ndarray
    _left: int
    _cursor: int
    _pcounts: np.ndarray
    _psums: np.ndarray

    @property
    def done(self) -> bool:
        """Whether no phase is left."""
        ...

    def _require_reset(self, method: str) -> None: ...

    def _plan_phase(self) -> None: ...

    def _finish_phase(self) -> None: ...


class PhaseTracking:
    """Mixin for agents built on :class:`~agents.base.BaseAgent` that pull planned phases.

    The agent provides ``done`` (no phase left), ``_planned`` (a phase is under way),
    ``_plan_phase()`` (sets ``_remaining`` (int counts per arm), ``_left`` (their total),
    ``_cursor`` = 0, ``_pcounts`` and ``_psums`` (the phase's own data), ``_planned`` = True) and
    ``_finish_phase()`` (uses the phase's data, sets ``_planned`` = False).

    ``_psums`` of shape ``(K,)`` accumulates the first output of each outcome (scalar agents);
    of shape ``(K, d)`` it accumulates whole outcome vectors (multi-output agents, e.g. GEGE).
    """

    def _start_phases(self, n_arms: int, outcome_dim: int | None = None) -> None:
        """Empty phase bookkeeping for a new episode.

        ``outcome_dim`` None keeps scalar phase sums (first output); an int keeps vector sums.
        """
        self._planned = False
        self._remaining = np.zeros(n_arms, dtype=np.int64)
        self._left = 0
        self._cursor = 0
        self._pcounts = np.zeros(n_arms, dtype=np.int64)
        self._psums = np.zeros(n_arms if outcome_dim is None else (n_arms, outcome_dim))

    def select(self: _PhasedAgent) -> int | None:
        """The next arm of the current phase's allocation, or None when no phase is left."""
        self._require_reset("select")
        if self.done:
            return None
        if not self._planned:
            self._plan_phase()
        while self._remaining[self._cursor] == 0:
            self._cursor += 1
        return self._cursor

    def _on_observe(self: _PhasedAgent, arm: int, outcome: np.ndarray) -> None:
        self._pcounts[arm] += 1
        self._psums[arm] += outcome[0] if self._psums.ndim == 1 else outcome
        if self._remaining[arm] > 0:
            self._remaining[arm] -= 1
            self._left -= 1
        if self._planned and self._left == 0:
            self._finish_phase()

    def select_batch(self: _PhasedAgent) -> np.ndarray | None:
        """What is left of the current phase's allocation, or None when no phase is left."""
        self._require_reset("select_batch")
        if self.done:
            return None
        if not self._planned:
            self._plan_phase()
        return self._remaining.copy()

    def _on_observe_batch(self: _PhasedAgent, counts: np.ndarray, sums: np.ndarray) -> None:
        self._pcounts += counts
        self._psums += sums[:, 0] if self._psums.ndim == 1 else sums
        taken = np.minimum(counts, self._remaining)
        self._remaining = self._remaining - taken
        self._left -= int(taken.sum())
        if self._planned and self._left == 0:
            self._finish_phase()
