"""Sweeps: environments × agents × runs, on one core, local processes or Ray, resumable.

A sweep expands keyword grids into *settings* (:mod:`~registry.sweeps.settings`), gives every
episode a seed derived from (sweep seed, env setting, agent setting, run index) with
:class:`numpy.random.SeedSequence` (:mod:`~registry.sweeps.episodes`), and appends each finished
episode to a JSON Lines results file at once, flushed and fsynced
(:mod:`~registry.sweeps.results`). A record therefore never depends on the backend, the number
of workers or the order of execution, a killed sweep loses at most the episodes in flight, and
re-running the same sweep into the same folder skips what is already done
(:mod:`~registry.sweeps.runner`).

Faults, and what each does:

* A worker process that dies mid-episode (a crash in native code, the out-of-memory killer,
  ``os.kill`` in an agent) costs only the episodes it held: the finished records of the other
  workers are kept, the episodes that were running are run once more, each alone in a fresh
  process (``process``) or task (``ray``), and one that kills its process again becomes an error
  record (``error_type`` ``"WorkerDied"``); the rest of the sweep goes on.
* A results file that cannot be written (full disk, quota) stops the sweep with
  :class:`~bandit_envs.errors.ResultsWriteError`; the partly written record is cut off, every
  record before it is intact, and running the same sweep again resumes.
* A cut last line (a write interrupted by a kill) is removed with a warning that names the file
  and the line, and its episode runs again. A bad line *before* the last cannot come from a
  crash (the sweep only appends), so it is :class:`~bandit_envs.errors.CorruptResultsError`,
  naming the file and the line, and nothing is changed.

Why JSON Lines rather than SQLite: one writer (the parent process) appends one line per
episode, so there is nothing to lock; a crash can only leave a partial last line, which is
detected and cut on the next open; the file is human-readable, greppable and streams into pandas
or ``json``; exports to CSV and Parquet are provided.
"""

from registry.sweeps.episodes import (
    Episode,
    build_env,
    check_compatible,
    episode_seed,
    incompatible_pairs,
    load_agent_class,
    lost_record,
    plan,
    resolve_agent,
    run_chunk,
    run_one,
)
from registry.sweeps.results import RESULTS_FILE, ResultsLog, export, read_results
from registry.sweeps.runner import BACKENDS, MANIFEST_FILE, SweepResult, sweep
from registry.sweeps.settings import (
    AgentSetting,
    EnvSetting,
    agent_settings,
    env_settings,
    expand_grid,
)

__all__ = [
    "BACKENDS",
    "MANIFEST_FILE",
    "RESULTS_FILE",
    "AgentSetting",
    "EnvSetting",
    "Episode",
    "ResultsLog",
    "SweepResult",
    "agent_settings",
    "build_env",
    "check_compatible",
    "env_settings",
    "episode_seed",
    "expand_grid",
    "export",
    "incompatible_pairs",
    "load_agent_class",
    "lost_record",
    "plan",
    "read_results",
    "resolve_agent",
    "run_chunk",
    "run_one",
    "sweep",
]
