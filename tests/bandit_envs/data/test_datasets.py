"""The real-data loader: registry, BANDIT_ENVS_DATA, the cache, downloads, xlsx and CSV formats.

There is no network here: downloads (pooch) are served by a local HTTP server from a pytest tmp
folder. Tests that need the real files read them from BANDIT_ENVS_DATA (or the cache once
``bandit-bench data fetch noc energy`` has filled it, see tests/conftest.py) and skip, saying
why, when they are absent. No data file is in the repo. Spreadsheets are written with
openpyxl; the tests of the optional libraries make their import fail
(``sys.modules[name] = None``).
"""

from __future__ import annotations

import hashlib
import io
import shutil
import socket
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA_FOLDER, energy_xlsx_from_shared, make_xlsx, needs_data, shared_file

from bandit_envs import data as D
from bandit_envs.data import _cache, _formats
from bandit_envs.errors import DataError, InvalidParameterError, UnknownNameError

NOC, ENERGY = D.DATASETS["noc"], D.DATASETS["energy"]
SHEET_HEADER = ["X1", "X2", "X3", "X4", "X5", "X6", "X7", "X8", "Y1", "Y2"]


# ---------------------------------------------------------------------------------------------
# helpers (the others are in tests/conftest.py): zip archives like UCI's


def zipped(member: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(f"energy+efficiency/{member}", data)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# the registry


def test_registry_entries_are_consistent():
    assert set(D.DATASETS) == {"noc", "energy"}
    assert (NOC.filename, NOC.n_rows, NOC.n_columns) == ("noc_CM_log.csv", 259, 6)
    assert NOC.n_features == 4 and NOC.delimiter == ";" and ENERGY.delimiter == ","
    assert NOC.columns == ("width", "complexity", "fifo", "multiplier", "energy", "inv_runtime")
    assert (ENERGY.filename, ENERGY.n_rows, ENERGY.n_columns) == ("energy_efficiency.csv", 768, 10)
    assert ENERGY.target_names == ("heating_load", "cooling_load")
    assert ENERGY.licence == "CC BY 4.0" and ENERGY.archive_member == "ENB2012_data.xlsx"
    for ds in D.DATASETS.values():
        assert len(ds.sha256) == 64 and int(ds.sha256, 16) >= 0
        assert ds.url.startswith("https://") and ds.citation and ds.licence


def test_get_dataset_unknown_and_bad_type():
    assert D.get_dataset("noc") is NOC
    with pytest.raises(UnknownNameError, match=r"data set 'enrgy'.*Did you mean 'energy'\?"):
        D.get_dataset("enrgy")
    with pytest.raises(InvalidParameterError, match="name must be one of"):
        D.get_dataset(3)


def test_default_cache_dir(monkeypatch, tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    assert _cache._default_cache_dir("linux", env) == tmp_path / "bandit_envs"
    home = Path.home() / ".cache" / "bandit_envs"
    assert _cache._default_cache_dir("darwin", {}) == home
    # relative XDG paths are ignored (XDG base-directory specification)
    assert _cache._default_cache_dir("linux", {"XDG_CACHE_HOME": "rel"}) == home
    assert _cache._default_cache_dir("win32", {"LOCALAPPDATA": r"C:\Users\u\AppData\Local"}) == (
        Path(r"C:\Users\u\AppData\Local") / "bandit_envs"
    )
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if not sys.platform.startswith("win"):
        assert D.default_cache_dir() == tmp_path / "bandit_envs"


# ---------------------------------------------------------------------------------------------
# loading the shared files through BANDIT_ENVS_DATA


@needs_data
def test_load_noc_raw():
    x, y = D.load_noc()
    assert x.shape == (259, 4) and y.shape == (259, 2)
    assert x.dtype == y.dtype == np.float64 and x.flags.c_contiguous and y.flags.c_contiguous
    np.testing.assert_array_equal(x[0], [3.0, 1, 4.0, 1])
    np.testing.assert_array_equal(y[0], [7.83510297949, 4.33936050954])
    assert D.dataset_path("noc") == shared_file(NOC)


@needs_data
def test_load_energy_raw():
    x, y = D.load_energy()
    assert x.shape == (768, 8) and y.shape == (768, 2)
    np.testing.assert_array_equal(x[0], [0.98, 514.5, 294.0, 110.25, 7.0, 2, 0.0, 0])
    np.testing.assert_array_equal(y[0], [15.55, 21.33])
    # surface area = wall area + 2 · roof area, exactly, in this data
    np.testing.assert_allclose(x[:, 1], x[:, 2] + 2 * x[:, 3])


@needs_data
def test_canonical_writer_reproduces_the_shared_energy_file_byte_for_byte():
    x, y = D.read_energy_csv(shared_file(ENERGY))
    out = D.format_energy_csv(x, y)
    assert hashlib.sha256(out).hexdigest() == ENERGY.sha256
    assert out == shared_file(ENERGY).read_bytes()


def test_env_folder_missing_file_names_folder_and_file(monkeypatch, tmp_path, data_server):
    monkeypatch.setenv(D.DATA_ENV_VAR, str(tmp_path))
    with pytest.raises(DataError) as err:
        D.load_noc(url=data_server.url(NOC.filename), cache_dir=tmp_path / "cache")
    msg = str(err.value)
    assert f"noc_CM_log.csv is not in the folder {tmp_path} named by BANDIT_ENVS_DATA" in msg
    assert "never downloads" in msg and f"(from {NOC.url})" in msg
    assert data_server.hits == [] and not (tmp_path / "cache").exists()
    with pytest.raises(DataError, match=r"converted from .* by `bandit-bench data fetch energy`"):
        D.dataset_path("energy")


def test_env_folder_that_does_not_exist(monkeypatch, tmp_path):
    monkeypatch.setenv(D.DATA_ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(DataError, match=r"BANDIT_ENVS_DATA names .*nowhere, which is not a folder"):
        D.dataset_path("energy")


def test_env_folder_corrupted_file_fails_checksum(monkeypatch, tmp_path):
    (tmp_path / NOC.filename).write_text("width;complexity;fifo;multiplier;energy;inv_runtime\n")
    monkeypatch.setenv(D.DATA_ENV_VAR, str(tmp_path))
    actual = hashlib.sha256((tmp_path / NOC.filename).read_bytes()).hexdigest()
    with pytest.raises(DataError) as err:
        D.load_noc()
    msg = str(err.value)
    assert str(tmp_path / NOC.filename) in msg and "fails the sha256 check" in msg
    assert f"expected {NOC.sha256}, got {actual}" in msg and "Replace it" in msg


@needs_data
def test_env_folder_with_a_good_copy(monkeypatch, tmp_path):
    shutil.copy(shared_file(NOC), tmp_path / NOC.filename)
    monkeypatch.setenv(D.DATA_ENV_VAR, str(tmp_path))
    assert D.dataset_path("noc") == tmp_path / NOC.filename
    # the cache is not consulted in this mode (the energy file is only in the shared folder)
    with pytest.raises(DataError, match="energy_efficiency.csv is not in the folder"):
        D.dataset_path("energy", cache_dir=Path(DATA_FOLDER))


# ---------------------------------------------------------------------------------------------
# the cache and downloads (local HTTP server)


@needs_data
def test_download_then_cache_hit(no_env, tmp_path, data_server):
    shutil.copy(shared_file(NOC), data_server.root / NOC.filename)
    cache = tmp_path / "cache"
    x, y = D.load_noc(url=data_server.url(NOC.filename), cache_dir=cache)
    assert data_server.hits == [f"/{NOC.filename}"]
    assert sorted(p.name for p in cache.iterdir()) == [NOC.filename]
    assert (cache / NOC.filename).read_bytes() == shared_file(NOC).read_bytes()
    x2, y2 = D.load_noc(url=data_server.url(NOC.filename), cache_dir=cache)
    assert len(data_server.hits) == 1  # served from the cache, no second request
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(y, y2)
    assert D.dataset_path("noc", cache_dir=cache, download=False) == cache / NOC.filename


@needs_data
def test_download_checksum_mismatch_leaves_nothing(no_env, tmp_path, data_server):
    data = bytearray(shared_file(NOC).read_bytes())
    data[100] = ord("9") if data[100] != ord("9") else ord("8")
    (data_server.root / NOC.filename).write_bytes(bytes(data))
    cache = tmp_path / "cache"
    with pytest.raises(DataError) as err:
        D.load_noc(url=data_server.url(NOC.filename), cache_dir=cache)
    msg = str(err.value)
    actual = hashlib.sha256(bytes(data)).hexdigest()
    assert f"expected {NOC.sha256}, got {actual}" in msg
    assert "the file downloaded from http://127.0.0.1:" in msg and "Nothing was saved" in msg
    assert list(cache.iterdir()) == []


def test_server_down_gives_the_helpful_offline_error(no_env, tmp_path):
    with socket.socket() as s:  # a port on which nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cache = tmp_path / "cache"
    url = f"http://127.0.0.1:{port}/{NOC.filename}"
    with pytest.raises(DataError) as err:
        D.load_noc(url=url, cache_dir=cache)
    msg = str(err.value)
    assert f"could not be downloaded from {url}" in msg
    assert f"Download {NOC.url} and save it as {cache / NOC.filename}." in msg
    assert "set the environment variable BANDIT_ENVS_DATA to that folder" in msg
    assert list(cache.iterdir()) == []


def test_offline_energy_message_explains_the_conversion(no_env, tmp_path):
    with pytest.raises(DataError) as err:
        D.load_energy(cache_dir=tmp_path, download=False)
    msg = str(err.value)
    assert "downloading disabled" in msg and ENERGY.url in msg
    assert (
        f"`bandit-bench data fetch energy --from <the downloaded zip> --cache-dir {tmp_path}`"
        in msg
    )
    assert str(tmp_path / ENERGY.filename) in msg and ENERGY.sha256 in msg


def test_http_error_is_reported(no_env, tmp_path, data_server):
    with pytest.raises(DataError, match="the server answered 404"):
        D.dataset_path("noc", url=data_server.url("missing.csv"), cache_dir=tmp_path / "c")
    assert list((tmp_path / "c").iterdir()) == []


def test_download_timeout(no_env, tmp_path):
    with socket.socket() as s:  # accepts connections (backlog) but never answers
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        url = f"http://127.0.0.1:{s.getsockname()[1]}/x.csv"
        with pytest.raises(DataError, match="could not be downloaded"):
            D.dataset_path("noc", url=url, cache_dir=tmp_path, timeout=0.3)
    assert list(tmp_path.iterdir()) == []


@needs_data
def test_corrupted_cache_file_and_forced_fetch(no_env, tmp_path, data_server):
    shutil.copy(shared_file(NOC), data_server.root / NOC.filename)
    (tmp_path / NOC.filename).write_text("garbage")
    with pytest.raises(DataError) as err:
        D.dataset_path("noc", cache_dir=tmp_path, url=data_server.url(NOC.filename))
    msg = str(err.value)
    assert f"the cached file {tmp_path / NOC.filename}" in msg and "Delete it" in msg
    assert "`bandit-bench data fetch --force noc`" in msg and data_server.hits == []
    with pytest.raises(DataError, match="fetch --force noc"):
        D.fetch("noc", cache_dir=tmp_path, url=data_server.url(NOC.filename))
    path = D.fetch("noc", cache_dir=tmp_path, url=data_server.url(NOC.filename), force=True)
    assert path.read_bytes() == shared_file(NOC).read_bytes()
    assert D.fetch("noc", cache_dir=tmp_path) == path  # verified copy: no download
    assert len(data_server.hits) == 1


def test_empty_env_var_means_unset(monkeypatch, tmp_path):
    monkeypatch.setenv(D.DATA_ENV_VAR, "")
    with pytest.raises(DataError, match="downloading disabled"):
        D.dataset_path("noc", cache_dir=tmp_path, download=False)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"timeout": 0}, "timeout must be a float > 0"),
        ({"timeout": float("nan")}, "timeout must be a float > 0"),
        ({"url": "ftp://x/y"}, "url must be an http"),
        ({"url": 3}, "url must be an http"),
        ({"cache_dir": ""}, "cache_dir must be a non-empty path"),
    ],
)
def test_bad_arguments(no_env, kwargs, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        D.dataset_path("noc", download=False, **kwargs)


# ---------------------------------------------------------------------------------------------
# energy: the spreadsheet source, the xlsx reader, the canonical writer


@needs_data
def test_energy_download_from_a_uci_like_zip(no_env, tmp_path, data_server):
    (data_server.root / "energy+efficiency.zip").write_bytes(
        zipped("ENB2012_data.xlsx", energy_xlsx_from_shared())
    )
    cache = tmp_path / "cache"
    x, y = D.load_energy(url=data_server.url("energy+efficiency.zip"), cache_dir=cache)
    assert (cache / ENERGY.filename).read_bytes() == shared_file(ENERGY).read_bytes()
    assert sorted(p.name for p in cache.iterdir()) == [ENERGY.filename]
    x0, y0 = D.read_energy_csv(shared_file(ENERGY))
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)


