"""solutions/ -> exercises/ and checks/: the one command that makes what learners get.

    python -m minitorch_course.release            # regenerate exercises/NAME.ipynb and checks/NAME.json
    python -m minitorch_course.release --check    # exit 1 if either is out of date
    python -m minitorch_course.release --root DIR # the course checkout at DIR (default: this package's)

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

from .notebook import (NotebookError, cell_source, dumps, grade_id, nbgrader, parse_notebook,
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


def build(source: Path) -> str:
    """The exercise notebook text for one solutions notebook. Raises NotebookError."""
    nb = parse_notebook(source.read_bytes())
    name = source.stem
    problems = validate_source_notebook(nb) + check_against_spec(nb, name)
    if problems:
        raise NotebookError(f"{source}:\n  " + "\n  ".join(problems))
    return dumps(release(nb, name, f"solutions/{source.name}"))


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


def run(solutions: Path, exercises: Path, names=(), check=False, out=sys.stdout, checks: Path | None = None) -> int:
    """Release every solutions notebook (or those named): exercises/NAME.ipynb and, unless
    checks is None, checks/NAME.json. Nothing is written when any notebook fails to build."""
    sources = sorted(solutions.glob("*.ipynb"))
    if names:
        sources = [s for s in sources if s.stem in names or s.name in names]
    if not sources:
        print(f"no solutions notebooks found in {solutions}", file=out)
        return 1
    built = []
    for src in sources:
        try:
            files = [(exercises / src.name, build(src))]
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
    a = p.parse_args(argv)
    solutions = a.solutions or a.root / "solutions"
    if not solutions.is_dir():
        print(f"error: no solutions folder at {solutions} (pass --root or --solutions)", file=sys.stderr)
        return 2
    return run(solutions, a.exercises or a.root / "exercises", a.names, a.check,
               checks=a.checks or a.root / "minitorch_course" / "checks")


if __name__ == "__main__":
    sys.exit(main())
