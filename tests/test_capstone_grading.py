"""Grading exercise 19 on the capstone's tests (minitorch_course/exercises/your_minitorch.py).

q1-q17 grade each part on the cases of the exercise where it was first written; q18-q34 grade
the same parts on the capstone's tests: each case is one capstone test of that part, run in the
sandbox with the submitted function plugged into minitorch, its value compared in the grader's
process with the value the reference part gives on the same path. Here:

- the solutions score full marks, an untouched notebook zero, and the capstone questions' cases
  are exactly the capstone's tests of each part;
- each plausible wrong part of tests/test_capstone.py loses points on that part's questions
  and nothing else (several wrong parts share a notebook: each capstone test plugs in one part
  only, and each per-part question calls its own function, so they cannot interact);
- check() in the notebook gives a capstone question the verdict the grader gives it;
- a part that reaches for minitorch, a cell that tries to swap minitorch's hooks, or a part
  returning an object that claims to equal anything earns nothing for it.
"""
from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from minitorch_course import capstone
from minitorch_course.check import Question
from minitorch_course.exercises import get_exercise
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import add_cell, as_submission, load, set_cell
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import cell_source, dumps, grade_id, without_markers
from minitorch_course.parts import ASSEMBLED, BY_NAME

from test_capstone import WRONG

ROOT = Path(__file__).resolve().parents[1]
NAME = "19_your_minitorch"
SOLUTIONS = ROOT / "solutions" / f"{NAME}.ipynb"
LIMITS = Limits(step_seconds=5, memory_mb=1024)
N = len(ASSEMBLED)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def ex():
    return get_exercise(NAME)


@pytest.fixture(scope="module")
def key(ex):
    return AnswerKey(ex, SOLUTIONS)


@pytest.fixture(scope="module")
def sol():
    return load(SOLUTIONS)


def part_questions(ex, part):
    """(the part's own question, its capstone question)."""
    i = [p.name for p in ASSEMBLED].index(part)
    return ex.questions[i].id, ex.questions[N + i].id


def grade(tmp_path, key, nb, name="student"):
    path = tmp_path / f"{name}.ipynb"
    path.write_text(dumps(nb), encoding="utf-8")
    r = grade_submission(path, key, LIMITS)
    assert r.verdict == "graded", r.to_dict()
    return r, {q.id: q for q in r.questions}


def wrong_source(part):
    fn = WRONG[part]
    src = textwrap.dedent(inspect.getsource(fn))
    return src.replace(f"def {fn.__name__}(", f"def {BY_NAME[part].function}(", 1)


# ---- the questions ------------------------------------------------------------------------------
def test_each_part_has_a_capstone_question_whose_cases_are_its_tests(ex):
    assert len(ex.questions) == 2 * N
    for part, q in zip(ASSEMBLED, ex.questions[N:]):
        assert (q.function, q.answer, q.solution_cell) == ("capstone_test", part.function, part.name)
        assert [c.args for c in q.cases()] == [(part.name, t.name) for t in capstone.tests_of(part.name)]
        assert q.cases(), part.name
    graded = {t.part for t in capstone.TESTS} - {"version_check"}  # a class, graded in exercise 06
    assert graded == {p.name for p in ASSEMBLED}


def test_the_expected_values_are_the_capstone_tests_own(key):
    """The grader's expected values (the reference parts, through minitorch) agree with the
    capstone's NumPy expectations, at the tests' precision."""
    for k in key.questions[N:]:
        for case, expected in zip(k.cases, k.expected):
            part, name = case.args
            test = next(t for t in capstone.tests_of(part) if t.name == name)
            assert capstone._close(test.expected(), expected, test.rtol, test.atol), (part, name)


# ---- full marks, zero, wrong parts ---------------------------------------------------------------
def test_the_solutions_score_full_marks(tmp_path, key):
    r = grade_submission(SOLUTIONS, key, LIMITS, self_test=True)
    assert r.verdict == "graded" and r.score == key.max_score == 2 * N, r.to_dict()
    assert all(q.status == "correct" for q in r.questions), [q for q in r.questions if q.status != "correct"]
    assert not r.flags, r.flags


def test_an_untouched_notebook_scores_zero(tmp_path, key, sol):
    r, qs = grade(tmp_path, key, as_submission(sol, NAME))
    assert r.score == 0
    assert all(qs[k.spec.id].status == "not_attempted" for k in key.questions[N:])


PARTS = [p.name for p in ASSEMBLED]
GROUPS = [PARTS[0::3], PARTS[1::3], PARTS[2::3]]  # several wrong parts per notebook: a third each


@pytest.mark.parametrize("wrong", GROUPS, ids=lambda g: "+".join(g))
def test_a_wrong_part_loses_its_own_points_only(tmp_path, ex, key, sol, wrong):
    nb = sol
    for part in wrong:
        nb = set_cell(nb, part, wrong_source(part))
    r, qs = grade(tmp_path, key, nb)
    lost = set()
    for part in PARTS:
        own, cap = part_questions(ex, part)
        if part in wrong:
            assert qs[cap].points < qs[cap].max_points, (part, qs[cap])
            lost |= {own, cap}
        else:
            assert qs[own].status == qs[cap].status == "correct", (part, qs[own], qs[cap])
    assert {q for q, g in qs.items() if g.points < g.max_points} <= lost


