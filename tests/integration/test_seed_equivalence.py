"""`seed_equivalence.py`: its paired statistics, and one real run of a checkout against itself."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "seed_equivalence.py"
sys.path.insert(0, str(SCRIPT.parent))
import seed_equivalence  # noqa: E402


def _records(samples, wrong=()):
    return [
        {"seed": s, "samples": n, "correct": s not in wrong, "answer": [0], "pulls": [n]}
        for s, n in enumerate(samples)
    ]


def test_identical_records_are_identical():
    recs = _records(range(100, 200))
    s = seed_equivalence.compare(recs, [dict(r) for r in recs], level=0.01)
    assert s["identical"] == 100 and s["verdict"] == "identical"
    assert s["wilcoxon_p"] == 1.0 and s["mcnemar_p"] == 1.0


def test_noise_is_unchanged_and_a_shift_is_changed():
    base = [100 + 7 * (s % 13) for s in range(400)]
    jitter = [n + (1 if s % 2 else -1) for s, n in enumerate(base)]  # ± 1, no trend
    shifted = [n + 5 + (s % 3) for s, n in enumerate(base)]  # +5..+7 on every seed
    same = seed_equivalence.compare(_records(base), _records(jitter), level=0.01)
    assert same["identical"] == 0 and same["verdict"] == "statistically unchanged"
    moved = seed_equivalence.compare(_records(base), _records(shifted), level=0.01)
    assert moved["verdict"] == "CHANGED" and moved["ci95"][0] > 4


def test_more_errors_after_is_changed():
    base = _records([100] * 300)
    worse = _records([100] * 300, wrong=set(range(0, 300, 15)))  # 20 new wrong answers
    s = seed_equivalence.compare(base, worse, level=0.01)
    assert (s["errors_before"], s["errors_after"]) == (0, 20)
    assert s["mcnemar_p"] < 1e-5 and s["verdict"] == "CHANGED"


def test_a_checkout_against_itself_is_identical():
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--before", str(ROOT), "--after", str(ROOT)]
        + ["--env", "LinearBAI-Soare-v0", "--agent", "RAGE", "--seeds", "4"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert (
        "identical records      4/4" in out.stdout
        and "verdict                identical" in out.stdout
    )


def test_keyword_values_parse_json_and_read_files(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[[1.0, 0.0], [0.0, 1.0]]")
    assert seed_equivalence._value("@" + str(path)) == [[1.0, 0.0], [0.0, 1.0]]
    assert seed_equivalence._value("0.05") == 0.05 and seed_equivalence._value("ratio") == "ratio"


def test_one_side_keywords_compare_two_settings_of_one_checkout():
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--before", str(ROOT), "--after", str(ROOT)]
        + ["--env", "LinearBAI-Soare-v0", "--agent", "LinGapE", "--seeds", "3"]
        + ["--before-agent-kw", "confidence=self_normalized_ols"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "before: confidence=self_normalized_ols" in out.stdout
    assert "identical records      0/3" in out.stdout  # the proven width needs more samples
