# %% [markdown]
# # 12 · `requires_grad` vs `GradientTape`: two ways to decide what is recorded
#
# A classic interview question:
#
# > *How does gradient tracking with PyTorch tensors differ from TensorFlow's?*
#
# Both frameworks record operations into a graph and walk it backwards (lessons 09-11).
# They differ in **who decides what gets recorded**:
#
# | | PyTorch (and minitorch) | TensorFlow |
# |---|---|---|
# | switch | a flag on the tensor: `requires_grad=True` | a context: `with tf.GradientTape() as tape:` |
# | what is recorded | every op whose input has the flag, wherever it runs (unless `no_grad`) | ops on *watched* tensors, only while the tape is active |
# | asking for gradients | `y.backward()` fills `x.grad` | `tape.gradient(y, x)` returns them |
#
# We will not import TensorFlow. Instead we build a `GradientTape` **on minitorch's own
# engine**, run the same function through both designs, and see every difference happen.
# Then we build a tiny `tf.function`-style tracer, and finish with a model answer whose
# every sentence is proved by a cell.

# %% id="setup"
import numpy as np

import minitorch as torch
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)


def f(x):
    """The function both designs differentiate: f(x) = x^3 + 2x, so f'(x) = 3x^2 + 2."""
    return x ** 3 + 2 * x

# %% [markdown]
# ## 1. The PyTorch way: a flag on the tensor
#
# The decision is made **when the tensor is created** (or with `requires_grad_()`), and it
# travels with the tensor: every operation on it, anywhere in the program, is recorded.

# %% id="flag-design" claims="C12 C19"
x = torch.tensor(2.0, requires_grad=True)     # the decision: a property of x
y = f(x)                                      # recorded, because x carries the flag
print("x.requires_grad:", x.requires_grad, "| y.grad_fn:", y.grad_fn.name())
y.backward()
print("x.grad:", x.grad.item(), "(expected 3*2^2 + 2 = 14)")

# %% [markdown]
# Where the flag decides, in minitorch's source: every operation goes through a `Primitive`'s
# `apply`, which records a node only when an input has `_requires_grad` set *and* recording is
# on (`STATE.enabled`, what `no_grad` switches off). Nothing else is consulted: no context,
# no tape.

# %% id="flag-source" tags=["nbval-ignore-output"]
from minitorch._ops._prim import Primitive

show_source(Primitive.apply)

# %% [markdown]
# ## 2. Build a `GradientTape` on the same engine
#
# A tape is a context manager. While it is active, operations on the tensors it **watches**
# are recorded; when it closes, recording stops, and `tape.gradient(target, sources)` asks
# the engine for the gradients (with `minitorch.autograd.grad`, which returns them instead
# of writing `.grad`).
#
# minitorch's engine only records ops on tensors that require grad, so the tape sets that
# flag itself on `watch` and takes it away on exit: the learner never touches the flag,
# and it never leaks outside the `with` block. The recording is decided by the context.

# %% id="tape-class" claims="C13"
class GradientTape:
    """A TensorFlow-style tape on minitorch's engine (a teaching model, not TF's code)."""

    def __init__(self, persistent=False):
        self.persistent = persistent
        self._watched = []       # tensors this tape watches
        self._used = False

    def __enter__(self):
        self._grad_mode = torch.enable_grad()     # inside a tape, recording is on ...
        self._grad_mode.__enter__()
        return self

    def watch(self, t):
        """Record the ops on `t` from now on, while this tape is active."""
        if not t.requires_grad:
            t.requires_grad_(True)
            self._watched.append(t)

    def __exit__(self, *exc):
        for t in self._watched:                   # ... and off again for the watched tensors
            t.requires_grad_(False)
        self._grad_mode.__exit__(*exc)
        return False

    def gradient(self, target, sources):
        if self._used and not self.persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of "
                               "gradients (or jacobians)")
        self._used = True
        single = not isinstance(sources, (list, tuple))
        sources = [sources] if single else list(sources)
        if not target.requires_grad:             # nothing watched reached the target
            return None if single else [None] * len(sources)
        flagged = [s for s in sources if not s.requires_grad]
        for s in flagged:                        # the recorded graph still points at them
            s.requires_grad_(True)
        try:
            grads = torch.autograd.grad(target, sources, retain_graph=self.persistent, allow_unused=True)
        finally:
            for s in flagged:
                s.requires_grad_(False)
        return grads[0] if single else list(grads)

