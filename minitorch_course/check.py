"""Self-paced feedback inside an exercise notebook: q1.check(), q1.hint(), q1.solution().

    from minitorch_course import load_exercise
    q1, q2, q3 = load_exercise("03_strides")
    q1.check()        # ✔ correct / ✘ what was wrong (input, expected, actual) / not attempted
    q1.hint()         # the first hint; q1.hint(2) the second
    q1.solution()     # a reference answer (you asked for it)

check() finds your function by name in the notebook, calls it on the question's inputs and
compares each result with the expected one, exactly as the grader does: the same inputs, the same
comparison, the same verdict (spec.decide), and the same rules on how the answer is written
(grading/rules.py, reading the cells you ran as the grader reads the cells you hand in). When it
does not pass it raises CheckFailed, an AssertionError that Jupyter shows as the message alone;
that is also how nbgrader sees a failed test cell.

The expected values of the visible cases come with the course (checks/NN_name.json, computed by
`make release` from the instructor's solutions). Other cases (`q1.check(cases=[...], random=N,
seed=S)`, the hidden tests nbgrader runs) and solution() need the instructor's solutions
notebook itself (answers.py: the course checkout's solutions/, or $MINITORCH_SOLUTIONS); where
it is not, they say so.
"""
from __future__ import annotations

import dataclasses
import html
import linecache
import sys
from dataclasses import dataclass, field

from . import answers, checkdata, progress
from .grading import rules
from .grading.harness import ForbiddenCallError, forbid_calls
from .notebook import python_code
from .spec import CaseOutcome, Exercise, QuestionSpec, decide, judge, run_in_process

STATUSES = ("correct", "incorrect", "not_attempted", "missing", "unavailable")


@dataclass
class CheckResult:
    question: str
    function: str
    status: str                 # one of STATUSES
    message: str                # one line
    details: list[str] = field(default_factory=list)
    passed: int = 0
    total: int = 0
    failures: list[CaseOutcome] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)

    def __bool__(self):
        return self.status == "correct"

    def lines(self):
        return [self.message, *("  " + d for d in self.details)]

    def __repr__(self):
        return "\n".join(self.lines())

    def _repr_html_(self):
        color = {"correct": "#1a7f37", "incorrect": "#cf222e"}.get(self.status, "#9a6700")
        body = "".join(f"<div style='margin-left:1em'>{html.escape(d)}</div>" for d in self.details)
        return (f"<div style='border-left:4px solid {color};padding:4px 8px'>"
                f"<b style='color:{color}'>{html.escape(self.message)}</b>{body}</div>")


class CheckFailed(AssertionError):
    """A check that did not pass. Jupyter shows only the message, not a traceback."""

    def __init__(self, result: CheckResult):
        super().__init__("\n".join(result.lines()))
        self.result = result

    def _render_traceback_(self):
        color = "\x1b[1;31m" if self.result.status == "incorrect" else "\x1b[1;33m"
        return [color + self.result.message + "\x1b[0m", *("  " + d for d in self.result.details)]


def _display(obj):
    try:
        from IPython import get_ipython
        from IPython.display import display
        if get_ipython() is not None:
            display(obj)
            return
    except ImportError:
        pass
    print(repr(obj))


class _Text:
    def __init__(self, text, html_text=None):
        self.text, self.html = text, html_text

    def __repr__(self):
        return self.text

    def _repr_html_(self):
        return self.html


