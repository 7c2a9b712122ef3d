"""Losses: how far predictions are from their targets, as one number to minimise
(reduction='mean', the default, or 'sum') or one per element or sample (reduction='none').

PyTorch computes its common losses as one fused op each, which shows in their grad_fn
(MseLossBackward0, NllLossBackward0, ...), and so do we: a loss primitive computes the
elementwise loss and its reduction in forward; its backward is the derivative, written with
tensor ops (so second derivatives work). The rarer losses are short compositions of tensor
ops, the same compositions PyTorch uses.
"""
from __future__ import annotations

import math
import warnings

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype
from .._errors import hinted
from . import _kernels
from .._ops import reduce as _reduce
from .._ops import _prim
from .._ops._prim import Primitive
from .._ops.common import broadcast_shapes, result_dtype
from .._ops.index import check_alive
from .._ops.pointwise import Div, _fp_quiet, where


# ---- reductions and argument checks ---------------------------------------------------------

def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


class _DivByNumber(Div):
    """A tensor divided by a number inside one of PyTorch's C++ losses: its div.Scalar overload,
    which names its node DivBackward1 (a Python `t / n` is DivBackward0)."""
    _node_name = "DivBackward1"


def _legacy(size_average, reduce, reduction):
    """The deprecated size_average / reduce arguments, mapped to a reduction as PyTorch does."""
    if size_average is None and reduce is None:
        _check_reduction(reduction)
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=3)
    return reduction


def _reduce_loss(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce_array(xp, loss, reduction):
    if reduction == "none":
        return loss
    with _fp_quiet():  # (inf - inf in a sum is nan, silently, as in PyTorch)
        return _reduce_array_loud(xp, loss, reduction)


def _reduce_array_loud(xp, loss, reduction):
    if loss.dtype == xp.float16:  # (summed in float; the mean divided there too, as PyTorch's CPU mean)
        total = loss.astype(xp.float32).sum()
        if reduction == "mean":
            total = total / loss.size if loss.size else xp.float32(xp.nan)
        return total.astype(loss.dtype)
    total = loss.sum()
    if reduction == "sum":
        return total
    return total / loss.size if loss.size else xp.asarray(xp.nan, dtype=loss.dtype)


def _same_size(input, target, name):  # noqa: A002
    """PyTorch's warning for operands of different shapes, which it then broadcasts to one shape
    (so a 0-d operand takes part in dtype promotion as a full tensor)."""
    if target.shape == input.shape:
        return input, target
    warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                  "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                  "the same size.", stacklevel=3)
    from .._ops.shape_ops import broadcast_tensors
    return broadcast_tensors(input, target)


def _promote(input, target):  # noqa: A002
    """Both operands in their common dtype (float32 + float64 computes in float64, as PyTorch)."""
    dt = result_dtype(input, target)
    return (input if input.dtype is dt else input.to(dt)), (target if target.dtype is dt else target.to(dt))


def _check_weight(weight, input):  # noqa: A002
    if weight is not None and weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")


# ---- fused elementwise losses ------------------------------------------------------------------

class _PointwiseLoss(Primitive):
    """loss = reduce(f(x, y)) in one node. A subclass gives f on arrays (`value`) and its
    partial derivatives as tensor ops (`slopes`); backward is the upstream gradient, spread
    over the elements (and divided by their number for the mean), times each slope.

    f is computed in the operands' common dtype (half in float, rounded once, as PyTorch's
    kernels do) and stored in `out_dtype` (the common dtype unless the loss says otherwise)."""

    promote = True  # False: `value` takes the operands in their own dtypes
    half_steps = False  # True: in half, each step of `value` rounds to half (PyTorch's ops, not one kernel)

    @classmethod
    def forward(cls, ctx, x, y, *, reduction, out_dtype=None, **opts):
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.opts = reduction, opts
        xp = x._device.xp
        dt = result_dtype(x, y).np
        out = dt if out_dtype is None else out_dtype.np
        if dt == xp.float16 and not cls.half_steps:
            dt = xp.float32
        a, b = (x._data.astype(dt, copy=False), y._data.astype(dt, copy=False)) if cls.promote else (x._data, y._data)
        with _fp_quiet():
            loss = cls.value(xp, a, b, **opts)
        loss = loss.astype(out, copy=False)
        ctx.n = loss.size
        return _reduce_array(xp, loss, reduction)

    @classmethod
    def backward(cls, ctx, grad):
        x, y = ctx.saved_tensors
        if ctx.reduction == "mean":
            grad = grad / ctx.n
        dx, dy = cls.slopes(x, y, **ctx.opts)
        need = ctx.needs_input_grad
        need = (need[0], need[1] and dy is not None)
        return (grad * dx if need[0] else None), (grad * dy if need[1] else None)


def _numbers(x, y):
    """A bool operand as 0. / 1. in the other's dtype (PyTorch's backward kernels read it so)."""
    if x.dtype is _dtype.bool or y.dtype is _dtype.bool:
        dt = result_dtype(x, y)
        return x.to(dt), y.to(dt)
    return x, y


class MseLoss(_PointwiseLoss):
    """(x - y)^2;  d/dx = 2 (x - y) = -d/dy."""
    _node_name = "MseLossBackward0"
    half_steps = True  # (PyTorch: (x - y).pow_(2))

    @staticmethod
    def value(xp, a, b):
        return (a - b) * (a - b)

    @staticmethod
    def slopes(x, y):
        x, y = _numbers(x, y)
        d = 2 * (x - y)
        return d, -d

    @classmethod
    def backward(cls, ctx, grad):  # PyTorch's steps, (x - y) * grad * norm (half rounds after each)
        x, y = _numbers(*ctx.saved_tensors)
        norm = (2. / ctx.n if ctx.n else math.inf) if ctx.reduction == "mean" else 2.
        need = ctx.needs_input_grad
        return ((x - y) * grad * norm if need[0] else None), ((y - x) * grad * norm if need[1] else None)


class SmoothL1Loss(_PointwiseLoss):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta  (d = x - y);  d/dx = clamp(d / beta, -1, 1)."""
    _node_name = "SmoothL1LossBackward0"

    @staticmethod
    def value(xp, a, b, beta):
        d = xp.abs(a - b)
        return xp.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)

    @staticmethod
    def slopes(x, y, beta):
        x, y = _numbers(x, y)
        d = ((x - y) / beta).clamp(-1, 1)
        return d, -d


class HuberLoss(_PointwiseLoss):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta);  d/dx = clamp(d, -delta, delta)."""
    _node_name = "HuberLossBackward0"

    @staticmethod
    def value(xp, a, b, delta):
        d = xp.abs(a - b)
        return xp.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))

    @staticmethod
    def slopes(x, y, delta):
        _kernels.same_dtype(y, x, "huber_loss_backward")  # PyTorch's backward kernel takes one dtype
        d = (x - y).clamp(-delta, delta)
        return d, -d


