# %% [markdown]
# # 05 · Memory, strides and views
#
# A tensor looks like a grid of numbers, but memory is a single row of bytes. What turns
# the row into a grid is a small recipe:
#
# * **storage**: the flat block of memory holding the elements;
# * **shape**: the size along each dimension;
# * **strides**: how many elements to step over in memory to move one place along each
#   dimension;
# * **storage offset**: where in the storage element `[0, 0, ...]` lives.
#
# A **view** is a new recipe over the *same* storage. Transposing, slicing, `view`,
# `expand`, `unsqueeze`: none of them copy a single number, which is why they are free, and
# why a write through one of them shows up in all the others. This lesson builds the recipe
# by hand and checks it against the real memory of `minitorch` tensors: their `stride()`,
# `storage_offset()` and `data_ptr()` are not simulated, they describe real NumPy memory.

# %% id="setup"
import itertools

import numpy as np

import minitorch as torch
from minitorch_course import draw
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. Storage: one flat row
#
# We start from a 1-D tensor of 12 numbers (its memory *is* the storage) and view it as a
# 3 × 4 matrix.

# %% id="storage"
storage = torch.arange(12, dtype=torch.float32)
x = storage.view(3, 4)
print(x)
print("shape:", tuple(x.shape), "| stride:", x.stride(), "| storage offset:", x.storage_offset())
print("element size:", x.element_size(), "bytes | storage:", x.untyped_storage().nbytes(), "bytes")
print("x is a view of storage:", x._base is storage, "| same first byte:", x.data_ptr() == storage.data_ptr())

# %% [markdown]
# `x.stride()` is `(4, 1)`: one step down a column skips 4 elements of memory (a whole
# row), one step along a row skips 1. For a freshly made ("contiguous", row-major)
# tensor, the last stride is 1 and each stride before it is the product of the sizes after
# it:

# %% id="contiguous-strides-by-hand"
def contiguous_strides(shape):
    """Row-major strides: the last dim steps 1, each earlier dim steps over all later ones."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


for shape in [(3, 4), (2, 3, 4), (5,), (2, 1, 3)]:
    print(f"{str(shape):10} mine: {str(contiguous_strides(shape)):11} minitorch: {torch.zeros(shape).stride()}")

# %% [markdown]
# ## 2. From an index to a place in memory
#
# With strides, finding element `[i, j, ...]` is one sum:
#
# $$\text{position} = \text{storage offset} + \sum_k i_k \cdot \text{stride}_k$$

# %% id="position-by-hand"
def position(index, strides, offset=0):
    """Where in storage (in elements) the element at `index` lives."""
    return offset + sum(i * s for i, s in zip(index, strides))


memory = storage.tolist()   # the storage, as a plain list: what we index by hand


def read(index, strides, offset=0):
    return memory[position(index, strides, offset)]


print("x[1, 2] lives at position", position((1, 2), x.stride()), "and holds", read((1, 2), x.stride()))
print("x[1, 2] as minitorch sees it:", x[1, 2].item())
print("all 12 elements agree:", all(read(i, x.stride()) == x[i].item() for i in np.ndindex(*x.shape)))

# %% [markdown]
# Slicing makes views too. A view's first element need not be the storage's first: that
# is what the **storage offset** is for. `data_ptr()` is the address of a tensor's first
# element, so the distance between two `data_ptr()`s, divided by the element size, must be
# the position our formula predicts. (Addresses change from run to run; their differences
# don't.)

# %% id="views-and-data-ptr"
slices = {"x[1]": x[1], "x[:, 2]": x[:, 2], "x[1:, 2:]": x[1:, 2:], "x[::2, ::3]": x[::2, ::3],
          "x[:, 1::2]": x[:, 1::2]}
print(f"{'view':12}{'shape':9}{'stride':9}{'offset':8}{'(data_ptr - x.data_ptr()) / 4':31}reads right")
for name, v in slices.items():
    gap = (v.data_ptr() - x.data_ptr()) // x.element_size()
    ok = all(read(i, v.stride(), v.storage_offset()) == v[i].item() for i in np.ndindex(*v.shape))
    print(f"{name:12}{str(tuple(v.shape)):9}{str(v.stride()):9}{v.storage_offset():<8}{gap:<31}{ok}")

# %% [markdown]
# ## 3. Views share memory
#
# `view` gives the same 12 numbers a new shape. Write through the view, and the base
# sees it, because there is only one copy of the numbers.

# %% id="view-shares-memory"
v = x.view(2, 6)
print("v:", tuple(v.shape), "stride", v.stride(), "| same memory as x:", v.data_ptr() == x.data_ptr())
v[0, 5] = 100.0          # position 0*6 + 5*1 = 5 ...
print(x)                 # ... which x calls [1, 1]
print(storage)
print("NumPy agrees they share memory:", np.shares_memory(v.numpy(), x.numpy()))
v[0, 5] = 5.0            # put it back

# %% [markdown]
# ## 4. Transpose is a view with swapped strides
#
# `x.t()` doesn't move any numbers. It swaps the shape *and the strides*: walking along a
# row of `x.t()` now jumps 4 places in memory.

# %% id="transpose"
xt = x.t()
print(xt)
print("x    : shape", tuple(x.shape), "stride", x.stride())
print("x.t(): shape", tuple(xt.shape), "stride", xt.stride(), "| same memory:", xt.data_ptr() == x.data_ptr())

# %% [markdown]
# `permute` generalises it: the new dim `k` is old dim `dims[k]`, for the sizes and the
# strides alike. By hand:

# %% id="permute-by-hand"
def permute_geometry(shape, strides, dims):
    return tuple(shape[d] for d in dims), tuple(strides[d] for d in dims)


cube = torch.zeros(2, 3, 4)
for dims in [(1, 0, 2), (2, 0, 1), (2, 1, 0)]:
    p = cube.permute(*dims)
    mine = permute_geometry(tuple(cube.shape), cube.stride(), dims)
    print(f"permute{dims}: mine {mine}  minitorch {(tuple(p.shape), p.stride())}")

# %% [markdown]
# ### A picture of the memory layout
#
# The top row of each panel is the storage; below it, the tensor as we see it, each cell
# labelled with the memory position it reads. Cells are coloured in the order you read the
# tensor (row by row), and the arrows follow its first row into memory. For `x` the colours
# run left to right through memory; for `x.t()` the first row jumps by 4; the slice
# `x[:, 1::2]` starts at offset 1 and never touches the grey cells.

# %% id="memory-picture"
draw.memory_layout(storage, {"x": x, "x.t()": xt, "x[:, 1::2]": x[:, 1::2]})

# %% id="memory-picture-source" tags=["nbval-ignore-output"]
show_source(draw.memory_layout)

# %% [markdown]
# ## 5. Contiguous or not
#
# A tensor is **contiguous** when reading it row by row walks memory one step at a time,
# with no gaps: its strides are exactly `contiguous_strides(shape)`. (A dim of size 1 is
# never stepped along, so its stride doesn't matter.)

# %% id="is-contiguous-by-hand"
def my_is_contiguous(shape, strides):
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 1:
            continue
        if s != expected:
            return False
        expected *= n
    return True


cases = {"x": x, "x.t()": xt, "x[1]": x[1], "x[:, 2]": x[:, 2], "x[1:]": x[1:], "x[:, 1:]": x[:, 1:],
         "x.view(2, 6)": x.view(2, 6), "x.unsqueeze(1)": x.unsqueeze(1), "x.t().t()": xt.t()}
for name, t in cases.items():
    print(f"{name:15} stride {str(t.stride()):10} mine: {str(my_is_contiguous(t.shape, t.stride())):6}"
          f" minitorch: {t.is_contiguous()}")

# %% [markdown]
# minitorch's version is the same loop, with one more case (a tensor with no elements is
# contiguous whatever its strides):

# %% id="is-contiguous-source" tags=["nbval-ignore-output"]
show_source(torch.Tensor.is_contiguous)

# %% [markdown]
# ## 6. `view` needs compatible strides; `reshape` copies when it must
#
# `view` never copies: it only computes new strides. That is impossible for `x.t()`
# flattened: its elements, row by row, sit at memory positions 0, 4, 8, 1, 5, 9, ... and no
# single stride walks that sequence. minitorch raises PyTorch's error:

# %% id="view-error"
try:
    xt.view(12)
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# The error says what to do. `reshape` views when it can and copies when it must;
# `.contiguous()` makes a row-major copy (and returns the tensor itself when it already is
# contiguous), after which `view` works.

# %% id="reshape-contiguous"
flat = xt.reshape(12)
print(flat)
print("xt.reshape(12) shares x's memory:             ", flat.data_ptr() == x.data_ptr())
c = xt.contiguous()
print("xt.contiguous(): stride", c.stride(), "shares x's memory:", c.data_ptr() == x.data_ptr())
print("xt.contiguous().view(12) equals xt.reshape(12):", torch.equal(c.view(12), flat))
print("x.reshape(12) (x is contiguous) shares memory:", x.reshape(12).data_ptr() == x.data_ptr())
print("x.contiguous() is x:                            ", x.contiguous() is x)

# %% [markdown]
# Contiguity of the *whole* tensor is more than `view` needs. What it needs is that each
# group of old dims being merged or split is contiguous within itself. A `(3, 2, 4)` tensor
# made by a transpose has strides `(4, 12, 1)`: its last dim is a contiguous run of 4, so
# it can be split into `2 × 2`, but dims 0 and 1 can't be merged.

# %% id="view-strides"
from minitorch._ops.views import view_strides

y = torch.zeros(2, 3, 4).transpose(0, 1)
print("y:", tuple(y.shape), "stride", y.stride(), "contiguous:", y.is_contiguous())
print("view(3, 2, 2, 2) strides:", view_strides(tuple(y.shape), y.stride(), (3, 2, 2, 2)),
      "| minitorch:", y.view(3, 2, 2, 2).stride(), "| shares memory:", y.view(3, 2, 2, 2).data_ptr() == y.data_ptr())
print("view(6, 4) strides:      ", view_strides(tuple(y.shape), y.stride(), (6, 4)))

# %% [markdown]
# `view_strides` is minitorch's implementation of PyTorch's rule, chunk by chunk from the
# right:

# %% id="view-strides-source" tags=["nbval-ignore-output"]
show_source(view_strides)

# %% [markdown]
# ## 7. `expand`: a stride of 0
#
# A stride of 0 means "stepping along this dim doesn't move in memory": every row reads
# the same 3 numbers. That is how `expand`, and broadcasting inside every operation
# (lesson 04), repeat data without copying it.

# %% id="expand-stride-zero"
r = torch.tensor([1.0, 2.0, 3.0])
e = r.expand(4, 3)
print(e)
print("stride:", e.stride(), "| same memory as r:", e.data_ptr() == r.data_ptr(),
      f"| {e.numel()} elements, {e.untyped_storage().nbytes() // e.element_size()} in memory")
print("positions by hand:", [[position((i, j), e.stride()) for j in range(3)] for i in range(4)])
r[0] = 10.0
print(e)

# %% [markdown]
# Because the 4 rows are one piece of memory, writing into an expanded tensor in place
# would write each element 4 times; minitorch refuses, as PyTorch does. `clone()` gives the
# rows memory of their own.

# %% id="expand-write"
try:
    e.add_(1)
except RuntimeError as err:
    print("RuntimeError:", err)
owned = e.clone()
owned.add_(1)
print(owned, owned.stride())

# %% [markdown]
# ## 8. The same memory, seen by NumPy
#
# NumPy keeps the same recipe, but counts strides in **bytes**. `.numpy()` and
# `torch.from_numpy()` hand the same memory back and forth, so the strides agree (times
# the element size) and so do the addresses.

# %% id="numpy-strides"
print(f"{'tensor':13}{'stride()':11}{'numpy().strides':17}stride() x element_size")
for name, t in [("x", x), ("x.t()", xt), ("x[:, 1::2]", x[:, 1::2]), ("e (expand)", e)]:
    print(f"{name:13}{str(t.stride()):11}{str(t.numpy().strides):17}{tuple(s * t.element_size() for s in t.stride())}")

# %% id="from-numpy-address" claims="C26"
arr = np.arange(6.0)
t = torch.from_numpy(arr)
print("from_numpy: same address as the array:", t.data_ptr() == arr.__array_interface__["data"][0])
t[0] = -1.0
print("after t[0] = -1, the NumPy array is:", arr)

# %% [markdown]
# ## 9. Explore: strides of every permutation
#
# A 3-D tensor has 6 orders of its dims. For each, the permuted shape and strides (by hand
# and by minitorch), and whether the result is contiguous: only the identity is.

# %% id="permutation-table"
shape = (2, 3, 4)
base = torch.zeros(shape)
print(f"{'dims':11}{'shape':11}{'stride (mine)':15}{'stride':12}contiguous")
for dims in itertools.permutations(range(3)):
    p = base.permute(*dims)
    _, mine = permute_geometry(shape, contiguous_strides(shape), dims)
    print(f"{str(dims):11}{str(tuple(p.shape)):11}{str(mine):15}{str(p.stride()):12}{p.is_contiguous()}")

# %% [markdown]
# Change the sizes and the permutation yourself (this needs a live notebook: the widget
# doesn't show in a static page; the table above is the same information):

# %% id="strides-widget" tags=["nbval-ignore-output"]
import ipywidgets as widgets


def show_strides(d0=2, d1=3, d2=4, dims=(0, 1, 2)):
    t = torch.zeros(d0, d1, d2)
    p = t.permute(*dims)
    print(f"zeros{(d0, d1, d2)}: stride {t.stride()}")
    print(f".permute{dims}: shape {tuple(p.shape)}, stride {p.stride()}, contiguous {p.is_contiguous()}")
    print(f"after .contiguous(): stride {p.contiguous().stride()}")


_ = widgets.interact(show_strides, d0=(1, 5), d1=(1, 5), d2=(1, 5),
                     dims=widgets.Dropdown(options=list(itertools.permutations(range(3))), value=(0, 1, 2)))

# %% [markdown]
# The same views in real PyTorch, when it is installed (the course never needs it): the lines
# of this lesson, run on both libraries.

# %% id="strides-pytorch"
compare_with_pytorch("""
x = torch.arange(12, dtype=torch.float32).view(3, 4)
views = [x, x.t(), x[1], x[:, 2], x[1:, 2:], x[::2, ::3], x[:, 1::2], x.view(2, 6), x.unsqueeze(1), x.t().t()]
[(v.shape, v.stride(), v.storage_offset(), v.is_contiguous()) for v in views]
[cube.permute(*dims).stride() for cube in [torch.zeros(2, 3, 4)] for dims in itertools.permutations(range(3))]
x.t().view(12)
x.t().reshape(12).data_ptr() == x.data_ptr(), x.reshape(12).data_ptr() == x.data_ptr()
x.contiguous() is x, x.t().contiguous().stride()
y = torch.zeros(2, 3, 4).transpose(0, 1)
y.stride(), y.view(3, 2, 2, 2).stride()
y.view(6, 4)
e = torch.tensor([1.0, 2.0, 3.0]).expand(4, 3)
e.stride(), e.is_contiguous()
e.add_(1)
e.clone().add_(1).stride()
[t.numpy().strides for t in (x, x.t(), x[:, 1::2], e)]
""", values={"itertools": itertools})

# %% [markdown]
# ## Summary
#
# * A tensor = storage + shape + strides + storage offset; element `[i, j, ...]` is at
#   `offset + Σ index × stride`.
# * Views (`view`, slicing, `t`/`transpose`/`permute`, `expand`, `unsqueeze`) make a new
#   recipe and share the storage: no copy, and writes show everywhere.
# * `transpose` swaps strides; `expand` uses stride 0.
# * `is_contiguous()` means row-major with no gaps. `view` needs compatible strides and
#   raises otherwise; `reshape` copies when it must, as does `.contiguous()`.
#
# Lesson 06 writes into this shared memory on purpose: in-place operations.
