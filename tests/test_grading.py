"""The grader: full marks for the solutions, zero for untouched exercises, one verdict per
submission whatever it contains, a gradebook and feedback from one command."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from minitorch_course.exercises import all_exercises, get_exercise
from minitorch_course.grading import cli, grader
from minitorch_course.grading.grader import AnswerKey, AnswerKeyError, grade_submission
from minitorch_course.grading.harness import encode
from minitorch_course.grading.gradebook import md
from minitorch_course.grading.sample_class import (ALT_CORRECT, add_cell, as_submission, load,
                                                   make_class, set_cell, solve, expected_score)
from minitorch_course.grading.sandbox import Limits, _Channel, run_submission
from minitorch_course.notebook import dumps, grade_id, nbgrader
from minitorch_course.spec import Foreign, decode

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions" / "03_strides.ipynb"
LIMITS = Limits(step_seconds=1.5, memory_mb=512)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def key():
    return AnswerKey(get_exercise("03_strides"), SOLUTIONS, scoring_mode="all")  # all or nothing


@pytest.fixture(scope="module")
def nbs():
    sol = load(SOLUTIONS)
    return sol, as_submission(sol)


def write(tmp_path, name, nb):
    p = tmp_path / name
    p.write_bytes(nb if isinstance(nb, bytes) else dumps(nb).encode())
    return p


# ---- the two CI guarantees --------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(all_exercises()))
def test_every_solution_notebook_scores_full_marks(name):
    ex = all_exercises()[name]
    k = AnswerKey(ex, ROOT / "solutions" / ex.notebook)
    r = grade_submission(ROOT / "solutions" / ex.notebook, k, LIMITS, self_test=True)
    assert r.verdict == "graded" and r.score == k.max_score > 0, r.to_dict()
    assert all(q.status == "correct" for q in r.questions)
    assert not r.flags, r.flags


@pytest.mark.parametrize("name", sorted(all_exercises()))
def test_every_untouched_exercise_scores_zero(name):
    ex = all_exercises()[name]
    k = AnswerKey(ex, ROOT / "solutions" / ex.notebook)
    r = grade_submission(ROOT / "exercises" / ex.notebook, k, LIMITS)
    assert r.verdict == "graded" and r.score == 0, r.to_dict()
    assert [q.status for q in r.questions] == ["not_attempted"] * len(ex.questions)
    assert not r.flags, r.flags  # an untouched exercise is not "tampered with"


def test_answer_key_comes_from_the_instructors_notebook(key):
    d = key.describe()
    cells = load(SOLUTIONS)["cells"]  # the points are the test cells' nbgrader points, in order
    want = [float(nbgrader(c)["points"]) for c in cells if nbgrader(c).get("grade")]
    assert [q["points"] for q in d["questions"]] == want
    assert d["max_score"] == sum(want)
    assert all(q["hidden_cases"] >= 150 for q in d["questions"])
    # reseeding changes the random hidden cases, not the rest
    other = AnswerKey(get_exercise("03_strides"), SOLUTIONS, seed="2025")
    assert [c.args for c in other.questions[0].cases] != [c.args for c in key.questions[0].cases]
    assert len(other.questions[0].cases) == len(key.questions[0].cases)


def test_a_broken_answer_key_is_refused(tmp_path, nbs):
    sol, _ = nbs
    bad = set_cell(sol, "test_flat_index", "q2.check()\n### BEGIN HIDDEN TESTS\nimport os\n### END HIDDEN TESTS")
    with pytest.raises(AnswerKeyError, match="hidden tests must be"):
        AnswerKey(get_exercise("03_strides"), write(tmp_path, "bad.ipynb", bad))
    nodef = set_cell(sol, "flat_index", "def flatindex(i, s, o=0):\n    ### BEGIN SOLUTION\n    return 0\n"
                                        "    ### END SOLUTION")
    with pytest.raises(AnswerKeyError, match="does not define flat_index"):
        AnswerKey(get_exercise("03_strides"), write(tmp_path, "nodef.ipynb", nodef))


# ---- one command for a class ---------------------------------------------------------------
def test_cli_grades_a_class_folder(tmp_path, capsys):
    kinds = ["correct", "correct_alt", "correct_noisy", "wrong", "partial", "untouched", "crash", "loop",
             "memory_bomb", "numpy_cheat", "malformed", "wrong_exercise"]
    made = make_class(tmp_path / "class", SOLUTIONS, n=len(kinds), kinds=kinds)
    # odd names, a nested nbgrader-style folder, a checkpoint and a stray file: all handled
    first = sorted(made)[0]
    (tmp_path / "class" / first).rename(tmp_path / "class" / "Zoë Ünïcode (final) v2.ipynb")
    made["Zoë Ünïcode (final) v2.ipynb"] = made.pop(first)
    (tmp_path / "class" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "class" / ".ipynb_checkpoints" / "x-checkpoint.ipynb").write_text("{}")
    (tmp_path / "class" / "notes.txt").write_text("not a notebook")
    out = tmp_path / "out"
    rc = cli.main([str(tmp_path / "class"), "--exercise", "03_strides", "--out", str(out),
                   "--timeout", "1.5", "--memory-mb", "512", "--jobs", "2", "--scoring", "all"])
    assert rc == 0
    log = capsys.readouterr().out
    key_all = AnswerKey(get_exercise("03_strides"), SOLUTIONS, scoring_mode="all")
    full = key_all.max_score
    assert f"self-test: the solutions score {full:g}/{full:g}" in log and f"{len(made)} submissions" in log

    rows = list(csv.DictReader(open(out / "gradebook.csv", encoding="utf-8")))
    assert len(rows) == len(made) + 1  # the stray file has a row of its own
    by_file = {Path(r["file"]).name: r for r in rows}
    assert by_file["notes.txt"]["verdict"] == "not_a_notebook" and by_file["notes.txt"]["score"] == "0"
    for fname, kind in made.items():
        row = by_file[fname]
        assert float(row["score"]) == expected_score(kind, key_all), (kind, row)
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    assert book["meta"]["exercise"] == "03_strides" and book["meta"]["submissions"] == len(made)
    verdicts = {Path(s["file"]).name: s["verdict"] for s in book["submissions"] if Path(s["file"]).name in made}
    assert {made[f]: v for f, v in verdicts.items()}["malformed"] == "malformed"
    assert {made[f]: v for f, v in verdicts.items()}["wrong_exercise"] == "wrong_exercise"
    for s in book["submissions"]:
        fb = (out / s["feedback"]).read_text(encoding="utf-8")
        assert f"Score: {s['score']:g} / {full:g}" in fb
        for q in s["questions"]:
            if q["status"] != "correct":
                assert q["reason"] and md(q["feedback"] or q["reason"]) in fb
    statuses = {made[Path(s["file"]).name]: {q["id"]: q["status"] for q in s["questions"]}
                for s in book["submissions"] if Path(s["file"]).name in made}
    assert statuses["crash"]["q2"] == "crashed"
    assert statuses["loop"]["q1"] == "timeout"
    assert statuses["numpy_cheat"]["q1"] == "forbidden"
    assert statuses["correct_noisy"] == {"q1": "correct", "q2": "correct", "q3": "correct"}


def test_cli_refuses_to_grade_with_a_broken_sandbox_or_key(tmp_path, nbs, capsys):
    sol, ex = nbs
    (tmp_path / "class").mkdir()
    write(tmp_path / "class", "a.ipynb", ex)
    wrong_key = set_cell(sol, "flat_index", "def flat_index(index, strides, offset=0):\n"
                                            "    ### BEGIN SOLUTION\n    return offset\n    ### END SOLUTION")
    ks = write(tmp_path, "key.ipynb", wrong_key)
    # a reference that the sandbox cannot reproduce: it reads a file the sandbox may not see
    secret = tmp_path / "secret.txt"
    secret.write_text("0")
    sneaky = set_cell(sol, "flat_index", "def flat_index(index, strides, offset=0):\n    ### BEGIN SOLUTION\n"
                                         f"    extra = int(open({str(secret)!r}).read())\n"
                                         "    return offset + extra + sum(i * s for i, s in zip(index, strides))\n"
                                         "    ### END SOLUTION")
    rc = cli.main([str(tmp_path / "class"), "--exercise", "03_strides", "--out", str(tmp_path / "o1"),
                   "--solutions", str(write(tmp_path, "sneaky.ipynb", sneaky)), "--timeout", "1.5"])
    assert rc == 2 and not (tmp_path / "o1").exists()
    assert "do not score full marks" in capsys.readouterr().err
    # a wrong reference is still a valid key: the self-test passes, students are graded against it
    rc = cli.main([str(tmp_path / "class"), "--exercise", "03_strides", "--out", str(tmp_path / "o2"),
                   "--solutions", str(ks), "--timeout", "1.5"])
    assert rc == 0
    assert cli.main([str(tmp_path / "class"), "--exercise", "99_nope", "--out", str(tmp_path / "o3")]) == 2
    assert cli.main([str(tmp_path / "nope"), "--exercise", "03_strides", "--out", str(tmp_path / "o4")]) == 2


def test_module_entry_point(tmp_path):
    (tmp_path / "class").mkdir()
    p = subprocess.run([sys.executable, "-m", "minitorch_course.grade", str(tmp_path / "class"),
                        "--exercise", "03_strides", "--out", str(tmp_path / "out"), "--quiet"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out" / "gradebook.csv").exists()


def test_student_ids_from_flat_and_nested_folders(tmp_path):
    for rel in ["alice/03_strides/03_strides.ipynb", "bob/03_strides/03_strides.ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True)
        (tmp_path / rel).write_text("{}")
    files = cli.find_submissions(tmp_path, "*.ipynb")
    assert cli.student_ids(files, tmp_path) == ["alice", "bob"]
    (tmp_path / "alice" / "extra.ipynb").write_text("{}")
    files = cli.find_submissions(tmp_path, "*.ipynb")
    assert cli.student_ids(files, tmp_path) == ["alice/03_strides/03_strides", "alice/extra",
                                                "bob/03_strides/03_strides"]


# ---- one verdict per submission, whatever is in it ----------------------------------------------
@pytest.mark.parametrize("content, verdict, why", [
    (b"", "malformed", "not valid JSON"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "malformed", "UTF-8"),
    (b'{"cells": [', "malformed", "not valid JSON"),
    (b"[1, 2, 3]", "malformed", "not a Jupyter notebook"),
    (b'{"cells": "abc"}', "malformed", "not a Jupyter notebook"),
    (b'{"cells": [{"cell_type": "code", "source": 42}]}', "malformed", "cell 0"),
    (b"[" * 100000 + b"]" * 100000, "malformed", "JSON"),
    (b'{"cells": [], "metadata": {}}', "wrong_exercise", "none of the cells"),
])
def test_malformed_files_get_a_verdict(tmp_path, key, content, verdict, why):
    r = grade_submission(write(tmp_path, "x.ipynb", content), key, LIMITS)
    assert r.verdict == verdict and why in r.reason and r.score == 0
    assert [q.status for q in r.questions] == ["not_graded"] * 3


def test_too_large_and_unreadable(tmp_path, key, monkeypatch):
    monkeypatch.setattr(grader, "MAX_FILE_BYTES", 10)
    r = grade_submission(write(tmp_path, "big.ipynb", b"{" + b" " * 100 + b"}"), key, LIMITS)
    assert r.verdict == "too_large"
    r = grade_submission(tmp_path / "missing.ipynb", key, LIMITS)
    assert r.verdict == "unreadable"


def test_cells_renamed_deleted_or_broken(tmp_path, key, nbs):
    sol, ex = nbs
    solved = solve(ex, sol)
    renamed = [c for c in solved["cells"]]
    nb = json.loads(dumps(solved))
    for c in nb["cells"]:
        if grade_id(c) == "flat_index":
            c["metadata"]["nbgrader"]["grade_id"] = "my_flat_index"
        if grade_id(c) == "is_contiguous":
            c["metadata"] = {}
    r = grade_submission(write(tmp_path, "renamed.ipynb", nb), key, LIMITS)
    assert r.score == key.max_score, r.to_dict()
    assert any("'flat_index' not found" in f for f in r.flags)
    assert any("'is_contiguous' not found" in f for f in r.flags)
    assert renamed

    deleted = json.loads(dumps(solved))
    deleted["cells"] = [c for c in deleted["cells"] if grade_id(c) != "flat_index"]
    r = grade_submission(write(tmp_path, "deleted.ipynb", deleted), key, LIMITS)
    q = {x.id: x for x in r.questions}
    assert q["q2"].status == "missing" and "not found" in q["q2"].reason and r.score == 5

    broken = set_cell(solved, "is_contiguous", "def is_contiguous(shape, strides):\n    return (\n")
    r = grade_submission(write(tmp_path, "broken.ipynb", broken), key, LIMITS)
    q = {x.id: x for x in r.questions}
    assert q["q3"].status == "error" and "SyntaxError" in q["q3"].reason and r.score == 4

    raising = set_cell(solved, "flat_index", "x = 1 / 0\ndef flat_index(i, s, o=0):\n    return o")
    r = grade_submission(write(tmp_path, "raising.ipynb", raising), key, LIMITS)
    q = {x.id: x for x in r.questions}
    assert q["q2"].status == "error" and "ZeroDivisionError (line 1)" in q["q2"].reason

    # an import that fails only in the grader does not stop the rest of the cell (as it did not
    # in the learner's notebook); the grader says so
    importing = set_cell(solved, "flat_index", "import missing_module_xyz\n" + ALT_CORRECT["flat_index"])
    r = grade_submission(write(tmp_path, "importing.ipynb", importing), key, LIMITS)
    assert r.score == key.max_score and any("missing_module_xyz failed while grading" in n for n in r.notes), r.notes

    misnamed = set_cell(solved, "contiguous_strides", "def contiguous_stride(shape):\n    return ()")
    r = grade_submission(write(tmp_path, "misnamed.ipynb", misnamed), key, LIMITS)
    assert r.questions[0].status == "missing" and "not defined" in r.questions[0].reason


def test_no_metadata_at_all_is_graded_by_function_names(tmp_path, key, nbs):
    sol, ex = nbs
    nb = json.loads(dumps(solve(ex, sol)))
    for c in nb["cells"]:
        c["metadata"] = {}
    nb["metadata"].pop("minitorch")
    r = grade_submission(write(tmp_path, "bare.ipynb", nb), key, LIMITS)
    assert r.score == key.max_score and any("no nbgrader cell metadata" in f for f in r.flags)


def test_added_cells_and_magics_run_in_notebook_order(tmp_path, key, nbs):
    sol, ex = nbs
    nb = solve(ex, sol)
    nb = add_cell(nb, "%matplotlib inline\n!pip install nothing\nHELPER = 1\n", at=2)
    nb = add_cell(nb, "q1.check()\ncontiguous_strides((2, 3))")  # a learner's scratch cell: harmless
    nb = set_cell(nb, "flat_index", "def flat_index(index, strides, offset=0):\n"
                                    "    return HELPER * offset + sum(map(lambda p: p[0] * p[1], zip(index, strides)))")
    r = grade_submission(write(tmp_path, "added.ipynb", nb), key, LIMITS)
    assert r.score == key.max_score, r.to_dict()
    assert any("NameError" in n for n in r.notes)  # q1 is not defined in the sandbox: noted, ignored


def test_hidden_inputs_can_stay_hidden(tmp_path, key, nbs):
    sol, ex = nbs
    nb = set_cell(solve(ex, sol), "contiguous_strides",  # right except for 8-d shapes (only hidden)
                  "def contiguous_strides(shape):\n    out, step = [], 1\n    for n in reversed(shape):\n"
                  "        out.append(step)\n        step *= n\n"
                  "    return tuple(reversed(out)) if len(shape) != 8 else ()")
    p = write(tmp_path, "h.ipynb", nb)
    shown = grade_submission(p, key, LIMITS).questions[0]
    hidden = grade_submission(p, key, LIMITS, hide_hidden=True).questions[0]
    assert shown.status == hidden.status == "incorrect"
    assert "(1, 1, 1, 1, 1, 1, 1, 1)" in shown.reason and "a hidden test" in shown.reason
    assert "(1, 1, 1, 1, 1, 1, 1, 1)" not in hidden.reason and "inputs are not shown" in hidden.reason


def test_a_redefinition_after_the_test_cell_does_not_count(tmp_path, key, nbs):
    # Restart & Run All: the question is asked at its test cell, before the scratch cell below
    sol, ex = nbs
    nb = add_cell(solve(ex, sol), "def contiguous_strides(shape):\n    return ()")
    r = grade_submission(write(tmp_path, "redefined.ipynb", nb), key, LIMITS)
    assert r.questions[0].status == "correct"
    assert any("defined again after its test cell" in n for n in r.notes)


def test_type_errors_are_explained(tmp_path, key, nbs):
    sol, ex = nbs
    nb = set_cell(solve(ex, sol), "is_contiguous", "def is_contiguous(shape, strides):\n"
                  "    want, ok = 1, 1\n    for n, s in zip(reversed(shape), reversed(strides)):\n"
                  "        if n != 1:\n            ok = ok and s == want\n            want *= n\n    return int(ok)")
    r = grade_submission(write(tmp_path, "int.ipynb", nb), key, LIMITS)
    q3 = r.questions[2]
    assert q3.status == "incorrect" and "expected a bool" in q3.reason
    assert "is_contiguous((2, 3, 4), (12, 4, 1))" in q3.reason


# ---- the pieces that make it trustworthy ---------------------------------------------------------
def test_result_channel_rejects_forgeries():
    nonce = "n" * 32
    lines = [f"{nonce}\t" + json.dumps({"event": "start", "isolation": {}}),
             "forged line without nonce",
             f"{nonce}\t" + json.dumps({"event": "question_start", "id": "q1"}),
             f"{nonce}\t" + json.dumps({"event": "question", "id": "q1", "results": []}),
             f"{nonce}\t" + json.dumps({"event": "question", "id": "q1", "results": []})]
    ch = _Channel(nonce, [], ["q1"])
    ch.feed(("\n".join(lines) + "\n").encode(), 0.0)
    assert ch.forged and len(ch.anomalies) == 2
    ch = _Channel(nonce, [], ["q1"])  # a result before its start: out of order
    ch.feed(("\n".join(lines[:1] + lines[3:4]) + "\n").encode(), 0.0)
    assert ch.forged


@pytest.mark.parametrize("garbage", [None, 1, "x", [], {"t": "int", "v": "1"}, {"t": "tuple", "v": 3},
                                     {"t": "bool", "v": 1}, {"t": "obj"}, {"t": "array", "shape": ["a"]},
                                     {"t": "dict", "v": [[{"t": "list", "v": []}, {"t": "int", "v": 1}]]},
                                     {"t": "tuple", "v": [{"t": "int", "v": 1}], "len": 5}])
def test_decoding_untrusted_data_never_raises(garbage):
    assert isinstance(decode(garbage), Foreign)


def test_encoding_keeps_types_apart():
    import numpy as np
    assert decode(encode((1, 2))) == (1, 2) and decode(encode([1, 2])) == [1, 2]
    assert decode(encode(True)) is True and decode(encode(1)) == 1
    assert decode(encode(np.int64(3))).type == "numpy.int64"
    assert decode(encode(2 ** 100)) == 2 ** 100
    a = decode(encode(np.arange(6, dtype=np.float32).reshape(2, 3)))
    assert a.shape == (2, 3) and a.dtype == "float32" and a.values == [[0, 1, 2], [3, 4, 5]]


def test_run_submission_recovers_after_each_kind_of_death():
    cells = [{"id": "a", "source": "import os, faulthandler\n"
                                    "def ok(x): return x\n"
                                    "def loop(x):\n    while True:\n        try:\n            pass\n"
                                    "        except BaseException:\n            pass\n"
                                    "def seg(x): faulthandler._sigsegv()\n"
                                    "def bye(x): os._exit(7)\n"}]
    arg = [encode(5)]
    qs = [{"id": n, "function": n, "cases": [arg]} for n in ("loop", "seg", "bye", "ok")]
    qs[0]["cases"] = [arg]
    r = run_submission(cells, qs, Limits(step_seconds=0.5), preload=[])
    assert r.questions["ok"]["results"] == [encode(5)]
    assert r.deaths["question:seg"][0] == "crashed"
    assert r.deaths["question:bye"][0] == "exited" and "exit code 7" in r.deaths["question:bye"][1]
    assert ("loop" in r.questions or "question:loop" in r.deaths) and r.runs >= 3


@pytest.mark.skipif(sys.platform != "linux", reason="Landlock and seccomp are Linux features")
def test_os_confinement_without_the_audit_hook(tmp_path):
    """Landlock and seccomp hold on their own (the audit hook is a second layer)."""
    harness = ROOT / "minitorch_course" / "grading" / "harness.py"
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden tests")
    box = tmp_path / "box"
    box.mkdir()
    (box / "ok.txt").write_text("")
    code = textwrap.dedent(f"""
        import importlib.util, os, sys, json
        spec = importlib.util.spec_from_file_location("h", {str(harness)!r})
        h = importlib.util.module_from_spec(spec); spec.loader.exec_module(h)
        abi = h.apply_landlock(sorted(h._read_roots()), [{str(box)!r}])
        sec = h.apply_seccomp()
        out = {{"abi": abi, "seccomp": sec}}
        try:
            open({str(secret)!r}).read(); out["read"] = "yes"
        except OSError as e:
            out["read"] = e.errno
        try:
            open({str(box / 'ok.txt')!r}, "w").write("fine"); out["write_box"] = "yes"
        except OSError as e:
            out["write_box"] = e.errno
        try:
            open({str(box / 'new.txt')!r}, "w"); out["create_box"] = "yes"
        except OSError as e:
            out["create_box"] = e.errno
        try:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            out["fork"] = "yes"
        except OSError as e:
            out["fork"] = e.errno
        print(json.dumps(out))
    """)
    p = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    out = json.loads(p.stdout)
    if not out["abi"]:
        pytest.skip("this kernel has no Landlock")
    assert out["read"] == 13 and out["write_box"] == "yes" and out["create_box"] == 13
    if out["seccomp"]:
        assert out["fork"] == 1


def test_grader_process_never_imports_submitted_code(tmp_path, key, nbs):
    """A submission whose module-level code would mark its presence in any process that ran it."""
    sol, ex = nbs
    marker = "_minitorch_submission_was_here"
    nb = set_cell(solve(ex, sol), "contiguous_strides",
                  f"import builtins\nbuiltins.{marker} = True\n" + "def contiguous_strides(shape):\n    return ()")
    grade_submission(write(tmp_path, "m.ipynb", nb), key, LIMITS)
    import builtins
    assert not hasattr(builtins, marker)
    assert os.environ.get("MINITORCH_SUBMISSION_WAS_HERE") is None
    assert nbgrader(sol["cells"][0])  # the instructor's notebook object was not touched either