class SoftMarginLoss(_PointwiseLoss):
    """log(1 + exp(-y x));  d/dx = -y z / (1 + z), z = exp(-y x), as PyTorch writes it (-y in
    the target's dtype, so a bool target fails here, in backward, as in PyTorch). PyTorch does
    not differentiate the target (soft_margin_loss refuses one that requires grad)."""
    _node_name = "SoftMarginLossBackward0"

    @staticmethod
    def value(xp, a, b):
        return xp.log1p(xp.exp(-a * b))

    @staticmethod
    def slopes(x, y):
        z = (-y * x).exp()
        return -(y * z) / (z + 1), None


class BinaryCrossEntropy(_PointwiseLoss):
    """-w (y log x + (1 - y) log(1 - x)), each log clamped at -100 as in PyTorch;
    d/dx = w (x - y) / max(x (1 - x), 1e-12),  d/dy = w (log(1 - x) - log x)."""
    _node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def value(xp, a, b, weight):
        loss = -(b * xp.maximum(xp.log(a), -100) + (1 - b) * xp.maximum(xp.log1p(-a), -100))
        return loss if weight is None else loss * weight._data

    @staticmethod
    def slopes(x, y, weight):
        w = 1 if weight is None else weight
        with _fp_quiet():
            return w * (x - y) / ((1 - x) * x).clamp(min=1e-12), w * ((-x).log1p() - x.log())


class BinaryCrossEntropyWithLogits(_PointwiseLoss):
    """Binary cross-entropy on logits, never overflowing, as PyTorch composes it:

        loss = w ((1 - y) x - lw log_sigmoid(x)),   lw = 1 + (pos_weight - 1) y
        d/dx = w ((1 - y) - lw sigmoid(-x))      (= w (sigmoid(x) - y) without pos_weight)
        d/dy = w (-x + (pos_weight - 1) log(1 + exp(-x)))

    log_sigmoid(x) (times lw) is computed in the input's dtype, the rest in the target's."""
    _node_name = "BinaryCrossEntropyWithLogitsBackward0"
    promote = False

    @staticmethod
    def value(xp, a, b, weight, pos_weight):
        from ._activation import LogSigmoid
        log_sig = LogSigmoid.values(xp, a, {})
        if pos_weight is not None:
            log_sig = (log_sig * (1 + (pos_weight._data - 1) * b)).astype(a.dtype, copy=False)
        loss = (((1 - b) * a).astype(b.dtype, copy=False) - log_sig).astype(b.dtype, copy=False)
        return loss if weight is None else (loss * weight._data).astype(b.dtype, copy=False)

    @staticmethod
    def slopes(x, y, weight, pos_weight):
        # (PyTorch's backward formulas, in its order of operations, so that they round as its do)
        from ._activation import logsigmoid
        w = 1 if weight is None else weight
        if pos_weight is None:
            return w * (x.sigmoid() - y), w * -x
        t = pos_weight * y
        return w * ((t + 1 - y) * x.sigmoid() - t), w * (logsigmoid(-x) - logsigmoid(x) * pos_weight)


@_amp.float32
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """mean((input - target)^2)."""
    input, target = _same_size(input, target, "mse_loss")  # noqa: A001
    reduction = _legacy(size_average, reduce, reduction)
    _kernels.check("mse_cpu", result_dtype(input, target), op="mse_loss")
    if weight is not None:
        input, target = _promote(input, target)  # noqa: A001
        _check_weight(weight, input)
        loss = (input - target).pow(2) * weight
        return loss.sum() / weight.sum() if reduction == "mean" else _reduce_loss(loss, reduction)
    return MseLoss.apply(input, target, reduction=reduction)


