# %% [markdown]
# # 18 · Debugging tensors, and the best practices that prevent the bugs
#
# Most tensor bugs are one of a handful of mistakes, and each has a recognisable error
# message. This lesson makes each mistake on purpose, prints the message as plain text (so
# you can read it in full), and fixes it:
#
# 1. a debugging checklist: `describe(t)`, the five attributes that explain most errors;
# 2. shapes: a matmul that doesn't fit, and a broadcast that fits too well;
# 3. dtypes: float64 data into a float32 model, float targets where class ids are expected;
# 4. devices: a model and its input in different places;
# 5. autograd: in-place on a leaf, backward twice, `.numpy()` on a tensor that requires grad,
#    modifying a tensor saved for backward;
# 6. NumPy: the memory `from_numpy` shares;
# 7. the best practices, each in one cell.
#
# Every error here is caught with `try/except` and printed, so the notebook runs top to
# bottom; in your own code, the same message ends in a traceback pointing at the line.

# %% id="setup"
import warnings

import numpy as np

import minitorch as torch
from minitorch import nn
import minitorch.nn.functional as F
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.machine import wrapped
from minitorch_course.show import show_source

_ = torch.manual_seed(0)


def show_error(fn):
    """Run fn(), and print the error it raises as a traceback ends: type: message (PyTorch's
    words), then the hint minitorch attaches to it as a note, if any."""
    try:
        fn()
    except Exception as e:  # any error: we want to see whatever it is
        print(f"{type(e).__name__}: {e}")
        for note in getattr(e, "__notes__", ()):
            print(note)
    else:
        print("no error")

# %% [markdown]
# ## 1. The checklist: `describe(t)`
#
# When an operation fails, the message names shapes, dtypes or devices. Before changing any
# code, look at the tensors involved. Five attributes explain nearly every error: **shape**,
# **dtype**, **device**, **requires_grad**, and **grad_fn** (where the tensor came from: a
# leaf you made, or the result of an operation). A helper that prints them on one line is
# the most useful debugging tool in this course:

# %% id="describe" claims="C49"
def describe(t, name="t"):
    """One line with what explains most tensor errors."""
    grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    print(f"{name}: shape={tuple(t.shape)} dtype={t.dtype} device={t.device} "
          f"requires_grad={t.requires_grad} grad_fn={grad_fn}")


describe(torch.zeros(2, 3), "zeros")
w = torch.randn(3, 2, requires_grad=True)
describe(w, "w")
describe(torch.ones(4, 3) @ w, "ones @ w")
describe(torch.from_numpy(np.arange(3.0)), "from_numpy(np.arange(3.0))")

# %% [markdown]
# ## 2. Shapes
#
# ### A matrix product that doesn't fit
#
# `A @ B` needs the last dimension of `A` to equal the second-to-last of `B`. A classic way to
# get it wrong: a weight stored as (out_features, in_features), as `nn.Linear` does, used
# without transposing it.

# %% id="matmul-shape" claims="C49"
x = torch.randn(8, 4)                       # a batch of 8 examples with 4 features
weight = torch.randn(3, 4)                  # (out_features, in_features), like nn.Linear.weight
show_error(lambda: x @ weight)
describe(x, "x")
describe(weight, "weight")
print("fix: x @ weight.T ->", tuple((x @ weight.T).shape))

# %% [markdown]
# Where that message comes from: minitorch's `matmul` checks the inner sizes before computing,
# and words the error as PyTorch does, then adds the fix.

# %% id="matmul-source" tags=["nbval-ignore-output"]
from minitorch._ops import linalg

show_source(linalg.matmul)

# %% [markdown]
# ### A broadcast that fits too well
#
# Worse than an error is no error. A model's output for a batch of 4 is usually (4, 1); the
# targets often come as (4,). Subtracting them **broadcasts** to (4, 4): every prediction
# minus every target. The loss is a number, just the wrong number, and training quietly
# learns the mean.

# %% id="broadcast-surprise" claims="C49"
pred = torch.tensor([[1.0], [2.0], [3.0], [4.0]])   # (4, 1): what a model with one output gives
target = torch.tensor([1.0, 2.0, 3.0, 4.0])         # (4,): what a label column gives
diff = pred - target
print("pred", tuple(pred.shape), "- target", tuple(target.shape), "->", tuple(diff.shape))
print("hand-written MSE:", (diff ** 2).mean().item(), "(the predictions are perfect: it should be 0)")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss = F.mse_loss(pred, target)
print("F.mse_loss:", loss.item(), "| it warns:", caught[0].category.__name__ + ":", caught[0].message)
print("fix: make the shapes equal:", F.mse_loss(pred.squeeze(1), target).item(),
      "or", F.mse_loss(pred, target.unsqueeze(1)).item())

