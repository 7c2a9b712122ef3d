"""Normalisation layers as functions: batch_norm, layer_norm, group_norm, instance_norm,
rms_norm, local_response_norm, normalize.

batch, layer and group norm are one computation over different axes:

    xhat = (x - mean) / sqrt(var + eps)     mean and (biased) var over the normalised axes
    y    = xhat * weight + bias             weight and bias per channel (or per feature)

which is one primitive here, as in PyTorch (NativeBatchNormBackward0, ...), with the
textbook backward

    dxhat = g * weight
    dx    = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))    (batch statistics)
    dx    = rstd * dxhat                                                 (fixed statistics)
    dweight = sum of g * xhat,   dbias = sum of g     (over every axis but the channel's)

batch and group norm give their result (and the input's gradient) the input's channels-last
layout when it has one, layer norm is always row-major, as PyTorch's kernels (nn/_layout.py).
"""
from __future__ import annotations

import math

from .._errors import hinted
from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .._ops._prim import Primitive
from . import _kernels
from .._ops.pointwise import _fp_quiet
from .._tensor import Tensor
from ._layout import CONTIGUOUS, in_format, is_in_format, suggest_memory_format, to_format
from ..autograd.grad_mode import no_grad


class Normalize(Primitive):
    """y = (x - mean) * rstd * weight + bias. The statistics are over `axes` of x viewed as
    `gshape` (group norm views (N, C, ...) as (N, groups, rest)); `wshape` is how weight and
    bias broadcast against x. `stats` = (mean, rstd) arrays fixes the statistics (batch norm
    in eval mode); then no gradient flows through them. `fmt`: the result's layout (_layout.py).
    Half is normalised in float32; `round_stats` rounds its mean and rstd to half first."""
    _node_name = "NativeLayerNormBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, *, gshape, axes, wshape, eps, stats=None, fmt=CONTIGUOUS, round_stats=False):
        xp = x._device.xp
        xg = x._data.reshape(gshape)
        if xg.dtype.itemsize == 2:  # half precision is normalised in float32, as PyTorch's kernels do
            xg = xg.astype(xp.float32)
        with _fp_quiet():  # inf / nan data give nan silently, as in PyTorch
            if stats is None and not xg.size:  # (NumPy warns of a mean of nothing: nan, as PyTorch's, quietly)
                kept = {a % xg.ndim for a in axes}
                mean = xp.full(tuple(1 if i in kept else n for i, n in enumerate(xg.shape)), xp.nan, xg.dtype)
                rstd = mean.copy()
            elif stats is None:
                mean = xg.mean(axis=axes, keepdims=True)
                rstd = 1 / xp.sqrt(((xg - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
            else:
                mean, rstd = stats
            if round_stats:  # PyTorch's half batch norm keeps its statistics in half (no float parameter)
                mean, rstd = (a.astype(x._data.dtype).astype(xg.dtype) for a in (mean, rstd))
            out = ((xg - mean) * rstd).reshape(x.shape)
            if weight is not None:
                out = out * weight._data.reshape(wshape)
            if bias is not None:
                out = out + bias._data.reshape(wshape)
        ctx.save_for_backward(x, weight)
        ctx.geom, ctx.stats, ctx.fmt = (gshape, axes, wshape, eps), stats, fmt
        ctx.bias_shape = None if bias is None else tuple(bias.shape)
        return in_format(out.astype(x._data.dtype, copy=False), fmt, xp)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        gshape, axes, wshape, eps = ctx.geom
        if not x._data.size:  # an empty batch: no statistics, and nothing flows to the parameters
            need = ctx.needs_input_grad
            return (grad.reshape(x.shape), x.new_zeros(weight.shape) if len(need) > 1 and need[1] else None,
                    x.new_zeros(ctx.bias_shape) if len(need) > 2 and need[2] else None)
        xg = x.reshape(gshape)
        if ctx.stats is None:  # recomputed with tensor ops, so second derivatives see them
            mean = xg.mean(axes, keepdim=True)
            rstd = (xg.var(axes, unbiased=False, keepdim=True) + eps).rsqrt()
        else:
            mean, rstd = (Tensor._make(a.astype(x._data.dtype, copy=False), x._device) for a in ctx.stats)
        xhat = (xg - mean) * rstd
        need = ctx.needs_input_grad
        gx = gw = gb = None
        if need[0]:
            d = (grad if weight is None else grad * weight.reshape(wshape)).reshape(gshape)
            if ctx.stats is None:
                d = d - d.mean(axes, keepdim=True) - xhat * (d * xhat).mean(axes, keepdim=True)
            gx = to_format((d * rstd).reshape(x.shape), ctx.fmt)
        if len(need) > 1 and need[1]:
            gw = _sum_over(grad * xhat.reshape(x.shape), wshape).reshape(weight.shape)
        if len(need) > 2 and need[2]:
            gb = _sum_over(grad, wshape).reshape(ctx.bias_shape)
        return gx, gw, gb


def _sum_over(t, wshape):
    """Sum t down to wshape (aligned with t's trailing dims)."""
    lead = t.ndim - len(wshape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(wshape) if n == 1 and t.shape[lead + i] != 1)
    return t.sum(dims, keepdim=True) if dims else t


class BatchNorm(Normalize):
    _node_name = "NativeBatchNormBackward0"


class GroupNorm(Normalize):
    _node_name = "NativeGroupNormBackward0"


def _check_params(kernel, op, input, *params, kernel_first=False):  # noqa: A002
    """PyTorch's dtype checks of a normalisation: a floating input, and weight, bias (and running
    statistics) of its dtype, or float32 ones with a half input (mixed precision). batch_norm
    checks the input's dtype first, the others the parameters'."""
    if kernel_first:
        _kernels.check(kernel, input.dtype, op=op)
    for t in params:
        if t is not None and t.dtype is not input.dtype and not (input.dtype.name == "float16" and
                                                                 t.dtype.name == "float32"):
            raise RuntimeError(f"mixed dtype (CPU): all inputs must share same datatype. ({op}: the input is "
                               f"{input.dtype.name}, a parameter {t.dtype.name}: convert one, e.g. "
                               "x.to(weight.dtype))")
    _kernels.check(kernel, input.dtype, op=op)


def _channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) over the batch and every other dim. Training uses the
    batch's statistics and updates running_mean / running_var (momentum: the weight of the
    new batch); eval uses the running ones."""
    if training and input.ndim >= 2 and input.shape[0] * math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):  # noqa: A002
    """batch_norm's kernel, as instance_norm calls it too (without the Python function's check)."""
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):  # (PyTorch's order of checks)
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    _check_params("batch_norm", "batch_norm", input, weight, bias, running_mean, running_var, kernel_first=True)
    axes = (0,) + tuple(range(2, input.ndim))
    wshape = _channel_shape(input)
    xp = input._device.xp
    acc = xp.float32 if input.dtype.name == "float16" else input._data.dtype  # half's statistics in float, as PyTorch
    # ... which then rounds them to half unless a parameter is float32 (its "mixed" kernel)
    rounded = input.dtype.name == "float16" and not any(
        t is not None and t.dtype.name == "float32" for t in (weight, bias, running_mean, running_var))
    if input.numel() == 0:  # (PyTorch's kernel returns a copy, scaled by the first weight and bias)
        out = input.clone()
        out = out if weight is None else out * weight[0]
        return out if bias is None else out + bias[0]
    if training:
        count = input.numel() // c
        if running_mean is not None or running_var is not None:
            a = input._data.astype(acc, copy=False)
            with _fp_quiet():
                mean = a.mean(axis=axes)
                var = a.var(axis=axes)
                # PyTorch's kernel writes them in its accumulation precision, in place, _version unchanged
                if running_mean is not None:
                    rm = running_mean._data
                    rm[...] = momentum * mean + (1 - momentum) * rm.astype(acc, copy=False)
                if running_var is not None:
                    rv = running_var._data
                    rv[...] = momentum * (var * (count / (count - 1))) + (1 - momentum) * rv.astype(acc, copy=False)
        return BatchNorm.apply(input, weight, bias, gshape=input.shape, axes=axes, wshape=wshape, eps=eps,
                               fmt=suggest_memory_format(input), round_stats=rounded)
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is None:
            raise hinted(RuntimeError, f"{name} must be defined in evaluation mode",
                         "pass the running statistics, or training=True")
    mean = running_mean._data.reshape(wshape).astype(acc)
    with _fp_quiet():
        rstd = 1 / xp.sqrt(running_var._data.reshape(wshape).astype(acc) + eps)
    return BatchNorm.apply(input, weight, bias, gshape=input.shape, axes=axes, wshape=wshape, eps=eps,
                           stats=(mean, rstd), fmt=suggest_memory_format(input))


def _normalized_shape(normalized_shape):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = [] (the last dims to normalise over, e.g. "
                           "x.shape[-1:] of a tensor with at least one dim)")
    return shape


@_amp.float32_gpu
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalise each sample over its last len(normalized_shape) dims (a transformer's norm)."""
    shape = _normalized_shape(normalized_shape)
    k = len(shape)
    if tuple(input.shape[input.ndim - k:]) != shape or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, "
                           f"{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(shape)}")
    _check_params("LayerNormKernelImpl", "layer_norm", input, weight, bias)
    axes = tuple(range(input.ndim - k, input.ndim))
    return Normalize.apply(input, weight, bias, gshape=input.shape, axes=axes, wshape=shape, eps=eps)


