"""Fixed-confidence Pareto set identification baselines: ``APE``, ``Racing`` and ``PAL``.

The fixed-confidence baselines of Kone, Kaufmann & Richert (AISTATS 2025, Sec. 5 and App. I),
as the authors' public code (``cyrille-kone/linear_psi``) runs them. Outcomes are vectors of
``d`` objectives, all maximised; the answer is the Pareto set ``S*`` (task ``"pareto_set"``).
Margins ``M̂(i, j) = max_c [μ̂_i(c) − μ̂_j(c)]`` and ``m̂(i, j) = −M̂(i, j)`` (Sec. 2.1 of the
GEGE paper, after Auer et al. 2016); the pairwise confidence widths ``β_ij`` of APE and Racing
come from :func:`bandit_envs.theory.pareto.ape_confidence`.

* :class:`APE` — Adaptive Pareto Exploration (Kone, Kaufmann & Richert 2023), fully sequential,
  unstructured, with an incremental ``O(K d)``-per-pull state.
* :class:`Racing` — Auer, Chiang, Ortner & Drugan (2016), rounds of one pull per active arm.
* :class:`PAL` — Zuluaga, Sergent, Krause & Püschel (2013) with a linear kernel, as in the GEGE
  authors' code: rounds of one pull per active arm, least squares on the features.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common import kernels
from agents.common.classification import ClassificationBook
from agents.common.params import Choice
from agents.common.phases import PhaseTracking
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import AgentProtocolError
from bandit_envs.theory.linalg import reduce_features
from bandit_envs.theory.pareto import (
    APE_THRESHOLDS,
    ape_confidence,
    ape_width_terms,
    dominance_margins,
    pareto_mask,
)

__all__ = ["APE", "PAL", "Racing"]

#: pulling rules of APE (see :class:`APE`).
APE_PULLS = ("both", "least_sampled")

#: PAL's confidence constants (see :class:`PAL`).
PAL_CONSTANTS = ("practical", "theory")


def _sigma(spec: ProblemSpec) -> float:
    """The noise level used by the widths: the largest per-objective σ (1 when unknown)."""
    noise = 1.0 if spec.noise_std is None else spec.noise_std
    return float(np.max(noise))


class APE(BaseAgent):
    """Adaptive Pareto Exploration (Kone, Kaufmann & Richert, NeurIPS 2023).

    Unstructured and fully sequential. After one pull of every arm, each step ``t``:

    * ``h_i = min_{j≠i} [M̂(i, j) − β_ij]``, ``OPT(t) = {i : h_i > 0}``,
      ``g_i = max_{j≠i} [m̂(i, j) − β_ij]``; with ``S(t)`` the empirical Pareto set of all arms,
      stop when ``Z1 = min_{i∈S(t)} h_i + ε ≥ 0`` and ``Z2 = min_{i∉S(t)} max(h_i, g_i) ≥ 0``
      (as :func:`bandit_envs.theory.pareto.ape_stop`) and answer ``S(t)``;
    * ``b_t = argmax_{i∉OPT(t)} min_{j≠i} [M̂(i, j) + β_ji]`` and
      ``c_t = argmin_{j≠b_t} [M̂(b_t, j) − β_{b_t j}]``;
    * ``pull="both"`` (default, the authors' C++ code) pulls ``b_t`` then ``c_t`` — one arm per
      ``select()``, so on two consecutive calls, with no stopping test in between;
      ``pull="least_sampled"`` (the paper's rule) pulls the less sampled of the two (``b_t`` on a
      tie).

    ``ε`` is the task's public ``spec.epsilon`` (0 for exact PSI). Ties in the argmax/argmin go
    to the smallest index. The widths are those of :func:`bandit_envs.theory.pareto.ape_confidence`,
    in the per-arm form of :func:`~bandit_envs.theory.pareto.ape_width_terms`.

    **Incremental state** (``O(K d)`` per pull, no ``K × K`` work, about twenty NumPy calls;
    ``benchmarks/bench_psi_confidence.py`` measures it). ``β`` is symmetric, so
    ``min_j [M̂(i, j) + β_ij] = −g_i``, and two ``K × K`` matrices are kept, ``M̂ − β`` and
    ``M̂ + β`` (diagonal ``+inf``). A pull of arm ``a`` changes only row and column ``a`` of
    both. Pulls are recorded by ``observe`` and applied in order just before the next stopping
    test (``pull="both"`` applies ``b_t`` and ``c_t`` together). Each row ``r`` of either matrix
    keeps a *lower bound* ``lb_r`` on its minimum (at most every entry of the row) and a column
    ``j_r`` whose entry is an *upper bound*; the row is exact when the two are equal. Row ``a``
    is recomputed exactly; another row only compares its bound with its new entry in column
    ``a`` (a smaller entry is the new exact minimum). When the column that attained a minimum
    grows, the row simply becomes inexact, and it is recomputed only when a decision depends on
    it:

    * stopping: the necessary condition "every arm has ``h_i + ε ≥ 0`` or ``g_i ≥ 0``" fails as
      soon as one arm is *certainly* in violation (upper bound of ``h_i + ε`` below 0 and lower
      bound of ``−g_i`` above 0). The last such arm is re-checked first (``O(1)``), then all arms
      (``O(K)``); only when no arm is certainly in violation are all rows made exact and the
      rule evaluated exactly (``S(t)`` computed only if the condition holds);
    * ``b_t``: the argmax of the upper bounds of ``−g_i`` over the arms not certainly in
      ``OPT(t)``; while the winner's row is inexact (or its membership in ``OPT(t)`` uncertain)
      that row is recomputed and the argmax taken again. Upper bounds dominate the exact values,
      so the result is the exact ``b_t`` (same tie-breaking); ``c_t`` is an argmin over row
      ``b_t``.

    The decisions are therefore exactly those of a recomputation from scratch; ``state()``
    makes every row exact and exposes the quantities (tests compare them).

    Args:
        pull: ``"both"`` or ``"least_sampled"`` (above).
        threshold: the widths of :func:`bandit_envs.theory.pareto.ape_confidence`: ``"union"``
            (default; δ-correct by a union bound over pairs, objectives and sample counts — see
            that function's proof and :func:`~bandit_envs.theory.pareto.ape_stop`'s correctness
            argument) or ``"heuristic"`` (the authors' C++ code, "simplified for empirical
            purpose": **not** δ-correct; it is what the paper's plots use).

    Sample complexity = every pull, including the initial ``K``.
    """

    card = AgentCard(
        summary="Adaptive Pareto Exploration: fully sequential, pulls the two arms b_t and c_t "
        "(or the less sampled of them) and stops by APE's rule, with union-bound or heuristic "
        "widths",
        paper="Kone, Kaufmann & Richert, Adaptive Algorithms for Relaxed Pareto Set "
        "Identification, NeurIPS 2023 (APE)",
        heuristics=(
            Heuristic("threshold", lambda v: v == "heuristic", "the authors' C++ confidence width"),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"none"}),
        outcome_dims="any",
    )

    parameters = {"pull": Choice(*APE_PULLS), "threshold": Choice(*APE_THRESHOLDS)}

    def __init__(self, pull: str = "both", threshold: str = "union") -> None:
        self.pull = pull
        self.threshold = threshold

    # ------------------------------------------------------------------ set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        k, d = spec.n_arms, int(spec.outcome_dim)
        self._k, self._d = k, d
        self._eps = float(spec.epsilon or 0.0)
        self._width = ape_width_terms(
            self._require_delta(), _sigma(spec), threshold=self.threshold, n_arms=k, n_objectives=d
        )
        self._muT = np.zeros((d, k))  # sample means, one row per objective
        self._inv = np.zeros(k)  # 1 / T_i
        self._ell = np.zeros(k)  # ℓ(T_i)
        self._h2: np.ndarray | None = None  # (2, K, K): M̂ − β and M̂ + β, diagonal +inf
        # per row of both matrices (h rows, then −g rows): a lower bound on the row minimum
        # and a column whose entry is an upper bound (exact when the two are equal)
        self._mins = np.zeros(2 * k)
        self._args = np.zeros(2 * k, dtype=np.int64)
        self._queue: list[int] = []  # pulls observed but not yet applied to the matrices
        # the last arm certainly violating the stopping condition (−1: none)
        self._witness = np.full(1, -1, dtype=np.int64)
        self._fast: _APEBuffers | None = None
        self._pending: int | None = None
        self._stopped = False
        self._answer: frozenset[int] | None = None
        self.steps = 0  # APE iterations (stopping tests) after the initialisation

    @property
    def _mu(self) -> np.ndarray:
        """The sample means, shape ``(K, d)`` (a view)."""
        return self._muT.T

    def _build(self) -> None:
        """All pairwise state from scratch, ``O(K² d)`` (once, after the initial pulls)."""
        k = self._k
        c0, scale = self._width.c0, self._width.scale
        big_m = dominance_margins(self._mu)
        beta = (c0 + self._ell[:, None] + self._ell[None, :]) * (
            self._inv[:, None] + self._inv[None, :]
        )
        beta = scale * np.sqrt(beta)
        pairs = np.empty((k, k, 2))  # interleaved (the compiled kernels' layout)
        h2 = pairs.transpose(2, 0, 1)  # the (2, K, K) view
        np.subtract(big_m, beta, out=h2[0])
        np.add(big_m, beta, out=h2[1])
        h2[:, np.arange(k), np.arange(k)] = np.inf
        self._h2 = h2
        flat = h2.reshape(2 * k, k)  # a copy (the rows of both matrices stacked)
        self._args[:] = flat.argmin(axis=1)
        self._mins[:] = flat[np.arange(2 * k), self._args]
        self._fast = _APEBuffers(self)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_fast"] = None  # views into the arrays: rebuilt after unpickling
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if state.get("_h2") is not None:
            self._fast = _APEBuffers(self)

    # ------------------------------------------------------------------ protocol

    def select(self) -> int | None:
        """The next arm: initial round robin, then ``b_t`` (and ``c_t``), or None once stopped."""
        self._require_reset("select")
        if self._stopped:
            return None
        if self.t < self._k:
            return self.t
        if self._pending is not None:
            arm, self._pending = self._pending, None
            return arm
        self.steps += 1
        if self._k == 1:
            self._stopped = True
            return None
        if self._queue:
            self._flush()
        if self._stop_test():
            self._stopped = True
            return None
        f = self._fast
        assert f is not None  # built with the pairwise state (after the first K pulls)
        b, c = kernels.ape_leader(f.flat, self._mins, self._args, f.score)
        if self.pull == "both":
            self._pending = int(c)
            return int(b)
        return int(b) if self.counts[b] <= self.counts[c] else int(c)

    def _stop_test(self) -> bool:
        """``Z1 ≥ 0`` and ``Z2 ≥ 0`` (APE's stopping rule); ``S(t)`` only when it can pass."""
        f, k, eps = self._fast, self._k, self._eps
        assert f is not None
        if not kernels.ape_screen(f.flat, self._mins, self._args, eps, self._witness, f.work):
            return False  # some arm certainly violates it; every row is exact otherwise
        h, neg_g = self._mins[:k], self._mins[k:]
        mask = pareto_mask(self._mu)
        z1 = h[mask].min(initial=np.inf) + eps
        z2 = np.maximum(h, -neg_g)[~mask].min(initial=np.inf)
        if z1 >= 0.0 and z2 >= 0.0:
            self._answer = frozenset(int(i) for i in np.flatnonzero(mask))
            return True
        return False

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Record one outcome of ``arm``; its pairwise updates wait for the next stopping test."""
        if self.__dict__.get("_h2") is None:  # not reset yet, or the initial round
            super().observe(arm, outcome)
            return
        self.counts[arm] += 1
        self.sums[arm] += outcome
        self.t += 1
        self._queue.append(int(arm))

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        a = int(arm)
        n = float(self.counts[a])
        self._muT[:, a] = self.sums[a] / n
        self._inv[a] = 1.0 / n
        self._ell[a] = self._width.ell(n)
        if self.t == self._k and self._k > 1:
            self._build()

    def _flush(self) -> None:
        """Apply the queued pulls, in order: row and column of each in ``M̂ ∓ β`` (``O(K d)``)."""
        f = self._fast
        assert f is not None
        for a in self._queue:
            n = float(self.counts[a])
            kernels.ape_apply(
                f.flat, self._mins, self._args, self._muT, self._inv, self._ell,
                self.sums[a], a, n, f.ell(n), f.c0, f.scale,
            )  # fmt: skip
        self._queue.clear()

    def state(self) -> dict[str, np.ndarray]:
        """The incremental state made exact (copies), for inspection and tests.

        ``lower`` = ``M̂ − β``, ``upper`` = ``M̂ + β`` (diagonal ``+inf``), ``h`` (row minima of
        ``lower``), ``g`` (``−`` row minima of ``upper``),
        ``argmin`` (a column attaining ``h`` in each row of ``lower``) and the sample ``means``.
        """
        self._require_reset("state")
        if self._h2 is None:
            raise AgentProtocolError(
                f"{self.name}: state() is available once every arm has been pulled once."
            )
        self._flush()
        assert self._fast is not None
        kernels.ape_resolve_all(self._fast.flat, self._mins, self._args)
        k = self._k
        return {
            "lower": self._h2[0].copy(),
            "upper": self._h2[1].copy(),
            "h": self._mins[:k].copy(),
            "g": -self._mins[k:],
            "argmin": self._args[:k].copy(),
            "means": self._mu.copy(),
        }

    def recommend(self) -> Answer:
        """``S(t)`` at stopping.

        Before that: the empirical Pareto set of the pulled arms plus every arm not pulled yet.
        """
        self._require_reset("recommend")
        if self._answer is not None:
            return self._answer
        if self._queue:
            self._flush()
        pulled = np.flatnonzero(self.counts)
        if pulled.size == 0:
            return frozenset(range(self._k))
        best = pulled[pareto_mask(self._mu[pulled])]
        unpulled = np.flatnonzero(self.counts == 0)
        return frozenset(int(i) for i in best) | frozenset(int(i) for i in unpulled)


class _APEBuffers:
    """Views and work arrays of one :class:`APE` episode, so that a pull allocates nothing.

    ``flat`` is the ``(K, K, 2)`` array under ``agent._h2`` (its ``(2, K, K)`` view):
    ``flat[i, j, 0]`` = (M̂ − β)(i, j) and ``flat[i, j, 1]`` = (M̂ + β)(i, j), the layout of the
    compiled kernels (:mod:`agents.common.kernels.ape`). A copy whose ``_h2`` lost that
    layout gets it back here.
    """

    __slots__ = ("c0", "ell", "flat", "scale", "score", "work")

    def __init__(self, agent: APE) -> None:
        k = agent._k
        h2 = agent._h2
        assert h2 is not None  # the buffers are views into the built pairwise state
        self.c0, self.scale = float(agent._width.c0), float(agent._width.scale)
        self.ell = agent._width.ell
        flat = h2.transpose(1, 2, 0)
        if not flat.flags.c_contiguous:  # e.g. a copy of the view: back to the kernels' layout
            flat = np.ascontiguousarray(flat)
            agent._h2 = flat.transpose(2, 0, 1)
        self.flat = flat
        self.score, self.work = np.empty(k), np.empty(k)


class _Rounds(PhaseTracking, BaseAgent):
    """Rounds of one pull per active arm, then a classification step (Racing, PAL).

    Subclasses implement ``_classify()`` (called at the end of every round with ``counts`` and
    ``sums`` up to date), which rejects and accepts arms in the book ``_book``.
    """

    def _start(self) -> None:
        k = self.spec.n_arms
        self._book = ClassificationBook(k)
        self._round = 0
        self._start_phases(k, int(self.spec.outcome_dim))

    @property
    def done(self) -> bool:
        """Whether every arm is classified (no active arm left)."""
        return hasattr(self, "_book") and self._book.active.size == 0

    def _plan_phase(self) -> None:
        self._remaining = np.zeros(self.n_arms, dtype=np.int64)
        self._remaining[self._book.active] = 1
        self._left = int(self._book.active.size)
        self._cursor = 0
        self._planned = True

    def _finish_phase(self) -> None:
        self._round += 1
        self._planned = False
        self._classify()

    def _classify(self) -> None:
        raise NotImplementedError

    def _apply(self, remove: np.ndarray, accept: np.ndarray) -> None:
        """Reject ``remove`` (positions among the active arms), then ``accept`` (among the rest)."""
        self._book.reject(remove)
        self._book.accept(accept)

    @property
    def accepted(self) -> list[int]:
        """Arms classified Pareto-optimal so far."""
        return self._book.accepted

    @property
    def rejected(self) -> list[int]:
        """Arms discarded as dominated so far."""
        return self._book.rejected

    def _active_means(self) -> np.ndarray:
        raise NotImplementedError

    def recommend(self) -> Answer:
        """The accepted arms plus the active arms empirically Pareto-optimal among themselves.

        Before the first round ends: every arm.
        """
        self._require_reset("recommend")
        active = self._book.active
        if active.size and self._round > 0:
            active = active[pareto_mask(self._active_means())]
        return self._book.answer(active)


def _accept_sets(big_m: np.ndarray, width: np.ndarray) -> np.ndarray:
    """``P_2`` as a mask, given the margins ``M̂(i, j)`` and widths among the remaining arms.

    ``P_1 = {i : ∀ j ≠ i, M̂(i, j) > w_ij}``; ``P_2 = P_1`` if every arm is in ``P_1``, else
    ``{i ∈ P_1 : ∀ j ∉ P_1, M̂(j, i) > w_ji}`` (Auer et al. 2016, Algorithm 1).
    """
    n = big_m.shape[0]
    diag = np.eye(n, dtype=bool)
    p1 = cast(np.ndarray, ((big_m > width) | diag).all(axis=1))
    if p1.all():
        return p1
    safe = (big_m > width)[~p1][:, p1].all(axis=0)  # rows j ∉ P_1, columns i ∈ P_1
    p2 = np.zeros(n, dtype=bool)
    p2[np.flatnonzero(p1)[safe]] = True
    return p2


class Racing(_Rounds):
    """Pareto racing of Auer, Chiang, Ortner & Drugan (AISTATS 2016, Algorithm 1).

    Unstructured. Round ``t`` pulls every active arm once (so all active arms have ``t`` samples);
    then, with the sample means and ``β = β_ij(t, t)`` of
    :func:`bandit_envs.theory.pareto.ape_confidence`:

    1. remove ``i`` from ``A`` if some ``j ∈ A`` has ``m̂(i, j)_+ > β`` (confidently dominated);
    2. among the remaining arms, ``P_1 = {i : ∀ j ≠ i, M̂(i, j)_+ > β}`` and ``P_2 = P_1`` if
       ``A = P_1``, else ``{i ∈ P_1 : ∀ j ∈ A − P_1, M̂(j, i)_+ > β}``; accept ``P_2`` and remove it
       from ``A``.

    Stop when ``A`` is empty and answer the accepted arms. Step 2 uses ``A`` after step 1
    (neither the paper nor the authors' code fixes the order; a removed arm is dominated on the
    good event, so either order is correct). Correctness with ``threshold="union"``: on the
    event of :func:`~bandit_envs.theory.pareto.ape_confidence` every removed arm is dominated,
    and an accepted arm is dominated by no active arm — nor by a removed one (its dominator
    chain ends in an active or accepted arm) nor later by an accepted one (``P_2``'s
    condition). The ε of ε-PSI is not used:
    ``S*`` is also an ε-Pareto set. The flip side: an instance that is well posed only because
    ε > 0 (e.g. two identical Pareto-optimal arms) has a zero margin, and Racing then never stops
    (the episode ends at ``max_samples``); :class:`APE` and GEGE use ε and stop there.

    **Batch path**: one batch per round (decisions need every round's data).

    Args:
        threshold: ``"union"`` (default, δ-correct) or ``"heuristic"`` (the C++ code's width,
            not δ-correct), as in :func:`bandit_envs.theory.pareto.ape_confidence`.
    """

    card = AgentCard(
        summary="Pareto racing: rounds of one pull per active arm; removes the arms confidently "
        "dominated and accepts those confidently optimal, with APE's pairwise widths",
        paper="Auer, Chiang, Ortner & Drugan, Pareto Front Identification from Stochastic Bandit "
        "Feedback, AISTATS 2016, Algorithm 1",
        heuristics=(
            Heuristic("threshold", lambda v: v == "heuristic", "the authors' C++ confidence width"),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"none"}),
        outcome_dims="any",
        batch=True,
    )

    parameters = {"threshold": Choice(*APE_THRESHOLDS)}

    def __init__(self, threshold: str = "union") -> None:
        self.threshold = threshold

    def _on_reset(self, spec: ProblemSpec) -> None:
        self._sig = _sigma(spec)
        self._start()

    def _active_means(self) -> np.ndarray:
        active = self._book.active
        return self.sums[active] / self.counts[active, None]

    def _classify(self) -> None:
        spec = self.spec
        t = self._round
        beta = float(
            ape_confidence(
                t,
                t,
                self._require_delta(),
                self._sig,
                threshold=self.threshold,
                n_arms=spec.n_arms,
                n_objectives=int(spec.outcome_dim),
            )
        )
        big_m = dominance_margins(self._active_means())
        # m̂(i, j)_+ > β  ⇔  −M̂(i, j) > β (β ≥ 0); the diagonal M̂(i, i) = 0 never triggers
        remove = cast(np.ndarray, (-big_m > beta).any(axis=1))
        keep = ~remove
        sub = big_m[keep][:, keep]
        accept = _accept_sets(np.maximum(sub, 0.0), np.full(sub.shape, beta))
        self._apply(remove, accept)


class PAL(_Rounds):
    """PAL (Zuluaga et al., ICML 2013) with a linear kernel, as the GEGE authors run it.

    As in the GEGE authors' Python code (Zuluaga, Sergent, Krause & Püschel's PAL "simplified by
    using insights from Auer et al. 2016").

    Round ``t`` pulls every active arm once and adds them to ``V_t = Σ_s x_{a_s} x_{a_s}ᵀ`` (all
    rounds' samples); ``Θ̂_t = V_t⁻¹ Σ_s x_{a_s} y_sᵀ`` in the coordinates of
    :func:`bandit_envs.theory.linalg.reduce_features` (``V_t`` is invertible there after round 1
    — the code's ``10⁻⁶ I`` ridge is not needed). Widths ``β_i = √(b_t ‖x_i‖²_{V_t⁻¹})`` with

    * ``constants="practical"`` (default, the authors' code): ``b_t = log(K d π² t² / (6δ)) / 5``
      — the ``/5`` was "tuned empirically" and no σ appears. **Heuristic, not δ-correct.**
    * ``constants="theory"``: ``b_t = 2 σ² log(K d π² t² / (6δ))``, i.e. Zuluaga et al.'s
      ``β_t = 2 log(|E| π² t²/(6δ))`` (Thm 1, ``|E| = K d``) with the linear-kernel posterior
      variance ``σ² ‖x‖²_{V⁻¹}`` — the un-tuned constant. Thm 1 is a Bayesian guarantee (Θ drawn
      from the prior); there is no frequentist δ-correctness proof for this adaptive design, so
      it too is **heuristic** in the sense of this library (it is conservative in practice).

    Classification, among the active arms ``A`` with ``w_ij = β_i + β_j``: remove ``i`` if
    ``max_{j≠i} [m̂(i, j) − w_ij] ≥ 0``; among the rest, ``P_1 = {i : min_{j≠i} [M̂(i, j) − w_ij]
    > 0}``, ``P_2 = {j ∈ P_1 : ∀ i ∉ P_1, M̂(i, j) − w_ij > 0}`` (``P_1`` if all are in ``P_1``);
    accept ``P_2``. Stop when ``A`` is empty. The ε of ε-PSI is not used, so, as for
    :class:`Racing`, an instance well posed only because ε > 0 (identical Pareto-optimal arms)
    is never finished (the episode ends at ``max_samples``).

    **Batch path**: one batch per round.

    Args:
        constants: ``"practical"`` or ``"theory"`` (above).
    """

    card = AgentCard(
        summary="PAL with a linear kernel: rounds of one pull per active arm, least squares on "
        "the features, widths sqrt(b_t ||x||^2_{V^-1}) with the empirically tuned /5 of the "
        "GEGE authors' code (heuristic)",
        paper="Zuluaga, Sergent, Krause & Püschel, Active Learning for Multi-Objective "
        "Optimization, ICML 2013 (PAL), as in the code of Kone, Kaufmann & Richert "
        "(AISTATS 2025)",
        heuristics=(
            Heuristic(
                "constants",
                lambda v: v == "practical",
                "b_t = log(K d pi^2 t^2/(6 delta))/5, the /5 tuned empirically and no sigma "
                "(default)",
            ),
            Heuristic(
                "constants",
                lambda v: v == "theory",
                "Zuluaga et al.'s Bayesian guarantee, no frequentist proof for this adaptive "
                "design",
            ),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
        outcome_dims="any",
        batch=True,
    )

    parameters = {"constants": Choice(*PAL_CONSTANTS)}

    def __init__(self, constants: str = "practical") -> None:
        self.constants = constants

    def _on_reset(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        features = np.eye(k) if spec.features is None else np.asarray(spec.features, float)
        self._z, _ = reduce_features(features)
        self._sig = _sigma(spec)
        self._start()
        self._theta = np.zeros((self._z.shape[1], int(spec.outcome_dim)))

    def _active_means(self) -> np.ndarray:
        return self._z[self._book.active] @ self._theta

    def _classify(self) -> None:
        spec = self.spec
        t = self._round
        z = self._z
        n = self.counts.astype(np.float64)
        gram = (z.T * n) @ z
        inv = np.linalg.inv(gram)
        self._theta = inv @ (z.T @ self.sums)
        log_term = math.log(
            spec.n_arms * int(spec.outcome_dim) * math.pi**2 * t * t / (6.0 * self._require_delta())
        )
        b_t = log_term / 5.0 if self.constants == "practical" else 2.0 * self._sig**2 * log_term
        za = z[self._book.active]
        lev = np.maximum(np.einsum("ij,jk,ik->i", za, inv, za), 0.0)
        beta = np.sqrt(b_t * lev)
        big_m = dominance_margins(self._active_means())
        width = beta[:, None] + beta[None, :]
        diag = np.eye(beta.size, dtype=bool)
        remove = ((-big_m - width >= 0.0) & ~diag).any(axis=1)
        keep = ~remove
        sub_w = width[keep][:, keep]
        accept = _accept_sets(big_m[keep][:, keep], sub_w)
        self._apply(remove, accept)