# %% [markdown]
# The warning goes to stderr, which is easy to miss in a long training log; checking
# `pred.shape == target.shape` once, before the loop, is not.
#
# ## 3. Dtypes
#
# ### float64 data into a float32 model
#
# NumPy's default float is float64; PyTorch's, and so every layer's weights, is float32.
# `from_numpy` keeps NumPy's dtype, and a matrix product does not mix the two:

# %% id="dtype-float64" claims="C49"
features = np.random.default_rng(0).random((5, 3))  # float64, as NumPy makes it
model = nn.Linear(3, 1)
x = torch.from_numpy(features)
show_error(lambda: model(x))
describe(x, "x")
describe(model.weight, "model.weight")
print("fix: x.float() ->", tuple(model(x.float()).shape),
      "| or at the source: features.astype(np.float32)")

# %% [markdown]
# ### Class ids must be integers
#
# `CrossEntropyLoss` takes targets as class indices, which must be integers (`int64`,
# "Long"). Labels read from a CSV or computed with a float operation are often floats:

# %% id="dtype-targets" claims="C49"
logits = torch.randn(4, 3)
labels = torch.tensor([0.0, 2.0, 1.0, 2.0])          # floats that look like classes
show_error(lambda: nn.CrossEntropyLoss()(logits, labels))
describe(labels, "labels")
print("fix: labels.long() ->", round(nn.CrossEntropyLoss()(logits, labels.long()).item(), 4))

# %% [markdown]
# The opposite holds for `BCEWithLogitsLoss` and `MSELoss`: their targets are values to
# compare with a float prediction, so they should be floats of the prediction's shape:
# `y.float()`. `BCEWithLogitsLoss` refuses integer targets, as PyTorch's does:

# %% id="dtype-bce-targets" claims="C49"
scores = torch.randn(4)
flags = torch.tensor([1, 0, 0, 1])                    # ints: the usual way labels arrive
show_error(lambda: nn.BCEWithLogitsLoss()(scores, flags))
print("fix: flags.float() ->", round(nn.BCEWithLogitsLoss()(scores, flags.float()).item(), 4))

# %% [markdown]
#
# ## 4. Devices
#
# An operation runs on one device, so a model and its input must be on the same one. With a
# GPU, forgetting to move the input gives:
#
# ```
# RuntimeError: Expected all tensors to be on the same device, but found at least two devices,
# cuda:0 and cpu! (in matmul: move them to one device first, e.g. `b = b.to(a.device)`)
# ```
#
# What you get depends on the machine, and we don't fake a GPU: on a machine without one,
# the error comes earlier, when asking for `cuda` at all, and it says why.

# %% id="device-mismatch" claims="C36 C46"
model = nn.Linear(3, 1)
x = torch.randn(2, 3)
if torch.cuda.is_available():
    model_gpu = nn.Linear(3, 1).to("cuda")
    try:
        model_gpu(x)                                  # x is still on the CPU
    except RuntimeError as e:
        print(wrapped(f"RuntimeError: {e}", prefix="On this machine: "))
else:
    try:
        model.to("cuda")
    except RuntimeError as e:
        print(wrapped(f"RuntimeError: {e}", prefix="On this machine: "))
print("the fix, on any machine: move both to one device ->", model.to("cpu")(x.to("cpu")).device)

# %% [markdown]
# ## 5. Autograd
#
# ### In-place on a leaf that requires grad
#
# A weight is a leaf: autograd computes its gradient. Modifying it in place while recording
# would change the value the graph was built from, so it is refused. Updates of weights
# belong in `no_grad()`, where optimizers do them.

# %% id="leaf-inplace" claims="C47"
w = torch.ones(3, requires_grad=True)
show_error(lambda: w.sub_(0.1))
with torch.no_grad():
    w.sub_(0.1)                                       # the fix: an update, not a computation
print("after the update under no_grad:", [round(v, 4) for v in w.tolist()], "| still a leaf:", w.is_leaf)

# %% [markdown]
# Every in-place method runs the same check first; `no_grad()` is the one way past it:

# %% id="inplace-check-source" tags=["nbval-ignore-output"]
from minitorch._ops import inplace

show_source(inplace.check_inplace)

# %% [markdown]
# ### backward twice
#
# `backward()` frees the values the graph saved, so the second call has nothing to work
# with. Usually the fix is to run the forward pass again (each training step builds a new
# graph); `retain_graph=True` keeps the saved values when you really need two backward passes.

# %% id="backward-twice"
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
show_error(lambda: loss.backward())
loss = (w * w).sum()                                  # fix: a new forward pass
loss.backward()
print("w.grad after two separate passes (they accumulate):", w.grad.tolist())

# %% [markdown]
# ### `.numpy()` on a tensor that requires grad
#
# A NumPy array has no graph, so converting would silently cut the tensor out of it. PyTorch
# asks you to say so, with `detach()`:

# %% id="numpy-requires-grad"
pred = torch.randn(3, requires_grad=True) * 2
show_error(lambda: pred.numpy())
print("fix: pred.detach().numpy() ->", type(pred.detach().numpy()).__name__,
      "| for plotting or metrics, also fine: pred.tolist()")

# %% [markdown]
# ### Modifying a tensor that backward needs
#
# `exp` saves its output for the backward pass (the derivative of `exp` is `exp`). An in-place
# change of that output afterwards makes the saved value wrong; the version counter notices,
# and `backward` refuses rather than return a wrong gradient:

# %% id="saved-tensor" claims="C47"
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
y.add_(1)                                             # y is saved by ExpBackward0
show_error(lambda: y.sum().backward())
y = x.exp()
z = y + 1                                             # fix: out-of-place (or y.clone().add_(1))
z.sum().backward()
print("fix: gradient", [round(g, 4) for g in x.grad.tolist()], "= exp(x)")

# %% [markdown]
# ## 6. The memory `from_numpy` shares
#
# `from_numpy` doesn't copy: the tensor and the array are two views of one buffer. That is
# fast, and it is a bug when some other code later changes the array in place, here a
# normalisation step that runs after the tensor was made:

# %% id="from-numpy-surprise" claims="C39"
raw = np.array([10.0, 20.0, 30.0], dtype=np.float32)
inputs = torch.from_numpy(raw)                       # shares raw's memory
print("inputs before:", inputs.tolist())
raw -= raw.mean()                                    # later, somewhere else: in-place NumPy
print("inputs after :", inputs.tolist(), "<- changed, and no line touched `inputs`")
print("same memory:", inputs.data_ptr() == raw.ctypes.data)

# %% [markdown]
# No error is raised, and nothing in the tensor's attributes shows it; `data_ptr()` does.
# The fix is in section 7 (best practice C48).
#
# ## 7. Best practices
#
# Each habit below prevents one of the bugs above.
#
# ### Gradients only where they are needed
#
# Parameters require gradients; data does not. A tensor that requires grad makes every
# operation on it record a graph node and save tensors, and its `.grad` costs memory of its
# size. Evaluation runs in `no_grad()`, and a frozen part of a model (a pretrained embedding,
# a feature extractor) gets `requires_grad_(False)`, so the optimizer leaves it alone.

# %% id="bp-requires-grad" claims="C45"
_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
data = torch.randn(16, 4)                            # data: requires_grad=False, the default
print("parameters requiring grad:", [n for n, p in model.named_parameters() if p.requires_grad])
print("data requires grad:", data.requires_grad)

model[0].requires_grad_(False)                       # freeze the first layer
trainable = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.SGD(trainable, lr=0.1)
loss = model(data).sum()
loss.backward()
print("frozen layer's grad:", model[0].weight.grad, "| trainable layer's grad:", tuple(model[2].weight.grad.shape))
with torch.no_grad():
    out = model(data)                                # evaluation: no graph at all
print("output under no_grad records a graph:", out.requires_grad)

# %% [markdown]
# ### Model and inputs on one device, checked before the forward pass
#
# Ask the model where it lives and move the batch there, at the top of the step. An error,
# if any, then names the model and the input instead of a matmul deep inside a layer:

# %% id="bp-same-device" claims="C46 C14"
def model_device(model):
    return next(model.parameters()).device


device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(3, 1).to(device)
xb = torch.randn(5, 3)
xb = xb.to(model_device(model))                      # the move, before the forward pass
assert xb.device == model_device(model), (xb.device, model_device(model))
print("On this machine: model and batch on", model_device(model))
print("model and batch on the same device:", xb.device == model_device(model))

# %% [markdown]
# ### In-place operations, deliberately
#
# Use `_` methods where nothing needs the old value: updating weights under `no_grad()`,
# preprocessing data that doesn't require grad. Anywhere in a forward pass that is recorded,
# prefer the out-of-place form; `clone()` first if you must modify a value autograd saved.

# %% id="bp-inplace" claims="C47"
w = torch.tensor([1.0, -2.0], requires_grad=True)
loss = (w ** 2).sum()
loss.backward()
with torch.no_grad():
    w.sub_(0.25 * w.grad)                            # deliberate: the update, outside the graph
    w.grad.zero_()                                   # deliberate: reset before the next step
print("updated w:", w.tolist(), "| grad reset:", w.grad.tolist())

batch = torch.tensor([[0.0, 5.0], [10.0, 15.0]])     # data: no gradient, safe to modify
batch.sub_(batch.mean()).div_(batch.std())
print("standardised in place:", [[round(v, 3) for v in row] for row in batch.tolist()])

