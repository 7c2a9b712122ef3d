# %% [markdown]
# # 10 · Autograd for tensors: custom Functions, gradcheck, broadcasting, weights
#
# Lesson 09 differentiated scalars. Real models differentiate whole tensors, and minitorch
# (like PyTorch) lets you add your own differentiable operation with the same API its
# built-in operations use: `minitorch.autograd.Function`. This lesson:
#
# 1. writes a custom op (Swish) with `ctx.save_for_backward`, `ctx.saved_tensors` and
#    `ctx.needs_input_grad`, and checks it with `gradcheck`;
# 2. writes a clamp with a *straight-through* gradient, a deliberate "wrong" gradient that
#    real models use;
# 3. follows the gradient of a broadcast (a bias added to a batch) to the one place in the
#    engine that sums it back to the bias's shape;
# 4. treats model weights as what they are, tensors with `requires_grad=True`, and shows why
#    the flag belongs only on tensors that need gradients.

# %% id="setup"
import minitorch as torch
from minitorch.autograd import Function, gradcheck
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. A custom operation: Swish
#
# `swish(x, β) = x · σ(βx)`, where σ is the sigmoid. Its derivatives, with `s = σ(βx)`:
#
# - `∂/∂x = s + βx · s(1 - s)`
# - `∂/∂β = x² · s(1 - s)`
#
# A `Function` has a static `forward(ctx, ...)` and a static `backward(ctx, grad_output)`.
# `ctx` is a scratch object shared by the two: `forward` stores what `backward` will need
# with `ctx.save_for_backward(...)`, and `backward` gets it back from `ctx.saved_tensors`.
# `ctx.needs_input_grad` says which inputs want a gradient, so backward can skip the rest.
# `backward` returns one gradient per input of `forward`, each the shape of that input.

# %% id="swish-function" claims="C02"
class Swish(Function):
    @staticmethod
    def forward(ctx, x, beta):
        s = (beta * x).sigmoid()
        ctx.save_for_backward(x, beta, s)
        return x * s

    @staticmethod
    def backward(ctx, grad_out):
        x, beta, s = ctx.saved_tensors
        ds = s * (1 - s)
        grad_x = grad_out * (s + beta * x * ds) if ctx.needs_input_grad[0] else None
        grad_beta = (grad_out * x * x * ds).sum() if ctx.needs_input_grad[1] else None
        print("  backward ran; needs_input_grad =", ctx.needs_input_grad)
        return grad_x, grad_beta


x = torch.tensor([-2.0, -0.5, 0.0, 1.0, 3.0], requires_grad=True)
beta = torch.tensor(1.0)                  # a constant: no gradient wanted
y = Swish.apply(x, beta)
print("y       :", y)
print("grad_fn :", y.grad_fn.name())
y.sum().backward()
print("x.grad  :", x.grad)
print("beta.grad:", beta.grad)

# %% [markdown]
# `beta` did not require grad, so `needs_input_grad[1]` was `False` and backward skipped
# its (costly) gradient. Make `beta` learnable and both are computed:

# %% id="swish-both"
beta = torch.tensor(1.0, requires_grad=True)
Swish.apply(x, beta).sum().backward()
print("beta.grad:", round(beta.grad.item(), 6))

# %% [markdown]
# ### Checking a backward: `gradcheck`
#
# `gradcheck` compares the Jacobian your backward implies with one built by finite
# differences (lesson 09's referee, for every element). Use **float64**: in float32 the
# finite-difference error alone is larger than the tolerance. Here a quiet copy of Swish
# (no print) is checked, then a version with a typical bug (a forgotten factor `β`):

# %% id="gradcheck-swish"
class QuietSwish(Swish):
    @staticmethod
    def backward(ctx, grad_out):
        x, beta, s = ctx.saved_tensors
        ds = s * (1 - s)
        return grad_out * (s + beta * x * ds), (grad_out * x * x * ds).sum()


class BuggySwish(Swish):
    @staticmethod
    def backward(ctx, grad_out):
        x, beta, s = ctx.saved_tensors
        ds = s * (1 - s)
        return grad_out * (s + x * ds), (grad_out * x * x * ds).sum()   # forgot beta


