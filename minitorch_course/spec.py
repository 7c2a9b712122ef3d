"""What an exercise is, in one place: its questions, their inputs, reference, comparison, hints.

An exercise module (minitorch_course/exercises/*.py) defines `EXERCISE = Exercise(...)`.
The same objects serve the learner's `q1.check()` (in the notebook's own process) and the
grader (which computes expected values in its own process and compares them with the plain
data a sandboxed submission sent back). Nothing here runs submitted code except `run_cases`,
which the in-notebook check calls on the learner's own function.
"""
from __future__ import annotations

import ast
import inspect
import math
import random
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any, Callable

from .grading.harness import ForbiddenCallError, encode


# ---------------------------------------------------------------------------------------
# Decoded values: what a submission returned, as plain Python, with foreign types kept apart
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Foreign:
    """A returned value that is not plain Python data (a numpy scalar, an object, ...)."""
    type: str
    repr: str
    value: Any = None  # for numpy scalars: the Python value

    def __str__(self):
        return f"{self.repr} (a {self.type})"


@dataclass(frozen=True)
class Array:
    """A returned NumPy array or minitorch tensor: kind, dtype, shape and values."""
    kind: str   # "ndarray" or "tensor"
    dtype: str
    shape: tuple
    values: Any = None  # nested lists, or None when too large to send

    def __str__(self):
        vals = show(self.values) if self.values is not None else "..."
        return f"{self.kind}({vals}, shape={self.shape}, dtype={self.dtype})"


def as_array(x):
    """The Array a reference result stands for (a numpy array or a minitorch tensor)."""
    return decode(encode(x))


@dataclass(frozen=True)
class Raised:
    """The function raised instead of returning."""
    type: str
    message: str
    cell: str | None = None
    line: int | None = None

    def __str__(self):
        return f"{self.type}: {self.message}" if self.message else self.type


class _Malformed(Exception):
    pass


def decode(e, depth=0):
    """Decode untrusted tagged data (see harness.encode) into Python values. Anything that is
    not well formed becomes a Foreign('<malformed result>'), never an exception."""
    try:
        return _decode(e, depth)
    except (_Malformed, KeyError, TypeError, ValueError, RecursionError):
        return Foreign("<malformed result>", "<malformed result>")


def _decode(e, depth):
    if depth > 40 or not isinstance(e, dict):
        raise _Malformed
    t = e.get("t")
    if t == "none":
        return None
    if t == "bool":
        v = e["v"]
        if type(v) is not bool:
            raise _Malformed
        return v
    if t == "int":
        if "big" in e:
            return Foreign("int", f"<an int of {int(e['big'])} bits>")
        v = e["v"]
        if type(v) is not int:
            raise _Malformed
        return v
    if t == "float":
        v = e["v"]
        if type(v) not in (float, int):
            raise _Malformed
        return float(v)
    if t == "str":
        if type(e["v"]) is not str:
            raise _Malformed
        return e["v"]
    if t in ("tuple", "list"):
        items = e["v"]
        if not isinstance(items, list):
            raise _Malformed
        vals = [_decode(i, depth + 1) for i in items]
        if e.get("len", len(items)) != len(items):
            return Foreign(t, f"<a {t} of {e['len']} items>")
        return tuple(vals) if t == "tuple" else vals
    if t == "dict":
        out = {}
        for kv in e["v"]:
            k, v = kv
            k = _decode(k, depth + 1)
            try:
                out[k] = _decode(v, depth + 1)
            except TypeError:
                raise _Malformed from None
        return out
    if t == "np":
        inner = _decode(e["v"], depth + 1)
        name = str(e["type"])[:80]
        return Foreign(name, f"{name.split('.')[-1]}({inner!r})", inner)
    if t == "obj":
        return Foreign(str(e["type"])[:80], str(e["repr"])[:300])
    if t == "array":
        shape = tuple(e["shape"])
        if not all(type(n) is int for n in shape):
            raise _Malformed
        return Array(str(e["kind"])[:10], str(e["dtype"])[:20], shape,
                     _decode(e["v"], depth + 1) if "v" in e else None)
    if t == "deep":
        return Foreign("nested value", "<nested too deeply>")
    if t == "raised":
        err = e["error"]
        return Raised(str(err.get("type", "?"))[:100], str(err.get("message", ""))[:500],
                      err.get("cell") if isinstance(err.get("cell"), str) else None,
                      err.get("line") if type(err.get("line")) is int else None)
    raise _Malformed


