"""Sweeps: environments × agents × runs, on one core, local processes or Ray, resumable.

A sweep expands keyword grids into *settings*, gives every episode a seed derived from
(sweep seed, env setting, agent setting, run index) with :class:`numpy.random.SeedSequence`, and
appends each finished episode to a JSON Lines results file at once (flushed and fsynced). A
record therefore never depends on the backend, the number of workers or the order of execution,
a killed sweep loses at most the episodes in flight, and re-running the same sweep into the same
folder skips what is already done.

Why JSON Lines rather than SQLite: one writer (the parent process) appends one line per
episode, so there is nothing to lock; a crash can only leave a partial last line, which is
detected and cut on the next open; the file is human-readable, greppable and streams into pandas
or ``json``; exports to CSV and Parquet are provided.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib
import itertools
import json
import os
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bandit_envs.errors import InvalidParameterError

BACKENDS = ("serial", "process", "ray")
RESULTS_FILE = "results.jsonl"
MANIFEST_FILE = "sweep.json"


# --------------------------------------------------------------------------- settings and grids


def _canonical(value: Any) -> Any:
    """A JSON-compatible, order-independent form of a keyword value."""
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, np.ndarray):
        return _canonical(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise InvalidParameterError(
        f"sweep: keyword values must be JSON-like (numbers, strings, lists, dicts); got "
        f"{type(value).__name__} {value!r}."
    )


def _label(name: str, kwargs: Mapping[str, Any]) -> str:
    if not kwargs:
        return name
    inner = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(kwargs.items()))
    return f"{name}({inner})"


@dataclasses.dataclass(frozen=True)
class EnvSetting:
    """One environment of a sweep: an id and its ``gym.make`` keywords."""

    id: str
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", _canonical(dict(self.kwargs)))

    @property
    def label(self) -> str:
        """``id(key=value, ...)``: the setting's stable name."""
        return _label(self.id, self.kwargs)


@dataclasses.dataclass(frozen=True)
class AgentSetting:
    """One agent of a sweep: a catalogue name (or ``module:Class``) and its parameters.

    ``runs`` overrides the sweep's episodes per setting for this agent (e.g. fewer for an agent
    that needs minutes per episode). It is not part of the label, so the episode seeds of runs
    0..n-1 do not depend on it.
    """

    name: str
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    runs: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", _canonical(dict(self.kwargs)))
        runs = self.runs
        if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int) or runs < 1):
            raise InvalidParameterError(
                f"sweep: runs of agent {self.name} must be an integer >= 1; got {runs!r}."
            )

    @property
    def label(self) -> str:
        """``name(key=value, ...)``: the setting's stable name."""
        return _label(self.name, self.kwargs)


def expand_grid(
    name: str, kwargs: Mapping[str, Any] | None = None, grid: Mapping[str, Sequence[Any]] | None
    = None
) -> list[dict[str, Any]]:
    """The cartesian product of ``grid`` axes, each merged into the fixed ``kwargs``."""
    kwargs = dict(kwargs or {})
    grid = dict(grid or {})
    for key, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise InvalidParameterError(
                f"sweep: grid axis {key!r} of {name} must be a non-empty list of values; got "
                f"{values!r}."
            )
        if key in kwargs:
            raise InvalidParameterError(
                f"sweep: {key!r} of {name} is both a fixed keyword and a grid axis."
            )
    keys = sorted(grid)
    return [{**kwargs, **dict(zip(keys, combo, strict=True))}
            for combo in itertools.product(*(grid[k] for k in keys))]


def _as_envs(envs: Iterable[Any]) -> list[EnvSetting]:
    out: list[EnvSetting] = []
    for item in envs:
        if isinstance(item, EnvSetting):
            out.append(item)
        elif isinstance(item, str):
            out.append(EnvSetting(item))
        elif isinstance(item, Mapping):
            unknown = set(item) - {"id", "kwargs", "grid"}
            if unknown or "id" not in item:
                raise InvalidParameterError(
                    f"sweep: an env entry takes the keys 'id', 'kwargs' and 'grid'; got "
                    f"{sorted(item)}."
                )
            out += [EnvSetting(item["id"], kw)
                    for kw in expand_grid(item["id"], item.get("kwargs"), item.get("grid"))]
        else:
            raise InvalidParameterError(
                f"sweep: envs must be ids, EnvSetting or dicts with 'id', 'kwargs', 'grid'; got "
                f"{item!r}."
            )
    return out


