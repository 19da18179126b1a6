"""Progress of long commands on stderr: a bar on a terminal, sparse lines in a log, stall notes.

On a terminal (or in a notebook) progress is a tqdm bar. When stderr is redirected to a file or a
pipe, a bar would write hundreds of carriage-return updates into the log, so :class:`Progress`
writes a plain line at most every ``interval`` seconds (and one at the end) instead, the usual
convention of command-line tools. In both cases, when no episode has finished for ``stall``
seconds, a line says so and names the settings still running, so that a runaway episode is never
silent: the user sees which agent is taking long, and can stop it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

#: seconds between two progress lines when stderr is not a terminal.
LOG_INTERVAL = 30.0
#: seconds without a finished episode after which a line names what is still running.
STALL_SECONDS = 60.0


def is_interactive(stream: Any) -> bool:
    """Whether ``stream`` is a terminal, or stderr of a notebook (where tqdm draws widgets)."""
    isatty = getattr(stream, "isatty", None)
    if callable(isatty) and isatty():
        return True
    if stream is sys.stderr:
        from tqdm.auto import tqdm

        return tqdm.__module__.startswith("tqdm.notebook")
    return False


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """Progress of ``total`` units of work (episodes), some of them ``initial``-ly done.

    Args:
        total: the units of work.
        initial: units already done (a resumed sweep).
        desc: what a unit is, e.g. ``"episodes"``.
        file: where to write (default: stderr).
        bar: draw a tqdm bar (default: when ``file`` is interactive, :func:`is_interactive`).
        interval: seconds between two plain lines (no bar).
        stall: seconds without progress after which a line names what is running (``None``:
            never).
        running: a function returning the description of the work not finished, for the
            stall line (e.g. ``"RAGE on LinearBAI-Soare-v0 (3 episodes)"``).
        hint: a sentence appended to the stall line (what the user can do).

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        total: int,
        initial: int = 0,
        *,
        desc: str = "episodes",
        file: IO[str] | None = None,
        bar: bool | None = None,
        interval: float = LOG_INTERVAL,
        stall: float | None = STALL_SECONDS,
        running: Callable[[], str] | None = None,
        hint: str = "",
    ) -> None:
        self.total, self.n, self.desc = total, initial, desc
        self.file = file if file is not None else sys.stderr
        self.interval, self.stall, self.running, self.hint = interval, stall, running, hint
        self._start = self._last_line = self._last_update = time.monotonic()
        self._initial = initial
        self._postfix = ""
        self._last_n = -1
        self._closed = False
        self._lock = threading.Lock()
        self._bar: Any = None
        if bar if bar is not None else is_interactive(self.file):
            from tqdm.auto import tqdm

            self._bar = tqdm(
                total=total, initial=initial, desc=desc, unit="ep", file=self.file, smoothing=0.05
            )
        else:
            self._line()
        self._stop = threading.Event()
        self._watch: threading.Thread | None = None
        if stall is not None:
            self._watch = threading.Thread(target=self._watchdog, daemon=True, name="progress")
            self._watch.start()

    # ------------------------------------------------------------------ updates

    def update(self, n: int = 1, postfix: str | None = None) -> None:
        """``n`` more units done; ``postfix`` (e.g. ``"crashed: 2"``) is shown after the count."""
        with self._lock:
            self.n += n
            now = time.monotonic()
            self._last_update = now
            if postfix is not None:
                self._postfix = postfix
            if self._bar is not None:
                if postfix is not None:
                    self._bar.set_postfix_str(postfix, refresh=False)
                self._bar.update(n)
            elif not self._closed and now - self._last_line >= self.interval:
                self._line()

    def write(self, text: str) -> None:
        """A line of text that does not break the bar."""
        if self._bar is not None:
            self._bar.write(text, file=self.file)
        else:
            print(text, file=self.file, flush=True)

    def close(self) -> None:
        """Stop the stall watch; close the bar, or write the last line."""
        self._stop.set()
        if self._watch is not None:
            self._watch.join()
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None
            elif not self._closed:
                if self.n != self._last_n:  # the last state, unless the last line said it
                    self._line()
                self._closed = True

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ lines

    def _line(self) -> None:
        """One plain progress line: count, percentage, rate and time left."""
        now = time.monotonic()
        elapsed = now - self._start
        done = self.n - self._initial
        text = f"{self.desc}: {self.n}/{self.total}"
        if self.total:
            text += f" ({100 * self.n / self.total:.0f}%)"
        text += f", {_duration(elapsed)} elapsed"
        if done > 0 and self.n < self.total:
            text += f", about {_duration(elapsed / done * (self.total - self.n))} left"
        if self._postfix:
            text += f"; {self._postfix}"
        print(text, file=self.file, flush=True)
        self._last_line, self._last_n = now, self.n

    def _watchdog(self) -> None:
        """Every few seconds: if nothing finished for ``stall`` seconds, say what is running."""
        assert self.stall is not None
        noted = self._last_update
        while not self._stop.wait(min(5.0, self.stall / 4)):
            with self._lock:
                last = self._last_update
            now = time.monotonic()
            if self.n >= self.total or now - last < self.stall or now - noted < self.stall:
                continue
            noted = now
            what = self.running() if self.running is not None else ""
            self.write(
                f"{self.desc}: none finished in the last {_duration(now - last)} "
                f"({self.n}/{self.total} done)"
                + (f"; not finished: {what}" if what else "")
                + "."
                + (f" {self.hint}" if self.hint else "")
            )


__all__ = ["LOG_INTERVAL", "STALL_SECONDS", "Progress", "is_interactive"]
