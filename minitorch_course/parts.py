"""Your minitorch: the functions you wrote in the exercises, plugged into the library.

    from minitorch_course import use_mine, mine
    mine()              # which parts of minitorch are yours, which still the library's
    use_mine()          # from now on minitorch computes with every part you have saved
    with use_mine("im2col"):   # or: only these parts, for one block
        ...

A part is a mechanism you write in exercises 03-16 (the strides of a view, the order of the
backward pass, an optimizer's step, ...). When its check() passes, the source of your function
(and of the helpers, imports and constants it uses) is saved with your progress (progress.py:
~/.minitorch/progress.json, exported and imported with it); a later passing check replaces it,
a failing one never does. use_mine() runs that saved source and plugs it into minitorch's hook
for it (minitorch/parts.py lists them all). Your functions are written on plain Python values;
the adapters here turn each into what its hook needs:

- stride, slice and shape parts are called as they are, on tuples of ints;
- version_check builds your SavedValue around a stand-in tensor with a version, moves the
  version as the in-place writes did, and asks unpack() whether it refuses;
- local_backward, sgd_step and adam_step run your formula on whole NumPy arrays (your `math`
  then acts elementwise: math.exp is np.exp); a formula that cannot (an `if x > 0:`) runs
  element by element instead (correct, and slower: the CNN of lesson 15 then takes ~20 s);
- topo_order gets the graph of nodes with names n00000, n00001, ... and its order is the order
  in which the engine runs them;
- im2col unfolds an image of positions once per shape, and the positions it returns are the
  ones the convolution reads;
- unbroadcast, reduce_backward, matmul_backward, view_backward and embedding_grad get nested
  lists (.tolist()) and their results become arrays; view_backward is asked with your
  exercise's arguments (a permute that swaps two dims as a transpose, a squeeze with the dims
  it removed).
"""
from __future__ import annotations

import ast
import builtins
import datetime as _dt
import html
import inspect
import linecache
import math
import sys
import textwrap
import types
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import progress


# ---- the parts ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Part:
    name: str          # the hook's name in minitorch.parts
    exercise: str
    question: str
    function: str      # the function you write
    what: str          # where minitorch computes with it
    adapt: Callable    # your function -> the hook


def _xp_of(a):
    return sys.modules[type(a).__module__.split(".")[0]]


def _host(a):
    """A NumPy array of a NumPy or CuPy array (element-by-element code runs on the host)."""
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _ints(t):
    return tuple(int(v) for v in t)


def _plain(fn):
    return fn


def _tuple_result(fn):
    return lambda *args: _ints(fn(*args))


def _optional_tuple(fn):
    def hook(*args):
        out = fn(*args)
        return None if out is None else _ints(out)
    return hook


def _transpose(fn):
    def hook(shape, strides, dim0, dim1):
        s, st = fn(tuple(shape), tuple(strides), dim0, dim1)
        return _ints(s), _ints(st)
    return hook


def _slice(fn):
    def hook(shape, strides, offset, dim, start, stop, step):
        s, st, off = fn(tuple(shape), tuple(strides), offset, dim, start, stop, step)
        return _ints(s), _ints(st), int(off)
    return hook


def _topo(fn):
    def hook(graph):
        names = {node: f"n{i:05d}" for i, node in enumerate(graph)}
        nodes = {v: k for k, v in names.items()}
        order = fn({names[n]: [names[x] for x in inputs] for n, inputs in graph.items()})
        return [nodes[name] for name in order]
    return hook


class _Versioned:
    """What a SavedValue keeps: a tensor with a version counter."""

    def __init__(self, version):
        self.version = version


def _version_check(cls):
    def hook(saved_version, current_version):
        t = _Versioned(saved_version)
        kept = cls(t)                 # saved at this version
        t.version = current_version   # in-place writes since
        try:
            kept.unpack()
        except RuntimeError:
            return True               # your SavedValue refused it: modified
        return False
    return hook


