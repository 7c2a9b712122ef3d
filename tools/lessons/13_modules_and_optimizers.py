# %% [markdown]
# # 13 · Modules and optimizers: where the weights live, and how they move
#
# Lesson 10 trained a two-layer network with weight tensors held in plain variables. That
# stops scaling at the third layer: who keeps the list of weights, who zeroes their gradients,
# who saves them to disk? PyTorch's answer is two small classes, and this lesson builds both:
#
# 1. `Parameter`: a tensor flagged "train me" (it is born with `requires_grad=True`);
# 2. `Module`: an object that *registers* the parameters and sub-modules you assign to it,
#    so `parameters()` can find them all, however deeply nested;
# 3. the real `minitorch.nn.Module`: `named_parameters`, `state_dict`, `train`/`eval`,
#    `zero_grad`;
# 4. optimizers: one SGD step and one Adam step written by hand, checked number for number
#    against `minitorch.optim`.

# %% id="setup"
import math

import minitorch as torch
from minitorch import nn
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. A parameter is a tensor that wants a gradient
#
# Model weights are ordinary tensors. The only thing that makes them *trainable* is
# `requires_grad=True`: autograd then records every operation on them, and `backward()` leaves
# a `.grad` on each. Inputs and targets are tensors too, but nobody trains the data, so they
# keep the default `requires_grad=False` and autograd records nothing on their account.

# %% id="weights-are-tensors" claims="C29 C45"
x = torch.randn(4, 3)                          # a batch of data: no gradient wanted
W = torch.randn(2, 3, requires_grad=True)      # a weight: gradient wanted
b = torch.zeros(2, requires_grad=True)
loss = (x @ W.T + b).pow(2).mean()
loss.backward()
print("x: requires_grad", x.requires_grad, "| grad", x.grad)
print("W: requires_grad", W.requires_grad, "| grad shape", tuple(W.grad.shape))
print("b: requires_grad", b.requires_grad, "| grad shape", tuple(b.grad.shape))

# %% [markdown]
# A `Parameter` is exactly such a tensor, with `requires_grad=True` as its default and a type
# that a `Module` recognises. It shares the memory of the tensor it wraps (no copy):

# %% id="parameter-basics" claims="C42"
data = torch.tensor([1.0, 2.0, 3.0])
p = nn.Parameter(data)
print(p)
print("isinstance(p, Tensor):", isinstance(p, torch.Tensor), "| requires_grad:", p.requires_grad,
      "| is_leaf:", p.is_leaf)
print("shares memory with data:", p.data_ptr() == data.data_ptr())

# %% [markdown]
# ## 2. A Module from scratch
#
# The trick behind `model.parameters()` is `__setattr__`. Python calls it for every
# `self.something = value`; a Module intercepts it, and files the value in a registry when it is
# a `Parameter` or another `Module`. Here is the whole idea in a dozen lines:

# %% id="tiny-module"
class TinyModule:
    def __init__(self):
        object.__setattr__(self, "_params", {})     # bypass our own __setattr__ for the registries
        object.__setattr__(self, "_children", {})

    def __setattr__(self, name, value):
        if isinstance(value, nn.Parameter):
            self._params[name] = value
        elif isinstance(value, TinyModule):
            self._children[name] = value
        object.__setattr__(self, name, value)       # still a normal attribute too

    def named_parameters(self, prefix=""):
        for name, p in self._params.items():
            yield prefix + name, p
        for name, child in self._children.items():   # walk the tree of children
            yield from child.named_parameters(prefix + name + ".")

    def parameters(self):
        for _, p in self.named_parameters():
            yield p

    def __call__(self, *args):
        return self.forward(*args)

# %% [markdown]
# A linear layer and a two-layer network on top of it. Nothing in them lists their weights:
# assigning is registering.

# %% id="tiny-layers"
class TinyLinear(TinyModule):
    def __init__(self, n_in, n_out):
        super().__init__()
        bound = 1 / math.sqrt(n_in)
        self.weight = nn.Parameter(torch.empty(n_out, n_in).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.zeros(n_out))
        self.n_in = n_in                            # a plain int: not registered

    def forward(self, x):
        return x @ self.weight.T + self.bias