@needs_data
def test_energy_from_a_changed_spreadsheet_is_refused(no_env, tmp_path, data_server):
    x, y = D.read_energy_csv(shared_file(ENERGY))
    rows = [SHEET_HEADER] + np.hstack([x, y])[:-1].tolist()  # one building missing
    (data_server.root / "e.zip").write_bytes(zipped("ENB2012_data.xlsx", make_xlsx(rows)))
    with pytest.raises(DataError, match=f"expected {ENERGY.sha256}"):
        D.load_energy(url=data_server.url("e.zip"), cache_dir=tmp_path / "c")
    assert list((tmp_path / "c").iterdir()) == []


def test_energy_zip_without_the_spreadsheet(no_env, tmp_path, data_server):
    (data_server.root / "e.zip").write_bytes(zipped("other.txt", b"hello"))
    with pytest.raises(DataError, match=r"holds no ENB2012_data.xlsx; its members: \["):
        D.load_energy(url=data_server.url("e.zip"), cache_dir=tmp_path / "c")
    bad = make_xlsx(TINY[:2] + [TINY[2][:2] + ["x"] + TINY[2][3:]])
    (data_server.root / "e.zip").write_bytes(zipped("ENB2012_data.xlsx", bad))
    pattern = r"energy\+efficiency/ENB2012_data.xlsx in http://127.0.0.1:\d+/e.zip, cell C3"
    with pytest.raises(DataError, match=pattern):
        D.load_energy(url=data_server.url("e.zip"), cache_dir=tmp_path / "c")
    (data_server.root / "e.zip").write_bytes(b"not a zip at all")
    with pytest.raises(DataError, match="is not a zip archive nor an .xlsx file"):
        D.load_energy(url=data_server.url("e.zip"), cache_dir=tmp_path / "c")
    assert list((tmp_path / "c").iterdir()) == []


