"""One regression test per hole in the grader's trust boundary (issue 9), and one per way an
honest learner lost points to the grader's own limits.

Each test builds its notebook from the solutions notebook (an attack, or an honest variant),
grades it end to end as `make grade` does, and checks the one property the hole broke: a
wrong or empty answer gains no point, the batch finishes with a row for every file, and an
honest notebook keeps full marks. The attacks live here, in the test tree, never in the
course's own files.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from minitorch_course.exercises import get_exercise
from minitorch_course.grading import cli
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import ALT_CORRECT, add_cell, as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps

ROOT = Path(__file__).resolve().parents[1]
LIMITS = Limits(step_seconds=1.5, memory_mb=512)

pytestmark = pytest.mark.timeout(180)

CORRECT_Q1 = '''def contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))
'''


def _key(name):
    ex = get_exercise(name)
    path = ROOT / "solutions" / ex.notebook
    sol = load(path)
    return AnswerKey(ex, path, scoring_mode="all"), sol, solve(as_submission(sol, ex.name), sol)


@pytest.fixture(scope="module")
def strides():
    return _key("03_strides")


@pytest.fixture(scope="module")
def vectorise():
    return _key("17_vectorise")


def write(folder, name, nb):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_bytes(nb if isinstance(nb, bytes) else dumps(nb).encode())
    return p


def grade_all(key, paths):
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda p: grade_submission(p, key, LIMITS), paths))


def points(result):
    return {q.id: q.points for q in result.questions}


def run_cli(class_dir, out, *extra):
    return cli.main([str(class_dir), "--exercise", "03_strides", "--out", str(out), "--timeout", "1.5",
                     "--memory-mb", "512", "--jobs", "2", "--quiet", "--scoring", "all", *extra])


# ---- 1. nothing the sandbox says about itself is believed ----------------------------------------
REPORT_SAYS_CORRECT = CORRECT_Q1.replace("def contiguous_strides", "def _honest") + '''
import sys
def contiguous_strides(shape):
    f = sys._getframe(1)
    while f is not None:  # the harness's own report of this question, in a caller's frame
        for value in list(f.f_locals.values()):
            if isinstance(value, dict) and value.get("event") == "question":
                value["died"], value["reason"], value["results"] = "correct", "is correct", []
        f = f.f_back
    return ()
'''

FORGED_REPORT_LINE = '''
import sys, os
def contiguous_strides(shape):
    f = sys._getframe(1)
    while f is not None:  # the nonce and the channel, read from the harness's frames
        names = f.f_locals
        if "nonce" in names:
            fd = names.get("result_fd", names.get("channel"))
            line = names["nonce"] + "\\t" + '{"event": "question", "id": "q1", "results": [], "died": "correct"}\\n'
            os.write(fd, line.encode())
            os._exit(0)
        f = f.f_back
    return ()
'''


@pytest.mark.parametrize("source", [REPORT_SAYS_CORRECT, FORGED_REPORT_LINE], ids=["rewritten-report", "forged-line"])
def test_a_status_the_sandbox_reports_is_not_believed(tmp_path, strides, source):
    key, _sol, solved = strides
    r = grade_submission(write(tmp_path, "s.ipynb", set_cell(solved, "contiguous_strides", source)), key, LIMITS)
    assert r.verdict == "graded"
    assert points(r)["q1"] == 0 and r.questions[0].status != "correct", r.to_dict()


def test_correct_needs_every_case_compared_by_the_grader(strides):
    """Below the static rules: a run whose report claims a status, or brings fewer results
    than cases, never makes a question correct."""
    from minitorch_course.grading import grader
    from minitorch_course.grading.sandbox import RunResult
    key, _sol, _solved = strides
    k = key.questions[0]
    from minitorch_course.grading.harness import encode
    right = [encode(e) for e in k.expected]
    claims = [{"event": "question", "id": "q1", "results": [], "died": "correct", "found": "function"},
              {"event": "question", "id": "q1", "results": [], "timeout": True, "found": "function"},
              {"event": "question", "id": "q1", "results": right[:-1], "found": "function", "correct": True}]
    for rep in claims:
        run = RunResult(questions={"q1": rep}, cells={"contiguous_strides": {"died": "correct"}})
        g = grader._judge_question(k, run, {"contiguous_strides": "contiguous_strides"}, key.exercise, [], LIMITS)
        assert g.points == 0 and g.status != "correct", (rep, g)


# ---- 2. arrays by identity, lengths before elements ---------------------------------------------
FAKE_NDARRAY = '''
class ndarray:
    """Says it is numpy.ndarray of the right shape and dtype, and holds no values."""
    __module__ = "numpy"

    def __init__(self, shape):
        self.shape, self.dtype, self.size = shape, "float64", 0

    def tolist(self):
        return []

    def reshape(self, *shape):
        return self


def pairwise_sq_dists(X, Y):
    return ndarray((len(X), len(Y)))
'''


def test_an_object_named_ndarray_with_no_values_gets_nothing(tmp_path, vectorise):
    key, _sol, solved = vectorise
    r = grade_submission(write(tmp_path, "s.ipynb", set_cell(solved, "pairwise_sq_dists", FAKE_NDARRAY)), key, LIMITS)
    assert points(r)["q1"] == 0 and r.questions[0].status == "incorrect", r.to_dict()
    assert points(r)["q2"] > 0 and points(r)["q3"] > 0


@pytest.mark.parametrize("forged", [
    {"t": "array", "kind": "ndarray", "dtype": "float64", "shape": [2, 2], "v": {"t": "list", "v": [], "len": 0}},
    {"t": "array", "kind": "ndarray", "dtype": "float64", "shape": [2, 2], "flat": []},
    {"t": "array", "kind": "ndarray", "dtype": "float64", "shape": [2, 2], "flat": [0.0, 0.0, 0.0]},
    {"t": "array", "kind": "ndarray", "dtype": "float64", "shape": [2, 2], "flat": [0.0, 0.0, 0.0, 0.0, 0.0]},
    {"t": "array", "kind": "ndarray", "dtype": "float64", "shape": [2, 2], "flat": ["0", 0.0, 0.0, 0.0]},
    {"t": "array", "kind": "ndarray", "dtype": "float64", "shape": [4], "flat": [0.0, 0.0, 0.0, 0.0]},
    {"t": "array", "kind": "ndarray", "dtype": "float64", "shape": [2, 2]},
    {"t": "tuple", "v": [{"t": "float", "v": 0.0}], "len": 4},
])
def test_forged_arrays_never_compare_equal(forged):
    import numpy as np

    from minitorch_course.spec import as_array, compare_values, decode
    assert compare_values(as_array(np.zeros((2, 2))), decode(forged)) is not None


# ---- 3. one student never stops the batch --------------------------------------------------------
SURROGATE_ERROR = CORRECT_Q1.replace("    return tuple(reversed(strides))",
                                     "    raise ValueError('bad \\udc80 byte \\ud800 here')")


@pytest.mark.skipif(sys.platform != "linux", reason="file names that are not UTF-8 are a Linux matter here")
def test_odd_text_and_file_names_never_crash_the_gradebook(tmp_path, strides):
    key, _sol, solved = strides
    cls = tmp_path / "class"
    write(cls, "alice.ipynb", set_cell(solved, "contiguous_strides", SURROGATE_ERROR))
    write(cls, "bob.ipynb", solved)
    good = dumps(solved).encode()
    (cls / os.fsdecode(b"caf\xe9 \xff.ipynb")).write_bytes(good)  # a file name that is not UTF-8
    assert run_cli(cls, tmp_path / "out") == 0
    rows = list(csv.DictReader(open(tmp_path / "out" / "gradebook.csv", encoding="utf-8")))
    assert len(rows) == 3
    book = json.loads((tmp_path / "out" / "gradebook.json").read_text(encoding="utf-8"))
    assert len(book["submissions"]) == 3
    scores = sorted(float(r["score"]) for r in rows)
    assert scores == [5.0, 7.0, 7.0]
    for s in book["submissions"]:
        assert (tmp_path / "out" / s["feedback"]).is_file()


def test_a_crash_of_the_grader_on_one_file_is_that_files_row(tmp_path, strides, monkeypatch):
    key, _sol, solved = strides
    cls = tmp_path / "class"
    for name in ("a.ipynb", "b.ipynb", "c.ipynb"):
        write(cls, name, solved)
    real = cli.grade_submission

    def flaky(path, *args, **kwargs):
        if Path(path).name == "b.ipynb":
            raise SystemExit("the grader fell over")
        return real(path, *args, **kwargs)
    monkeypatch.setattr(cli, "grade_submission", flaky)
    assert run_cli(cls, tmp_path / "out") == 0
    rows = {Path(r["file"]).name: r for r in csv.DictReader(open(tmp_path / "out" / "gradebook.csv", encoding="utf-8"))}
    assert set(rows) == {"a.ipynb", "b.ipynb", "c.ipynb"}
    assert rows["b.ipynb"]["verdict"] == "grader_error" and float(rows["b.ipynb"]["score"]) == 0
    assert float(rows["a.ipynb"]["score"]) == float(rows["c.ipynb"]["score"]) == 7


# ---- 4. symlinks are refused; a copy of the solutions is flagged ---------------------------------
def test_a_symlink_to_the_solutions_is_refused_and_a_copy_flagged(tmp_path, strides):
    key, _sol, _solved = strides
    cls = tmp_path / "class"
    cls.mkdir()
    (cls / "mallory.ipynb").symlink_to(key.path)
    (cls / "linked_folder").symlink_to(key.path.parent, target_is_directory=True)
    shutil.copy(key.path, cls / "trudy.ipynb")
    assert run_cli(cls, tmp_path / "out") == 0
    rows = {Path(r["file"]).name: r for r in csv.DictReader(open(tmp_path / "out" / "gradebook.csv", encoding="utf-8"))}
    assert float(rows["mallory.ipynb"]["score"]) == 0 and rows["mallory.ipynb"]["verdict"] == "refused"
    assert rows["linked_folder"]["verdict"] == "refused" and float(rows["linked_folder"]["score"]) == 0
    assert "instructor's solutions" in rows["trudy.ipynb"]["flags"]


# ---- 5. one time budget per submission; capped reruns and added cells ----------------------------
STUBBORN = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n"


def test_cells_that_ignore_the_alarm_cost_a_bounded_number_of_runs(tmp_path, strides):
    key, _sol, solved = strides
    nb = solved
    for _ in range(8):
        nb = add_cell(nb, STUBBORN, at=3)
    r = grade_submission(write(tmp_path, "s.ipynb", nb), key, LIMITS)
    assert r.verdict == "graded" and r.score == 7, r.to_dict()
    assert r.runs <= len(key.questions) + 3, r.runs
    assert any("not run" in n for n in r.notes), r.notes


def test_many_slow_cells_are_cut_and_the_questions_still_run(tmp_path, strides):
    key, _sol, solved = strides
    nb = solved
    for i in range(40):
        nb = add_cell(nb, f"import time\ntime.sleep(0.5)\nSLEPT_{i} = True\n", at=3)
    r = grade_submission(write(tmp_path, "s.ipynb", nb), key, LIMITS)
    assert r.verdict == "graded" and r.score == 7, r.to_dict()
    assert any("time budget" in n and "not run" in n for n in r.notes), r.notes


def test_added_cells_are_capped(tmp_path, strides):
    key, _sol, solved = strides
    nb = solved
    for i in range(80):
        nb = add_cell(nb, f"X{i} = {i}\n")
    r = grade_submission(write(tmp_path, "s.ipynb", nb), key, LIMITS)
    assert r.score == 7 and any("were not run" in n and "at most" in n for n in r.notes), r.notes


# ---- 6. how-to-solve-it rules are read statically, and check() applies the same ------------------
MAP_LAMBDA = '''import numpy as np
pairwise_sq_dists = lambda X, Y: np.array(list(map(lambda x: ((np.asarray(x, dtype=np.float64) - np.asarray(Y, dtype=np.float64)) ** 2).sum(axis=1), X)), dtype=np.float64).reshape(len(X), len(Y))
'''
METHOD_LOOP = '''import numpy as np


class _Rows:
    def run(self, X, Y):
        X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
        D = np.zeros((len(X), len(Y)))
        for i in range(len(X)):
            D[i] = ((X[i] - Y) ** 2).sum(axis=1)
        return D


def pairwise_sq_dists(X, Y):
    return _Rows().run(X, Y)
'''
EXEC_LOOP = '''import numpy as np
exec("""
def pairwise_sq_dists(X, Y):
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    D = np.zeros((len(X), len(Y)))
    for i in range(len(X)):
        D[i] = ((X[i] - Y) ** 2).sum(axis=1)
    return D
