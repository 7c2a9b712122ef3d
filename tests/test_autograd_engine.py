"""The autograd engine and the Tensor's autograd API, against hand-derived values.

requires_grad, is_leaf, grad_fn, retain_grad, detach, hooks, backward / autograd.grad
(topological order, accumulation, errors, create_graph), and the grad-mode switches.
Expected numbers are worked out by hand in the comments, never taken from our own output.
"""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minitorch
from minitorch import autograd


def leaf(values, dtype=minitorch.float64):
    return minitorch.tensor(values, dtype=dtype, requires_grad=True)


def approx(t, expected, **kw):
    np.testing.assert_allclose(np.asarray(t.tolist() if hasattr(t, "tolist") else t, dtype=float),
                               np.asarray(expected, dtype=float), **kw)


# ---- requires_grad, is_leaf, grad_fn ------------------------------------------------------

def test_requires_grad_propagates_through_ops():
    a = leaf([1.0, 2.0])
    b = minitorch.tensor([3.0, 4.0], dtype=minitorch.float64)
    assert not b.requires_grad
    assert (a * b).requires_grad and (b + a).requires_grad and (a.exp() @ b).requires_grad
    assert not (b * b).requires_grad and (b * b).grad_fn is None
    assert a.is_leaf and b.is_leaf
    c = a * b
    assert not c.is_leaf and c.grad_fn is not None
    assert (b * 2).is_leaf  # a result that does not require grad is a leaf, as in PyTorch


def test_non_float_results_do_not_require_grad():
    a = leaf([1.0, -2.0, 3.0])
    for r in (a > 0, a == a, a.argmax(), a.max(0).indices, a.long(), a.to(minitorch.int32), a.isnan()):
        assert not r.requires_grad and r.grad_fn is None


