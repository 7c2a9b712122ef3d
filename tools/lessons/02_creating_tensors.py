# %% [markdown]
# # 02 · Creating tensors
#
# Every tensor starts in a *factory*: made from data you already have (`tensor`), or filled to
# order (`zeros`, `ones`, `full`, `arange`, `linspace`, `eye`, `rand`, `randn`, ...). Each
# factory also decides the **dtype**, the type of every number inside. That choice matters more
# than it looks: PyTorch picks `float32` where NumPy picks `float64`, and a model whose inputs
# and weights disagree on dtype stops with an error.
#
# In this lesson we
#
# 1. infer a dtype from Python data by hand, then compare with minitorch and NumPy;
# 2. tour the factories, side by side with NumPy (and with PyTorch and TensorFlow spellings);
# 3. make random tensors that come out the same on every run;
# 4. learn the rule for mixing dtypes (*type promotion*), and where it differs from NumPy's.

# %% id="setup"
import importlib.util

import numpy as np

import minitorch as torch
from minitorch_course import draw
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

torch.manual_seed(0)
rng = np.random.default_rng(0)


def short(dtype):
    """'float32' for minitorch.float32, NumPy's dtype('float32') and PyTorch's torch.float32 alike."""
    return str(dtype).replace("minitorch.", "").replace("torch.", "")


# %% [markdown]
# ## 1. From data: `torch.tensor`
#
# `torch.tensor(data)` copies your numbers into a new tensor and picks a dtype by looking at them.
# The rule is short enough to write ourselves:
#
# - any Python `float` in there: the *default float dtype*, `float32`;
# - otherwise any `int`: `int64`;
# - otherwise (all `bool`): `bool`.

# %% id="infer-by-hand"
def flatten(data):
    if not isinstance(data, (list, tuple)):
        return [data]
    return [x for item in data for x in flatten(item)]


def infer_dtype(data):
    kinds = {type(x) for x in flatten(data)}  # type(True) is bool, not int: exactly what we want
    if float in kinds:
        return torch.get_default_dtype()
    if int in kinds:
        return torch.int64
    return torch.bool


examples = [3, 2.5, True, [1, 2, 3], [1, 2.0, 3], [True, False], [True, 2], [[0.5, 1], [2, 3]]]
print(f"{'data':18} {'by hand':9} {'minitorch':10} {'NumPy':8}")
for data in examples:
    ours, theirs = infer_dtype(data), torch.tensor(data).dtype
    assert ours is theirs
    print(f"{data!s:18} {short(ours):9} {short(theirs):10} {short(np.array(data).dtype):8}")

# %% [markdown]
# Same data, different answer for floats: NumPy stores Python floats as `float64`, PyTorch as
# `float32`. Why? Deep learning rarely needs 16 significant digits; `float32` halves the memory
# and is much faster on GPUs. Halving memory is easy to see:

# %% id="float32-vs-64"
big32 = torch.zeros(1_000_000)
big64 = torch.zeros(1_000_000, dtype=torch.float64)
print(f"float32: {big32.nbytes / 1e6:.0f} MB   float64: {big64.nbytes / 1e6:.0f} MB   (one million numbers each)")

# %% [markdown]
# Here is minitorch's own inference, in `_factories.py`. It lets NumPy do the walking
# (`np.asarray`), then overrides NumPy's dtype choice with PyTorch's rule, the same three cases
# as ours:

# %% id="infer-source" tags=["nbval-ignore-output"]
show_source(torch._factories._infer_host)

# %% [markdown]
# ### NumPy arrays in, NumPy arrays out
#
# Tensors and NumPy arrays convert both ways, because a minitorch tensor keeps its numbers in
# a NumPy array. One rule to remember: a tensor made *from a NumPy array* keeps the array's dtype,
# so NumPy's `float64` comes along unless you ask for something else.

