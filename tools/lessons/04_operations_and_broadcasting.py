# %% [markdown]
# # 04 · Operations and broadcasting
#
# Every model is a pile of small tensor operations: add, multiply, compare, sum, matmul.
# This lesson builds the rules those operations follow, one at a time, by hand, and then
# checks each hand-built version against `minitorch` and NumPy:
#
# 1. **elementwise** arithmetic, comparisons and unary math;
# 2. **broadcasting**: how a `(3, 1)` and a `(4,)` tensor add up to a `(3, 4)` one;
# 3. **dtype promotion**: why `int tensor + 2.5` is `float32` here but `float64` in NumPy;
# 4. **reductions** with `dim` and `keepdim`;
# 5. **matmul** and its shape rules;
# 6. what NumPy does *not* have: gradients, and a custom loss that uses them;
# 7. how to **read a shape error**.
#
# We write `import minitorch as torch`, so every line below is also PyTorch code.

# %% id="setup"
import random

import numpy as np

import minitorch as torch
from minitorch_course import draw
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)
random.seed(0)

# %% [markdown]
# ## 1. Elementwise operations
#
# `a + b` on two tensors of the same shape pairs up the elements that sit at the same
# index: `out[i, j] = a[i, j] + b[i, j]`. The operator, the function and the method are
# three spellings of the same operation.

# %% id="arith"
a = torch.tensor([[1., 2., 3.],
                  [4., 5., 6.]])
b = torch.tensor([[10., 20., 30.],
                  [40., 50., 60.]])
print(a + b)
print(a * b)
print(b / a)
print(a ** 2)
print("a + b == torch.add(a, b) == a.add(b):", torch.equal(a + b, torch.add(a, b)) and torch.equal(a + b, a.add(b)))

# %% [markdown]
# "Elementwise" is a loop over positions. Here it is for nested Python lists, with no
# library at all:

# %% id="elementwise-by-hand"
def elementwise(f, x, y):
    """out[i][j]... = f(x[i][j]..., y[i][j]...) for two nested lists of the same shape."""
    if isinstance(x, list):
        return [elementwise(f, xi, yi) for xi, yi in zip(x, y)]
    return f(x, y)


mine = elementwise(lambda u, v: u * v, a.tolist(), b.tolist())
print(mine)
print("matches minitorch:", mine == (a * b).tolist())

# %% [markdown]
# A tensor and a NumPy array of the same values give the same answers: `.numpy()` hands
# NumPy the tensor's own memory, so the two libraries work side by side.

# %% id="arith-numpy" claims="C05"
an, bn = a.numpy(), b.numpy()
for name, t, n in [("a + b", a + b, an + bn), ("a * b", a * b, an * bn),
                   ("b / a", b / a, bn / an), ("a ** 2", a ** 2, an ** 2)]:
    print(f"{name:7} minitorch == NumPy: {np.allclose(t.numpy(), n)}")

# %% [markdown]
# Comparisons are elementwise too; they return a `bool` tensor, which `torch.where` uses
# to pick, element by element, from one tensor or another.

# %% id="compare"
print(a > 2.5)
print((a > 2.5).dtype)
print(torch.where(a > 2.5, a, torch.zeros(1)))
print(a == b / 10)

# %% [markdown]
# Unary operations apply one function to every element:

# %% id="unary"
z = torch.tensor([-2.0, -0.5, 0.0, 1.0, 3.0])
for name in ["neg", "abs", "exp", "relu", "sigmoid", "tanh"]:
    print(f"z.{name + '()':10}", getattr(z, name)())
print("torch.sqrt  ", torch.sqrt(torch.tensor([1.0, 4.0, 9.0])))

# %% [markdown]
# ## 2. Broadcasting
#
# Shapes don't have to be equal. A `(3, 1)` column plus a `(4,)` row gives a `(3, 4)`
# table: each tensor behaves as if it were repeated along the dimensions where it has
# size 1 (or has no dimension at all).

# %% id="broadcast-first-look"
col = torch.tensor([[0.], [10.], [20.]])   # shape (3, 1)
row = torch.tensor([1., 2., 3., 4.])        # shape (4,)
print(col.shape, "+", row.shape, "->", (col + row).shape)
print(col + row)

# %% [markdown]
# In a picture: the dark cells are the data each tensor really has, the pale cells are the
# copies broadcasting *pretends* are there (no memory is used for them, as we'll see).

# %% id="broadcast-picture"
draw.broadcast(col, row)

