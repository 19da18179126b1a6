"""The table of refused inputs, ``docs/errors.md``: every row reproduced, exactly.

Each :class:`Case` is one row of the page: a line of code run after :data:`PREAMBLE`, the class
of the exception it raises, and the exact message. The page is generated from :data:`CASES`
(``python docs/scripts/errors_table.py``); :func:`test_page_is_generated_from_the_cases` fails
when the two drift apart. :func:`test_refusal_is_clean` checks the library's rule on every row: no
``AssertionError``, bare ``IndexError``/``KeyError`` or numpy warning reaches a user.

To add a row: append a :class:`Case` (run it once to copy the message), then regenerate the page.
No row downloads anything: data rows point ``BANDIT_ENVS_DATA`` at an empty temporary folder or
pass ``download=False``, and the network is blocked while they run.
"""

from __future__ import annotations

import dataclasses
import os
import re
import warnings
from pathlib import Path
from unittest import mock

import gymnasium
import pytest

import bandit_envs.data._cache
from bandit_envs.errors import (
    AgentProtocolError,
    BanditEnvError,
    BudgetExceededError,
    CorruptResultsError,
    DataError,
    EpisodeOver,
    IncompatibleAgentError,
    InvalidActionError,
    InvalidAnswerError,
    InvalidInstanceError,
    InvalidParameterError,
    ResetNeeded,
    UnknownNameError,
)
from registry.config import ConfigError

PAGE = Path(__file__).resolve().parents[2] / "docs" / "errors.md"

#: the setup every row runs after (``tmp``, an empty folder, is defined first).
PREAMBLE_IMPORTS = """\
import os
import pathlib
import tempfile

import gymnasium as gym
import numpy as np

import bandit_envs
import registry
from bandit_envs import AgentCapabilities, ProblemSpec, as_answer, run_episode
from bandit_envs.data import dataset_path, read_noc_csv
from registry import make_agent, make_env
from registry.config import load_config, validate_settings
"""
TMP_LINE = "tmp = pathlib.Path(tempfile.mkdtemp())  # an empty folder (the tests use tmp_path)\n"
PREAMBLE_HELPERS = '''

def soare(**kwargs):
    """LinearBAI-Soare-v0, reset: arms 0, 1, 2; action 3 stops; answers are subsets of {0, 1, 2}."""
    env = gym.make("LinearBAI-Soare-v0", **kwargs)
    env.reset(seed=0)
    return env


def spec(**changes):
    """A valid ProblemSpec (best arm, 3 arms, fixed confidence) with some fields changed."""
    fields = dict(task="best_arm", setting="fixed_confidence", n_arms=3, n_items=3,
                  outcome_dim=1, features=np.eye(3), delta=0.05)
    return ProblemSpec(**{**fields, **changes})


ENV = '[[env]]\\nid = "LinearBAI-Soare-v0"\\n'
AGENT = '[[agent]]\\nname = "Uniform"\\n'


def bench_config(text):
    """What `bandit-bench run <tmp>/sweep.toml` checks before it runs anything."""
    path = tmp / "sweep.toml"
    path.write_text(text)
    validate_settings(load_config(path))


class Scripted:
    """A best-arm agent that pulls `arms` one by one, then stops and recommends `answer`."""

    capabilities = AgentCapabilities(tasks={"best_arm"})

    def __init__(self, arms=(), answer=frozenset({0})):
        self.arms, self.answer = list(arms), answer

    def reset(self, spec, rng):
        self.todo = list(self.arms)

    def select(self):
        return self.todo.pop(0) if self.todo else None

    def observe(self, arm, outcome):
        pass

    def recommend(self):
        return self.answer


class ScriptedBatch(Scripted):
    """The same on the batch path: asks for `counts` pulls at once, then stops."""

    capabilities = AgentCapabilities(tasks={"best_arm"}, batch=True)

    def __init__(self, counts, answer=frozenset({0})):
        super().__init__((), answer)
        self.counts = counts

    def select_batch(self):
        counts, self.counts = self.counts, None
        return counts

    def observe_batch(self, counts, sums):
        pass


NOC_HEADER = "width;complexity;fifo;multiplier;energy;inv_runtime\\n"
'''
PREAMBLE = PREAMBLE_IMPORTS + PREAMBLE_HELPERS


@dataclasses.dataclass(frozen=True)
class Case:
    """One row: ``code`` (one line, run after the preamble) raises ``error`` with ``message``.

    ``message`` is exact, with ``<tmp>`` for the temporary folder and ``<cache>`` for the user
    cache folder; with ``prefix=True`` it is the stable beginning of the message (the rest lists
    the whole catalogue, or is a third-party parser's). ``by="gymnasium"`` marks inputs Gymnasium
    refuses itself.
    """

    group: str
    error: type[BaseException]
    code: str
    message: str
    by: str = "bandit_envs"
    prefix: bool = False


#: the page's sections, in order: key -> (title, what the section covers).
GROUPS: dict[str, tuple[str, str]] = {
    "ids": (
        "Environment ids",
        "`gym.make` refuses an unknown id with Gymnasium's own error and suggestion, also "
        "behind the `bandit_envs:` prefix (which imports the package first); "
        "`registry.make_env` raises `UnknownNameError` with up to three close ids and the "
        "whole catalogue.",
    ),
    "make": (
        "gym.make keywords",
        "Every id validates its keywords before building anything: types, ranges, shapes, NaN, "
        "the setting (`delta=` or `budget=`, not both) and ill-posed instances "
        "(`InvalidInstanceError`), in every family: linear best arm, Pareto sets, all "
        "ε-good, misspecified, logistic and constrained.",
    ),
    "actions": (
        "Actions",
        "`env.step` takes an arm index or a `MultiDiscrete` vector `[arm or K, bit_0, ...]`; "
        "`step_batch` takes one count per arm. Nothing is clipped.",
    ),
    "answers": (
        "Answers",
        "An answer is a set of item indices (`frozenset[int]`): `stop_action` and `as_answer` "
        "refuse anything else.",
    ),
    "spec": (
        "ProblemSpec fields",
        "A `ProblemSpec` built by hand (for a unit test of an agent, say) is checked like the "
        "ones environments build: setting and δ or budget, sizes, features, noise, extras.",
    ),
    "data": (
        "Data files",
        "The NoC and Energy data are read from `BANDIT_ENVS_DATA` (never downloads) or the "
        "cache, and checked against their sha256; the messages say which file to put where.",
    ),
    "config": (
        "Configuration files of bandit-bench run",
        "`bandit-bench run <file>` loads and validates the whole configuration before the first "
        "episode; on any of these it prints `bandit-bench run: error: <message>` and exits "
        "with status 2.",
    ),
    "results": (
        "Results files of sweeps",
        "A sweep appends one JSON line per episode to `<out>/results.jsonl`. A cut last line "
        "(a write interrupted by a kill) is removed with a warning and its episode runs again; "
        "a bad line before the last cannot come from a crash, so resuming (`sweep`, "
        "`bandit-bench run`) and reading (`read_results`, `bandit-bench report`) stop on it, "
        "naming the file and the line, and change nothing.",
    ),
    "runner": (
        "Agent misbehaviour caught by the runner",
        "`run_episode` checks every arm an agent selects, every batch it asks for and the "
        "answer it recommends: a set of item indices that some instance of the task could have "
        "(`Task.impossible_answer`: exactly one arm for best arm, a non-empty set for Pareto "
        "sets and all ε-good arms, the empty set or L + 1 items for constrained mixed arms). "
        "These are the checks `agents.check_agent` relies on. A raw `env.step` with such an "
        'answer is graded, not refused, and its final `info["malformed_answer"]` says why.',
    ),
    "params": (
        "Agent names and parameters",
        "`make_agent` refuses unknown names and keywords; zoo agents validate their "
        "hyper-parameters (and the budget they need) at `reset`, so the first `run_episode` "
        "fails.",
    ),
}

