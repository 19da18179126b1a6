"""Unstructured Pareto set identification baselines: EGE-SH, EGE-SR and uniform sampling.

The baselines GEGE is compared with (Kone, Kaufmann & Richert, AISTATS 2025, Sec. 5), as the
authors' public code (``cyrille-kone/linear_psi``) runs them; the paper only names them. They
ignore the arms' features and estimate every arm's mean vector by its sample mean. Outcomes are
vectors of ``d`` objectives, all maximised. Empirical Pareto sets and gaps come from
:mod:`bandit_envs.theory.pareto` (Definition 1 and eq. (5) of the GEGE paper).

* :class:`EGESH` — Empirical Gap Elimination with Successive Halving (Kone, Kaufmann & Richert,
  "Bandit Pareto Set Identification: the Fixed Budget Setting", AISTATS 2024), fixed budget.
* :class:`EGESR` — Empirical Gap Elimination with Successive Rejects (same paper), fixed
  budget.
* :class:`PSIUniform` — round robin: fixed budget with the empirical Pareto set of the sample
  means, fixed confidence with APE's stopping rule (:func:`bandit_envs.theory.pareto.ape_stop`).

All three plan their allocations a round at a time and use the exact batch path
(:class:`agents.common.phases.PhaseTracking`).
"""

from __future__ import annotations

import numpy as np

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common.classification import ClassificationBook, halving_keep
from agents.common.params import Boolean, Choice
from agents.common.phases import PhaseTracking
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.pareto import (
    APE_THRESHOLDS,
    APEStop,
    ape_stop,
    empirical_gaps,
    pareto_mask,
)

__all__ = ["EGESH", "EGESR", "PSIUniform", "successive_rejects_schedule"]


def successive_rejects_schedule(n_arms: int, budget: int) -> np.ndarray:
    """EGE-SR's cumulative pulls per active arm ``n_1 ≤ … ≤ n_{K−1}`` (Kone et al. 2024).

    ``n_k = ⌈(T − K) / (loḡ(K) (K + 1 − k))⌉`` with ``loḡ(K) = 1/2 + Σ_{i=2}^{K} 1/i``
    (Audibert, Bubeck & Munos 2010's successive rejects schedule, as in Kone et al. 2024). Phase
    ``k`` pulls each of its ``K + 1 − k`` active arms ``n_k − n_{k−1}`` times (``n_0 = 0``), so the
    total ``Σ_{k<K} n_k + n_{K−1}`` never exceeds ``T``.

    Args:
        n_arms: ``K ≥ 2``.
        budget: ``T > K``.

    Returns:
        ``[n_1, …, n_{K−1}]`` as int64, shape ``(K − 1,)``.

    Raises:
        InvalidParameterError: if ``K < 2`` or ``T ≤ K``.
    """
    who = "successive_rejects_schedule"
    if isinstance(n_arms, bool) or not isinstance(n_arms, (int, np.integer)) or n_arms < 2:
        raise InvalidParameterError(f"{who}: n_arms must be an integer >= 2; got {n_arms!r}.")
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget <= n_arms:
        raise InvalidParameterError(
            f"{who}: budget must be an integer larger than n_arms = {n_arms}; got {budget!r}."
        )
    k = int(n_arms)
    log_bar = 0.5 + float(np.sum(1.0 / np.arange(2, k + 1)))
    phases = np.arange(1, k)
    exact = (int(budget) - k) / (log_bar * (k + 1 - phases))
    # ⌈·⌉ with a guard against round-off pushing an integer quotient up by one
    return np.ceil(exact - 1e-9).astype(np.int64)


def _noise_level(spec: ProblemSpec) -> float:
    """The largest per-objective σ of the problem (1.0 when unknown, as GEGE does)."""
    noise = 1.0 if spec.noise_std is None else spec.noise_std
    return float(np.max(noise))