# %% [markdown]
# The same function, the tape way. `x` is an ordinary tensor: no flag at creation.

# %% id="tape-design" claims="C13 C19"
x = torch.tensor(2.0)                             # no flag: an ordinary tensor
with GradientTape() as tape:
    tape.watch(x)                                 # the decision: made by the context
    y = f(x)
    print("inside the tape:  x.requires_grad =", x.requires_grad, "| y.grad_fn:", y.grad_fn.name())
print("after the tape:   x.requires_grad =", x.requires_grad, "| x.grad:", x.grad)
print("tape.gradient(y, x):", tape.gradient(y, x).item())

# %% [markdown]
# Same graph, same engine, same answer (14). What differs is only **where the decision to
# record lives**: on `x` in section 1, on the `with` block here. The tape's `gradient` is
# minitorch's `autograd.grad`, PyTorch's way to get gradients *returned* rather than added
# into `.grad`:

# %% id="grad-source" tags=["nbval-ignore-output"]
show_source(torch.autograd.grad)

# %% [markdown]
# ## 3. Created outside vs inside, used outside vs inside
#
# The difference shows when the same tensor is used in several places. Four situations, both
# designs, each printing whether the result was recorded (`requires_grad` of the result):

# %% id="outside-inside" claims="C19 C50"
def recorded(t):
    return "recorded (" + t.grad_fn.name() + ")" if t.grad_fn is not None else "not recorded"


print("PyTorch: flag on the tensor")
p = torch.tensor(2.0, requires_grad=True)
print("  op before any block         :", recorded(p * 3))
with torch.no_grad():
    print("  op inside no_grad()         :", recorded(p * 3), " <- opting out takes a block (or .detach())")
print("  op after the block          :", recorded(p * 3))
q = torch.tensor(5.0)
print("  op on a tensor without flag :", recorded(q * 3))

print("\nTape: context decides")
t = torch.tensor(2.0)
print("  op before the tape          :", recorded(t * 3))
with GradientTape() as tape:
    print("  op inside, before watch     :", recorded(t * 3))
    tape.watch(t)
    print("  op inside, after watch      :", recorded(t * 3))
    inner = torch.tensor(5.0)                     # created inside the tape, never watched
    print("  op on a tensor made inside  :", recorded(inner * 3))
print("  op after the tape           :", recorded(t * 3))

# %% [markdown]
# In PyTorch, *having the flag* is what matters, and it is set once, on the tensor. With a
# tape, the same tensor `t` is recorded in one line and not in the next: it depends on
# where the code runs. (TensorFlow watches trainable `tf.Variable`s automatically, which is
# why model code rarely calls `watch`; plain constants, like `inner`, must be watched.)
#
# Two more consequences of the tape design, both built into our class above:
# a tape gives one set of gradients unless it is `persistent` (PyTorch's spelling of the same
# thing is `retain_graph=True`), and gradients are *returned*, not accumulated into `.grad`.

# %% id="tape-persistent" claims="C13"
x = torch.tensor(3.0)
with GradientTape() as tape:
    tape.watch(x)
    y = x * x
    z = y * y                                     # z = x^4
print("dz/dx:", tape.gradient(z, x).item())
try:
    tape.gradient(y, x)
except RuntimeError as e:
    print("RuntimeError:", e)

with GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
    z = y * y
print("persistent: dz/dx =", tape.gradient(z, x).item(), "| dy/dx =", tape.gradient(y, x).item())

# %% [markdown]
# ## 4. Eager in both
#
# Neither design delays computation. Inside a tape, as with `requires_grad`, every
# operation runs at once and its value can be printed in the middle of the computation:
# recording is *in addition to* computing, not instead of it.