CASES: list[Case] = [
    # ids
    Case(
        "ids",
        gymnasium.error.NameNotFound,
        'gym.make("LinearBAI-Soar-v0")',
        "Environment `LinearBAI-Soar` doesn't exist. Did you mean: `LinearBAI-Soare`?",
        by="gymnasium",
    ),
    Case(
        "ids",
        gymnasium.error.NameNotFound,
        'gym.make("bandit_envs:LinearBAI-Soar-v0")',
        "Environment `LinearBAI-Soar` doesn't exist. Did you mean: `LinearBAI-Soare`?",
        by="gymnasium",
    ),
    Case(
        "ids",
        gymnasium.error.VersionNotFound,
        'gym.make("LinearBAI-Soare-v1")',
        "Environment version `v1` for environment `LinearBAI-Soare` doesn't exist. It provides "
        "versioned environments: [ `v0` ].",
        by="gymnasium",
    ),
    Case(
        "ids",
        UnknownNameError,
        'make_env("bandit_envs:LinearBAI-Sphre-v0")',
        "Unknown environment 'bandit_envs:LinearBAI-Sphre-v0'. Did you mean "
        "'LinearBAI-Sphere-v0' or 'LinearBAI-Soare-v0' or 'LinearBAI-Basis-v0'? Known "
        "environments: ",
        prefix=True,
    ),
    Case(
        "ids",
        InvalidParameterError,
        "make_env(3)",
        "env_entry: an environment id is a string such as 'LinearBAI-Soare-v0'; got 3.",
    ),
    # make
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", delta=1.5)',
        "LinearBAI-Soare-v0: delta must be a float in the open interval (0, 1); got 1.5. was "
        "raised from the environment creator for LinearBAI-Soare-v0 with kwargs ({'delta': "
        "1.5})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", delta="0.05")',
        "LinearBAI-Soare-v0: delta must be a float in the open interval (0, 1); got '0.05'. "
        "was raised from the environment creator for LinearBAI-Soare-v0 with kwargs ({'delta': "
        "'0.05'})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", delta=0.05, budget=1000)',
        "LinearBAI-Soare-v0: give exactly one of delta= (fixed confidence) and budget= (fixed "
        "budget); got delta=0.05 and budget=1000. was raised from the environment creator for "
        "LinearBAI-Soare-v0 with kwargs ({'delta': 0.05, 'budget': 1000})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", budget=0)',
        "LinearBAI-Soare-v0: budget must be an integer >= 1; got 0. was raised from the "
        "environment creator for LinearBAI-Soare-v0 with kwargs ({'budget': 0})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", budget=1000.0)',
        "LinearBAI-Soare-v0: budget must be an integer >= 1; got 1000.0. was raised from the "
        "environment creator for LinearBAI-Soare-v0 with kwargs ({'budget': 1000.0})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", budget=1000, max_samples=500)',
        "LinearBAI-Soare-v0: max_samples is the safety cap of the fixed-confidence setting; in "
        "fixed budget the budget (1000) is the cap. Drop max_samples. was raised from the "
        "environment creator for LinearBAI-Soare-v0 with kwargs ({'budget': 1000, "
        "'max_samples': 500})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", max_samples=0)',
        "LinearBAI-Soare-v0: max_samples must be an integer >= 1; got 0. was raised from the "
        "environment creator for LinearBAI-Soare-v0 with kwargs ({'max_samples': 0})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", sigm=0.5)',
        "LinearBAI-Soare-v0: unknown keyword 'sigm'. Did you mean 'sigma'? Valid keywords: d, "
        "omega, scale, sigma, delta, budget, max_samples, sample_cost, correct_reward, "
        "wrong_reward, render_mode. was raised from the environment creator for "
        "LinearBAI-Soare-v0 with kwargs ({'sigm': 0.5})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", name="mine")',
        "LinearBAI-Soare-v0: unknown keyword 'name'. Valid keywords: d, omega, scale, sigma, "
        "delta, budget, max_samples, sample_cost, correct_reward, wrong_reward, render_mode. "
        "was raised from the environment creator for LinearBAI-Soare-v0 with kwargs ({'name': "
        "'mine'})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", render_mode="video")',
        "LinearBAI-Soare-v0: render_mode must be one of ['ansi', 'rgb_array', 'human'] or "
        "None; got 'video'. was raised from the environment creator for LinearBAI-Soare-v0 "
        "with kwargs ({'render_mode': 'video'})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", sample_cost=float("nan"))',
        "LinearBAI-Soare-v0: sample_cost must be a finite float; got nan. was raised from the "
        "environment creator for LinearBAI-Soare-v0 with kwargs ({'sample_cost': nan})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", sigma=-1.0)',
        "LinearBAI-Soare-v0: sigma must be a finite float >= 0; got -1.0. was raised from the "
        "environment creator for LinearBAI-Soare-v0 with kwargs ({'sigma': -1.0})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", sigma=1e300)',
        "LinearGaussian: sigma must be at most 1e+140 (its square, the noise variance, must be "
        "a finite float64); got 1e+300. was raised from the environment creator for "
        "LinearBAI-Soare-v0 with kwargs ({'sigma': 1e+300})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", d=2.5)',
        "LinearBAI-Soare-v0: d must be an integer >= 2; got 2.5. was raised from the "
        "environment creator for LinearBAI-Soare-v0 with kwargs ({'d': 2.5})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Sphere-v0", gamma=0.7)',
        "LinearBAI-Sphere-v0: gamma must be in [0, 0.5) so that u stays the best arm; got 0.7. "
        "was raised from the environment creator for LinearBAI-Sphere-v0 with kwargs "
        "({'gamma': 0.7})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Custom-v0", features=[[1.0, 0.0], [0.0, float("nan")]], theta=[1.0, '
        "0.0])",
        "LinearGaussian: features must be finite; 1 entries are NaN or infinite, the first at "
        "index (1, 1) (value nan). was raised from the environment creator for "
        "LinearBAI-Custom-v0 with kwargs ({'features': [[1.0, 0.0], [0.0, nan]], 'theta': "
        "[1.0, 0.0]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Custom-v0", features=[1.0, 0.0, 0.0], theta=[1.0, 0.0])',
        "LinearGaussian: features must be a 2-D array; got shape (3,). was raised from the "
        "environment creator for LinearBAI-Custom-v0 with kwargs ({'features': [1.0, 0.0, "
        "0.0], 'theta': [1.0, 0.0]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Custom-v0", features=[[1.0, 0.0], [0.0, 1.0]], theta=[1.0, 0.0, 0.0])',
        "LinearGaussian: theta must have as many rows as features has columns (2); got "
        "features of shape (2, 2) and theta of shape (3,). was raised from the environment "
        "creator for LinearBAI-Custom-v0 with kwargs ({'features': [[1.0, 0.0], [0.0, 1.0]], "
        "'theta': [1.0, 0.0, 0.0]})",
    ),
    Case(
        "make",
        InvalidInstanceError,
        'gym.make("LinearBAI-Custom-v0", features=[[1.0, 0.0], [0.0, 1.0]], theta=[1.0, 1.0])',
        "BestArm: the best arm is not unique: arms 0, 1 all have mean 1.0 (within 1e-12); "
        "best-arm identification is ill-posed here. was raised from the environment creator "
        "for LinearBAI-Custom-v0 with kwargs ({'features': [[1.0, 0.0], [0.0, 1.0]], 'theta': "
        "[1.0, 1.0]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Custom-v0", features=[[2.0, 0.0], [0.0, 1.0]], theta=[1e308, 1.0])',
        "LinearGaussian: the arm means (or their differences) overflow float64 (largest "
        "magnitude inf); rescale the features, theta or means. was raised from the environment "
        "creator for LinearBAI-Custom-v0 with kwargs ({'features': [[2.0, 0.0], [0.0, "
        "1.0]], 'theta': [1e+308, 1.0]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Custom-v0", features=[[1.0, 0.0], [0.0, 1.0]], theta=[1e300, 5e299])',
        "LinearGaussian: the arm means must be at most 1e+100 in magnitude (sums of many "
        "outcomes and their squares must stay finite float64); got a mean of magnitude 1e+300. "
        "Rescale the features, theta or means (and sigma with them). was raised from the "
        "environment creator for LinearBAI-Custom-v0 with kwargs ({'features': [[1.0, 0.0], "
        "[0.0, 1.0]], 'theta': [1e+300, 5e+299]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Custom-v0", features=[[1e-200, 0.0], [0.0, 1e-200]], theta=[1.0, '
        "0.5])",
        "LinearGaussian: the features' largest entry must be between 1e-50 and 1e+50 in "
        "magnitude (least squares on them must stay finite and non-singular in float64); got "
        "1e-200. Divide the features by a constant c and multiply theta by c: the means, hence "
        "the problem, stay the same. was raised from the environment creator for LinearBAI-"
        "Custom-v0 with kwargs ({'features': [[1e-200, 0.0], [0.0, 1e-200]], 'theta': [1.0, "
        "0.5]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0", max_episode_steps=100)',
        "LinearBAI-Soare-v0: gym.make does not take max_episode_steps (got 100): a pure-"
        "exploration episode ends when the agent stops, or at the budget= of fixed budget, or "
        "at the max_samples= safety cap of fixed confidence, always graded; use budget= or "
        "max_samples= instead.",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearPSI-Custom-v0", means=[[1.0, 0.0], [0.0]])',
        "LinearPSI-Custom-v0: means must be a numeric array; its rows have different lengths "
        "([[1.0, 0.0], [0.0]]). was raised from the environment creator for "
        "LinearPSI-Custom-v0 with kwargs ({'means': [[1.0, 0.0], [0.0]]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearPSI-Custom-v0", features=[[1.0, 0.0], [0.0, 1.0]], theta=[1.0, 0.0])',
        "LinearPSI-Custom-v0: theta must be a 2-D array; got shape (2,). For one objective "
        "pass a column (shape (h, 1) or (K, 1)), or use LinearBAI-Custom-v0 for best-arm "
        "identification. was raised from the environment creator for LinearPSI-Custom-v0 with "
        "kwargs ({'features': [[1.0, 0.0], [0.0, 1.0]], 'theta': [1.0, 0.0]})",
    ),
    Case(
        "make",
        InvalidInstanceError,
        'gym.make("LinearPSI-Custom-v0", means=[[1.0, 0.0], [1.0, 0.0]])',
        "ParetoSet: the PSI gap of arms 0, 1 is 0 (at most 1e-12): arms 0, 1 have the "
        "identical mean vector [1.0, 0.0]. Exact Pareto set identification is ill-posed on "
        "this instance (infinite complexity); perturb the means or use "
        "ParetoSet(epsilon > 0). was raised from the environment creator for "
        "LinearPSI-Custom-v0 with kwargs ({'means': [[1.0, 0.0], [1.0, 0.0]]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearPSI-Custom-v0", means=[[1.0, 0.0], [0.0, 1.0]], cov=[[1.0, 2.0], [2.0, '
        "1.0]])",
        "LinearPSI-Custom-v0: cov must be positive semi-definite (a covariance matrix); its "
        "smallest eigenvalue is -1.0. was raised from the environment creator for "
        "LinearPSI-Custom-v0 with kwargs ({'means': [[1.0, 0.0], [0.0, 1.0]], 'cov': [[1.0, "
        "2.0], [2.0, 1.0]]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearPSI-Synthetic-v0", K=5)',
        "LinearPSI-Synthetic-v0: K must be an integer >= 8; got 5. was raised from the "
        "environment creator for LinearPSI-Synthetic-v0 with kwargs ({'K': 5})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearPSI-Synthetic-v0", epsilon=-0.1)',
        "LinearPSI-Synthetic-v0: epsilon must be a finite float >= 0; got -0.1. was raised "
        "from the environment creator for LinearPSI-Synthetic-v0 with kwargs ({'epsilon': "
        "-0.1})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearEpsGood-Custom-v0", means=[1.0, 0.5])',
        "LinearEpsGood-Custom-v0: epsilon= is required; e.g. "
        "gym.make('LinearEpsGood-Custom-v0', features=np.eye(3), theta=[1.0, 0.9, 0.2], "
        "epsilon=0.3) or gym.make('LinearEpsGood-Custom-v0', means=[1.0, 0.9, 0.2], "
        "epsilon=0.3). was raised from the environment creator for LinearEpsGood-Custom-v0 "
        "with kwargs ({'means': [1.0, 0.5]})",
    ),
    Case(
        "make",
        InvalidInstanceError,
        'gym.make("LinearEpsGood-Custom-v0", means=[1.0, 0.5], epsilon=0.5)',
        "AllEpsilonGood: arms 1 have means within 1e-09 of the threshold 0.5 (epsilon 0.5); "
        "whether they are epsilon-good cannot be certified (infinite complexity). Change "
        "epsilon or the means. was raised from the environment creator for "
        "LinearEpsGood-Custom-v0 with kwargs ({'means': [1.0, 0.5], 'epsilon': 0.5})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearEpsGood-Custom-v0", means=[1.0, 0.5], epsilon=2.0, multiplicative=True)',
        "LinearEpsGood-Custom-v0: with multiplicative=True epsilon must be in (0, 1]; got 2.0. "
        "was raised from the environment creator for LinearEpsGood-Custom-v0 with kwargs "
        "({'means': [1.0, 0.5], 'epsilon': 2.0, 'multiplicative': True})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LinearEpsGood-Adaptive-v0", m=3)',
        "LinearEpsGood-Adaptive-v0: m must be an even integer >= 2 (the instance has n = 1.5m "
        "- m_tilde disturbing arms); got 3. was raised from the environment creator for "
        "LinearEpsGood-Adaptive-v0 with kwargs ({'m': 3})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("MisspecifiedEpsGood-Adaptive-v0", deviation="evil")',
        "MisspecifiedEpsGood-Adaptive-v0: deviation must be one of ('random', 'adversarial'); "
        "got 'evil'. was raised from the environment creator for "
        "MisspecifiedEpsGood-Adaptive-v0 with kwargs ({'deviation': 'evil'})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("MisspecifiedEpsGood-Custom-v0", features=[[1, 0], [0, 1], [1, 1]], theta=[1, '
        "0.2], deviation=[0, 0, -0.4], epsilon=0.15, L_m=0.1)",
        "MisspecifiedEpsGood-Custom-v0: bound L_m = 0.1 is inconsistent with the means: the "
        "deviation means - features @ theta is off by 0.4 > L_m on some arm; give a bound >= "
        "0.4. was raised from the environment creator for MisspecifiedEpsGood-Custom-v0 with "
        "kwargs ({'features': [[1, 0], [0, 1], [1, 1]], 'theta': [1, 0.2], 'deviation': [0, 0, "
        "-0.4], 'epsilon': 0.15, 'L_m': 0.1})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LogisticEpsGood-Custom-v0", means=[0.5, 1.2], epsilon=0.1)',
        "LogisticEpsGood-Custom-v0: means must be probabilities in the open interval (0, 1); "
        "got means[1] = 1.2. was raised from the environment creator for "
        "LogisticEpsGood-Custom-v0 with kwargs ({'means': [0.5, 1.2], 'epsilon': 0.1})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("LogisticEpsGood-Custom-v0", task="pareto_set")',
        "LogisticEpsGood-Custom-v0: task must be one of ('all_eps_good', 'best_arm'); got "
        "'pareto_set'. was raised from the environment creator for LogisticEpsGood-Custom-v0 "
        "with kwargs ({'task': 'pareto_set'})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("ConstrainedMixed-Table1-v0", instance="D4P")',
        "ConstrainedMixed-Table1-v0: instance must be one of ['D1I', 'D1P', 'D2I', 'D2P', "
        "'D3I', 'D3P'] (Appendix C, Table 1); got 'D4P'. was raised from the environment "
        "creator for ConstrainedMixed-Table1-v0 with kwargs ({'instance': 'D4P'})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("ConstrainedMixed-Random-v0", L=3)',
        "ConstrainedMixed-Random-v0: L must be 1 (the L = 1 generator) or 2 (the Appendix-C "
        "generator); got 3. was raised from the environment creator for "
        "ConstrainedMixed-Random-v0 with kwargs ({'L': 3})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("ConstrainedMixed-Custom-v0", rewards=[1.0, 0.5], costs=[[0.1, 0.2, 0.3]])',
        "ConstrainedMixed-Custom-v0: costs must have shape (L, K) with one column per arm (K = "
        "2 rewards); got costs of shape (1, 3). was raised from the environment creator for "
        "ConstrainedMixed-Custom-v0 with kwargs ({'rewards': [1.0, 0.5], 'costs': [[0.1, 0.2, "
        "0.3]]})",
    ),
    Case(
        "make",
        InvalidInstanceError,
        'gym.make("ConstrainedMixed-Custom-v0", rewards=[1.0, 1.0], costs=[[0.5, 0.5]])',
        "ConstrainedMixed-Custom-v0: Assumption 1 fails (Tang et al. 2024, Sec. 4.1): the "
        "optimum (value 1, "
        "basis {arm 0, slack 2 (constraint 0)}) is not unique: arm 1 has reduced cost 0 (not < "
        "0), so bringing it into the basis gives another optimal solution. Perturb the means "
        "so that the best mixed arm is unique. was raised from the environment creator for "
        "ConstrainedMixed-Custom-v0 with kwargs ({'rewards': [1.0, 1.0], 'costs': [[0.5, "
        "0.5]]})",
    ),
    Case(
        "make",
        InvalidParameterError,
        'gym.make("ConstrainedMixed-Custom-v0", known_arms=[7])',
        "ConstrainedMixed-Custom-v0: known_arms must be arm indices in 0..4; got 7. was raised "
        "from the environment creator for ConstrainedMixed-Custom-v0 with kwargs "
        "({'known_arms': [7]})",
    ),
    # actions
    Case(
        "actions",
        gymnasium.error.ResetNeeded,
        'gym.make("LinearBAI-Soare-v0").step(0)',
        "Cannot call env.step() before calling env.reset()",
        by="gymnasium",
    ),
    Case(
        "actions",
        ResetNeeded,
        'gym.make("LinearBAI-Soare-v0").unwrapped.step(0)',
        "LinearBAI-Soare-v0: cannot call step() before reset(); call env.reset(seed=...) to "
        "start an episode.",
    ),
    Case(
        "actions",
        InvalidActionError,
        "soare().step(7)",
        "LinearBAI-Soare-v0: arm 7 is out of range; pull an arm 0..2 or stop with 3.",
    ),
    Case(
        "actions",
        InvalidActionError,
        "soare().step(1.0)",
        "LinearBAI-Soare-v0: an action is an arm index (int) or an integer array of shape (4,) "
        "= [arm or 3 to stop] + 3 answer bits; got 1.0.",
    ),
    Case(
        "actions",
        InvalidActionError,
        "soare().step(np.array([0, 1]))",
        "LinearBAI-Soare-v0: an action is an arm index (int) or an integer array of shape (4,) "
        "= [arm or 3 to stop] + 3 answer bits; got array([0, 1]).",
    ),
    Case(
        "actions",
        InvalidActionError,
        "soare().step(np.array([3, 2, 0, 0]))",
        "LinearBAI-Soare-v0: answer bits must be 0 or 1; bit 0 is 2.",
    ),
    Case(
        "actions",
        EpisodeOver,
        "env = soare(); env.step(3); env.step(0)",
        "LinearBAI-Soare-v0: the episode has ended (stopped); call env.reset() to start a new one.",
    ),
    Case(
        "actions",
        EpisodeOver,
        "env = soare(budget=1); env.step(0); env.step(0); env.step(1)",
        "LinearBAI-Soare-v0: the episode has ended (budget); call env.reset() to start a new one.",
    ),
    Case(
        "actions",
        InvalidActionError,
        "soare().unwrapped.pull_action(3)",
        "LinearBAI-Soare-v0: pull_action needs an arm index in 0..2; got 3.",
    ),
    Case(
        "actions",
        InvalidActionError,
        "soare().unwrapped.pull_action(1.5)",
        "LinearBAI-Soare-v0: pull_action needs an arm index in 0..2; got 1.5.",
    ),
    Case(
        "actions",
        InvalidParameterError,
        "bandit_envs.PureExplorationEnv(None, bandit_envs.BestArm(), delta=0.1)",
        "PureExplorationEnv: model must be a bandit_envs RewardModel (e.g. LinearGaussian); "
        "got NoneType.",
    ),
    Case(
        "actions",
        InvalidParameterError,
        'bandit_envs.PureExplorationEnv(soare().unwrapped.model, "best_arm", delta=0.1)',
        "PureExplorationEnv: task must be a bandit_envs Task (e.g. BestArm()); got 'best_arm'.",
    ),
    Case(
        "actions",
        InvalidActionError,
        "soare().unwrapped.step_batch([2, -1, 0])",
        "LinearBAI-Soare-v0: pull counts must be >= 0; arm 1 has -1.",
    ),
    Case(
        "actions",
        BudgetExceededError,
        "soare(budget=5).unwrapped.step_batch([3, 3, 0])",
        "LinearBAI-Soare-v0: the batch asks for 6 pulls but only 5 of the budget 5 remain.",
    ),
    Case(
        "actions",
        InvalidParameterError,
        'gym.make("LinearBAI-Soare-v0").reset(options={"instance": 2})',
        "LinearBAI-Soare-v0: reset() takes no options; got ['instance']. The instance is "
        "chosen when the environment is made (e.g. the instance_seed= keyword).",
    ),
    # answers
    Case(
        "answers",
        InvalidAnswerError,
        "soare().unwrapped.stop_action(1)",
        "stop_action: answer must be a set of item indices such as frozenset({0}); got 1.",
    ),
    Case(
        "answers",
        InvalidAnswerError,
        "soare().unwrapped.stop_action({5})",
        "stop_action: answer contains item 5, outside the valid range 0..2.",
    ),
    Case(
        "answers",
        InvalidAnswerError,
        "soare().unwrapped.stop_action({True})",
        "stop_action: answer must contain integer item indices; got True in {True}.",
    ),
    Case(
        "answers",
        InvalidAnswerError,
        "soare().unwrapped.stop_action([1.0])",
        "stop_action: answer must contain integer item indices; got 1.0 in [1.0].",
    ),
    Case(
        "answers",
        InvalidAnswerError,
        'as_answer("01", n_items=3)',
        "answer must be a set of item indices such as frozenset({0}); got '01'.",
    ),
    # spec
    Case(
        "spec",
        InvalidParameterError,
        'spec(setting="anytime")',
        "ProblemSpec: setting must be one of ('fixed_confidence', 'fixed_budget'); got 'anytime'.",
    ),
    Case(
        "spec",
        InvalidParameterError,
        "spec(delta=None)",
        "ProblemSpec: setting 'fixed_confidence' needs delta (a float in (0, 1)) and no "
        "budget; got delta=None and budget=None.",
    ),
    Case(
        "spec",
        InvalidParameterError,
        "spec(delta=2.0)",
        "ProblemSpec: delta must be a float in the open interval (0, 1); got 2.0.",
    ),
    Case(
        "spec",
        InvalidParameterError,
        'spec(setting="fixed_budget", delta=None, budget=-1)',
        "ProblemSpec: budget must be an integer >= 1; got -1.",
    ),
    Case(
        "spec",
        InvalidParameterError,
        "spec(n_arms=0)",
        "ProblemSpec: n_arms must be an integer >= 1; got 0.",
    ),
    Case(
        "spec",
        InvalidParameterError,
        "spec(features=np.eye(2))",
        "ProblemSpec: features must have 3 rows (one per arm); got shape (2, 2).",
    ),
    Case(
        "spec",
        InvalidParameterError,
        'spec(features=[[1.0, 0.0], [0.0, 1.0], [0.0, float("inf")]])',
        "ProblemSpec: features must be finite; 1 entries are NaN or infinite, the first at "
        "index (2, 1) (value inf).",
    ),
    Case(
        "spec",
        InvalidParameterError,
        "spec(noise_std=-1.0)",
        "ProblemSpec: noise_std must be a finite float >= 0; got -1.0.",
    ),
    Case(
        "spec",
        InvalidParameterError,
        'spec(extras=[("m", 2)])',
        "ProblemSpec: extras must be a mapping (e.g. a dict); got [('m', 2)].",
    ),
    Case(
        "spec",
        InvalidParameterError,
        "spec().replace(eps=0.1)",
        "ProblemSpec.replace: no field(s) ['eps']; the fields are ['task', 'setting', "
        "'n_arms', 'n_items', 'outcome_dim', 'structure', 'features', 'noise_std', 'delta', "
        "'budget', 'max_samples', 'epsilon', 'cost_thresholds', 'link', 'misspecification', "
        "'name', 'extras'].",
    ),
    # data
    Case(
        "data",
        DataError,
        'os.environ["BANDIT_ENVS_DATA"] = str(tmp); gym.make("LinearPSI-NoC-v0")',
        "LinearPSI-NoC-v0 needs the NoC data set (Almer, Topham & Franke 2011). bandit_envs.data: "
        "noc_CM_log.csv is not in the folder <tmp> named by BANDIT_ENVS_DATA (this mode never "
        "downloads). Put noc_CM_log.csv there (from "
        "https://raw.githubusercontent.com/cyrille-kone/linear_psi/main/data/noc_CM_log.csv), "
        "or unset BANDIT_ENVS_DATA to use the cache (<cache>).",
    ),
    Case(
        "data",
        DataError,
        'os.environ.pop("BANDIT_ENVS_DATA", None); dataset_path("noc", cache_dir=tmp, '
        "download=False)",
        "bandit_envs.data: the 'noc' data set (noc_CM_log.csv) is not available locally "
        "(downloading disabled). Download "
        "https://raw.githubusercontent.com/cyrille-kone/linear_psi/main/data/noc_CM_log.csv "
        "and save it as <tmp>/noc_CM_log.csv. Or put noc_CM_log.csv (sha256 "
        "6df784c53d285d8e83a4467a5d2732779b78ea45101e82e7b5cf4b998f2870f4) in a folder and set "
        "the environment variable BANDIT_ENVS_DATA to that folder.",
    ),
    Case(
        "data",
        DataError,
        'os.environ["BANDIT_ENVS_DATA"] = str(tmp); (tmp / '
        '"noc_CM_log.csv").write_text(NOC_HEADER + "1;2;3;4;5;6\\n"); '
        'gym.make("LinearPSI-NoC-v0")',
        "LinearPSI-NoC-v0 needs the NoC data set (Almer, Topham & Franke 2011). bandit_envs.data: "
        "<tmp>/noc_CM_log.csv fails the sha256 check of the 'noc' data set (noc_CM_log.csv): "
        "expected 6df784c53d285d8e83a4467a5d2732779b78ea45101e82e7b5cf4b998f2870f4, got "
        "bea89e1a02462d88ac0f6185780a9c93e0656290f442f0da594232350bd4a484. Replace it with a "
        "good copy (from "
        "https://raw.githubusercontent.com/cyrille-kone/linear_psi/main/data/noc_CM_log.csv), "
        "or unset BANDIT_ENVS_DATA.",
    ),
    Case(
        "data",
        DataError,
        'os.environ.pop("BANDIT_ENVS_DATA", None); (tmp / "noc_CM_log.csv").write_text("oops"); '
        'dataset_path("noc", cache_dir=tmp, download=False)',
        "bandit_envs.data: the cached file <tmp>/noc_CM_log.csv fails the sha256 check of "
        "the 'noc' data set (noc_CM_log.csv): expected "
        "6df784c53d285d8e83a4467a5d2732779b78ea45101e82e7b5cf4b998f2870f4, got "
        "d13f2eadd4ed5b027fa773a29520cc0d65ce374365d641112de786f8a029c2fe. Delete it (it is "
        "downloaded again on next use) or run `bandit-bench data fetch --force noc`.",
    ),
    Case(
        "data",
        DataError,
        '(tmp / "noc.csv").write_text(NOC_HEADER + "1;2;x;4;5;6\\n"); read_noc_csv(tmp / '
        '"noc.csv")',
        "bandit_envs.data: <tmp>/noc.csv, line 2, column 'fifo': expected a finite decimal "
        "number; got 'x'.",
    ),
    Case(
        "data",
        DataError,
        'os.environ["BANDIT_ENVS_DATA"] = str(tmp / "nowhere"); dataset_path("noc")',
        "bandit_envs.data: BANDIT_ENVS_DATA names <tmp>/nowhere, which is not a folder. "
        "Set it to a folder holding noc_CM_log.csv, or unset it to use the cache (<cache>) and "
        "download on first use.",
    ),
    Case(
        "data",
        UnknownNameError,
        'dataset_path("nox")',
        "get_dataset: unknown data set 'nox'; known: energy, noc. Did you mean 'noc'?",
    ),
    # config
    Case(
        "config",
        ConfigError,
        'bench_config("seeds = 3\\n" + ENV + AGENT)',
        "<tmp>/sweep.toml: unknown key 'seeds' in the top level; valid keys: agent, "
        "description, env, sweep.",
    ),
    Case(
        "config",
        ConfigError,
        'bench_config("[sweep]\\nworkers = 2\\n" + ENV + AGENT)',
        "<tmp>/sweep.toml: unknown key 'workers' in [sweep]; valid keys: address, backend, "
        "batch, jobs, out, runs, seed.",
    ),
    Case(
        "config",
        ConfigError,
        'bench_config("[sweep]\\njobs = 0\\n" + ENV + AGENT)',
        "<tmp>/sweep.toml: [sweep] jobs must be an integer >= 1; got 0.",
    ),
    Case(
        "config",
        ConfigError,
        'bench_config("[sweep]\\nseed = -1\\n" + ENV + AGENT)',
        "<tmp>/sweep.toml: [sweep] seed must be an integer >= 0; got -1.",
    ),
    Case(
        "config",
        ConfigError,
        "bench_config(ENV + '[[agent]]\\nname = \"Unifrom\"\\n')",
        "<tmp>/sweep.toml: agent setting #1 Unifrom: Unknown agent 'Unifrom'. Did you mean "
        "'Uniform' or 'PSIUniform'? Known agents: ",
        prefix=True,
    ),
    Case(
        "config",
        ConfigError,
        "bench_config(ENV + '[[agent]]\\nname = \"Uniform\"\\nkwargs = { speed = 2 }\\n')",
        "<tmp>/sweep.toml: agent setting #1 Uniform(speed=2): make_agent: Uniform has no "
        "parameter(s) ['speed']; valid parameters are ['check_every', 'threshold'].",
    ),
    Case(
        "config",
        ConfigError,
        "bench_config(ENV + '[[agent]]\\nname = \"ODLinBAI\"\\n')",
        "<tmp>/sweep.toml: 1 (env setting, agent setting) pair(s) cannot run; nothing was run. "
        "Every env is paired with every agent: remove the agent from the sweep (or split it in "
        "two), or pose the env in the agent's setting.",
        prefix=True,  # then a line per pair: the agent, the env and the reason
    ),
    Case(
        "config",
        ConfigError,
        'bench_config(ENV + "grid = { delta = 0.05 }\\n" + AGENT)',
        "<tmp>/sweep.toml: sweep: grid axis 'delta' of LinearBAI-Soare-v0 must be a non-empty "
        "list of values; got 0.05.",
    ),
    Case(
        "config",
        ConfigError,
        'bench_config(ENV + "grid = { delta = [0.05, 2.0] }\\n" + AGENT)',
        "<tmp>/sweep.toml: env setting #2 LinearBAI-Soare-v0(delta=2.0): LinearBAI-Soare-v0: "
        "delta must be a float in the open interval (0, 1); got 2.0. was raised from the "
        "environment creator for LinearBAI-Soare-v0 with kwargs ({'delta': 2.0})",
    ),
    Case(
        "config",
        ConfigError,
        'bench_config(ENV + "kwargs = 3\\n" + AGENT)',
        "<tmp>/sweep.toml: [[env]] #1 kwargs must be a table such as { delta = 0.05 }; got 3.",
    ),
    Case(
        "config",
        ConfigError,
        'bench_config("[[env]\\nid = 1\\n")',
        "<tmp>/sweep.toml: not valid TOML (",
        prefix=True,
    ),
    # results
    Case(
        "results",
        CorruptResultsError,
        '(tmp / "results.jsonl").write_text("oops\\n{}\\n"); registry.read_results(tmp)',
        "<tmp>/results.jsonl: line 1 is not valid JSON: 'oops', and 1 line(s) follow it. A "
        "crash only cuts the last line, so something else changed the file (two sweeps "
        "writing into one folder at once, a hand edit, a damaged disk); nothing was changed. "
        "Repair or delete line 1: its episode then runs again on resume.",
    ),
    Case(
        "results",
        CorruptResultsError,
        '(tmp / "results.jsonl").write_text("[1, 2]\\n{}\\n"); registry.sweep(['
        '"LinearBAI-Soare-v0"], ["Uniform"], 1, out=tmp, progress=False)',
        "<tmp>/results.jsonl: line 1 is not a JSON object with a \"key\": '[1, 2]', and 1 "
        "line(s) follow it. A crash only cuts the last line, so something else changed the "
        "file (two sweeps writing into one folder at once, a hand edit, a damaged disk); "
        "nothing was changed. Repair or delete line 1: its episode then runs again on resume.",
    ),
    # runner
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(), Scripted(arms=[1.0]), seed=0)",
        "Scripted.select() must return an arm index (int) or None; got 1.0.",
    ),
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(), Scripted(arms=[3]), seed=0)",
        "Scripted.select() returned arm 3, outside the valid range 0..2.",
    ),
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(), Scripted(answer=[0]), seed=0)",
        "Scripted.recommend() must return a set of item indices such as frozenset({0}), not a "
        "list; got [0]. Return frozenset(...) of it.",
    ),
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(), Scripted(answer=0), seed=0)",
        "Scripted.recommend() must be a set of item indices such as frozenset({0}); got 0.",
    ),
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(), Scripted(answer={5}), seed=0)",
        "Scripted.recommend() contains item 5, outside the valid range 0..2.",
    ),
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(), Scripted(answer={0, 2}), seed=0)",
        "Scripted.recommend() returned an answer no best_arm instance can have: a best-arm answer "
        "is exactly one arm (instances with a tied best arm are refused); got 2 items {0, 2}. "
        "Return exactly one arm (instances with a tied best arm are refused).",
    ),
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(), Scripted(answer=set()), seed=0)",
        "Scripted.recommend() returned an answer no best_arm instance can have: a best-arm answer "
        "is exactly one arm (instances with a tied best arm are refused); got the empty set. "
        "Return exactly one arm (instances with a tied best arm are refused).",
    ),
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(budget=5), ScriptedBatch(np.array([3, 3, 0])), seed=0)",
        "ScriptedBatch.select_batch() asked for 6 pulls, but only 5 of the budget 5 remain.",
    ),
    Case(
        "runner",
        AgentProtocolError,
        "run_episode(soare(), object(), seed=0)",
        "run_episode: object is not an agent; it lacks ['reset', 'select', 'observe', "
        "'recommend'].",
    ),
    Case(
        "runner",
        IncompatibleAgentError,
        'run_episode(gym.make("LinearPSI-Synthetic-v0"), Scripted(), seed=0)',
        "Scripted cannot run on LinearPSI-Synthetic-v0: Scripted solves ['best_arm'], but the "
        "problem's task is 'pareto_set'.",
    ),
    Case(
        "runner",
        InvalidParameterError,
        "run_episode(soare(), Scripted(), seed=-1)",
        "run_episode: seed must be an integer >= 0; got -1.",
    ),
    Case(
        "runner",
        InvalidParameterError,
        "run_episode(soare(), Scripted(), seed=0, runaway=0)",
        "run_episode: runaway must be a positive multiple of T*·log(1/δ), or None to never warn; "
        "got 0.",
    ),
    # params
    Case(
        "params",
        UnknownNameError,
        'make_agent("Unifrom")',
        "Unknown agent 'Unifrom'. Did you mean 'Uniform' or 'PSIUniform'? Known agents: ",
        prefix=True,
    ),
    Case(
        "params",
        InvalidParameterError,
        'make_agent("Uniform", speed=2)',
        "make_agent: Uniform has no parameter(s) ['speed']; valid parameters are "
        "['check_every', 'threshold'].",
    ),
    Case(
        "params",
        InvalidParameterError,
        'make_agent("USLP", args=1)',
        "make_agent: USLP has no parameter(s) ['args']; valid parameters are [].",
    ),
    Case(
        "params",
        InvalidParameterError,
        'make_agent("RAGE").set_params(eps=0.1)',
        "RAGE: unknown parameter 'eps'; valid parameters are ['epsilon', 'design_tol'].",
    ),
    Case(
        "params",
        InvalidParameterError,
        'run_episode(soare(), make_agent("Uniform", check_every=0), seed=0)',
        "Uniform: check_every must be an integer >= 1; got 0.",
    ),
    Case(
        "params",
        InvalidParameterError,
        'run_episode(soare(budget=2), make_agent("Uniform"), seed=0)',
        "Uniform: the budget (2) is smaller than the number of arms (3); round robin needs at "
        "least one pull per arm.",
    ),
    Case(
        "params",
        InvalidParameterError,
        'run_episode(soare(), make_agent("RAGE", epsilon=-1), seed=0)',
        "RAGE: epsilon must be a finite float > 0; got -1.",
    ),
    Case(
        "params",
        InvalidParameterError,
        'run_episode(soare(), make_agent("XYAdaptive", alpha=0), seed=0)',
        "XYAdaptive: alpha must be a float in (0, 1); got 0.",
    ),
    Case(
        "params",
        InvalidParameterError,
        'run_episode(gym.make("LinearPSI-Synthetic-v0", K=10), make_agent("GEGE", '
        'constants="magic"), seed=0)',
        "GEGE: constants must be one of 'theory', 'practical'; got 'magic'.",
    ),
    Case(
        "params",
        InvalidParameterError,
        'run_episode(gym.make("ConstrainedMixed-Hard-v0"), make_agent("SFSR", score="max"), '
        "seed=0)",
        "SFSR: score must be one of 'iv', 'lagrangian'; got 'max'.",
    ),
    Case(
        "params",
        IncompatibleAgentError,
        'run_episode(soare(), make_agent("ODLinBAI"), seed=0)',
        "ODLinBAI cannot run on LinearBAI-Soare-v0: ODLinBAI runs in ['fixed_budget'], but the "
        "problem is 'fixed_confidence'.",
    ),
]


