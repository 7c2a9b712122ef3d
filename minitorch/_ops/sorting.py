"""Ordering: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, unique,
unique_consecutive, searchsorted, bucketize, histc, histogram, bincount.

The ops that pick elements (sort, topk, kthvalue, median along a dim, mode) return
(values, indices); their gradient goes back to the positions the indices name. NaN sorts as
the largest value, as in PyTorch.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype, return_types
from .._errors import hinted
from . import common
from ._prim import MultiOutputPrimitive, Primitive, check_saved_outputs
from .index import scatter_along
from .pointwise import where


def _argsort(xp, x, axis, descending):
    """A stable argsort; descending keeps ties in their original order, with NaN first."""
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = xp.flip(x, axis=axis)
    return (n - 1) - xp.flip(xp.argsort(rev, axis=axis, kind="stable"), axis=axis)


class _Pick(MultiOutputPrimitive):
    """Elements picked along `dim`, and where they came from: the gradient goes back there."""
    saved_outputs = (1,)

    @classmethod
    def forward(cls, ctx, a, *, dim, keepdim=True, **kw):
        xp = a._device.xp
        ctx.zero_d = zero_d = a._data.ndim == 0
        if zero_d:  # a 0-d tensor is one element along its only "dim": itself, at index 0
            return a._data.copy(), xp.zeros((), dtype=xp.int64)
        idx = cls.pick(xp, a._data, dim, **kw)  # with `dim` kept
        vals = xp.take_along_axis(a._data, idx, axis=dim)
        ctx.shape, ctx.dim, ctx.keepdim, ctx.idx = a.shape, dim, keepdim, idx
        if not keepdim:
            vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        return vals, idx.astype(xp.int64, copy=False)

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        check_saved_outputs(ctx)
        if ctx.zero_d:
            return (grad,)
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        return (scatter_along(grad, ctx.idx, ctx.dim, ctx.shape),)


class Sort(_Pick):
    _node_name = "SortBackward0"

    @classmethod
    def forward(cls, ctx, a, *, dim, descending):
        from .convert import preserved
        vals, idx = super().forward(ctx, a, dim=dim, descending=descending)
        return (preserved(a, vals), preserved(a, idx)) if a.ndim else (vals, idx)  # laid out as the input

    @staticmethod
    def pick(xp, x, dim, descending):
        return _argsort(xp, x, dim, descending)


class SortStable(Sort):
    _node_name = "SortBackward1"  # sort(stable=...): PyTorch's other overload


class Topk(_Pick):
    _node_name = "TopkBackward0"

    @staticmethod
    def pick(xp, x, dim, k, largest):
        order = _argsort(xp, x, dim, largest)
        return xp.take(order, xp.arange(k), axis=dim)


class Kthvalue(_Pick):
    _node_name = "KthvalueBackward0"

    @staticmethod
    def pick(xp, x, dim, k):
        return xp.take(_argsort(xp, x, dim, False), xp.asarray([k - 1]), axis=dim)


class MedianDim(_Pick):
    _node_name = "MedianBackward1"
    ignore_nan = False

    @classmethod
    def pick(cls, xp, x, dim):
        order = _argsort(xp, x, dim, False)
        n = x.shape[dim]
        if x.dtype.kind != "f":
            return xp.take(order, xp.asarray([(n - 1) // 2]), axis=dim)
        nans = xp.isnan(x).sum(axis=dim, keepdims=True)
        if cls.ignore_nan:  # the lower median of the numbers; NaN only when there are none
            k = xp.maximum((n - nans - 1) // 2, 0)
        else:  # any NaN makes the median NaN: the first NaN (NaNs sort last, stable)
            k = xp.where(nans > 0, n - nans, (n - 1) // 2)
        return xp.take_along_axis(order, k, axis=dim)


class NanmedianDim(MedianDim):
    _node_name = "NanmedianBackward1"
    ignore_nan = True


class Mode(_Pick):
    """The most frequent value (the smallest of those tied), at its last position."""
    _node_name = "ModeBackward0"

    @staticmethod
    def pick(xp, x, dim):
        moved = xp.moveaxis(x, dim, -1)
        lead, n = moved.shape[:-1], moved.shape[-1]
        rows = moved.reshape(-1, n)
        order = xp.argsort(rows, axis=-1, kind="stable")
        s = xp.take_along_axis(rows, order, axis=-1)
        new_run = xp.ones(s.shape, dtype=bool)
        new_run[:, 1:] = s[:, 1:] != s[:, :-1]  # NaN != NaN: each NaN is its own run
        run_id = xp.cumsum(new_run, axis=-1) - 1 + (xp.arange(s.shape[0]) * n)[:, None]
        counts = xp.bincount(run_id.reshape(-1), minlength=s.size).reshape(-1)
        length = counts[run_id]
        start = xp.argmax(length, axis=-1)  # the first run of the greatest length: the smallest value
        end = start + xp.take_along_axis(length, start[:, None], axis=-1)[:, 0] - 1
        idx = xp.take_along_axis(order, end[:, None], axis=-1)  # runs keep the original order
        return xp.moveaxis(idx.reshape(*lead, 1), -1, dim).copy()  # (a fresh row-major layout, as PyTorch's)


class MedianAll(Primitive):
    """median() of all elements; the gradient is shared by the elements equal to it."""
    _node_name = "MedianBackward0"
    saves_output = True
    ignore_nan = False

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        flat = a._data.reshape(-1)
        if flat.size == 0:
            # NaN, cast to the dtype as PyTorch casts it (int32: -2**31, uint8: 0, bool: True)
            return a._device.xp.asarray(float("nan")).astype(flat.dtype)
        idx = (NanmedianDim if cls.ignore_nan else MedianDim).pick(a._device.xp, flat, 0)
        return flat[idx].reshape(())

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        out = ctx.saved_output
        hit = (a == out) | (a.isnan() & out.isnan())
        return (where(hit, grad / hit.sum(), 0.0),)  # (PyTorch's masked_fill: an infinite grad stays off the rest)


class NanmedianAll(MedianAll):
    _node_name = "NanmedianBackward0"
    ignore_nan = True


class Unique(MultiOutputPrimitive):
    _node_name = "Unique2Backward0"

    @staticmethod
    def forward(ctx, a, *, dim, consecutive):
        xp = a._device.xp
        x = a._data
        if consecutive:
            return _unique_consecutive(xp, x, dim)
        if dim is None:
            return _unique_flat(xp, x)
        vals, inv, counts = xp.unique(x, return_inverse=True, return_counts=True, axis=dim)
        return vals, inv.reshape(-1).astype(xp.int64), counts.astype(xp.int64)

    @staticmethod
    def backward(ctx, *grads):
        if ctx._next[0] is None:  # (the input's gradient goes nowhere, a no_grad view's: nothing to refuse)
            return (None,)
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


class _UniqueConsecutive(Unique):  # (no derivative, as Unique: no gradient case to cover)
    _node_name = "UniqueConsecutiveBackward0"

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


def _unique_flat(xp, x):
    """(values, inverse, counts) of the distinct elements, sorted; each NaN is distinct. Which of equal
    elements is kept (0. and -0. are equal: the sign that comes out tells) and how NaNs are numbered
    follow the sort: PyTorch's sorts up to 16 elements stably (so the first is kept), beyond that in an
    order of its own, which NumPy's sort is as near to as any."""
    if x.size > 16:
        vals, inv, counts = xp.unique(x, return_inverse=True, return_counts=True, equal_nan=False)
        return vals, inv.reshape(x.shape).astype(xp.int64), counts.astype(xp.int64)
    flat = x.reshape(-1)
    order = xp.argsort(flat, kind="stable")
    s = flat[order]
    first = xp.ones(s.shape, dtype=bool)
    first[1:] = s[1:] != s[:-1]
    inv = xp.empty(s.shape, dtype=xp.int64)
    inv[order] = xp.cumsum(first) - 1
    counts = xp.diff(xp.concatenate([xp.nonzero(first)[0], xp.asarray([s.size])]))
    return s[first], inv.reshape(x.shape), counts.astype(xp.int64)


