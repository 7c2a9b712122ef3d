"""`minitorch.nn.functional` (usually imported as F): the layers and losses as functions.

A Module like `nn.Linear` only holds parameters; the computing happens here. Most functions
are short compositions of tensor ops (their gradients come from the ops); where PyTorch
computes a layer as one op (convolution, pooling, embedding, the common losses, the
activations, the norms) it is a primitive with its own forward and backward, in a module of
its family, re-exported here:

    _conv.py        convolution (1-D, 2-D, 3-D, grouped, transposed), pooling, im2col / col2im
    _grid.py        affine_grid, grid_sample (spatial transformers)
    _loss.py        the losses          _activation.py   gelu, silu, elu, softplus, ...
    _norm.py        batch / layer / group / instance / rms norm, normalize
    _padding.py     pad                 _upsample.py     interpolate, pixel_shuffle
    _attention.py   scaled_dot_product_attention, multi-head attention
    _distance.py    cosine_similarity, pairwise_distance, pdist
"""
from __future__ import annotations

import math
import numbers
import warnings

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype, _factories
from .._errors import hinted
from .._ops import reduce as _reduce
from .._ops._prim import Primitive
from .._tensor import Tensor, contiguous_format
from ..autograd.grad_mode import STATE
from . import _conv, _embedding, _fractional, _fused, _grid, _kernels
from .embedding_bag import embedding_bag  # noqa: F401
from ._embedding import EmbeddingLookup
from ._layout import CHANNELS_LAST, suggest_memory_format
from ._loss import (_check_reduction, _class_dim, _reduce_loss, binary_cross_entropy,  # noqa: F401
                    binary_cross_entropy_with_logits, cosine_embedding_loss, cross_entropy, ctc_loss,
                    gaussian_nll_loss, hinge_embedding_loss, huber_loss, kl_div, l1_loss, margin_ranking_loss,
                    mse_loss, multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss, nll_loss,
                    poisson_nll_loss, smooth_l1_loss, soft_margin_loss, triplet_margin_loss,
                    triplet_margin_with_distance_loss)
from ._attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from ._activation import threshold as _threshold, rrelu_with_generator as _rrelu_with_generator
from ._activation import (celu, elu, gelu, glu, hardshrink, hardsigmoid, hardswish, hardtanh, leaky_relu,  # noqa: F401
                          logsigmoid, mish, prelu, relu6, rrelu, selu, silu, softplus, softshrink, softsign,
                          tanhshrink, threshold)
from ._distance import cosine_similarity, pairwise_distance, pdist  # noqa: F401
from ._norm import (batch_norm, group_norm, instance_norm, layer_norm, local_response_norm, normalize,  # noqa: F401
                    rms_norm)
from ._padding import pad
from ._upsample import (interpolate, pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear,  # noqa: F401
                        upsample_nearest)


# ---- argument helpers ------------------------------------------------------------------------

def _ntuple(v, n, name="argument"):
    """An int, or a sequence of n ints (or of one), as a tuple of n ints."""
    if isinstance(v, numbers.Integral):
        return (int(v),) * n
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {v}")
    return v


def _pair(v, name="argument"):
    return _ntuple(v, 2, name)


def _type(t):
    return t._type_name()


# ---- linear layers ---------------------------------------------------------------------------