# ------------------------------------------------------------------------------------- running


def _run(case: Case, tmp: Path) -> tuple[BaseException | None, list[warnings.WarningMessage]]:
    """Run a row; return what it raised (None if nothing) and the warnings it emitted."""
    namespace: dict = {"tmp": tmp}
    exec(PREAMBLE, namespace)  # noqa: S102 - the rows are code by design
    with mock.patch.dict(os.environ), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)  # a numpy warning fails the row
        try:
            exec(case.code, namespace)  # noqa: S102
        except Exception as exc:  # noqa: BLE001 - the point is to look at it
            return exc, list(caught)
    return None, list(caught)


def _shown(message: str, tmp: Path) -> str:
    """The message as the page shows it: ``<tmp>`` and ``<cache>`` for the local folders."""
    message = message.replace(str(tmp), "<tmp>")
    return message.replace(str(bandit_envs.data.default_cache_dir()), "<cache>")


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    def refuse(ds, dest, url, timeout):
        raise AssertionError(f"a row of the error table tried to download {url}")

    monkeypatch.setattr(bandit_envs.data._cache, "_download", refuse)


def _case_id(index: int) -> str:
    return f"{index + 1}-{CASES[index].group}"


# --------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("index", range(len(CASES)), ids=_case_id)
def test_row(index, tmp_path):
    case = CASES[index]
    exc, _ = _run(case, tmp_path)
    assert exc is not None, f"{case.code} raised nothing"
    assert type(exc) is case.error, f"{case.code} raised {type(exc).__qualname__}: {exc}"
    shown = _shown(str(exc), tmp_path)
    if case.prefix:
        assert re.match(re.escape(case.message), shown), shown
    else:
        assert shown == case.message


