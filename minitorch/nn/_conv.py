"""Convolution and pooling on (batch, channels, height, width) images, as primitives.

The idea that makes convolution fast on a matrix library is *im2col*: copy every
kernel-sized window of the input into one column of a matrix, and the convolution becomes a
single matrix product:

    cols   = im2col(x)                 (N, C*kh*kw, OH*OW)   one column per output pixel
    out    = W.reshape(O, C*kh*kw) @ cols                    (N, O, OH*OW)

The windows are read with *stride tricks*: a strided view whose strides step through the
padded image, so no Python loop touches a pixel. The adjoint of im2col, *col2im*, adds every
column back onto the pixels it came from (windows overlap, so pixels receive several
contributions). col2im is the backward of im2col and im2col the backward of col2im, so the
gradients below are themselves differentiable (second derivatives work).

Conv2d itself stores the same columns transposed and channels-last (im2col_last: one row per
window, each pixel's channels side by side), the order NumPy copies fastest; im2col_array's
layout above is the one F.unfold returns and the lessons build.

Everything here is written for any number of spatial dims: a 3-D volume (N, C, D, H, W) has
windows of kd*kh*kw voxels, read the same way. A 1-D signal (N, C, L) is computed as a one-row
image (N, C, 1, L). Grouped convolution
(groups=G) splits the channels into G independent convolutions: one batched matrix product.
Max pooling whose windows tile the image (kernel = stride, no padding) takes a shortcut that
never copies the windows (TiledMaxPool2d).

Results, and the gradients of inputs, are laid out as PyTorch's kernels lay them out:
channels-last for an input stored channels-last, row-major otherwise (nn/_layout.py).

Every array op goes through the tensor's array module (`t._device.xp`), so this runs on
NumPy and CuPy alike.
"""
from __future__ import annotations

import itertools
import math

from .. import parts as _parts
from .._ops._prim import MultiOutputPrimitive, Primitive, check_saved_outputs
from .._ops.index import index_add_flat
from .._ops.pointwise import _fp_quiet
from ..autograd.grad_mode import STATE
from ._layout import CONTIGUOUS, in_format, suggest_memory_format, to_format


def out_size(n, k, s, p, d):
    """Output length of a sliding window: floor((n + 2p - d(k-1) - 1) / s) + 1."""
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def pool_size(n, k, s, p, d, ceil_mode):
    """A pooling window's output length and the extra end padding it needs. With ceil_mode the
    last, partial window counts too, provided it starts inside the input or its left padding
    (PyTorch's rule)."""
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out, max(0, (out - 1) * s + d * (k - 1) + 1 - (n + 2 * p))


def _image(a):
    """A 1-D signal (N, C, L) as a one-row image (N, C, 1, L); an image as it is (array or Tensor)."""
    if a.ndim != 3:
        return a
    return a.unsqueeze(2) if hasattr(a, "unsqueeze") else a[:, :, None]


def _windows(xp, arr, kernel, stride, dilation, out_hw, kernel_last):
    """A strided view of `arr` (N, C, Hp, Wp) (or (N, C, Dp, Hp, Wp)): every window, without copying.

    kernel_last=False gives (N, C, kh, kw, OH, OW) (im2col's layout); True gives
    (N, C, OH, OW, kh, kw) (pooling's)."""
    s_n, s_c, *s_sp = arr.strides
    steps = tuple(s * st for s, st in zip(s_sp, stride))  # from one window to the next
    taps = tuple(s * d for s, d in zip(s_sp, dilation))  # from one kernel entry to the next
    if kernel_last:
        shape, strides = arr.shape[:2] + tuple(out_hw) + tuple(kernel), (s_n, s_c) + steps + taps
    else:
        shape, strides = arr.shape[:2] + tuple(kernel) + tuple(out_hw), (s_n, s_c) + taps + steps
    return xp.lib.stride_tricks.as_strided(arr, shape=shape, strides=strides)


def _sides(pads, nd=2):
    """Padding per spatial dim, as ((before, after), ...): from (ph, pw) (both sides alike) or
    from (top, bottom, left, right) (and the same for nd dims: one or two numbers per dim)."""
    if len(pads) == 2 * nd:
        return tuple((pads[2 * i], pads[2 * i + 1]) for i in range(nd))
    return tuple((p, p) for p in pads)


def _pad(xp, arr, pads, value=0):
    """Pad the spatial dims (all but N, C) by `pads` (see _sides)."""
    sides = _sides(pads, arr.ndim - 2)
    if not any(a or b for a, b in sides):
        return arr
    return xp.pad(arr, ((0, 0), (0, 0)) + sides, mode="constant", constant_values=value)


def _geometry(shape, kernel, stride, padding, dilation):
    """The output size of a sliding window over the last len(kernel) dims of `shape`."""
    return tuple(out_size(n, k, s, p, d) for n, k, s, p, d in
                 zip(shape[-len(kernel):], kernel, stride, padding, dilation))


def _crop(sides, size):
    """The slices that cut the padding `sides` ((before, after) per dim) off a padded array."""
    return (slice(None), slice(None)) + tuple(slice(a, a + n) for (a, _), n in zip(sides, size))


def _strided_block(offset, dilation, stride, out):
    """The slices, in the padded input, read by kernel entry `offset` of every window."""
    return tuple(slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in zip(offset, dilation, stride, out))


