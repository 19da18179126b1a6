"""The results file of a sweep: an append-only JSON Lines log, reading it back, exporting it.

One writer (the sweep's parent process) appends one line per finished episode, flushed at once
and fsynced shortly after, so there is nothing to lock and a crash can only leave a cut last
line, which is detected and removed on the next open. The file is human-readable, greppable and
streams into pandas or ``json``; :func:`export` writes CSV or Parquet.

* A cut last line (a write interrupted by a kill) is removed with a warning that names the file
  and the line, and its episode runs again.
* A bad line *before* the last cannot come from a crash (the sweep only appends), so it is
  :class:`~bandit_envs.errors.CorruptResultsError`, naming the file and the line, and nothing is
  changed.
* A record that cannot be written (full disk, quota) is cut off again and
  :class:`~bandit_envs.errors.ResultsWriteError` is raised: every record before it is intact.
"""

from __future__ import annotations

import errno
import json
import os
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bandit_envs.errors import CorruptResultsError, InvalidParameterError, ResultsWriteError

#: the name of the results file in a sweep folder.
RESULTS_FILE = "results.jsonl"


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
    fsync is slow next to a short episode), and at :meth:`close`.

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


__all__ = ["RESULTS_FILE", "ResultsLog", "export", "read_results"]
