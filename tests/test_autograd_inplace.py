"""In-place operations and autograd: PyTorch's three rules, checked by hand-derived values.

1. A leaf that requires grad may not be modified in place (with grad mode on).
2. A tensor saved for backward may not change before backward runs: versions are checked.
3. Otherwise the in-place op is recorded, also through views (CopySlices), and views taken
   before the change see the new history.
"""
from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck


def leaf(values):
    return minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)


def approx(t, expected):
    np.testing.assert_allclose(np.asarray(t.tolist(), dtype=float), np.asarray(expected, dtype=float),
                               rtol=1e-12, atol=1e-12)


X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]

INPLACE_OPS = {
    "add_": lambda t: t.add_(1.0), "sub_": lambda t: t.sub_(1.0), "mul_": lambda t: t.mul_(2.0),
    "div_": lambda t: t.div_(2.0), "pow_": lambda t: t.pow_(2), "iadd": lambda t: t.__iadd__(1.0),
    "imul": lambda t: t.__imul__(2.0), "exp_": lambda t: t.exp_(), "neg_": lambda t: t.neg_(),
    "abs_": lambda t: t.abs_(), "sigmoid_": lambda t: t.sigmoid_(), "relu_": lambda t: t.relu_(),
    "tanh_": lambda t: t.tanh_(), "clamp_": lambda t: t.clamp_(-1.0, 1.0), "fill_": lambda t: t.fill_(0.5),
    "zero_": lambda t: t.zero_(), "copy_": lambda t: t.copy_(minitorch.ones(2, 3)),
    "setitem": lambda t: t.__setitem__((0, 1), 7.0), "setitem_mask": lambda t: t.__setitem__(t > 0, 0.0),
    "masked_fill_": lambda t: t.masked_fill_(t > 0, 0.0),
}


@pytest.mark.parametrize("op", sorted(INPLACE_OPS))
def test_inplace_on_a_leaf_that_requires_grad_is_refused(op):
    x = leaf(X)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place "
                                           "operation"):
        INPLACE_OPS[op](x)
    assert x.tolist() == X and x._version == 0 and x.is_leaf  # refused before writing anything


@pytest.mark.parametrize("op", sorted(INPLACE_OPS))
def test_inplace_on_a_view_of_such_a_leaf_is_refused(op):
    x = leaf(X * 2)  # 4 x 3
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation"):
        INPLACE_OPS[op](x[1:3])
    assert x.tolist() == X * 2


@pytest.mark.parametrize("op", sorted(INPLACE_OPS))
def test_inplace_on_a_leaf_under_no_grad_is_allowed_and_counted(op):
    x = leaf(X)
    with minitorch.no_grad():
        INPLACE_OPS[op](x)
    assert x.is_leaf and x.grad_fn is None and x.requires_grad
    assert x._version >= 1


@pytest.mark.parametrize("op", sorted(INPLACE_OPS))
def test_inplace_on_a_non_leaf_is_recorded(op):
    x = leaf(X)
    y = x * 1
    node = y.grad_fn
    version = y._version
    out = INPLACE_OPS[op](y)
    assert out is None or out is y
    assert y.grad_fn is not node and y.requires_grad and y._version > version


def test_view_taken_under_no_grad_may_not_be_modified_with_grad_on():
    x = leaf([1.0, 2.0, 3.0])
    with minitorch.no_grad():
        v = x[:2]
    for t in (v, v[1:], v.t()):
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace "
                                               "with grad mode enabled"):
            t.mul_(2)
    assert x.tolist() == [1.0, 2.0, 3.0]
    with minitorch.no_grad():
        v.mul_(2)  # both inside no_grad: allowed
    plain = minitorch.zeros(3)
    with minitorch.no_grad():
        pv = plain[1:]
    pv.add_(1)  # nothing requires grad: allowed
    assert x.tolist() == [2.0, 4.0, 3.0] and plain.tolist() == [0.0, 1.0, 1.0]


def test_optimizer_style_update():
    w = leaf([1.0, -2.0])
    for _ in range(2):
        loss = (w * w).sum()  # gradient 2w
        loss.backward()
        with minitorch.no_grad():
            w -= 0.25 * w.grad  # w <- w - 0.5 w = 0.5 w
        w.grad = None
    approx(w, [0.25, -0.5])
    assert w.is_leaf and w._version == 2


# ---- rule 2: saved tensors ---------------------------------------------------------------

SAVES_INPUT = {
    "mul": lambda t: t * t, "div": lambda t: t / t, "pow": lambda t: t ** 3, "sin": lambda t: t.sin(),
    "log": lambda t: t.log(), "abs": lambda t: t.abs(), "matmul": lambda t: t @ t,
    "prod": lambda t: t.prod(), "clamp": lambda t: t.clamp(0.0, 2.5), "maximum": lambda t: minitorch.maximum(t, t * 0),
    "amax": lambda t: t.amax(),
}
SAVES_OUTPUT = {
    "exp": lambda t: t.exp(), "tanh": lambda t: t.tanh(), "sigmoid": lambda t: t.sigmoid(), "sqrt": lambda t: t.sqrt(),
    "relu": lambda t: t.relu(), "softmax": lambda t: t.softmax(0), "log_softmax": lambda t: t.log_softmax(0),
}


