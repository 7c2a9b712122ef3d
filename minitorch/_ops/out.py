"""`out=`: the functions that take it in PyTorch (`torch.add(a, b, out=c)`) write their result
into a given tensor instead of a new one.

Each public function here is the op itself plus that write, with PyTorch's rules:
- autograd does not go through `out=`: with grad mode on, neither the output nor an input may
  require grad;
- the result's dtype must be castable to the output's (a float into an int tensor is an error),
  and ops that do not promote (matmul, the indices of max) want the output's dtype exactly;
- an output of another shape is resized, with PyTorch's deprecation warning unless it was empty;
- the output keeps its own memory layout, and its version counter moves, as for any in-place op.
The methods (`t.add(b)`) have no `out=`, as in PyTorch.
"""
from __future__ import annotations

import functools
import math

from .. import _dtype
from .._errors import hinted
from ..autograd.grad_mode import STATE
from . import common, convert, index, join, linalg, pointwise as pw, reduce as rd

_CTYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
          "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def write_out(op, result, out, exact=False, internal=False, partial_with=(), refuse_with=(), read_write=False):
    """Write `result` into `out` (a tensor, or a tuple of them for several results). `internal`: an
    out that is still expanded once resized is refused (cat, gather, ...: PyTorch checks then);
    `partial_with`: so is one that then shares part of these inputs' memory (cumsum, cumprod);
    `refuse_with`: an out sharing any memory with these inputs is refused (see _check_alias);
    `read_write`: out is one of the inputs too, which PyTorch's elementwise ops do not resize."""
    T = common.tensor_cls()
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{op}(): argument 'out' must be a tuple of {len(result)} Tensors")
        written = tuple(write_out(op, r, o, exact=exact or i > 0, refuse_with=refuse_with)
                        for i, (r, o) in enumerate(zip(result, out)))
        return _out_type(type(result))(*written) if hasattr(result, "_fields") else written
    if not isinstance(out, T):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if STATE.enabled and (out.requires_grad or result.requires_grad):
        _grad_error(op)
    if exact and result.dtype is not out.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_CTYPE[result.dtype.name]}, but got "
                           f"{_CTYPE[out.dtype.name]} instead")
    if not _dtype.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {result.dtype._short} can't be cast to the desired output type "
                           f"{out.dtype._short}")
    common.same_device(op, out, result)
    if refuse_with:
        _check_alias(op, refuse_with, out, "refuse")
    if tuple(out.shape) != tuple(result.shape):
        if read_write:
            raise RuntimeError(f"output with shape {list(out.shape)} doesn't match the broadcast shape "
                               f"{list(result.shape)}")
        _resize(out, result.shape)
    if internal and not out._data.flags.c_contiguous:
        from .inplace import check_overlap
        check_overlap(out, op)
    if partial_with:
        from .inplace import check_partial_overlap
        check_partial_overlap(out, partial_with)
    xp = out._device.xp
    with pw._fp_quiet():
        xp.copyto(out._data, result._data, casting="unsafe")
    out._storage.version += 1
    return out


def _out_type(cls):
    """The named tuple an out= call returns: PyTorch's `max_out` for `max`, ..."""
    from .. import return_types
    name = cls.__name__ + "_out"
    if not hasattr(return_types, name):
        setattr(return_types, name, return_types._return_type(name, cls._fields))
    return getattr(return_types, name)


def _grad_error(op):
    raise hinted(RuntimeError, f"{op}(): functions with out=... arguments don't support automatic differentiation, "
                 "but one of the arguments requires grad.", "compute it without out=, or under minitorch.no_grad()")