# %% id="broadcast-picture-source" tags=["nbval-ignore-output"]
show_source(draw.broadcast)

# %% [markdown]
# ### The rule, written by hand
#
# Line the shapes up **from the right**. Walking left, in each column the sizes must be
# equal, or one of them must be 1 (a missing size counts as 1). The result takes the size
# that isn't 1.
#
# ```
#         a:     3 x 1            a:  8 x 1 x 6 x 1
#         b:         4            b:      7 x 1 x 5
#     a + b:     3 x 4        a + b:  8 x 7 x 6 x 5
# ```

# %% id="broadcast-by-hand"
def my_broadcast_shapes(*shapes):
    """The shape that all `shapes` broadcast to, or ValueError."""
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for k in range(1, ndim + 1):                          # dims counted from the right
        sizes = {s[-k] for s in shapes if len(s) >= k}    # a shape too short has no say
        not_one = sizes - {1}
        if len(not_one) > 1:
            raise ValueError(f"shapes {shapes} don't broadcast: sizes {sorted(not_one)} at dim -{k}")
        result.append(not_one.pop() if not_one else 1)
    return tuple(reversed(result))


def outcome(f, *args):
    """f(*args) as a tuple, or the word 'error'."""
    try:
        return tuple(f(*args))
    except (ValueError, RuntimeError):
        return "error"


cases = [((3, 1), (4,)), ((2, 3), (3,)), ((5, 1, 4), (3, 1)), ((), (2, 2)),
         ((8, 1, 6, 1), (7, 1, 5)), ((2, 3), (2,)), ((0, 3), (1, 3))]
print(f"{'a':14}{'b':11}{'mine':14}{'minitorch':14}NumPy")
for sa, sb in cases:
    print(f"{str(sa):14}{str(sb):11}{str(outcome(my_broadcast_shapes, sa, sb)):14}"
          f"{str(outcome(torch.broadcast_shapes, sa, sb)):14}{outcome(np.broadcast_shapes, sa, sb)}")

# %% [markdown]
# Seven cases are a start; a few hundred random pairs of shapes (sizes 1 to 3, so that
# both matches and clashes are common) make a better test:

# %% id="broadcast-random"
def random_shape():
    return tuple(random.choice([1, 1, 2, 3]) for _ in range(random.randint(0, 4)))


pairs = [(random_shape(), random_shape()) for _ in range(500)]
agree = all(outcome(my_broadcast_shapes, sa, sb) == outcome(torch.broadcast_shapes, sa, sb)
            == outcome(np.broadcast_shapes, sa, sb) for sa, sb in pairs)
clashes = sum(outcome(np.broadcast_shapes, sa, sb) == "error" for sa, sb in pairs)
print(f"mine, minitorch and NumPy agree on all {len(pairs)} pairs: {agree} ({clashes} of them clash)")

# %% [markdown]
# Here is minitorch's own `broadcast_shapes`. It is the same walk (it fills the result from
# the left, after padding); the extra work is in the error message, which names both sizes,
# the dimension, and the fix, in PyTorch's words.

# %% id="broadcast-source" tags=["nbval-ignore-output"]
show_source(torch.broadcast_shapes)

# %% id="broadcast-error"
try:
    torch.ones(2, 3) + torch.ones(2)
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# ### Which element does a broadcast output read?
#
# Knowing the shape is half the story. To compute `out[i, j]` each input must find *its*
# element: drop the output's extra leading indices, and read index 0 along every
# dimension where the input has size 1. With that, `a + b` for any broadcastable shapes is a
# short loop:

# %% id="broadcast-index"
def source_index(out_index, in_shape):
    """The index into an input of shape `in_shape` that output element `out_index` reads."""
    lead = len(out_index) - len(in_shape)
    return tuple(0 if n == 1 else i for i, n in zip(out_index[lead:], in_shape))


def my_add(x, y):
    """x + y for NumPy arrays of any broadcastable shapes, one element at a time."""
    shape = my_broadcast_shapes(x.shape, y.shape)
    out = np.empty(shape, dtype=np.result_type(x, y))
    for idx in np.ndindex(*shape):
        out[idx] = x[source_index(idx, x.shape)] + y[source_index(idx, y.shape)]
    return out


print("out[2, 1] reads col", source_index((2, 1), (3, 1)), "and row", source_index((2, 1), (4,)))
print(my_add(col.numpy(), row.numpy()))
print("matches minitorch:", np.array_equal(my_add(col.numpy(), row.numpy()), (col + row).numpy()))