@pytest.mark.parametrize("name", sorted(SAVES_INPUT))
def test_modifying_a_saved_input_makes_backward_fail(name):
    x = leaf([[1.0, 2.0], [0.5, 3.0]])
    h = x * 1  # version 0, output 0 of MulBackward0
    out = SAVES_INPUT[name](h)
    h.add_(1)  # version 1
    with pytest.raises(RuntimeError, match=r"one of the variables needed for gradient computation has been "
                                           r"modified by an inplace operation: \[torch.DoubleTensor \[2, 2\]\], "
                                           r"which is output 0 of Add, is at version 1; expected "
                                           r"version 0 instead"):
        out.sum().backward()


@pytest.mark.parametrize("name", sorted(SAVES_OUTPUT))
def test_modifying_a_saved_output_makes_backward_fail(name):
    x = leaf([[1.0, 2.0], [0.5, 3.0]])
    out = SAVES_OUTPUT[name](x)
    out.mul_(2)
    with pytest.raises(RuntimeError, match=r"is at version 1; expected version 0 instead"):
        out.sum().backward()


def test_the_message_names_the_versions_and_the_culprit():
    x = leaf([1.0, 2.0])
    y = x.exp()
    y.add_(1)
    y.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    msg, hint = str(info.value), "\n".join(getattr(info.value, "__notes__", [])) or str(info.value)
    assert "[torch.DoubleTensor [2]]" in msg and "is at version 2; expected version 0 instead" in msg
    assert "ExpBackward0" in hint and ".clone()" in hint  # what saved it, and the fix (the note)


def test_modifying_a_view_of_a_saved_tensor_is_caught():
    x = leaf([1.0, 2.0, 3.0])
    h = x * 1
    out = h.sin()
    h[1:].mul_(2)  # the view shares h's version counter
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_modifying_a_tensor_that_is_not_saved_is_fine():
    x = leaf([1.0, 2.0])
    h = x * 3
    out = h + 1  # AddBackward0 saves nothing
    h.mul_(100)
    out.sum().backward()
    approx(x.grad, [3, 3])


def test_inplace_op_that_saves_its_own_result_catches_a_later_change():
    y = leaf([0.0, 1.0]) * 1
    y.sigmoid_()  # sigmoid's backward needs its output, which is y itself
    y.tanh_()
    with pytest.raises(RuntimeError, match="is at version 2; expected version 1 instead"):
        y.sum().backward()


def test_retain_graph_then_inplace_still_caught_on_the_second_pass():
    x = leaf([1.0, 2.0])
    h = x * 1
    out = (h * h).sum()
    out.backward(retain_graph=True)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


# ---- rule 3: recorded, with the right gradients ------------------------------------------

def test_chain_of_inplace_ops_by_hand():
    x = leaf([1.0, -0.5, 2.0])
    y = x * 2
    y.mul_(x)       # 2x^2
    y.add_(3)       # 2x^2 + 3
    y.pow_(2)       # (2x^2 + 3)^2  -> d/dx = 2 (2x^2 + 3) 4x
    y.sum().backward()
    xs = np.array([1.0, -0.5, 2.0])
    approx(x.grad, 2 * (2 * xs ** 2 + 3) * 4 * xs)
    assert type(y.grad_fn).__name__ == "PowBackward0"


def test_inplace_with_a_broadcast_operand_that_requires_grad():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = leaf([10.0, 20.0, 30.0])
    y = x * 1
    y.mul_(b)  # y = x * b: db = column sums of x
    y.sum().backward()
    approx(b.grad, [5, 7, 9])
    approx(x.grad, [[10, 20, 30], [10, 20, 30]])


def test_inplace_into_a_tensor_that_did_not_require_grad():
    w = leaf([1.0, 2.0, 3.0])
    z = minitorch.zeros(3, dtype=minitorch.float64)
    z.add_(w * w)  # z now has history
    assert z.requires_grad and not z.is_leaf
    z.sum().backward()
    approx(w.grad, [2, 4, 6])


def test_setitem_on_a_non_leaf():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    v = leaf([10.0, 20.0])
    y = x * 2
    y[0] = v * 3        # row 0 replaced: no gradient to x there, 3 to v
    y[1, 1] = 0.0       # one element overwritten by a constant
    (y * y).sum().backward()
    approx(x.grad, [[0, 0], [2 * 2 * 3.0 * 2, 0]])   # d(2x)^2/dx = 8x at x = 3
    approx(v.grad, [2 * 30.0 * 3, 2 * 60.0 * 3])      # d(3v)^2/dv = 18v