class Question:
    """One graded question of an exercise, as the learner sees it in the notebook."""

    def __init__(self, exercise: Exercise, spec: QuestionSpec):
        self.exercise, self.spec = exercise, spec

    def __repr__(self):
        return (f"<{self.spec.id}: {self.spec.title}; write {self.spec.function}(), then "
                f"{self.spec.id}.check(); {self.spec.id}.hint() and {self.spec.id}.solution() help>")

    # ---- check ---------------------------------------------------------------------------
    def check(self, *, cases=None, random=0, seed=None, fn=None):
        """Check your function (found by name in your notebook). With no arguments: the
        visible tests. cases/random/seed: exactly those inputs (hidden tests use this)."""
        if fn is None:
            fn = sys._getframe(1).f_globals.get(self.spec.function)
        result = self.evaluate(fn, cases=cases, random=random, seed=seed)
        if result.status != "unavailable":
            progress.record_check(self.exercise.name, self.spec.id, result.status, result.passed,
                                  result.total)
        if not result:
            raise CheckFailed(result)
        if cases is None and not random:  # a part of minitorch: keep it for use_mine() (parts.py)
            from . import parts
            parts.save_on_pass(self.exercise.name, self.spec.id, fn)
        _display(result)

    def evaluate(self, fn, *, cases=None, random=0, seed=None) -> CheckResult:
        """The verdict on fn, without recording or raising."""
        s, name = self.spec, self.spec.function
        if fn is None:
            where = (f"Run the locked cell that defines {name} and the cell where you write {s.written}"
                     if s.answer is not None else f"Run the cell where you define {name}")
            return CheckResult(s.id, name, "missing", f"✘ {s.id}: {name} is not defined yet",
                               [f"{where}, then run this one again."])
        if not callable(fn):
            return CheckResult(s.id, name, "missing", f"✘ {s.id}: {name} is not a function",
                               [f"{name} is a {type(fn).__name__}; define it with `def {name}(...):`"])
        found = self._cases_and_expected(cases, random, seed)
        if isinstance(found, CheckResult):
            return found
        case_list, expected = found
        called = []
        restore = forbid_calls(self.exercise.forbidden_calls, called.append)
        try:
            actual = [run_in_process(fn, c.args) for c in case_list]
        finally:
            restore()
        outcomes = [judge(s, c, e, a) for c, e, a in zip(case_list, expected, actual)]
        return self._verdict(outcomes, sorted(set(called)), self.static_violations(fn))

    def _cases_and_expected(self, cases, random, seed):
        """(cases, expected outcomes): the visible ones from the stored check data; any others
        computed from the instructor's solutions. A CheckResult when they cannot be had here."""
        s, ex = self.spec, self.exercise
        visible = cases is None and not random
        if visible:
            try:
                stored = checkdata.visible(ex, s)
            except checkdata.CheckDataError as e:
                stored, broken = None, str(e)
            else:
                broken = None
            if stored is not None:
                return stored
        try:
            key = answers.load(ex)
        except answers.AnswerKeyError as e:
            return self._unavailable(f"the instructor's solutions notebook is broken: {e}")
        if key is None:
            if visible:
                why = broken or f"this installation has no check data for {ex.name} {s.id}"
                return self._unavailable(f"{why}; run `python -m minitorch_course.release` in the course "
                                         "checkout, or reinstall the course")
            return self._unavailable(
                "these cases (hidden or extra tests) can only be checked where the instructor's "
                f"solutions are: {answers.where_they_would_be(ex.name)}")
        try:
            case_list = key.cases(s, cases, random, seed)
            return case_list, key.expected(s, case_list)
        except answers.AnswerKeyError as e:
            return self._unavailable(str(e))

    def _unavailable(self, why):
        s = self.spec
        return CheckResult(s.id, s.function, "unavailable", f"✘ {s.id}: {s.function} could not be checked here",
                           [why])

    def static_violations(self, fn):
        """The rules on how the answer is written that the learner's code breaks, read from the
        cells they ran (as the grader reads the cells they hand in)."""
        program, name, in_notebook = _learner_program(fn, self.spec.written)
        if program is None:
            return []
        r = rules.Rules.of(self.exercise, self.spec)
        if not in_notebook:  # a test or a script of the course itself may build on the course package
            r = dataclasses.replace(r, trusted=("minitorch_course",))
        return rules.violations(program, name, r, defined_here=in_notebook)

    def _verdict(self, outcomes, called=(), static=()):
        s, name = self.spec, self.spec.function
        total = len(outcomes)
        passed = sum(o.ok for o in outcomes)
        failures = [o for o in outcomes if not o.ok]
        hint = (f"Stuck? {s.id}.hint() gives a hint ({len(s.hints)} in all); "
                f"{s.id}.solution() shows an answer.")
        status = decide(outcomes, total, [*called, *(v for v in static if v.kind != "import")],
                        [v for v in static if v.kind == "import"])
        first = [failures[0].reason] if failures else []
        if status == "forbidden":
            loops = [v.text for v in static if v.kind == "loop"]
            others = [v.text for v in static if v.kind != "loop"]
            if loops and not called and not others:
                return CheckResult(
                    s.id, name, "incorrect", f"✘ {s.id}: {name} loops in Python: {loops[0]}",
                    [*first, *(f"also {w}" for w in loops[1:3]),
                     "Here the loop must run inside NumPy: whole-array operations, broadcasting and "
                     "reductions (axis=...), no for/while, comprehension, map() or recursion.", hint],
                    passed, total, failures)
            reasons = ([f"uses {', '.join(called[:3])}"] if called else []) + others + loops
            return CheckResult(
                s.id, name, "incorrect", f"✘ {s.id}: {name} {reasons[0]}",
                [*first, *(f"also: {r}" for r in reasons[1:4]),
                 f"Not allowed here: {self.exercise.forbidden_reason or 'see the exercise text'}.", hint],
                passed, total, failures, list(called))
        if status == "not_attempted":
            return CheckResult(s.id, name, "not_attempted", f"· {s.id}: {name} is not written yet",
                               [f"Replace `raise NotImplementedError(...)` in {name} with your code, "
                                "run that cell, then run this one again.", hint], 0, total, failures)
        if status != "correct":
            details = list(first)
            if len(failures) > 1:
                details.append(f"({len(failures)} of {total} cases fail; this is the first.)")
            details.append(hint)
            return CheckResult(s.id, name, "incorrect",
                               f"✘ {s.id}: {name} is not right yet ({passed}/{total} cases pass)",
                               details, passed, total, failures)
        return CheckResult(s.id, name, "correct", f"✔ {s.id}: {name} is correct ({total} cases pass)",
                           [], passed, total)

    # ---- hints and solution -----------------------------------------------------------
    def hint(self, n=1):
        """Hint n (1, 2, ...); each says a little more than the one before."""
        hints = self.spec.hints
        if not hints:
            _display(_Text("No hints for this question."))
            return
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= len(hints):
            _display(_Text(f"{self.spec.id} has hints 1 to {len(hints)}: {self.spec.id}.hint(1) ... "
                           f"{self.spec.id}.hint({len(hints)})"))
            return
        progress.record_hint(self.exercise.name, self.spec.id, n)
        more = (f" (more: {self.spec.id}.hint({n + 1}))" if n < len(hints)
                else f" (that was the last; {self.spec.id}.solution() shows an answer)")
        text = f"Hint {n} of {len(hints)} for {self.spec.id}: {hints[n - 1]}{more}"
        _display(_Text(text, f"<div style='border-left:4px solid #0969da;padding:4px 8px'>"
                             f"{html.escape(text)}</div>"))

    def solution(self):
        """Show a reference answer (from the instructor's solutions notebook, where it is).
        Try the hints first: you learn more from writing it."""
        sid, name = self.spec.id, self.exercise.name
        if getattr(self, "graded", False):
            text = (f"No reference answer for {sid}: this is a graded exercise. {sid}.hint() still helps, "
                    f"and {sid}.check() says what is wrong.")
            _display(_Text(text, f"<div style='border-left:4px solid #9a6700;padding:4px 8px'>"
                                 f"{html.escape(text)}</div>"))
            return
        try:
            key = answers.load(self.exercise)
        except answers.AnswerKeyError as e:
            key, broken = None, str(e)
        else:
            broken = None
        if key is None:
            text = (f"No reference answer for {sid} here: {broken or answers.where_they_would_be(name)}. "
                    "The answers stay with the instructor's copy of the course (solutions/); "
                    f"{sid}.hint() still helps.")
            _display(_Text(text, f"<div style='border-left:4px solid #9a6700;padding:4px 8px'>"
                                 f"{html.escape(text)}</div>"))
            return
        progress.record_solution(name, sid)
        src = key.source(self.spec)
        _display(_Text(f"A reference answer for {sid}:\n\n{src}",
                       f"<div><b>A reference answer for {sid}</b> (compare it with yours; "
                       f"then write yours again without looking):<pre>{html.escape(src)}</pre></div>"))