@pytest.mark.parametrize("index", range(len(CASES)), ids=_case_id)
def test_refusal_is_clean(index, tmp_path):
    """A refused input raises our exception (or Gymnasium's), never a bare one, and no warning."""
    case = CASES[index]
    exc, caught = _run(case, tmp_path)
    assert not isinstance(exc, RuntimeWarning), f"{case.code} emitted a numpy warning: {exc}"
    if case.by == "gymnasium":
        assert isinstance(exc, gymnasium.error.Error)
    else:
        assert isinstance(exc, BanditEnvError), f"{case.code}: {type(exc).__qualname__}: {exc}"
        assert isinstance(
            exc,
            (ValueError, TypeError, OSError, RuntimeError, KeyError, gymnasium.error.ResetNeeded),
        )
    bare = (AssertionError, IndexError, KeyError)
    assert not (isinstance(exc, bare) and not isinstance(exc, BanditEnvError))
    assert not caught, [f"{w.category.__name__}: {w.message}" for w in caught]


def test_the_table_is_large_and_covers_every_group():
    assert len(CASES) >= 30
    assert {c.group for c in CASES} == set(GROUPS)
    assert len({c.code for c in CASES}) == len(CASES), "two rows run the same code"
    assert {c.error for c in CASES} >= {
        AgentProtocolError,
        BudgetExceededError,
        ConfigError,
        DataError,
        EpisodeOver,
        IncompatibleAgentError,
        InvalidActionError,
        InvalidAnswerError,
        InvalidInstanceError,
        InvalidParameterError,
        ResetNeeded,
        UnknownNameError,
    }


