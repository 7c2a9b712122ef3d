"""Grade a folder of submitted notebooks in one command.

    python -m minitorch_course.grade CLASS_DIR --exercise 03_strides --out OUT_DIR

CLASS_DIR holds the submissions: any file names, any count, flat (alice.ipynb, bob (1).ipynb)
or one folder per student (nbgrader's submitted/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb). OUT_DIR
gets gradebook.csv, gradebook.json and feedback/STUDENT.md. A submission that is malformed,
for another exercise, crashes, loops, eats memory or tampers gets its own verdict; the batch
always finishes. Exit status: 0 when the batch was graded (whatever the scores), 2 when the
grader could not start (bad arguments, a broken answer key, or a sandbox that fails its
self-test on the instructor's own solutions).
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from .gradebook import write_all
from .grader import AnswerKey, AnswerKeyError, grade_submission
from .sandbox import Limits


def find_submissions(class_dir: Path, pattern: str, exclude=()):
    files = []
    for p in sorted(class_dir.rglob(pattern)):
        rel = p.relative_to(class_dir)
        if any(part.startswith(".") for part in rel.parts) or not p.is_file():
            continue  # .ipynb_checkpoints and other hidden things
        if any(_inside(p, e) for e in exclude):
            continue
        files.append(p)
    return files


def _inside(p, d):
    try:
        p.resolve().relative_to(Path(d).resolve())
        return True
    except ValueError:
        return False


def student_ids(files, class_dir):
    """alice.ipynb -> alice; alice/03_strides/03_strides.ipynb -> alice (when unambiguous)."""
    rels = [f.relative_to(class_dir) for f in files]
    firsts = [r.parts[0] if len(r.parts) > 1 else r.stem for r in rels]
    if len(set(firsts)) == len(firsts):
        return firsts
    return [str(r.with_suffix("")) for r in rels]


def default_solutions(name):
    from ..release import repo_root
    return repo_root() / "solutions" / f"{name}.ipynb"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m minitorch_course.grade", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("class_dir", type=Path, help="the folder of submitted notebooks")
    p.add_argument("--exercise", required=True, help="e.g. 03_strides")
    p.add_argument("--out", type=Path, required=True, help="where the gradebook and feedback go")
    p.add_argument("--solutions", type=Path, help="the instructor's solutions notebook "
                   "(default: solutions/EXERCISE.ipynb); keep it private for a graded class")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel sandboxes (default: cores)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds for each cell and each question")
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
    if not solutions.is_file():
        print(f"error: no solutions notebook at {solutions} (use --solutions)", file=sys.stderr)
        return 2
    if not a.class_dir.is_dir():
        print(f"error: {a.class_dir} is not a folder", file=sys.stderr)
        return 2
    try:
        key = AnswerKey(exercise, solutions, seed=a.seed)
    except AnswerKeyError as e:
        print(f"error: the answer key is broken: {e}", file=sys.stderr)
        return 2
    limits = Limits(step_seconds=a.timeout, memory_mb=a.memory_mb)
    protected = [solutions.resolve().parent, a.class_dir.resolve(), a.out.resolve()]
    say = (lambda *x: None) if a.quiet else (lambda *x: print(*x, flush=True))

    if not a.no_self_test:
        canary = grade_submission(solutions, key, limits, "(instructor's solutions)", protected)
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
    ids = student_ids(files, a.class_dir)
    say(f"grading {len(files)} submission(s) of {exercise.name} with {a.jobs} parallel sandbox(es)")
    t0 = time.monotonic()
    results = [None] * len(files)
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {pool.submit(grade_submission, f, key, limits, sid, protected, a.hide_hidden): i
                   for i, (f, sid) in enumerate(zip(files, ids))}
        for n, fut in enumerate(as_completed(futures), 1):
            i = futures[fut]
            r = results[i] = fut.result()
            statuses = " ".join(f"{q.id}:{q.status}" for q in r.questions)
            say(f"[{n}/{len(files)}] {r.student}: {r.score:g}/{r.max_score:g} {r.verdict} {statuses}"
                + (f" ({len(r.flags)} flag(s))" if r.flags else ""))
    elapsed = time.monotonic() - t0
    meta = {**key.describe(), "class_dir": str(a.class_dir), "graded_at":
            dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
            "submissions": len(files), "seconds": round(elapsed, 2), "jobs": a.jobs,
            "limits": {"step_seconds": limits.step_seconds, "memory_mb": limits.memory_mb,
                       "file_mb": limits.file_mb}, "hide_hidden": a.hide_hidden,
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
