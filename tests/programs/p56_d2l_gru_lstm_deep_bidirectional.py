# d2l.ai chapter 10 "Modern Recurrent Neural Networks", shrunk: GRU and LSTM from scratch (three()
# parameter triples, gates with torch.sigmoid, torch.cat over the steps), trained a few steps on a
# character corpus with hand-written grad clipping; the scratch LSTM checked against nn.LSTM after
# copying its weights in; then deep and bidirectional nn.GRU / nn.LSTM (num_layers=2,
# bidirectional=True): output and h_n shapes, parameter names, which slices of h_n equal which
# output steps, dropout between layers, and a sentiment-style classifier over
# torch.cat((hidden[-2], hidden[-1]), dim=1).
import math
import torch
from torch import nn
from torch.nn import functional as F

text = ("the time traveller for so it will be convenient to speak of him was expounding a recondite "
        "matter to us his grey eyes shone and twinkled and his usually pale face was flushed and animated ")
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
corpus = torch.tensor([stoi[c] for c in text])
vocab_size = len(chars)
print(vocab_size, corpus[:10])


def batches(corpus, batch_size, num_steps):
    num_tokens = ((len(corpus) - 1) // batch_size) * batch_size
    Xs = corpus[:num_tokens].reshape(batch_size, -1)
    Ys = corpus[1:num_tokens + 1].reshape(batch_size, -1)
    for i in range(0, Xs.shape[1] - num_steps + 1, num_steps):
        yield Xs[:, i:i + num_steps], Ys[:, i:i + num_steps]


def get_params(vocab_size, num_hiddens, device):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return torch.randn(size=shape, device=device) * 0.01

    def three():
        return (normal((num_inputs, num_hiddens)), normal((num_hiddens, num_hiddens)),
                torch.zeros(num_hiddens, device=device))

    W_xz, W_hz, b_z = three()  # Update gate parameters
    W_xr, W_hr, b_r = three()  # Reset gate parameters
    W_xh, W_hh, b_h = three()  # Candidate hidden state parameters
    # Output layer parameters
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs, device=device)
    # Attach gradients
    params = [W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def init_gru_state(batch_size, num_hiddens, device):
    return (torch.zeros((batch_size, num_hiddens), device=device), )


def gru(inputs, state, params):
    W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q = params
    H, = state
    outputs = []
    for X in inputs:
        Z = torch.sigmoid((X @ W_xz) + (H @ W_hz) + b_z)
        R = torch.sigmoid((X @ W_xr) + (H @ W_hr) + b_r)
        H_tilda = torch.tanh((X @ W_xh) + ((R * H) @ W_hh) + b_h)
        H = Z * H + (1 - Z) * H_tilda
        Y = H @ W_hq + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)


def get_lstm_params(vocab_size, num_hiddens, device):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return torch.randn(size=shape, device=device) * 0.01

    def three():
        return (normal((num_inputs, num_hiddens)), normal((num_hiddens, num_hiddens)),
                torch.zeros(num_hiddens, device=device))

    W_xi, W_hi, b_i = three()  # Input gate parameters
    W_xf, W_hf, b_f = three()  # Forget gate parameters
    W_xo, W_ho, b_o = three()  # Output gate parameters
    W_xc, W_hc, b_c = three()  # Candidate memory cell parameters
    # Output layer parameters
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs, device=device)
    # Attach gradients
    params = [W_xi, W_hi, b_i, W_xf, W_hf, b_f, W_xo, W_ho, b_o, W_xc, W_hc, b_c, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def init_lstm_state(batch_size, num_hiddens, device):
    return (torch.zeros((batch_size, num_hiddens), device=device),
            torch.zeros((batch_size, num_hiddens), device=device))


def lstm(inputs, state, params):
    [W_xi, W_hi, b_i, W_xf, W_hf, b_f, W_xo, W_ho, b_o, W_xc, W_hc, b_c, W_hq, b_q] = params
    (H, C) = state
    outputs = []
    for X in inputs:
        I = torch.sigmoid((X @ W_xi) + (H @ W_hi) + b_i)
        F = torch.sigmoid((X @ W_xf) + (H @ W_hf) + b_f)
        O = torch.sigmoid((X @ W_xo) + (H @ W_ho) + b_o)
        C_tilda = torch.tanh((X @ W_xc) + (H @ W_hc) + b_c)
        C = F * C + I * C_tilda
        H = O * torch.tanh(C)
        Y = (H @ W_hq) + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H, C)


class RNNModelScratch:
    def __init__(self, vocab_size, num_hiddens, device, get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens, device)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size, device):
        return self.init_state(batch_size, self.num_hiddens, device)


def grad_clipping(params, theta):
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


def train(net, lr, num_epochs):
    loss = nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        state, total, n = None, 0.0, 0
        for X, Y in batches(corpus, 4, 8):
            if state is None:
                state = net.begin_state(batch_size=X.shape[0], device='cpu')
            else:
                for s in state:
                    s.detach_()
            y = Y.T.reshape(-1)
            y_hat, state = net(X, state)
            l = loss(y_hat, y.long()).mean()
            l.backward()
            norm = grad_clipping(net.params, 1)
            with torch.no_grad():
                for param in net.params:
                    param -= lr * param.grad
                    param.grad.zero_()
            total, n = total + l.item() * y.numel(), n + y.numel()
        print(f'epoch {epoch + 1}: perplexity {math.exp(total / n):.2f}, last grad norm {norm:.3f}')