def _unique_consecutive(xp, x, dim):
    moved = x.reshape(-1) if dim is None else xp.moveaxis(x, dim, 0)
    n = moved.shape[0]
    if n == 0:  # (without a dim the values come out flat, as from a non-empty input)
        vals = x.reshape(-1).copy() if dim is None else x.copy()
        return vals, xp.zeros(x.shape if dim is None else (0,), dtype=xp.int64), xp.zeros(0, dtype=xp.int64)
    flat = moved.reshape(n, -1)
    change = xp.ones(n, dtype=bool)
    change[1:] = (flat[1:] != flat[:-1]).any(axis=1)
    starts = xp.nonzero(change)[0]
    inv = xp.cumsum(change) - 1
    counts = xp.diff(xp.concatenate([starts, xp.asarray([n])]))
    vals = moved[starts]
    if dim is not None:
        vals = xp.moveaxis(vals, 0, dim)
        return vals, inv.astype(xp.int64), counts.astype(xp.int64)
    return vals, inv.reshape(x.shape).astype(xp.int64), counts.astype(xp.int64)


# ---- public functions -------------------------------------------------------------------

def _dim(a, dim, op):
    return common.wrap_dim(dim, a.ndim, op)


def _refuse(a, kernel, op, to="int"):
    """PyTorch's CPU kernels for ordering have no bool (or integer) version: its error, word for word."""
    return hinted(NotImplementedError, f"\"{kernel}\" not implemented for '{a.dtype._short}'",
                  f"{op} of a {a.dtype} tensor: convert it first, e.g. x.{to}().{op}(...)")