def _history():
    """The cells run so far in this IPython session, in the order they ran (None outside one)."""
    try:
        from IPython import get_ipython
        ip = get_ipython()
        return list(ip.history_manager.input_hist_raw[1:]) if ip is not None else None
    except (ImportError, AttributeError):
        return None


def _learner_program(fn, written):
    """(Program, target, in a notebook?) to read for the learner's code: the cells run in this
    notebook, as the grader reads the submitted ones; outside a notebook, the file fn was written
    in, with target the name written there or fn's own definition. Program None: no source."""
    cells = _history()
    if cells:
        return rules.Program([python_code(c)[0] for c in cells]), written, True
    code = getattr(fn, "__code__", None)
    text = "".join(linecache.getlines(code.co_filename)) if code is not None else ""
    if not text:
        return None, None, False
    program = rules.Program([python_code(text)[0]], trusted=[0])  # a module: only what fn reaches counts
    if fn.__name__ != written and program.bindings(written):
        return program, written, False  # a driver, and the learner's class it runs, in one file
    own = program.definition_of(code)
    return (program, own, False) if own is not None else (None, None, False)


class ExerciseHandle(tuple):
    """The questions of one exercise: `q1, q2, q3 = load_exercise("03_strides")`."""

    exercise: Exercise

    def __new__(cls, exercise, graded=False):
        self = super().__new__(cls, [Question(exercise, q) for q in exercise.questions])
        self.exercise = exercise
        for q in self:
            q.graded = graded
        return self

    def __repr__(self):
        return f"<exercise {self.exercise.name}: {', '.join(q.spec.id for q in self)}>"


def load_exercise(name, graded=False) -> ExerciseHandle:
    """The questions of exercise `name`. graded: a graded handout (`make release` with
    --graded), where solution() shows no answer."""
    from .exercises import get_exercise
    return ExerciseHandle(get_exercise(name), graded=bool(graded))


__all__ = ["CheckFailed", "CheckResult", "ExerciseHandle", "ForbiddenCallError", "Question",
           "load_exercise"]
