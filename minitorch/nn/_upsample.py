"""Resizing images and signals: F.interpolate (nearest, linear / bilinear / trilinear,
bicubic, area), and the pixel shuffles.

Every mode but 'area' is separable: each output position along a dim is a weighted sum of a
few input positions ("taps") along that dim (1 tap for nearest, 2 for linear, 4 for cubic).
Forward gathers the taps dim by dim; backward is the transpose, the gradient times the
(out, in) matrix of those weights, dim by dim (tensor ops, so it is differentiable too).
Source coordinates are computed as PyTorch computes them, in the input's precision:

    align_corners=True:   src = dst * (in - 1) / (out - 1)
    align_corners=False:  src = (dst + 0.5) * scale - 0.5, clamped at 0 (linear modes)
    nearest:              src = floor(dst * scale)          scale = in / out, or 1 / scale_factor

Results are laid out as PyTorch's kernels lay them out (nn/_layout.py): channels-last for an
input stored channels-last, row-major otherwise; interpolate's gradient is always row-major.
"""
from __future__ import annotations

import math
import numbers

from .._ops._prim import Primitive
from . import _kernels
from .._ops.index import index_add_flat
from ._layout import CHANNELS_LAST, CONTIGUOUS, in_format, suggest_memory_format, to_format

_NAMES = {"nearest": "UpsampleNearest{}DBackward0", "nearest-exact": "UpsampleNearestExact{}DBackward0",
          "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
          "trilinear": "UpsampleTrilinear3DBackward0", "bicubic": "UpsampleBicubic2DBackward0"}


class Resample(Primitive):
    """out = sum over taps of w * x[idx], along each spatial dim in turn. `taps` holds, per
    resampled axis, a list of (index, weight) arrays of the output length."""
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, taps):
        xp = x._device.xp
        ctx.taps, ctx.in_shape = taps, tuple(x.shape)
        out = x._data
        for axis, dim_taps in taps:
            shape = [1] * out.ndim
            shape[axis] = -1
            acc = None
            for idx, w in dim_taps:
                term = xp.take(out, idx, axis=axis) * w.reshape(shape)
                acc = term if acc is None else acc + term
            out = acc
        if x._data.dtype == xp.uint8:  # (an image of bytes stays one, rounded)
            out = xp.clip(xp.rint(out), 0, 255).astype(xp.uint8)
        elif out.dtype != x._data.dtype:  # half, computed in float32
            out = out.astype(x._data.dtype)
        return in_format(out, suggest_memory_format(x), xp)

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        xp = grad._device.xp
        g = grad
        for axis, dim_taps in reversed(ctx.taps):
            n_in, n_out = ctx.in_shape[axis], dim_taps[0][0].shape[0]
            m = xp.zeros((n_out, n_in), dtype=grad._data.dtype)  # the weights as an (out, in) matrix
            rows = xp.arange(n_out)
            for idx, w in dim_taps:
                index_add_flat(xp, m.reshape(-1), rows * n_in + idx, w)
            g = (g.movedim(axis, -1) @ Tensor._make(m, grad._device)).movedim(-1, axis)
        return (to_format(g, CONTIGUOUS),)


def _node(mode, nd):
    name = _NAMES[mode].format(nd)
    return type(name.replace("Backward0", ""), (Resample,), {"_node_name": name})


_PRIMS = {(mode, nd): _node(mode, nd) for mode in _NAMES for nd in (1, 2, 3)}


def _scale(n_in, n_out, align_corners, scale, dt):
    """PyTorch's area_pixel_compute_scale, in the input's precision."""
    if align_corners:
        return dt((n_in - 1) / (n_out - 1)) if n_out > 1 else dt(0)
    return dt(1.0 / scale) if scale is not None and scale > 0 else dt(n_in) / dt(n_out)


def _taps(xp, mode, n_in, n_out, align_corners, scale, dt):
    """The (index, weight) taps of one dim."""
    dst = xp.arange(n_out).astype(dt)
    s = _scale(n_in, n_out, align_corners, scale, dt)
    one = xp.ones(n_out, dtype=dt)
    if mode in ("nearest", "nearest-exact"):
        pos = (dst + dt(0.5)) * s if mode == "nearest-exact" else dst * s
        return [(xp.minimum(xp.floor(pos).astype(xp.int64), n_in - 1), one)]
    src = dst * s if align_corners else (dst + dt(0.5)) * s - dt(0.5)
    if mode == "bicubic":
        base = xp.floor(src)
        t = src - base
        base = base.astype(xp.int64)
        coeffs = _cubic_coefficients(t, dt)
        return [(xp.clip(base - 1 + k, 0, n_in - 1), coeffs[k]) for k in range(4)]
    if n_in == n_out:  # PyTorch copies: both taps on the element itself, weights 1 and 0 (inf * 0 is nan there)
        return [(xp.arange(n_out), one), (xp.arange(n_out), xp.zeros(n_out, dtype=dt))]
    src = xp.maximum(src, dt(0))
    i0 = src.astype(xp.int64)  # truncation, as PyTorch (src >= 0 here)
    i1 = xp.where(i0 < n_in - 1, i0 + 1, i0)
    lam1 = xp.clip(src - i0.astype(dt), dt(0), dt(1))
    return [(i0, (one - lam1).astype(dt)), (i1, lam1.astype(dt))]


