"""The instructor's workflow around the grader: a class laid out as nbgrader leaves it, regrading
one student, Restart & Run All semantics, partial credit, deadlines, and the course-wide CSV.

Points and question counts are read from the answer key, never written here, so that an
instructor who changes an exercise sees only their own mistakes.
"""
from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from minitorch_course.exercises import get_exercise
from minitorch_course.grading import cli, layout, scoring
from minitorch_course.grading.grader import AnswerKey, grade_submission
from minitorch_course.grading.sample_class import add_cell, as_submission, load, set_cell, solve
from minitorch_course.grading.sandbox import Limits
from minitorch_course.notebook import dumps, grade_id
from minitorch_course.spec import Case

ROOT = Path(__file__).resolve().parents[1]
LIMITS = Limits(step_seconds=1.5, memory_mb=512)
EXERCISES = ("03_strides", "05_views")

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def keys():
    return {n: AnswerKey(get_exercise(n), ROOT / "solutions" / f"{n}.ipynb") for n in EXERCISES}


def _nb(name, solved=True):
    sol = load(ROOT / "solutions" / f"{name}.ipynb")
    ex = as_submission(sol, name)
    return solve(ex, sol) if solved else ex


def _write(path: Path, nb):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nb if isinstance(nb, str) else dumps(nb), encoding="utf-8")
    return path


def _rows(path):
    return list(csv.DictReader(open(path, encoding="utf-8")))


def _grade(class_dir, out, *extra):
    return cli.main([str(class_dir), "--out", str(out), "--timeout", "1.5", "--memory-mb", "512",
                     "--jobs", "2", "--quiet", *extra])


# ---- 1. nbgrader's layout, a flat folder, and every file gets a row ----------------------------------
@pytest.fixture(scope="module")
def nbgrader_class(tmp_path_factory):
    """submitted/STUDENT/ASSIGNMENT/: three students, two exercises, a late one, a duplicate,
    a report.pdf; dan handed in only 05."""
    root = tmp_path_factory.mktemp("submitted")
    stamps = {"alice": "2026-03-01 10:00:00.000000 UTC", "bob": "2026-03-03 09:30:00.000000 UTC",
              "carol": "2026-03-01 12:00:00.000000 UTC", "dan": "2026-03-01 08:00:00 UTC"}
    for student in ("alice", "bob", "carol", "dan"):
        for name in EXERCISES:
            if student == "dan" and name == "03_strides":
                continue
            folder = root / student / name
            _write(folder / f"{name}.ipynb", _nb(name, solved=student != "carol"))
            (folder / "timestamp.txt").write_text(stamps[student])
    (root / "alice" / "03_strides" / "report.pdf").write_bytes(b"%PDF-1.4")
    _write(root / "bob" / "03_strides" / "03_strides-Copy1.ipynb", _nb("03_strides", solved=False))
    return root


def test_nbgrader_layout_grades_only_the_named_exercise(nbgrader_class, keys, tmp_path):
    out = tmp_path / "out"
    assert _grade(nbgrader_class, out, "--exercise", "03_strides") == 0
    rows = _rows(out / "gradebook.csv")
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    assert book["meta"]["layout"] == "nbgrader"
    assert {r["student"] for r in rows} == {"alice", "bob", "carol"}  # ids are the folders; dan has no 03
    assert all("05_views" not in r["file"] for r in rows)
    by = {(r["student"], Path(r["file"]).name): r for r in rows}
    full = keys["03_strides"].max_score
    assert float(by["alice", "03_strides.ipynb"]["score"]) == full
    assert by["alice", "report.pdf"]["verdict"] == "not_a_notebook"
    assert by["bob", "03_strides-Copy1.ipynb"]["verdict"] == "duplicate"  # the one named after the exercise counts
    assert float(by["bob", "03_strides.ipynb"]["score"]) == full
    assert float(by["carol", "03_strides.ipynb"]["score"]) == 0
    assert by["alice", "03_strides.ipynb"]["submitted"] == "2026-03-01T10:00:00+00:00"  # timestamp.txt
    assert sorted(os.listdir(out / "feedback")) == ["alice.md", "bob.md", "carol.md"]  # one per student
    assert "report.pdf is not a notebook" in (out / "feedback" / "alice.md").read_text(encoding="utf-8")


