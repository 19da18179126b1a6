"""Sweeps under faults: a worker killed mid-episode (process pool, Ray), a full disk,
a corrupted results file. Each test names the exact records it expects on disk afterwards."""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agents import Uniform
from bandit_envs.core.runner import episode_seeds
from bandit_envs.errors import (
    BanditEnvError,
    CorruptResultsError,
    InvalidParameterError,
    ResultsWriteError,
    WorkerLostError,
)
from registry.cli import main
from registry.sweeps import (
    AgentSetting,
    EnvSetting,
    ResultsLog,
    _pool,
    episode_seed,
    plan,
    read_results,
    run_one,
    sweep,
)

TESTS = Path(__file__).resolve().parent
ENV = EnvSetting("LinearBAI-Soare-v0", {"omega": 0.5})


class SelfKilling(Uniform):
    """Uniform that SIGKILLs its own process at its second decision, in the episodes whose first
    draw is below ``KILL_BELOW`` (a function of the episode seed, so a test knows which)."""

    KILL_BELOW = 0.1

    def reset(self, spec, rng):
        self._doomed = first_draw(rng) < self.KILL_BELOW
        self._decisions = 0
        super().reset(spec, rng)

    def _maybe_die(self):
        self._decisions += 1
        if self._doomed and self._decisions == 2:  # after some pulls: mid-episode
            os.kill(os.getpid(), signal.SIGKILL)

    def select(self):
        self._maybe_die()
        return super().select()

    def select_batch(self):
        self._maybe_die()
        return super().select_batch()


def first_draw(rng) -> float:
    """The first draw SelfKilling makes from its episode generator."""
    return float(rng.random())


KILLER = f"{SelfKilling.__module__}:SelfKilling"


def doomed_runs(sweep_seed: int, runs: int) -> list[int]:
    """The runs of SelfKilling on ENV that kill their process under ``sweep_seed``."""
    agent = AgentSetting(KILLER)
    return [
        r
        for r in range(runs)
        if first_draw(episode_seeds(episode_seed(sweep_seed, ENV, agent, r))[1])
        < SelfKilling.KILL_BELOW
    ]


def one_victim(runs: int) -> tuple[int, int]:
    """A sweep seed under which exactly one of ``runs`` SelfKilling runs dies, and that run."""
    for seed in range(500):
        doomed = doomed_runs(seed, runs)
        if len(doomed) == 1:
            return seed, doomed[0]
    raise AssertionError("no sweep seed with exactly one victim")


def strip(records):
    return sorted(
        ({k: v for k, v in r.items() if k != "wall_time"} for r in records), key=lambda r: r["key"]
    )


def expected_records(episodes, skip_key):
    """The records of every episode but ``skip_key``, run here, one by one."""
    return [run_one(e) for e in episodes if e.key != skip_key]


def check_worker_loss(result, folder, episodes, victim_key, how):
    """The sweep finished: one WorkerDied record for the victim, every other record ok, on
    disk exactly once each, and identical to the records of a run without faults."""
    keys = [e.key for e in episodes]
    assert [r["key"] for r in result.records] == keys
    (error,) = result.errors
    assert error["key"] == victim_key
    assert error["error_type"] == "WorkerDied"
    assert error["error_message"].startswith(
        f"the worker process died while running this episode ({how}"
    ), error["error_message"]
    on_disk = read_results(folder)
    disk_keys = [r["key"] for r in on_disk]
    assert len(disk_keys) == len(set(disk_keys)) == len(keys)
    assert set(disk_keys) == set(keys)
    assert (folder / "results.jsonl").read_text().count("\n") == len(keys)
    ok = [r for r in on_disk if r["status"] == "ok"]
    assert strip(ok) == strip(expected_records(episodes, victim_key))


