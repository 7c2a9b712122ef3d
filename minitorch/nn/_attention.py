"""Attention: F.scaled_dot_product_attention and the multi-head attention of nn.MultiheadAttention.

    attention(q, k, v) = softmax(q @ k^T * scale + mask) @ v        scale = 1 / sqrt(head dim)

Composed from tensor ops (matmul, softmax), as PyTorch's reference ("math") implementation is.
"""
from __future__ import annotations

import math
import warnings

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype
from .._factories import arange, zeros, zeros_like
from .._ops import reduce as _reduce
from .._ops.join import cat
from .._ops.linalg import _CTYPE


class SafeSoftmax(_reduce.Softmax):
    """PyTorch's _safe_softmax: softmax, with 0 (not nan) for a row whose every score is -inf (a
    query allowed to attend to nothing)."""
    _node_name = "SafeSoftmaxBackward0"

    @staticmethod
    def forward(ctx, a, *, dim):
        from .._ops.pointwise import _fp_quiet
        with _fp_quiet():  # (a row of -inf gives nan here, replaced below)
            out = _reduce.Softmax.forward(ctx, a, dim=dim)
        x = a._data
        if x.size:
            dead = (x == float("-inf")).all(axis=dim, keepdims=True)
            if dead.any():
                out = a._device.xp.where(dead, out.dtype.type(0), out)
        return out


def _broadcast_batch(query, key, value):
    from .._ops.common import broadcast_shapes
    return tuple(broadcast_shapes(tuple(query.shape[:-2]), tuple(key.shape[:-2]), tuple(value.shape[:-2])))


@_amp.lower_precision
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v over (..., L, E) queries and (..., S, E) keys. A bool
    attn_mask says where attending is *allowed*; a float one is added to the scores;
    is_causal lets position i attend only to positions <= i."""
    from .functional import dropout
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_CTYPE[query.dtype.name]} key.dtype: {_CTYPE[key.dtype.name]} and value.dtype: "
                           f"{_CTYPE[value.dtype.name]} instead.")
    from .._ops.special_extra import _MulByNumber
    n_q, n_k = query.shape[-2], key.shape[-2]
    if 0 in (n_q, n_k, value.shape[-1]) or not (query.numel() or key.numel() or value.numel()):
        # PyTorch's result for no queries, keys or values (or nothing at all): zeros, recorded
        out = zeros(_broadcast_batch(query, key, value) + (n_q, value.shape[-1]), dtype=query.dtype,
                    device=query.device)
        return out + _MulByNumber.apply(query.sum() + key.sum() + value.sum(), 0)
    if not query.dtype.is_floating_point:  # (PyTorch scales q by a float first, then multiplies by k)
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: float != {_CTYPE[query.dtype.name]}")
    dtype = query.dtype
    if dtype is _dtype.float16:  # PyTorch's math computes half in float (its result converted back)
        query, key, value = query.float(), key.float(), value.float()
    # PyTorch's math: q and k each scaled by the scale's square root (a negative scale by q's sign)
    e = query.shape[-1]
    negative = scale is not None and scale < 0
    root = math.sqrt(abs(scale) if scale is not None else 1 / math.sqrt(e) if e else math.inf)
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        causal = arange(n_q, device=query.device).unsqueeze(1) >= arange(n_k, device=query.device).unsqueeze(0)
        bias = zeros(n_q, n_k, dtype=query.dtype, device=query.device).masked_fill(~causal, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype not in (_dtype.bool, _dtype.float32, dtype):
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {attn_mask.dtype.name} and  query.dtype: {dtype.name} instead.")
        if attn_mask.dtype is _dtype.bool:
            bias = zeros(attn_mask.shape, dtype=dtype, device=query.device).masked_fill(~attn_mask,
                                                                                               float("-inf"))
        else:
            bias = attn_mask
    if enable_gqa:
        rep = query.shape[-3] // key.shape[-3]
        key = key.unsqueeze(-3).expand(*key.shape[:-2], rep, n_k, key.shape[-1]).flatten(-4, -3)
        value = value.unsqueeze(-3).expand(*value.shape[:-2], rep, n_k, value.shape[-1]).flatten(-4, -3)
    scores = _MulByNumber.apply(query, 0.0 - root if negative else root) @ _MulByNumber.apply(
        key.transpose(-2, -1), root)
    if bias is not None:
        scores = scores.add_(bias)
    weights = SafeSoftmax.apply(scores, dim=scores.ndim - 1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    out = weights @ value
    return out if out.dtype is dtype else out.to(dtype)


def _canonical_mask(mask, name, other, other_name, dtype, check_other=True):
    """A bool mask (True = masked out) as a float one (-inf there), as MultiheadAttention takes it."""
    if mask is None:
        return None
    if mask.dtype is not _dtype.bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if check_other and other is not None and mask.dtype is not other.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if mask.dtype.is_floating_point:
        return mask
    return zeros_like(mask, dtype=dtype).masked_fill(mask, float("-inf"))


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the input is batched (3-D) or not (2-D), with PyTorch's checks."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
                             "tensor")
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.ndim}-D tensor instead")
        if not batched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != (num_heads, query.shape[0],
                                                                                key.shape[0]):
            raise AssertionError(f"Expected `attn_mask` shape to be {(num_heads, query.shape[0], key.shape[0])} but "
                                 f"got {attn_mask.shape}")
    return batched


def _project(query, key, value, w, b, separate):
    """The q, k, v projections: one packed (3E, E) weight, or three separate ones."""
    from .functional import linear
    if separate is not None:
        wq, wk, wv = separate
        bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
        return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    wq, wk, wv = w.chunk(3)
    bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
    return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention on (L, N, E) query and (S, N, E) key / value (or unbatched (L, E)):
    project, split into heads, attend, merge the heads, project out. Returns the output and,
    with need_weights, the attention weights (averaged over heads unless told otherwise)."""
    from .functional import dropout, linear, pad, softmax
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k / static_v are not supported by minitorch")
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, separate)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
    if bias_k is not None and bias_v is not None:  # one more key and value, learned
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:  # one more key and value, all zeros
        k = cat([k, zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype, device=k.device)], 1)
        v = cat([v, zeros(bsz * num_heads, 1, head_dim, dtype=v.dtype, device=v.device)], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{key_padding_mask.shape}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = q * math.sqrt(1.0 / float(head_dim)) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 and attn_mask.ndim == 3
                     else attn_mask.reshape(bsz, num_heads, -1, src_len))
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal=False)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    return (out if batched else out.squeeze(1)), None
