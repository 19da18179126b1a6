"""Where the data files are found, and how they get into the cache (pooch downloads them).

Reading a file already present (in the folder named by ``BANDIT_ENVS_DATA``, or in the cache)
needs only the standard library: its sha256 is checked and it is read. Downloading needs pooch
(the ``data`` extra): pooch fetches the source over HTTP and, for a source that is the data file
itself, checks its sha256 before moving it into place. The energy source is a zip of a
spreadsheet whose own hash is not published, so what is checked there is the canonical CSV made
from it. Every file is written into a temporary folder beside its destination and renamed into
place only once verified, so no partial or unverified file is ever left in the cache.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import os
import sys
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from bandit_envs.data._formats import (
    MAX_FILE_BYTES,
    energy_from_archive,
    format_energy_csv,
    read_file,
    sha256_of,
)
from bandit_envs.data._registry import (
    DATA_ENV_VAR,
    DEFAULT_TIMEOUT,
    WHO,
    Dataset,
    get_dataset,
    optional_library,
)
from bandit_envs.errors import DataError, InvalidParameterError

__all__ = ["dataset_path", "dataset_status", "default_cache_dir", "fetch", "resolve"]

_USER_AGENT = "bandit-envs (https://pypi.org/project/bandit-envs/)"
_FETCH = "bandit-bench data fetch"


# --------------------------------------------------------------------------------------------
# locations and arguments


def _default_cache_dir(platform: str, environ: Mapping[str, str]) -> Path:
    if platform.startswith("win"):
        base = environ.get("LOCALAPPDATA")
        root = Path(base) if base else Path.home() / "AppData" / "Local"
        return root / "bandit_envs"
    xdg = environ.get("XDG_CACHE_HOME", "")
    # the XDG base-directory specification says relative paths must be ignored
    root = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return root / "bandit_envs"


def default_cache_dir() -> Path:
    r"""The user cache directory of the data sets.

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


def _check_from_file(from_file: str | os.PathLike[str], who: str) -> Path:
    if not isinstance(from_file, (str, os.PathLike)) or not Path(from_file).is_file():
        raise InvalidParameterError(
            f"{who}: from_file must be the path of an existing file; got {from_file!r}."
        )
    return Path(from_file).expanduser()


# --------------------------------------------------------------------------------------------
# messages and checks


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
        f"then run `{_FETCH} {ds.name} --from <the downloaded zip>{option}`, which converts it "
        f"into {cache_file}. {folder_hint}"
    )


def _origin(ds: Dataset) -> str:
    if ds.source_format == "csv":
        return f"from {ds.url}"
    return f"converted from {ds.url} by `{_FETCH} {ds.name}`, which puts it in the cache"


def _mismatch(ds: Dataset, where: str, actual: str, advice: str) -> DataError:
    return DataError(
        f"{WHO}: {where} fails the sha256 check of the {ds.name!r} data set ({ds.filename}): "
        f"expected {ds.sha256}, got {actual}. {advice}"
    )


def _verify(ds: Dataset, data: bytes, where: str, advice: str) -> None:
    actual = sha256_of(data)
    if actual != ds.sha256:
        raise _mismatch(ds, where, actual, advice)


_NOTHING_SAVED = (
    "Nothing was saved: the download was corrupted or the source has changed since this "
    "version of bandit_envs was made. Try again later; or get a copy of {filename} with the "
    "expected sha256, put it in a folder and set {var} to that folder."
)


def _canonical(ds: Dataset, data: bytes, where: str) -> bytes:
    """The canonical file made from a source's bytes (the energy CSV from the UCI zip)."""
    if ds.source_format == "csv":
        return data
    features, targets = energy_from_archive(data, ds, where)
    try:
        return format_energy_csv(features, targets)
    except InvalidParameterError as exc:
        raise DataError(
            f"{WHO}: the spreadsheet from {where} cannot be written as the canonical "
            f"{ds.filename} ({exc}); nothing was saved."
        ) from None


# --------------------------------------------------------------------------------------------
# filling the cache


class _Capped:
    """A binary file that refuses more than :data:`MAX_FILE_BYTES` and hashes what it writes."""

    def __init__(self, out: IO[bytes], url: str) -> None:
        self._out = out
        self._url = url
        self.written = 0
        self.digest = hashlib.sha256()

    def write(self, chunk: bytes) -> int:
        self.written += len(chunk)
        if self.written > MAX_FILE_BYTES:
            raise DataError(
                f"{WHO}: {self._url} sent more than {MAX_FILE_BYTES} bytes; this is not the "
                "expected data file."
            )
        self.digest.update(chunk)
        return self._out.write(chunk)

    def flush(self) -> None:
        self._out.flush()