@contextmanager
def hang_guard(seconds: int) -> Iterator[None]:
    """Fail instead of hanging if the block has not returned after ``seconds``.

    A liveness guard, not a speed test: the bound is many times what the block needs on a
    loaded machine, and it only stops a pool that waits forever for a dead worker from hanging
    the suite. Active in the main thread only (where signals are delivered).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def hung(signum, frame):
        raise TimeoutError(f"the sweep did not return within {seconds} s: it hangs")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------------- 1. process pool


def test_a_worker_killed_mid_episode_costs_only_that_episode(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))  # workers import this module for SelfKilling
    seed, victim = one_victim(12)
    agents = [KILLER, "Uniform"]
    episodes = plan([ENV], agents, 12, seed=seed)
    victim_key = next(e.key for e in episodes if e.agent.name == KILLER and e.run == victim)
    folder = tmp_path / "killed"
    with hang_guard(600):
        result = sweep(
            [ENV], agents, 12, seed=seed, out=folder, backend="process", n_jobs=2, progress=False
        )
    assert result.ran == 24 and result.skipped == 0
    check_worker_loss(result, folder, episodes, victim_key, "killed by signal SIGKILL")
    # the CLI's report names the lost episode and exits 1
    assert main(["report", str(folder)]) == 1
    # a re-run after an interruption: three records lost, the victim's error record kept
    path = folder / "results.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    dropped = [json.loads(line)["key"] for line in lines if json.loads(line)["key"] != victim_key]
    dropped = dropped[-3:]
    path.write_text("".join(line for line in lines if json.loads(line)["key"] not in dropped))
    again = sweep(
        [ENV], agents, 12, seed=seed, out=folder, backend="process", n_jobs=2, progress=False
    )
    assert again.ran == 3 and again.skipped == 21
    check_worker_loss(again, folder, episodes, victim_key, "killed by signal SIGKILL")


def die_at_once(chunk):
    """Stands in for the pool's chunk runner: the worker dies before it starts an episode."""
    os.kill(os.getpid(), signal.SIGKILL)


def test_workers_that_die_before_any_episode_stop_the_sweep_clearly(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.setattr(_pool, "_run_marked", die_at_once)
    folder = tmp_path / "barren"
    with pytest.raises(WorkerLostError) as info:
        sweep([ENV], ["Uniform"], 3, out=folder, backend="process", n_jobs=2, progress=False)
    keys = "; ".join(e.key for e in plan([ENV], ["Uniform"], 3))
    assert str(info.value) == (
        f"sweep: the worker processes died twice before starting any episode; 3 episode(s) "
        f"were not run (first: {keys}). The finished episodes are saved. Check that `python -c "
        f'"import bandit_envs, agents, registry"` works, then run the sweep again to resume.'
    )
    assert isinstance(info.value, (RuntimeError, BanditEnvError))
    assert (folder / "results.jsonl").read_text() == ""


# ---------------------------------------------------------------------------- 2. Ray


def test_a_lost_ray_worker_costs_only_that_episode(tmp_path, monkeypatch):
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    if ray.is_initialized():
        ray.shutdown()
    monkeypatch.syspath_prepend(str(TESTS))
    seed, victim = one_victim(8)
    agents = [KILLER, "Uniform"]
    episodes = plan([ENV], agents, 8, seed=seed)
    victim_key = next(e.key for e in episodes if e.agent.name == KILLER and e.run == victim)
    folder = tmp_path / "ray"
    # Ray workers do not inherit the driver's sys.path: tell them where this module is
    paths = [str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])]
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(paths)}},
    )
    try:
        result = sweep(
            [ENV], agents, 8, seed=seed, out=folder, backend="ray", n_jobs=2, progress=False
        )
    finally:
        ray.shutdown()
    assert result.ran == 16
    check_worker_loss(result, folder, episodes, victim_key, "WorkerCrashedError")


# ---------------------------------------------------------------------------- 3. full disk


