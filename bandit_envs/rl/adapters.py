"""Adapters between RL policies and agents, both ways.

* :class:`PolicyAgent` runs anything with a Stable-Baselines3-style
  ``predict(obs, state=None, episode_start=None, deterministic=True)`` — a trained ``PPO``, a
  policy, a hand-written object — as an :class:`~bandit_envs.Agent`, so that a policy trained on
  the wrappers of :mod:`bandit_envs.rl.wrappers` runs through :func:`~bandit_envs.run_episode`,
  sweeps and reports next to the zoo.
* :class:`AgentPolicy` runs an agent wherever SB3 expects ``predict``, e.g.
  ``stable_baselines3.common.evaluation.evaluate_policy``, batched over a vectorised
  environment with one agent per sub-environment.

Neither imports Stable-Baselines3 or torch.
"""

from __future__ import annotations

import copy
import numbers
from typing import Any

import numpy as np
from gymnasium import spaces

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import AgentProtocolError, IncompatibleAgentError, InvalidParameterError
from bandit_envs.rl.wrappers import BanditStatistics, action_mask
from bandit_envs.theory.answers import as_answer

__all__ = ["AgentPolicy", "PolicyAgent"]

_OBSERVATIONS = ("statistics", "outcome")


def _space_kind(space: Any, spec: ProblemSpec, who: str) -> str:
    """``"multidiscrete"`` or ``"discrete"`` for an action space matching ``spec``, else raise."""
    k, n = spec.n_arms, spec.n_items
    if isinstance(space, spaces.Discrete):
        if int(space.n) != k + 1:
            raise IncompatibleAgentError(
                f"{who}: the policy's action space is {space}, but this problem needs "
                f"Discrete({k + 1}) (K = {k} arms plus stop)."
            )
        return "discrete"
    if isinstance(space, spaces.MultiDiscrete):
        expected = np.array([k + 1] + [2] * n)
        if not np.array_equal(np.asarray(space.nvec).reshape(-1), expected):
            raise IncompatibleAgentError(
                f"{who}: the policy's action space is {space}, but this problem needs "
                f"MultiDiscrete([{k + 1}] + [2] * {n}) (K = {k} arms, {n} answer items)."
            )
        return "multidiscrete"
    raise IncompatibleAgentError(
        f"{who}: the policy's action space must be MultiDiscrete([K + 1] + [2] * n_items) or "
        f"Discrete(K + 1); got {space}."
    )


