"""NumPy interop: .numpy() and from_numpy share memory both ways; tensor(ndarray) copies."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def test_numpy_shares_memory_both_ways():
    t = mt.zeros(2, 3)
    a = t.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32 and a.shape == (2, 3)
    a[0, 1] = 5.0
    assert t[0, 1].item() == 5.0
    t[1, 2] = -1.0
    assert a[1, 2] == -1.0
    t.add_(1)
    assert a[0, 0] == 1.0
    assert a.ctypes.data == t.data_ptr()


def test_numpy_of_a_view_is_a_view():
    t = mt.arange(12.0).reshape(3, 4)
    a = t.t().numpy()
    assert a.shape == (4, 3) and a.strides == (4, 16)  # the tensor's strides, in bytes
    a[3, 0] = 100.0
    assert t[0, 3].item() == 100.0
    s = t[1:, ::2].numpy()
    np.testing.assert_array_equal(s, np.arange(12.0).reshape(3, 4)[1:, ::2] * (s != 100))


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = mt.from_numpy(a)
    assert t.dtype is mt.int32 and t.shape == (2, 3)
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    t[1] = 7
    assert a[1].tolist() == [7, 7, 7]
    t.mul_(2)
    assert a[0, 0] == 84
    assert t.numpy() is not a and np.shares_memory(t.numpy(), a)


def test_from_numpy_of_non_contiguous_array_keeps_its_strides():
    a = np.arange(12.0).reshape(3, 4)
    t = mt.from_numpy(a.T)
    assert t.stride() == (1, 4) and not t.is_contiguous()
    a[2, 1] = -3.0
    assert t[1, 2].item() == -3.0


def test_tensor_of_ndarray_copies():
    a = np.ones(3)
    t = mt.tensor(a)
    a[0] = 9.0
    assert t[0].item() == 1.0
    t[1] = 5.0
    assert a[1] == 1.0
    assert t.dtype is mt.float64  # an ndarray's dtype is kept


def test_np_asarray_and_array_protocol():
    t = mt.arange(6).reshape(2, 3)
    a = np.asarray(t)
    assert a.dtype == np.int64 and a.shape == (2, 3)
    a[0, 0] = 10
    assert t[0, 0].item() == 10  # np.asarray shares, like .numpy()
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    c = np.array(t)  # np.array copies by default
    c[0, 0] = -1
    assert t[0, 0].item() == 10
    np.testing.assert_allclose(np.exp(mt.tensor([0.0, 1.0])), np.exp([0.0, 1.0]), rtol=1e-6)


def test_np_asarray_of_tensor_that_requires_grad_raises_like_numpy():
    t = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        np.asarray(t)
    np.testing.assert_array_equal(np.asarray(t.detach()), [1.0, 2.0])


def test_numpy_on_requires_grad_raises_pytorchs_error():
    t = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad. Use "
                                           r"tensor.detach\(\).numpy\(\) instead."):
        t.numpy()
    with pytest.raises(RuntimeError, match="requires grad"):
        (t * 2).numpy()
    a = t.detach().numpy()
    a[0] = 7.0
    assert t[0].item() == 7.0  # detach().numpy() still shares
    f = t.numpy(force=True)
    np.testing.assert_array_equal(f, [7.0, 2.0])


@pytest.mark.parametrize("np_dtype, dt", [(np.bool_, mt.bool), (np.uint8, mt.uint8), (np.int8, mt.int8),
                                          (np.int16, mt.int16), (np.int32, mt.int32), (np.int64, mt.int64),
                                          (np.float16, mt.float16), (np.float32, mt.float32),
                                          (np.float64, mt.float64)])
def test_dtype_round_trip(np_dtype, dt):
    a = np.zeros(3, np_dtype)
    t = mt.from_numpy(a)
    assert t.dtype is dt
    assert t.numpy().dtype == np.dtype(np_dtype)
    assert mt.tensor(a).dtype is dt and mt.as_tensor(a).dtype is dt


def test_unsupported_numpy_dtypes():
    for bad in (np.complex64, np.uint16, np.object_, np.str_):
        with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
            mt.from_numpy(np.zeros(2, bad))


def test_tolist_and_item_return_python_numbers():
    t = mt.from_numpy(np.array([1.5, 2.5], np.float32))
    assert t.tolist() == [1.5, 2.5] and all(type(v) is float for v in t.tolist())
    assert type(mt.from_numpy(np.array([3], np.int16))[0].item()) is int


def test_pickle_and_deepcopy_copy_values():
    import copy
    import pickle
    t = mt.tensor([[1.0, 2.0]], requires_grad=True)
    for u in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert u.tolist() == [[1.0, 2.0]] and u.requires_grad and u.dtype is mt.float32
        assert u.data_ptr() != t.data_ptr()
