"""The grader: the instructor's answer key, and the verdict on one submission.

Trust, in one paragraph. The answer key (inputs, reference solutions, expected values, points,
tests) comes only from the instructor's solutions notebook and the exercise module, and is
computed in this process. From a submission the grader takes only the *source* of code cells:
the solution cells (found by nbgrader grade_id) and any cells the student added; locked cells
(instructions, tests) are compared with the instructor's copy, never executed, and any edit is
reported. The rules on how an answer is written are decided here, by reading that source
(rules.py). The source runs in a separate confined process (sandbox.py) which sends back only
plain data, read as values and never as claims: a question is correct only when this process
compared every one of its cases with its own expected value and found them equal, and a
status other than a value's (timeout, crashed, exited, tampered) comes only from what this
process observed of the run itself.
"""
from __future__ import annotations

import ast
import errno
import hashlib
import os
import stat
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import answers
from ..answers import AnswerKeyError
from ..exercises import FORMER_NAMES
from ..notebook import (NotebookError, cell_source, exercise_name, grade_id, hidden_blocks, locked_cells, nbgrader,
                        parse_hidden_checks, parse_notebook, python_code, release, release_of, strip_hidden)
from ..notebook import ADDED_CELLS
from ..spec import Case, Exercise, Raised, decide, decode, judge
from . import rules, scoring
from .harness import encode_args
from .sandbox import Limits, run_submission

MAX_FILE_BYTES = 64 << 20     # read and parsed (stored outputs included, then dropped)
MAX_CODE_BYTES = 2 << 20      # the code that runs: solution cells and added cells
MAX_ADDED_CELLS = 50          # code cells a learner added that are run (beyond: not run, noted)
MAX_JSON_CONTAINERS = 2_000_000  # { and [ in the file: what the grader is willing to parse
NBGRADER_COMPARED = ("grade", "solution", "locked", "points", "grade_id")
OUTPUT_KEPT = 4000            # characters of a submission's printed output kept in its row


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
    mode: str = scoring.DEFAULT_MODE   # partial credit (scoring.py)
    weights: dict = field(default_factory=lambda: dict(scoring.DEFAULT_WEIGHTS))


class AnswerKey:
    """Everything the grader needs from the instructor, computed once per grading run: the
    solution cells run here (answers.read), the cases (visible, hidden, seeded random) and the
    expected outcome of each, computed here too. The check data a learner's check() reads
    (checks/NAME.json) is never used: a student could have seen or edited it."""

    def __init__(self, exercise: Exercise, solutions_path, seed=None, scoring_mode=None):
        key = answers.read(exercise, solutions_path)
        try:
            self.scoring = scoring.mode_of(exercise, scoring_mode)
        except ValueError as e:
            raise AnswerKeyError(str(e)) from None
        nb = key.notebook
        self.path, self.sha256 = key.path, key.sha256
        self.exercise, self.name, self.seed = exercise, exercise.name, seed
        self.source = nb
        released = release(nb, exercise.name)
        self.cells = dict(key.cells)
        self.released_cells = {grade_id(c): c for c in released["cells"] if grade_id(c)}
        self.release_id = release_of(released)
        # every release handed out (make release keeps them): a notebook's locked cells are
        # compared with those of the release it came from
        self.releases = {self.release_id: locked_cells(released), **_release_history(key.path, exercise.name)}
        try:  # the graded handout of the same solutions (release --graded)
            graded = release(nb, exercise.name, graded=True)
            self.graded_release_id = release_of(graded)
            self.releases.setdefault(self.graded_release_id, locked_cells(graded))
        except NotebookError:
            self.graded_release_id = None
        self.order = [grade_id(c) for c in nb["cells"] if grade_id(c)]
        self.locked = [g for g in self.order if nbgrader(self.cells[g]).get("locked")]
        self.solution_cells = {q.solution_cell: q for q in exercise.questions}
        self.prelude = key.prelude  # imports the learner's cells may rely on, minus refused ones
        self.drivers = key.drivers  # the instructor's driver cells, run after the learner's

        self.questions = []
        for q in exercise.questions:
            test = self.cells[q.test_cell]
            cases = key.cases(q)
            for block in hidden_blocks(cell_source(test)):
                for qid, kw in parse_hidden_checks(block):
                    if qid != q.id:
                        raise AnswerKeyError(f"{q.test_cell}: hidden tests call {qid}.check(), not {q.id}")
                    s = kw.get("seed", self.sha256[:16])
                    s = s if seed is None else f"{seed}:{s}"
                    cases += key.cases(q, kw.get("cases", []), kw.get("random", 0), s)
            expected = key.expected(q, cases)
            self.questions.append(KeyQuestion(q, float(nbgrader(test)["points"]), cases, expected,
                                              [encode_args(c.args) for c in cases], self.scoring,
                                              scoring.weights_of(exercise, q)))
        self.max_score = sum(k.points for k in self.questions)

    def describe(self):
        return {"exercise": self.name, "solutions": str(self.path), "solutions_sha256": self.sha256,
                "seed": self.seed, "max_score": self.max_score, "scoring": self.scoring,
                "questions": [{"id": k.spec.id, "function": k.spec.function, "points": k.points,
                               "test_cell": k.spec.test_cell, "solution_cell": k.spec.solution_cell,
                               "cases": len(k.cases),
                               "hidden_cases": sum(c.kind != "visible" for c in k.cases),
                               "groups": scoring.groups(k.cases, [], k.points, k.weights)}
                              for k in self.questions]}