def _check_first(op, args, kw, out, same_dtype=False, promotes=False):
    """PyTorch's checks of an out= call made before the op runs (so before its own errors): no
    argument may require grad; `same_dtype` ops (abs, floor, ...) want out of the input's dtype
    exactly, and `promotes` ops (add, bitwise_and, ...) one their promoted dtype can be cast to."""
    T = common.tensor_cls()
    if STATE.enabled:  # (this module's `any` is the tensor op's: a loop instead)
        for x in (*args, *kw.values(), out):
            for t in (x if isinstance(x, (tuple, list)) else (x,)):
                if isinstance(t, T) and t.requires_grad:
                    _grad_error(op)
    if not isinstance(out, T) or not args or not isinstance(args[0], T):
        return
    if same_dtype and out.dtype is not args[0].dtype and not (op == "neg" and args[0].dtype is _dtype.bool):
        # (neg refuses a bool input first)
        raise RuntimeError(f"Found dtype {out.dtype._short} but expected {args[0].dtype._short}")
    if promotes and len(args) > 1:
        dt = common.result_dtype(args[0], args[1])
        if not _dtype.can_cast(dt, out.dtype):
            raise RuntimeError(f"result type {dt._short} can't be cast to the desired output type {out.dtype._short}")


def _resize(out, shape):
    if out.numel():
        import warnings
        warnings.warn(f"An output with one or more elements was resized since it had shape {list(out.shape)}, which "
                      f"does not match the required output shape {list(shape)}. This behavior is deprecated, and in "
                      "a future PyTorch release outputs will not be resized unless they have zero elements. You can "
                      "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                      UserWarning, stacklevel=4)
    from .views import _root_array, memory_order
    root, n = _root_array(out), math.prod(shape)
    start = out.storage_offset() if out._data.size else 0
    memory = memory_order(root)
    if memory is not None and start + n <= memory.size:  # PyTorch's resize_ keeps the memory while it is
        if out._storage.root is None and out._base is None:  # large enough: row-major from the same offset
            out._storage.root = root  # (the rest of the memory is kept, for a resize that grows back)
        out._data = memory[start:start + n].reshape(tuple(shape))
        return
    if not out._storage.resizable:  # (its memory is NumPy's too: it may shrink, not grow)
        raise RuntimeError("Trying to resize storage that is not resizable")
    out._data = out._device.xp.empty(tuple(shape), dtype=out._data.dtype)


def _tensors(xs):
    T = common.tensor_cls()
    for x in xs:
        for t in (x if isinstance(x, (tuple, list)) else (x,)):
            if isinstance(t, T):
                yield t


def _is_input(out, inputs):
    for t in _tensors(inputs):  # (this module's `any` is the tensor op's)
        if t is out:
            return True
    return False


def _shares(a, b):
    if not (a.size and b.size):
        return False
    if hasattr(a, "__array_interface__"):
        import numpy as np
        return np.shares_memory(a, b, max_work=10 ** 6)
    from .views import data_ptr
    return data_ptr(a) < data_ptr(b) + b.nbytes and data_ptr(b) < data_ptr(a) + a.nbytes


def _check_alias(op, inputs, out, alias):
    """PyTorch's memory checks of an out= tensor against the op's inputs, made before the op runs.
    "elementwise": out may not be expanded, nor share part of an input's memory (the input itself
    is fine); "join" (cat, gather, ...): out may share no memory with an input (and may be
    expanded only if it is then resized: write_out checks that, and only that for "internal",
    softmax); "select"
    (index_select, outer): not expanded, and sharing no memory where both are dense. "refuse":
    reductions and matrix products, which PyTorch runs reading an input it has half overwritten
    (a result that depends on its kernel's order): minitorch refuses any sharing, with PyTorch's
    error for the partial case."""
    from .inplace import _dense, check_overlap, partial_overlap, partial_overlap_error
    outs = list(_tensors((out,)))
    if alias in ("elementwise", "select"):
        for o in outs:
            if not o._data.flags.c_contiguous:
                check_overlap(o, op)
    for o in outs:
        for t in _tensors(inputs):
            if t._storage is not o._storage:
                continue
            if alias == "elementwise":
                shared = partial_overlap(o._data, t._data)
            elif alias == "select":
                shared = _dense(o._data) and _dense(t._data) and _shares(o._data, t._data)
            else:
                shared = _shares(o._data, t._data)
            if shared:
                raise partial_overlap_error()


def with_out(fn, name=None, exact=False, same_dtype=False, promotes=False, alias=None):
    """`fn` that also takes `out=` (`alias`: which sharing of memory between out and the inputs is
    refused, see _check_alias)."""
    op = name or fn.__name__

    @functools.wraps(fn)
    def f(*args, out=None, **kw):
        if out is None:
            return fn(*args, **kw)
        _check_first(op, args, kw, out, same_dtype, promotes)
        inputs = (*args, *kw.values())
        if alias not in (None, "refuse", "internal"):
            _check_alias(op, inputs, out, alias)
        return write_out(op, fn(*args, **kw), out, exact, internal=alias in ("join", "internal"),
                         refuse_with=inputs if alias == "refuse" else (),
                         read_write=alias == "elementwise" and _is_input(out, inputs))
    return f


def _sum_out(fn):
    @functools.wraps(fn)
    def f(input, *args, out=None, **kw):
        if out is not None and not args and kw.get("dim", kw.get("axis")) is None:
            raise TypeError("sum() received an invalid combination of arguments - got (Tensor, out=Tensor): the "
                            "out= form needs a dim, e.g. sum(a, 0, out=o)")
        return _accumulate_out(fn, "sum", input, args, kw, out)
    return f


def _accumulate_out(fn, op, input, args, kw, out):
    """sum, prod, cumsum, cumprod with out=: as in PyTorch, they accumulate in out's dtype
    (out=bool_tensor is allowed; float input into an int out is cast first)."""
    if out is None:
        return fn(input, *args, **kw)
    _check_first(op, (input, *args), kw, out)
    cumulative = op.startswith("cum")  # (PyTorch checks those once out is resized)
    if kw.get("dtype") is None:
        kw = dict(kw, dtype=out.dtype)
    result = fn(input, *args, **kw)
    return write_out(op, result, out, internal=cumulative, partial_with=(input,) if cumulative else (),
                     refuse_with=() if cumulative else (input,))


def _accumulating(fn):
    @functools.wraps(fn)
    def f(input, *args, out=None, **kw):
        return _accumulate_out(fn, fn.__name__, input, args, kw, out)
    return f


# elementwise (`promotes`: the result's dtype is the operands' promoted one; `same_dtype`: the input's)
_EW = "elementwise"
add, sub, mul = (with_out(f, promotes=True, alias=_EW) for f in (pw.add, pw.sub, pw.mul))
div, true_divide = with_out(pw.div, alias=_EW), with_out(pw.true_divide, alias=_EW)
floor_divide, remainder, fmod, pow = (with_out(f, promotes=True, alias=_EW) for f in (  # noqa: A001
    pw.floor_divide, pw.remainder, pw.fmod, pw.pow))
maximum, minimum = with_out(pw.maximum, alias=_EW), with_out(pw.minimum, alias=_EW)
clamp, _where = with_out(pw.clamp, alias=_EW), with_out(pw.where, alias=_EW)


def where(condition, input=None, other=None, *, out=None):  # noqa: A002
    if out is not None:  # (only the all-tensor overload takes out=)
        for pos, name, x in ((2, "input", input), (3, "other", other)):
            if not isinstance(x, common.tensor_cls()):
                raise TypeError(f"where(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}")
    return _where(condition, input, other, out=out)
eq, ne, lt, le, gt, ge = (with_out(f, alias=_EW) for f in (pw.eq, pw.ne, pw.lt, pw.le, pw.gt, pw.ge))
logical_and, logical_or, logical_xor, logical_not = (with_out(f, alias=_EW) for f in (
    pw.logical_and, pw.logical_or, pw.logical_xor, pw.logical_not))
bitwise_and, bitwise_or, bitwise_xor = (with_out(f, promotes=True, alias=_EW) for f in (
    pw.bitwise_and, pw.bitwise_or, pw.bitwise_xor))
bitwise_left_shift, bitwise_right_shift = (with_out(f, promotes=True, alias=_EW) for f in (
    pw.bitwise_left_shift, pw.bitwise_right_shift))
exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid = (with_out(f, alias=_EW) for f in (
    pw.exp, pw.log, pw.sqrt, pw.rsqrt, pw.sin, pw.cos, pw.tanh, pw.sigmoid))
reciprocal, square, log1p, expm1 = (with_out(f, alias=_EW) for f in (pw.reciprocal, pw.square, pw.log1p, pw.expm1))
abs, neg, sign, bitwise_not, floor, ceil, round, trunc = (  # noqa: A001
    with_out(f, same_dtype=True, alias=_EW) for f in (
    pw.abs, pw.neg, pw.sign, pw.bitwise_not, pw.floor, pw.ceil, pw.round, pw.trunc))
clamp_min, clamp_max = with_out(pw.clamp_min, alias=_EW), with_out(pw.clamp_max, alias=_EW)
clip = clamp
multiply, subtract, divide, absolute, negative = mul, sub, div, abs, neg

# reductions
sum = _sum_out(rd.sum)  # noqa: A001
mean = with_out(rd.mean, alias="refuse")
prod, cumsum, cumprod = (_accumulating(f) for f in (rd.prod, rd.cumsum, rd.cumprod))
amax, amin = (with_out(f, alias="refuse") for f in (rd.amax, rd.amin))


def _out_dtype(fn, allowed, message):
    """`fn` with out=, whose out must have one of the `allowed` dtypes (PyTorch's `message` else)."""
    g = with_out(fn, alias="refuse")

    @functools.wraps(fn)
    def f(*args, out=None, **kw):
        if out is not None and isinstance(out, common.tensor_cls()) and out.dtype not in allowed:
            raise RuntimeError(message.format(dt=out.dtype._short))
        return g(*args, out=out, **kw)
    return f


all, any = (  # noqa: A001
    _out_dtype(f, (_dtype.bool, _dtype.uint8), name + " only supports bool tensor for result, got: {dt}")
    for f, name in ((rd.all, "all"), (rd.any, "any")))
argmax, argmin = with_out(rd.argmax, exact=True), with_out(rd.argmin, exact=True)
max, min = with_out(rd.max, alias="refuse"), with_out(rd.min, alias="refuse")  # noqa: A001
std, var, norm, logsumexp = (with_out(f, alias="refuse") for f in (rd.std, rd.var, rd.norm, rd.logsumexp))
softmax, log_softmax = with_out(rd.softmax, alias="internal"), with_out(rd.log_softmax, alias="internal")

# products, joins, indexing
_matmul, mm, bmm, mv = (with_out(f, exact=True, alias="refuse") for f in (linalg.matmul, linalg.mm, linalg.bmm,
                                                                          linalg.mv))


@functools.wraps(linalg.matmul)
def matmul(input, other, *, out=None):  # noqa: A002
    result = _matmul(input, other, out=out)
    if out is not None and input.ndim == 1 and other.ndim == 2:  # PyTorch writes a 1-row mm into out, then
        out._storage.version += 1                                # squeezes it in place: two versions
    return result
dot = with_out(linalg.dot, exact=True)
outer = with_out(linalg.outer, alias="select")
cat, stack, hstack, vstack = (with_out(f, alias="join") for f in (join.cat, join.stack, join.hstack, join.vstack))
concat = concatenate = cat
gather, index_select = with_out(index.gather, alias="join"), with_out(index.index_select, alias="select")
nonzero = _out_dtype(index.nonzero, (_dtype.int64,), "nonzero: Expected out tensor to have scalar type Long but got "
                     "scalar type{dt}")