def test_requires_grad_flag_and_method():
    a = minitorch.zeros(2, dtype=minitorch.float64)
    assert a.requires_grad_() is a and a.requires_grad
    a.requires_grad_(False)
    assert not a.requires_grad
    assert minitorch.ones(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        minitorch.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (leaf([1.0]) * 2).requires_grad_(False)


GRAD_FN_NAMES = [  # PyTorch's names for the same expressions
    (lambda x: x + 1, "AddBackward0"), (lambda x: x - x, "SubBackward0"), (lambda x: x * 2, "MulBackward0"),
    (lambda x: x / 2, "DivBackward0"), (lambda x: -x, "NegBackward0"), (lambda x: x ** 2, "PowBackward0"),
    (lambda x: x ** x, "PowBackward1"), (lambda x: 2 ** x, "PowBackward2"), (lambda x: x.exp(), "ExpBackward0"),
    (lambda x: x.sum(), "SumBackward0"), (lambda x: x.sum(0), "SumBackward1"), (lambda x: x.mean(), "MeanBackward0"),
    (lambda x: x.mean(1), "MeanBackward1"), (lambda x: x.prod(), "ProdBackward0"), (lambda x: x.prod(1), "ProdBackward1"),
    (lambda x: x.max(), "MaxBackward1"), (lambda x: x.max(0)[0], "MaxBackward0"), (lambda x: x.amax(0), "AmaxBackward0"),
    (lambda x: x.min(), "MinBackward1"), (lambda x: x @ x.t(), "MmBackward0"), (lambda x: x[0] @ x[1], "DotBackward0"),
    (lambda x: x @ x[0], "MvBackward0"), (lambda x: x.t(), "TBackward0"), (lambda x: x.transpose(0, 1), "TransposeBackward0"),
    (lambda x: x.view(-1), "ViewBackward0"), (lambda x: x[0], "SelectBackward0"), (lambda x: x[:, 1:], "SliceBackward0"),
    (lambda x: x[[1, 0]], "IndexBackward0"), (lambda x: x.relu(), "ReluBackward0"), (lambda x: x.sigmoid(), "SigmoidBackward0"),
    (lambda x: x.tanh(), "TanhBackward0"), (lambda x: x.clamp(0, 1), "ClampBackward1"), (lambda x: x.abs(), "AbsBackward0"),
    (lambda x: x.softmax(0), "SoftmaxBackward0"), (lambda x: x.log_softmax(0), "LogSoftmaxBackward0"),
    (lambda x: x.unsqueeze(0), "UnsqueezeBackward0"), (lambda x: x[None].squeeze(), "SqueezeBackward0"),
    (lambda x: x[None].squeeze(0), "SqueezeBackward1"), (lambda x: x.expand(2, 2, 3), "ExpandBackward0"),
    (lambda x: x.permute(1, 0), "PermuteBackward0"), (lambda x: minitorch.cat([x, x]), "CatBackward0"),
    (lambda x: x.clone(), "CloneBackward0"), (lambda x: x.float(), "ToCopyBackward0"), (lambda x: x.flip(0), "FlipBackward0"),
    (lambda x: x.cumsum(0), "CumsumBackward0"), (lambda x: minitorch.where(x > 0, x, 0.0), "WhereBackward0"),
    (lambda x: x.gather(0, minitorch.tensor([[0, 1, 0]])), "GatherBackward0"),
]


@pytest.mark.parametrize("fn, name", GRAD_FN_NAMES, ids=[n for _, n in GRAD_FN_NAMES])
def test_grad_fn_names_are_pytorchs(fn, name):
    x = leaf([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    fn_node = fn(x).grad_fn
    assert type(fn_node).__name__ == name and fn_node.name() == name


def test_next_functions_point_at_the_producers():
    x = leaf([1.0, 2.0])
    y = x.exp()
    z = y * 3.0
    (prev, nr), (scalar, _) = z.grad_fn.next_functions
    assert prev is y.grad_fn and nr == 0 and scalar is None
    (acc, _), = y.grad_fn.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x


# ---- backward: values, order, accumulation -----------------------------------------------

def test_simple_gradients_by_hand():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x * 3 + x.exp()).sum()  # dy/dx = 6x + e^x
    y.backward()
    approx(x.grad, [6 + np.e, 12 + np.e ** 2, 18 + np.e ** 3])


def test_tensor_used_twice_gets_both_contributions():
    x = leaf([3.0])
    (x * x).backward(minitorch.ones(1, dtype=minitorch.float64))  # d(x^2) = 2x
    approx(x.grad, [6.0])


def test_diamond_graph():
    a = leaf(2.0)
    b = a * a       # a^2
    c = b + b       # 2a^2
    d = c * b       # 2a^4  -> dd/da = 8a^3 = 64
    d.backward()
    assert a.grad.item() == 64.0


def test_shared_subexpression_runs_its_backward_once():
    calls = []

    class Tap(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            calls.append(g.tolist())
            return g

    x = leaf([1.0, 2.0])
    s = Tap.apply(x.exp())  # used by three consumers below
    out = (s * 2 + s.sin() + s * s).sum()
    out.backward()
    # d out / d s = 2 + cos(s) + 2s; the tap must see the *total*, once (topological order)
    es = np.exp([1.0, 2.0])
    assert len(calls) == 1
    approx(calls[0], 2 + np.cos(es) + 2 * es)
    approx(x.grad, (2 + np.cos(es) + 2 * es) * es)


def test_unbalanced_paths_wait_for_all_gradients():
    # a long path and a short path from x to the output; the node at the join must wait
    x = leaf([0.5])
    y = x * 2
    long = y
    for _ in range(20):
        long = long * 1.0 + 0.0
    z = (long * y).sum()  # z = 4x^2 -> dz/dx = 8x = 4
    z.backward()
    assert x.grad.tolist() == [4.0]


def test_deep_graph_needs_no_recursion():
    x = leaf([1.0])
    y = x
    for _ in range(5000):
        y = y + 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_gradients_accumulate_into_leaves_across_calls():
    w = leaf([1.0, -2.0])
    (w * 3).sum().backward()
    (w * w).sum().backward()  # + 2w
    approx(w.grad, [3 + 2, 3 - 4])
    g = w.grad
    (w * 1).sum().backward()
    assert w.grad is g  # accumulated in place, as PyTorch does without create_graph
    approx(g, [6, 0])
    w.grad = None
    (w * 5).sum().backward()
    approx(w.grad, [5, 5])
    w.grad.zero_()
    approx(w.grad, [0, 0])


def test_broadcast_gradient_is_summed_to_the_leaf_shape():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    bias = leaf([10.0, 20.0, 30.0])
    scale = leaf([[2.0], [3.0]])
    (x * scale + bias).sum().backward()
    approx(bias.grad, [2, 2, 2])          # one per row
    approx(scale.grad, [[6.0], [15.0]])   # row sums of x
    assert bias.grad.shape == bias.shape and scale.grad.shape == scale.shape


def test_gradient_dtype_is_the_leafs():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)  # float32
    (x.double() * 3).sum().backward()
    assert x.grad.dtype is minitorch.float32
    approx(x.grad, [3, 3])


def test_backward_with_explicit_gradient():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    y.backward(minitorch.tensor([1.0, 0.1, 0.01], dtype=minitorch.float64))  # v^T J = v * 2x
    approx(x.grad, [2.0, 0.4, 0.06])


def test_non_scalar_backward_needs_a_gradient():
    y = leaf([1.0, 2.0]) * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of"):
        y.backward(minitorch.ones(3, dtype=minitorch.float64))


def test_backward_without_grad_fn():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        minitorch.ones(2).sum().backward()


def test_backward_twice_needs_retain_graph():
    x = leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()  # second time allowed; gradients add: 2 * (e^x + x e^x)
    approx(x.grad, 2 * (np.exp([1, 2]) * (1 + np.array([1, 2]))))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_saved_tensors_are_freed_after_backward():
    x = leaf([1.0, 2.0])
    y = x.sin()
    node = y.grad_fn
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Specify retain_graph=True"):
        node.saved_tensors


def test_graph_without_saved_tensors_can_run_again():
    x = leaf([1.0, 2.0])
    y = (x + 1).sum()  # AddBackward0 and SumBackward0 save nothing
    y.backward()
    y.backward()
    approx(x.grad, [2, 2])


def test_graph_is_freed_when_unreferenced():
    x = leaf([1.0, 2.0])
    y = x.exp()
    ref = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert ref() is None


def _without_gc(fn):
    gc.collect()
    gc.disable()
    try:
        fn()
    finally:
        gc.enable()


def test_dead_graph_and_leaf_are_freed_without_the_garbage_collector():
    def run():
        x = leaf([1.0, 2.0])
        y = (x * 2).exp().sum()
        acc = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        assert acc.variable is x and x.grad_fn is None
        refs = [weakref.ref(o) for o in (y, y.grad_fn, acc, x)]
        del y
        assert refs[0]() is None and refs[1]() is None  # the result and its nodes: no cycle
        assert refs[2]() is acc  # the leaf keeps its AccumulateGrad for the next op
        del acc, x
        assert refs[2]() is None and refs[3]() is None
    _without_gc(run)


def test_a_leaf_reuses_one_accumulate_grad_node():
    x = leaf([1.0, 2.0])
    first = (x + 1).grad_fn.next_functions[0][0]
    assert (x * 3).grad_fn.next_functions[0][0] is first
    assert type(first).__name__ == "AccumulateGrad" and first.name() == "torch::autograd::AccumulateGrad"


def test_a_graph_outliving_its_leaf_keeps_a_hooked_leaf():
    seen = []
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: seen.append(g.tolist()))
    y = (x * 2).sum()
    acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
    del x
    y.backward()  # as in PyTorch: the hook runs and the leaf gets its gradient
    assert seen == [[2.0, 2.0]]
    approx(acc.variable.grad, [2, 2])


def test_a_graph_outliving_an_unhooked_leaf_runs():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    y = (x * w).sum()
    del x
    y.backward()  # nobody can read x's gradient any more; w still gets its own
    approx(w.grad, [1, 2])


def test_next_functions_pairs_nodes_with_output_numbers():
    x = leaf([3.0, 1.0, 2.0])
    parts = x.unbind()
    y = parts[2] * parts[1] + 2
    fns = y.grad_fn.next_functions
    assert isinstance(fns, tuple) and fns[1] == (None, 0)  # the Python number 2 gets no gradient
    mul, nr = fns[0]
    assert nr == 0 and mul.name() == "MulBackward0"
    assert [(n.name(), k) for n, k in mul.next_functions] == [("UnbindBackward0", 2), ("UnbindBackward0", 1)]
    y.backward()
    approx(x.grad, [0, 2, 1])


# ---- autograd.grad ------------------------------------------------------------------------

def test_autograd_grad_returns_without_touching_dot_grad():
    x, w = leaf([1.0, 2.0]), leaf([3.0, -1.0])
    out = (x * w).sum()
    gx, gw = autograd.grad(out, (x, w))
    approx(gx, [3, -1])
    approx(gw, [1, 2])
    assert x.grad is None and w.grad is None


def test_autograd_grad_with_respect_to_an_intermediate():
    x = leaf([1.0, 2.0])
    h = x * 3
    out = (h * h).sum()
    (gh,) = autograd.grad(out, h)  # 2h
    approx(gh, [6, 12])


def test_autograd_grad_unused_inputs():
    x, unused = leaf([1.0]), leaf([2.0])
    out = (x * 2).sum()
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used "
                                           "in the graph. Set allow_unused=True"):
        autograd.grad(out, [x, unused], retain_graph=True)
    gx, gu = autograd.grad(out, [x, unused], allow_unused=True, retain_graph=True)
    assert gu is None and gx.tolist() == [2.0]
    gx, gu = autograd.grad(out, [x, unused], materialize_grads=True)
    assert gu.tolist() == [0.0]