# %% [markdown]
# ### Copy after `from_numpy` when sharing is not wanted
#
# Share memory on purpose (a large array read once, never touched again), copy otherwise:
# `torch.tensor(arr)` copies, and so does `torch.from_numpy(arr).clone()`.

# %% id="bp-copy" claims="C48"
raw = np.array([10.0, 20.0, 30.0], dtype=np.float32)
shared = torch.from_numpy(raw)
copied = torch.from_numpy(raw).clone()               # or: torch.tensor(raw)
also_copied = torch.tensor(raw)
raw -= raw.mean()
print("shared     :", shared.tolist())
print("copied     :", copied.tolist(), "<- unaffected")
print("also copied:", also_copied.tolist(), "<- unaffected")

# %% [markdown]
# ### Check `.shape` and `.dtype` first
#
# When a pipeline fails or a loss looks wrong, print `describe` for each tensor on the way;
# eager execution means each line has already run, so the values are there to look at. Then
# write down what you found as an `assert`, so the bug can't come back silently. Here, a
# small pipeline with three of the bugs above (float64 data, a (N, 1) output against (N,)
# targets, float class labels), found step by step:

# %% id="bp-check-shapes" claims="C49 C34"
rng = np.random.default_rng(1)
features = rng.random((6, 3))                        # float64
labels = np.array([0, 1, 1, 0, 1, 0], dtype=np.float64)
model = nn.Linear(3, 1)

x, y = torch.from_numpy(features), torch.from_numpy(labels)
describe(x, "x")
describe(y, "y")
x, y = x.float(), y.float().unsqueeze(1)             # fixes found by reading the lines above
out = model(x)
describe(out, "out")
assert out.shape == y.shape and out.dtype == y.dtype, (out.shape, y.shape, out.dtype, y.dtype)
loss = nn.BCEWithLogitsLoss()(out, y)
describe(loss, "loss")
print("checks passed: shapes", tuple(out.shape), "and dtypes", out.dtype, "agree")

# %% [markdown]
# With PyTorch installed, this lesson's broken lines run there too: the same error (type and,
# where marked, PyTorch's own words inside ours), or the same value, line by line.

# %% id="pytorch-compare" tags=["nbval-ignore-output"]
compare_with_pytorch("""
torch.ones(8, 4) @ torch.ones(3, 4)  # same message
(torch.ones(8, 4) @ torch.ones(3, 4).T).shape
pred = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
target = torch.tensor([1.0, 2.0, 3.0, 4.0])
(pred - target).shape, ((pred - target) ** 2).mean()
torch.nn.functional.mse_loss(pred.squeeze(1), target)
model = torch.nn.Linear(3, 1)
model(torch.ones(5, 3, dtype=torch.float64))
model(torch.ones(5, 3)).shape
torch.nn.CrossEntropyLoss()(torch.zeros(4, 3), torch.tensor([0.0, 2.0, 1.0, 2.0]))
torch.nn.CrossEntropyLoss()(torch.zeros(4, 3), torch.tensor([0, 2, 1, 2]))
torch.nn.BCEWithLogitsLoss()(torch.zeros(4), torch.tensor([1, 0, 0, 1]))
torch.nn.BCEWithLogitsLoss()(torch.zeros(4), torch.tensor([1.0, 0.0, 0.0, 1.0]))
torch.ones(3, requires_grad=True).sub_(0.1)  # same message
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
loss.backward()
torch.ones(3, requires_grad=True).numpy()
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
y.add_(1)
y.sum().backward()
raw = np.array([10.0, 20.0, 30.0], dtype=np.float32)
inputs, copied = torch.from_numpy(raw), torch.tensor(raw)
raw -= raw.mean()
inputs, copied
""")

# %% [markdown]
# ## Summary
#
# | symptom | first look at | usual fix |
# |---|---|---|
# | `mat1 and mat2 shapes cannot be multiplied` | `.shape` of both | transpose (`.T`), reshape |
# | a loss that is a number but wrong, a broadcast warning | `pred.shape` vs `target.shape` | `squeeze` / `unsqueeze` |
# | `expected ... same dtype`, `expected target dtype to be Long` | `.dtype` | `.float()`, `.long()` |
# | `Expected all tensors to be on the same device` | `.device` | `.to(device)` for model and data |
# | `a leaf Variable that requires grad ... in-place` | `requires_grad`, `is_leaf` | update under `no_grad()` |
# | `backward through the graph a second time` | the loop | forward again, or `retain_graph=True` |
# | `Can't call numpy() on Tensor that requires grad` | `requires_grad` | `.detach().numpy()` |
# | `modified by an inplace operation` | `grad_fn`, the `_` calls | out-of-place, or `clone()` first |
# | a tensor that changes by itself | `from_numpy` | `torch.tensor(arr)` or `.clone()` |
