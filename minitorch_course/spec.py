"""What an exercise is, in one place: its questions, their inputs, comparison and hints.

An exercise module (minitorch_course/exercises/*.py) defines `EXERCISE = Exercise(...)`: the
inputs (visible cases and seeded random case generators), how results are compared, the hints
and the rules on how an answer is written. It holds no answer: the reference solutions are the
solution cells of solutions/NN_name.ipynb (see answers.py), and what a learner's check() needs
of them is computed by `make release` into checks/NN_name.json (see checkdata.py). The same
objects serve the learner's `q1.check()` (in the notebook's own process) and the grader (which
computes expected values in its own process and compares them with the plain data a sandboxed
submission sent back). Nothing here runs submitted code except `run_in_process`, which the
in-notebook check calls on the learner's own function.
"""
from __future__ import annotations

import ast
import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from . import render as _render
from .grading.harness import ForbiddenCallError, encode
from .notebook import python_code


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
        return _render.render(self)


def as_array(x):
    """The Array a reference result stands for (a numpy array or a minitorch tensor)."""
    return decode(encode(x))


def as_plain(x):
    """A value as the checker sees a submission's: encoded as plain data, then decoded (tensors
    and arrays become Arrays, other foreign objects Foreigns). Expected values are kept so."""
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


def _text(v, limit):
    """A string that came from a submission, safe to write anywhere (lone surrogates escaped)."""
    return str(v)[:limit].encode("utf-8", "backslashreplace").decode("utf-8")


def decode(e, depth=0):
    """Decode untrusted tagged data (see harness.encode) into Python values. Anything that is
    not well formed becomes a Foreign('<malformed result>'), never an exception."""
    try:
        return _decode(e, depth)
    except (_Malformed, KeyError, TypeError, ValueError, AttributeError, RecursionError):
        return Foreign("<malformed result>", "<malformed result>")


def _items(e, t):
    items = e["v"]
    if not isinstance(items, list):
        raise _Malformed
    n = e.get("len", len(items))
    if type(n) is not int:
        raise _Malformed
    return items, n


def _decode(e, depth):  # noqa: C901 - one branch per tag
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
        v, n = e["v"], e.get("len", None)
        if type(v) is not str or (n is not None and type(n) is not int):
            raise _Malformed
        if n is not None and n != len(v):
            return Foreign("str", f"<a str of {n} characters, too long to send>")
        return _text(v, len(v))
    if t in ("tuple", "list"):
        items, n = _items(e, t)
        vals = [_decode(i, depth + 1) for i in items]
        if n != len(items):
            return Foreign(t, f"<a {t} of {n} items, too many to send>")
        return tuple(vals) if t == "tuple" else vals
    if t == "dict":
        pairs, n = _items(e, t)
        out = {}
        for kv in pairs:
            if not isinstance(kv, list) or len(kv) != 2:
                raise _Malformed
            k = _decode(kv[0], depth + 1)
            try:
                out[k] = _decode(kv[1], depth + 1)
            except TypeError:
                raise _Malformed from None
        if n != len(pairs) or len(out) != len(pairs):
            return Foreign("dict", f"<a dict of {n} items>")
        return out
    if t == "np":
        inner = _decode(e["v"], depth + 1)
        name = _text(e["type"], 80)
        return Foreign(name, f"{name.split('.')[-1]}({inner!r})", inner)
    if t == "obj":
        return Foreign(_text(e["type"], 80), _text(e["repr"], 300))
    if t == "array":
        return _decode_array(e)
    if t == "deep":
        return Foreign("nested value", "<nested too deeply>")
    if t == "big":
        return Foreign("value", "<a value too large to send>")
    if t == "raised":
        err = e["error"]
        if not isinstance(err, dict):
            raise _Malformed
        return Raised(_text(err.get("type", "?"), 100), _text(err.get("message", ""), 500),
                      _text(err["cell"], 80) if isinstance(err.get("cell"), str) else None,
                      err.get("line") if type(err.get("line")) is int else None)
    raise _Malformed


_ARRAY_LEAVES = {"b": (bool,), "i": (int,), "u": (int,), "f": (float, int)}


