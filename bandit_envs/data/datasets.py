"""The real data sets of the Pareto family: a registry, a verified cache, and raw loaders.

Two data sets back the real-data instances of spec 000 §5.3–5.4 (DESIGN §6):

* ``"noc"``: ``noc_CM_log.csv``, the Network-on-Chip designs of Almer, Topham and Franke (2011) as
  used by Kone et al. (spec 000 §5.3): K = 259 designs, 4 features, 2 log-scaled objectives.
* ``"energy"``: ``energy_efficiency.csv``, the UCI "Energy efficiency" data of Tsanas and Xifara
  (2012) (spec 000 §5.4): K = 768 buildings, 8 features, 2 loads. The public source is a zip holding
  the spreadsheet ``ENB2012_data.xlsx``; it is converted here, with the standard library only, into
  the project's canonical CSV (:func:`format_energy_csv`), whose sha256 is the one checked.

No data file is part of the package. :func:`dataset_path` finds a file, in this order:

1. the folder named by the environment variable ``BANDIT_ENVS_DATA`` (if set and not empty, the
   file must be there; this mode never downloads);
2. the user cache directory (:func:`default_cache_dir`, or the ``cache_dir`` argument);
3. a download from the original public source into that cache (written to a temporary file and
   renamed into place only once verified, so no partial or unverified file is ever left behind).

Every file read or downloaded is checked against its sha256 before use. Offline with no local
copy, the error says which file to download from where and where to put it.

:func:`load_noc` and :func:`load_energy` return the raw numbers of the files, exactly as stored;
building bandit instances from them (normalisation, least squares, signs) is done elsewhere.

Command line: ``python -m bandit_envs.data.datasets info [name ...]`` and
``python -m bandit_envs.data.datasets fetch [name ...] [--cache-dir DIR] [--force] [--from FILE]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import hashlib
import http.client
import io
import math
import numbers
import os
import re
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import IO, Literal

import numpy as np

from bandit_envs.data import _xlsx
from bandit_envs.data._xlsx import read_xlsx
from bandit_envs.errors import DataError, InvalidParameterError, UnknownNameError

__all__ = [
    "DATASETS",
    "DATA_ENV_VAR",
    "DEFAULT_TIMEOUT",
    "ENERGY_COLUMNS",
    "Dataset",
    "dataset_path",
    "default_cache_dir",
    "energy_from_xlsx",
    "fetch",
    "format_energy_csv",
    "get_dataset",
    "load_energy",
    "load_noc",
    "main",
    "read_energy_csv",
    "read_noc_csv",
    "read_xlsx",
    "sha256_of",
]

DATA_ENV_VAR = "BANDIT_ENVS_DATA"
"""The environment variable naming a local folder that holds the data files (DESIGN §6)."""

DEFAULT_TIMEOUT = 30.0
"""Seconds a download may wait on the network before giving up."""

_MAX_DOWNLOAD_BYTES = 64 * 2**20  # the sources are ~10-300 KB; anything this large is wrong
_USER_AGENT = "bandit-envs (https://pypi.org/project/bandit-envs/)"
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")

SourceFormat = Literal["csv", "xlsx_zip"]


@dataclasses.dataclass(frozen=True)
class Dataset:
    """A registry entry: one data file, where it comes from, and what it must contain.

    Attributes:
        name: the short name (``"noc"``, ``"energy"``).
        filename: the file the project uses (in ``BANDIT_ENVS_DATA`` or the cache).
        url: the original public source.
        sha256: the digest of ``filename`` (for ``"xlsx_zip"`` sources, of the converted CSV).
        n_rows: the number of data rows (arms), header excluded.
        columns: the header of ``filename``, features first.
        n_features: how many leading columns are features; the rest are objectives/targets.
        delimiter: the field separator of ``filename``.
        source_format: ``"csv"`` (the source is the file itself) or ``"xlsx_zip"`` (a zip holding
            the spreadsheet ``archive_member``, converted to the canonical CSV).
        archive_member: the spreadsheet inside the zip, for ``"xlsx_zip"`` sources.
        description: one line on the content.
        citation: the reference to cite.
        licence: the licence of the data, as far as the source states it.
        spec: where the specification describes its use.

    """

    name: str
    filename: str
    url: str
    sha256: str
    n_rows: int
    columns: tuple[str, ...]
    n_features: int
    delimiter: str
    source_format: SourceFormat
    archive_member: str | None
    description: str
    citation: str
    licence: str
    spec: str

    @property
    def n_columns(self) -> int:
        """The number of columns of the file (features + objectives)."""
        return len(self.columns)

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The feature columns, in file order."""
        return self.columns[: self.n_features]

    @property
    def target_names(self) -> tuple[str, ...]:
        """The objective/target columns, in file order."""
        return self.columns[self.n_features :]