# %% [markdown]
# "Read index 0 along a size-1 dimension" is what a **stride of 0** does: stepping along
# that dimension doesn't move in memory. That is how `expand` (and broadcasting inside every
# op) repeats data without copying it; lesson 05 takes strides apart.

# %% id="broadcast-expand"
big = row.expand(3, 4)
print(big)
print("stride:", big.stride(), "| same memory as row:", big.data_ptr() == row.data_ptr())

# %% [markdown]
# ## 3. dtype promotion: where PyTorch and NumPy differ
#
# When an operation mixes dtypes, the result gets a dtype by a promotion rule. Deep
# learning runs in `float32` (half the memory and much faster than `float64` on a GPU),
# so PyTorch's rule is built to *stay* in `float32`:
#
# * the **category** decides first: bool < integer < floating point;
# * within a category, tensors with dimensions outrank 0-d tensors, which outrank Python
#   numbers. A Python float only says "the result is floating point": which float is the
#   default dtype, `float32`.
#
# NumPy has a different rule: an integer array plus a Python float becomes `float64`.

# %% id="promotion-int-plus-float"
ti = torch.tensor([1, 2, 3])
ni = np.array([1, 2, 3])
print("minitorch:", ti + 2.5, "|", ti.dtype, "->", (ti + 2.5).dtype)
print("NumPy:    ", ni + 2.5, "|", ni.dtype, "->", (ni + 2.5).dtype)

# %% [markdown]
# A few more cases side by side. Each case is written once as a function of the library
# (`m` is `minitorch`, or PyTorch below), plus its NumPy twin:

# %% id="promotion-table"
promotion_cases = [
    ("int64 tensor + 2.5", lambda m: m.tensor([1, 2]) + 2.5, lambda: np.array([1, 2]) + 2.5),
    ("int64 tensor / 2", lambda m: m.tensor([1, 2]) / 2, lambda: np.array([1, 2]) / 2),
    ("int32 tensor + int64 tensor", lambda m: m.tensor([1], dtype=m.int32) + m.tensor([1]),
     lambda: np.array([1], np.int32) + np.array([1])),
    ("int32 tensor * int64 0-d", lambda m: m.tensor([1], dtype=m.int32) * m.tensor(3),
     lambda: np.array([1], np.int32) * np.array(3)),
    ("float32 tensor + float64 0-d", lambda m: m.tensor([1.0]) + m.tensor(1.0, dtype=m.float64),
     lambda: np.array([1.0], np.float32) + np.array(1.0)),
    ("float32 tensor + 1.5", lambda m: m.tensor([1.0]) + 1.5, lambda: np.array([1.0], np.float32) + 1.5),
    ("bool tensor + 1", lambda m: m.tensor([True]) + 1, lambda: np.array([True]) + 1),
]


def dtype_name(d):
    return str(d).split(".")[-1]


print(f"{'operation':30}{'minitorch':11}NumPy")
for name, make, make_np in promotion_cases:
    print(f"{name:30}{dtype_name(make(torch).dtype):11}{make_np().dtype}")

# %% [markdown]
# Read the rows that differ. The first two are the Python-number rule. The two rows with a
# **0-d** tensor show the tier rule: a 0-d tensor is treated like a number, so
# `int32 tensor * int64 0-d` stays `int32`, and `float32 tensor + float64 0-d` stays
# `float32`, where NumPy 2 lets the 0-d array's dtype win. A `float32` model fed a
# `float64` scalar tensor (a learning rate, say) stays `float32`.

# %% [markdown]
# The same cases on real PyTorch, when it is installed (the course never needs it): each line
# below is one row of the table, run on both libraries.

# %% id="promotion-pytorch"
compare_with_pytorch("""
(torch.tensor([1, 2]) + 2.5).dtype
(torch.tensor([1, 2]) / 2).dtype
(torch.tensor([1], dtype=torch.int32) + torch.tensor([1])).dtype
(torch.tensor([1], dtype=torch.int32) * torch.tensor(3)).dtype
(torch.tensor([1.0]) + torch.tensor(1.0, dtype=torch.float64)).dtype
(torch.tensor([1.0]) + 1.5).dtype
(torch.tensor([True]) + 1).dtype
torch.result_type(torch.tensor([1, 2]), 2.5)
torch.promote_types(torch.int64, torch.float32)
""")

# %% [markdown]
# The whole rule is one short function in minitorch: one running dtype per tier (tensors
# with dims, 0-d tensors, Python numbers), then `combine`, which lets a lower tier change
# the result only when it brings a higher category.

