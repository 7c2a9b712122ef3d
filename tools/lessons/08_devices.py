# %% [markdown]
# # 08 · Devices: where the computation runs
#
# A tensor's numbers live in the memory of one **device**: the CPU's RAM, or a GPU's own
# memory. An operation runs where its operands live, so the device decides the speed, and two
# operands on different devices can't meet at all. PyTorch makes you say where every tensor
# goes (`.to(device)`); this lesson shows
#
# 1. device objects, and how to ask whether there is a GPU (and why not);
# 2. `.to(device)`, and the idiom every PyTorch script starts with;
# 3. the device-mismatch error, and the rule behind it;
# 4. explicit placement (PyTorch) vs automatic placement (TensorFlow);
# 5. a training step that runs on `device`, with the model and the data moved together;
# 6. CPU vs GPU speed, measured when there is a GPU.
#
# Everything runs on a CPU-only laptop. Cells whose answer depends on the machine say so with
# "On this machine: ...", and GPU-only parts explain why they skipped.

# %% id="setup"
import importlib.util
import time

import minitorch as torch
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.machine import gpu_report, wrapped
from minitorch_course.show import show_source

HAVE_TF = importlib.util.find_spec("tensorflow") is not None
_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. Devices, and is there a GPU?
#
# A device is a *type* (`cpu`, `cuda`) and, for GPUs, an *index*: `cuda:0` is the first GPU,
# `cuda:1` the second. Naming a device needs no GPU; it is only a label.

# %% id="device-objects" claims="C10"
for spec in ["cpu", "cuda", "cuda:0", "cuda:1"]:
    d = torch.device(spec)
    print(f"device({spec!r:8}) -> {d!r:34} type={d.type!r:7} index={d.index}")
print("device('cuda', 0) == device('cuda:0'):", torch.device("cuda", 0) == torch.device("cuda:0"))
print("a new tensor lives on:", torch.zeros(2).device)

# %% [markdown]
# Whether a `cuda` device *exists* is a question about the machine. `minitorch` computes on the
# CPU with NumPy and on NVIDIA GPUs with CuPy (the same code, a different array module), so
# `minitorch.cuda.is_available()` is true only when CuPy imports and sees a GPU. When it is
# false, minitorch remembers why:

# %% id="cuda-available" claims="C03 C10"
print("On this machine: minitorch.cuda.is_available() =", torch.cuda.is_available())
if torch.cuda.is_available():
    print(f"On this machine: {torch.cuda.device_count()} GPU(s); cuda:0 is {torch.cuda.get_device_name(0)}")
else:
    print(gpu_report(prefix="On this machine: GPU "))  # why not, and the fix for how you installed
print("CPU tensors compute with:", torch.device("cpu").xp.__name__)

# %% [markdown]
# ## 2. `.to(device)`: moving a tensor, explicitly
#
# Every PyTorch script that should use a GPU when there is one, and still run when there isn't,
# starts with this line:

# %% id="device-idiom" claims="C14 C35"
device = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.randn(2, 3)                 # created on the CPU, always
x_dev = x.to(device)                  # a copy on `device` (or x itself if it is already there)
print("On this machine: device =", repr(device), "| x_dev.device =", x_dev.device)
print("x.to('cpu') is x:", x.to("cpu") is x, "(nothing to move: PyTorch returns the same tensor)")
print("x.to(torch.float64) changes dtype, keeps device:", x.to(torch.float64).device)

# %% [markdown]
# When there is a GPU, `.to("cuda")` copies the numbers into GPU memory and `.cpu()` copies
# them back; `.numpy()` needs them on the CPU. Without a GPU, asking for `cuda` is an error
# that says why:

# %% id="to-cuda-and-back" claims="C14"
if torch.cuda.is_available():
    g = x.to("cuda")
    print("On this machine: x.to('cuda') ->", g.device, "| equal after the round trip:",
          torch.equal(g.cpu(), x))