ENERGY_COLUMNS: tuple[str, ...] = (
    "relative_compactness",
    "surface_area",
    "wall_area",
    "roof_area",
    "overall_height",
    "orientation",
    "glazing_area",
    "glazing_area_distribution",
    "heating_load",
    "cooling_load",
)
"""The canonical header of ``energy_efficiency.csv`` (the spreadsheet's X1..X8, Y1, Y2, renamed)."""

_ENERGY_SHEET_HEADER = ("x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "y1", "y2")
_ENERGY_INTEGER_COLUMNS = frozenset({5, 7})  # orientation, glazing_area_distribution

DATASETS: Mapping[str, Dataset] = MappingProxyType(
    {
        "noc": Dataset(
            name="noc",
            filename="noc_CM_log.csv",
            url="https://raw.githubusercontent.com/cyrille-kone/linear_psi/main/data/noc_CM_log.csv",
            sha256="6df784c53d285d8e83a4467a5d2732779b78ea45101e82e7b5cf4b998f2870f4",
            n_rows=259,
            columns=("width", "complexity", "fifo", "multiplier", "energy", "inv_runtime"),
            n_features=4,
            delimiter=";",
            source_format="csv",
            archive_member=None,
            description="Network-on-Chip designs: 4 design features, 2 log-scaled objectives "
            "(energy, inverse runtime), as used by Zuluaga et al. (PAL) and Kone et al.",
            citation="O. Almer, N. Topham, B. Franke. A learning-based approach to the automated "
            "design of MPSoC networks. Architecture of Computing Systems (ARCS), 2011. File as "
            "published with Kone, Kaufmann, Richert (GEGE) in cyrille-kone/linear_psi.",
            licence="not stated by the source; downloaded from it on use, never redistributed",
            spec="spec 000 §5.3",
        ),
        "energy": Dataset(
            name="energy",
            filename="energy_efficiency.csv",
            url="https://archive.ics.uci.edu/static/public/242/energy+efficiency.zip",
            sha256="a47f7a271f4f94992721038aaf2c01c54dd1db903870feaee64b0aa2f3171ee7",
            n_rows=768,
            columns=ENERGY_COLUMNS,
            n_features=8,
            delimiter=",",
            source_format="xlsx_zip",
            archive_member="ENB2012_data.xlsx",
            description="UCI Energy efficiency: 768 simulated buildings, 8 features, heating and "
            "cooling loads; the spreadsheet ENB2012_data.xlsx converted to a canonical CSV",
            citation="A. Tsanas, A. Xifara. Accurate quantitative estimation of energy performance "
            "of residential buildings using statistical machine learning tools. Energy and "
            "Buildings 49 (2012) 560-567. Data: UCI Machine Learning Repository, 'Energy "
            "efficiency' (2012).",
            licence="CC BY 4.0",
            spec="spec 000 §5.4",
        ),
    }
)
"""The data sets, by name (spec 000 §5.3–5.4; facts from the shared data README)."""


# --------------------------------------------------------------------------------------------
# registry and locations


def get_dataset(name: str) -> Dataset:
    """Return the registry entry of a data set (spec 000 §5.3–5.4).

    Raises:
        InvalidParameterError: ``name`` is not a string.
        UnknownNameError: no data set has this name (the message lists the known ones).

    """
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"get_dataset: name must be one of {sorted(DATASETS)}; got {name!r}."
        )
    try:
        return DATASETS[name]
    except KeyError:
        close = difflib.get_close_matches(name, list(DATASETS), n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownNameError(
            f"get_dataset: unknown data set {name!r}; known: {', '.join(sorted(DATASETS))}.{hint}"
        ) from None


def _default_cache_dir(platform: str, environ: Mapping[str, str]) -> Path:
    if platform.startswith("win"):
        base = environ.get("LOCALAPPDATA")
        root = Path(base) if base else Path.home() / "AppData" / "Local"
        return root / "bandit_envs"
    xdg = environ.get("XDG_CACHE_HOME", "")
    # the XDG base-directory spec says relative paths must be ignored
    root = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return root / "bandit_envs"


def default_cache_dir() -> Path:
    r"""The user cache directory of the data sets (DESIGN §6).

    ``$XDG_CACHE_HOME/bandit_envs`` (default ``~/.cache/bandit_envs``) on Linux and macOS,
    ``%LOCALAPPDATA%\bandit_envs`` on Windows. Read at each call, never created here.
    """
    return _default_cache_dir(sys.platform, os.environ)


def _data_folder() -> Path | None:
    value = os.environ.get(DATA_ENV_VAR, "")
    return Path(value).expanduser() if value else None


def _check_cache_dir(cache_dir: str | os.PathLike[str] | None, who: str) -> Path:
    if cache_dir is None:
        return default_cache_dir()
    if not isinstance(cache_dir, (str, os.PathLike)) or str(cache_dir) == "":
        raise InvalidParameterError(
            f"{who}: cache_dir must be a non-empty path or None; got {cache_dir!r}."
        )
    return Path(cache_dir).expanduser()


def _check_url(url: str | None, ds: Dataset, who: str) -> str:
    if url is None:
        return ds.url
    scheme = urllib.parse.urlsplit(url).scheme if isinstance(url, str) else None
    if scheme not in ("http", "https", "file"):
        raise InvalidParameterError(
            f"{who}: url must be an http(s):// or file:// URL string or None; got {url!r}."
        )
    return url


def _check_timeout(timeout: float, who: str) -> float:
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, numbers.Real)
        or not (math.isfinite(timeout) and timeout > 0)
    ):
        raise InvalidParameterError(
            f"{who}: timeout must be a float > 0 (seconds); got {timeout!r}."
        )
    return float(timeout)


