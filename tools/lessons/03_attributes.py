# %% [markdown]
# # 03 · Attributes: shape, dtype, device, requires_grad
#
# Every tensor carries four facts about itself. Most errors in tensor code come down to two
# tensors disagreeing on one of them: shapes that don't fit, a `float64` meeting a `float32`, a
# tensor on the GPU meeting one on the CPU, gradients tracked where you didn't expect them (or
# not where you did). Learn to read these four and you can debug most of what goes wrong.
#
# In this lesson we
#
# 1. fill in the course text's attribute table from live tensors;
# 2. look at each attribute in turn, building the simple ones by hand;
# 3. meet a fifth, quieter one, `stride()`, and play with it on a slider;
# 4. debug three broken lines by printing shape and dtype.

# %% id="setup"
from itertools import permutations

import numpy as np

import minitorch as torch
from minitorch_course import draw
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.machine import gpu_report
from minitorch_course.show import show_source

torch.manual_seed(0)
rng = np.random.default_rng(0)


# %% [markdown]
# ## 1. The four attributes, live
#
# The course text sums them up in a table. Here it is again, with three real tensors filled in.

# %% id="attribute-table" claims="C08 C09 C10 C11"
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
w = torch.zeros(3, 2, dtype=torch.float64, requires_grad=True)
ids = torch.tensor([7, 0, 3])
tensors = {"x = tensor([[1., 2., 3.], [4., 5., 6.]])": x,
           "w = zeros(3, 2, dtype=float64, requires_grad=True)": w,
           "ids = tensor([7, 0, 3])": ids}

table = [
    ("`shape` (or `.size()`)", "the size of the tensor along each dimension", "`torch.Size([2, 3])`",
     lambda t: f"`{t.shape}`"),
    ("`dtype`", "the data type of the tensor's elements", "`torch.float32`, `torch.int64`",
     lambda t: f"`{t.dtype}`"),
    ("`device`", "which hardware (CPU/GPU) the tensor resides on", "`cpu`, `cuda:0`",
     lambda t: f"`{t.device}`"),
    ("`requires_grad`", "whether operations on it are tracked for gradient computation", "`True` or `False`",
     lambda t: f"`{t.requires_grad}`"),
]
draw.table(["attribute", "description", "example in the text"] + [f"`{k}`" for k in tensors],
           [[name, description, example] + [read(t) for t in tensors.values()]
            for name, description, example, read in table])

# %% [markdown]
# The same facts, printed the plain way (you will type this line a lot):

# %% id="describe"
def describe(t):
    return f"shape {tuple(t.shape)}, dtype {t.dtype}, device {t.device}, requires_grad {t.requires_grad}"


for name, t in tensors.items():
    print(f"{name.split(' =')[0]:4}", describe(t))

# %% [markdown]
# ## 2. Shape: `.shape` and `.size()`
#
# `.shape` and `.size()` are the same `Size`; `.size(d)` (or `.shape[d]`) picks one dimension,
# negative `d` counting from the end. The number of elements is the product of the sizes, easy
# to compute by hand:

# %% id="shape-and-size" claims="C08"
def my_numel(shape):
    n = 1
    for size in shape:
        n *= size
    return n


t = torch.zeros(2, 3, 4)
print("t.shape      ", t.shape)
print("t.size()     ", t.size(), "  same thing:", t.size() == t.shape)
print("t.size(1)    ", t.size(1), "  t.shape[-1]", t.shape[-1], "  t.ndim", t.ndim, "  len(t)", len(t))
print("t.numel()    ", t.numel(), "  by hand:", my_numel(t.shape))
print("NumPy says   ", np.zeros((2, 3, 4)).shape, np.zeros((2, 3, 4)).size)

# %% id="size-source" tags=["nbval-ignore-output"]
show_source(torch.Tensor.size)

# %% [markdown]
# ## 3. dtype: what each element is
#
# The dtype fixes how many bytes each element takes, so memory use is `numel × itemsize`.
# (Lesson 02 showed where dtypes come from; here we read them.)

