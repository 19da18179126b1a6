"""Sweeps: environments × agents × runs, on one core, local processes or Ray, resumable.

A sweep expands keyword grids into *settings*, gives every episode a seed derived from
(sweep seed, env setting, agent setting, run index) with :class:`numpy.random.SeedSequence`, and
appends each finished episode to a JSON Lines results file at once (flushed and fsynced). A
record therefore never depends on the backend, the number of workers or the order of execution,
a killed sweep loses at most the episodes in flight, and re-running the same sweep into the same
folder skips what is already done.

Faults, and what each does:

* A worker process that dies mid-episode (a crash in native code, the out-of-memory killer,
  ``os.kill`` in an agent) costs only the episodes it held: the finished records of the other
  workers are kept, the episodes that were running are run once more, each alone in a fresh
  process (``process``) or task (``ray``), and one that kills its process again becomes an error
  record (``error_type`` ``"WorkerDied"``); the rest of the sweep goes on.
* A results file that cannot be written (full disk, quota) stops the sweep with
  :class:`ResultsWriteError`; the partly written record is cut off, every record before it is
  intact, and running the same sweep again resumes.
* A cut last line (a write interrupted by a kill) is removed with a warning that names the file
  and the line, and its episode runs again. A bad line *before* the last cannot come from a
  crash (the sweep only appends), so it is :class:`CorruptResultsError`, naming the file and the
  line, and nothing is changed.

Why JSON Lines rather than SQLite: one writer (the parent process) appends one line per
episode, so there is nothing to lock; a crash can only leave a partial last line, which is
detected and cut on the next open; the file is human-readable, greppable and streams into pandas
or ``json``; exports to CSV and Parquet are provided.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import importlib
import itertools
import json
import os
import signal
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bandit_envs.errors import (
    CorruptResultsError,
    InvalidParameterError,
    ResultsWriteError,
    WorkerLostError,
)

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
    name: str,
    kwargs: Mapping[str, Any] | None = None,
    grid: Mapping[str, Sequence[Any]] | None = None,
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
    return [
        {**kwargs, **dict(zip(keys, combo, strict=True))}
        for combo in itertools.product(*(grid[k] for k in keys))
    ]


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
            out += [
                EnvSetting(item["id"], kw)
                for kw in expand_grid(item["id"], item.get("kwargs"), item.get("grid"))
            ]
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
            out += [
                AgentSetting(name, kw, item.get("runs"))
                for kw in expand_grid(name, item.get("kwargs"), item.get("grid"))
            ]
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


def _header(episode: Episode) -> dict[str, Any]:
    """The fields every record of ``episode`` starts with."""
    return {
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


def lost_record(episode: Episode, how: str) -> dict[str, Any]:
    """The error record of an episode whose worker process died twice while running it.

    Args:
        episode: the episode.
        how: how the worker died, e.g. ``"killed by signal SIGKILL"``.

    Returns:
        A record with ``status="error"`` and ``error_type="WorkerDied"``.
    """
    record = _header(episode)
    record.update(
        status="error",
        error_type="WorkerDied",
        error_message=(
            f"the worker process died while running this episode ({how}), also when it ran "
            f"alone; no record is possible. A crash in native code, the out-of-memory killer "
            f"or os.kill/os._exit in the agent do this; resume with retry_errors=True to try "
            f"again."
        ),
        traceback="",
    )
    return record


def _exit_text(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    if exitcode:
        return f"exit code {exitcode}"
    return "it exited without a result"


def run_one(episode: Episode) -> dict[str, Any]:
    """Run one episode and return its record (an error record if anything raised)."""
    from bandit_envs.core.runner import run_episode

    record = _header(episode)
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


def _record_of(line: bytes) -> tuple[dict[str, Any] | None, str]:
    """The record a results line holds, or None and what is wrong with the line."""
    try:
        record = json.loads(line)
    except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
        return None, "is not valid JSON"
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        return None, 'is not a JSON object with a "key"'
    return record, ""


def _parse_results(path: Path, data: bytes) -> tuple[list[dict[str, Any]], int, int | None]:
    """The records of a results file's bytes.

    Returns:
        The records, the byte offset where the last complete record line ends, and the line
        number of a cut last line (``None`` when the file has none).

    Raises:
        CorruptResultsError: a line before the last holds no record.
    """
    records: list[dict[str, Any]] = []
    pos = good_end = number = 0
    while pos < len(data):
        newline = data.find(b"\n", pos)
        end = len(data) if newline < 0 else newline + 1
        line = data[pos:end].strip()
        number += 1
        if line:
            record, problem = _record_of(line)
            if record is None:
                rest = data[end:].strip(b" \t\r\n\0")
                if not rest:
                    return records, good_end, number
                after = rest.count(b"\n") + 1
                text = line.decode("utf-8", "replace")
                shown = text if len(text) <= 40 else text[:40] + "..."
                raise CorruptResultsError(
                    f"{path}: line {number} {problem}: {shown!r}, and {after} line(s) follow "
                    f"it. A crash only cuts the last line, so something else "
                    f"changed the file (two sweeps writing into one folder at once, a hand "
                    f"edit, a damaged disk); nothing was changed. Repair or delete line "
                    f"{number}: its episode then runs again on resume."
                )
            records.append(record)
        good_end = pos = end
    return records, good_end, None


class ResultsLog:
    """An append-only JSON Lines file of episode records: one writer, crash-safe.

    Every record is written to the operating system in full before :meth:`append` returns, so
    killing the sweep (Ctrl-C, SIGKILL) loses nothing that finished. Records are also fsynced to
    the disk, at most ``fsync_interval`` seconds after they were written (0: every record; an
    fsync costs milliseconds, more than a short episode), and at :meth:`close`.

    Opening an existing file reads every complete record; a cut last line (a write interrupted
    by a kill) is removed with a warning naming the file and the line. A line before the last
    that holds no record is :class:`CorruptResultsError`. A record that cannot be written (full
    disk) is cut off again and :meth:`append` raises :class:`ResultsWriteError`: the file then
    ends with the last complete record.

    Args:
        path: the ``.jsonl`` file (created if missing).
        fsync_interval: seconds between two fsyncs (0: after every record).
    """

    def __init__(self, path: str | os.PathLike[str], fsync_interval: float = 0.2) -> None:
        self.path = Path(path)
        self.fsync_interval = float(fsync_interval)
        self._synced_at = 0.0
        self._failed = False
        self.records: list[dict[str, Any]] = []
        if self.path.exists():
            self._load()
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        self._size = os.fstat(self._fd).st_size

    def _load(self) -> None:
        data = self.path.read_bytes()
        self.records, good_end, cut = _parse_results(self.path, data)
        if cut is not None:
            warnings.warn(
                f"{self.path}: line {cut}, the last line is incomplete (an interrupted write); "
                f"it was removed and its episode will be run again.",
                RuntimeWarning,
                stacklevel=4,
            )
        if good_end < len(data):
            with open(self.path, "r+b") as fh:
                fh.truncate(good_end)
        elif data and not data.endswith(b"\n"):
            with open(self.path, "ab") as fh:
                fh.write(b"\n")

    def append(self, record: dict[str, Any]) -> None:
        """Write one record in full (fsync at most ``fsync_interval`` seconds later).

        Args:
            record: a JSON-serialisable record with a ``"key"``.

        Raises:
            ResultsWriteError: the record could not be written; the file is left as it was.
        """
        if self._fd is None or self._failed:
            raise ResultsWriteError(f"{self.path}: the results log is closed or has failed.")
        payload = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
        data = memoryview(payload)
        start = self._size
        try:
            while data:
                written = os.write(self._fd, data)
                if written <= 0:
                    raise OSError(errno.EIO, "the write made no progress")
                data = data[written:]
            now = time.monotonic()
            if now - self._synced_at >= self.fsync_interval:
                os.fsync(self._fd)
                self._synced_at = now
        except OSError as exc:
            self._fail(self._fd, exc, start)
        self._size = start + len(payload)
        self.records.append(record)

    def _fail(self, fd: int, exc: OSError, start: int) -> None:
        """Cut the file back to ``start`` (the record being written) and raise."""
        self._failed = True
        try:
            os.ftruncate(fd, start)
            kept = "the partly written record was removed"
        except OSError:
            kept = "the partly written record may remain; the next run removes it"
        reason = exc.strerror or str(exc)
        code = errno.errorcode.get(exc.errno or 0)
        error = ResultsWriteError(
            f"{self.path}: cannot write to the results file: {reason}"
            f"{f' ({code})' if code else ''}. The {len(self.records)} record(s) before it are "
            f"intact and {kept}. Free some space (or fix the file system), then run the same "
            f"sweep again: it resumes where it stopped."
        )
        error.errno = exc.errno
        raise error from exc

    def close(self) -> None:
        """Fsync and close the file (after a failed write, without raising again).

        Raises:
            ResultsWriteError: the final fsync failed.
        """
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.fsync(fd)
        except OSError as exc:
            if not self._failed:
                self._failed = True
                error = ResultsWriteError(
                    f"{self.path}: cannot write the results file to the disk: "
                    f"{exc.strerror or exc}. Run the same sweep again: it resumes from the "
                    f"records that reached the disk."
                )
                error.errno = exc.errno
                raise error from exc
        finally:
            os.close(fd)

    def __del__(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:  # never closed: release the descriptor (close() also fsyncs)
            os.close(fd)

    def __enter__(self) -> ResultsLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_results(folder: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All records of a sweep folder (or of a results file), in the order they finished.

    A key recorded twice (an error record, then the record of its rerun under
    ``retry_errors=True``) counts once, with its last record, as on resume. The file is not
    changed: a cut last line is skipped with a warning, and a bad line before the last raises,
    as when a sweep resumes.

    Args:
        folder: a sweep folder, or the path of its ``results.jsonl``.

    Returns:
        The records, one per key.

    Raises:
        InvalidParameterError: there is no results file.
        CorruptResultsError: a line before the last holds no record.
    """
    path = Path(folder)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise InvalidParameterError(f"read_results: no results file at {path}.")
    records, _, cut = _parse_results(path, path.read_bytes())
    if cut is not None:
        warnings.warn(
            f"{path}: line {cut}, the last line is incomplete (an interrupted write); it was "
            f"skipped (the next run of the sweep removes it and runs its episode again).",
            RuntimeWarning,
            stacklevel=2,
        )
    latest: dict[str, dict[str, Any]] = {}
    for record in records:
        latest.pop(record["key"], None)
        latest[record["key"]] = record
    return list(latest.values())


