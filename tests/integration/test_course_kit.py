"""The course kit (examples/course): the grader scores the worked solution, fails each broken
agent by naming the broken rule, and tells an untouched template that its TODOs are not done."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

COURSE = Path(__file__).resolve().parents[2] / "examples" / "course"
SOLUTION = COURSE / "solution" / "worked_solution.py"
TEMPLATE = COURSE / "assignment.py"
BROKEN = COURSE / "broken_examples"


def _load_grader():
    spec = importlib.util.spec_from_file_location("course_grader", COURSE / "grader.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["course_grader"] = module
    spec.loader.exec_module(module)
    return module


grader = _load_grader()


def test_worked_solution_passes_the_protocol_and_scores_high():
    cls = grader.load_agent_class(SOLUTION)
    report = grader.grade(cls, seeds=4, source=SOLUTION)
    assert report.protocol_ok and report.feedback == []
    assert report.protocol_points == 40.0
    assert [s.correctness for s in report.env_scores] == [10.0, 10.0, 10.0]
    mine = [r for r in report.rows if r.agent == "PhasedElimination"]
    assert len(mine) == 3 and all(r.episodes == 4 and r.errors == 0 for r in mine)
    assert all(r.lb_ratio > 1.0 for r in mine)  # nobody beats the lower bound on average
    assert report.total > 85.0, report.render()
    text = report.render()
    assert "LB ratio" in text and "Uniform" in text and "RAGE" in text
    assert "total" in text and "Traceback" not in text


BROKEN_CASES = [
    ("global_rng.py", "check_global_rng", "draws from numpy's global random state"),
    (
        "arm_out_of_range.py",
        "check_valid_actions",
        "OneBasedArms.select() returned arm 3, outside the valid range 0..2.",
    ),
    (
        "bad_answer.py",
        "check_valid_actions",
        "IntAnswer.recommend() must be a set of item indices such as frozenset({0}); got 0.",
    ),
    ("leaky_reset.py", "check_reset_clears_state", "reset() does not clear the previous episode"),
    pytest.param(
        "never_stops.py",
        "check_stops_when_easy",
        "did not stop within 20000 samples",
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize("filename, check, text", BROKEN_CASES)
def test_a_broken_agent_fails_with_feedback_naming_the_rule(filename, check, text):
    cls = grader.load_agent_class(BROKEN / filename)
    report = grader.grade(cls, seeds=2, source=BROKEN / filename)
    assert not report.protocol_ok
    first = report.feedback[0]
    assert first.startswith(f"{check}: {grader.RULES[check]}."), report.feedback
    assert text in first
    assert report.rows == [] and report.correctness_points == report.efficiency_points == 0
    assert 0 < report.protocol_points < 40
    rendered = report.render()
    assert "Benchmark not run: fix the protocol first" in rendered
    assert "Traceback" not in rendered


def test_the_untouched_template_is_told_its_todos_are_not_implemented():
    cls = grader.load_agent_class(TEMPLATE)
    report = grader.grade(cls, seeds=2, source=TEMPLATE)
    assert not report.protocol_ok
    assert report.feedback[0] == (
        "not implemented yet: select(), observe(), recommend() still raise NotImplementedError "
        "(the TODOs of the template). Implement them, then run the grader again."
    )
    assert len(report.feedback) == 1  # no list of crashes on top of it
    assert "Traceback" not in report.render()


def test_a_crash_points_at_the_students_line(tmp_path):
    path = tmp_path / "crashy.py"
    path.write_text(
        "class Crashy:\n"
        "    def reset(self, spec, rng):\n"
        "        self.k = spec.n_arms\n"
        "    def select(self):\n"
        "        return self.counts[0]\n"
        "    def observe(self, arm, outcome):\n"
        "        pass\n"
        "    def recommend(self):\n"
        "        return frozenset({0})\n"
    )
    report = grader.grade(grader.load_agent_class(path), seeds=1, source=path)
    assert report.feedback[0].startswith(
        "check_valid_actions: your agent crashed with AttributeError: 'Crashy' object has no "
        "attribute 'counts' (at crashy.py:5, in select)."
    )
    assert report.feedback[1].startswith("the same error also stopped check_global_rng, ")


def test_loading_problems_are_reported_plainly(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("class A:\n    def reset(self, spec, rng)\n        pass\n")
    with pytest.raises(
        grader.GradingError,
        match=r"bad.py does not import: SyntaxError: .* "
        r"\(at bad.py:2\)",
    ):
        grader.load_agent_class(bad)
    two = tmp_path / "two.py"
    two.write_text(
        "class A:\n"
        + "".join(
            f"    def {m}(self, *a): pass\n" for m in ("reset", "select", "observe", "recommend")
        )
        + "class B(A):\n    pass\n"
    )
    with pytest.raises(
        grader.GradingError,
        match=r"found \['A', 'B'\]; name the one to grade "
        r"with --class NAME",
    ):
        grader.load_agent_class(two)
    assert grader.load_agent_class(two, "B").__name__ == "B"
    args = tmp_path / "args.py"
    args.write_text(
        "class A:\n    def __init__(self, x): pass\n"
        + "".join(
            f"    def {m}(self, *a): pass\n" for m in ("reset", "select", "observe", "recommend")
        )
    )
    report = grader.grade(grader.load_agent_class(args), seeds=1)
    assert report.total == 0 and "The constructor must not require arguments" in report.feedback[0]


def test_rubric_arithmetic():
    assert grader.allowed_errors(20, 0.05, 0.01) == 4  # P(Bin(20, .05) >= 5) = 0.0026 < 1 %
    assert grader.allowed_errors(30, 0.05, 0.01) == 5
    env, rubric = grader.BENCHMARK[0], grader.Rubric()

    def row(samples, errors=0, problem=None):
        return grader.BenchmarkRow(
            env.label, "a", 20, errors, 0, samples, 100.0, 0.1, "single", problem
        )

    def points(samples, errors=0, problem=None):
        s = grader._score_env(env, row(samples, errors, problem), row(1000.0), 20, rubric, 3)
        return round(s.correctness, 6), round(s.efficiency, 6)

    assert points(500.0) == (10.0, 10.0)  # half of Uniform's samples: full marks
    assert points(1000.0) == (10.0, 5.0)  # Uniform's level: half
    assert points(2000.0) == (10.0, 0.0)  # twice Uniform's: none
    assert points(250.0) == (10.0, 10.0)  # capped
    assert points(10.0, errors=5) == (0.0, 0.0)  # too many errors: no efficiency either
    assert points(500.0, problem="crashed") == (0.0, 0.0)


def test_benchmark_instances_hide_the_best_arm_in_the_middle():
    for env in grader.BENCHMARK:
        x, theta = env.kwargs["features"], env.kwargs["theta"]
        best = int(np.argmax(x @ theta))
        assert 0 < best < x.shape[0] - 1, env.label


def _cli(*args):
    return subprocess.run(
        [sys.executable, str(COURSE / "grader.py"), "--quiet", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_exit_code_zero_for_the_worked_solution():
    out = _cli(SOLUTION, "--seeds", "1")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Score: protocol 40.0/40" in out.stdout


def test_cli_exit_code_one_when_a_submission_breaks_the_protocol(tmp_path):
    out = _cli(BROKEN / "global_rng.py", TEMPLATE, "--seeds", "1", "--csv", tmp_path / "g.csv")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "check_global_rng: your agent draws from a global random state" in out.stdout
    assert "not implemented yet: select(), observe(), recommend()" in out.stdout
    assert "== Summary" in out.stdout
    lines = (tmp_path / "g.csv").read_text().splitlines()
    assert lines[0] == "file,class,protocol_ok,protocol,correctness,efficiency,total"
    assert len(lines) == 3 and all(",False," in line for line in lines[1:])