# --------------------------------------------------------------------------------------------
# checksums and messages


def sha256_of(data: bytes | str | os.PathLike[str]) -> str:
    """The hex sha256 digest of bytes, or of a file's content when given a path."""
    if isinstance(data, bytes):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha256(Path(data).read_bytes()).hexdigest()


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DataError(f"bandit_envs.data.datasets: cannot read {path} ({exc}).") from None


def _how_to_get(ds: Dataset, cache_file: Path) -> str:
    folder_hint = (
        f"Or put {ds.filename} (sha256 {ds.sha256}) in a folder and set the environment "
        f"variable {DATA_ENV_VAR} to that folder."
    )
    if ds.source_format == "csv":
        return f"Download {ds.url} and save it as {cache_file}. {folder_hint}"
    option = "" if cache_file.parent == default_cache_dir() else f" --cache-dir {cache_file.parent}"
    return (
        f"Download {ds.url} (a zip holding {ds.archive_member}) on any machine with network, "
        f"then run `python -m bandit_envs.data.datasets fetch {ds.name} --from <the downloaded zip>"
        f"{option}`, which converts it into {cache_file}. {folder_hint}"
    )


def _origin(ds: Dataset) -> str:
    if ds.source_format == "csv":
        return f"from {ds.url}"
    return (
        f"converted from {ds.url} by `python -m bandit_envs.data.datasets fetch {ds.name}`, which "
        "puts it in the cache"
    )


