"""The one Gymnasium environment of the suite: :class:`PureExplorationEnv`.

Every registered id is a factory that builds this class from a reward model, a task and a
setting (``docs/concepts.md``, "The environment and its termination protocol").
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Iterable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from bandit_envs.core import rendering
from bandit_envs.core.complexity import ComplexityInfo, InstanceComplexity
from bandit_envs.core.models import RewardModel
from bandit_envs.core.noise_block import NormalBlock
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.tasks import Task
from bandit_envs.core.validation import check_finite, check_positive_int, check_probability
from bandit_envs.errors import (
    BudgetExceededError,
    EpisodeOver,
    InvalidActionError,
    InvalidParameterError,
    ResetNeeded,
)
from bandit_envs.theory.answers import as_answer

#: default safety cap of fixed-confidence episodes (a runaway agent is truncated, and wrong).
DEFAULT_MAX_SAMPLES = 10**8


class PureExplorationEnv(gym.Env[np.ndarray, np.ndarray]):
    """A pure-exploration bandit problem with the standard Gymnasium API.

    ## Description
    K arms; pulling arm k returns an outcome vector drawn by the reward model. The agent pulls
    arms, then stops with an answer (a set of item indices), which the environment grades
    against the task's true answer. Fixed confidence: δ is given and the agent decides when to
    stop. Fixed budget: after ``budget`` pulls the next action is graded as a stop action.

    ## Action space
    ``MultiDiscrete([K + 1] + [2] * n_items)``. Component 0 is the arm to pull, or ``K`` meaning
    "stop"; the remaining components are the answer's indicator bits, read only when stopping.
    A plain integer ``k`` is accepted as "pull arm k". Build actions with :meth:`pull_action`
    and :meth:`stop_action`.

    ## Observation space
    ``Box(-inf, inf, (m,), float64)``: the outcome of the last pull (zeros after ``reset``).

    ## Rewards
    ``-sample_cost`` per pull; on the final step ``correct_reward`` if the answer is right, else
    ``wrong_reward``.

    ## Episode end
    * Termination: a stop action (or, in fixed budget, any action once the budget is spent) is
      graded and ends the episode with ``terminated=True``.
    * Truncation: in fixed confidence, reaching ``max_samples`` pulls ends the episode with
      ``truncated=True``; it counts as wrong.
    * The final ``info`` holds ``correct``, ``answer``, ``malformed_answer``, ``true_answer``,
      ``samples``, ``stop_reason`` (``"stopped"``, ``"budget"`` or ``"max_samples"``),
      ``precision``, ``recall``, ``f1``, ``pulls``, ``complexity`` and ``truth``. No truth is
      revealed before. ``malformed_answer`` is ``None``, or the reason no instance of the task
      could have the answer given (``Task.impossible_answer``: e.g. two arms, or the empty set of
      a plain ``step(K)``, for best arm); such an answer is still graded (wrong), never refused.
      ``complexity`` is computed when first read (a read-only mapping), so an episode whose
      final ``info`` nobody reads does not pay for the instance's lower bound.

    ## Arguments
    | keyword | meaning | default |
    |---|---|---|
    | ``delta`` | confidence δ ∈ (0, 1): fixed-confidence setting | per id |
    | ``budget`` | number of pulls T ≥ 1: fixed-budget setting | ``None`` |
    | ``max_samples`` | safety cap of fixed-confidence episodes | 10⁸ |
    | ``sample_cost`` | cost of one pull (reward −cost per pull) | 0 |
    | ``correct_reward`` / ``wrong_reward`` | final reward | 1 / 0 |
    | ``render_mode`` | ``"ansi"``, ``"rgb_array"``, ``"human"`` or ``None`` | ``None`` |

    ## Batch path
    :meth:`step_batch` pulls many arms at once and returns per-arm sums of outcomes, drawn
    exactly (equal in distribution to the same pulls made one at a time).

    ## Rendering
    ``"ansi"``: :meth:`render` returns one line of text. ``"rgb_array"``: :meth:`render` returns
    a (480, 640, 3) ``uint8`` picture of the arms (feature, objective or cost–reward plane) with
    their pull counts, the true answer and the current empirical one
    (:mod:`bandit_envs.core.rendering`; needs matplotlib, the ``plot`` extra). ``"human"``: the same
    picture in a matplotlib window, redrawn at reset, at most ``render_fps`` times a second
    while pulling, and at the end of the episode. Only these two picture modes keep per-arm sums
    of the outcomes; the other modes pay one ``is None`` test per pull for them. Without
    matplotlib the first drawing raises ``ImportError`` (``render()``, or ``reset()`` in
    ``"human"`` mode), not the constructor: Stable-Baselines3's ``make_vec_env`` builds every env
    with ``render_mode="rgb_array"``, and such an env trains without ever drawing.

    ## Copies
    An environment, its :class:`~bandit_envs.ProblemSpec` and its ``info`` dicts pickle and
    deep-copy (worker processes of vector envs); a copy made mid-episode, random generator
    included, continues exactly as the original would. A picture-mode copy draws a new figure.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}
    action_space: spaces.MultiDiscrete
    observation_space: spaces.Box

    def __init__(
        self,
        model: RewardModel,
        task: Task,
        *,
        delta: float | None = None,
        budget: int | None = None,
        max_samples: int | None = None,
        sample_cost: float = 0.0,
        correct_reward: float = 1.0,
        wrong_reward: float = 0.0,
        render_mode: str | None = None,
        name: str | None = None,
        instance_info: dict[str, Any] | None = None,
    ) -> None:
        who = "PureExplorationEnv" if name is None else name
        if (delta is None) == (budget is None):
            raise InvalidParameterError(
                f"{who}: give exactly one of delta= (fixed confidence) and budget= (fixed "
                f"budget); got delta={delta!r} and budget={budget!r}."
            )
        if delta is not None:
            self.setting = "fixed_confidence"
            self.delta: float | None = check_probability(delta, "delta", who)
            self.budget: int | None = None
            cap = DEFAULT_MAX_SAMPLES if max_samples is None else max_samples
            self.max_samples: int | None = check_positive_int(cap, "max_samples", who)
        else:
            if max_samples is not None:
                raise InvalidParameterError(
                    f"{who}: max_samples is the safety cap of the fixed-confidence setting; in "
                    f"fixed budget the budget ({budget!r}) is the cap. Drop max_samples."
                )
            self.setting = "fixed_budget"
            self.delta = None
            self.budget = check_positive_int(budget, "budget", who)
            self.max_samples = None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidParameterError(
                f"{who}: render_mode must be one of {self.metadata['render_modes']} or None; "
                f"got {render_mode!r}."
            )
        self.sample_cost = check_finite(sample_cost, "sample_cost", who)
        self.correct_reward = check_finite(correct_reward, "correct_reward", who)
        self.wrong_reward = check_finite(wrong_reward, "wrong_reward", who)
        self.render_mode = render_mode
        self.name = who
        if not isinstance(model, RewardModel):
            raise InvalidParameterError(
                f"{who}: model must be a bandit_envs RewardModel (e.g. LinearGaussian); got "
                f"{type(model).__name__}."
            )
        if not isinstance(task, Task):
            raise InvalidParameterError(
                f"{who}: task must be a bandit_envs Task (e.g. BestArm()); got {task!r}."
            )
        task.validate_model(model)
        self.model = model
        self.task = task
        self._true_answer: Answer = task.true_answer(model.means)
        self.instance_info = dict(instance_info or {})
        k, m = model.n_arms, model.outcome_dim
        self.n_arms = k
        self.n_items = task.n_items(k)
        self.action_space = spaces.MultiDiscrete(np.array([k + 1] + [2] * self.n_items))
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(m,), dtype=np.float64)
        self.problem = ProblemSpec(
            task=task.name,
            setting=self.setting,
            n_arms=k,
            n_items=self.n_items,
            outcome_dim=m,
            delta=self.delta,
            budget=self.budget,
            max_samples=self.max_samples,
            name=who,
            **model.public_fields(),
            **task.public_fields(),
        )
        #: the complexity measures, solved on first access only (an episode does not pay for them)
        self._complexity = InstanceComplexity(model, task)
        self._phase = 0  # 0: never reset, 1: running, 2: over (one attribute: see below)
        self._stop_reason: str | None = None
        self._samples = 0
        self._pulls = np.zeros(k, dtype=np.int64)
        self._last = np.zeros(m, dtype=np.float64)
        #: the picture modes' state (per-arm sums, last answer, figure); None in other modes.
        #: One attribute only: with 30 or more instance attributes (gym.make's ``spec``
        #: included) CPython 3.11's attribute caches stop working and every step() gets slower
        #: (tests/bandit_envs/core/test_rendering.py guards the count).
        self._picture: Any = None
        #: m ≥ 2 diagonal Gaussian outcomes drawn from block-drawn normals, in stream order
        #: (:class:`~bandit_envs.core.noise_block.NormalBlock`); None for other models.
        sigma = model.diagonal_noise() if m >= 2 else None
        self._noise = None if sigma is None else NormalBlock(model.means, sigma)
        if render_mode in ("rgb_array", "human"):  # matplotlib is needed by the first drawing
            self._picture = rendering.Picture(np.zeros((k, m), dtype=np.float64))

    # ------------------------------------------------------------------ Gymnasium API

    @property
    def np_random(self) -> np.random.Generator:
        """The episode's Generator (Gymnasium's), in the state one-at-a-time draws leave it.

        Single pulls may draw their normals ahead in a block; reading the Generator gives the
        unused ones back first, so whoever reads it sees the stream of one-at-a-time draws.
        """
        noise = self.__dict__.get("_noise")
        if noise is not None:
            noise.sync()
        return gym.Env.np_random.fget(self)  # type: ignore[attr-defined]

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        noise = self.__dict__.get("_noise")
        if noise is not None:
            noise.sync()
        gym.Env.np_random.fset(self, value)  # type: ignore[attr-defined]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode. ``seed`` seeds the noise; the instance never changes.

        Returns the zero observation and ``info = {"problem": ProblemSpec}``.
        """
        super().reset(seed=seed)
        if options:
            raise InvalidParameterError(
                f"{self.name}: reset() takes no options; got {sorted(options)}. The instance is "
                f"chosen when the environment is made (e.g. the instance_seed= keyword)."
            )
        self._phase = 1
        self._stop_reason = None
        self._samples = 0
        self._pulls[:] = 0
        self._last = np.zeros(self.model.outcome_dim, dtype=np.float64)
        if self._picture is not None:
            self._picture.sums[:] = 0.0
            self._picture.answer = None
            if self.render_mode == "human":
                self._draw_human(force=True)
        return self._last.copy(), {"problem": self.problem}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Pull an arm or stop with an answer (see the class docstring)."""
        if (  # the hot path: a plain in-range int pulled while the episode runs and can go on
            type(action) is int
            and 0 <= action < self.n_arms
            and self._phase == 1
            and (self.budget is None or self._samples < self.budget)
        ):
            rng = self._np_random  # not np_random: reading it gives a block of normals back
            if rng is None:
                rng = self.np_random
            noise = self._noise
            if noise is None:
                outcome = self.model.sample(action, rng)
            else:
                outcome = noise.draw(action, rng)
            self._pulls[action] += 1
            self._samples = n = self._samples + 1
            self._last = outcome
            if self._picture is None and (self.max_samples is None or n < self.max_samples):
                return outcome.copy(), -self.sample_cost, False, False, {"samples": n}
            return self._after_pull(action, outcome)
        self._check_running("step")
        arm, bits = self._parse_action(action)
        if self.budget is not None and self._samples >= self.budget:
            return self._finish(self._answer_from_bits(bits), "budget")
        if arm == self.n_arms:
            return self._finish(self._answer_from_bits(bits), "stopped")
        outcome = self.model.sample(arm, self.np_random)
        self._pulls[arm] += 1
        self._samples += 1
        self._last = outcome
        return self._after_pull(arm, outcome)

    def _after_pull(
        self, arm: int, outcome: np.ndarray
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The end of a pull (counted already): the picture's sums, the cap, the step's tuple."""
        if self._picture is not None:  # picture modes only; one `is None` test for the others
            self._picture.sums[arm] += outcome
            if self.render_mode == "human":
                self._draw_human(force=False)
        if self.max_samples is not None and self._samples >= self.max_samples:
            obs, reward, _, _, info = self._finish(None, "max_samples")
            return outcome.copy(), reward - self.sample_cost, False, True, info
        return outcome.copy(), -self.sample_cost, False, False, {"samples": self._samples}

    def step_batch(self, counts: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Pull arm k ``counts[k]`` times at once; return per-arm sums of the outcomes.

        The sums, shape (K, m), are drawn exactly (equal in distribution to pulling one at a
        time). In fixed budget, asking for more pulls than remain raises
        :class:`BudgetExceededError`; in fixed confidence, crossing ``max_samples`` truncates
        the episode (no outcomes are drawn, and it counts as wrong): the first pulls of the batch
        up to the cap, in arm order, are counted, so ``pulls`` still sums to ``samples``.
        """
        self._check_running("step_batch")
        n = self._parse_counts(counts)
        total = int(n.sum())
        if self.budget is not None and self._samples + total > self.budget:
            raise BudgetExceededError(
                f"{self.name}: the batch asks for {total} pulls but only "
                f"{self.budget - self._samples} of the budget {self.budget} remain."
            )
        if self.max_samples is not None and self._samples + total >= self.max_samples:
            # the pulls up to the cap count, taken in arm order (a batch has no order), so that
            # the per-arm counts still sum to the samples
            left = self.max_samples - self._samples
            self._pulls += np.minimum(n, np.maximum(left - (np.cumsum(n) - n), 0))
            self._samples = self.max_samples
            _, reward, _, _, info = self._finish(None, "max_samples")
            zeros = np.zeros((self.n_arms, self.model.outcome_dim))
            return zeros, reward - self.sample_cost * total, False, True, info
        sums = self.model.sample_sums(n, self.np_random)
        self._pulls += n
        self._samples += total
        if self._picture is not None:
            self._picture.sums += sums
            if self.render_mode == "human":
                self._draw_human(force=False)
        return sums, -self.sample_cost * total, False, False, {"samples": self._samples}

    def render(self) -> str | np.ndarray | None:
        """Render the current state in the ``render_mode`` given at construction.

        ``"ansi"``: one line with the setting, the samples and the pull counts.
        ``"rgb_array"``: a (480, 640, 3) ``uint8`` array (:mod:`bandit_envs.core.rendering`).
        ``"human"``: draws the same picture in a matplotlib window and returns ``None``.
        ``None``: returns ``None``.
        """
        if self._picture is not None:
            return self._picture.renderer(self.render_mode).render(self._view())
        if self.render_mode != "ansi":
            return None
        return rendering.render_text(self._view())

    def close(self) -> None:
        """Close the picture (the ``"human"`` window, or the ``"rgb_array"`` canvas), if any."""
        if self._picture is not None:
            self._picture.close()

    # ------------------------------------------------------------------ helpers for users

    def pull_action(self, arm: int) -> np.ndarray:
        """The MultiDiscrete action that pulls ``arm`` (an integer in ``0..K-1``)."""
        if (
            isinstance(arm, (bool, np.bool_))
            or not isinstance(arm, numbers.Integral)
            or not 0 <= int(arm) < self.n_arms
        ):
            raise InvalidActionError(
                f"{self.name}: pull_action needs an arm index in 0..{self.n_arms - 1}; got {arm!r}."
            )
        action = np.zeros(1 + self.n_items, dtype=np.int64)
        action[0] = arm
        return action

    def stop_action(self, answer: Iterable[int]) -> np.ndarray:
        """The MultiDiscrete action that stops with ``answer`` (a set of item indices)."""
        items = as_answer(answer, self.n_items, who="stop_action: answer")
        action = np.zeros(1 + self.n_items, dtype=np.int64)
        action[0] = self.n_arms
        action[1 + np.fromiter(items, dtype=np.int64, count=len(items))] = 1
        return action

    def complexity(self) -> dict[str, Any]:
        """The instance's complexity measures, computed on the first call and cached.

        For best arm, ``"lower_bound"`` is T*(θ) (so that E[τ_δ] ≳ T*·log(1/δ)) and
        ``"oracle_weights"`` its optimal allocation (Soare, Lazaric & Munos 2014, Section 3).
        Nothing is solved before someone asks: the final ``info["complexity"]`` is a
        :class:`~bandit_envs.core.complexity.ComplexityInfo` that calls this when first read.
        """
        return self._complexity.get()

    @property
    def samples(self) -> int:
        """Pulls made in the current episode."""
        return self._samples

    @property
    def pulls(self) -> np.ndarray:
        """Pull counts per arm in the current episode (a copy)."""
        return self._pulls.copy()

    # ------------------------------------------------------------------ internals

    def _draw_human(self, force: bool) -> None:
        """Redraw the ``"human"`` window: always if ``force``, else at most render_fps per s."""
        now = time.perf_counter()
        picture = self._picture
        if force or now >= picture.next_draw:
            picture.next_draw = now + 1.0 / float(self.metadata["render_fps"])
            picture.renderer("human").refresh(self._view())

    def _view(self) -> rendering.EpisodeView:
        """A snapshot of the episode for the renderers (which never read the env itself)."""
        picture = self._picture
        return rendering.EpisodeView(
            name=self.name,
            task=self.task,
            model=self.model,
            problem=self.problem,
            setting=self.setting,
            delta=self.delta,
            budget=self.budget,
            n_arms=self.n_arms,
            samples=self._samples,
            pulls=self._pulls,
            last=self._last,
            sums=None if picture is None else picture.sums,
            done=self._phase == 2,
            stop_reason=self._stop_reason,
            true_answer=self._true_answer,
            answer=picture.answer if picture is not None and self._phase == 2 else None,
        )

    def _check_running(self, method: str) -> None:
        if self._phase == 0:
            raise ResetNeeded(
                f"{self.name}: cannot call {method}() before reset(); call env.reset(seed=...) "
                f"to start an episode."
            )
        if self._phase == 2:
            raise EpisodeOver(
                f"{self.name}: the episode has ended ({self._stop_reason}); call env.reset() "
                f"to start a new one."
            )

    def _parse_action(self, action: Any) -> tuple[int, np.ndarray | None]:
        k = self.n_arms
        if type(action) is int and 0 <= action <= k:  # the hot path: a plain in-range int
            return action, None
        if isinstance(action, (numbers.Integral, np.integer)) and not isinstance(
            action, (bool, np.bool_)
        ):
            arm, bits = int(action), None
        else:
            arr = np.asarray(action)
            if arr.ndim == 0 or arr.dtype.kind not in "iu" or arr.shape != (1 + self.n_items,):
                raise InvalidActionError(
                    f"{self.name}: an action is an arm index (int) or an integer array of shape "
                    f"({1 + self.n_items},) = [arm or {k} to stop] + {self.n_items} answer bits; "
                    f"got {_short(action)}."
                )
            arm, bits = int(arr[0]), arr[1:]
            bad = np.flatnonzero((bits != 0) & (bits != 1))
            if bad.size:
                raise InvalidActionError(
                    f"{self.name}: answer bits must be 0 or 1; bit {int(bad[0])} is "
                    f"{int(bits[bad[0]])}."
                )
        if not 0 <= arm <= k:
            raise InvalidActionError(
                f"{self.name}: arm {arm} is out of range; pull an arm 0..{k - 1} or stop with {k}."
            )
        return arm, bits

    def _parse_counts(self, counts: Any) -> np.ndarray:
        arr = np.asarray(counts)
        if arr.shape != (self.n_arms,) or arr.dtype.kind not in "iu":
            raise InvalidActionError(
                f"{self.name}: step_batch takes one non-negative integer count per arm, shape "
                f"({self.n_arms},); got {_short(counts)}."
            )
        if (arr < 0).any():
            first = int(np.flatnonzero(arr < 0)[0])
            raise InvalidActionError(
                f"{self.name}: pull counts must be >= 0; arm {first} has {int(arr[first])}."
            )
        if arr.sum() == 0:
            raise InvalidActionError(f"{self.name}: step_batch needs at least one pull.")
        return arr.astype(np.int64)

    def _answer_from_bits(self, bits: np.ndarray | None) -> Answer:
        if bits is None:
            return frozenset()
        return frozenset(int(i) for i in np.flatnonzero(bits))

    def _finish(
        self, answer: Answer | None, reason: str
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._phase = 2
        self._stop_reason = reason
        if self._picture is not None:
            self._picture.answer = answer
            if self.render_mode == "human":
                self._draw_human(force=True)
        truth = self._true_answer
        malformed = None
        if answer is None:  # truncated: no answer, counts as wrong
            g = self.task.grade(frozenset(), truth, self.model.means)
            correct = False
            precision, recall, f1 = g.precision, g.recall, g.f1
        else:  # graded as given; an answer no instance can have is flagged, never refused
            malformed = self.task.impossible_answer(answer, self.problem)
            g = self.task.grade(answer, truth, self.model.means)
            correct, precision, recall, f1 = g.correct, g.precision, g.recall, g.f1
        info = {
            "correct": correct,
            "answer": answer,
            "malformed_answer": malformed,
            "true_answer": truth,
            "samples": self._samples,
            "stop_reason": reason,
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "pulls": self._pulls.copy(),
            "complexity": ComplexityInfo(self._complexity),
            "truth": _fresh(self.model.truth()),
        }
        reward = self.correct_reward if correct else self.wrong_reward
        return self._last.copy(), reward, reason != "max_samples", reason == "max_samples", info


def _fresh(data: dict[str, Any]) -> dict[str, Any]:
    """A copy whose arrays are new objects: every final ``info`` owns its data."""
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in data.items()}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
