# %% [markdown]
# # 19 · Your minitorch
#
# In exercises 03 to 16 you wrote the mechanisms inside a tensor library: the strides of a
# contiguous tensor and of its views, broadcasting, the order of the backward pass, backward
# formulas (of the pointwise ops, sum and mean, matmul and the views), the sum-back of a
# broadcast gradient, SGD and Adam steps, im2col, the gradient of an embedding. Each of them is a **part** of minitorch: a place in the library where your function
# plugs in instead of the library's own code. Each time a part's `check()` passed, the course
# saved your source. This lesson puts them together:
#
# 1. the parts, and where each one plugs into the library;
# 2. `use_mine()`: minitorch computing with your code (and what one wrong part does);
# 3. minitorch's tests, run on your parts: `your minitorch passes N of M tests`;
# 4. the digits MLP of lesson 14 and the CNN of lesson 15, trained on your parts.

# %% id="setup"
import minitorch as torch
from minitorch import parts as hooks
from minitorch_course import capstone, mine, parts, use_mine
from minitorch_course.show import show_source

# %% [markdown]
# ## 1. The parts
#
# `minitorch/parts.py` lists every hook: its name, the line of the library that calls it, its
# signature and what the library does without it. Each hook is `None` until you plug a part
# in, so the library pays one attribute read for it. Here is one of those lines: `expand()`
# asks the `expand_strides` part for the strides of its view, when there is one.

# %% id="hook-source" tags=["nbval-ignore-output"]
show_source(torch._ops.views.Expand.forward)

# %% [markdown]
# `mine()` shows which parts are yours (saved when their check passed) and which are still the
# library's:

# %% id="mine-table" tags=["nbval-ignore-output"]
mine()

# %% [markdown]
# The rest of this lesson runs on the parts you saved. Where you have saved none yet (a fresh
# install, or this notebook built for the course), the course's reference solutions stand in
# for yours, so that you can see what happens once you have written them all. (What the cells
# below print depends on your saved parts, so the course's tests do not compare it.)

# %% id="whose-parts" tags=["nbval-ignore-output"]
yours = parts.saved()
functions = None if yours else capstone.reference_parts()
print(f"parts saved by you: {len(yours)} of {len(parts.PARTS)}"
      + ("" if yours else f"; the course's reference parts stand in: {len(functions)}"))

# %% [markdown]
# ## 2. minitorch, computing with your code
#
# `use_mine()` plugs every saved part in, from then on; `with use_mine(): ...` does it for one
# block. `use_mine(functions={...})` plugs in functions you hand it instead. Inside the block,
# `transpose()` builds its view from the strides your `transpose_strides` returns:

# %% id="one-part" tags=["nbval-ignore-output"]
x = torch.arange(24.0).view(2, 3, 4)
now = functions if functions is not None else parts.saved_functions()[0]
if "transpose_strides" in now:
    with use_mine(functions={"transpose_strides": now["transpose_strides"]}):
        print("in use:", hooks.in_use())
        y = x.transpose(0, 2)
        print("x.transpose(0, 2): shape", tuple(y.shape), "strides", y.stride())
    print("after the block:", hooks.in_use())
else:
    print("transpose_strides is not saved yet: exercise 05, q1")

# %% [markdown]
# The hook is real: a part that answers differently changes what minitorch computes. Here a
# `contiguous_strides` that lays a tensor out column by column (a mistake that is easy to make:
# it forgets to walk the shape from the last dim) turns `view(2, 3)` into a transpose:

# %% id="wrong-part"
def column_major(shape):
    strides, step = [], 1
    for size in shape:
        strides.append(step)
        step *= size
    return tuple(strides)


v = torch.arange(6.0)
with use_mine(functions={"contiguous_strides": column_major}):
    print("with the column-major part:", v.view(2, 3).tolist())
print("with the library's:        ", v.view(2, 3).tolist())

# %% [markdown]
# ## 3. minitorch's tests, on your parts
#
# Each test runs one of minitorch's operations with **one** of your parts plugged in (the others
# the library's) and compares the result with NumPy's, so a failure names the part that is
# wrong, the test, its input, and the expected and actual values.

# %% id="run-tests" tags=["nbval-ignore-output"]
report = capstone.run_tests(functions=functions)

# %% id="draw-parts" tags=["nbval-ignore-output"]
capstone.draw_parts(report)

# %% [markdown]
# ## 4. Training on your minitorch
#
# The digits MLP of lesson 14 (trained with your Adam step; its tanh's backward is your
# formula, its Linear layers' backward your matmul_backward) and the CNN of lesson 15 (your SGD
# step; every convolution unfolds its images with your im2col, its flatten's backward is your
# view_backward). Every part that passed its tests is plugged in at once: each view, each
# backward pass in your topological order, each sum-back of a broadcast gradient runs through
# your code. On a machine with a GPU, `train()` trains there (the last cell of this section).

# %% id="train-mlp" tags=["nbval-ignore-output"]
mlp = capstone.train("mlp", functions=report.passing(), show=False)

# %% id="train-cnn" tags=["nbval-ignore-output"]
cnn = capstone.train("cnn", functions=report.passing(), show=False)

# %% id="accuracy" tags=["nbval-ignore-output"]
for h in (mlp, cnn):
    print(f"{h['model']} on {h['device']}, {len(h['parts'])} of your parts in use: test accuracy: {h['test_acc'][-1]:.3f}")

# %% id="curves" tags=["nbval-ignore-output"]
capstone.draw_curves(mlp, cnn)

# %% [markdown]
# The same training on the GPU, `device="cuda"` (the model and the data go there with
# `.to("cuda")`, and your parts compute on CuPy arrays). Without a GPU, `train()` says so and
# skips it.

# %% id="train-gpu" tags=["nbval-ignore-output"]
gpu = capstone.train("mlp", device="cuda", functions=report.passing(), progress=False)

# %% [markdown]
# ## Summary
#
# - A part is a mechanism you wrote, with one hook in minitorch where it plugs in
#   (`minitorch/parts.py`); without it the library runs its own code.
# - `check()` saves a part when it passes; `use_mine()` runs minitorch on your saved parts, and
#   `mine()` shows which parts are yours.
# - `capstone.run_tests()` runs minitorch's tests on your parts and names the part that fails;
#   `capstone.train()` trains the digits models on all of them.
#
# Exercise 19 assembles your parts in one notebook, checks each one again, and runs the same
# tests and training on them.