TINY = [
    SHEET_HEADER,
    [0.98, 514.5, 294.0, 110.25, 7.0, 2, 0.0, 0, 15.55, 21.33],
    [0.62, 808.5, 367.5, 220.5, 3.5, 5, 0.4, 5, 16.640000000000001, 16.03],
    [0.9, 563.5, 318.5, 122.5, 7.0, 3, 0.1, 1, 29.03, 32.3],
    [None] * 10,
]


def test_energy_from_tiny_xlsx_and_canonical_csv():
    x, y = D.energy_from_xlsx(make_xlsx(TINY))
    assert x.shape == (3, 8) and y.shape == (3, 2)
    np.testing.assert_array_equal(x[1], [0.62, 808.5, 367.5, 220.5, 3.5, 5, 0.4, 5])
    assert D.format_energy_csv(x, y) == (
        ",".join(D.ENERGY_COLUMNS).encode() + b"\r\n"
        b"0.98,514.50,294.00,110.25,7.00,2,0.00,0,15.55,21.33\r\n"
        b"0.62,808.50,367.50,220.50,3.50,5,0.40,5,16.64,16.03\r\n"
        b"0.90,563.50,318.50,122.50,7.00,3,0.10,1,29.03,32.30\r\n"
    )
    # the canonical names are accepted as a header too
    x2, _ = D.energy_from_xlsx(make_xlsx([list(D.ENERGY_COLUMNS)] + TINY[1:]))
    np.testing.assert_array_equal(x, x2)


