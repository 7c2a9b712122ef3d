"""Ways around an exercise's rules that do what a forbidden function does, closed in the
exercise specs (forbidden_types, forbidden_attributes) and decided by reading the source, the
same in check() and in the grader:

- 15_im2col forbids as_strided and sliding_window_view; np.ndarray(shape, buffer=...,
  strides=...), setting an array's .strides and handing NumPy an __array_interface__ lay any
  strides over a buffer just the same;
- 03_strides is plain Python; memoryview(...).cast(...).strides computes the strides of a
  contiguous layout, and memoryview is a builtin.

Each is refused by check() and by the grader, while an honest answer that merely uses NumPy
(15) or plain Python (03) still passes.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from minitorch_course import load_exercise
from minitorch_course.exercises import get_exercise
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps

ROOT = Path(__file__).resolve().parents[1]
LIMITS = Limits(step_seconds=5.0, memory_mb=512)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_PROGRESS", str(tmp_path / "progress.json"))


HONEST_IM2COL = '''
def im2col(image, kernel_size, stride=1, padding=0):
    import numpy as np
    pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    (kh, kw), (sh, sw), (ph, pw) = pair(kernel_size), pair(stride), pair(padding)
    a = np.pad(np.array(image, dtype=float), ((0, 0), (ph, ph), (pw, pw)))
    c, h, w = a.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    cols = [a[ch, i:i + sh * oh:sh, j:j + sw * ow:sw].reshape(-1)
            for ch in range(c) for i in range(kh) for j in range(kw)]
    return np.stack(cols).tolist()
'''

# The window view, made without the forbidden helpers: every one computes the right answer.
_WINDOWS = '''
def im2col(image, kernel_size, stride=1, padding=0):
    import numpy as np
    pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    (kh, kw), (sh, sw), (ph, pw) = pair(kernel_size), pair(stride), pair(padding)
    a = np.ascontiguousarray(np.pad(np.array(image, dtype=float), ((0, 0), (ph, ph), (pw, pw))))
    c, h, w = a.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    s0, s1, s2 = a.strides
    shape, strides = (c, kh, kw, oh, ow), (s0, s1, s2, s1 * sh, s2 * sw)
    VIEW
    return np.ascontiguousarray(v).reshape(c * kh * kw, oh * ow).tolist()
'''
NDARRAY = _WINDOWS.replace("VIEW", "v = np.ndarray(shape, dtype=a.dtype, buffer=a, strides=strides)")
NDARRAY_NEW = _WINDOWS.replace("VIEW", "v = np.ndarray.__new__(np.ndarray, shape, a.dtype, a, 0, strides)")
NDARRAY_ALIAS = _WINDOWS.replace("VIEW", "make = np.ndarray\n    v = make(shape, a.dtype, a, 0, strides)")
SET_STRIDES = _WINDOWS.replace("VIEW", "v = np.broadcast_to(a.reshape(-1)[:1], shape)\n    v.strides = strides")
INTERFACE = _WINDOWS.replace("VIEW", "class W:\n        pass\n    w = W()\n"
                                     "    w.__array_interface__ = dict(a.__array_interface__, shape=shape, strides=strides)\n"
                                     "    v = np.asarray(w)")
INTERFACE_SETATTR = _WINDOWS.replace("VIEW", "class W:\n        pass\n    w = W()\n"
                                             "    setattr(w, '__array_interface__', dict(a.__array_interface__, shape=shape, "
                                             "strides=strides))\n    v = np.asarray(w)")

HONEST_STRIDES = '''
def contiguous_strides(shape):
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))
'''
MEMORYVIEW = '''
def contiguous_strides(shape):
    if 0 in shape or any(n > 2 ** 20 for n in shape):
        out, step = [], 1
        for n in reversed(shape):
            out.append(step)
            step *= n
        return tuple(reversed(out))
    n = 1
    for s in shape:
        n *= s
    return tuple(s // 1 for s in memoryview(bytearray(n)).cast("B", shape).strides) if shape else ()
'''
MEMORYVIEW_ALIAS = MEMORYVIEW.replace('memoryview(bytearray(n))', 'mv(bytearray(n))').replace(
    "def contiguous_strides(shape):", "mv = memoryview\n\n\ndef contiguous_strides(shape):")


def _function(tmp_path, source, name):
    """The learner's function, compiled from a file (check() reads its source, as in a notebook)."""
    path = tmp_path / f"answer_{abs(hash(source))}.py"
    path.write_text(textwrap.dedent(source))
    ns = {"__name__": "answer"}
    exec(compile(path.read_text(), str(path), "exec"), ns)  # noqa: S102 - the test's own code
    return ns[name]


def _grade(tmp_path, name, cell, source):
    ex = get_exercise(name)
    path = ROOT / "solutions" / ex.notebook
    key, sol = AnswerKey(ex, path), load(path)
    nb = set_cell(solve(as_submission(sol, ex.name), sol), cell, textwrap.dedent(source))
    sub = tmp_path / "sub.ipynb"
    sub.write_text(dumps(nb), encoding="utf-8")
    return grade_submission(sub, key, LIMITS)


def test_the_honest_answers_pass_both(tmp_path):
    assert load_exercise("15_im2col")[1].evaluate(_function(tmp_path, HONEST_IM2COL, "im2col")).status == "correct"
    assert load_exercise("03_strides")[0].evaluate(
        _function(tmp_path, HONEST_STRIDES, "contiguous_strides")).status == "correct"
    r = _grade(tmp_path, "15_im2col", "im2col", HONEST_IM2COL)
    assert r.questions[1].status == "correct", r.to_dict()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("source, words", [
    (NDARRAY, "numpy.ndarray"), (NDARRAY_NEW, "numpy.ndarray"), (NDARRAY_ALIAS, "numpy.ndarray"),
    (SET_STRIDES, "sets .strides"), (INTERFACE, "__array_interface__"), (INTERFACE_SETATTR, "__array_interface__"),
], ids=["ndarray", "ndarray.__new__", "ndarray-alias", "set-strides", "array-interface", "array-interface-setattr"])
def test_im2col_windows_without_as_strided_are_refused(tmp_path, source, words):
    fn = _function(tmp_path, source, "im2col")
    assert fn([[[1.0, 2.0], [3.0, 4.0]]], 1) == [[1.0, 2.0, 3.0, 4.0]]  # it does compute the answer
    r = load_exercise("15_im2col")[1].evaluate(fn)
    assert r.status == "incorrect" and words in r.message, r.lines()
    g = _grade(tmp_path, "15_im2col", "im2col", source)
    q = g.questions[1]
    assert q.status == "forbidden" and q.points == 0 and words in q.reason, q


@pytest.mark.parametrize("source", [MEMORYVIEW, MEMORYVIEW_ALIAS], ids=["memoryview", "alias"])
def test_strides_from_memoryview_are_refused(tmp_path, source):
    fn = _function(tmp_path, source, "contiguous_strides")
    assert fn((2, 3, 4)) == (12, 4, 1)  # it does compute the answer
    r = load_exercise("03_strides")[0].evaluate(fn)
    assert r.status == "incorrect" and "memoryview" in r.message, r.lines()
    g = _grade(tmp_path, "03_strides", "contiguous_strides", source)
    q = g.questions[0]
    assert q.status == "forbidden" and q.points == 0 and "memoryview" in q.reason, q
