# %% [markdown]
# # 17 · Performance: vectorise, reuse memory, pick the device, mind the overhead
#
# Tensors make computation fast in three ways, and this lesson measures each:
#
# 1. **vectorisation**: one tensor operation over a million numbers instead of a Python loop;
# 2. **memory**: in-place operations reuse a buffer instead of allocating new ones;
# 3. **the device**: the same code on a GPU, when there is one;
# 4. and one way they are *not* fast: every operation pays a fixed Python cost, which
#    dominates small tensors.
#
# Timings depend on the machine, so every measured number is printed on a line starting
# "On this machine: " (the tests don't compare those), and what the tests do compare is a
# conclusion that holds everywhere. We pin NumPy's BLAS to one thread while timing: on a
# small busy machine, a pool of threads competing for the cores makes timings erratic.

# %% id="setup"
import importlib.util
import time
import timeit
import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

import minitorch as torch
from minitorch_course import draw
from minitorch_course.machine import wrapped
from minitorch_course.show import show_source

HAVE_TORCH = importlib.util.find_spec("torch") is not None  # real PyTorch, only for comparisons
_ = torch.manual_seed(0)


def best_time(fn, repeat=5, number=1, sync=lambda: None):
    """The fastest of `repeat` runs of `number` calls, per call, in seconds."""
    fn(); sync()                                      # warm-up: first-call costs are not the op's
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / number)
    return min(times)

# %% [markdown]
# ## 1. Vectorisation: one operation instead of a loop
#
# A task: scale and shift 20 000 numbers and clip them at zero, `relu(x * w + b)`. Written
# the way one would in plain Python, it touches one element at a time; written with tensors,
# it is three operations on the whole tensor, each running a compiled loop inside NumPy.

# %% id="vectorise-code" claims="C03"
x = torch.randn(20_000)
w, b = 1.5, -0.2


def loop_version(x):
    out = torch.empty_like(x)
    for i in range(len(x)):                 # one Python iteration, and several tensor ops, per element
        v = x[i] * w + b
        out[i] = v if v > 0 else 0.0
    return out


def vectorised_version(x):
    return (x * w + b).relu()               # three operations on all 20 000 numbers


print("same result:", torch.allclose(loop_version(x), vectorised_version(x)))

# %% id="vectorise-time" claims="C03"
with threadpool_limits(1, user_api="blas"):
    loop_s = best_time(lambda: loop_version(x), repeat=1)
    vec_s = best_time(lambda: vectorised_version(x), repeat=5, number=20)
speedup = loop_s / vec_s
print(f"On this machine: loop {loop_s * 1e3:.0f} ms, vectorised {vec_s * 1e6:.0f} us: {speedup:,.0f}x faster")
print("the vectorised version is at least 100x faster:", speedup > 100)

# %% [markdown]
# The loop is slow not because the arithmetic is slow but because every element goes through
# Python: an index, a tensor object for `x[i]`, a multiplication dispatched by minitorch, a
# comparison. The vectorised version pays that price three times in all, not 20 000 times.
# The rule of thumb: **never loop over the elements of a tensor**; look for the operation that
# does the whole tensor (or the whole batch) at once.
#
# ## 2. In-place operations reuse memory
#
# Lesson 06 measured a single update, `x.mul_(0.9).add_(0.1)` against `x * 0.9 + 0.1`. The
# same holds for a whole preprocessing chain: each out-of-place step allocates a new tensor
# of the full size, each in-place step writes into the one buffer it has. Python's
# `tracemalloc` sees NumPy's allocations, so we can measure the peak memory of both while
# standardising a batch of 2 million floats (8 MB) with its mean and standard deviation:

# %% id="inplace-memory" claims="C33"
def standardise(x, mu, sigma):          # three new tensors of x's size, two alive at once
    return ((x - mu) / sigma).clamp(-3, 3)


def standardise_(x, mu, sigma):         # the same steps, written into x itself
    return x.sub_(mu).div_(sigma).clamp_(-3, 3)


def peak_bytes(fn, *args):
    tracemalloc.start()
    fn(*args)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


