"""A minimal reader of .xlsx spreadsheets with the standard library only (no openpyxl).

An .xlsx file is a zip of XML parts; the UCI "Energy efficiency" data set ships as one
(``ENB2012_data.xlsx``), so :mod:`bandit_envs.data.datasets` reads its first worksheet through this
module: numbers, shared and inline strings, booleans and blanks, with every malformed part
reported as a :class:`~bandit_envs.errors.DataError` naming the file and the cell.
"""

from __future__ import annotations

import io
import os
import re
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import IO

from bandit_envs.errors import DataError

__all__ = ["Cell", "MAX_MEMBER_BYTES", "blank", "label", "member", "read_rows", "read_xlsx"]

#: cap on one decompressed zip member (zip-bomb guard); the real sources are ~10-300 KB.
MAX_MEMBER_BYTES = 64 * 2**20


Cell = float | str | bool | None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(elem: ET.Element, name: str) -> list[ET.Element]:
    return [child for child in elem if _local(child.tag) == name]


def _text_of(elem: ET.Element) -> str:
    """Concatenate the ``<t>`` texts of a shared or inline string, skipping phonetic runs."""
    parts = []
    for child in elem:
        tag = _local(child.tag)
        if tag == "t":
            parts.append(child.text or "")
        elif tag == "r":
            parts.extend(t.text or "" for t in _children(child, "t"))
    return "".join(parts)


def member(zf: zipfile.ZipFile, name: str, where: str) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise DataError(f"bandit_envs.data.datasets: {where} has no member {name!r}.") from None
    if info.file_size > MAX_MEMBER_BYTES:
        raise DataError(
            f"bandit_envs.data.datasets: {where}: {name} is {info.file_size} bytes uncompressed; "
            "refusing to read more than 64 MiB."
        )
    return zf.read(info)


def _xml(data: bytes, name: str, where: str) -> ET.Element:
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        raise DataError(
            f"bandit_envs.data.datasets: {where}: {name} is not valid XML ({exc})."
        ) from None


def _workbook_parts(zf: zipfile.ZipFile, where: str) -> tuple[str, str | None]:
    """Locate the first worksheet and the shared-strings part through the workbook's relations."""
    names = set(zf.namelist())
    sheet, strings = "xl/worksheets/sheet1.xml", "xl/sharedStrings.xml"
    rels_name = "xl/_rels/workbook.xml.rels"
    if "xl/workbook.xml" in names and rels_name in names:
        targets: dict[str, str] = {}
        for rel in _xml(member(zf, rels_name, where), rels_name, where).iter():
            if _local(rel.tag) != "Relationship":
                continue
            target = rel.get("Target", "")
            target = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
            targets[rel.get("Id", "")] = str(PurePosixPath(target))
            if rel.get("Type", "").endswith("/sharedStrings"):
                strings = targets[rel.get("Id", "")]
        workbook = _xml(member(zf, "xl/workbook.xml", where), "xl/workbook.xml", where)
        for elem in workbook.iter():
            if _local(elem.tag) == "sheet":
                rid = next((v for k, v in elem.attrib.items() if _local(k) == "id"), None)
                if rid in targets:
                    sheet = targets[rid]
                break
    if sheet not in names:
        raise DataError(f"bandit_envs.data.datasets: {where} is not a spreadsheet (no {sheet}).")
    return sheet, strings if strings in names else None


_CELL_REF = re.compile(r"([A-Z]+)([0-9]+)")


def _column_index(letters: str) -> int:
    index = 0
    for ch in letters:
        index = index * 26 + (ord(ch) - ord("A") + 1)
    return index - 1


def read_xlsx(source: str | os.PathLike[str] | bytes | IO[bytes]) -> list[list[Cell]]:
    """The cells of the first worksheet of an .xlsx file, with the standard library only.

    An .xlsx is a zip of XML parts (ECMA-376): the workbook and its relations name the first
    sheet (usually ``xl/worksheets/sheet1.xml``); text cells index ``xl/sharedStrings.xml``. Used to
    convert the UCI spreadsheet of the energy data set (spec 000 §5.4) without openpyxl.

    Args:
        source: a path, the file's bytes, or a binary file object.

    Returns:
        One list per sheet row, from row 1 to the last row present (missing rows are empty
        lists); cells are ``float`` (numbers), ``str`` (text, dates, error codes), ``bool`` or
        ``None`` (empty), from column A to the row's last cell.

    Raises:
        DataError: the source is not a readable .xlsx (the message names it).

    """
    return read_rows(source, label(source))


def label(source: object) -> str:
    return str(source) if isinstance(source, (str, os.PathLike)) else "the .xlsx data"


def read_rows(source: str | os.PathLike[str] | bytes | IO[bytes], where: str) -> list[list[Cell]]:
    handle = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        with zipfile.ZipFile(handle) as zf:
            sheet_name, strings_name = _workbook_parts(zf, where)
            shared: list[str] = []
            if strings_name is not None:
                root = _xml(member(zf, strings_name, where), strings_name, where)
                shared = [_text_of(si) for si in root.iter() if _local(si.tag) == "si"]
            root = _xml(member(zf, sheet_name, where), sheet_name, where)
    except (zipfile.BadZipFile, OSError) as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(
            f"bandit_envs.data.datasets: {where} is not an .xlsx file ({exc})."
        ) from None
    rows: dict[int, dict[int, Cell]] = {}
    row_number = 0
    for row in (e for e in root.iter() if _local(e.tag) == "row"):
        number = row.get("r", str(row_number + 1))
        if not number.isdigit() or int(number) < 1:
            raise DataError(f"bandit_envs.data.datasets: {where}: bad row number {number!r}.")
        row_number = int(number)
        cells = rows.setdefault(row_number, {})
        col = -1
        for cell in _children(row, "c"):
            ref = cell.get("r")
            match = _CELL_REF.fullmatch(ref) if ref else None
            col = _column_index(match.group(1)) if match else col + 1
            cells[col] = _cell_value(cell, shared, ref or f"row {row_number}", where)
    out: list[list[Cell]] = []
    for r in range(1, max(rows, default=0) + 1):
        cells = rows.get(r, {})
        out.append([cells.get(c) for c in range(max(cells, default=-1) + 1)])
    return out


def _cell_value(cell: ET.Element, shared: Sequence[str], ref: str, where: str) -> Cell:
    kind = cell.get("t", "n")
    if kind == "inlineStr":
        inline = _children(cell, "is")
        return _text_of(inline[0]) if inline else ""
    values = _children(cell, "v")
    if not values or values[0].text is None:
        return None
    text = values[0].text
    try:
        if kind == "s":
            return shared[int(text)]
        if kind == "b":
            return text.strip() == "1"
        if kind == "n":
            return float(text)
    except (ValueError, IndexError):
        raise DataError(
            f"bandit_envs.data.datasets: {where}, cell {ref}: cannot read the value {text!r} "
            f"(type {kind!r})."
        ) from None
    return text  # "str" (formula text), "e" (error code), "d" (ISO date)


def blank(cell: Cell) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())