def test_a_flat_folder_gives_every_file_a_row(tmp_path, keys):
    cls = tmp_path / "class"
    nb = _nb("03_strides")
    _write(cls / "wen.ipynb", nb)
    _write(cls / "wen (1).ipynb", nb)
    os.utime(cls / "wen.ipynb", (1_700_000_000, 1_700_000_000))  # the older of the two copies
    _write(cls / "XI.IPYNB", nb)
    _write(cls / "hw.ipynb.txt", nb)
    (cls / "report.pdf").write_bytes(b"%PDF")
    out = tmp_path / "out"
    assert _grade(cls, out, "--exercise", "03_strides") == 0
    by = {Path(r["file"]).name: r for r in _rows(out / "gradebook.csv")}
    assert set(by) == {"wen.ipynb", "wen (1).ipynb", "XI.IPYNB", "hw.ipynb.txt", "report.pdf"}
    assert by["wen (1).ipynb"]["student"] == by["wen.ipynb"]["student"] == "wen"
    assert by["wen.ipynb"]["verdict"] == "duplicate" and by["wen (1).ipynb"]["verdict"] == "graded"
    assert by["XI.IPYNB"]["verdict"] == "graded"
    assert float(by["XI.IPYNB"]["score"]) == keys["03_strides"].max_score
    assert by["hw.ipynb.txt"]["verdict"] == by["report.pdf"]["verdict"] == "not_a_notebook"
    assert "rename it to hw.ipynb" in by["hw.ipynb.txt"]["reason"]


def test_nbgrader_timestamps_are_parsed():
    assert layout.parse_timestamp("2026-03-01 17:04:05.123456 UTC") == "2026-03-01T17:04:05+00:00"
    assert layout.parse_timestamp("2026-03-01T18:04:05+01:00") == "2026-03-01T17:04:05+00:00"
    assert layout.parse_timestamp("yesterday") == ""
    assert layout.base_id("wen (1)") == "wen" and layout.base_id("hw-Copy2") == "hw"


# ---- 4. regrade one student, keep everyone else -------------------------------------------------------
def test_regrading_one_student_keeps_every_other_row(nbgrader_class, tmp_path):
    out = tmp_path / "out"
    assert _grade(nbgrader_class, out, "--exercise", "03_strides") == 0
    before = {(r["student"], r["file"]): r for r in _rows(out / "gradebook.csv")}
    fb_before = {p.name: p.read_text(encoding="utf-8") for p in (out / "feedback").iterdir()}
    # carol fixes her notebook; only she is regraded
    carol = nbgrader_class / "carol" / "03_strides" / "03_strides.ipynb"
    original = carol.read_text(encoding="utf-8")
    try:
        _write(carol, _nb("03_strides"))
        assert _grade(nbgrader_class, out, "--exercise", "03_strides", "--student", "carol") == 0
    finally:
        carol.write_text(original, encoding="utf-8")
    after = {(r["student"], r["file"]): r for r in _rows(out / "gradebook.csv")}
    assert set(after) == set(before)
    for k, row in before.items():
        if k[0] != "carol":
            assert after[k] == row
    (carol_row,) = [r for k, r in after.items() if k[0] == "carol"]
    assert float(carol_row["score"]) == float(carol_row["max_score"]) > 0
    fb_after = {p.name: p.read_text(encoding="utf-8") for p in (out / "feedback").iterdir()}
    assert set(fb_after) == set(fb_before)
    assert all(fb_after[n] == fb_before[n] for n in fb_before if n != "carol.md")
    assert fb_after["carol.md"] != fb_before["carol.md"]
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    assert book["meta"]["students"] == ["carol"] and book["meta"]["kept_from_before"] == len(before) - 1