xs = torch.randn(6, dtype=torch.float64, requires_grad=True)
b64 = torch.tensor(1.7, dtype=torch.float64, requires_grad=True)
print("QuietSwish passes gradcheck:", gradcheck(QuietSwish.apply, (xs, b64)))
print("BuggySwish passes gradcheck:", gradcheck(BuggySwish.apply, (xs, b64), raise_exception=False))
try:
    gradcheck(BuggySwish.apply, (xs, b64))
except RuntimeError as e:
    print("\nRuntimeError:", e)

# %% [markdown]
# A `Function` written for minitorch is a `torch.autograd.Function` for PyTorch, line for
# line. With PyTorch installed, the same class runs on both (on fixed inputs):

# %% id="pytorch-swish" tags=["nbval-ignore-output"]
compare_with_pytorch("""
class Swish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, beta):
        s = (beta * x).sigmoid()
        ctx.save_for_backward(x, beta, s)
        return x * s

    @staticmethod
    def backward(ctx, grad_out):
        x, beta, s = ctx.saved_tensors
        ds = s * (1 - s)
        grad_x = grad_out * (s + beta * x * ds) if ctx.needs_input_grad[0] else None
        grad_beta = (grad_out * x * x * ds).sum() if ctx.needs_input_grad[1] else None
        return grad_x, grad_beta

x = torch.tensor([-2.0, -0.5, 0.0, 1.0, 3.0], requires_grad=True)
y = Swish.apply(x, torch.tensor(1.0))
y, y.grad_fn.name()
y.sum().backward()
x.grad
xs = torch.linspace(-2, 2, 6, dtype=torch.float64, requires_grad=True)
b64 = torch.tensor(1.7, dtype=torch.float64, requires_grad=True)
torch.autograd.gradcheck(Swish.apply, (xs, b64))
""")

# %% [markdown]
# Where does `ctx` keep saved tensors? In the graph node itself: `ctx` **is** the
# `grad_fn` node of the output. Saving records the tensor's version (lesson 06), and reading
# `saved_tensors` after backward freed them gives the "backward a second time" error
# (lesson 11):

# %% id="source-save" tags=["nbval-ignore-output"]
from minitorch.autograd.function import Node

show_source(Node.save_for_backward)
show_source(Node.saved_tensors.fget)

# %% [markdown]
# ## 2. A straight-through clamp
#
# Rounding and clamping have zero gradient almost everywhere, which stops learning. A
# common trick (quantisation-aware training, binary networks) is the **straight-through
# estimator**: do the clamp in forward, but let the gradient pass through backward as if the
# op were the identity. It is deliberately not the true derivative, so gradcheck would (and
# should) reject it; we compare it with the real `clamp` instead.

# %% id="ste-clamp"
class ClampST(Function):
    @staticmethod
    def forward(ctx, x, lo, hi):           # lo and hi are plain numbers: no gradient for them
        return x.clamp(lo, hi)

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out, None, None         # straight through


x = torch.tensor([-3.0, -0.5, 0.5, 3.0], requires_grad=True)
ClampST.apply(x, -1.0, 1.0).sum().backward()
print("straight-through grad:", x.grad)

x.grad = None
x.clamp(-1.0, 1.0).sum().backward()
print("true clamp grad      :", x.grad)

# %% [markdown]
# ## 3. Broadcasting and its gradient
#
# A bias of shape `(3,)` added to a batch of shape `(4, 3)` is *broadcast*: the same three
# numbers are used in every row. The gradient reaching the sum has shape `(4, 3)`, but the
# bias has shape `(3,)`. Since the bias contributed to every row, its gradient is the
# **sum over the rows**:

# %% id="bias-broadcast" claims="C29"
_ = torch.manual_seed(0)
X = torch.randn(4, 3)                               # a batch of 4 examples
bias = torch.zeros(3, requires_grad=True)
out = X + bias                                      # (4, 3) + (3,) -> (4, 3)
upstream = torch.arange(12.0).reshape(4, 3)         # some gradient from later layers
out.backward(upstream)
print("out.shape :", list(out.shape), " bias.shape:", list(bias.shape))
print("bias.grad :", bias.grad)
print("upstream summed over the batch:", upstream.sum(0))

# %% [markdown]
# Every broadcasting op (add, mul, where, ...) would need that reduction. minitorch does it
# in **one place**: after each node's backward, the engine reduces every input gradient to
# the shape the input had, with `_sum_to`. It sums the leading dimensions the input did not
# have, and the dimensions where the input had size 1:

