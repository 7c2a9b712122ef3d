"""matmul with PyTorch's shape rules (1-D vectors, 2-D matrices, batched stacks), vs NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

RNG = np.random.default_rng(7)


def a(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# NumPy's matmul follows the same rules as PyTorch's, so it is the oracle
@pytest.mark.parametrize("sa, sb", [
    ((3, 4), (4, 5)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)), ((4, 3), (2, 3, 5)), ((2, 3, 4), (4,)), ((3,), (2, 3, 5)), ((1, 3, 4), (6, 4, 2)),
    ((2, 1, 3, 4), (5, 4, 2)), ((0, 4), (4, 3)), ((3, 0), (0, 2)), ((1, 1), (1, 1)),
])
def test_matmul_shapes_and_values(sa, sb):
    x, y = a(*sa), a(*sb)
    expected = x @ y
    for out in (mt.tensor(x) @ mt.tensor(y), mt.matmul(mt.tensor(x), mt.tensor(y)),
                mt.tensor(x).matmul(mt.tensor(y))):
        assert tuple(out.shape) == expected.shape
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_matmul_of_views_and_ints():
    x = a(4, 3)
    np.testing.assert_allclose((mt.tensor(x).t() @ mt.tensor(x)).numpy(), x.T @ x, rtol=1e-5, atol=1e-5)
    i = RNG.integers(-3, 4, (2, 3))
    r = mt.tensor(i) @ mt.tensor(i.T.copy())
    assert r.dtype is mt.int64
    np.testing.assert_array_equal(r.numpy(), i @ i.T)


def test_matmul_vector_vector_is_0d():
    r = mt.tensor([1.0, 2.0, 3.0]) @ mt.tensor([4.0, 5.0, 6.0])
    assert r.shape == () and r.item() == 32.0  # 4 + 10 + 18


def test_mm_bmm_dot_mv_outer():
    x, y, v = a(3, 4), a(4, 5), a(4)
    np.testing.assert_allclose(mt.mm(mt.tensor(x), mt.tensor(y)).numpy(), x @ y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mt.mv(mt.tensor(x), mt.tensor(v)).numpy(), x @ v, rtol=1e-5, atol=1e-5)
    assert mt.dot(mt.tensor(v), mt.tensor(v)).item() == pytest.approx(float(v @ v), rel=1e-5)
    p, q = a(2, 3, 4), a(2, 4, 5)
    np.testing.assert_allclose(mt.bmm(mt.tensor(p), mt.tensor(q)).numpy(), p @ q, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mt.tensor(x).mm(mt.tensor(y)).numpy(), x @ y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mt.outer(mt.tensor(v), mt.tensor(v)).numpy(), np.outer(v, v), rtol=1e-6)


def test_matmul_shape_error_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 3x4\)"):
        mt.ones(3, 4) @ mt.ones(3, 4)
    with pytest.raises(RuntimeError) as info:
        mt.ones(2, 3, 4) @ mt.ones(2, 5, 6)
    assert "[2, 3, 4] @ [2, 5, 6]" in "".join([str(info.value), *getattr(info.value, "__notes__", ())])
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        mt.ones(3) @ mt.ones(4)
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        mt.tensor(2.0) @ mt.ones(3)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        mt.ones(2, 2) @ mt.ones(2, 2, dtype=mt.float64)
    with pytest.raises(RuntimeError, match="must match the size"):
        mt.ones(2, 3, 4) @ mt.ones(3, 4, 2)  # batch dims 2 and 3 don't broadcast
    with pytest.raises(RuntimeError, match="2D"):
        mt.mm(mt.ones(2, 2), mt.ones(2))
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        mt.dot(mt.ones(2, 2), mt.ones(2, 2))
    with pytest.raises(RuntimeError, match="3D"):
        mt.bmm(mt.ones(2, 2), mt.ones(2, 2))