@_amp.float32
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """mean(|input - target|)."""
    input, target = _same_size(input, target, "l1_loss")  # noqa: A001
    reduction = _legacy(size_average, reduce, reduction)
    loss = (input - target).abs()
    if weight is not None:
        _check_weight(weight, input)
        loss = loss * weight
        return loss.sum() / weight.sum() if reduction == "mean" else _reduce_loss(loss, reduction)
    return _reduce_loss(loss, reduction)


@_amp.float32
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):  # noqa: A002
    """Squared error below beta, absolute error (less 0.5 beta) above: robust to outliers."""
    input, target = _same_size(input, target, "smooth_l1_loss")  # noqa: A001
    reduction = _legacy(size_average, reduce, reduction)
    if not beta >= 0:  # (NaN too, as PyTorch's check)
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    _kernels.check("smooth_l1_cpu", result_dtype(input, target), op="smooth_l1_loss")
    return SmoothL1Loss.apply(input, target, reduction=reduction, beta=beta)


@_amp.float32
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):  # noqa: A002
    """Squared error below delta, delta * (absolute error - 0.5 delta) above."""
    input, target = _same_size(input, target, "huber_loss")  # noqa: A001
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    common = result_dtype(input, target)
    _kernels.cast_to(common, input.dtype, "huber_loss")  # PyTorch's huber_loss keeps the input's dtype
    _kernels.check("huber_cpu", common, op="huber_loss")
    if weight is None:
        return HuberLoss.apply(input, target, reduction=reduction, delta=delta, out_dtype=input.dtype)
    _check_weight(weight, input)
    loss = HuberLoss.apply(input, target, reduction="none", delta=delta, out_dtype=input.dtype)
    return _reduce_loss(loss * weight, reduction)


@_amp.float32
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """log(1 + exp(-target * input)), for targets +-1."""
    _same_size(input, target, "soft_margin_loss")
    reduction = _legacy(size_average, reduce, reduction)
    if target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    # PyTorch computes -input, times target, exp, log1p, each in place in a tensor of the input's dtype
    if input.dtype is _dtype.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    _kernels.cast_to(result_dtype(input, target), input.dtype, "soft_margin_loss")
    _kernels.cast_to(_dtype.float32, input.dtype, "soft_margin_loss")
    return SoftMarginLoss.apply(input, target, reduction=reduction, out_dtype=input.dtype)


def _bce_weight(weight, target):
    """binary_cross_entropy's weight, expanded to the target's shape as PyTorch's F.binary_cross_entropy
    does (torch.broadcast_shapes, then expand); a weight that broadcasts to a larger shape is refused
    by the kernel, which writes a result of the target's shape."""
    if weight is None:
        return None
    common = [1] * max(weight.ndim, target.ndim)
    for arg, shape in enumerate((target.shape, weight.shape)):  # (torch.broadcast_shapes, its message)
        for i in range(-1, -len(shape) - 1, -1):
            if common[i] == 1:
                common[i] = shape[i]
            elif shape[i] != 1 and shape[i] != common[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching "
                                   f"argument at index {arg} had {shape}; but expected shape should be broadcastable "
                                   f"to {common}")
    _fits_loss(target, common)
    return weight.expand(target.shape).detach()


def _fits_loss(target, shape):
    """PyTorch multiplies a weight into the loss in place: it may not make the loss larger."""
    if tuple(shape) != tuple(target.shape):
        raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the broadcast shape {list(shape)}")