class PolicyAgent:
    """An SB3-style policy used as an agent (the agent protocol of ``docs/concepts.md``).

    The agent rebuilds the observation the policy was trained on from its own pulls — the
    :class:`~bandit_envs.rl.wrappers.BanditStatistics` of
    :class:`~bandit_envs.rl.wrappers.SufficientStatistics` (with the same ``horizon`` and
    ``ridge``), or the raw last outcome — calls ``model.predict`` once per step, and decodes the
    action:

    * MultiDiscrete ``[arm or K] + answer bits`` (the env's own): ``select`` returns the arm, or
      ``None`` when component 0 is K, and ``recommend`` returns the answer bits of that stop
      action. When a fixed budget runs out, ``recommend`` asks the policy for one more action
      and reads its bits — exactly what the environment grades in that case.
    * ``Discrete(K + 1)`` (:class:`~bandit_envs.rl.wrappers.DiscretePulls`): K is "stop", and the
      answer comes from ``recommender`` (which observes every pull).

    The encoding is read from ``model.action_space`` (SB3 models have it), and
    ``model.observation_space``, when present, is checked against the problem at ``reset``.
    Only ``deterministic=True`` policies are reproducible under a seed: a stochastic SB3 policy
    draws from torch's generator, not from the episode's.

    Args:
        model: any object with ``predict(obs, state=None, episode_start=None,
            deterministic=True)`` returning ``(action, state)``.
        observation: ``"statistics"`` (a policy trained on ``SufficientStatistics``) or
            ``"outcome"`` (trained on the bare environment).
        horizon: the ``horizon`` given to ``SufficientStatistics`` in training (default the same
            default).
        ridge: the ``ridge`` given to ``SufficientStatistics`` in training.
        deterministic: passed to ``predict``.
        recommender: the agent answering for a ``Discrete(K + 1)`` policy (e.g.
            ``PlugInRecommender(env.unwrapped.task)``, the default of ``DiscretePulls``).
        action_masks: pass ``action_masks=`` to ``predict`` (sb3-contrib ``MaskablePPO``), built
            as :class:`~bandit_envs.rl.wrappers.ActionMask` does with ``mask_known_arms`` and
            ``early_stop``.
        mask_known_arms: see :func:`~bandit_envs.rl.wrappers.action_mask`.
        early_stop: see :func:`~bandit_envs.rl.wrappers.action_mask`.
        capabilities: what the policy solves (an
            :class:`~bandit_envs.core.protocols.AgentCapabilities`), for the compatibility rule;
            ``None`` declares nothing.

    """

    def __init__(
        self,
        model: Any,
        *,
        observation: str = "statistics",
        horizon: float | None = None,
        ridge: float = 1.0,
        deterministic: bool = True,
        recommender: Any = None,
        action_masks: bool = False,
        mask_known_arms: bool = True,
        early_stop: bool = True,
        capabilities: AgentCapabilities | None = None,
    ) -> None:
        if not callable(getattr(model, "predict", None)):
            raise InvalidParameterError(
                f"PolicyAgent: model must have a predict(obs, state, episode_start, "
                f"deterministic) method; {type(model).__name__} has none."
            )
        if observation not in _OBSERVATIONS:
            raise InvalidParameterError(
                f"PolicyAgent: observation must be one of {_OBSERVATIONS}; got {observation!r}."
            )
        self.model = model
        self.observation = observation
        self.horizon = horizon
        self.ridge = ridge
        self.deterministic = deterministic
        self.recommender = recommender
        self.action_masks = action_masks
        self.mask_known_arms = mask_known_arms
        self.early_stop = early_stop
        if capabilities is not None:
            self.capabilities = capabilities

    @property
    def name(self) -> str:
        """``"PolicyAgent(<model class>)"``."""
        return f"PolicyAgent({type(self.model).__name__})"

    def reset(self, spec: ProblemSpec, rng: np.random.Generator) -> None:
        """Start an episode: check the policy's spaces against ``spec``, clear the statistics.

        Args:
            spec: the problem.
            rng: the episode's generator (passed on to the recommender).

        Raises:
            IncompatibleAgentError: the policy's spaces do not fit the problem, or a
                ``Discrete(K + 1)`` policy has no recommender.

        """
        who = self.name
        space = getattr(self.model, "action_space", None)
        self._kind = "multidiscrete" if space is None else _space_kind(space, spec, who)
        if self.observation == "statistics":
            self._stats: BanditStatistics | None = BanditStatistics(
                spec, horizon=self.horizon, ridge=self.ridge
            )
            shape: tuple[int, ...] = (self._stats.size,)
        else:
            self._stats = None
            shape = (spec.outcome_dim,)
        obs_space = getattr(self.model, "observation_space", None)
        if obs_space is not None and tuple(obs_space.shape) != shape:
            raise IncompatibleAgentError(
                f"{who}: the policy expects observations of shape {tuple(obs_space.shape)}, but "
                f"observation={self.observation!r} on this problem gives shape {shape} (was it "
                f"trained on another problem, or with other wrapper settings?)."
            )
        if self._kind == "discrete":
            if self.recommender is None:
                raise IncompatibleAgentError(
                    f"{who}: a Discrete(K + 1) policy stops with action K and needs a "
                    f"recommender= agent for the answer (DiscretePulls' default is "
                    f"PlugInRecommender(env.unwrapped.task))."
                )
            self.recommender.reset(spec, rng)
        self.spec = spec
        self._last = np.zeros(spec.outcome_dim)
        self._samples = 0
        self._state: Any = None
        self._start = True
        self._answer: Answer | None = None

    def _obs(self) -> np.ndarray:
        return self._stats.observation() if self._stats is not None else self._last.copy()

    def _require_reset(self, method: str) -> None:
        if not hasattr(self, "spec"):
            raise AgentProtocolError(f"{self.name}: call reset(spec, rng) before {method}().")

    def _predict(self) -> np.ndarray:
        kwargs: dict[str, Any] = {
            "state": self._state,
            "episode_start": np.array([self._start]),
            "deterministic": self.deterministic,
        }
        if self.action_masks:
            kwargs["action_masks"] = action_mask(
                self.spec,
                self._samples,
                discrete=self._kind == "discrete",
                mask_known_arms=self.mask_known_arms,
                early_stop=self.early_stop,
            )
        out = self.model.predict(self._obs(), **kwargs)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise AgentProtocolError(
                f"{self.name}: predict() must return (action, state); got {out!r}."
            )
        action, self._state = out
        self._start = False
        arr = np.asarray(action)
        width = 1 if self._kind == "discrete" else 1 + self.spec.n_items
        if arr.size != width or arr.dtype.kind not in "iu":
            raise AgentProtocolError(
                f"{self.name}: predict() returned the action {action!r}; expected {width} "
                f"integer(s) ({self._kind} encoding)."
            )
        return arr.reshape(-1)

    def _bits(self, action: np.ndarray) -> Answer:
        bits = action[1:]
        if ((bits != 0) & (bits != 1)).any():
            raise AgentProtocolError(
                f"{self.name}: answer bits must be 0 or 1; the policy returned {action.tolist()}."
            )
        return frozenset(int(i) for i in np.flatnonzero(bits))

    def select(self) -> int | None:
        """Ask the policy; the arm it pulls, or ``None`` if it stops."""
        self._require_reset("select")
        action = self._predict()
        arm = int(action[0])
        if arm == self.spec.n_arms:
            if self._kind == "multidiscrete":
                self._answer = self._bits(action)
            return None
        return arm  # the runner checks the range

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Update the statistics (or the last outcome) with one pull."""
        self._require_reset("observe")
        self._samples += 1
        if self._stats is not None:
            self._stats.update(arm, outcome)
        else:
            self._last = np.array(outcome, dtype=np.float64)
        if self._kind == "discrete":
            self.recommender.observe(arm, outcome)

    def recommend(self) -> Answer:
        """The answer of the policy's stop action (or of the recommender)."""
        self._require_reset("recommend")
        if self._kind == "discrete":
            return as_answer(
                self.recommender.recommend(),
                self.spec.n_items,
                who=f"{self.name}: recommender.recommend()",
            )
        if self._answer is None:  # the budget ran out: the next action is graded as a stop
            self._answer = self._bits(self._predict())
        return self._answer


