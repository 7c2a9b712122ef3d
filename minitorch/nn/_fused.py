"""Two fused primitives for the commonest training step: a Linear layer on a batch, and the
negative log-likelihood of class ids. Composed from tensor ops they record 5-10 nodes each;
fused they record one, which the MLP-step benchmark (bench/) shows is where small models
spend their time. The general cases (more dims, odd dtypes) still take the composed path in
functional.py, which also raises the errors.

    linear:   forward  y = x W^T + b
              backward dx = g W,   dW = g^T x,   db = sum of g over the batch
    nll_loss: forward  loss_i = -w[t_i] * logp[i, t_i]   (w = class weight, 0 where ignored)
              backward dlogp[i, t_i] = -w[t_i] * g_i      (/ sum of w for the mean)
"""
from __future__ import annotations

from .._ops._prim import Primitive
from .._ops.index import scatter_along


class Addmm(Primitive):
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        out = x._data @ w._data.T
        if b is not None:
            out += b._data
        return out

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        gx = grad @ w if need[0] else None
        gw = grad.t() @ x if need[1] else None  # (out, in) and contiguous, like the weight
        gb = grad.sum(0) if need[2] else None
        return gx, gw, gb


class Mm(Addmm):
    _node_name = "MmBackward0"  # PyTorch's name for a Linear without bias


def linear_fits(x, w, b):
    """Whether the fused Linear applies: a 2-D batch, matching dtypes, devices and sizes."""
    return (x.ndim == 2 and w.ndim == 2 and x.shape[1] == w.shape[1] and x.dtype is w.dtype
            and x._device is w._device
            and (b is None or (b.ndim == 1 and b.shape[0] == w.shape[0] and b.dtype is w.dtype
                               and b._device is w._device)))


def linear(x, w, b):
    return (Mm if b is None else Addmm).apply(x, w, b)


class NllLoss(Primitive):
    _node_name = "NllLossBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, logp, *, target, weight, ignore_index, reduction):
        xp = logp._device.xp
        n = target.shape[0]
        valid = target != ignore_index
        t = xp.where(valid, target, 0)
        w = valid.astype(logp._data.dtype)
        if weight is not None:
            w = w * weight[t]
        losses = -logp._data[xp.arange(n), t] * w
        ctx.t, ctx.w, ctx.reduction, ctx.shape = t, w, reduction, logp.shape
        if reduction == "none":
            return losses
        total = losses.sum()
        denom = w.sum() if reduction == "mean" else 1
        ctx.denom = denom
        return total / denom if reduction == "mean" else total

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        coef = Tensor._make(-ctx.w / ctx.denom if ctx.reduction == "mean" else -ctx.w, grad._device)
        rows = grad * coef  # (N,): a scalar grad broadcasts over the batch
        return (scatter_along(rows.unsqueeze(1), ctx.t[:, None], 1, ctx.shape),)
