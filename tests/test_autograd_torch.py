"""Autograd, differentially against PyTorch: the same program runs in both libraries and the
values, gradients, second derivatives, grad_fn names and error messages must agree.

Skipped (visibly) when PyTorch is not installed; `make test` needs no PyTorch.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

import minitorch  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from test_autograd_gradcheck import CASES, GRADGRAD_CASES, make_inputs  # noqa: E402

pytestmark = pytest.mark.torch
LIBS = {"minitorch": minitorch, "torch": torch}


def _np(t):
    return None if t is None else t.detach().cpu().numpy(force=True).copy()  # force: torch's ZeroTensor


def _outs(out):
    return (out,) if isinstance(out, (minitorch.Tensor, torch.Tensor)) else tuple(out)


def _weights(shape, k):
    """Fixed weights per output element (the same in both libraries), so every element's
    gradient path counts, not just their sum."""
    n = int(np.prod(shape))
    return np.linspace(-1.0, 2.0, n).reshape(shape) + k


def _run(lib, case, layout, second_order=False):
    xs = make_inputs(lib, case, layout)
    outs = _outs(case.fn(lib, *xs))
    loss = sum((o.double() * lib.tensor(_weights(tuple(o.shape), k))).sum() for k, o in enumerate(outs))
    grads = lib.autograd.grad(loss, xs, create_graph=second_order, allow_unused=True)
    res = {"out": [_np(o) for o in outs], "grad": [_np(g) for g in grads],
           "out_dtype": [str(o.dtype).split(".")[-1] for o in outs]}
    if second_order:
        vs = [lib.tensor(_weights(tuple(x.shape), 0.5)) for x in xs]
        dot = sum((g * v).sum() for g, v in zip(grads, vs) if g is not None)
        hv = lib.autograd.grad(dot, xs, allow_unused=True) if getattr(dot, "requires_grad", False) else [None] * len(xs)
        res["hvp"] = [_np(h) for h in hv]
    return res


def _close(a, b, what, rtol=1e-7, atol=1e-9):
    assert (a is None) == (b is None), f"{what}: minitorch gives {a}, torch gives {b}"
    if a is None:
        return
    assert a.shape == b.shape, f"{what}: shape {a.shape} != torch's {b.shape}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


CASE_LAYOUTS = [pytest.param(c, lay, id=f"{c.name}-{lay}") for c in CASES for lay in c.layouts]


@pytest.mark.parametrize("case, layout", CASE_LAYOUTS)
def test_values_and_gradients_match_torch(case, layout):
    mine, ref = _run(minitorch, case, layout), _run(torch, case, layout)
    assert mine["out_dtype"] == ref["out_dtype"]
    tol = {"rtol": 1e-5, "atol": 1e-6} if "float32" in ref["out_dtype"] else {}
    for k, (a, b) in enumerate(zip(mine["out"], ref["out"])):
        _close(a, b, f"{case.name}: output {k}", **tol)
    for k, (a, b) in enumerate(zip(mine["grad"], ref["grad"])):
        _close(a, b, f"{case.name}: gradient of input {k}", **tol)


@pytest.mark.parametrize("case", GRADGRAD_CASES, ids=[c.name for c in GRADGRAD_CASES])
def test_hessian_vector_products_match_torch(case):
    try:
        ref = _run(torch, case, "contiguous", True)
    except NotImplementedError as e:  # e.g. cdist: PyTorch has no second derivative (gradgradcheck covers ours)
        pytest.skip(f"PyTorch: {e}")
    mine = _run(minitorch, case, "contiguous", True)
    for k, (a, b) in enumerate(zip(mine["hvp"], ref["hvp"])):
        if b is not None and a is None:
            a = np.zeros_like(b)  # a linear op: no second-order graph at all here, zeros in torch
        if a is not None and b is None:
            b = np.zeros_like(a)
        _close(a, b, f"{case.name}: Hessian-vector product, input {k}")


# ---- grad_fn names ----------------------------------------------------------------------

NAMED = {
    "add": lambda L, x, m: x + 1, "sub": lambda L, x, m: x - m, "mul": lambda L, x, m: x * m,
    "div": lambda L, x, m: x / m, "neg": lambda L, x, m: -x,
    "pow_scalar": lambda L, x, m: x ** 2, "pow_tensor": lambda L, x, m: x ** m, "rpow": lambda L, x, m: 2.0 ** x,
    "exp": lambda L, x, m: x.exp(), "log": lambda L, x, m: x.log(), "sqrt": lambda L, x, m: x.sqrt(),
    "abs": lambda L, x, m: x.abs(), "sin": lambda L, x, m: x.sin(), "cos": lambda L, x, m: x.cos(),
    "tanh": lambda L, x, m: x.tanh(), "sigmoid": lambda L, x, m: x.sigmoid(), "relu": lambda L, x, m: x.relu(),
    "clamp": lambda L, x, m: x.clamp(0, 1), "clamp_min": lambda L, x, m: x.clamp(min=0),
    "where": lambda L, x, m: L.where(x > 0, x, m), "maximum": lambda L, x, m: L.maximum(x, m),
    "minimum": lambda L, x, m: L.minimum(x, m), "sign": lambda L, x, m: x.sign(),
    "sum": lambda L, x, m: x.sum(), "sum_dim": lambda L, x, m: x.sum(0), "sum_dims": lambda L, x, m: x.sum((0, 1)),
    "mean": lambda L, x, m: x.mean(), "mean_dim": lambda L, x, m: x.mean(1),
    "prod": lambda L, x, m: x.prod(), "prod_dim": lambda L, x, m: x.prod(1),
    "max": lambda L, x, m: x.max(), "max_dim": lambda L, x, m: x.max(0).values,
    "min": lambda L, x, m: x.min(), "min_dim": lambda L, x, m: x.min(1)[0],
    "amax": lambda L, x, m: x.amax(0), "amin": lambda L, x, m: x.amin(1),
    "softmax": lambda L, x, m: x.softmax(0), "log_softmax": lambda L, x, m: x.log_softmax(1),
    "cumsum": lambda L, x, m: x.cumsum(0), "cumprod": lambda L, x, m: x.cumprod(1),
    "mm": lambda L, x, m: x @ m.t(), "dot": lambda L, x, m: x[0] @ m[0], "mv": lambda L, x, m: x @ m[0],
    "view": lambda L, x, m: x.view(-1), "reshape": lambda L, x, m: x.reshape(6), "flatten": lambda L, x, m: x.flatten(),
    "t": lambda L, x, m: x.t(), "transpose": lambda L, x, m: x.transpose(0, 1), "mT": lambda L, x, m: x.mT,
    "permute": lambda L, x, m: x.permute(1, 0), "expand": lambda L, x, m: x.expand(4, 2, 3),
    "squeeze": lambda L, x, m: x[None].squeeze(), "squeeze_dim": lambda L, x, m: x[None].squeeze(0),
    "unsqueeze": lambda L, x, m: x.unsqueeze(0), "select": lambda L, x, m: x[1], "slice": lambda L, x, m: x[:, 1:],
    "narrow": lambda L, x, m: x.narrow(0, 0, 1), "index": lambda L, x, m: x[L.tensor([0, 0])],
    "mask": lambda L, x, m: x[x > 0], "gather": lambda L, x, m: x.gather(1, L.tensor([[0], [2]])),
    "cat": lambda L, x, m: L.cat([x, m]), "flip": lambda L, x, m: x.flip(0), "clone": lambda L, x, m: x.clone(),
    "to": lambda L, x, m: x.double(),
}

# Ops that minitorch composes from smaller primitives (by design, see DESIGN.md), so their
# grad_fn is that of the last primitive; gradients are still checked above.
COMPOSED = {"std", "var", "norm", "logsumexp", "stack", "split", "chunk", "unbind", "repeat", "index_select",
            "clamp_tensor_bounds", "matmul_batched", "matmul_1d_2d", "reciprocal"}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_grad_fn_names_match_torch(name):
    def name_in(L):
        x = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        m = L.tensor([[1.0, 2.0, 0.5], [0.5, 3.0, 1.0]])
        return type(NAMED[name](L, x, m).grad_fn).__name__

    assert name_in(minitorch) == name_in(torch)


def test_next_functions_match_torch():
    def walk(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2 + x.exp()).sum()
        out, stack = [], [(y.grad_fn, 0)]
        while stack:
            fn, depth = stack.pop()
            out.append((depth, type(fn).__name__ if fn is not None else None))
            if fn is not None:
                stack.extend((f, depth + 1) for f, _ in reversed(fn.next_functions))
        return out

    assert walk(minitorch) == walk(torch)


# ---- in-place and views -----------------------------------------------------------------

def _inplace_nonleaf(L, x):
    y = x * 2
    y.mul_(x)
    y.add_(1.0)
    return y


def _inplace_view(L, x):
    y = x * 1
    y[0].mul_(3.0)  # in place through a view: the base is rebased on CopySlices
    return y * y


def _inplace_view_slice_add(L, x):
    y = x.exp()
    z = y.clone()
    z[:, 2:].add_(y[:, :2] * x[:, :2])
    return z


def _inplace_sigmoid_chain(L, x):
    y = x * 1
    y.mul_(2.0)  # MulBackward0 with a scalar does not need y: allowed
    y.add_(x)
    y.sigmoid_()  # saves y itself, which is not touched again
    return y.sum(0)


def _setitem_tensor(L, x):
    y = L.zeros(3, 4, dtype=L.float64)
    y[1:] = x[:2] * 2  # into a tensor that did not require grad
    y[0, ::2] = x[2, :2]
    return y


def _inplace_on_view_of_view(L, x):
    y = x * 1
    v = y[1:]
    w = v[:, 1]
    w.mul_(x[0, 0])
    return y


def _copy_into_nonleaf(L, x):
    y = L.zeros(2, 4, dtype=L.float64)
    y.copy_(x[:2] + 1)
    y.clamp_(-1.0, 1.5)
    return y


def _fill_and_zero(L, x):
    y = x * 3
    y[0].fill_(2.0)
    y[1].zero_()
    return y


def _relu_inplace(L, x):
    y = x - 0.2
    y.relu_()
    return y * x


def _views_taken_before(L, x):
    y = x * 1
    row, col = y[0], y[:, 1]
    y.mul_(x)                      # both views now read x^2
    row[1:].add_(x[1, 1:])         # and a view of a view changes too
    return L.cat([row * col[0], col.exp()])


def _plain_base_gets_history(L, x):
    base = L.zeros(3, 4, dtype=L.float64)
    rows = base[1:]
    base.add_(x.sin())
    base[0, ::2] = x[0, 1:3] * 4
    return rows * base[0]


def _duplicate_index_assignment(L, x):
    y = x * 1
    # row 0 is written twice: PyTorch gives the gradient to both written values
    y[L.tensor([0, 0, 2])] = x[L.tensor([1, 2, 1])] * L.tensor([[1.0], [2.0], [3.0]], dtype=L.float64)
    return y


def _double_backward_through_views(L, x):
    y = x.tanh()
    z = y * 1
    z[1:, ::2].mul_(x[:2, 1:3])
    (g,) = L.autograd.grad((z * z).sum(), x, create_graph=True)
    return g * g


INPLACE = [_views_taken_before, _plain_base_gets_history, _duplicate_index_assignment,
           _double_backward_through_views, _inplace_nonleaf, _inplace_view, _inplace_view_slice_add, _inplace_sigmoid_chain, _setitem_tensor,
           _inplace_on_view_of_view, _copy_into_nonleaf, _fill_and_zero, _relu_inplace]


@pytest.mark.parametrize("prog", INPLACE, ids=[p.__name__.strip("_") for p in INPLACE])
def test_inplace_gradients_match_torch(prog):
    res = {}
    for name, L in LIBS.items():
        x = L.tensor(np.array([[0.5, -1.0, 2.0, 0.3], [1.5, 0.25, -0.75, -0.4], [0.1, 0.9, -1.2, 0.6]]),
                     requires_grad=True)
        out = prog(L, x)
        out.backward(L.tensor(_weights(tuple(out.shape), 0.0)))
        res[name] = (_np(out), _np(x.grad), type(out.grad_fn).__name__.split("::")[-1])
    _close(res["minitorch"][0], res["torch"][0], "value")
    _close(res["minitorch"][1], res["torch"][1], "gradient")


def test_inplace_on_view_grad_fn_names_match_torch():
    names = {}
    for n, L in LIBS.items():
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        v = y[0]
        v.mul_(2)
        names[n] = (type(y.grad_fn).__name__.split("::")[-1], type(v.grad_fn).__name__, y._version, v._version)
    assert names["minitorch"] == names["torch"]


def _error(L, prog):
    with pytest.raises(RuntimeError) as info:
        prog(L)
    return str(info.value)


def _no_grad_view(L):
    x = L.ones(3, requires_grad=True)
    with L.no_grad():
        return x[1:]


def _modified_saved(L):
    a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a.exp()
    y.add_(1)
    y.sum().backward()


def _modified_saved_input(L):
    a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    c = b * b
    b.mul_(2)
    c.sum().backward()


def _modified_inplace_output(L):
    y = L.ones(3, requires_grad=True) * 1
    y.sigmoid_()  # saves its output, which is y itself
    y.tanh_()
    y.sum().backward()


def _modified_leaf_under_no_grad(L):
    a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.sin()
    with L.no_grad():
        a.mul_(2)
    c.sum().backward()


ERRORS = {
    "leaf_inplace": (lambda L: L.ones(2, requires_grad=True).add_(1),
                     "a leaf Variable that requires grad is being used in an in-place operation."),
    "view_of_leaf_inplace": (lambda L: L.ones(2, 2, requires_grad=True)[0].mul_(2),
                             "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    "no_grad_view_inplace": (lambda L: _no_grad_view(L).add_(1),
                             "A view was created in no_grad mode and is being modified inplace with grad mode "
                             "enabled. Given that this use case is ambiguous and error-prone, it is forbidden."),
    "setitem_on_leaf": (lambda L: L.ones(2, requires_grad=True).__setitem__(0, 5.0),
                        "a leaf Variable that requires grad is being used in an in-place operation."),
    "modified_saved_output": (_modified_saved,
                              "one of the variables needed for gradient computation has been modified by an "
                              "inplace operation: [torch.FloatTensor [3]], which is output 0 of"),
    "modified_saved_input": (_modified_saved_input, "is at version 1; expected version 0 instead"),
    "modified_inplace_output": (_modified_inplace_output, "is at version 2; expected version 1 instead"),
    "modified_leaf": (_modified_leaf_under_no_grad,
                      "modified by an inplace operation: [torch.FloatTensor [3]] is at version 1; expected version 0"),
    "backward_twice": (lambda L: [(y := (L.ones(2, requires_grad=True) * 2).exp().sum()).backward(), y.backward()],
                       "Trying to backward through the graph a second time (or directly access saved tensors after "
                       "they have already been freed). Saved intermediate values of the graph are freed when you "
                       "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
                       "through the graph a second time"),
    "non_scalar": (lambda L: (L.ones(2, requires_grad=True) * 2).backward(),
                   "grad can be implicitly created only for scalar outputs"),
    "no_grad_fn": (lambda L: L.ones(2).sum().backward(),
                   "element 0 of tensors does not require grad and does not have a grad_fn"),
    "int_requires_grad": (lambda L: L.tensor([1, 2]).requires_grad_(),
                          "only Tensors of floating point dtype can require gradients"),
    "non_leaf_requires_grad_false": (lambda L: (L.ones(2, requires_grad=True) * 2).requires_grad_(False),
                                     "you can only change requires_grad flags of leaf variables."),
    "retain_grad_without_grad": (lambda L: L.ones(2).retain_grad(),
                                 "can't retain_grad on Tensor that has requires_grad=False"),
    "hook_without_grad": (lambda L: L.ones(2).register_hook(lambda g: g),
                          "cannot register a hook on a tensor that doesn't require gradient"),
    "numpy_requires_grad": (lambda L: L.ones(2, requires_grad=True).numpy(),
                            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
    "grad_shape_mismatch": (lambda L: (L.ones(2, requires_grad=True) * 2).backward(L.ones(3)),
                            "Mismatch in shape: grad_output[0] has a shape of "),
    "grad_input_without_grad": (lambda L: L.autograd.grad((L.ones(2, requires_grad=True) * 2).sum(), [L.ones(2)]),
                                "One of the differentiated Tensors"),
    "assign_grad_wrong_size": (lambda L: setattr(L.ones(2, requires_grad=True), "grad", L.ones(3)),
                               "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please "
                               "ensure that the gradient and the tensor are the same size"),
    "grad_unused_input": (lambda L: L.autograd.grad((L.ones(2, requires_grad=True) * 2).sum(),
                                                    [L.ones(2, requires_grad=True)]),
                          "appears to not have been used in the graph. Set allow_unused=True if this is the "
                          "desired behavior."),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_messages_match_torch(name):
    prog, expected = ERRORS[name]
    theirs, ours = _error(torch, prog), _error(minitorch, prog)
    assert expected in theirs, f"the expected text is not PyTorch's (any more): {theirs}"
    assert expected in ours


def _custom_function_program(L):
    class Cube(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x ** 3 * scale, x.argmax()

        @staticmethod
        def backward(ctx, g, g_idx):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2 * ctx.scale, None

    x = L.tensor([0.5, -1.0, 2.0], dtype=L.float64, requires_grad=True)
    y, idx = Cube.apply(x, 2.0)
    (g,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
    g.sum().backward()
    return type(y.grad_fn).__name__, idx.requires_grad, g.tolist(), x.grad.tolist()


def test_custom_function_matches_torch():
    assert _custom_function_program(minitorch) == _custom_function_program(torch)


# ---- hooks, retain_grad, accumulation, modes ----------------------------------------------

def _hooks_program(L):
    log = []
    x = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
    x.register_hook(lambda g: log.append(("x", g.tolist())))
    log.append(("grad", L.autograd.grad((x * 2).sum(), x)[0].tolist()))  # leaf hooks run here too
    y = x * x
    y.retain_grad()
    h = y.register_hook(lambda g: g * 10)
    y.register_hook(lambda g: log.append(("y", g.tolist())))
    z = (y * L.tensor([1.0, 2.0, 3.0])).sum()
    z.backward(retain_graph=True)
    first = (x.grad.tolist(), y.grad.tolist())
    h.remove()
    x.grad = None
    z.backward()
    return log, first, (x.grad.tolist(), y.grad.tolist())


def test_hooks_and_retain_grad_match_torch():
    assert _hooks_program(minitorch) == _hooks_program(torch)


def _accumulate_program(L):
    w = L.tensor([0.5, -1.5], requires_grad=True)
    for k in range(3):
        (w * w * (k + 1)).sum().backward()
    g1 = w.grad.tolist()
    w.grad.zero_()
    (w ** 3).sum().backward()
    return g1, w.grad.tolist()


def test_accumulation_matches_torch():
    assert _accumulate_program(minitorch) == _accumulate_program(torch)


def _second_order_program(L):
    x = L.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = L.tensor([[1.0, 2.0, 0.0], [0.5, -1.0, 3.0]], requires_grad=True)
    out = (w @ x.tanh()).pow(2).sum()
    (gx, gw) = L.autograd.grad(out, (x, w), create_graph=True)
    penalty = (gx.norm() - 1) ** 2 + (gw * gw).sum()
    penalty.backward()
    return [t.tolist() for t in (gx, gw, x.grad, w.grad)]


def test_gradient_penalty_matches_torch():
    mine, ref = _second_order_program(minitorch), _second_order_program(torch)
    for a, b in zip(mine, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_ties_share_gradients_like_torch():
    """max()/amax split the gradient evenly among equal maxima; max(dim) picks one index;
    maximum() of equal values gives each side half."""
    def prog(L):
        x = L.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
        y = L.tensor([[1.0, 0.0, 3.0], [2.0, 5.0, 0.0]], requires_grad=True)
        res = []
        for f in (lambda: x.max(), lambda: x.amax(1), lambda: x.min(), lambda: L.maximum(x, y),
                  lambda: L.minimum(x, y), lambda: x.clamp(min=2.0, max=3.0), lambda: x.norm(p=float("inf"))):
            x.grad = y.grad = None
            f().sum().backward()
            res.append((x.grad.tolist(), None if y.grad is None else y.grad.tolist()))
        return res

    assert prog(minitorch) == prog(torch)


def test_special_points_match_torch():
    """Gradients at the points where the textbook formula is undefined: PyTorch's conventions."""
    def prog(L):
        res = []
        for f in (lambda x: x.abs(), lambda x: x.relu(), lambda x: x.sqrt(), lambda x: x ** 0, lambda x: x ** 2,
                  lambda x: x ** 0.5, lambda x: 0.0 ** x, lambda x: x.prod(), lambda x: x.norm(),
                  lambda x: x.sign(), lambda x: x.clamp(0.0, 1.0)):
            x = L.tensor([0.0, 1.0, 0.0], requires_grad=True)
            f(x).sum().backward()
            res.append(x.grad.tolist())
        return res

    mine, ref = prog(minitorch), prog(torch)
    np.testing.assert_equal(mine, ref)


