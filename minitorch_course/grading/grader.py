"""The grader: the instructor's answer key, and the verdict on one submission.

Trust, in one paragraph. The answer key (inputs, reference solutions, expected values, points,
tests) comes only from the instructor's solutions notebook and the exercise module, and is
computed in this process. From a submission the grader takes only the *source* of code cells:
the solution cells (found by nbgrader grade_id) and any cells the student added; locked cells
(instructions, tests) are compared with the instructor's copy, never executed, and any edit is
reported. That source runs in a separate confined process (sandbox.py), which returns only
what the learner's functions returned, as tagged plain data. A question is correct only when
this process compared every returned value with its own expected value and found them equal.
"""
from __future__ import annotations

import ast
import hashlib
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..exercises import FORMER_NAMES
from ..notebook import (NotebookError, cell_source, exercise_name, grade_id, hidden_blocks, nbgrader,
                        parse_hidden_checks, parse_notebook, release, strip_hidden,
                        validate_source_notebook, without_markers)
from ..spec import (Case, Exercise, Raised, decode, decode_plain_copy, expected_outcome, function_defs,
                    judge, python_loops)
from .harness import encode_args
from .sandbox import Limits, run_submission

MAX_NOTEBOOK_BYTES = 20 << 20
NBGRADER_COMPARED = ("grade", "solution", "locked", "points", "grade_id")


class AnswerKeyError(ValueError):
    """The instructor's notebook cannot serve as an answer key (the message says why)."""


# ---------------------------------------------------------------------------------------
# The instructor's side
# ---------------------------------------------------------------------------------------
@dataclass
class KeyQuestion:
    spec: object
    points: float
    cases: list
    expected: list
    encoded: list