def _decode_array(e):
    """An Array, only when it is exactly what it claims: a shape of natural numbers and, when
    values came, exactly prod(shape) of them, each of a type the dtype can hold."""
    shape = e["shape"]
    if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape) or len(shape) > 64:
        raise _Malformed
    kind, dtype = _text(e["kind"], 10), _text(e["dtype"], 20)
    if kind not in ("ndarray", "tensor"):
        raise _Malformed
    if "flat" not in e:
        return Array(kind, dtype, tuple(shape), None)
    flat = e["flat"]
    if not isinstance(flat, list) or len(flat) != math.prod(shape):
        raise _Malformed
    leaves = _ARRAY_LEAVES.get(_dtype_kind(dtype), ())
    if not all(type(v) in leaves for v in flat):
        raise _Malformed
    return Array(kind, dtype, tuple(shape), _nest(flat, shape))


def _dtype_kind(dtype):
    if dtype == "bool":
        return "b"
    if dtype.startswith("uint"):
        return "u"
    if dtype.startswith("int"):
        return "i"
    if dtype.startswith(("float", "bfloat", "half", "double")):
        return "f"
    return "?"


def _nest(flat, shape):
    """Row-major nested lists of the given shape (a scalar for shape ())."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = math.prod(shape[1:])
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


# ---------------------------------------------------------------------------------------
# Comparing: one place that says precisely what differs
# ---------------------------------------------------------------------------------------
def show(v, limit=160):
    """A value on one line for a message, as the learner would print it (see render.py)."""
    return _render.render(v, limit=limit)


_KIND = {bool: "a bool", int: "an int", float: "a float", str: "a str", tuple: "a tuple",
         list: "a list", dict: "a dict", type(None): "None"}


def kind(v):
    if isinstance(v, Foreign):
        return f"a {v.type}"
    return _KIND.get(type(v), f"a {type(v).__name__}")


def compare_values(expected, actual, where="", rtol=1e-9, atol=1e-12):
    """None when actual equals expected with exactly the same types; else a reason.
    Every container is compared by length (or keys) first, then item by item; arrays and
    tensors by kind, shape and dtype, then each value (floats within a tolerance: rtol and
    atol for plain floats)."""
    here = where or "the result"
    if isinstance(expected, Array):
        return _compare_arrays(expected, actual, here)
    if isinstance(actual, Foreign):
        hint = ""
        if actual.type.startswith("numpy.") and type(expected) in (int, float, bool):
            hint = f"; convert it with {type(expected).__name__}(...)"
        return f"{here} is {kind(actual)}, expected {kind(expected)}{hint}"
    if type(actual) is not type(expected):
        return f"{here} is {kind(actual)}, expected {kind(expected)}"
    if type(expected) in (tuple, list):
        if len(actual) != len(expected):
            return f"{here} has {len(actual)} items, expected {len(expected)}"
        for i in range(len(expected)):
            r = compare_values(expected[i], actual[i], f"{here}[{i}]", rtol, atol)
            if r:
                return r
        return None
    if type(expected) is dict:
        return _compare_dicts(expected, actual, here, lambda e, a, w: compare_values(e, a, w, rtol, atol))
    if type(expected) is float:
        if math.isnan(expected) and math.isnan(actual):
            return None
        if math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol):
            return None
        e, a = _render.number_pair(expected, actual)
        return f"{here} is {a}, expected {e}"
    if actual != expected:
        e, a = _render.render_pair(expected, actual, 160)
        return f"{here} is {a}, expected {e}"
    return None


def within(rtol, atol):
    """compare_values with floats equal within rtol and atol (a float32 computation, checked
    against one done in another order)."""
    def compare(expected, actual):
        return compare_values(expected, actual, rtol=rtol, atol=atol)
    compare.__name__ = f"within(rtol={rtol:g}, atol={atol:g})"
    return compare


def _compare_dicts(expected, actual, here, compare):
    """Same keys (each of the same type), then the values, key by key."""
    theirs = {(type(k), k): k for k in actual}
    missing = [k for k in expected if (type(k), k) not in theirs]
    if missing:
        return f"{here} has no key {show(missing[0])}"
    extra = [k for k in actual if (type(k), k) not in {(type(e), e) for e in expected}]
    if extra or len(actual) != len(expected):
        return f"{here} has a key {show(extra[0]) if extra else '?'} that it should not have"
    for k in expected:
        r = compare(expected[k], actual[theirs[(type(k), k)]], f"{here}[{k!r}]")
        if r:
            return r
    return None


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield v


_ARRAY_NAME = {"tensor": "a tensor", "ndarray": "a NumPy array"}
ARRAY_RTOL, ARRAY_ATOL = 1e-5, 1e-8  # float elements of arrays and tensors


def _index(i, shape):
    """The row-major position i as an index: [1, 0]."""
    out = []
    for n in reversed(shape):
        out.append(i % n if n else 0)
        i //= n if n else 1
    return "[" + ", ".join(str(k) for k in reversed(out)) + "]"


def _compare_arrays(expected, actual, where):
    want_kind = _ARRAY_NAME.get(expected.kind, expected.kind)
    if not isinstance(actual, Array):
        return f"{where} is {kind(actual)}, expected {want_kind}"
    if actual.kind != expected.kind:
        return f"{where} is {_ARRAY_NAME.get(actual.kind, actual.kind)}, expected {want_kind}"
    if actual.shape != expected.shape:
        return f"{where} has shape {actual.shape}, expected {expected.shape}"
    if actual.dtype != expected.dtype:
        return f"{where} has dtype {actual.dtype}, expected {expected.dtype}"
    if actual.values is None or expected.values is None:
        return f"{where}: its values are too many to compare ({math.prod(expected.shape)} elements)"
    want, got = list(_flat(expected.values)), list(_flat(actual.values))
    if len(want) != len(got) or len(want) != math.prod(expected.shape):
        return f"{where} has {len(got)} values, expected {len(want)}"
    wrong = [i for i, (e, a) in enumerate(zip(want, got)) if not _same_element(e, a)]
    if not wrong:
        return None
    i, (e, a) = wrong[0], (want[wrong[0]], got[wrong[0]])
    e, a = _render.number_pair(e, a) if type(e) is float and type(a) is float else (repr(e), repr(a))
    at = f" at {_index(i, expected.shape)}" if expected.shape else ""
    more = f" ({len(wrong)} of {len(want)} elements differ)" if len(wrong) > 1 else ""
    return f"{where}{at} is {a}, expected {e}{more}"


def _same_element(e, a):
    if type(e) is float and type(a) in (float, int):
        return (math.isnan(e) and math.isnan(a)) or math.isclose(a, e, rel_tol=ARRAY_RTOL, abs_tol=ARRAY_ATOL)
    return type(a) is type(e) and a == e


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
    function: str                 # the function the learner writes (or the driver that runs it)
    title: str
    solution_cell: str            # nbgrader grade_id of the cell where they write it
    test_cell: str                # nbgrader grade_id of the graded test cell (carries the points)
    visible_cases: Callable[..., list]                 # () -> list of argument tuples
    random_cases: Callable[..., list]  # (rng, n) -> list of argument tuples
    hints: list[str] = field(default_factory=list)
    visible_random: int = 20
    visible_seed: int = 0
    compare: Callable[[Any, Any], str | None] = compare_values
    # Exception types the reference raises on purpose (e.g. PyTorch's RuntimeError for shapes
    # that do not broadcast): on such inputs the expected outcome is that exception, and a
    # submission is right when it raises the same type with the same message.
    raises: tuple = ()
    # For a question graded through a driver: the name of the class (or function) the learner
    # writes in solution_cell, when `function` is not it but an instructor's driver defined in
    # one of the exercise's driver_cells (see Exercise). None: the function itself.
    answer: str | None = None
    # True: the learner's function may not loop in Python (for, while, comprehensions,
    # recursion), nor may the functions of theirs it calls: a static check of the source (see
    # python_loops), in check() on the live function and in the grader on the submitted cells.
    no_loops: bool = False
    # Names of the instructor's functions the case generators need (e.g. a state reached by a
    # few reference steps). The generators then take one more argument, `ref`: an object with
    # those functions as attributes, from the solutions notebook (answers.py).
    generators_use: tuple = ()
    # How a case reads in a message, when `function(args)` is not what the learner wrote (a
    # driver): args -> text. None: the call itself.
    describe: Callable[[tuple], str] | None = None
    # Partial credit: the weights of this question's groups of cases ({"visible": 1, "hidden":
    # 1, "random": 1}); None: the exercise's, else the course default (grading/scoring.py).
    weights: dict | None = None

    def __post_init__(self):
        if self.answer is not None and not isinstance(self.answer, str):
            raise TypeError(f"{self.id}: answer is the name of what the learner writes, not {self.answer!r}")

    @property
    def written(self):
        """The name of what the learner defines in solution_cell."""
        return self.answer or self.function

    def call_text(self, args):
        if self.describe is not None:
            return self.describe(tuple(args))
        return f"{self.function}({', '.join(show(a) for a in args)})"

    def _generated(self, make, *args, ref=None):
        if not self.generators_use:
            return make(*args)
        if ref is None:
            raise LookupError(f"{self.id}: its cases are made with the instructor's "
                              f"{', '.join(self.generators_use)}; they need the solutions notebook")
        return make(*args, ref)

    def cases(self, explicit=None, n_random=0, seed=None, ref=None):
        """The visible cases (no arguments), or exactly the given/hidden ones. ref: the
        instructor's functions named in generators_use (see answers.Answers.ref)."""
        if explicit is None and not n_random:
            out = [Case(tuple(a), "visible") for a in self._generated(self.visible_cases, ref=ref)]
            rng = random.Random(f"{self.id}:{self.visible_seed}")
            out += [Case(tuple(a), "visible")
                    for a in self._generated(self.random_cases, rng, self.visible_random, ref=ref)]
            return out
        out = [Case(tuple(a), "hidden") for a in (explicit or [])]
        if n_random:
            rng = random.Random(f"{self.id}:{seed}")
            out += [Case(tuple(a), "random") for a in self._generated(self.random_cases, rng, int(n_random), ref=ref)]
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
    # Modules those drivers import that the learner may not (e.g. minitorch, for a driver that
    # plugs the learner's functions into it; "pkg.*": a package with all its modules): the
    # sandbox loads them before any cell runs, and still refuses every import of them (and of
    # what they load that the learner may not import) from the learner's code.
    driver_imports: tuple = ()
    # Types, builtins or functions the learner's code may not use at all, decided by reading the
    # source only (grading/rules.py), never replaced at run time: NumPy, the standard library or
    # a driver's minitorch use them themselves (e.g. numpy.ndarray, whose constructor can lay any
    # strides over a buffer, or as_strided, with which minitorch builds its views).
    forbidden_types: tuple = ()
    # Attributes the learner's code may not touch: "name" for any use, "name=" for setting it
    # (e.g. "strides=": assigning an array's strides). Read from the source, like the rest.
    forbidden_attributes: tuple = ()
    # Partial credit (grading/scoring.py): "groups", "proportional" or "all", and the weights
    # of the groups of cases; None: the course defaults.
    scoring: str | None = None
    weights: dict | None = None

    @property
    def notebook(self):
        return f"{self.name}.ipynb"

    def question(self, qid):
        for q in self.questions:
            if q.id == qid:
                return q
        raise KeyError(qid)