@pytest.mark.parametrize(
    ("rows", "pattern"),
    [
        ([SHEET_HEADER[:9]] + [r[:9] for r in TINY[1:3]], "expected exactly the ten columns"),
        ([SHEET_HEADER + ["extra"]] + TINY[1:3], "expected exactly the ten columns"),
        ([["a"] * 10] + TINY[1:3], r"got the header \['a'"),
        (TINY[:2] + [[None] * 10] + TINY[2:3], "row 3 is empty but data rows follow it"),
        (TINY[:2] + [TINY[2][:2] + ["8.5"] + TINY[2][3:]], r"cell C3 \(wall_area\): expected a"),
        (TINY[:2] + [TINY[2][:9]], r"cell J3 \(cooling_load\).*got None"),
        (TINY[:2] + [TINY[2][:4] + [True] + TINY[2][5:]], r"cell E3 \(overall_height\).*got True"),
        ([SHEET_HEADER], "a header but no data rows"),
        ([], "the first worksheet is empty"),
    ],
)
def test_energy_from_xlsx_errors(rows, pattern):
    with pytest.raises(DataError, match=pattern):
        D.energy_from_xlsx(make_xlsx(rows))


def test_format_energy_csv_refuses_what_it_cannot_write_exactly():
    x, y = D.energy_from_xlsx(make_xlsx(TINY))
    with pytest.raises(InvalidParameterError, match=r"K×8 and K×2 .* shapes \(3, 7\) and \(3, 2\)"):
        D.format_energy_csv(x[:, :7], y)
    with pytest.raises(InvalidParameterError, match="same K"):
        D.format_energy_csv(x, y[:2])
    bad = x.copy()
    bad[1, 5] = 2.5
    with pytest.raises(InvalidParameterError, match=r"row 1, column 'orientation' must be an int"):
        D.format_energy_csv(bad, y)
    bad = x.copy()
    bad[2, 0] = 0.985
    with pytest.raises(InvalidParameterError, match="'relative_compactness' must have at most two"):
        D.format_energy_csv(bad, y)
    bad = y.copy()
    bad[0, 1] = np.nan
    with pytest.raises(InvalidParameterError, match=r"row 0, column 'cooling_load' must be finite"):
        D.format_energy_csv(x, bad)
    neg = x.copy()
    neg[0, 6] = -0.0
    assert b",0.00,0,15.55" in D.format_energy_csv(neg, y).split(b"\r\n")[1]