# ops that keep their output y, not their input x: x from y (relu's output has x's sign, enough)
_INVERSE = {"tanh": np.arctanh, "sigmoid": lambda y: np.log(y) - np.log1p(-y), "exp": np.log}


def _local_backward(fn):
    array_fn = _array_version(fn)

    def hook(op, inputs, grad, needs):
        T = type(grad)
        xs = [x._data if isinstance(x, T) else (0.0 if x is None else x) for x in inputs]
        g = grad._data
        xp = _xp_of(g)
        with np.errstate(all="ignore"):
            if op in _INVERSE:  # the op kept its output; the formula takes the input
                xs = [_INVERSE[op](xs[0])]
            try:
                out = tuple(array_fn(op, tuple(xs), g))
                shape = np.broadcast_shapes(g.shape, *(np.shape(x) for x in xs))
                out = [xp.broadcast_to(xp.asarray(o), shape) for o in out]
            except Exception:  # noqa: BLE001 - a formula written for one number at a time
                each = np.frompyfunc(lambda *v: tuple(fn(op, tuple(float(a) for a in v[:-1]), float(v[-1]))),
                                     len(xs) + 1, 1)
                pairs = each(*(_host(x) if hasattr(x, "shape") else x for x in xs), _host(g))
                out = [np.vectorize(lambda p, k=k: p[k], otypes=[float])(pairs) for k in range(len(xs))]
        return tuple(T._make(xp.asarray(o, dtype=g.dtype), grad._device) if need else None
                     for o, need in zip(out, needs))
    return hook


def _unbroadcast(fn):
    def hook(grad, shape):
        return _xp_of(grad).asarray(fn(grad.tolist(), tuple(shape)), dtype=grad.dtype).reshape(shape)
    return hook


def _reduce_backward(fn):
    def hook(op, grad, shape, dims, keepdim):
        g = grad._data
        out = fn(op, g.tolist(), tuple(shape), tuple(sorted(dims)), bool(keepdim))
        return grad._make(_xp_of(g).asarray(out, dtype=g.dtype).reshape(shape), grad._device)
    return hook


def _matmul_backward(fn):
    def hook(a, b, grad, needs):
        g = grad._data
        xp = _xp_of(g)
        ga, gb = fn(a._data.tolist(), b._data.tolist(), g.tolist())
        return tuple(grad._make(xp.asarray(out, dtype=g.dtype).reshape(x.shape), grad._device) if need else None
                     for out, x, need in zip((ga, gb), (a, b), needs))
    return hook


def _squeezed_dims(shape, new_shape):
    """The dims of `shape` that a squeeze to `new_shape` removed (size-1 dims; any consistent choice)."""
    dims, j = [], 0
    for d, n in enumerate(shape):
        if j < len(new_shape) and new_shape[j] == n:
            j += 1
        else:
            dims.append(d)
    return tuple(dims)


def _view_backward(fn):
    def hook(op, args, shape, grad):
        shape = _ints(shape)
        if op == "permute":
            moved = [i for i, d in enumerate(args[0]) if d != i]
            op, args = ("transpose", tuple(moved)) if len(moved) == 2 else (op, (_ints(args[0]),))
        elif op == "squeeze":
            args = (_squeezed_dims(shape, tuple(args[0])),)
        g = grad._data
        out = fn(op, args, shape, g.tolist())
        return grad._make(_xp_of(g).asarray(out, dtype=g.dtype).reshape(shape), grad._device)
    return hook


def _library_step(opt, closure, hook):
    """The library's own step (for options a part does not have: nesterov, amsgrad, ...)."""
    from minitorch import parts
    saved = getattr(parts, hook)
    setattr(parts, hook, None)
    try:
        return opt.step(closure)
    finally:
        setattr(parts, hook, saved)


