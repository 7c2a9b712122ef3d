# %% [markdown]
# # 09 · Autograd from scratch
#
# Lesson 03 met the flag `requires_grad`. This lesson opens the box behind it. Autograd is
# two ideas, and both fit on one screen:
#
# 1. **record**: every operation on a value that needs a gradient remembers its inputs and
#    how to send a gradient back to them (that record is the *computational graph*);
# 2. **replay backwards**: starting from the output, visit the graph in reverse topological
#    order and apply the chain rule at each node.
#
# We build a scalar `Value` class (in the style of micrograd), check it against finite
# differences, then run the same expression through `minitorch` with `requires_grad=True`,
# read the source of its operations, and draw its graph.

# %% id="setup"
import math

import minitorch as torch
from minitorch_course import draw
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. A scalar `Value` that records where it came from
#
# Each operation creates a new `Value` holding three things: the result (`data`), its
# parents (`_prev`), and a small function `_backward` that, given the gradient of the
# result, adds the right share into each parent's `.grad`. Read each method top to bottom:
# the forward line and its derivative stand side by side.

# %% id="value-class"
class Value:
    def __init__(self, data, _prev=(), op=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = _prev            # the Values this one was computed from
        self._op = op                 # for printing and drawing
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():              # d(a+b)/da = 1, d(a+b)/db = 1
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():              # d(a*b)/da = b, d(a*b)/db = a
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():              # d(e^a)/da = e^a, which is the output itself
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():              # d(tanh a)/da = 1 - tanh(a)^2
            self.grad += (1 - t * t) * out.grad
        out._backward = _backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self):
        order = topological_order(self)
        for v in order:
            v.grad = 0.0
        self.grad = 1.0               # dy/dy = 1
        for v in reversed(order):     # outputs before inputs
            v._backward()

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"


def topological_order(root):
    """Every Value reachable from root, each one after all of its parents."""
    order, seen = [], set()

    def visit(v):
        if id(v) not in seen:
            seen.add(id(v))
            for p in v._prev:
                visit(p)
            order.append(v)
    visit(root)
    return order

# %% [markdown]
# Our running example is `y = tanh(a·b + exp(a))`. Note that `a` is used **twice**, so
# gradient reaches it along two paths; that is why every `_backward` uses `+=`, never `=`.

# %% id="value-example"
def f(a, b):
    return (a * b + a.exp()).tanh()


a, b = Value(0.5), Value(-1.5)
y = f(a, b)
y.backward()
print("y =", y)
print("a =", a)
print("b =", b)
print("\ntopological order (inputs first):")
for v in topological_order(y):
    print(f"  {v._op or 'leaf':5} data={v.data:+.4f}")

# %% [markdown]
# ## 2. Is it right? Finite differences
#
# The definition of a derivative gives an independent check:
# `df/da ≈ (f(a+h) - f(a-h)) / 2h`. It needs two forward passes *per input*, which is why
# nobody trains with it, but it is the perfect referee.

# %% id="finite-differences"
def numeric_grad(fn, xs, h=1e-6):
    grads = []
    for i in range(len(xs)):
        up = [x + (h if j == i else 0) for j, x in enumerate(xs)]
        down = [x - (h if j == i else 0) for j, x in enumerate(xs)]
        grads.append((fn(*map(Value, up)).data - fn(*map(Value, down)).data) / (2 * h))
    return grads


num_a, num_b = numeric_grad(f, [0.5, -1.5])
print(f"dy/da  backward {a.grad:+.8f}   finite differences {num_a:+.8f}")
print(f"dy/db  backward {b.grad:+.8f}   finite differences {num_b:+.8f}")
print("agree to 1e-6:", abs(a.grad - num_a) < 1e-6 and abs(b.grad - num_b) < 1e-6)

# %% [markdown]
# ## 3. The same thing in minitorch: `requires_grad=True`
#
# A 0-d tensor plays the part of a `Value`. Setting `requires_grad=True` is what switches
# recording on: every operation on such a tensor produces a result with a `grad_fn`, the
# node that knows how to send the gradient back. Without the flag nothing is recorded.

# %% id="minitorch-requires-grad" claims="C02 C12"
ta = torch.tensor(0.5, requires_grad=True)
tb = torch.tensor(-1.5, requires_grad=True)
ty = (ta * tb + ta.exp()).tanh()
print("ty:", ty)
print("ty.requires_grad:", ty.requires_grad, "| ty.grad_fn:", ty.grad_fn.name())

ty.backward()
print(f"ta.grad = {ta.grad.item():+.6f}   (Value: {a.grad:+.6f})")
print(f"tb.grad = {tb.grad.item():+.6f}   (Value: {b.grad:+.6f})")

plain = torch.tensor(0.5)                     # no flag: nothing is recorded
out = (plain * tb.detach() + plain.exp()).tanh()
print("\nwithout requires_grad -> out.requires_grad:", out.requires_grad, "| out.grad_fn:", out.grad_fn)

# %% [markdown]
# minitorch computes in float32 by default, so it agrees with our float64 `Value` to about
# seven digits. With `dtype=minitorch.float64` it agrees to the last few:

# %% id="minitorch-float64" claims="C12"
ta64 = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
tb64 = torch.tensor(-1.5, dtype=torch.float64, requires_grad=True)
(ta64 * tb64 + ta64.exp()).tanh().backward()
print(f"|difference| a: {abs(ta64.grad.item() - a.grad):.1e}   b: {abs(tb64.grad.item() - b.grad):.1e}")

# %% [markdown]
# The same lines in PyTorch, when it is installed: the same values, gradients and node names.

