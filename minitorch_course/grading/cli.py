"""Grade a folder of submitted notebooks in one command.

    python -m minitorch_course.grade CLASS_DIR --exercise 03_strides --out OUT_DIR

CLASS_DIR holds the submissions: any file names, any count, flat (alice.ipynb, bob (1).ipynb)
or one folder per student (nbgrader's submitted/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb). OUT_DIR
gets gradebook.csv, gradebook.json and feedback/STUDENT.md. A submission that is malformed,
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

from .gradebook import write_all
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
    class_dir = Path(class_dir)
    excluded = [Path(e).resolve() for e in exclude]
    files, others = [], []
    for root, dirs, names in os.walk(class_dir, followlinks=False):
        here = Path(root)
        for d in list(dirs):
            p = here / d
            if d.startswith(".") or any(_inside(p, e) for e in excluded):
                dirs.remove(d)
            elif p.is_symlink():
                dirs.remove(d)
                files.append(p)  # a linked folder: refused, with a row of its own
        for n in names:
            p = here / n
            if not any(_inside(p, e) for e in excluded):
                (files if fnmatch.fnmatch(n.lower(), pattern.lower()) else others).append(p)
    return sorted(files, key=os.fsencode), sorted(others, key=os.fsencode)


def _inside(p, d):
    try:
        Path(os.path.abspath(p)).relative_to(d)
        return True
    except ValueError:
        return False


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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m minitorch_course.grade", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("class_dir", type=Path, help="the folder of submitted notebooks")
    p.add_argument("--exercise", required=True, help="e.g. 03_strides")
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
    p.add_argument("--hide-hidden", action="store_true",
                   help="feedback says a hidden test failed without showing its input")
    p.add_argument("--no-self-test", action="store_true",
                   help="skip grading the instructor's solutions first (they must score full marks)")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)

    from ..exercises import get_exercise
    try:
        exercise = get_exercise(a.exercise)
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return 2
    solutions = a.solutions or default_solutions(exercise.name)
    if solutions is None or not solutions.is_file():
        where = solutions or f"solutions/{exercise.name}.ipynb of this checkout"
        print(f"error: no solutions notebook at {where} (use --solutions)", file=sys.stderr)
        return 2
    if not a.class_dir.is_dir():
        print(f"error: {a.class_dir} is not a folder", file=sys.stderr)
        return 2
    try:
        key = AnswerKey(exercise, solutions, seed=a.seed)
    except AnswerKeyError as e:
        print(f"error: the answer key is broken: {e}", file=sys.stderr)
        return 2
    limits = Limits(step_seconds=a.timeout, memory_mb=a.memory_mb, budget_seconds=a.budget)
    protected = [solutions.resolve().parent, a.class_dir.resolve(), a.out.resolve()]
    say = _say(a.quiet)

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

    files = find_submissions(a.class_dir, a.glob, exclude=[a.out])
    others = [display_name(p.relative_to(a.class_dir)) for p in other_files(a.class_dir, a.glob, [a.out])]
    ids = student_ids(files, a.class_dir)
    say(f"grading {len(files)} submission(s) of {exercise.name} with {a.jobs} parallel sandbox(es)")
    if others:
        say(f"not graded (not {a.glob}): {', '.join(others[:10])}" + (" ..." if len(others) > 10 else ""))
    t0 = time.monotonic()
    results = [None] * len(files)
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {pool.submit(_grade_one, f, key, limits, sid, protected, a.hide_hidden): i
                   for i, (f, sid) in enumerate(zip(files, ids))}
        for n, fut in enumerate(as_completed(futures), 1):
            i = futures[fut]
            r = results[i] = fut.result()
            statuses = " ".join(f"{q.id}:{q.status}" for q in r.questions)
            say(f"[{n}/{len(files)}] {r.student}: {r.score:g}/{r.max_score:g} {r.verdict} {statuses}"
                + (f" ({len(r.flags)} flag(s))" if r.flags else ""))
    elapsed = time.monotonic() - t0
    meta = {**key.describe(), "class_dir": display_name(a.class_dir), "graded_at":
            dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
            "submissions": len(files), "not_graded_files": others, "seconds": round(elapsed, 2), "jobs": a.jobs,
            "limits": {"step_seconds": limits.step_seconds, "memory_mb": limits.memory_mb,
                       "file_mb": limits.file_mb, "budget_seconds": limits.budget}, "hide_hidden": a.hide_hidden,
            "python": sys.version.split()[0]}
    csv_path, json_path, fb = write_all(results, a.out, meta, key)
    rate = 60 * len(files) / elapsed if elapsed > 0 else 0.0
    verdicts = {}
    for r in results:
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    say(f"done: {len(files)} submissions in {elapsed:.1f} s ({rate:.0f}/min); "
        + ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items())))
    say(f"wrote {csv_path}, {json_path} and {fb}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