# ---------------------------------------------------------------------------------------
# Comparing: one place that says precisely what differs
# ---------------------------------------------------------------------------------------
def show(v):
    """A short, exact rendering of a value for a message."""
    if isinstance(v, Foreign):
        return str(v)
    r = repr(v)
    return r if len(r) <= 160 else r[:157] + "..."


_KIND = {bool: "a bool", int: "an int", float: "a float", str: "a str", tuple: "a tuple",
         list: "a list", dict: "a dict", type(None): "None"}


def kind(v):
    if isinstance(v, Foreign):
        return f"a {v.type}"
    return _KIND.get(type(v), f"a {type(v).__name__}")


def compare_values(expected, actual, where=""):
    """None when actual equals expected with exactly the same types; else a reason.
    Arrays and tensors: same kind, shape and dtype, values equal within float tolerance."""
    if isinstance(expected, Array):
        return _compare_arrays(expected, actual, where or "the result")
    if isinstance(actual, Foreign):
        hint = ""
        if actual.type.startswith("numpy.") and type(expected) in (int, float, bool):
            hint = f"; convert it with {type(expected).__name__}(...)"
        return f"{where or 'the result'} is {kind(actual)}, expected {kind(expected)}{hint}"
    if type(actual) is not type(expected):
        return f"{where or 'the result'} is {kind(actual)}, expected {kind(expected)}"
    if type(expected) in (tuple, list):
        if len(actual) != len(expected):
            return (f"{where or 'the result'} has {len(actual)} items, expected {len(expected)}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            r = compare_values(e, a, f"{where or 'the result'}[{i}]")
            if r:
                return r
        return None
    if type(expected) is float:
        if math.isnan(expected) and math.isnan(actual):
            return None
        if math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-12):
            return None
        return f"{where or 'the result'} is {actual!r}, expected {expected!r}"
    if actual != expected:
        return f"{where or 'the result'} is {show(actual)}, expected {show(expected)}"
    return None


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield v


def _compare_arrays(expected, actual, where):
    if not isinstance(actual, Array):
        return f"{where} is {kind(actual)}, expected a {expected.kind}"
    if actual.kind != expected.kind:
        return f"{where} is a {actual.kind}, expected a {expected.kind}"
    if actual.shape != expected.shape:
        return f"{where} has shape {actual.shape}, expected {expected.shape}"
    if actual.dtype != expected.dtype:
        return f"{where} has dtype {actual.dtype}, expected {expected.dtype}"
    if actual.values is None or expected.values is None:
        return None if actual.values is expected.values else f"{where}: values too large to compare"
    for i, (e, a) in enumerate(zip(_flat(expected.values), _flat(actual.values))):
        if isinstance(e, float) and isinstance(a, (float, int)):
            if (math.isnan(e) and math.isnan(a)) or math.isclose(a, e, rel_tol=1e-5, abs_tol=1e-8):
                continue
        elif type(a) is type(e) and a == e:
            continue
        return f"{where}: element {i} (row-major) is {a!r}, expected {e!r}"
    return None


# ---------------------------------------------------------------------------------------
# Questions and exercises
# ---------------------------------------------------------------------------------------
@dataclass
class Case:
    args: tuple
    kind: str = "visible"  # "visible", "hidden" or "random"