else:
    try:
        x.to("cuda")
    except RuntimeError as e:
        print(wrapped(f"RuntimeError: {e}", prefix="On this machine: "))

# %% [markdown]
# ## 3. The device-mismatch error
#
# An operation runs on one device, so all its tensor operands must be on it. Mixing a CPU
# tensor with a GPU tensor is a `RuntimeError` naming both devices and the operation:

# %% id="device-mismatch" claims="C36"
a = torch.ones(3)                      # cpu
if torch.cuda.is_available():
    b = torch.ones(3, device="cuda")   # cuda:0
    try:
        a + b
    except RuntimeError as e:
        print("On this machine: RuntimeError:", e)
else:
    print("On this machine: no GPU, so no CUDA tensor to mix with a CPU one (asking for one "
          "fails earlier, for the reason shown in section 1)")

# %% [markdown]
# With a GPU, the message reads:
#
# ```
# RuntimeError: Expected all tensors to be on the same device, but found at least two devices,
# cuda:0 and cpu! (in add: move them to one device first, e.g. `b = b.to(a.device)`)
# ```
#
# On this CPU-only run we don't fake a GPU tensor. Instead, here is the rule itself: every
# operation with several tensor operands (`+`, `@`, `cat`, `where`, ...) calls this check
# before computing. It has one exception, borrowed from PyTorch: a 0-d CPU tensor (a plain
# number like `torch.tensor(2.0)`) may join tensors on any device.

# %% id="same-device-source" tags=["nbval-ignore-output"] claims="C36"
from minitorch._ops.common import same_device

show_source(same_device)

# %% [markdown]
# The fix is always a move: `b.to(a.device)`. For a model, the best practice is to check
# *before* the forward pass, where the message can name the model and the input rather than
# an operation deep inside a layer. A small helper does it:

# %% id="check-same-device" claims="C46"
def check_same_device(model, *inputs):
    """Raise a clear error unless the model's parameters and all inputs share one device."""
    where = {str(p.device) for p in model.parameters()}
    where |= {str(t.device) for t in inputs}
    if len(where) > 1:
        raise RuntimeError(f"model and inputs are on different devices: {sorted(where)}; "
                           "call model.to(device) and x.to(device) first")
    return where.pop()


model = torch.nn.Linear(3, 1)
print("model and input on:", check_same_device(model, torch.randn(4, 3)))

# %% [markdown]
# ## 4. Explicit (PyTorch) vs automatic (TensorFlow) placement
#
# | | PyTorch | TensorFlow |
# |---|---|---|
# | device placement | explicit: `.to(device)` | mostly automatic |
#
# TensorFlow puts a new tensor and every operation on the GPU by itself when one is visible.
# PyTorch, and minitorch, never move anything you didn't ask to move: a new tensor is on the
# CPU **even on a machine with a GPU**, and a result stays on its operands' device. We can
# check that on any machine:

# %% id="explicit-placement" claims="C21 C35"
new = torch.zeros(3)
print("new tensor on:", new.device, "(GPU or not, nothing moves by itself)")
print("result of new + 1 on:", (new + 1).device)
on_dev = new.to(device)
print("On this machine: after an explicit .to(device):", on_dev.device, "and its result:", (on_dev * 2).device)
if HAVE_TF:
    import tensorflow as tf
    print("On this machine: TensorFlow placed tf.zeros(3) on", tf.zeros(3).device or "its default device")
else:
    print("TensorFlow not installed: skipped (it would report /GPU:0 on a GPU machine, with no code asking)")

# %% [markdown]
# Explicit placement costs a line per tensor (the extra manual step of device management),
# and in exchange you always know where your data is, and nothing is copied behind your back.

# %% [markdown]
# ## 5. A training step on `device`
#
# The same training code runs on a CPU or a GPU; only `device` changes. Three moves make it
# work: the **model** (its parameters), the **inputs**, the **targets**. `model.to(device)`
# moves every parameter at once; forgetting any of the three gives the mismatch error of
# section 3.

