"""The GPU path, checked without a GPU: everything the library asks of CuPy, checked against CuPy.

CuPy imports on a machine without a GPU (only making arrays needs the driver), so its
functions, ufuncs, ufunc methods and ndarray members, with their signatures, can be read
here. What the library asks of them is found by running the library's own test modules on
the recording device (tests/_recording_backend.py: NumPy underneath, CuPy's behaviour on
top), in a subprocess, with every tensor made without `device=` placed on it. No list of ops
is kept by hand: an op added to minitorch with its tests is checked the next time this runs.

Each call is checked for: the name exists in CuPy; the positional count and keyword names
bind to CuPy's signature (`inspect.signature`, else the signature line CuPy's docstrings
carry); a ufunc has a loop for the operand dtypes; a ufunc method is one CuPy implements
for that ufunc (CuPy defines `.at`, `.reduce`, `.accumulate` on every ufunc, but runs them
for a few only). Also: no host NumPy array is mixed into device compute, no device array is
turned into a NumPy array implicitly, and a NumPy function reaches a device array only where
CuPy's dispatch has a function of that name.

What cannot be verified without a GPU (dtype support of functions that are not ufuncs,
string option values CuPy's docstrings do not list, ops no test runs on a device) is listed
in the report this module prints and emits as a warning. A static scan of minitorch/ for
NumPy calls on tensor data (which would silently break on a GPU) runs without CuPy.
"""
from __future__ import annotations

import ast
import inspect
import json
import os
import re
import subprocess
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
LIB = ROOT / "minitorch"
TESTS = ROOT / "tests"

try:
    import cupy
except Exception as e:  # not installed, or a broken install
    cupy, _CUPY_WHY = None, f"{type(e).__name__}: {e}"
else:
    _CUPY_WHY = ""

needs_cupy = pytest.mark.skipif(
    cupy is None, reason=f"CuPy is not importable ({_CUPY_WHY}): the CuPy API check needs "
                         "`pip install cupy-cuda12x` (no GPU needed)")


# =============================================================================================
# Static: NumPy calls on tensor data inside the library (no CuPy needed)
# =============================================================================================

# NumPy names that describe dtypes, shapes and error states: host metadata, never device compute
_HOST_METADATA = {
    "dtype", "iinfo", "finfo", "result_type", "promote_types", "can_cast", "issubdtype", "isdtype",
    "errstate", "seterr", "geterr", "ndim", "shape", "isscalar", "broadcast_shapes", "obj2sctype",
    "bool_", "generic", "number", "integer", "floating", "signedinteger", "unsignedinteger",
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "complex64", "complex128", "intp", "ndindex",
}

# NumPy calls that touch a tensor's data on purpose, on the host: (file, function, numpy name) -> why
ALLOWED_HOST_CALLS = {
}


def _numpy_aliases(tree):
    """The names bound to NumPy in a module: the module itself (`import numpy as np`), and its
    functions (`from numpy import stack`, `asarray = np.asarray`, `f, g = np.f, np.g`)."""
    names, direct = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "numpy":
                    names.add(a.asname or "numpy")
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy":
            for a in node.names:
                direct[a.asname or a.name] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                pairs = (zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple)
                         and isinstance(node.value, ast.Tuple) else [(target, node.value)])
                for t, v in pairs:
                    name = _numpy_name(v, names, {}) if isinstance(v, ast.Attribute) else None
                    if isinstance(t, ast.Name) and name and name.split(".")[-1] not in ("ndarray", "generic"):
                        direct[t.id] = name
    return names, direct


def _numpy_name(func, aliases, direct):
    """'numpy.x.y' for a call of np.x.y (or of a name imported from numpy), else None."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    if func.id in aliases:
        return ".".join(reversed(parts))
    if func.id in direct and not parts:
        return direct[func.id]
    return None


_ARRAY_METADATA = {"shape", "dtype", "ndim", "size", "itemsize", "strides", "nbytes"}


def _reads_data(node, tainted):
    """Whether an expression reads a tensor's data (its metadata, `arr.shape`, does not count)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Attribute):
            if n.attr in _ARRAY_METADATA:
                continue
            if n.attr == "_data":
                return True
        if isinstance(n, ast.Name) and n.id in tainted:
            return True
        todo.extend(ast.iter_child_nodes(n))
    return False


def _tainted_names(fn):
    """Names in `fn` that hold tensor data: assigned from an expression reading `._data`."""
    tainted = set()
    for _ in range(4):  # a few rounds reach names assigned from names
        for node in ast.walk(fn):
            targets, value = (), None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets, value = (node.target,), node.value
            elif isinstance(node, (ast.For, ast.comprehension)):
                targets, value = (node.target,), node.iter
            if value is not None and _reads_data(value, tainted):
                for t in targets:
                    tainted |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return tainted