""")
'''
MUTUAL_RECURSION = '''import numpy as np


def _even(X, Y, i, acc):
    return acc if i == len(X) else _odd(X, Y, i, acc)


def _odd(X, Y, i, acc):
    acc[i] = ((X[i] - Y) ** 2).sum(axis=1)
    return _even(X, Y, i + 1, acc)


def pairwise_sq_dists(X, Y):
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    return _even(X, Y, 0, np.zeros((len(X), len(Y))))
'''
NDARRAY_TYPE = '''import numpy as np


def contiguous_strides(shape):
    a = np.ndarray((len(shape),), dtype=object)  # a type, not a function: never disarmed
    a[:] = [*shape[1:], 1] if shape else []
    return tuple(int(x) for x in a[::-1].cumprod()[::-1])
'''


@pytest.mark.parametrize("exercise, gid, source", [
    ("17_vectorise", "pairwise_sq_dists", MAP_LAMBDA),
    ("17_vectorise", "pairwise_sq_dists", METHOD_LOOP),
    ("17_vectorise", "pairwise_sq_dists", EXEC_LOOP),
    ("17_vectorise", "pairwise_sq_dists", MUTUAL_RECURSION),
    ("03_strides", "contiguous_strides", NDARRAY_TYPE),
], ids=["map-lambda", "loop-in-a-method", "exec", "recursion-through-two", "numpy-type-and-methods"])
def test_evasions_of_the_how_to_rules_get_nothing(tmp_path, exercise, gid, source):
    key, _sol, solved = _key(exercise)
    r = grade_submission(write(tmp_path, "s.ipynb", set_cell(solved, gid, source)), key, LIMITS)
    q = r.questions[0]
    assert q.points == 0 and q.status == "forbidden", r.to_dict()


# ---- 7. drivers run with fresh globals and the real builtins --------------------------------------
SWAPPED_BUILTINS = '''import builtins as _b
__builtins__ = dict(_b.__dict__, RuntimeError=Exception)  # the driver's `except RuntimeError` now catches anything
'''


def test_the_learners_builtins_do_not_change_what_a_driver_catches(tmp_path):
    key, sol, solved = _key("06_inplace_version")
    wrong = [c for c in sol["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "saved_value"][0]
    wrong = "".join(wrong["source"]).replace("raise RuntimeError(", "raise ValueError(")
    nb = add_cell(set_cell(solved, "saved_value", wrong), SWAPPED_BUILTINS, at=2)
    r = grade_submission(write(tmp_path, "s.ipynb", nb), key, LIMITS)
    assert points(r)["q2"] == 0 and r.questions[1].status != "correct", r.to_dict()


def test_drivers_see_real_builtins_even_without_the_static_rules():
    """The runtime layer alone: a learner's swapped __builtins__ does not reach the driver."""
    from minitorch_course.grading.harness import encode
    from minitorch_course.grading.sandbox import run_submission
    cells = [{"id": "learner", "kind": "solution", "source": "__builtins__ = dict(vars(__builtins__) if not "
              "isinstance(__builtins__, dict) else __builtins__, KeyError=Exception)\n"
              "def boom():\n    raise ValueError('not a KeyError')\n"},
             {"id": "driver:d", "kind": "driver", "source": "def drive(x):\n    try:\n        boom()\n"
              "    except KeyError:\n        return 'caught'\n    return 'not raised'\n"}]
    qs = [{"id": "q", "function": "drive", "driver": True, "cases": [[encode(1)]]}]
    run = run_submission(cells, qs, LIMITS, answers=["boom"])
    (result,) = run.questions["q"]["results"]
    assert result["t"] == "raised" and result["error"]["type"] == "ValueError", result


