"""``check_agent``: whether an agent honours the agent protocol (like ``check_estimator``).

Anyone who writes an agent — a student, a researcher — runs::

    from agents import check_agent
    check_agent(MyAgent())          # raises AgentCheckError listing every violated rule

It runs a catalogue of small checks, each on fresh copies of the agent and small probe problems:

==============================  =================================================================
check                           rule
==============================  =================================================================
check_protocol                  ``reset / select / observe / recommend`` exist and are callable
check_valid_actions             ``select`` returns an arm in ``0..K-1`` or ``None``; ``recommend``
                                a frozenset of item indices (on every probe problem)
check_global_rng                no draw from ``numpy.random``'s or ``random``'s global state
check_seed_determinism          the same seed gives the same record
check_reset_clears_state        an episode after another equals the same episode on a fresh agent
check_no_peeking                behaviour depends on observations only, not on the hidden truth
check_stops_when_easy           fixed confidence: stops on an easy instance with a right answer
check_batch_equivalence         batch path ≡ one-pull path (noiseless: identical; noisy: same
                                distribution of samples by a two-sample test)
check_pickle                    a pickled copy behaves like the original
==============================  =================================================================

Checks are chosen by the agent's declared ``capabilities`` (tasks and settings); an agent that
declares nothing is probed as a best-arm agent in both settings.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
import traceback
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian, RewardModel
from bandit_envs.core.protocols import Agent
from bandit_envs.core.runner import EpisodeResult, run_episode, supports_batch
from bandit_envs.envs.registration import Probe, probe_problems
from bandit_envs.errors import AgentProtocolError, BanditEnvError


class AgentCheckError(BanditEnvError, AssertionError):
    """An agent failed one or more rules of the agent protocol."""


class CheckFailure(Exception):
    """Raised inside a check to report a violated rule (the message names it)."""


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: ``status`` is passed, failed, skipped or xfail."""

    check: str
    status: str
    reason: str = ""
    exception: BaseException | None = None


# --------------------------------------------------------------------------- probe problems
# The probe problems of each task are declared by the environment family that poses it
# (``bandit_envs.envs.probe_problem``), so a new family brings its own.

#: settings used by the checks: small enough that a broken agent fails fast.
FIXED_CONFIDENCE = {"delta": 0.1, "max_samples": 20_000}
FIXED_BUDGET = {"budget": 60}


# --------------------------------------------------------------------------- helpers


class _Factory:
    """Fresh copies of the agent under test."""

    def __init__(self, agent_or_factory: Any) -> None:
        factory = isinstance(agent_or_factory, type) or (
            callable(agent_or_factory)
            and not isinstance(agent_or_factory, Agent)
            and not hasattr(agent_or_factory, "select")
        )
        if factory:
            self._template = None
            self._factory = agent_or_factory
        else:  # an agent instance (possibly a broken one: check_protocol reports it)
            self._template = copy.deepcopy(agent_or_factory)
            self._factory = None

    def __call__(self) -> Any:
        if self._template is not None:
            return copy.deepcopy(self._template)
        return self._factory()


def _problems(agent: Any) -> list[tuple[Probe, dict[str, Any]]]:
    caps = getattr(agent, "capabilities", None)
    tasks = sorted(caps.tasks) if caps is not None else ["best_arm"]
    settings = sorted(caps.settings) if caps is not None else ["fixed_confidence", "fixed_budget"]
    out = []
    for task in tasks:
        for probe in probe_problems(task):
            for setting in settings:
                kw = FIXED_CONFIDENCE if setting == "fixed_confidence" else FIXED_BUDGET
                out.append((probe, kw))
    if not out:
        raise _Skip(
            f"no probe problem for the task(s) {tasks} in the setting(s) {settings}; a new task "
            "family declares some with bandit_envs.envs.probe_problem"
        )
    return out


def _strip(record: EpisodeResult) -> dict[str, Any]:
    out = record.to_dict()
    out.pop("wall_time")
    return out


def _run(agent: Any, probe: Probe, setting: dict[str, Any], seed: int, **kw: Any):
    env = probe.build(**setting)
    return run_episode(env, agent, seed, **kw)


