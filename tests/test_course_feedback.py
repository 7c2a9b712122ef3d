"""Self-paced feedback: q.check() / q.hint() / q.solution(), progress, and the notebooks run."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import _notebook_exec as nbx

import minitorch
from minitorch_course import CheckFailed, load_exercise, progress, show_progress
from _answers import answers_of
from minitorch_course.exercises import all_exercises

strides = answers_of("03_strides")

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    path = tmp_path / "progress.json"
    monkeypatch.setenv("MINITORCH_PROGRESS", str(path))
    return path


@pytest.fixture
def qs():
    return load_exercise("03_strides")


# ---- the four outcomes ---------------------------------------------------------------------------
def test_missing_function(qs):
    r = qs[0].evaluate(None)
    assert r.status == "missing" and "not defined yet" in r.message
    r = qs[0].evaluate(42)
    assert r.status == "missing" and "not a function" in r.message


def test_not_attempted(qs):
    def contiguous_strides(shape):
        raise NotImplementedError("Replace this line with your code")
    r = qs[0].evaluate(contiguous_strides)
    assert r.status == "not_attempted" and not r
    assert "Replace `raise NotImplementedError" in "\n".join(r.details)


def test_incorrect_says_input_expected_and_actual(qs):
    def contiguous_strides(shape):  # forgets that the last stride is 1
        return tuple(n for n in shape)
    r = qs[0].evaluate(contiguous_strides)
    assert r.status == "incorrect"
    first = r.details[0]
    assert "contiguous_strides((2, 3, 4))" in first and "returned (2, 3, 4)" in first and "expected (12, 4, 1)" in first


@pytest.mark.parametrize("fn, words", [
    (lambda shape: list(strides.contiguous_strides(shape)), ["a list, expected a tuple"]),
    (lambda shape: tuple(np.int64(s) for s in strides.contiguous_strides(shape)),
     ["numpy.int64", "expected an int", "int(...)"]),
    (lambda shape: strides.contiguous_strides(shape)[:-1], ["items, expected"]),
    (lambda shape: shape[5], ["raised IndexError"]),
])
def test_incorrect_type_and_shape_messages(qs, fn, words):
    r = qs[0].evaluate(fn)
    assert r.status == "incorrect"
    for w in words:
        assert w in "\n".join(r.details), r.details


def test_bool_versus_int(qs):
    r = qs[2].evaluate(lambda shape, st: int(strides.is_contiguous(shape, st)))
    assert r.status == "incorrect" and "an int, expected a bool" in r.details[0]


def test_correct(qs):
    for q, fn in zip(qs, (strides.contiguous_strides, strides.flat_index, strides.is_contiguous)):
        r = q.evaluate(fn)
        assert r and r.status == "correct" and r.passed == r.total > 20


def test_using_numpy_is_caught_and_numpy_is_restored(qs):
    def contiguous_strides(shape):
        return tuple(s // 8 for s in np.empty(shape).strides)
    r = qs[0].evaluate(contiguous_strides)
    assert r.status == "incorrect" and "numpy.empty" in r.message
    r = qs[0].evaluate(lambda shape: minitorch.zeros(shape).stride())  # minitorch uses numpy inside
    assert r.status == "incorrect" and "numpy." in r.message
    assert np.zeros(3).shape == (3,) and minitorch.ones(2, 3).stride() == (3, 1)


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_huge_sizes_need_python_ints(qs):
    def contiguous_strides(shape):  # int64 arithmetic: right for small shapes only
        out, step = [], np.int64(1)
        for n in reversed(shape):
            out.append(int(step))
            step = step * np.int64(n)
        return tuple(reversed(out))
    r = qs[0].evaluate(contiguous_strides)
    assert r.status == "incorrect"


# ---- check() as the learner and nbgrader see it ---------------------------------------------------
def test_check_finds_the_function_by_name_and_raises_when_wrong(qs, capsys):
    q1 = qs[0]

    def contiguous_strides(shape):
        return ()
    globals()["contiguous_strides"] = contiguous_strides  # check() looks in its caller's globals
    try:
        with pytest.raises(CheckFailed) as info:
            q1.check()
        assert isinstance(info.value, AssertionError)  # nbgrader marks the cell failed
        lines = info.value._render_traceback_()
        assert "not right yet" in lines[0] and len(lines) >= 2
        globals()["contiguous_strides"] = strides.contiguous_strides
        assert q1.check() is None
        assert "✔ q1: contiguous_strides is correct" in capsys.readouterr().out
    finally:
        globals().pop("contiguous_strides", None)


def test_hidden_mode_runs_exactly_the_given_cases(qs):
    r = qs[1].evaluate(strides.flat_index, cases=[((1, 2), (3, 1), 4)], random=10, seed=3)
    assert r.total == 11
    with pytest.raises(CheckFailed):
        qs[1].check(fn=lambda i, s, o=0: 0, cases=[((1, 2), (3, 1), 4)])


def test_hints_and_solution(qs, capsys, progress_file):
    q1 = qs[0]
    q1.hint()
    q1.hint(2)
    q1.hint(3)
    q1.hint(7)
    out = capsys.readouterr().out
    assert "Hint 1 of 3" in out and "Hint 2 of 3" in out and "that was the last" in out
    assert "has hints 1 to 3" in out
    q1.solution()
    out = capsys.readouterr().out
    assert "def contiguous_strides(shape):" in out and "step *= size" in out
    entry = json.loads(progress_file.read_text())["exercises"]["03_strides"]["q1"]
    assert entry["hints"] == [1, 2, 3] and entry["solution_viewed"] is True


def test_result_renders_in_a_notebook(qs):
    r = qs[0].evaluate(lambda shape: ())
    assert "<b" in r._repr_html_() and "not right yet" in repr(r)


# ---- progress -------------------------------------------------------------------------------------
def test_progress_is_recorded_and_shown(qs, progress_file):
    with pytest.raises(CheckFailed):
        qs[0].check(fn=lambda shape: ())
    qs[0].check(fn=strides.contiguous_strides)
    with pytest.raises(CheckFailed):  # a later failed experiment does not undo "correct"
        qs[0].check(fn=lambda shape: ())
    with pytest.raises(CheckFailed):
        qs[1].check(fn=lambda i, s, o=0: 0)
    data = json.loads(progress_file.read_text())
    q1 = data["exercises"]["03_strides"]["q1"]
    assert q1["status"] == "correct" and q1["attempts"] == 3 and q1["first_correct"]
    view = show_progress()
    assert view.done == 1 and len(view.rows) == sum(len(e.questions) for e in all_exercises().values())
    text, html = repr(view), view._repr_html_()
    assert f"1 of {len(view.rows)} questions done" in text and "✔" in text and "<table>" in html


def test_progress_file_location(monkeypatch, tmp_path):
    monkeypatch.delenv("MINITORCH_PROGRESS")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = progress.progress_path()
    assert path == tmp_path / "home" / ".minitorch" / "progress.json"
    assert ROOT not in path.parents
    progress.record_check("03_strides", "q1", "incorrect")
    assert path.exists()


def test_broken_or_unwritable_progress_never_breaks_a_check(qs, progress_file, monkeypatch, tmp_path):
    progress_file.write_text("{not json")
    qs[0].check(fn=strides.contiguous_strides)
    assert json.loads(progress_file.read_text())["exercises"]["03_strides"]["q1"]["status"] == "correct"
    assert progress_file.with_suffix(".json.broken").exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("MINITORCH_PROGRESS", str(blocker / "sub" / "progress.json"))
    with pytest.warns(UserWarning, match="could not save progress"):
        qs[0].check(fn=strides.contiguous_strides)


# ---- the exercise agrees with minitorch's real tensors -----------------------------------------------
def test_views_table_is_what_minitorch_does():
    x = minitorch.arange(24).reshape(2, 3, 4)  # noqa: F841 - used by the expressions
    for expr, shape, stride, offset in strides.VIEWS:
        v = eval(expr)  # noqa: S307 - our own table
        assert (tuple(v.shape), v.stride(), v.storage_offset()) == (shape, stride, offset), expr
        assert strides.is_contiguous(shape, stride) == v.is_contiguous(), expr
        idx = tuple(n - 1 for n in shape)
        assert strides.flat_index(idx, stride, offset) == v[idx].item(), expr


def test_reference_agrees_with_minitorch_views():
    x = minitorch.arange(24).reshape(2, 3, 4)
    for v in (x.permute(2, 1, 0), x[:, 1], x[..., ::2], x[1:, :, 1:3], minitorch.arange(4).expand(3, 4)):
        idx = tuple(n - 1 for n in v.shape)
        assert strides.flat_index(idx, v.stride(), v.storage_offset()) == v[idx].item()
    for shape in [(2, 3, 4), (5,), (), (3, 1, 2), (1, 1), (7, 1, 1, 2)]:
        assert strides.contiguous_strides(shape) == minitorch.zeros(shape).stride()


# ---- the notebooks, executed as a learner would ------------------------------------------------------
_execute = nbx.execute
_outputs = nbx.cell_text


def test_solutions_notebook_runs_clean_and_every_check_passes(tmp_path):
    nb = _execute(ROOT / "solutions" / "03_strides.ipynb", tmp_path)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    text = "\n".join(_outputs(c) for c in nb.cells)
    for q, fn in (("q1", "contiguous_strides"), ("q2", "flat_index"), ("q3", "is_contiguous")):
        assert f"✔ {q}: {fn} is correct" in text
    assert "agrees with minitorch.zeros(shape).stride()" in text
    total = sum(len(e.questions) for e in all_exercises().values())  # the whole course's
    assert f"3 of {total} questions done" in text


def test_untouched_exercise_says_not_attempted(tmp_path):
    nb = _execute(ROOT / "exercises" / "03_strides.ipynb", tmp_path)
    tests = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    assert len(tests) == 3
    for c in tests:
        errs = [o for o in c.outputs if o.output_type == "error"]
        assert errs and errs[0].ename == "CheckFailed"
        assert "is not written yet" in _outputs(c)


# ---- values in feedback, as the learner would print them --------------------------------------------
def _judge(expected, actual, compare=None):
    from minitorch_course.spec import Case, QuestionSpec, as_plain, compare_values, judge
    q = QuestionSpec("q1", "f", "t", "f", "test_f", lambda: [], lambda rng, n: [],
                     compare=compare or compare_values)
    return judge(q, Case(((1, 2),)), as_plain(expected), as_plain(actual)).reason


def test_tensors_show_as_printed_with_the_shape_difference_stated():
    why = _judge(minitorch.tensor([[1.0], [1.0]]), minitorch.tensor([1.0, 1.0]))
    assert "f((1, 2)) returned tensor([1., 1.]), expected tensor([[1.], [1.]])" in why, why
    assert "has shape (2,), expected (2, 1)" in why and "Array(" not in why and "kind=" not in why, why
    why = _judge(minitorch.tensor([1, 2], dtype=minitorch.int32), minitorch.tensor([1, 2]))
    assert "returned tensor([1, 2]), expected tensor([1, 2], dtype=minitorch.int32)" in why, why
    assert "dtype int64, expected int32" in why, why


def test_numpy_arrays_show_as_numpy_prints_them():
    why = _judge(np.array([[1.0], [1.0]]), np.array([1.0, 1.0]))
    assert "returned array([1., 1.]), expected array([[1.], [1.]])" in why, why
    why = _judge(np.array([1.0, 2.0]), minitorch.tensor([1.0, 2.0], dtype=minitorch.float64))
    assert "is a tensor, expected a NumPy array" in why, why
    why = _judge(1.5, np.float64(1.5))
    assert "returned np.float64(1.5), expected 1.5" in why and "float(...)" in why, why


def test_two_different_numbers_never_look_equal():
    """Floats are shown at the precision people print them, with more digits only where that is
    what tells the two apart; elements are named by their index."""
    why = _judge(minitorch.tensor([0.1, 1 / 3]), minitorch.tensor([0.1, 1 / 3 + 1e-4]))
    assert "returned tensor([0.1000, 0.3334]), expected tensor([0.1000, 0.3333])" in why, why  # as printed
    assert "at [1] is 0.333433, expected 0.333333" in why, why
    why = _judge(minitorch.tensor([0.1, 1 / 3]), minitorch.tensor([0.1, 1 / 3 + 1e-5]))  # equal at 4 decimals
    assert "returned tensor([0.100000, 0.333343]), expected tensor([0.100000, 0.333333])" in why, why
    assert "0.33333334326744" not in why  # float32 noise is not shown
    why = _judge(0.5, 0.5000001)
    assert why.endswith("returned 0.5000001, expected 0.5"), why
    why = _judge([1.0, 0.25], [1.0, 0.25000001])
    assert "returned [1.0, 0.25000001], expected [1.0, 0.25]" in why, why
    why = _judge(np.array([[2.0, 1.0], [0.5, 4.0]]), np.array([[2.0, 1.0], [0.5, 4.5]]))
    assert "at [1, 1] is 4.5, expected 4.0" in why, why


def test_plain_values_show_as_repr():
    why = _judge((12, 4, 1), [12, 4, 1])
    assert "returned [12, 4, 1], expected (12, 4, 1): the result is a list, expected a tuple" in why, why
    why = _judge({"a": True}, {"a": 1})
    assert "returned {'a': 1}, expected {'a': True}" in why, why
    why = _judge("float32", "float64")
    assert why == "f((1, 2)) returned 'float64', expected 'float32'", why


def test_check_and_grader_show_the_same_words(tmp_path):
    """A wrong shape from a NumPy answer: the learner's check() and the grader's feedback say it
    the same way (the grader's own rendering of the values it compared)."""
    from minitorch_course.grading.grader import AnswerKey, grade_submission
    from minitorch_course.grading.sample_class import as_submission, load, set_cell, solve
    from minitorch_course.grading.sandbox import Limits
    from minitorch_course.notebook import dumps
    wrong = ("def pairwise_sq_dists(X, Y):\n    import numpy as np\n"
             "    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)\n"
             "    return ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2).reshape(-1)\n")
    ns = {}
    exec(compile(wrong, str(tmp_path / "answer.py"), "exec"), ns)  # noqa: S102 - the test's own code
    q1 = load_exercise("17_vectorise")[0]
    r = q1.evaluate(ns["pairwise_sq_dists"])
    assert r.status == "incorrect"
    mine = r.details[0]
    assert "returned array([1., 1.]), expected array([[1.], [1.]])" in mine, mine
    assert "has shape (2,), expected (2, 1)" in mine, mine
    path = ROOT / "solutions" / "17_vectorise.ipynb"
    key, sol = AnswerKey(load_exercise("17_vectorise").exercise, path), load(path)
    nb = set_cell(solve(as_submission(sol, "17_vectorise"), sol), "pairwise_sq_dists", wrong)
    sub = tmp_path / "sub.ipynb"
    sub.write_text(dumps(nb), encoding="utf-8")
    g = grade_submission(sub, key, Limits(step_seconds=5.0, memory_mb=512))
    reason = g.questions[0].reason
    assert g.questions[0].status == "incorrect" and mine in reason, (mine, reason)
    assert "Array(" not in reason and "kind=" not in reason


# ---- where check() and solution() find what they need ------------------------------------------------
def test_without_the_solutions_visible_checks_work_and_the_rest_says_why(qs, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("MINITORCH_SOLUTIONS", str(tmp_path / "elsewhere"))  # the instructor's copy is not here
    assert qs[0].evaluate(strides.contiguous_strides).status == "correct"  # the stored check data
    r = qs[0].evaluate(strides.contiguous_strides, cases=[((2, 3),)])
    assert r.status == "unavailable" and not r
    assert "can only be checked where the instructor's solutions are" in r.details[0]
    assert "MINITORCH_SOLUTIONS" in r.details[0]
    with pytest.raises(CheckFailed):  # under nbgrader, a hidden test that cannot run never passes
        qs[0].check(fn=strides.contiguous_strides, random=3, seed=1)
    qs[0].solution()
    out = capsys.readouterr().out
    assert "No reference answer for q1 here" in out and "step *=" not in out


def test_solutions_found_through_the_setting_also_in_nbgraders_layout(qs, monkeypatch, tmp_path, capsys):
    source = tmp_path / "source" / "03_strides"
    source.mkdir(parents=True)
    (source / "03_strides.ipynb").write_bytes((ROOT / "solutions" / "03_strides.ipynb").read_bytes())
    monkeypatch.setenv("MINITORCH_SOLUTIONS", str(tmp_path / "source"))
    r = qs[1].evaluate(strides.flat_index, cases=[((1, 2), (3, 1), 4)], random=4, seed=2)
    assert r.status == "correct" and r.total == 5
    qs[1].solution()
    assert "def flat_index(index, strides, offset=0):" in capsys.readouterr().out


def test_check_compares_with_the_stored_data_not_with_a_run_of_the_solutions(qs, monkeypatch, tmp_path):
    """The visible cases come from checks/03_strides.json: a learner's install has no solutions."""
    from minitorch_course import answers, checkdata
    monkeypatch.setattr(answers, "load", lambda *a, **k: pytest.fail("the solutions were run"))
    assert qs[2].evaluate(strides.is_contiguous).status == "correct"
    data = json.loads(checkdata.path_of("03_strides").read_text())
    data["questions"]["q3"]["cases"][0][1] = {"t": "bool", "v": False}  # the first case's stored expectation
    (tmp_path / "03_strides.json").write_text(json.dumps(data))
    monkeypatch.setattr(checkdata, "CHECKS_DIR", tmp_path)
    r = qs[2].evaluate(strides.is_contiguous)
    assert r.status == "incorrect" and "is_contiguous((2, 3, 4), (12, 4, 1)) returned True, expected False" in r.details[0]
