"""Scores and comments into nbgrader's gradebook (gradebook.db), so that formgrader, nbgrader's
late penalties and `nbgrader export` see what the course's grader decided.

    python -m minitorch_course.grade submitted/ --exercise 03_strides --out grades \\
        --nbgrader-db gradebook.db
    python -m minitorch_course.grading.nbgrader_db gradebook.db grades/gradebook.json ...

Needs nbgrader (`pip install 'minitorch[nbgrader]'`). Each exercise is an nbgrader assignment
and its notebook, both named after the exercise (03_strides/03_strides.ipynb, as nbgrader's
source/ layout has them). A question's points go to its test cell's grade (auto_score), the
feedback line to its solution cell's comment (auto_comment, with no hidden case's input unless
the gradebook was made with --show-hidden). Where `nbgrader generate_assignment` already put
the assignment into the database, its cells are used as they are; otherwise they are created.
A student's row that counts is their graded notebook; rows that are not (a duplicate, a file
that is not a notebook) are not written. Writing again replaces the grades of the students in
the gradebook.json and leaves every other student's alone.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path


def _require():
    try:
        from nbgrader import api  # noqa: F401
    except ImportError:
        raise RuntimeError("--nbgrader-db needs nbgrader: pip install 'minitorch[nbgrader]' "
                           "(or pip install nbgrader)") from None
    return api


def _comment(q, show_hidden):
    text = q.get("reason", "") if show_hidden or not q.get("feedback") else q["feedback"]
    return f"{q['id']}: {q.get('points', 0):g} / {q.get('max_points', 0):g} ({q.get('status', '')}) {text}".strip()


def write(db_path, books, deadline=None, show_hidden=False) -> dict:
    """Write each gradebook.json of `books` into nbgrader's database at db_path. Returns
    {exercise: number of students written}."""
    api = _require()
    written = {}
    # a new database gets its schema version from the `alembic` command nbgrader installs
    # beside this Python: found there even when this environment is not on PATH
    here = os.path.dirname(sys.executable)
    if here not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = here + os.pathsep + os.environ.get("PATH", "")
    with warnings.catch_warnings(), api.Gradebook(f"sqlite:///{Path(db_path).resolve()}") as gb:
        # nbgrader 0.9's add_submission trips SQLAlchemy 2's autoflush warnings; the rows are written
        warnings.filterwarnings("ignore", message=".*not in session.*")
        for book in books:
            data = json.loads(Path(book).read_text(encoding="utf-8"))
            meta, name = data["meta"], data["meta"]["exercise"]
            gb.update_or_create_assignment(name, **({"duedate": deadline} if deadline else {}))
            gb.update_or_create_notebook(name, name)
            for q in meta["questions"]:
                try:
                    gb.find_graded_cell(q["test_cell"], name, name)
                except api.MissingEntry:
                    gb.update_or_create_grade_cell(q["test_cell"], name, name, max_score=q["points"], cell_type="code")
                try:
                    gb.find_solution_cell(q["solution_cell"], name, name)
                except api.MissingEntry:
                    gb.update_or_create_solution_cell(q["solution_cell"], name, name)
            rows = {}
            for e in data["submissions"]:
                if e.get("verdict") in ("duplicate", "not_a_notebook"):
                    continue
                best = rows.get(e["student"])
                if best is None or (e.get("verdict") == "graded", e.get("score", 0)) > (
                        best.get("verdict") == "graded", best.get("score", 0)):
                    rows[e["student"]] = e
            for sid, e in rows.items():
                gb.update_or_create_student(sid)
                try:
                    gb.find_submission(name, sid)
                except api.MissingEntry:
                    gb.add_submission(name, sid, **({"timestamp": e["submitted"]} if e.get("submitted") else {}))
                else:
                    if e.get("submitted"):
                        gb.update_or_create_submission(name, sid, timestamp=e["submitted"])
                by = {q["id"]: q for q in e.get("questions", [])}
                factor = _penalty_factor(e)
                for q in meta["questions"]:
                    mine = by.get(q["id"], {"id": q["id"], "points": 0.0, "max_points": q["points"],
                                            "status": e.get("verdict", ""), "reason": e.get("reason", "")})
                    grade = gb.find_grade(q["test_cell"], name, name, sid)
                    grade.auto_score = round(float(mine.get("points", 0.0)) * factor, 2)
                    grade.needs_manual_grade = False
                    comment = gb.find_comment(q["solution_cell"], name, name, sid)
                    comment.auto_comment = _comment(mine, show_hidden)
                gb.db.commit()
            written[name] = len(rows)
    return written


def _penalty_factor(e):
    """The course's own late penalty, already in the row's score, spread over its questions
    (nbgrader's own late-penalty plugin sees the timestamp and the due date too)."""
    total = sum(float(q.get("points", 0.0)) for q in e.get("questions", []))
    return float(e.get("score", 0.0)) / total if total > 0 else 1.0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m minitorch_course.grading.nbgrader_db", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("db", type=Path, help="nbgrader's gradebook.db (created when missing)")
    p.add_argument("books", type=Path, nargs="+", help="gradebook.json files written by the grader")
    p.add_argument("--show-hidden", action="store_true", help="comments show failed hidden cases' inputs")
    a = p.parse_args(argv)
    try:
        done = write(a.db, a.books, show_hidden=a.show_hidden)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for name, n in done.items():
        print(f"{name}: {n} student(s) written into {a.db}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