def im2col_array(xp, x, kernel, stride, padding, dilation):
    """(N, C, H, W) array -> (N, C*kh*kw, OH*OW) array of windows (a copy); the same for a volume."""
    if _parts.im2col is not None and len(kernel) == 2 and tuple(dilation) == (1, 1):  # a course part
        return _parts.im2col(xp, x, tuple(kernel), tuple(stride), tuple(padding))  # (minitorch/parts.py)
    n, c = x.shape[:2]
    out = _geometry(x.shape, kernel, stride, padding, dilation)
    win = _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, out, kernel_last=False)
    return xp.ascontiguousarray(win).reshape(n, c * math.prod(kernel), math.prod(out))


def col2im_array(xp, cols, in_shape, kernel, stride, padding, dilation, out_hw=None):
    """The adjoint of im2col: add every column entry back onto the pixel it was read from.
    `out_hw`: how many windows the columns hold, when fewer than fit in the image."""
    n, c, *size = in_shape
    out_hw = tuple(out_hw or _geometry(in_shape, kernel, stride, padding, dilation))
    cols = cols.reshape((n, c) + tuple(kernel) + out_hw)
    out = xp.zeros((n, c) + tuple(s + 2 * p for s, p in zip(size, padding)), dtype=cols.dtype)
    every = (slice(None), slice(None))  # (all of N, C)
    for offset in itertools.product(*map(range, kernel)):  # kh*kw strided adds, each a whole (N, C, OH, OW) block
        out[every + _strided_block(offset, dilation, stride, out_hw)] += cols[every + offset]
    return out[_crop(_sides(padding, len(size)), size)]


# ---- the columns Conv2d multiplies: channels-last ----------------------------------------------
# The same numbers as im2col_array, in another order: each window is stored pixel by pixel, each
# pixel's channels side by side (kh, kw, C), and the windows of one image one after the other. The
# copy that builds the columns then reads runs of C contiguous values (a pixel's channels) instead
# of runs of OW (a row of output pixels, as few as 2 or 4 in a small CNN's later layers), which
# makes both im2col and its adjoint col2im several times faster in NumPy once C is more than a few.

def _padded_last(xp, x, padding):
    """(N, C, H, W) -> a zero-padded channels-last copy (N, H + 2ph, W + 2pw, C); the same for a volume."""
    n, c, *size = x.shape
    out = xp.zeros((n,) + tuple(s + 2 * p for s, p in zip(size, padding)) + (c,), dtype=x.dtype)
    out[(slice(None),) + tuple(slice(p, p + s) for s, p in zip(size, padding))] = xp.moveaxis(x, 1, -1)
    return out


def im2col_last(xp, x, kernel, stride, padding, dilation, groups=1):
    """(N, C, H, W) array -> (N, G, OH*OW, kh*kw*C/G) array: row l of group g is window l, laid out
    (kh, kw, C/G) over that group's channels (a copy); the same for a volume."""
    n, c = x.shape[:2]
    out = _geometry(x.shape, kernel, stride, padding, dilation)
    xl = _padded_last(xp, x, padding)
    s_n, *s_sp, s_c = xl.strides
    cg = c // groups
    steps = tuple(s * st for s, st in zip(s_sp, stride))
    taps = tuple(s * d for s, d in zip(s_sp, dilation))
    win = xp.lib.stride_tricks.as_strided(xl, shape=(n, groups) + out + tuple(kernel) + (cg,),
                                          strides=(s_n, s_c * cg) + steps + taps + (s_c,))
    return xp.ascontiguousarray(win).reshape(n, groups, math.prod(out), math.prod(kernel) * cg)


