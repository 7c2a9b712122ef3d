"""One MLP training step, written three ways for the autograd and training benchmarks.

- `RawMLP(lib)`: plain tensor ops + autograd + a hand-written SGD update. Because minitorch
  mirrors PyTorch's API, the *same code* runs with lib=minitorch and lib=torch, so this row
  compares the two engines on identical work, and runs before minitorch.nn exists.
- `NNMLP(lib)`: the way a learner writes it: nn.Sequential of nn.Linear / nn.ReLU,
  nn.CrossEntropyLoss, optim.SGD (zero_grad, backward, step). Needs minitorch.nn/optim.
- `NumpyMLP`: forward, backward and update written by hand in NumPy: the floor that an
  autograd library on NumPy can approach.

All three start from the same float32 weights (made with NumPy from a seed), so their
losses agree; the smoke test checks that.
"""
from __future__ import annotations

import numpy as np

NN_NEEDS = ("nn.Linear", "nn.ReLU", "nn.Sequential", "nn.CrossEntropyLoss", "optim.SGD")


def init_weights(sizes, seed=0):
    """[(W (in, out), b (out,)), ...] float32, PyTorch's default uniform(-1/sqrt(in), 1/sqrt(in))."""
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        out.append((rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32),
                    rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)))
    return out


def batch(n, features, classes, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, features), dtype=np.float32),
            rng.integers(0, classes, n).astype(np.int64))


def missing_nn(lib):
    """Names among NN_NEEDS that `lib` does not have yet (empty: the nn benchmarks can run)."""
    missing = []
    for name in NN_NEEDS:
        obj = lib
        for part in name.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if obj is None:
            missing.append(name)
    return missing


class RawMLP:
    def __init__(self, lib, weights, lr=0.1, device=None):
        self.lib, self.lr = lib, lr
        self.params = []
        kw = {} if device is None else {"device": device}
        for W, b in weights:
            self.params.append((lib.tensor(W.copy(), requires_grad=True, **kw),
                                lib.tensor(b.copy(), requires_grad=True, **kw)))

    def loss(self, x, y):
        lib = self.lib
        h = x
        last = len(self.params) - 1
        for i, (W, b) in enumerate(self.params):
            h = h @ W + b
            if i < last:
                h = h.relu()
        return -lib.log_softmax(h, dim=1).gather(1, y.unsqueeze(1)).mean()

    def step(self, x, y):
        loss = self.loss(x, y)
        loss.backward()
        lr = self.lr
        with self.lib.no_grad():
            for W, b in self.params:
                W -= lr * W.grad
                b -= lr * b.grad
                W.grad = None
                b.grad = None
        return loss


class NNMLP:
    def __init__(self, lib, weights, lr=0.1):
        self.lib = lib
        nn = lib.nn
        layers = []
        for i, (W, b) in enumerate(weights):
            lin = nn.Linear(W.shape[0], W.shape[1])
            with lib.no_grad():  # the same starting point as the other versions
                lin.weight.copy_(lib.tensor(W.T.copy()))
                lin.bias.copy_(lib.tensor(b.copy()))
            layers.append(lin)
            if i < len(weights) - 1:
                layers.append(nn.ReLU())
        self.model = nn.Sequential(*layers)
        self.loss_fn = nn.CrossEntropyLoss()
        self.opt = lib.optim.SGD(self.model.parameters(), lr=lr)

    def step(self, x, y):
        self.opt.zero_grad()
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.opt.step()
        return loss


class NumpyMLP:
    """`xp` may be CuPy (bench/gpu.py): the same hand-written step on the GPU."""

    def __init__(self, weights, lr=0.1, xp=np):
        self.lr, self.xp = lr, xp
        self.params = [(xp.asarray(W.copy()), xp.asarray(b.copy())) for W, b in weights]

    def step(self, x, y):
        np = self.xp  # noqa: F811  (NumPy, or CuPy)
        acts, h = [x], x
        last = len(self.params) - 1
        for i, (W, b) in enumerate(self.params):
            h = h @ W + b
            if i < last:
                h = np.maximum(h, 0)
            acts.append(h)
        n = x.shape[0]
        z = h - h.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        loss = -(z[rows, y] - np.log(s[:, 0])).mean()
        g = e / s  # d loss / d logits = (softmax - onehot) / n
        g[rows, y] -= 1
        g /= n
        for i in range(last, -1, -1):
            W, b = self.params[i]
            gW = acts[i].T @ g
            gb = g.sum(axis=0)
            if i:
                g = g @ W.T
                g *= acts[i] > 0  # ReLU: acts[i] is the ReLU output of layer i-1
            W -= self.lr * gW
            b -= self.lr * gb
        return loss