def test_autograd_grad_of_several_outputs_adds_them():
    x = leaf([1.0, 2.0])
    (g,) = autograd.grad([(x * x).sum(), (x * 3).sum()], x)
    approx(g, [2 + 3, 4 + 3])
    (g,) = autograd.grad([x * x, x * 3], x, grad_outputs=[minitorch.ones(2, dtype=minitorch.float64),
                                                            minitorch.full((2,), 2.0, dtype=minitorch.float64)])
    approx(g, [2 + 6, 4 + 6])


def test_backward_inputs_restricts_accumulation():
    x, w = leaf([1.0]), leaf([2.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None and w.grad.tolist() == [1.0]


# ---- second order: create_graph --------------------------------------------------------

def test_create_graph_makes_the_gradient_differentiable():
    x = leaf([1.0, 2.0])
    y = (x ** 3).sum()
    (g,) = autograd.grad(y, x, create_graph=True)  # 3x^2
    assert g.requires_grad and g.grad_fn is not None
    approx(g, [3, 12])
    (h,) = autograd.grad(g.sum(), x)  # 6x
    approx(h, [6, 12])
    (g2,) = autograd.grad((x ** 3).sum(), x)
    assert not g2.requires_grad


def test_hessian_vector_product_by_hand():
    # f(x) = x0^2 x1 + sin(x1) ; H = [[2 x1, 2 x0], [2 x0, -sin(x1)]]
    x = leaf([1.5, 0.5])
    v = minitorch.tensor([1.0, -2.0], dtype=minitorch.float64)
    f = x[0] ** 2 * x[1] + x[1].sin()
    (g,) = autograd.grad(f, x, create_graph=True)
    (hv,) = autograd.grad((g * v).sum(), x)
    H = np.array([[2 * 0.5, 2 * 1.5], [2 * 1.5, -np.sin(0.5)]])
    approx(hv, H @ np.array([1.0, -2.0]))
    _, hv2 = autograd.functional.hvp(lambda t: t[0] ** 2 * t[1] + t[1].sin(), x, v)
    approx(hv2, H @ np.array([1.0, -2.0]))


def test_gradient_penalty_by_hand():
    # out = sum(w^2 * x); d out/dx = w^2; penalty = sum((w^2)^2) = sum(w^4); d/dw = 4 w^3
    w, x = leaf([1.0, -2.0]), leaf([3.0, 0.5])
    out = (w * w * x).sum()
    (gx,) = autograd.grad(out, x, create_graph=True)
    penalty = (gx * gx).sum()
    penalty.backward()
    approx(w.grad, [4.0, -32.0])
    assert x.grad is None  # the penalty does not depend on x


def test_backward_create_graph_leaves_a_differentiable_grad():
    x = leaf([2.0])
    (x ** 4).sum().backward(create_graph=True)  # x.grad = 4x^3, with a graph
    g = x.grad
    assert g.requires_grad
    x.grad = None
    g.sum().backward()  # 12 x^2
    assert x.grad.tolist() == [48.0]


def test_third_derivative():
    x = leaf([0.7])
    y = x.sin()
    for _ in range(3):
        (y,) = autograd.grad(y.sum(), x, create_graph=True)
    approx(y, [-np.cos(0.7)])  # sin''' = -cos


# ---- retain_grad, detach, hooks --------------------------------------------------------

def test_retain_grad():
    x = leaf([1.0, 2.0])
    y = x * 3
    z = x * 4
    y.retain_grad()
    assert y.retains_grad and not z.retains_grad
    (y * y + z).sum().backward()
    approx(y.grad, [6, 12])  # 2y
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf Tensor is being "
                                         "accessed.*use .retain_grad()"):
        assert z.grad is None
    x.retain_grad()  # a leaf keeps its grad anyway: no-op
    assert not x.retains_grad


def test_retained_grad_accumulates_like_a_leafs():
    x = leaf([1.0])
    y = x * 2
    y.retain_grad()
    out = (y * 5).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert y.grad.tolist() == [10.0]


def test_detach_shares_memory_but_not_history():
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    with minitorch.no_grad():
        d[0] = 5.0
    assert x.tolist() == [5.0, 2.0]
    assert x._version == d._version == 1  # one version counter for one memory


def test_inplace_on_detached_alias_keeps_the_original_a_leaf():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    d = x.detach()
    d.mul_(w)  # d now has history through w; x must not
    assert x.is_leaf and x.grad_fn is None
    d.sum().backward()
    approx(w.grad, [1.0, 2.0])
    assert x.grad is None


def test_detach_of_view_then_inplace():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    d = x[1].detach()
    d.add_(1.0)  # allowed: d is no longer part of x's graph
    assert x.tolist() == [[1.0, 2.0], [4.0, 5.0]] and x.is_leaf


def test_detach_modification_is_caught_but_data_modification_is_not():
    x = leaf([1.0, 2.0])
    y = x.sin()
    x.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    x2 = leaf([0.0, 1.0])
    y2 = x2.sin()
    x2.data.mul_(2)  # .data bypasses the version counter (PyTorch's documented trap)
    y2.sum().backward()
    approx(x2.grad, np.cos([0.0, 2.0]))  # the cos of the *new* values: silently different


def test_detach_in_place():
    y = leaf([1.0]) * 2
    assert y.detach_() is y
    assert y.is_leaf and not y.requires_grad


def test_leaf_hook_replaces_the_gradient_and_can_be_removed():
    x = leaf([1.0, 2.0])
    seen = []
    h1 = x.register_hook(lambda g: seen.append(g.tolist()))
    h2 = x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    approx(x.grad, [30, 30])
    h2.remove()
    h1.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    approx(x.grad, [3, 3])


def test_nonleaf_hook_changes_what_flows_on():
    x = leaf([1.0, 2.0])
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()) or g * 0.5)
    (y * 4).sum().backward()  # dy = 4, halved by the hook, times 2x
    assert seen == [[4.0, 4.0]]
    approx(x.grad, [4, 8])


