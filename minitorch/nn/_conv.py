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

Every array op goes through the tensor's array module (`t._device.xp`), so this runs on
NumPy and CuPy alike.
"""
from __future__ import annotations

from .._ops._prim import MultiOutputPrimitive, Primitive
from .._ops.index import index_add_flat
from ..autograd.grad_mode import STATE


def out_size(n, k, s, p, d):
    """Output length of a sliding window: floor((n + 2p - d(k-1) - 1) / s) + 1."""
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _windows(xp, arr, kernel, stride, dilation, out_hw, kernel_last):
    """A strided view of `arr` (N, C, Hp, Wp): every window, without copying.

    kernel_last=False gives (N, C, kh, kw, OH, OW) (im2col's layout); True gives
    (N, C, OH, OW, kh, kw) (pooling's)."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_hw
    n, c = arr.shape[:2]
    s_n, s_c, s_h, s_w = arr.strides
    if kernel_last:
        shape = (n, c, oh, ow, kh, kw)
        strides = (s_n, s_c, s_h * sh, s_w * sw, s_h * dh, s_w * dw)
    else:
        shape = (n, c, kh, kw, oh, ow)
        strides = (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw)
    return xp.lib.stride_tricks.as_strided(arr, shape=shape, strides=strides)


def _pad(xp, arr, padding, value=0):
    ph, pw = padding
    if not ph and not pw:
        return arr
    return xp.pad(arr, ((0, 0), (0, 0), (ph, ph), (pw, pw)), mode="constant", constant_values=value)


def _geometry(shape, kernel, stride, padding, dilation):
    h, w = shape[-2:]
    return (out_size(h, kernel[0], stride[0], padding[0], dilation[0]),
            out_size(w, kernel[1], stride[1], padding[1], dilation[1]))


def im2col_array(xp, x, kernel, stride, padding, dilation):
    """(N, C, H, W) array -> (N, C*kh*kw, OH*OW) array of windows (a copy)."""
    n, c = x.shape[:2]
    oh, ow = _geometry(x.shape, kernel, stride, padding, dilation)
    win = _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, (oh, ow), kernel_last=False)
    return xp.ascontiguousarray(win).reshape(n, c * kernel[0] * kernel[1], oh * ow)


def col2im_array(xp, cols, in_shape, kernel, stride, padding, dilation):
    """The adjoint of im2col: add every column entry back onto the pixel it was read from."""
    n, c, h, w = in_shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    oh, ow = _geometry(in_shape, kernel, stride, padding, dilation)
    cols = cols.reshape(n, c, kh, kw, oh, ow)
    out = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    for i in range(kh):  # kh*kw strided adds; each moves a whole (N, C, OH, OW) block
        for j in range(kw):
            out[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    return out[:, :, ph:ph + h, pw:pw + w]


class Im2Col(Primitive):
    """x (N, C, H, W) -> columns (N, C*kh*kw, OH*OW). Backward: col2im."""
    _node_name = "Im2ColBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, kernel, stride, padding, dilation):
        ctx.geom = (kernel, stride, padding, dilation)
        ctx.in_shape = tuple(x.shape)
        return im2col_array(x._device.xp, x._data, kernel, stride, padding, dilation)

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
        return col2im_array(cols._device.xp, cols._data, in_shape, *geom)

    @staticmethod
    def backward(ctx, grad):
        kernel, stride, padding, dilation = ctx.geom
        return (Im2Col.apply(grad, kernel=kernel, stride=stride, padding=padding, dilation=dilation),)


def im2col(x, kernel, stride, padding, dilation):
    return Im2Col.apply(x, kernel=kernel, stride=stride, padding=padding, dilation=dilation)


class Conv2d(Primitive):
    """out = W @ im2col(x) + b, in one primitive (PyTorch's node name: ConvolutionBackward0).

    forward:  cols = im2col(x);  out[n] = W2 @ cols[n] + b        W2 = W.reshape(O, C*kh*kw)
    backward: dx = col2im(W2^T @ g)    dW = sum_n g[n] @ cols[n]^T    db = sum of g over n, h, w
    """
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, *, stride, padding, dilation):
        xp = x._device.xp
        o = weight.shape[0]
        kernel = tuple(weight.shape[2:])
        geom = (kernel, stride, padding, dilation)
        oh, ow = _geometry(x.shape, *geom)
        cols = im2col_array(xp, x._data, *geom)
        out = xp.matmul(weight._data.reshape(o, -1), cols)  # (O, K) @ (N, K, L) -> (N, O, L)
        if bias is not None:
            out += bias._data.reshape(o, 1)
        from .._tensor import Tensor
        # the columns are kept for dW (freed with the graph, like any saved tensor)
        ctx.save_for_backward(x, weight, Tensor._make(cols, x._device))
        ctx.geom = geom
        return out.reshape(x.shape[0], o, oh, ow)

    @staticmethod
    def backward(ctx, grad):
        x, weight, saved_cols = ctx.saved_tensors
        n, o, oh, ow = grad.shape
        g = grad.reshape(n, o, oh * ow)
        w2 = weight.reshape(o, -1)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = Col2Im.apply(w2.t() @ g, in_shape=tuple(x.shape), geom=ctx.geom)
        if ctx.needs_input_grad[1]:
            # under create_graph, dW must be differentiable with respect to x too: recompute
            cols = im2col(x, *ctx.geom) if STATE.enabled else saved_cols
            gw = (g @ cols.transpose(1, 2)).sum(0).reshape(weight.shape)
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            gb = grad.sum((0, 2, 3))
        return gx, gw, gb


# ---- pooling -------------------------------------------------------------------------------

def _pool_index(xp, x, kernel, stride, padding, dilation):
    """For each pooling window of x: the flat position (in the padded image) of its maximum."""
    n, c, h, w = x.shape
    oh, ow = _geometry(x.shape, kernel, stride, padding, dilation)
    fill = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
    padded = _pad(xp, x, padding, fill)
    win = _windows(xp, padded, kernel, stride, dilation, (oh, ow), kernel_last=True)
    arg = xp.ascontiguousarray(win).reshape(n, c, oh, ow, -1).argmax(axis=-1)
    kh, kw = kernel
    rows = xp.arange(oh).reshape(oh, 1) * stride[0] + (arg // kw) * dilation[0]
    cols = xp.arange(ow).reshape(1, ow) * stride[1] + (arg % kw) * dilation[1]
    return rows, cols, padded.shape


class PoolGather(Primitive):
    """out[n, c, i] = x_padded[n, c, index[n, c, i]]: picks one pixel per window."""
    _node_name = "PoolGatherBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, index, padding):
        xp = x._device.xp
        ctx.index, ctx.padding, ctx.in_shape = index, padding, tuple(x.shape)
        n, c = x.shape[:2]
        padded = _pad(xp, x._data, padding, 0)
        flat = padded.reshape(n, c, -1)
        return xp.take_along_axis(flat, index.reshape(n, c, -1), axis=2).reshape(index.shape)

    @staticmethod
    def backward(ctx, grad):
        return (PoolScatter.apply(grad, index=ctx.index, padding=ctx.padding, in_shape=ctx.in_shape),)


class PoolScatter(Primitive):
    """The adjoint of PoolGather: each output's gradient goes to the pixel it was taken from
    (added up where overlapping windows chose the same pixel)."""
    _node_name = "MaxPool2DWithIndicesBackwardBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, grad, *, index, padding, in_shape):
        xp = grad._device.xp
        ctx.index, ctx.padding = index, padding
        n, c, h, w = in_shape
        ph, pw = padding
        hp, wp = h + 2 * ph, w + 2 * pw
        out = xp.zeros((n * c, hp * wp), dtype=grad._data.dtype)
        base = (xp.arange(n * c) * (hp * wp)).reshape(n * c, 1)
        pos = (index.reshape(n * c, -1) + base).reshape(-1)
        index_add_flat(xp, out.reshape(-1), pos, grad._data.reshape(-1))
        return out.reshape(n, c, hp, wp)[:, :, ph:ph + h, pw:pw + w]

    @staticmethod
    def backward(ctx, grad):
        return (PoolGather.apply(grad, index=ctx.index, padding=ctx.padding),)


class MaxPool2d(MultiOutputPrimitive):
    """The maximum of every window, and where it was (flat h*W + w in the unpadded input, as
    PyTorch's return_indices). The gradient flows to the position of each maximum (the
    first one on ties, as in PyTorch)."""
    _node_name = "MaxPool2DWithIndicesBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, kernel, stride, padding, dilation):
        xp = x._device.xp
        rows, cols, pshape = _pool_index(xp, x._data, kernel, stride, padding, dilation)
        index = rows * pshape[3] + cols  # flat position in the padded image
        ctx.index, ctx.padding, ctx.in_shape = index, padding, tuple(x.shape)
        n, c = x.shape[:2]
        fill = -xp.inf if x._data.dtype.kind == "f" else xp.iinfo(x._data.dtype).min
        flat = _pad(xp, x._data, padding, fill).reshape(n, c, -1)
        values = xp.take_along_axis(flat, index.reshape(n, c, -1), axis=2).reshape(index.shape)
        indices = (rows - padding[0]) * x.shape[3] + (cols - padding[1])
        return values, indices.astype(xp.int64, copy=False)

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        return (PoolScatter.apply(grad, index=ctx.index, padding=ctx.padding, in_shape=ctx.in_shape),)
