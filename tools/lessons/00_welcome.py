# %% [markdown]
# # 00 · Welcome to minitorch
#
# Tomorrow you will write PyTorch code. Tonight, let's make sure nothing in it feels like magic.
#
# This course teaches the two ideas everything in PyTorch rests on, **tensors** and
# **autograd**, by *building* them. Together we grow `minitorch`, a small library that
# speaks PyTorch's language (`import minitorch as torch` runs beginner PyTorch code) and is
# written to be read: plain Python on top of NumPy, each mechanism in a file of its own (the
# last cell of this page lists the files and counts their lines).
#
# You need Python and a little NumPy. You do **not** need a GPU, or PyTorch itself: every
# lesson runs on a laptop CPU in under a minute. (If PyTorch *is* installed, lessons check
# their answers against it too.)

# %% [markdown]
# ## How a lesson works
#
# Each lesson is one notebook, meant to be run top to bottom (`Shift`+`Enter`, cell after cell).
# They all follow the same rhythm:
#
# 1. **Why**: a few sentences on the problem the mechanism solves.
# 2. **Build it by hand**: the idea in a dozen lines of plain Python, small enough to hold in your head.
# 3. **Read the real thing**: the actual minitorch source for the same mechanism, printed right in
#    the notebook. You read the library as you go; nothing is hidden behind an import.
# 4. **Use it**: the minitorch version side by side with NumPy (and PyTorch, when you have it).
#
# Pictures appear wherever looking beats reading: images as tensors, memory layouts, graphs.
# Some cells have sliders; drag them.

# %% [markdown]
# ## How the exercises work
#
# Every lesson has a twin in `exercises/`: the same mechanism, with the key function left for you
# to write. In an exercise notebook:
#
# - `check()` runs the tests for the cell above at once and tells you *what* is wrong, not just
#   *that* something is ("expected shape [2, 3], got [3, 2]");
# - `hint()` gives a nudge; ask again for a bigger one;
# - `solution()` shows the answer when you would rather read it than fight it;
# - a progress line at the top shows how far you are, and `show_progress()` the whole table:
#   each question is *not started*, *attempted* or *done*.
#
# Your progress is kept on your own machine, in `~/.minitorch/progress.json`. **On Colab** that
# folder lives in the runtime and is gone when the runtime is reset: before you leave, run
# `export_progress()` (from `minitorch_course`), which downloads a small file to your
# computer; in a new runtime, `import_progress()` asks for that file and merges it back.
#
# Where it fits, your function is plugged into minitorch itself, and the rest of the exercise
# runs on *your* code. If your instructor grades the exercises, the grader runs your notebook
# on its own and recomputes every expected answer, so the only way to a full score is a
# correct function.

# %% [markdown]
# ## The map
#
# | lesson | what you build or learn |
# |---|---|
# | 00 | this page: the set-up check |
# | 01 | what a tensor is: from a single number to a batch of images and a batch of sentences |
# | 02 | creating tensors: factories, dtypes, and where PyTorch's type rules differ from NumPy's |
# | 03 | the attributes every tensor carries: shape, dtype, device, requires_grad (and strides) |
# | 04 | operations and broadcasting |
# | 05 | memory: strides, views, contiguity |
# | 06 | in-place operations, the trailing `_` |
# | 07 | NumPy interop: `from_numpy`, `.numpy()`, shared memory |
# | 08 | devices: CPU and GPU, `.to(device)` |
# | 09 | autograd on scalars |
# | 10 | autograd for tensors |
# | 11 | autograd mechanics: the graph, saved tensors, versions |
# | 12 | `requires_grad` versus TensorFlow's `GradientTape` |
# | 13 | modules, parameters, optimizers |
# | 14 | a training loop written by hand |
# | 15 | a small CNN on handwritten digits |
# | 16 | token sequences |
# | 17 | performance |
# | 18 | debugging tensor code |

# %% [markdown]
# ## Set-up check
#
# Run the next cell. Every line should end in `ok`. A GPU is *optional*: if there is none, the
# cell says why, and that is fine. (The versions you see will differ from the ones stored in
# this notebook; that is expected.)

# %% id="setup-check"
import importlib.metadata
import importlib.util
import platform
import sys

import numpy as np

import minitorch as torch
from minitorch_course.machine import gpu_report


def version_of(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def at_least(version, minimum):
    parts = []
    for piece in version.split(".")[:len(minimum)]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts) >= minimum


def line(name, version, minimum, purpose):
    if version is None:
        verdict = f"MISSING: {purpose} needs it; run `make lab` (or pip install -e '.[dev]')"
    elif at_least(version, minimum):
        verdict = "ok"
    else:
        verdict = f"TOO OLD: need {'.'.join(map(str, minimum))} or newer for {purpose}"
    print(f"  {name:<13}{version or '-'} {verdict}")


print("Set-up check")
line("Python", platform.python_version(), (3, 10), "minitorch")
line("NumPy", np.__version__, (1, 26), "minitorch")
line("minitorch", torch.version.minitorch, (0, 1), "the lessons")  # (torch.__version__ names the PyTorch it follows)
line("matplotlib", version_of("matplotlib"), (3, 8), "the pictures")
line("ipywidgets", version_of("ipywidgets"), (8, 1), "the sliders")
line("scikit-learn", version_of("scikit-learn"), (1, 4), "the digits data set")

print(gpu_report(prefix=f"  {'GPU':<13}"))  # yes, or why not and the fix for how you installed
pytorch = version_of("torch")
print(f"  {'PyTorch':<13}" + (f"{pytorch}: lessons will also check their answers against it" if pytorch
                               else "not installed (optional): lessons will skip their PyTorch comparisons"))

# %% [markdown]
# ## A first taste
#
# Here is a piece of ordinary PyTorch code. The only change: the import line. Run it.

# %% id="first-taste"
import minitorch as torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()  # y = x0² + x1² + x2²
y.backward()  # autograd: dy/dx, computed for you
print("y      =", y)
print("dy/dx  =", x.grad, " (that is 2·x)")

# %% [markdown]
# By the end of lesson 11 you will know exactly what each of those three lines did, because you
# will have written the machinery yourself. If PyTorch is installed, the very same lines give the
# very same answer there:

# %% id="first-taste-pytorch" tags=["nbval-ignore-output"]
from minitorch_course.compare import compare_with_pytorch  # runs the lines on both libraries

compare_with_pytorch("""
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward()
y
x.grad
""")

# %% [markdown]
# ## The library you will read
#
# Here are minitorch's pieces, with their sizes; lesson by lesson you will open most of them,
# one function or class at a time. Only the library is counted: the course's own machinery (checks,
# progress, grading, the pictures) is a separate package, `minitorch_course`, that you never
# need to read. (The numbers change as the library grows.)

# %% id="library-files" tags=["nbval-ignore-output"]
from pathlib import Path

package = Path(torch.__file__).parent
total = 0
for path in sorted(package.rglob("*.py")):
    n = len(path.read_text(encoding="utf-8").splitlines())
    total += n
    print(f"{n:6} lines  minitorch/{path.relative_to(package).as_posix()}")
thousands = round(total / 1000)
print(f"{total:6} lines in all: about {thousands} thousand lines of Python, comments and docstrings included")

# %% [markdown]
# That's it for tonight. When you are ready, open **01 · What is a tensor?**