def _where(probe: Probe, setting: dict[str, Any]) -> str:
    kind = "fixed confidence" if "delta" in setting else "fixed budget"
    return f"on probe '{probe.name}' ({kind})"


# --------------------------------------------------------------------------- the checks


def check_protocol(make: _Factory) -> None:
    """The four protocol methods exist and are callable."""
    agent = make()
    missing = [
        m
        for m in ("reset", "select", "observe", "recommend")
        if not callable(getattr(agent, m, None))
    ]
    if missing:
        raise CheckFailure(f"the agent lacks the protocol method(s) {missing}.")


def check_valid_actions(make: _Factory) -> None:
    """Arms in range, answers valid, on every probe problem (one-pull path)."""
    for probe, setting in _problems(make()):
        try:
            _run(make(), probe, setting, seed=0, batch=False)
        except AgentProtocolError as exc:
            raise CheckFailure(f"{exc} ({_where(probe, setting)})") from None


class _GlobalRngGuard:
    """Detects draws from numpy's and Python's global random state."""

    def __enter__(self) -> _GlobalRngGuard:
        self._np = np.random.get_state()
        self._py = random.getstate()
        return self

    def __exit__(self, *exc: object) -> None:
        after_np, after_py = np.random.get_state(), random.getstate()
        self.numpy_used = not all(
            np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
            for a, b in zip(self._np, after_np, strict=True)
        )
        self.python_used = self._py != after_py


def check_global_rng(make: _Factory) -> None:
    """All randomness must come from the generator given to ``reset``."""
    for probe, setting in _problems(make())[:4]:
        with _GlobalRngGuard() as guard:
            _run(make(), probe, setting, seed=1, batch=False)
        if guard.numpy_used:
            raise CheckFailure(
                "the agent draws from numpy's global random state (np.random.*); use the "
                f"generator passed to reset(spec, rng) ({_where(probe, setting)})."
            )
        if guard.python_used:
            raise CheckFailure(
                "the agent draws from Python's global `random` module; use the generator "
                f"passed to reset(spec, rng) ({_where(probe, setting)})."
            )


def check_seed_determinism(make: _Factory) -> None:
    """Same seed, same record; on fresh agents."""
    for probe, setting in _problems(make())[:4]:
        a = _strip(_run(make(), probe, setting, seed=7, batch=False))
        b = _strip(_run(make(), probe, setting, seed=7, batch=False))
        if a != b:
            diff = sorted(k for k in a if a[k] != b[k])
            raise CheckFailure(
                f"two runs with the same seed differ in {diff} ({_where(probe, setting)}); "
                "all randomness must come from the generator passed to reset."
            )


def check_reset_clears_state(make: _Factory) -> None:
    """An episode run after another equals the same episode run on a fresh agent."""
    for probe, setting in _problems(make())[:4]:
        used = make()
        _run(used, probe, setting, seed=3, batch=False)
        second = _strip(_run(used, probe, setting, seed=4, batch=False))
        fresh = _strip(_run(make(), probe, setting, seed=4, batch=False))
        if second != fresh:
            diff = sorted(k for k in second if second[k] != fresh[k])
            raise CheckFailure(
                f"reset() does not clear the previous episode: a second episode differs from "
                f"the same episode on a fresh agent in {diff} ({_where(probe, setting)})."
            )


class _Impostor(RewardModel):
    """Emits the outcomes of ``emitter`` but holds another hidden truth."""

    def __init__(self, emitter: RewardModel, hidden: RewardModel) -> None:
        self._emitter, self._hidden = emitter, hidden
        self.structure = emitter.structure

    n_arms = property(lambda self: self._emitter.n_arms)
    outcome_dim = property(lambda self: self._emitter.outcome_dim)
    means = property(lambda self: self._hidden.means)

    def sample(self, arm: int, rng: np.random.Generator) -> np.ndarray:
        return self._emitter.sample(arm, rng)

    def sample_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self._emitter.sample_sums(counts, rng)

    def public_fields(self) -> dict[str, Any]:
        return self._emitter.public_fields()

    def truth(self) -> dict[str, Any]:
        return self._hidden.truth()