# ---- 8. smaller holes ------------------------------------------------------------------------------
ERASE_REFUSALS = '''import sys
import numpy as np


def contiguous_strides(shape):
    try:
        np.zeros(1)  # refused: raises ForbiddenCallError, and leaves a record of it
    except Exception:
        pass
    f = sys._getframe(1)
    while f is not None:  # ... which is then erased from the harness's memory
        for value in list(f.f_locals.values()):
            if isinstance(value, list) and all(isinstance(v, dict) and "what" in v for v in value):
                value.clear()
        f = f.f_back
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))
'''


def test_an_erased_refusal_log_does_not_unforbid(tmp_path, strides):
    key, _sol, solved = strides
    r = grade_submission(write(tmp_path, "s.ipynb", set_cell(solved, "contiguous_strides", ERASE_REFUSALS)), key, LIMITS)
    assert points(r)["q1"] == 0 and r.questions[0].status == "forbidden", r.to_dict()


def test_refusals_are_recorded_by_the_grader_as_they_happen():
    from minitorch_course.grading.harness import encode
    from minitorch_course.grading.sandbox import run_submission
    cells = [{"id": "a", "kind": "solution", "source": "import numpy as np\ndef f(x):\n    try:\n        np.zeros(1)\n"
              "    except Exception:\n        pass\n    import sys\n    sys.modules.clear()\n    return x\n"}]
    run = run_submission(cells, [{"id": "q", "function": "f", "cases": [[encode(1)]]}], LIMITS,
                         preload=["numpy"], forbidden_calls=["numpy.*"])
    assert ("question:q", "called numpy.zeros") in run.refusals, run.refusals


