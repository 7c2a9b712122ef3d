"""Grade a folder of submitted notebooks in one command.

    python -m minitorch_course.grade CLASS_DIR --exercise 03_strides --out OUT_DIR

    python -m minitorch_course.grade submitted/ --exercise all --out OUT_DIR --deadline 2026-03-01T23:59

CLASS_DIR holds the submissions: any file names, any count, flat (alice.ipynb, bob (1).ipynb)
or one folder per student, or nbgrader's submitted/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb with its
timestamp.txt (layout.py). OUT_DIR gets gradebook.csv, gradebook.json (the instructor's report),
feedback/STUDENT.md and course.csv (one row per student, for a spreadsheet or an LMS); with
several exercises, each one's gradebook goes to OUT_DIR/EXERCISE/. Grading into an OUT_DIR that
holds this exercise's gradebook replaces only the rows of the students graded now (--student,
or a folder of some students); --fresh starts over. A submission that is malformed,
for another exercise, crashes, loops, eats memory or tampers gets its own verdict, and so
does a symbolic link (refused, never followed); every file gets a row, and the batch always
finishes. Exit status: 0 when the batch was graded (whatever the scores), 2 when the
grader could not start (bad arguments, a broken answer key, or a sandbox that fails its
self-test on the instructor's own solutions).
"""
from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from . import course, late, layout, nbgrader_db, scoring
from .gradebook import GradebookMismatch, feedback_text, write_all
from .grader import AnswerKey, AnswerKeyError, SubmissionResult, _zero, display_name, grade_submission
from .sandbox import Limits


def find_submissions(class_dir: Path, pattern: str, exclude=()):
    """The files to grade, sorted: every file whose name matches the pattern (ignoring case),
    at any depth, except inside hidden folders (.ipynb_checkpoints, .git) and the excluded
    ones. Symbolic links are never followed: a link (to a file or a folder) that would have
    been graded is listed too, so that it gets its own row saying it was refused."""
    return _walk_class(class_dir, pattern, exclude)[0]


def other_files(class_dir: Path, pattern: str, exclude=()):
    """The files find_submissions leaves out (not matching the pattern), for the log."""
    return _walk_class(class_dir, pattern, exclude)[1]


def _walk_class(class_dir, pattern, exclude):
    files, others = [], []
    for p in layout._walk(Path(class_dir), exclude):
        (files if fnmatch.fnmatch(p.name.lower(), pattern.lower()) or p.is_dir() else others).append(p)
    return files, others


def student_ids(files, class_dir):
    """alice.ipynb -> alice; alice/03_strides/03_strides.ipynb -> alice (when unambiguous)."""
    rels = [f.relative_to(class_dir) for f in files]
    firsts = [r.parts[0] if len(r.parts) > 1 else r.stem for r in rels]
    if len(set(firsts)) == len(firsts):
        return [display_name(x) for x in firsts]
    return [display_name(r.with_suffix("") if r.suffix else r) for r in rels]


def default_solutions(name):
    """solutions/NAME.ipynb of the checkout this package is in (never of the current folder):
    None when the package is not in a checkout (pass --solutions)."""
    checkout = Path(__file__).resolve().parents[2]
    path = checkout / "solutions" / f"{name}.ipynb"
    return path if path.is_file() else None


def _say(quiet):
    def say(*parts):
        if quiet:
            return
        text = " ".join(str(x) for x in parts)
        try:
            print(text, flush=True)
        except UnicodeEncodeError:  # a terminal that cannot show a student's file name
            print(text.encode("ascii", "backslashreplace").decode("ascii"), flush=True)
    return say


def _grade_one(f, key, limits, sid, protected, hide_hidden):
    """One row, whatever happens: a crash of the grader on one file is that file's verdict."""
    try:
        return grade_submission(f, key, limits, sid, protected, hide_hidden)
    except BaseException as e:  # noqa: BLE001 - including a SystemExit from somewhere deep
        r = SubmissionResult(display_name(sid), display_name(f), "grader_error", max_score=key.max_score,
                             reason=display_name(f"internal error while grading: {type(e).__name__}: {e}"))
        r.questions = _zero(key, "error", "not graded (grader error)")
        return r


