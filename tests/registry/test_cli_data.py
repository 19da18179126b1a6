"""``bandit-bench data info|fetch``: describe the real data sets, fill the cache, exit codes.

There is no network here: ``--url`` downloads are served by a local HTTP server from a pytest
tmp folder. Tests that need the real files read them from BANDIT_ENVS_DATA (or the cache once
``bandit-bench data fetch noc energy`` has filled it, see tests/conftest.py) and skip, saying
why, when they are absent.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import DATA_FOLDER, energy_xlsx_from_shared, needs_data, shared_file

import bandit_envs.data as D
from registry.audit import audit_cells
from registry.catalogue import compatibility_matrix
from registry.cli import main

NOC, ENERGY = D.DATASETS["noc"], D.DATASETS["energy"]


# ---------------------------------------------------------------------------------- info


@needs_data
def test_info_names_the_file_its_facts_and_where_it_is_found(capsys):
    assert main(["data", "info", "noc"]) == 0
    out = capsys.readouterr().out
    assert f"{D.DATA_ENV_VAR}: {DATA_FOLDER}" in out
    assert f"noc: {NOC.filename} ({NOC.n_rows} rows x {NOC.n_columns} columns;" in out
    assert f"status:  ok: {shared_file(NOC)}" in out and NOC.sha256 in out and NOC.url in out
    assert ENERGY.filename not in out


def test_info_without_the_files_says_why_they_are_not_usable(no_env, tmp_path, capsys):
    assert main(["data", "info", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{D.DATA_ENV_VAR}: (not set)" in out and f"cache folder: {tmp_path}" in out
    assert out.count("status:  not usable:") == 2 and "downloading disabled" in out
    assert list(tmp_path.iterdir()) == []  # info never downloads


def test_runs_as_a_script(tmp_path):
    env = {**os.environ, D.DATA_ENV_VAR: str(tmp_path), "PYTHONWARNINGS": "error::RuntimeWarning"}
    proc = subprocess.run(
        [sys.executable, "-m", "registry.cli", "data", "info", "noc"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,  # a hang guard only
    )
    assert proc.returncode == 0, proc.stderr
    assert f"{NOC.filename} is not in the folder {tmp_path}" in proc.stdout


# ---------------------------------------------------------------------------------- fetch


@needs_data
def test_fetch_from_a_url_and_from_a_file(no_env, tmp_path, data_server, capsys):
    root, url = data_server.root, data_server.url
    (root / NOC.filename).write_bytes(shared_file(NOC).read_bytes())
    cache = tmp_path / "cache"
    argv = ["data", "fetch", "noc", "--url", url(NOC.filename), "--cache-dir", str(cache)]
    assert main(argv) == 0
    assert f"noc: {cache / NOC.filename} (sha256 verified)" in capsys.readouterr().out
    assert (cache / NOC.filename).read_bytes() == shared_file(NOC).read_bytes()
    sheet = tmp_path / "ENB2012_data.xlsx"  # the bare spreadsheet is accepted, as is the zip
    sheet.write_bytes(energy_xlsx_from_shared())
    assert main(["data", "fetch", "energy", "--from", str(sheet), "--cache-dir", str(cache)]) == 0
    assert (cache / ENERGY.filename).read_bytes() == shared_file(ENERGY).read_bytes()
    assert main(["data", "info", "--cache-dir", str(cache)]) == 0
    assert capsys.readouterr().out.count("status:  ok:") == 2
    # a verified cached copy is not downloaded again; --force downloads it again
    (root / NOC.filename).unlink()
    assert main(["data", "fetch", "noc", "--cache-dir", str(cache)]) == 0
    argv = ["data", "fetch", "noc", "--force", "--url", url(NOC.filename), "--cache-dir"]
    assert main([*argv, str(cache)]) == 1
    assert "the server answered 404" in capsys.readouterr().err
    assert (cache / NOC.filename).read_bytes() == shared_file(NOC).read_bytes()  # kept


def test_a_file_that_fails_its_check_exits_1(no_env, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("nope")
    cache = tmp_path / "c"
    assert main(["data", "fetch", "noc", "--from", str(bad), "--cache-dir", str(cache)]) == 1
    assert "fails the sha256 check" in capsys.readouterr().err
    assert not (cache / NOC.filename).exists()
    argv = ["data", "fetch", "noc", "--from", str(bad), "--timeout", "0", "--cache-dir"]
    assert main([*argv, str(cache)]) == 1
    assert "timeout must be a float > 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["data"], "the following arguments are required: action"),
        (["data", "fetch", "nope"], "unknown data set(s) ['nope']; known: ['energy', 'noc']"),
        (["data", "info", "x"], "unknown data set(s) ['x']"),
        (["data", "fetch", "--url", "http://x/y"], "--from and --url need exactly one data set"),
        (["data", "fetch", "noc", "--url", "http://x/y", "--from", "f"], "give --from or --url"),
        (["data", "fetch", "noc", "--from", "/no/such/file"], "--from: no such file"),
        (["data", "fetch", "--timeout", "soon"], "invalid float value: 'soon'"),
    ],
)
def test_usage_errors_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


# ------------------------------------------------------------ hints elsewhere name the command


def test_missing_data_hints_name_bandit_bench_data_fetch(monkeypatch, tmp_path):
    monkeypatch.setenv(D.DATA_ENV_VAR, str(tmp_path))  # an empty data folder: nothing is usable
    _, skipped = audit_cells(["GEGE"], ["noc-lownoise"])
    assert skipped == [
        "noc-lownoise: needs the noc data set (set BANDIT_ENVS_DATA, or run "
        "`bandit-bench data fetch noc`)"
    ]
    ok, why = compatibility_matrix()[("GEGE", "LinearPSI-Energy-v0")]
    assert not ok
    assert why == (
        "not checked: needs the energy data set (set BANDIT_ENVS_DATA, or run "
        "`bandit-bench data fetch energy`)"
    )