def test_grad_mode_decorators_match_torch():
    def prog(L):
        x = L.ones(2, requires_grad=True)

        @L.no_grad()
        def f():
            return (x * 2).requires_grad, L.is_grad_enabled()

        @L.enable_grad()
        def g():
            return (x * 2).requires_grad

        @L.set_grad_enabled(False)
        def h():
            return (x * 2).requires_grad

        with L.no_grad():
            inner = g(), L.is_grad_enabled()
        prev = L.is_grad_enabled()
        L.set_grad_enabled(False)
        off = (x * 2).requires_grad
        L.set_grad_enabled(True)
        return f(), inner, h(), L.is_grad_enabled(), prev, off

    assert prog(minitorch) == prog(torch)


def test_reading_grad_of_a_non_leaf_warns_like_torch():
    for L in (minitorch, torch):
        x = L.ones(2, requires_grad=True)
        y = x * 2
        y.sum().backward()
        with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf Tensor is being "
                                             "accessed. Its .grad attribute won't be populated during "
                                             "autograd.backward()."):
            assert y.grad is None


# ---- saved_tensors_hooks see PyTorch's order; enforce_grad_layout_policy -----------------------------

def _pack_log(lib, op):
    log, names = [], {}

    def name(x):
        return next((k for k, v in names.items() if v.shape == x.shape and bool((v.detach() == x.detach()).all())),
                    f"?{tuple(x.shape)}")

    def pack(x):
        log.append("P" + name(x))
        return x.detach()

    def unpack(x):
        log.append("U" + name(x))
        return x
    a = names["a"] = lib.full((2, 2), 3.0).requires_grad_()
    b = names["b"] = lib.full((2, 2), 5.0).requires_grad_()
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = op(lib, a, b)
    y.sum().backward()
    return log, a.grad.tolist()


