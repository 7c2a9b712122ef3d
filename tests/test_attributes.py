"""What a tensor tells about itself: shape, dtype, device, strides, elements."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_shape_and_size_are_Size():
    t = mt.tensor(A)
    assert isinstance(t.shape, mt.Size) and isinstance(t.size(), mt.Size)
    assert isinstance(t.shape, tuple)
    assert t.shape == (2, 3, 4) == t.size()
    assert repr(t.shape) == "minitorch.Size([2, 3, 4])"
    assert repr(mt.tensor(1.0).shape) == "minitorch.Size([])"
    assert t.size(0) == 2 and t.size(-1) == 4 and t.size(1) == 3
    assert isinstance(t.shape[1:], mt.Size) and t.shape[1:] == (3, 4)
    assert t.shape.numel() == 24
    assert isinstance(t.shape + (5,), mt.Size) and t.shape + (5,) == (2, 3, 4, 5)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.size(3)


def test_dtype_device_requires_grad_defaults():
    t = mt.tensor(A)
    assert t.dtype is mt.float32
    assert t.device == mt.device("cpu") and str(t.device) == "cpu" and repr(t.device) == "device(type='cpu')"
    assert t.requires_grad is False and t.grad is None and t.grad_fn is None and t.is_leaf
    assert t.get_device() == -1


@pytest.mark.parametrize("shape", [(), (0,), (1,), (5,), (2, 0, 3), (2, 3, 4), (1, 1, 1, 1)])
def test_ndim_dim_numel(shape):
    t = mt.zeros(shape)
    assert t.ndim == t.dim() == t.ndimension() == len(shape)
    assert t.numel() == t.nelement() == int(np.prod(shape)) == mt.numel(t)


@pytest.mark.parametrize("dtype", [mt.bool, mt.uint8, mt.int8, mt.int16, mt.int32, mt.int64, mt.float16,
                                   mt.float32, mt.float64])
def test_element_size_and_nbytes(dtype):
    t = mt.zeros(3, 5, dtype=dtype)
    assert t.element_size() == dtype.np.itemsize == t.itemsize
    assert t.nbytes == 15 * dtype.np.itemsize


def test_stride_in_elements_matches_numpy_bytes():
    t = mt.tensor(A)
    assert t.stride() == (12, 4, 1)
    assert t.stride(0) == 12 and t.stride(-1) == 1
    for view, arr in [(t.transpose(0, 2), A.transpose(2, 1, 0)), (t[:, ::2, 1:], A[:, ::2, 1:]),
                      (t[1], A[1]), (t.permute(1, 2, 0), A.transpose(1, 2, 0))]:
        assert view.stride() == tuple(s // 4 for s in arr.strides)
    assert t[:, :1].expand(2, 5, 4).stride() == (12, 0, 1)


def test_is_contiguous():
    t = mt.tensor(A)
    assert t.is_contiguous()
    assert not t.transpose(0, 1).is_contiguous()
    assert not t[:, :, :2].is_contiguous()
    assert t[1].is_contiguous() and t[:1].is_contiguous()
    assert not t[:, ::2].is_contiguous()
    assert not t[:, :1].expand(2, 5, 4).is_contiguous()
    # size-1 dims don't matter, and neither do empty tensors
    assert mt.zeros(3, 1).t().is_contiguous()
    assert not mt.zeros(4, 1, 5)[:, :, 0:1].permute(2, 1, 0).is_contiguous()  # (1, 1, 4), stride (1, 5, 5)
    assert mt.zeros(2, 3)[1:2, :].is_contiguous()  # (1, 3), stride (3, 1): the 3 of a size-1 dim is ignored
    assert not mt.zeros(2, 3)[:, 1:2].is_contiguous()  # (2, 1), stride (3, 1): rows are 3 apart, not 1
    assert mt.zeros(1, 4)[:, ::2].is_contiguous() is False
    assert mt.zeros(0, 3).t().is_contiguous()
    assert t.contiguous() is t


def test_data_ptr_and_storage_offset():
    t = mt.tensor(A)
    item = t.element_size()
    assert t[0].data_ptr() == t.data_ptr()
    assert t[1].data_ptr() == t.data_ptr() + 12 * item
    assert t[:, 2, 3].data_ptr() == t.data_ptr() + (2 * 4 + 3) * item
    assert t[1, 1:].storage_offset() == 12 + 4
    assert t[0].t().data_ptr() == t.data_ptr()
    assert t.transpose(0, 2).data_ptr() == t.data_ptr()
    assert t.clone().data_ptr() != t.data_ptr()
    assert t.untyped_storage().data_ptr() == t[1].untyped_storage().data_ptr()
    assert t.untyped_storage().nbytes() == A.nbytes


def test_item():
    assert mt.tensor(2.5).item() == 2.5 and isinstance(mt.tensor(2.5).item(), float)
    assert mt.tensor([7]).item() == 7 and isinstance(mt.tensor([7]).item(), int)
    assert mt.tensor([[True]]).item() is True
    assert mt.tensor(A)[1, 2, 3].item() == A[1, 2, 3]
    with pytest.raises(RuntimeError, match="a Tensor with 24 elements cannot be converted to Scalar"):
        mt.tensor(A).item()


def test_tolist_matches_numpy():
    assert mt.tensor(A).tolist() == A.tolist()
    assert mt.tensor(A).transpose(0, 2).tolist() == A.transpose(2, 1, 0).tolist()
    assert mt.tensor(3).tolist() == 3
    assert mt.tensor([True, False]).tolist() == [True, False]
    assert type(mt.tensor([1.5]).tolist()[0]) is float


def test_T_and_mT():
    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(mt.tensor(m).T.numpy(), m.T)
    np.testing.assert_array_equal(mt.tensor(A).mT.numpy(), A.swapaxes(-1, -2))
    v = mt.tensor([1.0, 2.0])
    assert v.T.shape == (2,)
    s = mt.tensor(1.0)
    assert s.T.shape == ()


def test_len_and_iteration():
    t = mt.tensor(A)
    assert len(t) == 2
    rows = list(t)
    assert len(rows) == 2 and all(isinstance(r, mt.Tensor) for r in rows)
    for r, a in zip(rows, A):
        np.testing.assert_array_equal(r.numpy(), a)
    assert [x.item() for x in mt.tensor([3, 1, 2])] == [3, 1, 2]
    assert list(mt.zeros(0, 2)) == []
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(mt.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(mt.tensor(1.0))


def test_in_operator_tests_elements():
    t = mt.tensor([[1, 2], [3, 4]])
    assert 3 in t and 5 not in t and 2.0 in t
    assert mt.tensor([3, 4]) in t  # elementwise equality somewhere, as in PyTorch
    with pytest.raises(RuntimeError, match="Tensor.__contains__ only supports Tensor or scalar"):
        "a" in t


def test_python_number_conversions():
    assert bool(mt.tensor([1.0])) is True and bool(mt.tensor(0)) is False
    assert int(mt.tensor(2.7)) == 2 and float(mt.tensor(3)) == 3.0
    assert [10, 20, 30][mt.tensor(2)] == 30  # __index__
    assert f"{mt.tensor(3.14159):.2f}" == "3.14"
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(mt.tensor([1, 2]))
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1, 2][mt.tensor(1.0)]


def test_is_floating_point_and_type_names():
    assert mt.tensor([1.0]).is_floating_point() and not mt.tensor([1]).is_floating_point()
    assert mt.tensor([1.0]).type() == "torch.FloatTensor"
    assert mt.tensor([1]).type() == "torch.LongTensor"
    assert mt.tensor([1]).type(mt.float64).dtype is mt.float64
    assert mt.is_tensor(mt.tensor(1)) and not mt.is_tensor(np.ones(1))


def test_requires_grad_flag():
    t = mt.zeros(2)
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad_(False)
    assert not t.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        mt.zeros(2, dtype=mt.int64).requires_grad_()
    y = mt.ones(2, requires_grad=True) * 2
    assert not y.is_leaf and y.requires_grad and y.grad_fn is not None
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad_(False)


def test_a_device_never_equals_a_string():
    d = mt.ones(1).device
    assert d != "cpu" and not (d == "cpu")
    assert d == mt.device("cpu") and d.type == "cpu" and str(d) == "cpu"


def test_classes_print_with_the_package_name():
    assert repr(mt.Tensor) == "<class 'minitorch.Tensor'>" and repr(mt.Size) == "<class 'minitorch.Size'>"
    assert repr(mt.dtype) == "<class 'minitorch.dtype'>" and repr(mt.device) == "<class 'minitorch.device'>"


def test_backends_probes():
    import minitorch.backends.cudnn as cudnn
    assert mt.backends.mps.is_available() is False and cudnn.is_available() is False
    cudnn.benchmark = True  # accepted, and changes nothing
    cudnn.benchmark = False


def test_out_writes_into_the_given_tensor():
    o = mt.empty(2, 3)
    r = mt.add(mt.ones(2, 3), 1, out=o)
    assert r is o and o.tolist() == [[2.0] * 3] * 2 and o._version == 1
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic differentiation"):
        mt.exp(mt.ones(2, requires_grad=True), out=mt.empty(2))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        mt.add(mt.ones(2), 1, out=mt.empty(2, dtype=mt.int64))