class AgentPolicy:
    """An agent used where Stable-Baselines3 expects ``predict`` (e.g. ``evaluate_policy``).

    ``predict(observation, state, episode_start, deterministic)`` takes the observations of all
    sub-environments of a vectorised environment (or one observation of a single environment),
    feeds each outcome to that sub-environment's agent, and returns the next actions in the
    environment's encoding — MultiDiscrete ``[arm] + 0s`` for a pull, ``[K] + answer bits`` for
    a stop, or the ``Discrete(K + 1)`` action of
    :class:`~bandit_envs.rl.wrappers.DiscretePulls` (whose recommender then gives the answer) — and
    ``None`` as the state. Each sub-environment has its own deep copy of ``agent``, reset when
    ``episode_start`` is true, with a new generator spawned from ``seed``. When
    ``episode_start`` is not given, a sub-environment with no pull yet starts an episode.
    ``deterministic`` is ignored (an agent's randomness comes from its generator).

    The environment's observation must be the raw outcome (no
    :class:`~bandit_envs.rl.wrappers.SufficientStatistics`, no observation normalisation): agents
    keep their own statistics. Fixed budget: once an agent has made ``budget`` pulls it stops
    with its ``recommend()``.

    Args:
        agent: any agent (``reset / select / observe / recommend``).
        env: the environment the policy will act in: an SB3 ``VecEnv`` (anything with
            ``num_envs`` and ``get_attr``) or a single (possibly wrapped)
            :class:`~bandit_envs.PureExplorationEnv`.
        seed: root seed of the agents' generators (``None``: fresh entropy).

    Raises:
        InvalidParameterError: not a pure-exploration environment, or its observation is not
            the raw outcome.

    """

    def __init__(self, agent: Any, env: Any, *, seed: int | None = None) -> None:
        who = "AgentPolicy"
        self._vectorised = hasattr(env, "num_envs")
        if self._vectorised:
            self.n_envs = int(env.num_envs)
            problems = list(env.get_attr("problem"))
        else:
            base = getattr(env, "unwrapped", None)
            if not isinstance(base, PureExplorationEnv):
                raise InvalidParameterError(
                    f"{who}: env must be a vectorised environment or a PureExplorationEnv; got "
                    f"{type(env).__name__}."
                )
            self.n_envs = 1
            problems = [base.problem]
        if not all(isinstance(p, ProblemSpec) for p in problems):
            raise InvalidParameterError(
                f"{who}: every sub-environment must be a PureExplorationEnv (its 'problem' "
                f"attribute is the ProblemSpec)."
            )
        self.problems: list[ProblemSpec] = problems
        self.observation_space = env.observation_space
        self.action_space = env.action_space
        m = problems[0].outcome_dim
        if tuple(self.observation_space.shape) != (m,):
            raise InvalidParameterError(
                f"{who}: the environment's observation must be the last outcome, shape ({m},); "
                f"got {self.observation_space}. Agents keep their own statistics: drop "
                f"SufficientStatistics (and observation normalisation) from this environment."
            )
        self._kinds = [_space_kind(self.action_space, p, who) for p in problems]
        self._env = env
        self.agent = agent
        self.agents = [copy.deepcopy(agent) for _ in range(self.n_envs)]
        self._seeds = np.random.SeedSequence(seed)
        self._pulled: list[int | None] = [None] * self.n_envs
        self._samples = [0] * self.n_envs
        self._running = [False] * self.n_envs

    def _starts(self, episode_start: Any) -> np.ndarray:
        if episode_start is not None:
            return np.asarray(episode_start, dtype=bool).reshape(self.n_envs)
        if self._vectorised:
            samples = np.asarray(self._env.get_attr("samples"))
        else:
            samples = np.array([self._env.unwrapped.samples])
        return samples == 0

    def _start_episode(self, i: int) -> None:
        rng = np.random.default_rng(self._seeds.spawn(1)[0])
        self.agents[i].reset(self.problems[i], rng)
        self._pulled[i] = None
        self._samples[i] = 0
        self._running[i] = True

    def _act(self, i: int, outcome: np.ndarray, start: bool) -> np.ndarray:
        agent, spec = self.agents[i], self.problems[i]
        name = str(getattr(agent, "name", type(agent).__name__))
        if start or not self._running[i]:
            self._start_episode(i)
        elif self._pulled[i] is not None:
            agent.observe(self._pulled[i], np.array(outcome, dtype=np.float64))
            self._samples[i] += 1
        k = spec.n_arms
        arm = None
        if spec.budget is None or self._samples[i] < spec.budget:
            arm = agent.select()
        if arm is not None:
            if (
                isinstance(arm, (bool, np.bool_))
                or not isinstance(arm, numbers.Integral)
                or not (0 <= int(arm) < k)
            ):
                raise AgentProtocolError(
                    f"{name}.select() must return an arm in 0..{k - 1} or None; got {arm!r}."
                )
            self._pulled[i] = int(arm)
            if self._kinds[i] == "discrete":
                return np.array(int(arm))
            action = np.zeros(1 + spec.n_items, dtype=np.int64)
            action[0] = int(arm)
            return action
        self._pulled[i] = None
        self._running[i] = False  # the stop ends the episode; the next call starts one
        if self._kinds[i] == "discrete":
            return np.array(k)
        answer = as_answer(agent.recommend(), spec.n_items, who=f"{name}.recommend()")
        action = np.zeros(1 + spec.n_items, dtype=np.int64)
        action[0] = k
        action[1 + np.fromiter(sorted(answer), dtype=np.int64, count=len(answer))] = 1
        return action

    def predict(
        self,
        observation: Any,
        state: Any = None,
        episode_start: Any = None,
        deterministic: bool = True,
    ) -> tuple[np.ndarray, None]:
        """The agents' next actions (SB3's ``PolicyPredictor.predict``).

        Args:
            observation: the last outcomes, shape (n_envs, m) (or (m,) for one environment).
            state: ignored (agents are not recurrent policies); ``None`` is returned.
            episode_start: per sub-environment, whether this observation starts an episode.
            deterministic: ignored.

        Returns:
            ``(actions, None)``: actions of shape (n_envs, 1 + n_items) (or (n_envs,) for
            ``Discrete``), without the first axis when ``observation`` has none.

        """
        obs = np.asarray(observation, dtype=np.float64)
        batched = obs.ndim == 2
        rows = obs if batched else obs[None]
        if rows.shape[0] != self.n_envs:
            raise InvalidParameterError(
                f"AgentPolicy.predict: expected observations of {self.n_envs} environment(s); "
                f"got shape {obs.shape}."
            )
        starts = self._starts(episode_start)
        actions = np.stack([self._act(i, rows[i], bool(starts[i])) for i in range(self.n_envs)])
        return (actions if batched else actions[0]), None