def test_cli_reports_a_config_error_and_exits_2(tmp_path, capsys):
    from registry.cli import main

    path = tmp_path / "sweep.toml"
    path.write_text('seeds = 3\n[[env]]\nid = "LinearBAI-Soare-v0"\n[[agent]]\nname = "Uniform"\n')
    assert main(["run", str(path)]) == 2
    row = next(c for c in CASES if c.code.startswith('bench_config("seeds = 3'))
    expected = row.message.replace("<tmp>", str(tmp_path))
    assert capsys.readouterr().err == f"bandit-bench run: error: {expected}\n"


# ------------------------------------------------------------------------------------ the page


def _code(text: str) -> str:
    """``text`` as a Markdown code span inside a table cell."""
    assert "\n" not in text, text
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", r"\|")


def _error_name(case: Case) -> str:
    cls = case.error
    if cls.__module__ == "bandit_envs.errors":
        name = cls.__qualname__
    else:
        name = f"{cls.__module__}.{cls.__qualname__}"
    return _code(name) + (" (Gymnasium)" if case.by == "gymnasium" else "")


def render_page() -> str:
    """The whole of ``docs/errors.md``, from :data:`CASES`."""
    out = [
        "# Refused inputs",
        "",
        "<!-- Generated from tests/integration/test_errors_table.py by "
        "docs/scripts/errors_table.py; do not edit by hand. -->",
        "",
        f"Each of these {len(CASES)} inputs is refused with the exception and the exact message "
        "shown. Every row is reproduced by `tests/integration/test_errors_table.py`, which also "
        "checks that no `AssertionError`, bare `IndexError` or `KeyError`, or numpy warning "
        "reaches you instead.",
        "",
        "* Every exception of the library derives from `bandit_envs.errors.BanditEnvError` and "
        "from the builtin you would naturally catch: `InvalidParameterError` (and its "
        "subclasses `InvalidInstanceError` and `registry.config.ConfigError`) is a `ValueError` "
        "and a `TypeError`, `InvalidActionError` a `ValueError`, `DataError` an `OSError`, "
        "`AgentProtocolError` a `RuntimeError`, `UnknownNameError` a `KeyError`, `ResetNeeded` "
        "Gymnasium's `ResetNeeded`.",
        "* `gym.make` re-raises a `TypeError` from an environment's constructor with "
        "` was raised from the environment creator for <id> with kwargs (...)` appended; since "
        "`InvalidParameterError` is a `TypeError`, the `gym.make` rows end that way.",
        "* `<tmp>` stands for the temporary folder of the setup below and `<cache>` for the "
        "user cache folder (`~/.cache/bandit_envs` by default). A message ending in `…` is "
        "the stable beginning of the message; the rest (the whole catalogue of ids or agents, "
        "or a third-party parser's words) changes with versions.",
        "* Rows marked (Gymnasium) are refused by Gymnasium itself, before `bandit_envs` sees "
        "the input.",
        "",
        "## Setup",
        "",
        "Every row is one line run after this:",
        "",
        "```python",
        PREAMBLE_IMPORTS + "\n" + TMP_LINE + PREAMBLE_HELPERS.rstrip("\n"),
        "```",
    ]
    number = 0
    for key, (title, intro) in GROUPS.items():
        out += [
            "",
            f"## {title}",
            "",
            intro,
            "",
            "| # | input | exception | message |",
            "|---|---|---|---|",
        ]
        for case in CASES:
            if case.group != key:
                continue
            number += 1
            message = case.message + ("…" if case.prefix else "")
            out.append(
                f"| {number} | {_code(case.code)} | {_error_name(case)} | {_code(message)} |"
            )
    return "\n".join(out) + "\n"


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _unspan(cell: str) -> str:
    cell = cell.strip().replace(r"\|", "|")
    match = re.fullmatch(r"(`+) ?(.*?) ?\1", cell)
    return match.group(2) if match else cell