def _verify(ds: Dataset, data: bytes, where: str, advice: str) -> None:
    actual = sha256_of(data)
    if actual != ds.sha256:
        raise DataError(
            f"bandit_envs.data.datasets: {where} fails the sha256 check of the {ds.name!r} data set "
            f"({ds.filename}): expected {ds.sha256}, got {actual}. {advice}"
        )


# --------------------------------------------------------------------------------------------
# download


def _fetch_url(url: str, out: IO[bytes], timeout: float) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        total = 0
        while chunk := response.read(1 << 16):
            total += len(chunk)
            if total > _MAX_DOWNLOAD_BYTES:
                raise DataError(
                    f"bandit_envs.data.datasets: {url} sent more than {_MAX_DOWNLOAD_BYTES} bytes; "
                    "this is not the expected data file."
                )
            out.write(chunk)


def _download(ds: Dataset, dest: Path, url: str, timeout: float) -> bytes:
    """Download ``url`` into ``dest`` (atomically, verified); return the verified bytes."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{ds.filename}.", suffix=".part", dir=dest.parent)
    except OSError as exc:
        raise DataError(
            f"bandit_envs.data.datasets: cannot write to the cache folder {dest.parent} ({exc}). "
            f"Pass another cache_dir, or set {DATA_ENV_VAR} to a folder holding {ds.filename}."
        ) from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                _fetch_url(url, out, timeout)
            except (OSError, http.client.HTTPException, ValueError) as exc:
                if isinstance(exc, DataError):
                    raise
                reason = getattr(exc, "reason", None) or exc
                if isinstance(exc, urllib.error.HTTPError):
                    reason = f"the server answered {exc.code} {exc.reason}"
                raise DataError(
                    f"bandit_envs.data.datasets: the {ds.name!r} data set ({ds.filename}) is not "
                    f"available locally and could not be downloaded from {url} ({reason}). "
                    + _how_to_get(ds, dest)
                ) from None
        data = tmp.read_bytes()
        if ds.source_format == "xlsx_zip":
            features, targets = _energy_from_archive(data, ds, url)
            try:
                data = format_energy_csv(features, targets)
            except InvalidParameterError as exc:
                raise DataError(
                    f"bandit_envs.data.datasets: the spreadsheet from {url} cannot be written as the "
                    f"canonical {ds.filename} ({exc}); nothing was saved."
                ) from None
        _verify(
            ds,
            data,
            f"the file downloaded from {url}",
            "Nothing was saved: the download was corrupted or the source has changed since this "
            "version of bandit_envs was made. Try again later; or get a copy of "
            f"{ds.filename} with the expected sha256, put it in a folder and set "
            f"{DATA_ENV_VAR} to that folder.",
        )
        if ds.source_format != "csv":
            tmp.write_bytes(data)
        os.replace(tmp, dest)
        return data
    finally:
        tmp.unlink(missing_ok=True)


# --------------------------------------------------------------------------------------------
# resolution


def _resolve(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None,
    url: str | None,
    download: bool,
    timeout: float,
    who: str,
) -> tuple[Path, bytes]:
    ds = get_dataset(name)
    url = _check_url(url, ds, who)
    timeout = _check_timeout(timeout, who)
    cache = _check_cache_dir(cache_dir, who)
    folder = _data_folder()
    if folder is not None:
        if not folder.is_dir():
            raise DataError(
                f"bandit_envs.data.datasets: {DATA_ENV_VAR} names {folder}, which is not a folder. "
                f"Set it to a folder holding {ds.filename}, or unset it to use the cache "
                f"({cache}) and download on first use."
            )
        path = folder / ds.filename
        if not path.is_file():
            raise DataError(
                f"bandit_envs.data.datasets: {ds.filename} is not in the folder {folder} named by "
                f"{DATA_ENV_VAR} (this mode never downloads). Put {ds.filename} there "
                f"({_origin(ds)}), or unset {DATA_ENV_VAR} to use the cache ({cache})."
            )
        data = _read(path)
        _verify(
            ds,
            data,
            str(path),
            f"Replace it with a good copy ({_origin(ds)}), or unset {DATA_ENV_VAR}.",
        )
        return path, data
    path = cache / ds.filename
    if path.is_file():
        data = _read(path)
        _verify(
            ds,
            data,
            f"the cached file {path}",
            "Delete it (it is downloaded again on next use) or run "
            f"`python -m bandit_envs.data.datasets fetch --force {ds.name}`.",
        )
        return path, data
    if not download:
        raise DataError(
            f"bandit_envs.data.datasets: the {ds.name!r} data set ({ds.filename}) is not available "
            f"locally (downloading disabled). " + _how_to_get(ds, path)
        )
    return path, _download(ds, path, url, timeout)


def dataset_path(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    download: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
) -> Path:
    """The verified local file of a data set, downloading it on first use (DESIGN §6).

    Order: the folder named by ``BANDIT_ENVS_DATA`` (if set; the file must be there, nothing is
    downloaded, and ``cache_dir`` and ``url`` are not used), then the cache folder, then a
    download from the source into the cache. The file is checked against its sha256 every time.

    Args:
        name: a key of :data:`DATASETS` (``"noc"``, ``"energy"``).
        cache_dir: the cache folder; default :func:`default_cache_dir`.
        url: download from here instead of the registry's source (a mirror, or a ``file://`` URL
            of a manually downloaded copy; for ``"energy"`` the zip or the .xlsx itself).
        download: if ``False``, never touch the network (a missing file is an error).
        timeout: network timeout in seconds.

    Raises:
        DataError: the file is missing and cannot be downloaded (the message says which file to
            put where), or a file fails its sha256 check, or the source cannot be converted.
        UnknownNameError: unknown ``name``.
        InvalidParameterError: a malformed argument.

    """
    path, _ = _resolve(
        name, cache_dir=cache_dir, url=url, download=download, timeout=timeout, who="dataset_path"
    )
    return path


def fetch(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    force: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> Path:
    """Download a data set into the cache (or verify the copy already there); return its path.

    Unlike :func:`dataset_path`, ``BANDIT_ENVS_DATA`` is ignored: this fills the cache. With
    ``force=True`` the file is downloaded again even when a verified copy is cached (the old copy
    is replaced only once the new one has passed its sha256 check).

    Raises:
        DataError: as in :func:`dataset_path`.

    """
    ds = get_dataset(name)
    src = _check_url(url, ds, "fetch")
    seconds = _check_timeout(timeout, "fetch")
    dest = _check_cache_dir(cache_dir, "fetch") / ds.filename
    if force or not dest.is_file():
        _download(ds, dest, src, seconds)
        return dest
    _verify(
        ds,
        _read(dest),
        f"the cached file {dest}",
        f"Run `python -m bandit_envs.data.datasets fetch --force {ds.name}` to replace it.",
    )
    return dest


# --------------------------------------------------------------------------------------------
# parsing the canonical files


def _parse_table(text: str, ds: Dataset, where: str) -> np.ndarray:
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise DataError(f"bandit_envs.data.datasets: {where} is empty.")
    header = tuple(field.strip() for field in lines[0].split(ds.delimiter))
    if header != ds.columns:
        raise DataError(
            f"bandit_envs.data.datasets: {where}, line 1: the header must be "
            f"{ds.delimiter.join(ds.columns)!r}; got {lines[0]!r}."
        )
    if len(lines) < 2:
        raise DataError(f"bandit_envs.data.datasets: {where} has a header but no data rows.")
    out = np.empty((len(lines) - 1, ds.n_columns), dtype=np.float64)
    for i, line in enumerate(lines[1:]):
        fields = line.split(ds.delimiter)
        if len(fields) != ds.n_columns:
            raise DataError(
                f"bandit_envs.data.datasets: {where}, line {i + 2}: expected {ds.n_columns} fields "
                f"separated by {ds.delimiter!r}; got {len(fields)} in {line!r}."
            )
        for j, field in enumerate(fields):
            if not _NUMBER.fullmatch(field.strip()):
                raise DataError(
                    f"bandit_envs.data.datasets: {where}, line {i + 2}, column {ds.columns[j]!r}: "
                    f"expected a finite decimal number; got {field!r}."
                )
            out[i, j] = float(field)
    if not np.all(np.isfinite(out)):
        i, j = np.argwhere(~np.isfinite(out))[0]
        raise DataError(
            f"bandit_envs.data.datasets: {where}, line {i + 2}, column {ds.columns[j]!r}: the value "
            "overflows a float64."
        )
    return out


def _split(ds: Dataset, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.ascontiguousarray(table[:, : ds.n_features]),
        np.ascontiguousarray(table[:, ds.n_features :]),
    )


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"bandit_envs.data.datasets: {where} is not UTF-8 text ({exc}).") from None


def read_noc_csv(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray]:
    """Parse a file in the format of ``noc_CM_log.csv`` (spec 000 §5.3), without checksum.

    The format: a ``;``-separated header ``width;complexity;fifo;multiplier;energy;inv_runtime``
    then one row of decimal numbers per design.

    Returns:
        ``(features, objectives)``: float64 arrays of shapes K×4 and K×2, raw as in the file.

    Raises:
        DataError: the file cannot be read or is malformed (the message names the file and line).

    """
    ds = DATASETS["noc"]
    data = _read(Path(path))
    return _split(ds, _parse_table(_decode(data, str(path)), ds, str(path)))


def read_energy_csv(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray]:
    """Parse a file in the format of ``energy_efficiency.csv`` (spec 000 §5.4), without checksum.

    The format: a ``,``-separated header (:data:`ENERGY_COLUMNS`) then one row per building.

    Returns:
        ``(features, targets)``: float64 arrays of shapes K×8 and K×2, raw as in the file.

    Raises:
        DataError: the file cannot be read or is malformed (the message names the file and line).

    """
    ds = DATASETS["energy"]
    data = _read(Path(path))
    return _split(ds, _parse_table(_decode(data, str(path)), ds, str(path)))


def _load(
    name: str,
    who: str,
    cache_dir: str | os.PathLike[str] | None,
    url: str | None,
    download: bool,
    timeout: float,
) -> tuple[np.ndarray, np.ndarray]:
    ds = DATASETS[name]
    path, data = _resolve(
        name, cache_dir=cache_dir, url=url, download=download, timeout=timeout, who=who
    )
    features, targets = _split(ds, _parse_table(_decode(data, str(path)), ds, str(path)))
    if features.shape != (ds.n_rows, ds.n_features):  # cannot happen once the sha256 matched
        raise DataError(
            f"bandit_envs.data.datasets: {path} has {features.shape[0]} rows; expected {ds.n_rows}."
        )
    return features, targets


def load_noc(
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    download: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[np.ndarray, np.ndarray]:
    """The NoC data set (Almer et al. 2011; spec 000 §5.3), raw as in ``noc_CM_log.csv``.

    Arguments as in :func:`dataset_path`.

    Returns:
        ``(features, objectives)``: float64 arrays of shapes 259×4 (width, complexity, fifo,
        multiplier) and 259×2 (energy, inv_runtime; log-scaled as published), not normalised.

    Raises:
        DataError: as in :func:`dataset_path`.

    """
    return _load("noc", "load_noc", cache_dir, url, download, timeout)


def load_energy(
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    download: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[np.ndarray, np.ndarray]:
    """The UCI Energy efficiency data set (Tsanas & Xifara 2012; spec 000 §5.4), raw.

    Arguments as in :func:`dataset_path` (``url`` points to the UCI zip, or to the .xlsx).

    Returns:
        ``(features, targets)``: float64 arrays of shapes 768×8 (:data:`ENERGY_COLUMNS` [:8]) and
        768×2 (heating_load, cooling_load), not normalised.

    Raises:
        DataError: as in :func:`dataset_path`.

    """
    return _load("energy", "load_energy", cache_dir, url, download, timeout)


# --------------------------------------------------------------------------------------------
# the canonical energy CSV


def format_energy_csv(features: np.ndarray, targets: np.ndarray) -> bytes:
    """Write the energy data in the project's canonical CSV format, as bytes (spec 000 §5.4).

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