# %% id="promotion-source" tags=["nbval-ignore-output"]
from minitorch._ops import common

show_source(common.result_dtype)

# %% id="promotion-helpers"
print(torch.result_type(torch.tensor([1, 2]), 2.5))
print(torch.promote_types(torch.int64, torch.float32))

# %% [markdown]
# ## 4. Reductions: `dim` and `keepdim`
#
# A reduction (`sum`, `mean`, `max`, ...) collapses the dimension you name with `dim`.
# With no `dim` it collapses everything into a 0-d tensor; with `keepdim=True` the reduced
# dimension stays, with size 1.

# %% id="reduce-shapes"
x = torch.arange(24).reshape(2, 3, 4).float()
print(f"{'x':29}", x.shape)
print(f"{'x.sum()':29}", x.sum().shape, "value", x.sum().item())
for d in range(3):
    print(f"{f'x.sum(dim={d})':29}", x.sum(dim=d).shape)
print(f"{'x.sum(dim=1, keepdim=True)':29}", x.sum(dim=1, keepdim=True).shape)
print(f"{'x.sum(dim=(0, 2))':29}", x.sum(dim=(0, 2)).shape)

# %% [markdown]
# By hand, on nested lists: walk down to the level `dim` and add up the items found
# there (each item is itself a nested list, so the adding is `elementwise`).

# %% id="reduce-by-hand"
def sum_dim(t, dim, keepdim=False):
    """Sum nested list `t` over dimension `dim`."""
    def walk(node, level):
        if level == dim:
            total = node[0]
            for item in node[1:]:
                total = elementwise(lambda u, v: u + v, total, item)
            return [total] if keepdim else total
        return [walk(child, level + 1) for child in node]
    return walk(t, 0)


for d in range(3):
    print(f"sum over dim {d} matches minitorch:", sum_dim(x.tolist(), d) == x.sum(dim=d).tolist())
print("keepdim=True matches minitorch:  ", sum_dim(x.tolist(), 1, keepdim=True) == x.sum(dim=1, keepdim=True).tolist())

# %% [markdown]
# NumPy spells them `axis=` and `keepdims=` (minitorch, like PyTorch, accepts `dim=` and
# `keepdim=`). One real difference: `max(dim=...)` returns the values *and* their indices.

# %% id="reduce-numpy"
xn = x.numpy()
print("sum :", np.array_equal(x.sum(dim=1).numpy(), xn.sum(axis=1)))
print("mean:", np.allclose(x.mean(dim=2, keepdim=True).numpy(), xn.mean(axis=2, keepdims=True)))
values, indices = x.max(dim=2)
print("max :", np.array_equal(values.numpy(), xn.max(axis=2)), np.array_equal(indices.numpy(), xn.argmax(axis=2)))

# %% [markdown]
# Why `keepdim` matters: to subtract each row's mean from that row, the mean must keep its
# row dimension. `(2, 3) - (2, 1)` broadcasts along the rows, as wanted. `(2, 3) - (2,)`
# lines the `2` up with the *columns* (broadcasting aligns from the right), and fails.

# %% id="keepdim-why"
m = torch.tensor([[1., 2., 3.],
                  [10., 20., 30.]])
print(m - m.mean(dim=1, keepdim=True))
try:
    m - m.mean(dim=1)
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# ## 5. Matrix multiplication and its shape rules
#
# `a @ b` (or `torch.matmul(a, b)`) multiplies over the last dim of `a` and the
# second-to-last of `b`; these *inner* sizes must match. Vectors and batches get rules of
# their own:
#
# | `a` | `b` | `a @ b` |
# |---|---|---|
# | `(k,)` | `(k,)` | `()`: the dot product |
# | `(n, k)` | `(k, m)` | `(n, m)` |
# | `(n, k)` | `(k,)` | `(n,)`: `b` acts as a column, then that dim is dropped |
# | `(k,)` | `(k, m)` | `(m,)`: `a` acts as a row, then that dim is dropped |
# | `(..., n, k)` | `(..., k, m)` | `(broadcast(...), n, m)`: the batch dims broadcast |