# %% id="pytorch-compare" tags=["nbval-ignore-output"]
compare_with_pytorch("""
ta = torch.tensor(0.5, requires_grad=True)
tb = torch.tensor(-1.5, requires_grad=True)
ty = (ta * tb + ta.exp()).tanh()
ty, ty.requires_grad, ty.grad_fn.name()
ty.backward()
ta.grad, tb.grad
plain = torch.tensor(0.5)
out = (plain * tb.detach() + plain.exp()).tanh()
out.requires_grad, out.grad_fn
ta64 = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
tb64 = torch.tensor(-1.5, dtype=torch.float64, requires_grad=True)
(ta64 * tb64 + ta64.exp()).tanh().backward()
ta64.grad, tb64.grad
z = (ta * tb + ta.exp()).tanh()
[n.name() for n, _ in z.grad_fn.next_functions]
[type(n).__name__ for n, _ in z.grad_fn.next_functions[0][0].next_functions]
leaf_node = z.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
leaf_node.variable is ta, type(leaf_node).__name__, leaf_node.name()
""")

# %% [markdown]
# ## 4. The operations, in minitorch's source
#
# minitorch's operations are `Function`s: `forward` and `backward` side by side, exactly like
# our `_backward` closures. `Mul` saves its two inputs for backward; `Exp` saves its
# *output*, because the derivative of `exp` is `exp` itself.

# %% id="source-mul-exp" tags=["nbval-ignore-output"]
from minitorch._ops import pointwise

show_source(pointwise.Mul)
show_source(pointwise.Exp)

# %% [markdown]
# The graph is made of the nodes these Functions create: `ty.grad_fn` is a `TanhBackward0`
# node, and each node's `next_functions` lists `(node, output_nr)` pairs pointing at the
# nodes that produced its inputs. A leaf with `requires_grad=True` gets an
# `AccumulateGrad` node, whose job is to add the gradient into `.grad`; it holds the leaf in
# `.variable`. (In PyTorch its `name()` is the full C++ name, `torch::autograd::AccumulateGrad`,
# and its class is `AccumulateGrad`; minitorch follows.)

# %% id="walk-next-functions" claims="C12"
x = torch.tensor(0.5, requires_grad=True)
w = torch.tensor(-1.5, requires_grad=True)
z = (x * w + x.exp()).tanh()


def print_graph(node, indent=0):
    label = node.name()
    if hasattr(node, "variable"):  # an AccumulateGrad node: it holds its leaf
        label += "  (leaf " + ("x" if node.variable is x else "w") + ")"
    print("  " * indent + label)
    for child, _ in node.next_functions:
        if child is not None:
            print_graph(child, indent + 1)


print_graph(z.grad_fn)

# %% [markdown]
# ## 5. A picture of the graph, without Graphviz
#
# The drawing needs no system tools: it walks `next_functions` once to collect nodes and
# edges, gives each node a *depth* (its longest distance from the output), places nodes of the
# same depth in one row, and draws boxes and arrows with matplotlib. Arrows point the way the
# gradient flows: from the output down to the leaves. (The walk and the drawing are in the
# folded cell below the picture.)

# %% id="graph-picture" claims="C12"
nodes, edges = draw.autograd_graph(z.grad_fn, names={id(x): "x", id(w): "w"},
                                   title="autograd graph of z = tanh(x*w + exp(x))")
print(len(nodes), "nodes,", len(edges), "edges")
leaf = {id(x): "x", id(w): "w"}
for parent, child in edges:
    target = type(child).__name__ + (f" ({leaf[id(child.variable)]})" if draw.is_leaf_node(child) else "")
    print(f"  {type(parent).__name__:15} -> {target}")

# %% id="graph-picture-source" tags=["nbval-ignore-output"]
show_source(draw.graph_layout)  # the walk: nodes, edges, depths
show_source(draw.autograd_graph)  # the drawing

# %% [markdown]
# Two arrows end at `AccumulateGrad (x)`: `x` was used twice, and the engine adds the two
# gradients, just as our `+=` did. A larger expression, a small two-input neuron, draws the
# same way:

# %% id="graph-neuron"
x1 = torch.tensor(2.0, requires_grad=True)
x2 = torch.tensor(0.0, requires_grad=True)
w1 = torch.tensor(-3.0, requires_grad=True)
w2 = torch.tensor(1.0, requires_grad=True)
bias = torch.tensor(6.8813735870195432, requires_grad=True)
o = (x1 * w1 + x2 * w2 + bias).tanh()
_ = draw.autograd_graph(o.grad_fn, names={id(x1): "x1", id(x2): "x2", id(w1): "w1", id(w2): "w2", id(bias): "b"},
                        title="o = tanh(x1*w1 + x2*w2 + b)")
o.backward()
print("grads:", {n: round(t.grad.item(), 4) for n, t in [("x1", x1), ("x2", x2), ("w1", w1), ("w2", w2), ("b", bias)]})

# %% [markdown]
# ## 6. How minitorch orders the backward pass
#
# Our `Value.backward` sorts with a depth-first search. minitorch's engine does the same job
# by counting: it first counts how many edges point at each node, then runs a node only when
# every node that feeds it a gradient has run (its count reached zero). Here is the counting
# step:

# %% id="source-engine-collect" tags=["nbval-ignore-output"]
from minitorch.autograd import engine

show_source(engine._collect)

# %% [markdown]
# ## Summary
#
# - `requires_grad=True` makes every operation on a tensor record a node (`grad_fn`); the
#   nodes, linked by `next_functions`, are the computational graph.
# - `backward()` visits the graph outputs-first (reverse topological order) and applies each
#   node's local derivative; gradients from several paths are **added**.
# - Finite differences are a slow but independent check of any backward formula.
#
# Next, lesson 10 writes a backward for whole tensors: a custom `autograd.Function`,
# gradient checking, and the gradient of broadcasting.
