"""SFSR, SFSR-L and USLP: constrained best *mixed* arm identification with a fixed budget.

Tang, Jain, Nayyar & Nuzzo, "Pure Exploration for Constrained Best Mixed Arm Identification with
a Fixed Budget" (arXiv 2405.15090, 2024). The answer is the optimal basis ``I*`` of the
standard-form LP over ``K + L`` items (arms ``0..K-1``, slack of constraint ``l`` = item
``K + l``); the LP math (basis enumeration, intersection values, reduced costs) lives in
:mod:`bandit_envs.theory.lp` and is shared with the environments' ground truth.

* :class:`SFSR` — Score Function-based Successive Reject (Algorithm 1): the successive-rejects
  schedule of eq. (7) over the ``K + L`` items; after each round the item with the lowest score
  leaves. ``score="iv"`` is the intersection value (eq. 6), ``score="lagrangian"`` the reduced
  cost at the empirical dual (eq. 8, SFSR-L).
* :class:`SFSRL` — SFSR with the Lagrangian score, under its own name.
* :class:`USLP` — uniform sampling, then the plug-in LP (the paper's baseline, Sec. 4.3 and
  Sec. 5).

The schedule and the per-round pulls are deterministic, so both paths of the runner (one pull at
a time, or one batch per round) see the same rounds; with the exact batch path an episode costs
K − 1 batches, whatever the budget.
"""

from __future__ import annotations

import numpy as np

from agents.base import AgentCard, BaseAgent
from agents.common.params import Choice
from agents.common.phases import PhaseTracking
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory import lp

__all__ = ["SFSR", "SFSRL", "USLP", "psi", "sfsr_schedule"]

SCORES = ("iv", "lagrangian")
TIE_BREAKS = ("random", "lowest_index")
DUALS = ("basis", "highs")


def psi(n_unknown: int, n_constraints: int) -> float:
    """``Ψ(K0, L) = Σ_{j=1}^{K0} 1 / max(2, j − L)`` (Tang et al. 2024, eq. (7)).

    With ``L = 0`` this is Audibert & Bubeck's ``log-bar(K) = 1/2 + Σ_{i=2}^{K} 1/i``.

    Args:
        n_unknown: ``K0``, the number of arms with unknown means (≥ 1).
        n_constraints: ``L``, the number of cost constraints (≥ 0).

    Examples:
        >>> round(psi(16, 1), 5), round(psi(24, 2), 5), round(psi(16, 0), 5)
        (3.31823, 4.19081, 2.88073)

    """
    j = np.arange(1, n_unknown + 1)
    return float(np.sum(1.0 / np.maximum(2, j - n_constraints)))


def sfsr_schedule(budget: int, n_arms: int, n_unknown: int, n_constraints: int) -> np.ndarray:
    """Cumulative pulls per surviving unknown arm after each round, ``n_1..n_{K−1}`` (eq. (7)).

    ``n_k = ⌈(N − K0) / (Ψ(K0, L) · (K + 1 − k))⌉``; round ``k`` pulls each surviving unknown arm
    ``T_k = n_k − n_{k−1}`` times (``n_0 = 0``; ``T_k`` may be 0). The denominators use ``K``
    (all arms), ``Ψ`` uses ``K0`` (the number of unknown arms). Proposition 1: the total never
    exceeds ``N``.

    Args:
        budget: ``N`` (> ``K0``).
        n_arms: ``K`` (≥ 2).
        n_unknown: ``K0`` (1 ≤ K0 ≤ K).
        n_constraints: ``L`` (≥ 0).

    Returns:
        int64 array of length ``K − 1``, non-decreasing.

    Examples:
        >>> sfsr_schedule(1000, 16, 16, 1).tolist()
        [19, 20, 22, 23, 25, 27, 30, 33, 38, 43, 50, 60, 75, 99, 149]

    """
    k = np.arange(1, n_arms)
    # The ratio is evaluated as one float division, as in eq. (7); a tiny relative guard keeps an
    # exactly-integral ratio (rounded up by one ulp) from gaining a pull.
    ratio = (budget - n_unknown) / (psi(n_unknown, n_constraints) * (n_arms + 1 - k))
    return np.ceil(ratio * (1.0 - 1e-12)).astype(np.int64)