@_amp.lower_precision
def linear(input, weight, bias=None):  # noqa: A002
    """y = x W^T + b, for x of shape (*, in_features) and W of shape (out_features, in_features)."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if _fused.linear_fits(input, weight, bias):
        return _fused.linear(input, weight, bias)
    if bias is not None and (input.ndim == 2 or (_bias_fusable(bias) and input.is_contiguous())):
        # PyTorch's one addmm over the rows of the input (flattened to a matrix first), viewed back
        from .._ops.blas import addmm
        rows = input if input.ndim == 2 else input.view(math.prod(input.shape[:-1]), input.shape[-1])
        out = _fused.linear(rows, weight, bias) if _fused.linear_fits(rows, weight, bias) else addmm(bias, rows, weight.t())
        return out if input.ndim == 2 else out.view(*input.shape[:-1], out.shape[1])
    out = input.matmul(weight.t())
    return out if bias is None else out.add_(bias)  # (in place, as PyTorch: the result keeps out's dtype)


def _bias_fusable(bias):
    """PyTorch adds a bias of one non-trivial dim (contiguous) inside its addmm, any other after the product."""
    return (bias.ndim == 1 or sum(n != 1 for n in bias.shape) == 1) and bias.is_contiguous()


def bilinear(input1, input2, weight, bias=None):
    """y_k = x1^T W_k x2 + b_k, for x1 (*, in1), x2 (*, in2) and W of shape (out, in1, in2).
    As PyTorch: the inputs flattened to rows, the product of each row pair, viewed back."""
    if len({t.dtype for t in (input1, input2, weight, bias) if t is not None}) > 1:
        names = [f"{n}: {_dtype.CPP_NAME[t.dtype.name]}" for n, t in
                 (("input1", input1), ("input2", input2), ("weight", weight), ("bias", bias)) if t is not None]
        raise RuntimeError(f"All tensors must have the same dtype, got {', '.join(names)}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} "
                               f"and {input2.shape[i]}")
    for name, x, d in (("input1", input1, 1), ("input2", input2, 2)):
        if x.shape[-1] != weight.shape[d]:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {x.shape[-1]} but expected "
                               f"{weight.shape[d]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    _kernels.check("bmm", input1.dtype, _kernels.NOT_BOOL, "bilinear")
    x1, x2 = input1.reshape(-1, input1.shape[-1]), input2.reshape(-1, input2.shape[-1])
    out = Trilinear.apply(x1, weight, x2)  # (rows, out)
    out = out.reshape(*input1.shape[:-1], weight.shape[0])
    return out if bias is None else out + bias


class Trilinear(Primitive):
    """PyTorch's _trilinear as bilinear uses it: out[n, k] = sum_ij x1[n, i] W[k, i, j] x2[n, j]
    (TrilinearBackward0); each gradient the same sum with that operand left out."""
    _node_name = "TrilinearBackward0"

    @staticmethod
    def forward(ctx, x1, w, x2):
        ctx.save_for_backward(x1, w, x2)
        xp, dt = x1._device.xp, x1._data.dtype
        acc = xp.float32 if dt == xp.float16 else dt  # (half accumulates in float, as PyTorch's bmm)
        return xp.einsum("ni,kij,nj->nk", *(t._data.astype(acc, copy=False) for t in (x1, w, x2))).astype(dt)

    @staticmethod
    def backward(ctx, grad):
        from .._ops.einsum import einsum
        x1, w, x2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (einsum("nk,kij,nj->ni", grad, w, x2) if need[0] else None,
                einsum("nk,ni,nj->kij", grad, x1, x2) if need[1] else None,
                einsum("nk,kij,ni->nj", grad, w, x1) if need[2] else None)


def _batchify(input, op, dims=4):
    """Accept an unbatched (C, H, W) image as PyTorch does; returns (batched input, unbatch flag)."""
    if input.ndim == dims - 1:
        return input.unsqueeze(0), True
    if input.ndim != dims:
        raise RuntimeError(f"Expected {dims - 1}D (unbatched) or {dims}D (batched) input to {op}, but got input of "
                           f"size: {list(input.shape)}")
    return input, False


# ---- convolution -----------------------------------------------------------------------------

def _check_conv(x, weight, bias, nd, groups, op, transposed=False, stride=1, padded=False):
    """PyTorch's checks and messages for a convolution's operands (x already batched; `padded`: by
    padding='same', which PyTorch does first when the padding is uneven, then convolves)."""
    kernel = "slow_conv3d_cpu" if nd == 3 else "slow_conv2d_cpu"
    empty = x.numel() == 0  # (PyTorch computes an empty input without its kernels: no dtype checks there)
    if empty:
        pass
    elif transposed:
        _kernels.check(f"slow_conv_transpose{max(nd, 2)}d_out_cpu", x.dtype, _kernels.FLOAT_OR_LONG, op)
    else:
        _kernels.check(kernel, x.dtype, _kernels.NOT_BOOL, op)
    if weight.ndim != nd + 2:
        if weight.ndim < 3:
            raise RuntimeError("weight should have at least three dimensions")
        raise hinted(RuntimeError, f"expected stride to be a single integer value or a list of {weight.ndim - 2} "
                     "values to match the convolution dimensions, but got "
                     f"stride={list(_ntuple(stride, nd, 'stride'))}",
                     f"{op}: expected a {nd + 2}-D weight (out_channels, in_channels/groups, kernel size), got "
                     f"shape {list(weight.shape)}")
    _check_conv_dtypes(x, weight, bias, transposed, padded, empty)
    if x._device != weight._device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{x.device} and {weight.device}! (in {op}: move the input with x.to(device))")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if transposed:
        if weight.shape[0] < groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but "
                               f"got weight of size {list(weight.shape)} instead")
        if x.shape[1] != weight.shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                               f"{list(x.shape)} to have {weight.shape[0]} channels, but got {x.shape[1]} channels "
                               "instead")
        if weight.shape[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                               f"but got weight of size [{list(weight.shape)}] instead")
        _check_bias_shape(bias, weight, weight.shape[1] * groups, "transposed=1, ")
        return
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{list(x.shape)} to have "
            f"{weight.shape[1] * groups} channels, but got {x.shape[1]} channels instead")
    _check_bias_shape(bias, weight, weight.shape[0], "")


def _check_bias_shape(bias, weight, n, given):
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != n):
        raise RuntimeError(f"Given {given}weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{n} elements, but got bias of size {list(bias.shape)} instead")


def _check_conv_dtypes(x, weight, bias, transposed, padded, empty):
    """PyTorch's dtype checks, in its words, which depend on the path: a bias of another dtype than
    the input is refused first by a direct convolution; the kernels then want the weight's dtype
    (half, which goes to the MKLDNN check, the bias's too); an uneven padding='same' and the
    transposed convolution accept another bias (it is cast, where it can be)."""
    hint = "convert one, e.g. x = x.to(weight.dtype), or model.double()"
    if bias is not None and bias.dtype is not x.dtype and not (transposed or padded):
        raise hinted(RuntimeError, f"Input type ({_dtype.CPP_NAME[x.dtype.name]}) and bias type "
                     f"({_dtype.CPP_NAME[bias.dtype.name]}) should be the same", "convert the bias, e.g. b.to(x.dtype)")
    if empty:  # (an empty batch reaches no kernel)
        return
    half = x.dtype is _dtype.float16
    if weight.dtype is not x.dtype:
        if half:
            raise hinted(RuntimeError, f"Input type ({_type(x)}) and weight type ({_type(weight)}) should be the same "
                         "or input should be a MKLDNN tensor and weight is a dense tensor", hint)
        raise hinted(RuntimeError, f"expected scalar type {x.dtype._short} but found {weight.dtype._short}", hint)
    if bias is not None and bias.dtype is not x.dtype:
        if half:
            raise hinted(RuntimeError, f"Input type ({_type(x)}) and bias type ({_type(bias)}) should be the same or "
                         "input should be a MKLDNN tensor and bias is a dense tensor", hint)
        if transposed and not _dtype.can_cast(bias.dtype, x.dtype):  # (added in place to the result)
            raise RuntimeError(f"result type {bias.dtype._short} can't be cast to the desired output type "
                               f"{x.dtype._short}")


def _same_padding(x, k, stride, dilation):
    """padding='same': the total padding d*(k-1) per dim, split evenly, any odd one at the end
    (then the input is padded first, as PyTorch does)."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (kk - 1) for d, kk in zip(dilation, k)]
    if not any(t % 2 for t in total):
        return x, tuple(t // 2 for t in total)
    warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy "
                  "of the input be created", stacklevel=4)
    ends = []
    for t in reversed(total):  # F.pad lists the last dim first
        ends += [0, t % 2]
    return pad(x, ends), tuple(t // 2 for t in total)


def _convolution(input, weight, bias, stride, padding, dilation, groups, nd, op):  # noqa: A002
    x, unbatched = _batchify(input, op, nd + 2)
    padded = False
    if isinstance(padding, str) and padding not in ("valid", "same"):
        raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    if padding == "same" and weight.ndim == nd + 2 and groups > 0:
        # PyTorch pads first (an uneven padding, with its warning), then convolves the padded input
        st, dl = _ntuple(stride, nd, "stride"), _ntuple(dilation, nd, "dilation")
        size = x.shape
        x, padding = _same_padding(x, tuple(weight.shape[2:]), st, dl)
        padded = x.shape != size
    _check_conv(x, weight, bias, nd, groups, op, stride=stride, padded=padded)
    stride, dilation = _ntuple(stride, nd, "stride"), _ntuple(dilation, nd, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    k = tuple(weight.shape[2:])
    if padding == "valid":
        padding = (0,) * nd
    elif padding == "same":  # (a weight or groups _check_conv refuses)
        x, padding = _same_padding(x, k, stride, dilation)
    if bias is not None and bias.dtype is not x.dtype:  # (accepted: cast)
        bias = bias.to(x.dtype)
    padding = _ntuple(padding, nd, "padding")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    padded = [n + 2 * p for n, p in zip(x.shape[2:], padding)]
    eff = [d * (kk - 1) + 1 for d, kk in zip(dilation, k)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than actual input size")
    if x.shape[0] and x.shape[1] and 0 in x.shape[2:]:  # (once the padded size is known to fit the kernel)
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: "
                           f"{list(x.shape[:2]) + [1] * (nd == 1) + list(x.shape[2:])}")
    if x.numel() == 0:  # an empty batch: (0, out channels, ...); no input channels: (N, 0, ...), as PyTorch
        size = [(p - e) // s + 1 for p, e, s in zip(padded, eff, stride)]
        out = _empty_convolution(x, weight, bias, (x.shape[0], weight.shape[0] if x.shape[0] == 0 else 0, *size))
        return out.squeeze(0) if unbatched else out
    if nd == 1:  # computed as a one-row image
        stride, padding, dilation = (1,) + stride, (0,) + padding, (1,) + dilation
    out = _conv.Conv2d.apply(x, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups)
    return out.squeeze(0) if unbatched else out


def _empty_convolution(x, weight, bias, shape):
    """PyTorch's convolution of an empty batch: x * weight[0] (so its dtype), shaped as the output."""
    from .._ops.common import result_dtype
    dtype = result_dtype(x, Tensor._make(weight._device.xp.zeros((), dtype=weight.dtype.np), weight._device))
    return _conv.EmptyConvolution.apply(x, weight, bias, shape=tuple(shape), dtype=dtype)


@_amp.lower_precision
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """2-D cross-correlation (what deep learning calls convolution) of a (N, C, H, W) batch with
    weight (O, C/groups, kh, kw): im2col + one matrix product (see nn/_conv.py)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@_amp.lower_precision
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """1-D convolution of a (N, C, L) batch with weight (O, C/groups, k)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@_amp.lower_precision
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """3-D convolution of a (N, C, D, H, W) batch of volumes with weight (O, C/groups, kd, kh, kw)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, op):  # noqa: A002
    if isinstance(padding, str):
        raise TypeError(f"{op}(): argument 'padding' must be tuple of ints, not str")
    x, unbatched = _batchify(input, op, nd + 2)
    _check_conv(x, weight, bias, nd, groups, op, transposed=True, stride=stride)
    stride, dilation = _ntuple(stride, nd, "stride"), _ntuple(dilation, nd, "dilation")
    padding, output_padding = _ntuple(padding, nd, "padding"), _ntuple(output_padding, nd, "output_padding")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(op_ >= s and op_ >= d for op_, s, d in zip(output_padding, stride, dilation)):
        names = ["depth", "height", "width"][-nd:]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           + " ".join(f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)) + " "
                           + " ".join(f"stride_{n}: {v}" for n, v in zip(names, stride)) + " "
                           + " ".join(f"dilation_{n}: {v}" for n, v in zip(names, dilation)))
    if x.shape[0] and x.shape[1] and 0 in x.shape[2:]:  # (PyTorch's kernel views a 1-D signal as a one-row image)
        shape = list(x.shape[:2]) + [1] * (nd == 1) + list(x.shape[2:])
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {shape}")
    out_size = [(n - 1) * s - 2 * p + d * (kk - 1) + o + 1 for n, s, p, d, kk, o in
                zip(x.shape[2:], stride, padding, dilation, weight.shape[2:], output_padding)]
    if any(o <= 0 for o in out_size) and x.shape[0]:  # (an empty batch is not checked)
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, x.shape[2:]))}). Calculated output "
                           f"size per channel: ({' x '.join(map(str, out_size))}). Output size is too small")
    if x.shape[0] == 0:
        out = _empty_convolution(x, weight, bias, (x.shape[0], weight.shape[1] * groups, *out_size))
        return out.squeeze(0) if unbatched else out
    if bias is not None and bias.dtype is not x.dtype:  # (accepted: cast)
        bias = bias.to(x.dtype)
    if nd == 1:
        stride, padding, dilation, output_padding = ((1,) + stride, (0,) + padding, (1,) + dilation,
                                                     (0,) + output_padding)
    out = _conv.ConvTranspose2d.apply(x, weight, bias, stride=stride, padding=padding, dilation=dilation,
                                      groups=groups, output_padding=output_padding)
    return out.squeeze(0) if unbatched else out


@_amp.lower_precision
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    """The transposed convolution ("deconvolution") of a (N, C, H, W) batch with weight
    (C, O/groups, kh, kw): it upsamples, the adjoint of conv2d (see nn/_conv.py)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


@_amp.lower_precision
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


@_amp.lower_precision
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    """The transposed convolution of a (N, C, D, H, W) batch with weight (C, O/groups, kd, kh, kw)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """im2col: (N, C, H, W) -> (N, C*kh*kw, L), one column per window position."""
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    _kernels.check("im2col_out_cpu", input.dtype, _kernels.FLOATING | {"bool"}, "unfold")
    k, d, p, s = (_pair(kernel_size, "kernel_size"), _pair(dilation, "dilation"), _pair(padding, "padding"),
                  _pair(stride, "stride"))
    blocks = _conv._geometry(input.shape, k, s, p, d)
    if any(o <= 0 for o in blocks):
        raise RuntimeError(f"Given input with spatial size ({input.shape[-2]}, {input.shape[-1]}), kernel_size={k}, "
                           f"dilation={d}, padding={p}, calculated shape of the array of sliding blocks as "
                           f"{blocks}, but its components must be at least one.")
    return _conv.im2col(input, k, s, p, d)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """col2im: (N, C*kh*kw, L) -> (N, C, H, W), adding up overlapping windows."""
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.ndim}D)")
    _kernels.check("col2im_out_cpu", input.dtype, _kernels.FLOATING | {"bool"}, "fold")
    size, k = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    d, p, s = _pair(dilation, "dilation"), _pair(padding, "padding"), _pair(stride, "stride")
    ck, length = input.shape[-2:]
    if ck % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={ck} and kernel_size={k}")
    blocks = _conv._geometry((1, 1) + size, k, s, p, d)
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"expected size of input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    return _conv.Col2Im.apply(input, in_shape=tuple(input.shape[:-2]) + (ck // (k[0] * k[1]),) + size,
                              geom=(k, s, p, d))


# ---- pooling ---------------------------------------------------------------------------------

def _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, op, nd=2):
    """Check a 2-D (or 3-D) pooling's arguments as PyTorch does; return the batched input, the
    kernel, stride and dilation, the (top, bottom, left, right) padding (ceil_mode adds at the
    end; two numbers per dim) and the output size."""
    k = _ntuple(kernel_size, nd, "kernel_size")
    s = k if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0) else _ntuple(stride, nd)
    p, d = _ntuple(padding, nd, "padding"), _ntuple(dilation, nd, "dilation")
    if any(v <= 0 for v in s):
        raise RuntimeError("stride should be greater than zero")
    for i in range(nd):
        if p[i] * 2 > k[i]:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
    if nd == 3 and input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    x, unbatched = _batchify(input, op, nd + 2)
    _nonempty_planes(input, nd, op)
    sizes = [_conv.pool_size(x.shape[2 + i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(nd)]
    if any(o <= 0 for o, _ in sizes):
        if op == "avg_pool3d":  # (PyTorch's 3-D average pooling words it so)
            raise RuntimeError(f"input image (T: {x.shape[2]} H: {x.shape[3]} W: {x.shape[4]}) smaller than kernel "
                               f"size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, x.shape[1:]))}). Calculated output size: "
                           f"({'x'.join(str(v) for v in [x.shape[1]] + [max(o, 0) for o, _ in sizes])}). "
                           "Output size is too small")
    pads = tuple(v for i in range(nd) for v in (p[i], p[i] + sizes[i][1]))
    return x, unbatched, k, s, pads, d, tuple(o for o, _ in sizes)


def _nonempty_planes(input, nd, op, name=None):  # noqa: A002
    """PyTorch's pooling takes an empty batch, but no empty channel or spatial dim: its errors."""
    first = 0 if input.ndim == nd + 1 else 1
    if all(input.shape[first:]):
        return
    if nd == 3:  # (PyTorch's 3-D kernels always name non-batch dimension 0)
        raise RuntimeError(f"{'max_pool3d_with_indices_out_cpu_template' if op.startswith('max') else op}(): Expected "
                           f"input's non-batch dimensions to have positive length, but input has a shape of "
                           f"{list(input.shape)} and non-batch dimension 0 has length zero!")
    raise RuntimeError(f"{name + ': ' if name else ''}Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional 0 "
                       f"dim batch size for input, but got:{list(input.shape)}")


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd):  # noqa: A002
    op = f"max_pool{nd}d"
    x, unbatched, k, s, pads, d, _ = _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, op, nd)
    _kernels.check(op, x.dtype, _kernels.NOT_BOOL)
    # (the primitives pool an unbatched (C, H, W) image as it is, as PyTorch's kernels do)
    if not return_indices and k == s and d == (1,) * nd and not any(pads):  # windows that tile the image
        return (_conv.TiledMaxPool3d if nd == 3 else _conv.TiledMaxPool2d).apply(input, kernel=k)
    pool = _conv.MaxPool3d if nd == 3 else _conv.MaxPool2d
    out, idx = pool.apply(input, kernel=k, stride=s, pads=pads, dilation=d)
    return (out, idx) if return_indices else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """The maximum of every kernel_size window (stride defaults to kernel_size)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


@_amp.float32_cpu
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """The maximum of every kd*kh*kw window of a (N, C, D, H, W) batch of volumes."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """max_pool2d's maxima and their indices, always both (return_indices is ignored, as in PyTorch)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd):  # noqa: A002
    op = f"avg_pool{nd}d"
    x, unbatched, k, s, pads, _, out_hw = _pool_args(input, kernel_size, stride, padding, 1, ceil_mode, op, nd)
    _kernels.check(op, x.dtype, _kernels.FLOAT_OR_LONG)
    xp = x._device.xp
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        divisor = xp.full(out_hw, divisor_override)
    else:
        divisor = _conv.avg_divisor(xp, x.shape[2:], k, s, pads[0::2],
                                    tuple(b - a for a, b in zip(pads[0::2], pads[1::2])), count_include_pad)
    divisor = divisor.astype(x._data.dtype)
    # (the primitive pools an unbatched (C, H, W) image as it is, as PyTorch's kernel does)
    return (_conv.AvgPool3d if nd == 3 else _conv.AvgPool2d).apply(input, kernel=k, stride=s, pads=pads,
                                                                    divisor=divisor)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    """The mean of every window; zero padding counts in the mean unless count_include_pad=False."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


@_amp.float32_cpu
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    """The mean of every kd*kh*kw window of a (N, C, D, H, W) batch of volumes."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


def _one_row(input, op):  # noqa: A002
    """A 1-D pooling runs as the 2-D one on (N, C, 1, L), as in PyTorch."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to {op}, but got input of size: "
                           f"{list(input.shape)}")
    return input.unsqueeze(-2)


def _single(v):
    return v if v is None or isinstance(v, numbers.Integral) else (tuple(v) if len(v) else None)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """max_pool1d's maxima and their indices, always both (return_indices is ignored, as in PyTorch)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    s = _single(stride)
    if not return_indices:  # (with indices PyTorch runs the 2-D kernel, which takes integers too)
        if input.ndim in (2, 3):
            _nonempty_planes(input, 1, "max_pool1d", "max_pool1d")
        _kernels.check("max_pool1d_impl", input.dtype)
    out = max_pool2d(_one_row(input, "max_pool1d"), (1, _ntuple(kernel_size, 1)[0]),
                     None if s is None else (1, _ntuple(s, 1)[0]), (0, _ntuple(padding, 1)[0]),
                     (1, _ntuple(dilation, 1)[0]), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    if not (input.requires_grad and STATE.enabled):  # PyTorch's kernel without a gradient: a fresh row-major result
        return out.squeeze(-2).clone(memory_format=contiguous_format)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002
    s = _single(stride)
    k = _ntuple(kernel_size, 1)[0]
    out = avg_pool2d(_one_row(input, "avg_pool1d"), (1, k), (1, k) if s is None else (1, _ntuple(s, 1)[0]),
                     (0, _ntuple(padding, 1)[0]), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """(sum of x^p over each window)^(1/p), as PyTorch computes it (through avg_pool2d)."""
    kw, kh = _pair(kernel_size, "kernel_size")
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """(sum of x^p over each kd*kh*kw window)^(1/p), through avg_pool3d as in PyTorch."""
    kd, kw, kh = _ntuple(kernel_size, 3, "kernel_size")
    if norm_type == math.inf:
        return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kd * kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def _adaptive_size(x, output_size, nd):
    size = _ntuple(output_size, nd, "output_size") if not (
        isinstance(output_size, (tuple, list)) and None in output_size) else tuple(output_size)
    return tuple(x.shape[-nd + i] if v is None else int(v) for i, v in enumerate(size))


def _adaptive_input(input, nd, op, dims=None):  # noqa: A002
    """PyTorch's checks of an adaptive pooling's input: its dims, and no empty one among `dims` (the
    spatial ones; max pooling checks every dim after the first)."""
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor, but got {list(input.shape)}")
    for i in range(input.ndim - nd, input.ndim) if dims is None else dims:
        if input.shape[i] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """Average pooling to a fixed output size: the windows are sized to fit (PyTorch's
    [floor(i*H/oh), ceil((i+1)*H/oh)) bounds)."""
    _adaptive_input(input, 2, "adaptive_avg_pool2d", ())
    size = _adaptive_size(input, output_size, 2)
    if size == (1, 1):  # PyTorch takes the mean here (MeanBackward1)
        out = input.mean((-1, -2), keepdim=True)
        if suggest_memory_format(input) == CHANNELS_LAST:  # then restrides it in place (AsStridedBackward1)
            n, c = input.shape[:2]
            out.as_strided_((n, c, 1, 1), (c, 1, c, c))
        return out
    _adaptive_input(input, 2, "adaptive_avg_pool2d")
    _kernels.check("adaptive_avg_pool2d", input.dtype)
    return _conv.AdaptiveAvgPool2d.apply(input, out_hw=size)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    _adaptive_input(input, 2, "adaptive_max_pool2d", range(1, input.ndim))
    _kernels.check("adaptive_max_pool2d", input.dtype)
    out, idx = _conv.AdaptiveMaxPool2d.apply(input, out_hw=_adaptive_size(input, output_size, 2))
    return (out, idx) if return_indices else out


@_amp.float32_cpu
def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """Average pooling of a volume to a fixed (D', H', W'), the windows sized to fit."""
    _adaptive_input(input, 3, "adaptive_avg_pool3d", ())
    size = _adaptive_size(input, output_size, 3)
    if size == (1, 1, 1):  # PyTorch takes the mean here (MeanBackward1)
        out = input.mean((-1, -2, -3), keepdim=True)
        if suggest_memory_format(input) == CHANNELS_LAST:  # then restrides it in place (AsStridedBackward1)
            n, c = input.shape[:2]
            out.as_strided_((n, c, 1, 1, 1), (c, 1, c, c, c))
        return out
    _adaptive_input(input, 3, "adaptive_avg_pool3d")
    _kernels.check("adaptive_avg_pool3d_cpu", input.dtype)
    return _conv.AdaptiveAvgPool3d.apply(input, out_hw=size)


@_amp.float32_cpu
def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    _adaptive_input(input, 3, "adaptive_max_pool3d", range(1, input.ndim))
    _kernels.check("adaptive_max_pool3d_cpu", input.dtype)
    out, idx = _conv.AdaptiveMaxPool3d.apply(input, out_hw=_adaptive_size(input, output_size, 3))
    return (out, idx) if return_indices else out


# ---- a classifier's last layer and its loss in one call ----------------------------------------

def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",  # noqa: A002
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target). linear_weight is
    (C, in_features), or (C, d1, ..., dK, in_features) for a K-dimensional loss. PyTorch computes
    it in batch chunks when `options` is given (to save memory); minitorch checks the options and
    computes it as without them (README: "Differences from PyTorch")."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:  # (target: class probabilities)
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None and (out_features or reduction not in {"mean", "sum", "none"} or label_smoothing != 0.0
                                or target.dtype != _dtype.int64):
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum',"
                      "'none'}, label_smoothing == 0, target.dtype == int64, out_features == (). Got "
                      f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                      f"out_features={out_features}, tracing=False, linear_bias.shape="
                      f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
    if out_features:  # (one matrix product for every position, then the logits in their K-dim shape)
        linear_weight = linear_weight.reshape(math.prod(out_features, start=num_classes), in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


# ---- fractional max pooling: random, non-integer strides (nn/_fractional.py) -----------------

def _fractional_max_pool(input, kernel_size, output_size, output_ratio, samples, nd):  # noqa: A002
    """PyTorch's Python half: the output size (from output_ratio if not given) and one sample per
    plane and dim, drawn with torch.rand in the input's dtype."""
    op = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:
            raise ValueError(f"{op} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * nd
        output_size = [int(input.size(q - nd) * ratio[q]) for q in range(nd)]
    if samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        samples = _factories.rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device)
    return _fractional_max_pool_kernel(input, kernel_size, output_size, samples, nd)


@_amp.float32_cpu
def _fractional_max_pool_kernel(input, kernel_size, output_size, samples, nd):  # noqa: A002
    """PyTorch's kernel half: its checks, in its order, then the pooling."""
    op = f"fractional_max_pool{nd}d"
    name = op + ("_out" if nd == 3 else "")  # (the 3-D kernel's messages name it so)
    k = _int_tuple(kernel_size, nd, op, "kernel_size", 2)
    out = _int_tuple(output_size, nd, op, "output_size", 3)
    ints = "tuple of three Ints" if nd == 3 else "tuple of Ints"
    if len(k) != nd:
        raise RuntimeError(f"{op}: kernel_size must either be a single Int or {ints}")
    if len(out) != nd:
        raise RuntimeError(f"{op}: output_size must either be a single Int or {ints}")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    for d in range(input.ndim - nd - 1, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(input.shape)} with dimension {d} being empty.")
    size = input.shape[-nd:]
    names = ("height", "width") if nd == 2 else ("time", "height", "width")
    for q in ((0, 1) if nd == 2 else (0, 2, 1)):  # (the 3-D kernel checks the width before the height)
        if (out[q] + k[q] - 1 > size[q]) if nd == 2 else (out[q] + k[q] - 1 >= size[q]):
            raise RuntimeError(f"{name}(): pool {names[q]} {k[q]} too large relative to input {names[q]} {size[q]}")
    if samples.dtype is not input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = 1 if input.ndim == nd + 1 else input.shape[0]
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}.")
    if min(out) < 0:
        shape = list(input.shape[:-nd]) + list(out)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {shape}")
    _kernels.check(f"{op}_out_frame", input.dtype)
    pool = _fractional.FractionalMaxPool3d if nd == 3 else _fractional.FractionalMaxPool2d
    return pool.apply(input, kernel=k, out_size=out, samples=samples._data)


def _int_tuple(v, n, op, name, position):
    """An int[n] argument as PyTorch's argument parser reads it: one int for all n dims, or a
    sequence of ints (of any length: the kernel checks it)."""
    if isinstance(v, (tuple, list)):
        return _factories.int_list((tuple(v),), op, name, position)
    return _factories.int_list((v,), op, name, position) * n


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool2d's maxima and their indices, always both (return_indices is ignored)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,  # noqa: A002
                          _random_samples=None):
    """The maximum of kernel_size windows whose starts step by a random, fractional stride, to an
    output of output_size (or output_ratio times the input's size). The windows are drawn with
    torch.rand, one sample per (batch, channel) plane and dim, unless _random_samples gives them."""
    out = _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool3d's maxima and their indices, always both (return_indices is ignored)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,  # noqa: A002
                          _random_samples=None):
    """fractional_max_pool2d of (N, C, T, H, W) volumes: one sample per plane for each of T, H, W."""
    out = _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    """adaptive_max_pool1d's maxima and their indices, always both (as in PyTorch)."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    return adaptive_max_pool3d(input, output_size, return_indices=True)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _ntuple(output_size, 1)[0])).squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    _adaptive_input(input, 1, "adaptive_max_pool1d", range(1, input.ndim))
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, _ntuple(output_size, 1)[0]), return_indices=True)
    return (out.squeeze(-2), idx.squeeze(-2)) if return_indices else out.squeeze(-2)


# ---- spatial transformers: sampling grids (nn/_grid.py) ---------------------------------------

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) of the affine maps theta (N, 2, 3), for grid_sample into an
    output of `size` (N, C, H, W); theta (N, 3, 4) and size (N, C, D, H, W) for volumes."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(v) for v in size)
    if len(size) in (4, 5):
        nd = len(size) - 2
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (nd, nd + 1):
            raise ValueError(f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size {size}. "
                             f"Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {nd + 1}] "
                           f"but got: [{theta.shape[0]}, {nd + 1}].")
    return _grid.AffineGrid.apply(theta, size=size, align_corners=bool(align_corners))


@_amp.float32_cpu
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    """Read `input` (N, C, H, W) at the points of `grid` (N, H', W', 2), given in normalised
    coordinates (-1: the left/top edge, +1: the right/bottom one): out (N, C, H', W'). Between
    pixels by bilinear interpolation (or the nearest pixel); outside by padding_mode. The same for
    volumes (N, C, D, H, W) with grid (N, D', H', W', 3)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if input._device != grid._device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input.device} and grid is on {grid.device}")
    if input.dtype is not grid.dtype:
        raise hinted(RuntimeError, f"expected scalar type {grid.dtype._short} but found {input.dtype._short}",
                     f"grid_sample: the input is {input.dtype.name}, the grid {grid.dtype.name}: convert one")
    if input.ndim == 0 or grid.ndim == 0 or input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)}")
    for i in range(2, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")
    if input.ndim not in (4, 5) or input.ndim != grid.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and input.ndim == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    _kernels.check("grid_sampler_2d_cpu_kernel_impl" if input.ndim == 4 else "grid_sampler_3d_cpu", input.dtype,
                   _kernels.FLOATING, "grid_sample")
    sampler = _grid.GridSample if input.ndim == 4 else _grid.GridSample3d
    return sampler.apply(input, grid, mode=mode, padding_mode=padding_mode, align_corners=bool(align_corners))


# ---- embedding --------------------------------------------------------------------------------

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,  # noqa: A002
              sparse=False):
    """Rows of `weight` picked by the integer ids in `input`: (*) ids -> (*, embedding_dim).

    max_norm: the rows looked up are first rescaled in place (under no_grad) to norm at most
    max_norm, as PyTorch does; scale_grad_by_freq: each id's gradient is divided by how often it
    occurs in the batch; sparse=True gives the same gradient as a dense tensor (minitorch has
    no sparse tensors)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype not in (_dtype.int64, _dtype.int32):
        raise hinted(RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar "
                     f"types: Long, Int; but got {_type(input)} instead (while checking arguments for embedding)",
                     "token ids must be integers: convert with ids.long()")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    ids = input._data
    if input._device != weight._device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{weight.device} and {input.device}! (in embedding: move the ids with .to(device))")
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= num):
        bad = int(ids.max()) if int(ids.max()) >= num else int(ids.min())
        raise hinted(IndexError, "index out of range in self",
                     f"embedding has {num} rows, got id {bad}: ids must be in [0, {num - 1}]")
    if max_norm is not None:
        _embedding.renorm_(weight, ids, max_norm, norm_type)
    return EmbeddingLookup.apply(weight, ids=ids, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq,
                                 indices=input)


# ---- activations -------------------------------------------------------------------------------

def relu(input, inplace=False):  # noqa: A002
    if inplace and input.dtype is _dtype.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return input.relu_() if inplace else input.relu()


def relu_(input):  # noqa: A002
    return relu(input, inplace=True)


def elu_(input, alpha=1.0):  # noqa: A002
    return elu(input, alpha, inplace=True)


def selu_(input):  # noqa: A002
    return selu(input, inplace=True)


def celu_(input, alpha=1.0):  # noqa: A002
    return celu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):  # noqa: A002
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold, value):  # noqa: A002
    return _threshold(input, threshold, value, inplace=True)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):  # noqa: A002
    return _rrelu_with_generator(input, lower, upper, training, True, generator)


def sigmoid(input):  # noqa: A002
    return input.sigmoid()


def tanh(input):  # noqa: A002
    return input.tanh()


def _softmax_dim(name, ndim, dim):
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002  (PyTorch's order: its warning's depth)
    return _reduce.softmax(input, _softmax_dim("softmax", input.ndim, dim), dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002  (PyTorch's order: its warning's depth)
    return _reduce.log_softmax(input, _softmax_dim("log_softmax", input.ndim, dim), dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002  (PyTorch's order: its warning's depth)
    return _reduce.softmax(-input, _softmax_dim("softmin", input.ndim, dim), dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A differentiable sample of a categorical distribution: softmax((logits + g) / tau), with g
    Gumbel(0, 1) noise drawn as PyTorch draws it (-log of exponential_(), so the same seed gives the
    same sample). hard=True: the one-hot of the sample's argmax forward, the soft sample's gradient
    backward (the straight-through estimator)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_factories.empty_like(logits, memory_format=contiguous_format).exponential_().log()  # ~Gumbel(0, 1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _factories.zeros_like(logits, memory_format=contiguous_format).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def channel_shuffle(input, groups):  # noqa: A002
    """Regroup the channels of (N, C, *) as ShuffleNet does between grouped convolutions: split
    them into `groups` groups and interleave the groups (channel g*C/G + k goes to k*G + g)."""
    return _conv.ChannelShuffle.apply(input, groups=_shuffle_groups(input, groups))


def _shuffle_groups(input, groups):  # noqa: A002
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{groups} groups.")
    return int(groups)


class _NativeChannelShuffle(_conv.ChannelShuffle):
    """The kernel under channel_shuffle, which PyTorch records without a derivative: backward says so."""
    _node_name = "NotImplemented"

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::native_channel_shuffle is not implemented")


def native_channel_shuffle(input, groups):  # noqa: A002
    """channel_shuffle's result, from the kernel PyTorch exports under this name (no gradient)."""
    return _NativeChannelShuffle.apply(input, groups=_shuffle_groups(input, groups))


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zero each element with probability p and scale the rest by 1/(1-p), so the expected
    value is unchanged; identity when not training. Draws from minitorch's seeded generator."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p != p:  # NaN passes the check above; PyTorch's kernel then refuses it
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or not input.numel():  # (the input itself, as PyTorch's kernel returns it)
        return input
    if p == 1.0:  # zero in the input's dtype (NaN * 0 stays NaN, as in PyTorch)
        zero = input.new_zeros(())
        return input.mul_(zero) if inplace else input * zero
    _kernels.cast_to(_dtype.float32, input.dtype, "dropout")  # the mask is scaled by 1 / (1 - p)
    from .._random_fill import dropout_noise
    mask = dropout_noise(input, 1.0 - p)  # PyTorch's mask, bit for bit: bernoulli_(1 - p) / (1 - p)
    return input.mul_(mask) if inplace else input * mask