def test_hook_on_tensor_used_twice_sees_the_total_once():
    x = leaf([1.0])
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.item()))
    (y * 3 + y * 4).sum().backward()
    assert seen == [7.0]


def test_leaf_hooks_also_run_for_autograd_grad_and_backward_inputs():
    x = leaf([1.0, 2.0])
    calls = []
    x.register_hook(lambda g: calls.append(1) or g * 10)
    (g,) = autograd.grad((x * 3).sum(), x)
    approx(g, [30, 30])
    (x * 3).sum().backward(inputs=[x])
    approx(x.grad, [30, 30])
    assert len(calls) == 2  # once per pass, not twice for backward(inputs=)


def test_assigning_grad_is_checked():
    x = leaf([1.0, 2.0])
    x.grad = minitorch.ones(2, dtype=minitorch.float64)
    x.grad = None
    with pytest.raises(RuntimeError, match=r"attempting to assign a gradient of size '\[3\]' to a tensor of size "
                                           r"'\[2\]'"):
        x.grad = minitorch.ones(3, dtype=minitorch.float64)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype 'float' to a tensor with "
                                           "grad_dtype 'Double'"):
        x.grad = minitorch.ones(2)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None but got grad of type list"):
        x.grad = [1.0, 2.0]
    assert x.grad is None


