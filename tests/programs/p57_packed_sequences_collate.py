# Variable-length sequences as forum answers and the "packed padded sequences" tutorials handle them:
# pad_sequence, pack_padded_sequence (sorted, and enforce_sorted=False), pack_sequence, what a
# PackedSequence holds, pad_packed_sequence with total_length, an nn.GRU / nn.LSTM over packed
# input (h_n is each sequence's true last step), a Dataset of token lists with a custom collate_fn
# that pads and returns the lengths, a masked mean over the padding, and CrossEntropyLoss with
# ignore_index for padded targets.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence
from torch.utils.data import DataLoader, Dataset

a = torch.tensor([1, 2, 3])
b = torch.tensor([4, 5])
c = torch.tensor([6])
padded = pad_sequence([a, b, c])
print(padded, padded.shape)
padded = pad_sequence([a, b, c], batch_first=True, padding_value=-1)
print(padded)
print(pad_sequence([torch.ones(2, 3), torch.ones(4, 3) * 2], batch_first=True).shape)

lengths = torch.tensor([3, 2, 1])
packed = pack_padded_sequence(padded, lengths, batch_first=True)
print(packed)
print(packed.data, packed.batch_sizes, type(packed).__name__)
print(pack_sequence([a, b, c]))
try:
    pack_sequence([c, a, b])
except RuntimeError as e:
    print(e)
packed = pack_sequence([c, a, b], enforce_sorted=False)
print(packed.sorted_indices, packed.unsorted_indices)
unpacked, lens = pad_packed_sequence(packed, batch_first=True)
print(unpacked, lens)
unpacked, lens = pad_packed_sequence(packed, batch_first=True, padding_value=9, total_length=5)
print(unpacked)
data, batch_sizes, sorted_indices, unsorted_indices = packed
print(data.dtype, batch_sizes.dtype, sorted_indices)
print(packed.to(torch.float32).data.dtype, packed.float().data)

# ---- an RNN over a packed batch ----------------------------------------------------------------------
torch.manual_seed(0)
emb = nn.Embedding(10, 4, padding_idx=0)
gru = nn.GRU(4, 5, batch_first=True)
seqs = [torch.tensor([3, 1, 4, 1, 5]), torch.tensor([9, 2, 6]), torch.tensor([5, 3])]
lengths = torch.tensor([len(s) for s in seqs])
x = pad_sequence(seqs, batch_first=True)
print(x, lengths)
embedded = emb(x)
print(embedded[2, 2:], embedded.grad_fn)
packed_in = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
packed_out, h_n = gru(packed_in)
print(type(packed_out).__name__, packed_out.data.shape, h_n.shape)
out, out_lens = pad_packed_sequence(packed_out, batch_first=True)
print(out.shape, out_lens)
# h_n holds the output at each sequence's true last step, the padding is zeros
print(torch.allclose(h_n[0], out[torch.arange(3), lengths - 1]), out[2, 2:].abs().sum().item())
# without packing, the padded steps run through the GRU too
out_padded, h_padded = gru(embedded)
print(torch.allclose(h_padded[0, 0], h_n[0, 0]), torch.allclose(h_padded[0, 2], h_n[0, 2]))
loss = out.sum()
loss.backward()
print(gru.weight_hh_l0.grad.shape, emb.weight.grad[0], emb.weight.grad[1])

lstm = nn.LSTM(4, 3, num_layers=2, bidirectional=True, batch_first=True)
packed_out, (h, c) = lstm(pack_padded_sequence(emb(x), lengths, batch_first=True, enforce_sorted=False))
out, _ = pad_packed_sequence(packed_out, batch_first=True)
print(out.shape, h.shape, c.shape)
print(torch.allclose(out[1, 2, :3], h[2, 1]), torch.allclose(out[1, 0, 3:], h[3, 1]))


# ---- a Dataset of variable-length token lists and a padding collate_fn ---------------------------------
class ToyTextDataset(Dataset):
    def __init__(self):
        self.samples = [([2, 3, 4], 0), ([5, 6], 1), ([7, 8, 9, 2, 3], 0), ([4], 1), ([6, 7, 8, 9], 0),
                        ([3, 3], 1), ([9, 8, 7], 0)]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        tokens, label = self.samples[idx]
        return torch.tensor(tokens, dtype=torch.long), label


def collate_fn(batch):
    # batch is a list of (sequence, label) tuples
    sequences, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in sequences])
    padded = pad_sequence(sequences, batch_first=True, padding_value=0)
    return padded, lengths, torch.tensor(labels)


def collate_sorted(batch):
    batch.sort(key=lambda x: len(x[0]), reverse=True)
    sequences, labels = zip(*batch)
    return pad_sequence(sequences, batch_first=True), torch.LongTensor([len(s) for s in sequences]), \
        torch.LongTensor(labels)


ds = ToyTextDataset()
loader = DataLoader(ds, batch_size=3, shuffle=False, collate_fn=collate_fn)
for padded, lengths, labels in loader:
    print(padded.shape, lengths.tolist(), labels)
try:
    next(iter(DataLoader(ds, batch_size=3)))
except RuntimeError as e:
    print(e)
padded, lengths, labels = next(iter(DataLoader(ds, batch_size=4, collate_fn=collate_sorted)))
print(padded, lengths, labels)


class Classifier(nn.Module):
    def __init__(self, vocab_size, emb_dim, hidden_dim, n_classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=0)
        self.lstm = nn.LSTM(emb_dim, hidden_dim, batch_first=True)
        self.fc = nn.Linear(hidden_dim, n_classes)

    def forward(self, x, lengths):
        embedded = self.embedding(x)
        packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, (hidden, _) = self.lstm(packed)
        return self.fc(hidden[-1])


torch.manual_seed(1)
model = Classifier(10, 6, 8, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()
loader = DataLoader(ds, batch_size=4, shuffle=True, collate_fn=collate_fn, generator=torch.Generator().manual_seed(0))
for epoch in range(4):
    total, correct = 0.0, 0
    for padded, lengths, labels in loader:
        optimizer.zero_grad()
        logits = model(padded, lengths)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(labels)
        correct += (logits.argmax(1) == labels).sum().item()
    print(f"epoch {epoch}: loss {total / len(ds):.4f} acc {correct}/{len(ds)}")

# ---- masks over padding --------------------------------------------------------------------------------
padded, lengths, labels = next(iter(DataLoader(ds, batch_size=4, collate_fn=collate_fn)))
mask = torch.arange(padded.size(1))[None, :] < lengths[:, None]
print(mask)
print((padded != 0) == mask)
with torch.no_grad():
    emb_out = model.embedding(padded)
    mean = (emb_out * mask.unsqueeze(-1)).sum(1) / lengths.unsqueeze(-1)
    print(mean.shape, torch.allclose(mean[3], emb_out[3, 0]))
    masked = emb_out.masked_fill(~mask.unsqueeze(-1), float('-inf')).max(dim=1).values
    print(masked.shape, torch.isinf(masked).any().item())

# padded targets: ignore_index skips them in the mean
logits = torch.randn(4, 5, 3)
targets = padded.clone() % 3
targets[~mask] = -100
loss = nn.CrossEntropyLoss()(logits.view(-1, 3), targets.view(-1))
manual = nn.CrossEntropyLoss(reduction='sum')(logits[mask], targets[mask]) / mask.sum()
print(round(loss.item(), 4), round(manual.item(), 4), nn.CrossEntropyLoss(ignore_index=-100).ignore_index)
