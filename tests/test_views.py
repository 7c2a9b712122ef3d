"""Views share memory with their base: proved by writing through one and reading the other,
and by data_ptr(). Shapes and strides are checked against NumPy's equivalent views."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def base():
    return mt.tensor(A)


def shares(view, base_t):
    """A write through `view` shows up in `base_t` (and the view reads base_t's memory)."""
    if view.numel() == 0:
        return True
    before = base_t.clone()
    flat_index = (0,) * view.ndim
    old = view[flat_index].item()
    view[flat_index] = -1000.0
    changed = int((base_t != before).sum().item())
    assert view[flat_index].item() == -1000.0
    view[flat_index] = old
    return changed == 1


def strides_of(arr):
    return tuple(s // arr.itemsize for s in arr.strides)


VIEW_IDS = [
    "view", "view-flat", "view-infer", "view-tuple", "reshape", "transpose", "swapaxes", "t", "permute",
    "unsqueeze", "unsqueeze-last", "squeeze-dim", "squeeze-all", "flatten", "flatten-1", "expand", "expand-0d",
    "expand_as", "narrow", "slice-step", "ellipsis-int", "slice-none", "unflatten", "movedim", "select",
    "detach", "mT", "view-dtype", "as_strided", "transpose-unsqueeze-select", "view-of-sliced-rows"
]


@pytest.mark.parametrize("make, np_make", [
    (lambda t: t.view(6, 4), lambda a: a.reshape(6, 4)),
    (lambda t: t.view(-1), lambda a: a.reshape(-1)),
    (lambda t: t.view(2, -1, 2), lambda a: a.reshape(2, -1, 2)),
    (lambda t: t.view((4, 6)), lambda a: a.reshape(4, 6)),
    (lambda t: t.reshape(3, 8), lambda a: a.reshape(3, 8)),
    (lambda t: t.transpose(0, 2), lambda a: a.transpose(2, 1, 0)),
    (lambda t: t.swapaxes(1, 2), lambda a: a.swapaxes(1, 2)),
    (lambda t: t[0].t(), lambda a: a[0].T),
    (lambda t: t.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    (lambda t: t.unsqueeze(1), lambda a: a[:, None]),
    (lambda t: t.unsqueeze(-1), lambda a: a[..., None]),
    (lambda t: t[:, :1].squeeze(1), lambda a: a[:, 0]),
    (lambda t: t[:1].squeeze(), lambda a: a[0]),
    (lambda t: t.flatten(), lambda a: a.reshape(-1)),
    (lambda t: t.flatten(1), lambda a: a.reshape(2, 12)),
    (lambda t: t[:, :1].expand(2, 3, 4), lambda a: np.broadcast_to(a[:, :1], (2, 3, 4))),
    (lambda t: t[0, 0].expand(5, 4), lambda a: np.broadcast_to(a[0, 0], (5, 4))),
    (lambda t: t[:, :1].expand_as(mt.zeros(2, 3, 4)), lambda a: np.broadcast_to(a[:, :1], (2, 3, 4))),
    (lambda t: t.narrow(2, 1, 2), lambda a: a[:, :, 1:3]),
    (lambda t: t[1, ::2, 1::2], lambda a: a[1, ::2, 1::2]),
    (lambda t: t[..., -1], lambda a: a[..., -1]),
    (lambda t: t[:, None, 1:], lambda a: a[:, None, 1:]),
    (lambda t: t.unflatten(2, (2, 2)), lambda a: a.reshape(2, 3, 2, 2)),
    (lambda t: t.movedim(0, -1), lambda a: np.moveaxis(a, 0, -1)),
    (lambda t: t.select(1, 2), lambda a: a[:, 2]),
    (lambda t: t.detach(), lambda a: a),
    (lambda t: t.mT, lambda a: a.swapaxes(-1, -2)),
    (lambda t: t.view(mt.int32), lambda a: a.view(np.int32)),
    (lambda t: t.as_strided((3, 3), (4, 1), 2), lambda a: np.lib.stride_tricks.as_strided(
        a.reshape(-1)[2:], (3, 3), (16, 4))),
    (lambda t: t.transpose(0, 1).unsqueeze(0)[0], lambda a: a.transpose(1, 0, 2)),
    (lambda t: t[:, 1:].view(2, 8), lambda a: a[:, 1:].reshape(2, 8)),
], ids=VIEW_IDS)
def test_view_values_strides_and_sharing(make, np_make):
    t = base()
    v = make(t)
    expected = np_make(A.copy())
    assert tuple(v.shape) == expected.shape
    np.testing.assert_array_equal(v.numpy(), expected)
    # the stride of a size-1 dim is arbitrary (NumPy and PyTorch pick different ones): compare the rest
    assert [s for s, n in zip(v.stride(), v.shape) if n != 1] == \
        [s for s, n in zip(strides_of(expected), expected.shape) if n != 1]
    assert v.is_contiguous() == expected.flags.c_contiguous  # NumPy also ignores the strides of size-1 dims
    np_view = np_make(A)
    assert np.shares_memory(np_view, A)
    assert v.storage_offset() == (np_view.__array_interface__["data"][0] - A.__array_interface__["data"][0]) // 4
    if v.dtype is mt.float32 and 0 not in v.stride():
        assert shares(v, t)
    assert v._version == t._version  # views share the version counter


def test_write_through_base_shows_in_view_and_back():
    t = base()
    v = t.transpose(0, 2)
    t[1, 2, 3] = 100.0
    assert v[3, 2, 1].item() == 100.0
    v[0, 1, 0] = -5.0
    assert t[0, 1, 0].item() == -5.0
    row = t[1]
    row.fill_(7.0)
    expected = A.copy()
    expected[0, 1, 0] = -5.0
    expected[1] = 7.0
    np.testing.assert_array_equal(t.numpy(), expected)


def test_data_ptr_of_views():
    t = base()
    item = 4
    assert t.view(6, 4).data_ptr() == t.data_ptr()
    assert t.transpose(0, 1).data_ptr() == t.data_ptr()
    assert t[1].data_ptr() == t.data_ptr() + 12 * item
    assert t[:, 1].data_ptr() == t.data_ptr() + 4 * item
    assert t.narrow(2, 3, 1).data_ptr() == t.data_ptr() + 3 * item
    assert t[1:].storage_offset() == 12 and t[:, :, 2].storage_offset() == 2


def test_view_of_non_contiguous_raises_pytorchs_error():
    t = base().transpose(1, 2)  # shape (2, 4, 3), strides (12, 1, 4)
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride") as info:
        t.view(24)
    assert "Use .reshape(...) instead" in str(info.value)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        base()[:, :, :2].view(12)  # rows of 2 that are 4 apart: no single stride reaches them all
    assert base()[:, :, ::2].view(12).stride() == (2,)  # every other element: one stride of 2 does
    # merging dims that are contiguous with each other still works: (2, 4, 3) -> (2, 12) fails but
    # splitting the untouched first dim does not need contiguity
    assert base().transpose(1, 2).view(1, 2, 4, 3).shape == (1, 2, 4, 3)
    assert base()[:, 1:].view(2, 8).stride() == (12, 1)  # rows of 8 consecutive elements


def test_reshape_is_a_view_when_possible_and_a_copy_otherwise():
    t = base()
    r = t.reshape(4, 6)
    assert r.data_ptr() == t.data_ptr() and shares(r, t)
    r2 = t.transpose(0, 1).reshape(3, 2, 2, 2)  # splitting a dim of a transposed tensor: still a view
    assert r2.data_ptr() == t.data_ptr() and shares(r2, t)
    c = t.transpose(0, 2).reshape(-1)  # needs a different order: a copy
    np.testing.assert_array_equal(c.numpy(), A.transpose(2, 1, 0).reshape(-1))
    c[0] = -1.0
    assert t[0, 0, 0].item() == 0.0
    assert c.is_contiguous()


def test_contiguous_clone_detach():
    t = base()
    nc = t.transpose(0, 1)
    c = nc.contiguous()
    assert c.is_contiguous() and c.data_ptr() != t.data_ptr()
    np.testing.assert_array_equal(c.numpy(), A.transpose(1, 0, 2))
    assert t.contiguous() is t  # already contiguous: the same tensor
    k = t.clone()
    assert k.data_ptr() != t.data_ptr() and k._version == 0
    k[0, 0, 0] = 99.0
    assert t[0, 0, 0].item() == 0.0
    kc = nc.clone()
    assert kc.stride() == nc.stride() == (4, 12, 1)  # a dense layout is kept (PyTorch's preserve_format)
    assert nc[:, :, ::2].clone().stride() == (2, 6, 1)  # a gappy one becomes dense, in the same order
    d = mt.tensor(A, requires_grad=True).detach()
    assert not d.requires_grad and d.grad_fn is None


def test_detach_shares_memory_and_version():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert d.data_ptr() == x.data_ptr()
    d[0] = 10.0
    assert x[0].item() == 10.0
    assert x._version == d._version == 1


def test_data_shares_memory_but_not_the_version_counter():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    d[0] = 5.0
    assert x[0].item() == 5.0
    assert d._version == 1 and x._version == 0  # as in PyTorch: autograd does not see writes via .data


def test_unsqueeze_strides_follow_pytorch():
    # PyTorch gives the new size-1 dim the stride size*stride of the dim it is inserted before
    t = base()
    assert t.unsqueeze(1).stride() == (12, 12, 4, 1)
    assert t.unsqueeze(-1).stride() == (12, 4, 1, 1)
    assert t.unsqueeze(0).stride() == (24, 12, 4, 1)


def test_squeeze_unsqueeze_details():
    z = mt.zeros(1, 3, 1, 2)
    assert z.squeeze().shape == (3, 2)
    assert z.squeeze(0).shape == (3, 1, 2) and z.squeeze(1).shape == (1, 3, 1, 2)  # size 3: unchanged
    assert z.squeeze((0, 2)).shape == (3, 2) and z.squeeze(-2).shape == (1, 3, 2)
    assert mt.tensor(1.0).unsqueeze(0).shape == (1,) and mt.tensor(1.0).squeeze().shape == ()
    assert z.unsqueeze(4).shape == (1, 3, 1, 2, 1) and z.unsqueeze(-5).shape == (1, 1, 3, 1, 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        z.unsqueeze(5)


def test_expand_details():
    c = mt.tensor([[1.0], [2.0]])
    e = c.expand(3, 2, 4)
    assert e.shape == (3, 2, 4) and e.stride() == (0, 1, 0)
    assert c.expand(-1, 3).shape == (2, 3)
    c[1, 0] = 5.0
    assert e[2, 1, 3].item() == 5.0  # an expanded tensor reads its base's memory
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(3\) must match the existing size "
                                           r"\(2\) at non-singleton dimension 0"):
        c.expand(3, 4)
    with pytest.raises(RuntimeError, match="the number of sizes provided"):
        mt.zeros(2, 3).expand(3)


def test_flatten_and_t_details():
    assert mt.tensor(1.0).flatten().shape == (1,)
    assert mt.zeros(2, 3, 4).flatten(0, 1).shape == (6, 4)
    assert mt.zeros(2, 3, 4).flatten(-2).shape == (2, 12)
    v = mt.tensor([1.0, 2.0])
    assert v.t().shape == (2,)
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        mt.zeros(2, 2, 2).t()
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        mt.zeros(2, 3, 4).flatten(2, 1)


def test_permute_transpose_errors():
    t = base()
    with pytest.raises(RuntimeError, match="number of dimensions in the tensor input does not match the length"):
        t.permute(1, 0)
    with pytest.raises(RuntimeError, match="duplicate dims"):
        t.permute(0, 0, 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.transpose(0, 3)


def test_narrow_errors():
    with pytest.raises(RuntimeError, match=r"start \(3\) \+ length \(2\) exceeds dimension size \(4\)"):
        base().narrow(2, 3, 2)


def test_view_shape_errors():
    t = base()
    with pytest.raises(RuntimeError, match=r"shape '\[5, 5\]' is invalid for input of size 24"):
        t.view(5, 5)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        t.view(-1, -1)
    with pytest.raises(RuntimeError, match=r"shape '\[-1, 5\]' is invalid for input of size 24"):
        t.reshape(-1, 5)


def test_empty_tensor_views():
    z = mt.zeros(0, 3)
    assert z.view(3, 0).shape == (3, 0) and z.reshape(-1, 3).shape == (0, 3)
    assert z.t().view(0).shape == (0,)  # anything goes for an empty tensor


# ---- PyTorch's rules for view(dtype), .T and .mT, split and unbind ----------------------------

def test_view_as_a_dtype_of_another_size_rescales_the_last_dim():
    t = mt.ones(2, 2).view(mt.uint8)
    assert t.shape == (2, 8) and t[0, :4].tolist() == [0, 0, 128, 63]  # 1.0f, little-endian
    assert mt.arange(4, dtype=mt.int32).view(mt.int64).shape == (2,)
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 to view Float as Double"):
        mt.ones(3).view(mt.float64)
    with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1 to view Float as Double"):
        mt.ones(2, 4).t().view(mt.float64)
    with pytest.raises(RuntimeError, match=r"self.dim\(\) cannot be 0 to view Float as Byte"):
        mt.tensor(1.0).view(mt.uint8)


def test_T_of_a_tensor_that_is_not_2d_warns_and_mT_needs_a_matrix():
    mt._tensor._WARNED.clear()
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert mt.ones(2, 3, 4).T.shape == (4, 3, 2)
    assert type(mt.ones(2, 3, requires_grad=True).T.grad_fn).__name__ == "PermuteBackward0"
    with pytest.raises(RuntimeError, match="tensor.mT is only supported on matrices or batches of matrices"):
        mt.ones(2).mT


def test_split_and_unbind_give_views_that_refuse_in_place_ops_in_the_graph():
    x = mt.ones(4, 3, requires_grad=True) * 1
    parts = x.split(2)
    assert [p._base is x for p in parts] == [True, True] and type(parts[0].grad_fn).__name__ == "SplitBackward0"
    with pytest.raises(RuntimeError, match="Output 0 of Split is a view and is being modified inplace"):
        parts[0].mul_(2)
    plain = mt.ones(4).split(2)[0]
    plain.mul_(2)  # nothing recorded: allowed
    assert type(x.unbind(1)[0].grad_fn).__name__ == "UnbindBackward0"


def test_calls_without_their_arguments_are_type_errors():
    for f in (lambda: mt.ones(2).permute(), lambda: mt.ones(2).expand(), lambda: mt.zeros()):
        with pytest.raises(TypeError, match="missing 1 required positional arguments"):
            f()


def test_new_dims_get_pytorch_strides():
    x = mt.arange(6.0).reshape(2, 3)
    assert x[None, ..., None].stride() == (6, 3, 1, 1)
    assert x.t().unsqueeze(0).stride() == (3, 1, 3)
