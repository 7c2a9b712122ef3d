# "Language Modeling with nn.Transformer": a PositionalEncoding module with a sin/cos buffer
# (register_buffer), nn.TransformerEncoderLayer / nn.TransformerEncoder, a causal mask from
# nn.Transformer.generate_square_subsequent_mask, CrossEntropyLoss over view(-1, ntokens),
# clip_grad_norm_, SGD with a StepLR scheduler, batchify / get_batch, then greedy generation.
import math
import torch
from torch import nn, Tensor
from torch.nn import TransformerEncoder, TransformerEncoderLayer


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x: Tensor) -> Tensor:
        """x: [seq_len, batch_size, embedding_dim]"""
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken: int, d_model: int, nhead: int, d_hid: int, nlayers: int, dropout: float = 0.5):
        super().__init__()
        self.model_type = 'Transformer'
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self) -> None:
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src: Tensor, src_mask: Tensor = None) -> Tensor:
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask)
        return self.linear(output)


torch.manual_seed(0)
text = "the cat sat on the mat and the dog sat on the log " * 6
vocab = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(vocab)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print(len(vocab), data.shape, data[:12])


def batchify(data: Tensor, bsz: int) -> Tensor:
    seq_len = data.size(0) // bsz
    data = data[:seq_len * bsz]
    return data.view(bsz, seq_len).t().contiguous()


bptt = 12
train_data = batchify(data, 4)
print(train_data.shape, train_data.is_contiguous())


def get_batch(source: Tensor, i: int):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


ntokens = len(vocab)
model = TransformerModel(ntokens, d_model=16, nhead=2, d_hid=32, nlayers=2, dropout=0.1)
print(model.pos_encoder.pe.shape, [name for name, _ in model.named_buffers()])
print(sorted(model.state_dict().keys())[:6])
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
print(model.transformer_encoder.layers[0])
print(nn.Transformer.generate_square_subsequent_mask(4))

criterion = nn.CrossEntropyLoss()
lr = 1.0
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)

for epoch in range(1, 4):
    model.train()
    total_loss = 0.
    num_batches = len(train_data) // bptt
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        output = model(data)
        output_flat = output.view(-1, ntokens)
        loss = criterion(output_flat, targets)
        optimizer.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total_loss += loss.item()
    print(f'| epoch {epoch:3d} | lr {scheduler.get_last_lr()[0]:02.2f} | loss {total_loss / num_batches:5.2f} '
          f'| ppl {math.exp(total_loss / num_batches):8.2f} | grad norm {norm.item():.3f}')
    scheduler.step()

model.eval()
with torch.no_grad():
    data, targets = get_batch(train_data, 0)
    output = model(data)
    print(output.shape, criterion(output.view(-1, ntokens), targets).item() > 0)
    ids = [stoi[c] for c in "the "]
    for _ in range(8):
        inp = torch.tensor(ids).unsqueeze(1)
        logits = model(inp)
        next_id = logits[-1, 0].argmax().item()
        ids.append(next_id)
    print(repr("".join(vocab[i] for i in ids)))
print(optimizer.param_groups[0]['lr'], scheduler.state_dict()['last_epoch'])