# %% id="dtype-attr" claims="C09"
for t in [torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.float64), torch.tensor([7, 0, 3]),
          torch.tensor([True, False])]:
    print(f"{t.dtype!r:18} floating: {t.is_floating_point()!s:5}  element_size {t.element_size()}  "
          f"nbytes {t.nbytes:3} = {t.numel()} x {t.element_size()}")
print("convert with .to():", torch.tensor([7, 0, 3]).to(torch.float32))

# %% [markdown]
# ## 4. device: where the numbers live
#
# A tensor's numbers live in the memory of one device: the CPU's RAM, or a GPU's. Computation
# happens where the data is. A device is a small object with a *type* and, for GPUs, an *index*:
# `cuda:0` is the first GPU. You can name a device on any machine, GPU or not:

# %% id="device-attr" claims="C10"
t = torch.ones(3)
print("t.device        ", repr(t.device), " printed:", t.device, " t.is_cuda:", t.is_cuda)
gpu = torch.device("cuda:0")
print("torch.device('cuda:0') ->", repr(gpu), " type:", gpu.type, " index:", gpu.index)

# %% [markdown]
# A device *prints* like a string, but it is not one, and **a device never equals a string**:
# `t.device == "cpu"` is `False`, in PyTorch as here. A test like `if x.device == "cuda":` would
# silently never be true. Ask one of these three instead:

# %% id="device-compare" claims="C10"
print('str(t.device) == "cpu"            ', str(t.device) == "cpu")              # compare the printed name
print('t.device.type == "cpu"            ', t.device.type == "cpu")              # any CPU / any GPU
print('t.device == torch.device("cpu")   ', t.device == torch.device("cpu"))     # device with device
print('t.device == "cpu"                 ', t.device == "cpu", "  <- never true: a device is not a string")
print('t.device == gpu                   ', t.device == gpu)

# %% [markdown]
# Putting a tensor *on* `cuda:0` needs a GPU (and CuPy). Without one, minitorch says so, and says
# why. Lesson 08 is all about devices; here we only ask:

# %% id="device-this-machine" tags=["nbval-ignore-output"]
if torch.cuda.is_available():
    t_gpu = torch.ones(3, device="cuda:0")
    print("On this machine: a GPU! t_gpu.device =", t_gpu.device)
else:
    try:
        torch.ones(3, device="cuda:0")
    except RuntimeError as e:
        print("On this machine: no GPU. torch.ones(3, device='cuda:0') raises RuntimeError.")
    print(gpu_report(prefix="On this machine: GPU "))

# %% [markdown]
# ## 5. requires_grad: is autograd watching?
#
# `requires_grad=True` asks minitorch to record every operation on this tensor, so that gradients
# can be computed later. Results of recorded operations are themselves recorded: they carry a
# `grad_fn`, the note of which operation made them. Tensors you create yourself are *leaves*.

# %% id="requires-grad-attr" claims="C11"
a = torch.tensor([1.0, 2.0, 3.0])  # default: not tracked
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # tracked from birth
c = torch.ones(3).requires_grad_()  # or switched on later, in place (note the trailing _)
y = b * 2 + a

for name, t in [("a", a), ("b", b), ("c", c), ("y = b * 2 + a", y)]:
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name:14} requires_grad={t.requires_grad!s:5}  is_leaf={t.is_leaf!s:5}  grad_fn={grad_fn}")

# %% [markdown]
# Gradients are about smooth change, so only floating-point tensors may ask for them:

