"""A fused primitive for the commonest layer: a Linear layer on a batch. Composed from tensor
ops it records several nodes; fused it records one, which the MLP-step benchmark (bench/)
shows is where small models spend their time. (The negative log-likelihood is fused the same
way: see _loss.py.) The general cases (more dims, odd dtypes) still take the composed path in
functional.py, which also raises the errors.

    linear:   forward  y = x W^T + b
              backward dx = g W,   dW = g^T x,   db = sum of g over the batch
"""
from __future__ import annotations

from .. import parts as _parts
from .._ops._prim import Primitive


class Addmm(Primitive):
    _node_name = "AddmmBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

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
        if _parts.matmul_backward is not None:  # a course part (minitorch/parts.py): x @ w.T's backward
            gx, gwt = _parts.matmul_backward(x, w.t(), grad, need[:2])
            return gx, None if gwt is None else gwt.t().contiguous(), grad.sum(0) if need[2] else None
        gx = grad @ w if need[0] else None
        gw = grad.T @ x if need[1] else None  # (out, in) and contiguous, like the weight
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
