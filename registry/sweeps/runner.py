"""Running a sweep: every (env setting, agent setting, run) episode, on the chosen backend.

:func:`sweep` plans the episodes (:func:`~registry.sweeps.episodes.plan`), skips those already
in the results folder, hands the others to a backend (``serial``, ``process`` or ``ray``) and
appends each record to the results file as soon as it comes back. The folder's ``sweep.json``
manifest names the sweep, so that a folder is only ever resumed by the same sweep.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import registry.progress
from bandit_envs.errors import InvalidParameterError
from registry.sweeps._pool import run_pool
from registry.sweeps._ray import run_ray
from registry.sweeps.episodes import Episode, Records, plan, run_one
from registry.sweeps.episodes import check_compatible as check_pairs
from registry.sweeps.results import RESULTS_FILE, ResultsLog

#: the backends :func:`sweep` takes.
BACKENDS = ("serial", "process", "ray")
#: the name of the manifest file in a sweep folder.
MANIFEST_FILE = "sweep.json"


def _serial(episodes: Sequence[Episode], n_jobs: int, address: str | None) -> Records:
    """The ``serial`` backend: every episode in this process, in the plan's order."""
    for episode in episodes:
        yield [run_one(episode)]


_BACKENDS: dict[str, Callable[[Sequence[Episode], int, str | None], Records]] = {
    "serial": _serial,
    "process": run_pool,
    "ray": run_ray,
}


@dataclasses.dataclass
class SweepResult:
    """What a sweep produced: every record (old and new), and the counts of this call."""

    folder: Path | None
    records: list[dict[str, Any]]
    ran: int
    skipped: int

    @property
    def crashed(self) -> list[dict[str, Any]]:
        """The records of the episodes that crashed (``status`` ``"error"``: no answer)."""
        return [r for r in self.records if r.get("status") == "error"]

    @property
    def errors(self) -> list[dict[str, Any]]:
        """The same as :attr:`crashed` (the older name; wrong answers are not counted here)."""
        return self.crashed


