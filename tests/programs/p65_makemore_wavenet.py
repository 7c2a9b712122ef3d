# makemore, part 5 "Building makemore Part 5: Building a WaveNet": the torch.nn-like layers written by
# hand (Linear, BatchNorm1d that takes the mean over dims (0, 1) of a 3-D input, Tanh, Embedding,
# FlattenConsecutive, Sequential), the hierarchical model fusing 2 characters at a time, the
# BatchNorm1d bug (running_mean of shape (1, 4, 68)) and its fix, layer output shapes, split_loss
# and sampling; then the same model with torch.nn modules, where nn.BatchNorm1d wants (N, C, L).
import random
import torch
import torch.nn as nn
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper", "evelyn",
         "abigail", "emily", "elizabeth", "mila", "ella", "avery", "sofia", "camila", "aria", "scarlett",
         "victoria", "madison", "luna", "grace", "chloe", "penelope", "layla", "riley", "zoey", "nora"]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)
print(vocab_size)
random.seed(42)
random.shuffle(words)

block_size = 8  # context length: how many characters do we take to predict the next one?


def build_dataset(words):
    X, Y = [], []

    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append

    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])  # 80%
Xdev, Ydev = build_dataset(words[n1:n2])  # 10%
Xte, Yte = build_dataset(words[n2:])  # 10%
for x, y in zip(Xtr[:10], Ytr[:10]):
    print(''.join(itos[ix.item()] for ix in x), '-->', itos[y.item()])


# Near copy paste of the layers we have developed in Part 3

# -----------------------------------------------------------------------------------------------
class Linear:

    def __init__(self, fan_in, fan_out, bias=True):
        self.weight = torch.randn((fan_in, fan_out)) / fan_in**0.5  # note: kaiming init
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


# -----------------------------------------------------------------------------------------------
class BatchNorm1d:

    def __init__(self, dim, eps=1e-5, momentum=0.1, buggy=False):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        self.buggy = buggy
        # parameters (trained with backprop)
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        # buffers (trained with a running 'momentum update')
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

    def __call__(self, x):
        # calculate the forward pass
        if self.training:
            if x.ndim == 2 or self.buggy:
                dim = 0
            elif x.ndim == 3:
                dim = (0, 1)
            xmean = x.mean(dim, keepdim=True)  # batch mean
            xvar = x.var(dim, keepdim=True)  # batch variance
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)  # normalize to unit variance
        self.out = self.gamma * xhat + self.beta
        # update the buffers
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


# -----------------------------------------------------------------------------------------------
class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


# -----------------------------------------------------------------------------------------------
class Embedding:

    def __init__(self, num_embeddings, embedding_dim):
        self.weight = torch.randn((num_embeddings, embedding_dim))

    def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

    def parameters(self):
        return [self.weight]


# -----------------------------------------------------------------------------------------------
class FlattenConsecutive:

    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out

    def parameters(self):
        return []


# -----------------------------------------------------------------------------------------------
class Sequential:

    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.out = x
        return self.out

    def parameters(self):
        # get parameters of all layers and stretch them out into one list
        return [p for layer in self.layers for p in layer.parameters()]


# the lecture's shape explorations
torch.manual_seed(42)  # seed rng for reproducibility
e = torch.randn(4, 8, 10)  # goal: want this to be (4, 4, 20) where consecutive 10-d vectors get concatenated
explicit = torch.cat([e[:, ::2, :], e[:, 1::2, :]], dim=2)
print(explicit.shape, (e.view(4, 4, 20) == explicit).all())
print((torch.randn(4, 80) @ torch.randn(80, 200) + torch.randn(200)).shape)
print((torch.randn(4, 5, 6, 80) @ torch.randn(80, 200) + torch.randn(200)).shape)
print(torch.randn(4, 4, 20).mean((0, 1), keepdim=True).shape, torch.randn(4, 4, 20).mean(0, keepdim=True).shape)


def make_model(n_embd, n_hidden, buggy=False):
    model = Sequential([
        Embedding(vocab_size, n_embd),
        FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False), BatchNorm1d(n_hidden, buggy=buggy), Tanh(),
        FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False), BatchNorm1d(n_hidden, buggy=buggy), Tanh(),
        FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False), BatchNorm1d(n_hidden, buggy=buggy), Tanh(),
        Linear(n_hidden, vocab_size),
    ])
    # parameter init
    with torch.no_grad():
        model.layers[-1].weight *= 0.1  # last layer make less confident
    return model


torch.manual_seed(42)
model = make_model(10, 68, buggy=True)
parameters = model.parameters()
print(sum(p.nelement() for p in parameters))  # number of parameters in total
for p in parameters:
    p.requires_grad = True