# %% id="train-on-device" claims="C30 C43 C46"
_ = torch.manual_seed(0)
X = torch.randn(64, 3)
Y = X @ torch.tensor([[2.0], [-1.0], [0.5]]) + 0.3     # a line to learn

model = torch.nn.Linear(3, 1).to(device)              # move 1: the model's weights
X, Y = X.to(device), Y.to(device)                     # moves 2 and 3: the data
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
print("On this machine: training on", check_same_device(model, X, Y))

for step in range(30):
    loss = torch.nn.functional.mse_loss(model(X), Y)  # runs on `device`
    optimizer.zero_grad()
    loss.backward()                                   # so do the gradients
    optimizer.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step:2}  loss {loss.item():.4f}")
print("learned weights:", [round(w, 2) for w in model.weight.detach().cpu().tolist()[0]],
      "bias:", round(model.bias.item(), 2))

# %% [markdown]
# `loss.item()` and `.cpu().tolist()` copy numbers back to the CPU for printing: a GPU's
# memory is not the CPU's, so reading a number out is a transfer too. Keep such reads out of
# the inner loop when speed matters.
#
# ## 6. The device decides the speed
#
# A 2048 × 2048 matrix product is about 17 billion floating-point operations. On a GPU it is
# one of the things GPUs are built for. When there is a GPU, we time it on both; on the GPU, we
# must `synchronize()` before stopping the clock, because GPU work is queued and runs
# asynchronously. (Timings vary by machine; this cell's output is not compared by the tests.)

# %% id="matmul-timing" tags=["nbval-ignore-output"] claims="C03 C30"
def best_time(fn, repeat=3, sync=lambda: None):
    fn(); sync()                          # warm-up (and, on a GPU, kernel compilation)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(); sync()
        times.append(time.perf_counter() - t0)
    return min(times)


n = 2048
A = torch.randn(n, n)
cpu_s = best_time(lambda: A @ A)
print(f"cpu:  matmul {n}x{n} took {cpu_s * 1e3:.1f} ms  ({2 * n**3 / cpu_s / 1e9:.0f} GFLOP/s)")
if torch.cuda.is_available():
    Ag = A.to("cuda")
    gpu_s = best_time(lambda: Ag @ Ag, repeat=10, sync=torch.cuda.synchronize)
    print(f"cuda: matmul {n}x{n} took {gpu_s * 1e3:.1f} ms  ({2 * n**3 / gpu_s / 1e9:.0f} GFLOP/s), "
          f"{cpu_s / gpu_s:.0f}x the CPU")
    print("same result (up to float32 rounding):",
          torch.allclose((Ag @ Ag).cpu(), A @ A, rtol=1e-3, atol=1e-2))
else:
    print(wrapped(f"cuda: skipped, because {torch.cuda.unavailable_reason()}"))

# %% id="pytorch-compare"
compare_with_pytorch("""
[torch.device(spec) for spec in ["cpu", "cuda", "cuda:0", "cuda:1"]]
[(torch.device(spec).type, torch.device(spec).index) for spec in ["cpu", "cuda", "cuda:0", "cuda:1"]]
torch.device("cuda", 0) == torch.device("cuda:0")
torch.zeros(2).device
x = torch.ones(2, 3)
x.to("cpu") is x
x.to(torch.float64).device, x.to(torch.float64).dtype
(torch.zeros(3) + 1).device
""")

# %% [markdown]
# ## Summary
#
# * A device is a type and an index: `cpu`, `cuda:0`. `minitorch.cuda.is_available()` says
#   whether there is a GPU; minitorch also says why not.
# * `device = "cuda" if torch.cuda.is_available() else "cpu"`, then `.to(device)` for the model
#   and every input: placement is explicit, a manual step (TensorFlow mostly places for you).
# * Operands must share a device, or a `RuntimeError` names both; check model and inputs before
#   the forward pass.
# * Where the tensors are is where the computation runs, and that decides the speed.