def _nonempty(a, d, op):
    """The dim an op picks an element from must have one (`d` wrapped; a 0-d tensor is one element)."""
    if a.ndim and a.shape[d] == 0:
        raise hinted(IndexError, f"{op}(): Expected reduction dim {d} to have non-zero size.",
                     f"the input has shape {list(a.shape)}: there is nothing to pick along dim {d}")


def _stable_keywords(op, args, kw):
    """(dim, descending, stable) of sort's or argsort's call. PyTorch has two forms, op(input, dim=-1,
    descending=False) and op(input, *, stable, dim=-1, descending=False): once stable= is given, dim
    and descending are keywords only."""
    if "stable" in kw and args:
        got = ", ".join(["Tensor"] + [type(v).__name__ for v in args]
                        + [f"{k}={type(v).__name__}" for k, v in kw.items()])
        raise hinted(TypeError, f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
                     "of:", f"with stable=, pass dim and descending by name: {op}(x, dim=0, stable=True)")
    return _sort_arguments(*args, **kw)


def _sort_arguments(dim=-1, descending=False, stable=None):
    return dim, descending, stable


def sort(input, *args, **kw):
    dim, descending, stable = _stable_keywords("sort", args, kw)
    d = _dim(input, dim, "sort")
    cls = Sort if stable is None else SortStable  # every sort here is stable
    return return_types.sort(*cls.apply(input, dim=d, descending=bool(descending)))


def argsort(input, *args, **kw):
    dim, descending, _ = _stable_keywords("argsort", args, kw)
    d = _dim(input, dim, "argsort")
    if input.ndim == 0:
        return input.new_zeros((), dtype=_dtype.int64)
    from .._tensor import Tensor
    from .convert import preserved
    xp = input._device.xp
    idx = _argsort(xp, input._data, d, bool(descending)).astype(xp.int64, copy=False)
    return Tensor._make(preserved(input, idx), input._device)  # laid out as the input, as sort's indices


def msort(input):
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    d = _dim(input, dim, "topk")
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise hinted(RuntimeError, "selected index k out of range", f"k is {k}; dim {d} has {n} elements")
    if input.dtype is _dtype.bool:
        raise hinted(RuntimeError, "topk does not support bool dtypes on CPU", "convert it first, e.g. x.int().topk(k)")
    # (a 0-d input comes back as it is, for k = 0 as for k = 1: PyTorch's choice)
    return return_types.topk(*Topk.apply(input, dim=d, k=int(k), largest=bool(largest)))


def kthvalue(input, k, dim=-1, keepdim=False):
    d = _dim(input, dim, "kthvalue")
    _nonempty(input, d, "kthvalue")
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise hinted(RuntimeError, f"kthvalue(): selected number k out of range for dimension {d}",
                     f"k counts from 1 to {n}, the size of dim {d}; got {k}")
    if input.ndim and input.dtype is _dtype.bool:  # (a 0-d input is its own answer, without the kernel)
        raise _refuse(input, "kthvalue_cpu", "kthvalue")
    return return_types.kthvalue(*Kthvalue.apply(input, dim=d, keepdim=keepdim, k=int(k)))


def _median(all_cls, dim_cls, op, a, dim, keepdim):
    if dim is None:
        if a.dtype is _dtype.bool and a.numel():  # (an empty input is answered before the kernel runs)
            raise _refuse(a, "median_cpu", op)
        return all_cls.apply(a)
    d = _dim(a, dim, op)
    _nonempty(a, d, "median")  # (nanmedian's message says median too)
    if a.dtype is _dtype.bool:
        raise _refuse(a, "median_out", op)
    return getattr(return_types, op)(*dim_cls.apply(a, dim=d, keepdim=keepdim))


def median(input, dim=None, keepdim=False):
    return _median(MedianAll, MedianDim, "median", input, dim, keepdim)