@pytest.mark.parametrize("op", [
    lambda L, a, b: a * b, lambda L, a, b: a / b, lambda L, a, b: a ** b, lambda L, a, b: a @ b,
    lambda L, a, b: L.atan2(a, b), lambda L, a, b: L.maximum(a, b), lambda L, a, b: L.minimum(a, b),
    lambda L, a, b: L.mm(a, b), lambda L, a, b: L.hypot(a, b), lambda L, a, b: L.xlogy(a, b),
    lambda L, a, b: L.fmod(a, b), lambda L, a, b: L.remainder(a, b), lambda L, a, b: L.nn.functional.linear(a, b),
    lambda L, a, b: L.nn.functional.linear(a, b, b[0]), lambda L, a, b: a.clamp(min=b), lambda L, a, b: L.lerp(a, b, 0.3),
    lambda L, a, b: L.lerp(a, b, b / 10), lambda L, a, b: L.addcmul(a, a, b), lambda L, a, b: a.exp(),
    lambda L, a, b: a.tanh(), lambda L, a, b: a.sigmoid(), lambda L, a, b: a.sqrt(), lambda L, a, b: a.softmax(-1),
    lambda L, a, b: a.sin(), lambda L, a, b: L.mv(a, b[0])])
def test_saved_tensors_hooks_pack_in_pytorchs_order(op):
    (ours, our_grad), (theirs, their_grad) = _pack_log(minitorch, op), _pack_log(torch, op)
    assert ours == theirs
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-5)  # (1 - tanh(3)^2 cancels in float32)