@_amp.float32
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                         reduction="mean"):
    """Binary cross-entropy on probabilities; logs are clamped at -100, as in PyTorch. Prefer
    binary_cross_entropy_with_logits, which is stable."""
    reduction = _legacy(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    _kernels.no_grad_arg(weight, "weight", "binary_cross_entropy")
    _kernels.same_dtype(target, input, "binary_cross_entropy")
    _kernels.check("binary_cross_entropy", input.dtype, op="binary_cross_entropy")
    a = input._data
    if a.size and not bool(((a >= 0) & (a <= 1)).all()):  # (NaN fails, as in PyTorch)
        raise hinted(RuntimeError, "all elements of input should be between 0 and 1", "pass probabilities, e.g. "
                     "after a sigmoid; for raw scores use binary_cross_entropy_with_logits")
    b = target._data
    if b.size and not bool(((b >= 0) & (b <= 1)).all()):
        raise hinted(RuntimeError, "all elements of target should be between 0 and 1",
                     "binary_cross_entropy takes probabilities as targets")
    input, target = _promote(input, target)  # noqa: A001
    return BinaryCrossEntropy.apply(input, target, reduction=reduction, weight=_bce_weight(weight, target))


@_amp.float32
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                     reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable step: safe for logits of any size."""
    reduction = _legacy(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    _kernels.no_grad_arg(pos_weight, "pos_weight", "binary_cross_entropy_with_logits")
    _kernels.check("log_sigmoid_cpu", input.dtype, op="binary_cross_entropy_with_logits")
    if pos_weight is not None and pos_weight.dtype is _dtype.bool:  # (PyTorch computes pos_weight - 1)
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    # PyTorch computes (1 - target) * input - log_sigmoid(input) into a tensor of the target's dtype
    if target.dtype is _dtype.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead. (binary_cross_entropy_with_logits takes float targets: "
                           "use target.float())")
    _kernels.cast_to(input.dtype, target.dtype, "binary_cross_entropy_with_logits")
    if pos_weight is not None:  # (PyTorch broadcasts pos_weight against the target, then into log_sigmoid(input))
        _fits_loss(target, broadcast_shapes(pos_weight.shape, target.shape, op="binary_cross_entropy_with_logits"))
    if weight is not None:  # (and the weight into the loss)
        _fits_loss(target, broadcast_shapes(target.shape, weight.shape, op="binary_cross_entropy_with_logits"))
        weight = weight.expand(target.shape).detach()
    pos_weight = None if pos_weight is None else pos_weight.detach()
    return BinaryCrossEntropyWithLogits.apply(input, target, reduction=reduction, out_dtype=target.dtype,
                                              weight=weight, pos_weight=pos_weight)


# ---- class-index losses ------------------------------------------------------------------------

def _class_dim(input):  # noqa: A002
    return 1 if input.ndim >= 2 else 0


def _check_targets(input, target, op):  # noqa: A002
    """PyTorch's shape checks, in its order: (N, C) or (C,) input takes (N,) or () class ids,
    (N, C, d1, ...) takes (N, d1, ...)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    batch = target.shape[0] if target.ndim else 0
    if input.ndim != 1 and batch != input.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({batch}).")
    expect = input.shape[:1] + input.shape[2:] if input.ndim >= 2 else ()
    hint = f"{op}: input of shape {list(input.shape)} takes class ids of shape {list(expect)}, got {list(target.shape)}"
    if input.ndim <= 2 and target.ndim > 1:
        raise hinted(RuntimeError, "0D or 1D target tensor expected, multi-target not supported", hint)
    if input.ndim > 2 and tuple(target.shape) != tuple(expect):
        raise hinted(RuntimeError, f"Expected target size {list(expect)}, got {list(target.shape)}", hint)


class NllLoss(Primitive):
    """The negative log-likelihood of class ids, over rows of log-probabilities (M, C):

        forward:  loss_i = -w[t_i] * logp[i, t_i]   (w: the class weight, 0 where t_i is ignored)
                  mean = sum of loss_i / sum of w[t_i]
        backward: dlogp[i, t_i] = -w[t_i] * g_i (/ sum of w for the mean); 0 everywhere else,
                  and on ignored rows (so a batch whose every target is ignored gets 0, not nan)

    An (N, C, d1, ...) input is computed as rows (N*d1*..., C) (PyTorch's NllLoss2d)."""
    _node_name = "NllLossBackward0"
    reads_input_in_backward = False
    array_backward = True  # the formula below also runs on arrays (see _ops/_prim.py)

    @staticmethod
    def forward(ctx, logp, *, target, weight, ignore_index, reduction, out_shape):
        xp = logp._device.xp
        a = logp._data
        c = a.shape[_class_dim(logp)]
        rows = a.reshape(1, c) if a.ndim == 1 else a if a.ndim == 2 else xp.moveaxis(a, 1, -1).reshape(-1, c)
        target = target.reshape(-1)
        valid = target != ignore_index
        t = xp.where(valid, target, 0)
        w = valid.astype(a.dtype)
        if weight is not None:
            w = w * weight[t]
        losses = xp.where(valid, -rows[xp.arange(rows.shape[0]), t] * w, 0)  # (an ignored row's nan stays out)
        ctx.t, ctx.w, ctx.valid, ctx.reduction, ctx.shape = t, w, valid, reduction, logp.shape
        if reduction == "none":
            return losses.reshape(out_shape)
        denom = ctx.denom = w.sum() if reduction == "mean" else 1
        with _fp_quiet():
            return losses.sum() / denom

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # (the target is saved for backward, as in PyTorch)
        xp = _prim.array_module(grad)
        with _fp_quiet():
            coef = xp.where(ctx.valid, -ctx.w / ctx.denom if ctx.reduction != "none" else -ctx.w, 0)
        shape = ctx.shape
        c = shape[1] if len(shape) >= 2 else shape[0]
        coef = coef.astype(ctx.w.dtype, copy=False)
        g = (NllLossGrad.apply(grad, t=ctx.t, coef=coef, n_classes=c) if _prim.is_tensor(grad) else
             NllLossGrad.forward(_prim.NULL_CTX, grad, t=ctx.t, coef=coef, n_classes=c))
        if len(shape) > 2:  # rows back to (N, C, d1, ...)
            g = g.reshape((shape[0],) + tuple(shape[2:]) + (c,))
            g = _prim.permute(g, (0, g.ndim - 1, *range(1, g.ndim - 1)))  # the class dim back to 1
        return (g if g.shape == shape else g.reshape(shape),)


class NllLossGrad(Primitive):
    """NllLoss's backward as one op (it runs at every training step): the gradient rows (M, C),
    coef_i * g_i at [i, t_i] and 0 elsewhere (g: one value per row, or one for all). Linear in g,
    so its own backward picks those entries back out."""
    _node_name = "NllLossBackwardBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, grad, *, t, coef, n_classes):
        xp, g = _prim.array_module(grad), getattr(grad, "_data", grad)  # (an array in an array-level backward)
        ctx.t, ctx.coef, ctx.grad_shape = t, coef, tuple(grad.shape)
        out = xp.zeros((t.shape[0], n_classes), dtype=coef.dtype)
        out[xp.arange(t.shape[0]), t] = g.reshape(-1) * coef
        return out

    @staticmethod
    def backward(ctx, gg):
        from .._tensor import Tensor
        xp, dev = gg._device.xp, gg._device
        picked = gg[Tensor._make(xp.arange(ctx.t.shape[0]), dev), Tensor._make(ctx.t, dev)]
        picked = picked * Tensor._make(ctx.coef, dev)
        return (picked.sum() if ctx.grad_shape == () else picked.reshape(ctx.grad_shape),)


class NllLoss2d(NllLoss):
    _node_name = "NllLoss2DBackward0"


@_amp.float32
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
             reduction="mean"):
    """The negative log-likelihood of the target classes, given log-probabilities `input`
    of shape (N, C) (or (C,), or (N, C, d1, ...)) and class ids `target` of shape (N) (...)."""
    reduction = _legacy(size_average, reduce, reduction)
    _kernels.no_grad_arg(weight, "weight", "nll_loss_forward")
    _check_targets(input, target, "nll_loss")
    if target.dtype.name not in ("int64", "uint8"):
        raise hinted(RuntimeError, f"expected target dtype to be Long or Byte, but got {target.dtype._short}",
                     "class ids for nll_loss / cross_entropy are int64: use target.long()")
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:  # (after the dtype, as in PyTorch)
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    _kernels.check("nll_loss_out_frame", input.dtype, op="nll_loss")
    if weight is not None and weight.dtype is not input.dtype:
        raise hinted(RuntimeError, f"expected scalar type {input.dtype._short} but found {weight.dtype._short}",
                     "the class weights must have the input's dtype: weight.to(input.dtype)")
    n_classes = input.shape[_class_dim(input)]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.shape)}")
    if weight is not None and weight._device != input._device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{input.device} and {weight.device}! (in nll_loss: move the weight with .to(device))")
    t = target._data
    if input.ndim == 1:
        t = t.reshape(())  # a (C,) input takes one class id, as () or (1,); the loss is 0-d either way
    if t.size:
        kept = t[t != ignore_index]
        if kept.size and (int(kept.min()) < 0 or int(kept.max()) >= n_classes):
            bad = int(kept.max()) if int(kept.max()) >= n_classes else int(kept.min())
            raise hinted(IndexError, f"Target {bad} is out of bounds.",
                         f"nll_loss over {n_classes} classes: class ids must be in [0, {n_classes - 1}]")
    prim = NllLoss2d if input.ndim >= 3 else NllLoss
    four_d = input.ndim in (1, 2, 4)  # PyTorch returns these shapes directly; others through a view
    out = prim.apply(input, target=t.astype("int64", copy=False),
                     weight=None if weight is None else weight.detach()._data.astype(input._data.dtype, copy=False),
                     ignore_index=ignore_index, reduction=reduction, out_shape=t.shape if four_d else (-1,))
    return out if four_d or reduction != "none" else out.reshape(target.shape)