def test_hooks_run_in_registration_order_and_chain():
    x = leaf([1.0])
    y = x * 1
    y.register_hook(lambda g: g + 1)
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert x.grad.tolist() == [20.0]  # (1 + 1) * 10


# ---- grad modes ------------------------------------------------------------------------

def test_no_grad_context_and_decorator():
    x = leaf([1.0])
    assert minitorch.is_grad_enabled()
    with minitorch.no_grad():
        assert not minitorch.is_grad_enabled()
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert minitorch.is_grad_enabled()

    @minitorch.no_grad()
    def f(t):
        return t * 2, minitorch.is_grad_enabled()

    r, enabled = f(x)
    assert not r.requires_grad and not enabled and minitorch.is_grad_enabled()
    assert f.__name__ == "f"


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])

    @minitorch.enable_grad()
    def g(t):
        return t * 2

    with minitorch.no_grad():
        assert g(x).requires_grad
        with minitorch.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad


def test_set_grad_enabled_as_function_context_and_decorator():
    x = leaf([1.0])
    with minitorch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert minitorch.is_grad_enabled()
    minitorch.set_grad_enabled(False)
    try:
        assert not minitorch.is_grad_enabled() and not (x * 2).requires_grad
    finally:
        minitorch.set_grad_enabled(True)
    assert (x * 2).requires_grad

    @minitorch.set_grad_enabled(False)
    def f():
        return (x * 2).requires_grad

    assert minitorch.is_grad_enabled()  # decorating does not switch the mode
    assert f() is False and minitorch.is_grad_enabled()


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with minitorch.no_grad():
            raise ValueError
    assert minitorch.is_grad_enabled()

    @minitorch.no_grad()
    def boom():
        raise KeyError

    with pytest.raises(KeyError):
        boom()
    assert minitorch.is_grad_enabled()