class FullDisk:
    """Makes ``os.write`` / ``os.fsync`` on one file fail with ENOSPC after ``after`` records.

    ``how="write"``: the record after them is written half, then ENOSPC (a short write);
    ``"fsync"``: the writes succeed and the fsync after them fails; ``"write+truncate"``: as
    ``"write"``, and cutting the half record off fails too.
    """

    def __init__(self, monkeypatch, path, after, how):
        self.path, self.after, self.how = path, after, how
        self.records = 0
        self.freed = False
        self.cut = False
        self.real_write, self.real_fsync = os.write, os.fsync
        monkeypatch.setattr(os, "write", self.write)
        monkeypatch.setattr(os, "fsync", self.fsync)
        if how == "write+truncate":
            monkeypatch.setattr(os, "ftruncate", self.ftruncate)

    def ours(self, fd):
        try:
            here, there = os.fstat(fd), os.stat(self.path)
        except OSError:
            return False
        return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)

    @staticmethod
    def full():
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def write(self, fd, data):
        if self.freed or not self.ours(fd):
            return self.real_write(fd, data)
        if self.records >= self.after and self.how != "fsync":
            if not self.cut:
                self.cut = True
                return self.real_write(fd, bytes(data[: len(data) // 2]))
            raise self.full()
        self.records += 1
        return self.real_write(fd, data)

    def fsync(self, fd):
        if not self.freed and self.how == "fsync" and self.ours(fd) and self.records > self.after:
            raise self.full()
        return self.real_fsync(fd)

    def ftruncate(self, fd, length):
        raise OSError(errno.EIO, os.strerror(errno.EIO))


@pytest.mark.parametrize("how", ["write", "fsync", "write+truncate"])
def test_a_full_disk_stops_the_sweep_and_resume_completes_it(tmp_path, monkeypatch, how):
    envs = [{"id": "LinearBAI-Soare-v0", "grid": {"omega": [0.3, 0.5]}}]
    episodes = plan(envs, ["Uniform"], 5, seed=4)
    folder = tmp_path / "disk"
    path = folder / "results.jsonl"
    folder.mkdir()
    path.touch()
    disk = FullDisk(monkeypatch, path, after=4, how=how)
    with pytest.raises(ResultsWriteError) as info:
        sweep(
            envs,
            ["Uniform"],
            5,
            seed=4,
            out=folder,
            backend="serial",
            progress=False,
            fsync_interval=0.0,
        )
    error = info.value
    kept = (
        "the partly written record may remain; the next run removes it"
        if how == "write+truncate"
        else "the partly written record was removed"
    )
    assert str(error) == (
        f"{path}: cannot write to the results file: No space left on device (ENOSPC). The 4 "
        f"record(s) before it are intact and {kept}. Free some space (or fix the file system), "
        f"then run the same sweep again: it resumes where it stopped."
    )
    assert error.errno == errno.ENOSPC and isinstance(error, (OSError, BanditEnvError))
    assert isinstance(error.__cause__, OSError) and error.__cause__.errno == errno.ENOSPC
    data = path.read_bytes()
    lines = data.split(b"\n")
    first_four = [e.key for e in episodes[:4]]
    assert [json.loads(line)["key"] for line in lines[:4]] == first_four
    if how == "write+truncate":
        assert lines[4] and lines[5:] == []  # the half record is still there
    else:
        assert lines[4:] == [b""] and data.endswith(b"\n")
    # the disk is freed; the same sweep resumes
    disk.freed = True
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if how == "write+truncate":
            with pytest.warns(
                RuntimeWarning,
                match=re.escape(
                    f"{path}: line 5, the last line is incomplete (an interrupted write); it was "
                    f"removed and its episode will be run again."
                ),
            ):
                again = sweep(
                    envs, ["Uniform"], 5, seed=4, out=folder, backend="serial", progress=False
                )
        else:
            again = sweep(
                envs, ["Uniform"], 5, seed=4, out=folder, backend="serial", progress=False
            )
    assert again.ran == 6 and again.skipped == 4
    keys = [r["key"] for r in read_results(folder)]
    assert len(keys) == len(set(keys)) == 10 == path.read_text().count("\n")
    assert strip(read_results(folder)) == strip(expected_records(episodes, None))


def test_results_log_append_after_a_failure_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "r.jsonl"
    log = ResultsLog(path, fsync_interval=0.0)
    log.append({"key": "a"})
    FullDisk(monkeypatch, path, after=0, how="fsync")
    with pytest.raises(ResultsWriteError, match="cannot write to the results file"):
        log.append({"key": "b"})
    monkeypatch.undo()
    with pytest.raises(ResultsWriteError, match="the results log is closed or has failed"):
        log.append({"key": "c"})
    log.close()  # no second error
    assert path.read_text() == '{"key": "a"}\n'


# ---------------------------------------------------------------------------- 4. corrupt file


ENVS4 = [{"id": "LinearBAI-Soare-v0", "kwargs": {"omega": 0.5}}]


@pytest.fixture
def six(tmp_path):
    """A finished 6-episode sweep folder, and the records of that sweep."""
    folder = tmp_path / "six"
    result = sweep(ENVS4, ["Uniform"], 6, seed=2, out=folder, backend="serial", progress=False)
    return folder, result.records


@pytest.mark.parametrize("tail", ["half", "garbage"])
def test_a_cut_last_line_is_removed_with_a_warning_and_its_episode_rerun(six, tail, capsys):
    folder, records = six
    path = folder / "results.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    last = lines[5][: len(lines[5]) // 2] if tail == "half" else b"\xff\xfe\x00garbage"
    path.write_bytes(b"".join(lines[:5]) + last)
    cut = path.read_bytes()
    # read_results and the report skip it with the same warning, and change nothing
    skipped = re.escape(
        f"{path}: line 6, the last line is incomplete (an interrupted write); "
        f"it was skipped (the next run of the sweep removes it and runs its "
        f"episode again)."
    )
    with pytest.warns(RuntimeWarning, match=skipped):
        assert [r["key"] for r in read_results(folder)] == [r["key"] for r in records[:5]]
    with pytest.warns(RuntimeWarning, match=skipped):
        assert main(["report", str(folder)]) == 0
    assert "| run 5" not in capsys.readouterr().out
    assert path.read_bytes() == cut
    # resume removes it, says so, and runs that one episode again
    with pytest.warns(
        RuntimeWarning,
        match=re.escape(
            f"{path}: line 6, the last line is incomplete (an interrupted write); it was "
            f"removed and its episode will be run again."
        ),
    ):
        again = sweep(ENVS4, ["Uniform"], 6, seed=2, out=folder, backend="serial", progress=False)
    assert again.ran == 1 and again.skipped == 5
    keys = [json.loads(line)["key"] for line in path.read_text().splitlines()]
    assert keys == [r["key"] for r in records]
    assert strip(read_results(folder)) == strip(records)


@pytest.mark.parametrize(
    "bad, problem",
    [
        (b"{not json", "is not valid JSON: '{not json'"),
        (b"[1, 2]", "is not a JSON object with a \"key\": '[1, 2]'"),
        (
            b'{"no": "key", "but": "a long line that the message shortens"}',
            'is not a JSON object with a "key": \'{"no": "key", "but": "a long line that t...\'',
        ),
    ],
)
def test_a_corrupt_middle_line_is_an_error_naming_file_and_line(six, bad, problem, capsys):
    folder, records = six
    path = folder / "results.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:2]) + bad + b"\n" + b"".join(lines[3:]))
    before = path.read_bytes()
    message = (
        f"{path}: line 3 {problem}, and 3 line(s) follow it. A crash only cuts the last line, "
        f"so something else changed the file (two sweeps writing into one folder at once, a "
        f"hand edit, a damaged disk); nothing was changed. Repair or delete line 3: its "
        f"episode then runs again on resume."
    )
    for call in (
        lambda: ResultsLog(path),
        lambda: read_results(folder),
        lambda: sweep(ENVS4, ["Uniform"], 6, seed=2, out=folder, backend="serial", progress=False),
    ):
        with pytest.raises(CorruptResultsError) as info:
            call()
        assert str(info.value) == message
        assert isinstance(info.value, InvalidParameterError)
    assert main(["report", str(folder)]) == 2
    assert capsys.readouterr().err == f"bandit-bench report: error: {message}\n"
    assert path.read_bytes() == before
    # the user deletes the line as told: the resumed sweep runs that episode again
    path.write_bytes(b"".join(lines[:2]) + b"".join(lines[3:]))
    again = sweep(ENVS4, ["Uniform"], 6, seed=2, out=folder, backend="serial", progress=False)
    assert again.ran == 1 and again.skipped == 5
    assert strip(read_results(folder)) == strip(records)


def test_a_key_recorded_twice_counts_once_with_its_last_record(six):
    folder, records = six
    path = folder / "results.jsonl"
    rerun = dict(records[1], status="error", error_type="RuntimeError", error_message="x")
    with path.open("a") as fh:
        fh.write(json.dumps(rerun, sort_keys=True) + "\n")
    on_disk = read_results(folder)
    assert len(on_disk) == 6 and len({r["key"] for r in on_disk}) == 6
    assert [r["key"] for r in on_disk] == [r["key"] for r in records[:1] + records[2:]] + [
        records[1]["key"]
    ]
    assert on_disk[-1]["status"] == "error"
    again = sweep(
        ENVS4,
        ["Uniform"],
        6,
        seed=2,
        out=folder,
        backend="serial",
        progress=False,
        retry_errors=True,
    )
    assert again.ran == 1 and strip(read_results(folder)) == strip(records)