def test_lerp_with_a_number_weight_saves_nothing():
    def run(lib):
        a, b = lib.ones(3, requires_grad=True) * 1, lib.zeros(3, requires_grad=True) * 1
        y = lib.lerp(a, b, 0.3)
        a.mul_(2)  # PyTorch saves nothing for this gradient: no version error
        y.sum().backward()
        return y.grad_fn.name()
    assert run(minitorch) == run(torch)


def test_enforce_grad_layout_policy():
    def run(lib):
        out = []
        p = lib.zeros(2, 3, 4).permute(2, 0, 1).requires_grad_()
        (p * 2).sum().backward()
        out.append(p.grad.stride())
        p.grad = None
        with lib.autograd.enforce_grad_layout_policy(False):
            (p * 2).sum().backward()
        out.append(p.grad.stride())
        q = lib.zeros(3, 4).t().requires_grad_()
        with lib.autograd.enforce_grad_layout_policy(False):
            (q * lib.ones(4, 3)).sum().backward()
            out.append(q.grad.stride())
            (q * lib.ones(4, 3)).sum().backward()  # (accumulated into the one it has)
            out.append(q.grad.stride())
        q.grad = None
        (q * lib.ones(4, 3)).sum().backward()
        out.append(q.grad.stride())

        @lib.autograd.enforce_grad_layout_policy(False)
        def f():
            q.grad = None
            (q * 3).sum().backward()
            return q.grad.stride()
        out.append(f())
        q.grad = None
        (q * 3).sum().backward()
        out.append((q.grad.stride(), lib.autograd.enforce_grad_layout_policy(False).clone().mode))
        lib.autograd.enforce_grad_layout_policy(True)
        return out
    assert run(minitorch) == run(torch)