def _release_history(solutions_path, name):
    """{release id: locked cells} from solutions/releases/NAME.json beside the solutions ({} if none)."""
    import json
    path = Path(solutions_path).parent / "releases" / f"{name}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {r["id"]: r["cells"] for r in data["releases"] if isinstance(r.get("cells"), dict)}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


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
    status: str   # correct, incorrect, not_attempted, missing, error, forbidden, timeout, crashed,
                  # exited, tampered, not_run, not_graded
    reason: str = ""
    passed: int = 0
    total: int = 0
    groups: list = field(default_factory=list)  # partial credit: scoring.groups()
    feedback: str = ""  # the reason as the student's feedback gives it (no hidden input), when it differs


@dataclass
class SubmissionResult:
    student: str
    file: str
    verdict: str  # graded, malformed, wrong_exercise, unreadable, too_large, refused, grader_error
    score: float = 0.0
    max_score: float = 0.0
    reason: str = ""
    questions: list = field(default_factory=list)
    flags: list = field(default_factory=list)   # what may be tampering: for a human to look at
    notes: list = field(default_factory=list)   # informational (errors in added cells, magics, ...)
    sha256: str = ""
    seconds: float = 0.0
    runs: int = 0
    isolation: dict = field(default_factory=dict)
    output: str = ""
    submitted: str = ""       # when it was handed in (ISO 8601, UTC): nbgrader's timestamp.txt or the file's time
    submitted_from: str = ""  # which of the two
    late: str = ""            # how late, past --deadline ("" when on time or no deadline)
    exercise: str = ""

    def to_dict(self):
        return asdict(self)