class TinyMLP(TinyModule):
    def __init__(self):
        super().__init__()
        self.hidden = TinyLinear(3, 4)
        self.out = TinyLinear(4, 2)

    def forward(self, x):
        return self.out(self.hidden(x).relu())


_ = torch.manual_seed(0)
tiny = TinyMLP()
for name, p in tiny.named_parameters():
    print(f"{name:14} shape {str(tuple(p.shape)):7} requires_grad={p.requires_grad}")
print("n_in is a plain attribute:", tiny.hidden.n_in, "| registered names:", list(tiny.hidden._params))

# %% [markdown]
# That is enough to train: forward, backward, and a loop over `parameters()` that takes a small
# step against each gradient (under `no_grad`, since the update itself must not be recorded),
# then clears the gradients for the next round.

# %% id="tiny-train" claims="C29"
X = torch.randn(16, 3)
Y = torch.stack([X[:, 0] + X[:, 1], X[:, 2] - X[:, 0]], dim=1)   # a target the MLP can fit
for step in range(201):
    loss = (tiny(X) - Y).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        for p in tiny.parameters():
            p -= 0.1 * p.grad
            p.grad = None
    if step % 50 == 0:
        print(f"step {step:3}: loss {loss.item():.4f}")

# %% [markdown]
# ## 3. The real `nn.Module`
#
# `minitorch.nn.Module` is the same idea with PyTorch's full API: three registries
# (`_parameters`, `_buffers` for state that is saved but not trained, `_modules`), and a
# `__setattr__` that routes each assignment into the right one:

# %% id="module-setattr-source" tags=["nbval-ignore-output"]
show_source(nn.Module.__setattr__)

# %% [markdown]
# and `parameters()` is the same walk over the tree of modules (with a `seen` set, so a
# parameter shared by two layers is listed, and updated, once):

# %% id="module-walk-source" tags=["nbval-ignore-output"]
show_source(nn.Module._named_members)
show_source(nn.Module.named_parameters)

# %% [markdown]
# The same network with the real classes. The printout of a module is its tree:

# %% id="real-module" claims="C42"
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 4)
        self.out = nn.Linear(4, 2)

    def forward(self, x):
        return self.out(self.hidden(x).relu())


_ = torch.manual_seed(0)
model = MLP()
print(model)
for name, p in model.named_parameters():
    print(f"{name:14} {type(p).__name__:9} shape {str(tuple(p.shape)):7} requires_grad={p.requires_grad}")
print("number of weights:", sum(p.numel() for p in model.parameters()))

# %% [markdown]
# ### `state_dict`: the weights by name
#
# `state_dict()` maps each parameter's dotted name to its tensor (detached: no gradient
# history). It is what you save, and `load_state_dict` puts it back into a model of the same
# shape. The tensors *share memory* with the model, so clone them if you want a snapshot:

# %% id="state-dict"
sd = model.state_dict()
for k, v in sd.items():
    print(f"{k:14} {tuple(v.shape)}  requires_grad={v.requires_grad}")
print("shares memory with the weight:", sd["hidden.weight"].data_ptr() == model.hidden.weight.data_ptr())

snapshot = {k: v.clone() for k, v in sd.items()}
_ = torch.manual_seed(1)
other = MLP()                                   # different random weights
print("\nbefore loading, same output:", torch.allclose(other(X), model(X)))
print(other.load_state_dict(snapshot))
print("after loading,  same output:", torch.allclose(other(X), model(X)))

# %% [markdown]
# ### `train()` and `eval()`
#
# Some layers behave differently while training: `Dropout` zeroes random activations during
# training and does nothing at evaluation. `model.train()` and `model.eval()` set a `training`
# flag on every sub-module at once; layers read it in `forward`.

