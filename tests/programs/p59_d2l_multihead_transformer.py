# d2l.ai chapter 11, second half: multi-head attention with transpose_qkv / transpose_output and
# valid lens repeated per head, self-attention with the sin/cos PositionalEncoding (and the binary
# representation table), the position-wise FFN, AddNorm (LayerNorm vs BatchNorm1d), a Transformer
# EncoderBlock and encoder written by hand, with a few Adam steps on a toy copy task; then the same
# block checked against nn.MultiheadAttention's shapes and averaged weights.
import math
import torch
from torch import nn


def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)


class DotProductAttention(nn.Module):
    def __init__(self, dropout, **kwargs):
        super(DotProductAttention, self).__init__(**kwargs)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class MultiHeadAttention(nn.Module):
    """Multi-head attention."""
    def __init__(self, key_size, query_size, value_size, num_hiddens, num_heads, dropout, bias=False, **kwargs):
        super(MultiHeadAttention, self).__init__(**kwargs)
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    def forward(self, queries, keys, values, valid_lens):
        # Shape of `queries`, `keys`, or `values`: (`batch_size`, no. of queries or key-value pairs, `num_hiddens`)
        # After transposing, shape of output `queries`, `keys`, or `values`:
        # (`batch_size` * `num_heads`, no. of queries or key-value pairs, `num_hiddens` / `num_heads`)
        queries = transpose_qkv(self.W_q(queries), self.num_heads)
        keys = transpose_qkv(self.W_k(keys), self.num_heads)
        values = transpose_qkv(self.W_v(values), self.num_heads)
        if valid_lens is not None:
            # On axis 0, copy the first item (scalar or vector) for `num_heads` times, then copy the next item
            valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
        # Shape of `output`: (`batch_size` * `num_heads`, no. of queries, `num_hiddens` / `num_heads`)
        output = self.attention(queries, keys, values, valid_lens)
        # Shape of `output_concat`: (`batch_size`, no. of queries, `num_hiddens`)
        output_concat = transpose_output(output, self.num_heads)
        return self.W_o(output_concat)


def transpose_qkv(X, num_heads):
    """Transposition for parallel computation of multiple attention heads."""
    # Shape of input `X`: (`batch_size`, no. of queries or key-value pairs, `num_hiddens`). Shape of output `X`:
    # (`batch_size`, no. of queries or key-value pairs, `num_heads`, `num_hiddens` / `num_heads`)
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    # Shape of output `X`: (`batch_size`, `num_heads`, no. of queries or key-value pairs, `num_hiddens` / `num_heads`)
    X = X.permute(0, 2, 1, 3)
    # Shape of `output`: (`batch_size` * `num_heads`, no. of queries or key-value pairs, `num_hiddens` / `num_heads`)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    """Reverse the operation of `transpose_qkv`."""
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


torch.manual_seed(0)
num_hiddens, num_heads = 20, 5
attention = MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, 0.5)
print(attention.eval())
batch_size, num_queries = 2, 4
num_kvpairs, valid_lens = 6, torch.tensor([3, 2])
X = torch.ones((batch_size, num_queries, num_hiddens))
Y = torch.ones((batch_size, num_kvpairs, num_hiddens))
out = attention(X, Y, Y, valid_lens)
print(out.shape, out.grad_fn, attention.attention.attention_weights.shape)
print(torch.repeat_interleave(valid_lens, repeats=num_heads, dim=0))
t = transpose_qkv(torch.arange(24.).reshape(1, 2, 12), 3)
print(t, t.is_contiguous(), transpose_output(t, 3).shape)
print(torch.equal(transpose_output(t, 3), torch.arange(24.).reshape(1, 2, 12)))

# self-attention
X = torch.randn((batch_size, num_queries, num_hiddens))
print(attention(X, X, X, valid_lens).shape)