# ---------------------------------------------------------------------------------------
# Python-level loops, syntactically (the rules the grader and check() apply are in
# grading/rules.py, which also sees map(), recursion through several functions, and more)
# ---------------------------------------------------------------------------------------
_LOOPS = {ast.For: "a for loop", ast.AsyncFor: "a for loop", ast.While: "a while loop",
          ast.ListComp: "a list comprehension", ast.SetComp: "a set comprehension",
          ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression"}


def _parse_cell(source):
    """A cell's module AST (IPython syntax handled as the grader does), or None."""
    try:
        return ast.parse(python_code(source)[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
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
    """What reference(*args) returns, as the checker sees a submission's result (as_plain), or
    Raised(...) when it raises one of `raises` on purpose."""
    try:
        return as_plain(reference(*args))
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
    e, a = _render.render_pair(expected, actual, 160)
    plain = type(actual) is type(expected) and type(expected) in (int, float, str, bool)
    tail = "" if plain and e != a else f": {why}"
    return CaseOutcome(case, False, f"{call} returned {a}, expected {e}{tail}", expected, actual)


def decide(outcomes, total, forbidden=(), imports=()) -> str:
    """The verdict on a question from its compared cases, the one rule check() and the grader
    share: "forbidden" (a rule on how to write it was broken), "not_attempted" (every case
    raised NotImplementedError), "incorrect", "incomplete" (fewer cases compared than there
    are), or "correct": every one of the `total` cases compared and matched. `imports`: uses of
    modules that may not be imported, which make the code fail where it is graded; they make
    an answer "forbidden" only when nothing else was wrong with it."""
    if forbidden:
        return "forbidden"
    failures = [o for o in outcomes if not o.ok]
    if failures and len(failures) == len(outcomes) and all(
            isinstance(o.actual, Raised) and o.actual.type == "NotImplementedError" for o in failures):
        return "not_attempted"
    if failures:
        return "incorrect"
    if imports:
        return "forbidden"
    if len(outcomes) != total or total == 0:
        return "incomplete"
    return "correct"


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
