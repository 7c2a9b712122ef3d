"""In-place ops: return the same object, write into memory every view sees, bump the shared
version counter; and refuse what PyTorch refuses."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

RNG = np.random.default_rng(11)
A = RNG.uniform(0.5, 2.0, (3, 4)).astype(np.float32)  # positive, for log/sqrt
V = RNG.uniform(-1.0, 1.0, 4).astype(np.float32)

# (method, args, kwargs, NumPy version of the result)
BINARY = [
    ("add_", (mt.tensor(V),), {}, lambda a: a + V),
    ("add_", (mt.tensor(V),), {"alpha": 3}, lambda a: a + 3 * V),
    ("add_", (2.5,), {}, lambda a: a + 2.5),
    ("sub_", (mt.tensor(V),), {}, lambda a: a - V),
    ("sub_", (1,), {"alpha": 2}, lambda a: a - 2),
    ("mul_", (mt.tensor(V),), {}, lambda a: a * V),
    ("mul_", (mt.tensor(A[:, :1]),), {}, lambda a: a * A[:, :1]),
    ("div_", (mt.tensor(V),), {}, lambda a: a / V),
    ("div_", (4,), {}, lambda a: a / 4),
    ("pow_", (2,), {}, lambda a: a ** 2),
    ("pow_", (mt.tensor(V),), {}, lambda a: a ** V),
    ("clamp_", (0.8, 1.5), {}, lambda a: np.clip(a, 0.8, 1.5)),
    ("clamp_", (), {"min": 1.0}, lambda a: np.maximum(a, 1.0)),
    ("clip_", (), {"max": 1.0}, lambda a: np.minimum(a, 1.0)),
    ("relu_", (), {}, lambda a: np.maximum(a - 1.0, 0) + 0 * a),
    ("exp_", (), {}, np.exp), ("log_", (), {}, np.log), ("sqrt_", (), {}, np.sqrt), ("sin_", (), {}, np.sin),
    ("cos_", (), {}, np.cos), ("tanh_", (), {}, np.tanh), ("abs_", (), {}, np.abs), ("neg_", (), {}, np.negative),
    ("floor_", (), {}, np.floor), ("ceil_", (), {}, np.ceil), ("round_", (), {}, np.round),
    ("sigmoid_", (), {}, lambda a: 1 / (1 + np.exp(-a))),
    ("zero_", (), {}, np.zeros_like), ("fill_", (3.5,), {}, lambda a: np.full_like(a, 3.5)),
    ("fill_", (mt.tensor(-2.0),), {}, lambda a: np.full_like(a, -2.0)),
    ("copy_", (mt.tensor(V),), {}, lambda a: np.broadcast_to(V, a.shape)),
    ("copy_", (mt.tensor(A.T.copy()).t(),), {}, lambda a: A),
    ("copy_", (mt.tensor(np.arange(12).reshape(3, 4)),), {}, lambda a: np.arange(12.0).reshape(3, 4)),
    ("masked_fill_", (mt.tensor(A > 1.2), 0.0), {}, lambda a: np.where(A > 1.2, 0.0, a)),
]


@pytest.mark.parametrize("method, args, kwargs, expected", BINARY,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(BINARY)])
def test_inplace_returns_self_and_writes_memory(method, args, kwargs, expected):
    t = mt.tensor(A) if method != "relu_" else mt.tensor(A) - 1.0
    ptr, version = t.data_ptr(), t._version
    view = t.t()  # a view made before the write sees it too
    np_view = t.numpy()
    out = getattr(t, method)(*args, **kwargs)
    assert out is t
    assert t.data_ptr() == ptr  # same memory, not a new buffer
    want = expected(A).astype(np.float32)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(view.numpy(), want.T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_view, want, rtol=1e-5, atol=1e-6)
    assert t._version == version + 1 and view._version == t._version


def test_operators_iadd_etc_are_in_place():
    t = mt.tensor(A)
    alias = t
    ptr = t.data_ptr()
    t += 1
    t -= mt.tensor(V)
    t *= 2
    t /= 4
    t **= 2
    assert t is alias and t.data_ptr() == ptr and t._version == 5
    np.testing.assert_allclose(t.numpy(), (((A + 1 - V) * 2) / 4) ** 2, rtol=1e-5)


def test_inplace_on_a_view_changes_the_base_and_every_other_view():
    base = mt.tensor(A)
    row = base[1]
    col = base[:, 2]
    row.mul_(10)
    expected = A.copy()
    expected[1] *= 10
    np.testing.assert_allclose(base.numpy(), expected)
    assert col[1].item() == pytest.approx(A[1, 2] * 10)
    assert base._version == row._version == col._version == 1
    base.t()[0].zero_()  # writes column 0 of base
    assert bool((base[:, 0] == 0).all())
    assert base._version == 2


def test_setitem_and_every_inplace_bump_the_same_counter():
    t = mt.zeros(3)
    v = t[1:]
    versions = [t._version]
    t[0] = 1.0
    versions.append(v._version)
    v.add_(1)
    versions.append(t._version)
    t.detach().fill_(2.0)  # detach shares the counter too
    versions.append(t._version)
    assert versions == [0, 1, 2, 3]
    assert t.clone()._version == 0  # a copy starts its own


def test_uniform_normal_random_fill():
    mt.manual_seed(0)
    t = mt.empty(10000)
    assert t.uniform_(-2, 3) is t
    a = t.numpy()
    assert a.min() >= -2 and a.max() < 3 and abs(a.mean() - 0.5) < 0.1
    assert t.normal_(5.0, 0.5) is t
    a = t.numpy()
    assert abs(a.mean() - 5.0) < 0.05 and abs(a.std() - 0.5) < 0.05
    assert t._version == 2


def test_inplace_dtype_rules():
    i = mt.tensor([1, 2, 3])
    i.add_(1)  # int + int stays int
    assert i.tolist() == [2, 3, 4] and i.dtype is mt.int64
    f = mt.tensor([1.0, 2.0])
    f.add_(mt.tensor([1, 1]))  # an int tensor may be added into a float one
    assert f.tolist() == [2.0, 3.0]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.add_(1.5)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.div_(2)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.exp_()
    assert i.tolist() == [2, 3, 4]  # a refused op leaves the tensor untouched
    i.fill_(2.7)  # fill_ and copy_ cast instead
    assert i.tolist() == [2, 2, 2]
    i.copy_(mt.tensor([1.9, -1.9, 0.5]))
    assert i.tolist() == [1, -1, 0]


def test_div_with_rounding_mode_in_place():
    i = mt.tensor([-7, 7])
    assert i.div_(2, rounding_mode="floor") is i and i.tolist() == [-4, 3] and i.dtype is mt.int64
    f = mt.tensor([-7.5, 7.5])
    f.div_(2, rounding_mode="trunc")
    assert f.tolist() == [-3.0, 3.0] and f._version == 1


def test_inplace_cannot_grow_the_tensor():
    t = mt.zeros(4)
    with pytest.raises(RuntimeError, match=r"output with shape \[4\] doesn't match the broadcast shape \[3, 4\]"):
        t.add_(mt.ones(3, 4))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        t.copy_(mt.ones(3, 4))


def test_inplace_on_expanded_tensor_is_refused():
    e = mt.zeros(1, 3).expand(4, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single "
                                           "memory location"):
        e.add_(1)


def test_inplace_on_leaf_that_requires_grad():
    w = mt.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place "
                                           "operation"):
        w.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w[0:2].mul_(2)
    with mt.no_grad():
        w.sub_(0.5)  # what optimizers do
    assert w.tolist() == [0.5, 0.5, 0.5] and w.requires_grad and w.is_leaf


def test_fill_with_tensor_must_be_0d():
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 "
                                           "dimensions"):
        mt.zeros(3).fill_(mt.tensor([1.0]))


def test_t_():
    t = mt.tensor(A)
    assert t.t_() is t
    assert t.shape == (4, 3)
    np.testing.assert_array_equal(t.numpy(), A.T)


# ---- Python's augmented assignments work in place, as PyTorch's do -------------------------

@pytest.mark.parametrize("op, expected", [("//=", [0, 1, 1]), ("%=", [1, 0, 1]), ("|=", [3, 2, 3]), ("&=", [0, 2, 2]),
                                          ("^=", [3, 0, 1]), ("<<=", [4, 8, 12]), (">>=", [0, 0, 0]),
                                          ("**=", [1, 4, 9])])
def test_augmented_assignment_writes_the_view_and_its_base(op, expected):
    a = mt.arange(1, 7)
    v = a[:3]
    scope = {"v": v}
    exec(f"v {op} 2", scope)
    assert scope["v"] is v
    assert a.tolist() == expected + [4, 5, 6] and a._version == 1


def test_augmented_assignment_keeps_the_dtype_rules():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t = mt.tensor([5, 7])
        t //= 2.0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        t = mt.tensor([5, 7])
        t %= 0
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        t = mt.tensor([5.0])
        t &= 1
