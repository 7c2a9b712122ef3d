"""Every exercise, generically: its notebooks run as a learner would (solutions: every check
passes; untouched exercise: every check says "not written yet"), and check() gives the three
verdicts. Then, per exercise, its reference agrees with minitorch, and expected errors (a
question with `raises=`) are judged by type and message in the notebook and in the grader."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import _notebook_exec as nbx

import minitorch
from minitorch._ops import views as mt_views
from minitorch._ops.common import same_device as mt_same_device
from minitorch_course import load_exercise
from _answers import answers_of, key_of
from minitorch_course.exercises import all_exercises
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps
from minitorch_course.spec import Raised, expected_outcome

ROOT = Path(__file__).resolve().parents[1]
broadcasting, devices, views = answers_of("04_broadcasting"), answers_of("08_devices"), answers_of("05_views")
NAMES = sorted(all_exercises())
LIMITS = Limits(step_seconds=1.5, memory_mb=512)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    path = tmp_path / "progress.json"
    monkeypatch.setenv("MINITORCH_PROGRESS", str(path))
    return path


# ---- the notebooks, executed as a learner would --------------------------------------------------
_execute = nbx.execute
_text = nbx.cell_text


@pytest.mark.parametrize("name", NAMES)
def test_solutions_notebook_runs_clean_and_every_check_passes(name, tmp_path):
    ex = all_exercises()[name]
    nb = _execute(ROOT / "solutions" / ex.notebook, tmp_path)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    text = "\n".join(_text(c) for c in nb.cells)
    for q in ex.questions:
        assert f"✔ {q.id}: {q.function} is correct" in text


@pytest.mark.parametrize("name", NAMES)
def test_untouched_exercise_notebook_says_not_written_yet(name, tmp_path):
    ex = all_exercises()[name]
    nb = _execute(ROOT / "exercises" / ex.notebook, tmp_path)
    tests = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    assert len(tests) == len(ex.questions)
    for c in tests:
        errs = [o for o in c.outputs if o.output_type == "error"]
        assert errs and errs[0].ename == "CheckFailed", _text(c)
        assert "is not written yet" in _text(c)
    # nbval runs it top to bottom and accepts exactly the cells release tagged raises-exception
    raised = {i for i, c in enumerate(nb.cells) if any(o.output_type == "error" for o in c.get("outputs", []))}
    tagged = {i for i, c in enumerate(nb.cells) if "raises-exception" in c.get("metadata", {}).get("tags", [])}
    assert raised == tagged


# ---- check(): not attempted, incorrect (input, expected, actual), correct ---------------------------
@pytest.mark.parametrize("name", NAMES)
def test_check_gives_the_three_verdicts(name):
    for q in load_exercise(name):
        def stub(*args):
            raise NotImplementedError("Replace this line with your code")
        r = q.evaluate(stub)
        assert r.status == "not_attempted" and "is not written yet" in r.message

        r = q.evaluate(lambda *args: "nonsense")
        assert r.status == "incorrect"
        first = r.failures[0]
        assert q.spec.call_text(first.case.args) in r.details[0]          # the input
        assert "'nonsense'" in r.details[0] and "expected" in r.details[0]  # actual and expected

        r = q.evaluate(key_of(name).reference(q.spec))
        many = 10 if q.spec.visible_random else 0  # no random cases: its fixed ones (a capstone test each)
        assert r.status == "correct" and r.passed == r.total > many


# ---- expected errors: same type, same message ------------------------------------------------------
def test_expected_outcome_keeps_undeclared_errors():
    def ref(x):
        raise RuntimeError(f"bad {x}")
    assert expected_outcome(ref, (1,), (RuntimeError,)) == Raised("RuntimeError", "bad 1")
    with pytest.raises(RuntimeError):
        expected_outcome(ref, (1,))  # not declared: a broken reference, not an answer


def test_wrong_error_or_no_error_is_explained():
    q1 = load_exercise("04_broadcasting")[0]

    def no_error(*shapes):
        try:
            return broadcasting.broadcast_shapes(*shapes)
        except RuntimeError:
            return None
    r = q1.evaluate(no_error)
    assert r.status == "incorrect" and "broadcast_shapes((3,), (4,)) returned None; expected it to raise " \
        "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton " \
        "dimension 0" in r.details[0]

    def wrong_type(*shapes):
        try:
            return broadcasting.broadcast_shapes(*shapes)
        except RuntimeError as e:
            raise ValueError(str(e)) from None
    r = q1.evaluate(wrong_type)
    assert r.status == "incorrect" and "raised ValueError: The size" in r.details[0]
    assert "; expected RuntimeError: The size" in r.details[0]

    def leftmost_first(*shapes):  # names the first mismatch from the left: PyTorch names the last
        result = ()
        for shape in shapes:
            n = max(len(result), len(shape))
            a, b = (1,) * (n - len(result)) + result, (1,) * (n - len(shape)) + tuple(shape)
            for d in range(n):
                if a[d] != b[d] and 1 not in (a[d], b[d]):
                    raise RuntimeError(f"The size of tensor a ({a[d]}) must match the size of tensor b "
                                       f"({b[d]}) at non-singleton dimension {d}")
            result = tuple(y if x == 1 else x for x, y in zip(a, b))
        return result
    r = q1.evaluate(leftmost_first)
    assert r.status == "incorrect" and "broadcast_shapes((2, 3), (3, 2)) raised RuntimeError" in r.details[0]


def test_grader_judges_expected_errors_by_type_and_message(tmp_path):
    ex = all_exercises()["08_devices"]
    sol_path = ROOT / "solutions" / ex.notebook
    key = AnswerKey(ex, sol_path, scoring_mode="all")  # all or nothing per question
    sol = load(sol_path)
    solved = solve(as_submission(sol, ex.name), sol)
    nb = set_cell(solved, "same_device", "def same_device(tensors):\n"
                  "    devs = {d for d, n in tensors if not (d == 'cpu' and n == 0)} or {'cpu'}\n"
                  "    if len(devs) > 1:\n"
                  "        raise RuntimeError('Expected all tensors to be on the same device')\n"
                  "    return devs.pop()")
    p = tmp_path / "s.ipynb"
    p.write_text(dumps(nb), encoding="utf-8")
    r = grade_submission(p, key, LIMITS)
    q = {x.id: x for x in r.questions}
    assert q["q1"].status == "correct" and q["q2"].status == "incorrect"
    assert "raised RuntimeError: Expected all tensors to be on the same device; expected RuntimeError: " \
           "Expected all tensors to be on the same device, but found at least two devices" in q["q2"].reason
    assert r.score == key.questions[0].points


# ---- 04_broadcasting agrees with minitorch ---------------------------------------------------------
def test_broadcasting_reference_agrees_with_minitorch():
    q1, q2, q3 = load_exercise("04_broadcasting")
    for case in q1.spec.cases(None, 300, 1):
        shapes = case.args
        want = expected_outcome(broadcasting.broadcast_shapes, shapes, (RuntimeError,))
        if isinstance(want, Raised):
            with pytest.raises(RuntimeError, match="The size of tensor a"):
                minitorch.broadcast_shapes(*shapes)
            if len(shapes) == 2 and sum(a != b and 1 not in (a, b) for a, b in
                                        zip(reversed(shapes[0]), reversed(shapes[1]))) == 1:
                with pytest.raises(RuntimeError) as info:  # one mismatch: the same message
                    minitorch.zeros(shapes[0]) + minitorch.zeros(shapes[1])
                assert str(info.value).startswith(want.message)
        else:
            assert want == tuple(minitorch.broadcast_shapes(*shapes))
    for case in q2.spec.cases(None, 200, 2):
        shape, strides, new_shape = case.args
        base = minitorch.as_strided(minitorch.arange(200_000), shape, strides, 0)
        theirs, ours = base.expand(tuple(new_shape)).stride(), broadcasting.expand_strides(shape, strides, new_shape)
        assert len(theirs) == len(ours)  # the stride of a size-1 dim is never used: not compared
        assert [t for t, n in zip(theirs, new_shape) if n != 1] == [o for o, n in zip(ours, new_shape) if n != 1]
    for a in broadcasting.DTYPES:
        for b in broadcasting.DTYPES:
            got = minitorch.promote_types(getattr(minitorch, a), getattr(minitorch, b))
            assert str(got) == "minitorch." + broadcasting.result_dtype(a, b)


# ---- 05_views agrees with minitorch ----------------------------------------------------------------
def test_views_table_is_what_minitorch_does():
    x = minitorch.arange(24).reshape(2, 3, 4)  # noqa: F841 - used by the expressions
    for expr, shape, stride, offset in views.VIEWS:
        v = eval(expr)  # noqa: S307 - our own table
        assert (tuple(v.shape), v.stride(), v.storage_offset()) == (shape, stride, offset), expr


def test_views_reference_agrees_with_minitorch():
    q1, q2, q3 = load_exercise("05_views")
    data = minitorch.arange(200_000)
    for case in q1.spec.cases(None, 200, 1):
        shape, strides, d0, d1 = case.args
        v = minitorch.as_strided(data, shape, strides, 0).transpose(d0, d1)
        assert views.transpose_strides(*case.args) == (tuple(v.shape), v.stride())
    for case in q2.spec.cases(None, 200, 2):
        shape, strides, offset, dim, start, stop, step = case.args
        x = minitorch.as_strided(data, shape, strides, offset)
        v = x[(slice(None),) * (dim % len(shape)) + (slice(start, stop, step),)]
        assert views.slice_view(*case.args) == (tuple(v.shape), v.stride(), v.storage_offset()), case.args
    nones = 0
    for case in q3.spec.cases(None, 300, 3):
        shape, strides, new_shape = case.args
        assert 1 not in new_shape and all(n >= 1 for n in shape)
        ours = views.view_strides(*case.args)
        if shape:
            theirs = mt_views.view_strides(*case.args)
            assert ours == (None if theirs is None else tuple(theirs)), case.args
        x = minitorch.as_strided(data, shape, strides, 0)
        if ours is None:
            nones += 1
            if not x.is_contiguous():
                with pytest.raises(RuntimeError, match="view size is not compatible"):
                    x.view(new_shape)
        else:
            assert minitorch.equal(minitorch.as_strided(data, new_shape, ours, 0), x.reshape(new_shape))
    assert 0.1 < nones / 300 < 0.6  # both outcomes are well represented


# ---- 08_devices agrees with minitorch ----------------------------------------------------------------
def test_devices_reference_agrees_with_minitorch():
    q1, q2 = load_exercise("08_devices")
    for case in q1.spec.cases(None, 300, 1):
        (spec,) = case.args
        want = expected_outcome(devices.parse_device, case.args, (RuntimeError,))
        if isinstance(want, Raised):
            with pytest.raises(RuntimeError) as info:
                minitorch.device(spec)
            assert str(info.value) == want.message
        else:
            d = minitorch.device(spec)
            assert want == (d.type, d.index)
    # Binary ops: every pair of operands, exhaustively. (With three or more operands minitorch's
    # rule can name a different pair than PyTorch's TensorIterator; the exercise follows PyTorch.)
    operands = [(d, n) for d in ("cpu", "cuda:0", "cuda:1") for n in (0, 1, 2)]
    for tensors in [[a, b] for a in operands for b in operands] + [[a] for a in operands]:
        want = expected_outcome(devices.same_device, (tensors,), (RuntimeError,))
        stand_ins = [SimpleNamespace(_device=minitorch.device(d), ndim=n) for d, n in tensors]
        if isinstance(want, Raised):
            with pytest.raises(RuntimeError) as info:
                mt_same_device("add", *stand_ins)
            assert str(info.value).startswith(want.message)
        else:
            assert str(mt_same_device("add", *stand_ins)) == want


# ---- 06_inplace_version: classes graded through the instructor's drivers ------------------------
def _inplace(nb_edits, tmp_path):
    ex = all_exercises()["06_inplace_version"]
    sol_path = ROOT / "solutions" / ex.notebook
    key = AnswerKey(ex, sol_path)
    sol = load(sol_path)
    nb = solve(as_submission(sol, ex.name), sol)
    for edit in nb_edits:
        nb = edit(nb)
    p = tmp_path / "s.ipynb"
    p.write_text(dumps(nb), encoding="utf-8")
    r = grade_submission(p, key, LIMITS)
    return key, r, {x.id: x for x in r.questions}


def _edit_solution(gid, old, new):
    def edit(nb):
        for c in nb["cells"]:
            if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid:
                src = c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                assert old in src
                c["source"] = src.replace(old, new)
        return nb
    return edit


def test_inplace_version_graded_through_drivers(tmp_path):
    # add_ that forgets the version: (a) fails showing the program; (b) then never raises
    _key, r, q = _inplace([_edit_solution("mini_tensor", "        self.storage.version += 1\n", "")], tmp_path)
    assert q["q1"].status == "incorrect" and "run_views([" in q["q1"].reason
    assert q["q2"].status == "incorrect"
    # SavedValue that copies the values instead of keeping the tensor: only (b) fails
    _key, r, q = _inplace([_edit_solution("saved_value", "self.tensor, self.saved_version = tensor, tensor.version",
                                          "self.tensor, self.saved_version = tensor.add(0), tensor.version")],
                          tmp_path)
    assert q["q1"].status == "correct" and q["q2"].status == "incorrect"
    assert r.score == r.questions[0].max_points


def test_a_learners_cell_cannot_replace_a_driver(tmp_path):
    from minitorch_course.grading.sample_class import add_cell
    ex = all_exercises()["06_inplace_version"]
    fake = "def run_views(program):\n    return 'whatever'\n\ndef run_saved(program):\n    return 'whatever'"
    untouched = lambda nb: as_submission(load(ROOT / "solutions" / ex.notebook), ex.name)  # noqa: E731
    _key, r, q = _inplace([untouched, lambda nb: add_cell(nb, fake)], tmp_path)
    assert [x.status for x in r.questions] == ["not_attempted", "not_attempted"], r.to_dict()
    assert r.score == 0


def test_a_broken_class_cell_is_reported_as_the_error(tmp_path):
    _key, r, q = _inplace([_edit_solution("mini_tensor", "class MiniTensor:", "1 / 0\nclass MiniTensor:")],
                          tmp_path)
    assert q["q1"].status == "error" and "ZeroDivisionError" in q["q1"].reason, q["q1"]
    assert "MiniTensor" in q["q1"].reason


def test_inplace_version_check_in_the_notebook_and_solution_shows_the_class(capsys):
    iv = answers_of("06_inplace_version")
    q1, q2 = load_exercise("06_inplace_version")
    assert q1.evaluate(iv.run_views).status == "correct"
    q1.solution()
    assert "class MiniTensor" in capsys.readouterr().out


def test_inplace_version_agrees_with_minitorch():
    iv = answers_of("06_inplace_version")
    x, mine = minitorch.arange(8), iv.MiniTensor(iv.Storage(range(8)))
    views = [(x[1::3], mine.view(1, 3, 3)), (x[::2][1:], mine.view(0, 4, 2).view(1, 3, 1))]
    for (t, m), c in zip(views + [(x, mine)], (5, 10, -1)):
        t.add_(c)
        m.add_(c)
        assert t.tolist() == m.tolist() and x.tolist() == mine.tolist() and t._version == m.version
    assert x._version == mine.version == 3


# ---- exercises renumbered after their lessons: the old names still work ---------------------------
def test_former_exercise_names_still_load_show_progress_and_grade(tmp_path, progress_file):
    import json

    from minitorch_course import progress
    from minitorch_course.exercises import FORMER_NAMES
    assert FORMER_NAMES["01_strides"] == "03_strides"
    assert load_exercise("01_strides").exercise.name == "03_strides"
    progress_file.write_text(json.dumps({"version": 1, "exercises": {
        "01_strides": {"q1": {"status": "correct", "attempts": 2, "hints": [], "solution_viewed": False}}}}))
    rows = {(r["exercise"], r["question"]): r for r in progress.show_progress().rows}
    assert rows[("03_strides", "q1")]["status"] == "correct"
    ex = all_exercises()["03_strides"]
    sol = load(ROOT / "solutions" / ex.notebook)
    nb = solve(as_submission(sol, "01_strides"), sol)  # released under the old name
    p = tmp_path / "old.ipynb"
    p.write_text(dumps(nb), encoding="utf-8")
    r = grade_submission(p, AnswerKey(ex, ROOT / "solutions" / ex.notebook), LIMITS)
    assert r.score == r.max_score and not r.flags, r.to_dict()


# ---- 07_numpy_sharing agrees with NumPy ------------------------------------------------------------
def test_numpy_sharing_reference_agrees_with_numpy():
    import random

    import numpy as np
    from numpy.lib.array_utils import byte_bounds as np_byte_bounds
    from numpy.lib.stride_tricks import as_strided

    ns = answers_of("07_numpy_sharing")
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    base = x.__array_interface__["data"][0]

    def describe(a):
        return (a.__array_interface__["data"][0] - base, a.shape, a.strides, a.itemsize)
    made = [x, x.T, x[1], x[:, 0], x[:, ::2], x[:, 1::2], x[::-1, ::-1], x[3], x[:2], x[2:],
            x.reshape(-1).view(np.uint8)[5:8], np.broadcast_to(x[0, 2:], (5, 4)), x[1, 5, ...]]
    assert [describe(a) for a in made] == ns.VIEWS  # the table is what NumPy does

    buf = np.zeros(256, np.uint8)
    start = buf.__array_interface__["data"][0]

    def make(view):
        offset, shape, strides, itemsize = view
        return as_strided(np.ndarray((1,), dtype=f"V{itemsize}", buffer=buf, offset=offset), shape, strides)
    rng = random.Random(7)
    for (v,) in ns._visible_q1() + ns._random_q1(rng, 300):
        low, high = np_byte_bounds(make(v))
        assert ns.byte_bounds(v) == (low - start, high - start), v
    pairs = ns._visible_pairs() + ns._random_pairs(rng, 600)
    for a, b in pairs:
        A, B = make(a), make(b)
        assert ns.may_share_memory(a, b) == np.may_share_memory(A, B), (a, b)
        assert ns.shares_memory(a, b) == np.shares_memory(A, B), (a, b)
    # the cases tell the two tests apart: bounds that overlap without a shared byte are common
    assert sum(ns.may_share_memory(a, b) and not ns.shares_memory(a, b) for a, b in pairs) > 30
