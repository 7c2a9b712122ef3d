# A tiny sequence classifier: padded integer sequences, nn.Embedding + nn.LSTM(batch_first=True).
import torch
import torch.nn as nn

torch.manual_seed(0)
PAD = 0
seqs = [[1, 2, 3], [4, 5], [1, 1, 2, 2], [5, 4, 3, 2, 1], [2, 3], [3, 3, 3], [4, 1], [5, 5, 1, 2]]
labels = torch.tensor([sum(s) % 2 for s in seqs])
max_len = max(len(s) for s in seqs)
padded = torch.full((len(seqs), max_len), PAD, dtype=torch.long)
for i, s in enumerate(seqs):
    padded[i, :len(s)] = torch.tensor(s)
lengths = torch.tensor([len(s) for s in seqs])
print(padded)
print(lengths, labels)


class LSTMClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, num_classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=PAD)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True)
        self.fc = nn.Linear(hidden_dim, num_classes)

    def forward(self, x, lengths):
        emb = self.embedding(x)
        out, (h_n, c_n) = self.lstm(emb)
        # the output at each sequence's last real step (no packing)
        last = out[torch.arange(x.size(0)), lengths - 1]
        return self.fc(last), h_n


model = LSTMClassifier(6, 8, 16, 2)
print(model)
print([(n, tuple(p.shape)) for n, p in model.lstm.named_parameters()])
logits, h_n = model(padded, lengths)
print(logits.shape, h_n.shape)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(30):
    optimizer.zero_grad()
    logits, _ = model(padded, lengths)
    loss = criterion(logits, labels)
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    logits, _ = model(padded, lengths)
    _, predicted = torch.max(logits, 1)
    print(predicted, (predicted == labels).sum().item(), "/", len(labels))
print(model.embedding.weight[PAD])

rnn = nn.LSTM(input_size=3, hidden_size=4, num_layers=2, batch_first=True)
x = torch.randn(2, 5, 3)
h0 = torch.zeros(2, 2, 4)
c0 = torch.zeros(2, 2, 4)
out, (hn, cn) = rnn(x, (h0, c0))
print(out.shape, hn.shape, cn.shape)
print(torch.allclose(out[:, -1], hn[-1]))
print(out[0, -1])