def nanmedian(input, dim=None, keepdim=False):
    return _median(NanmedianAll, NanmedianDim, "nanmedian", input, dim, keepdim)


def mode(input, dim=-1, keepdim=False):
    d = _dim(input, dim, "mode")
    _nonempty(input, d, "mode")
    return return_types.mode(*Mode.apply(input, dim=d, keepdim=keepdim))


def _unique_result(outs, return_inverse, return_counts):
    vals, inv, counts = outs
    if not (return_inverse or return_counts):
        return vals
    return (vals,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())


def _unique_dim(a, dim, op):
    """unique along a dim compares whole slices: PyTorch wants a dim to slice along, and slices of size > 0."""
    if dim is None:
        return None
    if a.ndim == 0:
        raise hinted(IndexError, f"Dimension specified as {dim} but tensor has no dimensions",
                     f"{op}(dim=) of a 0-d tensor: call it without dim")
    d = _dim(a, dim, op)
    if builtins.any(n == 0 for i, n in enumerate(a.shape) if i != d):
        raise hinted(RuntimeError, "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                     "applied", f"the input has shape {list(a.shape)}; every slice along dim {d} is empty")
    return d


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    d = _unique_dim(input, dim, "unique")
    return _unique_result(Unique.apply(input, dim=d, consecutive=False), return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    d = _unique_dim(input, dim, "unique_consecutive")
    return _unique_result(_UniqueConsecutive.apply(input, dim=d, consecutive=True), return_inverse, return_counts)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    from .._tensor import Tensor, warn_once
    from .._factories import tensor
    seq = sorted_sequence
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    if scalar:
        input = tensor(input, device=seq.device)
    xp = seq._device.xp
    if seq.ndim > 1 and (input.ndim == 0 or seq.shape[:-1] != input.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            f"tensor and input value tensor must match, but we got boundaries tensor {list(seq.shape)} and input "
            f"value tensor {list(input.shape)}")
    for what, t in (("input value", None if scalar else input), ("boundary", seq), ("sorter", sorter)):
        if t is not None and not t.is_contiguous():  # (PyTorch's kernel copies it first, and says so)
            warn_once(f"torch.searchsorted(): {what} tensor is non-contiguous, this will lower the performance due "
                      "to extra data copy when converting non-contiguous tensor to contiguous, please use contiguous "
                      f"{what} tensor if possible. This message will only appear once per program.")
    input = common.to_device_of(input, seq._device)
    dt = common.result_dtype(seq, input)  # both compared in their common dtype (a 0-d value takes seq's)
    if dt is _dtype.bool and input.numel():  # (no values: PyTorch's kernel never runs)
        raise _refuse(seq, "searchsorted_out_cpu", "searchsorted")
    s, v = seq._data.astype(dt.np, copy=False), input._data.astype(dt.np, copy=False)
    if sorter is not None:  # the sequence in the order the sorter gives
        s = xp.take_along_axis(s, sorter._data, axis=-1) if s.ndim > 1 else s[sorter._data]
    if seq.ndim <= 1:
        rows_s, rows_v = s.reshape(1, -1), v.reshape(1, -1)
    else:
        rows_s, rows_v = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
    out = _bisect(xp, rows_s, rows_v, right)
    return Tensor._make(out.astype(xp.int32 if out_int32 else xp.int64).reshape(v.shape), seq._device)


def _bisect(xp, seq, vals, right):
    """PyTorch's binary search, step for step, for every value at once (row i of `vals` in row i of
    `seq`): move right while seq[mid] < value (<= for right=True). A comparison with NaN is false, so a
    NaN in the sequence sends the search right; NumPy's searchsorted orders NaN last and answers otherwise."""
    start = xp.zeros(vals.shape, dtype=xp.int64)
    end = xp.full(vals.shape, seq.shape[-1], dtype=xp.int64)
    while bool((start < end).any()):
        active = start < end
        mid = start + (end - start) // 2
        at = xp.take_along_axis(seq, xp.minimum(mid, seq.shape[-1] - 1), axis=-1)
        go_right = ~(at > vals) if right else ~(at >= vals)
        start = xp.where(active & go_right, mid + 1, start)
        end = xp.where(active & ~go_right, mid, end)
    return start


def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def histc(input, bins=100, min=0, max=0):  # noqa: A002
    """`bins` equal bins over [min, max] (the data's own range when min == max); values outside are not
    counted. PyTorch's checks, in its order: bins, the range, then the dtype (its bin edges are made in
    the input's dtype before the counting kernel, which takes floating point only, runs)."""
    from .._tensor import Tensor
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and input.numel():  # the data's range, inf and nan included
        lo, hi = float(input._data.min()), float(input._data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise hinted(RuntimeError, f"torch.histc: range of [{lo:g}, {hi:g}] is not finite",
                     "the data holds inf or nan: give a finite min= and max=")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if input.dtype is _dtype.bool:
        raise _refuse(input, "linspace_cpu", "histc", "float")
    _check_fits(input.dtype, lo, hi)
    if not input.dtype.is_floating_point:
        raise _refuse(input, "histogram_cpu", "histc", "float")
    xp, x = input._device.xp, input._data.reshape(-1)
    x = x[(x >= lo) & (x <= hi)]
    if x.dtype == xp.float16:  # PyTorch's kernel places each value in half, rounding every step: a range
        t = x.dtype.type  # beyond half's overflows, and nothing is counted then
        with np.errstate(all="ignore"):  # (NumPy's warnings; CuPy's kernels warn of nothing)
            width = t(hi) - t(lo)
            pos = (x - t(lo)) / width * t(bins) if xp.isfinite(width) else x[:0]
        idx = pos[xp.isfinite(pos)].astype(xp.int64)
        idx[idx == bins] = bins - 1  # (the top edge belongs to the last bin)
        counts = xp.bincount(idx[(idx >= 0) & (idx < bins)], minlength=int(bins))
    else:  # PyTorch's kernel: the bin by linear interpolation, in the input's dtype (histc has no correction
        t, b = x.dtype.type, int(bins)  # against the bin edges, which histogram makes)
        pos = ((x - t(lo)) / (t(hi) - t(lo)) * t(b)).astype(xp.int64)
        pos = xp.where(pos == b, b - 1, pos)  # (the top edge belongs to the last bin)
        counts = xp.bincount(pos[(pos >= 0) & (pos < b)], minlength=b)
    return Tensor._make(counts.astype(input._data.dtype), input._device)


_C_TYPE = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
           "float16": "c10::Half", "float32": "float", "float64": "double"}


def _check_fits(dt, *values):
    """PyTorch converts a range into the dtype with a check: a value beyond it is refused."""
    from .._typeinfo import finfo, iinfo
    info = finfo(dt) if dt.is_floating_point else iinfo(dt)
    for v in values:
        if not info.min <= v <= info.max:
            raise hinted(RuntimeError, f"value cannot be converted to type {_C_TYPE[dt.name]} without overflow",
                         f"{v:g} is outside the range of {dt}: convert the input first, e.g. x.float()")


def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """(hist, bin_edges): `bins` equal bins over `range` (the data's own range by default), or the
    edges given as a 1-D tensor; `density` divides by the total weight and the bin widths."""
    from .._factories import linspace
    from .._tensor import Tensor
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.dtype._short}'")
    xp, x = input._device.xp, input._data.reshape(-1)
    if isinstance(bins, Tensor):
        if bins.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{bins.ndim} dimensions in the bins tensor for dimension 0")
        if bins.dtype != input.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {input.dtype._short.lower()} and bins for dimension 0 with dtype "
                               f"{bins.dtype._short.lower()}")
        edges = common.to_device_of(bins, input._device)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        else:
            lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 1.0)
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} "
                               "for dimension 0")
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = linspace(lo, hi, int(bins) + 1, dtype=input.dtype, device=input.device)
    w = None if weight is None else common.to_device_of(weight, input._device)._data.reshape(-1)
    counts, _ = xp.histogram(x, bins=edges._data, weights=w)
    counts = counts.astype(x.dtype)
    if density:
        total = counts.sum()
        counts = counts / (total * xp.diff(edges._data)) if total else counts
    return return_types.histogram(Tensor._make(counts.astype(x.dtype), input._device), edges.clone())


def bincount(input, weights=None, minlength=0):
    from .._tensor import Tensor
    if input.dtype.is_floating_point:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{input.dtype._short}'")
    xp = input._device.xp
    if input.ndim != 1 or (input.numel() and int(input._data.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return Tensor._make(xp.bincount(input._data, minlength=minlength).astype(xp.int64), input._device)
    if weights.shape != input.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = common.to_device_of(weights, input._device)._data
    out = xp.bincount(input._data, weights=w, minlength=minlength)
    dt = w.dtype if weights.dtype.is_floating_point else xp.float64  # integer weights count in double
    return Tensor._make(out.astype(dt), input._device)