def _cubic_coefficients(t, dt):
    """Keys' cubic convolution weights (A = -0.75, PyTorch's) of the 4 taps around t."""
    a = dt(-0.75)

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _sizes(input, size, scale_factor, recompute_scale_factor, dim):  # noqa: A002
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            if not all(isinstance(v, numbers.Integral) for v in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            return [int(v) for v in size], [None] * dim
        return [int(size)] * dim, [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                             f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                             f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             "scale_factor in (s1, s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dim
    if recompute_scale_factor:
        return [math.floor(n * s) for n, s in zip(input.shape[2:], scales)], [None] * dim
    return [int(n * s) for n, s in zip(input.shape[2:], scales)], scales


_MODE_DIMS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of an (N, C, ...) tensor to `size`, or by `scale_factor`."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear "
                             "| bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if mode == "area" and size is None:
        recompute_scale_factor = True
    out_size, scales = _sizes(input, size, scale_factor, recompute_scale_factor, dim)
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.ndim == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
                             "a 4-D tensor as input")
        raise NotImplementedError("interpolate: antialias=True is not supported by minitorch")
    if input.ndim not in (3, 4, 5):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if mode in _MODE_DIMS and input.ndim != _MODE_DIMS[mode]:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_MODE_DIMS[mode]}D input")
    if mode == "area":
        from .functional import adaptive_avg_pool1d, adaptive_avg_pool2d
        if dim == 3:
            raise NotImplementedError("interpolate: mode='area' on 5-D input (adaptive_avg_pool3d) is not supported "
                                      "by minitorch")
        return (adaptive_avg_pool1d if dim == 1 else adaptive_avg_pool2d)(input, out_size)
    if mode not in _NAMES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if any(o <= 0 for o in out_size):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(map(str, input.shape[2:]))}) and output "
                           f"({', '.join(map(str, out_size))})")
    if input.numel() == 0 and 0 in tuple(input.shape[1:]):  # (an empty batch is fine)
        raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")
    _kernels.check(_kernel(mode, dim), input.dtype, _kernels.FLOATING | ({"uint8"} if mode != "linear" else set()),
                   "interpolate")
    xp = input._device.xp
    dt = input._data.dtype.type
    if input.dtype.name in ("uint8", "float16"):  # (weights, positions and sums in float, as PyTorch's kernels)
        dt = xp.float32
    taps = tuple((2 + i, _taps(xp, mode, input.shape[2 + i], out_size[i], align_corners, scales[i], dt))
                 for i in range(dim))
    return _PRIMS[(mode, dim)].apply(input, taps=taps)


def _kernel(mode, dim):
    """The name of PyTorch's CPU kernel for a mode (its error names it)."""
    if dim == 2 and mode in ("nearest", "nearest-exact", "bilinear"):
        return f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
    return "compute_indices_weights_" + {"bicubic": "cubic", "nearest-exact": "nearest"}.get(
        mode, "nearest" if mode == "nearest" else "linear")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    import warnings
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    import warnings
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    import warnings
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _shuffle(x, r):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r) on an array: a fresh row-major copy."""
    *lead, c, h, w = x.shape
    k = len(lead)
    y = x.reshape(*lead, c // (r * r), r, r, h, w).transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return y.copy().reshape(*lead, c // (r * r), h * r, w * r)  # (copy(): always its own memory, r = 1 too)


def _unshuffle(x, r):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W) on an array: a fresh row-major copy."""
    *lead, c, h, w = x.shape
    k = len(lead)
    y = x.reshape(*lead, c, h // r, r, w // r, r).transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return y.copy().reshape(*lead, c * r * r, h // r, w // r)


class PixelShuffle(Primitive):
    """One op, as PyTorch records it (PixelShuffleBackward0, a fresh result even for r = 1);
    its gradient is the inverse shuffle."""
    _node_name = "PixelShuffleBackward0"

    @staticmethod
    def forward(ctx, a, *, r):
        ctx.r = r
        return in_format(_shuffle(a._data, r), suggest_memory_format(a), a._device.xp)

    @staticmethod
    def backward(ctx, grad):
        return (PixelUnshuffle.apply(grad, r=ctx.r),)


class PixelUnshuffle(Primitive):
    _node_name = "PixelUnshuffleBackward0"

    @staticmethod
    def forward(ctx, a, *, r):
        ctx.r = r
        return in_format(_unshuffle(a._data, r), suggest_memory_format(a), a._device.xp)

    @staticmethod
    def backward(ctx, grad):
        return (PixelShuffle.apply(grad, r=ctx.r),)


def _check_format(input):  # noqa: A002
    if input.ndim == 5 and suggest_memory_format(input) == CHANNELS_LAST:  # (NDHWC: PyTorch's kernels refuse it)
        raise RuntimeError("Unsupported memory format. Supports only ChannelsLast, Contiguous (the input is a 5-D "
                           "tensor stored channels-last: call .contiguous() first)")


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): channels become sub-pixel positions."""
    _check_format(input)
    r = upscale_factor
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return PixelShuffle.apply(input, r=r)


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse of pixel_shuffle."""
    _check_format(input)
    r = downscale_factor
    h, w = input.shape[-2:]
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but got "
                           f"height={h} and width={w} for downscale_factor={r}")
    return PixelUnshuffle.apply(input, r=r)