def energy_from_xlsx(
    source: str | os.PathLike[str] | bytes | IO[bytes],
) -> tuple[np.ndarray, np.ndarray]:
    """Read the UCI spreadsheet ENB2012_data.xlsx into ``(features K×8, targets K×2)``.

    The first row must be the header ``X1..X8, Y1, Y2`` (or :data:`ENERGY_COLUMNS`); every other
    row ten numbers. Trailing empty rows and empty columns are dropped (spec 000 §5.4; the cleaning
    of the shared data README). :func:`format_energy_csv` then gives the canonical CSV.

    Raises:
        DataError: not an .xlsx, wrong header, an empty row inside the data, or a cell that is not
            a number (the message names the cell).

    """
    return _energy_from_sheet(source, _xlsx.label(source))


def _energy_from_sheet(
    source: str | os.PathLike[str] | bytes | IO[bytes], where: str
) -> tuple[np.ndarray, np.ndarray]:
    rows = _xlsx.read_rows(source, where)
    while rows and all(_xlsx.blank(c) for c in rows[-1]):
        rows.pop()
    if not rows:
        raise DataError(f"bandit_envs.data.datasets: {where}: the first worksheet is empty.")
    width = len(ENERGY_COLUMNS)
    header = tuple(str(c).strip().lower() if not _xlsx.blank(c) else "" for c in rows[0][:width])
    extra = [
        (r, c)
        for r, row in enumerate(rows)
        for c in range(width, len(row))
        if not _xlsx.blank(row[c])
    ]
    if header not in (_ENERGY_SHEET_HEADER, ENERGY_COLUMNS) or extra:
        raise DataError(
            f"bandit_envs.data.datasets: {where}: expected exactly the ten columns X1..X8, Y1, Y2 "
            f"(or {', '.join(ENERGY_COLUMNS)}); got the header {rows[0]!r}."
        )
    table = np.empty((len(rows) - 1, width), dtype=np.float64)
    for i, row in enumerate(rows[1:], start=2):
        cells = list(row[:width]) + [None] * (width - len(row))
        if all(_xlsx.blank(c) for c in cells):
            raise DataError(
                f"bandit_envs.data.datasets: {where}: row {i} is empty but data rows follow it."
            )
        for j, value in enumerate(cells):
            if isinstance(value, bool) or not isinstance(value, float) or not math.isfinite(value):
                ref = f"{chr(ord('A') + j)}{i}"
                raise DataError(
                    f"bandit_envs.data.datasets: {where}, cell {ref} ({ENERGY_COLUMNS[j]}): expected a "
                    f"finite number; got {value!r}."
                )
            table[i - 2, j] = value
    if len(table) == 0:
        raise DataError(f"bandit_envs.data.datasets: {where}: a header but no data rows.")
    return _split(DATASETS["energy"], table)


