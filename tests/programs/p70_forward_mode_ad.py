# The PyTorch tutorial "Forward-mode Automatic Differentiation (Beta)": dual tensors made with
# fwAD.make_dual inside `with fwAD.dual_level()`, unpack_dual(...).tangent (the tangent as-is, or a
# copy in the primal's layout), tangents dropped when the level ends; forward AD through an
# nn.Linear whose parameters are replaced by dual tensors (delattr / setattr) and through
# torch.func.functional_call; a custom Function with a `jvp` staticmethod (ctx.result, and
# ctx.save_for_forward), checked with gradcheck(check_forward_ad=True); the functional API
# (torch.func.jvp, with functools.partial); and what a learner tries next: printing a dual
# tensor, views and in-place ops on it, forward AD under no_grad, the errors.
import functools

import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
from torch.func import functional_call

torch.manual_seed(0)

primal = torch.randn(4, 4)
tangent = torch.randn(4, 4)


def fn(x, y):
    return x ** 2 + y ** 2


# All forward AD computation must be performed in the context of a ``dual_level`` context.
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    print("tangent is used as-is:", fwAD.unpack_dual(dual_input).tangent is tangent)

    # a tangent laid out differently from the primal is copied
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
    print("a transposed tangent is copied:", fwAD.unpack_dual(dual_input_alt).tangent is not tangent)

    # tensors without a tangent count as having a zero one
    plain_tensor = torch.randn(4, 4)
    dual_output = fn(dual_input, plain_tensor)

    jvp = fwAD.unpack_dual(dual_output).tangent
    print("jvp:\n", jvp)
    print("expected 2 * primal * tangent:", torch.allclose(jvp, 2 * primal * tangent))
    print("dual_output:", dual_output[0])
    print(fwAD.unpack_dual(dual_output[0, :2]))

assert fwAD.unpack_dual(dual_output).tangent is None
print("after the level:", fwAD.unpack_dual(dual_output).tangent)
print(dual_output[0])

# ---- Usage with Modules -------------------------------------------------------------------------
model = nn.Linear(5, 5)
input = torch.randn(16, 5)

params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}

with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))

    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent
    print("out:", out.shape, out.requires_grad, type(out.grad_fn).__name__)
print("jvp through the Linear:\n", jvp[:3])
print("by hand:", torch.allclose(jvp, input @ tangents["weight"].T + tangents["bias"], atol=1e-6))

# ---- Using the functional Module API --------------------------------------------------------------
model = nn.Linear(5, 5)

dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        # Using the same ``tangents`` from the above section
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp2 = fwAD.unpack_dual(out).tangent

print("functional_call gives the same jvp:", torch.allclose(jvp, jvp2))


# ---- Custom autograd Function ---------------------------------------------------------------------
class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        # Tensors stored in ``ctx`` can be used in the subsequent forward grad computation.
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        # If the tensor stored in ``ctx`` will not also be used in the backward pass,
        # one can manually free it using ``del``
        del ctx.result
        return gO


fn = Fn.apply

primal = torch.randn(3, 3, dtype=torch.double, requires_grad=True)
tangent = torch.randn(3, 3, dtype=torch.double)

with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
print("custom jvp:\n", jvp)
print("= tangent * exp(primal):", torch.allclose(jvp, tangent * primal.detach().exp()))

# gradcheck with check_forward_ad=True, and the backward checks off (Fn has no backward)
print("gradcheck:", torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True, check_backward_ad=False,
                                             check_undefined_grad=False, check_batched_grad=False))