@_amp.float32
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
                  reduction="mean", label_smoothing=0.0):
    """Softmax + negative log-likelihood in one numerically stable step (log_softmax never
    forms exp of a large logit). `target` holds class ids (N,) or class probabilities (N, C)."""
    reduction = _legacy(size_average, reduce, reduction)
    if label_smoothing > 1.0:  # (PyTorch's check: a negative value passes)
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    probabilities = target.shape == input.shape  # as PyTorch tells them from class ids: by shape
    if probabilities and not target.dtype.is_floating_point:
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{target.dtype._short} (class ids have one dim less than the input)")
    cdim = _class_dim(input)
    logp = _reduce.log_softmax(input, cdim)
    n_classes = input.shape[cdim]
    wshape = [1] * input.ndim
    wshape[cdim] = n_classes
    if probabilities:
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        if reduction == "mean":  # (PyTorch fills an empty batch's sum with nan rather than divide by 0)
            if input.numel() == 0:
                return -prod.sum().fill_(math.nan)
            return _DivByNumber.apply(-prod.sum(), input.numel() // n_classes)
        return -prod.sum() if reduction == "sum" else -prod.sum(cdim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing > 0:  # (0, a negative value, or nan: PyTorch's plain path)
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


@_amp.float32
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,  # noqa: A002
                      reduction="mean"):
    """The multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])^p / C."""
    reduction = _legacy(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _kernels.check("multi_margin_loss_cpu_kernel", input.dtype, _kernels.SINGLE_DOUBLE, "multi_margin_loss")
    if target.dtype is not _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._short} (class ids are int64: "
                           "target.long())")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    t = target.reshape(-1, 1).long()
    picked = x.gather(1, t)
    margins = (margin - picked + x).clamp(min=0)
    if p == 2:
        margins = margins * margins
    if weight is not None:
        margins = margins * weight[t]
    from .._factories import arange
    others = arange(x.shape[1], device=x.device).unsqueeze(0) != t
    loss = (margins * others.to(x.dtype)).sum(1) / x.shape[1]
    if input.ndim < 2:
        loss = loss.reshape(target.shape)
    return _reduce_loss(loss, reduction)


# ---- compositions ------------------------------------------------------------------------------

@_amp.float32
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):  # noqa: A002
    """The Kullback-Leibler divergence sum target * (log target - input), with `input` given as
    log-probabilities. reduction='batchmean' divides by the batch size (the true KL value)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, "mean")
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported. (kl_div takes log-probabilities and "
                           "probabilities: convert them with .float())")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target.xlogy(target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim else total
    return _reduce_loss(loss, reduction)


@_amp.float32
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,  # noqa: A002
                     reduce=None, reduction="mean"):
    """The negative log-likelihood of counts `target` under a Poisson of rate input (or exp(input))."""
    reduction = _legacy(size_average, reduce, reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()  # (PyTorch's formula)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce_loss(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):  # noqa: A002
    """The negative log-likelihood of target under a Gaussian of mean input and variance var."""
    from .._factories import ones_like
    from ..autograd.grad_mode import no_grad
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce_loss(loss, reduction)


@_amp.float32
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), for targets +-1."""
    reduction = _legacy(size_average, reduce, reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce_loss((-target * (input1 - input2) + float(margin)).clamp(min=0), reduction)  # (a float margin)


@_amp.float32
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,  # noqa: A002
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    reduction = _legacy(size_average, reduce, reduction)
    zeros = input * 0
    if not input.dtype.is_floating_point:  # PyTorch computes in the input's dtype: the margin as an integer
        margin = int(margin)
    loss = where(target != 1, (margin - input).clamp(min=0), zeros) + where(target != -1, input, zeros)
    return _reduce_loss(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                reduction="mean"):
    """Binary cross-entropy on logits for each label, averaged over the labels of a sample."""
    from ._activation import logsigmoid
    reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.ndim - 1) / input.shape[-1]
    return _reduce_loss(loss, reduction)