class _ConstrainedAgent(BaseAgent):
    """Shared set-up of the constrained mixed-arm agents: the empirical standard form.

    Keeps ``μ̂`` and ``Â`` (:func:`bandit_envs.theory.lp.standard_form`) with the known arms' true
    columns (``ProblemSpec.extras``) and the unknown arms' running means written in place (the
    empirical quantities of eqs. (4)–(5): means over *all* pulls so far, not per round).
    """

    capabilities = AgentCapabilities(
        tasks=frozenset({"constrained_mixed"}),
        settings=frozenset({"fixed_budget"}),
        outcome_dims="any",
        batch=True,
    )

    def _setup_lp(self, spec: ProblemSpec) -> None:
        cbar = np.asarray(spec.cost_thresholds, dtype=float).reshape(-1)
        k, n_cost = spec.n_arms, cbar.size
        if spec.outcome_dim != n_cost + 1:
            raise InvalidParameterError(
                f"{self.name}: outcomes must be (reward, cost_1..cost_L) with L = {n_cost} "
                f"thresholds; the problem has outcome_dim {spec.outcome_dim}."
            )
        known = tuple(int(a) for a in spec.extras.get("known_arms", ()))
        known_means = np.asarray(spec.extras.get("known_means", np.zeros((0, n_cost + 1))))
        rewards, costs = np.zeros(k), np.zeros((n_cost, k))
        if known:
            rewards[list(known)] = known_means[:, 0]
            costs[:, list(known)] = known_means[:, 1:].T
        self._mu, self._a, self._b = lp.standard_form(rewards, costs, cbar)
        self._k, self._n_cost = k, n_cost
        self._unknown = np.ones(k, dtype=bool)
        self._unknown[list(known)] = False
        self._n_unknown = int(self._unknown.sum())

    def _refresh_means(self) -> None:
        """Write the running means of the pulled unknown arms into ``μ̂`` and ``Â``."""
        seen = self._unknown & (self.counts > 0)
        means = self.sums[seen] / self.counts[seen, None]
        self._mu[: self._k][seen] = means[:, 0]
        self._a[: self._n_cost, : self._k][:, seen] = means[:, 1:].T

    def _usable(self, alive: np.ndarray) -> np.ndarray:
        """``alive`` without the unknown arms that have no data yet."""
        usable = alive.copy()
        usable[: self._k] &= ~self._unknown | (self.counts > 0)
        return usable