# %% id="numpy-in-and-out" claims="C05"
a = np.array([1.0, 2.0, 3.0])  # NumPy: float64
print(f"{'a = np.array([1.0, 2.0, 3.0])':40}", a.dtype)
print(f"{'torch.tensor(a)':40}", torch.tensor(a).dtype, "  <- keeps NumPy's dtype")
print(f"{'torch.tensor(a, dtype=torch.float32)':40}", torch.tensor(a, dtype=torch.float32).dtype)
print(f"{'torch.tensor(a).float()':40}", torch.tensor(a).float().dtype)

t = torch.tensor([[1, 2], [3, 4]])
back = t.numpy()  # and back to NumPy: the same numbers, ready for any NumPy function
print("t.numpy():", type(back).__name__, back.dtype, "| np.linalg.det:", round(float(np.linalg.det(back)), 6))
print("NumPy functions take tensors directly: np.sqrt(t) =", np.round(np.sqrt(t), 4).tolist())

# %% [markdown]
# `torch.tensor` always **copies**: changing the source afterwards does not change the tensor.
# (Its sibling `torch.from_numpy` *shares* memory instead, on purpose; lesson 07 is all about that.)

# %% id="tensor-copies" claims="C05"
source = np.array([1.0, 2.0, 3.0])
t = torch.tensor(source)
source[0] = 100.0
print("source:", source, "   tensor:", t)

# %% [markdown]
# ## 2. Filled to order: the factories
#
# Most tensors in a program are not typed in: they are made to a shape. A factory is a small
# function; `zeros` by hand is a recursion over the shape:

# %% id="zeros-by-hand"
def my_zeros(*shape):
    if not shape:
        return 0.0
    return [my_zeros(*shape[1:]) for _ in range(shape[0])]


def my_arange(start, stop, step=1):
    out, x = [], start
    while x < stop:
        out.append(x)
        x += step
    return out


print(my_zeros(2, 3))
print(my_arange(0, 10, 3))
print(torch.zeros(2, 3).tolist() == my_zeros(2, 3), torch.arange(0, 10, 3).tolist() == my_arange(0, 10, 3))

# %% [markdown]
# minitorch's factories accept the shape either as separate numbers, `zeros(2, 3)`, or as one
# tuple, `zeros((2, 3))`, like PyTorch. One small function sorts that out and checks the sizes
# for every factory:

# %% id="size-source" tags=["nbval-ignore-output"]
show_source(torch._factories._size)

# %% [markdown]
# The whole family, each next to its NumPy twin. Same values; look at the dtype column.

# %% id="factories" claims="C07"
pairs = [
    ("zeros(2, 3)", torch.zeros(2, 3), np.zeros((2, 3))),
    ("ones(2, 3)", torch.ones(2, 3), np.ones((2, 3))),
    ("full((2, 3), 7)", torch.full((2, 3), 7), np.full((2, 3), 7)),
    ("full((2, 3), 7.0)", torch.full((2, 3), 7.0), np.full((2, 3), 7.0)),
    ("arange(5)", torch.arange(5), np.arange(5)),
    ("arange(0, 1, 0.25)", torch.arange(0, 1, 0.25), np.arange(0, 1, 0.25)),
    ("linspace(0, 1, 5)", torch.linspace(0, 1, 5), np.linspace(0, 1, 5)),
    ("eye(3)", torch.eye(3), np.eye(3)),
    ("zeros_like(t)", torch.zeros_like(torch.tensor([[1, 2], [3, 4]])), np.zeros_like(np.array([[1, 2], [3, 4]]))),
]
print(f"{'factory':20} {'shape':8} {'minitorch':10} {'NumPy':9} same values")
for name, ours, theirs in pairs:
    same = np.array_equal(np.asarray(ours), theirs)
    flag = "" if short(ours.dtype) == short(theirs.dtype) else "  <- dtype differs"
    print(f"{name:20} {str(tuple(ours.shape)):8} {short(ours.dtype):10} {short(theirs.dtype):9} {same}{flag}")

print()
print(torch.linspace(0, 1, 5))
print(torch.eye(3))

