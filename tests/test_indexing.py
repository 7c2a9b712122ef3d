"""Indexing, reading (`t[key]`) and writing (`t[key] = v`), checked against NumPy, which has the
same rules: basic keys (ints, slices, None, ...) give views, masks and integer arrays give copies."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
MASK34 = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])


def key_for(lib_tensor, key):
    """The same key, with NumPy arrays replaced by minitorch tensors."""
    if isinstance(key, tuple):
        return tuple(key_for(lib_tensor, k) for k in key)
    if isinstance(key, np.ndarray):
        return mt.tensor(key)
    return key


BASIC = [
    1, -1, (0, 2), (2, -1, 4), slice(None), slice(1, None), slice(None, None, 2), (slice(None), slice(1, 3)),
    (Ellipsis, 0), (0, Ellipsis), (Ellipsis,), (None,), (None, 1, None), (slice(None), None, slice(2, 4)),
    (1, slice(None, None, 3), None, 2), (slice(-2, None), slice(None, -1), slice(1, -1, 2)), (slice(5, 10),),
    (slice(2, 1),), (Ellipsis, None), (0, 0, 0), (), (slice(None), Ellipsis, slice(None, 2)),
]


@pytest.mark.parametrize("key", BASIC, ids=repr)
def test_basic_indexing_gives_views(key):
    t = mt.tensor(A)
    r = t[key]
    expected = A[key]
    assert tuple(r.shape) == np.shape(expected)
    np.testing.assert_array_equal(r.numpy(), expected)
    if r.numel():
        assert np.shares_memory(r.numpy(), t.numpy())  # a view of the same memory
        r[(0,) * r.ndim] = -1.0
        assert (t.numpy() == -1.0).sum() == 1


ADVANCED = [
    np.array([2, 0, 2]), np.array([[0, 1], [2, 2]]), np.array([-1, -3]), (slice(None), np.array([3, 0])),
    (np.array([0, 2]), np.array([1, 3])), (np.array([[0], [2]]), np.array([1, 3])),
    (np.array([0, 1]), slice(None), np.array([1, 4])),  # separated: the index dims go first (NumPy's rule)
    (slice(None), np.array([0, 1]), np.array([1, 4])), (Ellipsis, np.array([4, 4, 0])), MASK34,
    np.array([True, False, True]), (slice(None), np.array([False, True, True, False])),
    (MASK34, 0), (1, np.array([True, False, False, True])), (np.array([1, 2]), 0, slice(1, 3)),
    (None, np.array([0, 2])), [0, 2], ([0, 2], [1, 1]),
]


@pytest.mark.parametrize("key", ADVANCED, ids=lambda k: repr(k).replace("\n", ""))
def test_advanced_indexing_gives_copies(key):
    t = mt.tensor(A)
    r = t[key_for(t, key)]
    np_key = tuple(np.array(k) if isinstance(k, list) else k for k in key) if isinstance(key, tuple) else \
        (np.array(key) if isinstance(key, list) else key)
    expected = A[np_key]
    assert tuple(r.shape) == expected.shape
    np.testing.assert_array_equal(r.numpy(), expected)
    if r.numel():
        r[(0,) * r.ndim] = -1.0
        assert (t.numpy() == -1.0).sum() == 0  # a copy: the source is untouched


def test_advanced_indexing_result_is_row_major():
    t = mt.tensor(A)
    for key in [(slice(None), mt.tensor([True, False, True, True])), (slice(None), [0, 1], [2, 3]),
                (Ellipsis, [0, 3]), (slice(None), mt.tensor([[0, 1]]))]:
        r = t[key]
        assert r.is_contiguous(), key


def test_scalar_tensors_as_indices():
    t = mt.tensor(A)
    np.testing.assert_array_equal(t[mt.tensor(1)].numpy(), A[1])
    np.testing.assert_array_equal(t[mt.tensor(1), mt.tensor(2)].numpy(), A[1, 2])
    np.testing.assert_array_equal(t[np.int64(2)].numpy(), A[2])
    s = mt.tensor(3.0)
    assert s[()].item() == 3.0 and s[None].shape == (1,) and s[...].shape == ()


def test_full_shape_bool_mask_selects_elements():
    x = mt.tensor(A[0])  # (4, 5)
    m = x > 10
    np.testing.assert_array_equal(x[m].numpy(), A[0][A[0] > 10])
    assert x[m].ndim == 1


def test_byte_tensor_is_a_mask():
    x = mt.tensor(A[:, 0])  # (3, 5)
    r = x[mt.tensor([1, 0, 1], dtype=mt.uint8)]
    np.testing.assert_array_equal(r.numpy(), A[:, 0][[True, False, True]])


def test_integer_tensor_index_of_other_int_dtypes():
    x = mt.tensor(A[0])
    np.testing.assert_array_equal(x[mt.tensor([3, 1], dtype=mt.int32)].numpy(), A[0][[3, 1]])


def test_gather_index_select_masked_fill_nonzero():
    x = A[0]  # (4, 5)
    idx = np.array([[0, 4], [1, 1], [2, 0], [3, 3]])
    np.testing.assert_array_equal(mt.gather(mt.tensor(x), 1, mt.tensor(idx)).numpy(), np.take_along_axis(x, idx, 1))
    small = idx[:2] % 4  # (2, 2): smaller than x off dim 0, which PyTorch allows
    np.testing.assert_array_equal(mt.tensor(x).gather(0, mt.tensor(small)).numpy(),
                                  np.take_along_axis(x[:, :2], small, 0))
    np.testing.assert_array_equal(mt.index_select(mt.tensor(x), 1, mt.tensor([4, 0])).numpy(), x[:, [4, 0]])
    m = x % 3 == 0
    np.testing.assert_array_equal(mt.tensor(x).masked_fill(mt.tensor(m), -1.0).numpy(), np.where(m, -1.0, x))
    i = np.array([[0, 2, 0], [1, 0, 3]])
    np.testing.assert_array_equal(mt.tensor(i).nonzero().numpy(), np.argwhere(i))
    rows, cols = mt.nonzero(mt.tensor(i), as_tuple=True)
    np.testing.assert_array_equal(rows.numpy(), np.nonzero(i)[0])
    np.testing.assert_array_equal(cols.numpy(), np.nonzero(i)[1])


# ---- assignment ---------------------------------------------------------------------------

SETS = [
    (1, 5.0), ((0, 2), np.arange(5, dtype=np.float32)), ((slice(None), 0), np.float32(-1)),
    ((slice(0, 2), slice(None), slice(None, None, 2)), np.array([1.0, 2.0, 3.0], np.float32)),
    ((Ellipsis, 1), np.zeros((3, 4), np.float32)), ((None, 0), 7.0), (MASK34, 0.0),
    (MASK34, np.arange(6, dtype=np.float32)[:, None]), (np.array([0, 2]), 9.0),
    ((np.array([0, 2]), np.array([1, 3])), np.array([[1.0], [2.0]], np.float32)),
    ((slice(None), np.array([True, False, True, False])), 3.0), (np.array([2, 2]), 4.0),
]


@pytest.mark.parametrize("key, value", SETS, ids=lambda v: repr(v).replace("\n", "")[:40])
def test_setitem_matches_numpy(key, value):
    expected = A.copy()
    expected[key] = value
    t = mt.tensor(A)
    v = mt.tensor(value) if isinstance(value, np.ndarray) else float(value)
    before = t._version
    t[key_for(t, key)] = v
    np.testing.assert_array_equal(t.numpy(), expected)
    assert t._version == before + 1


def test_setitem_writes_through_views_and_casts():
    t = mt.tensor(A)
    v = t[1]
    v[2, 3] = -7.0
    assert t[1, 2, 3].item() == -7.0
    i = mt.zeros(3, dtype=mt.int64)
    i[0] = 2.9  # cast to the tensor's dtype (truncation)
    i[1:] = mt.tensor([1.5, -1.5])
    assert i.tolist() == [2, 1, -1] and i.dtype is mt.int64
    b = mt.zeros(2, dtype=mt.bool)
    b[1] = 1
    assert b.tolist() == [False, True]


def test_setitem_errors():
    t = mt.tensor(A)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(5\) must match the existing size "
                                           r"\(3\) at non-singleton dimension 1.  Target sizes: \[4, 5\]"):
        t[0] = mt.ones(3)  # a basic key: the value is expanded to the view, as in PyTorch
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot be broadcast to "
                                           r"indexing result of shape \[2, 4, 5\]"):
        t[[0, 1]] = mt.ones(3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3] = 1.0
    with pytest.raises(TypeError, match="can't assign a list to a torch.FloatTensor"):
        t[0, 0] = [1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(TypeError, match="can't assign a numpy.ndarray"):
        t[0, 0] = np.ones(5)


# ---- reading errors ------------------------------------------------------------------------

def test_index_out_of_range():
    t = mt.tensor(A)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 1 with size 4"):
        t[0, -5]
    with pytest.raises(IndexError, match="out of bounds for dimension 0 with size 3"):
        t[mt.tensor([0, 5])]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        t[0, 0, 0, 0]


def test_bad_index_types():
    t = mt.tensor(A)
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        t[mt.tensor([0.0, 1.0])]
    with pytest.raises(IndexError, match="only integers, slices"):
        t["a"]
    with pytest.raises(IndexError, match="only integers, slices"):
        t[1.5]
    with pytest.raises(IndexError, match=r"The shape of the mask \[2\] at index 0 does not match the shape of the "
                                         r"indexed tensor \[3, 4, 5\] at index 0"):
        t[mt.tensor([True, False])]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]


def test_gather_errors():
    x = mt.tensor(A[0])  # (4, 5)
    with pytest.raises(RuntimeError, match=r"Size does not match at dimension 1 expected index \[2, 6\] to be no "
                                           r"larger than self \[4, 5\] apart from dimension 0"):
        x.gather(0, mt.zeros(2, 6, dtype=mt.int64))
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 0 with size 4"):
        x.gather(0, mt.tensor([[7]]))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        x.gather(0, mt.tensor([1]))


# ---- PyTorch's two steps: the basic part of a key, then the advanced part --------------------

def test_an_int_before_a_slice_and_a_list_is_applied_first():
    """x[0, :, [0, 1]]: PyTorch takes x[0] (3, 4), then [:, [0, 1]]: shape (3, 2). NumPy, which
    counts the 0 as an advanced index, gives (2, 3)."""
    x = mt.arange(24).reshape(2, 3, 4)
    r = x[0, :, [0, 1]]
    assert r.shape == (3, 2) and r.tolist() == [[0, 1], [4, 5], [8, 9]]
    assert x[0, :, mt.tensor([True, False, True, False])].tolist() == [[0, 2], [4, 6], [8, 10]]
    assert x[[0, 1], :, [0, 1]].shape == (2, 3)      # separated advanced indices: their dims first
    assert x[:, [0, 1], None, [0, 1]].shape == (2, 2, 1)
    assert x[True, 0, :, [0, 1]].shape == (2, 3)     # True is an advanced index (a new dim of size 1)
    assert x[False].shape == (0, 2, 3, 4)


def test_writes_and_gradients_follow_the_same_order():
    x = mt.zeros(2, 3, 4)
    x[0, :, [0, 1]] = mt.arange(6.0).reshape(3, 2)
    assert x[0, :, :2].tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]] and x._version == 1
    w = mt.ones(2, 3, 4, requires_grad=True)
    (w[0, :, [0, 1]] * mt.arange(6.0).reshape(3, 2)).sum().backward()
    assert w.grad[0, :, :2].tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]] and w.grad[1].sum().item() == 0


def test_range_indexes_like_a_list():
    logits = mt.arange(12.0).reshape(3, 4)
    assert logits[range(3), mt.tensor([1, 0, 3])].tolist() == [1.0, 4.0, 11.0]


def test_negative_ints_wrap_into_uint8_and_out_of_range_values_are_refused():
    x = mt.zeros(3, dtype=mt.uint8)
    x[0] = -1
    x[[1]] = -2
    assert x.tolist() == [255, 254, 0]
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        x[0] = 300
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        mt.zeros(2, dtype=mt.int8)[0] = 200


def test_index_put_needs_the_same_dtype_basic_put_converts():
    x = mt.zeros(3, dtype=mt.int64)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match, got Long "
                                           "for the destination and Float for the source"):
        x[mt.tensor([0, 2])] = mt.tensor([1.7, 2.2])
    x[mt.tensor([True, False, True])] = mt.tensor(1.7)  # one value through a mask: masked_fill, converts
    x[1:] = mt.tensor([5.9, 6.1])
    assert x.tolist() == [1, 5, 6]


def test_writes_into_expanded_and_empty_tensors():
    base = mt.zeros(1)
    e = base.expand(3)
    e.fill_(2.0)
    e[0] = 5.0  # one element: writes the shared memory
    assert base.tolist() == [5.0] and base._version == 2
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e[:] = 1.0
    with pytest.warns(UserWarning, match="Use of index_put_ on expanded tensors is deprecated"):
        e[[0, 1]] = 7.0
    assert base.tolist() == [7.0]
    z = mt.zeros(0, 3)
    z[:] = 1.0
    z += 1
    assert z._version == 2


def test_second_backward_through_indexing_is_refused():
    x = mt.ones(3, requires_grad=True)
    y = x[[0, 0]]
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 0.0]  # accumulated once, not twice