@_amp.float32
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) for target 1, max(0, cos(x1, x2) - margin) for target -1."""
    reduction = _legacy(size_average, reduce, reduction)
    dim = input1.ndim - 1
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    cos = prod / ((input1 * input1).sum(dim) + eps).mul((input2 * input2).sum(dim) + eps).sqrt()
    zeros = cos * 0
    loss = where(target == 1, 1 - cos, zeros) + where(target == -1, (cos - margin).clamp(min=0), zeros)
    return _reduce_loss(loss, reduction)


@_amp.float32
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the pairwise p-norm distance."""
    from ._distance import pairwise_distance
    from .._ops.pointwise import minimum
    reduction = _legacy(size_average, reduce, reduction)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce_loss((margin + d_pos - d_neg).clamp(min=0), reduction)


# ---- multi-label hinge loss, CTC -----------------------------------------------------------------

class MultilabelMarginLoss(Primitive):
    """The multi-label hinge loss of one sample (a row x of C scores, its target classes J):

        loss = sum over j in J, i not in J of max(0, 1 - (x[j] - x[i])) / C

    forward computes it and d loss / dx (+1/C at i, -1/C at j, for each pair inside the margin),
    which backward scales by the upstream gradient (PyTorch's backward kernel computes the same)."""
    _node_name = "MultilabelMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, *, target, reduction):
        xp = x._device.xp
        c = x.shape[-1] if x.ndim else 1
        a, t = x._data.reshape(-1, c), target.reshape(-1, c)
        rows = xp.arange(a.shape[0])[:, None]
        listed = xp.cumprod(t >= 0, axis=1).astype(bool)  # a row's targets: its entries before the first -1
        t = xp.where(listed, t, 0)
        is_target = xp.zeros(a.shape, dtype=bool)
        is_target[xp.broadcast_to(rows, t.shape)[listed], t[listed]] = True
        hinge = 1 - xp.take_along_axis(a, t, 1)[:, :, None] + a[:, None, :]  # (N, target k, class i)
        on = listed[:, :, None] & ~is_target[:, None, :] & (hinge > 0)
        loss = (hinge * on).sum(axis=(1, 2)) / c
        slope = on.sum(axis=1).astype(a.dtype) / c  # + from each x[i]
        xp.add.at(slope, (xp.broadcast_to(rows, t.shape), t), -on.sum(axis=2).astype(a.dtype) / c)  # - from x[j]
        ctx.slope, ctx.reduction, ctx.shape = slope, reduction, x.shape
        loss = loss.astype(a.dtype, copy=False)
        if reduction == "none":
            return loss.reshape(()) if x.ndim <= 1 else loss
        return _reduce_array(xp, loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        check_alive(ctx)  # (PyTorch saves the target and its mask for backward)
        slope = Tensor._make(ctx.slope, grad._device)
        if ctx.reduction == "none":
            g = grad.reshape(-1, 1)
        else:
            g = grad / ctx.slope.shape[0] if ctx.reduction == "mean" else grad
        return ((g * slope).reshape(ctx.shape),)


@_amp.float32
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """The multi-label hinge loss: each target class should score at least 1 above every other
    class. `target` (N, C) holds class ids, ended early by -1 ([3, 0, -1, 1]: classes 3 and 0)."""
    reduction = _legacy(size_average, reduce, reduction)
    _kernels.check("multilabel_margin_loss_forward_out_frame", input.dtype, _kernels.SINGLE_DOUBLE,
                   "multilabel_margin_loss")
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0) or (input.ndim == 1 and input.shape[0] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if target.dtype is not _dtype.int64:
        raise hinted(RuntimeError, f"expected scalar type Long but found {target.dtype._short}",
                     "multilabel_margin_loss takes class ids: target.long()")
    if target.shape != input.shape and not (input.ndim <= 1 and target.numel() == input.numel()):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    t = target._data
    c = input.shape[-1] if input.ndim else 1
    if t.size and (int(t.min()) < -1 or int(t.max()) >= c):
        raise hinted(RuntimeError, "argument #2 'target' is out of range",
                     f"multilabel_margin_loss over {c} classes: class ids are in [0, {c - 1}], or -1 to end a row")
    return MultilabelMarginLoss.apply(input, target=t.astype("int64", copy=False), reduction=reduction)


def _logsumexp(xp, *terms):
    """log(sum(exp(terms))), elementwise, exact where every term is -inf (no exp of inf - inf)."""
    m = terms[0]
    for t in terms[1:]:
        m = xp.maximum(m, t)
    safe = xp.where(xp.isfinite(m), m, 0)
    with _fp_quiet():
        return xp.log(sum(xp.exp(t - safe) for t in terms)) + safe


class CtcLoss(Primitive):
    """The CTC loss of each sequence: -log of the total probability of every alignment of the
    target to the T time steps (a path through the target with blanks between and around its
    labels, each step staying on a label, moving to the next one, or skipping a blank between two
    different labels).

    forward:  the forward variables alpha[t, s] (log probability of the paths that are at
              position s of the extended target b l1 b l2 ... b at step t), one step at a time;
              loss = -logsumexp(alpha[T-1, last blank], alpha[T-1, last label])
              and the backward variables beta (the same from the end), for the gradient
    backward: d loss / d log_probs[t, c] = exp(log_probs[t, c])
                                            - exp(logsumexp over s with l's = c of alpha + beta + loss - log_probs)
              The first term is PyTorch's: it takes log_probs to come from log_softmax, whose own
              backward cancels it (the true gradient with respect to log_probs is the second term alone).
    """
    _node_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, *, targets, input_lengths, target_lengths, blank, zero_infinity):
        xp = log_probs._device.xp
        lp = log_probs._data.astype(xp.float64)  # (T, N, C), summed over many steps: in float64
        n_steps, n = lp.shape[:2]
        width = 2 * max(target_lengths, default=0) + 1
        ext = xp.full((n, width), blank, dtype=xp.int64)  # the extended targets b l1 b l2 ... b
        for i, row in enumerate(targets):
            ext[i, 1:2 * len(row):2] = xp.asarray(row, dtype=xp.int64)
        s = xp.arange(width)
        valid = s[None, :] < (2 * xp.asarray(target_lengths) + 1)[:, None]  # (N, S')
        skip = xp.zeros((n, width), dtype=bool)  # a label may be reached from two positions back
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
        neg_inf = xp.full((n, width), -xp.inf)
        emit = xp.take_along_axis(lp, xp.broadcast_to(ext[None], (n_steps, n, width)), 2)  # (T, N, S')
        emit = xp.where(valid[None], emit, -xp.inf)
        last = xp.asarray(input_lengths) - 1

        def shift(v, k):  # v[:, s - k] (k > 0) or v[:, s + k'] (k < 0), -inf off the end
            out = neg_inf.copy()
            if k > 0:
                out[:, k:] = v[:, :-k]
            else:
                out[:, :k] = v[:, -k:]
            return out

        alpha = xp.full((n_steps, n, width), -xp.inf)
        if n_steps:
            alpha[0, :, :2] = emit[0, :, :2]
        for t in range(1, n_steps):
            prev = alpha[t - 1]
            alpha[t] = emit[t] + _logsumexp(xp, prev, shift(prev, 1), xp.where(skip, shift(prev, 2), -xp.inf))
        skip_next = xp.zeros_like(skip)  # from position s, a skip to s + 2 is allowed
        skip_next[:, :-2] = skip[:, 2:]
        beta = xp.full((n_steps, n, width), -xp.inf)
        ends = (s[None, :] == 2 * xp.asarray(target_lengths)[:, None]) | \
               (s[None, :] == 2 * xp.asarray(target_lengths)[:, None] - 1)
        for t in range(n_steps - 1, -1, -1):
            start = xp.where(ends, emit[t], -xp.inf)
            if t + 1 < n_steps:
                nxt = beta[t + 1]
                rec = emit[t] + _logsumexp(xp, nxt, shift(nxt, -1), xp.where(skip_next, shift(nxt, -2), -xp.inf))
            else:
                rec = neg_inf
            beta[t] = xp.where((t == last)[:, None], start, xp.where((t < last)[:, None], rec, -xp.inf))
        rows = xp.arange(n)
        at_end = alpha[xp.maximum(last, 0), rows]  # (N, S')
        tl2 = 2 * xp.asarray(target_lengths)
        nll = -_logsumexp(xp, at_end[rows, tl2], xp.where(tl2 > 0, at_end[rows, xp.maximum(tl2 - 1, 0)], -xp.inf))
        nll = xp.where(last < 0, xp.where(tl2 == 0, 0.0, xp.inf), nll)  # an empty input: 0 if the target is too
        ctx.saved = (lp, alpha, beta, ext, nll, last, zero_infinity)
        return nll.astype(log_probs._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        lp, alpha, beta, ext, nll, last, zero_infinity = ctx.saved
        xp = grad._device.xp
        n_steps, n, c = lp.shape
        ab = alpha + beta
        lcab = xp.full(lp.shape, -xp.inf)  # logsumexp of alpha + beta over the positions of each class
        rows = xp.arange(n)
        for s in range(ext.shape[1]):
            cls = ext[:, s]
            lcab[:, rows, cls] = _logsumexp(xp, lcab[:, rows, cls], ab[:, :, s])
        with _fp_quiet():
            slope = xp.exp(lp) - xp.exp(lcab + nll[None, :, None] - lp)
        slope = xp.where((xp.arange(n_steps)[:, None] <= last[None, :])[:, :, None], slope, 0)
        if zero_infinity:
            slope = xp.where(xp.isinf(nll)[None, :, None], 0, slope)
        slope = Tensor._make(slope.astype(grad._data.dtype), grad._device)
        return (slope * grad.reshape(1, n, 1),)


def _ctc_lengths(lengths):
    """input_lengths / target_lengths (a tensor, or a tuple of ints) as a list of ints."""
    from .._tensor import Tensor
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.reshape(-1).tolist()]
    return [int(v) for v in lengths]


