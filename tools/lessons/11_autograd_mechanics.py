# %% [markdown]
# # 11 · Autograd mechanics: switching recording off, backward twice, hooks, eager debugging
#
# Lessons 09 and 10 built the graph and the backward pass. This lesson is about living with
# them day to day:
#
# 1. turning recording off and on: `no_grad`, `enable_grad`, `set_grad_enabled`, `detach`;
# 2. why a second `backward` fails, and `retain_graph=True`;
# 3. gradients **accumulate** across backward calls, hence `zero_grad`;
# 4. looking inside: `retain_grad` and hooks;
# 5. in-place operations and the version counter (a reminder of lesson 06);
# 6. eager execution: every operation runs immediately, so `print` is a debugger.

# %% id="setup"
import minitorch as torch
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. Turning recording off and on
#
# Recording costs memory (saved tensors) and time. Evaluation, weight updates and metrics
# need no graph: wrap them in `no_grad()`. `enable_grad()` switches recording back on inside
# such a block, and `set_grad_enabled(flag)` chooses with a boolean (handy for
# `set_grad_enabled(training)`). `detach()` makes a tensor that shares the memory but has no
# history: a dead end for gradients.

# %% id="grad-modes" claims="C11"
w = torch.tensor([1.0, 2.0], requires_grad=True)
print("default          :", (w * 2).requires_grad, "| grad enabled:", torch.is_grad_enabled())
with torch.no_grad():
    print("no_grad          :", (w * 2).requires_grad, "| grad enabled:", torch.is_grad_enabled())
    with torch.enable_grad():
        print("  enable_grad    :", (w * 2).requires_grad)
for training in (True, False):
    with torch.set_grad_enabled(training):
        print(f"set_grad_enabled({training!s:5}):", (w * 2).requires_grad)

d = w.detach()
print("\ndetach: requires_grad", d.requires_grad, "| shares memory:", d.data_ptr() == w.data_ptr(),
      "| grad_fn:", d.grad_fn)


@torch.no_grad()
def evaluate(v):
    return (v * 3).sum()


print("@no_grad() decorator:", evaluate(w).requires_grad)

# %% [markdown]
# The real thing: a grad mode is one flag, saved on entry and restored on exit. `no_grad` sets
# it to `False`; every operation asks `is_grad_enabled()` before it records a node.

# %% id="grad-mode-source" tags=["nbval-ignore-output"]
from minitorch.autograd import grad_mode

show_source(grad_mode._Mode)
show_source(grad_mode.no_grad)

# %% [markdown]
# ## 2. Backward through the graph a second time
#
# After `backward`, the engine frees what the nodes saved for backward (the inputs of a
# multiplication, the output of an exp...): a big graph's memory is returned at once. A
# second `backward` through the same graph then finds nothing to work with:

# %% id="backward-twice"
x = torch.tensor(3.0, requires_grad=True)
y = x.exp() * x
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# Where the freeing happens: `Tensor.backward` hands over to the engine's `run_backward`, which
# runs each node once, in order, and (unless `retain_graph=True`) drops what it saved. Read
# how it ends a node's turn:

# %% id="backward-source" tags=["nbval-ignore-output"]
from minitorch.autograd import engine

show_source(torch.Tensor.backward)
show_source(engine.run_backward)

# %% [markdown]
# If you really need it twice (two losses sharing a trunk, say), keep the graph with
# `retain_graph=True` on all but the last call:

# %% id="retain-graph"
x = torch.tensor(3.0, requires_grad=True)
y = x.exp() * x
y.backward(retain_graph=True)
first = x.grad.item()
y.backward()
print(f"first backward: {first:.4f}   after the second: {x.grad.item():.4f}  (twice the first)")

# %% [markdown]
# ## 3. Gradients accumulate: `zero_grad`
#
# The second number above is twice the first: `backward` **adds** into `.grad`, it does not
# overwrite. That is a feature (gradient accumulation: several small batches, one update),
# and the reason every training loop clears gradients before each backward:

# %% id="accumulate" claims="C31"
w = torch.tensor([1.0, -1.0], requires_grad=True)
for step in range(3):
    loss = (w * w).sum()
    loss.backward()
    print(f"step {step}: w.grad = {w.grad}   (forgot to zero: grows every step)")

w.grad = None                                     # or w.grad.zero_(); optimizer.zero_grad()
opt = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = (w * w).sum()
    loss.backward()
    opt.step()
    print(f"step {step}: w.grad = {w.grad}   w = {w.detach()}")

# %% [markdown]
# ## 4. Looking inside: `retain_grad` and hooks
#
# Only leaves keep their `.grad`; intermediate results pass their gradient on and drop it.
# `retain_grad()` asks an intermediate tensor to keep it, and `register_hook(fn)` calls `fn`
# with the gradient as it flows past (it may also return a replacement, e.g. to clip it).

