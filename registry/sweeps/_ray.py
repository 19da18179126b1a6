"""The ``ray`` backend: chunks of episodes as Ray tasks, on a local Ray or a cluster.

A task whose worker died is split and its episodes run once more, one per task; a
single-episode task that dies again becomes an error record
(:func:`~registry.sweeps.episodes.lost_record`) and the sweep goes on. Ray is an optional
dependency (``pip install "bandit-envs[ray]"``), imported only when this backend runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bandit_envs.errors import InvalidParameterError
from registry.sweeps.episodes import Episode, Records, chunks, lost_record, run_chunk

#: the names of Ray's exceptions that mean a worker or its node died (those this Ray has).
_WORKER_LOST = ("WorkerCrashedError", "NodeDiedError", "ObjectLostError", "LocalRayletDiedError")


def _worker_lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """The exception classes of this Ray version that mean a lost worker."""
    found = (getattr(ray.exceptions, name, None) for name in _WORKER_LOST)
    return tuple(cls for cls in found if isinstance(cls, type) and issubclass(cls, BaseException))


def run_ray(episodes: Sequence[Episode], n_jobs: int, address: str | None) -> Records:
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
    worker_lost = _worker_lost_errors(ray)
    remote = ray.remote(run_chunk).options(max_retries=0)
    tasks: dict[Any, tuple[list[Episode], bool]] = {}  # ref -> (chunk, second attempt)
    for chunk in chunks(episodes, n_jobs):
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


__all__ = ["run_ray"]