def check_no_peeking(make: _Factory) -> None:
    """Changing only the hidden truth (same public spec, same outcomes) changes nothing.

    Oracle baselines declare ``oracle=True`` and receive the truth through ``receive_truth``
    by design; for them the rule does not apply (reported as skipped, with that reason).
    """
    caps = getattr(make(), "capabilities", None)
    if caps is not None and caps.oracle:
        raise _Skip("an oracle baseline receives the truth by design (receive_truth)")
    for probe, setting in _problems(make())[:2]:
        honest = probe.build(**setting)
        model = honest.model
        if not isinstance(model, LinearGaussian):
            continue
        other_theta = -np.asarray(model.theta) + 0.123
        hidden = LinearGaussian(model.features, other_theta, model.sigma)
        try:
            impostor = PureExplorationEnv(
                _Impostor(model, hidden), honest.task, name=honest.name, **setting
            )
        except BanditEnvError:
            continue  # the flipped instance is ill-posed; nothing to compare
        a = _strip(run_episode(honest, make(), 5, batch=False))
        b = _strip(run_episode(impostor, make(), 5, batch=False))
        for key in ("samples", "answer", "pulls", "stop_reason"):
            if a[key] != b[key]:
                raise CheckFailure(
                    f"the agent's {key} changed when only the hidden truth changed (same public "
                    f"spec, same observations): it must not read the truth "
                    f"({_where(probe, setting)})."
                )


def check_stops_when_easy(make: _Factory) -> None:
    """Fixed confidence: on an easy instance the agent stops, with the right answer."""
    agent = make()
    caps = getattr(agent, "capabilities", None)
    if caps is not None and "fixed_confidence" not in caps.settings:
        raise _Skip("the agent does not run in fixed confidence")
    for probe, setting in _problems(agent):
        if not probe.easy or "delta" not in setting:
            continue
        wrong = 0
        for seed in range(5):
            record = _run(make(), probe, setting, seed=seed, batch=False)
            if record.stop_reason == "max_samples":
                raise CheckFailure(
                    f"the agent did not stop within {setting['max_samples']} samples "
                    f"({_where(probe, setting)}, seed {seed}); a fixed-confidence agent must "
                    "return None from select() once it is confident."
                )
            wrong += not record.correct
        if wrong > 1:
            raise CheckFailure(
                f"the agent answered wrongly in {wrong} of 5 runs ({_where(probe, setting)}); "
                f"expected at most δ = {setting['delta']} of the runs."
            )


def check_batch_equivalence(make: _Factory) -> None:
    """Batch and one-pull paths agree: identical when noiseless, same distribution when noisy."""
    if not supports_batch(make()):
        raise _Skip("the agent offers no batch path")
    for probe, setting in _problems(make()):
        if "noiseless" in probe.name:
            a = _strip(_run(make(), probe, setting, seed=0, batch=False))
            b = _strip(_run(make(), probe, setting, seed=0, batch=True))
            for key in ("samples", "answer", "pulls", "stop_reason"):
                if a[key] != b[key]:
                    raise CheckFailure(
                        f"on a noiseless instance the batch path gives {key}={b[key]!r} but the "
                        f"one-pull path gives {a[key]!r} ({_where(probe, setting)})."
                    )
    probe = next(p for p, _ in _problems(make()) if p.easy)
    for setting in (FIXED_CONFIDENCE, FIXED_BUDGET):
        if (probe, setting) not in [(p, s) for p, s in _problems(make())]:
            continue
        single = [_run(make(), probe, setting, seed=s, batch=False) for s in range(40)]
        batch = [_run(make(), probe, setting, seed=1000 + s, batch=True) for s in range(40)]
        xs, ys = [r.samples for r in single], [r.samples for r in batch]
        if len(set(xs) | set(ys)) > 1:
            from scipy import stats  # deferred: scipy.stats takes half a second to import

            p = stats.ks_2samp(xs, ys).pvalue
            if p < 1e-3:
                raise CheckFailure(
                    f"the batch and one-pull paths give different sample-count distributions "
                    f"(two-sample KS p = {p:.2g}; means {np.mean(ys):.1f} vs {np.mean(xs):.1f}) "
                    f"({_where(probe, setting)})."
                )
        err_single = sum(not r.correct for r in single)
        err_batch = sum(not r.correct for r in batch)
        if abs(err_single - err_batch) > 8:
            raise CheckFailure(
                f"the batch and one-pull paths give different error counts ({err_batch} vs "
                f"{err_single} of 40) ({_where(probe, setting)})."
            )