# %% id="eager-both" claims="C23 C34"
x = torch.tensor(1.5)
with GradientTape() as tape:
    tape.watch(x)
    h = x.exp()
    print("inside the tape, h = exp(x) is already", round(h.item(), 4))
    out = h.tanh()
    print("and out = tanh(h) is already", round(out.item(), 4))
print("d out / dx =", round(tape.gradient(out, x).item(), 4))

x = torch.tensor(1.5, requires_grad=True)
h = x.exp()
print("\nwith requires_grad, h is already", round(h.item(), 4), "| recorded as", h.grad_fn.name())

# %% [markdown]
# ## 5. Graph compilation, `@tf.function` style, with a tiny tracer
#
# TensorFlow 2 is eager by default too, but `@tf.function` offers a second mode: run the
# Python function **once** with symbolic placeholders, record the operations into a graph,
# and from then on replay the graph without running the Python body. (PyTorch's optional
# counterpart is `torch.compile`.) Here is the idea in about forty lines: a `Tracer` stands
# in for a tensor and, instead of computing, appends each operation to a list.

# %% id="tracer" claims="C23"
class Tracer:
    """A symbolic value: records operations instead of computing them."""

    def __init__(self, graph, name):
        self.graph, self.name = graph, name

    def _op(self, op, *args):
        out = Tracer(self.graph, f"v{len(self.graph.ops)}")
        ins = [a.name if isinstance(a, Tracer) else a for a in args]
        self.graph.ops.append((op, ins, out.name))
        return out

    def __add__(self, o):  return self._op("add", self, o)
    def __radd__(self, o): return self._op("add", o, self)
    def __mul__(self, o):  return self._op("mul", self, o)
    def __rmul__(self, o): return self._op("mul", o, self)
    def __pow__(self, k):  return self._op("pow", self, k)
    def exp(self):         return self._op("exp", self)
    def tanh(self):        return self._op("tanh", self)
    def sum(self):         return self._op("sum", self)

    def __bool__(self):
        raise TypeError("a traced value has no concrete value: Python `if` on it cannot be traced "
                        "(TensorFlow rewrites such code with AutoGraph, into tf.cond)")


class Graph:
    def __init__(self):
        self.ops, self.inputs, self.output = [], [], None


RUN = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "pow": lambda a, k: a ** k,
       "exp": lambda a: a.exp(), "tanh": lambda a: a.tanh(), "sum": lambda a: a.sum()}


def function(fn):
    """Trace fn once per input signature (shapes, dtypes), then replay the recorded ops."""
    cache = {}

    def wrapper(*args):
        key = tuple((tuple(a.shape), str(a.dtype)) for a in args)
        if key not in cache:
            g = Graph()
            g.inputs = [f"in{i}" for i in range(len(args))]
            g.output = fn(*[Tracer(g, n) for n in g.inputs]).name
            cache[key] = g
        g = cache[key]
        env = dict(zip(g.inputs, args))
        for op, ins, out in g.ops:                # replay: no Python body, just the list
            env[out] = RUN[op](*[env[i] if isinstance(i, str) else i for i in ins])
        return env[g.output]

    wrapper.graphs = cache
    return wrapper

# %% [markdown]
# A Python `print` inside the function is the tell-tale sign: it runs while **tracing**, not
# on every call (exactly what happens with a real `@tf.function`).

# %% id="tracer-demo" claims="C23"
@function
def g(x):
    print("  (running the Python body: tracing)")
    return (x ** 3 + 2 * x).tanh().sum()


for values in ([0.1, 0.2], [0.3, 0.4], [0.5, 0.6, 0.7]):
    print("call with", values)
    print("  ->", round(g(torch.tensor(values)).item(), 6))

print("\nsignatures traced:", len(g.graphs))
first_graph = next(iter(g.graphs.values()))
print("the graph recorded for shape (2,):")
for op, ins, out in first_graph.ops:
    print(f"  {out} = {op}({', '.join(map(str, ins))})")

# %% [markdown]
# The third call had a new shape, so it traced again (TensorFlow calls this *retracing*).
# The replayed graph runs real minitorch ops, so it is differentiable like any eager code,
# and it matches the eager function:

# %% id="tracer-grad" claims="C23"
xs = torch.tensor([0.1, 0.2], requires_grad=True)
g(xs).backward()
traced_grad = xs.grad.clone()

xs.grad = None
(xs ** 3 + 2 * xs).tanh().sum().backward()
print("traced :", traced_grad)
print("eager  :", xs.grad)
print("same   :", bool(torch.allclose(traced_grad, xs.grad)))

try:
    @function
    def relu_like(x):
        return x if x.sum() else x * 0        # data-dependent Python control flow
    relu_like(torch.tensor([1.0]))
except TypeError as e:
    print("\nTypeError:", e)

# %% [markdown]
# ## 6. Creating tensors: `tf.constant` / `tf.zeros` vs `minitorch.tensor` / `zeros`
#
# The other row of the seed's comparison table that touches this lesson. The TensorFlow
# column is described (no TensorFlow here); the minitorch column runs live.

# %% id="creation-table" claims="C22"
rows = [
    ("tf.constant([1, 2, 3])", "int32, immutable", "torch.tensor([1, 2, 3])", lambda: torch.tensor([1, 2, 3])),
    ("tf.constant([1., 2.])", "float32, immutable", "torch.tensor([1., 2.])", lambda: torch.tensor([1.0, 2.0])),
    ("tf.zeros([2, 3])", "shape as one list", "torch.zeros(2, 3)", lambda: torch.zeros(2, 3)),
    ("tf.ones([2])", "float32", "torch.ones(2)", lambda: torch.ones(2)),
    ("tf.range(4)", "int32", "torch.arange(4)", lambda: torch.arange(4)),
    ("tf.fill([2], 7.)", "float32", "torch.full((2,), 7.)", lambda: torch.full((2,), 7.0)),
    ("tf.random.normal([2])", "float32", "torch.randn(2)", lambda: torch.randn(2)),
    ("tf.Variable([1., 2.])", "mutable, watched", "torch.tensor([1., 2.], requires_grad=True)",
     lambda: torch.tensor([1.0, 2.0], requires_grad=True)),
]
_ = torch.manual_seed(0)
print(f"{'TensorFlow':24}{'(TF: dtype, kind)':20}{'minitorch':45}{'dtype':10}{'shape':8}requires_grad")
for tf_call, tf_note, ours, make in rows:
    t = make()
    print(f"{tf_call:24}{tf_note:20}{ours:45}{str(t.dtype).split('.')[-1]:10}"
          f"{str(list(t.shape)):8}{t.requires_grad}")

# %% [markdown]
# Two differences are worth remembering: Python integers become **int64** in PyTorch and
# **int32** in TensorFlow, and TensorFlow takes a shape as one list (`tf.zeros([2, 3])`)
# while PyTorch accepts both `zeros(2, 3)` and `zeros((2, 3))`. And the last row is this
# lesson in one line: in TensorFlow, a tensor you train is a different *kind* of object
# (a `tf.Variable`, watched by tapes); in PyTorch it is an ordinary tensor with a flag.

# %% [markdown]
# ### Checking against PyTorch
#
# With PyTorch installed, the PyTorch half of this lesson runs there too: the flag, `no_grad`,
# `autograd.grad` (what our tape is built on), and the creation calls of section 6.

# %% id="pytorch-check" tags=["nbval-ignore-output"]
compare_with_pytorch("""
def f(x):
    return x ** 3 + 2 * x

x = torch.tensor(2.0, requires_grad=True)
y = f(x)
x.requires_grad, y.grad_fn.name()
y.backward()
x.grad
plain = torch.tensor(2.0)
f(plain).requires_grad, f(plain).grad_fn
x = torch.tensor(2.0, requires_grad=True)
with torch.no_grad():
    quiet = f(x)
quiet.requires_grad
y = f(x)
torch.autograd.grad(y, [x], retain_graph=True)
torch.autograd.grad(y, [x])
torch.autograd.grad(y, [x])
[torch.tensor([1, 2, 3]).dtype, torch.zeros(2, 3).shape, torch.zeros((2, 3)).shape, torch.arange(4).dtype]
torch.full((2,), 7.0), torch.tensor([1.0, 2.0], requires_grad=True)
""")

