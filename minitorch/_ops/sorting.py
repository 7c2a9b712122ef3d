"""Ordering: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, unique,
unique_consecutive, searchsorted, bucketize, histc, histogram, bincount.

The ops that pick elements (sort, topk, kthvalue, median along a dim, mode) return
(values, indices); their gradient goes back to the positions the indices name. NaN sorts as
the largest value, as in PyTorch.
"""
from __future__ import annotations

import math

from .. import _dtype, return_types
from . import common
from ._prim import MultiOutputPrimitive, Primitive
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
            vals, inv, counts = xp.unique(x, return_inverse=True, return_counts=True, equal_nan=False)
            return vals, inv.reshape(x.shape).astype(xp.int64), counts.astype(xp.int64)
        vals, inv, counts = xp.unique(x, return_inverse=True, return_counts=True, axis=dim)
        return vals, inv.reshape(-1).astype(xp.int64), counts.astype(xp.int64)

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


class _UniqueConsecutive(Unique):  # (no derivative, as Unique: no gradient case to cover)
    _node_name = "UniqueConsecutiveBackward0"

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


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


def sort(a, dim=-1, descending=False, stable=None):
    d = _dim(a, dim, "sort")
    cls = Sort if stable is None else SortStable  # every sort here is stable
    return return_types.sort(*cls.apply(a, dim=d, descending=bool(descending)))


def argsort(a, dim=-1, descending=False, stable=False):
    d = _dim(a, dim, "argsort")
    if a.ndim == 0:
        return a.new_zeros((), dtype=_dtype.int64)
    from .._tensor import Tensor
    from .convert import preserved
    xp = a._device.xp
    idx = _argsort(xp, a._data, d, bool(descending)).astype(xp.int64, copy=False)
    return Tensor._make(preserved(a, idx), a._device)  # laid out as the input, as sort's indices


def msort(a):
    return sort(a, 0).values


def topk(a, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    d = _dim(a, dim, "topk")
    n = a.shape[d] if a.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if a.ndim == 0 and k == 0:
        return return_types.topk(a.reshape(0), a.new_zeros(0, dtype=_dtype.int64))
    return return_types.topk(*Topk.apply(a, dim=d, k=int(k), largest=bool(largest)))


def kthvalue(a, k, dim=-1, keepdim=False):
    d = _dim(a, dim, "kthvalue")
    n = a.shape[d] if a.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return return_types.kthvalue(*Kthvalue.apply(a, dim=d, keepdim=keepdim, k=int(k)))


def _median(all_cls, dim_cls, op, a, dim, keepdim):
    if dim is None:
        return all_cls.apply(a)
    d = _dim(a, dim, op)
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    return getattr(return_types, op)(*dim_cls.apply(a, dim=d, keepdim=keepdim))


def median(a, dim=None, keepdim=False):
    return _median(MedianAll, MedianDim, "median", a, dim, keepdim)


def nanmedian(a, dim=None, keepdim=False):
    return _median(NanmedianAll, NanmedianDim, "nanmedian", a, dim, keepdim)


def mode(a, dim=-1, keepdim=False):
    d = _dim(a, dim, "mode")
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return return_types.mode(*Mode.apply(a, dim=d, keepdim=keepdim))


def _unique_result(outs, return_inverse, return_counts):
    vals, inv, counts = outs
    if not (return_inverse or return_counts):
        return vals
    return (vals,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())


def unique(a, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    d = None if dim is None else _dim(a, dim, "unique")
    return _unique_result(Unique.apply(a, dim=d, consecutive=False), return_inverse, return_counts)


def unique_consecutive(a, return_inverse=False, return_counts=False, dim=None):
    d = None if dim is None else _dim(a, dim, "unique_consecutive")
    return _unique_result(_UniqueConsecutive.apply(a, dim=d, consecutive=True), return_inverse, return_counts)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    from .._tensor import Tensor
    from .._factories import tensor
    seq = sorted_sequence
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    scalar = not isinstance(values, Tensor)
    if scalar:
        values = tensor(values, device=seq.device)
    xp = seq._device.xp
    if seq.ndim > 1 and (values.ndim == 0 or seq.shape[:-1] != values.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            f"tensor and input value tensor must match, but we got boundaries tensor {list(seq.shape)} and input "
            f"value tensor {list(values.shape)}")
    side_s = "right" if right else "left"
    s, v = seq._data, common.to_device_of(values, seq._device)._data
    srt = None if sorter is None else sorter._data
    if seq.ndim <= 1:
        out = xp.searchsorted(s.reshape(-1), v, side=side_s, sorter=srt)
    else:
        rows_s, rows_v = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
        rows_o = None if srt is None else srt.reshape(-1, s.shape[-1])
        out = xp.stack([xp.searchsorted(rs, rv, side=side_s, sorter=None if rows_o is None else rows_o[i])
                        for i, (rs, rv) in enumerate(zip(rows_s, rows_v))]).reshape(v.shape)
    dt = xp.int32 if out_int32 else xp.int64
    return Tensor._make(xp.asarray(out).astype(dt).reshape(v.shape), seq._device)


def bucketize(a, boundaries, *, out_int32=False, right=False):
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, a, out_int32=out_int32, right=right)


def histc(a, bins=100, min=0, max=0):  # noqa: A002
    from .._tensor import Tensor
    if not a.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{a.dtype._short}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    xp, x = a._device.xp, a._data.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.size:  # the data's own range
        finite = x[xp.isfinite(x)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    counts, _ = xp.histogram(x[(x >= lo) & (x <= hi)], bins=int(bins), range=(lo, hi))
    return Tensor._make(counts.astype(x.dtype), a._device)


def histogram(a, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """(hist, bin_edges): `bins` equal bins over `range` (the data's own range by default), or the
    edges given as a 1-D tensor; `density` divides by the total weight and the bin widths."""
    from .._factories import linspace
    from .._tensor import Tensor
    if not a.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{a.dtype._short}'")
    xp, x = a._device.xp, a._data.reshape(-1)
    if isinstance(bins, Tensor):
        if bins.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{bins.ndim} dimensions in the bins tensor for dimension 0")
        if bins.dtype != a.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {a.dtype._short.lower()} and bins for dimension 0 with dtype "
                               f"{bins.dtype._short.lower()}")
        edges = common.to_device_of(bins, a._device)
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
        edges = linspace(lo, hi, int(bins) + 1, dtype=a.dtype, device=a.device)
    w = None if weight is None else common.to_device_of(weight, a._device)._data.reshape(-1)
    counts, _ = xp.histogram(x, bins=edges._data, weights=w)
    counts = counts.astype(x.dtype)
    if density:
        total = counts.sum()
        counts = counts / (total * xp.diff(edges._data)) if total else counts
    return return_types.histogram(Tensor._make(counts.astype(x.dtype), a._device), edges.clone())


def bincount(a, weights=None, minlength=0):
    from .._tensor import Tensor
    if a.dtype.is_floating_point:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{a.dtype._short}'")
    xp = a._device.xp
    if a.ndim != 1 or (a.numel() and int(a._data.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return Tensor._make(xp.bincount(a._data, minlength=minlength).astype(xp.int64), a._device)
    if weights.shape != a.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = common.to_device_of(weights, a._device)._data
    out = xp.bincount(a._data, weights=w, minlength=minlength)
    dt = w.dtype if weights.dtype.is_floating_point else xp.float64  # integer weights count in double
    return Tensor._make(out.astype(dt), a._device)