def _energy_from_archive(data: bytes, ds: Dataset, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Accept the UCI zip (holding the spreadsheet) or the spreadsheet itself."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = zf.namelist()
            if "xl/workbook.xml" in names or any(n.startswith("xl/worksheets/") for n in names):
                return _energy_from_sheet(data, where)
            wanted = (ds.archive_member or "").lower()
            members = [n for n in names if PurePosixPath(n).name.lower() == wanted]
            if not members:
                raise DataError(
                    f"bandit_envs.data.datasets: {where} holds no {ds.archive_member}; its members: "
                    f"{names}."
                )
            sheet = _xlsx.member(zf, members[0], where)
            return _energy_from_sheet(sheet, f"{members[0]} in {where}")
    except zipfile.BadZipFile as exc:
        raise DataError(
            f"bandit_envs.data.datasets: {where} is not a zip archive nor an .xlsx file ({exc})."
        ) from None


# --------------------------------------------------------------------------------------------
# command line


def _status(ds: Dataset, cache_dir: str | None) -> str:
    try:
        return f"ok: {dataset_path(ds.name, cache_dir=cache_dir, download=False)}"
    except DataError as exc:
        return f"not usable: {exc}"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bandit_envs.data.datasets {info,fetch} [name ...]``: inspect or fill the cache.

    Returns:
        The exit code: 0 on success, 1 if any data set could not be fetched or verified, 2 on a
        usage error.

    """
    parser = argparse.ArgumentParser(
        prog="python -m bandit_envs.data.datasets",
        description="The real data sets of bandit_envs: describe them, or download them.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="describe data sets and where they are found")
    get = sub.add_parser("fetch", help="download data sets into the cache and verify them")
    for p in (info, get):
        p.add_argument("names", nargs="*", metavar="name", help=f"one of {sorted(DATASETS)}")
        p.add_argument("--cache-dir", default=None, help="cache folder (default: user cache)")
    get.add_argument("--force", action="store_true", help="download again even if cached")
    get.add_argument("--url", default=None, help="download from this URL instead of the source")
    get.add_argument(
        "--from",
        dest="source",
        default=None,
        metavar="FILE",
        help="use a manually downloaded file (the UCI zip for energy)",
    )
    get.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds")
    args = parser.parse_args(argv)
    names = args.names or sorted(DATASETS)
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        parser.error(f"unknown data set(s) {unknown}; known: {sorted(DATASETS)}")
    if args.command == "info":
        env = os.environ.get(DATA_ENV_VAR) or "(not set)"
        print(f"{DATA_ENV_VAR}: {env}")
        print(f"cache folder: {args.cache_dir or default_cache_dir()}")
        for name in names:
            ds = DATASETS[name]
            print(f"\n{name}: {ds.filename} ({ds.n_rows} rows x {ds.n_columns} columns; {ds.spec})")
            print(f"  columns: {', '.join(ds.columns)} (first {ds.n_features} are features)")
            print(f"  source:  {ds.url}")
            print(f"  sha256:  {ds.sha256}")
            print(f"  cite:    {ds.citation}")
            print(f"  licence: {ds.licence}")
            print(f"  status:  {_status(ds, args.cache_dir)}")
        return 0
    if (args.source or args.url) and len(names) != 1:
        parser.error("--from and --url need exactly one data set name")
    if args.source and args.url:
        parser.error("give --from or --url, not both")
    url = args.url
    if args.source:
        source = Path(args.source).expanduser()
        if not source.is_file():
            parser.error(f"--from: no such file {source}")
        url = source.resolve().as_uri()
    status = 0
    for name in names:
        try:
            path = fetch(
                name, cache_dir=args.cache_dir, url=url, force=args.force, timeout=args.timeout
            )
        except (DataError, InvalidParameterError) as exc:
            print(str(exc), file=sys.stderr)
            status = 1
        else:
            print(f"{name}: {path} (sha256 verified)")
    return status


if __name__ == "__main__":
    sys.exit(main())