# ---------------------------------------------------------------------------------------------
# parsing errors name the file and the line


NOC_HEAD = "width;complexity;fifo;multiplier;energy;inv_runtime\n"


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("", "is empty"),
        (NOC_HEAD, "has a header but no data rows"),
        (NOC_HEAD.replace(";", ",") + "1,2,3,4,5,6\n", "line 1: the header"),
        (NOC_HEAD + "1;2;3;4;5;6\n1;2;3;4;5\n", r"line 3: expected 6 fields separated by ';'; got"),
        (NOC_HEAD + "1;2;3;4;nan;6\n", r"line 2, column 'energy': expected a finite decimal"),
        (NOC_HEAD + "1;2;3;4;5;1_0\n", r"line 2, column 'inv_runtime'"),
        (NOC_HEAD + "1;2;3;4;5;1e400\n", "overflows a float64"),
        (NOC_HEAD + "1;2;3;4;5;6\n\n1;2;3;4;5;6\n", r"line 3: expected 6 fields"),
    ],
)
def test_read_noc_csv_errors(tmp_path, text, pattern):
    path = tmp_path / "noc.csv"
    path.write_text(text)
    with pytest.raises(DataError, match=pattern) as err:
        D.read_noc_csv(path)
    assert str(path) in str(err.value)


