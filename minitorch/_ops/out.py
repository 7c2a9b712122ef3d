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

from .. import _dtype
from ..autograd.grad_mode import STATE
from . import common, convert, index, join, linalg, pointwise as pw, reduce as rd

_CTYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
          "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def write_out(op, result, out, exact=False):
    """Write `result` into `out` (a tensor, or a tuple of them for several results)."""
    T = common.tensor_cls()
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{op}(): argument 'out' must be a tuple of {len(result)} Tensors")
        written = tuple(write_out(op, r, o, exact=exact or i > 0) for i, (r, o) in enumerate(zip(result, out)))
        return type(result)(*written) if hasattr(result, "_fields") else written
    if not isinstance(out, T):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if STATE.enabled and (out.requires_grad or result.requires_grad):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad. (compute it without out=, or under "
                           "minitorch.no_grad())")
    if exact and result.dtype is not out.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_CTYPE[result.dtype.name]}, but got "
                           f"{_CTYPE[out.dtype.name]} instead")
    if not _dtype.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {result.dtype._short} can't be cast to the desired output type "
                           f"{out.dtype._short}")
    common.same_device(op, out, result)
    if tuple(out.shape) != tuple(result.shape):
        _resize(out, result.shape)
    xp = out._device.xp
    with pw._fp_quiet():
        xp.copyto(out._data, result._data, casting="unsafe")
    out._storage.version += 1
    return out


def _resize(out, shape):
    if out.numel():
        import warnings
        warnings.warn(f"An output with one or more elements was resized since it had shape {list(out.shape)}, which "
                      f"does not match the required output shape {list(shape)}. This behavior is deprecated, and in "
                      "a future PyTorch release outputs will not be resized unless they have zero elements. You can "
                      "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                      UserWarning, stacklevel=4)
    out._data = out._device.xp.empty(tuple(shape), dtype=out._data.dtype)


def with_out(fn, name=None, exact=False):
    """`fn` that also takes `out=`."""
    op = name or fn.__name__

    @functools.wraps(fn)
    def f(*args, out=None, **kw):
        if out is None:
            return fn(*args, **kw)
        return write_out(op, fn(*args, **kw), out, exact)
    return f


def _sum_out(fn):
    @functools.wraps(fn)
    def f(a, *args, out=None, **kw):
        if out is not None and not args and kw.get("dim", kw.get("axis")) is None:
            raise TypeError("sum() received an invalid combination of arguments - got (Tensor, out=Tensor): the "
                            "out= form needs a dim, e.g. sum(a, 0, out=o)")
        return _accumulate_out(fn, "sum", a, args, kw, out)
    return f


def _accumulate_out(fn, op, a, args, kw, out):
    """sum, prod, cumsum, cumprod with out=: as in PyTorch, they accumulate in out's dtype
    (out=bool_tensor is allowed; float input into an int out is cast first)."""
    if out is None:
        return fn(a, *args, **kw)
    if kw.get("dtype") is None:
        kw = dict(kw, dtype=out.dtype)
    return write_out(op, fn(a, *args, **kw), out)


def _accumulating(fn):
    @functools.wraps(fn)
    def f(a, *args, out=None, **kw):
        return _accumulate_out(fn, fn.__name__, a, args, kw, out)
    return f


# elementwise
add, sub, mul, div, true_divide = (with_out(f) for f in (pw.add, pw.sub, pw.mul, pw.div, pw.true_divide))
floor_divide, remainder, fmod, pow = (with_out(f) for f in (pw.floor_divide, pw.remainder, pw.fmod, pw.pow))  # noqa
maximum, minimum, clamp, where = (with_out(f) for f in (pw.maximum, pw.minimum, pw.clamp, pw.where))
eq, ne, lt, le, gt, ge = (with_out(f) for f in (pw.eq, pw.ne, pw.lt, pw.le, pw.gt, pw.ge))
logical_and, logical_or, logical_xor, logical_not = (with_out(f) for f in (
    pw.logical_and, pw.logical_or, pw.logical_xor, pw.logical_not))
bitwise_and, bitwise_or, bitwise_xor, bitwise_not = (with_out(f) for f in (
    pw.bitwise_and, pw.bitwise_or, pw.bitwise_xor, pw.bitwise_not))
bitwise_left_shift, bitwise_right_shift = with_out(pw.bitwise_left_shift), with_out(pw.bitwise_right_shift)
exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid = (with_out(f) for f in (
    pw.exp, pw.log, pw.sqrt, pw.rsqrt, pw.sin, pw.cos, pw.tanh, pw.sigmoid))
abs, neg, sign, reciprocal, square, log1p, expm1 = (with_out(f) for f in (  # noqa: A001
    pw.abs, pw.neg, pw.sign, pw.reciprocal, pw.square, pw.log1p, pw.expm1))
floor, ceil, round, trunc = (with_out(f) for f in (pw.floor, pw.ceil, pw.round, pw.trunc))  # noqa: A001
clamp_min, clamp_max = with_out(pw.clamp_min), with_out(pw.clamp_max)
clip = clamp
multiply, subtract, divide, absolute, negative = mul, sub, div, abs, neg

# reductions
sum = _sum_out(rd.sum)  # noqa: A001
mean = with_out(rd.mean)
prod, cumsum, cumprod = (_accumulating(f) for f in (rd.prod, rd.cumsum, rd.cumprod))
amax, amin, all, any = (with_out(f) for f in (rd.amax, rd.amin, rd.all, rd.any))  # noqa: A001
argmax, argmin = with_out(rd.argmax, exact=True), with_out(rd.argmin, exact=True)
max, min = with_out(rd.max), with_out(rd.min)  # noqa: A001
std, var, norm, logsumexp = (with_out(f) for f in (rd.std, rd.var, rd.norm, rd.logsumexp))
softmax, log_softmax = with_out(rd.softmax), with_out(rd.log_softmax)

# products, joins, indexing
matmul, mm, bmm, dot, mv = (with_out(f, exact=True) for f in (linalg.matmul, linalg.mm, linalg.bmm, linalg.dot,
                                                             linalg.mv))
outer = with_out(linalg.outer)
cat, stack, hstack, vstack = (with_out(f) for f in (join.cat, join.stack, join.hstack, join.vstack))
concat = concatenate = cat
gather, index_select, nonzero = with_out(index.gather), with_out(index.index_select), with_out(index.nonzero)