class _Downloader:
    """pooch's HTTP downloader (timeout, user agent), writing through :class:`_Capped`."""

    def __init__(self, pooch: Any, timeout: float) -> None:
        self._http = pooch.HTTPDownloader(
            progressbar=False, timeout=timeout, headers={"User-Agent": _USER_AGENT}
        )
        self.sink: _Capped | None = None

    def __call__(self, url: str, output_file: str, pooch: Any, check_only: bool = False) -> None:
        with open(output_file, "wb") as out:
            self.sink = _Capped(out, url)
            self._http(url, self.sink, pooch)


def _write_into(tmp: Path, dest: Path, data: bytes) -> None:
    part = tmp / dest.name
    part.write_bytes(data)
    os.replace(part, dest)


def _temporary_folder(ds: Dataset, dest: Path) -> tempfile.TemporaryDirectory[str]:
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        return tempfile.TemporaryDirectory(prefix=f".{ds.filename}.", dir=dest.parent)
    except OSError as exc:
        raise DataError(
            f"{WHO}: cannot write to the cache folder {dest.parent} ({exc}). "
            f"Pass another cache_dir, or set {DATA_ENV_VAR} to a folder holding {ds.filename}."
        ) from exc


def _download(ds: Dataset, dest: Path, url: str, timeout: float) -> bytes:
    """Download ``url`` into ``dest`` with pooch (atomically, verified); the verified bytes."""
    try:
        pooch = optional_library("pooch", f"downloading the {ds.name!r} data set ({ds.filename})")
    except DataError as exc:
        raise DataError(f"{exc} {_how_to_get(ds, dest)}") from None
    downloader = _Downloader(pooch, timeout)
    # the canonical file itself: pooch checks its hash; the energy zip's hash is not known
    known = f"sha256:{ds.sha256}" if ds.source_format == "csv" else None
    source_name = ds.filename if ds.source_format == "csv" else "source"
    with _temporary_folder(ds, dest) as tmp:
        try:
            got = pooch.retrieve(
                url, known_hash=known, fname=source_name, path=tmp, downloader=downloader
            )
        except DataError:
            raise
        except OSError as exc:  # requests' errors are OSErrors
            response: Any = getattr(exc, "response", None)
            reason: object = exc
            if getattr(response, "status_code", None) is not None:
                reason = f"the server answered {response.status_code} {response.reason}"
            raise DataError(
                f"{WHO}: the {ds.name!r} data set ({ds.filename}) is not available locally and "
                f"could not be downloaded from {url} ({reason}). " + _how_to_get(ds, dest)
            ) from None
        except ValueError:  # pooch's hash check failed (it has deleted the download)
            actual = downloader.sink.digest.hexdigest() if downloader.sink else "nothing"
            where = f"the file downloaded from {url}"
            advice = _NOTHING_SAVED.format(filename=ds.filename, var=DATA_ENV_VAR)
            raise _mismatch(ds, where, actual, advice) from None
        data = read_file(Path(got))
        if ds.source_format != "csv":
            data = _canonical(ds, data, url)
            _verify(
                ds,
                data,
                f"the file downloaded from {url}",
                _NOTHING_SAVED.format(filename=ds.filename, var=DATA_ENV_VAR),
            )
        _write_into(Path(tmp), dest, data)
    return data


def _import(ds: Dataset, dest: Path, source: Path) -> bytes:
    """Copy a manually downloaded source into ``dest`` (converted, verified, atomically)."""
    try:
        size = source.stat().st_size
    except OSError as exc:
        raise DataError(f"{WHO}: cannot read {source} ({exc}).") from None
    if size > MAX_FILE_BYTES:
        raise DataError(
            f"{WHO}: {source} is {size} bytes; this is not the expected data file (at most "
            f"{MAX_FILE_BYTES} bytes)."
        )
    data = _canonical(ds, read_file(source), str(source))
    _verify(
        ds,
        data,
        str(source),
        f"Nothing was saved: this is not the file this version of bandit_envs expects. Get "
        f"{ds.url} again, or a copy of {ds.filename} with the expected sha256.",
    )
    with _temporary_folder(ds, dest) as tmp:
        _write_into(Path(tmp), dest, data)
    return data