# %% [markdown]
# Every factory takes `dtype=` (and `device=`, lesson 08, and `requires_grad=`, lesson 03) to
# override its choice. And `empty` is the odd one out: it allocates memory *without* filling it,
# so its values are whatever was there before. Fast, but never read them before writing them.

# %% id="dtype-argument" claims="C07"
print(torch.zeros(2, 3, dtype=torch.int32))
print(torch.ones(3, dtype=torch.bool))
print(torch.arange(4, dtype=torch.float64))
e = torch.empty(2, 3)
print("empty(2, 3):", e.shape, e.dtype, "(values: whatever the memory held)")

# %% [markdown]
# ### Creation in PyTorch, NumPy and TensorFlow
#
# The course text compares creation in PyTorch and TensorFlow. Here is that table, with the
# minitorch and NumPy columns actually run (TensorFlow is not needed for this course; its column
# shows the spelling, and the cell after this one runs it if you happen to have it).

# %% id="creation-table" claims="C22"
rows = [
    ("from data", "torch.tensor([[1., 2.], [3., 4.]])", torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
     "np.array([[1., 2.], [3., 4.]])", np.array([[1.0, 2.0], [3.0, 4.0]]), "tf.constant([[1., 2.], [3., 4.]])"),
    ("zeros", "torch.zeros(2, 3)", torch.zeros(2, 3), "np.zeros((2, 3))", np.zeros((2, 3)), "tf.zeros((2, 3))"),
    ("ones", "torch.ones(2, 3)", torch.ones(2, 3), "np.ones((2, 3))", np.ones((2, 3)), "tf.ones((2, 3))"),
    ("filled", "torch.full((2, 3), 7.)", torch.full((2, 3), 7.0), "np.full((2, 3), 7.)", np.full((2, 3), 7.0),
     "tf.fill((2, 3), 7.)"),
    ("range", "torch.arange(0, 5)", torch.arange(0, 5), "np.arange(0, 5)", np.arange(0, 5), "tf.range(0, 5)"),
    ("identity", "torch.eye(3)", torch.eye(3), "np.eye(3)", np.eye(3), "tf.eye(3)"),
    ("normal noise", "torch.randn(2, 3)", torch.randn(2, 3), "rng.standard_normal((2, 3))",
     rng.standard_normal((2, 3)), "tf.random.normal((2, 3))"),
]
draw.table(["what", "PyTorch / minitorch", "gives", "NumPy", "gives", "TensorFlow"],
           [[what, f"`{t_code}`", f"{tuple(t_val.shape)} {short(t_val.dtype)}", f"`{n_code}`",
             f"{n_val.shape} {short(n_val.dtype)}", f"`{tf_code}`"]
            for what, t_code, t_val, n_code, n_val, tf_code in rows])

# %% id="tensorflow-check" tags=["nbval-ignore-output"]
if importlib.util.find_spec("tensorflow") is None:
    print("TensorFlow not installed: skipped (it is never needed for this course)")
else:
    import tensorflow as tf

    assert np.array_equal(tf.zeros((2, 3)).numpy(), np.asarray(torch.zeros(2, 3)))
    data = [[1.0, 2.0], [3.0, 4.0]]
    assert np.array_equal(tf.constant(data).numpy(), np.asarray(torch.tensor(data)))
    assert tf.constant([1.0]).dtype.name == "float32"  # TensorFlow also defaults to float32
    print("TensorFlow agrees: same values, and float32 by default too")

# %% [markdown]
# ## 3. Random tensors, the same every run
#
# `rand` draws uniformly from [0, 1), `randn` from the standard normal distribution, `randint`
# whole numbers. Random, but *reproducible*: seed the generator and the same numbers come back.
# (Always seed in a notebook you want to re-run, or share.) And they are PyTorch's numbers:
# minitorch's generator is PyTorch's CPU generator, drawn the same way, so after
# `torch.manual_seed(42)` PyTorch 2.13 prints these very values (the PyTorch check at the end of
# the lesson compares them), and a tutorial's random example gives here what it gives there.

