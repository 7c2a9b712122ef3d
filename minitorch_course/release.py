"""solutions/ -> exercises/ and checks/: the one command that makes what learners get.

    python -m minitorch_course.release            # regenerate exercises/NAME.ipynb and checks/NAME.json
    python -m minitorch_course.release --check    # exit 1 if either is out of date
    python -m minitorch_course.release --root DIR # the course checkout at DIR (default: this package's)

Before writing anything, each released notebook is graded in the sandbox as a class would be:
untouched it must score 0, with the instructor's solution cells written in it must score full
marks (--no-grade skips this), and its setup cell must bind every question. Each release's
locked cells are kept in solutions/releases/NAME.json (by the release id the notebook's
metadata carries), so the grader compares a learner's notebook with the release they had.
--graded writes handouts for a graded class, whose qN.solution() shows no answer.

For each solutions/NAME.ipynb it writes two files. The check data,
minitorch_course/checks/NAME.json, is what the learner's q1.check() compares with: the solution
cells are run (the instructor's code, trusted) on every visible case of the exercise, the fixed
ones and the seeded random ones, and the expected outcomes are stored as plain data; hidden tests
are not. It ships with the package, so check() works wherever the course is installed (JupyterLab,
nbval, nbgrader, Colab, Binder) while the solutions themselves never leave solutions/.

Each solution block (### BEGIN/END SOLUTION) becomes the same stub,
    # YOUR CODE HERE
    raise NotImplementedError("Replace this line with your code, then run the test cell below.")
hidden tests (### BEGIN/END HIDDEN TESTS) are removed, outputs are cleared, and the nbgrader
metadata is kept (the grader and nbgrader both find cells by grade_id). The cells that raise
until the learner has written their code (graded test cells, a stub at a cell's top level,
locked cells that run the learner's code) get nbval's `raises-exception` tag, so that
`pytest --nbval exercises/` runs each exercise top to bottom and accepts exactly those errors
(nbgrader ignores tags). exercises/ is never
edited by hand: tests/test_release_sync.py fails when it differs from this command's output.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .notebook import (NotebookError, cell_source, dumps, grade_id, locked_cells, nbgrader, parse_notebook,
                       release, validate_source_notebook)


def repo_root() -> Path:
    """The course checkout this package is in (the folder holding solutions/), never the
    current folder: a release made from elsewhere must not pick up another copy. Pass --root
    (or --solutions and --exercises) to release another checkout."""
    return Path(__file__).resolve().parents[1]


def check_against_spec(nb, name) -> list[str]:
    """Problems between a solutions notebook and its exercise module (if it has one)."""
    from .exercises import all_exercises
    ex = all_exercises().get(name)
    if ex is None:
        return []
    problems = []
    cells = {grade_id(c): c for c in nb["cells"] if grade_id(c)}
    drivers = []
    for g in ex.driver_cells:
        c = cells.get(g)
        if c is None or c["cell_type"] != "code" or not nbgrader(c).get("locked") or nbgrader(c).get("grade"):
            problems.append(f"driver cell {g!r}: no locked, ungraded code cell with that grade_id")
        else:
            drivers.append(cell_source(c))
    problems += _setup_problems(nb, ex)
    for q in ex.questions:
        sol, test = cells.get(q.solution_cell), cells.get(q.test_cell)
        if sol is None or not nbgrader(sol).get("solution"):
            problems.append(f"{q.id}: no solution cell with grade_id {q.solution_cell!r}")
        elif q.answer is None and f"def {q.function}(" not in cell_source(sol):
            problems.append(f"{q.id}: cell {q.solution_cell!r} does not define {q.function}()")
        elif q.answer is not None and not any(f"{k} {q.written}" in cell_source(sol) for k in ("def", "class")):
            problems.append(f"{q.id}: cell {q.solution_cell!r} does not define {q.written}")
        if q.answer is not None and not any(f"def {q.function}(" in d for d in drivers):
            problems.append(f"{q.id}: no driver cell defines {q.function}()")
        if test is None or not nbgrader(test).get("grade"):
            problems.append(f"{q.id}: no graded test cell with grade_id {q.test_cell!r}")
        elif f"{q.id}.check()" not in cell_source(test):
            problems.append(f"{q.id}: test cell {q.test_cell!r} does not call {q.id}.check()")
    return problems


def _setup_problems(nb, ex) -> list[str]:
    """The setup cell must bind every question of the exercise: `q1, q2 = load_exercise("NAME")`
    (a question it leaves out would raise NameError in its test cell, for the learner and under
    nbgrader alike)."""
    import ast
    want = [q.id for q in ex.questions]
    for c in nb["cells"]:
        if c["cell_type"] != "code" or "load_exercise" not in cell_source(c):
            continue
        try:
            tree = ast.parse(cell_source(c))
        except SyntaxError:
            return ["the setup cell does not parse"]
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and getattr(node.value.func, "id", None) == "load_exercise"):
                args = node.value.args
                if not (args and isinstance(args[0], ast.Constant) and args[0].value == ex.name):
                    return [f"the setup cell loads {ast.unparse(node.value)}, not load_exercise({ex.name!r})"]
                target = node.targets[0]
                got = ([getattr(e, "id", "?") for e in target.elts] if isinstance(target, (ast.Tuple, ast.List))
                       else None)
                if got != want:
                    return [f"the setup cell binds {ast.unparse(target)} = load_exercise(...); the exercise "
                            f"has the questions {', '.join(want)}: write `{', '.join(want)}{',' if len(want) == 1 else ''}"
                            f" = load_exercise({ex.name!r})`"]
                return []
    return [f"no setup cell calls load_exercise({ex.name!r})"]


def grading_problems(source: Path, exercise_text: str) -> list[str]:
    """Grade the released notebook as a learner gets it (it must score 0) and with the
    instructor's solution cells written in (it must score full marks), in the sandbox, as a
    class would be graded. Nothing is written when either fails."""
    import tempfile
    from .exercises import all_exercises
    from .grading.grader import AnswerKey, AnswerKeyError, grade_submission
    from .grading.sample_class import solve
    from .grading.sandbox import Limits
    ex = all_exercises().get(source.stem)
    if ex is None:
        return []
    try:
        key = AnswerKey(ex, source)
    except AnswerKeyError as e:
        return [f"the answer key is broken: {e}"]
    released = json.loads(exercise_text)
    solved = solve(released, parse_notebook(source.read_bytes()))
    problems = []
    with tempfile.TemporaryDirectory(prefix="minitorch-release-check-") as tmp:
        for what, nb, want in (("untouched", released, 0.0), ("with its solutions", solved, key.max_score)):
            path = Path(tmp) / f"{what.replace(' ', '_')}.ipynb"
            path.write_text(dumps(nb), encoding="utf-8")
            r = grade_submission(path, key, Limits(step_seconds=10.0), f"release check ({what})")
            if r.score != want or r.verdict != "graded":
                lost = "; ".join(f"{q.id}: {q.points:g}/{q.max_points:g} {q.status} ({q.reason[:120]})"
                                 for q in r.questions)
                problems.append(f"the released notebook {what} scores {r.score:g}/{key.max_score:g}, not "
                                f"{want:g} ({r.verdict}{': ' + r.reason if r.reason else ''}): {lost}")
            elif r.flags:
                problems.append(f"the released notebook {what} is flagged: {'; '.join(r.flags[:3])}")
    return problems


def build(source: Path, graded: bool = False) -> str:
    """The exercise notebook text for one solutions notebook. Raises NotebookError."""
    nb = parse_notebook(source.read_bytes())
    name = source.stem
    problems = validate_source_notebook(nb) + check_against_spec(nb, name)
    if problems:
        raise NotebookError(f"{source}:\n  " + "\n  ".join(problems))
    return dumps(release(nb, name, f"solutions/{source.name}", graded=graded))


def build_checks(source: Path) -> str:
    """The check data text (checks/NAME.json) for one solutions notebook: its solution cells run
    on every visible case. Raises NotebookError."""
    from . import answers, checkdata
    from .exercises import all_exercises
    ex = all_exercises().get(source.stem)
    if ex is None:
        raise NotebookError(f"{source}: no exercise module defines {source.stem}")
    try:
        return checkdata.dumps(checkdata.build(answers.read(ex, source)))
    except (answers.AnswerKeyError, checkdata.CheckDataError) as e:
        raise NotebookError(f"{source}: {e}") from None


def history_path(solutions: Path, name: str) -> Path:
    """solutions/releases/NAME.json: every release of the exercise, by release id, with its
    locked cells, so that the grader compares a learner's notebook with the release they had."""
    return solutions / "releases" / f"{name}.json"