def _call_on_arrays(fn, array_fn, params, grads, state, **kw):
    """Your step on whole arrays; where it cannot, on the flat list of every element."""
    xp = _xp_of(params[0])
    try:
        new, st = array_fn(params, grads, state, **kw)
        new = [xp.broadcast_to(xp.asarray(n, dtype=p.dtype), p.shape) for n, p in zip(new, params)]
        if len(new) == len(params):
            return new, st
    except Exception:  # noqa: BLE001 - a step written for floats: run it on floats
        pass
    sizes = [p.size for p in params]

    def flat(arrays):
        return np.concatenate([_host(a).astype(np.float64).ravel() for a in arrays]).tolist()

    def split(values):
        out, at = [], 0
        for p, n in zip(params, sizes):
            out.append(xp.asarray(values[at:at + n], dtype=p.dtype).reshape(p.shape))
            at += n
        return out

    if isinstance(state, dict):
        state = {k: flat(v) if isinstance(v, list) else v for k, v in state.items()}
    elif state is not None:
        state = flat(state)
    new, st = fn(flat(params), flat(grads), state, **kw)
    if isinstance(st, dict):
        st = {k: split(v) if isinstance(v, list) else v for k, v in st.items()}
    elif st is not None:
        st = split(st)
    return split(new), st


def _write(p, value):
    p._data[...] = value
    p._storage.version += 1


def _sgd(fn):
    array_fn = _array_version(fn)

    def hook(opt, closure):
        if any(g["dampening"] or g["nesterov"] or g["maximize"] for g in opt.param_groups):
            return _library_step(opt, closure, "sgd_step")
        from minitorch import Tensor, no_grad
        loss = opt._closure_loss(closure)
        with no_grad():
            for group in opt.param_groups:
                ps = [p for p in group["params"] if p.grad is not None]
                if not ps:
                    continue
                bufs = [opt.state[p].get("momentum_buffer") for p in ps]
                state = None if any(b is None for b in bufs) else [b._data for b in bufs]
                new, st = _call_on_arrays(fn, array_fn, [p._data for p in ps], [p.grad._data for p in ps], state,
                                          lr=group["lr"], momentum=group["momentum"],
                                          weight_decay=group["weight_decay"])
                for i, p in enumerate(ps):
                    _write(p, new[i])
                    if st is not None:
                        opt.state[p]["momentum_buffer"] = Tensor._make(
                            _xp_of(p._data).array(st[i], dtype=p._data.dtype), p._device)
        return loss
    return hook


def _adam(fn):
    array_fn = _array_version(fn)

    def hook(opt, closure):
        if any(g["amsgrad"] or g["maximize"] or g["decoupled_weight_decay"] for g in opt.param_groups):
            return _library_step(opt, closure, "adam_step")
        from minitorch import Tensor, no_grad
        loss = opt._closure_loss(closure)
        with no_grad():
            for group in opt.param_groups:
                ps = [p for p in group["params"] if p.grad is not None]
                if not ps:
                    continue
                states = [opt.state[p] for p in ps]
                state = None
                if all(states):
                    step = states[0]["step"]
                    state = {"step": int(step.item() if hasattr(step, "item") else step),
                             "exp_avg": [s["exp_avg"]._data for s in states],
                             "exp_avg_sq": [s["exp_avg_sq"]._data for s in states]}
                new, st = _call_on_arrays(fn, array_fn, [p._data for p in ps], [p.grad._data for p in ps], state,
                                          lr=group["lr"], betas=tuple(group["betas"]), eps=group["eps"],
                                          weight_decay=group["weight_decay"])
                for i, p in enumerate(ps):
                    _write(p, new[i])
                    xp, dt = _xp_of(p._data), p._data.dtype
                    opt.state[p].update(step=int(st["step"]),
                                        exp_avg=Tensor._make(xp.array(st["exp_avg"][i], dtype=dt), p._device),
                                        exp_avg_sq=Tensor._make(xp.array(st["exp_avg_sq"][i], dtype=dt), p._device))
        return loss
    return hook


