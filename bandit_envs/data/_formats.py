"""The file formats: the canonical CSV files, and the UCI spreadsheet of the energy data set.

Reading a canonical CSV needs the standard library and NumPy only. Converting the UCI
spreadsheet (an .xlsx inside a zip) into the canonical energy CSV needs openpyxl, from the
``data`` extra.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import re
import warnings
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO, Any

import numpy as np

from bandit_envs.data._registry import DATASETS, ENERGY_COLUMNS, WHO, Dataset, optional_library
from bandit_envs.errors import DataError, InvalidParameterError

__all__ = [
    "MAX_FILE_BYTES",
    "energy_from_archive",
    "energy_from_xlsx",
    "format_energy_csv",
    "parse_dataset",
    "read_energy_csv",
    "read_noc_csv",
    "sha256_of",
]

#: cap on a downloaded or imported file and on one decompressed zip member (a zip-bomb guard);
#: the real sources are ~10-300 KB.
MAX_FILE_BYTES = 64 * 2**20

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_ENERGY_SHEET_HEADER = ("x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "y1", "y2")
_ENERGY_INTEGER_COLUMNS = frozenset({5, 7})  # orientation, glazing_area_distribution


def sha256_of(data: bytes | str | os.PathLike[str]) -> str:
    """The hex sha256 digest of bytes, or of a file's content when given a path."""
    if isinstance(data, bytes):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha256(Path(data).read_bytes()).hexdigest()


