"""Creating tensors: from data, from NumPy, filled, ranges, random; dtype=/device=/requires_grad=."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def same(t, expected, dtype=None):
    """`t` holds exactly `expected` (a NumPy array), with the given minitorch dtype."""
    assert isinstance(t, mt.Tensor)
    assert tuple(t.shape) == expected.shape
    if dtype is not None:
        assert t.dtype is dtype
    np.testing.assert_array_equal(t.numpy(), expected)


# ---- tensor() ----------------------------------------------------------------------------

@pytest.mark.parametrize("data, dtype", [
    ([1, 2, 3], mt.int64),
    ([[1.5, 2.0], [3.0, -4.25]], mt.float32),
    ([True, False], mt.bool),
    (3.5, mt.float32),
    (7, mt.int64),
    (False, mt.bool),
    ([[[1], [2]], [[3], [4]]], mt.int64),
    ((1, 2.0), mt.float32),
])
def test_tensor_from_python_data(data, dtype):
    t = mt.tensor(data)
    same(t, np.array(data, dtype=dtype.np), dtype)


def test_tensor_empty_and_nested_empty():
    assert mt.tensor([]).shape == (0,) and mt.tensor([]).dtype is mt.float32
    assert mt.tensor([[], []]).shape == (2, 0)


def test_tensor_dtype_argument_converts():
    same(mt.tensor([1, 2], dtype=mt.float64), np.array([1.0, 2.0]), mt.float64)
    same(mt.tensor([1.9, -1.9], dtype=mt.int32), np.array([1, -1], np.int32), mt.int32)


def test_tensor_copies_its_input():
    arr = np.arange(4.0)
    t = mt.tensor(arr)
    arr[0] = 100.0
    assert t[0].item() == 0.0
    src = mt.tensor([1.0, 2.0])
    t2 = mt.tensor(src)
    src[0] = 9.0
    assert t2.tolist() == [1.0, 2.0]


def test_tensor_from_numpy_keeps_numpy_dtype():
    assert mt.tensor(np.arange(3.0)).dtype is mt.float64  # an ndarray's dtype is kept (not the default)
    assert mt.tensor(np.arange(3, dtype=np.int16)).dtype is mt.int16
    assert mt.tensor(np.float32(2.5)).dtype is mt.float32
    same(mt.tensor(np.arange(6).reshape(2, 3).T), np.arange(6).reshape(2, 3).T)


def test_tensor_from_list_of_tensors():
    t = mt.tensor([mt.tensor(1.0), mt.tensor(2.5)])
    same(t, np.array([1.0, 2.5], np.float32), mt.float32)


def test_tensor_of_list_with_numpy_scalars_or_tensors_promotes_their_dtypes():
    # a Python float counts as the default dtype, a NumPy scalar or 0-d tensor as its own dtype
    assert mt.tensor([np.float64(1.5), 2]).dtype is mt.float64
    assert mt.tensor([np.float32(1.0), 2.5]).dtype is mt.float32
    assert mt.tensor([[np.int16(1)], [np.int8(2)]]).dtype is mt.int16
    assert mt.tensor([True, np.int32(2)]).dtype is mt.int32
    assert mt.tensor([mt.tensor(1.0, dtype=mt.float64), 2]).dtype is mt.float64
    assert mt.tensor([1.5, 2]).dtype is mt.float32 and mt.tensor(range(3)).dtype is mt.int64


def test_tensor_of_list_of_tensors_needs_stack():
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        mt.tensor([mt.tensor([1.0, 2.0]), mt.tensor([3.0, 4.0])])
    assert mt.tensor([mt.tensor([1.0])]).tolist() == [1.0]


def test_tensor_refuses_integers_beyond_int64():
    with pytest.raises(ValueError, match="Overflow"):
        mt.tensor([2 ** 63])
    with pytest.raises(ValueError, match="Overflow"):
        mt.tensor([1, 2 ** 70])
    assert mt.tensor([2 ** 63 - 1]).item() == 2 ** 63 - 1


def test_tensor_requires_grad():
    t = mt.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad is None
    with pytest.raises(RuntimeError, match="floating point"):
        mt.tensor([1, 2], requires_grad=True)


def test_tensor_rejects_ragged_and_non_numbers():
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        mt.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        mt.tensor("abc")
    with pytest.raises(TypeError, match="could not infer dtype of dict"):
        mt.tensor([{}, {}])


def test_legacy_Tensor_constructor():
    t = mt.Tensor([1, 2])
    same(t, np.array([1.0, 2.0], np.float32), mt.float32)
    assert mt.Tensor(2, 3).shape == (2, 3) and mt.Tensor(2, 3).dtype is mt.float32


# ---- as_tensor / from_numpy --------------------------------------------------------------

def test_as_tensor_shares_with_numpy_when_possible():
    arr = np.arange(3.0)
    t = mt.as_tensor(arr)
    arr[1] = 42.0
    assert t[1].item() == 42.0  # same memory
    c = mt.as_tensor(arr, dtype=mt.float32)
    arr[2] = -1.0
    assert c[2].item() == 2.0  # a conversion copies
    assert c.dtype is mt.float32


def test_as_tensor_of_tensor_is_itself():
    t = mt.tensor([1, 2])
    assert mt.as_tensor(t) is t
    assert mt.as_tensor(t, dtype=mt.float32).dtype is mt.float32


def test_as_tensor_from_list():
    same(mt.as_tensor([1, 2, 3]), np.array([1, 2, 3]), mt.int64)


def test_from_numpy_shares_memory_and_keeps_dtype():
    arr = np.zeros((2, 3), np.int16)
    t = mt.from_numpy(arr)
    assert t.dtype is mt.int16 and t.shape == (2, 3)
    t[0, 1] = 5
    assert arr[0, 1] == 5
    arr[1, 2] = 7
    assert t[1, 2].item() == 7
    assert t.data_ptr() == arr.ctypes.data


def test_from_numpy_rejects_non_arrays_and_negative_strides():
    with pytest.raises(TypeError, match="expected np.ndarray"):
        mt.from_numpy([1, 2])
    with pytest.raises(ValueError, match="negative"):
        mt.from_numpy(np.arange(4)[::-1])
    with pytest.raises(TypeError, match="complex128"):
        mt.from_numpy(np.zeros(2, np.complex128))


# ---- filled ----------------------------------------------------------------------------

@pytest.mark.parametrize("fn, np_fn", [(mt.zeros, np.zeros), (mt.ones, np.ones)])
def test_zeros_ones(fn, np_fn):
    same(fn(2, 3), np_fn((2, 3), np.float32), mt.float32)
    same(fn((2, 3)), np_fn((2, 3), np.float32))
    same(fn([4]), np_fn(4, np.float32))
    same(fn(mt.Size([1, 2])), np_fn((1, 2), np.float32))
    same(fn(()), np_fn((), np.float32))
    same(fn(0, 2), np_fn((0, 2), np.float32))
    same(fn(3, dtype=mt.int8), np_fn(3, np.int8), mt.int8)
    same(fn(2, dtype=mt.bool), np_fn(2, bool), mt.bool)
    t = fn(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf


def test_sizes_must_be_non_negative_ints():
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        mt.ones(2, -1)
    with pytest.raises(RuntimeError, match="zeros: Dimension size must be non-negative."):  # (PyTorch's own check)
        mt.zeros(2, -1)
    with pytest.raises(TypeError, match="tuple of ints"):
        mt.ones(2.5)


def test_empty_has_shape_and_dtype():
    t = mt.empty(3, 4, dtype=mt.float64)
    assert t.shape == (3, 4) and t.dtype is mt.float64


def test_full_infers_dtype_from_fill_value():
    same(mt.full((2, 2), 1.5), np.full((2, 2), 1.5, np.float32), mt.float32)
    same(mt.full((3,), 7), np.full(3, 7, np.int64), mt.int64)
    same(mt.full((2,), True), np.full(2, True), mt.bool)
    same(mt.full((2,), 7, dtype=mt.float64), np.full(2, 7.0), mt.float64)
    same(mt.full((3,), -1), np.full(3, -1))
    with pytest.raises(TypeError, match=r"full\(\): argument 'size' \(position 1\) must be tuple of ints, not int"):
        mt.full(3, -1)  # (PyTorch takes full's size as a sequence only)


def test_like_factories_copy_shape_dtype_not_values():
    src = mt.tensor([[1, 2, 3]], dtype=mt.int16)
    same(mt.zeros_like(src), np.zeros((1, 3), np.int16), mt.int16)
    same(mt.ones_like(src, dtype=mt.float32), np.ones((1, 3), np.float32), mt.float32)
    same(mt.full_like(src, 4), np.full((1, 3), 4, np.int16), mt.int16)
    same(mt.full_like(src, 2.7), np.full((1, 3), 2, np.int16))  # cast to the tensor's dtype
    assert mt.empty_like(src).shape == (1, 3) and mt.empty_like(src).dtype is mt.int16
    f = mt.zeros(2, 2, dtype=mt.float64)
    assert mt.rand_like(f).dtype is mt.float64 and mt.rand_like(f).shape == (2, 2)
    assert mt.randn_like(f).shape == (2, 2)
    r = mt.randint_like(f, 5)
    assert r.dtype is mt.float64 and bool(((r >= 0) & (r < 5)).all())
    assert mt.zeros_like(f, requires_grad=True).requires_grad
    assert src.new_zeros(2).dtype is mt.int16 and src.new_ones((1, 2)).shape == (1, 2)
    same(src.new_tensor([5, 6]), np.array([5, 6], np.int16), mt.int16)
    same(src.new_full((2,), 3), np.array([3, 3], np.int16))


# ---- ranges -----------------------------------------------------------------------------

@pytest.mark.parametrize("args, np_args", [
    ((5,), (5,)), ((2, 9), (2, 9)), ((2, 9, 3), (2, 9, 3)), ((5, 0, -2), (5, 0, -2)), ((3, 3), (3, 3)),
])
def test_arange_ints(args, np_args):
    same(mt.arange(*args), np.arange(*np_args), mt.int64)


@pytest.mark.parametrize("args", [(5.0,), (0, 1, 0.1), (-1.5, 1.5, 0.7), (1, 2.5, 0.5), (0, -1, -0.25)])
def test_arange_floats(args):
    t = mt.arange(*args)
    assert t.dtype is mt.float32
    np.testing.assert_allclose(t.numpy(), np.arange(*args, dtype=np.float64), rtol=1e-6, atol=1e-6)


def test_arange_float_has_ceil_of_span_over_step_elements():
    # (1 - 0) / 0.1 = 10 steps: NumPy float32 arithmetic could give 11 elements
    assert mt.arange(0, 1, 0.1).numel() == 10
    assert mt.arange(0, 1, 0.1, dtype=mt.float64).dtype is mt.float64


def test_arange_errors():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        mt.arange(0, 3, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        mt.arange(0, 3, -1)


def test_linspace():
    t = mt.linspace(0, 1, 5)
    same(t, np.linspace(0, 1, 5, dtype=np.float32), mt.float32)
    np.testing.assert_allclose(mt.linspace(-2, 3, 7, dtype=mt.float64).numpy(), np.linspace(-2, 3, 7))
    same(mt.linspace(2, 3, 1), np.array([2.0], np.float32))
    assert mt.linspace(2, 3, 0).shape == (0,)
    with pytest.raises(RuntimeError, match="non-negative"):
        mt.linspace(0, 1, -1)


def test_eye():
    same(mt.eye(3), np.eye(3, dtype=np.float32), mt.float32)
    same(mt.eye(2, 4), np.eye(2, 4, dtype=np.float32))
    same(mt.eye(2, dtype=mt.int64), np.eye(2, dtype=np.int64), mt.int64)
    assert mt.eye(2, requires_grad=True).requires_grad


# ---- random ----------------------------------------------------------------------------

def test_rand_is_uniform_in_unit_interval():
    mt.manual_seed(0)
    t = mt.rand(10000)
    assert t.dtype is mt.float32 and t.shape == (10000,)
    a = t.numpy()
    assert a.min() >= 0.0 and a.max() < 1.0
    assert abs(a.mean() - 0.5) < 0.02 and abs(a.var() - 1 / 12) < 0.01  # U(0,1): mean 1/2, variance 1/12


def test_randn_is_standard_normal():
    mt.manual_seed(1)
    a = mt.randn(100, 100).numpy()
    assert a.shape == (100, 100)
    assert abs(a.mean()) < 0.05 and abs(a.std() - 1.0) < 0.05


def test_randint_range_shape_dtype():
    mt.manual_seed(2)
    t = mt.randint(3, 7, (1000,))
    assert t.dtype is mt.int64 and t.shape == (1000,)
    assert set(np.unique(t.numpy())) == {3, 4, 5, 6}  # high is exclusive
    assert mt.randint(5, (2, 2)).shape == (2, 2)
    assert mt.randint(0, 2, (3,), dtype=mt.int8).dtype is mt.int8
    with pytest.raises(RuntimeError, match="from=3 >= to=3"):
        mt.randint(3, 3, (2,))


def test_random_float_factories_refuse_int_dtypes():
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        mt.rand(2, dtype=mt.int64)


@pytest.mark.parametrize("draw", [
    lambda: mt.rand(3, 2), lambda: mt.randn(4), lambda: mt.randint(0, 100, (5,)), lambda: mt.randperm(6),
    lambda: mt.empty(5).uniform_(-1, 1), lambda: mt.empty(5).normal_(2.0, 0.5),
])
def test_manual_seed_reproduces(draw):
    mt.manual_seed(123)
    a = draw().numpy().copy()
    b = draw().numpy().copy()
    mt.manual_seed(123)
    np.testing.assert_array_equal(draw().numpy(), a)
    np.testing.assert_array_equal(draw().numpy(), b)
    assert not np.array_equal(a, b) or a.size <= 1


def test_generator_objects_are_independent():
    g1 = mt.Generator().manual_seed(7)
    g2 = mt.Generator().manual_seed(7)
    mt.manual_seed(99)
    a = mt.rand(4, generator=g1)
    mt.rand(10)  # the default generator does not disturb g2
    np.testing.assert_array_equal(mt.rand(4, generator=g2).numpy(), a.numpy())
    assert g1.initial_seed() == 7


def test_rng_state_round_trip():
    mt.manual_seed(5)
    state = mt.get_rng_state()
    a = mt.randn(3).numpy().copy()
    mt.set_rng_state(state)
    np.testing.assert_array_equal(mt.randn(3).numpy(), a)


def test_randperm_is_a_permutation():
    mt.manual_seed(3)
    p = mt.randperm(20)
    assert p.dtype is mt.int64 and sorted(p.tolist()) == list(range(20))


# ---- device= ---------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda **kw: mt.tensor([1.0], **kw), lambda **kw: mt.zeros(2, **kw), lambda **kw: mt.ones(2, **kw),
    lambda **kw: mt.full((2,), 1.0, **kw), lambda **kw: mt.arange(3, **kw), lambda **kw: mt.linspace(0, 1, 3, **kw),
    lambda **kw: mt.eye(2, **kw), lambda **kw: mt.rand(2, **kw), lambda **kw: mt.randn(2, **kw),
    lambda **kw: mt.randint(0, 3, (2,), **kw), lambda **kw: mt.empty(2, **kw),
])
def test_device_argument_cpu(make):
    for dev in ("cpu", mt.device("cpu"), mt.device("cpu", 0)):
        t = make(device=dev)
        assert t.device == mt.device("cpu") and t.device.type == "cpu" and not t.is_cuda
    with pytest.raises(RuntimeError, match="device"):
        make(device="tpu")


# ---- PyTorch's call forms and legacy constructors ---------------------------------------------

def test_size_keyword_and_missing_size():
    assert mt.zeros(size=(2, 3)).shape == (2, 3) and mt.ones(size=[2]).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="got multiple values for argument 'size'"):
        mt.zeros(2, size=(2, 3))
    with pytest.raises(TypeError, match="missing 1 required positional arguments"):
        mt.ones()


def test_fill_values_are_checked_against_the_dtype():
    assert mt.full((2,), -1, dtype=mt.uint8).tolist() == [255, 255]
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        mt.full((2,), 300, dtype=mt.uint8)


def test_legacy_typed_constructors():
    assert mt.FloatTensor([1, 2]).dtype is mt.float32 and mt.LongTensor([1.5, 2]).tolist() == [1, 2]
    assert mt.FloatTensor(2, 3).shape == (2, 3) and mt.DoubleTensor([1]).dtype is mt.float64
    assert isinstance(mt.ones(1), mt.FloatTensor) and not isinstance(mt.ones(1), mt.LongTensor)
    assert type(mt.FloatTensor([1])) is mt.Tensor
    with pytest.raises(TypeError, match="data must be a sequence"):
        mt.Tensor(3.5)


def test_legacy_constructor_shares_memory_where_pytorch_does():
    a = np.array([1, 2], np.float32)
    t = mt.Tensor(a)
    a[0] = 99
    assert t.tolist() == [99.0, 2.0]  # float32 data: the same memory
    b = np.array([1, 2], np.float64)
    u = mt.Tensor(b)
    b[0] = 99
    assert u.tolist() == [1.0, 2.0]  # converted: a copy
    src = mt.tensor([1.0, 2.0])
    v = mt.Tensor(src)
    src[0] = 7.0
    assert v.tolist() == [7.0, 2.0]


def test_tensor_of_a_tensor_warns_as_pytorch():
    with pytest.warns(UserWarning, match=r"To copy construct from a tensor, it is recommended to use "
                                         r"sourceTensor.detach\(\).clone\(\)"):
        mt.tensor(mt.ones(2))


def test_like_factories_keep_a_transposed_layout():
    t = mt.ones(3, 4).t()
    for copy in (mt.zeros_like(t), mt.ones_like(t), t.clone(), t.to(mt.float64), t.exp(), t + 1):
        assert copy.stride() == (1, 4)
    assert t.contiguous().stride() == (3, 1)