# %% id="source-sum-to" tags=["nbval-ignore-output"]
from minitorch.autograd import engine

show_source(engine._sum_to)

# %% [markdown]
# Because the engine does it, a custom Function may even return the unreduced gradient.
# This `AddBias` hands back the full `(4, 3)` gradient for a `(3,)` bias, and still gets a
# correct `(3,)` `bias.grad`; a gradient of an incompatible shape is refused:

# %% id="engine-reduces"
class AddBias(Function):
    @staticmethod
    def forward(ctx, x, b):
        return x + b

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out, grad_out                   # the second is (4, 3), not (3,)


bias = torch.zeros(3, requires_grad=True)
AddBias.apply(X, bias).backward(upstream)
print("bias.grad:", bias.grad, "| shape", list(bias.grad.shape))

print("_sum_to((4,3) -> (1,3)):", list(engine._sum_to(upstream, torch.Size([1, 3]), None, 0).shape))


class WrongShape(Function):
    @staticmethod
    def forward(ctx, b):
        return b * 2

    @staticmethod
    def backward(ctx, grad_out):
        return torch.ones(5)                        # the input had shape (3,)


try:
    WrongShape.apply(torch.zeros(3, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# ## 4. Model weights are tensors with `requires_grad=True`
#
# A layer's weights are ordinary tensors with the flag on; the data flowing in is not.
# Here is a two-layer network by hand, and then `minitorch.nn.Linear`, which does the same:

# %% id="weights-flag" claims="C29 C42"
_ = torch.manual_seed(0)
W1 = torch.randn(3, 8, requires_grad=True)
b1 = torch.zeros(8, requires_grad=True)
W2 = torch.randn(8, 1, requires_grad=True)
data = torch.randn(16, 3)                           # inputs: no gradient wanted
target = torch.randn(16, 1)

loss = (((data @ W1 + b1).relu() @ W2 - target) ** 2).mean()
loss.backward()
for name, t in [("data", data), ("W1", W1), ("b1", b1), ("W2", W2)]:
    print(f"{name:5} requires_grad={str(t.requires_grad):5} grad shape: "
          f"{list(t.grad.shape) if t.grad is not None else None}")

layer = torch.nn.Linear(3, 8)
print("\nnn.Linear:", [(n, list(p.shape), p.requires_grad) for n, p in layer.named_parameters()])

# %% [markdown]
# ### Set the flag only where it is needed
#
# Every operation touching a flagged tensor creates a node and keeps what its backward
# needs. When fine-tuning, one *freezes* the layers that should not change by turning the
# flag off. Frozen tensors get no `.grad`, and the part of the network that only involves
# them is not recorded at all. Count the nodes in the graph:

# %% id="freeze" claims="C45 C42"
def graph_nodes(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        stack.extend(child for child, _ in n.next_functions)
    return seen


def forward():
    return (((data @ W1 + b1).relu() @ W2 - target) ** 2).mean()


for p in (W1, b1, W2):
    p.grad = None
loss = forward()
print("all trainable :", len(graph_nodes(loss)), "nodes:", sorted(n.name() for n in graph_nodes(loss)))

W1.requires_grad_(False)                            # freeze the first layer
b1.requires_grad_(False)
loss = forward()
print("layer 1 frozen:", len(graph_nodes(loss)), "nodes:", sorted(n.name() for n in graph_nodes(loss)))
loss.backward()
print("W1.grad:", W1.grad, "| b1.grad:", b1.grad, "| W2.grad shape:", list(W2.grad.shape))

# %% [markdown]
# With layer 1 frozen, its matmul, add and relu run but record nothing, and no tensor is
# kept for their backward: less memory, less work. The same reasoning is why inputs and
# targets never get the flag, and why evaluation runs under `no_grad()` (lesson 11).

# %% [markdown]
# ## Summary
#
# - A custom op is a `Function`: `forward` and `backward` side by side; `ctx` carries
#   `save_for_backward` / `saved_tensors` and `needs_input_grad` between them.
# - `gradcheck` in float64 is the test for every backward you write.
# - Gradients of broadcast inputs are summed back to the input's shape, in one place of the
#   engine (`_sum_to`).
# - Weights are tensors with `requires_grad=True`; inputs and frozen weights are not, and
#   cost no graph.