def test_a_folder_of_some_students_merges_and_a_stale_feedback_file_goes(tmp_path):
    cls, out = tmp_path / "class", tmp_path / "out"
    for s in ("ann", "ben"):
        _write(cls / f"{s}.ipynb", _nb("03_strides"))
    assert _grade(cls, out, "--exercise", "03_strides") == 0
    later = tmp_path / "later"
    _write(later / "ben.ipynb", _nb("03_strides", solved=False))
    _write(later / "cid.ipynb", _nb("03_strides"))
    assert _grade(later, out, "--exercise", "03_strides") == 0
    rows = {r["student"]: r for r in _rows(out / "gradebook.csv")}
    assert set(rows) == {"ann", "ben", "cid"}
    assert float(rows["ben"]["score"]) == 0 and float(rows["ann"]["score"]) == float(rows["ann"]["max_score"])
    assert sorted(os.listdir(out / "feedback")) == ["ann.md", "ben.md", "cid.md"]
    # --fresh starts over; another exercise's gradebook is never merged into
    assert _grade(later, out, "--exercise", "03_strides", "--fresh") == 0
    assert {r["student"] for r in _rows(out / "gradebook.csv")} == {"ben", "cid"}
    assert sorted(os.listdir(out / "feedback")) == ["ben.md", "cid.md"]
    assert _grade(later, out, "--exercise", "05_views") == 2


# ---- 5. Restart & Run All --------------------------------------------------------------------------
def _test_cell_index(nb, gid):
    return next(i for i, c in enumerate(nb["cells"]) if grade_id(c) == gid)


def test_a_question_is_asked_at_its_test_cell(tmp_path, keys):
    key = keys["03_strides"]
    q1 = key.questions[0].spec
    nb = _nb("03_strides")
    # a stale wrong definition in a scratch cell at the bottom does not override the right one
    stale = add_cell(nb, f"def {q1.function}(shape):\n    return ()")
    r = grade_submission(_write(tmp_path / "stale.ipynb", stale), key, LIMITS)
    assert r.questions[0].status == "correct"
    assert any(f"{q1.function} is defined again after its test cell" in n for n in r.notes)
    # ... but a definition above the test cell is the one Restart & Run All uses
    above = add_cell(nb, f"def {q1.function}(shape):\n    return ()", at=_test_cell_index(nb, q1.test_cell))
    r = grade_submission(_write(tmp_path / "above.ipynb", above), key, LIMITS)
    assert r.questions[0].status == "incorrect"


def test_a_helper_defined_in_the_last_cell_is_not_there_yet(tmp_path, keys):
    key = keys["03_strides"]
    q1 = key.questions[0].spec
    nb = set_cell(_nb("03_strides"), q1.solution_cell, f"def {q1.function}(shape):\n    return helper(shape)")
    nb = add_cell(nb, "def helper(shape):\n    s, out = 1, []\n    for n in reversed(shape):\n"
                      "        out.append(s)\n        s *= n\n    return tuple(reversed(out))")
    r = grade_submission(_write(tmp_path / "helper.ipynb", nb), key, LIMITS)
    assert r.questions[0].status == "incorrect" and "NameError" in r.questions[0].reason
    moved = set_cell(_nb("03_strides"), q1.solution_cell, f"def {q1.function}(shape):\n    return helper(shape)")
    moved = add_cell(moved, nb["cells"][-1]["source"], at=_test_cell_index(moved, q1.test_cell))
    r = grade_submission(_write(tmp_path / "moved.ipynb", moved), key, LIMITS)
    assert r.questions[0].status == "correct"


