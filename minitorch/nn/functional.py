"""`minitorch.nn.functional` (usually imported as F): the layers and losses as functions.

A Module like `nn.Linear` only holds parameters; the computing happens here. Most functions
are short compositions of tensor ops (their gradients come from the ops); convolution,
pooling, embedding and the logits form of binary cross-entropy are primitives with their own
forward and backward (see _conv.py, _embedding.py and BCEWithLogits below).
"""
from __future__ import annotations

import numbers
import warnings

from .. import _dtype
from .._ops import reduce as _reduce
from .._ops._prim import Primitive
from .._tensor import Tensor
from . import _conv, _fused
from ._embedding import EmbeddingLookup


# ---- argument helpers ------------------------------------------------------------------------

def _pair(v, name="argument"):
    if isinstance(v, numbers.Integral):
        return (int(v), int(v))
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return v * 2
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {v}")
    return v


def _type(t):
    return t._type_name()


# ---- linear layers ---------------------------------------------------------------------------

def linear(input, weight, bias=None):  # noqa: A002
    """y = x W^T + b, for x of shape (*, in_features) and W of shape (out_features, in_features)."""
    if _fused.linear_fits(input, weight, bias):
        return _fused.linear(input, weight, bias)
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def _batchify(input, op, dims=4):
    """Accept an unbatched (C, H, W) image as PyTorch does; returns (batched input, unbatch flag)."""
    if input.ndim == dims - 1:
        return input.unsqueeze(0), True
    if input.ndim != dims:
        raise RuntimeError(f"Expected {dims - 1}D (unbatched) or {dims}D (batched) input to {op}, but got input of "
                           f"size: {list(input.shape)}")
    return input, False


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """2-D cross-correlation (what deep learning calls convolution) of a (N, C, H, W) batch with
    weight (O, C, kh, kw): im2col + one matrix product (see nn/_conv.py)."""
    if groups != 1:
        raise NotImplementedError("conv2d: groups != 1 is not supported by minitorch (use groups=1)")
    x, unbatched = _batchify(input, "conv2d")
    if weight.ndim != 4:
        raise RuntimeError(f"conv2d: expected a 4-D weight (out_channels, in_channels, kH, kW), got shape "
                           f"{list(weight.shape)}")
    if x.dtype is not weight.dtype or (bias is not None and bias.dtype is not weight.dtype):
        other = bias if x.dtype is weight.dtype else x
        raise RuntimeError(f"Input type ({_type(x)}) and weight type ({_type(weight)}) should be the same"
                           + ("" if other is x else f" (and bias type {_type(bias)})")
                           + " (convert one, e.g. x = x.to(weight.dtype), or model.double())")
    if x._device != weight._device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{x.device} and {weight.device}! (in conv2d: move the input with x.to(device))")
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    k = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise ValueError("padding='same' is not supported for strided convolutions")
            tot = [dilation[i] * (k[i] - 1) for i in range(2)]
            if any(t % 2 for t in tot):
                raise NotImplementedError("padding='same' with an even kernel needs asymmetric padding, "
                                          "which minitorch does not support")
            padding = (tot[0] // 2, tot[1] // 2)
        else:
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    padding = _pair(padding, "padding")
    if x.shape[1] != weight.shape[1]:
        raise RuntimeError(
            f"Given groups=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} to have "
            f"{weight.shape[1]} channels, but got {x.shape[1]} channels instead")
    ph, pw = x.shape[2] + 2 * padding[0], x.shape[3] + 2 * padding[1]
    eh, ew = dilation[0] * (k[0] - 1) + 1, dilation[1] * (k[1] - 1) + 1
    if ph < eh or pw < ew:
        raise RuntimeError(f"Calculated padded input size per channel: ({ph} x {pw}). Kernel size: ({eh} x {ew}). "
                           "Kernel size can't be greater than actual input size")
    out = _conv.Conv2d.apply(x, weight, bias, stride=stride, padding=padding, dilation=dilation)
    return out.squeeze(0) if unbatched else out


def _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, op):
    if ceil_mode:
        raise NotImplementedError(f"{op}: ceil_mode=True is not supported by minitorch")
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0) else _pair(stride)
    p, d = _pair(padding, "padding"), _pair(dilation, "dilation")
    for i in range(2):
        if p[i] * 2 > k[i]:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
    x, unbatched = _batchify(input, op)
    for i in range(2):
        if _conv.out_size(x.shape[2 + i], k[i], s[i], p[i], d[i]) <= 0:
            raise RuntimeError(f"{op}: output size is too small: input {list(x.shape)}, kernel_size {k}, "
                               f"stride {s}, padding {p}, dilation {d}")
    return x, unbatched, k, s, p, d


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """The maximum of every kernel_size window (stride defaults to kernel_size)."""
    x, unbatched, k, s, p, d = _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    out, idx = _conv.MaxPool2d.apply(x, kernel=k, stride=s, padding=p, dilation=d)
    if unbatched:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002
    """The mean of every window (zero padding counted, PyTorch's default): im2col, then mean."""
    if not count_include_pad:
        raise NotImplementedError("avg_pool2d: count_include_pad=False is not supported by minitorch")
    x, unbatched, k, s, p, d = _pool_args(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    n, c, h, w = x.shape
    oh, ow = (_conv.out_size(h, k[0], s[0], p[0], 1), _conv.out_size(w, k[1], s[1], p[1], 1))
    cols = _conv.im2col(x.reshape(n * c, 1, h, w), k, s, p, (1, 1))
    out = cols.mean(1).reshape(n, c, oh, ow)
    return out.squeeze(0) if unbatched else out


# ---- embedding --------------------------------------------------------------------------------

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,  # noqa: A002
              sparse=False):
    """Rows of `weight` picked by the integer ids in `input`: (*) ids -> (*, embedding_dim)."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are not supported by minitorch")
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {_type(input)} instead (while checking arguments for embedding). Token ids must be "
            "integers: convert with ids.long()")
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
        raise IndexError(f"index out of range in self (embedding has {num} rows, got id {bad}; ids must be in "
                         f"[0, {num - 1}])")
    return EmbeddingLookup.apply(weight, ids=ids, padding_idx=padding_idx)


# ---- activations -------------------------------------------------------------------------------

def relu(input, inplace=False):  # noqa: A002
    return input.relu_() if inplace else input.relu()


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    from .._ops.pointwise import where
    return where(input > 0, input, input * negative_slope)


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


def softmax(input, dim=None, dtype=None):  # noqa: A002
    return _reduce.softmax(input, _softmax_dim("softmax", input.ndim, dim), dtype)


def log_softmax(input, dim=None, dtype=None):  # noqa: A002
    return _reduce.log_softmax(input, _softmax_dim("log_softmax", input.ndim, dim), dtype)


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zero each element with probability p and scale the rest by 1/(1-p), so the expected
    value is unchanged; identity when not training. Draws from minitorch's seeded generator."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    from .._factories import rand
    keep = rand(input.shape, dtype=input.dtype, device=input.device) < (1.0 - p)
    mask = keep.to(input.dtype) * (1.0 / (1.0 - p))
    return input.mul_(mask) if inplace else input * mask


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    return input.flatten(start_dim, end_dim)


# ---- losses ------------------------------------------------------------------------------------

def _reduce_loss(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _same_size(input, target, name):  # noqa: A002
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                      "the same size.", stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """mean((input - target)^2)."""
    _check_reduction(reduction)
    _same_size(input, target, "mse_loss")
    d = input - target
    loss = d * d
    if weight is not None:
        loss = loss * weight
    return _reduce_loss(loss, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    _check_reduction(reduction)
    _same_size(input, target, "l1_loss")
    return _reduce_loss((input - target).abs(), reduction)


def _class_dim(input):  # noqa: A002
    return 1 if input.ndim >= 2 else 0


def _check_targets(input, target, op):  # noqa: A002
    if target.dtype.is_floating_point or target.dtype is _dtype.bool:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._short} ({op} with class-index "
                           "targets needs integer class ids: use target.long())")
    cdim = _class_dim(input)
    expect = input.shape[:cdim] + input.shape[cdim + 1:]
    if tuple(target.shape) != tuple(expect):
        if input.ndim >= 2 and target.ndim >= 1 and target.shape[0] != input.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                             f"({target.shape[0]}).")
        raise RuntimeError(f"{op}: expected target of shape {list(expect)} for input of shape {list(input.shape)} "
                           f"(class dim {cdim}), got {list(target.shape)}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
             reduction="mean"):
    """The negative log-likelihood of the target classes, given log-probabilities `input`
    of shape (N, C) (or (C,), or (N, C, d1, ...)) and class ids `target` of shape (N) (...)."""
    _check_reduction(reduction)
    _check_targets(input, target, "nll_loss")
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype._short} (class ids for "
            "nll_loss / cross_entropy are int64: use target.long())")
    cdim = _class_dim(input)
    n_classes = input.shape[cdim]
    if input.ndim == 2 and target.ndim == 1 and (weight is None or weight._device is input._device):
        t = target._data
        if t.size:
            kept = t[t != ignore_index]
            if kept.size and (int(kept.min()) < 0 or int(kept.max()) >= n_classes):
                bad = int(kept.max()) if int(kept.max()) >= n_classes else int(kept.min())
                raise IndexError(f"Target {bad} is out of bounds. (nll_loss over {n_classes} classes: class "
                                 f"ids must be in [0, {n_classes - 1}])")
        return _fused.NllLoss.apply(input, target=t.astype("int64", copy=False),
                                    weight=None if weight is None else weight.detach()._data,
                                    ignore_index=ignore_index, reduction=reduction)
    valid = target != ignore_index
    t = target.long().masked_fill(~valid, 0)
    if t.numel():
        lo, hi = int(t.min()), int(t.max())
        if lo < 0 or hi >= n_classes:
            raise IndexError(f"Target {hi if hi >= n_classes else lo} is out of bounds. (nll_loss over "
                             f"{n_classes} classes: class ids must be in [0, {n_classes - 1}])")
    picked = input.gather(cdim, t.unsqueeze(cdim)).squeeze(cdim)
    w = valid.to(input.dtype)
    if weight is not None:
        w = weight[t] * w
    loss = -picked * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
                  reduction="mean", label_smoothing=0.0):
    """Softmax + negative log-likelihood in one numerically stable step (log_softmax never
    forms exp of a large logit). `target` holds class ids (N,) or class probabilities (N, C)."""
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = _class_dim(input)
    logp = _reduce.log_softmax(input, cdim)
    n_classes = input.shape[cdim]
    wshape = [1] * input.ndim
    wshape[cdim] = n_classes
    if target.dtype.is_floating_point and target.shape == input.shape:  # class probabilities
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        loss = -prod.sum(cdim)
        if reduction == "mean":
            return loss.sum() / (input.numel() // n_classes if input.numel() else 1)
        return _reduce_loss(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    ignore = target == ignore_index
    smooth = -(logp * weight.reshape(wshape)).sum(cdim) if weight is not None else -logp.sum(cdim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == "mean":
        if weight is not None:
            t = target.long().masked_fill(ignore, 0)
            denom = (weight[t] * (~ignore).to(input.dtype)).sum()
        else:
            denom = (~ignore).sum()
        smooth = smooth.sum() / denom
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / n_classes)


class BCEWithLogits(Primitive):
    """Binary cross-entropy on logits, elementwise, never overflowing:

        loss = (1 - y) x + lw * (log(1 + exp(-|x|)) + max(-x, 0)),   lw = 1 + (pos_weight - 1) y
        d loss / dx = (1 - y) - lw * sigmoid(-x)     (= sigmoid(x) - y without pos_weight)
        d loss / dy = -x + (pos_weight - 1) log(1 + exp(-x))
    """
    _node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x, y, pos_weight):
        xp = x._device.xp
        a, b = x._data, y._data
        softplus = xp.log1p(xp.exp(-xp.abs(a))) + xp.maximum(-a, 0)  # log(1 + exp(-x)), stable
        if pos_weight is None:
            out = (1 - b) * a + softplus
        else:
            out = (1 - b) * a + (1 + (pos_weight._data - 1) * b) * softplus
        ctx.save_for_backward(x, y, pos_weight)
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, y, pw = ctx.saved_tensors
        s_neg = (-x).sigmoid()
        gx = gy = None
        if ctx.needs_input_grad[0]:
            gx = grad * ((1 - y) - s_neg if pw is None else (1 - y) - (1 + (pw - 1) * y) * s_neg)
        if ctx.needs_input_grad[1]:
            # d/dy: -x + (pos_weight - 1) * softplus(-x)
            if pw is None:
                gy = grad * -x
            else:
                softplus = (-x).relu() + (-x.abs()).exp().log1p()  # log(1 + exp(-x)), stable
                gy = grad * (-x + (pw - 1) * softplus)
        return gx, gy, None


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                     reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable step: safe for logits of any size."""
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {target.dtype._short} "
            "(binary_cross_entropy_with_logits needs float targets, 0. or 1.: use target.float())")
    loss = BCEWithLogits.apply(input, target, pos_weight)
    if weight is not None:
        loss = loss * weight
    return _reduce_loss(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                         reduction="mean"):
    """Binary cross-entropy on probabilities; logs are clamped at -100, as in PyTorch. Prefer
    binary_cross_entropy_with_logits, which is stable."""
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    loss = -(target * input.log().clamp(min=-100) + (1 - target) * (1 - input).log().clamp(min=-100))
    if weight is not None:
        loss = loss * weight
    return _reduce_loss(loss, reduction)