def read_file(path: Path) -> bytes:
    """The bytes of ``path``, or a DataError naming it."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DataError(f"{WHO}: cannot read {path} ({exc}).") from None


# --------------------------------------------------------------------------------------------
# the canonical CSV files


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{WHO}: {where} is not UTF-8 text ({exc}).") from None


def _parse_table(text: str, ds: Dataset, where: str) -> np.ndarray:
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise DataError(f"{WHO}: {where} is empty.")
    header = tuple(field.strip() for field in lines[0].split(ds.delimiter))
    if header != ds.columns:
        raise DataError(
            f"{WHO}: {where}, line 1: the header must be "
            f"{ds.delimiter.join(ds.columns)!r}; got {lines[0]!r}."
        )
    if len(lines) < 2:
        raise DataError(f"{WHO}: {where} has a header but no data rows.")
    out = np.empty((len(lines) - 1, ds.n_columns), dtype=np.float64)
    for i, line in enumerate(lines[1:]):
        fields = line.split(ds.delimiter)
        if len(fields) != ds.n_columns:
            raise DataError(
                f"{WHO}: {where}, line {i + 2}: expected {ds.n_columns} fields separated by "
                f"{ds.delimiter!r}; got {len(fields)} in {line!r}."
            )
        for j, field in enumerate(fields):
            if not _NUMBER.fullmatch(field.strip()):
                raise DataError(
                    f"{WHO}: {where}, line {i + 2}, column {ds.columns[j]!r}: expected a finite "
                    f"decimal number; got {field!r}."
                )
            out[i, j] = float(field)
    if not np.all(np.isfinite(out)):
        i, j = np.argwhere(~np.isfinite(out))[0]
        raise DataError(
            f"{WHO}: {where}, line {i + 2}, column {ds.columns[j]!r}: the value overflows a "
            "float64."
        )
    return out


def _split(ds: Dataset, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.ascontiguousarray(table[:, : ds.n_features]),
        np.ascontiguousarray(table[:, ds.n_features :]),
    )


def parse_dataset(ds: Dataset, data: bytes, where: str) -> tuple[np.ndarray, np.ndarray]:
    """``(features, targets)`` of the bytes of a canonical file of ``ds``, raw as stored."""
    return _split(ds, _parse_table(_decode(data, where), ds, where))


def read_noc_csv(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray]:
    """Parse a file in the format of ``noc_CM_log.csv``, without checksum.

    The format: a ``;``-separated header ``width;complexity;fifo;multiplier;energy;inv_runtime``
    then one row of decimal numbers per design.

    Returns:
        ``(features, objectives)``: float64 arrays of shapes K×4 and K×2, raw as in the file.

    Raises:
        DataError: the file cannot be read or is malformed (the message names the file and line).

    """
    return parse_dataset(DATASETS["noc"], read_file(Path(path)), str(path))


def read_energy_csv(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray]:
    """Parse a file in the format of ``energy_efficiency.csv``, without checksum.

    The format: a ``,``-separated header (:data:`ENERGY_COLUMNS`) then one row per building.

    Returns:
        ``(features, targets)``: float64 arrays of shapes K×8 and K×2, raw as in the file.

    Raises:
        DataError: the file cannot be read or is malformed (the message names the file and line).

    """
    return parse_dataset(DATASETS["energy"], read_file(Path(path)), str(path))


def format_energy_csv(features: np.ndarray, targets: np.ndarray) -> bytes:
    """Write the energy data in the project's canonical CSV format, as bytes.

    The format of ``energy_efficiency.csv``: ASCII, ``,``-separated, CRLF line ends (the csv
    module's default dialect) including after the last row; the header :data:`ENERGY_COLUMNS`;
    ``orientation`` and ``glazing_area_distribution`` as integers, every other value with exactly
    two decimals. The data set has no more precision than that, so nothing is lost; values that
    would be rounded are refused.

    Args:
        features: K×8 array.
        targets: K×2 array.

    Raises:
        InvalidParameterError: wrong shapes, non-finite values, a non-integer integer column, or
            a value with more than two decimals.

    """
    who = "format_energy_csv"
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(targets, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 8 or y.ndim != 2 or y.shape[1] != 2 or len(x) != len(y):
        raise InvalidParameterError(
            f"{who}: features and targets must be K×8 and K×2 arrays with the same K; got shapes "
            f"{x.shape} and {y.shape}."
        )
    table = np.hstack([x, y])
    if not np.all(np.isfinite(table)):
        i, j = np.argwhere(~np.isfinite(table))[0]
        raise InvalidParameterError(
            f"{who}: row {i}, column {ENERGY_COLUMNS[j]!r} must be finite; got {table[i, j]!r}."
        )
    rows = [",".join(ENERGY_COLUMNS)]
    for i, row in enumerate(table.tolist()):
        fields = []
        for j, value in enumerate(row):
            if j in _ENERGY_INTEGER_COLUMNS:
                if not float(value).is_integer():
                    raise InvalidParameterError(
                        f"{who}: row {i}, column {ENERGY_COLUMNS[j]!r} must be an integer; "
                        f"got {value!r}."
                    )
                fields.append(str(int(value)))
            else:
                text = f"{value:.2f}"
                if abs(float(text) - value) > 1e-9 * max(1.0, abs(value)):
                    raise InvalidParameterError(
                        f"{who}: row {i}, column {ENERGY_COLUMNS[j]!r} must have at most two "
                        f"decimals; got {value!r}."
                    )
                fields.append("0.00" if text == "-0.00" else text)
        rows.append(",".join(fields))
    return ("\r\n".join(rows) + "\r\n").encode("ascii")


# --------------------------------------------------------------------------------------------
# the UCI spreadsheet (openpyxl)


def _blank(cell: Any) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def _check_member_sizes(zf: zipfile.ZipFile, where: str) -> None:
    """Refuse a zip whose members decompress to more than :data:`MAX_FILE_BYTES` each."""
    for info in zf.infolist():
        if info.file_size > MAX_FILE_BYTES:
            raise DataError(
                f"{WHO}: {where}: {info.filename} is {info.file_size} bytes uncompressed; "
                f"refusing to read more than {MAX_FILE_BYTES} bytes."
            )


def _sheet_rows(data: bytes, where: str) -> list[list[Any]]:
    """The cell values of the first worksheet of the .xlsx ``data``, row 1 first (openpyxl)."""
    openpyxl = optional_library("openpyxl", f"reading the spreadsheet {where}")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            _check_member_sizes(zf, where)
        with warnings.catch_warnings():
            # spreadsheets not written by Excel lack a default style; openpyxl says so
            warnings.filterwarnings("ignore", category=UserWarning, module="openpyxl")
            book = openpyxl.load_workbook(io.BytesIO(data), read_only=False, data_only=True)
    except DataError:
        raise
    except Exception as exc:  # openpyxl raises many types (KeyError, ValueError, ...) on bad files
        raise DataError(f"{WHO}: {where} is not an .xlsx file ({exc}).") from None
    try:
        sheet = book.worksheets[0]
        return [list(row) for row in sheet.iter_rows(min_row=1, min_col=1, values_only=True)]
    finally:
        book.close()


def _energy_from_sheet(data: bytes, where: str) -> tuple[np.ndarray, np.ndarray]:
    rows = _sheet_rows(data, where)
    while rows and all(_blank(c) for c in rows[-1]):
        rows.pop()
    if not rows:
        raise DataError(f"{WHO}: {where}: the first worksheet is empty.")
    width = len(ENERGY_COLUMNS)
    header = tuple(str(c).strip().lower() if not _blank(c) else "" for c in rows[0][:width])
    extra = [
        (r, c) for r, row in enumerate(rows) for c in range(width, len(row)) if not _blank(row[c])
    ]
    if header not in (_ENERGY_SHEET_HEADER, ENERGY_COLUMNS) or extra:
        raise DataError(
            f"{WHO}: {where}: expected exactly the ten columns X1..X8, Y1, Y2 "
            f"(or {', '.join(ENERGY_COLUMNS)}); got the header {rows[0]!r}."
        )
    table = np.empty((len(rows) - 1, width), dtype=np.float64)
    for i, row in enumerate(rows[1:], start=2):
        cells = list(row[:width]) + [None] * (width - len(row))
        if all(_blank(c) for c in cells):
            raise DataError(f"{WHO}: {where}: row {i} is empty but data rows follow it.")
        for j, value in enumerate(cells):
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not (number and math.isfinite(value)):
                ref = f"{chr(ord('A') + j)}{i}"
                raise DataError(
                    f"{WHO}: {where}, cell {ref} ({ENERGY_COLUMNS[j]}): expected a finite "
                    f"number; got {value!r}."
                )
            table[i - 2, j] = float(value)
    if len(table) == 0:
        raise DataError(f"{WHO}: {where}: a header but no data rows.")
    return _split(DATASETS["energy"], table)


def energy_from_xlsx(
    source: str | os.PathLike[str] | bytes | IO[bytes],
) -> tuple[np.ndarray, np.ndarray]:
    """Read the UCI spreadsheet ENB2012_data.xlsx into ``(features K×8, targets K×2)``.

    The first row must be the header ``X1..X8, Y1, Y2`` (or :data:`ENERGY_COLUMNS`); every other
    row ten numbers. Trailing empty rows and empty columns are dropped (the cleaning that gives
    the canonical file). :func:`format_energy_csv` then gives the canonical CSV. Needs openpyxl
    (the ``data`` extra).

    Args:
        source: a path, the file's bytes, or a binary file object.

    Raises:
        DataError: openpyxl is missing, not an .xlsx, wrong header, an empty row inside the data,
            or a cell that is not a number (the message names the cell).

    """
    if isinstance(source, bytes):
        return _energy_from_sheet(source, "the .xlsx data")
    if isinstance(source, (str, os.PathLike)):
        return _energy_from_sheet(read_file(Path(source)), str(source))
    return _energy_from_sheet(source.read(), "the .xlsx data")


def energy_from_archive(data: bytes, ds: Dataset, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Read the UCI zip holding the spreadsheet ``ds.archive_member``, or the spreadsheet itself."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = zf.namelist()
            if "xl/workbook.xml" in names or any(n.startswith("xl/worksheets/") for n in names):
                return _energy_from_sheet(data, where)
            wanted = (ds.archive_member or "").lower()
            members = [n for n in names if PurePosixPath(n).name.lower() == wanted]
            if not members:
                raise DataError(
                    f"{WHO}: {where} holds no {ds.archive_member}; its members: {names}."
                )
            _check_member_sizes(zf, where)
            sheet = zf.read(members[0])
    except zipfile.BadZipFile as exc:
        raise DataError(f"{WHO}: {where} is not a zip archive nor an .xlsx file ({exc}).") from None
    return _energy_from_sheet(sheet, f"{members[0]} in {where}")