# ---- 6. partial credit -------------------------------------------------------------------------
def test_partial_credit_by_groups_by_hand():
    cases = [Case((i,), "visible") for i in range(2)] + [Case((i,), "hidden") for i in range(4)]
    ok = [True, True, True, True, True, False]
    pts, parts = scoring.credit("groups", cases, ok, 3.0, {"visible": 1, "hidden": 2})
    assert pts == 2.5
    assert [scoring.describe(g) for g in parts] == ["2 of 2 visible cases: 1 / 1", "3 of 4 hidden cases: 1.5 / 2"]
    assert scoring.credit("proportional", cases, ok, 3.0, {})[0] == 2.5
    assert scoring.credit("all", cases, ok, 3.0, {})[0] == 0
    assert scoring.credit("groups", cases, [True] * 6, 3.0, {"visible": 1, "hidden": 2})[0] == 3.0


@pytest.mark.parametrize("mode", scoring.MODES)
def test_partial_credit_end_to_end(tmp_path, mode):
    """A contiguous_strides that is wrong only on shapes with a dimension of size 1: its points
    follow from which cases those are, counted here from the inputs."""
    key = AnswerKey(get_exercise("03_strides"), ROOT / "solutions" / "03_strides.ipynb", scoring_mode=mode)
    k = key.questions[0]
    nb = set_cell(_nb("03_strides"), k.spec.solution_cell,
                  f"def {k.spec.function}(shape):\n    out, s = [], 1\n    for n in reversed(shape):\n"
                  "        out.append(s)\n        s *= n\n    out = tuple(reversed(out))\n"
                  "    return out if 1 not in shape else tuple(-1 for _ in shape)")
    ok = [1 not in c.args[0] for c in k.cases]
    assert not all(ok), "the exercise has no case this bug shows on: pick another bug"
    r = grade_submission(_write(tmp_path / "p.ipynb", nb), key, LIMITS)
    q = r.questions[0]
    assert q.status == "incorrect" and q.passed == sum(ok)
    n_hidden = sum(c.kind != "visible" for c in k.cases)
    want = {"all": 0.0, "proportional": round(k.points * sum(ok) / len(ok), 2),
            "groups": None}[mode]
    if mode == "groups":
        share = {g: k.points * k.weights[g] / sum(k.weights[x] for x in {c.kind for c in k.cases})
                 for g in {c.kind for c in k.cases}}
        want = sum(round(share[g] * sum(o for o, c in zip(ok, k.cases) if c.kind == g)
                         / sum(c.kind == g for c in k.cases), 2) for g in share)
    assert q.points == pytest.approx(want, abs=0.011)
    assert r.score == pytest.approx(want + sum(x.max_points for x in r.questions[1:]), abs=0.011)
    if mode != "all":
        from minitorch_course.grading.gradebook import feedback_text
        fb = feedback_text(r, key.name)
        failed_hidden = sum(not o for o, c in zip(ok, k.cases) if c.kind != "visible")
        assert n_hidden and failed_hidden
        assert all(f"{g['passed']} of {g['total']}" in fb for g in q.groups)