class MulAdd(torch.autograd.Function):
    """x * y + x, with both derivatives; save_for_forward keeps the inputs for jvp."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)
        return x * y + x

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * (y + 1), g * x

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return x_t * (y + 1) + x * y_t


x = torch.randn(3, dtype=torch.double, requires_grad=True)
y = torch.randn(3, dtype=torch.double, requires_grad=True)
print("gradcheck both modes:", torch.autograd.gradcheck(MulAdd.apply, (x, y), check_forward_ad=True))
with fwAD.dual_level():
    out = MulAdd.apply(fwAD.make_dual(x, torch.ones(3, dtype=torch.double)), y)
    print(out)
    print("y had no tangent: it counts as zeros:", fwAD.unpack_dual(out).tangent)


class NoJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


with fwAD.dual_level():
    try:
        NoJvp.apply(fwAD.make_dual(torch.ones(2), torch.ones(2)))
    except NotImplementedError as e:
        print("NotImplementedError:", e)

# ---- Functional API -------------------------------------------------------------------------------
primal0 = torch.randn(4, 4)
tangent0 = torch.randn(4, 4)
primal1 = torch.randn(4, 4)
tangent1 = torch.randn(4, 4)


def fn(x, y):
    return x ** 2 + y ** 2


primal_out, tangent_out = torch.func.jvp(fn, (primal0, primal1), (tangent0, tangent1))
print("func.jvp:", tangent_out[0])
with fwAD.dual_level():
    same = fwAD.unpack_dual(fn(fwAD.make_dual(primal0, tangent0), fwAD.make_dual(primal1, tangent1))).tangent
print("dual tensors give the same:", torch.allclose(same, tangent_out))

primal = torch.randn(4, 4)
tangent = torch.randn(4, 4)
y = torch.randn(4, 4)
new_fn = functools.partial(fn, y=y)
primal_out, tangent_out = torch.func.jvp(new_fn, (primal,), (tangent,))
print("partial:", tangent_out[1])

# ---- what a learner tries next ----------------------------------------------------------------------
x = torch.tensor([1.0, 2.0, 3.0])
t = torch.tensor([1.0, 0.0, 0.0])
with fwAD.dual_level() as level:
    print("level:", level)
    d = fwAD.make_dual(x, t)
    print(d)
    print(d * 2, d.requires_grad)
    s = (d.sin() * d).sum()
    print(s)
    print("d/dx0 of sum(sin(x) * x):", fwAD.unpack_dual(s).tangent.item(),
          "by hand:", (torch.cos(x[0]) * x[0] + torch.sin(x[0])).item())
    v = d[1:]  # a view carries the matching part of the tangent
    print("view:", fwAD.unpack_dual(v).tangent)
    w = d.clone()
    w.mul_(3)  # in-place ops update the tangent too
    print("after mul_:", fwAD.unpack_dual(w).tangent)
    buf = torch.zeros(5)
    buf[1:4] = d  # writing a dual tensor into a plain one gives it a tangent
    print("written into zeros:", fwAD.unpack_dual(buf).tangent)
    with torch.no_grad():  # forward AD does not depend on grad mode
        print("under no_grad:", fwAD.unpack_dual(torch.tanh(d)).tangent)
    print("detach drops it:", fwAD.unpack_dual(d.detach()).tangent)
    print(fwAD.unpack_dual(torch.softmax(d, 0)).tangent)
    print(fwAD.unpack_dual(torch.stack([d, 2 * d]).max(dim=0).values).tangent)
    print(fwAD.unpack_dual(torch.nn.functional.mse_loss(d, torch.zeros(3))).tangent)
    try:
        with fwAD.dual_level():
            pass
    except RuntimeError as e:
        print("RuntimeError:", e)
    for bad in (lambda: fwAD.make_dual(x, torch.ones(4)), lambda: fwAD.make_dual(d, t),
                lambda: fwAD.make_dual(torch.arange(3), t)):
        try:
            bad()
        except (RuntimeError, ValueError) as e:
            print(type(e).__name__ + ":", e)
try:
    fwAD.make_dual(x, t)
except RuntimeError as e:
    print("RuntimeError:", e)
print(fwAD.unpack_dual(d))

# backward through dual tensors still gives ordinary gradients
w = torch.randn(3, requires_grad=True)
with fwAD.dual_level():
    dw = fwAD.make_dual(w, torch.ones(3))
    loss = (dw * dw).sum()
    print(loss)
    loss.backward()
print("w.grad == 2 * w:", torch.allclose(w.grad, 2 * w))
