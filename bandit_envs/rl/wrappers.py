"""Wrappers for reinforcement-learning users: a Markov observation, action masks, a flat action.

The environment's own observation is the outcome of the last pull (``docs/concepts.md``): an RL
policy that sees only that cannot know what it has learnt so far. These wrappers give it what it
needs:

* :class:`SufficientStatistics` replaces the observation by the running sufficient statistics of
  the episode — pull counts, empirical means per arm and output, the elapsed fraction of the
  horizon and, for linear models, the ridge estimate θ̂ and the inverse design matrix
  (:class:`BanditStatistics`). Together with the public :class:`~bandit_envs.ProblemSpec`
  this is a Markov state for Gaussian noise: the posterior of the means depends on the data only
  through these numbers.
* :class:`ActionMask` exposes ``action_masks()`` (the convention of sb3-contrib's
  ``MaskablePPO``) and ``info["action_mask"]``: arms whose means are public (the constrained
  family's ``known_arms``) and, once a fixed budget is spent, every arm are masked.
* :class:`DiscretePulls` replaces the ``MultiDiscrete([K + 1] + [2] * n_items)`` action by
  ``Discrete(K + 1)``: pull arm ``k`` or stop, the answer being given by a recommender
  (by default :class:`PlugInRecommender`, the task's plug-in rule on the estimates).

Order of wrapping (outermost last)::

    env = gym.make("LinearBAI-Soare-v0", budget=200)
    env = DiscretePulls(env)          # optional: Discrete(K + 1) actions
    env = SufficientStatistics(env)   # Markov observation
    env = ActionMask(env)             # optional: action_masks() for MaskablePPO

Every wrapper forwards :meth:`~bandit_envs.PureExplorationEnv.step_batch` (the exact batch path)
and keeps its state in step with it.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import RecordConstructorArgs

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.tasks import Task
from bandit_envs.errors import InvalidActionError, InvalidParameterError
from bandit_envs.theory.answers import as_answer
from bandit_envs.theory.linalg import IncrementalLeastSquares, projected_least_squares

__all__ = [
    "ActionMask",
    "BanditStatistics",
    "DiscretePulls",
    "PlugInRecommender",
    "SufficientStatistics",
    "action_mask",
]


# --------------------------------------------------------------------------- helpers


def _base(env: gym.Env, who: str) -> PureExplorationEnv:
    base = env.unwrapped
    if not isinstance(base, PureExplorationEnv):
        raise InvalidParameterError(
            f"{who}: env must be a PureExplorationEnv (possibly wrapped), e.g. "
            f"gym.make('LinearBAI-Soare-v0'); got {type(base).__name__}."
        )
    return base


def _layers(env: gym.Env) -> Iterable[Any]:
    """``env`` and every environment it wraps, outermost first (wrappers of any type)."""
    layer: Any = env
    while True:
        yield layer
        if not isinstance(layer, gym.Wrapper):
            return
        layer = layer.env


def _step_batch_of(env: gym.Env) -> Callable[[Any], tuple]:
    """The ``step_batch`` of the outermost layer of ``env`` that defines one."""
    for layer in _layers(env):
        if callable(getattr(type(layer), "step_batch", None)):
            return layer.step_batch
    raise InvalidParameterError(f"no layer of {env} offers step_batch().")


def _require_raw_observation(env: gym.Env, base: PureExplorationEnv, who: str) -> None:
    if env.observation_space.shape != base.observation_space.shape or any(
        isinstance(layer, SufficientStatistics) for layer in _layers(env)
    ):
        raise InvalidParameterError(
            f"{who} must wrap an environment whose observation is the outcome of the last pull "
            f"(shape {base.observation_space.shape}); got observation space "
            f"{env.observation_space}. Apply {who} below SufficientStatistics."
        )


def _pulled_arm(action: Any) -> int:
    """The arm component of an action (a plain int, a 0-d array or a MultiDiscrete vector)."""
    if isinstance(action, numbers.Integral):
        return int(action)
    return int(np.asarray(action).reshape(-1)[0])


# --------------------------------------------------------------------------- statistics


class BanditStatistics:
    """The running sufficient statistics of an episode, kept as one flat float64 vector.

    The vector is the concatenation of these blocks (:attr:`layout` gives their slices,
    :meth:`unflatten` their shapes):

    ========== ================ ===========================================================
    block      length           value
    ========== ================ ===========================================================
    counts     K                ``n_k / horizon``: pulls of each arm
    means      K·m              ``μ̂_{k,j} = S_{k,j} / n_k`` (0 while ``n_k = 0``), row-major
    time       1                ``t / horizon``: pulls so far
    theta      h·m              ridge estimate ``θ̂ = (A + λI)⁻¹ b``, row-major (h, m)
    inverse    h(h+1)/2         upper triangle (row-major) of ``(A + λI)⁻¹``
    ========== ================ ===========================================================

    ``theta`` and ``inverse`` are present only when the problem has features
    (``ProblemSpec.features`` is not ``None``), with ``A = Σ_t x_t x_tᵀ`` and ``b = Σ_t x_t y_tᵀ``
    (the least-squares statistics of Soare, Lazaric & Munos 2014, Section 2). The design matrix is
    *regularised* (ridge ``λ > 0``), not pseudo-inverted: ``(A + λI)⁻¹`` exists from the first step,
    changes continuously as pulls arrive (a pseudo-inverse jumps when the rank grows, which
    rank-deficient instances such as ``LinearPSI-Energy-v0`` or ``LinearEpsGood-FreeWilson-v0`` do
    for ever) and is kept up to date by Sherman–Morrison in ``O(h²)``
    (:class:`~bandit_envs.theory.linalg.IncrementalLeastSquares`). Its entries lie in ``[-1/λ,
    1/λ]``. For GLM problems θ̂ is the least-squares fit of the 0/1 outcomes, a sufficient statistic
    of the data, not the maximum-likelihood estimate.

    One pull costs ``O(m + h²·m)``; :meth:`observation` copies the vector, ``O(K·m + h²)``.

    Args:
        spec: the problem (from ``env.reset()``'s ``info["problem"]``).
        horizon: the scale of ``counts`` and ``time``. Default: the budget T (fixed budget) or
            ``max_samples`` (fixed confidence), so both blocks lie in [0, 1]; with the default
            safety cap of 10⁸ pass a typical episode length instead. ``horizon=1`` gives raw
            counts.
        ridge: λ > 0, the regularisation of the design matrix (default 1: one pull of a unit
            feature vector).

    Raises:
        InvalidParameterError: if ``horizon`` or ``ridge`` is not a finite number > 0.

    """

    def __init__(
        self, spec: ProblemSpec, *, horizon: float | None = None, ridge: float = 1.0
    ) -> None:
        who = "BanditStatistics"
        cap = spec.budget if spec.budget is not None else spec.max_samples
        if horizon is None:
            horizon = 1 if cap is None else cap
        self.horizon = _positive(horizon, "horizon", who)
        self.ridge = _positive(ridge, "ridge", who)
        self.spec = spec
        k, m = spec.n_arms, spec.outcome_dim
        self._k, self._m = k, m
        # K×0 without features: then h = 0 and no least squares reads it
        self._features = np.zeros((k, 0)) if spec.features is None else spec.features
        h = int(self._features.shape[1])
        self._h = h
        sizes = {"counts": k, "means": k * m, "time": 1}
        if h:
            sizes["theta"] = h * m
            sizes["inverse"] = h * (h + 1) // 2
        self.layout: dict[str, slice] = {}
        start = 0
        for name, size in sizes.items():
            self.layout[name] = slice(start, start + size)
            start += size
        self.size = start
        low = np.full(start, -np.inf)
        high = np.full(start, np.inf)
        bounded = cap is not None and self.horizon >= cap  # then n_k <= t <= horizon
        for name in ("counts", "time"):
            low[self.layout[name]] = 0.0
            if bounded:
                high[self.layout[name]] = 1.0
        self.observation_space = spaces.Box(low, high, dtype=np.float64)
        self._iu = np.triu_indices(h)
        self._obs = np.zeros(start)
        self.counts = np.zeros(k, dtype=np.int64)
        self.sums = np.zeros((k, m))
        self.t = 0
        self._ls: IncrementalLeastSquares | None = None
        self.reset()

    # ------------------------------------------------------------------ state

    def reset(self) -> None:
        """Forget every pull (the state of a new episode)."""
        self.counts[:] = 0
        self.sums[:] = 0.0
        self.t = 0
        self._obs[:] = 0.0
        if self._h:
            self._ls = IncrementalLeastSquares(self._h, ridge=self.ridge, outputs=self._m)
            self._write_linear()

    def update(self, arm: int, outcome: np.ndarray) -> None:
        """Record one pull of ``arm`` with outcome vector ``outcome`` (shape (m,)).

        Args:
            arm: the arm pulled.
            outcome: its outcome vector.

        """
        y = np.asarray(outcome, dtype=np.float64).reshape(self._m)
        self.counts[arm] += 1
        self.sums[arm] += y
        self.t += 1
        n = self.counts[arm]
        obs, lay = self._obs, self.layout
        obs[lay["counts"].start + arm] = n / self.horizon
        row = lay["means"].start + arm * self._m
        obs[row : row + self._m] = self.sums[arm] / n
        obs[lay["time"].start] = self.t / self.horizon
        if self._ls is not None:
            self._ls.add(self._features[arm], y if self._m > 1 else y[0])
            self._write_linear()

    def update_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        """Record a batch: ``counts[k]`` pulls of arm k whose outcomes sum to ``sums[k]``.

        Args:
            counts: pulls per arm, shape (K,).
            sums: per-arm sums of the outcomes, shape (K, m).

        """
        n = np.asarray(counts, dtype=np.int64)
        s = np.asarray(sums, dtype=np.float64).reshape(self._k, self._m)
        self.counts += n
        self.sums += s
        self.t += int(n.sum())
        obs, lay = self._obs, self.layout
        obs[lay["counts"]] = self.counts / self.horizon
        obs[lay["means"]] = self.means.reshape(-1)
        obs[lay["time"].start] = self.t / self.horizon
        if self._ls is not None:
            self._ls.add_batch(self._features, n, s if self._m > 1 else s[:, 0])
            self._write_linear()

    def _write_linear(self) -> None:
        ls = self._ls
        if ls is None:
            return
        self._obs[self.layout["theta"]] = ls.theta().reshape(-1)
        self._obs[self.layout["inverse"]] = ls.inverse[self._iu]

    # ------------------------------------------------------------------ reading

    @property
    def means(self) -> np.ndarray:
        """Empirical means (K, m); 0 for arms not pulled yet."""
        n = np.maximum(self.counts, 1)[:, None]
        return self.sums / n

    def observation(self) -> np.ndarray:
        """The flat observation vector (a new array)."""
        return self._obs.copy()

    def unflatten(self, observation: np.ndarray) -> dict[str, Any]:
        """Split an observation into named arrays (``inverse`` as the full symmetric matrix).

        Args:
            observation: a vector laid out as :attr:`layout` says.

        Returns:
            ``{"counts": (K,), "means": (K, m), "time": float}`` plus, with features,
            ``"theta"`` of shape (h, m) (or (h,) when m = 1) and ``"inverse"`` (h, h).

        """
        obs = np.asarray(observation, dtype=np.float64)
        if obs.shape != (self.size,):
            raise InvalidParameterError(
                f"BanditStatistics.unflatten: observation must have shape ({self.size},); got "
                f"{obs.shape}."
            )
        lay = self.layout
        out: dict[str, Any] = {
            "counts": obs[lay["counts"]].copy(),
            "means": obs[lay["means"]].reshape(self._k, self._m).copy(),
            "time": float(obs[lay["time"]][0]),
        }
        if self._h:
            theta = obs[lay["theta"]].reshape(self._h, self._m)
            out["theta"] = theta[:, 0].copy() if self._m == 1 else theta.copy()
            inverse = np.zeros((self._h, self._h))
            inverse[self._iu] = obs[lay["inverse"]]
            out["inverse"] = inverse + np.triu(inverse, 1).T
        return out


def _positive(value: Any, name: str, who: str) -> float:
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or not np.isfinite(float(value))
        or value <= 0
    ):
        raise InvalidParameterError(f"{who}: {name} must be a finite number > 0; got {value!r}.")
    return float(value)


class SufficientStatistics(gym.Wrapper[np.ndarray, Any, np.ndarray, Any], RecordConstructorArgs):
    """Observation = the episode's sufficient statistics (:class:`BanditStatistics`), a flat Box.

    A flat ``Box`` rather than a ``Dict``: Stable-Baselines3's default ``MlpPolicy``, sb3-contrib's
    ``MaskablePPO`` and ``VecNormalize`` take it as it is, and :attr:`layout` /
    ``statistics.unflatten`` still name its parts. Rewards, termination and ``info`` are the
    environment's; the last outcome itself is in the statistics. :meth:`step_batch` forwards the
    exact batch path and returns the new statistics, with the per-arm sums in ``info["sums"]``.

    Args:
        env: a :class:`~bandit_envs.PureExplorationEnv` (possibly wrapped) whose observation is
            the last outcome.
        horizon: the scale of the count and time blocks (see :class:`BanditStatistics`).
        ridge: λ > 0 of the regularised inverse design matrix (see :class:`BanditStatistics`).

    Raises:
        InvalidParameterError: ``env`` is not a pure-exploration environment, or already
            summarised, or a bad ``horizon`` / ``ridge``.

    """

    def __init__(self, env: gym.Env, *, horizon: float | None = None, ridge: float = 1.0) -> None:
        RecordConstructorArgs.__init__(self, horizon=horizon, ridge=ridge)
        gym.Wrapper.__init__(self, env)
        base = _base(env, "SufficientStatistics")
        _require_raw_observation(env, base, "SufficientStatistics")
        self._base = base
        self.statistics = BanditStatistics(base.problem, horizon=horizon, ridge=ridge)
        self.observation_space = self.statistics.observation_space

    @property
    def layout(self) -> dict[str, slice]:
        """The slices of the observation's blocks (``counts``, ``means``, ``time``, ...)."""
        return self.statistics.layout

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the environment and the statistics."""
        _, info = self.env.reset(seed=seed, options=options)
        self.statistics.reset()
        return self.statistics.observation(), info

    def step(self, action: Any) -> tuple[np.ndarray, Any, bool, bool, dict[str, Any]]:
        """Step the environment; a pull updates the statistics in ``O(m + h²·m)``."""
        base = self._base
        before = base.samples
        outcome, reward, terminated, truncated, info = self.env.step(action)
        if base.samples == before + 1:
            self.statistics.update(_pulled_arm(action), outcome)
        return self.statistics.observation(), reward, terminated, truncated, info

    def step_batch(self, counts: Any) -> tuple[np.ndarray, Any, bool, bool, dict[str, Any]]:
        """Pull arm k ``counts[k]`` times (the exact batch path); return the new statistics.

        Args:
            counts: pulls per arm, shape (K,).

        Returns:
            ``(statistics, reward, terminated, truncated, info)`` with the per-arm sums of the
            outcomes in ``info["sums"]``.

        """
        sums, reward, terminated, truncated, info = _step_batch_of(self.env)(counts)
        if not truncated:  # a batch crossing max_samples draws nothing
            self.statistics.update_batch(np.asarray(counts), sums)
        return self.statistics.observation(), reward, terminated, truncated, {**info, "sums": sums}


# --------------------------------------------------------------------------- action masks


def action_mask(
    spec: ProblemSpec,
    samples: int,
    *,
    discrete: bool = False,
    mask_known_arms: bool = True,
    early_stop: bool = True,
) -> np.ndarray:
    """The valid actions after ``samples`` pulls, as a flat boolean mask.

    Component 0 (``K + 1`` entries: arms, then "stop"): known arms (``spec.extras["known_arms"]``,
    whose means are public, Tang et al. 2024, Section 2) are masked when ``mask_known_arms``;
    once a fixed budget is spent every arm is masked (the next action is graded as a stop);
    with ``early_stop=False`` (fixed budget only) "stop" is masked until then. The answer bits
    are never masked. For the MultiDiscrete encoding the mask is the concatenation of one block
    per component (``K + 1`` entries, then 2 per answer bit), as sb3-contrib's ``MaskablePPO``
    expects; for ``Discrete(K + 1)`` (``discrete=True``) it is component 0 alone.

    Args:
        spec: the problem.
        samples: pulls made so far in the episode.
        discrete: mask for the ``Discrete(K + 1)`` encoding of :class:`DiscretePulls`.
        mask_known_arms: mask arms whose means are public.
        early_stop: allow stopping before a fixed budget is spent.

    Returns:
        A boolean array of length ``K + 1`` (discrete) or ``K + 1 + 2·n_items``.

    """
    k = spec.n_arms
    arms = np.ones(k + 1, dtype=bool)
    if mask_known_arms:
        arms[list(spec.extras.get("known_arms", ()))] = False
    if spec.budget is not None:
        if samples >= spec.budget:
            arms[:k] = False
        elif not early_stop:
            arms[k] = False
    if discrete:
        return arms
    return np.concatenate([arms, np.ones(2 * spec.n_items, dtype=bool)])


class ActionMask(gym.Wrapper[Any, Any, Any, Any], RecordConstructorArgs):
    """Exposes ``action_masks()`` (sb3-contrib ``MaskablePPO``) and ``info["action_mask"]``.

    The mask (:func:`action_mask`) is advice for the policy; the environment itself still accepts
    every action of its action space (Gymnasium's and SB3's checkers sample unmasked actions).
    Put this wrapper outermost, above :class:`DiscretePulls` when both are used, so that the mask
    matches the action space the policy sees.

    Args:
        env: a :class:`~bandit_envs.PureExplorationEnv`, possibly wrapped, with the
            environment's MultiDiscrete action space or the ``Discrete(K + 1)`` one of
            :class:`DiscretePulls`.
        mask_known_arms: mask arms whose means are public (``ProblemSpec.extras["known_arms"]``).
        early_stop: allow stopping before a fixed budget is spent (``False`` is refused in fixed
            confidence, where stopping is the only way to end an episode).

    Raises:
        InvalidParameterError: an unknown action space, or ``early_stop=False`` in fixed
            confidence.

    """

    def __init__(
        self, env: gym.Env, *, mask_known_arms: bool = True, early_stop: bool = True
    ) -> None:
        RecordConstructorArgs.__init__(self, mask_known_arms=mask_known_arms, early_stop=early_stop)
        gym.Wrapper.__init__(self, env)
        base = _base(env, "ActionMask")
        self._base = base
        k = base.n_arms
        space = env.action_space
        if isinstance(space, spaces.Discrete) and int(space.n) == k + 1:
            self._discrete = True
        elif isinstance(space, spaces.MultiDiscrete) and np.array_equal(
            space.nvec, base.action_space.nvec
        ):
            self._discrete = False
        else:
            raise InvalidParameterError(
                f"ActionMask: the action space must be {base.action_space} or Discrete({k + 1}); "
                f"got {space}."
            )
        if not early_stop and base.budget is None:
            raise InvalidParameterError(
                "ActionMask: early_stop=False applies to the fixed-budget setting only; in fixed "
                "confidence stopping is the only way to end an episode."
            )
        self.mask_known_arms = bool(mask_known_arms)
        self.early_stop = bool(early_stop)

    def action_masks(self) -> np.ndarray:
        """The boolean mask of the valid actions now (see :func:`action_mask`)."""
        base = self._base
        return action_mask(
            base.problem,
            base.samples,
            discrete=self._discrete,
            mask_known_arms=self.mask_known_arms,
            early_stop=self.early_stop,
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; ``info["action_mask"]`` holds the mask of the first action."""
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, {**info, "action_mask": self.action_masks()}

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Step; ``info["action_mask"]`` holds the mask of the next action."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, {**info, "action_mask": self.action_masks()}

    def step_batch(self, counts: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Forward the exact batch path; ``info["action_mask"]`` as for :meth:`step`.

        Args:
            counts: pulls per arm, shape (K,).

        """
        obs, reward, terminated, truncated, info = _step_batch_of(self.env)(counts)
        return obs, reward, terminated, truncated, {**info, "action_mask": self.action_masks()}


# --------------------------------------------------------------------------- Discrete(K + 1)


class PlugInRecommender:
    """An agent that never pulls and answers with the task's plug-in rule on its estimates.

    The estimated means are the per-arm empirical means, except that (i) for the ``"linear"``
    structure they are ``X θ̂`` with θ̂ the minimum-norm least-squares fit
    (:func:`~bandit_envs.theory.linalg.projected_least_squares`; Kone, Kaufmann & Richert, Section
    2.2, eq. 3), which also estimates arms not pulled yet, and (ii) the public means of known arms
    (constrained family) replace their estimates. Arms never pulled in an unstructured problem count
    as mean 0. The answer is ``task.empirical_answer(means)`` (e.g. the empirical best arm, Pareto
    set, ε-good set or optimal LP basis), which never raises.

    Args:
        task: the environment's task (``env.unwrapped.task``); it holds only public parameters.

    """

    def __init__(self, task: Task) -> None:
        self.task = task

    @property
    def name(self) -> str:
        """``"PlugIn"``."""
        return "PlugIn"

    def reset(self, spec: ProblemSpec, rng: np.random.Generator) -> None:
        """Forget every observation.

        Args:
            spec: the problem.
            rng: unused (the rule is deterministic).

        """
        self.spec = spec
        self.counts = np.zeros(spec.n_arms, dtype=np.int64)
        self.sums = np.zeros((spec.n_arms, spec.outcome_dim))

    def select(self) -> int | None:
        """Always ``None``: a recommender does not choose pulls."""
        return None

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Record one outcome of ``arm``."""
        self.counts[arm] += 1
        self.sums[arm] += outcome

    def observe_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        """Record per-arm counts and sums of a batch."""
        self.counts += np.asarray(counts, dtype=np.int64)
        self.sums += sums

    def estimated_means(self) -> np.ndarray:
        """The estimated means (K, m) the answer is computed from."""
        spec = self.spec
        if spec.structure == "linear" and spec.features is not None:
            theta = projected_least_squares(spec.features, self.counts, self.sums)
            means = spec.features @ theta
        else:
            means = self.sums / np.maximum(self.counts, 1)[:, None]
        known = list(spec.extras.get("known_arms", ()))
        if known:
            means[known] = spec.extras["known_means"]
        return means

    def recommend(self) -> Answer:
        """``task.empirical_answer`` of :meth:`estimated_means`."""
        return self.task.empirical_answer(self.estimated_means())


class DiscretePulls(gym.Wrapper[np.ndarray, Any, np.ndarray, Any], RecordConstructorArgs):
    """``Discrete(K + 1)`` actions: ``k < K`` pulls arm k, ``K`` stops and answers.

    The answer is the recommender's ``recommend()``; the recommender observes every pull (and
    every batch). This splits the problem as pure-exploration algorithms do — a sampling rule
    and a stopping rule for the policy to learn, a recommendation rule that is known — and
    replaces the ``2^n_items`` answer combinations of the MultiDiscrete encoding, hard for a
    policy to learn, by one "stop" action. In fixed budget, once the budget is spent every action
    is answered by the recommender (the environment grades the next action as a stop).

    Args:
        env: a :class:`~bandit_envs.PureExplorationEnv` (possibly wrapped) whose observation is
            the last outcome (apply :class:`SufficientStatistics` on top of this wrapper).
        recommender: any agent (``reset / observe / recommend``, plus ``observe_batch`` for the
            batch path) that accepts observations of arms it did not choose; default
            :class:`PlugInRecommender` of the environment's task. It is reset at every
            ``reset`` with a generator derived from the reset seed.

    Raises:
        InvalidParameterError: ``env`` is not a pure-exploration environment, its observation is
            not the raw outcome, or an :class:`ActionMask` lies below.

    """

    def __init__(self, env: gym.Env, recommender: Any = None) -> None:
        RecordConstructorArgs.__init__(self, recommender=recommender)
        gym.Wrapper.__init__(self, env)
        base = _base(env, "DiscretePulls")
        _require_raw_observation(env, base, "DiscretePulls")
        self._base = base
        if any(isinstance(layer, ActionMask) for layer in _layers(env)):
            raise InvalidParameterError(
                "DiscretePulls: apply ActionMask on top of DiscretePulls, not below it (the mask "
                "must match the Discrete action space)."
            )
        if not isinstance(env.action_space, spaces.MultiDiscrete):
            raise InvalidParameterError(
                f"DiscretePulls: the wrapped action space must be MultiDiscrete; got "
                f"{env.action_space}."
            )
        self.recommender = PlugInRecommender(base.task) if recommender is None else recommender
        missing = [
            m
            for m in ("reset", "observe", "recommend")
            if not callable(getattr(self.recommender, m, None))
        ]
        if missing:
            raise InvalidParameterError(
                f"DiscretePulls: the recommender lacks {missing}; give an agent or leave it None."
            )
        self.action_space = spaces.Discrete(base.n_arms + 1)
        self._seeds: np.random.SeedSequence | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the environment and the recommender (seeded from ``seed``)."""
        obs, info = self.env.reset(seed=seed, options=options)
        if seed is not None or self._seeds is None:
            self._seeds = np.random.SeedSequence(seed)
        rng = np.random.default_rng(self._seeds.spawn(1)[0])
        self.recommender.reset(info["problem"], rng)
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, Any, bool, bool, dict[str, Any]]:
        """Pull arm ``action``, or stop with the recommender's answer (``action == K``)."""
        base = self._base
        k = base.n_arms
        arr = np.asarray(action)
        if arr.size != 1 or arr.dtype.kind not in "iu" or not 0 <= int(arr.reshape(-1)[0]) <= k:
            raise InvalidActionError(
                f"DiscretePulls: an action is an integer in 0..{k} (arm, or {k} to stop); got "
                f"{action!r}."
            )
        arm = int(arr.reshape(-1)[0])
        if arm == k or (base.budget is not None and base.samples >= base.budget):
            answer = as_answer(
                self.recommender.recommend(), base.n_items, who="DiscretePulls: recommend()"
            )
            return self.env.step(base.stop_action(answer))
        outcome, reward, terminated, truncated, info = self.env.step(arm)
        if not (terminated or truncated):
            self.recommender.observe(arm, outcome.copy())
        return outcome, reward, terminated, truncated, info

    def step_batch(self, counts: Any) -> tuple[np.ndarray, Any, bool, bool, dict[str, Any]]:
        """Forward the exact batch path; the recommender receives the per-arm sums.

        Args:
            counts: pulls per arm, shape (K,).

        Raises:
            InvalidParameterError: the recommender has no ``observe_batch``.

        """
        if not callable(getattr(self.recommender, "observe_batch", None)):
            raise InvalidParameterError(
                f"DiscretePulls.step_batch: the recommender "
                f"{type(self.recommender).__name__} has no observe_batch(counts, sums)."
            )
        sums, reward, terminated, truncated, info = _step_batch_of(self.env)(counts)
        if not (terminated or truncated):
            self.recommender.observe_batch(np.asarray(counts).copy(), sums.copy())
        return sums, reward, terminated, truncated, info