def display_name(text):
    """A file name or any text from a submission, safe to write anywhere: bytes that are not
    UTF-8 (os.fsdecode's surrogates) and lone surrogates shown as escapes."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def _defines(source, name):
    try:
        tree = ast.parse(python_code(source)[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return f"def {name}(" in source or f"class {name}" in source
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name
               for n in tree.body)


def _norm(src):
    return "\n".join(line.rstrip() for line in src.replace("\r\n", "\n").strip().split("\n"))


def _cells_of(ex):
    return {q.solution_cell for q in ex.questions} | {q.test_cell for q in ex.questions}


def _has_all(ids, ex):
    return _cells_of(ex) <= set(ids)


def _other_exercise(nb, key, complete=False):
    """The name of another course exercise this notebook belongs to, if any (complete: one
    whose solution and test cells are all in it)."""
    from ..exercises import all_exercises
    ids = {grade_id(c) for c in nb["cells"]} - {None}
    found = [ex for name, ex in all_exercises().items()
             if name != key.name and (_has_all(ids, ex) if complete else ids & _cells_of(ex))]
    return max(found, key=lambda ex: len(_cells_of(ex))).name if found else None  # the most complete


def _zero(key, status, reason):
    return [QuestionGrade(k.spec.id, k.spec.function, k.spec.title, 0.0, k.points, status, reason,
                          0, len(k.cases)) for k in key.questions]


def grade_submission(path, key: AnswerKey, limits: Limits, student=None, protected=(),
                     hide_hidden=False, self_test=False) -> SubmissionResult:
    """Grade one file. Never raises: every failure is a verdict on this submission.
    hide_hidden: say that a hidden test failed without showing its input and expected value.
    protected: folders the sandbox may not read (the solutions' folder always is one)."""
    path = Path(path)
    t0 = time.monotonic()
    protected = {*(str(Path(p).resolve()) for p in protected), str(key.path.resolve().parent)}
    for attempt in (1, 2):  # an internal error (the OS refusing a process under load, say) is tried once more
        res = SubmissionResult(display_name(student if student is not None else path.stem),
                               display_name(path), "graded", max_score=key.max_score, exercise=key.name)
        try:
            _grade(path, key, limits, res, sorted(protected), hide_hidden, self_test)
            break
        except Exception as e:  # noqa: BLE001 - one broken submission never stops the batch
            failure = (f"internal error while grading: {type(e).__name__}: {e}", traceback.format_exc(limit=5))
    else:
        res.verdict = "grader_error"
        res.reason = display_name(failure[0])
        res.notes.append(display_name(failure[1]))
        res.questions = _zero(key, "error", "not graded (grader error)")
        res.score = 0.0
    res.seconds = round(time.monotonic() - t0, 3)
    return res


def _not_graded(res, key, verdict, reason):
    res.verdict, res.reason = verdict, reason
    res.questions = _zero(key, "not_graded", "not graded: " + reason)


def read_submission(path):
    """(bytes, None) or (None, (verdict, reason)): a regular file, never through a symlink,
    never more than MAX_FILE_BYTES, never a FIFO or a device (which could block forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        if e.errno == errno.ELOOP:
            return None, ("refused", "a symbolic link: only regular files in the class folder are graded")
        return None, ("unreadable", f"cannot read the file: {e.strerror or e}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, ("refused", "not a regular file (a folder, pipe or device): not graded")
        if st.st_size > MAX_FILE_BYTES:
            return None, ("too_large", f"the file is {st.st_size >> 20} MiB; the limit is "
                                       f"{MAX_FILE_BYTES >> 20} MiB")
        chunks, left = [], MAX_FILE_BYTES + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > MAX_FILE_BYTES:
            return None, ("too_large", f"the file is over the limit of {MAX_FILE_BYTES >> 20} MiB")
        return data, None
    except OSError as e:
        return None, ("unreadable", f"cannot read the file: {e.strerror or e}")
    finally:
        os.close(fd)


def _grade(path, key, limits, res, protected, hide_hidden, self_test):  # noqa: C901 - a checklist
    # 1. the file: read once, whatever it is; the saved outputs are never looked at
    data, problem = read_submission(path)
    if problem:
        return _not_graded(res, key, *problem)
    if data.count(b"{") + data.count(b"[") > MAX_JSON_CONTAINERS:  # parsing it would take gigabytes
        return _not_graded(res, key, "too_large", f"the file holds more than {MAX_JSON_CONTAINERS:,} JSON "
                                                  "objects and lists; a notebook has far fewer")
    res.sha256 = hashlib.sha256(data).hexdigest()
    if res.sha256 == key.sha256 and not self_test:
        res.flags.append("this file is byte for byte the instructor's solutions notebook")
    try:
        nb = parse_notebook(data)
    except NotebookError as e:
        return _not_graded(res, key, "malformed", f"not a readable notebook: {display_name(e)}")
    del data

    # 2. is it this exercise?
    cells = nb["cells"]
    ids = [grade_id(c) for c in cells]
    claimed = exercise_name(nb)
    claimed = FORMER_NAMES.get(claimed, claimed)  # a notebook released before a renumbering
    found_ours = bool(set(key.solution_cells) & set(ids) or {k.spec.test_cell for k in key.questions} & set(ids))
    from ..exercises import all_exercises
    if claimed and claimed != key.name and claimed in all_exercises():
        # the release wrote it: another course exercise's notebook, whatever cells it shares with
        # this one (the capstone reuses earlier exercises' cells)
        return _not_graded(res, key, "wrong_exercise", f"this is the notebook of exercise "
                                                       f"{display_name(claimed)[:80]}, not {key.name}")
    if found_ours and not claimed:
        other = _other_exercise(nb, key, complete=True)
        if other and (not _has_all(ids, key.exercise)
                      or len(_cells_of(all_exercises()[other])) > len(_cells_of(key.exercise))):
            return _not_graded(res, key, "wrong_exercise", f"this is the notebook of exercise "
                                                           f"{display_name(other)[:80]}, not {key.name}")
    if not found_ours:
        other = _other_exercise(nb, key)
        if other or (claimed and claimed != key.name):
            return _not_graded(res, key, "wrong_exercise", f"this is the notebook of exercise "
                                                           f"{display_name(other or claimed)[:80]}, not {key.name}")
        if not any(c["cell_type"] == "code" and _defines(cell_source(c), k.spec.written)
                   for c in cells for k in key.questions):
            return _not_graded(res, key, "wrong_exercise",
                               f"none of the cells or functions of {key.name} are in this notebook")
        res.flags.append("no nbgrader cell metadata: the cells were found by the functions they define")
    elif claimed and claimed != key.name:
        res.flags.append(f"the notebook metadata names exercise {display_name(claimed)[:80]!r}")

    # 3. locked cells and metadata: compared, never executed
    _compare_locked(cells, ids, key, res, found_ours, release_of(nb))

    # 4. the code that will run: solution cells and added cells, in notebook order
    run_cells, sol_for, test_at = _cells_to_run(cells, ids, key, res)
    if run_cells is None:
        return
    # the instructor's imports and drivers first (they only define things), then the learner's
    # cells; each question is asked where its test cell stands, as Restart & Run All asks it
    prelude = [{"id": "setup", "kind": "setup", "source": key.prelude}] if key.prelude else []
    drivers = [{"id": f"driver:{g}", "kind": "driver", "source": src} for g, src in key.drivers]
    everything = prelude + drivers + run_cells
    first = len(prelude) + len(drivers)
    at = {k.spec.id: first + sum(c["index"] < test_at[k.spec.test_cell] for c in run_cells)
          if k.spec.test_cell in test_at else len(everything) for k in key.questions}
    trusted = [i for i, c in enumerate(everything) if c["kind"] in ("setup", "driver")]
    static = {}
    for k in key.questions:
        program = rules.Program([c["source"] for c in everything[:at[k.spec.id]]], trusted=trusted)
        static[k.spec.id] = rules.violations(program, k.spec.written, rules.Rules.of(key.exercise, k.spec))
        later = [c["id"] for c in everything[at[k.spec.id]:] if _defines(c["source"], k.spec.written)]
        if later:
            res.notes.append(f"{k.spec.id}: {k.spec.written} is defined again after its test cell (in "
                             f"{', '.join(display_name(x) for x in later[:3])}); it was graded as it stood "
                             "at its test cell, as Restart & Run All runs the notebook")

    # 5. run it, confined; get plain data back, and the grader's own record of the runs
    ex = key.exercise
    questions = [{"id": k.spec.id, "function": k.spec.function, "cases": k.encoded,
                  "driver": k.spec.answer is not None, "at": at[k.spec.id]} for k in key.questions]
    run = run_submission(everything, questions, limits, protected=protected, preload=list(ex.preload),
                         forbidden_calls=list(ex.forbidden_calls), forbidden_imports=list(ex.forbidden_imports),
                         driver_imports=list(ex.driver_imports),
                         answers=[k.spec.written for k in key.questions if k.spec.answer is not None])
    res.runs, res.isolation = run.runs, run.isolation
    output = run.stdout + ("\n[stderr]\n" + run.stderr if run.stderr.strip() else "")
    res.output = display_name(output[:OUTPUT_KEPT])
    if len(output) > OUTPUT_KEPT or run.output_cut:
        res.output += (f"\n[... the output was truncated: {len(output) if not run.output_cut else 'more than 256 KiB'}"
                       f" in all, the first {OUTPUT_KEPT} characters kept here; grading is not affected]")
    if run.infrastructure_error:
        res.verdict, res.reason = "grader_error", display_name(run.infrastructure_error)
        res.questions = _zero(key, "error", "not graded: " + res.reason)
        return
    _observations(run, key, res, limits)

    # 6. the verdicts, decided here
    for k in key.questions:
        res.questions.append(_judge_question(k, run, sol_for, ex, static[k.spec.id], limits, hide_hidden))
    res.score = round(sum(q.points for q in res.questions), 2)


def _compare_locked(cells, ids, key, res, found_ours, rid=None):
    """Flag edits of the locked code cells (instructions that run, and test cells) relative to
    the release the notebook came from (rid, when the grader knows it; else the current one, or
    any earlier one that has the same cell). Markdown edits are not flagged."""
    seen, dup = {}, {}
    for i, c in enumerate(cells):
        g = ids[i]
        if g is None:
            continue
        if g in seen:
            dup[g] = dup.get(g, 1) + 1
            continue
        seen[g] = c
    for g, n in dup.items():
        what = ("all copies ran, in notebook order, as Restart & Run All runs them"
                if g in key.solution_cells else "only the first was compared")
        res.notes.append(f"the cell {display_name(g)[:60]!r} appears {n} times: {what}")
    known = rid in key.releases
    if rid and not known:
        res.notes.append(f"this notebook names release {display_name(rid)[:20]!r}, which the grader does not "
                         "know; its locked cells were compared with every known release")
    elif known and rid not in (key.release_id, key.graded_release_id):
        res.notes.append(f"this notebook is from an earlier release ({rid}); its locked cells were compared "
                         "with that release's")
    theirs_all = key.releases[rid] if known else key.releases[key.release_id]
    for g, theirs in theirs_all.items():
        if theirs["cell_type"] != "code" or g in ADDED_CELLS:
            continue  # markdown, and the cells release adds (Colab install, progress line)
        mine = seen.get(g)
        if mine is None:
            if found_ours:
                res.flags.append(f"locked cell {g!r} was deleted or its metadata removed")
            continue
        src = _norm(strip_hidden_safe(cell_source(mine)))
        versions = [theirs] if known else [r[g] for r in key.releases.values() if g in r]
        if mine["cell_type"] != "code" or all(src != _norm(v["source"]) for v in versions):
            kind = "test cell" if theirs.get("grade") else "locked cell"
            res.flags.append(f"{kind} {g!r} was edited (ignored: the grader uses the instructor's copy)")
    for g, mine in seen.items():
        ours = key.cells.get(g)
        if ours is None:
            continue
        a, b = nbgrader(mine), nbgrader(ours)
        for k in NBGRADER_COMPARED:
            if a.get(k) == b.get(k):
                continue
            if k == "points" and any(a.get(k) == r.get(g, {}).get("points") for r in
                                     ([theirs_all] if known else key.releases.values())):
                continue  # the points of the release the learner had
            res.flags.append(f"nbgrader metadata of {g!r} changed: {k} {b.get(k)!r} -> "
                             f"{display_name(repr(a.get(k)))[:60]} (ignored: the grader uses the instructor's)")


def _cells_to_run(cells, ids, key, res):
    """[{id, kind, source}] of the learner's code, in notebook order, as Python (magics handled),
    within the limits on added cells and on code size; and {solution cell: id of what was run}."""
    run_cells, sol_for, copies, added, dropped = [], {}, {}, 0, 0
    tests, test_at = {k.spec.test_cell for k in key.questions}, {}
    for i, c in enumerate(cells):
        if c["cell_type"] != "code":
            continue
        g = ids[i]
        if g in tests and g not in test_at:
            test_at[g] = i  # the question is asked after the cells above it
        if g in key.solution_cells:
            copies[g] = copies.get(g, 0) + 1
            cid, kind = g if copies[g] == 1 else f"{g}#{copies[g]}", "solution"
            sol_for[g] = cid
        elif g in key.released_cells:
            continue  # an instructor cell (setup, tests): the instructor's copy is never run here
        else:
            cid, kind = (f"cell{i}" if g is None else f"cell{i}:{display_name(g)}"[:60]), "added"
        code, notes = python_code(cell_source(c))
        res.notes += [f"cell {cid}: {n}" for n in notes]
        if not code.strip():
            continue
        if kind == "added":
            for sc, q in key.solution_cells.items():
                if sc not in copies and _defines(code, q.written):
                    sol_for[sc], kind = cid, "solution"
                    note = (f"solution cell {sc!r} not found (renamed, or its metadata removed); graded "
                            f"the cell that defines {q.written}{'' if q.answer else '()'}")
                    if note not in res.flags:
                        res.flags.append(note)
        if kind == "added":
            added += 1
            if added > MAX_ADDED_CELLS:
                dropped += 1
                continue
        run_cells.append({"id": cid, "kind": kind, "source": code, "index": i})
    size = sum(len(c["source"]) for c in run_cells)
    while size > MAX_CODE_BYTES and any(c["kind"] == "added" for c in run_cells):
        last = max(i for i, c in enumerate(run_cells) if c["kind"] == "added")
        size -= len(run_cells.pop(last)["source"])
        dropped += 1
    if size > MAX_CODE_BYTES:
        _not_graded(res, key, "too_large", f"the solution cells hold {size >> 10} KiB of code; the limit "
                                           f"is {MAX_CODE_BYTES >> 10} KiB")
        return None, None, None
    if dropped:
        res.notes.append(f"{dropped} of the cells you added were not run: the grader runs at most "
                         f"{MAX_ADDED_CELLS} added cells and {MAX_CODE_BYTES >> 20} MiB of code")
    return run_cells, sol_for, test_at


def _step_name(step):
    return step.replace("cell:", "cell ").replace("question:", "") if step else "the run"


def _observations(run, key, res, limits):
    """Flags and notes from what the grader saw (and, as text only, from the cells' reports)."""
    for a in run.anomalies:
        res.flags.append(f"result channel tampering: {a}")
    refused, imports = {}, {}
    for step, what in run.refusals:
        if what.startswith("called "):
            continue  # in a question: its verdict says so; in a cell: the cell's error does
        if what.startswith("importing "):
            imports.setdefault(f"importing {what[10:]} was refused while grading", []).append(step)
        else:
            refused.setdefault(f"sandbox refused {what}", []).append(step)
    for what, steps in refused.items():
        res.flags.append(f"{what} (in {', '.join(dict.fromkeys(_step_name(s) for s in steps))})")
    for what, steps in imports.items():
        res.notes.append(f"{what} (in {', '.join(dict.fromkeys(_step_name(s) for s in steps))})")
    for step, (status, why) in run.deaths.items():
        if status == "exited":
            res.flags.append(f"the process ended early during {_step_name(step)}: {why}")
        elif status == "tampered":
            res.flags.append(f"during {_step_name(step)}, the submission {why}")
    solution_ids = {c for c in run.cells} | {s[5:] for s in run.deaths if s.startswith("cell:")}
    for cid in sorted(solution_ids, key=str):
        death = run.deaths.get(f"cell:{cid}")
        rep = run.cells.get(cid, {})
        if cid == "setup" or cid.startswith("driver:") or cid in key.solution_cells or "#" in cid:
            continue
        if death:
            res.notes.append(f"your added cell {cid} {death[1]} (skipped)")
        elif isinstance(rep.get("error"), dict):
            e = rep["error"]
            res.notes.append(f"your added cell {cid} raised {display_name(e.get('type'))[:80]}: "
                             f"{display_name(e.get('message'))[:150]} (ignored)")
    for cid, rep in run.cells.items():
        for item in (rep.get("failed_imports") or [])[:5] if isinstance(rep.get("failed_imports"), list) else []:
            if isinstance(item, list) and len(item) == 2:
                res.notes.append(f"cell {cid}: importing {display_name(item[0])[:60]} failed while grading "
                                 f"({display_name(item[1])[:120]}); the rest of the cell ran")
    if run.cut_cells:
        res.notes.append(f"the cells you added took longer than the notebook's time budget allows; these "
                         f"were not run: {', '.join(run.cut_cells[:10])}")
    if run.output_cut:
        res.notes.append("your code printed more than the grader keeps (256 KiB): the output was "
                         "truncated there (the rest dropped), which changes nothing in the grading")
    res.notes = list(dict.fromkeys(res.notes))


def strip_hidden_safe(src):
    try:
        return strip_hidden(src) if hidden_blocks(src) else src
    except NotebookError:
        return src


def _cell_error(crep):
    e = crep.get("error") if isinstance(crep, dict) else None
    if not isinstance(e, dict):
        return None
    line = f" (line {e['line']})" if type(e.get("line")) is int else ""
    return f"{display_name(e.get('type'))[:80]}{line}: {display_name(e.get('message'))[:200]}"


def _forbidden(grade, s, ex, found, passed=0):
    loops = [v.text for v in found if v.kind == "loop"]
    if loops and len(loops) == len(found):
        return grade("forbidden", f"{s.written} loops in Python ({'; '.join(loops[:3])}): not allowed "
                                  "here (the loop must run inside NumPy: whole-array operations)", passed)
    return grade("forbidden", f"{s.written} {'; '.join(v.text for v in found[:3])}: not allowed here "
                              f"({ex.forbidden_reason or 'see the exercise'})", passed)


def _incorrect_text(k, failures, hide, late=""):
    """What a wrong answer's row says: the first failing case with its input and the expected
    value; hide: only a visible case's, a hidden one's input and expected value never shown."""
    s, total = k.spec, len(k.cases)
    first = failures[0]
    where = {"visible": "a visible test", "hidden": "a hidden test", "random": "a random test"}[first.case.kind]
    shown = [o for o in failures if o.case.kind == "visible"] if hide else failures
    if shown:
        return (f"{shown[0].reason} [{where if not hide else 'a visible test'}; "
                f"{len(failures)} of {total} cases fail{late}]")
    return (f"{s.function} passes the visible tests but fails {len(failures)} of "
            f"{total - sum(c.kind == 'visible' for c in k.cases)} hidden ones (their inputs are not shown{late})")


def _judge_question(k: KeyQuestion, run, sol_for, ex, static, limits, hide_hidden=False) -> QuestionGrade:  # noqa: C901
    s, total, step = k.spec, len(k.cases), f"question:{k.spec.id}"

    def grade(status, reason, passed=0, outcomes=None):
        pts, parts = k.points if status == "correct" else 0.0, []
        if outcomes is not None:  # every case compared: partial credit for the ones that pass
            pts, parts = scoring.credit(k.mode, k.cases, [o.ok for o in outcomes], k.points, k.weights)
        return QuestionGrade(s.id, s.function, s.title, pts, k.points, status, reason, passed, total, parts)

    if s.id in run.tampered:
        return grade("tampered", "the result channel was tampered with, so no result could be trusted")
    rule_breaks = [v for v in static if v.kind != "import"]
    imports = [v for v in static if v.kind == "import"]
    if rule_breaks:
        return _forbidden(grade, s, ex, rule_breaks)
    if step in run.deaths:
        status, why = run.deaths[step]
        return grade(status, f"{s.function} {why}")
    if s.id in run.not_run:
        return grade("not_run", f"{s.function} was not run: {run.not_run[s.id]}")
    rep = run.questions.get(s.id)
    if not isinstance(rep, dict):
        return grade("error", "no result came back")
    results = rep.get("results")
    if not isinstance(results, list) or len(results) > total:
        return grade("tampered", "the report for this question is malformed")
    cell_id = sol_for.get(s.solution_cell)
    crep = run.cells.get(cell_id, {}) if cell_id else {}
    if not results and rep.get("found") != "function":  # what was found only picks the message
        if cell_id is None:
            return grade("missing", f"the cell {s.solution_cell!r} where {s.written} is written was not "
                                    "found (deleted, or its metadata changed)")
        death = run.deaths.get(f"cell:{cell_id}")
        if death:
            return grade(death[0], f"the cell {cell_id!r} {death[1]}")
        err = _cell_error(crep)
        if err:
            return grade("error", f"the cell {cell_id!r} raised {err}, so {s.function} was never defined")
        if rep.get("found") == "missing":
            return grade("missing", f"{s.function} is not defined (renamed?)")
        return grade("error", f"{s.function} is a {display_name(rep.get('found'))[:60]}, not a function")
    called = sorted({w[7:] for st, w in run.refusals if st == step and w.startswith("called ")})
    outcomes = [judge(s, case, exp, decode(r)) for case, exp, r in zip(k.cases, k.expected, results)]
    passed = sum(o.ok for o in outcomes)
    failures = [o for o in outcomes if not o.ok]
    status = decide(outcomes, total, called, imports)
    if status == "forbidden" and not called:
        return _forbidden(grade, s, ex, imports, passed)
    if status == "forbidden":
        return grade("forbidden", f"{s.function} called {', '.join(called[:3])}: not allowed here "
                                  f"({ex.forbidden_reason or 'see the exercise'})", passed)
    if status == "not_attempted":
        return grade("not_attempted", f"not attempted: {s.function} still raises NotImplementedError")
    ran_out = run.seconds.get(step, 0.0) >= 0.8 * limits.step_seconds
    if status == "incomplete":
        if ran_out:
            memory = any(isinstance(o.actual, Raised) and o.actual.type == "MemoryError" for o in outcomes)
            why = "it kept running out of memory (MemoryError)" if memory else "an infinite loop?"
            return grade("timeout", f"{s.function} did not finish all {total} cases within "
                                    f"{limits.step_seconds:g} s (finished {len(results)}; {why})", passed)
        return grade("tampered", f"only {len(results)} of {total} results came back")
    if status == "incorrect":
        compared = outcomes if len(results) == total else None  # a run cut short earns nothing
        late = "" if len(results) == total else f"; it also did not finish the other {total - len(results)} in time"
        full, safe = (_incorrect_text(k, failures, hide, late) for hide in (False, True))
        if s.answer is not None and _cell_error(crep):
            full, safe = (f"the cell {cell_id!r} where {s.written} is written raised {_cell_error(crep)}; "
                          f"then {x}" for x in (full, safe))
            g = grade("error", safe if hide_hidden else full, passed, compared)
        else:
            g = grade("incorrect", safe if hide_hidden else full, passed, compared)
        g.feedback = safe
        return g
    return grade("correct", f"all {total} cases pass", passed, outcomes)


__all__ = ["AnswerKey", "AnswerKeyError", "Case", "QuestionGrade", "SubmissionResult", "grade_submission"]
