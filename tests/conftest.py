"""Shared test setup: where the real data sets come from, and the helpers of the data tests.

The real data sets (never committed) are read from the folder named by ``BANDIT_ENVS_DATA``;
when it is unset, from a ``shared/data`` folder next to the checkout if there is one, else from
the library's user cache, which ``bandit-bench data fetch noc energy`` fills. Tests that need a
data set that is not there are skipped, naming the data set and how to get it; none downloads.

Also the helpers of the data tests (the loader's and ``bandit-bench data``'s): the real-data
folder, a skip marker when it is absent, spreadsheets written with openpyxl, and a local HTTP
server standing in for the network.
"""

from __future__ import annotations

import http.server
import io
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

# Seeded results are bit-for-bit reproducible for a given number of BLAS threads: a multithreaded
# BLAS sums in another order, and an adaptive agent's trajectory can then branch (a near-tie in a
# design solve). The recorded-result tests hold trajectories computed with one thread, which is
# also what sweep workers use (registry.sweeps). So the suite runs BLAS on one thread whatever
# the machine or the user's environment says: threadpoolctl limits the BLAS already loaded in
# this process (even if a plugin imported NumPy first), and the variables carry the same limit to
# subprocesses the tests start.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402  (loads BLAS, so that threadpoolctl sees it)
from threadpoolctl import threadpool_limits  # noqa: E402

threadpool_limits(limits=1)

import pytest  # noqa: E402

_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if "BANDIT_ENVS_DATA" not in os.environ and _SHARED_DATA.is_dir():
    os.environ["BANDIT_ENVS_DATA"] = str(_SHARED_DATA)


def skip_without_data(env_id: str) -> None:
    """Skip, naming what is missing, when ``env_id`` reads a data set not available locally."""
    from bandit_envs.data import dataset_path
    from bandit_envs.envs.registration import env_entries
    from bandit_envs.errors import DataError

    for entry in env_entries():
        if entry.id != env_id:
            continue
        for name in entry.datasets:
            try:
                dataset_path(name, download=False)
            except DataError as exc:
                pytest.skip(f"{env_id} needs the {name} data set, not available here: {exc}")


@pytest.fixture
def soare():
    """The default LinearBAI-Soare-v0 environment (unwrapped)."""
    import gymnasium as gym

    import bandit_envs  # noqa: F401

    return gym.make("LinearBAI-Soare-v0").unwrapped


# ------------------------------------------------------------------------------- data tests

from bandit_envs import data as _data  # noqa: E402  (after BANDIT_ENVS_DATA is set above)

_CACHE = _data.default_cache_dir()
if not os.environ.get(_data.DATA_ENV_VAR) and all(
    (_CACHE / d.filename).is_file() for d in _data.DATASETS.values()
):
    os.environ[_data.DATA_ENV_VAR] = str(_CACHE)  # `bandit-bench data fetch noc energy` was run

DATA_FOLDER = os.environ.get(_data.DATA_ENV_VAR, "")
"""The real-data folder the tests read (``BANDIT_ENVS_DATA``, or the filled cache), or ``""``."""


def _missing_data_reason() -> str:
    """Why the real-data tests skip: which files are missing, where, and how to get them."""
    where = DATA_FOLDER or f"the cache {_CACHE} ({_data.DATA_ENV_VAR} is unset)"
    missing = [
        d
        for d in _data.DATASETS.values()
        if not (DATA_FOLDER and Path(DATA_FOLDER, d.filename).is_file())
    ]
    if not missing:
        return ""
    names = " ".join(d.name for d in missing)
    files = "; ".join(f"{d.filename} (the {d.name!r} data set, from {d.url})" for d in missing)
    return (
        f"needs real data files not in {where}: {files}. Run `bandit-bench data fetch {names}` "
        f"to download them into the cache, which the tests use when {_data.DATA_ENV_VAR} is "
        f"unset, or set {_data.DATA_ENV_VAR} to a folder holding them"
    )


needs_data = pytest.mark.skipif(bool(_missing_data_reason()), reason=_missing_data_reason())


def shared_file(ds: _data.Dataset) -> Path:
    """The real file of data set ``ds`` in :data:`DATA_FOLDER`."""
    return Path(DATA_FOLDER) / ds.filename


def make_xlsx(rows) -> bytes:
    """An .xlsx written by openpyxl: one worksheet, one row per list (``None``: an empty cell)."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(list(row))
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def energy_xlsx_from_shared() -> bytes:
    """The whole energy data set as a spreadsheet laid out like UCI's ENB2012_data.xlsx."""
    x, y = _data.read_energy_csv(shared_file(_data.DATASETS["energy"]))
    header = [f"X{i}" for i in range(1, 9)] + ["Y1", "Y2"]
    # integral values as ints, as a spreadsheet stores them (orientation 2, not 2.0)
    rows = [header + [None]] + [
        [int(v) if v.is_integer() else v for v in row] for row in np.hstack([x, y]).tolist()
    ]
    rows += [[None] * 10, [None] * 10]  # trailing empty rows
    return make_xlsx(rows)


@pytest.fixture
def no_env(monkeypatch):
    """Unset BANDIT_ENVS_DATA (set above) so that the cache and download path is used."""
    monkeypatch.delenv(_data.DATA_ENV_VAR, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def data_server(tmp_path):
    """Serve tmp_path/served over HTTP on 127.0.0.1 and record every GET path.

    Yields ``root`` (the served folder), ``hits`` (the paths requested) and ``url(name)``.
    """
    root = tmp_path / "served"
    root.mkdir()
    hits: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def do_GET(self):
            hits.append(self.path)
            super().do_GET()

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    port = httpd.server_address[1]
    yield SimpleNamespace(root=root, hits=hits, url=lambda name: f"http://127.0.0.1:{port}/{name}")
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def assert_same(mine: Any, theirs: Any, where: str = "") -> None:
    """Equal values of the same types, recursively: arrays exactly (dtype included), object
    arrays, mappings, sequences and ``ProblemSpec`` fields item by item (for copies and for what
    vector envs return from worker processes)."""
    from bandit_envs import ProblemSpec

    if isinstance(mine, ProblemSpec):
        assert type(theirs) is type(mine), where
        assert_same(vars(mine), vars(theirs), where + ".problem")
    elif isinstance(mine, Mapping):
        assert isinstance(theirs, Mapping) and sorted(theirs) == sorted(mine), where
        for key in mine:
            assert_same(mine[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(mine, np.ndarray) and mine.dtype == object:
        assert isinstance(theirs, np.ndarray) and theirs.shape == mine.shape, where
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(mine, np.ndarray):
        assert isinstance(theirs, np.ndarray) and theirs.dtype == mine.dtype, where
        np.testing.assert_array_equal(theirs, mine, err_msg=where)
    elif isinstance(mine, (tuple, list)):
        assert type(theirs) is type(mine) and len(theirs) == len(mine), where
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert type(theirs) is type(mine) and theirs == mine, (where, mine, theirs)
