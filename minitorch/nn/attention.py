"""nn.MultiheadAttention: the attention block of a transformer, with PyTorch's parameters
(in_proj_weight (3E, E) packing the q, k, v projections, in_proj_bias, out_proj) and call
conventions (sequence-first unless batch_first=True; bool masks are True where attending is
*not* allowed)."""
from __future__ import annotations

from .. import _factories
from . import functional as F
from . import init
from ._attention import _canonical_mask
from .layers import Linear
from .module import Module
from .parameter import Parameter


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear (PyTorch's name for the output projection of MultiheadAttention)."""


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_factories.empty(embed_dim, embed_dim, **kw))
            self.k_proj_weight = Parameter(_factories.empty(embed_dim, self.kdim, **kw))
            self.v_proj_weight = Parameter(_factories.empty(embed_dim, self.vdim, **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_factories.empty(3 * embed_dim, embed_dim, **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_factories.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(_factories.empty(1, 1, embed_dim, **kw))
            self.bias_v = Parameter(_factories.empty(1, 1, embed_dim, **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """(attention output, attention weights or None); inputs (L, N, E), or (N, L, E) with
        batch_first, or unbatched (L, E)."""
        batched = query.ndim == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask",
                                           query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and batched:
            query, key, value = (t.transpose(1, 0) for t in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        return out, weights


# ---- torch.nn.attention's kernel choice ------------------------------------------------------
# PyTorch picks one of several fused kernels for scaled_dot_product_attention (flash, memory-
# efficient, cuDNN) and falls back to the math one. minitorch has only the math formula: the
# choice is recorded (torch.backends.cuda.*_sdp_enabled() read it back) and the result is the
# same up to rounding.
import contextlib as _contextlib  # noqa: E402
import enum as _enum  # noqa: E402


class SDPBackend(_enum.IntEnum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self):
        return f"<SDPBackend.{self.name}: {self.value}>"

    __str__ = _enum.Enum.__str__


ENABLED_BACKENDS = {SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                    SDPBackend.CUDNN_ATTENTION}


@_contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Allow only `backends` (one SDPBackend or a list) inside the block."""
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    if not all(isinstance(b, SDPBackend) for b in chosen):
        raise AssertionError("Backend must be an instance of SDPBackend")
    before = set(ENABLED_BACKENDS)
    ENABLED_BACKENDS.clear()
    ENABLED_BACKENDS.update(chosen)
    try:
        yield
    finally:
        ENABLED_BACKENDS.clear()
        ENABLED_BACKENDS.update(before)
