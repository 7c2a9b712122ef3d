"""Property-based tests (hypothesis): broadcasting, reductions and views agree with NumPy on
tensors of every layout — 0-d, size-0 and size-1 dims, transposed, sliced with a step,
offset into a larger buffer, and expanded.

Every generated tensor comes with the NumPy view of the *same memory* built the same way,
and with the strides and offset computed from scratch, so layout, values and sharing can
all be checked.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch as mt


@dataclass
class Case:
    t: mt.Tensor          # the tensor under test (a view of `base`)
    a: np.ndarray         # NumPy's view of the same memory, built the same way
    base: np.ndarray      # the buffer both look into
    strides: tuple        # the strides, in elements, computed from scratch
    offset: int           # the storage offset, in elements, computed from scratch
    expanded: bool        # some dim has stride 0 (writes are refused)

    def __repr__(self):   # what hypothesis prints for a failing example
        return (f"Case(shape={tuple(self.a.shape)}, strides={self.strides}, offset={self.offset}, "
                f"values={self.a.tolist()})")


def contiguous_strides(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


def is_contiguous_from_scratch(shape, strides):
    if math.prod(shape) == 0:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 1:
            continue
        if s != expected:
            return False
        expected *= n
    return True


ELEMENTS = {
    np.float32: st.floats(-8, 8, width=32, allow_nan=False, allow_infinity=False),
    np.int64: st.integers(-20, 20),
}


@st.composite
def layouts(draw, shape, dtype=np.float32, allow_expand=True):
    """A tensor of exactly `shape` with an arbitrary layout over a larger buffer."""
    ndim = len(shape)
    perm = draw(st.permutations(range(ndim))) if ndim else []
    steps = [draw(st.integers(1, 3)) for _ in shape]
    starts = [draw(st.integers(0, 1)) for _ in shape]
    expand = [allow_expand and n != 1 and draw(st.integers(0, 4)) == 0 for n in shape]
    lead = draw(st.booleans())  # an extra leading dim, indexed away: a nonzero storage offset

    # logical dim i is axis j of the buffer where perm[j] == i
    sizes = [1 if expand[i] else starts[i] + max(shape[i] - 1, 0) * steps[i] + 1 for i in range(ndim)]
    buf_shape = ([2] if lead else []) + [sizes[i] for i in perm]
    base = draw(hnp.arrays(dtype, buf_shape, elements=ELEMENTS[dtype]))
    inv = [perm.index(i) for i in range(ndim)]

    t, a = mt.from_numpy(base), base
    cs = contiguous_strides(buf_shape)
    offset = 0
    if lead:
        t, a, offset, cs = t[1], a[1, ...], cs[0], cs[1:]  # (a[1] of a 1-d array would be a NumPy scalar)
    t, a = t.permute(tuple(inv)), a.transpose(inv)
    strides = [cs[inv[i]] for i in range(ndim)]
    key = tuple(slice(starts[i], starts[i] + max(shape[i] - 1, 0) * steps[i] + 1 if shape[i] else starts[i],
                      steps[i]) if not expand[i] else slice(None) for i in range(ndim))
    if ndim:
        t, a = t[key], a[key]
    for i in range(ndim):
        if not expand[i] and shape[i]:
            offset += starts[i] * strides[i]
        strides[i] = 0 if expand[i] else strides[i] * steps[i]
    if any(expand):
        t, a = t.expand(tuple(shape)), np.broadcast_to(a, shape)
    assert tuple(a.shape) == tuple(shape)
    return Case(t, a, base, tuple(strides), offset, any(expand) and math.prod(shape) > 1)


SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
NONEMPTY = hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4)


@st.composite
def cases(draw, shapes=SHAPES, dtype=np.float32, allow_expand=True):
    return draw(layouts(draw(shapes), dtype, allow_expand))


@st.composite
def broadcast_pairs(draw, dtype=np.float32):
    shape = draw(SHAPES)
    other = draw(hnp.broadcastable_shapes(shape, min_dims=0, max_dims=4, min_side=0, max_side=4))
    if draw(st.booleans()):
        shape, other = other, shape
    return draw(layouts(shape, dtype)), draw(layouts(other, dtype))


def assert_matches(t, expected, rtol=1e-5, atol=1e-5):
    expected = np.asarray(expected)
    assert tuple(t.shape) == expected.shape
    got = t.numpy()
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


# ---- layout ------------------------------------------------------------------------------

@given(cases())
def test_values_match_numpy_view_of_same_memory(c):
    assert_matches(c.t, c.a)
    assert c.t.tolist() == c.a.tolist()


@given(cases())
def test_stride_offset_and_contiguity_agree_with_scratch_computation(c):
    if c.t.numel():  # (the strides of an empty tensor are arbitrary)
        assert c.t.stride() == c.strides
        assert c.t.storage_offset() == c.offset
        assert c.t.data_ptr() == c.base.ctypes.data + c.offset * c.base.itemsize
    assert c.t.is_contiguous() == is_contiguous_from_scratch(c.a.shape, c.strides)
    assert c.t.ndim == c.a.ndim and c.t.numel() == c.a.size and len(c.t.shape) == c.t.dim()


@given(cases(allow_expand=False), st.data())
def test_writes_through_the_view_land_in_the_shared_buffer(c, data):
    assume(c.t.numel() > 0)
    idx = tuple(data.draw(st.integers(0, n - 1)) for n in c.a.shape)
    before = c.base.copy()
    c.t[idx] = 99.0
    assert c.a[idx] == 99.0                                    # NumPy's view of the memory sees it
    changed = np.flatnonzero(c.base != before)
    pos = c.offset + sum(i * s for i, s in zip(idx, c.strides))
    assert set(changed.tolist()) <= {pos}                      # only that element, where the strides say
    assert c.base.reshape(-1)[pos] == 99.0
    assert c.t._version == 1


@given(cases())
def test_contiguous_copies_into_row_major_order_and_clone_keeps_a_dense_layout(c):
    row_major = contiguous_strides(c.a.shape)
    copy = c.t.contiguous()
    assert_matches(copy, c.a)
    assert copy.is_contiguous()
    if copy.numel():
        assert [s for s, n in zip(copy.stride(), c.a.shape) if n > 1] == \
            [s for s, n in zip(row_major, c.a.shape) if n > 1]
    if c.t.is_contiguous():
        assert c.t.contiguous() is c.t
    else:
        assert c.t.contiguous().data_ptr() != c.t.data_ptr()
    if c.t.numel():
        before = c.a.copy()
        k = c.t.clone()
        k.fill_(123.0)
        assert_matches(c.t, before)  # the clone has its own memory
        assert k._version == 1 and c.t._version == 0
    clone = c.t.clone()  # PyTorch's preserve_format: a dense layout is kept, any other becomes dense
    assert_matches(clone, c.a)
    assert clone.storage_offset() == 0 and not np.shares_memory(clone._data, c.base)
    if clone.numel() > 1:
        big = sorted((d for d, n in enumerate(c.a.shape) if n > 1), key=lambda d: clone.stride(d))
        step = 1
        for d in big:  # the elements fill their block of memory exactly once
            assert clone.stride(d) == step
            step *= c.a.shape[d]
        if not c.expanded and all(s > 0 for s in c.strides) and _dense(c.a.shape, c.strides):
            assert [clone.stride(d) for d in big] == [c.strides[d] for d in big]


def _dense(shape, strides):
    big = sorted((d for d, n in enumerate(shape) if n > 1), key=lambda d: strides[d])
    step = 1
    for d in big:
        if strides[d] != step:
            return False
        step *= shape[d]
    return True


# ---- views -------------------------------------------------------------------------------

def factorizations(n, max_dims=4):
    """Shapes with `n` elements (sizes >= 1), as a strategy."""
    if n == 0:
        return st.sampled_from([(0,), (0, 3), (2, 0), (1, 0, 2)])
    divisors = [d for d in range(1, n + 1) if n % d == 0]

    @st.composite
    def build(draw):
        shape, rest = [], n
        for _ in range(draw(st.integers(0, max_dims - 1))):
            d = draw(st.sampled_from([d for d in divisors if rest % d == 0]))
            shape.append(d)
            rest //= d
        shape.append(rest)
        return tuple(draw(st.permutations(shape)))
    return build()


@given(cases(), st.data())
def test_reshape_matches_numpy_and_round_trips(c, data):
    new = data.draw(factorizations(c.a.size))
    r = c.t.reshape(new)
    assert_matches(r, c.a.reshape(new))
    assert_matches(r.reshape(c.a.shape), c.a)
    assert_matches(c.t.reshape(-1), c.a.reshape(-1))
    assert_matches(c.t.flatten(), c.a.reshape(-1))


@given(cases(), st.data())
def test_view_works_exactly_when_numpy_can_reshape_without_copying(c, data):
    new = data.draw(factorizations(c.a.size))
    try:
        expected = np.reshape(c.a, new, copy=False)
    except ValueError:
        expected = None
    if expected is None:
        try:
            c.t.view(new)
        except RuntimeError as e:
            assert "view size is not compatible with input tensor's size and stride" in str(e)
        else:
            raise AssertionError("view() succeeded where NumPy needs a copy")
        r = c.t.reshape(new)  # reshape copies instead
        assert_matches(r, c.a.reshape(new))
        return
    v = c.t.view(new)
    assert_matches(v, expected)
    if v.numel():
        assert v.data_ptr() == expected.ctypes.data  # the same memory, not a copy
        assert [s for s, n in zip(v.stride(), v.shape) if n > 1] == \
            [s // expected.itemsize for s, n in zip(expected.strides, expected.shape) if n > 1]
    r = c.t.reshape(new)
    if r.numel():
        assert r.data_ptr() == expected.ctypes.data  # reshape is a view whenever view is


@given(cases(shapes=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4)), st.data())
def test_permute_transpose_unsqueeze_squeeze_match_numpy(c, data):
    perm = data.draw(st.permutations(range(c.a.ndim)))
    assert_matches(c.t.permute(tuple(perm)), c.a.transpose(perm))
    d0, d1 = data.draw(st.integers(-c.a.ndim, c.a.ndim - 1)), data.draw(st.integers(-c.a.ndim, c.a.ndim - 1))
    assert_matches(c.t.transpose(d0, d1), np.swapaxes(c.a, d0, d1))
    u = data.draw(st.integers(-c.a.ndim - 1, c.a.ndim))
    assert_matches(c.t.unsqueeze(u), np.expand_dims(c.a, u))
    assert_matches(c.t.squeeze(), np.squeeze(c.a))
    for view in (c.t.permute(tuple(perm)), c.t.transpose(d0, d1), c.t.unsqueeze(u), c.t.squeeze()):
        if view.numel():
            assert view.data_ptr() == c.t.data_ptr()  # the same first element: no copy
        assert view._version == c.t._version


BASIC_KEY = st.one_of(
    st.integers(-4, 3), st.none(), st.just(Ellipsis),
    st.builds(slice, st.none() | st.integers(-5, 5), st.none() | st.integers(-5, 5), st.none() | st.integers(1, 3)),
)


@given(cases(), st.lists(BASIC_KEY, max_size=4))
def test_basic_indexing_matches_numpy(c, key):
    key = tuple(key)
    if key.count(Ellipsis) > 1:
        key = tuple(k for k in key if k is not Ellipsis)
    np_key = key if Ellipsis in key else key + (Ellipsis,)  # so NumPy returns a 0-d view, not a scalar
    try:
        expected = c.a[np_key]
    except IndexError:
        try:
            c.t[key]
        except IndexError:
            return
        raise AssertionError("minitorch accepted an index NumPy refuses")
    r = c.t[key]
    assert_matches(r, expected)
    if r.numel():
        assert r.data_ptr() == expected.ctypes.data  # a view, at NumPy's address


# ---- math ----------------------------------------------------------------------------------

UNARY = [("exp", np.exp), ("abs", np.abs), ("neg", np.negative), ("tanh", np.tanh), ("sin", np.sin),
         ("relu", lambda a: np.maximum(a, 0)), ("sigmoid", lambda a: 1 / (1 + np.exp(-a.astype(np.float64)))),
         ("square", np.square), ("sign", np.sign)]


@given(cases(), st.sampled_from(UNARY))
def test_unary_matches_numpy(c, op):
    name, f = op
    out = getattr(c.t, name)()
    assert_matches(out, f(c.a), rtol=1e-5, atol=1e-6)
    assert_matches(c.t, c.a)  # the input is untouched


BINARY = [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("maximum", np.maximum),
          ("minimum", np.minimum), ("lt", np.less), ("ge", np.greater_equal), ("eq", np.equal)]


@given(broadcast_pairs(), st.sampled_from(BINARY))
def test_binary_broadcast_matches_numpy(pair, op):
    (x, y), (name, f) = pair, op
    assert_matches(getattr(mt, name)(x.t, y.t), f(x.a, y.a))
    assert tuple(mt.broadcast_shapes(x.t.shape, y.t.shape)) == np.broadcast_shapes(x.a.shape, y.a.shape)


@given(broadcast_pairs())
def test_division_and_where_broadcast(pair):
    x, y = pair
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = x.a / y.a
    assert_matches(x.t / y.t, expected, rtol=1e-5, atol=1e-5)
    assert_matches(mt.where(x.t > 0, x.t, y.t), np.where(x.a > 0, x.a, y.a))


@given(broadcast_pairs(dtype=np.int64))
def test_integer_ops_broadcast(pair):
    x, y = pair
    for got, expected in [(x.t + y.t, x.a + y.a), (x.t * y.t, x.a * y.a), (x.t - y.t, x.a - y.a),
                          (x.t & y.t, x.a & y.a)]:
        assert got.dtype is mt.int64
        assert_matches(got, expected)


@st.composite
def reduction_args(draw, nonempty=False):
    c = draw(cases(shapes=NONEMPTY if nonempty else SHAPES))
    nd = c.a.ndim
    if nd == 0 or draw(st.booleans()):
        dim = None
    elif draw(st.booleans()):
        dim = draw(st.integers(-nd, nd - 1))
    else:
        dims = draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
        dim = tuple(d - nd if draw(st.booleans()) else d for d in dims)
    return c, dim, draw(st.booleans())


def _np_reduce(f, a, dim, keepdim, **kw):
    return f(a.astype(np.float64), axis=dim, keepdims=keepdim, **kw)


@given(reduction_args())
def test_sum_matches_numpy(args):
    c, dim, keepdim = args
    out = c.t.sum() if dim is None and not keepdim else c.t.sum(dim=dim, keepdim=keepdim)
    assert_matches(out, _np_reduce(np.sum, c.a, dim, keepdim), rtol=1e-4, atol=1e-4)
    assert out.dtype is mt.float32


@given(reduction_args(nonempty=True))
def test_mean_amax_amin_match_numpy(args):
    c, dim, keepdim = args
    kw = {"dim": dim, "keepdim": keepdim}
    assert_matches(c.t.mean(**kw), _np_reduce(np.mean, c.a, dim, keepdim), rtol=1e-4, atol=1e-4)
    amax_dim = () if dim is None else dim
    assert_matches(c.t.amax(dim=amax_dim, keepdim=keepdim), _np_reduce(np.max, c.a, dim, keepdim))
    assert_matches(c.t.amin(dim=amax_dim, keepdim=keepdim), _np_reduce(np.min, c.a, dim, keepdim))


@given(reduction_args(nonempty=True))
def test_var_std_match_numpy(args):
    c, dim, keepdim = args
    n = c.a.size if dim is None else math.prod(c.a.shape[d] for d in ((dim,) if isinstance(dim, int) else dim))
    assume(n > 1)
    kw = {"dim": dim, "keepdim": keepdim}
    assert_matches(c.t.var(**kw), _np_reduce(np.var, c.a, dim, keepdim, ddof=1), rtol=1e-3, atol=1e-3)
    assert_matches(c.t.std(**kw), _np_reduce(np.std, c.a, dim, keepdim, ddof=1), rtol=1e-3, atol=1e-3)


@given(cases(shapes=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4)), st.data())
def test_max_argmax_along_dim_match_numpy(c, data):
    dim = data.draw(st.integers(-c.a.ndim, c.a.ndim - 1))
    keepdim = data.draw(st.booleans())
    values, indices = c.t.max(dim, keepdim=keepdim)
    assert_matches(values, np.max(c.a, axis=dim, keepdims=keepdim))
    assert_matches(indices, np.argmax(c.a, axis=dim, keepdims=keepdim))
    assert_matches(c.t.argmin(dim, keepdim=keepdim), np.argmin(c.a, axis=dim, keepdims=keepdim))
    assert c.t.argmax().item() == int(np.argmax(c.a))


@given(reduction_args(), st.sampled_from([("all", np.all), ("any", np.any)]))
def test_all_any_match_numpy(args, op):
    c, dim, keepdim = args
    name, f = op
    m = c.t > 0
    out = getattr(m, name)(dim=dim, keepdim=keepdim)
    assert out.dtype is mt.bool
    assert_matches(out, f(c.a > 0, axis=dim, keepdims=keepdim))


@given(cases(shapes=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)), st.data())
def test_matmul_matches_numpy(c, data):
    k = c.a.shape[-1]
    other_shape = data.draw(st.sampled_from([(k,), (k, 3), tuple(c.a.shape[:-2]) + (k, 2)]))
    other = data.draw(layouts(other_shape))
    assert_matches(c.t @ other.t, np.matmul(c.a, other.a), rtol=1e-4, atol=1e-4)


@given(cases(shapes=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4)), st.data())
def test_cat_stack_split_match_numpy(c, data):
    dim = data.draw(st.integers(-c.a.ndim, c.a.ndim - 1))
    assert_matches(mt.cat([c.t, c.t], dim), np.concatenate([c.a, c.a], dim))
    assert_matches(mt.stack([c.t, c.t], dim), np.stack([c.a, c.a], dim))
    n = c.a.shape[dim]
    size = data.draw(st.integers(1, max(n, 1)))
    parts = c.t.split(size, dim)
    expected = np.split(c.a, list(range(size, n, size)), axis=dim) if n else [c.a]
    assert len(parts) == len(expected)
    for p, e in zip(parts, expected):
        assert_matches(p, e)