def test_read_csv_accepts_any_number_of_rows_and_a_bom(tmp_path):
    path = tmp_path / "noc.csv"
    path.write_bytes(("\ufeff" + NOC_HEAD + "1;2;3;4;5.5;-6e-1\r\n\r\n").encode())
    x, y = D.read_noc_csv(path)
    np.testing.assert_array_equal(x, [[1, 2, 3, 4]])
    np.testing.assert_array_equal(y, [[5.5, -0.6]])
    with pytest.raises(DataError, match="cannot read"):
        D.read_energy_csv(tmp_path / "absent.csv")
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(DataError, match="is not UTF-8 text"):
        D.read_noc_csv(path)


def test_energy_from_xlsx_accepts_a_path_and_a_file_object(tmp_path):
    path = tmp_path / "t.xlsx"
    path.write_bytes(make_xlsx(TINY))
    x, y = D.energy_from_xlsx(path)
    with open(path, "rb") as fh:
        x2, y2 = D.energy_from_xlsx(fh)
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(y, y2)
    assert x.shape == (3, 8)


def test_energy_from_xlsx_refuses_non_spreadsheets(tmp_path):
    pytest.importorskip("openpyxl")
    with pytest.raises(DataError, match=r"the .xlsx data is not an .xlsx file"):
        D.energy_from_xlsx(b"plain bytes")
    path = tmp_path / "z.xlsx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("readme.txt", "hi")
    with pytest.raises(DataError, match=r"z.xlsx is not an .xlsx file"):
        D.energy_from_xlsx(path)


def test_zip_members_are_size_capped(monkeypatch):
    data = make_xlsx(TINY)
    monkeypatch.setattr(_formats, "MAX_FILE_BYTES", 100)
    with pytest.raises(DataError, match="bytes uncompressed; refusing to read more than 100"):
        D.energy_from_xlsx(data)


# ---------------------------------------------------------------------------------------------
# fetch from a manually downloaded file, the status line, and the optional libraries