def test_inference_mode_records_nothing():
    x = leaf([1.0])
    with minitorch.inference_mode():
        assert not (x * 2).requires_grad
    assert minitorch.is_grad_enabled()


def test_backward_under_no_grad_still_works():
    x = leaf([2.0])
    y = (x * x).sum()
    with minitorch.no_grad():
        y.backward()
    assert x.grad.tolist() == [4.0]


# ---- property-based: broadcasting and views ---------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def broadcast_shapes(draw):
    """Two shapes that broadcast: a common shape, with dims dropped from the left or set to 1."""
    full = draw(st.lists(st.integers(1, 4), min_size=0, max_size=4))

    def variant():
        lead = draw(st.integers(0, len(full)))
        return tuple(1 if draw(st.booleans()) else n for n in full[lead:])

    return variant(), variant()


@settings(max_examples=60, deadline=None)
@given(broadcast_shapes(), st.sampled_from(["add", "mul", "sub", "div"]))
def test_broadcast_gradients_are_summed_back_to_each_shape(shapes, op):
    sa, sb = shapes
    rng = np.random.default_rng(len(sa) * 7 + len(sb))
    a_np, b_np = rng.uniform(0.5, 2, sa), rng.uniform(0.5, 2, sb)
    a, b = leaf(a_np), leaf(b_np)
    out = {"add": a + b, "mul": a * b, "sub": a - b, "div": a / b}[op]
    out.sum().backward()
    shape = np.broadcast_shapes(sa, sb)
    # d sum / d a and d sum / d b at the broadcast shape, by hand, then summed back (NumPy)
    da = {"add": 1.0, "mul": b_np, "sub": 1.0, "div": 1 / b_np}[op] * np.ones(shape)
    db = {"add": 1.0, "mul": a_np, "sub": -1.0, "div": -a_np / b_np ** 2}[op] * np.ones(shape)

    def reduce_to(g, s):
        g = g.sum(axis=tuple(range(g.ndim - len(s)))) if g.ndim > len(s) else g
        return g.sum(axis=tuple(i for i, n in enumerate(s) if n == 1), keepdims=True).reshape(s)

    assert a.grad.shape == sa and b.grad.shape == sb
    np.testing.assert_allclose(np.asarray(a.grad.tolist()).reshape(sa), reduce_to(da, sa), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(b.grad.tolist()).reshape(sb), reduce_to(db, sb), rtol=1e-12)