def _own_nodes(fn):
    """The nodes of a function's body, without those of functions nested in it (checked on their own)."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _scalar_guarded(fn, aliases):
    """{id(node): names} for the nodes under `isinstance(name, np.generic)` (an if or a conditional
    expression): there `name` is a NumPy scalar, a host value even when it came from tensor data."""
    out = {}
    for node in ast.walk(fn):
        if not isinstance(node, (ast.If, ast.IfExp)):
            continue
        t = node.test
        if (isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "isinstance"
                and len(t.args) == 2 and isinstance(t.args[0], ast.Name)
                and isinstance(t.args[1], ast.Attribute) and t.args[1].attr == "generic"
                and isinstance(t.args[1].value, ast.Name) and t.args[1].value.id in aliases):
            body = node.body if isinstance(node.body, list) else [node.body]
            for b in body:
                for n in ast.walk(b):
                    out.setdefault(id(n), set()).add(t.args[0].id)
    return out


def scan_numpy_calls(sources=None):
    """Every NumPy call inside a function of minitorch/ (or of `sources`, {name: text}):
    (file, function, line, name, reads tensor data?, in a function given the array module `xp`?)."""
    if sources is None:
        sources = {p.relative_to(ROOT).as_posix(): p.read_text() for p in sorted(LIB.rglob("*.py"))}
    found = []
    for rel, text in sources.items():
        tree = ast.parse(text, filename=rel)
        aliases, direct = _numpy_aliases(tree)
        if not aliases and not direct:
            continue

        def visit(node, qual):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = f"{qual}.{child.name}" if qual else child.name
                    check(child, name)
                    visit(child, name)
                elif isinstance(child, ast.ClassDef):
                    visit(child, f"{qual}.{child.name}" if qual else child.name)

        def check(fn, qual):
            tainted = _tainted_names(fn)
            takes_xp = any(a.arg == "xp" for a in fn.args.args + fn.args.kwonlyargs)
            scalars = _scalar_guarded(fn, aliases)
            for sub in _own_nodes(fn):
                if isinstance(sub, ast.Call):
                    name = _numpy_name(sub.func, aliases, direct)
                    if name is None or name.split(".")[0] in _HOST_METADATA:
                        continue
                    args = sub.args + [k.value for k in sub.keywords]
                    reads = any(_reads_data(a, tainted - scalars.get(id(sub), set())) for a in args)
                    found.append((rel, qual, sub.lineno, name, reads, takes_xp))

        visit(tree, "")
    return found


def test_no_numpy_call_computes_on_tensor_data():
    """A NumPy call on a tensor's `_data` (directly, or through a name that holds it) runs on the
    host: on a GPU it fails, or copies, or silently computes elsewhere. Ops must use the
    tensor's array module (`t._device.xp`). Host-side ones are allowed here, with the reason."""
    calls = scan_numpy_calls()
    bad, used = [], set()
    for rel, qual, line, name, reads, takes_xp in calls:
        if not (reads or takes_xp):
            continue
        key = (rel, qual, name)
        if key in ALLOWED_HOST_CALLS:
            used.add(key)
            continue
        why = "reads tensor data" if reads else "in a function given the array module `xp`"
        bad.append(f"  {rel}:{line} in {qual}(): np.{name}(...) {why}; use the array module "
                   f"(`xp.{name}`, xp = t._device.xp) or, if this is host-side on purpose, allow-list "
                   f"it in ALLOWED_HOST_CALLS with the reason")
    others = [f"  {rel}:{line} in {qual}(): np.{name}" for rel, qual, line, name, reads, takes_xp in calls
              if not (reads or takes_xp)]
    print(f"{len(others)} NumPy calls in minitorch/ read no tensor data (host-side: data not yet on a "
          "device, random streams, printing):", *others, sep="\n")
    stale = sorted(set(ALLOWED_HOST_CALLS) - used)
    if stale:
        warnings.warn(UserWarning(f"ALLOWED_HOST_CALLS entries that match nothing any more: {stale}"))
    assert not bad, "NumPy computing on tensor data (breaks on a GPU):\n" + "\n".join(bad)


def test_the_scan_sees_numpy_on_tensor_data():
    src = """
import numpy as np
from numpy import expand_dims

class Unsqueeze:
    @staticmethod
    def forward(ctx, a, dim):
        arr = a._data
        ctx.n = np.prod(arr.shape)        # host metadata of the data: fine
        return np.expand_dims(arr, dim)   # through a name that holds the data

def backward(grad):
    return expand_dims(grad._data, 0)     # a name imported from numpy, on the data itself

def fast(a, b):
    asarray = np.asarray
    r = a._data + b._data
    return asarray(r)                     # a NumPy function by another name, on a result of the data

def scalar_result(a):
    r = a._data.sum()
    return np.asarray(r) if isinstance(r, np.generic) else r   # only ever a NumPy scalar: host

def im2col(xp, x):
    return np.pad(x, 1)                   # given the array module, but calls NumPy

def host(t):
    return np.dtype("float32"), np.arange(3)
"""
    found = {(q, n, reads, xp) for _, q, _, n, reads, xp in scan_numpy_calls({"m.py": src})}
    assert found == {("Unsqueeze.forward", "prod", False, False), ("Unsqueeze.forward", "expand_dims", True, False),
                     ("backward", "expand_dims", True, False), ("im2col", "pad", False, True),
                     ("fast", "asarray", True, False), ("scalar_result", "asarray", False, False),
                     ("host", "arange", False, False)}


# =============================================================================================
# Dynamic: the library's tests run on the recording device; what they asked of CuPy, checked
# =============================================================================================

_NOT_LIBRARY = re.compile(
    r"minitorch_course|_notebook_exec|nbformat|nbclient|playwright|^\s*(?:from|import) bench", re.M)


def library_test_modules():
    """tests/test_*.py that test the library (not the course machinery, notebooks, browser,
    benchmarks), and tests/gpu/test_gpu_vs_cpu.py, whose device there is the recording one."""
    found = [p for p in sorted(TESTS.glob("test_*.py"))
             if p.name != Path(__file__).name and not _NOT_LIBRARY.search(p.read_text())]
    return found + [TESTS / "gpu" / "test_gpu_vs_cpu.py"]