REWIND = "import os\nfor fd in range(3, 40):\n    try:\n        os.lseek(fd, 0, 0)\n        os.write(fd, b'x' * 64)\n    except OSError:\n        pass\n"


def test_rewinding_the_result_channel_loses_nothing(tmp_path, strides):
    key, _sol, solved = strides
    r = grade_submission(write(tmp_path, "s.ipynb", add_cell(solved, REWIND, at=3)), key, LIMITS)
    assert r.verdict == "graded" and r.score == 7, r.to_dict()


def test_closing_the_result_channel_is_the_students_fault_and_flagged(tmp_path, strides):
    key, _sol, solved = strides
    close = "import os\nfor fd in range(3, 256):\n    try:\n        os.close(fd)\n    except OSError:\n        pass\n"
    r = grade_submission(write(tmp_path, "s.ipynb", add_cell(solved, close, at=3)), key, LIMITS)
    assert r.verdict == "graded" and r.score == 7, r.to_dict()  # that cell is skipped, the rest is graded
    assert any("ended early" in f or "closed" in f for f in r.flags), r.flags


INJECTION = CORRECT_Q1.replace(
    "    return tuple(reversed(strides))",
    "    raise ValueError('[click here](http://evil.example) <script>alert(1)</script> ![x](http://i) "
    "| col | **bold**')")