# ---- 8. deadline, late policy, roster, the course-wide CSV -------------------------------------------
def test_course_csv_with_roster_deadline_and_penalty(nbgrader_class, keys, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nalice,Alice A,a@x.org\nbob,Bob B,b@x.org\neve,Eve E,e@x.org\n")
    out = tmp_path / "out"
    assert _grade(nbgrader_class, out, "--exercise", ",".join(EXERCISES), "--roster", str(roster),
                  "--deadline", "2026-03-02T00:00", "--late-penalty", "10%/day") == 0
    rows = {r["student"]: r for r in _rows(out / "course.csv")}
    assert list(rows)[:3] == ["alice", "bob", "eve"]  # the roster's order, then the others
    assert set(rows) == {"alice", "bob", "eve", "carol", "dan"}
    full = {n: keys[n].max_score for n in EXERCISES}
    assert float(rows["alice"]["total"]) == sum(full.values()) == float(rows["alice"]["max_total"])
    assert rows["alice"]["name"] == "Alice A" and rows["alice"]["email"] == "a@x.org"
    # bob came 1 day 9.5 hours late: 2 days or part of one, 10% each
    for n in EXERCISES:
        assert float(rows["bob"][n]) == pytest.approx(full[n] * 0.8)
    assert "late by" in rows["bob"]["late"] and not rows["alice"]["late"]
    assert float(rows["eve"]["total"]) == 0 and "no submission" in rows["eve"]["not_graded"]
    assert float(rows["dan"]["03_strides"]) == 0 and float(rows["dan"]["05_views"]) == full["05_views"]
    assert (out / "03_strides" / "gradebook.csv").is_file() and (out / "05_views" / "feedback").is_dir()


def test_bad_deadline_and_policy_are_refused(tmp_path, capsys):
    (tmp_path / "c").mkdir()
    assert _grade(tmp_path / "c", tmp_path / "o", "--exercise", "03_strides", "--deadline", "soon") == 2
    assert _grade(tmp_path / "c", tmp_path / "o", "--exercise", "03_strides", "--deadline", "2026-01-01",
                  "--late-penalty", "a lot") == 2


# ---- 7. hidden is hidden ------------------------------------------------------------------------
def test_hidden_cases_stay_out_of_student_feedback(tmp_path, keys):
    key = keys["03_strides"]
    k = key.questions[0]
    hidden = next(c for c in k.cases if c.kind == "hidden")
    shape = hidden.args[0]
    nb = set_cell(_nb("03_strides"), k.spec.solution_cell,
                  f"def {k.spec.function}(shape):\n    if tuple(shape) == {tuple(shape)!r}:\n        return (-7,)\n"
                  "    out, s = [], 1\n    for n in reversed(shape):\n        out.append(s)\n        s *= n\n"
                  "    return tuple(reversed(out))")
    cls = tmp_path / "class"
    _write(cls / "hana.ipynb", nb)
    shown = repr(tuple(shape)).replace(" ", "")
    for extra, visible in (((), False), (("--show-hidden",), True)):
        out = tmp_path / f"out{visible}"
        assert _grade(cls, out, "--exercise", "03_strides", *extra) == 0
        fb = (out / "feedback" / "hana.md").read_text(encoding="utf-8").replace(" ", "").replace("\\", "")
        assert (shown in fb) is visible and ("-7" in fb) is visible
        assert "hidden" in fb
        book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
        reason = book["submissions"][0]["questions"][0]["reason"].replace(" ", "")
        assert shown in reason  # the instructor's report always has it


# ---- 3. a release changed after hand-out ----------------------------------------------------------
def _edit(nb, gid, change):
    nb = json.loads(json.dumps(nb))
    for c in nb["cells"]:
        if grade_id(c) == gid:
            c["source"] = change("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
    return nb


def test_a_release_changed_after_hand_out(tmp_path):
    import io
    from minitorch_course import release
    sols, exs = tmp_path / "solutions", tmp_path / "exercises"
    sols.mkdir()
    src = load(ROOT / "solutions" / "03_strides.ipynb")
    _write(sols / "03_strides.ipynb", src)
    assert release.run(sols, exs, ["03_strides"], out=io.StringIO()) == 0
    first = load(exs / "03_strides.ipynb")
    # the instructor fixes a typo in the instructions and changes a locked code cell, then releases again
    md_cell = next(grade_id(c) for c in src["cells"] if c["cell_type"] == "markdown" and grade_id(c))
    code_cell = "against_minitorch"
    changed = _edit(_edit(src, md_cell, lambda s: s + "\n\n(typo fixed)"), code_cell, lambda s: s + "\nprint()")
    _write(sols / "03_strides.ipynb", changed)
    assert release.run(sols, exs, ["03_strides"], out=io.StringIO()) == 0
    second = load(exs / "03_strides.ipynb")
    history = json.loads((sols / "releases" / "03_strides.json").read_text(encoding="utf-8"))
    ids = [r["id"] for r in history["releases"]]
    assert ids == [first["metadata"]["minitorch"]["release"], second["metadata"]["minitorch"]["release"]]
    assert ids[0] != ids[1]

    key = AnswerKey(get_exercise("03_strides"), sols / "03_strides.ipynb")
    solved = lambda nb: solve(nb, changed)  # noqa: E731
    old = solved(first)
    no_id = json.loads(json.dumps(old))
    del no_id["metadata"]["minitorch"]["release"]
    test_cell = key.questions[0].spec.test_cell
    cases = {
        "old_release": (old, []),
        "new_release": (solved(second), []),
        "old_release_without_its_id": (no_id, []),
        "old_release_markdown_edited": (_edit(old, md_cell, lambda s: "my notes"), []),
        "old_release_test_cell_edited": (_edit(old, test_cell, lambda s: "pass"), [f"test cell {test_cell!r} was edited"]),
        "new_code_in_old_release": (_edit(old, code_cell, lambda s: s + "\nprint()"), [f"locked cell {code_cell!r} was edited"]),
    }
    for name, (nb, flags) in cases.items():
        r = grade_submission(_write(tmp_path / f"{name}.ipynb", nb), key, LIMITS)
        assert r.score == key.max_score, (name, r.questions)
        assert len(r.flags) == len(flags) and all(f.startswith(w) for f, w in zip(r.flags, flags)), (name, r.flags)
    r = grade_submission(tmp_path / "old_release.ipynb", key, LIMITS)
    assert any("earlier release" in n for n in r.notes)


# ---- 2. which exercise is this -------------------------------------------------------------------
def test_released_notebooks_name_their_exercise_and_release():
    from minitorch_course.exercises import all_exercises
    for name, ex in all_exercises().items():
        path = ROOT / "exercises" / ex.notebook
        if path.is_file():
            meta = load(path)["metadata"]["minitorch"]
            assert meta["exercise"] == name and len(meta["release"]) == 12


def _sharing_pair():
    """Two exercises whose notebooks share solution or test cell ids (a later exercise that
    reuses an earlier one's cells), or None."""
    from minitorch_course.exercises import all_exercises
    exs = list(all_exercises().values())
    cells = {e.name: {g for q in e.questions for g in (q.solution_cell, q.test_cell)} for e in exs}
    for a in exs:
        for b in exs:
            if a.name != b.name and cells[a.name] < cells[b.name] and (ROOT / "solutions" / b.notebook).is_file():
                return a.name, b.name
    return None


def test_a_notebook_of_another_exercise_is_the_wrong_exercise(tmp_path, keys):
    other = _nb("05_views")
    r = grade_submission(_write(tmp_path / "v.ipynb", other), keys["03_strides"], LIMITS)
    assert r.verdict == "wrong_exercise" and "05_views" in r.reason and not r.flags
    pair = _sharing_pair()
    if pair is None:
        return
    small, big = pair  # cells shared: the metadata decides, and without it the complete set of cells
    key_small = AnswerKey(get_exercise(small), ROOT / "solutions" / f"{small}.ipynb")
    key_big = AnswerKey(get_exercise(big), ROOT / "solutions" / f"{big}.ipynb")
    for nb, key, name in ((_nb(big), key_small, big), (_nb(small), key_big, small)):
        r = grade_submission(_write(tmp_path / f"{name}.ipynb", nb), key, LIMITS)
        assert r.verdict == "wrong_exercise" and name in r.reason, (name, r.reason, r.flags)
        del nb["metadata"]["minitorch"]
        r = grade_submission(_write(tmp_path / f"{name}_bare.ipynb", nb), key, LIMITS)
        assert r.verdict == "wrong_exercise" and name in r.reason, (name, r.reason, r.flags)


# ---- 10. make release grades what it releases ----------------------------------------------------
def _release_into(tmp_path, nb):
    import io
    from minitorch_course import release
    sols, exs = tmp_path / "solutions", tmp_path / "exercises"
    _write(sols / "03_strides.ipynb", nb)
    log = io.StringIO()
    rc = release.run(sols, exs, ["03_strides"], out=log)
    return rc, log.getvalue(), exs


def test_release_refuses_a_setup_cell_that_does_not_load_every_question(tmp_path):
    src = load(ROOT / "solutions" / "03_strides.ipynb")
    ids = [q.id for q in get_exercise("03_strides").questions]
    nb = _edit(src, "setup", lambda s: s.replace(f"{', '.join(ids)} = load_exercise", f"{', '.join(ids[:-1])}, = load_exercise"))
    rc, log, exs = _release_into(tmp_path, nb)
    assert rc == 1 and "the setup cell binds" in log and not exs.exists()


def test_release_refuses_a_handout_that_scores_without_any_work(tmp_path):
    src = load(ROOT / "solutions" / "03_strides.ipynb")
    q = get_exercise("03_strides").questions[0]
    # the solution block guards nothing: the released stub never runs, the answer stays in the handout
    nb = _edit(src, q.solution_cell, lambda s: f"def {q.function}(shape):\n    if not shape:\n        ### BEGIN SOLUTION\n        return ()\n        ### END SOLUTION\n"
               "    out, s = [], 1\n    for n in reversed(shape):\n        out.append(s)\n        s *= n\n"
               "    return tuple(reversed(out))")
    rc, log, exs = _release_into(tmp_path, nb)
    assert rc == 1 and "untouched scores" in log and not exs.exists(), log
    assert _release_into(tmp_path / "ok", src)[0] == 0


# ---- 7. a graded handout has no solution() ---------------------------------------------------------
def test_a_graded_release_has_no_solution(tmp_path, capsys):
    import io
    from minitorch_course import release
    from minitorch_course.check import load_exercise
    sols, exs = tmp_path / "solutions", tmp_path / "handouts"
    _write(sols / "03_strides.ipynb", load(ROOT / "solutions" / "03_strides.ipynb"))
    assert release.run(sols, exs, ["03_strides"], out=io.StringIO(), graded=True) == 0
    nb = load(exs / "03_strides.ipynb")
    assert nb["metadata"]["minitorch"]["graded"] is True
    assert any("load_exercise(\"03_strides\", graded=True)" in "".join(c["source"]) for c in nb["cells"])
    q = load_exercise("03_strides", graded=True)[0]
    q.solution()
    assert "graded exercise" in capsys.readouterr().out
    key = AnswerKey(get_exercise("03_strides"), sols / "03_strides.ipynb")
    r = grade_submission(_write(tmp_path / "g.ipynb", solve(nb, load(sols / "03_strides.ipynb"))), key, LIMITS)
    assert r.score == key.max_score and not r.flags  # graded against its own (graded) release


def test_a_bug_in_one_method_does_not_zero_the_class_built_on_it(tmp_path):
    """06: a view() that ignores its step. SavedValue (q2) is right: it keeps the credit of
    every case its own code decides, and the cases through views are the only ones lost."""
    name = "06_inplace_version"
    key = AnswerKey(get_exercise(name), ROOT / "solutions" / f"{name}.ipynb")
    q1, q2 = key.questions[0], key.questions[1]
    sol = load(ROOT / "solutions" / f"{name}.ipynb")
    src = next("".join(c["source"]) for c in sol["cells"] if grade_id(c) == q1.spec.solution_cell)
    buggy = src.replace("self.stride * step)", "self.stride)")
    assert buggy != src
    nb = set_cell(solve(as_submission(sol, name), sol), q1.spec.solution_cell, buggy)
    r = grade_submission(_write(tmp_path / "v.ipynb", nb), key, LIMITS)
    a, b = r.questions[0], r.questions[1]
    assert a.status == b.status == "incorrect"
    assert 0 < a.points < a.max_points and 0 < b.points < b.max_points
    uses_view = [any(step[0] == "view" and step[-1] != 1 for step in c.args[0]) for c in q2.cases]
    assert b.passed >= uses_view.count(False)  # every case without a stepped view still passes