# %% id="random"
torch.manual_seed(42)
first = torch.rand(3)
torch.manual_seed(42)
again = torch.rand(3)
print("rand after manual_seed(42):", first)
print("and again:                 ", again, "-> equal:", torch.equal(first, again))
print("randint(0, 10, (2, 5)):")
print(torch.randint(0, 10, (2, 5)))

# %% [markdown]
# What the distributions look like, from 20 000 draws each:

# %% id="random-picture"
torch.manual_seed(0)
draw.histograms({"torch.rand: uniform on [0, 1)": torch.rand(20_000),
                 "torch.randn: normal, mean 0, std 1": torch.randn(20_000),
                 "torch.randint(0, 6): a fair die": torch.randint(0, 6, (20_000,))})

# %% id="random-picture-source" tags=["nbval-ignore-output"]
show_source(draw.histograms)

# %% [markdown]
# ## 4. The dtypes, and what happens when they meet
#
# minitorch has PyTorch's main dtypes. Each is an object with a size in bytes and a
# *category*: boolean, integer or floating point.

# %% id="dtype-list"
all_dtypes = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float16, torch.float32, torch.float64]
for d in all_dtypes:
    kind = "floating" if d.is_floating_point else ("boolean" if d is torch.bool else "integer")
    print(f"{d!r:18} {d.itemsize} byte(s)  {kind}")
print("\nconversions: .float() .double() .half() .long() .int() .bool(), or .to(dtype):")
t = torch.tensor([1.7, -2.2, 0.0])
print(t.long(), t.bool(), t.to(torch.float16), sep="\n")

# %% [markdown]
# Add an `int64` tensor to a `float32` one and the result must have *some* dtype. PyTorch's
# rule, *type promotion*, fits in four lines once you see the categories:
#
# 1. a higher category wins: bool < integer < floating point;
# 2. within a category, the wider type wins (int8 + int32 is int32; uint8 + int8 needs int16);
# 3. but a Python number, or a 0-d tensor, only counts for its *category*, never its width:
#    an `int32` tensor + `5` stays `int32`, and an `int64` tensor + `2.5` becomes the default
#    float, `float32`.
#
# Rules 1 and 2, by hand:

# %% id="promote-by-hand"
CATEGORY = {torch.bool: 0, torch.uint8: 1, torch.int8: 1, torch.int16: 1, torch.int32: 1, torch.int64: 1,
            torch.float16: 2, torch.float32: 2, torch.float64: 2}


def my_promote(a, b):
    if CATEGORY[a] != CATEGORY[b]:
        return a if CATEGORY[a] > CATEGORY[b] else b  # rule 1
    if a.is_signed != b.is_signed and CATEGORY[a] == 1:  # uint8 with a signed int: next signed size up
        signed, unsigned = (a, b) if a.is_signed else (b, a)
        if signed.itemsize > unsigned.itemsize:
            return signed
        return {1: torch.int16, 2: torch.int32, 4: torch.int64, 8: torch.int64}[signed.itemsize]
    return a if a.itemsize >= b.itemsize else b  # rule 2


mismatches = [(a, b) for a in all_dtypes for b in all_dtypes if my_promote(a, b) is not torch.promote_types(a, b)]
print(f"my_promote agrees with torch.promote_types on {81 - len(mismatches)} of 81 pairs")

# %% [markdown]
# minitorch builds the same table from the same idea (`_promote_pair`) and looks pairs up in it:

# %% id="promote-source" tags=["nbval-ignore-output"]
show_source(torch._dtype._promote_pair)

# %% [markdown]
# The whole table at a glance. Each square is the dtype of `a + b`; a red frame marks the pairs
# where NumPy answers differently. They all sit where integers meet floats: PyTorch keeps the
# float's width, NumPy widens the float until it can hold every value of the integer type.