def _parser():
    p = argparse.ArgumentParser(prog="python -m minitorch_course.grade", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("class_dir", type=Path, help="the folder of submitted notebooks")
    p.add_argument("--exercise", required=True, help="e.g. 03_strides; a list (03_strides,05_views) or "
                   "'all': each exercise into OUT/EXERCISE/, and one course-wide OUT/course.csv")
    p.add_argument("--out", type=Path, required=True, help="where the gradebook and feedback go")
    p.add_argument("--solutions", type=Path, help="the instructor's solutions notebook (default: "
                   "solutions/EXERCISE.ipynb of this checkout); keep it private for a graded class")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel sandboxes (default: cores)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds for each cell and each question")
    p.add_argument("--budget", type=float, help="seconds for a whole submission, all its cells, questions "
                   "and restarts together (default: 6 x --timeout, 30 s)")
    p.add_argument("--memory-mb", type=int, default=1024, help="address-space limit of a sandbox")
    p.add_argument("--seed", help="reseed the hidden random tests (default: from the solutions file)")
    p.add_argument("--glob", default="*.ipynb", help="which files are submissions (default *.ipynb)")
    p.add_argument("--scoring", choices=scoring.MODES, help="partial credit: 'groups' (the default: a "
                   "question's points split over its visible, hidden and random cases by the exercise's "
                   "weights), 'proportional' (to the cases passed) or 'all' (all or nothing)")
    p.add_argument("--student", action="append", default=[], metavar="ID",
                   help="grade only this student (repeat, or ID,ID); the other rows of OUT are kept")
    p.add_argument("--fresh", action="store_true", help="start a new gradebook: drop the rows already in OUT")
    p.add_argument("--deadline", help="ISO date and time (UTC unless it says otherwise), e.g. 2026-03-01T23:59; "
                   "work handed in later is marked late")
    p.add_argument("--late-penalty", default="none", help="with --deadline: 'none' (the default: only marked), "
                   "'zero', 'N%%' (off the score) or 'N%%/day' (per day or part of one)")
    p.add_argument("--roster", type=Path, help="CSV with columns id, name, email: names the students in "
                   "course.csv, and lists those who handed in nothing")
    p.add_argument("--show-hidden", action="store_true",
                   help="students' feedback shows the input and expected value of a failed hidden case "
                   "(default: it says a hidden case failed, and how many; gradebook.json always has them)")
    p.add_argument("--nbgrader-db", type=Path, metavar="GRADEBOOK_DB",
                   help="also write the scores and comments into nbgrader's gradebook.db (needs nbgrader)")
    p.add_argument("--hide-hidden", action="store_true",
                   help="keep hidden cases' inputs out of gradebook.json and gradebook.csv too")
    p.add_argument("--no-self-test", action="store_true",
                   help="skip grading the instructor's solutions first (they must score full marks)")
    p.add_argument("--quiet", action="store_true")
    return p


def exercise_list(text):
    """'all', a name, or names separated by commas -> [Exercise]. Raises KeyError."""
    from ..exercises import all_exercises, get_exercise
    if text.strip().lower() == "all":
        return list(all_exercises().values())
    return [get_exercise(n.strip()) for n in text.split(",") if n.strip()]


def main(argv=None) -> int:
    a = _parser().parse_args(argv)
    try:
        exercises = exercise_list(a.exercise)
        deadline = late.parse_deadline(a.deadline) if a.deadline else None
        penalty = late.parse_penalty(a.late_penalty)
        roster = course.read_roster(a.roster) if a.roster else None
    except (KeyError, ValueError, OSError) as e:
        print(f"error: {e.args[0] if isinstance(e, KeyError) else e}", file=sys.stderr)
        return 2
    if not exercises:
        print("error: no exercise named", file=sys.stderr)
        return 2
    if a.solutions and len(exercises) > 1:
        print("error: --solutions names one exercise's notebook; with several, the solutions come from "
              "solutions/ of this checkout (or $MINITORCH_SOLUTIONS)", file=sys.stderr)
        return 2
    if not a.class_dir.is_dir():
        print(f"error: {a.class_dir} is not a folder", file=sys.stderr)
        return 2
    if a.nbgrader_db:
        try:
            nbgrader_db._require()
        except RuntimeError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    say = _say(a.quiet)
    several = len(exercises) > 1
    books = []
    for exercise in exercises:
        out = a.out / exercise.name if several else a.out
        rc = grade_exercise(a, exercise, out, say, deadline, penalty, exclude=[a.out])
        if rc:
            return rc
        books.append(out / "gradebook.json")
    path = course.write_course_csv(a.out / "course.csv", books, roster)
    say(f"wrote {path} (one row per student: an LMS or a spreadsheet imports it)")
    if a.nbgrader_db:
        done = nbgrader_db.write(a.nbgrader_db, books, deadline, a.show_hidden)
        say(f"wrote {', '.join(f'{n} ({k} students)' for n, k in done.items())} into {a.nbgrader_db}")
    return 0


def grade_exercise(a, exercise, out, say, deadline=None, penalty=None, exclude=()):
    """Grade one exercise of the class into out. 0, or 2 when grading could not start."""
    solutions = (a.solutions if a.solutions else None) or default_solutions(exercise.name)
    if solutions is None:
        from ..answers import solutions_notebook
        solutions = solutions_notebook(exercise.name)
    if solutions is None or not solutions.is_file():
        where = solutions or f"solutions/{exercise.name}.ipynb of this checkout"
        print(f"error: no solutions notebook at {where} (use --solutions)", file=sys.stderr)
        return 2
    try:
        key = AnswerKey(exercise, solutions, seed=a.seed, scoring_mode=a.scoring)
    except AnswerKeyError as e:
        print(f"error: the answer key is broken: {e}", file=sys.stderr)
        return 2
    limits = Limits(step_seconds=a.timeout, memory_mb=a.memory_mb, budget_seconds=a.budget)
    protected = [solutions.resolve().parent, a.class_dir.resolve(), a.out.resolve()]

    entries, kind, skipped = layout.collect(a.class_dir, exercise.name, a.glob, exclude=exclude)
    wanted = {x.strip() for arg in a.student for x in arg.split(",") if x.strip()}
    if wanted:
        missing = sorted(wanted - {e.student for e in entries})
        entries = [e for e in entries if e.student in wanted]
        if missing:
            say(f"warning: no submission of {exercise.name} from {', '.join(missing)}")
    if not a.fresh:  # refuse early, before any grading, to merge into another exercise's gradebook
        try:
            from .gradebook import read_existing
            read_existing(out, key)
        except GradebookMismatch as e:
            print(f"error: {e}", file=sys.stderr)
            return 2

    if not a.no_self_test:
        canary = grade_submission(solutions, key, limits, "(instructor's solutions)", protected, self_test=True)
        if canary.score != key.max_score:
            print("error: the instructor's own solutions do not score full marks in the sandbox, so "
                  "grading would be wrong; nothing was graded.", file=sys.stderr)
            for q in canary.questions:
                print(f"  {q.id}: {q.status}: {q.reason}", file=sys.stderr)
            print(f"  {canary.reason}", file=sys.stderr)
            return 2
        iso = canary.isolation
        say(f"self-test: the solutions score {canary.score:g}/{key.max_score:g} in the sandbox "
            f"(landlock ABI {iso.get('landlock', 0)}, seccomp {'on' if iso.get('seccomp') else 'off'})")
        if not iso.get("landlock"):
            say("warning: no Landlock in this kernel: file isolation relies on the audit hook alone")

    graded = [e for e in entries if e.kind == "notebook"]
    others = [display_name(e.path.relative_to(a.class_dir)) for e in entries if e.kind != "notebook"]
    say(f"grading {len(graded)} submission(s) of {exercise.name} ({kind} layout) with {a.jobs} parallel sandbox(es)")
    if others:
        say(f"not graded (not a notebook, or a duplicate): {', '.join(others[:10])}" + (" ..." if len(others) > 10 else ""))
    t0 = time.monotonic()
    results = {}
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {pool.submit(_grade_one, e.path, key, limits, e.student, protected, a.hide_hidden): i
                   for i, e in enumerate(entries) if e.kind == "notebook"}
        for n, fut in enumerate(as_completed(futures), 1):
            i = futures[fut]
            r = results[i] = fut.result()
            statuses = " ".join(f"{q.id}:{q.status}" for q in r.questions)
            say(f"[{n}/{len(graded)}] {r.student}: {r.score:g}/{r.max_score:g} {r.verdict} {statuses}"
                + (f" ({len(r.flags)} flag(s))" if r.flags else ""))
    elapsed = time.monotonic() - t0
    rows = []
    for i, e in enumerate(entries):
        r = results.get(i) or _not_graded_row(e, key, a.class_dir)
        r.submitted, r.submitted_from = e.submitted, e.submitted_from
        if deadline is not None:
            late.apply(r, deadline, penalty)
        rows.append(r)
    meta = {**key.describe(), "class_dir": display_name(a.class_dir), "layout": kind, "graded_at":
            dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
            "submissions": len(graded), "not_graded_files": others, "other_files": skipped[:1000],
            "students": sorted(wanted) or "all", "seconds": round(elapsed, 2), "jobs": a.jobs,
            "deadline": deadline.isoformat() if deadline else None, "late_penalty": a.late_penalty,
            "limits": {"step_seconds": limits.step_seconds, "memory_mb": limits.memory_mb,
                       "file_mb": limits.file_mb, "budget_seconds": limits.budget}, "hide_hidden": a.hide_hidden,
            "show_hidden": a.show_hidden,
            "python": sys.version.split()[0]}
    try:
        csv_path, json_path, fb = write_all(rows, out, meta, key, merge=not a.fresh,
                                            feedback=lambda r: feedback_text(r, key.name, a.show_hidden))
    except GradebookMismatch as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rate = 60 * len(graded) / elapsed if elapsed > 0 else 0.0
    verdicts = {}
    for r in rows:
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    say(f"done: {len(graded)} submissions in {elapsed:.1f} s ({rate:.0f}/min); "
        + ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items())))
    say(f"wrote {csv_path}, {json_path} and {fb}/")
    return 0


def _not_graded_row(e, key, class_dir):
    """The row of a file that is not graded: not a notebook, or a duplicate."""
    r = SubmissionResult(display_name(e.student), display_name(e.path), e.kind if e.kind == "duplicate"
                         else "not_a_notebook", max_score=key.max_score, exercise=key.name)
    if e.kind == "duplicate":
        r.reason = (f"{display_name(e.path.name)}: another notebook of this student, "
                    f"{display_name(e.duplicate_of)}, was graded instead")
    else:
        hint = (f"; rename it to {e.path.name[:-4]}" if e.path.name.lower().endswith(".ipynb.txt") else "")
        r.reason = f"{display_name(e.path.name)} is not a notebook (.ipynb): not graded{hint}"
    r.questions = _zero(key, "not_graded", "not graded: " + r.reason)
    return r


if __name__ == "__main__":
    sys.exit(main())
