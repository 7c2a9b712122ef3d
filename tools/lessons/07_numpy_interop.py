# %% [markdown]
# # 07 · NumPy interop: shared memory, both ways
#
# Most data reaches a deep-learning program as NumPy arrays: read from a CSV file, decoded
# from an image, produced by pandas or scikit-learn. A tensor library that could not trade
# arrays with NumPy cheaply would be useless, so PyTorch (and `minitorch`) offer two doors:
#
# * `torch.from_numpy(arr)`: a tensor that **shares memory** with `arr`, no copy;
# * `t.numpy()`: an array that **shares memory** with `t`, no copy.
#
# Sharing is fast, and it is also the source of one of the quietest bugs in data code. This
# lesson shows the sharing (with real memory: `np.shares_memory` and `data_ptr()` are not
# simulated), the bug, the fix, the PyTorch-vs-NumPy table computed live, and the first step
# of every pipeline: raw numbers to a tensor of the right dtype.

# %% id="setup"
import io

import numpy as np

import minitorch as torch
from minitorch_course import draw
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. `from_numpy`: NumPy to tensor, same memory
#
# Wrap an array, then write on one side and read on the other:

# %% id="from-numpy-shares" claims="C17 C26"
arr = np.array([1.0, 2.0, 3.0, 4.0])
t = torch.from_numpy(arr)
print("t:", t)
print("same memory:", np.shares_memory(arr, t.numpy()),
      "| same first byte:", t.data_ptr() == arr.__array_interface__["data"][0])

arr[0] = 100.0                 # write through NumPy ...
print("after arr[0] = 100 ->  t =", t)
t[1] = -5.0                    # ... or through the tensor
print("after t[1] = -5    ->  arr =", arr)
t.mul_(2)                      # in-place tensor methods write into arr too
print("after t.mul_(2)    ->  arr =", arr)

# %% [markdown]
# The tensor keeps the array's dtype (NumPy's `float64` default stays `float64`, it does not
# become PyTorch's `float32`): a conversion would need a copy, and `from_numpy` never copies.
# There is no magic in it: `minitorch.from_numpy` makes a new NumPy *view* of the same buffer
# and wraps it.

# %% id="from-numpy-source" tags=["nbval-ignore-output"]
show_source(torch.from_numpy)

# %% [markdown]
# ## 2. `.numpy()`: tensor to NumPy, same memory
#
# The other door opens the same way. `t.numpy()` hands out the tensor's own buffer, and so
# does `np.asarray(t)` (through the `__array__` protocol, which every NumPy function uses):

# %% id="numpy-shares" claims="C18 C27"
t = torch.zeros(2, 3)
a = t.numpy()
print(type(a).__name__, a.dtype, a.shape, "| same memory:", np.shares_memory(a, t.numpy()))
a[0, 0] = 7.0                  # write through NumPy ...
t[1].fill_(1.0)                # ... and through the tensor
print(t)
print(a)
b = np.asarray(t)              # what NumPy functions call on anything array-like
print("np.asarray(t) shares memory:", np.shares_memory(a, b), "| np.linalg.norm(t) =", np.linalg.norm(t))

# %% [markdown]
# Round trip: array → tensor → array gives back the *same* memory, so the two doors really
# are one shared buffer, both ways.

# %% id="round-trip" claims="C27"
src = np.arange(6, dtype=np.float32).reshape(2, 3)
back = torch.from_numpy(src).t().numpy()      # through a tensor view, and out again
print("back is the transpose of src:", np.array_equal(back, src.T),
      "| shares src's memory:", np.shares_memory(back, src))

# %% [markdown]
# ### `torch.tensor(arr)` copies
#
# `torch.tensor(...)` always copies its data. Same numbers, separate memory: a write on one side
# stays there.

# %% id="tensor-copies" claims="C17"
arr = np.array([1.0, 2.0, 3.0])
shared, copied = torch.from_numpy(arr), torch.tensor(arr)
arr[0] = 100.0
print("from_numpy(arr):", shared, "| shares memory:", np.shares_memory(arr, shared.numpy()))
print("tensor(arr):    ", copied, "| shares memory:", np.shares_memory(arr, copied.numpy()))

# %% [markdown]
# ### `.numpy()` refuses a tensor that requires grad
#
# NumPy knows nothing about autograd. An array taken from a tracked tensor would let you
# change values behind the graph's back, so `.numpy()` refuses and tells you the fix:
# `detach()` first, which says "I am leaving autograd" out loud.

# %% id="numpy-requires-grad" claims="C18"
w = torch.tensor([0.5, -1.0], requires_grad=True)
try:
    w.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