@st.composite
def slicing(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    key = []
    for n in shape:
        start = draw(st.integers(0, n - 1))
        stop = draw(st.integers(start + 1, n))
        key.append(slice(start, stop, draw(st.integers(1, 3))))
    perm = draw(st.permutations(range(len(shape))))
    return shape, tuple(key), tuple(perm)


@settings(max_examples=60, deadline=None)
@given(slicing())
def test_gradient_through_a_strided_permuted_view(case):
    shape, key, perm = case
    x_np = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    x = leaf(x_np)
    v = x[key].permute(tuple(perm))
    w_np = np.linspace(-1, 1, v.numel()).reshape(tuple(v.shape))
    (v * minitorch.tensor(w_np)).sum().backward()
    expected = np.zeros(shape)
    expected[key] = np.transpose(w_np, np.argsort(perm))  # the weights land where the view reads
    np.testing.assert_allclose(np.asarray(x.grad.tolist()), expected, rtol=1e-12)


# ---- PyTorch's rules for the requires_grad flag, no_grad views, retain_grad --------------------

def test_requires_grad_can_only_be_set_on_leaves():
    y = minitorch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables. If you "
                                           "want to use a computed variable"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables.$"):
        y.requires_grad = True
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype"):
        minitorch.arange(3).requires_grad = True
    with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
        minitorch.ones(2).requires_grad = 1
    assert y.requires_grad and y.grad_fn is not None


def test_a_view_taken_under_no_grad_requires_grad_but_leads_nowhere():
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with minitorch.no_grad():
        v = x[:2]
        c = x * 2
    assert v.requires_grad and v.is_leaf and not c.requires_grad
    y = v * 2
    assert y.requires_grad and y.grad_fn.next_functions == ((None, 0), (None, 0))
    y.sum().backward()  # nothing to reach: no error, no gradient
    assert x.grad is None
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace"):
        v.add_(1)


def test_retain_grad_follows_an_in_place_op():
    x = minitorch.ones(2, requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.mul_(3)
    (y * 1).sum().backward()
    assert y.grad.tolist() == [1.0, 1.0] and x.grad.tolist() == [3.0, 3.0]  # the gradient of y's new value


def test_next_functions_list_the_tensor_first_for_reflected_operators():
    b = minitorch.tensor([1.0, 2.0], requires_grad=True).sin()
    node = (2 * b).grad_fn
    assert type(node).__name__ == "MulBackward0" and type(node.next_functions[0][0]).__name__ == "SinBackward0"
    assert node.next_functions[1] == (None, 0)
    assert [type(n).__name__ for n, _ in (2 - b).grad_fn.next_functions] == ["SinBackward0"]  # RsubBackward1


def test_accumulate_grad_is_named_as_in_pytorch():
    node = (minitorch.ones(2, requires_grad=True) * 2).grad_fn.next_functions[0][0]
    assert type(node).__name__ == "AccumulateGrad" and node.name() == "torch::autograd::AccumulateGrad"
