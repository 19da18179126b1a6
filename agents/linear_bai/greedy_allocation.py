"""Shared machinery of the Soare, Lazaric & Munos (NIPS 2014) agents: greedy designs, tracking.

* :func:`greedy_scores` / :func:`select_greedy` / :func:`greedy_pick`: the incremental greedy
  design step ``argmin_x max_v w_v vᵀ(A + x xᵀ)⁻¹v`` (App. C, Eq. 22 and Eq. 26) with
  Sherman–Morrison scores, vectorised over arms and targets, and a lexicographic tie-break (the
  paper does not say how ties are broken; see :func:`select_greedy`).
* :class:`GreedyState`: the same step with ``O(mK + K²)`` rank-one updates of the score
  ingredients, for long reward-independent greedy sequences.
* :class:`GreedySequence` (+ a small per-process memo, :func:`cached_greedy_sequence`): the
  deterministic greedy pull sequence of a static allocation, with cumulative counts.
* :func:`adams_next` / :func:`adams_counts`: tracking of a design by Adams' rule
  "pull argmin_i T_i / w_i" (the sequential form of the efficient rounding of Pukelsheim 2006,
  ch. 12, which App. C uses), one pull at a time or in closed form.
* :class:`GramState`: least squares with Sherman–Morrison updates (App. C Eq. 22) and exact
  refreshes, on per-arm counts and reward sums.
* :func:`initial_arms`, :func:`empirical_stop`, :func:`non_dominated`: the initialisation
  (one pull of each arm of a spanning set, as in Sec. 6), the empirical stopping rule (Eq. 11)
  and the elimination rule (Lemma 4, Eq. 16).

Everything works in the coordinates of an orthonormal basis of the span of the arms
(:func:`bandit_envs.theory.linalg.reduce_features`), so rank-deficient features are fine.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from agents.common.design_cache import DesignMemo
from agents.common.kernels import soare as soare_kernels

__all__ = [
    "TIE_RTOL",
    "GreedyPhase",
    "SequencePlan",
    "TrackingPlan",
    "next_check",
    "GramState",
    "GreedySequence",
    "GreedyState",
    "adams_counts",
    "adams_next",
    "cached_greedy_sequence",
    "empirical_stop",
    "greedy_pick",
    "greedy_scores",
    "initial_arms",
    "non_dominated",
    "pair_indices",
    "select_greedy",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

#: relative tolerance of the tie-breaking rule of :func:`select_greedy` (our choice).
TIE_RTOL = 1e-9
#: rank-one updates between two exact re-inversions (our choice: it stops the round-off of the
#: Sherman–Morrison updates from drifting over 10⁶-pull runs).
REFRESH_EVERY = 10_000


# --------------------------------------------------------------------------- greedy step
def greedy_scores(
    inv: FloatArray, arms: FloatArray, targets: FloatArray, weights: FloatArray | None = None
) -> FloatArray:
    """Scores ``w_i · v_iᵀ(A + x xᵀ)⁻¹v_i`` for every target ``v_i`` and candidate arm ``x``.

    Sherman–Morrison (Soare et al. 2014, App. C, Eq. 22): with ``B = A⁻¹``,
    ``vᵀ(A + xxᵀ)⁻¹v = vᵀBv − (vᵀBx)²/(1 + xᵀBx)``; vectorised as ``P = V B Xᵀ`` (m×K),
    ``q = diag(V B Vᵀ)``, ``s = diag(X B Xᵀ)``. Cost ``O((m + K) d K)``.

    Args:
        inv: ``B = A⁻¹``, shape (d, d).
        arms: candidate arms ``X``, shape (K, d).
        targets: target directions ``V``, shape (m, d).
        weights: ``w``, shape (m,); default all ones.

    Returns:
        The score matrix, shape (m, K).

    """
    vb = targets @ inv
    p = np.ascontiguousarray(vb @ arms.T, dtype=np.float64)
    q = np.einsum("ij,ij->i", vb, targets)
    s = np.einsum("ij,ij->i", arms @ inv, arms)
    w = _weights(weights, q.size)
    scores = np.empty_like(p)
    soare_kernels.greedy_score_matrix(p, q, s, w, scores)
    return scores


def _weights(weights: FloatArray | None, m: int) -> FloatArray:
    """The target weights as a contiguous float array (ones for None: ×1 is exact)."""
    if weights is None:
        return np.ones(m)
    return np.ascontiguousarray(weights, dtype=np.float64)


def select_greedy(scores: FloatArray, rtol: float = TIE_RTOL) -> int:
    """``argmin_x max_i scores[i, x]`` with a lexicographic tie-break (the paper leaves ties open).

    Candidates whose max is within ``rtol`` (relative) of the best are compared on their
    descending-sorted vector of target scores: second largest, then third largest, …, each
    level with the same relative tolerance (plus an absolute floor of ``rtol²`` times the best
    max, for scores that are numerically zero); remaining ties go to the lowest index. Exact
    ties are the norm on the instance of Soare et al.'s Sec. 6 (with A = I every candidate
    leaves some target at the current max), and first-index tie-breaking then pulls e₁ forever
    for both G and XY; with this rule e₂, …, e_d get equal counts and e₁ shares its slot with
    the near-duplicate arm.

    Args:
        scores: shape (m, K), e.g. from :func:`greedy_scores`.
        rtol: relative tolerance of a tie.

    Returns:
        The chosen arm index.

    """
    arr = np.ascontiguousarray(scores, dtype=np.float64)
    return int(soare_kernels.select_greedy_scores(arr, float(rtol)))


def greedy_pick(
    inv: FloatArray,
    arms: FloatArray,
    targets: FloatArray,
    weights: FloatArray | None = None,
    rtol: float = TIE_RTOL,
) -> int:
    """One greedy design step ``argmin_x max_v w_v vᵀ(A + xxᵀ)⁻¹v`` (Eq. 22 / Eq. 26).

    G-allocation: targets = arms; XY-allocation: targets = pairwise differences; XY-Adaptive:
    the active differences (Eq. 17); oracle: ``x* − x`` with ``w = 1/Δ²`` (Eq. 5).
    """
    return select_greedy(greedy_scores(inv, arms, targets, weights), rtol)


def _sym_inverse(a: FloatArray) -> FloatArray:
    inv = np.linalg.inv(a)
    return 0.5 * (inv + inv.T)


class GreedyState:
    """The greedy design step with rank-one updates of its ingredients (App. C, Eq. 22).

    Keeps ``P = V B Xᵀ``, ``q = diag(V B Vᵀ)`` and ``G = X B Xᵀ`` for the current
    ``B = A⁻¹``; pulling arm ``a`` updates them in ``O(mK + K²)`` (with ``u = B x_a``:
    ``P ← P − P[:, a] G[a]/(1 + G_aa)``, ``q ← q − P[:, a]²/(1 + G_aa)``,
    ``G ← G − G[:, a] G[a]/(1 + G_aa)``), and everything is recomputed exactly from the counts
    every :data:`REFRESH_EVERY` pulls (drift control).

    Args:
        arms: candidate arms, shape (K, d) (reduced coordinates).
        targets: target directions, shape (m, d).
        weights: target weights, shape (m,), or None for ones.
        counts: initial pull counts (K,), whose Gram matrix must be invertible.
        rtol: tie tolerance of :func:`select_greedy`.

    """

    def __init__(
        self,
        arms: FloatArray,
        targets: FloatArray,
        weights: FloatArray | None,
        counts: IntArray,
        rtol: float = TIE_RTOL,
    ) -> None:
        self.arms = np.ascontiguousarray(arms, dtype=np.float64)
        self.targets = np.ascontiguousarray(targets, dtype=np.float64)
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        self._w = _weights(weights, self.targets.shape[0])
        self.counts = np.array(counts, dtype=np.int64)
        self.rtol = rtol
        self._since = 0
        self.refresh()

    def refresh(self) -> None:
        """Recompute ``B``, ``P``, ``q``, ``G`` exactly from the counts."""
        a = (self.arms.T * self.counts) @ self.arms
        b = _sym_inverse(0.5 * (a + a.T))
        vb = self.targets @ b
        self._p = np.ascontiguousarray(vb @ self.arms.T)
        self._q = np.einsum("ij,ij->i", vb, self.targets)
        self._g = np.ascontiguousarray(self.arms @ b @ self.arms.T)
        self._s = np.diagonal(self._g).copy()
        self._since = 0

    @property
    def max_value(self) -> float:
        """``max_v w_v vᵀA⁻¹v`` for the current counts (``U`` of Eq. 18 when w ≡ 1)."""
        q = self._q if self.weights is None else self._q * self.weights
        return float(max(q.max(), 0.0)) if q.size else 0.0

    def scores(self) -> FloatArray:
        """The (m, K) score matrix of the next step."""
        out = np.empty_like(self._p)
        soare_kernels.greedy_score_matrix(self._p, self._q, self._s, self._w, out)
        return out

    def pick(self) -> int:
        """The greedy arm for the next pull (does not pull it)."""
        return int(soare_kernels.greedy_choice(self._p, self._q, self._s, self._w, self.rtol))

    def add(self, arm: int) -> None:
        """Account for one pull of ``arm`` (rank-one update)."""
        self.counts[arm] += 1
        self._since += 1
        if self._since >= REFRESH_EVERY:
            self.refresh()
            return
        soare_kernels.greedy_add(self._p, self._q, self._g, self._s, int(arm))

    def step(self) -> int:
        """Pick the greedy arm, account for its pull and return it."""
        arm = self.pick()
        self.add(arm)
        return arm

    def run(
        self,
        seq: NDArray[np.int32],
        start: int,
        n: int,
        u_target: float | None = None,
        min_pos: int = 0,
    ) -> int:
        """Greedy pulls written to ``seq[start:start + n]``, in one compiled call.

        Stops early at an exact refresh (every :data:`REFRESH_EVERY` pulls) and, with
        ``u_target``, after the first pull at a position ≥ ``min_pos`` where
        :attr:`max_value` ≤ ``u_target`` (the end of an XY-Adaptive phase). Returns the number
        of pulls made (≥ 1 when n ≥ 1); the caller loops.
        """
        room = REFRESH_EVERY - self._since
        chunk = min(n, room)
        done = int(
            soare_kernels.greedy_run(
                self._p, self._q, self._g, self._s, self._w, self.counts, seq,
                start, chunk, chunk == room, self.rtol,
                u_target is not None, -1.0 if u_target is None else float(u_target), min_pos,
            )
        )  # fmt: skip
        self._since += done
        if self._since >= REFRESH_EVERY:
            self.refresh()
        return done


# --------------------------------------------------------------------------- greedy sequences
class GreedySequence:
    """The reward-independent greedy pull sequence of a static allocation, extended lazily.

    The sequence starts with one pull of each initial arm (in index order, see
    :func:`initial_arms`) and continues with :meth:`GreedyState.step`. Cumulative counts are stored
    every ``1024`` pulls so that :meth:`counts_at` costs ``O(K + 1024)``.

    Args:
        arms: reduced arm features (K, d).
        targets: target directions (m, d).
        weights: target weights (m,) or None.
        init: indices of the initial arms (their Gram matrix must be invertible).

    """

    CHECKPOINT = 1024

    def __init__(
        self,
        arms: FloatArray,
        targets: FloatArray,
        weights: FloatArray | None,
        init: IntArray,
    ) -> None:
        k = arms.shape[0]
        self.n_arms = k
        counts = np.bincount(init, minlength=k).astype(np.int64)
        self._state = GreedyState(arms, targets, weights, counts)
        self._seq = np.empty(max(4096, 2 * init.size), dtype=np.int32)
        self._seq[: init.size] = np.sort(init)
        self._len = int(init.size)
        self._cum = [np.zeros(k, dtype=np.int64)]

    def __len__(self) -> int:
        return self._len

    def ensure(self, n: int) -> None:
        """Extend the sequence to at least ``n`` pulls."""
        if n <= self._len:
            return
        target = max(n, self._len + min(max(self._len // 8, 1024), 1 << 16))
        if target > self._seq.size:
            grown = np.empty(max(target, 2 * self._seq.size), dtype=np.int32)
            grown[: self._len] = self._seq[: self._len]
            self._seq = grown
        seq, state = self._seq, self._state
        i = self._len
        while i < target:
            i += state.run(seq, i, target - i)
        self._len = target
        c = self.CHECKPOINT
        while len(self._cum) * c <= self._len:
            j = len(self._cum)
            block = np.bincount(seq[(j - 1) * c : j * c], minlength=self.n_arms)
            self._cum.append(self._cum[-1] + block)

    def arm_at(self, i: int) -> int:
        """The arm of pull number ``i`` (0-based)."""
        self.ensure(i + 1)
        return int(self._seq[i])

    def counts_at(self, n: int) -> IntArray:
        """Pull counts per arm after the first ``n`` pulls."""
        self.ensure(n)
        j = n // self.CHECKPOINT
        base = self._cum[j]
        tail = self._seq[j * self.CHECKPOINT : n]
        return base + np.bincount(tail, minlength=self.n_arms)

    def arms(self, start: int, stop: int) -> NDArray[np.int32]:
        """The arms of pulls ``start .. stop-1`` (a copy)."""
        self.ensure(stop)
        return self._seq[start:stop].copy()


#: the greedy sequences of the last few instances (a sequence is extended as episodes need it).
_SEQUENCES = DesignMemo(maxsize=6)


def cached_greedy_sequence(
    arms: FloatArray, targets: FloatArray, weights: FloatArray | None, init: IntArray
) -> GreedySequence:
    """A per-process memo of :class:`GreedySequence` (static allocations are deterministic).

    The greedy sequence of a static allocation does not depend on the rewards, so it is a
    deterministic function of the instance and the episodes on one instance share it: it is
    computed once per process, which makes 10⁶-pull static runs affordable. Keyed on the exact
    bytes of the inputs; the few most recent sequences are kept.
    """
    key = (
        arms.shape,
        arms.tobytes(),
        targets.shape,
        targets.tobytes(),
        None if weights is None else weights.tobytes(),
        tuple(int(i) for i in init),
    )
    sequence: GreedySequence = _SEQUENCES.get(
        key, lambda: GreedySequence(arms, targets, weights, init)
    )
    return sequence


# --------------------------------------------------------------------------- design tracking
def adams_next(counts: IntArray, weights: FloatArray, support: NDArray[np.intp]) -> int:
    """The next pull of Adams tracking: ``argmin_{i ∈ supp} T_i / w_i``, lowest index on ties.

    Started from zero counts this is Pukelsheim's efficient rounding (the procedure of Soare et
    al.'s App. C, whose printed text has index typos; we checked on random designs that the two
    agree pull for pull); started from the initialisation counts it tracks the design after the
    initial pulls.
    """
    return int(soare_kernels.adams_pick(counts, weights, support))


def adams_counts(
    weights: FloatArray, start: IntArray, support: NDArray[np.intp], total: int
) -> IntArray:
    """Counts after Adams tracking from ``start`` until ``total`` pulls, in closed form.

    The sequential rule of :func:`adams_next` takes the pulls in increasing order of the keys
    ``(k / w_i, i)``, ``k = start_i, start_i + 1, …`` (each arm's keys increase), so after
    ``total`` pulls the counts are those of the smallest keys; this function finds them
    without the sequence (``O(K)`` numpy passes), with the same floating-point keys, so that
    ``adams_counts`` and repeated :func:`adams_next` agree exactly.

    Args:
        weights: design weights (K,), positive on ``support``.
        start: initial counts (K,) (e.g. the initialisation pulls).
        support: arms that are tracked (others keep their ``start`` count).
        total: total number of pulls, ``≥ start.sum()``.

    Returns:
        The counts (K,), int64.

    """
    out = np.array(start, dtype=np.int64)
    extra = int(total) - int(out.sum())
    if extra < 0:
        raise ValueError(f"adams_counts: total {total} < the initial pulls {int(out.sum())}.")
    if extra == 0:
        return out
    ws = weights[support]
    c0 = out[support]
    n_supp = int(c0.sum()) + extra
    cs = np.maximum(c0, np.floor(n_supp * ws / ws.sum())).astype(np.int64)
    diff = n_supp - int(cs.sum())
    while diff > 0:
        i = int(np.argmin(cs / ws))
        cs[i] += 1
        diff -= 1
    while diff < 0:
        last = np.where(cs > c0, (cs - 1) / ws, -np.inf)
        i = int(last.size - 1 - np.argmax(last[::-1]))
        cs[i] -= 1
        diff += 1
    while True:  # exchange until the taken keys are exactly the smallest ones
        last = np.where(cs > c0, (cs - 1) / ws, -np.inf)
        nxt = cs / ws
        i_out = int(last.size - 1 - np.argmax(last[::-1]))
        i_in = int(np.argmin(nxt))
        if last[i_out] < nxt[i_in] or (last[i_out] == nxt[i_in] and i_out < i_in):
            break
        cs[i_out] -= 1
        cs[i_in] += 1
    out[support] = cs
    return out


# --------------------------------------------------------------------------- least squares
class GramState:
    """Least squares on per-arm counts and reward sums, with Sherman–Morrison updates.

    ``A = η I + Σ_k n_k z_k z_kᵀ``, ``b = Σ_k z_k s_k`` (``s_k`` the reward sum of arm k),
    ``θ̂ = A⁻¹ b`` (OLS for η = 0, the ridge estimate of Prop. 2 otherwise). Single pulls update
    ``B = A⁻¹`` by Sherman–Morrison (App. C Eq. 22), batches (and every
    :data:`REFRESH_EVERY` single pulls) recompute it exactly. ``B`` is ``None`` until ``A`` is
    invertible.

    Args:
        arms: reduced features (K, d).
        ridge: η ≥ 0.

    """

    def __init__(self, arms: FloatArray, ridge: float = 0.0) -> None:
        self.arms = np.ascontiguousarray(arms, dtype=np.float64)
        self.ridge = float(ridge)
        k, d = arms.shape
        self.counts = np.zeros(k, dtype=np.int64)
        self.sums = np.zeros(k)
        self.b, self._theta = np.zeros(d), np.zeros(d)
        self.n = 0
        self.inv: FloatArray | None = None
        self._since = 0
        if self.ridge > 0:
            self.inv = np.eye(d) / self.ridge

    def gram(self) -> FloatArray:
        """The current ``A`` (with the ridge term)."""
        a = (self.arms.T * self.counts) @ self.arms
        a = 0.5 * (a + a.T)
        if self.ridge > 0:
            a += self.ridge * np.eye(a.shape[0])
        return a

    def refresh(self) -> None:
        """Recompute ``B = A⁻¹`` exactly (``None`` if ``A`` is numerically singular)."""
        a = self.gram()
        evals = np.linalg.eigvalsh(a)
        if evals[0] <= 1e-12 * max(evals[-1], np.finfo(float).tiny):
            self.inv = None
        else:
            self.inv = _sym_inverse(a)
        self._since = 0

    def add(self, arm: int, reward: float) -> None:
        """One pull of ``arm`` with outcome ``reward``."""
        self.counts[arm] += 1
        self.sums[arm] += reward
        self.n += 1
        if self.inv is None or self._since + 1 >= REFRESH_EVERY:
            self.b += self.arms[arm] * reward
            if self.inv is None:
                if self.n >= self.arms.shape[1]:
                    self.refresh()
                return
            self.b = self.arms.T @ self.sums  # also stops round-off accumulating in b
            self.refresh()
            return
        self._since += 1
        soare_kernels.gram_update(self.inv, self.b, self.arms[arm], reward)

    def add_and_check(
        self,
        arm: int,
        reward: float,
        beta: float | None,
        counts: IntArray,
        sums: FloatArray,
    ) -> int:
        """:meth:`add`, then (``beta`` given) the empirical stopping rule (Eq. 11) at β = ``beta``.

        The pull is also counted in the caller's ``counts`` and ``sums[:, 0]``. One compiled
        call in the common case. Returns the arm to stop on, −1 to go on, or −2 when no check
        was made (``beta`` is None, or ``A`` is still singular).

        Raises:
            IndexError: ``arm`` is not an arm.

        """
        if self.inv is None or self._since + 1 >= REFRESH_EVERY:
            counts[arm] += 1
            sums[arm, 0] += reward
            self.add(arm, reward)
            if beta is None or self.inv is None:
                return -2
            best = empirical_stop(self.arms, self.theta(), self.inv, beta)
            return -1 if best is None else best
        out = int(
            soare_kernels.gram_pull(
                self.arms, self.inv, self.b, self._theta, self.counts, self.sums, counts, sums,
                arm, reward, 0.0 if beta is None else beta, beta is not None,
            )
        )  # fmt: skip
        if out == -3:
            raise IndexError(f"arm {arm} is out of range 0..{self.arms.shape[0] - 1}.")
        self.n += 1
        self._since += 1
        return out

    def add_batch(self, counts: IntArray, sums: FloatArray) -> None:
        """A batch: per-arm pull counts and reward sums (exact re-inversion).

        A batch of a single pull goes through :meth:`add`, so that the batch path of an agent
        that checks after every pull does the same arithmetic as its one-pull path.
        """
        if int(counts.sum()) == 1:
            arm = int(np.argmax(counts))
            self.add(arm, float(sums[arm]))
            return
        self.counts += counts
        self.sums += sums
        self.b = self.arms.T @ self.sums
        self.n += int(counts.sum())
        self.refresh()

    def theta(self) -> FloatArray:
        """``θ̂ = A⁻¹ b`` (requires ``B``)."""
        assert self.inv is not None
        return self.inv @ self.b


# --------------------------------------------------------------------------- rules
def initial_arms(features: FloatArray, z: FloatArray) -> IntArray:
    """One pull of each of these arms initialises every agent (OLS needs an invertible A).

    The canonical basis when the arms contain it (the paper's choice: "pulling once each
    canonical arm", Sec. 6, which the counts of App. E show for every algorithm), otherwise
    ``r = rank`` linearly independent arms chosen by pivoted Gram–Schmidt on the reduced
    features (largest residual first, lowest index on ties).

    Args:
        features: raw features (K, h).
        z: reduced features (K, r).

    Returns:
        Sorted arm indices (r,).

    """
    k, h = features.shape
    r = z.shape[1]
    if r == h:
        picks = []
        for i in range(h):
            e = np.zeros(h)
            e[i] = 1.0
            hit = np.flatnonzero(np.all(features == e, axis=1))
            if hit.size == 0:
                break
            picks.append(int(hit[0]))
        if len(picks) == h:
            return np.array(sorted(picks), dtype=np.int64)
    resid = z.copy()
    chosen: list[int] = []
    for _ in range(r):  # a loop over dimensions, vectorised over arms
        norms = np.einsum("ij,ij->i", resid, resid)
        norms[chosen] = -1.0
        j = int(np.argmax(norms))
        chosen.append(j)
        q = resid[j] / math.sqrt(norms[j])
        resid = resid - np.outer(resid @ q, q)
    return np.array(sorted(chosen), dtype=np.int64)


def pair_indices(active: NDArray[np.intp]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Unordered pairs ``(i, j)``, ``i < j``, of the given arm indices (the set 𝒴 up to sign)."""
    a, b = np.triu_indices(active.size, 1)
    return active[a], active[b]


def empirical_stop(
    z: FloatArray,
    theta: FloatArray,
    inv: FloatArray,
    beta: float,
    arms: NDArray[np.intp] | None = None,
) -> int | None:
    """The empirical stopping rule (Eq. 11, Lemma 3): the arm to return, or None.

    Stop iff the empirical best ``x̂ = Π(θ̂)`` (the only possible candidate) satisfies, for all
    ``x' ≠ x̂``, ``β‖x̂ − x'‖_{A⁻¹} ≤ (x̂ − x')ᵀθ̂`` with a positive gap (the gap condition only
    matters when β‖·‖ = 0, e.g. noiseless runs). ``arms`` restricts both ``x̂`` and ``x'``
    (XY-Adaptive's within-phase check on the active arms); argmax ties go to the lowest index.
    """
    sub = _NO_ARMS if arms is None else np.ascontiguousarray(arms, dtype=np.int64)
    z, theta, inv = (np.ascontiguousarray(a, dtype=np.float64) for a in (z, theta, inv))
    best = int(soare_kernels.empirical_stop_rule(z, theta, inv, float(beta), sub))
    return None if best < 0 else best


_NO_ARMS = np.empty(0, dtype=np.int64)


def non_dominated(
    z: FloatArray,
    theta: FloatArray,
    inv: FloatArray,
    beta: float,
    diffs: FloatArray | None = None,
) -> NDArray[np.bool_]:
    """Arms not dominated under (θ̂, A) (Lemma 4, Eq. 16).

    ``x'`` dominates ``x`` iff ``β‖x' − x‖_{A⁻¹} < (x' − x)ᵀθ̂`` (strict, ``x' ≠ x``, ``x'`` over
    all arms; with ``x' = x`` allowed, the non-strict test of Fig. 3 would remove every arm). The
    empirical best is never dominated, so the result is never empty. Gaps are computed from the
    differences directly, not as differences of means (less round-off).

    Args:
        z: reduced features (K, d).
        theta: the estimate θ̂ (d,).
        inv: ``A⁻¹`` (d, d).
        beta: the multiplier β.
        diffs: optionally the precomputed differences ``z[None] − z[:, None]`` (K, K, d).

    Returns:
        A boolean mask (K,).

    """
    if diffs is None:
        diffs = z[None, :, :] - z[:, None, :]  # [x, x'] = z_x' - z_x
    gaps = diffs @ theta
    quad = ((diffs @ inv) * diffs).sum(axis=-1)
    dominated = (gaps > 0.0) & (beta * beta * quad < gaps * gaps)
    np.fill_diagonal(dominated, False)
    return ~dominated.any(axis=1)


# --------------------------------------------------------------------------- allocation plans
class SequencePlan:
    """A reward-independent allocation given by a greedy sequence (:class:`GreedySequence`).

    Plans answer two questions: the arm of pull ``i`` (one-pull path) and the counts after
    ``n`` pulls (batch path); both paths therefore follow the same allocation exactly.
    """

    def __init__(self, sequence: GreedySequence) -> None:
        self.sequence = sequence

    def next_arm(self, i: int, counts: IntArray) -> int:
        """The arm of pull ``i`` (0-based; ``counts`` = counts after ``i`` pulls, unused)."""
        return self.sequence.arm_at(i)

    def counts_at(self, n: int) -> IntArray:
        """Counts after ``n`` pulls."""
        return self.sequence.counts_at(n)


class TrackingPlan:
    """Initial pulls, then Adams tracking of a design (the efficient rounding of App. C).

    Args:
        weights: the design (K,), normalised here; arms with weight ≤ 1e-12 are never tracked.
        init: indices of the initial arms (pulled first, once each, in index order).

    """

    SUPPORT_TOL = 1e-12

    def __init__(self, weights: FloatArray, init: IntArray) -> None:
        w = np.asarray(weights, dtype=np.float64)
        self.weights = w / w.sum()
        self.support = np.flatnonzero(self.weights > self.SUPPORT_TOL)
        self.init = np.sort(np.asarray(init, dtype=np.int64))
        self.start = np.bincount(self.init, minlength=w.size).astype(np.int64)

    def next_arm(self, i: int, counts: IntArray) -> int:
        """The arm of pull ``i`` given the counts after ``i`` pulls."""
        if i < self.init.size:
            return int(self.init[i])
        return adams_next(counts, self.weights, self.support)

    def counts_at(self, n: int) -> IntArray:
        """Counts after ``n`` pulls (closed form, :func:`adams_counts`)."""
        if n <= self.init.size:
            return np.bincount(self.init[:n], minlength=self.weights.size).astype(np.int64)
        return adams_counts(self.weights, self.start, self.support, n)


def next_check(n: int, growth: float) -> int:
    """The next stopping check after one at ``n`` pulls: ``max(n + 1, ⌈(1 + g) n⌉)``."""
    if growth <= 0.0:
        return n + 1
    return max(n + 1, math.ceil((1.0 + growth) * n))


class GreedyPhase:
    """One XY-Adaptive phase (Sec. 5, Fig. 3, Eq. 17–18), computed lazily without rewards.

    The initial arms once each, then greedy XY steps on ``targets`` until
    ``U(t) = max_y yᵀA_t⁻¹y ≤ u_target`` and at least ``min_len`` greedy steps were made
    (Eq. 18). The phase is extended on demand (:meth:`ensure`), so its cost is proportional to
    the pulls actually made, and a memoised phase can be shared by episodes and extended later.

    Args:
        arms: reduced features (K, d).
        targets: the active directions Ŷ_j (m, d).
        init: initial arms.
        u_target: α·U_{j−1}.
        min_len: minimal number of greedy steps.

    """

    CHECKPOINT = 1024

    def __init__(
        self,
        arms: FloatArray,
        targets: FloatArray,
        init: IntArray,
        u_target: float,
        min_len: int,
    ) -> None:
        k = arms.shape[0]
        self.n_arms = k
        self.u_target = u_target
        self.min_len = min_len
        self._state = GreedyState(arms, targets, None, np.bincount(init, minlength=k))
        self._init_size = int(init.size)
        self._seq = np.empty(max(1024, 2 * init.size), dtype=np.int32)
        self._seq[: init.size] = np.sort(init)
        self._len = int(init.size)
        self._cum = [np.zeros(k, dtype=np.int64)]
        self.complete = False
        self.U = self._state.max_value
        self._update()

    def _update(self) -> None:
        self.U = self._state.max_value
        steps = self._len - self._init_size
        if self.U <= self.u_target and steps >= self.min_len:
            self.complete = True

    @property
    def computed(self) -> int:
        """Pulls computed so far (the whole phase once ``complete``)."""
        return self._len

    @property
    def length(self) -> int | None:
        """The phase length (initial pulls included), or None while not complete."""
        return self._len if self.complete else None

    def ensure(self, n: int) -> None:
        """Compute the phase up to ``n`` pulls, or to its end if it is shorter."""
        if self.complete or n <= self._len:
            return
        if n > self._seq.size:
            grown = np.empty(max(n, 2 * self._seq.size), dtype=np.int32)
            grown[: self._len] = self._seq[: self._len]
            self._seq = grown
        state, seq = self._state, self._seq
        i = self._len
        min_pos = self._init_size + self.min_len
        while i < n:
            i += state.run(seq, i, n - i, self.u_target, min_pos)
            self._len = i
            self._update()
            if self.complete:
                break
        c = self.CHECKPOINT
        while len(self._cum) * c <= self._len:
            j = len(self._cum)
            block = np.bincount(seq[(j - 1) * c : j * c], minlength=self.n_arms)
            self._cum.append(self._cum[-1] + block)

    def next_arm(self, i: int, counts: IntArray) -> int:
        """The arm of pull ``i`` of the phase."""
        self.ensure(i + 1)
        return int(self._seq[i])

    def counts_at(self, n: int) -> IntArray:
        """Counts after the first ``n`` pulls of the phase (``n`` ≤ its length)."""
        self.ensure(n)
        j = n // self.CHECKPOINT
        return self._cum[j] + np.bincount(self._seq[j * self.CHECKPOINT : n], minlength=self.n_arms)