@_amp.float32_gpu
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalise each sample's channels in num_groups groups (over the group's channels and
    every spatial position)."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[:2]
    size = [n * c // num_groups, num_groups] + list(input.shape[2:])  # (PyTorch checks this list, and prints it)
    if size[0] * math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    _check_params("GroupNormKernelImpl", "group_norm", input, weight, bias)
    return GroupNorm.apply(input, weight, bias, gshape=(n, num_groups, input.numel() // max(n * num_groups, 1)),
                           axes=(2,), wshape=_channel_shape(input),
                           eps=eps, fmt=suggest_memory_format(input))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,  # noqa: A002
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample on its own (over its spatial dims): batch_norm on
    the input viewed as one sample of N*C channels, as PyTorch computes it."""
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    n, c = input.shape[:2]
    flat = input.reshape((1, n * c) + tuple(input.shape[2:]))

    def repeat(t):
        return None if t is None else t.repeat(n)
    rm, rv = repeat(running_mean), repeat(running_var)
    out = _batch_norm(flat, rm, rv, repeat(weight), repeat(bias), use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(rm.reshape(n, c).mean(0))
        if running_var is not None:
            running_var.copy_(rv.reshape(n, c).mean(0))
    return out.reshape(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """x / sqrt(mean(x^2) + eps) over the last dims, times weight (eps defaults to the dtype's
    machine epsilon, as in PyTorch)."""
    shape = _normalized_shape(normalized_shape)
    _kernels.check("rms_norm", input.dtype, op="rms_norm")
    if eps is None:  # (of float32 for half, the precision PyTorch computes it in)
        xp = input._device.xp
        eps = float(xp.finfo(xp.float32 if input.dtype.name == "float16" else input._data.dtype).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    x = input.float() if input.dtype.name == "float16" else input  # half is normalised in float32, as in PyTorch
    out = x * (x.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    fmt = suggest_memory_format(input)  # (PyTorch's composite ends with .contiguous() in this layout)
    if not is_in_format(out, fmt):
        out = to_format(out, fmt)
    return out if out.dtype is input.dtype else out.to(input.dtype)  # (PyTorch's result keeps the input's dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002
    """input / max(||input||_p, eps) along dim: unit vectors."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input.dtype._short} (normalize: convert it with .float())")
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    return input / denom


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):  # noqa: A002
    """Each element divided by (k + alpha * mean of squares over `size` neighbouring channels)^beta."""
    from .functional import avg_pool2d, pad
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    # PyTorch averages the squares with avg_pool3d, which has no half and no small-integer version
    _kernels.check("avg_pool3d_out_frame", input.dtype, _kernels.SINGLE_DOUBLE | {"int64"}, "local_response_norm")
    if input.numel() == 0:
        return input
    n, c = input.shape[:2]
    div = input * input
    if input.ndim > 3:  # (PyTorch views it as (N, 1, C, H, rest), which a volume's layout may refuse)
        div = div.view(n, 1, c, input.shape[2], -1)
    div = div.reshape(n, 1, c, -1)  # channels as rows, every position a column
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).reshape(input.shape)
    div = (div * alpha + k).pow(beta)
    return input / div