class _SampleMeanPhases(PhaseTracking, BaseAgent):
    """Shared state of the unstructured phase agents: active set, classification, history."""

    def _start(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        self._d = int(spec.outcome_dim)
        self._book = ClassificationBook(k)
        self._round = 0
        self._start_phases(k, self._d)
        self.phase_history: list[dict] = []

    def _set_allocation(self, per_arm: np.ndarray, record: dict) -> None:
        """Plan a phase: ``per_arm`` new pulls for each arm (shape (K,))."""
        self._remaining = np.asarray(per_arm, dtype=np.int64).copy()
        self._left = int(self._remaining.sum())
        self._cursor = 0
        self._pcounts = np.zeros(self.n_arms, dtype=np.int64)
        self._psums = np.zeros((self.n_arms, self._d))
        self._plan = record
        self._planned = True

    def _means(self, arms: np.ndarray, forget: bool = False) -> np.ndarray:
        """Sample means of ``arms``: all their data, or this phase's only (``forget``)."""
        counts, sums = (self._pcounts, self._psums) if forget else (self.counts, self.sums)
        return sums[arms] / counts[arms][:, None]

    @property
    def accepted(self) -> list[int]:
        """Arms classified Pareto-optimal so far."""
        return self._book.accepted

    @property
    def rejected(self) -> list[int]:
        """Arms classified sub-optimal so far."""
        return self._book.rejected

    def _interim(self) -> np.ndarray:
        """Active arms estimated optimal from all their data (an interrupted episode's answer)."""
        active = self._book.active
        pulled = self.counts[active] > 0
        if not pulled.any():
            return active
        mask = np.ones(active.size, dtype=bool)
        idx = np.flatnonzero(pulled)
        mask[idx] = pareto_mask(self._means(active[idx]))
        return active[mask]


class EGESH(_SampleMeanPhases):
    """EGE-SH: Empirical Gap Elimination, Successive Halving (Kone, Kaufmann & Richert 2024).

    Fixed budget ``T``, ``R = ⌈log₂ K⌉`` rounds. Round ``r`` pulls every active arm
    ``⌊T / (|A_r| R)⌋`` more times, computes the empirical Pareto set ``S_r`` and the empirical
    gaps ``Δ̂_i`` among the active arms (:func:`bandit_envs.theory.pareto.empirical_gaps`, eq. (5) of
    Kone et al. with ``j ≠ i``: on empirically optimal arms ``δ̂*_i ≥ 0`` already, so this equals
    the C++ form whose ``Δ̂*`` includes ``j = i``), keeps the ``⌈|A_r|/2⌉`` arms with the smallest
    gaps — ties at the cut remove empirically sub-optimal arms first
    (:func:`agents.common.classification.halving_keep`, the C++ tie-break) — and accepts the
    removed arms of ``S_r``, rejecting the others. Answer: accepted arms plus the last survivor.
    Error bound (Kone et al. 2024, as quoted in Sec. 3.2 of the GEGE paper):
    ``exp(−T/(288 σ² H₂ log₂K) + log(2d(K−1)|S*| log₂K))``. With canonical features and
    ``K = h`` a power of 2, GEGE's fixed-budget rounds remove the same arms (GEGE paper,
    Sec. 3.2).

    Statistics: by default every round uses all the samples of the arm so far (``forget=False``,
    the authors' C++ ``ege_sh``, which the paper's plots use); ``forget=True`` is the authors'
    python variant, which uses only the current round's samples. At most
    ``Σ_r |A_r| ⌊T/(|A_r| R)⌋ ≤ T`` pulls are made; the rest of the budget is left unspent (as
    in the C++ code).

    Refuses budgets below ``K⌈log₂K⌉`` (every arm needs a sample in round 1; the GEGE paper,
    Sec. 5, notes the same requirement):
    :class:`~bandit_envs.errors.InvalidParameterError` at ``reset``. The ε of an ε-PSI
    task is ignored (an exact answer is also an ε-Pareto set). Features are ignored.

    **Batch path**: one batch per round; the one-pull path walks the same allocation.

    Args:
        forget: use only each round's own samples (python variant) instead of accumulating.

    The arms classified so far are the properties ``accepted`` (optimal) and ``rejected``
    (sub-optimal), sorted lists.

    Attributes:
        phase_history: after each round a dict with ``round``, ``active`` (arms at its start),
            ``samples`` (the round's pulls), ``allocation`` (new pulls per active arm), ``means``,
            ``gaps``, ``pareto`` (mask of ``S_r`` over ``active``), ``accepted``, ``rejected``
            and ``survivors``.
    """

    card = AgentCard(
        summary="Unstructured Pareto set identification with a fixed budget: empirical gap "
        "elimination with successive halving over ceil(log2 K) rounds (needs T >= K "
        "ceil(log2 K))",
        paper="Kone, Kaufmann & Richert, Bandit Pareto Set Identification: the Fixed Budget "
        "Setting, AISTATS 2024 (EGE-SH), as run in the experiments of the GEGE paper",
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        settings=frozenset({"fixed_budget"}),
        structures=frozenset({"none"}),
        outcome_dims="any",
        batch=True,
    )

    parameters = {"forget": Boolean()}

    def __init__(self, forget: bool = False) -> None:
        self.forget = forget

    def _on_reset(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        self._rounds = (k - 1).bit_length()  # ⌈log₂ K⌉ (0 for a single arm)
        need = k * self._rounds
        if self._require_budget() < need:
            raise InvalidParameterError(
                f"{self.name}: the budget must be at least K⌈log2 K⌉ = {k}·{self._rounds} = "
                f"{need} (K = {k}) so that every arm is pulled in round 1; got {spec.budget!r}."
            )
        self._start(spec)

    @property
    def done(self) -> bool:
        """Whether all ``⌈log₂ K⌉`` rounds have run."""
        return hasattr(self, "_rounds") and self._round >= self._rounds

    def _plan_phase(self) -> None:
        active = self._book.active
        per = self._require_budget() // (active.size * self._rounds)
        alloc = np.zeros(self.n_arms, dtype=np.int64)
        alloc[active] = per
        self._set_allocation(
            alloc,
            {
                "round": self._round + 1,
                "active": active,
                "samples": per * active.size,
                "allocation": np.full(active.size, per, dtype=np.int64),
            },
        )

    def _finish_phase(self) -> None:
        active = self._book.active
        means = self._means(active, forget=bool(self.forget))
        result = empirical_gaps(means)
        keep = np.zeros(active.size, dtype=bool)
        keep[halving_keep(result.gaps, result.pareto, -(-active.size // 2))] = True
        acc, rej = ~keep & result.pareto, ~keep & ~result.pareto
        self.phase_history.append(
            {
                **self._plan,
                "means": means,
                "gaps": result.gaps,
                "pareto": result.pareto,
                "accepted": active[acc].tolist(),
                "rejected": active[rej].tolist(),
                "survivors": active[keep].tolist(),
            }
        )
        self._book.settle(acc, rej)
        self._round += 1
        self._planned = False

    def recommend(self) -> Answer:
        """Accepted arms plus the active ones (one survivor once finished)."""
        self._require_reset("recommend")
        chosen = self._book.active if self.done else self._interim()
        return self._book.answer(chosen)


class EGESR(_SampleMeanPhases):
    """EGE-SR: Empirical Gap Elimination, Successive Rejects (Kone, Kaufmann & Richert 2024).

    Fixed budget ``T``, ``K − 1`` phases with the successive rejects schedule ``n_k``
    (:func:`successive_rejects_schedule`; total ≤ ``T``). Phase ``k`` brings every active arm to
    ``n_k`` samples (statistics accumulate), computes ``S_k`` (empirical Pareto set of the active
    arms' sample means) and the empirical gaps ``Δ̂`` among them, then compares
    ``I₁ = max_{i ∈ S_k} Δ̂_i`` (attained at ``a_k``) with ``I₂ = max_{i ∈ A∖S_k} Δ̂_i``
    (at ``d_k``; ``−∞`` on an empty set): if ``I₂ ≥ I₁`` it rejects ``d_k``, else it accepts
    ``a_k``, and removes that arm. The last arm is accepted; the answer is the accepted set
    (graded by set equality with ``S*`` — the C++ semantics; the authors' python version checked
    ``accepted ⊆ S*``, a bug). Ties in an argmax go to the smallest arm index. A phase whose
    schedule adds no pull (``n_k = n_{k−1}``, small budgets) decides on the data it has.

    Needs ``T > K`` (so that ``n_1 ≥ 1``); refuses smaller budgets at ``reset``. Features and the
    ε of an ε-PSI task are ignored.

    **Batch path**: one batch per phase; the one-pull path walks the same allocation.

    The arms classified so far are the properties ``accepted`` and ``rejected`` (sorted lists).

    Attributes:
        schedule: ``[n_1, …, n_{K−1}]`` of the episode.
        phase_history: after each phase a dict with ``round``, ``active``, ``samples``,
            ``allocation``, ``means``, ``gaps``, ``pareto``, ``accepted``, ``rejected`` and
            ``survivors``.
    """

    card = AgentCard(
        summary="Unstructured Pareto set identification with a fixed budget: empirical gap "
        "elimination on the successive rejects schedule, one arm accepted or rejected per phase",
        paper="Kone, Kaufmann & Richert, Bandit Pareto Set Identification: the Fixed Budget "
        "Setting, AISTATS 2024 (EGE-SR); schedule of Audibert, Bubeck & Munos, COLT 2010",
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        settings=frozenset({"fixed_budget"}),
        structures=frozenset({"none"}),
        outcome_dims="any",
        batch=True,
    )

    def __init__(self) -> None:
        pass

    def _on_reset(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        budget = self._require_budget()
        if k >= 2 and budget <= k:
            raise InvalidParameterError(
                f"{self.name}: the budget must be larger than the number of arms K = {k} so "
                f"that every arm is pulled in the first phase; got {spec.budget!r}."
            )
        self.schedule = (
            successive_rejects_schedule(k, budget) if k >= 2 else np.zeros(0, dtype=np.int64)
        )
        self._start(spec)
        if k == 1:
            self._book.accept(np.ones(1, dtype=bool))

    @property
    def done(self) -> bool:
        """Whether all ``K − 1`` phases have run."""
        return hasattr(self, "schedule") and self._round >= self.schedule.size

    def _increment(self, phase: int) -> int:
        prev = int(self.schedule[phase - 2]) if phase >= 2 else 0
        return int(self.schedule[phase - 1]) - prev

    def _plan_phase(self) -> None:
        active = self._book.active
        per = self._increment(self._round + 1)
        alloc = np.zeros(self.n_arms, dtype=np.int64)
        alloc[active] = per
        self._set_allocation(
            alloc,
            {
                "round": self._round + 1,
                "active": active,
                "samples": per * active.size,
                "allocation": np.full(active.size, per, dtype=np.int64),
            },
        )

    def _finish_phase(self) -> None:
        while True:
            self._decide()
            if self.done or self._increment(self._round + 1) > 0:
                return
            self._plan_phase()  # a phase without new pulls: decide at once

    def _decide(self) -> None:
        active = self._book.active
        means = self._means(active)
        result = empirical_gaps(means)
        gaps, pareto = result.gaps, result.pareto
        i1 = np.where(pareto, gaps, -np.inf)
        i2 = np.where(pareto, -np.inf, gaps)
        acc = np.zeros(active.size, dtype=bool)
        rej = np.zeros(active.size, dtype=bool)
        if i2.max() >= i1.max():
            rej[int(np.argmax(i2))] = True
        else:
            acc[int(np.argmax(i1))] = True
        if self._round + 1 == self.schedule.size:  # the last arm is accepted
            acc |= ~(acc | rej)
        self.phase_history.append(
            {
                **self._plan,
                "means": means,
                "gaps": gaps,
                "pareto": pareto,
                "accepted": active[acc].tolist(),
                "rejected": active[rej].tolist(),
                "survivors": active[~(acc | rej)].tolist(),
            }
        )
        self._book.settle(acc, rej)
        self._round += 1
        self._planned = False

    def recommend(self) -> Answer:
        """The accepted set once finished; before that, accepted plus estimated-optimal active."""
        self._require_reset("recommend")
        chosen = self._book.active if self.done else self._interim()
        return self._book.answer(chosen)


class PSIUniform(_SampleMeanPhases):
    """Uniform (round-robin) sampling for Pareto set identification (the GEGE paper's baseline).

    * **Fixed budget** (the authors' python ``RoundRobin``): each arm is pulled ``⌊T/K⌋`` times
      and the ``T − K⌊T/K⌋`` remaining pulls go to distinct arms drawn uniformly at random (from
      the episode's ``rng``, without replacement; the code only says "random arms"); the answer
      is the empirical Pareto set of the sample means. Needs ``T ≥ K``.
    * **Fixed confidence** (the authors' C++ ``psi_uniform``, not in the paper's plots): rounds
      of one pull of every arm; after each round, APE's stopping rule
      (:func:`bandit_envs.theory.pareto.ape_stop`, Kone et al. 2023) on the sample means; stop
      when ``Z1 ≥ 0`` and ``Z2 ≥ 0`` and answer the empirical Pareto set. With
      ``threshold="union"`` (default) the confidence width is δ-correct (union bound over pairs,
      objectives and sample counts; proof in :func:`bandit_envs.theory.pareto.ape_confidence`);
      ``threshold="heuristic"`` is the authors' C++ width, **heuristic, not δ-correct**. With an
      ε-PSI task (``spec.epsilon = ε > 0``) the rule certifies an ε-Pareto set (``Z1`` gains
      ``+ε``). An interrupted episode (sample cap) answers the current empirical Pareto set.

    Features are ignored (unstructured: sample means only). σ is ``max(spec.noise_std)``
    (1 when unknown).

    **Batch path**: fixed budget, the whole allocation at once; fixed confidence, one batch per
    round (the stopping tests happen after the same rounds as on the one-pull path).

    Args:
        threshold: ``"union"`` or ``"heuristic"`` confidence width in fixed confidence (above).

    Attributes:
        stop_statistics: in fixed confidence, the :class:`~bandit_envs.theory.pareto.APEStop` of the
            last test (``None`` before the first).
    """

    card = AgentCard(
        summary="Round robin for Pareto set identification. Fixed budget: the empirical Pareto "
        "set of the sample means; fixed confidence: APE's stopping rule (union-bound or "
        "heuristic widths)",
        paper="Baseline of Kone, Kaufmann & Richert, AISTATS 2025, Sec. 5; stopping rule of "
        "Kone, Kaufmann & Richert, Adaptive Algorithms for Relaxed Pareto Set Identification, "
        "NeurIPS 2023 (APE)",
        heuristics=(
            Heuristic("threshold", lambda v: v == "heuristic", "the authors' C++ confidence width"),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        structures=frozenset({"none"}),
        outcome_dims="any",
        batch=True,
    )

    parameters = {"threshold": Choice(*APE_THRESHOLDS)}

    def __init__(self, threshold: str = "union") -> None:
        self.threshold = threshold

    def _on_reset(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        self._fb = spec.budget is not None
        if self._fb and self._require_budget() < k:
            raise InvalidParameterError(
                f"{self.name}: the budget must be at least the number of arms K = {k} (one pull "
                f"per arm); got {spec.budget!r}."
            )
        self._start(spec)
        self._sigma = _noise_level(spec)
        self._eps = float(spec.epsilon or 0.0)
        self._stopped = False
        self.stop_statistics: APEStop | None = None
        if self._fb:
            per, extra = divmod(self._require_budget(), k)
            alloc = np.full(k, per, dtype=np.int64)
            alloc[self.rng.choice(k, size=extra, replace=False)] += 1
            self._fb_alloc = alloc
        elif k == 1:
            self._stopped = True

    @property
    def done(self) -> bool:
        """Fixed budget: the allocation has been pulled; fixed confidence: the rule stopped."""
        return hasattr(self, "_stopped") and self._stopped

    def _plan_phase(self) -> None:
        if self._fb:
            self._set_allocation(self._fb_alloc, {"round": 1})
        else:
            self._set_allocation(np.ones(self.n_arms, dtype=np.int64), {"round": self._round + 1})

    def _finish_phase(self) -> None:
        self._round += 1
        self._planned = False
        if self._fb:
            self._stopped = True
            return
        means = self.sums / self.counts[:, None]
        statistics = ape_stop(
            means,
            self.counts,
            self._require_delta(),
            self._sigma,
            threshold=self.threshold,
            epsilon=self._eps,
        )
        self.stop_statistics = statistics
        self._stopped = statistics.stop

    def recommend(self) -> Answer:
        """The empirical Pareto set of the sample means (every arm before any data)."""
        self._require_reset("recommend")
        return frozenset(int(i) for i in self._interim())