@dataclass
class QuestionSpec:
    id: str                       # "q1": the name of the Question object in the notebook
    function: str                 # the function the learner writes
    title: str
    solution_cell: str            # nbgrader grade_id of the cell where they write it
    test_cell: str                # nbgrader grade_id of the graded test cell (carries the points)
    reference: Callable           # the reference solution (also what solution() shows)
    visible_cases: Callable[[], list]                 # -> list of argument tuples
    random_cases: Callable[[random.Random, int], list]  # (rng, n) -> list of argument tuples
    hints: list[str] = field(default_factory=list)
    visible_random: int = 20
    visible_seed: int = 0
    compare: Callable[[Any, Any], str | None] = compare_values
    # Exception types the reference raises on purpose (e.g. PyTorch's RuntimeError for shapes
    # that do not broadcast): on such inputs the expected outcome is that exception, and a
    # submission is right when it raises the same type with the same message.
    raises: tuple = ()
    # For a question graded through a driver: the class (or function) the learner writes in
    # solution_cell, when `function` is not it but an instructor's driver defined in one of
    # the exercise's driver_cells (see Exercise). solution() shows it; None: the function itself.
    answer: Any = None
    # True: the learner's function may not loop in Python (for, while, comprehensions,
    # recursion), nor may the functions of theirs it calls: a static check of the source (see
    # python_loops), in check() on the live function and in the grader on the submitted cells.
    no_loops: bool = False

    @property
    def written(self):
        """The name of what the learner defines in solution_cell."""
        return getattr(self.answer, "__name__", None) or self.function

    def call_text(self, args):
        return f"{self.function}({', '.join(show(a) for a in args)})"

    def cases(self, explicit=None, n_random=0, seed=None):
        """The visible cases (no arguments), or exactly the given/hidden ones."""
        if explicit is None and not n_random:
            out = [Case(tuple(a), "visible") for a in self.visible_cases()]
            rng = random.Random(f"{self.id}:{self.visible_seed}")
            out += [Case(tuple(a), "visible") for a in self.random_cases(rng, self.visible_random)]
            return out
        out = [Case(tuple(a), "hidden") for a in (explicit or [])]
        if n_random:
            rng = random.Random(f"{self.id}:{seed}")
            out += [Case(tuple(a), "random") for a in self.random_cases(rng, int(n_random))]
        return out


@dataclass
class Exercise:
    name: str                     # "03_strides": the notebook's stem in solutions/ and exercises/
    title: str
    questions: list[QuestionSpec]
    forbidden_calls: tuple = ()   # functions a learner's code may not call while graded
    forbidden_imports: tuple = () # modules the sandbox refuses to import
    preload: tuple = ("numpy",)   # imported by the sandbox before the learner's cells
    forbidden_reason: str = ""
    # grade_ids of locked code cells of the instructor that define drivers: functions that take
    # plain data, exercise the learner's classes and return plain data (e.g. run_views). A
    # question's `function` may be such a driver. The grader runs the instructor's copy of these
    # cells in the sandbox after the learner's cells (so a learner's cell cannot replace them),
    # and in the answer key after the solution cells.
    driver_cells: tuple = ()

    @property
    def notebook(self):
        return f"{self.name}.ipynb"

    def question(self, qid):
        for q in self.questions:
            if q.id == qid:
                return q
        raise KeyError(qid)