def test_a_stub_part_scores_zero_on_its_tests_and_check_agrees(tmp_path, ex, key, sol):
    stub = 'def local_backward(op, inputs, grad):\n    raise NotImplementedError("not yet")\n'
    r, qs = grade(tmp_path, key, set_cell(sol, "local_backward", stub))
    own, cap = part_questions(ex, "local_backward")
    assert qs[own].points == qs[cap].points == 0 and qs[cap].status == "not_attempted"
    assert r.score == key.max_score - 2
    # check() in a notebook, on the same functions: the same verdict
    assert _check(ex, cap, stub).status == "not_attempted"


def _check(ex, qid, part_source):
    """check() of a capstone question as the notebook runs it: the driver cell and the part,
    in one namespace."""
    driver = cell_source(next(c for c in load(SOLUTIONS)["cells"] if grade_id(c) == "capstone_driver"))
    ns = {"__name__": "__notebook__"}
    exec(compile("import math\nimport numpy as np\n" + part_source + "\n" + driver, "<notebook>", "exec"), ns)
    return Question(ex, ex.question(qid)).evaluate(ns["capstone_test"])


@pytest.mark.parametrize("part", ["slice_view", "local_backward", "im2col"])
def test_check_in_the_notebook_gives_the_graders_verdict(tmp_path, ex, key, sol, part):
    r, qs = grade(tmp_path, key, set_cell(sol, part, wrong_source(part)))
    cap = part_questions(ex, part)[1]
    mine = _check(ex, cap, wrong_source(part))
    assert (mine.status, mine.passed, mine.total) == (qs[cap].status, qs[cap].passed, qs[cap].total)
    assert mine.status == "incorrect"
    ok = _check(ex, cap, without_markers(cell_source(next(c for c in sol["cells"] if grade_id(c) == part))))
    assert ok.status == "correct" and ok.passed == ok.total == qs[cap].total


# ---- tampering -----------------------------------------------------------------------------------
def test_a_part_that_reaches_for_minitorch_scores_zero(tmp_path, ex, key, sol):
    """Plugged in, a part runs inside minitorch; one that turns its own hook off so that the
    library's code computes the answers is refused (read from its source, and at run time)."""
    cheat = textwrap.dedent('''\
        def contiguous_strides(shape):
            import minitorch.parts
            minitorch.parts.contiguous_strides = None   # the library's code from now on
            return tuple(range(len(shape)))
        ''')
    r, qs = grade(tmp_path, key, set_cell(sol, "contiguous_strides", cheat))
    own, cap = part_questions(ex, "contiguous_strides")
    assert qs[own].points == qs[cap].points == 0, qs[cap]
    assert "importing minitorch.parts is not allowed while grading" in qs[cap].reason, qs[cap]
    assert r.score == key.max_score - 2


def test_a_cell_that_swaps_minitorchs_hooks_gains_nothing(tmp_path, ex, key, sol):
    """A cell that would give the driver a fake minitorch.parts (so that no part of the learner's
    is ever plugged in, and the library's code passes every test) cannot import minitorch."""
    nb = set_cell(sol, "contiguous_strides", "def contiguous_strides(shape):\n    raise NotImplementedError\n")
    setup = next(i for i, c in enumerate(nb["cells"]) if grade_id(c) == "capstone_driver")
    attack = textwrap.dedent('''\
        import types
        import minitorch
        import minitorch_course.capstone
        minitorch.parts = types.SimpleNamespace(HOOKS=())
        ''')
    r, qs = grade(tmp_path, key, add_cell(nb, attack, at=setup + 1))
    own, cap = part_questions(ex, "contiguous_strides")
    assert qs[own].points == qs[cap].points == 0, qs[cap]
    assert r.score == key.max_score - 2
    assert any("importing minitorch" in n for n in r.notes), r.notes


def test_a_part_returning_an_object_equal_to_anything_scores_zero(tmp_path, ex, key, sol):
    cheat = textwrap.dedent('''\
        class Anything:
            def __eq__(self, other):
                return True

            def __ne__(self, other):
                return False

            def __bool__(self):
                return True

        def is_contiguous(shape, strides):
            return Anything()
        ''')
    r, qs = grade(tmp_path, key, set_cell(sol, "is_contiguous", cheat))
    own, cap = part_questions(ex, "is_contiguous")
    assert qs[own].points == qs[cap].points == 0, (qs[own], qs[cap])
    assert r.score == key.max_score - 2


def test_a_cell_posing_as_minitorch_cannot_import_it(tmp_path, ex, key, sol):
    """The import guard goes by whose code imports (the learner's namespace, whatever it calls
    itself), not by the names a cell sets: a relative import posing as part of the package, or
    a namespace renamed after it, is refused. Here the part is right only if one of them got in."""
    attack = textwrap.dedent('''\
        got = []
        try:
            __package__ = "minitorch"
            from . import parts as _theirs
            got.append(_theirs)
        except ImportError:
            pass
        try:
            __name__ = "minitorch._ops"
            import minitorch as _theirs
            got.append(_theirs)
        except ImportError:
            pass
        __name__ = "__main__"
        ''')
    part = textwrap.dedent('''\
        def contiguous_strides(shape):
            if not got:
                raise NotImplementedError("the guard held")
            strides, step = [], 1
            for size in reversed(shape):
                strides.append(step)
                step *= size
            return tuple(reversed(strides))
        ''')
    nb = set_cell(sol, "contiguous_strides", part)
    at = next(i for i, c in enumerate(nb["cells"]) if grade_id(c) == "contiguous_strides")
    r, qs = grade(tmp_path, key, add_cell(nb, attack, at=at))
    own, cap = part_questions(ex, "contiguous_strides")
    assert qs[own].status == qs[cap].status == "not_attempted", (qs[own], qs[cap])
    assert r.score == key.max_score - 2
