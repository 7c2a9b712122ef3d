"""A fused primitive for the commonest layer: a Linear layer on a batch. Composed from tensor
ops it records several nodes; fused it records one, which the MLP-step benchmark (bench/)
shows is where small models spend their time. (The negative log-likelihood is fused the same
way: see _loss.py.) The general cases (more dims, odd dtypes) still take the composed path in
functional.py, which also raises the errors.

    linear:   forward  y = b + x W^T     (recorded as addmm(b, x, W.t()), PyTorch's graph)
              backward dx = g W,   dW = g^T x,   db = sum of g over the batch
"""
from __future__ import annotations

from .. import parts as _parts
from .._ops._prim import Primitive, mT


class Addmm(Primitive):
    """out = b + x @ wt, wt being W.t(): PyTorch's addmm(bias, input, weight.t()), so the node's
    inputs are (bias, input, TBackward0 of the weight), in that order, as tutorials walk them."""
    _node_name = "AddmmBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, b, x, wt):
        ctx.save_for_backward(x, wt)
        if x._data.dtype.itemsize == 2:  # half: summed in float, rounded once (as PyTorch's CPU addmm)
            return (x._data.astype("float32") @ wt._data.astype("float32") + b._data).astype(x._data.dtype)
        out = x._data @ wt._data
        out += b._data
        return out

    @staticmethod
    def backward(ctx, grad):
        x, wt = ctx.saved_tensors
        need = ctx.needs_input_grad
        gb = grad.sum(0) if need[0] else None
        return (gb,) + _matmul_grads(x, wt, grad, need[1], need[2])


class Mm(Primitive):
    """out = x @ wt: a Linear without bias (PyTorch's mm(input, weight.t()))."""
    _node_name = "MmBackward0"
    array_backward = True
    pack_order = (1, 0)  # PyTorch saves `mat2` (the weight) before `self`: saved_tensors_hooks see that order

    @staticmethod
    def forward(ctx, x, wt):
        ctx.save_for_backward(x, wt)
        return x._data @ wt._data

    @staticmethod
    def backward(ctx, grad):
        x, wt = ctx.saved_tensors
        need = ctx.needs_input_grad
        return _matmul_grads(x, wt, grad, need[0], need[1])


def _matmul_grads(x, wt, grad, need_x, need_wt):
    """dx = g wt^T, d(wt) = x^T g. The latter is made as (g^T x)^T: a transposed view of a
    contiguous (out, in) array, so that TBackward0 hands the weight a contiguous gradient."""
    if _parts.matmul_backward is not None:  # a course part (minitorch/parts.py): x @ wt's backward
        return _parts.matmul_backward(x, wt, grad, (need_x, need_wt))
    gx = grad @ mT(wt) if need_x else None
    gwt = mT(mT(grad) @ x) if need_wt else None
    return gx, gwt


def linear_fits(x, w, b):
    """Whether the fused Linear applies: a 2-D batch, matching dtypes, devices and sizes."""
    return (x.ndim == 2 and w.ndim == 2 and x.shape[1] == w.shape[1] and x.dtype is w.dtype
            and x._data.dtype.kind != "b"  # (bool: the general path raises PyTorch's kernel error)
            and x._device is w._device
            and (b is None or (b.ndim == 1 and b.shape[0] == w.shape[0] and b.dtype is w.dtype
                               and b._device is w._device)))


def linear(x, w, b):
    wt = w.t()
    return Mm.apply(x, wt) if b is None else Addmm.apply(b, x, wt)