# %% id="promotion-picture" claims="C05"
differ = draw.promotion_table(all_dtypes, torch.promote_types, lambda a, b: np.promote_types(a.np, b.np))
print(f"NumPy's answer differs on {differ} of {len(all_dtypes) ** 2} pairs")

# %% id="promotion-picture-source" tags=["nbval-ignore-output"]
show_source(draw.promotion_table)

# %% [markdown]
# Rule 3 is where day-to-day code meets the difference: Python numbers and division.

# %% id="promotion-vs-numpy" claims="C05"
ints_t, ints_a = torch.tensor([1, 2, 3]), np.array([1, 2, 3])
f16_t, f16_a = torch.tensor([1.0, 2.0], dtype=torch.float16), np.array([1.0, 2.0], dtype=np.float16)
cases = [
    ("int64 + 2.5", ints_t + 2.5, ints_a + 2.5),
    ("int64 / 2", ints_t / 2, ints_a / 2),
    ("int64 // 2", ints_t // 2, ints_a // 2),
    ("int64 * 2", ints_t * 2, ints_a * 2),
    ("float16 + 2.5", f16_t + 2.5, f16_a + 2.5),
    ("int64 + float32", ints_t + torch.ones(3), ints_a + np.ones(3, dtype=np.float32)),
    ("bool + bool", torch.tensor([True]) + torch.tensor([True]), np.array([True]) + np.array([True])),
]
print(f"{'expression':18} {'minitorch':10} {'NumPy':8}")
for expr, ours, theirs in cases:
    flag = "" if short(ours.dtype) == str(theirs.dtype) else "  <- differs"
    print(f"{expr:18} {short(ours.dtype):10} {str(theirs.dtype):8}{flag}")

# %% [markdown]
# ### Checking against PyTorch
#
# With PyTorch installed, the lines of this lesson run there too: dtype inference, the
# factories, the scalar cases, and (in a loop) the whole promotion table.

# %% id="pytorch-check" tags=["nbval-ignore-output"]
compare_with_pytorch("""
[torch.tensor(data).dtype for data in examples]
torch.tensor(np.array([1.0, 2.0, 3.0])).dtype
torch.tensor(np.array([1.0, 2.0, 3.0]), dtype=torch.float32).dtype
torch.zeros(2, 3)
torch.ones(2, 3)
torch.full((2, 3), 7)
torch.full((2, 3), 7.0)
torch.arange(5)
torch.arange(0, 1, 0.25)
torch.linspace(0, 1, 5)
torch.eye(3)
torch.zeros_like(torch.tensor([[1, 2], [3, 4]]))
torch.zeros(2, 3, dtype=torch.int32)
torch.arange(4, dtype=torch.float64)
torch.tensor([1, 2, 3]) + 2.5
torch.tensor([1, 2, 3]) / 2
torch.tensor([1, 2, 3]) // 2
torch.tensor([1.0, 2.0], dtype=torch.float16) + 2.5
torch.tensor([1, 2, 3]) + torch.ones(3)
torch.tensor([True]) + torch.tensor([True])
names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
[[torch.promote_types(getattr(torch, a), getattr(torch, b)) for b in names] for a in names]
generator = torch.manual_seed(42)
torch.rand(3)
torch.randint(0, 10, (2, 5))
torch.randn(2, 3)
""", values={"examples": examples})

# %% [markdown]
# ## Recap
#
# - `torch.tensor(data)` copies and infers: floats become `float32`, ints `int64`, bools `bool`;
#   NumPy arrays keep their dtype (often `float64`).
# - Factories make tensors to a shape: `zeros`, `ones`, `full`, `arange`, `linspace`, `eye`,
#   `empty`, the `*_like` family, and `rand` / `randn` / `randint` (seed them!).
# - When dtypes meet, the higher category wins, then the wider type; a Python number only brings
#   its category. That is why `int_tensor / 2` is `float32` here and `float64` in NumPy.
#
# Next: **03 · Attributes**: what `shape`, `dtype`, `device` and `requires_grad` tell you, and how
# to use them when something goes wrong.