def _im2col(fn):
    positions = {}  # (C, H, W, kernel, stride, padding) -> where each column entry reads from

    def hook(xp, x, kernel, stride, padding):
        n, c, h, w = x.shape
        key = (c, h, w, kernel, stride, padding)
        if key not in positions:
            # an image whose pixels are their own positions (1, 2, ...; 0 is "outside")
            image = (np.arange(c * h * w, dtype=np.float64) + 1).reshape(c, h, w).tolist()
            rows = np.asarray(fn(image, kernel, stride, padding), dtype=np.float64)
            positions[key] = xp.asarray(np.rint(rows).astype(np.int64))
        flat = xp.concatenate([xp.zeros((n, 1), dtype=x.dtype), x.reshape(n, c * h * w)], axis=1)
        return flat[:, positions[key]]
    return hook


def _embedding_grad(fn):
    def hook(xp, ids, grad, num, padding_idx):
        out = fn(ids.tolist(), grad.tolist(), num, padding_idx)
        return xp.asarray(out, dtype=grad.dtype).reshape(num, grad.shape[-1])
    return hook


PARTS = (
    Part("contiguous_strides", "03_strides", "q1", "contiguous_strides", "a view of a contiguous tensor", _tuple_result),
    Part("is_contiguous", "03_strides", "q3", "is_contiguous", "Tensor.is_contiguous()", _plain),
    Part("broadcast_shapes", "04_broadcasting", "q1", "broadcast_shapes", "broadcast_shapes, broadcast_tensors",
         _tuple_result),
    Part("expand_strides", "04_broadcasting", "q2", "expand_strides", "Tensor.expand()", _tuple_result),
    Part("transpose_strides", "05_views", "q1", "transpose_strides", "Tensor.transpose()", _transpose),
    Part("slice_view", "05_views", "q2", "slice_view", "slicing: t[a:b, ::c]", _slice),
    Part("view_strides", "05_views", "q3", "view_strides", "Tensor.view() of a strided tensor", _optional_tuple),
    Part("version_check", "06_inplace_version", "q2", "SavedValue", "the in-place check of saved tensors",
         _version_check),
    Part("topo_order", "09_topological_sort", "q1", "topo_order", "the order of backward()", _topo),
    Part("local_backward", "10_backward_formulas", "q1", "local_backward",
         "backward of 11 pointwise ops", _local_backward),
    Part("unbroadcast", "10_backward_formulas", "q2", "unbroadcast", "a broadcast input's gradient", _unbroadcast),
    Part("reduce_backward", "10_backward_formulas", "q3", "reduce_backward", "backward of sum and mean",
         _reduce_backward),
    Part("matmul_backward", "10_backward_formulas", "q4", "matmul_backward", "backward of @ and nn.Linear",
         _matmul_backward),
    Part("view_backward", "10_backward_formulas", "q5", "view_backward",
         "backward of view, permute, expand, squeeze", _view_backward),
    Part("sgd_step", "13_optimizer_steps", "q1", "sgd_step", "optim.SGD.step()", _sgd),
    Part("adam_step", "13_optimizer_steps", "q2", "adam_step", "optim.Adam.step()", _adam),
    Part("im2col", "15_im2col", "q2", "im2col", "nn.Conv2d's unfolding", _im2col),
    Part("embedding_grad", "16_embedding", "q2", "embedding_grad", "nn.Embedding's backward", _embedding_grad),
)
BY_NAME = {p.name: p for p in PARTS}
BY_QUESTION = {(p.exercise, p.question): p for p in PARTS}
# exercise 19 assembles the function parts again (a class graded through drivers stays in its exercise)
ASSEMBLED = tuple(p for p in PARTS if p.name != "version_check")
BY_QUESTION.update({("19_your_minitorch", f"q{i}"): p for i, p in enumerate(ASSEMBLED, start=1)})