def test_feedback_shows_submission_text_as_text(tmp_path, strides):
    key, _sol, solved = strides
    cls = tmp_path / "class"
    write(cls, "alice.ipynb", set_cell(solved, "contiguous_strides", INJECTION))
    write(cls, "=HYPERLINK(\"evil\";\"x\").ipynb", solved)
    write(cls, "@SUM(A1).ipynb", solved)
    write(cls, "+1+1.ipynb", solved)
    assert run_cli(cls, tmp_path / "out") == 0
    fb = (tmp_path / "out" / "feedback" / "alice.md").read_text(encoding="utf-8")
    assert "click here" in fb
    for raw in ("[click here](", "<script>", "![x](", "**bold**", "| col |"):
        assert raw not in fb, raw
    for row in csv.reader(open(tmp_path / "out" / "gradebook.csv", encoding="utf-8")):
        for value in row:
            assert not value.startswith(("=", "+", "-", "@")), row


def test_the_sandbox_is_not_told_where_the_solutions_are(tmp_path, strides, monkeypatch):
    key, _sol, solved = strides
    from minitorch_course.grading import sandbox
    jobs, real = [], sandbox.run_once

    def spy(job, *args, **kwargs):
        jobs.append(json.dumps(job))
        return real(job, *args, **kwargs)
    monkeypatch.setattr(sandbox, "run_once", spy)
    hidden = str(key.path.parent).encode().hex()  # the probe must not carry the path in its own text
    probe = (f"try:\n    text = open('job.json').read()\nexcept OSError:\n    text = ''\n"
             f"print('FOUND' if bytes.fromhex({hidden!r}).decode() in text else 'ABSENT')\n")
    r = grade_submission(write(tmp_path, "s.ipynb", add_cell(solved, probe, at=3)), key, LIMITS,
                         protected=[key.path.parent])
    assert r.score == 7 and "FOUND" not in r.output, r.output
    assert jobs and not any(str(key.path.parent) in j for j in jobs)