ix = torch.randint(0, Xtr.shape[0], (4,))  # let's look at a batch of just 4 examples
Xb, Yb = Xtr[ix], Ytr[ix]
logits = model(Xb)
print(Xb.shape)
print(Xb)
for layer in model.layers:
    print(layer.__class__.__name__, ':', tuple(layer.out.shape))
print(model.layers[3].running_mean.shape)  # the bug: one mean per position as well as per channel

torch.manual_seed(42)  # seed rng for reproducibility
n_embd = 10  # the dimensionality of the character embedding vectors
n_hidden = 32  # the number of neurons in the hidden layer of the MLP
model = make_model(n_embd, n_hidden)
parameters = model.parameters()
print(sum(p.nelement() for p in parameters))  # number of parameters in total
for p in parameters:
    p.requires_grad = True

# same optimization as last time
max_steps = 60
batch_size = 32
lossi = []

for i in range(max_steps):

    # minibatch construct
    ix = torch.randint(0, Xtr.shape[0], (batch_size,))
    Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

    # forward pass
    logits = model(Xb)
    loss = F.cross_entropy(logits, Yb)  # loss function

    # backward pass
    for p in parameters:
        p.grad = None
    loss.backward()

    # update: simple SGD
    lr = 0.1 if i < 45 else 0.01  # step learning rate decay
    for p in parameters:
        p.data += -lr * p.grad

    # track stats
    if i % 20 == 0:  # print every once in a while
        print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
    lossi.append(loss.log10().item())

print(model.layers[3].running_mean.shape)
print(torch.tensor(lossi).view(-1, 20).mean(1))

# put layers into eval mode (needed for batchnorm especially)
for layer in model.layers:
    layer.training = False


# evaluate the loss
@torch.no_grad()  # this decorator disables gradient tracking inside pytorch
def split_loss(split):
    x, y = {
        'train': (Xtr, Ytr),
        'val': (Xdev, Ydev),
        'test': (Xte, Yte),
    }[split]
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    print(split, f'{loss.item():.4f}')


split_loss('train')
split_loss('val')

# sample from the model
for _ in range(4):

    out = []
    context = [0] * block_size  # initialize with all ...
    while True:
        # forward pass the neural net
        logits = model(torch.tensor([context]))
        probs = F.softmax(logits, dim=1)
        # sample from the distribution
        ix = torch.multinomial(probs, num_samples=1).item()
        # shift the context window and track the samples
        context = context[1:] + [ix]
        out.append(ix)
        # if we sample the special '.' token, break
        if ix == 0 or len(out) > 12:
            break

    print(''.join(itos[i] for i in out))  # decode and print the generated word


# ---- the same network with torch.nn ---------------------------------------------------------------
class FlattenConsecutiveModule(nn.Module):
    use_view = True

    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n) if self.use_view else x.reshape(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        return x


class BatchNormLastDim(nn.BatchNorm1d):
    """nn.BatchNorm1d normalises dim 1 of a (N, C, L) input: move the channels there and back."""
    def forward(self, x):
        if x.ndim == 3:
            return super().forward(x.transpose(1, 2)).transpose(1, 2)
        return super().forward(x)


torch.manual_seed(42)
net = nn.Sequential(
    nn.Embedding(vocab_size, n_embd),
    FlattenConsecutiveModule(2), nn.Linear(n_embd * 2, n_hidden, bias=False), BatchNormLastDim(n_hidden), nn.Tanh(),
    FlattenConsecutiveModule(2), nn.Linear(n_hidden * 2, n_hidden, bias=False), BatchNormLastDim(n_hidden), nn.Tanh(),
    FlattenConsecutiveModule(2), nn.Linear(n_hidden * 2, n_hidden, bias=False), BatchNormLastDim(n_hidden), nn.Tanh(),
    nn.Linear(n_hidden, vocab_size),
)
print(net)
print(sum(p.numel() for p in net.parameters()))
try:
    nn.BatchNorm1d(n_hidden)(torch.randn(4, 4, n_hidden))
except RuntimeError as e:
    print(e)
try:  # the transposes in BatchNormLastDim leave a non-contiguous tensor behind
    net(Xtr[:4])
except RuntimeError as e:
    print(e)
FlattenConsecutiveModule.use_view = False
print(net(Xtr[:4]).shape)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for i in range(30):
    ix = torch.randint(0, Xtr.shape[0], (batch_size,))
    loss = F.cross_entropy(net(Xtr[ix]), Ytr[ix])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if i % 10 == 0:
        print(f'{i:7d}: {loss.item():.4f}')
net.eval()
with torch.no_grad():
    print(f"val {F.cross_entropy(net(Xdev), Ydev).item():.4f}", net[3].running_mean.shape, net[3].num_batches_tracked)