@needs_data
def test_fetch_from_a_file_and_from_a_file_url(no_env, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setitem(sys.modules, "pooch", None)  # a local copy needs no downloader
    path = D.fetch("noc", cache_dir=cache, from_file=shared_file(NOC))
    assert path == cache / NOC.filename and path.read_bytes() == shared_file(NOC).read_bytes()
    xlsx = tmp_path / "ENB2012_data.xlsx"  # the bare spreadsheet is accepted too
    xlsx.write_bytes(energy_xlsx_from_shared())
    assert D.fetch("energy", cache_dir=cache, from_file=xlsx) == cache / ENERGY.filename
    assert (cache / ENERGY.filename).read_bytes() == shared_file(ENERGY).read_bytes()
    zipped_path = tmp_path / "energy+efficiency.zip"
    zipped_path.write_bytes(zipped("ENB2012_data.xlsx", energy_xlsx_from_shared()))
    D.fetch("energy", cache_dir=cache, url=zipped_path.resolve().as_uri(), force=True)
    assert (cache / ENERGY.filename).read_bytes() == shared_file(ENERGY).read_bytes()
    assert sorted(p.name for p in cache.iterdir()) == [ENERGY.filename, NOC.filename]
    assert D.dataset_status("energy", cache_dir=cache) == f"ok: {cache / ENERGY.filename}"


def test_fetch_from_a_bad_file_saves_nothing(no_env, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("nope")
    cache = tmp_path / "c"
    with pytest.raises(DataError) as err:
        D.fetch("noc", cache_dir=cache, from_file=bad)
    msg = str(err.value)
    assert f"{bad} fails the sha256 check" in msg and "Nothing was saved" in msg
    assert not cache.exists()
    with pytest.raises(InvalidParameterError, match="from_file must be the path of an existing"):
        D.fetch("noc", cache_dir=cache, from_file=tmp_path / "absent.csv")
    with pytest.raises(InvalidParameterError, match="give url or from_file, not both"):
        D.fetch("noc", cache_dir=cache, from_file=bad, url="http://x/y")
    with pytest.raises(UnknownNameError, match="unknown data set 'nope'"):
        D.fetch("nope")


@needs_data
def test_dataset_status(no_env, tmp_path, monkeypatch):
    assert D.dataset_status("noc", cache_dir=tmp_path).startswith(
        "not usable: bandit_envs.data: the 'noc' data set (noc_CM_log.csv) is not available"
    )
    monkeypatch.setenv(D.DATA_ENV_VAR, DATA_FOLDER)
    assert D.dataset_status("noc") == f"ok: {shared_file(NOC)}"
    with pytest.raises(UnknownNameError):
        D.dataset_status("nope")


@needs_data
def test_present_files_need_neither_optional_library(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pooch", None)
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    x, _ = D.load_energy()
    assert x.shape == (768, 8)
    shutil.copy(shared_file(NOC), tmp_path / NOC.filename)
    monkeypatch.delenv(D.DATA_ENV_VAR)
    x, _ = D.load_noc(cache_dir=tmp_path)  # from the cache
    assert x.shape == (259, 4)


def test_a_download_without_pooch_names_the_extra(no_env, tmp_path, monkeypatch, data_server):
    monkeypatch.setitem(sys.modules, "pooch", None)
    with pytest.raises(DataError) as err:
        D.load_noc(url=data_server.url(NOC.filename), cache_dir=tmp_path / "c")
    msg = str(err.value)
    assert "downloading the 'noc' data set (noc_CM_log.csv) needs the pooch package" in msg
    assert 'pip install "bandit-envs[data]"' in msg and f"Download {NOC.url}" in msg
    assert data_server.hits == [] and not (tmp_path / "c").exists()


def test_a_conversion_without_openpyxl_names_the_extra(no_env, tmp_path, monkeypatch, data_server):
    (data_server.root / "e.zip").write_bytes(zipped("ENB2012_data.xlsx", b"not read"))
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(DataError, match=r'openpyxl package.*pip install "bandit-envs\[data\]"'):
        D.load_energy(url=data_server.url("e.zip"), cache_dir=tmp_path / "c")
    assert list((tmp_path / "c").iterdir()) == []


@needs_data
def test_downloads_are_size_capped(no_env, tmp_path, data_server, monkeypatch):
    shutil.copy(shared_file(NOC), data_server.root / NOC.filename)
    monkeypatch.setattr(_cache, "MAX_FILE_BYTES", 1000)
    with pytest.raises(DataError, match="sent more than 1000 bytes; this is not the expected"):
        D.load_noc(url=data_server.url(NOC.filename), cache_dir=tmp_path / "c")
    assert list((tmp_path / "c").iterdir()) == []