def _agent_ref(obj: Any) -> str:
    if isinstance(obj, str):
        return obj
    if isinstance(obj, type):
        return f"{obj.__module__}:{obj.__qualname__}"
    raise InvalidParameterError(
        f"sweep: an agent is a catalogue name, a 'module:Class' string or a class; got {obj!r}."
    )


def _as_agents(agents: Iterable[Any]) -> list[AgentSetting]:
    out: list[AgentSetting] = []
    for item in agents:
        if isinstance(item, AgentSetting):
            out.append(item)
        elif isinstance(item, (str, type)):
            out.append(AgentSetting(_agent_ref(item)))
        elif isinstance(item, Mapping):
            unknown = set(item) - {"name", "kwargs", "grid", "runs"}
            if unknown or "name" not in item:
                raise InvalidParameterError(
                    f"sweep: an agent entry takes the keys 'name', 'kwargs', 'grid' and 'runs'; "
                    f"got {sorted(item)}."
                )
            name = _agent_ref(item["name"])
            out += [AgentSetting(name, kw, item.get("runs"))
                    for kw in expand_grid(name, item.get("kwargs"), item.get("grid"))]
        else:
            raise InvalidParameterError(
                f"sweep: agents must be names, classes, AgentSetting or dicts with 'name', "
                f"'kwargs', 'grid'; got {item!r}."
            )
    return out


# --------------------------------------------------------------------------- seeds and episodes