# %% id="train-eval"
net = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(8, 2))
net.eval()
print("after eval():  ", [m.training for m in net.modules()])
with torch.no_grad():
    print("eval is deterministic:", torch.equal(net(X), net(X)))
net.train()
print("after train(): ", [m.training for m in net.modules()])
_ = torch.manual_seed(0)
with torch.no_grad():
    print("train mode, dropout active, two calls equal:", torch.equal(net(X), net(X)))

# %% [markdown]
# ### `zero_grad()`
#
# `backward()` *adds* into `.grad` (lesson 11). `model.zero_grad()` clears every parameter's
# gradient, by default to `None` (PyTorch 2's default: no memory held, and an optimizer skips a
# parameter whose `.grad` is `None`).

# %% id="zero-grad" claims="C31"
model(X).pow(2).mean().backward()
print("after backward:  hidden.weight.grad is None?", model.hidden.weight.grad is None)
model(X).pow(2).mean().backward()
model.zero_grad()
print("after zero_grad: hidden.weight.grad is None?", model.hidden.weight.grad is None)

# %% [markdown]
# ## 4. Optimizers: the update rule, by hand and by `minitorch.optim`
#
# An optimizer holds a list of parameters and a `step()` that moves each of them, in place,
# using its `.grad`. The rules are short enough to write out. To compare fairly we make two
# identical copies of the same parameters, compute the same gradient on both, and update one
# copy by hand and the other with the library.

# %% id="two-copies"
def make_params():
    g = torch.Generator().manual_seed(42)
    return [nn.Parameter(torch.randn(3, 2, generator=g)), nn.Parameter(torch.randn(2, generator=g))]


def compute_grads(params):
    """A fixed little loss, so both copies get the same gradients."""
    w, b = params
    inputs = torch.arange(6.0).reshape(2, 3) / 6
    return ((inputs @ w + b).tanh() - 1).pow(2).sum()


mine, theirs = make_params(), make_params()
print("same start:", all(torch.equal(a, b) for a, b in zip(mine, theirs)))

# %% [markdown]
# ### SGD with momentum
#
# Plain SGD is `p = p - lr * g`. With momentum, a running buffer `b` remembers past gradients:
# `b = g` at the first step, then `b = momentum * b + g`, and `p = p - lr * b`. Three steps by
# hand, three with `optim.SGD`:

# %% id="sgd-by-hand" claims="C29 C42"
lr, momentum = 0.1, 0.9
buffers = [None, None]
for step in range(3):
    for p in mine:
        p.grad = None
    compute_grads(mine).backward()
    with torch.no_grad():                        # the update must not be recorded by autograd
        for i, p in enumerate(mine):
            buffers[i] = p.grad.clone() if buffers[i] is None else momentum * buffers[i] + p.grad
            p -= lr * buffers[i]                # in place: the same tensor, the same Parameter

opt = torch.optim.SGD(theirs, lr=lr, momentum=momentum)
for step in range(3):
    opt.zero_grad()
    compute_grads(theirs).backward()
    opt.step()

for name, a, b in zip(["w", "b"], mine, theirs):
    print(f"{name}: by hand {a.detach().flatten()[:3]} | optim.SGD {b.detach().flatten()[:3]} | "
          f"equal to float precision: {torch.allclose(a, b, atol=1e-6)}")
print("still Parameters that require grad:", [type(p).__name__ for p in mine], mine[0].requires_grad)

# %% [markdown]
# ### Adam
#
# Adam keeps two running averages per parameter, of the gradient (`m`) and of its square (`v`),
# and divides one by the square root of the other, so every weight gets a step of roughly
# `lr` whatever the scale of its gradient. Both averages start at zero, which biases them
# towards zero early on; dividing by `1 - beta**t` corrects that.
#
#     m = beta1 * m + (1 - beta1) * g
#     v = beta2 * v + (1 - beta2) * g**2
#     p = p - lr * (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + eps)