batch = torch.randn(2_000_000) * 4 + 1
mu, sigma = batch.mean(), batch.std()   # the statistics first: two numbers
size = batch.nbytes
peak_out = peak_bytes(standardise, batch.clone(), mu, sigma)
peak_in = peak_bytes(standardise_, batch.clone(), mu, sigma)
print(f"On this machine: out-of-place peak {peak_out / 2**20:.1f} MiB, in-place {peak_in / 2**20:.2f} MiB "
      f"(the batch itself: {size / 2**20:.1f} MiB)")
print("same result:", torch.allclose(standardise(batch.clone(), mu, sigma), standardise_(batch.clone(), mu, sigma)))
print("out-of-place peak, in batches of 8 MB:", round(peak_out / size))
print("in-place peak, in batches of 8 MB:    ", round(peak_in / size))

# %% [markdown]
# The other side of the deal, from lessons 06 and 11: in-place operations are for tensors
# autograd doesn't need, such as data being preprocessed, or weights updated under
# `no_grad()`. On a tensor saved for a backward pass they are an error.
#
# ## 3. CPU versus GPU
#
# The same minitorch code runs on NumPy (CPU) or CuPy (NVIDIA GPU); the device of the
# operands decides which (lesson 08). NumPy itself has no notion of a device: its arrays
# always live in the CPU's memory.

# %% id="numpy-no-device" claims="C24"
print("NumPy arrays have .device / .to():", hasattr(np.ones(1), "to"))
print("minitorch tensors have .device / .to():", hasattr(torch.ones(1), "to"), "| device:", torch.ones(1).device)
print("On this machine: minitorch.cuda.is_available() =", torch.cuda.is_available())

# %% [markdown]
# A matrix product of two 1024 × 1024 matrices (2 GFLOP) is the kind of work GPUs are
# built for. When there is a GPU, we time it on both devices; GPU work is queued and runs
# asynchronously, so we must `synchronize()` before stopping the clock. Without one, the
# cell says why, and the lesson goes on.

# %% id="cpu-vs-gpu" claims="C03 C24 C30"
n = 1024
A = torch.randn(n, n)
with threadpool_limits(1, user_api="blas"):
    cpu_s = best_time(lambda: A @ A, repeat=3)
print(f"On this machine: cpu matmul {n}x{n}: {cpu_s * 1e3:.1f} ms ({2 * n**3 / cpu_s / 1e9:.1f} GFLOP/s, one thread)")
if torch.cuda.is_available():
    Ag = A.to("cuda")
    gpu_s = best_time(lambda: Ag @ Ag, repeat=10, sync=torch.cuda.synchronize)
    print(f"On this machine: cuda matmul {n}x{n}: {gpu_s * 1e3:.2f} ms ({2 * n**3 / gpu_s / 1e9:.0f} GFLOP/s), "
          f"{cpu_s / gpu_s:.0f}x the CPU")
    print("On this machine: the result lives on", (Ag @ Ag).device, "| same numbers:",
          torch.allclose((Ag @ Ag).cpu(), A @ A, rtol=1e-3, atol=1e-2))
else:
    print(wrapped(f"GPU timing skipped: {torch.cuda.unavailable_reason()}", prefix="On this machine: "))
print("a CPU tensor's product stays on the CPU:", (A @ A).device)

# %% [markdown]
# A GPU wins on big operations, where thousands of cores share the work. On small ones it
# loses: launching a kernel and copying data between CPU and GPU memory cost microseconds
# each, whatever the size. Which brings us to overhead.
#
# ## 4. The fixed cost of an operation
#
# Every minitorch operation does some Python work before NumPy computes anything: check the
# devices and dtypes, work out the result's dtype, decide whether to record a graph node,
# wrap the result in a `Tensor`. PyTorch does the same in C++, so faster, but the cost is
# there too. It doesn't depend on the size of the tensor, so it is everything for a tensor of
# 10 numbers and nothing for a tensor of a million. Here is `a + b`, with NumPy as the
# baseline:

# %% id="add-source" tags=["nbval-ignore-output"]
show_source(torch.Tensor.__add__)