def test_setitem_with_a_mask_and_with_an_index_tensor():
    x = leaf([1.0, -2.0, 3.0, -4.0])
    y = x * 1
    y[y < 0] = 0.0  # relu by assignment
    y[minitorch.tensor([0, 2])] = y[minitorch.tensor([0, 2])] * 5
    y.sum().backward()
    approx(x.grad, [5, 0, 5, 0])


def test_setitem_into_a_plain_tensor_with_a_value_that_requires_grad():
    w = leaf([1.0, 2.0])
    z = minitorch.zeros(2, 2, dtype=minitorch.float64)
    z[1] = w * w
    z.sum().backward()
    approx(w.grad, [2, 4])


def test_inplace_on_a_view_of_a_non_leaf_copyslices():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    v = y[0]
    v.mul_(3)
    assert type(y.grad_fn).__name__ == "CopySlices" and type(v.grad_fn).__name__ == "AsStridedBackward0"
    assert y.tolist() == [[3.0, 6.0], [3.0, 4.0]] and y._version == v._version == 1
    (y * y).sum().backward()
    approx(x.grad, [[18, 36], [6, 8]])  # row 0: d(3x)^2 = 18x; row 1: 2x


def test_inplace_on_a_strided_view_with_an_operand():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    w = leaf([10.0, 20.0])
    y = x * 1
    y[:, 1].mul_(w)  # column 1 multiplied by w, row-wise
    y.sum().backward()
    approx(x.grad, [[1, 10, 1], [1, 20, 1]])
    approx(w.grad, [2.0, 5.0])


def test_views_taken_before_an_inplace_op_see_the_new_values_and_history():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    first_row = y[0]       # taken before
    column = y[:, 1]
    y.mul_(2)              # base changed: both views now read 2x
    first_row[1:].add_(x[1, :1])  # and a view of a view changed: y[0, 1] = 2 x01 + x10
    assert first_row.tolist() == [2.0, 7.0] and column.tolist() == [7.0, 8.0]
    (first_row.sum() + (column * column).sum()).backward()
    # d/dx: first_row = [2 x00, 2 x01 + x10]; column = [2 x01 + x10, 2 x11]
    # sum(first_row): x00: 2, x01: 2, x10: 1
    # column^2: x01: 2*7*2 = 28, x10: 2*7 = 14, x11: 2*8*2 = 32
    approx(x.grad, [[2, 2 + 28], [1 + 14, 32]])


def test_view_of_a_plain_tensor_gets_history_from_a_later_inplace_op():
    base = minitorch.zeros(2, 3, dtype=minitorch.float64)
    row = base[0]
    w = leaf([1.0, 2.0, 3.0])
    base.add_(w)  # every row is now w
    assert (row * row).requires_grad  # the view's history is renewed when it is next used
    (row * row).sum().backward()
    approx(w.grad, [2, 4, 6])


def test_inplace_on_a_detached_alias_leaves_the_graph_alone():
    x = leaf([1.0, 2.0])
    d = x.detach()
    with minitorch.no_grad():
        d.zero_()
    assert x.tolist() == [0.0, 0.0] and x.is_leaf and x._version == 1


def test_second_derivative_through_inplace_ops():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 1
    y.mul_(x)      # x^2
    (g,) = minitorch.autograd.grad(y.sum(), x, create_graph=True)
    approx(g, [2, 4, 6])
    (h,) = minitorch.autograd.grad(g.sum(), x)
    approx(h, [2, 2, 2])


def test_second_derivative_through_copyslices():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    y[0].mul_(x[1])  # row 0 becomes x0 * x1 (elementwise)
    out = (y * y).sum()  # (x0 x1)^2 + x1^2
    (g,) = minitorch.autograd.grad(out, x, create_graph=True)
    x0, x1 = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    approx(g, [2 * x0 * x1 ** 2, 2 * x0 ** 2 * x1 + 2 * x1])
    (h,) = minitorch.autograd.grad(g.sum(), x)
    # d/dx0 of sum(g) = 2 x1^2 + 4 x0 x1 ; d/dx1 = 4 x0 x1 + 2 x0^2 + 2
    approx(h, [2 * x1 ** 2 + 4 * x0 * x1, 4 * x0 * x1 + 2 * x0 ** 2 + 2])


def _view_program(x, v):
    y = x.exp()
    z = y * 1
    z[1:, ::2].mul_(v)          # strided view of a non-leaf, operand broadcast over rows
    z[0].add_(z[2] * 0.5)       # reads one view, writes another
    return z.t()[1:]


def test_gradcheck_through_views_and_inplace():
    x = leaf([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9]])
    v = leaf([1.5, -2.0])
    assert gradcheck(_view_program, (x, v))
    assert gradgradcheck(_view_program, (x, v), atol=1e-4)


def test_writing_through_an_expanded_tensor_is_refused():
    y = leaf([1.0, 2.0]) * 1
    e = y.expand(3, 2)
    with pytest.raises(RuntimeError, match="unsupported operation: more than one element of the written-to tensor "
                                           "refers to a single memory location"):
        e.add_(1)