def parse_page(text: str) -> list[tuple[str, str, str]]:
    """The rows of the page's tables as (code, exception, message), read back from Markdown."""
    rows = []
    for line in text.splitlines():
        if not re.match(r"^\| \d+ \|", line):
            continue
        cells = _CELL_SPLIT.split(line.strip())[1:-1]
        _, code, error, message = (c.strip() for c in cells)
        error = _unspan(error.removesuffix(" (Gymnasium)"))
        rows.append((_unspan(code), error, _unspan(message).removesuffix("…")))
    return rows


def test_page_rows_are_the_cases():
    """Read the tables back: the page and the cases hold the same rows (no drift)."""
    assert PAGE.is_file(), "docs/errors.md is missing: run python docs/scripts/errors_table.py"
    page = parse_page(PAGE.read_text(encoding="utf-8"))
    cases = [
        (c.code, _error_name(c).removesuffix(" (Gymnasium)").strip("`"), c.message) for c in CASES
    ]
    assert page == cases


def test_page_is_generated_from_the_cases():
    """Byte for byte; regenerate with ``python docs/scripts/errors_table.py``."""
    assert PAGE.read_text(encoding="utf-8") == render_page(), (
        "docs/errors.md is out of date: run python docs/scripts/errors_table.py"
    )


def test_parser_reads_escaped_cells():
    case = Case("make", InvalidParameterError, 'f("a|b")', "x `y` | z")
    line = f"| 1 | {_code(case.code)} | {_error_name(case)} | {_code(case.message)} |"
    assert parse_page(line) == [('f("a|b")', "InvalidParameterError", "x `y` | z")]


def test_env_factories_name_every_unknown_keyword_and_keep_their_signature():
    import inspect

    import gymnasium as gym

    from bandit_envs.envs.linear_best_arm import make_soare

    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "LinearBAI-Soare-v0: unknown keywords 'bb', 'omgea'. Valid keywords: d, omega,"
        ),
    ):
        gym.make("LinearBAI-Soare-v0", omgea=0.2, bb=1)
    assert list(inspect.signature(make_soare).parameters)[:4] == ["d", "omega", "scale", "sigma"]
    env = gym.make("LinearBAI-Soare-v0", omega=0.2, budget=10, sample_cost=0.1)
    assert env.unwrapped.budget == 10 and env.unwrapped.sample_cost == 0.1