# %% id="overhead-measure" tags=["nbval-ignore-output"] claims="C03"
sizes = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]
per_call = {"minitorch": [], "NumPy": []}
rng = np.random.default_rng(0)
with threadpool_limits(1, user_api="blas"):
    for size in sizes:
        a_np = rng.standard_normal(size, dtype=np.float32)
        b_np = rng.standard_normal(size, dtype=np.float32)
        a_mt, b_mt = torch.from_numpy(a_np), torch.from_numpy(b_np)
        number = max(1, 20_000 // max(1, size // 100))     # enough calls to see microseconds
        for name, (p, q) in {"minitorch": (a_mt, b_mt), "NumPy": (a_np, b_np)}.items():
            t = timeit.Timer(lambda: p + q)
            per_call[name].append(min(t.repeat(repeat=5, number=number)) / number)
ratios = [m / n for m, n in zip(per_call["minitorch"], per_call["NumPy"])]
for size, m, n, r in zip(sizes, per_call["minitorch"], per_call["NumPy"], ratios):
    print(f"On this machine: {size:>9,} elements: minitorch {m * 1e6:8.2f} us, NumPy {n * 1e6:8.2f} us, ratio {r:5.2f}")

draw.curves([
    {"title": "time per operation", "xlabel": "elements in a and b", "ylabel": "time of a + b (us)",
     "xscale": "log", "yscale": "log", "lines": {name: (sizes, [t * 1e6 for t in ts]) for name, ts in per_call.items()}},
    {"title": "overhead ratio", "xlabel": "elements in a and b", "ylabel": "minitorch time / NumPy time",
     "xscale": "log", "hline": 1, "lines": {"minitorch / NumPy": (sizes, ratios)}},
], figsize=(10, 3.4))

# %% id="overhead-measure-source" tags=["nbval-ignore-output"]
show_source(draw.curves)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# Read the left plot from the left: for small tensors both lines are flat, the time doesn't
# depend on the size, so it is all fixed cost; minitorch's fixed cost is a few microseconds
# above NumPy's. From about ten thousand elements on, the lines rise together: the arithmetic
# itself dominates and the overhead disappears in it. The ratio on the right falls towards 1.
# On a quiet machine each of these checks prints True; timings are noisy (another program
# running is enough to flip one), so they are printed as this machine's answer, not promised:

# %% id="overhead-conclusion" claims="C03"
print("On this machine: overhead ratio shrinks as size grows:", ratios[0] > ratios[-1])
print("On this machine: on a single element, minitorch is over 2x NumPy's time:", ratios[0] > 2)
print("On this machine: on a million elements, within 1.5x of NumPy:", ratios[-1] < 1.5)
print("On this machine: the time of a 1-element add is mostly fixed cost (under 2x the 100-element add):",
      per_call["minitorch"][0] * 2 > per_call["minitorch"][2])

# %% [markdown]
# What this means in practice:
#
# * **batch**: one operation on a (64, 784) batch costs about the same overhead as one on a
#   single example of 784 numbers; that is why training feeds mini-batches, not examples;
# * **fuse**: fewer, larger operations beat many small ones (section 1 is the extreme case);
# * on a GPU the fixed cost is larger (a kernel launch), so small tensors gain nothing there.
#
# The project's benchmarks (`python -m bench`) measure these ratios for many operations,
# against NumPy and PyTorch, in one run.

# %% id="pytorch-compare" tags=["nbval-ignore-output"]
if HAVE_TORCH:
    import torch as real_torch
    real_torch.set_num_threads(1)
    ta, tb = real_torch.ones(10), real_torch.ones(10)
    t_pt = min(timeit.Timer(lambda: ta + tb).repeat(repeat=5, number=20_000)) / 20_000
    print(f"On this machine: PyTorch a + b on 10 elements: {t_pt * 1e6:.2f} us "
          f"(minitorch {per_call['minitorch'][1] * 1e6:.2f} us, NumPy {per_call['NumPy'][1] * 1e6:.2f} us)")
else:
    print("PyTorch not installed: skipped")

# %% [markdown]
# ## Summary
#
# * Loops over elements are the slowest way to use tensors; one operation on the whole
#   tensor is hundreds of times faster.
# * In-place operations (`sub_`, `div_`, `clamp_`) keep the peak memory at one tensor where
#   out-of-place chains allocate a new one per step; use them where autograd doesn't need the
#   old values.
# * The device decides where the work runs; GPUs pay off on large operations.
# * Every operation has a fixed cost: small tensors are dominated by it, large ones by the
#   arithmetic. Batch your data and prefer a few large operations.