class SFSR(PhaseTracking, _ConstrainedAgent):
    """Score Function-based Successive Reject (Tang, Jain, Nayyar & Nuzzo 2024, Algorithm 1).

    ``X ← [K + L]``; for ``k = 1..K−1``: pull every unknown arm of ``X`` ``T_k`` times (eq. (7),
    :func:`sfsr_schedule`), score every item of ``X`` on the empirical LP restricted to ``X``,
    and remove the lowest-scoring item; if the restricted empirical LP is infeasible (every score
    ``−∞``) stop and answer ``∅``. The ``L + 1`` survivors are the answer. Known arms and slack
    items are scored and can be removed but are never pulled. Never more than ``N`` pulls
    (Proposition 1); with ``L = 0`` this is exactly Successive Rejects (Audibert & Bubeck 2010).

    Args:
        score: ``"iv"`` — the intersection value (eq. (6)): the best empirical value of a
            feasible basis inside ``X`` containing the item
            (:func:`bandit_envs.theory.lp.intersection_values`);
            ``"lagrangian"`` — SFSR-L (eq. (8)): the reduced cost at the empirical dual
            (:func:`bandit_envs.theory.lp.lagrangian_scores`). The paper proves Theorem 1 for IV
            only.
        tie_break: the paper breaks ties "arbitrarily". ``"random"`` (uniform among the lowest
            scores, from the episode's generator; ties are common: the members of one basis
            share their IV score, and several items can score ``−∞`` when L ≥ 2) or
            ``"lowest_index"`` (deterministic).
        dual: SFSR-L's dual: ``"basis"`` (the simplex multipliers of the best basis of the same
            enumeration; dual optimal when the empirical optimum is non-degenerate, which has
            probability 1 under Gaussian noise) or ``"highs"`` (HiGHS on the dual LP of
            eq. (8); slower).

    Attributes:
        eliminated: the items in the order they left ``X`` (this episode).
        infeasible_round: the round at which the empirical LP was declared infeasible, or None.

    """

    card = AgentCard(
        summary="Constrained best mixed arm with a fixed budget: successive rejects over the K + L "
        "items of the LP (eq. 7 schedule), removing the item of lowest intersection value (the "
        "best empirical basis containing it). score='lagrangian' gives SFSR-L",
        paper="Tang, Jain, Nayyar & Nuzzo, Pure Exploration for Constrained Best Mixed Arm "
        "Identification with a Fixed Budget, arXiv 2405.15090 (2024), Algorithm 1 with the "
        "score of eq. (6)",
    )

    parameters = {
        "score": Choice(*SCORES),
        "tie_break": Choice(*TIE_BREAKS),
        "dual": Choice(*DUALS),
    }

    def __init__(self, score: str = "iv", tie_break: str = "random", dual: str = "basis") -> None:
        self.score = score
        self.tie_break = tie_break
        self.dual = dual

    # ------------------------------------------------------------------ episode set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        who = self.name
        self._setup_lp(spec)
        budget = self._require_budget()
        if budget <= self._n_unknown:
            raise InvalidParameterError(
                f"{who}: the budget N = {spec.budget} must exceed the number of unknown arms "
                f"K0 = {self._n_unknown} (eq. (7): with N ≤ K0 every n_k is 0 and no arm is "
                f"pulled)."
            )
        self._schedule = sfsr_schedule(budget, self._k, self._n_unknown, self._n_cost)
        self._alive = np.ones(self._k + self._n_cost, dtype=bool)
        self._round = 0
        self._done = False
        self._empty = False
        self.eliminated: list[int] = []
        self.infeasible_round: int | None = None
        self._start_phases(spec.n_arms, spec.outcome_dim)

    @property
    def done(self) -> bool:
        """Whether the K − 1 rounds are over (or the empirical LP was declared infeasible)."""
        return getattr(self, "_done", False)

    # ------------------------------------------------------------------ rounds

    def _plan_phase(self) -> None:
        """Round ``k``'s pulls: ``T_k`` for every unknown arm still in ``X``."""
        k = self._round + 1
        t_k = int(self._schedule[k - 1] - (self._schedule[k - 2] if k >= 2 else 0))
        pulls = self._alive[: self._k] & self._unknown
        self._remaining = np.where(pulls, t_k, 0).astype(np.int64)
        self._left = int(self._remaining.sum())
        self._cursor = 0
        self._pcounts[:] = 0
        self._psums[:] = 0.0
        self._planned = True

    def _finish_phase(self) -> None:
        """End of round ``k``: score the items of ``X`` and remove the lowest (Alg. 1)."""
        self._planned = False
        self._round += 1
        self._refresh_means()
        alive = self._alive
        scan = lp.scan_bases(self._mu, self._a, self._b, alive=alive)
        if self.score == "iv":
            scores = lp.intersection_values(self._mu, self._a, self._b, alive, scan=scan)
        else:
            scores = lp.lagrangian_scores(
                self._mu, self._a, self._b, alive, dual=self.dual, scan=scan
            )
        live = scores[alive]
        if not np.any(live > -np.inf):
            # The restricted empirical LP is infeasible: declare the instance infeasible.
            self._done, self._empty = True, True
            self.infeasible_round = self._round
            return
        items = np.flatnonzero(alive)
        lowest = np.flatnonzero(live == live.min())
        pick = (
            lowest[0]
            if self.tie_break == "lowest_index" or lowest.size == 1
            else (lowest[self.rng.integers(lowest.size)])
        )
        out = int(items[pick])
        alive[out] = False
        self.eliminated.append(out)
        if self._round >= self._k - 1:
            self._done = True

    def _advance(self) -> None:
        """Run rounds that pull nothing (``T_k = 0``, or no unknown arm left in ``X``)."""
        while not self._done and not self._planned:
            self._plan_phase()
            if self._left == 0:
                self._finish_phase()

    # ------------------------------------------------------------------ protocol

    def select(self) -> int | None:
        """The next arm of the current round, or None when the rounds are over."""
        self._require_reset("select")
        self._advance()
        return super().select()

    def select_batch(self) -> np.ndarray | None:
        """The rest of the current round's pulls (one batch per round), or None when done."""
        self._require_reset("select_batch")
        self._advance()
        return super().select_batch()

    def recommend(self) -> Answer:
        """The surviving ``L + 1`` items once finished (``∅`` if declared infeasible).

        Before the end (an interrupted episode), the best basis of the empirical LP restricted
        to the items still in ``X`` that have data (known arms, slacks, pulled arms).
        """
        self._require_reset("recommend")
        if self._empty:
            return frozenset()
        if self._done:
            return frozenset(int(i) for i in np.flatnonzero(self._alive))
        self._refresh_means()
        return lp.best_basis(self._mu, self._a, self._b, self._usable(self._alive))

    @property
    def rounds_done(self) -> int:
        """Rounds finished in this episode (K − 1 at the end, fewer if stopped at ``∅``)."""
        return getattr(self, "_round", 0)