def test_solutions_default_to_the_checkout_not_the_current_folder(tmp_path, strides, monkeypatch):
    key, _sol, solved = strides
    (tmp_path / "here" / "solutions").mkdir(parents=True)
    (tmp_path / "here" / "solutions" / "03_strides.ipynb").write_text("{ not a notebook")
    write(tmp_path / "class", "a.ipynb", solved)
    monkeypatch.chdir(tmp_path / "here")
    assert run_cli(tmp_path / "class", tmp_path / "out") == 0
    rows = list(csv.DictReader(open(tmp_path / "out" / "gradebook.csv", encoding="utf-8")))
    assert float(rows[0]["score"]) == 7


# ---- honest learners never lose a point to the grader's limits -------------------------------------
def test_debug_prints_beyond_the_output_limit_cost_nothing(tmp_path, strides):
    key, _sol, solved = strides
    noisy_fi = ALT_CORRECT["flat_index"].replace("    return offset", "    print('debug', 'x' * 100_000)\n    return offset")
    noisy_cs = CORRECT_Q1.replace("    return tuple(reversed(strides))",
                                  "    print(shape, 'y' * 50_000)\n    return tuple(reversed(strides))")
    nb = set_cell(set_cell(solved, "flat_index", noisy_fi), "contiguous_strides", noisy_cs)
    r = grade_submission(write(tmp_path, "s.ipynb", nb), key, LIMITS)
    assert r.score == 7, r.to_dict()
    # truncated with a note, in the feedback and in the row's output, never silently
    from minitorch_course.grading.gradebook import feedback_text
    assert any("printed more than the grader keeps" in n and "truncated" in n for n in r.notes), r.notes
    assert "printed more than the grader keeps" in feedback_text(r, key.name)
    assert r.output.endswith("grading is not affected]") and "truncated" in r.output.splitlines()[-1]


def test_stored_outputs_are_not_counted_against_the_size_limit(tmp_path, strides):
    key, _sol, solved = strides
    nb = json.loads(dumps(solved))
    big = "x" * (1 << 20)
    for c in nb["cells"]:
        if c["cell_type"] == "code":
            c["outputs"] = [{"output_type": "stream", "name": "stdout", "text": [big] * 3}]
    path = write(tmp_path, "s.ipynb", nb)
    assert path.stat().st_size > 30 << 20
    r = grade_submission(path, key, LIMITS)
    assert r.verdict == "graded" and r.score == 7, (r.verdict, r.reason)