def _stable_int(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def episode_seed(sweep_seed: int, env: EnvSetting, agent: AgentSetting, run: int) -> int:
    """The seed of one episode, from (sweep seed, env setting, agent setting, run index)."""
    ss = np.random.SeedSequence(
        entropy=sweep_seed, spawn_key=(_stable_int(env.label), _stable_int(agent.label), run)
    )
    return int(ss.generate_state(1, dtype=np.uint32)[0])


@dataclasses.dataclass(frozen=True)
class Episode:
    """One unit of work of a sweep."""

    env: EnvSetting
    agent: AgentSetting
    run: int
    seed: int
    batch: bool | None = None

    @property
    def key(self) -> str:
        """The episode's identity in the results file."""
        return f"{self.env.label} | {self.agent.label} | run {self.run}"


def resolve_agent(name: str, kwargs: Mapping[str, Any]) -> Any:
    """Build an agent from a catalogue name (via ``registry``) or a ``module:Class`` string."""
    if ":" in name:
        module, _, attr = name.partition(":")
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj(**kwargs)
    registry = importlib.import_module("registry")  # the catalogue plugs in here
    return registry.make_agent(name, **kwargs)


_ENV_CACHE: dict[str, Any] = {}


def _make_env(setting: EnvSetting) -> Any:
    import gymnasium as gym

    import bandit_envs  # noqa: F401 - registers the ids in worker processes

    env = _ENV_CACHE.get(setting.label)
    if env is None:
        env = gym.make(setting.id, **setting.kwargs)
        if len(_ENV_CACHE) > 64:
            _ENV_CACHE.clear()
        _ENV_CACHE[setting.label] = env
    return env


def run_one(episode: Episode) -> dict[str, Any]:
    """Run one episode and return its record (an error record if anything raised)."""
    from bandit_envs.runner import run_episode

    record: dict[str, Any] = {
        "key": episode.key,
        "env_id": episode.env.id,
        "env_kwargs": episode.env.kwargs,
        "env_label": episode.env.label,
        "agent_name": episode.agent.name,
        "agent_kwargs": episode.agent.kwargs,
        "agent_label": episode.agent.label,
        "run": episode.run,
        "seed": episode.seed,
    }
    try:
        env = _make_env(episode.env)
        agent = resolve_agent(episode.agent.name, episode.agent.kwargs)
        result = run_episode(env, agent, episode.seed, batch=episode.batch)
    except Exception as exc:  # noqa: BLE001 - recorded, and the sweep goes on
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        record.update(
            status="error",
            error_type=type(exc).__name__,
            error_message=str(exc),
            traceback="".join(tb[-6:]),
        )
        return record
    out = result.to_dict()
    out.pop("seed")
    out.pop("env_id")
    record.update(status="ok", **out)
    return json.loads(json.dumps(record))  # the record exactly as the results file holds it


def run_chunk(episodes: Sequence[Episode]) -> list[dict[str, Any]]:
    """Run several episodes in one worker call (amortises the dispatch overhead)."""
    return [run_one(e) for e in episodes]


# --------------------------------------------------------------------------- the results file


class ResultsLog:
    """An append-only JSON Lines file of episode records: one writer, crash-safe.

    Every record is written and flushed to the operating system before :meth:`append` returns,
    so killing the sweep (Ctrl-C, SIGKILL) loses nothing that finished. Records are also
    fsynced to the disk, at most ``fsync_interval`` seconds after they were written (0: every
    record; an fsync costs milliseconds, more than a short episode), and at :meth:`close`.

    Opening an existing file reads every complete record; a partial or corrupt *last* line
    (a write cut by a kill) is cut off with a warning. A corrupt line elsewhere is an error.
    """

    def __init__(self, path: str | os.PathLike[str], fsync_interval: float = 0.2) -> None:
        self.path = Path(path)
        self.fsync_interval = float(fsync_interval)
        self._synced_at = 0.0
        self.records: list[dict[str, Any]] = []
        if self.path.exists():
            self._load()
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def _load(self) -> None:
        data = self.path.read_bytes()
        pos = good_end = 0
        number = 0
        while pos < len(data):
            newline = data.find(b"\n", pos)
            end = len(data) if newline < 0 else newline + 1
            line = data[pos:end].strip()
            number += 1
            if line:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    if data[end:].strip():
                        raise InvalidParameterError(
                            f"{self.path}: line {number} is not valid JSON; the results file is "
                            f"corrupt (only a cut last line can be repaired)."
                        ) from None
                    warnings.warn(
                        f"{self.path}: the last line is incomplete (an interrupted write); it "
                        f"was removed and that episode will be run again.",
                        RuntimeWarning,
                        stacklevel=3,
                    )
                    break
                self.records.append(record)
            good_end = pos = end
        if good_end < len(data):
            with open(self.path, "r+b") as fh:
                fh.truncate(good_end)
        elif data and not data.endswith(b"\n"):
            with open(self.path, "ab") as fh:
                fh.write(b"\n")

    def append(self, record: dict[str, Any]) -> None:
        """Write and flush one record (fsync at most ``fsync_interval`` seconds later)."""
        self._file.write(json.dumps(record, sort_keys=True) + "\n")
        self._file.flush()
        now = time.monotonic()
        if now - self._synced_at >= self.fsync_interval:
            os.fsync(self._file.fileno())
            self._synced_at = now
        self.records.append(record)

    def close(self) -> None:
        """Flush, fsync and close the file."""
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()

    def __enter__(self) -> ResultsLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_results(folder: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All records of a sweep folder (or of a results file), in the order they finished."""
    path = Path(folder)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise InvalidParameterError(f"read_results: no results file at {path}.")
    records = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            warnings.warn(f"{path}: line {i + 1} is not valid JSON; skipped.", RuntimeWarning,
                          stacklevel=2)
    return records


# --------------------------------------------------------------------------- backends


def _chunks(items: Sequence[Episode], size: int) -> Iterator[list[Episode]]:
    for i in range(0, len(items), size):
        yield list(items[i:i + size])


def _serial(episodes: Sequence[Episode], n_jobs: int, address: str | None
            ) -> Iterator[list[dict[str, Any]]]:
    for episode in episodes:
        yield [run_one(episode)]


def _worker_context(multiprocessing: Any) -> Any:
    """Fork-server workers on POSIX, spawn elsewhere.

    The fork server imports the packages once, so workers start fast, and it never forks a
    parent that may run threads (progress bars, Ray, notebooks).
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["bandit_envs", "agents", "registry"])
        return context
    return multiprocessing.get_context("spawn")


#: Thread-count variables of the BLAS/OpenMP libraries numpy and scipy may load.
_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _worker_threads(n_jobs: int) -> Iterator[None]:
    """Give worker processes started inside the block cpu_count // n_jobs BLAS threads each.

    Workers inherit the environment when they start, and BLAS reads it when it loads. Without a
    limit, every worker runs as many BLAS threads as the machine has cores, and the tiny matrix
    operations of bandit agents then spend milliseconds instead of microseconds in thread
    hand-offs (measured: a 5×5 triangular solve took 1–4 ms with two busy workers on two cores,
    51 µs with one thread each). Variables the user has set are left alone; the parent's
    environment is restored on exit.
    """
    threads = str(max(1, (os.cpu_count() or 1) // n_jobs))
    saved = {name: os.environ.get(name) for name in _THREAD_VARS}
    for name, value in saved.items():
        if value is None:
            os.environ[name] = threads
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)


def _process(episodes: Sequence[Episode], n_jobs: int, address: str | None
             ) -> Iterator[list[dict[str, Any]]]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    size = max(1, min(8, len(episodes) // (4 * n_jobs)))
    chunks = list(_chunks(episodes, size))
    context = _worker_context(multiprocessing)
    with ProcessPoolExecutor(max_workers=n_jobs, mp_context=context) as pool:
        with _worker_threads(n_jobs):  # workers (and the fork server) start on submit
            pending = {pool.submit(run_chunk, c) for c in chunks}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()


def _ray(episodes: Sequence[Episode], n_jobs: int, address: str | None
         ) -> Iterator[list[dict[str, Any]]]:
    try:
        import ray
    except ImportError:
        raise InvalidParameterError(
            "sweep: backend='ray' needs Ray; install it with `pip install \"bandit-envs[ray]\"`."
        ) from None
    if not ray.is_initialized():
        if address is not None:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=n_jobs, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(run_chunk)
    size = max(1, min(8, len(episodes) // (4 * n_jobs)))
    pending = [remote.remote(c) for c in _chunks(episodes, size)]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


_BACKENDS: dict[str, Callable[..., Iterator[list[dict[str, Any]]]]] = {
    "serial": _serial,
    "process": _process,
    "ray": _ray,
}


# --------------------------------------------------------------------------- the sweep


@dataclasses.dataclass
class SweepResult:
    """What a sweep produced: every record (old and new), and the counts of this call."""

    folder: Path | None
    records: list[dict[str, Any]]
    ran: int
    skipped: int

    @property
    def errors(self) -> list[dict[str, Any]]:
        """The error records."""
        return [r for r in self.records if r.get("status") == "error"]


def plan(
    envs: Iterable[Any], agents: Iterable[Any], runs: int, seed: int = 0,
    batch: bool | None = None,
) -> list[Episode]:
    """Every episode of a sweep, in a fixed order (envs, then agents, then runs).

    An agent setting with its own ``runs`` gets that many episodes instead of ``runs``.
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise InvalidParameterError(f"sweep: runs must be an integer >= 1; got {runs!r}.")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"sweep: seed must be an integer >= 0; got {seed!r}.")
    env_settings, agent_settings = _as_envs(envs), _as_agents(agents)
    if not env_settings or not agent_settings:
        raise InvalidParameterError("sweep: give at least one env and one agent.")
    return [
        Episode(e, a, r, episode_seed(seed, e, a, r), batch)
        for e in env_settings
        for a in agent_settings
        for r in range(runs if a.runs is None else a.runs)
    ]


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
        progress: show a progress bar with ETA (tqdm) on stderr.
        fsync_interval: seconds between two fsyncs of the results file (0: after every
            record). Every record is flushed to the OS at once, which is what survives a kill.

    Returns:
        A :class:`SweepResult`. Agent crashes do not raise: they are error records.
    """
    if backend not in BACKENDS:
        raise InvalidParameterError(
            f"sweep: backend must be one of {list(BACKENDS)}; got {backend!r}."
        )
    jobs = n_jobs if n_jobs is not None else (os.cpu_count() or 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InvalidParameterError(f"sweep: n_jobs must be an integer >= 1; got {n_jobs!r}.")
    episodes = plan(envs, agents, runs, seed, batch)
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
    done = {k for k, r in existing.items()
            if k in wanted and (r.get("status") == "ok" or not retry_errors)}
    todo = [e for e in episodes if e.key not in done]
    records: list[dict[str, Any]] = [r for k, r in existing.items() if k in done]
    bar = _progress(len(episodes), len(done), progress)
    try:
        if todo:
            for batch_records in _BACKENDS[backend](todo, jobs, address):
                for record in batch_records:
                    if log is not None:
                        log.append(record)
                    records.append(record)
                    if bar is not None:
                        bar.update()
                        if record.get("status") == "error":
                            n_errors = sum(r.get("status") == "error" for r in records)
                            bar.set_postfix_str(f"errors: {n_errors}")
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


def _progress(total: int, initial: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc="episodes", unit="ep", file=sys.stderr,
                smoothing=0.05)


def export(records: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> Path:
    """Write records to ``.csv`` or ``.parquet`` (Parquet needs pyarrow), by the file suffix."""
    path = Path(path)
    columns = sorted({k for r in records for k in r})
    rows = [{k: _flat(r.get(k)) for k in columns} for r in records]
    if path.suffix == ".csv":
        import csv

        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
        return path
    if path.suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise InvalidParameterError(
                "export: Parquet needs pyarrow; install it with `pip install pyarrow`, or export "
                "to .csv."
            ) from None
        pq.write_table(pa.Table.from_pylist(rows), path)
        return path
    raise InvalidParameterError(
        f"export: the file name must end in .csv or .parquet; got {path.name!r}."
    )


def _flat(value: Any) -> Any:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True)
    return value