def col2im_last(xp, cols, in_shape, kernel, stride, padding, dilation, groups=1, fmt=CONTIGUOUS):
    """The adjoint of im2col_last: add every column entry back onto its pixel; (N, C, H, W) laid out as fmt."""
    n, c, *size = in_shape
    nd = len(size)
    out_hw = _geometry(in_shape, kernel, stride, padding, dilation)
    cols = cols.reshape((n, groups) + out_hw + tuple(kernel) + (c // groups,))
    cols = cols.transpose((0,) + tuple(range(2, 2 + 2 * nd)) + (1, 2 * nd + 2))  # (N, OH, OW, kh, kw, G, C/G)
    out = xp.zeros((n,) + tuple(s + 2 * p for s, p in zip(size, padding)) + (groups, c // groups), dtype=cols.dtype)
    windows = (slice(None),) * (1 + nd)  # (all of N, OH, OW)
    for offset in itertools.product(*map(range, kernel)):  # kh*kw strided adds, each a whole (N, OH, OW, C) block
        out[(slice(None),) + _strided_block(offset, dilation, stride, out_hw)] += cols[windows + offset]
    out = out[_crop(_sides(padding, nd), size)[1:]].reshape((n,) + tuple(size) + (c,))
    return in_format(xp.moveaxis(out, -1, 1), fmt, xp)


def conv_columns(xp, x, geom, groups):
    """Conv2d's columns, from im2col_last; or, when a course part provides im2col (which builds
    im2col_array's layout), from that part, reordered."""
    if _parts.im2col is None or len(geom[0]) != 2 or tuple(geom[3]) != (1, 1):
        return im2col_last(xp, x, *geom, groups)
    n, c = x.shape[:2]
    (kh, kw), cols = geom[0], im2col_array(xp, x, *geom)  # (N, C*kh*kw, L)
    cols = cols.reshape(n, groups, c // groups, kh, kw, -1).transpose(0, 1, 5, 3, 4, 2)
    return xp.ascontiguousarray(cols).reshape(n, groups, cols.shape[2], -1)


def weight_last(w, groups):
    """A (O, C/G, kh, kw) weight (array or Tensor) as G matrices (O/G, kh*kw*C/G), in the column
    order of im2col_last (the same for a (O, C/G, kd, kh, kw) one)."""
    o, cg, *kernel = w.shape
    w = w.reshape((groups, o // groups, cg) + tuple(kernel))
    order = (0, 1) + tuple(range(3, 3 + len(kernel))) + (2,)  # the channels last
    w = w.permute(*order) if hasattr(w, "permute") else w.transpose(order)
    return w.reshape(groups, o // groups, math.prod(kernel) * cg)


def conv_format(x, weight, groups):
    """The layout of a convolution's result, as PyTorch's CPU kernels choose it: the input's
    (nn/_layout.py). A channels-last volume keeps its layout only where PyTorch hands it to
    oneDNN (bfloat16 always; float32 when its heuristic, below, says the volume is big enough);
    its other 3-D kernel, and every 3-D input gradient, is row-major."""
    fmt = suggest_memory_format(x)
    if x.ndim != 5 or fmt == CONTIGUOUS or x.dtype.name == "bfloat16":
        return fmt
    n, c, d, h = x.shape[:4]
    kh, kw = weight.shape[-2:]
    onednn = x.dtype.name == "float32" and (groups > 1 or (kh > 3 and kw > 3) or n > 1 or n * c * d * h > 20480)
    return fmt if onednn else CONTIGUOUS


class Im2ColLast(Primitive):
    """x (N, C, H, W) -> channels-last columns (N, G, OH*OW, kh*kw*C/G). Backward: col2im_last."""
    _node_name = "Im2ColBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, geom, groups):
        ctx.geom, ctx.groups, ctx.in_shape = geom, groups, tuple(x.shape)
        return im2col_last(x._device.xp, x._data, *geom, groups)

    @staticmethod
    def backward(ctx, grad):
        return (Col2ImLast.apply(grad, in_shape=ctx.in_shape, geom=ctx.geom, groups=ctx.groups),)


class Col2ImLast(Primitive):
    """channels-last columns -> image (N, C, H, W), summing overlaps. Backward: im2col_last."""
    _node_name = "Col2ImBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, cols, *, in_shape, geom, groups, fmt=CONTIGUOUS):
        ctx.geom, ctx.groups = geom, groups
        return col2im_last(cols._device.xp, cols._data, in_shape, *geom, groups, fmt)

    @staticmethod
    def backward(ctx, grad):
        return (Im2ColLast.apply(grad, geom=ctx.geom, groups=ctx.groups),)


class Im2Col(Primitive):
    """x (N, C, H, W) -> columns (N, C*kh*kw, OH*OW) (or without N). Backward: col2im."""
    _node_name = "Im2ColBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, kernel, stride, padding, dilation):
        ctx.geom = (kernel, stride, padding, dilation)
        ctx.in_shape = tuple(x.shape)
        batched = x.ndim == len(kernel) + 2
        a = x._data if batched else x._data[None]
        xp = x._device.xp
        cols = im2col_array(xp, a, kernel, stride, padding, dilation)
        if xp.may_share_memory(cols, a):  # 1x1 windows, no padding: NumPy's reshape is a view, PyTorch copies
            cols = cols.copy()
        return cols if batched else cols[0]

    @staticmethod
    def backward(ctx, grad):
        return (Col2Im.apply(grad, in_shape=ctx.in_shape, geom=ctx.geom),)


class Col2Im(Primitive):
    """columns (N, C*kh*kw, OH*OW) -> image (N, C, H, W), summing overlaps. Backward: im2col."""
    _node_name = "Col2ImBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, cols, *, in_shape, geom):
        ctx.geom = geom
        if len(in_shape) == len(geom[0]) + 2:
            return col2im_array(cols._device.xp, cols._data, in_shape, *geom)
        return col2im_array(cols._device.xp, cols._data[None], (1,) + tuple(in_shape), *geom)[0]

    @staticmethod
    def backward(ctx, grad):
        kernel, stride, padding, dilation = ctx.geom
        return (Im2Col.apply(grad, kernel=kernel, stride=stride, padding=padding, dilation=dilation),)


def im2col(x, kernel, stride, padding, dilation):
    return Im2Col.apply(x, kernel=kernel, stride=stride, padding=padding, dilation=dilation)


class Conv2d(Primitive):
    """out = W @ im2col(x) + b, in one primitive (PyTorch's node name: ConvolutionBackward0).

    forward:  cols = im2col(x);  out[n] = W2 @ cols[n]^T + b      W2 = W as (O, kh*kw*C)
    backward: dx = col2im(g^T @ W2)    dW = sum_n g[n] @ cols[n]    db = sum of g over n, h, w

    The columns are channels-last (im2col_last: one row per window), and W2 orders its columns
    to match (weight_last). With groups=G, W2 is G matrices, each applied to its own C/G channels.
    A volume (N, C, D, H, W) is the same with windows of kd*kh*kw voxels.
    """
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, *, stride, padding, dilation, groups=1):
        xp = x._device.xp
        xa, wa = _image(x._data), _image(weight._data)  # a 1-D signal is a one-row image
        n, o, g = xa.shape[0], wa.shape[0], groups
        geom = (tuple(wa.shape[2:]), stride, padding, dilation)
        out_hw = _geometry(xa.shape, *geom)
        cols = conv_columns(xp, xa, geom, g)  # (N, G, L, kh*kw*C/G)
        out = xp.matmul(weight_last(wa, g), cols.swapaxes(2, 3)).reshape(n, o, math.prod(out_hw))  # (N, G, O/G, L)
        if bias is not None:
            out += bias._data.reshape(o, 1)
        from .._tensor import Tensor
        # the columns are kept for dW (freed with the graph, like any saved tensor)
        ctx.save_for_backward(x, weight, Tensor._make(cols, x._device))
        fmt = conv_format(x, weight, g)
        ctx.geom, ctx.groups, ctx.fmt = geom, g, fmt if len(out_hw) < 3 else CONTIGUOUS  # (see conv_format)
        return in_format(out.reshape((n, o) + (out_hw if x.ndim >= 4 else out_hw[1:])), fmt, xp)

    @staticmethod
    def backward(ctx, grad):
        x, weight, saved_cols = ctx.saved_tensors
        xi, g_ = _image(x), ctx.groups
        n, o = grad.shape[:2]
        g = grad.reshape(n, g_, o // g_, math.prod(grad.shape[2:]))  # (N, G, O/G, L)
        w2 = weight_last(_image(weight), g_)  # (G, O/G, K)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            cols = g.transpose(2, 3) @ w2  # (N, G, L, K)
            gx = Col2ImLast.apply(cols, in_shape=tuple(xi.shape), geom=ctx.geom, groups=g_,
                                  fmt=ctx.fmt).reshape(x.shape)
        if ctx.needs_input_grad[1]:
            # under create_graph, dW must be differentiable with respect to x too: recompute
            cols = Im2ColLast.apply(xi, geom=ctx.geom, groups=g_) if STATE.enabled else saved_cols
            kernel, cg = ctx.geom[0], xi.shape[1] // g_
            nd = len(kernel)
            gw = (g @ cols).sum(0).reshape((g_, o // g_) + kernel + (cg,)).permute(0, 1, nd + 2, *range(2, nd + 2))
            gw = gw.contiguous().reshape(weight.shape)  # back to the weight's (O, C/G, kh, kw) order
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            gb = grad.sum((0,) + tuple(range(2, grad.ndim)))
        return gx, gw, gb


class EmptyConvolution(Primitive):
    """A convolution (or transposed one) of an empty input, as PyTorch computes it: zeros of the
    output's shape, in the dtype of x * weight[0], and zero gradients."""
    _node_name = "ConvolutionBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, weight, bias, *, shape, dtype):
        ctx.metas = [(t.shape, t.dtype) if t is not None else None for t in (x, weight, bias)]
        return x._device.xp.zeros(shape, dtype=dtype.np)

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        xp = grad._device.xp
        return tuple(None if m is None else Tensor._make(xp.zeros(tuple(m[0]), dtype=m[1].np), grad._device)
                     for m in ctx.metas)


_COLUMNS_AT_ONCE = 1 << 24  # (elements: 64 MB of float32)


class ConvTranspose2d(Primitive):
    """The transposed convolution: the adjoint of Conv2d with respect to its input. Each input
    pixel paints a weighted copy of the kernel onto the output; overlapping copies add up.

    forward:  cols = W2^T @ x;  out = col2im(cols) + b            W2 = W.reshape(C, O*kh*kw)
    backward: dx = W2 @ im2col(g)    dW = sum_n x[n] @ im2col(g)[n]^T    db = sum of g

    output_padding adds rows and columns at the bottom and right (out of what padding crops).
    """
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, *, stride, padding, dilation, groups, output_padding):
        xp = x._device.xp
        xa, wa = _image(x._data), _image(weight._data)
        n, c, *hw = xa.shape
        g, o, pixels = groups, wa.shape[1] * groups, math.prod(hw)
        kernel = tuple(wa.shape[2:])
        geom = (kernel, stride, padding, dilation)
        size = tuple((i - 1) * s - 2 * p + d * (k - 1) + e + 1
                     for i, k, s, p, d, e in zip(hw, kernel, stride, padding, dilation, output_padding))
        w2t = wa.reshape(g, c // g, -1).transpose(0, 2, 1)  # (G, O/G*kh*kw, C/G)
        out = xp.empty((n, o) + size, dtype=xp.result_type(wa, xa))
        # the columns of a few images at a time: a batch's columns are kh*kw times its output,
        # too large to go through memory at once for a volume (gigabytes)
        step = max(1, _COLUMNS_AT_ONCE // max(1, w2t.shape[1] * g * pixels))
        for i in range(0, n, step):
            xs = xa[i:i + step]
            cols = xp.matmul(w2t, xs.reshape(len(xs), g, c // g, pixels))
            out[i:i + step] = col2im_array(xp, cols.reshape(len(xs), -1, pixels), (len(xs), o) + size, *geom,
                                           out_hw=tuple(hw))
        if bias is not None:
            out += bias._data.reshape((o,) + (1,) * len(size))
        ctx.save_for_backward(x, weight)
        fmt = conv_format(x, weight, g)
        ctx.geom, ctx.groups, ctx.fmt = geom, g, fmt if len(size) < 3 else CONTIGUOUS  # (see conv_format)
        return in_format(out.reshape(out.shape[:2] + out.shape[3:]) if x.ndim == 3 else out, fmt, xp)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        xi, gi, g_ = _image(x), _image(grad), ctx.groups
        n, c, *hw = xi.shape
        windows = _geometry(gi.shape, *ctx.geom)  # more than h, w only when output_padding >= stride
        cols = im2col(gi, *ctx.geom).reshape(n, -1, *windows)  # (N, O*kh*kw, H, W)
        cols = cols[(slice(None),) * 2 + tuple(slice(0, i) for i in hw)].reshape(n, g_, -1, math.prod(hw))
        w2 = _image(weight).reshape(g_, c // g_, -1)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = to_format((w2 @ cols).reshape(x.shape), ctx.fmt)
        if ctx.needs_input_grad[1]:
            gw = (xi.reshape(n, g_, c // g_, -1) @ cols.transpose(2, 3)).sum(0).reshape(weight.shape)
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            gb = grad.sum((0,) + tuple(range(2, grad.ndim)))
        return gx, gw, gb


# ---- pooling -------------------------------------------------------------------------------
# `pads` is (top, bottom, left, right) (two numbers per spatial dim): ceil_mode needs more
# padding at the bottom and right.

def _planes(arr):
    """(N, C, ...) as (N, C, pixels), an empty batch too (where NumPy can't infer a -1)."""
    return arr.reshape(arr.shape[:2] + (math.prod(arr.shape[2:]),))


def _fill_low(xp, dtype):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _pool_index(xp, x, kernel, stride, pads, dilation):
    """For each pooling window of x: the coordinates (row and column; depth, row and column for a
    volume), in the padded image, of its maximum."""
    padded = _pad(xp, x, pads, _fill_low(xp, x.dtype))
    coords = _coords(xp, _window_argmax(xp, padded, kernel, stride, dilation), kernel, stride, dilation)
    return coords, padded.shape


def _window_argmax(xp, padded, kernel, stride, dilation):
    """For each window: which of its kh*kw entries (row-major) holds the maximum; the first on ties,
    the last NaN where there is one (NaN wins a max, as in PyTorch)."""
    n, c = padded.shape[:2]
    out = _geometry(padded.shape, kernel, stride, (0,) * len(kernel), dilation)
    win = _windows(xp, padded, kernel, stride, dilation, out, kernel_last=True)
    return argmax_last_nan(xp, xp.ascontiguousarray(win).reshape((n, c) + out + (math.prod(kernel),)))


def argmax_last_nan(xp, a):
    """argmax along the last axis as PyTorch's max-pooling loops take it: the first of tied maxima,
    but the last NaN of a window holding NaNs (its test, val > max or isnan(val), takes every NaN)."""
    arg = a.argmax(axis=-1)
    if a.dtype.kind == "f":
        nan = xp.isnan(a)
        if nan.any():
            last = a.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1)
            arg = xp.where(nan.any(axis=-1), last, arg)
    return arg


def _coords(xp, arg, kernel, stride, dilation):
    """The coordinates (one array per spatial dim), in the padded image, of entry `arg` of each
    window: the window's corner plus the entry's offset in it."""
    nd = len(kernel)
    out, offsets = arg.shape[-nd:], xp.unravel_index(arg, tuple(kernel))
    return [xp.arange(out[q]).reshape((-1,) + (1,) * (nd - 1 - q)) * stride[q] + offsets[q] * dilation[q]
            for q in range(nd)]


def _flat(coords, size, start=None):
    """Row-major flat positions, in a grid of `size`, of the coordinates (less `start`, if given)."""
    flat = 0
    for q, c in enumerate(coords):
        flat = flat * size[q] + (c if start is None else c - start[q])
    return flat


def _batch_of_one(x, kernel):
    """x's array, an unbatched (C, H, W) image (or (C, D, H, W) volume) as a batch of one."""
    return x._data if x.ndim == len(kernel) + 2 else x._data[None]


def _tiled_max(xp, x, kernel):
    """The windows tile the image (kernel = stride, no padding, no dilation): the maximum of every
    window is then the elementwise maximum of kh*kw strided slices of x, one per position in
    the window, with no copy of the windows (what makes the general path slow). Returns the
    maxima and, per window, which entry held it (as _window_argmax: the first on ties)."""
    out = tuple(n // k for n, k in zip(x.shape[2:], kernel))
    slices = [x[(slice(None),) * 2 + _strided_block(offset, (1,) * len(kernel), kernel, out)]
              for offset in itertools.product(*map(range, kernel))]
    values = slices[0].copy()
    for s in slices[1:]:
        xp.maximum(values, s, out=values)
    if values.dtype.kind == "f" and xp.isnan(values).any():  # NaN never equals itself: let argmax find it
        return values, _window_argmax(xp, x, kernel, kernel, (1,) * len(kernel))
    # arg = d0 (1 + d1 (1 + d2 (...))), where d_q is 1 if entry q is not the maximum: the count
    # stops at the first entry that is (and reaches the last entry only if no earlier one is)
    arg = xp.zeros(values.shape, dtype=xp.int8 if len(slices) <= 127 else xp.int64)
    for s in reversed(slices[:-1]):
        arg += 1
        arg *= s != values
    return values, arg


class PoolGather(Primitive):
    """out[n, c, i] = x_padded[n, c, index[n, c, i]]: picks one pixel per window."""
    _node_name = "PoolGatherBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, index, pads):
        xp = x._device.xp
        ctx.index, ctx.pads, ctx.in_shape = index, pads, tuple(x.shape)
        flat = _planes(_pad(xp, x._data, pads, 0))
        return xp.take_along_axis(flat, _planes(index), axis=2).reshape(index.shape)

    @staticmethod
    def backward(ctx, grad):
        return (PoolScatter.apply(grad, index=ctx.index, pads=ctx.pads, in_shape=ctx.in_shape),)


class PoolScatter(Primitive):
    """The adjoint of PoolGather: each output's gradient goes to the pixel it was taken from
    (added up where overlapping windows chose the same pixel)."""
    _node_name = "MaxPool2DWithIndicesBackwardBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, grad, *, index, pads, in_shape, fmt=CONTIGUOUS):
        xp = grad._device.xp
        ctx.index, ctx.pads = index, pads
        n, c, *size = in_shape
        sides = _sides(pads, len(size))
        padded = tuple(s + a + b for s, (a, b) in zip(size, sides))
        out = xp.zeros((n * c, math.prod(padded)), dtype=grad._data.dtype)
        base = (xp.arange(n * c) * math.prod(padded)).reshape(n * c, 1)
        pos = (index.reshape(n * c, math.prod(index.shape[2:])) + base).reshape(-1)
        index_add_flat(xp, out.reshape(-1), pos, grad._data.reshape(-1))
        return in_format(out.reshape((n, c) + padded)[_crop(sides, size)], fmt, xp)

    @staticmethod
    def backward(ctx, grad):
        return (PoolGather.apply(grad, index=ctx.index, pads=ctx.pads),)


class MaxPool2d(MultiOutputPrimitive):
    """The maximum of every window, and where it was (flat h*W + w in the unpadded input, as
    PyTorch's return_indices). The gradient flows to the position of each maximum (the
    first one on ties, as in PyTorch)."""
    _node_name = "MaxPool2DWithIndicesBackward0"
    reads_input_in_backward = False
    saved_outputs = (1,)

    @staticmethod
    def forward(ctx, x, *, kernel, stride, pads, dilation):
        xp = x._device.xp
        a = _batch_of_one(x, kernel)
        coords, pshape = _pool_index(xp, a, kernel, stride, pads, dilation)
        index = _flat(coords, pshape[2:])  # flat position in the padded image
        ctx.index, ctx.pads, ctx.in_shape, ctx.x_shape = index, pads, a.shape, tuple(x.shape)
        flat = _planes(_pad(xp, a, pads, _fill_low(xp, a.dtype)))
        values = xp.take_along_axis(flat, _planes(index), axis=2).reshape(index.shape)
        start = [lo for lo, _ in _sides(pads, len(kernel))]
        indices = _flat(coords, a.shape[2:], start)  # flat position in the input itself
        fmt = suggest_memory_format(x)
        ctx.fmt = fmt if len(kernel) < 3 else CONTIGUOUS  # (PyTorch's 3-D gradient: row-major always)
        ctx._keeps_values = True  # (PyTorch's node keeps the input: a second backward is refused)
        shape = tuple(x.shape[:-len(kernel)]) + values.shape[2:]
        return (in_format(values.reshape(shape), fmt, xp),
                in_format(indices.astype(xp.int64, copy=False).reshape(shape), fmt, xp))

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        ctx.saved_tensors  # noqa: B018  (refused once freed)
        check_saved_outputs(ctx)
        out = PoolScatter.apply(grad, index=ctx.index, pads=ctx.pads, in_shape=ctx.in_shape, fmt=ctx.fmt)
        return (out.reshape(ctx.x_shape),)


class MaxPool3d(MaxPool2d):
    _node_name = "MaxPool3DWithIndicesBackward0"


class TiledMaxPool2d(Primitive):
    """MaxPool2d when the windows tile the image (kernel = stride, no padding, no dilation) and
    the indices are not asked for: the common `nn.MaxPool2d(2)`. Same values and gradient as
    MaxPool2d, found by _tiled_max; the positions of the maxima are only worked out if a
    backward needs them."""
    _node_name = "MaxPool2DWithIndicesBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, kernel):
        a = _batch_of_one(x, kernel)
        values, ctx.arg = _tiled_max(x._device.xp, a, kernel)
        values = values.reshape(tuple(x.shape[:-len(kernel)]) + values.shape[2:])
        fmt = suggest_memory_format(x)
        ctx.kernel, ctx.in_shape, ctx.x_shape = kernel, a.shape, tuple(x.shape)
        ctx.fmt = fmt if len(kernel) < 3 else CONTIGUOUS  # (PyTorch's 3-D gradient: row-major always)
        ctx._keeps_values = True  # (PyTorch's node keeps the input: a second backward is refused)
        return in_format(values, fmt, x._device.xp)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018  (refused once freed)
        xp, kernel, nd = grad._device.xp, ctx.kernel, len(ctx.kernel)
        # flat position of each maximum: its window's corner + the offset of entry `arg` in it
        index = _flat(_coords(xp, ctx.arg, kernel, kernel, (1,) * nd), ctx.in_shape[2:])
        out = PoolScatter.apply(grad, index=index, pads=(0,) * nd, in_shape=ctx.in_shape, fmt=ctx.fmt)
        return (out.reshape(ctx.x_shape),)


class TiledMaxPool3d(TiledMaxPool2d):
    _node_name = "MaxPool3DWithIndicesBackward0"


class AvgPool2d(Primitive):
    """The mean of every window: the window's sum over `divisor` (an (OH, OW) array, in x's
    dtype: how many pixels PyTorch counts in each window, padding included or not).

    forward:  out = sum of each window of the zero-padded x / divisor
    backward: dx = col2im(g / divisor spread over each window), cropped to the input
    """
    _node_name = "AvgPool2DBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, kernel, stride, pads, divisor):
        xp = x._device.xp
        nd = len(kernel)
        size = x.shape[-nd:]  # (an unbatched (C, H, W) image is pooled as it is)
        padded = _pad(xp, x._data.reshape((-1, 1) + tuple(size)), pads)
        out = divisor.shape
        win = _windows(xp, padded, kernel, stride, (1,) * nd, out, kernel_last=True)
        ctx.geom, ctx.pads, ctx.in_shape, ctx.padded = (kernel, stride), pads, tuple(x.shape), padded.shape
        fmt = suggest_memory_format(x) if nd < 3 else CONTIGUOUS  # (PyTorch's 3-D kernel: row-major always)
        ctx.divisor, ctx.fmt = divisor, fmt
        ctx._keeps_values = True  # (PyTorch's node keeps the input: a second backward is refused)
        lead = tuple(x.shape[:-nd])
        acc = xp.float32 if x._data.dtype == xp.float16 else None  # half is summed in float, as PyTorch's kernel
        with _fp_quiet():  # inf - inf in a window is nan, and a mean beyond half's range inf, silently as in PyTorch
            total = win.sum(axis=tuple(range(-nd, 0)), dtype=acc)
            if total.dtype.kind != "f":  # int64 (PyTorch's one integer version): C's division, toward zero
                q = xp.abs(total) // divisor
                return in_format((xp.where(total < 0, -q, q)).astype(total.dtype).reshape(lead + out), fmt, xp)
            return in_format((total / divisor).astype(x._data.dtype, copy=False).reshape(lead + out), fmt, xp)

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        ctx.saved_tensors  # noqa: B018  (refused once freed)
        kernel, stride = ctx.geom
        nd = len(kernel)
        size = ctx.in_shape[-nd:]
        share = (grad / Tensor._make(ctx.divisor, grad._device)).reshape(-1, 1, ctx.divisor.size)
        cols = share.expand(share.shape[0], math.prod(kernel), share.shape[-1])
        img = Col2Im.apply(cols, in_shape=tuple(ctx.padded), geom=(kernel, stride, (0,) * nd, (1,) * nd))
        return (to_format(img[_crop(_sides(ctx.pads, nd), size)].reshape(ctx.in_shape), ctx.fmt),)


class AvgPool3d(AvgPool2d):
    _node_name = "AvgPool3DBackward0"


def avg_divisor(xp, size, kernel, stride, padding, extra, count_include_pad):
    """How many pixels PyTorch's avg_pool counts in each window, per output position (OH, OW):
    the window clipped to the padded input, or to the input itself without count_include_pad."""
    nd, total = len(size), 1
    for q, (n, k, s, p, e) in enumerate(zip(size, kernel, stride, padding, extra)):
        out = (n + 2 * p + e - k) // s + 1
        start = xp.arange(out) * s - p
        end = xp.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = xp.maximum(start, 0), xp.minimum(end, n)
        total = total * (end - start).reshape((-1,) + (1,) * (nd - 1 - q))  # one factor per dim
    return total


# ---- adaptive pooling: output size fixed, windows sized to fit -------------------------------

def adaptive_bounds(n, out):
    """PyTorch's adaptive windows along one dim: [floor(i*n/out), ceil((i+1)*n/out))."""
    return [(i * n // out, -(-(i + 1) * n // out)) for i in range(out)]


def adaptive_matrix(xp, n, out, dtype):
    """The (out, n) matrix that averages each adaptive window."""
    m = xp.zeros((out, n), dtype=dtype)
    for i, (a, b) in enumerate(adaptive_bounds(n, out)):
        m[i, a:b] = 1.0 / (b - a)
    return m


def _window_sums(xp, a, axis, bounds):
    """The sums of `a` over each window along `axis`, stacked along it (only the window's own
    elements are read: an inf outside it does not turn the sum into nan, as a 0 weight would)."""
    return xp.stack([a[(slice(None),) * (axis % a.ndim) + (slice(lo, hi),)].sum(axis=axis) for lo, hi in bounds],
                    axis=axis)


class AdaptiveAvgPool2d(Primitive):
    """out = the sum over each adaptive window / its height / its width, as PyTorch's kernel.
    Backward: dx = Ph^T @ g @ Pw, with Ph, Pw the matrices averaging each window along H and W
    (a volume: then Pd^T @ that, with the rows H*W flattened)."""
    _node_name = "AdaptiveAvgPool2DBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, out_hw):
        xp = x._device.xp
        nd = len(out_hw)
        size = x.shape[-nd:]
        dt = x._data.dtype
        acc = xp.float32 if dt == xp.float16 else dt  # half is averaged in float, as PyTorch's kernel
        mats = [adaptive_matrix(xp, n, o, acc).astype(dt, copy=False) for n, o in zip(size, out_hw)]
        fmt = suggest_memory_format(x) if nd < 3 else CONTIGUOUS  # (PyTorch's 3-D kernel: row-major always)
        ctx.mats, ctx.fmt = mats, fmt
        ctx._keeps_values = True  # (PyTorch's node keeps the input: a second backward is refused)
        bounds = [adaptive_bounds(n, o) for n, o in zip(size, out_hw)]
        sums = x._data.astype(acc, copy=False)
        with _fp_quiet():  # (inf - inf in a window is nan, silently)
            for q in reversed(range(nd)):  # the width first, then the height (then the depth)
                sums = _window_sums(xp, sums, q - nd, bounds[q])
            for q in range(nd):
                extent = xp.asarray([hi - lo for lo, hi in bounds[q]], dtype=acc)
                sums = sums / extent.reshape((-1,) + (1,) * (nd - 1 - q))
        return in_format(sums.astype(dt, copy=False), fmt, xp)

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        ctx.saved_tensors  # noqa: B018  (refused once freed)
        *pd, ph, pw = (Tensor._make(m, grad._device) for m in ctx.mats)
        dx = ph.t() @ grad @ pw
        if pd:  # a volume (..., D', H, W): average along the depth too
            shape = tuple(dx.shape)
            dx = (pd[0].t() @ dx.reshape(shape[:-2] + (-1,))).reshape(shape[:-3] + (pd[0].shape[1],) + shape[-2:])
        return (to_format(dx, ctx.fmt),)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    _node_name = "AdaptiveAvgPool3DBackward0"


class AdaptiveMaxPool2d(MultiOutputPrimitive):
    """The maximum of every adaptive window and its flat position h*W + w, as PyTorch's
    return_indices; the gradient flows to each maximum. Any leading dims (batched or not)."""
    _node_name = "AdaptiveMaxPool2DBackward0"
    reads_input_in_backward = False
    saved_outputs = (1,)

    @staticmethod
    def forward(ctx, x, *, out_hw):
        xp = x._device.xp
        nd = len(out_hw)
        size = tuple(x.shape[-nd:])
        a = x._data.reshape((math.prod(x.shape[:-nd]), 1) + size)  # (an empty batch too)
        m = a.shape[0]
        index = xp.empty((m, 1) + tuple(out_hw), dtype=xp.int64)
        bounds = [adaptive_bounds(n, o) for n, o in zip(size, out_hw)]
        for out_pos in itertools.product(*map(range, out_hw)):  # one window per output pixel
            box = [bounds[q][i] for q, i in enumerate(out_pos)]
            window = a[(slice(None), slice(None)) + tuple(slice(lo, hi) for lo, hi in box)]
            arg = argmax_last_nan(xp, window.reshape(m, 1, math.prod(window.shape[2:])))
            offsets = xp.unravel_index(arg, tuple(hi - lo for lo, hi in box))
            index[(slice(None), slice(None)) + out_pos] = _flat([lo + o for (lo, _), o in zip(box, offsets)], size)
        fmt = suggest_memory_format(x) if nd < 3 else CONTIGUOUS  # (PyTorch's 3-D kernel: row-major always)
        ctx.index, ctx.in_shape, ctx.fmt = index, tuple(x.shape), fmt
        ctx._keeps_values = True  # (PyTorch's node keeps the input: a second backward is refused)
        batched = x.ndim == nd + 2
        ctx.image = tuple(x.shape) if batched else tuple(a.shape)  # (N, C, H, W), or (N*C, 1, H, W)
        values = xp.take_along_axis(a.reshape(m, 1, math.prod(size)), index.reshape(m, 1, math.prod(out_hw)), axis=2)
        shape = tuple(x.shape[:-nd]) + tuple(out_hw)
        return in_format(values.reshape(shape), fmt, xp), in_format(index.reshape(shape), fmt, xp)

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        ctx.saved_tensors  # noqa: B018  (refused once freed)
        check_saved_outputs(ctx)
        g = grad.reshape(ctx.index.shape)
        nd = len(ctx.image) - 2
        out = PoolScatter.apply(g, index=ctx.index, pads=(0,) * nd, in_shape=ctx.image, fmt=ctx.fmt)
        return (out.reshape(ctx.in_shape),)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    _node_name = "AdaptiveMaxPool3DBackward0"


# ---- max unpooling: the inverse of max pooling with return_indices=True ---------------------------

class MaxUnpool2d(Primitive):
    """out[..., index[..., i]] = x[..., i] in a zero image of `size` (index: a flat position in
    it, per channel). Backward: the gradient read back at the same positions."""
    _node_name = "MaxUnpool2DBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, index, size):
        xp = x._device.xp
        lead, numel = tuple(x.shape[:-len(size)]), math.prod(size)
        ctx.index, ctx.in_shape = index.reshape(lead + (-1,)), tuple(x.shape)
        out = xp.zeros(lead + (numel,), dtype=x._data.dtype)
        rows = math.prod(lead)
        base = (xp.arange(rows) * numel).reshape(rows, 1)  # where each channel starts in the flat out
        out.reshape(-1)[(index.reshape(rows, -1) + base).reshape(-1)] = x._data.reshape(-1)
        return out.reshape(lead + tuple(size))

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        lead = ctx.index.shape[:-1]
        flat = grad.reshape(lead + (-1,)).gather(-1, Tensor._make(ctx.index, grad._device))
        return (flat.reshape(ctx.in_shape),)


class MaxUnpool3d(MaxUnpool2d):
    _node_name = "MaxUnpool3DBackward0"


# ---- channel shuffle (ShuffleNet): mixes the groups of a grouped convolution ---------------------

class ChannelShuffle(Primitive):
    """(N, G*K, ...) -> (N, K*G, ...): channel g*K + k moves to k*G + g (the (G, K) grid of
    channels transposed). Backward: the inverse shuffle, with K groups."""
    _node_name = "ChannelShuffleBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, groups):
        xp, (n, c), rest = x._device.xp, x.shape[:2], tuple(x.shape[2:])
        ctx.inverse = c // groups
        out = x._data.reshape((n, groups, c // groups) + rest).swapaxes(1, 2).reshape((n, c) + rest)
        return in_format(out, suggest_memory_format(x), xp)

    @staticmethod
    def backward(ctx, grad):
        return (ChannelShuffle.apply(grad, groups=ctx.inverse),)