def test_common_magics_do_not_blank_a_cell(tmp_path, strides):
    key, _sol, solved = strides
    nb = set_cell(solved, "contiguous_strides", "%%time\n" + CORRECT_Q1)
    nb = set_cell(nb, "flat_index", "%matplotlib inline\n!pip install nothing\n%timeit -n 1 -r 1 1 + 1\n"
                  + ALT_CORRECT["flat_index"])
    r = grade_submission(write(tmp_path, "s.ipynb", nb), key, LIMITS)
    assert r.score == 7, r.to_dict()
    assert any("%%time" in n for n in r.notes) and any("pip install" in n for n in r.notes), r.notes


def test_a_learners_warning_is_not_tampering(tmp_path, strides):
    key, _sol, solved = strides
    warn = CORRECT_Q1.replace("def contiguous_strides(shape):\n",
                              "import warnings\n\n\ndef contiguous_strides(shape):\n"
                              "    warnings.warn('strides are in elements', DeprecationWarning, stacklevel=2)\n"
                              "    warnings.warn('really', UserWarning, stacklevel=3)\n")
    r = grade_submission(write(tmp_path, "s.ipynb", set_cell(solved, "contiguous_strides", warn)), key, LIMITS)
    assert r.score == 7 and not r.flags, (r.flags, r.notes)


@pytest.mark.skipif(sys.platform != "linux", reason="file names that are not UTF-8 are a Linux matter here")
def test_the_old_and_new_layouts_of_a_class_folder_give_a_row_per_file(tmp_path, strides):
    """Every file that looks like a submission gets a row with a clear message (hidden folders
    such as .ipynb_checkpoints excepted), whatever its name or content."""
    key, _sol, solved = strides
    cls = tmp_path / "class"
    write(cls, "ok.ipynb", solved)
    write(cls, "UPPER.IPYNB", solved)
    write(cls, ".hidden_student.ipynb", solved)
    write(cls / "nested" / "deeper", "n.ipynb", solved)
    write(cls, "empty.ipynb", b"")
    os.mkfifo(cls / "fifo.ipynb")
    write(cls / ".ipynb_checkpoints", "ok-checkpoint.ipynb", solved)
    assert run_cli(cls, tmp_path / "out") == 0
    rows = {Path(r["file"]).name: r for r in csv.DictReader(open(tmp_path / "out" / "gradebook.csv", encoding="utf-8"))}
    assert set(rows) == {"ok.ipynb", "UPPER.IPYNB", ".hidden_student.ipynb", "n.ipynb", "empty.ipynb", "fifo.ipynb"}
    assert rows["fifo.ipynb"]["verdict"] == "refused" and rows["empty.ipynb"]["verdict"] == "malformed"
    assert all(r["reason"] or r["verdict"] == "graded" for r in rows.values())


def test_an_internal_error_is_tried_once_more_and_then_is_that_files_verdict(tmp_path, strides, monkeypatch):
    """A transient failure of the grader's own machinery (the OS refusing a process under load)
    costs the learner nothing; one that stays is a grader_error with zero points, never a crash."""
    from minitorch_course.grading import grader
    key, _sol, solved = strides
    path = write(tmp_path, "a.ipynb", solved)
    real, calls = grader._grade, []

    def once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OSError("Resource temporarily unavailable")
        return real(*args, **kwargs)
    monkeypatch.setattr(grader, "_grade", once)
    res = grade_submission(path, key, Limits())
    assert len(calls) == 2 and res.verdict == "graded" and res.score == res.max_score

    def always(*args, **kwargs):
        raise OSError("Resource temporarily unavailable")
    monkeypatch.setattr(grader, "_grade", always)
    res = grade_submission(path, key, Limits())
    assert res.verdict == "grader_error" and res.score == 0 and "OSError" in res.reason
    assert all(q.status == "error" for q in res.questions)