class PositionalEncoding(nn.Module):
    """Positional encoding."""
    def __init__(self, num_hiddens, dropout, max_len=1000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(dropout)
        # Create a long enough `P`
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        X = X + self.P[:, :X.shape[1], :].to(X.device)
        return self.dropout(X)


encoding_dim, num_steps = 32, 60
pos_encoding = PositionalEncoding(encoding_dim, 0)
pos_encoding.eval()
X = pos_encoding(torch.zeros((1, num_steps, encoding_dim)))
P = pos_encoding.P[:, :X.shape[1], :]
print(P.shape, P[0, :, 6:10].T[:, :5])
print(P[0, 30, :4], P[0, 59, -2:])
for i in range(8):
    print(f'{i} in binary is {i:>03b}')
P = P[0, :, :].unsqueeze(0).unsqueeze(0)
print(P.shape)
print(list(pos_encoding.state_dict().keys()), list(pos_encoding.buffers()))


class PositionWiseFFN(nn.Module):
    """Positionwise feed-forward network."""
    def __init__(self, ffn_num_input, ffn_num_hiddens, ffn_num_outputs, **kwargs):
        super(PositionWiseFFN, self).__init__(**kwargs)
        self.dense1 = nn.Linear(ffn_num_input, ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.Linear(ffn_num_hiddens, ffn_num_outputs)

    def forward(self, X):
        return self.dense2(self.relu(self.dense1(X)))


ffn = PositionWiseFFN(4, 4, 8)
ffn.eval()
print(ffn(torch.ones((2, 3, 4)))[0])

ln = nn.LayerNorm(2)
bn = nn.BatchNorm1d(2)
X = torch.tensor([[1, 2], [2, 3]], dtype=torch.float32)
# Compute mean and variance from `X` in the training mode
print('layer norm:', ln(X), '\nbatch norm:', bn(X))


class AddNorm(nn.Module):
    """Residual connection followed by layer normalization."""
    def __init__(self, normalized_shape, dropout, **kwargs):
        super(AddNorm, self).__init__(**kwargs)
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


add_norm = AddNorm([3, 4], 0.5)
add_norm.eval()
print(add_norm(torch.ones((2, 3, 4)), torch.ones((2, 3, 4))).shape)


class EncoderBlock(nn.Module):
    """Transformer encoder block."""
    def __init__(self, key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input, ffn_num_hiddens,
                 num_heads, dropout, use_bias=False, **kwargs):
        super(EncoderBlock, self).__init__(**kwargs)
        self.attention = MultiHeadAttention(key_size, query_size, value_size, num_hiddens, num_heads, dropout,
                                            use_bias)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(norm_shape, dropout)

    def forward(self, X, valid_lens):
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


X = torch.ones((2, 10, 24))
valid_lens = torch.tensor([3, 2])
encoder_blk = EncoderBlock(24, 24, 24, 24, [24], 24, 48, 8, 0.5)
encoder_blk.eval()
print(encoder_blk(X, valid_lens).shape)


class TransformerEncoder(nn.Module):
    """Transformer encoder."""
    def __init__(self, vocab_size, key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                 ffn_num_hiddens, num_heads, num_layers, dropout, use_bias=False, **kwargs):
        super(TransformerEncoder, self).__init__(**kwargs)
        self.num_hiddens = num_hiddens
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module("block" + str(i),
                                 EncoderBlock(key_size, query_size, value_size, num_hiddens, norm_shape,
                                              ffn_num_input, ffn_num_hiddens, num_heads, dropout, use_bias))

    def forward(self, X, valid_lens, *args):
        # Since positional encoding values are between -1 and 1, the embedding values are multiplied by the
        # square root of the embedding dimension to rescale before they are summed up
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens))
        self.attention_weights = [None] * len(self.blks)
        for i, blk in enumerate(self.blks):
            X = blk(X, valid_lens)
            self.attention_weights[i] = blk.attention.attention.attention_weights
        return X


torch.manual_seed(1)
encoder = TransformerEncoder(200, 24, 24, 24, 24, [24], 24, 48, 8, 2, 0.5)
encoder.eval()
print(encoder(torch.ones((2, 10), dtype=torch.long), valid_lens).shape)
print([name for name, _ in encoder.named_children()], [name for name, _ in encoder.blks.named_children()])
print(len(encoder.attention_weights), encoder.attention_weights[1].shape)
print(encoder.attention_weights[0][0, 0], encoder.attention_weights[0][8, 0])

# a few Adam steps: predict each token of a copy task from the encoder's output
torch.manual_seed(2)
vocab_size, num_hiddens = 12, 16
enc = TransformerEncoder(vocab_size, num_hiddens, num_hiddens, num_hiddens, num_hiddens, [num_hiddens], num_hiddens,
                         32, 4, 2, 0.1)
head = nn.Linear(num_hiddens, vocab_size)
params = list(enc.parameters()) + list(head.parameters())
print(sum(p.numel() for p in params))
optimizer = torch.optim.Adam(params, lr=0.01)
tokens = torch.randint(1, vocab_size, (8, 6))
valid = torch.tensor([6, 5, 4, 6, 3, 6, 2, 5])
for step in range(15):
    enc.train()
    logits = head(enc(tokens, valid))
    mask = torch.arange(6)[None, :] < valid[:, None]
    loss = nn.functional.cross_entropy(logits[mask], tokens[mask])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 4:
        print(f'step {step + 1}: loss {loss.item():.4f}')
enc.eval()
with torch.no_grad():
    pred = head(enc(tokens, valid)).argmax(-1)
print(((pred == tokens) & mask).sum().item(), mask.sum().item())

# PyTorch's own layer: the same shapes, and weights averaged over the heads
mha = nn.MultiheadAttention(embed_dim=24, num_heads=8, batch_first=True)
X = torch.randn(2, 10, 24)
key_padding_mask = torch.arange(10)[None, :] >= valid_lens[:, None]  # True = ignore
out, w = mha(X, X, X, key_padding_mask=key_padding_mask)
print(out.shape, w.shape, w[1, 0], out.grad_fn)
out, w = mha(X, X, X, key_padding_mask=key_padding_mask, average_attn_weights=False)
print(w.shape, torch.allclose(w.sum(-1), torch.ones(2, 8, 10)))