d = w.detach().numpy()
print("w.detach().numpy() ->", d, "| same memory as w:", d.__array_interface__["data"][0] == w.data_ptr())

# %% [markdown]
# ## 3. The bug that shared memory causes
#
# Here is a realistic piece of data code. A dataset is loaded as a NumPy array and wrapped with
# `from_numpy` to make the training inputs. Later, someone normalises the array **in place**
# (`-=`, `/=`: a common way to save memory) to prepare a second model's inputs. Nothing
# touches `train_x`, yet `train_x` changes:

# %% id="shared-memory-bug" claims="C39"
raw = np.array([[150.0, 50.0], [160.0, 60.0], [170.0, 70.0]])   # height (cm), weight (kg)
train_x = torch.from_numpy(raw)                     # step 1: the model's inputs
print("train_x before:", train_x.tolist())

raw -= raw.mean(axis=0)                              # step 2, elsewhere: normalise "the array"
raw /= raw.std(axis=0)

print("train_x after: ", [[round(v, 3) for v in row] for row in train_x.tolist()])
print("nobody wrote to train_x, but it changed; raw and train_x share memory:",
      np.shares_memory(raw, train_x.numpy()))

# %% [markdown]
# No error, no warning: the numbers are just different, and a model trained on them learns
# something else. The same thing happens in the other direction when a helper function
# mutates the array it receives:

# %% id="mutating-helper" claims="C39"
def clip_outliers(a, limit=3.0):
    """Looks harmless, but np.clip(..., out=a) writes into the caller's array."""
    np.clip(a, -limit, limit, out=a)
    return a


weights = torch.tensor([0.5, 8.0, -9.0])
_ = clip_outliers(weights.numpy())      # meant to inspect a clipped *copy*
print("weights:", weights, "<- the tensor itself was clipped")

# %% [markdown]
# ### The fix: copy explicitly when sharing is not wanted
#
# Decide at the door. If the tensor must not follow the array, make the copy visible in the
# code: `torch.tensor(arr)`, `torch.from_numpy(arr.copy())`, or `.clone()` of the shared
# tensor (and `t.numpy().copy()` the other way).

# %% id="copy-fix" claims="C48"
def wrap_all_ways(raw):
    return {"from_numpy(raw)         (shares)": torch.from_numpy(raw),
            "tensor(raw)             (copy)": torch.tensor(raw),
            "from_numpy(raw.copy())  (copy)": torch.from_numpy(raw.copy()),
            "from_numpy(raw).clone() (copy)": torch.from_numpy(raw).clone()}


raw = np.array([[150.0, 50.0], [160.0, 60.0], [170.0, 70.0]])
tensors = wrap_all_ways(raw)
raw -= raw.mean(axis=0)                              # the same in-place normalisation
for name, x in tensors.items():
    print(f"{name:34} first row {x[0].tolist()}  shares memory: {np.shares_memory(raw, x.numpy())}")

# %% [markdown]
# A copy costs memory and time, so it is a choice, not a reflex: share when the array is yours
# and nobody will change it, copy when it may be changed elsewhere. What matters is that the
# choice is *written down* in the code.

# %% [markdown]
# ## 4. PyTorch vs NumPy, computed
#
# The table below is not typed in: every cell is the result of running the code in the
# `check` column on this machine, with `minitorch` standing in for PyTorch.

# %% id="pytorch-vs-numpy-table" claims="C24 C25 C26 C27"
def autograd_gives():
    x = torch.tensor(3.0, requires_grad=True)
    (x * x).backward()
    return f"yes: d(x²)/dx at 3 = {x.grad.item():g}"


def shares(a, b):
    return "shares memory" if np.shares_memory(a, b) else "copies"


arr = np.ones(3)
rows = [
    ("GPU acceleration", "`.to(device)` exists",
     f"native: `Tensor.to` {hasattr(torch.Tensor, 'to')}, `device` {torch.ones(1).device}"
     f" (CUDA here: {torch.cuda.is_available()})",
     f"none: `ndarray.to` {hasattr(np.ndarray, 'to')}; an array's device is always "
     f"'{getattr(arr, 'device', 'cpu')}'"),
    ("Automatic differentiation", "`backward()` on x·x",
     autograd_gives(),
     f"none: `ndarray.backward` {hasattr(np.ndarray, 'backward')}, "
     f"`requires_grad` {hasattr(np.ndarray, 'requires_grad')}"),
    ("Memory sharing", "`np.shares_memory`",
     f"`from_numpy(arr)` {shares(arr, torch.from_numpy(arr).numpy())}; "
     f"`tensor(arr)` {shares(arr, torch.tensor(arr).numpy())}",
     f"`np.asarray(arr)` {shares(arr, np.asarray(arr))}; `np.array(arr)` {shares(arr, np.array(arr))}"),
    ("Interoperability", "round trip",
     f"`from_numpy(arr).numpy()` {shares(arr, torch.from_numpy(arr).numpy())}",
     f"`np.asarray(tensor)` {shares(arr, np.asarray(torch.from_numpy(arr)))}"),
]
draw.table(["feature", "check", "PyTorch (minitorch)", "NumPy"], rows)

