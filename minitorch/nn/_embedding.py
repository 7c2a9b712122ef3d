"""Embedding lookup as a primitive: rows of a weight table picked by integer ids.

    forward:  out[..., :] = W[ids[...], :]
    backward: dW = zeros_like(W); dW[ids[...]] += grad[...]    (repeated ids add up)
              and the row padding_idx gets no gradient (it stays the "nothing here" vector)
"""
from __future__ import annotations

from .._ops._prim import Primitive
from .._ops.index import index_add_flat


class EmbeddingLookup(Primitive):
    _node_name = "EmbeddingBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, weight, *, ids, padding_idx):
        ctx.ids, ctx.padding_idx, ctx.num = ids, padding_idx, weight.shape[0]
        return weight._data[ids]  # (*ids.shape, dim), a copy

    @staticmethod
    def backward(ctx, grad):
        return (EmbeddingDense.apply(grad, ids=ctx.ids, padding_idx=ctx.padding_idx, num=ctx.num),)


class EmbeddingDense(Primitive):
    """The gradient of the table: scatter-add the rows of grad to their ids."""
    _node_name = "EmbeddingDenseBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, grad, *, ids, padding_idx, num):
        xp = grad._device.xp
        ctx.ids, ctx.padding_idx = ids, padding_idx
        dim = grad.shape[-1]
        out = xp.zeros((num, dim), dtype=grad._data.dtype)
        index_add_flat(xp, out, ids.reshape(-1), grad._data.reshape(-1, dim))
        if padding_idx is not None:
            out[padding_idx] = 0
        return out

    @staticmethod
    def backward(ctx, gg):
        out = EmbeddingLookup.apply(gg, ids=ctx.ids, padding_idx=None)
        if ctx.padding_idx is not None:
            from .._tensor import Tensor
            keep = Tensor._make((ctx.ids != ctx.padding_idx)[..., None], gg._device)
            out = out * keep
        return (out,)
