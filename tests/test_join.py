"""Joining and splitting: cat, stack, split, chunk, unbind, repeat, tile, flip (vs NumPy)."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

A = np.arange(12, dtype=np.float32).reshape(3, 4)
B = np.arange(100, 108, dtype=np.float32).reshape(2, 4)


def eq(t, expected):
    assert tuple(t.shape) == np.shape(expected)
    np.testing.assert_array_equal(t.numpy(), expected)


def test_cat():
    eq(mt.cat([mt.tensor(A), mt.tensor(B)]), np.concatenate([A, B]))
    eq(mt.cat([mt.tensor(A), mt.tensor(A)], dim=1), np.concatenate([A, A], 1))
    eq(mt.cat((mt.tensor(A), mt.tensor(A)), -1), np.concatenate([A, A], -1))
    eq(mt.concat([mt.tensor(A)], 0), A)
    eq(mt.cat([mt.tensor(A).t(), mt.tensor(A).t()]), np.concatenate([A.T, A.T]))
    eq(mt.cat([mt.zeros(0), mt.tensor(A)]), A)  # PyTorch's legacy rule: 1-D empty tensors are skipped
    r = mt.cat([mt.tensor([1, 2]), mt.tensor([0.5])])
    assert r.dtype is mt.float32 and r.tolist() == [1.0, 2.0, 0.5]


def test_cat_copies():
    x = mt.tensor(A)
    r = mt.cat([x, x])
    r[0, 0] = -1.0
    assert x[0, 0].item() == 0.0


def test_cat_errors():
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0. Expected size 4 but "
                                           "got size 3 for tensor number 1"):
        mt.cat([mt.tensor(A), mt.ones(2, 3)])
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        mt.cat([mt.tensor(A), mt.ones(4)])
    with pytest.raises(RuntimeError, match="zero-dimensional tensor"):
        mt.cat([mt.tensor(1.0), mt.tensor(2.0)])
    with pytest.raises(ValueError, match="non-empty list"):
        mt.cat([])


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(dim):
    eq(mt.stack([mt.tensor(A), mt.tensor(A) + 1], dim), np.stack([A, A + 1], dim))


def test_stack_errors_and_0d():
    eq(mt.stack([mt.tensor(1.0), mt.tensor(2.0)]), np.array([1.0, 2.0], np.float32))
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[3, 4\] at entry 0 "
                                           r"and \[2, 4\] at entry 1"):
        mt.stack([mt.tensor(A), mt.tensor(B)])
    eq(mt.hstack([mt.tensor(A), mt.tensor(A)]), np.hstack([A, A]))
    eq(mt.vstack([mt.tensor(A), mt.tensor(B)]), np.vstack([A, B]))
    eq(mt.vstack([mt.tensor(A[0]), mt.tensor(A[1])]), np.vstack([A[0], A[1]]))


def test_split_by_size_and_sections():
    parts = mt.tensor(A).split(2, dim=1)
    assert isinstance(parts, tuple) and len(parts) == 2
    for p, e in zip(parts, np.split(A, 2, axis=1)):
        eq(p, e)
    parts = mt.split(mt.tensor(A), 2)  # sizes 2 and 1 (the last is smaller)
    eq(parts[0], A[:2])
    eq(parts[1], A[2:])
    parts = mt.tensor(A).split([1, 3], 1)
    eq(parts[0], A[:, :1])
    eq(parts[1], A[:, 1:])
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 4"):
        mt.tensor(A).split([1, 2], 1)


def test_split_parts_are_views():
    x = mt.tensor(A)
    top, _ = x.split(2)
    top[0, 0] = 99.0
    assert x[0, 0].item() == 99.0
    assert top.data_ptr() == x.data_ptr()


@pytest.mark.parametrize("n, chunks, expected_sizes", [
    (4, 2, [2, 2]), (4, 3, [2, 2]), (5, 3, [2, 2, 1]), (6, 4, [2, 2, 2]), (5, 4, [2, 2, 1]), (3, 5, [1, 1, 1]),
])
def test_chunk_sizes(n, chunks, expected_sizes):
    # chunk size is ceil(n / chunks); so fewer chunks can come back than asked for (as in PyTorch)
    parts = mt.arange(n).chunk(chunks)
    assert [p.numel() for p in parts] == expected_sizes
    assert mt.cat(parts).tolist() == list(range(n))


def test_chunk_errors():
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0"):
        mt.arange(4).chunk(0)


def test_unbind():
    rows = mt.tensor(A).unbind()
    assert len(rows) == 3
    for r, e in zip(rows, A):
        eq(r, e)
    cols = mt.unbind(mt.tensor(A), 1)
    assert len(cols) == 4
    for c, e in zip(cols, A.T):
        eq(c, e)


@pytest.mark.parametrize("reps", [(2, 1), (1, 3), (2, 2), (2, 1, 3)])
def test_repeat_is_numpy_tile(reps):
    eq(mt.tensor(A).repeat(*reps), np.tile(A, reps))
    eq(mt.tensor(A).repeat(reps), np.tile(A, reps))


def test_repeat_copies_and_errors():
    x = mt.tensor([1.0, 2.0])
    r = x.repeat(3)
    r[0] = 5.0
    assert x.tolist() == [1.0, 2.0] and r.tolist() == [5.0, 2.0, 1.0, 2.0, 1.0, 2.0]
    for reps in [(1,), (1, 1), (2, 1)]:  # even when nothing is repeated, the result is a copy
        r = x.repeat(*reps)
        r.fill_(0.0)
        assert x.tolist() == [1.0, 2.0]
    assert x.repeat(2, 1, 1).is_contiguous() and x.repeat(2, 1, 1).stride() == (2, 2, 1)
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller"):
        mt.tensor(A).repeat(2)


def test_tile_pads_reps_on_the_left():
    eq(mt.tensor(A).tile(2), np.tile(A, (1, 2)))
    eq(mt.tensor(A).tile((2, 1, 1)), np.tile(A, (2, 1, 1)))


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1), (-1,)])
def test_flip(dims):
    r = mt.tensor(A).flip(dims)
    eq(r, np.flip(A, dims))
    assert r.is_contiguous()  # a copy, as in PyTorch: no negative strides