# %% id="matmul-shape-by-hand"
def matmul_shape(sa, sb):
    """The shape of a @ b, for shapes sa and sb, by the table above."""
    if len(sa) == 0 or len(sb) == 0:
        raise ValueError("both arguments to matmul need to be at least 1-D")
    a2 = (1,) + tuple(sa) if len(sa) == 1 else tuple(sa)   # a vector on the left is a row
    b2 = tuple(sb) + (1,) if len(sb) == 1 else tuple(sb)   # a vector on the right is a column
    if a2[-1] != b2[-2]:
        raise ValueError(f"inner sizes differ: {a2[-1]} and {b2[-2]}")
    out = my_broadcast_shapes(a2[:-2], b2[:-2]) + (a2[-2], b2[-1])
    if len(sa) == 1:
        out = out[:-2] + out[-1:]   # drop the row dim we added
    if len(sb) == 1:
        out = out[:-1]              # drop the column dim we added
    return out


matmul_cases = [((3,), (3,)), ((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 4)),
                ((5, 2, 3), (3, 4)), ((5, 1, 2, 3), (6, 3, 4)), ((2, 3), (2, 3))]
print(f"{'a':14}{'b':11}{'mine':15}{'minitorch':15}NumPy")
for sa, sb in matmul_cases:
    print(f"{str(sa):14}{str(sb):11}{str(outcome(matmul_shape, sa, sb)):15}"
          f"{str(outcome(lambda p, q: (torch.ones(p) @ torch.ones(q)).shape, sa, sb)):15}"
          f"{outcome(lambda p, q: (np.ones(p) @ np.ones(q)).shape, sa, sb)}")

# %% [markdown]
# ## 6. What NumPy doesn't have: gradients
#
# The PyTorch-vs-NumPy table from the seed text, for what this lesson touched:
#
# | Aspect | PyTorch tensors (and minitorch) | NumPy arrays |
# |---|---|---|
# | Operations | elementwise, reductions, matmul, broadcasting | the same, with the same broadcasting rule |
# | dtype of `int + 2.5` | `float32` (the default float) | `float64` |
# | Automatic differentiation | built in: `requires_grad` and `.backward()` | not supported |
#
# The last row, run: a NumPy array has no place to keep a gradient, so the derivative of
# `w0² + w1² + w2²` must be worked out by hand (`2w`). A tensor with `requires_grad=True`
# records the operations and computes it.

# %% id="numpy-no-grad" claims="C25"
w_np = np.array([1.0, 2.0, 3.0])
print("NumPy array has .grad:         ", hasattr(w_np, "grad"))
print("NumPy array has .requires_grad:", hasattr(w_np, "requires_grad"))

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (w * w).sum()
y.backward()
print("minitorch computes dy/dw:      ", w.grad)
print("NumPy: derived by hand, 2 * w: ", 2 * w_np)

# %% [markdown]
# ## 7. A custom loss is just tensor operations
#
# Because every operation above is differentiable, a loss function written with them gets
# its gradient for free. The Huber loss is quadratic for small errors and linear for large
# ones (so outliers pull less):
#
# $$\ell(e) = \begin{cases} \tfrac12 e^2 & |e| \le \delta \\ \delta\,(|e| - \tfrac12\delta) & \text{otherwise} \end{cases}
# \qquad \text{loss} = \operatorname{mean}_i\, \ell(\text{pred}_i - \text{target}_i)$$

# %% id="custom-loss" claims="C44"
def huber_loss(pred, target, delta=1.0):
    err = pred - target
    abs_err = err.abs()
    quadratic = 0.5 * err ** 2
    linear = delta * (abs_err - 0.5 * delta)
    return torch.where(abs_err <= delta, quadratic, linear).mean()


target = torch.tensor([0.0, 1.0, 2.0, 3.0])
pred = torch.tensor([0.5, 1.0, 4.0, -1.0], requires_grad=True)
loss = huber_loss(pred, target)
loss.backward()
print("loss:", loss.item())
print("grad:", pred.grad)

# %% [markdown]
# The same loss in NumPy, and its gradient derived by hand: $\ell'(e) = \operatorname{clip}(e, -\delta, \delta)$,
# divided by the number of elements for the mean.

# %% id="custom-loss-numpy" claims="C44"
e = pred.detach().numpy() - target.numpy()
np_loss = np.where(np.abs(e) <= 1.0, 0.5 * e ** 2, np.abs(e) - 0.5).mean()
np_grad = np.clip(e, -1.0, 1.0) / e.size
print("NumPy loss:", float(np_loss), "| matches:", bool(np.isclose(loss.item(), np_loss)))
print("hand-derived gradient matches autograd:", np.allclose(pred.grad.numpy(), np_grad))