# %% id="requires-grad-int"
try:
    torch.tensor([1, 2, 3], requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# And here is what the flag is *for*, in one line (lessons 09-11 open the box): after `backward()`,
# every tracked leaf holds the gradient of the result with respect to itself.

# %% id="requires-grad-teaser" claims="C02 C11"
loss = (y * y).sum()  # loss = sum((2b + a)^2)
loss.backward()
print("b.grad =", b.grad, f"  (by hand: d/db (2b + a)² = 2·(2b + a)·2 = {(4 * (2 * b.detach() + a)).tolist()})")
print("a.grad =", a.grad, "  (a was not tracked)")

# %% [markdown]
# ## 6. A fifth attribute: `stride()`
#
# Lesson 01 stored a tensor as one flat run of numbers plus a shape. The **strides** say how to
# walk that run: `stride()[d]` is how many elements to skip in memory to move one step along
# dimension `d`. For a fresh tensor of shape `(2, 3, 4)`: one step along the last dim is the next
# element (1); one step along the middle dim skips a row of 4; one step along the first skips a
# whole 3×4 block (12). By hand, walking the shape from the right:

# %% id="strides-by-hand"
def contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


for shape in [(4,), (3, 4), (2, 3, 4), (5, 1, 2, 3)]:
    mine, theirs = contiguous_strides(shape), torch.zeros(shape).stride()
    assert mine == theirs
    print(f"shape {str(shape):13} strides by hand {str(mine):14} minitorch {theirs}")

# %% [markdown]
# NumPy keeps strides too, counted in *bytes*; PyTorch (and minitorch) count *elements*. minitorch
# reads NumPy's and divides by the element size:

# %% id="strides-vs-numpy"
t = torch.zeros(2, 3, 4)
print("minitorch, in elements:", t.stride())
print("NumPy, in bytes:       ", t.numpy().strides, " = elements x", t.element_size(), "bytes")

# %% id="stride-source" tags=["nbval-ignore-output"]
show_source(torch.Tensor.stride)
show_source(torch.Tensor.is_contiguous)

# %% [markdown]
# Strides are why some operations cost nothing. `permute` reorders the dimensions by reordering
# the strides; not a single number moves. The result is *not contiguous*: reading it in order jumps
# around memory. By hand it is one line, and minitorch agrees on every shape and order we try:

# %% id="permute-strides-by-hand"
def permute_strides(strides, order):
    return tuple(strides[d] for d in order)


checked = 0
for shape in [(2, 3, 4), (1, 5, 2), (4, 4, 3)]:
    for order in permutations(range(3)):
        view = torch.zeros(shape).permute(*order)
        assert view.stride() == permute_strides(contiguous_strides(shape), order)
        checked += 1
print(f"permute_strides agrees with minitorch on {checked} (shape, order) pairs")

# %% [markdown]
# Drag the sliders: change the shape, pick an order of the dimensions, and watch the strides. The
# plot follows the permuted tensor element by element (in its own reading order, left to right) and
# shows where each element sits in memory. Contiguous is a straight staircase; a permuted view hops.

# %% id="stride-explorer"
def stride_report(d0, d1, d2, order):
    base = torch.arange(d0 * d1 * d2).reshape(d0, d1, d2)  # each element's value is its memory offset
    view = base.permute(*order)
    offsets = view.reshape(-1).tolist()  # read the view in its own order; the values are the offsets
    print(f"base  shape {str(tuple(base.shape)):10} strides {str(base.stride()):11} contiguous {base.is_contiguous()}")
    print(f"permute{order}: shape {str(tuple(view.shape)):10} strides {str(view.stride()):11} "
          f"contiguous {view.is_contiguous()}")
    print("reading the view in order visits memory offsets:", offsets[:12], "..." if len(offsets) > 12 else "")
    print("is that walk in memory order?", offsets == sorted(offsets))
    return offsets


def show_strides(d0=2, d1=3, d2=4, order=(0, 1, 2)):
    offsets = stride_report(d0, d1, d2, order)
    draw.memory_walk(offsets, title=f"permute{order} of a {d0}x{d1}x{d2} tensor")


# %% id="stride-widget" tags=["nbval-ignore-output"]
import ipywidgets as widgets

widgets.interact(
    show_strides,
    d0=widgets.IntSlider(value=2, min=1, max=5, description="shape[0]"),
    d1=widgets.IntSlider(value=3, min=1, max=5, description="shape[1]"),
    d2=widgets.IntSlider(value=4, min=1, max=5, description="shape[2]"),
    order=widgets.Dropdown(options=list(permutations(range(3))), value=(2, 0, 1), description="permute"),
);

# %% [markdown]
# (No sliders? Widgets need a live kernel, so they don't show on GitHub, for instance. The next
# cell gives the same report and plot for one fixed choice.)

# %% id="stride-fixed"
show_strides(2, 3, 4, order=(2, 0, 1))

# %% id="stride-fixed-source" tags=["nbval-ignore-output"]
show_source(draw.memory_walk)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# Lesson 05 builds views, slicing and `contiguous()` on top of exactly this.
#
# ## 7. Debugging with shape and dtype
#
# Three broken lines from real-looking code. Each error message is long; the fastest way in is
# the same every time: print `shape` and `dtype` of everything involved.

# %% id="debug-shape" claims="C49"
from sklearn.datasets import load_digits

digits = load_digits()
images = torch.tensor(digits.images[:16], dtype=torch.float32).unsqueeze(1)  # (batch, 1, 8, 8)
weights = torch.randn(64, 10) * 0.1

try:
    scores = images @ weights
except RuntimeError as e:
    print("RuntimeError:", e)
print("images:", describe(images))
print("weights:", describe(weights))

# %% [markdown]
# The shapes say it: `weights` expects 64 numbers per image, `images` holds each as 1×8×8.
# (The numbers in the message are those of the matrix product PyTorch actually attempts: it
# folds the leading dimensions of `images` into rows, 16·1·8 = 128 rows of 8 numbers, hence
# `(128x8 and 64x10)`.) Flatten each image to 64 first:

# %% id="debug-shape-fix" claims="C49"
scores = images.reshape(16, 64) @ weights
print("scores:", describe(scores))

# %% id="debug-dtype" claims="C49"
features = torch.tensor(digits.data[:16])  # straight from NumPy...
try:
    scores = features @ weights
except RuntimeError as e:
    print("RuntimeError:", e)
print("features:", describe(features))
print("weights: ", describe(weights))
print("fixed:   ", describe(features.float() @ weights))

# %% [markdown]
# NumPy's `float64` came along (lesson 02), and matrix multiplication does not mix dtypes. One more:
# the accuracy of those (random) scores.

# %% id="debug-int-mean" claims="C49"
labels = torch.tensor(digits.target[:16])
correct = (scores.argmax(dim=1) == labels).long()  # 1 where right, 0 where wrong
try:
    accuracy = correct.mean()
except RuntimeError as e:
    print("RuntimeError:", e)
print("correct:", describe(correct))
print("accuracy:", correct.float().mean().item())

# %% [markdown]
# ### Checking against PyTorch
#
# With PyTorch installed, the lines of this lesson run there too: the attributes, the device
# comparisons, the strides of every permutation, the errors and the gradient.

# %% id="pytorch-check" tags=["nbval-ignore-output"]
compare_with_pytorch("""
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
w = torch.zeros(3, 2, dtype=torch.float64, requires_grad=True)
[(t.shape, t.dtype, t.device, t.requires_grad) for t in (x, w, torch.tensor([7, 0, 3]))]
t = torch.ones(3)
t.device
str(t.device) == "cpu"
t.device.type == "cpu"
t.device == torch.device("cpu")
t.device == "cpu"
t.device == torch.device("cuda:0")
torch.device("cuda:0").type, torch.device("cuda:0").index
torch.zeros(2, 3, 4).stride()
[torch.zeros(shape).permute(*order).stride() for shape in shapes for order in orders]
[torch.zeros(shape).permute(*order).is_contiguous() for shape in shapes for order in orders]
torch.tensor([1, 2, 3], requires_grad=True)
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = b * 2 + torch.tensor([1.0, 2.0, 3.0])
y.grad_fn.name()
(y * y).sum().backward()
b.grad
torch.ones(16, 1, 8, 8) @ torch.ones(64, 10)  # same message
torch.ones(16, 64, dtype=torch.float64) @ torch.ones(64, 10)
torch.tensor([1, 0, 1]).mean()
""", values={"shapes": [(2, 3, 4), (1, 5, 2), (4, 4, 3)], "orders": list(permutations(range(3)))})

# %% [markdown]
# ## Recap
#
# - `shape` / `size()`: how many along each dimension; `numel()` is their product.
# - `dtype`: the element type, fixing the bytes per element; mixing dtypes is a classic bug.
# - `device`: where the numbers live (`cpu`, `cuda:0`); operands must share it (lesson 08).
# - `requires_grad`: whether autograd records operations; results inherit it and carry a `grad_fn`.
# - `stride()`: how to walk memory; `permute` changes strides, not data.
# - Something broke? Print shape and dtype first.
#
# Next: **04 · Operations and broadcasting**.
