"""The ``process`` backend: a pool of local worker processes that survives workers that die.

A worker process that dies mid-episode (a crash in native code, the out-of-memory killer,
``os.kill`` in an agent) breaks the pool. The records of the chunks that finished are kept;
each episode that was running when the pool broke is run once more alone, in a fresh process
(one of them killed the worker; the others were stopped with the pool), and one that kills its
process again becomes an error record (:func:`~registry.sweeps.episodes.lost_record`, error type
``"WorkerDied"``); the other lost episodes go to a new pool. Workers that die twice before any
episode started stop the sweep with :class:`~bandit_envs.errors.WorkerLostError`.

Which episodes were running is known from a shared byte per episode, which each worker sets to
started, then finished (:func:`_run_marked`).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Generator, Iterator, Sequence
from typing import Any

from bandit_envs.errors import WorkerLostError
from registry.sweeps.episodes import Episode, Records, chunks, lost_record, run_one


def _exit_text(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    if exitcode:
        return f"exit code {exitcode}"
    return "it exited without a result"


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
    operations of bandit agents then spend far longer in thread hand-offs between competing
    workers than in arithmetic. Variables the user has set are left alone; the parent's
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

    work = list(chunks(list(enumerate(episodes)), n_jobs))
    states = context.RawArray("b", len(episodes))
    lost: list[int] = []
    with ProcessPoolExecutor(
        max_workers=n_jobs, mp_context=context, initializer=_init_worker, initargs=(states,)
    ) as pool:
        with _worker_threads(n_jobs):  # workers (and the fork server) start on submit
            pending = {pool.submit(_run_marked, c): c for c in work}
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


def run_pool(episodes: Sequence[Episode], n_jobs: int, address: str | None) -> Records:
    """The ``process`` backend: local worker processes; survives workers that die.

    ``address`` is not used (it is Ray's).

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


__all__ = ["run_pool"]