# ---- saving your source ------------------------------------------------------------------------
def _global_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _literal(value):
    try:
        text = repr(value)
        return text if ast.literal_eval(text) == value else None
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return None


def _codes(obj):
    """The code objects of a function, or of a class's methods and properties."""
    if isinstance(obj, types.FunctionType):
        return [obj.__code__]
    out = []
    for member in vars(obj).values():
        f = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        if isinstance(f, types.FunctionType):
            out.append(f.__code__)
    return out


def _globals_of(obj):
    if isinstance(obj, types.FunctionType):
        return obj.__globals__
    return next((c.__globals__ for c in vars(obj).values() if isinstance(c, types.FunctionType)),
                vars(sys.modules.get(obj.__module__, types)))


def _source(obj) -> str:
    """The source of a function or class. A class defined in a notebook cell has no file that
    inspect can read: it is found in the cell its methods were compiled from."""
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):
        pass
    for code in _codes(obj) if inspect.isclass(obj) else ():
        text = "".join(linecache.getlines(code.co_filename))
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.ClassDef) and node.name == obj.__name__
                    and node.lineno <= code.co_firstlineno <= node.end_lineno):
                return textwrap.dedent(ast.get_source_segment(text, node, padded=True)) + "\n"
    raise ValueError(f"the source of {obj.__name__} is not available")


def source_of(fn) -> str:
    """fn's source (a function, or a class) with what it needs from its notebook: the imports,
    constants and helper functions and classes it names (each one's own needs too). ValueError
    where a source is not found."""
    g = _globals_of(fn)
    imports, consts, defs, seen = [], [], [], set()

    def visit(f):
        if f in seen:
            return
        seen.add(f)
        names = set()
        for code in _codes(f):
            names |= _global_names(code)
        for name in sorted(names):
            if name not in g:
                continue  # a builtin, or an attribute name
            value = g[name]
            if isinstance(value, types.ModuleType):
                line = (f"import {value.__name__}" if value.__name__ == name
                        else f"import {value.__name__} as {name}")
                if line not in imports:
                    imports.append(line)
            elif isinstance(value, types.FunctionType) and value.__globals__ is g:
                visit(value)
            elif inspect.isclass(value) and getattr(value, "__module__", None) == g.get("__name__"):
                visit(value)
            elif not callable(value) and getattr(builtins, name, None) is not value:
                text = _literal(value)
                if text is not None and f"{name} = {text}" not in consts:
                    consts.append(f"{name} = {text}")
        defs.append(_source(f))
        defs.append("")

    visit(fn)
    return "\n".join(imports + consts + [""] + defs).strip() + "\n"


def _store():
    data = progress.load()
    parts = data.get("parts")
    return data, parts if isinstance(parts, dict) else {}


def save(part_name: str, source: str, origin="check"):
    """Keep `source` (it defines the part's function) as your part `part_name`."""
    part = BY_NAME[part_name]
    compile_part(part, source)  # a source that does not define the function is never saved
    data, parts = _store()
    parts[part_name] = {"exercise": part.exercise, "question": part.question, "function": part.function,
                        "source": source, "origin": origin,
                        "saved": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()}
    data["parts"] = parts
    progress._save(data)


def save_on_pass(exercise: str, question: str, fn):
    """Called by check() when a question passes: save fn as that question's part, if it is one.
    Never raises: a part that cannot be saved leaves the check's verdict as it is."""
    part = BY_QUESTION.get((exercise, question))
    if part is None or not isinstance(fn, types.FunctionType):
        return None
    if fn.__name__ != part.function:  # a driver ran it: the part is the class it drives
        fn = fn.__globals__.get(part.function)
        if not inspect.isclass(fn):
            return None
    try:
        save(part.name, source_of(fn))
    except Exception as e:  # noqa: BLE001
        if _in_notebook():  # (a script's function built at run time has no source to save: nothing to say)
            warnings.warn(f"{part.function} passed, but could not be saved as your part {part.name}: {e}",
                          stacklevel=3)
        return None
    return part.name