# ---------------------------------------------------------------------------------------
# Python-level loops: a static check of source text (nothing is executed)
# ---------------------------------------------------------------------------------------
_LOOPS = {ast.For: "a for loop", ast.AsyncFor: "a for loop", ast.While: "a while loop",
          ast.ListComp: "a list comprehension", ast.SetComp: "a set comprehension",
          ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression"}


def _parse_cell(source):
    """A cell's module AST (IPython magics and shell escapes commented out), or None."""
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        return None
    text = "\n".join(("# " + ln) if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def function_defs(sources) -> dict:
    """{name: FunctionDef} of the top-level functions the cells define (a later cell wins)."""
    defs = {}
    for src in sources:
        tree = _parse_cell(src)
        for node in tree.body if tree else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[node.name] = node
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):  # f = lambda ...
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        defs[t.id] = node.value
    return defs


def live_function_defs(fn, name) -> dict:
    """function_defs for a live function (the learner's, in the notebook): its source under
    `name`, and the source of every function of the same module it refers to, transitively."""
    defs, todo = {}, [(name, fn)]
    while todo:
        key, f = todo.pop()
        if key in defs or not isinstance(f, types.FunctionType):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
        except (OSError, TypeError, SyntaxError, IndentationError):
            continue
        node = tree.body[0] if tree.body else None
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            node = node.value  # `f = lambda ...`: its source line is that assignment
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # nothing we can read
        defs[key] = node
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id not in defs:
                g = f.__globals__.get(sub.id)
                if isinstance(g, types.FunctionType) and g.__module__ == f.__module__:
                    todo.append((sub.id, g))
    return defs


def python_loops(defs, name) -> list[str]:
    """The Python-level loops in function `name` of `defs` and in the functions of `defs` it
    refers to (transitively): "a for loop in f() (its line 3)", "recursion: f() calls itself"."""
    found, seen, todo = [], set(), [name]
    while todo:
        n = todo.pop(0)
        if n in seen or n not in defs:
            continue
        seen.add(n)
        node = defs[n]
        for sub in ast.walk(node):
            what = _LOOPS.get(type(sub))
            if what:
                found.append(f"{what} in {n}() (its line {sub.lineno - node.lineno + 1})")
            elif isinstance(sub, ast.Name) and sub.id in defs:
                if sub.id == n and isinstance(sub.ctx, ast.Load):
                    found.append(f"recursion: {n}() calls itself")
                todo.append(sub.id)
    return list(dict.fromkeys(found))


# ---------------------------------------------------------------------------------------
# Running cases in-process (the learner's own notebook) and judging results (both paths)
# ---------------------------------------------------------------------------------------
@dataclass
class CaseOutcome:
    case: Case
    ok: bool
    reason: str = ""
    expected: Any = None
    actual: Any = None


def expected_outcome(reference, args, raises=()):
    """What reference(*args) returns, or Raised(...) when it raises one of `raises` on purpose."""
    try:
        return reference(*args)
    except tuple(raises) as e:  # an empty tuple catches nothing: other errors propagate
        return Raised(type(e).__name__, str(e))


def judge(q: QuestionSpec, case: Case, expected, actual) -> CaseOutcome:
    """Compare one decoded actual value with the expected one."""
    call = q.call_text(case.args)
    if isinstance(expected, Raised):
        if isinstance(actual, Raised):
            if (actual.type, actual.message) == (expected.type, expected.message):
                return CaseOutcome(case, True, "", expected, actual)
            if actual.type == "NotImplementedError":
                return CaseOutcome(case, False, f"{call} raised {actual}", expected, actual)
            return CaseOutcome(case, False, f"{call} raised {actual}; expected {expected}",
                               expected, actual)
        return CaseOutcome(case, False, f"{call} returned {show(actual)}; expected it to raise "
                                        f"{expected}", expected, actual)
    if isinstance(actual, Raised):
        return CaseOutcome(case, False, f"{call} raised {actual}", expected, actual)
    why = q.compare(expected, actual)
    if why is None:
        return CaseOutcome(case, True, "", expected, actual)
    plain = type(actual) is type(expected) and type(expected) in (int, float, str, bool)
    tail = "" if plain else f": {why}"
    return CaseOutcome(case, False, f"{call} returned {show(actual)}, expected {show(expected)}"
                       f"{tail}", expected, actual)


def run_in_process(fn, args):
    """Call the learner's function on fresh copies of args; encode-decode what it returns,
    so the in-notebook check sees exactly what the grader would."""
    try:
        out = fn(*_fresh(args))
    except ForbiddenCallError as e:
        return Raised("ForbiddenCallError", str(e))
    except NotImplementedError as e:
        return Raised("NotImplementedError", str(e))
    except Exception as e:  # noqa: BLE001 - any error of the learner's is reported
        return Raised(type(e).__name__, str(e))
    return decode(encode(out))


def _fresh(args):
    return tuple(decode_plain_copy(a) for a in args)


def decode_plain_copy(a):
    if type(a) is list:
        return [decode_plain_copy(x) for x in a]
    if type(a) is tuple:
        return tuple(decode_plain_copy(x) for x in a)
    return a
