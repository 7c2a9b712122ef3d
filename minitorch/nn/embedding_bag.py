"""`EmbeddingBag`: the sum, mean or max of the embeddings of each "bag" of ids, in one step.

A text classifier reads a batch of sentences of different lengths as one flat list of token
ids plus `offsets`, where each sentence (bag) starts:

    ids     = [4, 1, 7,   2, 9]          two bags: [4, 1, 7] and [2, 9]
    offsets = [0,         3]
    out[b]  = mean of W[ids[j]] for j in bag b        (mode='mean', the default)

A 2-D input (B, N) is B bags of N ids each. Ids equal to padding_idx are left out (they do not
count in the mean either); an empty bag gives zeros. With per_sample_weights (mode='sum' only)
each id's row is scaled by its weight before the sum.

The forward gathers each bag's rows into a padded (bags, longest bag, dim) block and reduces it;
the backward sends each bag's gradient back to the rows it read (the same scatter-add as
Embedding's backward), so PyTorch's grad_fn, EmbeddingBagBackward0, shows as one node.
"""
from __future__ import annotations

import warnings

from .. import _dtype, _factories
from .._errors import hinted
from .._ops._prim import Primitive
from .._tensor import Tensor
from . import _embedding, init
from ._embedding import EmbeddingDense
from .module import Module
from .parameter import Parameter

_MODES = ("sum", "mean", "max")