def _in_notebook():
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


def saved_source(part_name: str) -> str:
    """The source saved for one of your parts ("" when none is saved yet)."""
    if part_name not in BY_NAME:
        raise ValueError(f"no part named {part_name!r}; the parts are: {', '.join(BY_NAME)}")
    return saved().get(part_name, {}).get("source", "")


def saved_functions():
    """({part: your function} of every saved part, {part: why its saved source does not run})."""
    functions, broken = {}, {}
    for name, record in saved().items():
        if name not in BY_NAME:
            continue
        try:
            functions[name] = compile_part(BY_NAME[name], record["source"])
        except Exception as e:  # noqa: BLE001 - a saved source that no longer runs
            broken[name] = f"its saved source does not run: {type(e).__name__}: {e}"
    return functions, broken


def saved() -> dict:
    """{part name: its record} of the parts you have saved."""
    return dict(_store()[1])


def forget(part_name=None):
    """Drop one saved part (or all): minitorch goes back to the library's code for it."""
    data, parts = _store()
    if part_name is None:
        parts = {}
    else:
        parts.pop(part_name, None)
    data["parts"] = parts
    progress._save(data)


def compile_part(part: Part, source: str, array_math=False):
    """Run a part's source in a namespace of its own; its function. array_math: with `math`
    acting elementwise on arrays (the adapters run your formulas on whole arrays)."""
    filename = f"<your {part.name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = {"__name__": f"minitorch_course.parts.{part.name}"}
    exec(compile(source, filename, "exec"), ns)  # noqa: S102 - your own code, in your own process
    fn = ns.get(part.function)
    if not callable(fn):
        raise ValueError(f"the saved source of {part.name} does not define {part.function}")
    if array_math:
        for k, v in list(ns.items()):
            if v is math:
                ns[k] = ARRAY_MATH
    return fn


class _ArrayMath(types.ModuleType):
    """math, with the functions a formula uses acting elementwise on NumPy arrays."""

    def __init__(self):
        super().__init__("math")
        for name in ("exp", "tanh", "sqrt", "sin", "cos", "tan", "log1p", "expm1", "log2", "log10",
                     "sinh", "cosh", "floor", "ceil", "isnan", "isinf"):
            setattr(self, name, getattr(np, name))
        self.asin, self.acos, self.atan = np.arcsin, np.arccos, np.arctan
        self.fabs, self.pow = np.abs, np.power

    @staticmethod
    def log(x, base=None):
        return np.log(x) if base is None else np.log(x) / np.log(base)

    def __getattr__(self, name):
        return getattr(math, name)


ARRAY_MATH = _ArrayMath()


def _array_version(fn):
    """The same function, its `math` acting elementwise on arrays (a separate copy of its globals)."""
    own = fn.__globals__
    g = dict(own)
    for k, v in list(g.items()):
        if v is math:
            g[k] = ARRAY_MATH
        elif isinstance(v, types.FunctionType) and v.__globals__ is own:  # its helpers too
            g[k] = types.FunctionType(v.__code__, g, v.__name__, v.__defaults__, v.__closure__)
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


# ---- using them --------------------------------------------------------------------------------
class Mine:
    """The parts plugged in by use_mine(); `with use_mine(): ...` unplugs them at the end."""

    def __init__(self, plugged, before, problems):
        self.plugged, self._before, self.problems = plugged, before, problems

    def restore(self):
        from minitorch import parts
        for name, fn in self._before.items():
            setattr(parts, name, fn)
        self._before = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.restore()

    def __repr__(self):
        lines = [f"minitorch now runs on {len(self.plugged)} part(s) of yours: {', '.join(self.plugged) or 'none'}"]
        unsaved = [p.split(":")[0] for p in self.problems if "not saved yet" in p]
        if unsaved:
            lines.append(f"  still the library's (not saved yet): {', '.join(unsaved)}")
        lines += [f"  not plugged in: {p}" for p in self.problems if "not saved yet" not in p]
        return "\n".join(lines)