def _imports_of(source, refused):
    """The top-level import statements of a cell, minus those of refused packages."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if not any(m.split(".")[0] in refused for m in mods):
                out.append(ast.unparse(node))
    return out


class AnswerKey:
    """Everything the grader needs from the instructor, computed once per grading run."""

    def __init__(self, exercise: Exercise, solutions_path, seed=None):
        from ..release import check_against_spec
        path = Path(solutions_path)
        data = path.read_bytes()
        self.path, self.sha256 = path, hashlib.sha256(data).hexdigest()
        try:
            nb = parse_notebook(data)
        except NotebookError as e:
            raise AnswerKeyError(f"{path}: {e}") from None
        problems = validate_source_notebook(nb) + check_against_spec(nb, exercise.name)
        if problems:
            raise AnswerKeyError(f"{path}:\n  " + "\n  ".join(problems))
        self.exercise, self.name, self.seed = exercise, exercise.name, seed
        self.source = nb
        released = release(nb, exercise.name)
        self.cells = {grade_id(c): c for c in nb["cells"] if grade_id(c)}
        self.released_cells = {grade_id(c): c for c in released["cells"] if grade_id(c)}
        self.order = [grade_id(c) for c in nb["cells"] if grade_id(c)]
        self.locked = [g for g in self.order if nbgrader(self.cells[g]).get("locked")]
        self.solution_cells = {q.solution_cell: q for q in exercise.questions}

        # imports the learner's cells may rely on (from the locked cells), minus refused ones
        refused = set(exercise.forbidden_imports) | {"minitorch", "minitorch_course"}
        lines = []
        for g in self.locked:
            c = self.cells[g]
            if c["cell_type"] == "code" and not nbgrader(c).get("grade"):
                lines += [ln for ln in _imports_of(cell_source(c), refused) if ln not in lines]
        self.prelude = "\n".join(f"try:\n    {ln}\nexcept ImportError:\n    pass" for ln in lines)

        # the reference solutions: the instructor's solution cells, run here (trusted code)
        ns = {"__name__": "__answer_key__"}
        exec(compile(self.prelude, "<key prelude>", "exec"), ns)  # noqa: S102 - instructor's code
        for q in exercise.questions:
            exec(compile(without_markers(cell_source(self.cells[q.solution_cell])),  # noqa: S102
                         f"<key {q.solution_cell}>", "exec"), ns)
        # the drivers (instructor's locked cells that call the learner's classes), run last
        self.drivers = [(g, cell_source(self.cells[g])) for g in exercise.driver_cells]
        for g, src in self.drivers:
            exec(compile(src, f"<key {g}>", "exec"), ns)  # noqa: S102 - instructor's code

        self.questions = []
        for q in exercise.questions:
            test = self.cells[q.test_cell]
            cases = q.cases()
            for block in hidden_blocks(cell_source(test)):
                for qid, kw in parse_hidden_checks(block):
                    if qid != q.id:
                        raise AnswerKeyError(f"{q.test_cell}: hidden tests call {qid}.check(), not {q.id}")
                    s = kw.get("seed", self.sha256[:16])
                    s = s if seed is None else f"{seed}:{s}"
                    cases += q.cases(kw.get("cases", []), kw.get("random", 0), s)
            ref = ns.get(q.function)
            if not callable(ref):
                raise AnswerKeyError(f"the solution cell {q.solution_cell} does not define {q.function}")
            try:
                expected = [expected_outcome(ref, tuple(decode_plain_copy(a) for a in c.args), q.raises)
                            for c in cases]
            except Exception as e:  # noqa: BLE001
                raise AnswerKeyError(f"the reference {q.function} fails on the grader's inputs: "
                                     f"{type(e).__name__}: {e}") from None
            self.questions.append(KeyQuestion(q, float(nbgrader(test)["points"]), cases, expected,
                                              [encode_args(c.args) for c in cases]))
        self.max_score = sum(k.points for k in self.questions)

    def describe(self):
        return {"exercise": self.name, "solutions": str(self.path), "solutions_sha256": self.sha256,
                "seed": self.seed, "max_score": self.max_score,
                "questions": [{"id": k.spec.id, "function": k.spec.function, "points": k.points,
                               "cases": len(k.cases),
                               "hidden_cases": sum(c.kind != "visible" for c in k.cases)}
                              for k in self.questions]}


# ---------------------------------------------------------------------------------------
# One submission
# ---------------------------------------------------------------------------------------
@dataclass
class QuestionGrade:
    id: str
    function: str
    title: str
    points: float
    max_points: float
    status: str   # correct, incorrect, not_attempted, missing, error, forbidden, timeout,
                  # crashed, exited, tampered
    reason: str = ""
    passed: int = 0
    total: int = 0


@dataclass
class SubmissionResult:
    student: str
    file: str
    verdict: str  # graded, malformed, wrong_exercise, unreadable, too_large, grader_error
    score: float = 0.0
    max_score: float = 0.0
    reason: str = ""
    questions: list = field(default_factory=list)
    flags: list = field(default_factory=list)   # tampering and refused operations: for a human
    notes: list = field(default_factory=list)   # informational (errors in added cells, ...)
    sha256: str = ""
    seconds: float = 0.0
    runs: int = 0
    isolation: dict = field(default_factory=dict)
    output: str = ""

    def to_dict(self):
        return asdict(self)


def _defines(source, name):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return f"def {name}(" in source or f"class {name}" in source
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name
               for n in ast.walk(tree))


def _norm(src):
    return "\n".join(line.rstrip() for line in src.strip().split("\n"))


def _other_exercise(nb, key):
    """The name of another course exercise this notebook belongs to, if any."""
    from ..exercises import all_exercises
    ids = {grade_id(c) for c in nb["cells"]} - {None}
    for name, ex in all_exercises().items():
        if name == key.name:
            continue
        theirs = {q.solution_cell for q in ex.questions} | {q.test_cell for q in ex.questions}
        if ids & theirs:
            return name
    return None


def _zero(key, status, reason):
    return [QuestionGrade(k.spec.id, k.spec.function, k.spec.title, 0.0, k.points, status, reason,
                          0, len(k.cases)) for k in key.questions]


def grade_submission(path, key: AnswerKey, limits: Limits, student=None, protected=(),
                     hide_hidden=False) -> SubmissionResult:
    """Grade one file. Never raises: every failure is a verdict on this submission.
    hide_hidden: say that a hidden test failed without showing its input and expected value."""
    path = Path(path)
    res = SubmissionResult(student or path.stem, str(path), "graded", max_score=key.max_score)
    t0 = time.monotonic()
    try:
        _grade(path, key, limits, res, protected, hide_hidden)
    except Exception as e:  # noqa: BLE001 - one broken submission never stops the batch
        res.verdict = "grader_error"
        res.reason = f"internal error while grading: {type(e).__name__}: {e}"
        res.notes.append(traceback.format_exc(limit=5))
        res.questions = _zero(key, "error", "not graded (grader error)")
        res.score = 0.0
    res.seconds = round(time.monotonic() - t0, 3)
    return res


def _grade(path, key, limits, res, protected, hide_hidden=False):  # noqa: C901 - a checklist
    # 1. the file
    try:
        size = path.stat().st_size
        if size > MAX_NOTEBOOK_BYTES:
            res.verdict = "too_large"
            res.reason = f"the file is {size >> 20} MiB; the limit is {MAX_NOTEBOOK_BYTES >> 20} MiB"
            res.questions = _zero(key, "not_graded", "not graded: " + res.reason)
            return
        data = path.read_bytes()
    except OSError as e:
        res.verdict, res.reason = "unreadable", f"cannot read the file: {e.strerror or e}"
        res.questions = _zero(key, "not_graded", "not graded: " + res.reason)
        return
    res.sha256 = hashlib.sha256(data).hexdigest()
    try:
        nb = parse_notebook(data)
    except NotebookError as e:
        res.verdict, res.reason = "malformed", f"not a readable notebook: {e}"
        res.questions = _zero(key, "not_graded", "not graded: " + res.reason)
        return

    # 2. is it this exercise?
    cells = nb["cells"]
    ids = [grade_id(c) for c in cells]
    ours = set(key.cells)
    claimed = exercise_name(nb)
    claimed = FORMER_NAMES.get(claimed, claimed)  # a notebook released before a renumbering
    found_ours = bool(ours & set(ids))
    other = _other_exercise(nb, key)
    if not found_ours:
        if other or (claimed and claimed != key.name):
            res.verdict = "wrong_exercise"
            res.reason = f"this is the notebook of exercise {other or claimed}, not {key.name}"
            res.questions = _zero(key, "not_graded", "not graded: " + res.reason)
            return
        if not any(c["cell_type"] == "code" and _defines(cell_source(c), k.spec.written)
                   for c in cells for k in key.questions):
            res.verdict = "wrong_exercise"
            res.reason = f"none of the cells or functions of {key.name} are in this notebook"
            res.questions = _zero(key, "not_graded", "not graded: " + res.reason)
            return
        res.flags.append("no nbgrader cell metadata: the cells were found by the functions they define")
    elif claimed and claimed != key.name:
        res.flags.append(f"the notebook metadata names exercise {claimed!r}")

    # 3. locked cells and metadata: compared, never executed
    seen = {}
    for i, c in enumerate(cells):
        g = ids[i]
        if g is None:
            continue
        if g in seen:
            res.flags.append(f"cell {g!r} appears more than once (the first copy was used)")
            continue
        seen[g] = c
    for g in key.locked:
        mine, theirs = seen.get(g), key.released_cells[g]
        if mine is None:
            if found_ours:
                res.flags.append(f"locked cell {g!r} was deleted or its metadata removed")
            continue
        if mine["cell_type"] != theirs["cell_type"] or _norm(strip_hidden_safe(cell_source(mine))) != _norm(
                cell_source(theirs)):
            kind = "test cell" if nbgrader(theirs).get("grade") else "locked cell"
            res.flags.append(f"{kind} {g!r} was edited (ignored: the grader uses the instructor's copy)")
    for g, mine in seen.items():
        theirs = key.cells.get(g)
        if theirs is None:
            continue
        a, b = nbgrader(mine), nbgrader(theirs)
        for k in NBGRADER_COMPARED:
            if a.get(k) != b.get(k):
                res.flags.append(f"nbgrader metadata of {g!r} changed: {k} {b.get(k)!r} -> {a.get(k)!r} "
                                 "(ignored: the grader uses the instructor's)")

    # 4. the code that will run: solution cells and added cells, in notebook order
    run_cells, sol_for = [], {}
    for i, c in enumerate(cells):
        if c["cell_type"] != "code":
            continue
        g = ids[i]
        if g in key.solution_cells:
            if seen.get(g) is not c:
                continue  # a duplicate
            sol_for[g] = g
            run_cells.append({"id": g, "source": cell_source(c)})
        elif g in key.cells:
            continue  # an instructor cell (setup, tests): the instructor's copy is never run here
        else:
            cid = f"cell{i}" if g is None else f"cell{i}:{g}"[:60]
            run_cells.append({"id": cid, "source": cell_source(c)})
            for sc, q in key.solution_cells.items():
                if sc not in seen and sc not in sol_for and _defines(cell_source(c), q.written):
                    sol_for[sc] = cid
                    res.flags.append(f"solution cell {sc!r} not found (renamed, or its metadata removed); "
                                     f"graded the cell that defines {q.written}{'' if q.answer else '()'}")
    learner_defs = function_defs([c["source"] for c in run_cells])  # for questions with no_loops
    # the instructor's drivers, after every cell of the learner's (their copies never run)
    run_cells += [{"id": f"driver:{g}", "source": src} for g, src in key.drivers]
    if key.prelude:
        run_cells.insert(0, {"id": "setup", "source": key.prelude})

    # 5. run it, confined; get plain data back
    questions = [{"id": k.spec.id, "function": k.spec.function, "cases": k.encoded} for k in key.questions]
    ex = key.exercise
    run = run_submission(run_cells, questions, limits, preload=list(ex.preload),
                         forbidden_calls=list(ex.forbidden_calls),
                         forbidden_imports=list(ex.forbidden_imports),
                         protected_paths=[str(p) for p in protected])
    res.runs, res.isolation = run.runs, run.isolation
    res.output = (run.stdout + ("\n[stderr]\n" + run.stderr if run.stderr.strip() else ""))[:4000]
    if run.infrastructure_error:
        res.verdict, res.reason = "grader_error", run.infrastructure_error
        res.questions = _zero(key, "error", "not graded: " + run.infrastructure_error)
        return
    for a in run.anomalies:
        res.flags.append(f"result channel tampering: {a}")
    refused = {}
    for v in run.violations:
        if not v["what"].startswith("called "):
            where = str(v["step"]).replace("cell:", "cell ").replace("q:", "")
            refused.setdefault(f"sandbox refused {v['what']}", []).append(where)
    for what, wheres in refused.items():
        res.flags.append(f"{what} (in {', '.join(dict.fromkeys(wheres))})")
    for step, status, why in run.deaths:
        if status == "exited":
            res.flags.append(f"the process ended early during {step.replace(':', ' ')}: {why}")
    for cid, rep in run.cells.items():
        if cid == "setup" or cid in key.solution_cells or cid.startswith("driver:"):
            continue
        if "error" in rep:
            res.notes.append(f"your added cell {cid} raised {rep['error'].get('type')}: "
                             f"{str(rep['error'].get('message'))[:150]} (ignored)")
        elif "died" in rep:
            res.notes.append(f"your added cell {cid} {rep.get('reason')} (skipped)")

    # 6. the verdicts, decided here
    for k in key.questions:
        res.questions.append(_judge_question(k, run, sol_for, ex, hide_hidden, learner_defs))
    res.score = sum(q.points for q in res.questions)


def strip_hidden_safe(src):
    try:
        return strip_hidden(src) if hidden_blocks(src) else src
    except NotebookError:
        return src


def _judge_question(k: KeyQuestion, run, sol_for, ex, hide_hidden=False,
                    learner_defs=None) -> QuestionGrade:  # noqa: C901
    s, total = k.spec, len(k.cases)

    def grade(status, reason, passed=0):
        pts = k.points if status == "correct" else 0.0
        return QuestionGrade(s.id, s.function, s.title, pts, k.points, status, reason, passed, total)

    rep = run.questions.get(s.id)
    if not isinstance(rep, dict):
        return grade("error", "no result came back")
    if rep.get("tampered"):
        return grade("tampered", "the result channel was tampered with, so no result could be trusted")
    if "died" in rep:
        return grade(str(rep["died"]), f"{s.function} {rep.get('reason')}")
    cell_id = sol_for.get(s.solution_cell)
    if rep.get("missing"):
        if cell_id is None:
            return grade("missing", f"the cell {s.solution_cell!r} where {s.function} is written was not "
                                    "found (deleted, or its metadata changed)")
        crep = run.cells.get(cell_id, {})
        if "error" in crep:
            e = crep["error"]
            line = f" (line {e['line']})" if e.get("line") else ""
            return grade("error", f"the cell {cell_id!r} raised {e.get('type')}{line}: "
                                  f"{str(e.get('message'))[:200]}, so {s.function} was never defined")
        if "died" in crep:
            return grade(str(crep["died"]), f"the cell {cell_id!r} {crep.get('reason')}")
        if crep.get("timeout"):
            return grade("timeout", f"the cell {cell_id!r} did not finish in time")
        return grade("missing", f"{s.function} is not defined (renamed?)")
    if rep.get("not_callable"):
        return grade("error", f"{s.function} is a {str(rep['not_callable'])[:60]}, not a function")
    results = rep.get("results")
    if not isinstance(results, list) or len(results) > total:
        return grade("tampered", "the report for this question is malformed")
    called = sorted({v[7:] for v in rep.get("violations", []) if isinstance(v, str) and v.startswith("called ")})
    if called:
        return grade("forbidden", f"{s.function} called {', '.join(called[:3])}: not allowed here "
                                  f"({ex.forbidden_reason or 'see the exercise'})")
    outcomes = [judge(s, case, exp, decode(r)) for case, exp, r in zip(k.cases, k.expected, results)]
    passed = sum(o.ok for o in outcomes)
    failures = [o for o in outcomes if not o.ok]
    if failures and passed == 0 and all(isinstance(o.actual, Raised) and o.actual.type == "NotImplementedError"
                                        for o in failures):
        return grade("not_attempted", f"not attempted: {s.function} still raises NotImplementedError")
    loops = python_loops(learner_defs or {}, s.function) if s.no_loops else []
    if loops:
        return grade("forbidden", f"{s.function} loops in Python ({'; '.join(loops[:3])}): not allowed "
                                  "here (the loop must run inside NumPy: whole-array operations)", passed)
    if rep.get("timeout"):
        memory = any(isinstance(o.actual, Raised) and o.actual.type == "MemoryError" for o in outcomes)
        why = "it kept running out of memory (MemoryError)" if memory else "an infinite loop?"
        return grade("timeout", f"{s.function} did not finish all {total} cases within the time limit "
                                f"(finished {len(results)}; {why})", passed)
    if len(results) < total:
        return grade("tampered", f"only {len(results)} of {total} results came back")
    crep = run.cells.get(cell_id, {}) if cell_id else {}
    if failures and s.answer is not None and "error" in crep:
        e = crep["error"]
        line = f" (line {e['line']})" if e.get("line") else ""
        return grade("error", f"the cell {cell_id!r} where {s.written} is written raised {e.get('type')}{line}: "
                              f"{str(e.get('message'))[:200]}; then {failures[0].reason}", passed)
    if failures:
        first = failures[0]
        where = {"visible": "a visible test", "hidden": "a hidden test", "random": "a random test"}[first.case.kind]
        shown = [o for o in failures if o.case.kind == "visible"] if hide_hidden else failures
        if shown:
            return grade("incorrect", f"{shown[0].reason} [{where if not hide_hidden else 'a visible test'}; "
                                      f"{len(failures)} of {total} cases fail]", passed)
        return grade("incorrect", f"{s.function} passes the visible tests but fails {len(failures)} of "
                                  f"{total - sum(c.kind == 'visible' for c in k.cases)} hidden ones "
                                  "(their inputs are not shown)", passed)
    return grade("correct", f"all {total} cases pass", passed)


__all__ = ["AnswerKey", "AnswerKeyError", "Case", "QuestionGrade", "SubmissionResult", "grade_submission"]