# --------------------------------------------------------------------------- backends


#: What a backend yields: the records of each finished chunk of episodes.
_Records = Generator[list[dict[str, Any]], None, None]


def _chunks(items: Sequence[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


def _serial(episodes: Sequence[Episode], n_jobs: int, address: str | None) -> _Records:
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


#: Per-episode states shared with the workers of one process pool (see :func:`_process_pass`).
_PENDING, _STARTED, _FINISHED = 0, 1, 2
_STATES: Any = None


def _init_worker(states: Any) -> None:
    """Pool initializer: keep the shared episode states of this pass."""
    global _STATES
    _STATES = states


def _run_marked(chunk: Sequence[tuple[int, Episode]]) -> list[dict[str, Any]]:
    """Run a chunk in a pool worker, marking each episode started, then finished."""
    records = []
    for index, episode in chunk:
        _STATES[index] = _STARTED
        records.append(run_one(episode))
        _STATES[index] = _FINISHED
    return records


def _run_alone(episode: Episode, connection: Any) -> None:
    """Target of the process that runs one suspect episode alone."""
    connection.send(run_one(episode))
    connection.close()


def _process_pass(
    episodes: Sequence[Episode], n_jobs: int, context: Any
) -> Generator[list[dict[str, Any]], None, tuple[list[Episode], list[Episode]]]:
    """Run episodes in a pool until they are done or the pool breaks (a worker died).

    Yields the records of every chunk that finished, also after the pool broke.

    Returns:
        The lost episodes (their chunk's records never came back), and those of them that
        were running when the pool broke: one of these killed its worker.
    """
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    size = max(1, min(8, len(episodes) // (4 * n_jobs)))
    chunks = list(_chunks(list(enumerate(episodes)), size))
    states = context.RawArray("b", len(episodes))
    lost: list[int] = []
    with ProcessPoolExecutor(
        max_workers=n_jobs, mp_context=context, initializer=_init_worker, initargs=(states,)
    ) as pool:
        with _worker_threads(n_jobs):  # workers (and the fork server) start on submit
            pending = {pool.submit(_run_marked, c): c for c in chunks}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    chunk = pending.pop(future)
                    try:
                        records = future.result()
                    except BrokenProcessPool:
                        lost += [index for index, _ in chunk]
                        continue
                    yield records
        finally:
            for future in pending:
                future.cancel()
    lost.sort()  # the plan's order
    running = [episodes[i] for i in lost if states[i] == _STARTED]
    return [episodes[i] for i in lost], running


def _run_isolated(episode: Episode, n_jobs: int, context: Any) -> dict[str, Any]:
    """Run one episode alone in a fresh process: its record, or its lost record if it dies."""
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_run_alone, args=(episode, writer), daemon=True)
    with _worker_threads(n_jobs):
        process.start()
    writer.close()
    try:
        record = reader.recv()
    except EOFError:  # the process died before it sent the record
        record = None
    finally:
        reader.close()
    process.join()
    return record if record is not None else lost_record(episode, _exit_text(process.exitcode))


def _process(episodes: Sequence[Episode], n_jobs: int, address: str | None) -> _Records:
    """Local worker processes; survives workers that die (see :func:`_process_pass`).

    When the pool breaks, the finished chunks are kept; each episode that was running is run
    once more alone (one of them killed the worker; the others were stopped with the pool),
    and the other lost episodes go to a new pool.
    """
    import multiprocessing

    context = _worker_context(multiprocessing)
    todo = list(episodes)
    barren = 0  # consecutive breaks in which no episode was running
    while todo:
        lost, running = yield from _process_pass(todo, n_jobs, context)
        barren = barren + 1 if lost and not running else 0
        if barren >= 2:
            keys = "; ".join(e.key for e in lost[:3])
            raise WorkerLostError(
                f"sweep: the worker processes died twice before starting any episode; "
                f"{len(lost)} episode(s) were not run (first: {keys}). The finished episodes "
                f'are saved. Check that `python -c "import bandit_envs, agents, registry"` '
                f"works, then run the sweep again to resume."
            )
        for episode in running:
            yield [_run_isolated(episode, n_jobs, context)]
        again = {e.key for e in running}
        todo = [e for e in lost if e.key not in again]


def _ray(episodes: Sequence[Episode], n_jobs: int, address: str | None) -> _Records:
    """Ray tasks; a task whose worker died is split and run once more, one episode per task.

    Ray's own task retries are off: a single-episode task that dies on its second attempt is
    recorded as lost (:func:`lost_record`) and the sweep goes on.
    """
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
    worker_lost = tuple(
        cls
        for cls in (
            getattr(ray.exceptions, name, None)
            for name in (
                "WorkerCrashedError",
                "NodeDiedError",
                "ObjectLostError",
                "LocalRayletDiedError",
            )
        )
        if isinstance(cls, type)
    )
    remote = ray.remote(run_chunk).options(max_retries=0)
    size = max(1, min(8, len(episodes) // (4 * n_jobs)))
    tasks: dict[Any, tuple[list[Episode], bool]] = {}  # ref -> (chunk, second attempt)
    for chunk in _chunks(episodes, size):
        tasks[remote.remote(chunk)] = (chunk, False)
    refs = list(tasks)
    try:
        while refs:
            done, refs = ray.wait(refs, num_returns=1)
            for ref in done:
                chunk, again = tasks.pop(ref)
                try:
                    records = ray.get(ref)
                except worker_lost as exc:
                    if again:
                        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                        yield [lost_record(chunk[0], f"{type(exc).__name__}: {first}")]
                        continue
                    for episode in chunk:
                        new = remote.remote([episode])
                        tasks[new] = ([episode], True)
                        refs.append(new)
                    continue
                yield records
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)


_BACKENDS: dict[str, Callable[..., _Records]] = {
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
    envs: Iterable[Any],
    agents: Iterable[Any],
    runs: int,
    seed: int = 0,
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
        A :class:`SweepResult`. Agent crashes do not raise: they are error records, and so is
        an episode that kills its worker process twice (``error_type`` ``"WorkerDied"``; the
        other episodes of that worker are run again).

    Raises:
        ResultsWriteError: the results file could not be written (e.g. a full disk); the
            records before are intact and the same call resumes once the cause is fixed.
        CorruptResultsError: ``results.jsonl`` has a bad line before its last one.
        WorkerLostError: (``process``) the workers died twice before starting any episode.
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
    done = {
        k
        for k, r in existing.items()
        if k in wanted and (r.get("status") == "ok" or not retry_errors)
    }
    todo = [e for e in episodes if e.key not in done]
    records: list[dict[str, Any]] = [r for k, r in existing.items() if k in done]
    bar = _progress(len(episodes), len(done), progress)
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

    return tqdm(
        total=total, initial=initial, desc="episodes", unit="ep", file=sys.stderr, smoothing=0.05
    )


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