def _feature_dropout(input, p, training, inplace, op, unbatched):  # noqa: A002
    """Zero whole channels (dim 1: every value of a channel of a sample) with probability p, as
    PyTorch's feature_dropout; an `unbatched` input is given a batch dim for it (and loses it after)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    x = (input.unsqueeze_(0) if inplace else input.unsqueeze(0)) if unbatched else input
    if p != p:  # NaN passes the check above; PyTorch's kernel then refuses it
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or not x.numel():
        out = x  # (the input itself, as PyTorch's kernel returns it)
    elif p == 1.0:  # zero in the input's dtype (NaN * 0 stays NaN, as in PyTorch)
        zero = x.new_zeros(())
        out = x.mul_(zero) if inplace else x * zero
    else:
        if x.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        _kernels.cast_to(_dtype.float32, x.dtype, op)  # the mask is scaled by 1 / (1 - p)
        from .._random_fill import dropout_noise
        mask = dropout_noise(x, 1.0 - p, x.shape[:2] + (1,) * (x.ndim - 2))
        out = x.mul_(mask) if inplace else x * mask
    return (out.squeeze_(0) if inplace else out.squeeze(0)) if unbatched else out


def _odd_dims_warning(op, ndim, spatial):
    warnings.warn(f"{op}: Received a {ndim}-D input to {op}, which is deprecated and will result in an error in a "
                  f"future release. To retain the behavior and silence this warning, please use dropout instead. "
                  f"Note that {op} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, "
                  f"a channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
                  stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, "dropout1d", input.ndim == 2)


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        _odd_dims_warning("dropout2d", input.ndim, 2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, "dropout2d", False)  # (PyTorch adds no batch dim here)


def dropout3d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (4, 5):
        _odd_dims_warning("dropout3d", input.ndim, 3)
    return _feature_dropout(input, p, training, inplace, "dropout3d", input.ndim != 5)


def one_hot(input, num_classes=-1):
    """Class ids (*) -> (*, num_classes) int64, 1 at each id (num_classes=-1: the largest id + 1)."""
    if input.dtype is not _dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    ids = input._data
    if num_classes == -1:
        if ids.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(ids.max()) + 1
    if ids.size and int(ids.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if ids.size and int(ids.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    xp = input._device.xp
    out = (ids[..., None] == xp.arange(num_classes)).astype(xp.int64)
    return Tensor._make(out, input._device)


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    return input.flatten(start_dim, end_dim)


# ---- max unpooling: the inverse of max_pool with return_indices=True ------------------------

def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):  # noqa: A002
    """The inverse of max pooling: each pooled value goes back to the position its index names
    (an offset in the flattened spatial grid of its channel), every other position is 0. A
    scatter into zeros, so the gradient is the gather of the incoming gradient at those indices."""
    if indices.dtype != _dtype.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype._short}")
    spatial = input.shape[-n:]
    default = [(spatial[d] - 1) * stride[d] - 2 * padding[d] + kernel_size[d] for d in range(n)]
    size = default
    if output_size is not None:
        size = list(output_size)
        if len(size) == input.ndim:
            size = size[-n:]
        if len(size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(size)}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < size[d] < hi:
                raise ValueError(f'invalid output_size "{list(output_size)}" (dim {d} must be between {lo} and {hi})')
    lead = tuple(input.shape[:-n])
    numel = math.prod(size)
    flat_index = indices.reshape(*lead, -1)
    invalid = flat_index[(flat_index < 0) | (flat_index >= numel)]
    if invalid.numel():
        bad = int(invalid[0])
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(v) for v in size)})")
    if n == 1:  # PyTorch unpools a signal as a one-column image
        return _conv.MaxUnpool2d.apply(input.unsqueeze(-1), index=indices._data[..., None],
                                       size=(size[0], 1)).squeeze(-1)
    pool = _conv.MaxUnpool3d if n == 3 else _conv.MaxUnpool2d
    return pool.apply(input, index=indices._data, size=tuple(size))


def _unpool_args(kernel_size, stride, padding, n):
    """kernel_size, stride (kernel_size when None) and padding as n-tuples."""
    return (_ntuple(kernel_size, n), _ntuple(stride if stride is not None else kernel_size, n), _ntuple(padding, n))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    return _max_unpool(input, indices, *_unpool_args(kernel_size, stride, padding, 1), output_size, 1)


@_amp.float32_cpu
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    return _max_unpool(input, indices, *_unpool_args(kernel_size, stride, padding, 2), output_size, 2)


@_amp.float32_cpu
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    return _max_unpool(input, indices, *_unpool_args(kernel_size, stride, padding, 3), output_size, 3)


# ---- alpha dropout (for SELU networks) ------------------------------------------------------

def _alpha_dropout(input, p, training, inplace, feature):  # noqa: A002
    """Dropout for SELU networks: a dropped value becomes SELU's negative saturation -alpha*scale
    instead of 0, then an affine map a*x + b puts mean 0 and variance 1 back (PyTorch's formula
    and draws: noise = bernoulli_(1 - p); b = (noise - 1) * alpha' * a + alpha' * a * p; out =
    x * (noise * a) + b, with alpha' = 1.7580993408473766, a = 1 / sqrt((alpha'^2 p + 1)(1 - p))).
    feature=True drops whole channels (FeatureAlphaDropout)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1.0:
        zero = input.new_zeros(())
        return input.mul_(zero) if inplace else input * zero
    from ..autograd.grad_mode import no_grad
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    with no_grad():
        if feature:  # one draw per (sample, channel)
            noise = input.new_empty(tuple(input.shape[:2]) + (1,) * (input.ndim - 2))
        else:
            noise = _factories.empty_like(input)
        noise.bernoulli_(1 - p)
        b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p)
        noise.mul_(a)
    return input.mul_(noise).add_(b) if inplace else (input * noise).add_(b)


def alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    return _alpha_dropout(input, p, training, inplace, feature=True)