class Recording:
    def __init__(self, events, functions, modules, seconds, summary, failures):
        self.events, self.functions, self.modules = events, functions, modules
        self.seconds, self.summary, self.failures = seconds, summary, failures


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    if cupy is None:
        pytest.skip(f"CuPy is not importable ({_CUPY_WHY}): the CuPy API check needs `pip install cupy-cuda12x` "
                    "(no GPU needed)")
    out = tmp_path_factory.mktemp("cupy_api") / "usage.json"
    modules = library_test_modules()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    # The random-program checks need their full budgets to find a rare divergence, not to reach
    # the ops: 1500 programs (about 6000 ops) draw each template of their op table several times.
    env.setdefault("MINITORCH_FUZZ_EXAMPLES", "1500")
    env.setdefault("MINITORCH_HYPOTHESIS_EXAMPLES", "60")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=line",
           "--continue-on-collection-errors",
           f"--record-cupy-usage={out}", *(str(p.relative_to(ROOT)) for p in modules)]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - start
    if proc.returncode not in (0, 1) or not out.exists():
        pytest.fail(f"the recording run ({' '.join(cmd[:8])} ...) did not finish (exit {proc.returncode}):\n"
                    f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    data = json.loads(out.read_text())
    lines = proc.stdout.strip().splitlines()
    summary = next((ln.strip("= ") for ln in reversed(lines) if re.search(r"\d+ (passed|failed)", ln)), "?")
    failures = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    return Recording(data["events"], data["functions"], modules, seconds, summary, failures)


# ---- reading CuPy ----------------------------------------------------------------------------

_ABSENT = object()


def resolve(qual):
    """CuPy's object for 'cupy.x.y' or 'cupyx.scipy.special.erf'; _ABSENT when there is none."""
    import importlib
    parts = qual.split(".")
    obj = None
    for i in range(len(parts), 0, -1):  # the longest importable module prefix
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        rest = parts[i:]
        break
    if obj is None:
        return _ABSENT
    for p in rest:
        obj = getattr(obj, p, _ABSENT)
        if obj is _ABSENT:
            return _ABSENT
    return obj


_SIG_LINE = re.compile(r"^\s*[\w.]*\((?P<params>.*)\)\s*(?:->.*)?$")


def _signature_from_ast(args):
    P = inspect.Parameter
    positional = args.posonlyargs + args.args
    first_default = len(positional) - len(args.defaults)
    params = []
    for i, a in enumerate(positional):
        kind = P.POSITIONAL_ONLY if i < len(args.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        params.append(P(a.arg, kind, default=None if i >= first_default else P.empty))
    if args.vararg:
        params.append(P(args.vararg.arg, P.VAR_POSITIONAL))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        params.append(P(a.arg, P.KEYWORD_ONLY, default=None if d is not None else P.empty))
    if args.kwarg:
        params.append(P(args.kwarg.arg, P.VAR_KEYWORD))
    if params and params[0].name == "self":
        params = params[1:]
    return inspect.Signature(params)


def cupy_signature(obj):
    """(signature or None, where it was read from, or why it could not be)."""
    try:
        return inspect.signature(obj), "signature"
    except (TypeError, ValueError):
        pass
    doc = (getattr(obj, "__doc__", None) or "").strip()
    first = doc.splitlines()[0] if doc else ""
    m = _SIG_LINE.match(first)
    if not m and _is_cupy_ufunc(obj):  # what CuPy's ufunc.__call__ takes (cupy/_core/_kernel.pyx)
        P = inspect.Parameter
        params = [P(f"x{i + 1}", P.POSITIONAL_ONLY) for i in range(obj.nin)] + [
            P("out", P.POSITIONAL_OR_KEYWORD, default=None), P("casting", P.KEYWORD_ONLY, default=None),
            P("dtype", P.KEYWORD_ONLY, default=None)]
        return inspect.Signature(params), "ufunc"
    if not m:
        return None, "no inspect.signature, and its docstring opens with no signature line"
    params = re.sub(r"=<[^<>]*>", "=None", m.group("params").replace("\\*", "*"))
    params = re.sub(r"(^|,)\s*[A-Za-z_][\w.]*\s+(?=\*{0,2}[A-Za-z_])", r"\1 ", params)  # Cython's `int axis`
    params = re.sub(r"\[.*\]", "", params)  # optional-argument brackets ("[, out1, out2]") are not Python
    try:
        fn = ast.parse(f"def f({params}): pass").body[0]
    except SyntaxError:
        return None, f"its docstring's signature line does not parse: {first!r}"
    return _signature_from_ast(fn.args), f"docstring: {first.strip()}"


def _python_body(obj):
    """The statements of a Python function's body, docstring left out (None for a builtin)."""
    try:
        src = inspect.getsource(obj)
    except (TypeError, OSError):
        return None
    import textwrap
    try:
        fn = ast.parse(textwrap.dedent(src)).body[0]
    except (SyntaxError, IndexError):
        return None
    body = getattr(fn, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    return body


def stub_or_delegate(obj):
    """'stub' for a CuPy function that only raises NotImplementedError; 'numpy' for one that hands
    *args, **kwargs to NumPy's function (so it takes whatever NumPy takes); None otherwise."""
    body = _python_body(obj)
    if not body:
        return None
    if len(body) == 1 and isinstance(body[0], ast.Raise):
        exc = body[0].exc
        name = getattr(getattr(exc, "func", exc), "id", "")
        if name == "NotImplementedError":
            return "stub"
    src = ast.unparse(body[-1])
    if re.search(r"numpy\.[\w.]+\(\*args, \*\*kwargs\)", src):
        return "numpy"
    return None


def _doc_of(obj):
    """The docstring that documents obj's arguments: a method's own says "see cupy.x for full
    documentation" when the arguments are described there."""
    doc = inspect.getdoc(obj) or ""
    if "Args:" not in doc:
        m = re.search(r":func:`(cupy\.[\w.]+)` for full documentation", doc)
        if m and resolve(m.group(1)) is not _ABSENT:
            return inspect.getdoc(resolve(m.group(1))) or doc
    return doc


def documented_values(obj, param):
    """The quoted values CuPy's docstring lists for a parameter (its entry under Args:), or ()."""
    lines = _doc_of(obj).splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"^(\s*){re.escape(param)}\b[^:]*:", line)
        if not m:
            continue
        block = [line]
        for nxt in lines[i + 1:]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= len(m.group(1)):
                break
            block.append(nxt)
        return tuple(dict.fromkeys(re.findall(r"'([^'\s]+)'", " ".join(block))))
    return ()


def bind(sig, npos, kw):
    """(problem or None, keyword names only a **kwargs took)."""
    try:
        sig.bind(*range(npos), **{k: None for k in kw})
    except TypeError as e:
        return str(e), ()
    named = {p.name for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD}
    has_var = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
    return None, tuple(k for k in kw if k not in named) if has_var else ()


# CuPy's scatter kernels (cupy/_core/_routines_indexing.pyx, _scatter_op_single): the only ufuncs
# whose `.at` runs, and the dtypes of the target array each takes (other dtypes raise TypeError)
_I32, _I64, _U32, _U64 = (np.dtype(t) for t in ("int32", "int64", "uint32", "uint64"))
_F16, _F32, _F64 = (np.dtype(t) for t in ("float16", "float32", "float64"))
SCATTER_DTYPES = {
    "add": {_I32, _I64, _F16, _F32, _F64, _U32, _U64},
    "sub": {_I32, _U32},
    "max": {_I32, _I64, _F32, _F64, _U32, _U64},
    "min": {_I32, _I64, _F32, _F64, _U32, _U64},
    "and": {_I32, _I64, _U32, _U64}, "or": {_I32, _I64, _U32, _U64}, "xor": {_I32, _I64, _U32, _U64},
}
# cupy/_core/_kernel.pyx, ufunc.reduce / accumulate / reduceat: the ufuncs they run for
UFUNC_METHOD_SUPPORT = {"reduce": ("cupy_add", "cupy_multiply"), "accumulate": ("cupy_add", "cupy_multiply"),
                        "reduceat": ("cupy_add",)}
# what each method becomes when CuPy does not run it
UFUNC_METHOD_FIX = {
    "at": "use cupyx.scatter_add / scatter_max / scatter_min, or a sort + segment reduction",
    "reduce": "use the reduction function (xp.sum, xp.prod, xp.max, xp.all, xp.any, ...)",
    "accumulate": "use xp.cumsum / xp.cumprod, or a loop over the axis",
    "reduceat": "use xp.add.reduceat's equivalent: cumsum and differences at the indices",
}


def ufunc_has_loop(uf, dtypes):
    arrays = [(i, np.dtype(c)) for i, c in enumerate(dtypes or ()) if c is not None]
    if not arrays:
        return True
    for t in getattr(uf, "types", ()):
        ins = t.split("->")[0] if isinstance(t, str) else ""
        try:
            if all(i < len(ins) and np.can_cast(d, np.dtype(ins[i]), "safe") for i, d in arrays):
                return True
        except TypeError:
            continue
    return False


def _is_cupy_ufunc(obj):
    return type(obj).__name__ == "ufunc" and type(obj).__module__.startswith("cupy")


# ---- the check ---------------------------------------------------------------------------------

class Finding:
    """What one recorded event would do on a GPU; `test` names the test that fails on it."""

    def __init__(self, test, event, problem, fix=""):
        self.test, self.event, self.problem, self.fix = test, event, problem, fix

    def call(self):
        e = self.event
        on = f" on {_fmt_dtypes(e['dtypes'])}" if e.get("dtypes") and any(e["dtypes"]) else ""
        if e["npos"] is None:
            return e["name"] + on
        args = ([f"<{e['npos']} positional>"] if e["npos"] else []) + [f"{k}=" for k in e["kw"] or ()]
        return f"{e['name']}({', '.join(args)}){on}"

    def key(self):
        return (self.event["kind"], self.event["name"])


def _fmt_dtypes(dts):
    return "(" + ", ".join(np.dtype(c).name if c and len(c) == 1 else (c or "scalar") for c in dts) + ")"


# Known library issues, reported and not failing until they are fixed:
# (event kind, name, a phrase of the problem) -> what to do. An entry that matches nothing any
# more is reported, to be removed.
KNOWN = {}


def known(f):
    for (kind, name, phrase), fix in KNOWN.items():
        if f.event["kind"] == kind and f.event["name"] == name and phrase in f.problem:
            return fix
    return None

_NUMPY_CASTING = ("no", "equiv", "safe", "same_kind", "unsafe")
_FLAG_ATTRS = ("c_contiguous", "f_contiguous", "owndata", "fnc", "forc")
_FLAG_KEYS = ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "C", "F")


def _operator_ufunc(dunder):
    import _recording_backend as rb
    core = dunder.strip("_")
    for prefix in ("r", "i", ""):
        if core.startswith(prefix) and core[len(prefix):] in rb.OPERATOR_UFUNC:
            return rb.OPERATOR_UFUNC[core[len(prefix):]]
    return None


def _source(site):
    import linecache
    path, _, line = site.rpartition(":")
    return linecache.getline(str(ROOT / path), int(line))


def _is_probe(e):
    """Every line that touched the missing name asks `hasattr(x, "name")` / `getattr(x, "name", default)`:
    the code checks, and takes another branch where CuPy lacks it."""
    last = e["name"].split(".")[-1]
    pattern = re.compile(rf"""(hasattr\([^)]*|getattr\([^)]*,\s*)["']{re.escape(last)}["']""")
    return bool(e["sites"]) and all(pattern.search(_source(site)) for site in e["sites"])


def _names_numpy(e):
    """Whether a line that dispatched a NumPy ufunc called NumPy itself (not an operator whose
    other operand was a NumPy scalar, which CuPy's __array_ufunc__ runs as its own)."""
    return any(re.search(r"\b(np|numpy)\.", _source(site)) for site in e["sites"])


class Checker:
    """Checks recorded events against CuPy, one method per event kind; collects findings and what
    could not be verified."""

    def __init__(self):
        self.found, self.unverifiable = [], []
        self.members = set(dir(cupy.ndarray))

    def run(self, events):
        for e in events:
            getattr(self, e["kind"], self.info)(e)
        return self.found, self.unverifiable

    def add(self, test, e, problem, fix=""):
        self.found.append(Finding(test, e, problem, fix))

    def info(self, e):
        """index patterns, host transfers, probes: reported, nothing to check"""

    # -- arguments ---------------------------------------------------------------------------------
    def arguments(self, e, obj, test="signature", method=False):
        if e["npos"] is None:
            return
        self.option_values(e, obj, test)
        kind = stub_or_delegate(obj)
        if kind == "stub":
            return self.add("names", e, "CuPy defines it, but only raises NotImplementedError")
        sig, how = cupy_signature(obj)
        if sig is None:
            return self.unverifiable.append((e, f"arguments not checked: {how}"))
        params = list(sig.parameters.values())
        if method and params and params[0].name == "self":
            sig = sig.replace(parameters=params[1:])
        problem, loose = bind(sig, e["npos"], e["kw"] or ())
        if problem:
            shown = how[len("docstring: "):] if how.startswith("docstring") else f"{e['name'].split('.')[-1]}{sig}"
            self.add(test, e, f"CuPy's {shown} refuses it ({problem})",
                     "pass only the arguments CuPy's signature names")
        elif loose and kind != "numpy":
            self.unverifiable.append((e, f"keywords {', '.join(loose)} go to a **kwargs of CuPy's {sig}: not checked"))

    def option_values(self, e, obj, test):
        for k, v in (e.get("values") or ()):
            if k == "dtype" or (k == "casting" and v in _NUMPY_CASTING):
                continue  # dtype names, and the casting rules CuPy hands to numpy.can_cast
            listed = documented_values(obj, k)
            if listed and v not in listed:
                self.add(test, e, f"{k}={v!r} is not among the values CuPy documents for {k} "
                                  f"({', '.join(map(repr, listed))})")
            elif not listed:
                self.unverifiable.append((e, f"{k}={v!r}: CuPy's docstring lists no values for {k}"))

    def exists(self, e):
        obj = resolve(e["name"])
        if obj is _ABSENT:
            self.add("probe" if _is_probe(e) else "names", e, f"CuPy has no {e['name']}")
        return obj

    # -- the array module --------------------------------------------------------------------------
    def attribute(self, e):
        self.exists(e)

    def function(self, e):
        obj = self.exists(e)
        if obj is not _ABSENT:
            self.arguments(e, obj)

    def ufunc(self, e):
        obj = self.exists(e)
        if obj is _ABSENT:
            return
        self.arguments(e, obj)
        if _is_cupy_ufunc(obj) and not ufunc_has_loop(obj, e["dtypes"]):
            self.add("ufuncs", e, f"{e['name']} has no loop for these dtypes (its loops: {' '.join(obj.types)})",
                     "cast the operands first")

    def ufunc_method(self, e):
        obj = self.exists(e)
        if obj is _ABSENT:
            return
        self.arguments(e, obj)
        uf_name, method = e["name"].rsplit(".", 1)
        uf = resolve(uf_name)
        if not _is_cupy_ufunc(uf):
            return
        problem = None
        if method == "at":
            op = getattr(uf, "_scatter_op", None)
            allowed = SCATTER_DTYPES.get(op)
            dt = np.dtype(e["dtypes"][0]) if e["dtypes"] and e["dtypes"][0] else None
            if op is None:
                problem = f"CuPy defines {uf_name}.at, but raises NotImplementedError for it"
            elif allowed is not None and dt is not None and dt not in allowed:
                problem = (f"CuPy's {uf_name}.at takes only {', '.join(sorted(d.name for d in allowed))} "
                           f"(TypeError for {dt.name})")
        elif method in UFUNC_METHOD_SUPPORT and uf.name not in UFUNC_METHOD_SUPPORT[method]:
            problem = f"CuPy defines {uf_name}.{method}, but raises NotImplementedError for it"
        if problem:
            self.add("ufuncs", e, problem, UFUNC_METHOD_FIX.get(method, ""))

    # -- the device array --------------------------------------------------------------------------
    def member(self, e):
        name = e["name"]
        if name.startswith("flags."):
            ok = name[6:] in _FLAG_ATTRS
        elif name.startswith("flags["):
            ok = name[7:-2] in _FLAG_KEYS
        else:
            ok = name in self.members
        if not ok:
            self.add("probe" if _is_probe(e) else "names", e, f"cupy.ndarray has no {name}")

    def method(self, e):
        if e["name"] not in self.members:
            return self.add("names", e, f"cupy.ndarray has no method {e['name']}")
        self.arguments(e, getattr(cupy.ndarray, e["name"]), method=True)

    def member_set(self, e):
        if e["name"].startswith("flags."):
            self.add("names", e, "CuPy's flags are read-only")
        elif e["name"] != "shape":  # CuPy documents the shape setter (a reshape without copy)
            self.unverifiable.append((e, "whether CuPy lets this attribute be set"))

    def operator(self, e):
        name = e["name"]
        if name not in self.members:
            what = ("`in` falls back to iterating, one device sync per element" if name == "__contains__"
                    else "Python falls back to `a = a @ b` (not in place)" if name == "__imatmul__"
                    else "TypeError")
            return self.add("names", e, f"cupy.ndarray has no {name}: {what}")
        uf_name = _operator_ufunc(name)
        uf = resolve(f"cupy.{uf_name}") if uf_name else _ABSENT
        if uf is not _ABSENT and _is_cupy_ufunc(uf) and not ufunc_has_loop(uf, e["dtypes"]):
            self.add("ufuncs", e, f"cupy.{uf_name} (run by {name}) has no loop for these dtypes",
                     "cast the operands first")

    # -- host and device meeting -------------------------------------------------------------------
    def np_dispatch(self, e):
        path = e["name"].split(".")
        cupy_name = "cupy." + ".".join(path[1:])
        obj = resolve(cupy_name)
        if obj is _ABSENT:
            return self.add("host", e, f"a NumPy function on a device array: CuPy has no {cupy_name}, so NumPy "
                                       "raises TypeError", f"call xp.{path[-1]}'s equivalent")
        if len(path) == 2 and _is_cupy_ufunc(obj) and not _names_numpy(e):
            return  # `np_scalar <op> array`: NumPy hands it to CuPy's ufunc, as an operator would
        self.add("bypass", e, f"a NumPy function on a device array (CuPy dispatches it to {cupy_name})",
                 f"call it through the array module: xp.{'.'.join(path[1:])}")
        self.arguments(dict(e, name=cupy_name), obj)

    def host_array(self, e):
        self.add("host", e, "a host NumPy array among the operands of device compute (CuPy raises TypeError)",
                 "make it with the array module (xp.asarray)")

    def sequence_operand(self, e):
        self.add("host", e, "a Python list/tuple as a ufunc operand (CuPy's ufuncs raise TypeError)",
                 "xp.asarray(...) it first")

    def implicit_conversion(self, e):
        self.add("host", e, "a device array turned into a NumPy array implicitly (CuPy raises TypeError)",
                 "copy to the host explicitly (backend.to_host / .get())")


def check(rec):
    """(findings, unverifiable notes) for a recording."""
    return Checker().run(rec.events)


def library_ops():
    """Every `forward`/`backward` in minitorch/ whose own body touches arrays (`._data`, `xp`), as
    {(file, qualified name)}."""
    ops = set()
    for path in sorted(LIB.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()

        def visit(node, qual):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                    name = f"{qual}.{child.name}" if qual else child.name
                    if isinstance(child, ast.FunctionDef) and child.name in ("forward", "backward") and any(
                            (isinstance(n, ast.Attribute) and n.attr in ("_data", "xp"))
                            or (isinstance(n, ast.Name) and n.id == "xp") for n in ast.walk(child)):
                        ops.add((rel, name))
                    visit(child, name + (".<locals>" if isinstance(child, ast.FunctionDef) else ""))
        visit(ast.parse(path.read_text()), "")
    return ops


def _names(rec, *kinds):
    return sorted({e["name"] for e in rec.events if e["kind"] in kinds})


def report(rec, found, unverifiable):
    """The check's summary: what it covered, what it found, what it could not verify."""
    ops = library_ops()
    ran = ops & {tuple(f) for f in rec.functions}
    functions, ufuncs = _names(rec, "function"), _names(rec, "ufunc")
    methods = _names(rec, "ufunc_method")
    members = sorted(set(_names(rec, "member", "method", "member_set")) | set(_names(rec, "operator")))
    out = [f"CuPy API check against CuPy {cupy.__version__}: {len(rec.modules)} test modules run on the "
           f"recording device in {rec.seconds:.0f} s ({rec.summary})",
           f"covered: {len(functions)} array-module functions, {len(_names(rec, 'attribute'))} array-module "
           f"attributes, {len(ufuncs)} ufuncs, {len(methods)} ufunc methods ({', '.join(methods) or '-'}), "
           f"{len(members)} ndarray members and operators; {len(ran)} of the {len(ops)} forward/backward "
           "methods in minitorch/ that compute on arrays ran on the device"]

    def section(title, lines):
        if lines:
            out.append(f"{title}:")
            out.extend(lines)

    serious = [f for f in found if f.test in ("names", "signature", "ufuncs", "host")]
    section("problems (failing)", grouped([f for f in serious if not known(f)]))
    section("known problems (KNOWN, not failing)", grouped([f for f in serious if known(f)]))
    stale = sorted(k for k in KNOWN if not any(
        f.event["kind"] == k[0] and f.event["name"] == k[1] and k[2] in f.problem for f in serious))
    section("KNOWN entries that match nothing any more (remove them)", [f"  {k}" for k in stale])
    section("NumPy functions reaching device arrays through CuPy's dispatch (they run, but bypass xp)",
            grouped([f for f in found if f.test == "bypass"]))
    transfers = [e for e in rec.events if e["kind"] == "host_transfer"]
    section("host data CuPy copies over implicitly (works; one transfer per call)",
            sorted({f"  {e['name']}  [{', '.join(e['sites'][:4])}]" for e in transfers}))
    probes = [e for e in rec.events if e["kind"] == "probe" and _is_probe(e)] + [
        f.event for f in found if f.test == "probe"]
    section("names CuPy lacks that the library probes for (hasattr: the other branch is taken there)",
            sorted({f"  {e['name']}  [{', '.join(e['sites'][:4])}]" for e in probes}))

    cannot = defaultdict(set)
    for e, why in unverifiable:
        cannot[why].add(e["name"])
    lines = [f"  {why}: {', '.join(sorted(names))}" for why, names in sorted(cannot.items())]
    lines.append(f"  dtype support of the {len(functions)} functions that are not ufuncs: CuPy's kernels decide "
                 "it on a GPU (ufunc loops and the scatter kernels' dtypes are checked)")
    lines.append("  argument values other than documented string options (axis ranges, shapes), and numerics")
    never = sorted(ops - ran)
    if never:
        lines.append(f"  {len(never)} forward/backward methods that compute on arrays never ran on the device (no "
                     "test reached them there): " + ", ".join(f"{f}:{q}" for f, q in never))
    section("could not verify", lines)
    if rec.failures:
        section(f"{len(rec.failures)} tests failed on the recording device (most assume the CPU: a printed "
                "device, memory shared with NumPy); the first ones", [f"  {ln}" for ln in rec.failures[:15]])
    return "\n".join(out)


@pytest.fixture(scope="module")
def checked(recorded):
    found, unverifiable = check(recorded)
    text = report(recorded, found, unverifiable)
    print(text)
    if os.environ.get("MINITORCH_CUPY_REPORT"):
        Path(os.environ["MINITORCH_CUPY_REPORT"]).write_text(text + "\n")
    start = text.find("could not verify:")
    warnings.warn(UserWarning("CuPy API check, " + (text[start:] if start >= 0 else "everything verified")))
    return found, unverifiable


def grouped(findings):
    """One line per (call, problem): the dtype and argument variants of a call merged, sites joined."""
    groups = {}
    for f in findings:
        g = groups.setdefault((f.key(), f.problem, f.fix), [f, [], set()])
        g[1].append(f.call())
        g[2].update(f.event["sites"])
    lines = []
    for (key, problem, fix), (first, calls, sites) in groups.items():
        forms = sorted(set(calls))
        more = f" (and {len(forms) - 1} more argument/dtype forms)" if len(forms) > 1 else ""
        where = ", ".join(sorted(sites)[:4]) + (f", +{len(sites) - 4}" if len(sites) > 4 else "")
        fix = known(first) or fix
        lines.append(f"  {forms[0]}{more}: {problem}" + (f"; fix: {fix}" if fix else "") + f"  [{where}]")
    return sorted(lines)


def _failures(checked, test):
    found, _ = checked
    mine = [f for f in found if f.test == test]
    listed = [f for f in mine if known(f)]
    if listed:
        warnings.warn(UserWarning("known GPU-path issues (KNOWN in tests/test_cupy_api.py), not failing:\n" +
                                  "\n".join(grouped(listed))))
    return grouped([f for f in mine if not known(f)])


@needs_cupy
def test_the_recording_run_reached_the_library(recorded):
    """Guard: the recording device really was used (an empty log would check nothing)."""
    kinds = defaultdict(set)
    for e in recorded.events:
        kinds[e["kind"]].add(e["name"])
    assert len(kinds["function"]) >= 20 and len(kinds["ufunc"]) >= 10 and len(kinds["member"]) >= 10, dict(kinds)
    sites = {s.split(":")[0] for e in recorded.events for s in e["sites"]}
    for part in ("minitorch/_ops/", "minitorch/nn/", "minitorch/autograd/"):
        assert any(s.startswith(part) for s in sites), f"nothing recorded from {part}"


@needs_cupy
def test_cupy_has_every_name_the_library_uses(checked):
    bad = _failures(checked, "names")
    assert not bad, "names CuPy lacks (each breaks on a GPU):\n" + "\n".join(bad)


@needs_cupy
def test_our_arguments_bind_to_cupys_signatures(checked):
    bad = _failures(checked, "signature")
    assert not bad, "calls CuPy's signatures refuse:\n" + "\n".join(bad)


@needs_cupy
def test_ufunc_loops_and_methods_are_ones_cupy_runs(checked):
    bad = _failures(checked, "ufuncs")
    assert not bad, "ufunc calls CuPy cannot run:\n" + "\n".join(bad)


@needs_cupy
def test_no_host_array_meets_device_compute(checked):
    bad = _failures(checked, "host")
    assert not bad, "host arrays in device compute:\n" + "\n".join(bad)


# ---- the checker and the recorder, on events made up to fail ------------------------------------

def _event(kind, name, npos=None, kw=(), dtypes=None, values=None, sites=("minitorch/x.py:1",)):
    return {"kind": kind, "name": name, "npos": npos, "kw": list(kw), "dtypes": dtypes, "values": values,
            "count": 1, "sites": list(sites)}


@needs_cupy
@pytest.mark.parametrize("event, test, phrase", [
    (_event("function", "cupy.no_such_function", 1), "names", "CuPy has no cupy.no_such_function"),
    (_event("function", "cupy.take_along_axis", 2), "signature", "missing a required argument: 'axis'"),
    (_event("function", "cupy.indices", 1, ["sparse"]), "signature", "unexpected keyword argument 'sparse'"),
    (_event("ufunc", "cupy.add", 2, ["where"]), "signature", "unexpected keyword argument 'where'"),
    (_event("ufunc", "cupy.invert", 1, dtypes=["f"]), "ufuncs", "no loop"),
    (_event("ufunc_method", "cupy.multiply.at", 3, dtypes=["d"]), "ufuncs", "NotImplementedError"),
    (_event("ufunc_method", "cupy.add.at", 3, dtypes=["b"]), "ufuncs", "TypeError for int8"),
    (_event("ufunc_method", "cupy.maximum.reduce", 1, dtypes=["f"]), "ufuncs", "NotImplementedError"),
    (_event("method", "max", 0, ["axis", "initial"]), "signature", "'initial'"),
    (_event("method", "sort", 0, ["kind"], values=[["kind", "quicksort"]]), "signature", "'quicksort'"),
    (_event("member", "ctypes"), "names", "no ctypes"),
    (_event("member", "flags.writeable"), "names", "no flags.writeable"),
    (_event("member_set", "flags.writeable"), "names", "read-only"),
    (_event("operator", "__index__", dtypes=["l"]), "names", "no __index__"),
    (_event("operator", "__invert__", dtypes=["f"]), "ufuncs", "no loop"),
    (_event("host_array", "cupy.add"), "host", "host NumPy array"),
    (_event("implicit_conversion", "__array__"), "host", "implicitly"),
    (_event("np_dispatch", "numpy.lib.no_such_thing", 1), "host", "CuPy has no"),
])
def test_the_check_finds_what_breaks_on_a_gpu(event, test, phrase):
    found, _ = check(Recording([event], [], [], 0, "", []))
    assert any(f.test == test and phrase in f.problem for f in found), [(f.test, f.problem) for f in found]


@needs_cupy
@pytest.mark.parametrize("event", [
    _event("function", "cupy.take_along_axis", 2, ["axis"]),
    _event("ufunc", "cupy.add", 2, ["out", "casting"], dtypes=["f", None], values=[["casting", "unsafe"]]),
    _event("ufunc_method", "cupy.add.at", 3, dtypes=["f"]),
    _event("method", "reshape", 1, ["order"], values=[["order", "A"]]),
    _event("method", "sum", 0, ["axis", "keepdims"]),
    _event("member", "flags.c_contiguous"),
    _event("operator", "__add__", dtypes=["f", "f"]),
])
def test_the_check_passes_what_cupy_runs(event):
    found, _ = check(Recording([event], [], [], 0, "", []))
    assert not found, [(f.test, f.problem) for f in found]


@needs_cupy
def test_the_recording_device_records_library_calls_and_behaves_as_cupy():
    import minitorch
    import _recording_backend as rb
    dev = rb.register()
    try:
        before = dict(rb.LOG.events)
        t = minitorch.ones(2, 3, device=dev)
        out = (t.exp() * 2).sum(dim=1)
        assert isinstance(out._data, rb.DeviceArray) and not isinstance(out._data, np.ndarray)
        assert out.device == dev and out.cpu().tolist() == pytest.approx([6 * np.e] * 2)
        new = {(k[0], k[1]) for k in rb.LOG.events if k not in before}
        assert ("ufunc", "cupy.exp") in new and ("method", "sum") in new, new
        with pytest.raises(AttributeError):  # CuPy's arrays have no ctypes: neither has the stand-in
            rb.XP.no_such_function_in_cupy  # noqa: B018 (from a test: NumPy's behaviour, so not cupy's)
    finally:
        rb.unregister()


# ---- the library's own calls into CuPy (minitorch/cuda/, cupyx kernels), read from the source -----

def scan_cupy_references(sources=None):
    """Every `cupy.x.y(...)` / `cupyx.x(...)` / `cp.x(...)` in minitorch/ (cp is the name minitorch/cuda/ gives
    the cupy module): (file, line, dotted name in cupy, positional count or None, keyword names,
    attribute used on the call's result or None)."""
    if sources is None:
        sources = {p.relative_to(ROOT).as_posix(): p.read_text() for p in sorted(LIB.rglob("*.py"))}
    found = []
    for rel, text in sources.items():
        tree = ast.parse(text, filename=rel)
        roots = {"cp": "cupy", "cupy": "cupy"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] in ("cupy", "cupyx"):
                        roots[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        if not any(isinstance(n, ast.Name) and n.id in roots for n in ast.walk(tree)):
            continue
        parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or isinstance(parents.get(id(node)), ast.Attribute):
                continue
            parts, base = [], node
            while isinstance(base, ast.Attribute):
                parts.append(base.attr)
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in roots):
                continue
            name = ".".join([roots[base.id]] + parts[::-1])
            call = parents.get(id(node))
            if isinstance(call, ast.Call) and call.func is node:
                after = parents.get(id(call))
                attr = after.attr if isinstance(after, ast.Attribute) and after.value is call else None
                found.append((rel, node.lineno, name, len(call.args), tuple(k.arg for k in call.keywords), attr))
            else:
                found.append((rel, node.lineno, name, None, (), None))
    return found


@needs_cupy
def test_the_librarys_own_cupy_calls_exist_with_our_arguments():
    """minitorch/cuda/ and the cupyx kernels are called only on a real GPU: read from the source."""
    refs = scan_cupy_references()
    assert any(r[2].startswith("cupy.cuda.") for r in refs), "the scan found none of minitorch/cuda/'s calls"
    bad = []
    for rel, line, name, npos, kw, attr in refs:
        obj = resolve(name)
        if obj is _ABSENT:
            bad.append(f"  {rel}:{line}: CuPy has no {name}")
            continue
        if npos is not None and stub_or_delegate(obj) is None:
            sig, how = cupy_signature(obj)
            problem = bind(sig, npos, kw)[0] if sig is not None else None
            if problem:
                bad.append(f"  {rel}:{line}: {name}(<{npos} positional>, {', '.join(kw)}) {problem}")
        if attr is not None and isinstance(obj, type) and not hasattr(obj, attr):
            bad.append(f"  {rel}:{line}: {name}(...) has no .{attr}")
    assert not bad, "the library's direct CuPy calls CuPy refuses:\n" + "\n".join(bad)


def test_the_cupy_scan_reads_calls_and_results():
    src = ("import cupyx\ndef f(cp, a):\n    cupyx.scatter_add(a, 0, 1)\n    cp.cuda.Device(0).use()\n"
           "    return cp.float32\n")
    refs = {r[2:] for r in scan_cupy_references({"m.py": src})}
    assert refs == {("cupyx.scatter_add", 3, (), None), ("cupy.cuda.Device", 1, (), "use"),
                    ("cupy.float32", None, (), None)}