def sweep(
    envs: Iterable[Any],
    agents: Iterable[Any],
    runs: int,
    *,
    seed: int = 0,
    out: str | os.PathLike[str] | None = None,
    backend: str = "process",
    n_jobs: int | None = None,
    address: str | None = None,
    batch: bool | None = None,
    retry_errors: bool = False,
    progress: bool = True,
    check_compatible: bool = True,
    fsync_interval: float = 0.2,
) -> SweepResult:
    """Run every (env setting, agent setting, run) episode and collect the records.

    Args:
        envs: ids, or dicts ``{"id": ..., "kwargs": {...}, "grid": {"delta": [0.05, 0.01]}}``
            whose grid axes are expanded (cartesian product), or :class:`EnvSetting`.
        agents: catalogue names, ``"module:Class"`` strings, classes, or dicts
            ``{"name": ..., "kwargs": {...}, "grid": {...}}``, or :class:`AgentSetting`.
        runs: episodes per (env setting, agent setting).
        seed: the sweep seed; each episode's seed is derived from it, the env setting, the
            agent setting and the run index, whatever the backend or the order.
        out: a folder for ``results.jsonl`` (+ ``sweep.json``); an existing folder of the same
            sweep is resumed (finished episodes are skipped). ``None`` keeps results in memory.
        backend: ``"serial"``, ``"process"`` (local worker processes) or ``"ray"``.
        n_jobs: worker processes (default: the number of CPUs).
        address: Ray cluster address for ``ray.init(address=...)`` (``None``: a local Ray).
        batch: passed to :func:`~bandit_envs.run_episode` (``None``: batch path when offered).
        retry_errors: on resume, run again the episodes whose record is an error.
        check_compatible: before anything runs, check that every agent setting can run on
            every env setting (task, setting, structure), and raise if one cannot; with
            ``False``, such episodes become error records.
        progress: show progress on stderr (:class:`registry.progress.Progress`): a bar with
            ETA on a terminal, a line every 30 s when stderr is a file or a pipe, and a line
            naming the unfinished settings when no episode has finished for a minute.
        fsync_interval: seconds between two fsyncs of the results file (0: after every
            record). Every record is flushed to the OS at once, which is what survives a kill.

    Returns:
        A :class:`SweepResult`. Agent crashes do not raise: they are error records, and so is
        an episode that kills its worker process twice (``error_type`` ``"WorkerDied"``; the
        other episodes of that worker are run again).

    Raises:
        ResultsWriteError: the results file could not be written (e.g. a full disk); the
            records before are intact and the same call resumes once the cause is fixed.
        CorruptResultsError: ``results.jsonl`` has a bad line before its last one.
        WorkerLostError: (``process``) the workers died twice before starting any episode.
        IncompatibleAgentError: (``check_compatible``) some pairs cannot run; the message
            names every such pair and why, and nothing has run.
    """
    if backend not in BACKENDS:
        raise InvalidParameterError(
            f"sweep: backend must be one of {list(BACKENDS)}; got {backend!r}."
        )
    jobs = n_jobs if n_jobs is not None else (os.cpu_count() or 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InvalidParameterError(f"sweep: n_jobs must be an integer >= 1; got {n_jobs!r}.")
    episodes = plan(envs, agents, runs, seed, batch)
    if check_compatible:
        check_pairs(
            list({e.env.label: e.env for e in episodes}.values()),
            list({e.agent.label: e.agent for e in episodes}.values()),
        )
    manifest = {
        "envs": sorted({e.env.label for e in episodes}),
        "agents": sorted({e.agent.label for e in episodes}),
        "runs": runs,
        "seed": seed,
        "batch": batch,
    }
    own_runs = {e.agent.label: e.agent.runs for e in episodes if e.agent.runs is not None}
    if own_runs:  # only when used, so folders of sweeps without it keep their manifest
        manifest["agent_runs"] = dict(sorted(own_runs.items()))
    log: ResultsLog | None = None
    folder = None if out is None else Path(out)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        _check_manifest(folder / MANIFEST_FILE, manifest)
        log = ResultsLog(folder / RESULTS_FILE, fsync_interval)
    existing = {} if log is None else {r["key"]: r for r in log.records}
    wanted = {e.key for e in episodes}
    done = {
        k
        for k, r in existing.items()
        if k in wanted and (r.get("status") == "ok" or not retry_errors)
    }
    todo = [e for e in episodes if e.key not in done]
    records: list[dict[str, Any]] = [r for k, r in existing.items() if k in done]
    unfinished = Counter((e.agent.label, e.env.label) for e in todo)
    bar = _progress(len(episodes), len(done), progress, unfinished, folder)
    try:
        if todo:
            results = _BACKENDS[backend](todo, jobs, address)
            # closing: on an error (a failed write) the backend cancels its work now
            with contextlib.closing(results):
                for batch_records in results:
                    for record in batch_records:
                        if log is not None:
                            log.append(record)
                        records.append(record)
                        unfinished[(record["agent_label"], record["env_label"])] -= 1
                        if bar is not None:
                            n_crashed = sum(r.get("status") == "error" for r in records)
                            bar.update(postfix=f"crashed: {n_crashed}" if n_crashed else None)
    finally:
        if bar is not None:
            bar.close()
        if log is not None:
            log.close()
    order = {e.key: i for i, e in enumerate(episodes)}
    records.sort(key=lambda r: order[r["key"]])
    return SweepResult(folder, records, ran=len(todo), skipped=len(done))


def _check_manifest(path: Path, manifest: dict[str, Any]) -> None:
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        if old != manifest:
            changed = sorted(k for k in manifest if old.get(k) != manifest[k])
            raise InvalidParameterError(
                f"sweep: {path.parent} holds a different sweep (it differs in {changed}); use "
                f"another folder, or delete it to start over."
            )
        return
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _unfinished_text(unfinished: Counter[tuple[str, str]]) -> str:
    """The settings with episodes left, most first (at most three), for the stall line."""
    left = [(n, agent, env) for (agent, env), n in unfinished.items() if n > 0]
    left.sort(key=lambda item: -item[0])
    text = ", ".join(f"{agent} on {env} ({n} episode(s))" for n, agent, env in left[:3])
    return text + (f" and {len(left) - 3} more setting(s)" if len(left) > 3 else "")


def _progress(
    total: int,
    initial: int,
    enabled: bool,
    unfinished: Counter[tuple[str, str]],
    folder: Path | None,
) -> registry.progress.Progress | None:
    """The sweep's progress on stderr (:class:`registry.progress.Progress`), or None."""
    if not enabled:
        return None
    kept = "the finished episodes are kept, the same command resumes" if folder else ""
    return registry.progress.Progress(
        total,
        initial,
        desc="episodes",
        interval=registry.progress.LOG_INTERVAL,
        stall=registry.progress.STALL_SECONDS,
        running=lambda: _unfinished_text(unfinished),
        hint="An episode ends at the env's max_samples at the latest; Ctrl-C stops the sweep"
        + (f" ({kept})." if kept else "."),
    )


__all__ = ["BACKENDS", "MANIFEST_FILE", "SweepResult", "sweep"]