class SFSRL(SFSR):
    """SFSR-L: :class:`SFSR` with the Lagrangian score (reduced costs, Tang et al. 2024, eq. (8)).

    The reduced cost of an item at the empirical dual of the LP restricted to ``X``; ``≤ 0``,
    and 0 on the empirical optimal basis. The paper gives no guarantee for it and shows
    instances where it fails (Appendix A; the ``ConstrainedMixed-Hard-v0`` id).

    Args:
        tie_break: as in :class:`SFSR`.
        dual: as in :class:`SFSR`.

    """

    card = AgentCard(
        summary="SFSR-L: SFSR removing the item of most negative reduced cost at the empirical "
        "dual of the LP (no guarantee; it fails on the construction of Appendix A)",
        paper="Tang, Jain, Nayyar & Nuzzo, Pure Exploration for Constrained Best Mixed Arm "
        "Identification with a Fixed Budget, arXiv 2405.15090 (2024), Algorithm 1 with the "
        "score of eq. (8)",
    )

    parameters = {"tie_break": Choice(*TIE_BREAKS), "dual": Choice(*DUALS)}

    def __init__(self, tie_break: str = "random", dual: str = "basis") -> None:
        super().__init__(score="lagrangian", tie_break=tie_break, dual=dual)


class USLP(_ConstrainedAgent):
    """Uniform Sampling and Linear Program (Tang et al. 2024: the baseline of Sec. 4.3 and Sec. 5).

    Pull every unknown arm ``⌊N / K0⌋`` times (round robin; the remainder of the budget is not
    used, as in the paper), then answer the optimal basis of the empirical LP over all ``K + L``
    items by enumeration (:func:`bandit_envs.theory.lp.best_basis`), ``∅`` if it is infeasible.
    With ``K0 = K`` (every experiment of the paper) this is ``⌊N / K⌋`` per arm; with known arms
    the per-arm count uses ``K0`` (our reading: the paper only writes ``⌊N / K⌋``).
    """

    card = AgentCard(
        summary="Uniform sampling (floor(N/K0) pulls per unknown arm), then the optimal basis of "
        "the empirical LP",
        paper="Baseline of Tang, Jain, Nayyar & Nuzzo, Pure Exploration for Constrained Best "
        "Mixed Arm Identification with a Fixed Budget, arXiv 2405.15090 (2024), Sec. 4.3 and 5",
    )

    def _on_reset(self, spec: ProblemSpec) -> None:
        self._setup_lp(spec)
        self._per_arm = self._require_budget() // self._n_unknown
        if self._per_arm < 1:
            raise InvalidParameterError(
                f"{self.name}: the budget N = {spec.budget} is smaller than the number of "
                f"unknown arms K0 = {self._n_unknown}; uniform sampling needs one pull per arm."
            )
        self._arms = np.flatnonzero(self._unknown)

    def select(self) -> int | None:
        """The next arm in round-robin order, or None once every arm has ``⌊N/K0⌋`` pulls."""
        self._require_reset("select")
        if self.t >= self._per_arm * self._arms.size:
            return None
        return int(self._arms[self.t % self._arms.size])

    def select_batch(self) -> np.ndarray | None:
        """All the remaining pulls at once (None when done)."""
        self._require_reset("select_batch")
        left = np.where(self._unknown, self._per_arm - self.counts, 0)
        left = np.maximum(left, 0)
        return left.astype(np.int64) if left.any() else None

    def recommend(self) -> Answer:
        """The optimal basis of the empirical LP (over the arms with data and the slacks)."""
        self._require_reset("recommend")
        self._refresh_means()
        alive = np.ones(self._k + self._n_cost, dtype=bool)
        return lp.best_basis(self._mu, self._a, self._b, self._usable(alive))

    @property
    def pulls_per_arm(self) -> int:
        """``⌊N / K0⌋`` for this episode."""
        return getattr(self, "_per_arm", 0)