torch.manual_seed(0)
num_hiddens = 16
for name, get, init, fn in [('GRU', get_params, init_gru_state, gru), ('LSTM', get_lstm_params, init_lstm_state, lstm)]:
    net = RNNModelScratch(vocab_size, num_hiddens, 'cpu', get, init, fn)
    print(name, len(net.params), [tuple(p.shape) for p in net.params[:3]])
    train(net, lr=2, num_epochs=3)

# the scratch LSTM is nn.LSTM: PyTorch stacks the gates as (input, forget, cell, output)
torch.manual_seed(1)
params = get_lstm_params(vocab_size, num_hiddens, 'cpu')
W_xi, W_hi, b_i, W_xf, W_hf, b_f, W_xo, W_ho, b_o, W_xc, W_hc, b_c, W_hq, b_q = params
layer = nn.LSTM(vocab_size, num_hiddens)
with torch.no_grad():
    layer.weight_ih_l0.copy_(torch.cat([W_xi, W_xf, W_xc, W_xo], dim=1).T)
    layer.weight_hh_l0.copy_(torch.cat([W_hi, W_hf, W_hc, W_ho], dim=1).T)
    layer.bias_ih_l0.copy_(torch.cat([b_i, b_f, b_c, b_o]))
    layer.bias_hh_l0.zero_()
X = corpus[:12].reshape(2, 6)
inputs = F.one_hot(X.T, vocab_size).float()
_, (H, C) = lstm(inputs, init_lstm_state(2, num_hiddens, 'cpu'), params)
out, (h_n, c_n) = layer(inputs)
print(out.shape, h_n.shape, c_n.shape, out.grad_fn)
print(torch.allclose(H, h_n[0], atol=1e-6), torch.allclose(C, c_n[0], atol=1e-6))

# ---- deep and bidirectional RNNs --------------------------------------------------------------------
num_inputs, num_hiddens, num_layers = 5, 4, 2
torch.manual_seed(2)
gru_layer = nn.GRU(num_inputs, num_hiddens, num_layers)
lstm_layer = nn.LSTM(num_inputs, num_hiddens, num_layers, bidirectional=True)
print(gru_layer, lstm_layer)
print([(name, tuple(p.shape)) for name, p in lstm_layer.named_parameters()])
X = torch.randn(6, 3, num_inputs)  # (num_steps, batch_size, num_inputs)
Y, H = gru_layer(X)
print(Y.shape, H.shape, torch.equal(Y[-1], H[-1]))
Y, (H, C) = lstm_layer(X)
print(Y.shape, H.shape, C.shape)
# the last layer's forward direction ends at the last step, its backward direction at the first
print(torch.equal(Y[-1, :, :num_hiddens], H[-2]), torch.equal(Y[0, :, num_hiddens:], H[-1]))
print(H[-1])
state = (torch.zeros(2 * num_layers, 3, num_hiddens), torch.ones(2 * num_layers, 3, num_hiddens))
Y2, _ = lstm_layer(X, state)
print(Y2[0, 0])
try:
    lstm_layer(X, torch.zeros(2 * num_layers, 3, num_hiddens))
except Exception as e:
    print(type(e).__name__)
try:
    gru_layer(X, torch.zeros(1, 3, num_hiddens))
except RuntimeError as e:
    print(e)

# batch_first, and dropout between layers (in train mode only)
torch.manual_seed(3)
bigru = nn.GRU(num_inputs, num_hiddens, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)
xb = torch.randn(3, 6, num_inputs)  # (batch, seq, feature)
out_train, h_train = bigru(xb)
bigru.eval()
out_eval, h_eval = bigru(xb)
out_eval2, _ = bigru(xb)
print(out_train.shape, h_train.shape, torch.equal(out_eval, out_eval2), torch.equal(out_eval, out_train))
print(out_train[0, 0], out_eval[0, 0])
out_eval.sum().backward()
print(bigru.weight_hh_l1_reverse.grad.shape, bigru.bias_ih_l0.grad[:4])


class RNN(nn.Module):
    """The bidirectional sentiment classifier of the 'Updated sentiment analysis' tutorials."""
    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, n_layers, bidirectional, dropout):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=bidirectional,
                           dropout=dropout)
        self.fc = nn.Linear(hidden_dim * 2, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, text):
        # text = [sent len, batch size]
        embedded = self.dropout(self.embedding(text))
        output, (hidden, cell) = self.rnn(embedded)
        # concat the final forward (hidden[-2,:,:]) and backward (hidden[-1,:,:]) hidden layers
        hidden = self.dropout(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))
        return self.fc(hidden)


torch.manual_seed(4)
model = RNN(vocab_size, 6, 5, 1, 2, True, 0.25)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f'The model has {count_parameters(model):,} trainable parameters')
texts = torch.randint(0, vocab_size, (7, 8))
labels = (texts[0] > vocab_size // 2).float()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
criterion = nn.BCEWithLogitsLoss()


def binary_accuracy(preds, y):
    rounded_preds = torch.round(torch.sigmoid(preds))
    correct = (rounded_preds == y).float()  # convert into float for division
    acc = correct.sum() / len(correct)
    return acc


for epoch in range(5):
    model.train()
    optimizer.zero_grad()
    predictions = model(texts).squeeze(1)
    loss = criterion(predictions, labels)
    acc = binary_accuracy(predictions, labels)
    loss.backward()
    optimizer.step()
    print(f'Epoch: {epoch + 1:02} | Train Loss: {loss.item():.3f} | Train Acc: {acc.item() * 100:.2f}%')
model.eval()
with torch.no_grad():
    print(torch.sigmoid(model(texts).squeeze(1)))