# %% [markdown]
# ## 8. Reading a shape error
#
# The most common error in tensor code is a shape that doesn't fit. Here, 8 samples with 3
# features each meet a weight matrix stored as `(out_features, in_features)`, the way
# `nn.Linear` stores it:

# %% id="shape-error" claims="C49"
batch = torch.randn(8, 3)
weights = torch.randn(2, 3)
try:
    batch @ weights
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# Read it left to right: `(8x3 and 2x3)` are the two matrices; the inner sizes `3` and `2`
# must be equal and are not. So check the shapes (and dtypes) of what went in; the fix is to
# transpose the weights to `(3, 2)`.

# %% id="shape-error-fix" claims="C49"
print("batch:  ", batch.shape, batch.dtype)
print("weights:", weights.shape, weights.dtype)
out = batch @ weights.T
print("batch @ weights.T ->", out.shape)

# %% [markdown]
# The second most common: a dtype that doesn't fit. `matmul` does not promote, so integer
# data (`torch.tensor` of Python ints is `int64`) meets `float32` weights and fails. The
# message names both dtypes; `.dtype` confirms it, and `.float()` fixes it.

# %% id="dtype-error" claims="C49"
counts = torch.tensor([[1, 0, 2]])
try:
    counts @ weights.T
except RuntimeError as e:
    print("RuntimeError:", e)
print("counts:", counts.dtype, "| weights:", weights.dtype)
print("counts.float() @ weights.T ->", (counts.float() @ weights.T).shape)

# %% [markdown]
# ### The rest of the lesson, on PyTorch
#
# With PyTorch installed, this lesson's other lines run there too: arithmetic, broadcasting and
# its error, reductions, matmul shapes, the Huber loss and its gradient, and the two errors.

# %% id="pytorch-check" tags=["nbval-ignore-output"]
compare_with_pytorch("""
a = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
b = torch.tensor([[10., 20., 30.], [40., 50., 60.]])
a + b, a * b, b / a, a ** 2
a > 2.5
torch.where(a > 2.5, a, torch.zeros(1))
z = torch.tensor([-2.0, -0.5, 0.0, 1.0, 3.0])
z.neg(), z.abs(), z.exp(), z.relu(), z.sigmoid(), z.tanh()
col = torch.tensor([[0.], [10.], [20.]])
row = torch.tensor([1., 2., 3., 4.])
col + row
[torch.broadcast_shapes(sa, sb) for sa, sb in fitting]
torch.broadcast_shapes((2, 3), (2,))
torch.ones(2, 3) + torch.ones(2)
row.expand(3, 4).stride()
x = torch.arange(24).reshape(2, 3, 4).float()
x.sum(), x.sum(dim=1, keepdim=True).shape, x.sum(dim=(0, 2))
x.mean(dim=2, keepdim=True)
x.max(dim=2)
m = torch.tensor([[1., 2., 3.], [10., 20., 30.]])
m - m.mean(dim=1, keepdim=True)
m - m.mean(dim=1)
[(torch.ones(sa) @ torch.ones(sb)).shape for sa, sb in matmul_fitting]
torch.ones(2, 3) @ torch.ones(2, 3)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(w * w).sum().backward()
w.grad
pred = torch.tensor([0.5, 1.0, 4.0, -1.0], requires_grad=True)
err = pred - torch.tensor([0.0, 1.0, 2.0, 3.0])
loss = torch.where(err.abs() <= 1.0, 0.5 * err ** 2, 1.0 * (err.abs() - 0.5)).mean()
loss
loss.backward()
pred.grad
torch.ones(8, 3) @ torch.ones(2, 3)  # same message
torch.tensor([[1, 0, 2]]) @ torch.ones(3, 2)
""", values={"fitting": [c for c in cases if c != ((2, 3), (2,))],
             "matmul_fitting": [c for c in matmul_cases if c != ((2, 3), (2, 3))]})

# %% [markdown]
# ## Summary
#
# | | minitorch / PyTorch | NumPy |
# |---|---|---|
# | elementwise ops, comparisons | same results | same results |
# | broadcasting | align right; sizes equal or 1 | the same rule |
# | `int tensor + 2.5` | `float32` | `float64` |
# | reductions | `dim=`, `keepdim=`; `max(dim)` gives values and indices | `axis=`, `keepdims=`; `max` and `argmax` |
# | `@` | same shape rules; no dtype promotion | same shape rules; promotes |
# | gradients | `requires_grad=True`, `.backward()` | none |
#
# Next, lesson 05 opens up the memory under a tensor: storage, strides, and the views
# (like the `expand` above) that share it.
