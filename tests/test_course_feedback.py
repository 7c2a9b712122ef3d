"""Self-paced feedback: q.check() / q.hint() / q.solution(), progress, and the notebooks run."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import _notebook_exec as nbx

import minitorch
from minitorch_course import CheckFailed, load_exercise, progress, show_progress
from minitorch_course.exercises import all_exercises, strides

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
    for v in (x.T, x[:, 1], x[..., ::2], x[1:, :, 1:3], minitorch.arange(4).expand(3, 4)):
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