def check_pickle(make: _Factory) -> None:
    """A pickled copy of the agent gives the same records as the original."""
    agent = make()
    probe, setting = _problems(agent)[0]
    try:
        clone = pickle.loads(pickle.dumps(agent))
    except Exception as exc:  # noqa: BLE001 - any pickling failure is the finding
        raise CheckFailure(
            f"the agent cannot be pickled ({type(exc).__name__}: {exc}); sweeps send agents to "
            "worker processes."
        ) from None
    a = _strip(_run(agent, probe, setting, seed=11, batch=False))
    b = _strip(_run(clone, probe, setting, seed=11, batch=False))
    if a != b:
        raise CheckFailure("a pickled copy of the agent behaves differently from the original.")


class _Skip(Exception):
    pass


CHECKS: tuple[Callable[[_Factory], None], ...] = (
    check_protocol,
    check_valid_actions,
    check_global_rng,
    check_seed_determinism,
    check_reset_clears_state,
    check_no_peeking,
    check_stops_when_easy,
    check_batch_equivalence,
    check_pickle,
)


def check_agent(
    agent_or_factory: Any,
    *,
    on_fail: str | None = "raise",
    expected_failed_checks: dict[str, str] | None = None,
    checks: Iterable[str] | None = None,
) -> list[CheckResult]:
    """Check that an agent honours the agent protocol; return one record per check.

    Args:
        agent_or_factory: an agent (copied with ``copy.deepcopy`` for each run) or a callable
            returning a fresh agent.
        on_fail: ``"raise"`` raises :class:`AgentCheckError` listing every failed check,
            ``"warn"`` issues a warning, ``None`` only returns the records.
        expected_failed_checks: ``{check name: reason}`` for known failures (reported as xfail).
        checks: run only these checks (names from :data:`CHECKS`).

    Returns:
        A list of :class:`CheckResult`, one per check, in order.

    """
    if on_fail not in ("raise", "warn", None):
        raise ValueError(f"check_agent: on_fail must be 'raise', 'warn' or None; got {on_fail!r}.")
    make = _Factory(agent_or_factory)
    expected = dict(expected_failed_checks or {})
    wanted = None if checks is None else set(checks)
    known = {c.__name__ for c in CHECKS}
    if wanted is not None and wanted - known:
        raise ValueError(
            f"check_agent: unknown checks {sorted(wanted - known)}; valid: {sorted(known)}."
        )
    probe_agent = make()
    name = str(getattr(probe_agent, "name", type(probe_agent).__name__))
    results: list[CheckResult] = []
    for check in CHECKS:
        cname = check.__name__
        if wanted is not None and cname not in wanted:
            continue
        try:
            if cname != "check_protocol" and results and results[0].status == "failed":
                raise _Skip("the protocol methods are missing")
            check(make)
        except _Skip as skip:
            results.append(CheckResult(cname, "skipped", str(skip)))
            continue
        except CheckFailure as exc:
            status = "xfail" if cname in expected else "failed"
            results.append(CheckResult(cname, status, f"{name}: {exc}", exc))
            continue
        except Exception as exc:  # noqa: BLE001 - a crash is a failure of that check
            status = "xfail" if cname in expected else "failed"
            where = traceback.format_exception_only(type(exc), exc)[-1].strip()
            results.append(CheckResult(cname, status, f"{name} crashed: {where}", exc))
            continue
        results.append(CheckResult(cname, "passed"))
    failed = [r for r in results if r.status == "failed"]
    if failed:
        message = f"{name} failed {len(failed)} check(s):\n" + "\n".join(
            f"  - {r.check}: {r.reason}" for r in failed
        )
        if on_fail == "raise":
            raise AgentCheckError(message)
        if on_fail == "warn":
            import warnings

            warnings.warn(message, UserWarning, stacklevel=2)
    return results


__all__ = ["CHECKS", "AgentCheckError", "CheckResult", "Probe", "check_agent"]
