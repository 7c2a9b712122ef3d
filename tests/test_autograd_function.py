"""minitorch.autograd.Function: the torch.autograd.Function API learners extend.

forward(ctx, ...) / backward(ctx, ...), ctx.save_for_backward / saved_tensors,
ctx.needs_input_grad, non-tensor arguments, several outputs, mark_dirty,
mark_non_differentiable, set_materialize_grads, and the errors for wrong backward results.
"""
from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd import Function, gradcheck, gradgradcheck


def leaf(values):
    return minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class ScaledPow(Function):
    """k * x ** p, with p and k plain Python numbers."""

    @staticmethod
    def forward(ctx, x, p, k=1.0):
        ctx.save_for_backward(x)
        ctx.p, ctx.k = p, k
        return k * x ** p

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ctx.k * ctx.p * x ** (ctx.p - 1), None, None


class MulAdd(Function):
    """(x * y, x + y): two outputs, two inputs."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y, x + y

    @staticmethod
    def backward(ctx, g_mul, g_add):
        x, y = ctx.saved_tensors
        return g_mul * y + g_add, g_mul * x + g_add


def test_forward_and_backward_by_hand():
    x = leaf([0.0, 1.0, -2.0])
    y = Exp.apply(x)
    assert type(y.grad_fn).__name__ == "ExpBackward" and not y.is_leaf and y.requires_grad
    y.sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), np.exp([0.0, 1.0, -2.0]))
    assert gradcheck(Exp.apply, (leaf([0.3, -0.7]),))


def test_non_tensor_arguments():
    x = leaf([1.0, 2.0])
    y = ScaledPow.apply(x, 3, 0.5)  # 0.5 x^3 -> 1.5 x^2
    y.sum().backward()
    assert x.grad.tolist() == [1.5, 6.0]
    assert gradcheck(lambda t: ScaledPow.apply(t, 2.5, -1.0), (leaf([0.4, 1.3]),))


def test_needs_input_grad():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["forward"] = ctx.needs_input_grad
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            seen["backward"] = ctx.needs_input_grad
            return g, None, None

    a, b = leaf([1.0]), minitorch.tensor([2.0], dtype=minitorch.float64)
    Probe.apply(a, b, 3).sum().backward()
    assert seen["forward"] == seen["backward"] == (True, False, False)
    assert a.grad.tolist() == [1.0]


def test_saved_tensors_order_and_none():
    class Saver(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(b, None, a)
            return a * b

        @staticmethod
        def backward(ctx, g):
            b, nothing, a = ctx.saved_tensors
            assert nothing is None
            return g * b, g * a

    a, b = leaf([2.0]), leaf([5.0])
    Saver.apply(a, b).sum().backward()
    assert (a.grad.item(), b.grad.item()) == (5.0, 2.0)


def test_save_for_backward_refuses_non_tensors():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 1

    with pytest.raises(TypeError, match="save_for_backward can only save variables, but argument 1 is of type int"):
        Bad.apply(leaf([1.0]))


def test_multiple_outputs():
    x, y = leaf([1.0, 2.0]), leaf([3.0, -1.0])
    p, s = MulAdd.apply(x, y)
    assert p.grad_fn is s.grad_fn and p.tolist() == [3.0, -2.0] and s.tolist() == [4.0, 1.0]
    (p * 2 + s * 10).sum().backward()  # dx = 2y + 10, dy = 2x + 10
    assert x.grad.tolist() == [16.0, 8.0] and y.grad.tolist() == [12.0, 14.0]
    assert gradcheck(MulAdd.apply, (leaf([0.5, 1.5]), leaf([-1.0, 2.0])))


def test_unused_output_gets_zeros_unless_materialization_is_off():
    x, y = leaf([1.0, 2.0]), leaf([3.0, -1.0])
    p, _ = MulAdd.apply(x, y)
    p.sum().backward()  # g_add arrives as zeros, not None
    assert x.grad.tolist() == [3.0, -1.0]

    got = []

    class Raw(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 1, a * 2

        @staticmethod
        def backward(ctx, g1, g2):
            got.append((g1, g2 is None))
            return g2 * 2

    a = leaf([1.0])
    _, b = Raw.apply(a)
    b.sum().backward()
    assert got == [(None, False)] and a.grad.tolist() == [2.0]


def test_non_tensor_and_non_differentiable_outputs():
    class ValueAndIndex(Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, idx)
            return x.max(), idx, "note"

        @staticmethod
        def backward(ctx, g, g_idx, g_note):
            x, idx = ctx.saved_tensors
            out = minitorch.zeros_like(x)
            out[idx] = g
            return out

    x = leaf([1.0, 5.0, 2.0])
    v, i, note = ValueAndIndex.apply(x)
    assert v.requires_grad and not i.requires_grad and note == "note" and i.item() == 1
    v.backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


def test_forward_runs_without_recording():
    seen = []

    class Inner(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            seen.append((minitorch.is_grad_enabled(), y.requires_grad))
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Inner.apply(leaf([1.0]))
    assert seen == [(False, False)]


def test_no_graph_when_nothing_requires_grad():
    x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64)
    y = Exp.apply(x)
    assert not y.requires_grad and y.grad_fn is None
    with minitorch.no_grad():
        z = Exp.apply(leaf([1.0]))
    assert not z.requires_grad and z.grad_fn is None


def test_input_returned_as_is_becomes_a_new_output():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = leaf([1.0, 2.0])
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and not y.is_leaf
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_mark_dirty_keeps_the_object_and_records_it():
    class Double_(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf([1.0, 3.0])
    h = x * x
    out = Double_.apply(h)
    assert out is h and type(h.grad_fn).__name__ == "Double_Backward" and h.tolist() == [2.0, 18.0]
    h.sum().backward()  # 2 * x^2 -> 4x
    assert x.grad.tolist() == [4.0, 12.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place operation"):
        Double_.apply(leaf([1.0]))


def test_mark_dirty_on_a_view_rebases_its_base():
    class Scale_(Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(w)
            x.mul_(w)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            (w,) = ctx.saved_tensors
            return g * w, None

    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    Scale_.apply(y[1], minitorch.tensor([10.0, 20.0], dtype=minitorch.float64))
    assert type(y.grad_fn).__name__ == "CopySlices" and y.tolist() == [[1.0, 2.0], [30.0, 80.0]]
    (y * y).sum().backward()  # row 1 is x1 * w: d(x1 w)^2 / dx1 = 2 x1 w^2
    assert x.grad.tolist() == [[2.0, 4.0], [600.0, 3200.0]]


def test_wrong_number_of_gradients():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match=r"function TooFewBackward returned an incorrect number of gradients "
                                           r"\(expected 2, got 1\)"):
        TooFew.apply(leaf([1.0]), leaf([2.0])).sum().backward()
    with pytest.raises(RuntimeError, match=r"expected 2, got 1"):  # non-tensor args count too
        TooFew.apply(leaf([1.0]), 2.0).sum().backward()


def test_wrong_gradient_shape():
    class Truncates(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g[:2]

    with pytest.raises(RuntimeError, match=r"Function TruncatesBackward returned an invalid gradient at index 0 - "
                                           r"got \[2\] but expected shape compatible with \[3\]"):
        Truncates.apply(leaf([1.0, 2.0, 3.0])).sum().backward()


def test_broadcastable_gradient_is_summed_to_the_input_shape():
    class SumAll(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            return g.expand(2, 3)  # PyTorch sums an expandable gradient back to [3]

    x = leaf([1.0, 2.0, 3.0])
    SumAll.apply(x).backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_backward_may_return_none_for_an_input_that_requires_grad():
    class OnlySecond(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return None, g

    a, b = leaf([2.0]), leaf([3.0])
    c = a.exp()  # a built-in node that then receives no gradient at all
    OnlySecond.apply(c, b).sum().backward()
    assert a.grad is None and b.grad.tolist() == [1.0]


def test_saved_tensor_modified_in_place_is_reported():
    x = leaf([1.0, 2.0])
    h = x * 1
    y = ScaledPow.apply(h, 2)
    h.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch.DoubleTensor \[2\]\], "
                                           r"which is output 0 of Add, is at version 1; expected version 0"):
        y.sum().backward()


def test_saved_tensors_are_freed_after_backward():
    x = leaf([1.0])
    y = Exp.apply(x)
    node = y.grad_fn
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        node.saved_tensors
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()


def test_double_backward_through_a_custom_function():
    x = leaf([2.0, -1.0])
    y = ScaledPow.apply(x, 3)  # x^3
    (g,) = minitorch.autograd.grad(y.sum(), x, create_graph=True)  # 3x^2, recorded
    (h,) = minitorch.autograd.grad(g.sum(), x)  # 6x
    assert g.tolist() == [12.0, 3.0] and h.tolist() == [12.0, -6.0]
    assert gradgradcheck(lambda t: ScaledPow.apply(t, 3, 0.5), (leaf([0.4, 1.3]),))


def test_custom_function_inside_a_model():
    class MyLinear(Function):
        @staticmethod
        def forward(ctx, x, w, b):
            ctx.save_for_backward(x, w)
            return x @ w.t() + b

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            gx = g @ w if ctx.needs_input_grad[0] else None
            return gx, g.t() @ x, g.sum(0)

    rng = np.random.default_rng(0)
    x = minitorch.tensor(rng.normal(size=(4, 3)))
    w, b = leaf(rng.normal(size=(2, 3)).tolist()), leaf([0.1, -0.2])
    MyLinear.apply(x, w, b).tanh().sum().backward()
    mine = (w.grad.tolist(), b.grad.tolist())
    w.grad = b.grad = None
    (x @ w.t() + b).tanh().sum().backward()  # the same model from built-in ops
    np.testing.assert_allclose(mine[0], w.grad.tolist(), rtol=1e-12)
    np.testing.assert_allclose(mine[1], b.grad.tolist(), rtol=1e-12)
    assert gradcheck(MyLinear.apply, (leaf([[0.5, -1.0, 2.0]]), leaf([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]]),
                                      leaf([0.0, 1.0])))


def test_unimplemented_forward_and_backward():
    class NoForward(Function):
        pass

    with pytest.raises(NotImplementedError, match="You must implement the forward function"):
        NoForward.apply(leaf([1.0]))

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NotImplementedError, match="You must implement either the backward or vjp method"):
        NoBackward.apply(leaf([1.0])).sum().backward()