# %% id="hooks"
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
h.retain_grad()
handle = h.register_hook(lambda g: print("hook on h sees gradient", g))
clip = x.register_hook(lambda g: g.clamp(-10, 10))   # clip the gradient reaching x
loss = (h ** 3).sum()
loss.backward()
print("h.grad:", h.grad)
print("x.grad:", x.grad, " (unclipped would be", 2 * 3 * (2 * x.detach()) ** 2, ")")
handle.remove()
clip.remove()

# %% id="hook-source" tags=["nbval-ignore-output"]
show_source(torch.Tensor.retain_grad)
show_source(torch.Tensor.register_hook)

# %% [markdown]
# ## 5. In-place operations and the version counter
#
# Lesson 06 showed the details; here is the mechanism in two lines. Every tensor's storage
# has a version counter that in-place operations bump. A node that saved a tensor for
# backward remembers its version, and refuses to use it if it changed:

# %% id="version-counter" claims="C37 C47"
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 1                       # a non-leaf copy we may modify
c = b * b                       # MulBackward0 saves b (at version 0)
print("b._version before:", b._version)
b.add_(1)
print("b._version after :", b._version)
try:
    c.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# The check itself is a comparison of two integers, made when backward unpacks what was saved:

# %% id="version-source" tags=["nbval-ignore-output"]
from minitorch.autograd.function import SavedTensor

show_source(SavedTensor)

# %% [markdown]
# ## 6. Eager execution: every operation runs now
#
# There is no separate "build the graph, then run it" phase. Each line computes its value
# immediately (and, with `requires_grad`, records a node as a side effect). So in the middle
# of a computation you can print a value, check a shape, or stop with a debugger, just as in
# NumPy:

# %% id="eager-debug" claims="C34"
_ = torch.manual_seed(0)
batch = torch.randn(4, 3)
W = torch.randn(3, 2, requires_grad=True)

hidden = batch @ W
print("hidden:", hidden.shape, hidden.dtype, "| grad_fn:", hidden.grad_fn.name())
print(hidden)                          # a real value, available right now
probs = hidden.softmax(dim=1)
print("rows sum to 1:", probs.sum(dim=1))
if (probs > 0.9).any():                # plain Python control flow on computed values
    print("some prediction is very confident:", (probs > 0.9).nonzero().tolist())
loss = -probs[:, 0].log().mean()
print("loss:", round(loss.item(), 4))
loss.backward()
print("W.grad:", W.grad)

# %% [markdown]
# A mistake shows up on the line that makes it, with the shapes involved, not later inside
# a compiled graph:

# %% id="eager-error" claims="C34 C49"
try:
    batch @ W.t()                      # (4, 3) @ (2, 3): wrong orientation
except RuntimeError as e:
    print("RuntimeError:", e)
print("check the shapes:", list(batch.shape), list(W.t().shape))

# %% [markdown]
# ### Checking against PyTorch
#
# With PyTorch installed, the lines of this lesson run there too (on fixed numbers).

# %% id="pytorch-check" tags=["nbval-ignore-output"]
compare_with_pytorch("""
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w * 2).requires_grad, torch.is_grad_enabled()
with torch.no_grad():
    inside = ((w * 2).requires_grad, torch.is_grad_enabled())
inside
with torch.set_grad_enabled(False):
    off = (w * 2).requires_grad
off
d = w.detach()
d.requires_grad, d.data_ptr() == w.data_ptr(), d.grad_fn
x = torch.tensor(3.0, requires_grad=True)
y = x.exp() * x
y.backward(retain_graph=True)
first = x.grad.clone()
y.backward()
first, x.grad
y.backward()
w = torch.tensor([1.0, -1.0], requires_grad=True)
[(w * w).sum().backward() or w.grad.clone() for step in range(3)]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
h.retain_grad()
clip = x.register_hook(lambda g: g.clamp(-10, 10))
(h ** 3).sum().backward()
h.grad, x.grad
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 1
c = b * b
b.add_(1)
b._version
c.sum().backward()
torch.ones(4, 3) @ torch.ones(3, 2).t()
""")

# %% [markdown]
# ## Summary
#
# - `no_grad` / `enable_grad` / `set_grad_enabled` switch recording for a block; `detach`
#   cuts one tensor out of the graph.
# - `backward` frees saved tensors; `retain_graph=True` keeps them for a second pass.
# - `.grad` accumulates: zero it before each backward (`optimizer.zero_grad()`).
# - `retain_grad` and hooks let you see (and change) gradients in flight.
# - Saved tensors are version-checked, so careless in-place updates fail loudly.
# - Eager execution means every intermediate is a real value you can print.