@_amp.float32
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The Connectionist Temporal Classification loss (speech, handwriting): the target sequence's
    probability summed over every way to align it to the T steps of `log_probs` (T, N, C) (from
    log_softmax; or (T, C) for one sequence). `targets` is padded (N, S) or all targets
    concatenated (sum(target_lengths),). reduction='mean' divides each loss by its target length,
    then averages; zero_infinity=True turns the loss of an impossible alignment (and its
    gradient) into 0."""
    from .._tensor import Tensor
    _check_reduction(reduction)
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor) or \
            not isinstance(input_lengths, (Tensor, list, tuple)):
        raise hinted(TypeError, "ctc_loss() received an invalid combination of arguments",
                     "pass input_lengths and target_lengths both as tensors or both as tuples of ints")
    _kernels.check("ctc_loss_cpu", log_probs.dtype, _kernels.SINGLE_DOUBLE, "ctc_loss")
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    if lp.ndim != 3:
        raise RuntimeError(f"ctc_loss: expected log_probs of 2 or 3 dims (T, N, C) or (T, C), got "
                           f"{list(log_probs.shape)}")
    n_steps, n, c = lp.shape
    il, tl = _ctc_lengths(input_lengths), _ctc_lengths(target_lengths)
    if len(il) != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    where_ = "(while checking arguments for ctc_loss_allocate_outputs)"
    t = targets._data.astype("int64")  # (PyTorch takes float labels too, as their integer values)
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v} {where_}")
    if t.ndim == 2:  # padded (N, S)
        for v in tl:
            if v > t.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {v} at dimension 1, but got size "
                                   f"{t.shape[1]} for argument #2 'targets' {where_}")
        rows = [t[i, :v] for i, v in enumerate(tl)]
    else:
        t = t.reshape(-1)
        if t.shape[0] != sum(tl):
            raise RuntimeError(f"Expected tensor to have size {sum(tl)} at dimension 0, but got size {t.shape[0]} for "
                               f"argument #2 'targets' {where_}")
        offsets = [sum(tl[:i]) for i in range(n)]
        rows = [t[o:o + v] for o, v in zip(offsets, tl)]
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v} {where_}")
        if v > n_steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {n_steps}, but got value {v} {where_}")
    for row in rows:
        if row.size and (int(row.min()) < 0 or int(row.max()) >= c):
            bad = int(row.max()) if int(row.max()) >= c else int(row.min())
            raise hinted(IndexError, f"Target {bad} is out of bounds.",
                         f"ctc_loss over {c} classes: target labels must be in [0, {c - 1}]")
    res = CtcLoss.apply(lp, targets=rows, input_lengths=il, target_lengths=tl, blank=blank,
                        zero_infinity=zero_infinity)
    if zero_infinity:
        res = where(res == math.inf, res.new_zeros(()), res)
    if reduction == "mean":
        from .._factories import tensor
        return (res / tensor(tl, dtype=res.dtype, device=res.device).clamp_min(1)).mean()
    if reduction == "sum":
        return res.sum()
    return res if batched else res.squeeze(0)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with any distance d (default
    the pairwise Euclidean distance): metric learning with, say, 1 - cosine similarity."""
    from ._distance import pairwise_distance
    from .._ops.pointwise import minimum
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    distance_function = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance_function(positive, negative))
    return _reduce_loss((margin + dist_pos - dist_neg).clamp_min(0), reduction)
