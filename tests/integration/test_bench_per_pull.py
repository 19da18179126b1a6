"""`bench_per_pull.py --quick` runs and prints the whole table (its shape, never timings)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPT = BENCHMARKS / "bench_per_pull.py"
sys.path.insert(0, str(BENCHMARKS))
import bench_per_pull  # noqa: E402

#: lines each row prints: two for the sequential and episode rows (steady / amortised, per episode
#: / per pull), two for the XY design (cold / warm), one for the env pull and for RAGE
LINES = {name: 2 for name in bench_per_pull.ROWS} | {"env-pull": 1, "rage": 1}
VALUE = re.compile(r"^[\d,.e+-]+ (µs|s)$")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300
    )


def _table(stdout: str) -> list[list[str]]:
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in rows]


def test_quick_markdown_table_has_every_row_with_numbers():
    out = _run("--quick", "--markdown")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("multiply-add rate")
    table = _table(out.stdout)
    assert table[0] == list(bench_per_pull.HEAD)
    body = table[1:]
    assert all(len(cells) == len(bench_per_pull.HEAD) for cells in body)
    counts = {name: sum(cells[0] == name for cells in body) for name in bench_per_pull.ROWS}
    assert counts == LINES
    for cells in body:
        row, cpu, wall, floor, ratio = cells[0], cells[3], cells[4], cells[5], cells[6]
        for value in (cpu, wall, floor):
            assert VALUE.match(value), (row, value)
            assert float(value.split()[0].replace(",", "")) > 0, (row, value)
        assert ratio.endswith("×") and float(ratio[:-1].replace(",", "")) > 0, (row, ratio)
    # the paired reference models: LinGapE (Xu et al.'s script) and the greedy XY step
    with_reference = {cells[0] for cells in body if cells[8] != "—"}
    assert with_reference == {"lingape-greedy", "lingape-ratio", "lingape-soare", "xy-allocation"}


def test_rows_select_and_plain_output():
    out = _run("--quick", "--rows", "env-pull,xy-design")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].split("  ")[0] == "row"
    assert [line.split("  ")[0] for line in lines[2:]] == ["env-pull", "xy-design", "xy-design"]


def test_paired_run_puts_baseline_beside_ours(tmp_path):
    # the baseline is this checkout too: the same lines, side by side, with a speed-up column
    root = str(BENCHMARKS.parent)
    out = _run("--quick", "--markdown", "--rows", "env-pull,xy-design", "--baseline", root)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == f"this: {root}; baseline: {root}"
    table = _table(out.stdout)
    assert table[0] == list(bench_per_pull.PAIRED_HEAD)
    assert [cells[0] for cells in table[1:]] == ["env-pull", "xy-design", "xy-design"]
    for cells in table[1:]:
        assert VALUE.match(cells[3]) and VALUE.match(cells[4]), cells
        assert cells[5].endswith("×") and float(cells[5][:-1]) > 0, cells


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rows", "lingape,env-pull"], "unknown rows ['lingape']; choose among env-pull"),
        (["--K", "1"], "--K must be at least 2; got 1"),
    ],
)
def test_bad_options_are_refused_by_name(args, message):
    out = _run("--quick", *args)
    assert out.returncode == 2
    assert message in out.stderr


def test_code_that_is_not_a_checkout_is_refused(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    out = _run("--quick", "--code", str(tmp_path))
    assert out.returncode == 1
    assert f"--code {tmp_path} is not a checkout of the library (no bandit_envs, registry" in (
        out.stderr
    )