# %% id="adam-by-hand" claims="C42 C45"
mine, theirs = make_params(), make_params()
lr, (beta1, beta2), eps = 0.01, (0.9, 0.999), 1e-8
m = [torch.zeros_like(p) for p in mine]
v = [torch.zeros_like(p) for p in mine]
for t in range(1, 6):
    for p in mine:
        p.grad = None
    compute_grads(mine).backward()
    with torch.no_grad():
        for i, p in enumerate(mine):
            g = p.grad
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            m_hat = m[i] / (1 - beta1 ** t)
            v_hat = v[i] / (1 - beta2 ** t)
            p -= lr * m_hat / (v_hat.sqrt() + eps)

opt = torch.optim.Adam(theirs, lr=lr, betas=(beta1, beta2), eps=eps)
for t in range(1, 6):
    opt.zero_grad()
    compute_grads(theirs).backward()
    opt.step()

for name, a, b in zip(["w", "b"], mine, theirs):
    print(f"{name}: by hand {a.detach().flatten()[:3]} | optim.Adam {b.detach().flatten()[:3]} | "
          f"equal to float precision: {torch.allclose(a, b, atol=1e-6)}")
print("the optimizer's state for w:", sorted(opt.state[theirs[0]]), "| step", opt.state[theirs[0]]["step"].item())

# %% [markdown]
# The library's `step()` is the same arithmetic, done in place on preallocated buffers:

# %% id="adam-source" tags=["nbval-ignore-output"]
show_source(torch.optim.Adam.step)

# %% [markdown]
# ### Only the parameters get gradients
#
# Set `requires_grad=True` on what you train and nowhere else. A tensor that does not need a
# gradient costs nothing in the graph, and freezing part of a model is just switching the flag
# off: the optimizer then skips those weights, because their `.grad` stays `None`.

# %% id="freeze" claims="C45"
_ = torch.manual_seed(0)
model = MLP()
model.hidden.requires_grad_(False)             # freeze the first layer
opt = torch.optim.SGD(model.parameters(), lr=0.1)
before = {k: v.clone() for k, v in model.state_dict().items()}
opt.zero_grad()
(model(X) - Y).pow(2).mean().backward()
opt.step()
for k, v in model.state_dict().items():
    p = model.get_parameter(k)
    print(f"{k:14} requires_grad={p.requires_grad!s:5} grad is None={p.grad is None!s:5} "
          f"changed={not torch.equal(before[k], v)}")

# %% [markdown]
# ## PyTorch check
#
# With PyTorch installed, the same SGD-with-momentum and Adam steps, from the same starting
# values, run on both libraries and give the same numbers (skipped without it).

# %% id="pytorch-adam" tags=["nbval-ignore-output"]
compare_with_pytorch("""
def compute_grads(params):
    w, b = params
    inputs = torch.arange(6.0).reshape(2, 3) / 6
    return ((inputs @ w + b).tanh() - 1).pow(2).sum()

def train(make_optimizer, steps):
    params = [torch.nn.Parameter(torch.tensor(v)) for v in start]
    opt = make_optimizer(params)
    for _ in range(steps):
        opt.zero_grad()
        compute_grads(params).backward()
        opt.step()
    return params

train(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), 3)
train(lambda ps: torch.optim.Adam(ps, lr=0.01), 5)
layer = torch.nn.Linear(3, 2)
[(name, p.shape, p.requires_grad) for name, p in layer.named_parameters()]
list(layer.state_dict().keys())
""", values={"start": [p.tolist() for p in make_params()]})

# %% [markdown]
# ## Summary
#
# - Model weights are tensors with `requires_grad=True`; `nn.Parameter` is such a tensor that
#   a `Module` recognises.
# - A `Module` registers parameters and sub-modules in `__setattr__`; `parameters()`,
#   `state_dict()`, `train()`/`eval()` and `zero_grad()` are walks over that tree.
# - An optimizer's `step()` is a few lines of tensor arithmetic under `no_grad`, applied in
#   place to each parameter; SGD and Adam by hand match `minitorch.optim` to float precision.
#
# Next, lesson 14 puts these together in a full training loop on real data.