# %% [markdown]
# ## 7. The model answer
#
# > **How does gradient tracking with PyTorch tensors differ from TensorFlow's?**
# >
# > **(1)** In PyTorch, tracking is a property of the **tensor**: `requires_grad=True` makes
# > every operation on it record a node into the computational graph, wherever that
# > operation runs. **(2)** In TensorFlow, tracking is a property of the **code**: operations
# > are recorded only while a `tf.GradientTape` context is active, and only for the tensors
# > it watches (trainable variables automatically). **(3)** So the same tensor, used the same
# > way, is recorded or not depending on where the line runs with a tape, but always with the
# > flag (opting out takes `no_grad()`). **(4)** Gradients come back differently:
# > `y.backward()` accumulates them into each leaf's `.grad`; `tape.gradient(y, x)` returns
# > them, and a tape answers once unless `persistent=True` (PyTorch: `retain_graph=True`).
# > **(5)** Both are eager by default: values are computed immediately while being recorded;
# > TensorFlow can additionally compile a traced graph with `@tf.function`. **(6)** Both are
# > reverse-mode automatic differentiation over the same kind of graph: as this lesson
# > shows, a tape can be built on a `requires_grad` engine in forty lines.
#
# Each sentence, checked:

# %% id="model-answer-proof" claims="C50 C19 C13"
def proves(n, claim, ok):
    print(f"({n}) {claim:70} {'proved' if ok else 'FAILED'}")
    assert ok


a = torch.tensor(2.0, requires_grad=True)
b = a * 3                                          # outside any context
with torch.enable_grad():
    c = a * 3                                      # inside some other block
proves(1, "flag: every op on the tensor is recorded, wherever it runs",
       b.grad_fn is not None and c.grad_fn is not None)

t = torch.tensor(2.0)
before = t * 3
with GradientTape() as tape:
    tape.watch(t)
    during = t * 3
    unwatched = torch.tensor(1.0) * 3
after = t * 3
proves(2, "tape: recorded only inside the context, only for watched tensors",
       during.grad_fn is not None and before.grad_fn is None and unwatched.grad_fn is None)
proves(3, "tape: same tensor, same op, recorded or not by where it runs",
       during.grad_fn is not None and after.grad_fn is None)
with torch.no_grad():
    opted_out = a * 3
proves(3, "flag: opting out takes no_grad()", opted_out.grad_fn is None and b.grad_fn is not None)

a.grad = None
(a * a).backward()
(a * a).backward()
acc = a.grad.item()
t2 = torch.tensor(2.0)
with GradientTape() as tape:
    tape.watch(t2)
    y2 = t2 * t2
returned = tape.gradient(y2, t2).item()
try:
    tape.gradient(y2, t2)
    once = False
except RuntimeError:
    once = True
proves(4, "backward accumulates into .grad (4 + 4); tape returns (4)",
       acc == 8.0 and returned == 4.0 and t2.grad is None)
proves(4, "a non-persistent tape answers once", once)

e = torch.tensor(1.0, requires_grad=True).exp()
with GradientTape() as tape:
    u = torch.tensor(1.0)
    tape.watch(u)
    v = u.exp()
    eager_inside = round(v.item(), 4)
proves(5, "both eager: values exist at once", round(e.item(), 4) == eager_inside == 2.7183)
proves(5, "graph compilation: traced once, replayed after", len(g.graphs) == 2)
proves(6, "same engine: the tape's gradient equals backward's", returned == 4.0 and acc / 2 == returned)

# %% [markdown]
# ## Summary
#
# - PyTorch: **the tensor decides** (`requires_grad`); TensorFlow: **the context decides**
#   (`GradientTape`, `watch`). Both record the same kind of graph and run the same
#   reverse-mode backward pass.
# - A tape is a thin layer over a `requires_grad` engine: turn the flag on for watched
#   tensors while the context is active, ask the engine for gradients, return them.
# - Both are eager; `@tf.function` adds optional tracing into a replayable graph, which our
#   tracer showed: the Python body runs once per input signature.
