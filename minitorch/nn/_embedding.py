"""Embedding lookup as a primitive: rows of a weight table picked by integer ids.

    forward:  out[..., :] = W[ids[...], :]
    backward: dW = zeros_like(W); dW[ids[...]] += grad[...]    (repeated ids add up)
              and the row padding_idx gets no gradient (it stays the "nothing here" vector);
              with scale_grad_by_freq each id's rows are divided by its count in the batch
"""
from __future__ import annotations

from .. import parts as _parts
from .._ops._prim import Primitive
from .._ops.index import check_alive, index_add_flat


class EmbeddingLookup(Primitive):
    _node_name = "EmbeddingBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, weight, *, ids, padding_idx, scale_grad_by_freq=False, indices=None):
        ctx.ids, ctx.padding_idx, ctx.num, ctx.scale = ids, padding_idx, weight.shape[0], scale_grad_by_freq
        if indices is not None:  # the index tensor, saved as PyTorch saves it: a later in-place change is caught
            from ..autograd.function import SavedTensor
            ctx.indices = SavedTensor(indices)
        return weight._data[ids]  # (*ids.shape, dim), a copy

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # (the ids are saved for backward, as in PyTorch)
        if "indices" in ctx.__dict__:
            ctx.indices.unpack(ctx)
        if ctx.scale:  # each occurrence's gradient over the number of occurrences of its id
            from .._tensor import Tensor
            xp = grad._device.xp
            counts = xp.bincount(ctx.ids.reshape(-1), minlength=ctx.num)[ctx.ids]
            grad = grad / Tensor._make(counts[..., None].astype(grad._data.dtype), grad._device)
        return (EmbeddingDense.apply(grad, ids=ctx.ids, padding_idx=ctx.padding_idx, num=ctx.num),)


class EmbeddingDense(Primitive):
    """The gradient of the table: scatter-add the rows of grad to their ids."""
    _node_name = "EmbeddingDenseBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, grad, *, ids, padding_idx, num):
        xp = grad._device.xp
        ctx.ids, ctx.padding_idx = ids, padding_idx
        if _parts.embedding_grad is not None:  # a course part (minitorch/parts.py)
            return _parts.embedding_grad(xp, ids, grad._data, num, padding_idx)
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


def renorm_(weight, ids, max_norm, norm_type):
    """Rescale, in place and unrecorded, each row used by ids whose norm exceeds max_norm to
    norm max_norm (PyTorch's embedding_renorm_, with its 1e-7 in the scale)."""
    from ..autograd.grad_mode import no_grad
    xp = weight._device.xp
    rows = xp.unique(ids.reshape(-1))
    with no_grad():
        w = weight.detach()
        picked = w._data[rows]
        norms = (xp.abs(picked) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
        big = norms > max_norm
        if bool(big.any()):
            scale = (max_norm / (norms[big] + 1e-7)).astype(picked.dtype)
            w._data[rows[big]] = picked[big] * scale[:, None]
            weight._storage.version += 1
