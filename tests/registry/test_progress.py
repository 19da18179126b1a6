"""Progress on stderr: a bar on a terminal only, sparse lines in logs, a note on a stall."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import registry.progress as progress_module
from registry.progress import Progress, is_interactive
from registry.sweeps import sweep


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_file_gets_a_few_plain_lines_not_a_bar():
    log = io.StringIO()
    assert not is_interactive(log)
    with Progress(1000, file=log, interval=3600, stall=None) as bar:
        for _ in range(1000):
            bar.update()
    lines = log.getvalue().splitlines()
    assert lines == ["episodes: 0/1000 (0%), 0 s elapsed", lines[1]]
    assert lines[1].startswith("episodes: 1000/1000 (100%)") and "\r" not in log.getvalue()


def test_nothing_to_do_is_one_line():
    log = io.StringIO()
    Progress(5, initial=5, file=log, stall=None).close()
    assert log.getvalue() == "episodes: 5/5 (100%), 0 s elapsed\n"


def test_plain_lines_are_rate_limited_and_say_the_time_left():
    log = io.StringIO()
    start = time.monotonic()
    with Progress(50, file=log, interval=0.05, stall=None) as bar:
        for _ in range(50):
            time.sleep(0.004)
            bar.update(postfix="crashed: 1")
    elapsed = time.monotonic() - start
    lines = log.getvalue().splitlines()
    # the first line, then at most one per interval, then the last
    assert 3 <= len(lines) <= 2 + elapsed / 0.05 + 1, (elapsed, lines)
    assert len(lines) < 50
    assert any("left; crashed: 1" in line for line in lines)


def test_a_terminal_gets_the_tqdm_bar():
    tty = _Tty()
    assert is_interactive(tty)
    with Progress(10, file=tty, stall=None) as bar:
        bar.update(10)
    assert "\r" in tty.getvalue() and "10/10" in tty.getvalue()


def test_a_stall_is_reported_with_what_is_running():
    log = io.StringIO()
    with Progress(
        3, file=log, interval=3600, stall=0.2, running=lambda: "Slow on E (2 episode(s))", hint="H."
    ) as bar:
        bar.update()
        time.sleep(0.5)
        bar.update(2)
    stalls = [line for line in log.getvalue().splitlines() if "none finished" in line]
    assert len(stalls) >= 1, log.getvalue()
    assert "(1/3 done); not finished: Slow on E (2 episode(s)). H." in stalls[0]


def test_sweep_progress_redirected_to_a_file_is_a_few_lines(tmp_path):
    """A whole `bandit-bench run` with stderr redirected: no carriage returns, a few lines."""
    code = (
        "import sys; from registry.cli import main; sys.exit(main(['run', '--env', "
        "'LinearBAI-Soare-v0', '--env-kw', 'budget=30', '--agent', 'Uniform', '--runs', '300', "
        f"'--backend', 'serial', '--out', {str(tmp_path / 'o')!r}]))"
    )
    with open(tmp_path / "log.txt", "w") as log:
        done = subprocess.run([sys.executable, "-c", code], stderr=log, stdout=subprocess.DEVNULL)
    assert done.returncode == 0
    text = (tmp_path / "log.txt").read_text()
    assert "\r" not in text
    lines = [line for line in text.splitlines() if line.startswith("episodes:")]
    assert lines[0].startswith("episodes: 0/300") and lines[-1].startswith("episodes: 300/300")
    assert len(lines) <= 4, text


def test_a_runaway_episode_is_named_while_the_sweep_waits(monkeypatch, capsys):
    monkeypatch.setattr(progress_module, "STALL_SECONDS", 0.3)
    result = sweep(
        [{"id": "LinearBAI-Soare-v0", "kwargs": {"budget": 20}}],
        [{"name": "tests.registry.sweep_agents:Sleepy", "kwargs": {"seconds": 0.8}}],
        2,
        backend="serial",
        progress=True,
    )
    assert not result.crashed
    err = capsys.readouterr().err
    assert "none finished in the last" in err, err
    assert "not finished: tests.registry.sweep_agents:Sleepy(seconds=0.8) on " in err
    assert "LinearBAI-Soare-v0(budget=20)" in err and "Ctrl-C stops the sweep" in err


def test_a_long_episode_says_how_far_it_is(monkeypatch, capsys):
    import registry.sweeps.episodes as episodes

    monkeypatch.setattr(episodes, "LONG_EPISODE_EVERY", 1e-9)  # every look is a line
    result = sweep(
        [{"id": "LinearBAI-Soare-v0", "kwargs": {"budget": 10_000}}],
        ["Uniform"],
        1,
        backend="serial",
        progress=False,
    )
    assert not result.crashed
    lines = [line for line in capsys.readouterr().err.splitlines() if "still running" in line]
    assert lines, "no line about the long episode"
    assert lines[0].startswith("bandit-bench: still running: Uniform on LinearBAI-Soare-v0")
    assert "samples after" in lines[0] and "(cap 10,000)" in lines[0]


def test_the_long_episode_line_names_the_multiple_of_the_lower_bound():
    from bandit_envs import EpisodeProgress
    from registry.sweeps.episodes import long_episode_line

    p = EpisodeProgress("E-v0", "A", 3, 2_000_000, 75.2, 10**8, None, 1000.0)
    assert long_episode_line(p) == (
        "A on E-v0 (seed 3): 2,000,000 samples after 75 s (cap 100,000,000), 2,000x T*log(1/delta)"
    )