def use_mine(*names, functions=None) -> Mine:
    """Plug your saved parts into minitorch (all of them, or those named). functions: {part
    name: function} to plug in instead of the saved ones (e.g. the functions of a notebook)."""
    from minitorch import parts
    unknown = [n for n in [*names, *(functions or {})] if n not in BY_NAME]
    if unknown:
        raise ValueError(f"no part named {unknown[0]!r}; the parts are: {', '.join(BY_NAME)}")
    found, problems = {}, []
    if functions is not None:
        found = {n: fn for n, fn in functions.items() if not names or n in names}
    else:
        records = saved()
        for name in names or BY_NAME:
            part, record = BY_NAME[name], records.get(name)
            if record is None:
                problems.append(f"{name}: not saved yet ({part.exercise} {part.question})")
                continue
            try:
                found[name] = compile_part(part, record["source"])
            except Exception as e:  # noqa: BLE001 - a saved source that no longer runs
                problems.append(f"{name}: its saved source does not run: {type(e).__name__}: {e}")
    before = {}
    for name, fn in found.items():
        before[name] = getattr(parts, name)
        setattr(parts, name, BY_NAME[name].adapt(fn))
    return Mine(list(found), before, problems)


def use_library():
    """Unplug every part: minitorch runs on its own code again."""
    from minitorch import parts
    for name in parts.HOOKS:
        setattr(parts, name, None)


class PartsTable:
    def __init__(self, rows):
        self.rows = rows

    def __repr__(self):
        w0, w1, w2 = (max(len(r[k]) for r in self.rows) for k in range(3))
        return "\n".join(f"{'✔' if r[3] else '·'} {r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]:<{w2}}  {r[4]}" for r in self.rows)

    def _repr_html_(self):
        body = "".join(
            f"<tr><td>{'✔' if mine_ else '·'}</td><td><code>{html.escape(n)}</code></td><td>{html.escape(where)}</td>"
            f"<td>{html.escape(q)}</td><td>{html.escape(state)}</td></tr>"
            for n, where, q, mine_, state in self.rows)
        return ("<table><tr><th></th><th>part</th><th>where minitorch uses it</th><th>exercise</th>"
                f"<th>now</th></tr>{body}</table>")


def mine() -> PartsTable:
    """Which parts of minitorch are yours (saved, and plugged in or not) and which the library's."""
    from minitorch import parts
    records = saved()
    rows = []
    for p in PARTS:
        in_use = getattr(parts, p.name) is not None
        state = ("yours, in use" if in_use and p.name in records else "in use" if in_use
                 else "yours, saved (use_mine() plugs it in)" if p.name in records else "the library's")
        rows.append((p.name, p.what, f"{p.exercise} {p.question}", p.name in records, state))
    return PartsTable(rows)


def save_solutions(names=None):
    """Save the instructor's solutions as your parts (for the course's own tests and demos)."""
    for part in PARTS:
        if names is None or part.name in names:
            save(part.name, solution_source(part), origin="solutions")


def solution_source(part: Part) -> str:
    """The reference source of a part: its solution cell, with the imports of its notebook."""
    from . import answers
    from .exercises import get_exercise
    ex = get_exercise(part.exercise)
    key = answers.load(ex)
    if key is None:
        raise LookupError(answers.where_they_would_be(ex.name))
    q = next(q for q in ex.questions if q.id == part.question)
    imports = [ln for ln in key.prelude.splitlines() if ln.startswith("    ") and ln.strip() != "pass"]
    return "\n".join(ln.strip() for ln in imports) + "\n\n" + key.source(q) + "\n"