def _obtain(ds: Dataset, dest: Path, url: str, timeout: float) -> bytes:
    """Fill ``dest`` from ``url``: a download, or a local copy for a ``file://`` URL."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        return _import(ds, dest, Path(urllib.request.url2pathname(parts.path)))
    return _download(ds, dest, url, timeout)


# --------------------------------------------------------------------------------------------
# resolution


def resolve(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None,
    url: str | None,
    download: bool,
    timeout: float,
    who: str,
) -> tuple[Path, bytes]:
    """The verified file of a data set and its bytes (the order of :func:`dataset_path`)."""
    ds = get_dataset(name)
    url = _check_url(url, ds, who)
    timeout = _check_timeout(timeout, who)
    cache = _check_cache_dir(cache_dir, who)
    folder = _data_folder()
    if folder is not None:
        if not folder.is_dir():
            raise DataError(
                f"{WHO}: {DATA_ENV_VAR} names {folder}, which is not a folder. Set it to a folder "
                f"holding {ds.filename}, or unset it to use the cache ({cache}) and download on "
                "first use."
            )
        path = folder / ds.filename
        if not path.is_file():
            raise DataError(
                f"{WHO}: {ds.filename} is not in the folder {folder} named by {DATA_ENV_VAR} "
                f"(this mode never downloads). Put {ds.filename} there ({_origin(ds)}), or "
                f"unset {DATA_ENV_VAR} to use the cache ({cache})."
            )
        data = read_file(path)
        _verify(
            ds,
            data,
            str(path),
            f"Replace it with a good copy ({_origin(ds)}), or unset {DATA_ENV_VAR}.",
        )
        return path, data
    path = cache / ds.filename
    if path.is_file():
        data = read_file(path)
        _verify(
            ds,
            data,
            f"the cached file {path}",
            f"Delete it (it is downloaded again on next use) or run `{_FETCH} --force {ds.name}`.",
        )
        return path, data
    if not download:
        raise DataError(
            f"{WHO}: the {ds.name!r} data set ({ds.filename}) is not available locally "
            f"(downloading disabled). " + _how_to_get(ds, path)
        )
    return path, _obtain(ds, path, url, timeout)


def dataset_path(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    download: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
) -> Path:
    """The verified local file of a data set, downloading it on first use.

    Order: the folder named by ``BANDIT_ENVS_DATA`` (if set; the file must be there, nothing is
    downloaded, and ``cache_dir`` and ``url`` are not used), then the cache folder, then a
    download from the source into the cache (needs pooch, the ``data`` extra; the energy
    spreadsheet also needs openpyxl). The file is checked against its sha256 every time.

    Args:
        name: a key of :data:`DATASETS` (``"noc"``, ``"energy"``).
        cache_dir: the cache folder; default :func:`default_cache_dir`.
        url: download from here instead of the registry's source (a mirror, or a ``file://`` URL
            of a manually downloaded copy; for ``"energy"`` the zip or the .xlsx itself).
        download: if ``False``, never touch the network (a missing file is an error).
        timeout: network timeout in seconds.

    Raises:
        DataError: the file is missing and cannot be downloaded (the message says which file to
            put where), or a file fails its sha256 check, or the source cannot be converted, or
            a library of the ``data`` extra that a download needs is missing.
        UnknownNameError: unknown ``name``.
        InvalidParameterError: a malformed argument.

    """
    path, _ = resolve(
        name, cache_dir=cache_dir, url=url, download=download, timeout=timeout, who="dataset_path"
    )
    return path


def fetch(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    from_file: str | os.PathLike[str] | None = None,
    force: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> Path:
    """Put a data set into the cache (or verify the copy already there); return its path.

    Unlike :func:`dataset_path`, ``BANDIT_ENVS_DATA`` is ignored: this fills the cache. With
    ``force=True`` the file is fetched again even when a verified copy is cached (the old copy
    is replaced only once the new one has passed its sha256 check).

    Args:
        name: a key of :data:`DATASETS`.
        cache_dir: the cache folder; default :func:`default_cache_dir`.
        url: download from here instead of the registry's source (``http(s)://`` or
            ``file://``).
        from_file: a manually downloaded source (the file itself; for ``"energy"`` the UCI zip
            or the .xlsx), copied into the cache once converted and verified; no network, no
            pooch. Give ``url`` or ``from_file``, not both.
        force: fetch again even if a verified copy is cached.
        timeout: network timeout in seconds.

    Raises:
        DataError: as in :func:`dataset_path`.
        InvalidParameterError: a malformed argument, or both ``url`` and ``from_file``.

    """
    ds = get_dataset(name)
    src = _check_url(url, ds, "fetch")
    seconds = _check_timeout(timeout, "fetch")
    dest = _check_cache_dir(cache_dir, "fetch") / ds.filename
    source = None if from_file is None else _check_from_file(from_file, "fetch")
    if source is not None and url is not None:
        raise InvalidParameterError("fetch: give url or from_file, not both.")
    if force or not dest.is_file():
        if source is not None:
            _import(ds, dest, source)
        else:
            _obtain(ds, dest, src, seconds)
        return dest
    _verify(
        ds,
        read_file(dest),
        f"the cached file {dest}",
        f"Run `{_FETCH} --force {ds.name}` to replace it.",
    )
    return dest


def dataset_status(name: str, cache_dir: str | os.PathLike[str] | None = None) -> str:
    """One line saying whether a data set is usable without network, and where, or why not.

    ``"ok: <path>"`` when :func:`dataset_path` finds a verified file without downloading, else
    ``"not usable: <the reason, with what to do>"``.

    Raises:
        UnknownNameError: unknown ``name``.
        InvalidParameterError: a malformed ``cache_dir``.

    """
    try:
        return f"ok: {dataset_path(name, cache_dir=cache_dir, download=False)}"
    except DataError as exc:
        return f"not usable: {exc}"