class EmbeddingBagOp(Primitive):
    """out[b] = reduce over the valid slots l of bag b of  W[ids[b, l]] (* psw[b, l]).

    ids, psw_at: (bags, L) tables (psw_at: positions into per_sample_weights); valid: (bags, L)
    bool, False for slots past the bag's end and for padding ids."""
    _node_name = "EmbeddingBagBackward0"

    @staticmethod
    def forward(ctx, weight, per_sample_weights, *, ids, pos, valid, mode, scale_grad_by_freq):
        xp = weight._device.xp
        rows = weight._data[ids]  # (bags, L, dim)
        if per_sample_weights is not None:
            rows = rows * per_sample_weights._data[pos][..., None]
        keep = valid[..., None]
        count = valid.sum(axis=1)
        ctx.ids, ctx.pos, ctx.valid, ctx.mode = ids, pos, valid, mode
        ctx.num, ctx.scale = weight.shape[0], scale_grad_by_freq
        ctx.save_for_backward(weight, per_sample_weights)
        if mode == "max":
            low = xp.array(-xp.inf, dtype=rows.dtype)
            masked = xp.where(keep, rows, low)
            ctx.arg = masked.argmax(axis=1) if masked.shape[1] else xp.zeros(masked.shape[::2], dtype=xp.int64)
            best = masked.max(axis=1) if masked.shape[1] else xp.zeros(masked.shape[::2], dtype=rows.dtype)
            return xp.where((count > 0)[:, None], best, xp.zeros((), dtype=rows.dtype))
        total = xp.where(keep, rows, xp.zeros((), dtype=rows.dtype)).sum(axis=1)
        if mode == "mean":
            total = total / xp.maximum(count, 1)[:, None].astype(rows.dtype)
        return total.astype(rows.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        weight, psw = ctx.saved_tensors
        xp = grad._device.xp
        bags, length = ctx.ids.shape
        if ctx.mode == "max":  # the gradient goes to the row that was the max, per dim
            slot = xp.arange(length)[None, :, None]
            picked = (slot == ctx.arg[:, None, :]) & (ctx.valid.sum(axis=1) > 0)[:, None, None]
            coef = Tensor._make(picked.astype(grad._data.dtype), grad._device)
        else:
            share = ctx.valid.astype(grad._data.dtype)
            if ctx.mode == "mean":
                share = share / xp.maximum(ctx.valid.sum(axis=1), 1)[:, None].astype(share.dtype)
            coef = Tensor._make(share[..., None], grad._device)
            if psw is not None:
                coef = coef * psw[Tensor._make(ctx.pos, grad._device)].unsqueeze(-1)
        per_slot = grad.unsqueeze(1) * coef  # (bags, L, dim)
        if ctx.scale:  # each id's gradient over the number of times it occurs
            counts = xp.bincount(ctx.ids[ctx.valid].reshape(-1), minlength=ctx.num)[ctx.ids]
            per_slot = per_slot / Tensor._make(xp.maximum(counts, 1)[..., None].astype(grad._data.dtype),
                                               grad._device)
        grad_weight = EmbeddingDense.apply(per_slot, ids=ctx.ids, padding_idx=None, num=ctx.num)
        grad_psw = None
        if psw is not None and ctx.needs_input_grad[1]:  # d out[b] / d psw[j] = W[ids[j]], dotted with grad[b]
            n = psw.shape[0]
            bag_of, used = xp.zeros(n, dtype=xp.int64), xp.zeros(n, dtype=bool)
            bag_of[ctx.pos[ctx.valid]] = xp.nonzero(ctx.valid)[0]
            used[ctx.pos[ctx.valid]] = True
            ids = xp.zeros(n, dtype=xp.int64)
            ids[ctx.pos[ctx.valid]] = ctx.ids[ctx.valid]
            dots = (grad[Tensor._make(bag_of, grad._device)] * weight[Tensor._make(ids, grad._device)]).sum(-1)
            grad_psw = dots * Tensor._make(used.astype(grad._data.dtype), grad._device)
        return grad_weight, grad_psw


def _bag_tables(xp, ids, starts, ends, padding_idx):
    """The padded (bags, longest bag) tables of ids and of their positions in the flat input,
    and which slots hold a real (non-padding) id."""
    lengths = ends - starts
    longest = int(lengths.max()) if lengths.size else 0
    slot = xp.arange(longest)[None, :]
    inside = slot < lengths[:, None]
    pos = xp.where(inside, starts[:, None] + slot, 0)
    table = ids[pos] if ids.size else xp.zeros(pos.shape, dtype=ids.dtype)
    valid = inside if padding_idx is None else inside & (table != padding_idx)
    return xp.where(valid, table, 0), pos, valid


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,  # noqa: A002
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum / mean / max of the rows of `weight` for each bag of ids (see the module doc):
    input (N,) with offsets (B,), or input (B, N); returns (B, embedding_dim)."""
    if weight.dtype is _dtype.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight  # noqa: A001
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        n = input.shape[1]
        offsets = _factories.arange(0, input.numel(), max(n, 1), dtype=input.dtype, device=input.device)
        if n == 0:
            offsets = _factories.zeros(input.shape[0], dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)  # noqa: A001
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    for t in (input, offsets):  # (PyTorch names the offsets 'indices' too)
        if t.dtype not in (_dtype.int64, _dtype.int32):
            raise hinted(RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following "
                         f"scalar types: Long, Int; but got {t.type()} instead (while checking arguments for "
                         "embedding_bag)", "token ids and offsets must be integers: convert with .long()")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {weight.type()} does not equal "
                           f"{per_sample_weights.type()} (while checking arguments for embedding_bag)")
    xp = weight._device.xp
    ids, offs = input._data.astype(xp.int64), offsets._data.astype(xp.int64)
    num, total = weight.shape[0], ids.shape[0]
    if offs.size:
        if int(offs[0]) != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                               f"position 0. However, got {int(offs[0])}\n[ {offsets.type()}{{}} ]")
        if int(offs[-1]) > total:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {total} but got offsets[-1] of "
                               f"{int(offs[-1])}")
        if offs.size > 1 and bool((offs[1:] < offs[:-1]).any()):
            raise RuntimeError(f"embedding_bag: offsets must be non-decreasing (each bag starts where the previous "
                               f"one ends or later), got {offs.tolist()}")
    bad = xp.nonzero((ids < 0) | (ids >= num))[0]
    if bad.size:
        j = int(bad[0])
        raise RuntimeError(f"Index {j} of input takes value {int(ids[j])} which is not in the valid range "
                           f"[0, {num})")
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("padding_idx must be within num_embeddings")
        padding_idx %= num
    if include_last_offset:
        starts, ends = offs[:-1], offs[1:]
    else:
        starts, ends = offs, xp.concatenate([offs[1:], xp.array([total], dtype=offs.dtype)])
    if max_norm is not None:
        _embedding.renorm_(weight, ids, max_norm, norm_type)
    table, pos, valid = _bag_tables(xp, ids, starts, ends, padding_idx)
    return EmbeddingBagOp.apply(weight, per_sample_weights, ids=table, pos=pos, valid=valid, mode=mode,
                                scale_grad_by_freq=scale_grad_by_freq)


class EmbeddingBag(Module):
    """Embedding followed by a sum, mean or max over each bag of ids, without the (ids, dim)
    intermediate. Call it as `bag(ids, offsets)` (1-D ids) or `bag(ids_2d)`; optionally with
    per_sample_weights (mode='sum'). Initialised N(0, 1), padding_idx row at zero."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0 and padding_idx >= num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            if padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(_factories.empty(num_embeddings, embedding_dim, device=device, dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            from ..autograd.grad_mode import no_grad
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):  # noqa: A002
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                             self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