def history_text(current: str | None, name: str, exercise_text: str) -> str:
    """The history file with this release in it (added at the end when it is new)."""
    nb = json.loads(exercise_text)
    rid = nb["metadata"]["minitorch"]["release"]
    try:
        data = json.loads(current) if current else {}
    except ValueError:
        data = {}
    releases = [r for r in data.get("releases", []) if isinstance(r, dict) and isinstance(r.get("id"), str)]
    if not any(r["id"] == rid for r in releases):
        releases.append({"id": rid, "cells": locked_cells(nb)})
    return json.dumps({"exercise": name, "releases": releases}, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _same_checks(current: str, text: str) -> bool:
    """Check data computed on another machine may differ in a float's last bits: the same."""
    from .checkdata import same
    try:
        return same(json.loads(current), json.loads(text))
    except ValueError:
        return False


def _update(dst: Path, text: str, check: bool, out) -> bool:
    """Write dst (or, with check, only compare); True when it was out of date."""
    current = dst.read_text(encoding="utf-8") if dst.exists() else None
    if current == text or (current is not None and dst.suffix == ".json" and _same_checks(current, text)):
        print(f"up to date  {dst}", file=out)
        return False
    if check:
        print(f"OUT OF DATE {dst} (run: python -m minitorch_course.release)", file=out)
    else:
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(text, encoding="utf-8")
        print(f"wrote       {dst}", file=out)
    return True


def run(solutions: Path, exercises: Path, names=(), check=False, out=sys.stdout, checks: Path | None = None,
        grade=True, graded=False) -> int:
    """Release every solutions notebook (or those named): exercises/NAME.ipynb, the release's
    locked cells in solutions/releases/NAME.json and, unless checks is None, checks/NAME.json.
    grade: each released notebook is graded untouched (must score 0) and solved (must score
    full marks) first. Nothing is written when any notebook fails to build or to grade."""
    sources = sorted(solutions.glob("*.ipynb"))
    if names:
        sources = [s for s in sources if s.stem in names or s.name in names]
    if not sources:
        print(f"no solutions notebooks found in {solutions}", file=out)
        return 1
    built = []
    for src in sources:
        try:
            files = [(exercises / src.name, build(src, graded))]
            problems = grading_problems(src, files[0][1]) if grade and not check else []
            if problems:
                raise NotebookError(f"{src}:\n  " + "\n  ".join(problems))
            hist = history_path(solutions, src.stem)
            files.append((hist, history_text(hist.read_text(encoding="utf-8") if hist.exists() else None,
                                             src.stem, files[0][1])))
            if checks is not None:
                files.append((checks / f"{src.stem}.json", build_checks(src)))
        except NotebookError as e:
            print(f"error: {e}", file=out)
            return 1
        built += files
    stale = sum(_update(dst, text, check, out) for dst, text in built)
    return 1 if stale and check else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m minitorch_course.release", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("names", nargs="*", help="only these exercises (e.g. 03_strides)")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 if out of date")
    p.add_argument("--root", type=Path, default=repo_root(),
                   help="the course checkout (default: the one this package is in, never the current folder)")
    p.add_argument("--solutions", type=Path, help="default: ROOT/solutions")
    p.add_argument("--exercises", type=Path, help="default: ROOT/exercises")
    p.add_argument("--checks", type=Path, help="where the check data goes (default: ROOT/minitorch_course/checks)")
    p.add_argument("--graded", action="store_true", help="handouts for a graded class: solution() shows no "
                   "answer (write them elsewhere: --exercises handouts/)")
    p.add_argument("--no-grade", action="store_true", help="skip grading each released notebook untouched "
                   "(must score 0) and solved (must score full marks) before writing")
    a = p.parse_args(argv)
    solutions = a.solutions or a.root / "solutions"
    if not solutions.is_dir():
        print(f"error: no solutions folder at {solutions} (pass --root or --solutions)", file=sys.stderr)
        return 2
    return run(solutions, a.exercises or a.root / "exercises", a.names, a.check,
               checks=a.checks or a.root / "minitorch_course" / "checks", grade=not a.no_grade, graded=a.graded)


if __name__ == "__main__":
    sys.exit(main())