# %% [markdown]
# The two libraries are partners, not rivals: NumPy for loading and preparing data, tensors
# for the model, and the two doors between them cost nothing.

# %% id="pytorch-compare"
compare_with_pytorch("""
arr = np.array([1.0, 2.0, 3.0, 4.0])
t = torch.from_numpy(arr)
t.dtype, np.shares_memory(arr, t.numpy()), t.data_ptr() == arr.__array_interface__["data"][0]
arr[0] = 100.0
t[1] = -5.0
t.mul_(2)
t, arr
src = np.arange(6, dtype=np.float32).reshape(2, 3)
np.shares_memory(torch.from_numpy(src).t().numpy(), src)
arr = np.array([1.0, 2.0, 3.0])
shared, copied = torch.from_numpy(arr), torch.tensor(arr)
arr[0] = 100.0
shared, copied
w = torch.tensor([0.5, -1.0], requires_grad=True)
w.numpy()
w.detach().numpy()
np.asarray(torch.zeros(2, 3)).shape, np.linalg.norm(torch.ones(4))
raw = np.array([[150.0, 50.0], [160.0, 60.0], [170.0, 70.0]])
train_x = torch.from_numpy(raw)
raw -= raw.mean(axis=0)
train_x
""")

# %% [markdown]
# ## 5. The first pipeline step: raw numbers → ndarray → tensor
#
# A model starts where its data starts. Raw data is text, lists, files; the first step of every
# pipeline turns it into tensors, and the step that goes wrong most often is the **dtype**.
# Here is a small CSV file (in memory): two features and a class label.

# %% id="preprocess-raw" claims="C32"
csv_text = """sepal_len,sepal_wid,label
5.1,3.5,0
4.9,3.0,0
6.2,3.4,2
5.9,3.0,1
"""
data = np.loadtxt(io.StringIO(csv_text), delimiter=",", skiprows=1)   # raw text -> ndarray
print("ndarray:", data.dtype, data.shape)

features = torch.from_numpy(data[:, :2].astype(np.float32))   # models compute in float32
labels = torch.from_numpy(data[:, 2].astype(np.int64))        # class indices are int64
print("features:", features.dtype, tuple(features.shape))
print("labels:  ", labels.dtype, tuple(labels.shape), labels.tolist())
print("astype made copies, so the tensors are safe from later edits of `data`:",
      not np.shares_memory(data, features.numpy()))

# %% [markdown]
# Why those two dtypes? `np.loadtxt` gives `float64`, while a model's weights are `float32`;
# losses such as cross-entropy want `int64` class indices. Passing the wrong one is an error
# that surfaces far from where it was made, so fix the dtypes at the door:

# %% id="preprocess-dtype-matters" claims="C32"
layer = torch.nn.Linear(2, 3)
print("weights:", layer.weight.dtype)
try:
    layer(torch.from_numpy(data[:, :2]))       # float64 features straight from loadtxt
except RuntimeError as e:
    print("float64 input: RuntimeError:", e)
logits = layer(features)                     # float32: fine
loss = torch.nn.functional.cross_entropy(logits, labels)
print("float32 features + int64 labels -> loss", loss.dtype, "shape", tuple(loss.shape))

# %% [markdown]
# ## Summary
#
# * `from_numpy(arr)` and `t.numpy()` (and `np.asarray(t)`) **share memory**: a write on
#   either side shows on the other. `torch.tensor(arr)` **copies**.
# * `.numpy()` refuses a tensor that requires grad: `detach()` first.
# * Shared memory makes quiet bugs: an in-place normalisation or a helper that mutates its
#   argument changes a tensor nobody touched. When sharing is not wanted, copy explicitly:
#   `torch.tensor(arr)`, `from_numpy(arr.copy())`, `.clone()`.
# * Tensors add what NumPy lacks (devices, autograd) and trade memory with it for free.
# * Preprocessing ends with tensors of the right dtype: `float32` features, `int64` labels.
