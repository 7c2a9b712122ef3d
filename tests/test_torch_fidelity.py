"""PyTorch fidelity of the tensor core: the same program run on PyTorch 2.13 and on minitorch
gives the same values, dtypes, shapes, memory layout (strides of views and of fresh results),
version counters, gradients, grad_fn names, exception types and warnings.

Each case is a function of the library (`torch` or `minitorch`) returning what it wants
compared; `same(case)` runs it on both. Skipped, visibly, when PyTorch is not installed.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch


# ---- running a case on both libraries -----------------------------------------------------

class Layout:
    """Marks a tensor whose strides (and storage offset) must agree too."""

    def __init__(self, t):
        self.t = t


class Version:
    """Marks a tensor whose version counter must agree too."""

    def __init__(self, t):
        self.t = t


def _is_tensor(x):
    return isinstance(x, (torch.Tensor, minitorch.Tensor))


def _describe(x):
    """A comparable description of a result."""
    if isinstance(x, Layout):  # (an empty view's strides and offset are not compared: nothing sits there)
        if not x.t.numel():
            return ("layout", _describe(x.t), None, None)
        return ("layout", _describe(x.t), tuple(x.t.stride()), x.t.storage_offset())
    if isinstance(x, Version):
        return ("version", _describe(x.t), x.t._version)
    if _is_tensor(x):
        arr = x.detach().cpu().numpy()
        return ("tensor", tuple(x.shape), str(x.dtype).split(".")[-1], np.array(arr, copy=True), x.requires_grad)
    if isinstance(x, (torch.Size, minitorch.Size)):
        return ("size", tuple(x))
    if isinstance(x, (torch.dtype, minitorch.dtype)):
        return ("dtype", str(x).split(".")[-1])
    if isinstance(x, (torch.device, minitorch.device)):
        return ("device", str(x))
    if isinstance(x, (tuple, list)):
        return ("seq", tuple(_describe(v) for v in x))
    if x is None or isinstance(x, (bool, str)):
        return ("value", x)
    if isinstance(x, (int, float)):
        return ("number", type(x).__name__, x)
    raise TypeError(f"can't compare a {type(x).__name__}")


def _assert_same(e, g, path="result"):
    assert e[0] == g[0], f"{path}: torch gives a {e[0]}, minitorch a {g[0]}"
    kind = e[0]
    if kind in ("layout", "version"):
        _assert_same(e[1], g[1], path)
        assert e[2:] == g[2:], f"{path}: {kind} {g[2:]}, torch {e[2:]}"
    elif kind == "tensor":
        assert g[1] == e[1], f"{path}: shape {g[1]}, torch {e[1]}"
        assert g[2] == e[2], f"{path}: dtype {g[2]}, torch {e[2]}"
        assert g[4] == e[4], f"{path}: requires_grad {g[4]}, torch {e[4]}"
        if e[3].dtype.kind == "f":
            tol = {2: 1e-3, 4: 1e-5, 8: 1e-10}[e[3].dtype.itemsize]
            np.testing.assert_allclose(g[3].astype(np.float64), e[3].astype(np.float64), rtol=tol, atol=tol,
                                       equal_nan=True, err_msg=path)
            # -0. and 0. print differently: the signs must agree too
            assert np.array_equal(np.signbit(g[3][g[3] == 0]), np.signbit(e[3][e[3] == 0])), f"{path}: sign of 0"
        else:
            np.testing.assert_array_equal(g[3], e[3], err_msg=path)
    elif kind == "seq":
        assert len(g[1]) == len(e[1]), f"{path}: {len(g[1])} items, torch {len(e[1])}"
        for i, (a, b) in enumerate(zip(e[1], g[1])):
            _assert_same(a, b, f"{path}[{i}]")
    elif kind == "number":
        assert g[1] == e[1], f"{path}: a {g[1]}, torch a {e[1]}"
        assert (math.isnan(g[2]) and math.isnan(e[2])) or g[2] == pytest.approx(e[2], rel=1e-5), path
    else:
        assert g == e, f"{path}: {g[1:]}, torch {e[1:]}"


def _run(lib, fn):
    """(result or exception, the UserWarnings it raised)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        try:
            out = ("ok", fn(lib))
        except Exception as e:  # noqa: BLE001 (the exception is what is compared)
            out = ("error", e)
    return out, [str(w.message).split(" (Triggered internally")[0] for w in caught
                 if issubclass(w.category, UserWarning)]


def same(fn, *, warns=True):
    """fn(torch) and fn(minitorch) agree: both raise an exception of the same type, or both
    return the same thing; and (with `warns`) both warn the same warnings, by message prefix."""
    (kind_t, res_t), warn_t = _run(torch, fn)
    (kind_m, res_m), warn_m = _run(minitorch, fn)
    if kind_t == "error":
        assert kind_m == "error", f"torch raised {type(res_t).__name__}: {res_t}; minitorch returned {res_m!r}"
        assert type(res_m).__name__ == type(res_t).__name__, (
            f"torch raised {type(res_t).__name__}: {res_t}\nminitorch raised {type(res_m).__name__}: {res_m}")
    else:
        if kind_m == "error":
            raise AssertionError(f"torch returned {res_t!r}; minitorch raised") from res_m
        _assert_same(_describe(res_t), _describe(res_m))
    if warns:
        assert len(warn_m) == len(warn_t), f"warnings: minitorch {warn_m}, torch {warn_t}"
        for t, m in zip(warn_t, warn_m):
            assert m.startswith(t), f"warning: minitorch {m!r}, torch {t!r}"
    return res_m


def cases(table):
    return pytest.mark.parametrize("fn", list(table.values()), ids=list(table.keys()))


@pytest.fixture(autouse=True)
def _warn_every_time():
    """PyTorch warns some deprecations once per process (x.T on a 3-D tensor): make both say it
    every time, so each case sees its own warnings."""
    torch.set_warn_always(True)
    minitorch._tensor._WARNED.clear()
    yield
    torch.set_warn_always(False)


def _arange(lib, *shape, dtype=None):
    n = math.prod(shape)
    return lib.arange(n, dtype=dtype or lib.float32).reshape(tuple(shape))


def _leaf(lib, *shape):
    return (_arange(lib, *shape) / 7 - 1).requires_grad_()


# ---- indexing: PyTorch's order of dims, reads, writes, gradients -------------------------

KEYS = {
    "int-slice-list": (0, slice(None), [0, 1]),
    "int-slice-mask": (0, slice(None), "mask4"),
    "slice-int-list": (slice(None), 0, [0, 1]),
    "list-slice-int": ([0, 1], slice(None), 0),
    "list-int": ([0, 1], 0),
    "int-list": (0, [0, 1]),
    "ellipsis-int-list": (Ellipsis, 0, [0, 1]),
    "none-int-slice-list": (None, 0, slice(None), [0, 1]),
    "int-none-list": (0, None, [0, 1]),
    "slice-list-none-list": (slice(None), [0, 1], None, [0, 1]),
    "list-slice-list": ([0, 1], slice(None), [0, 1]),
    "int-ellipsis-list": (0, Ellipsis, [0, 1]),
    "0d-tensor-slice-list": ("t0", slice(None), [0, 1]),
    "true-int-slice-list": (True, 0, slice(None), [0, 1]),
    "false": (False,),
    "range-int": (range(2), 0),
    "range-slice-range": (range(2), slice(None), range(2)),
    "slice-range": (slice(None), range(2)),
    "nested-list-slice-int": ([[0, 1]], slice(None), 0),
    "int-slice-2d-list": (0, slice(None), [[0, 1], [1, 2]]),
    "int-2d-list-slice": (0, [[0, 1], [1, 2]], slice(None)),
    "mask2d-int": ("mask23", 1),
    "int-mask-slice": (1, "mask3", slice(1, 3)),
    "slice-mask-int": (slice(1, None), "mask3", 1),
    "repeated": ([0, 1, 0],),
    "int-int-list": (0, 1, [0, 1]),
    "negative": (-1, slice(None, None, 2), [-1, 0]),
    "step-slice-list": (slice(None, None, 2), [2, 0], slice(1, None)),
    "empty-list": ([],),
    "int-slice-int": (1, slice(None), 2),
}


def _key(lib, spec):
    out = []
    for k in spec:
        if k == "mask4":
            k = lib.tensor([True, False, True, False])
        elif k == "mask3":
            k = lib.tensor([True, False, True])
        elif k == "mask23":
            k = lib.tensor([[True, False, True], [False, True, True]])
        elif k == "t0":
            k = lib.tensor(0)
        out.append(k)
    return tuple(out)


@pytest.mark.parametrize("spec", list(KEYS.values()), ids=list(KEYS.keys()))
def test_advanced_indexing_read(spec):
    same(lambda lib: Layout(_arange(lib, 2, 3, 4)[_key(lib, spec)]))


@pytest.mark.parametrize("spec", list(KEYS.values()), ids=list(KEYS.keys()))
def test_advanced_indexing_gradient(spec):
    def grads(lib):
        x = _leaf(lib, 2, 3, 4)
        y = x[_key(lib, spec)]
        w = lib.arange(y.numel(), dtype=lib.float32).reshape(y.shape) + 1
        (y * w).sum().backward()
        return y, x.grad
    same(grads)


@pytest.mark.parametrize("spec", list(KEYS.values()), ids=list(KEYS.keys()))
def test_advanced_indexing_write(spec):
    def write(lib):
        x = _arange(lib, 2, 3, 4)
        shape = x[_key(lib, spec)].shape
        x[_key(lib, spec)] = -lib.arange(math.prod(shape), dtype=lib.float32).reshape(shape) - 1
        return Version(x)
    same(write)


@pytest.mark.parametrize("spec", list(KEYS.values()), ids=list(KEYS.keys()))
def test_advanced_indexing_write_records_the_graph(spec):
    def write(lib):
        x = _leaf(lib, 2, 3, 4)
        v = lib.ones(1, requires_grad=True)
        y = x * 1
        y[_key(lib, spec)] = v * 5
        (y * y).sum().backward()
        return y, x.grad, v.grad, type(y.grad_fn).__name__
    same(write)


INDEX_CASES = {
    "x[0,:,[0,1]] = zeros(3, 2)": lambda L: _set(L, (0, slice(None), [0, 1]), L.zeros(3, 2)),
    "value with leading 1 dims": lambda L: _set(L, (0,), L.ones(1, 3, 4)),
    "adv value with leading 1 dims": lambda L: _set(L, ([0, 1],), L.ones(1, 1, 3, 4)),
    "basic value too big": lambda L: _set(L, (0,), L.ones(2, 3, 4)),
    "basic value wrong size": lambda L: _set(L, (0, 0), L.ones(3)),
    "adv value wrong size": lambda L: _set(L, ([0, 1],), L.ones(3)),
    "index out of range": lambda L: _arange(L, 2, 3)[5],
    "list index out of range": lambda L: _arange(L, 2, 3)[[0, 5]],
    "too many indices": lambda L: _arange(L, 2, 3)[0, 0, 0],
    "0-d int index": lambda L: L.tensor(1.0)[0],
    "float index": lambda L: _arange(L, 2, 3)[1.5],
    "float tensor index": lambda L: _arange(L, 2, 3)[L.tensor([1.0])],
    "mask of wrong shape": lambda L: _arange(L, 2, 3)[L.tensor([True, False, True])],
    "uint8 mask (deprecated)": lambda L: _arange(L, 2, 3)[L.tensor([1, 0], dtype=L.uint8)],
    "non-tuple sequence (deprecated)": lambda L: _arange(L, 2, 3)[[0, L.tensor(1)]],
    "list of bools": lambda L: _arange(L, 2, 3)[[True, False]],
    "numpy index array": lambda L: _arange(L, 2, 3)[np.array([1, 0])],
    "numpy int": lambda L: Layout(_arange(L, 2, 3)[np.int64(1)]),
    "x[...]": lambda L: Layout(_arange(L, 2, 3)[...]),
    "x[None, ..., None]": lambda L: Layout(_arange(L, 2, 3)[None, ..., None]),
    "x[1, True]": lambda L: _arange(L, 2, 3)[1, True],
    "x[tensor(True)]": lambda L: _arange(L, 2, 3)[L.tensor(True)],
    "x[range(n), target]": lambda L: _arange(L, 3, 4)[range(3), L.tensor([1, 0, 3])],
    "uint8 x[i] = -1": lambda L: _set(L, (0,), -1, dtype=L.uint8),
    "uint8 x[[i]] = -2": lambda L: _set(L, ([1],), -2, dtype=L.uint8),
    "uint8 x[:2] = -1": lambda L: _set(L, (slice(0, 2),), -1, dtype=L.uint8),
    "uint8 x[i] = 300": lambda L: _set(L, (0,), 300, dtype=L.uint8),
    "uint8 x[i] = -2.7": lambda L: _set(L, (0,), -2.7, dtype=L.uint8),
    "int8 x[i] = 200": lambda L: _set(L, (0,), 200, dtype=L.int8),
    "int16 x[i] = 10**6": lambda L: _set(L, (0,), 10 ** 6, dtype=L.int16),
    "int x[i] = nan": lambda L: _set(L, (0,), float("nan"), dtype=L.int64),
    "int x[i] = 2.7": lambda L: _set(L, (0,), 2.7, dtype=L.int64),
    "int x[i] = -2.7": lambda L: _set(L, (0,), -2.7, dtype=L.int64),
    "float x[i] = 1e300": lambda L: _set(L, (0,), 1e300),
    "half x[i] = 1e6": lambda L: _set(L, (0,), 1e6, dtype=L.float16),
    "bool x[i] = 0.5": lambda L: _set(L, (0,), 0.5, dtype=L.bool),
    "x[i] = 2**63": lambda L: _set(L, (0,), 2 ** 63, dtype=L.int64),
    "x[:] = list": lambda L: _set(L, (slice(None),), [1.0, 2.0, 3.0]),
    "x[:] = ndarray": lambda L: _set(L, (slice(None),), np.ones(3)),
    "x[:] = np.float32": lambda L: _set(L, (slice(None),), np.float32(1.5)),
    "x[:] = np.int64": lambda L: _set(L, (slice(None),), np.int64(2)),
    "index put of another dtype": lambda L: _set(L, (L.tensor([0, 2]),), L.tensor([1.7, 2.2]), dtype=L.int64),
    "index put, list key, other dtype": lambda L: _set(L, ([0, 2],), L.tensor([1.7, 2.2]), dtype=L.int64),
    "index put, mask, other dtype": lambda L: _set(L, (L.tensor([True, False, True]),), L.tensor([1.7, 2.2]),
                                                   dtype=L.int64),
    "mask put of a 0-d tensor of another dtype": lambda L: _set(L, (L.tensor([True, False, True]),), L.tensor(1.7),
                                                               dtype=L.int64),
    "index put of a 0-d tensor of another dtype": lambda L: _set(L, (L.tensor([0, 2]),), L.tensor(1.7),
                                                                dtype=L.int64),
    "basic put casts": lambda L: _set(L, (slice(0, 2),), L.tensor([1.7, 2.2]), dtype=L.int64),
    "float put of long": lambda L: _set(L, ([0, 2],), L.tensor([1, 2])),
    "double put of float": lambda L: _set(L, ([0, 2],), L.tensor([1.0, 2.0]), dtype=L.float64),
    "setitem on a leaf": lambda L: L.ones(3, requires_grad=True).__setitem__(0, 5.0),
    "setitem [:] on a leaf": lambda L: L.ones(3, requires_grad=True).__setitem__(slice(None), 5.0),
    "setitem [list] on a leaf": lambda L: L.ones(3, requires_grad=True).__setitem__([0], 5.0),
    "setitem records a requiring value": lambda L: _set_grad_value(L),
    "index_select negative": lambda L: L.arange(5).index_select(0, L.tensor([-1])),
    "index_select too big": lambda L: L.arange(5).index_select(0, L.tensor([5])),
    "index_select float index": lambda L: L.arange(5).index_select(0, L.tensor([1.0])),
    "index_select int32 index": lambda L: L.arange(5).index_select(0, L.tensor([1], dtype=L.int32)),
    "index_select 0-d index": lambda L: L.arange(5).index_select(0, L.tensor(1)),
    "index_select 0-d input": lambda L: L.tensor(5).index_select(0, L.tensor([0])),
    "index_select list": lambda L: L.arange(5).index_select(0, [1]),
    "index_select axis=": lambda L: _arange(L, 2, 3).index_select(axis=1, index=L.tensor([2, 0])),
    "index_select grad_fn": lambda L: type(_leaf(L, 2, 3).index_select(0, L.tensor([1])).grad_fn).__name__,
    "gather axis=": lambda L: _arange(L, 2, 3).gather(axis=1, index=L.tensor([[0], [2]])),
    "nonzero of 0-d": lambda L: (L.tensor(5).nonzero(), L.tensor(0).nonzero(), L.tensor(5).nonzero(as_tuple=True),
                                 L.tensor(0).nonzero(as_tuple=True)),
    "nonzero of empty": lambda L: (L.zeros(0, 3).nonzero(), L.zeros(0).nonzero()),
}


def _set(L, key, value, dtype=None):
    x = L.zeros(3, dtype=dtype) if dtype is not None or len(key) == 1 and not isinstance(value, L.Tensor) or (
        isinstance(value, L.Tensor) and value.ndim <= 1 and len(key) == 1) else _arange(L, 2, 3, 4)
    if dtype is None and isinstance(value, L.Tensor) and value.ndim > 1:
        x = _arange(L, 2, 3, 4)
    x[key] = value
    return Version(x)


def _set_grad_value(L):
    x = L.zeros(3)
    v = L.tensor(5.0, requires_grad=True)
    x[0] = v
    x.sum().backward()
    return x, type(x.grad_fn).__name__, v.grad


@cases(INDEX_CASES)
def test_indexing(fn):
    same(fn)


# ---- in-place: Python's augmented assignments, size 0, expanded tensors --------------------

AUGMENTED = ["+=", "-=", "*=", "/=", "//=", "%=", "|=", "&=", "^=", "<<=", ">>=", "**="]


@pytest.mark.parametrize("op", AUGMENTED)
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool", "uint8"])
@pytest.mark.parametrize("other", [2, "tensor", 2.5, True], ids=["int", "tensor", "float", "bool"])
def test_augmented_assignment_works_in_place(op, dtype, other):
    def run(L):
        a = L.arange(1, 7).to(getattr(L, dtype))
        v = a[:3]
        before = id(v)
        o = L.tensor([1, 2, 3]).to(getattr(L, dtype)) if other == "tensor" else other
        scope = {"v": v, "o": o}
        exec(f"v {op} o", scope)
        return Version(a), scope["v"] is v and id(scope["v"]) == before
    same(run)


INPLACE_CASES = {
    "size-0 +=": lambda L: Version(L.zeros(0, 3).__iadd__(1)),
    "size-0 x[:] = 1": lambda L: _set0(L, slice(None)),
    "size-0 x[0] = 1": lambda L: _set0(L, 0, shape=(3, 0)),
    "size-0 fill_": lambda L: Version(L.zeros(0, 3).fill_(1)),
    "size-0 mul_ tensor": lambda L: Version(L.zeros(0, 3).mul_(L.ones(3))),
    "expanded fill_": lambda L: _expanded(L, lambda e: e.fill_(2)),
    "expanded zero_": lambda L: _expanded(L, lambda e: e.zero_()),
    "expanded x[0] = 5": lambda L: _expanded(L, lambda e: e.__setitem__(0, 5.0)),
    "expanded x[:] = 5": lambda L: _expanded(L, lambda e: e.__setitem__(slice(None), 5.0)),
    "expanded x[:] = tensor": lambda L: _expanded(L, lambda e: e.__setitem__(slice(None), L.tensor([1., 2, 3]))),
    "expanded x[[0, 1]] = 7": lambda L: _expanded(L, lambda e: e.__setitem__([0, 1], 7.0)),
    "expanded x[mask] = 7": lambda L: _expanded(L, lambda e: e.__setitem__(L.tensor([True, False, True]), 7.0)),
    "expanded masked_fill_": lambda L: _expanded(L, lambda e: e.masked_fill_(L.tensor([True, False, True]), 3.0)),
    "expanded add_": lambda L: _expanded(L, lambda e: e.add_(1)),
    "expanded mul_": lambda L: _expanded(L, lambda e: e.mul_(2)),
    "expanded copy_": lambda L: _expanded(L, lambda e: e.copy_(L.ones(3))),
    "expanded clamp_": lambda L: _expanded(L, lambda e: e.clamp_(0, 1)),
    "expanded exp_": lambda L: _expanded(L, lambda e: e.exp_()),
    "expanded relu_": lambda L: _expanded(L, lambda e: e.relu_()),
    "expanded 2-d [0, 1] = 7": lambda L: _expanded2(L, lambda e: e.__setitem__((0, 1), 7.0)),
    "expanded 2-d [:, 0] = tensor": lambda L: _expanded2(L, lambda e: e.__setitem__((slice(None), 0),
                                                                                    L.tensor([1., 2]))),
    "expanded 2-d [0] = 7": lambda L: _expanded2(L, lambda e: e.__setitem__(0, 7.0)),
    "t_() on a leaf that requires grad": lambda L: L.ones(2, 3, requires_grad=True).t_(),
    "t_() bumps the version": lambda L: (lambda t: (Layout(t), Version(t)))(L.ones(2, 3).t_()),
    "t_() records TBackward1": lambda L: type((L.ones(2, 3, requires_grad=True) * 1).t_().grad_fn).__name__,
    "sigmoid_ on int": lambda L: L.tensor([1, 2]).sigmoid_(),
    "exp_ on int": lambda L: L.tensor([1, 2]).exp_(),
    "relu_ on int": lambda L: L.tensor([1, -2]).relu_(),
    "floor_ on int": lambda L: L.tensor([1, 2]).floor_(),
    "bool |= 1": lambda L: L.tensor([True, False]).__ior__(1),
    "bool |= True": lambda L: L.tensor([True, False]).__ior__(True),
    "int //= 2.0": lambda L: L.tensor([5, 7]).__ifloordiv__(2.0),
    "int //= 0": lambda L: L.tensor([5, 7]).__ifloordiv__(0),
    "int %= tensor with 0": lambda L: L.tensor([5, 7]).__imod__(L.tensor([0, 1])),
    "float &= 2": lambda L: L.tensor([5.0, 7.0]).__iand__(2),
    "//= can't grow": lambda L: L.ones(3).__ifloordiv__(L.ones(2, 3)),
    "<<= tensor": lambda L: L.tensor([5, 7]).__ilshift__(L.tensor([1, 2])),
    "logical_and_": lambda L: Version(L.tensor([1.0, 0.0, 2.0]).logical_and_(L.tensor([True, True, False]))),
    "masked_fill_ records": lambda L: _masked_fill_graph(L),
}


def _set0(L, key, shape=(0, 3)):
    x = L.zeros(*shape)
    x[key] = 1
    return Version(x)


def _expanded(L, f):
    base = L.zeros(1)
    e = base.expand(3)
    f(e)
    return Version(base), e


def _expanded2(L, f):
    base = L.zeros(2, 1)
    e = base.expand(2, 3)
    f(e)
    return Version(base), e


def _masked_fill_graph(L):
    x = _leaf(L, 3)
    y = x * 2
    y.masked_fill_(L.tensor([True, False, True]), 4.0)
    y.sum().backward()
    return y, x.grad, type(y.grad_fn).__name__


@cases(INPLACE_CASES)
def test_inplace(fn):
    same(fn)


# ---- autograd semantics ----------------------------------------------------------------------

BACKWARD_TWICE = {
    "index": lambda L, x: x[[0, 0]].sum(),
    "mask": lambda L, x: x[x > 0].sum(),
    "max(dim)": lambda L, x: x.max(0)[0].sum(),
    "min(dim)": lambda L, x: x.min(0)[0].sum(),
    "max()": lambda L, x: x.max(),
    "gather": lambda L, x: x.gather(0, L.tensor([0, 1])).sum(),
    "mul by scalar": lambda L, x: (x * 2).sum(),
    "div by scalar": lambda L, x: (x / 2).sum(),
    "add": lambda L, x: (x + 2).sum(),
    "select": lambda L, x: x[0],
    "sum": lambda L, x: x.sum(),
    "mean": lambda L, x: x.mean(),
    "view": lambda L, x: x.view(3, 1).sum(),
    "exp": lambda L, x: x.exp().sum(),
    "neg": lambda L, x: (-x).sum(),
    "permute": lambda L, x: x.unsqueeze(0).permute(1, 0).sum(),
    "expand": lambda L, x: x.expand(2, 3).sum(),
    "cat": lambda L, x: L.cat([x, x]).sum(),
    "stack": lambda L, x: L.stack([x, x]).sum(),
    "split": lambda L, x: x.split(2)[0].sum(),
    "where": lambda L, x: L.where(x > 0, x, 0.0).sum(),
    "masked_fill": lambda L, x: x.masked_fill(x > 0, 0.0).sum(),
    "clamp": lambda L, x: x.clamp(-0.5, 0.5).sum(),
    "index_select": lambda L, x: x.index_select(0, L.tensor([1])).sum(),
    "repeat": lambda L, x: x.repeat(2).sum(),
    "flip": lambda L, x: x.flip(0).sum(),
    "cumsum": lambda L, x: x.cumsum(0).sum(),
    "std": lambda L, x: x.std(),
    "norm": lambda L, x: x.norm(),
    "logsumexp": lambda L, x: x.logsumexp(0),
}


@pytest.mark.parametrize("name", list(BACKWARD_TWICE), ids=list(BACKWARD_TWICE))
def test_second_backward_raises_where_pytorch_does(name):
    def twice(L):
        x = L.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = BACKWARD_TWICE[name](L, x)
        y.backward()
        y.backward()
        return x.grad
    same(twice)


def _retain_then_inplace(L, view):
    x = L.ones(4, requires_grad=True)
    b = x * 1
    y = b[:2] if view else b
    y.retain_grad()
    y.mul_(3)
    (y * 1).sum().backward()
    return y.grad, x.grad


def _retain_base_then_view_inplace(L):
    x = L.ones(4, requires_grad=True)
    b = x * 1
    b.retain_grad()
    b[:2].mul_(3)
    b.sum().backward()
    return b.grad, x.grad


def _no_grad_views(L):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with L.no_grad():
        views = [x[0:2], x.view(3), x.unsqueeze(0), x.t(), x[...], x.expand(2, 3), x[[0, 1]], x * 2, x.detach()]
    y = views[0] * 2
    flags = [(v.requires_grad, v.is_leaf, v.grad_fn is None) for v in views]
    y.sum().backward()
    views[0].sum().backward()
    return flags, y.requires_grad, [n is None for n, _ in y.grad_fn.next_functions], x.grad, views[0].grad


AUTOGRAD_CASES = {
    "y.requires_grad = False on a non-leaf": lambda L: setattr(L.ones(2, requires_grad=True) * 2, "requires_grad",
                                                               False),
    "y.requires_grad = True on a non-leaf": lambda L: setattr(L.ones(2, requires_grad=True) * 2, "requires_grad",
                                                              True),
    "requires_grad = True on an int leaf": lambda L: setattr(L.arange(3), "requires_grad", True),
    "requires_grad = False on an int leaf": lambda L: _set_flag(L.arange(3), False),
    "requires_grad = 1": lambda L: setattr(L.ones(3), "requires_grad", 1),
    "requires_grad_() on a non-leaf": lambda L: (L.ones(2, requires_grad=True) * 2).requires_grad_().requires_grad,
    "requires_grad_(False) on a non-leaf": lambda L: (L.ones(2, requires_grad=True) * 2).requires_grad_(False),
    "retain_grad, then in place": lambda L: _retain_then_inplace(L, view=False),
    "retain_grad on a view, then in place": lambda L: _retain_then_inplace(L, view=True),
    "retain_grad on the base, view in place": _retain_base_then_view_inplace,
    "views under no_grad": _no_grad_views,
    "in-place on a no_grad view": lambda L: _no_grad_view_inplace(L),
    "split output in place": lambda L: (L.ones(4, requires_grad=True) * 1).split(2)[0].mul_(2),
    "view of split output in place": lambda L: (L.ones(4, 3, requires_grad=True) * 1).split(2)[0][0].mul_(2),
    "unbind output in place": lambda L: (L.ones(4, 2, requires_grad=True) * 1).unbind()[0].mul_(2),
    "chunk output in place": lambda L: (L.ones(4, requires_grad=True) * 1).chunk(2)[0].mul_(2),
    "split of a leaf in place": lambda L: L.ones(4, requires_grad=True).split(2)[0].mul_(2),
    "split output in place, no grad": lambda L: Version(L.ones(4).split(2)[0].mul_(2)),
    "split outputs are views": lambda L: [(Layout(p), p._base is not None) for p in L.ones(4, 3).split([1, 3])],
    "unbind outputs are views": lambda L: [(Layout(p), p._base is not None) for p in L.ones(2, 3).unbind(1)],
    "norm output modified": lambda L: _modified_output(L, lambda n: n.norm()),
    "logsumexp output modified": lambda L: _modified_output(L, lambda n: n.logsumexp(0)),
    "std output modified": lambda L: _modified_output(L, lambda n: n.std()),
    "var output modified": lambda L: _modified_output(L, lambda n: n.var()),
    "mean output modified": lambda L: _modified_output(L, lambda n: n.mean()),
    "softmax output modified": lambda L: _modified_output(L, lambda n: n.softmax(0).sum()),
    "sqrt output modified": lambda L: _modified_output(L, lambda n: n.sqrt().sum()),
    "norm p=1 output modified": lambda L: _modified_output(L, lambda n: n.norm(p=1)),
    "amax output modified": lambda L: _modified_output(L, lambda n: n.amax()),
    "prod output modified": lambda L: _modified_output(L, lambda n: n.prod()),
    "saved 1/x input modified": lambda L: _modified_input(L, lambda h: 1.0 / h),
    "saved x/x input modified": lambda L: _modified_input(L, lambda h: h / h),
    "saved x ** 3 input modified": lambda L: _modified_input(L, lambda h: h ** 3),
    "saved x ** y input modified": lambda L: _modified_input(L, lambda h: h ** h),
}


def _set_flag(t, value):
    t.requires_grad = value
    return t.requires_grad


def _no_grad_view_inplace(L):
    x = L.ones(3, requires_grad=True)
    with L.no_grad():
        v = x[1:]
    v.add_(1)


def _modified_output(L, f):
    n = L.tensor([3.0, 4.0], requires_grad=True)
    y = f(n)
    y.mul_(2)
    y.backward()
    return n.grad


def _modified_input(L, f):
    x = L.tensor([[1.0, 2.0], [0.5, 3.0]], requires_grad=True)
    h = x * 1
    out = f(h)
    h.add_(1)
    out.sum().backward()
    return x.grad


@cases(AUTOGRAD_CASES)
def test_autograd(fn):
    same(fn)


def _graph(fn):
    """The names of grad_fn and of what its next_functions point at (None for no edge)."""
    def run(L):
        b = L.tensor([0.5, 1.0, 2.0], requires_grad=True).sin()
        c = fn(L, b)
        return type(c.grad_fn).__name__, [None if n is None else type(n).__name__ for n, _ in c.grad_fn.next_functions]
    return run


NEXT_FUNCTIONS = {
    "2 * b": lambda L, b: 2 * b, "b * 2": lambda L, b: b * 2, "2 + b": lambda L, b: 2 + b,
    "b + 2": lambda L, b: b + 2, "2 - b": lambda L, b: 2 - b, "b - 2": lambda L, b: b - 2,
    "2 / b": lambda L, b: 2 / b, "b / 2": lambda L, b: b / 2, "2 ** b": lambda L, b: 2 ** b,
    "b ** 2": lambda L, b: b ** 2, "b @ b": lambda L, b: b @ b, "mul(2, b)": lambda L, b: L.mul(2, b),
    "add(2, b)": lambda L, b: L.add(2, b), "b.pow(2)": lambda L, b: b.pow(2), "pow(2, b)": lambda L, b: L.pow(2, b),
    "b ** b": lambda L, b: b ** b, "rsub(b, 2)": lambda L, b: L.rsub(b, 2), "b % 2": lambda L, b: b % 2,
    "b % b": lambda L, b: b % b, "fmod(b, 2)": lambda L, b: L.fmod(b, 2), "b // 2": lambda L, b: b // 2,
}


@pytest.mark.parametrize("fn", list(NEXT_FUNCTIONS.values()), ids=list(NEXT_FUNCTIONS))
def test_next_functions_order(fn):
    same(_graph(fn))


def test_chained_next_functions_as_in_tutorials():
    def chain(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        b = a.sin()
        c = 2 * b
        d = c + 1
        return [type(d.grad_fn.next_functions[0][0]).__name__,
                type(d.grad_fn.next_functions[0][0].next_functions[0][0]).__name__,
                d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].name()]
    same(chain)


GRAD_FN_NAMES = {
    ".T 3-d": lambda L, x: x.T, ".T 2-d": lambda L, x: x[0].T, ".T 1-d": lambda L, x: x[0, 0].T,
    ".mT": lambda L, x: x.mT, "t()": lambda L, x: x[0].t(), "stack": lambda L, x: L.stack([x, x]),
    "split": lambda L, x: x.split(1)[1], "split sizes": lambda L, x: x.split([1, 1])[0],
    "chunk": lambda L, x: x.chunk(2)[0], "unbind": lambda L, x: x.unbind()[1], "hstack": lambda L, x: L.hstack([x, x]),
    "std": lambda L, x: x.std(), "std(dim)": lambda L, x: x.std(0), "var": lambda L, x: x.var(),
    "var(dim)": lambda L, x: x.var(1), "norm": lambda L, x: x.norm(), "norm(dim)": lambda L, x: x.norm(dim=1),
    "norm p=1": lambda L, x: x.norm(p=1), "norm inf": lambda L, x: x.norm(p=float("inf")),
    "logsumexp": lambda L, x: x.logsumexp(0), "repeat": lambda L, x: x.repeat(2, 1, 1), "tile": lambda L, x: x.tile(2),
    "expand same shape": lambda L, x: x.expand(2, 3, 4), "narrow": lambda L, x: x.narrow(0, 0, 1),
    "squeeze": lambda L, x: x[:1].squeeze(), "squeeze(0)": lambda L, x: x[:1].squeeze(0),
    "clamp tensor": lambda L, x: x.clamp(L.zeros(4), L.ones(4)), "clamp min": lambda L, x: x.clamp(min=0),
    "clamp_min": lambda L, x: x.clamp_min(0), "clamp_max": lambda L, x: x.clamp_max(0),
    "rsqrt": lambda L, x: x.rsqrt(), "log1p": lambda L, x: x.log1p(), "expm1": lambda L, x: x.expm1(),
    "square": lambda L, x: x.square(), "reciprocal": lambda L, x: x.reciprocal(), "1 - x": lambda L, x: 1 - x,
    "masked_fill": lambda L, x: x.masked_fill(x > 0, 0.0),
    "index_select": lambda L, x: x.index_select(0, L.tensor([0])),
    "x[0, :, [0, 1]]": lambda L, x: x[0, :, [0, 1]], "x[...]": lambda L, x: x[...], "x[:]": lambda L, x: x[:],
    "x[None]": lambda L, x: x[None], "matmul 3-d": lambda L, x: x @ x.mT,
    "matmul 3-d 2-d": lambda L, x: x @ L.ones(4, 2), "matmul 1-d 2-d": lambda L, x: x[0, 0] @ L.ones(4, 2),
    "matmul 2-d 1-d": lambda L, x: x[0] @ L.ones(4), "matmul 1-d 1-d": lambda L, x: x[0, 0] @ L.ones(4),
    "matmul 2-d 3-d": lambda L, x: x[0].mT @ x, "matmul 3-d 1-d": lambda L, x: x @ L.ones(4),
    "matmul 1-d 3-d": lambda L, x: x[0, :, 0] @ x, "bmm": lambda L, x: L.bmm(x, x.mT),
    "mm": lambda L, x: L.mm(x[0], x[0].T), "round(decimals)": lambda L, x: x.round(decimals=2),
    "fill_": lambda L, x: (x * 1).fill_(1.0), "fill_(tensor)": lambda L, x: (x * 1).fill_(L.tensor(1.0)),
    "zero_": lambda L, x: (x * 1).zero_(), "Tensor(x)": lambda L, x: L.Tensor(x),
}


@pytest.mark.parametrize("fn", list(GRAD_FN_NAMES.values()), ids=list(GRAD_FN_NAMES))
def test_grad_fn_names(fn):
    def names(L):
        y = fn(L, _leaf(L, 2, 3, 4))
        return type(y.grad_fn).__name__, y.grad_fn.name(), f"<{type(y.grad_fn).__name__} object at" in repr(y.grad_fn)
    same(names)


@pytest.mark.parametrize("fn", [v for k, v in GRAD_FN_NAMES.items() if k not in ("fill_", "fill_(tensor)", "zero_")],
                         ids=[k for k in GRAD_FN_NAMES if k not in ("fill_", "fill_(tensor)", "zero_")])
def test_gradients_of_those_ops(fn):
    def grads(L):
        x = _leaf(L, 2, 3, 4)
        y = fn(L, x)
        w = L.arange(y.numel(), dtype=L.float32).reshape(y.shape) / 5 - 1
        (y * w).sum().backward()
        return x.grad
    same(grads)


def test_accumulate_grad_names():
    def names(L):
        node = (L.ones(2, requires_grad=True) * 2).grad_fn.next_functions[0][0]
        return type(node).__name__, node.name()
    same(names)


# ---- elementwise semantics -----------------------------------------------------------------

POINTWISE = {
    "floor of int is a copy": lambda L: _copy_check(L, "floor"),
    "ceil of int is a copy": lambda L: _copy_check(L, "ceil"),
    "round of int is a copy": lambda L: _copy_check(L, "round"),
    "trunc of int is a copy": lambda L: _copy_check(L, "trunc"),
    "abs of bool": lambda L: L.tensor([True]).abs(), "floor of bool": lambda L: L.tensor([True]).floor(),
    "round of bool": lambda L: L.tensor([True]).round(), "ceil of bool": lambda L: L.tensor([True]).ceil(),
    "trunc of bool": lambda L: L.tensor([True]).trunc(), "relu of bool": lambda L: L.tensor([True]).relu(),
    "sign of bool": lambda L: L.tensor([True, False]).sign(), "neg of bool": lambda L: -L.tensor([True]),
    "square of bool": lambda L: L.tensor([True, False]).square(),
    "square of int": lambda L: L.tensor([3, -2]).square(),
    "alpha before promotion": lambda L: L.add(L.tensor([1.5]), L.tensor([6], dtype=L.uint8), alpha=-1),
    "sub alpha": lambda L: L.sub(L.tensor([1.5]), L.tensor([6], dtype=L.uint8), alpha=2),
    "float alpha on ints": lambda L: L.add(L.tensor([1]), L.tensor([6]), alpha=0.5),
    "int alpha": lambda L: L.add(L.tensor([1]), L.tensor([6]), alpha=2),
    "alpha with a scalar": lambda L: L.add(L.tensor([1]), 6, alpha=2),
    "bool alpha": lambda L: L.add(L.tensor([True]), L.tensor([True]), alpha=2),
    "add_ alpha": lambda L: L.tensor([1.0]).add_(L.tensor([2]), alpha=3),
    "add_ float alpha on int": lambda L: L.tensor([1]).add_(L.tensor([2]), alpha=1.5),
    "log1p of uint8": lambda L: L.tensor([255], dtype=L.uint8).log1p(),
    "log1p of int": lambda L: L.tensor([1, 2]).log1p(), "log1p small": lambda L: L.tensor([1e-10, -1e-7]).log1p(),
    "expm1 of int": lambda L: L.tensor([1, 2]).expm1(), "expm1 small": lambda L: L.tensor([1e-10, -1e-7]).expm1(),
    "rsqrt of int": lambda L: L.tensor([1, 4]).rsqrt(), "reciprocal of int": lambda L: L.tensor([1, 4]).reciprocal(),
    "reciprocal of bool": lambda L: L.tensor([True, False]).reciprocal(),
    "int ** negative int tensor": lambda L: L.tensor([2, 3]) ** L.tensor([-1, 2]),
    "int ** negative, 1 and -1": lambda L: L.tensor([1, -1, 0, -1]) ** L.tensor([-1, -3, 2, -2]),
    "0 ** -1 int": lambda L: L.tensor([0]) ** L.tensor([-1]),
    "int ** -1 scalar": lambda L: L.tensor([2, 3]) ** -1,
    "2 ** int tensor with negatives": lambda L: 2 ** L.tensor([-1, 2]),
    "add(5, 5)": lambda L: L.add(5, 5), "add(5, 5.)": lambda L: L.add(5, 5.0), "mul(5, 5)": lambda L: L.mul(5, 5),
    "sub(5, 3)": lambda L: L.sub(5, 3), "div(5, 2)": lambda L: L.div(5, 2),
    "add(True, True)": lambda L: L.add(True, True),
    "add(5, 5, alpha=2)": lambda L: L.add(5, 5, alpha=2), "true_divide(5, 2)": lambda L: L.true_divide(5, 2),
    "floor_divide(5, 2)": lambda L: L.floor_divide(5, 2), "pow(5, 2)": lambda L: L.pow(5, 2),
    "maximum(5, 2)": lambda L: L.maximum(5, 2), "eq(5, 2)": lambda L: L.eq(5, 2),
    "remainder(5, 2)": lambda L: L.remainder(5, 2), "fmod(5, 2)": lambda L: L.fmod(5, 2),
    "maximum(t, 3)": lambda L: L.maximum(L.tensor([1.0, 2.0]), 3),
    "minimum(t, 3)": lambda L: L.minimum(L.tensor([1.0, 2.0]), 3),
    "t.maximum(3)": lambda L: L.tensor([1.0, 2.0]).maximum(3),
    "logical_and(t, 0.5)": lambda L: L.logical_and(L.tensor([1.0, 0.0]), 0.5),
    "logical_or(t, 1)": lambda L: L.logical_or(L.tensor([1.0, 0.0]), 1),
    "t.logical_and(1)": lambda L: L.tensor([1.0, 0.0]).logical_and(1),
    "isclose across dtypes": lambda L: L.isclose(L.tensor([1.0, 2.0]), L.tensor([1, 2])),
    "isclose f32 f64": lambda L: L.isclose(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0], dtype=L.float64)),
    "allclose across dtypes": lambda L: L.allclose(L.tensor([1.0, 2.0]), L.tensor([1, 2])),
    "isclose with a number": lambda L: L.isclose(L.tensor([1.0]), 1.0),
    "isclose ints": lambda L: L.isclose(L.tensor([1]), L.tensor([1])),
    "isclose broadcast": lambda L: L.isclose(L.ones(2, 3), L.ones(3)),
    "outer of 2-d": lambda L: L.outer(L.ones(2, 2), L.ones(2)),
    "outer of 0-d": lambda L: L.outer(L.tensor(1.0), L.ones(2)),
    "outer int float": lambda L: L.outer(L.tensor([1, 2]), L.ones(2)),
    "round decimals": lambda L: L.tensor([1.2345, 2.5, -0.125, 1234.5678]).round(decimals=2),
    "round negative decimals": lambda L: L.tensor([1234.5, 25.0, 35.0]).round(decimals=-1),
    "round decimals of int": lambda L: L.tensor([1234, 25]).round(decimals=-1),
    "torch.round decimals": lambda L: L.round(L.tensor([1.2345]), decimals=1),
    "round_ decimals": lambda L: L.tensor([1.2345, 2.5]).round_(decimals=2),
    "remainder -0.": lambda L: L.tensor([-2.0, 2.0, -3.0, 3.5]) % 1.0,
    "remainder signs": lambda L: L.tensor([-5.5, 5.5, -0.0]) % L.tensor([2.0, -2.0, 3.0]),
    "remainder grad": lambda L: _grad1(L, lambda x: x % 1.5),
    "fmod grad": lambda L: _grad1(L, lambda x: L.fmod(x, 1.5)),
    "remainder grad wrt divisor": lambda L: _grad2(L, lambda x, y: L.remainder(x, y)),
    "floor_divide of float requiring grad": lambda L: (L.tensor([5.5], requires_grad=True) // 2).requires_grad,
    "shift left": lambda L: (L.arange(6) << 2, L.arange(6) >> 1, 1 << L.arange(6)),
    "shift out of range": lambda L: (L.tensor([1]) << 70, L.tensor([-8]) >> 100, L.tensor([3]) << -1,
                                     L.tensor([1], dtype=L.uint8) << 9),
    "shift of float": lambda L: L.tensor([1.5]) << 1, "shift of bool": lambda L: L.tensor([True]) << 1,
    "shift of bools": lambda L: L.tensor([True]) << L.tensor([True]),
    "bitwise_left_shift": lambda L: L.bitwise_left_shift(L.tensor([1]), 2),
    "bitwise and of floats": lambda L: L.tensor([1.0]) & L.tensor([1.0]),
    "uint8 == -1": lambda L: L.full((2,), 255, dtype=L.uint8) == -1,
    "uint8 == 300": lambda L: L.zeros(2, dtype=L.uint8) == 300,
    "uint8 * -1": lambda L: L.ones(3, dtype=L.uint8) * -1,
    "int8 * 200": lambda L: L.ones(3, dtype=L.int8) * 200,
    "uint8 fill_(-1)": lambda L: L.zeros(3, dtype=L.uint8).fill_(-1),
    "uint8 fill_(300)": lambda L: L.zeros(3, dtype=L.uint8).fill_(300),
    "uint8 full(-1)": lambda L: L.full((2,), -1, dtype=L.uint8),
    "uint8 full(300)": lambda L: L.full((2,), 300, dtype=L.uint8),
    "uint8 masked_fill(-1)": lambda L: L.zeros(3, dtype=L.uint8).masked_fill(L.tensor([True, False, True]), -1),
    "int fill_(2.7)": lambda L: L.zeros(3, dtype=L.int64).fill_(2.7),
    "clamp with tensor bounds": lambda L: _grad1(L, lambda x: x.clamp(L.tensor([0.0, -1.0, 5.0, 0.0]),
                                                                     L.tensor([1.0, 0.0, 6.0, 2.5]))),
    "clamp with tensor bounds, bound grads": lambda L: _clamp_bound_grads(L),
    "clamp ties": lambda L: _grad1(L, lambda x: x.clamp(L.tensor([-0.5, 0.0, 0.0, 1.0]), L.tensor(2.5))),
    "masked_fill grad of the value": lambda L: _masked_value_grad(L),
}


def _copy_check(L, name):
    x = L.tensor([1, 2])
    y = getattr(x, name)()
    y += 10
    return Version(x), y is x


def _grad1(L, f):
    x = L.tensor([-2.0, 0.0, 5.5, 2.5], requires_grad=True)
    y = f(x)
    (y * L.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    return y, x.grad


def _grad2(L, f):
    x = L.tensor([-5.5, 5.5, 3.0], requires_grad=True)
    y = L.tensor([2.0, -2.0, 1.5], requires_grad=True)
    f(x, y).sum().backward()
    return x.grad, y.grad


def _clamp_bound_grads(L):
    x = L.tensor([-2.0, 0.5, 3.0, 1.0], requires_grad=True)
    lo = L.tensor([0.0, 0.0, 0.0, 1.0], requires_grad=True)
    hi = L.tensor([1.0, 1.0, 2.0, 0.5], requires_grad=True)
    x.clamp(lo, hi).sum().backward()
    return x.grad, lo.grad, hi.grad


def _masked_value_grad(L):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = L.tensor(2.0, requires_grad=True)
    x.masked_fill(L.tensor([True, False, True]), v).sum().backward()
    return x.grad, v.grad


@cases(POINTWISE)
def test_pointwise(fn):
    same(fn)


# ---- reductions -----------------------------------------------------------------------------

REDUCTIONS = {
    "softmax over a size-0 dim": lambda L: (L.zeros(2, 0).softmax(1), L.zeros(2, 0).softmax(0)),
    "log_softmax over a size-0 dim": lambda L: L.zeros(2, 0).log_softmax(1),
    "logsumexp over a size-0 dim": lambda L: (L.zeros(2, 0).logsumexp(1), L.zeros(2, 0).logsumexp(0)),
    "logsumexp of all of an empty tensor": lambda L: L.zeros(0, 3).logsumexp((0, 1)),
    "logsumexp needs dim": lambda L: L.ones(2).logsumexp(),
    "logsumexp of ints": lambda L: L.tensor([1, 2]).logsumexp(0),
    "logsumexp of -inf": lambda L: _grad_of(L, [float("-inf"), float("-inf")], lambda x: x.logsumexp(0)),
    "logsumexp of inf": lambda L: _grad_of(L, [float("inf"), 1.0], lambda x: x.logsumexp(0)),
    "softmax of int": lambda L: L.tensor([1, 2]).softmax(0),
    "log_softmax of bool": lambda L: L.tensor([True]).log_softmax(0),
    "softmax dtype=": lambda L: L.ones(2, 3).softmax(0, dtype=L.float64),
    "argmax of 0-d, dim=0": lambda L: (L.tensor(1.0).argmax(dim=0), L.tensor(1.0).argmax(dim=0, keepdim=True)),
    "argmax of 0-d, dim=1": lambda L: L.tensor(1.0).argmax(dim=1),
    "argmax keepdim, no dim": lambda L: (L.ones(3).argmax(keepdim=True), L.ones(2, 3).argmax(keepdim=True)),
    "argmax of bool": lambda L: L.tensor([True, False]).argmax(),
    "argmin of bool": lambda L: L.tensor([True, False]).argmin(),
    "max of 0-d, dim=0": lambda L: L.tensor(1.0).max(dim=0),
    "max of bool": lambda L: (L.tensor([True, False]).max(), L.tensor([True, False]).max(0)),
    "norm p=0": lambda L: (L.tensor([0.0, 1, 2]).norm(p=0), L.tensor([[0.0, 1, 2]]).norm(p=0, dim=1)),
    "norm p=0 has no gradient": lambda L: _grad_of(L, [0.0, 1.0, 2.0], lambda x: x.norm(p=0)),
    "norm p=-inf": lambda L: _grad_of(L, [1.0, -1.0, 0.5], lambda x: x.norm(p=float("-inf"))),
    "norm p=inf ties": lambda L: _grad_of(L, [1.0, -1.0, 0.5], lambda x: x.norm(p=float("inf"))),
    "norm p=3": lambda L: _grad_of(L, [0.5, -1.0, 2.0], lambda x: x.norm(p=3)),
    "norm p=0.5": lambda L: _grad_of(L, [1.0, -1.0, 0.5], lambda x: x.norm(p=0.5)),
    "norm p=1.5": lambda L: _grad_of(L, [1.0, -1.0, 0.5], lambda x: x.norm(p=1.5)),
    "norm of zeros": lambda L: [_grad_of(L, [0.0, 0.0], lambda x, p=p: x.norm(p=p)) for p in (1, 2, 3, 0.5)],
    "norm of int": lambda L: L.tensor([0, -1, 2]).norm(),
    "norm dim, keepdim": lambda L: _arange(L, 2, 3).norm(dim=1, keepdim=True),
    "norm dtype=": lambda L: _arange(L, 2, 3).norm(dtype=L.float64),
    "norm dims list": lambda L: _arange(L, 2, 3).norm(dim=[0, 1]),
    "norm of empty": lambda L: L.zeros(0).norm(),
    "inf-norm of empty": lambda L: L.zeros(0).norm(p=float("inf")),
    "mean(dtype=int64)": lambda L: L.tensor([1.0, 2.0]).mean(dtype=L.int64),
    "mean(dtype=float64)": lambda L: L.tensor([1.0, 2.0]).mean(dtype=L.float64),
    "mean of int": lambda L: L.tensor([1, 2]).mean(),
    "mean of bool": lambda L: L.tensor([True, False]).mean(),
    "mean of int, dtype=float": lambda L: L.tensor([1, 2]).mean(dtype=L.float32),
    "mean of half": lambda L: L.tensor([60000.0, 60000.0], dtype=L.float16).mean(),
    "mean of nothing": lambda L: (L.zeros(0).mean(), L.zeros(2, 0).mean(1)),
    "var with no degrees of freedom": lambda L: L.tensor([1.0]).var(),
    "std with no degrees of freedom": lambda L: L.tensor([1.0]).std(),
    "var(dim) with no degrees of freedom": lambda L: L.tensor([[1.0, 2.0]]).var(0),
    "var of empty": lambda L: L.tensor([]).var(),
    "var correction=2": lambda L: L.tensor([1.0, 2.0]).var(correction=2),
    "std correction=3": lambda L: L.tensor([1.0, 2.0]).std(correction=3),
    "var unbiased=False": lambda L: L.tensor([1.0]).var(unbiased=False),
    "var(dim, unbiased)": lambda L: L.tensor([1.0, 2.0, 4.0]).var(0, False),
    "std(dim, unbiased, keepdim)": lambda L: L.tensor([[1.0, 2.0, 4.0]]).std(1, True, True),
    "var(False)": lambda L: L.tensor([1.0, 2.0, 4.0]).var(False),
    "var of int": lambda L: L.tensor([1, 2]).var(),
    "std of constant data: grad 0": lambda L: _grad_of(L, [1.0, 1.0, 1.0], lambda x: x.std()),
    "std of one element: grad nan": lambda L: _grad_of(L, [1.0], lambda x: x.std()),
    "var of one element: grad nan": lambda L: _grad_of(L, [1.0], lambda x: x.var()),
    "std grad": lambda L: _grad_of(L, [1.0, 2.0, 4.0], lambda x: x.std()),
    "var grad, correction=0": lambda L: _grad_of(L, [1.0, 2.0, 4.0], lambda x: x.var(correction=0)),
    "std(dim) grad": lambda L: _grad_of(L, [[1.0, 2.0], [3.0, 5.0]], lambda x: x.std(1).sum()),
    "all/any of uint8": lambda L: (L.tensor([1, 0], dtype=L.uint8).all(), L.tensor([1, 0], dtype=L.uint8).any(0)),
    "all/any of float and int": lambda L: (L.tensor([1.0, 0]).all(), L.tensor([1, 0]).any(0)),
    "prod of bool": lambda L: L.tensor([True, False]).prod(),
    "sum of bool dim": lambda L: L.tensor([[True, False]]).sum(1),
    "max over an empty dim": lambda L: L.zeros(0, 3).max(1),
    "sum over an empty dim": lambda L: L.zeros(0, 3).sum(0),
}


def _grad_of(L, values, f):
    x = L.tensor(values, requires_grad=True)
    y = f(x)
    try:
        g = L.autograd.grad(y, x)
    except RuntimeError as e:
        g = type(e).__name__
    return y, g


@cases(REDUCTIONS)
def test_reductions(fn):
    same(fn)


NUMPY_NAMES = {
    "sum(axis, keepdims)": lambda L, a: a.sum(axis=1, keepdims=True),
    "torch.sum(axis)": lambda L, a: L.sum(a, axis=0),
    "mean(axis, keepdims)": lambda L, a: a.mean(axis=0, keepdims=True),
    "max(axis)": lambda L, a: a.max(axis=0), "min(keepdims)": lambda L, a: a.min(0, keepdims=True),
    "std(axis, keepdims)": lambda L, a: a.std(axis=0, keepdims=True),
    "var(keepdims)": lambda L, a: a.var(0, keepdims=True),
    "argmax(axis)": lambda L, a: a.argmax(axis=0), "amax(axis)": lambda L, a: a.amax(axis=0),
    "softmax(axis)": lambda L, a: a.softmax(axis=0), "cumsum(axis)": lambda L, a: a.cumsum(axis=0),
    "cat(axis)": lambda L, a: L.cat([a, a], axis=1), "stack(axis)": lambda L, a: L.stack([a, a], axis=1),
    "squeeze(axis)": lambda L, a: a[None].squeeze(axis=0), "unsqueeze(axis)": lambda L, a: a.unsqueeze(axis=0),
    "all(axis)": lambda L, a: a.all(axis=0), "any(keepdims)": lambda L, a: a.any(0, keepdims=True),
    "prod(axis)": lambda L, a: a.prod(axis=0), "logsumexp(axis)": lambda L, a: a.logsumexp(axis=0),
    "sum(dim=, axis=)": lambda L, a: a.sum(dim=0, axis=0), "flip(axis)": lambda L, a: a.flip(axis=0),
    "norm(axis)": lambda L, a: a.norm(axis=0), "transpose(axis0, axis1)": lambda L, a: a.transpose(axis0=0, axis1=1),
    "split(axis)": lambda L, a: a.split(1, axis=0),
}


@pytest.mark.parametrize("fn", list(NUMPY_NAMES.values()), ids=list(NUMPY_NAMES))
def test_numpy_argument_names(fn):
    same(lambda L: fn(L, _arange(L, 2, 3) - 2))


# ---- views, shapes, dtypes of views ---------------------------------------------------------

VIEWS = {
    "view(int32 -> int64)": lambda L: Layout(L.arange(4, dtype=L.int32).view(L.int64)),
    "view(float32 -> uint8)": lambda L: Layout(L.ones(2).view(L.uint8)),
    "view(float32 -> uint8) 2-d": lambda L: Layout(L.ones(2, 2).view(L.uint8)),
    "view(float32 -> float64) odd": lambda L: L.ones(3).view(L.float64),
    "view(dtype) of a transpose": lambda L: L.ones(2, 4).t().view(L.float64),
    "view(dtype) of 0-d": lambda L: L.tensor(1.0).view(L.uint8),
    "view(dtype) of 0-d, same size": lambda L: L.tensor(1.0).view(L.int32),
    "view(dtype) of an offset": lambda L: L.arange(8, dtype=L.int32).reshape(2, 4)[:, 1:3].view(L.int64),
    "view(dtype) of a step slice": lambda L: L.arange(8, dtype=L.int32).reshape(2, 4)[:, ::2].view(L.int16),
    "view(dtype) rescaling strides": lambda L: Layout(L.arange(16, dtype=L.int16).reshape(4, 4)[:, :2].view(L.int32)),
    "view(dtype) of a leaf that requires grad": lambda L: L.ones(2, requires_grad=True).view(L.int32),
    "view(dtype) shares memory": lambda L: _shares(L, lambda t: t.view(L.int32)),
    ".mT of 0-d": lambda L: L.tensor(1.0).mT, ".mT of 1-d": lambda L: L.ones(2).mT,
    ".T of 0-d": lambda L: L.tensor(1.0).T, ".T of 1-d": lambda L: L.ones(2).T,
    ".T of 3-d": lambda L: Layout(_arange(L, 2, 3, 4).T), ".T of 2-d": lambda L: Layout(_arange(L, 2, 3).T),
    "zeros()": lambda L: L.zeros(), "ones()": lambda L: L.ones(), "empty()": lambda L: L.empty(),
    "zeros(())": lambda L: L.zeros(()), "zeros([])": lambda L: L.zeros([]),
    "zeros(size=)": lambda L: L.zeros(size=(2, 3)), "ones(size=)": lambda L: L.ones(size=[2]),
    "empty(size=)": lambda L: L.empty(size=(2,)).shape, "full(size=)": lambda L: L.full(size=(2,), fill_value=3.0),
    "zeros(2, size=)": lambda L: L.zeros(2, size=(2, 3)), "zeros(tensor)": lambda L: L.zeros(L.tensor(2)),
    "zeros(np.int64)": lambda L: L.zeros(np.int64(2)), "zeros(2.0)": lambda L: L.zeros(2.0),
    "permute()": lambda L: L.ones(2).permute(),
    "expand()": lambda L: L.ones(2).expand(), "view()": lambda L: L.ones(2).view(),
    "reshape()": lambda L: L.ones(2).reshape(), "repeat()": lambda L: L.ones(2).repeat(),
    "flip()": lambda L: L.ones(2).flip(), "tile()": lambda L: L.ones(2).tile(),
    "tile(())": lambda L: L.ones(2).tile(()),
    "squeeze()": lambda L: L.ones(1, 2).squeeze(),
    "expand same shape": lambda L: Layout(L.ones(2, 3).expand(2, 3)),
    "split": lambda L: [Layout(p) for p in _arange(L, 4, 3).split(3)],
    "split sizes": lambda L: [Layout(p) for p in _arange(L, 4, 3).split([1, 3], 0)],
    "chunk": lambda L: [Layout(p) for p in _arange(L, 4, 3).chunk(3, 1)],
    "unbind": lambda L: [Layout(p) for p in _arange(L, 2, 3).unbind(1)],
    "stack": lambda L: Layout(L.stack([L.ones(2), L.zeros(2)], 1)),
    "stack promotes": lambda L: L.stack([L.ones(2), L.zeros(2, dtype=L.int64)]),
    "repeat": lambda L: Layout(_arange(L, 2, 3).repeat(2, 1, 2)),
    "repeat negative": lambda L: L.ones(2).repeat(-1),
}


def _shares(L, f):
    t = L.ones(2)
    v = f(t)
    t[0] = 2.0
    return v, Version(t)


@cases(VIEWS)
def test_views(fn):
    same(fn)


# ---- memory layout of fresh results: "preserve format" --------------------------------------

def _layouts(L):
    base = [_arange(L, 3, 4), _arange(L, 2, 3, 4), _arange(L, 4, 1, 3), _arange(L, 1, 4), _arange(L, 2, 1, 3, 1)]
    out = []
    for b in base:
        out += [b, b.mT if b.ndim >= 2 else b, b.permute(*reversed(range(b.ndim))), b[..., ::2], b.expand(2, *b.shape)]
        if b.ndim == 3:
            out.append(b.permute(2, 0, 1))
            out.append(b.transpose(0, 2)[1:])
    return out


LAYOUT_OPS = {
    "exp": lambda L, t: t.exp(), "neg": lambda L, t: -t, "t + 1": lambda L, t: t + 1, "t * t": lambda L, t: t * t,
    "relu": lambda L, t: t.relu(), "where": lambda L, t: L.where(t > 3, t, 0.0), "t > 0": lambda L, t: t > 0,
    "clamp": lambda L, t: t.clamp(0, 5), "t ** 2": lambda L, t: t ** 2, "sigmoid": lambda L, t: t.sigmoid(),
    "bool.float()": lambda L, t: (t > 2).float(), "ones_like": lambda L, t: L.ones_like(t),
    "zeros_like": lambda L, t: L.zeros_like(t), "full_like": lambda L, t: L.full_like(t, 2),
    "empty_like": lambda L, t: L.empty_like(t).fill_(0), "clone": lambda L, t: t.clone(),
    "to(float64)": lambda L, t: t.to(L.float64), "double()": lambda L, t: t.double(),
    "contiguous": lambda L, t: t.contiguous(), "t + contiguous": lambda L, t: t + L.ones(t.shape),
    "contiguous + t": lambda L, t: L.ones(t.shape) + t, "t + row": lambda L, t: t + L.ones(t.shape[-1]),
    "clone(contiguous_format)": lambda L, t: t.clone(memory_format=L.contiguous_format),
    "abs": lambda L, t: t.abs(), "masked_fill": lambda L, t: t.masked_fill(t > 2, 0.0),
    "softmax": lambda L, t: t.softmax(-1), "sum(-1, keepdim)": lambda L, t: t.sum(-1, keepdim=True),
}


@pytest.mark.parametrize("op", list(LAYOUT_OPS), ids=list(LAYOUT_OPS))
def test_fresh_results_keep_pytorch_layout(op):
    same(lambda L: [Layout(LAYOUT_OPS[op](L, t)) for t in _layouts(L)])


def test_mixed_layouts_of_two_inputs():
    def run(L):
        ts = _layouts(L)
        out = []
        for a in ts[:12]:
            for b in ts[:12]:
                try:
                    out.append(Layout(a * b))
                except RuntimeError:
                    out.append("error")
        return out
    same(run)


# ---- warnings: PyTorch's own, and no NumPy RuntimeWarning --------------------------------------

NOISY_OPS = """
import warnings
import minitorch as T
x = T.tensor([0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan"), 3e38])
ops = [x.exp(), x.log(), x.sqrt(), x / 0, x * x, x - x, x + x, x.cos(), x.sin(), x.to(T.float16), x ** 100,
       x.log1p(), x.reciprocal(), x.rsqrt(), x.sigmoid(), x.tanh(), x.softmax(0), x.logsumexp(0), x.norm(),
       x.std(), x.var(), x.mean(), x.prod(), x.cumprod(0), x.sum(), T.zeros(0).mean(), x.pow(-1), x.expm1(),
       x // 0, x % 0, T.fmod(x, 0.0), x.clamp(0, 1), x.round(decimals=2), T.tensor([1e38]) * 10,
       T.tensor([60000.0]).half() * 2, x.half().sum(), x.amax(), T.tensor([70000.0]).half(), x.abs() @ x,
       T.tensor([3e38, 3e38]).sum(), (x * 0).mean(0), x.var(0), T.tensor([1.0]).std()]
print(len(ops))
"""


def test_no_numpy_runtime_warning_reaches_the_learner():
    """Run as a learner runs it (a fresh interpreter, Python's default warning filters): inf and nan
    come silently, as in PyTorch; only PyTorch's own warnings (std of one value) are shown."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", NOISY_OPS], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "RuntimeWarning" not in proc.stderr, proc.stderr
    assert "degrees of freedom" in proc.stderr  # the warning PyTorch gives, kept


def test_the_learners_own_numpy_still_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.log(np.zeros(1))
    assert any(issubclass(w.category, RuntimeWarning) for w in caught)


def test_T_on_a_tensor_that_is_not_2d_warns_once_as_pytorch():
    torch.set_warn_always(False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        minitorch.ones(2, 3, 4).T
        minitorch.ones(3).T
        minitorch.ones(2, 3).T
    assert len(caught) == 1 and "x.mT" in str(caught[0].message)


# ---- call forms: out=, legacy constructors, backends, module names --------------------------

def _out(L, f, out):
    r = f(L, out)
    return r is out, Version(out), Layout(out)


OUT_CASES = {
    "add": lambda L: _out(L, lambda L, o: L.add(L.ones(2, 3), L.ones(2, 3), out=o), L.empty(2, 3)),
    "add, empty out resized": lambda L: _out(L, lambda L, o: L.add(L.ones(2, 3), 1, out=o), L.empty(0)),
    "add, wrong shape resized with a warning": lambda L: _out(L, lambda L, o: L.add(L.ones(2, 3), 1, out=o),
                                                              L.empty(5)),
    "add into float64": lambda L: _out(L, lambda L, o: L.add(L.ones(2), L.ones(2), out=o), L.empty(2,
                                                                                                  dtype=L.float64)),
    "add float into int": lambda L: _out(L, lambda L, o: L.add(L.ones(2), L.ones(2), out=o), L.empty(2,
                                                                                                    dtype=L.int64)),
    "add ints into float": lambda L: _out(L, lambda L, o: L.add(L.ones(2).long(), 1, out=o), L.empty(2)),
    "out requires grad": lambda L: _out(L, lambda L, o: L.add(L.ones(2), 1, out=o), L.empty(2, requires_grad=True)),
    "input requires grad": lambda L: _out(L, lambda L, o: L.exp(L.ones(2, requires_grad=True), out=o), L.empty(2)),
    "under no_grad": lambda L: _no_grad_out(L),
    "transposed out keeps its strides": lambda L: _out(L, lambda L, o: L.add(L.ones(2, 3), 1, out=o),
                                                       L.empty(3, 2).T),
    "alpha": lambda L: _out(L, lambda L, o: L.add(L.ones(2), L.ones(2), alpha=2, out=o), L.empty(2)),
    "sub, mul, div": lambda L: [_out(L, lambda L, o, f=f: f(L.ones(2) * 3, 2, out=o), L.empty(2))
                                for f in (L.sub, L.mul, L.div)],
    "div rounding": lambda L: _out(L, lambda L, o: L.div(L.ones(2) * 3, 2, rounding_mode="floor", out=o),
                                   L.empty(2)),
    "matmul": lambda L: _out(L, lambda L, o: L.matmul(L.ones(2, 3), L.ones(3, 2), out=o), L.empty(2, 2)),
    "matmul wants the dtype exactly": lambda L: _out(L, lambda L, o: L.matmul(L.ones(2, 3), L.ones(3, 2), out=o),
                                                     L.empty(2, 2, dtype=L.float64)),
    "mm": lambda L: _out(L, lambda L, o: L.mm(L.ones(2, 3), L.ones(3, 2), out=o), L.empty(2, 2)),
    "sum(dim)": lambda L: _out(L, lambda L, o: L.sum(L.ones(2, 3), 0, out=o), L.empty(3)),
    "sum() has no out=": lambda L: _out(L, lambda L, o: L.sum(L.ones(2, 3), out=o), L.empty(())),
    "mean": lambda L: _out(L, lambda L, o: L.mean(L.ones(2, 3), out=o), L.empty(())),
    "mean(dim)": lambda L: _out(L, lambda L, o: L.mean(L.ones(2, 3), 0, out=o), L.empty(3)),
    "cat": lambda L: _out(L, lambda L, o: L.cat([L.ones(2, 3), L.zeros(2, 3)], out=o), L.empty(4, 3)),
    "cat into float64": lambda L: _out(L, lambda L, o: L.cat([L.ones(2)], out=o), L.empty(2, dtype=L.float64)),
    "stack": lambda L: _out(L, lambda L, o: L.stack([L.ones(2), L.zeros(2)], out=o), L.empty(2, 2)),
    "clamp": lambda L: _out(L, lambda L, o: L.clamp(L.arange(4.0), 1, 2, out=o), L.empty(4)),
    "where": lambda L: _out(L, lambda L, o: L.where(L.arange(4.0) > 1, L.ones(4), L.zeros(4), out=o), L.empty(4)),
    "exp, sqrt, abs, neg, sigmoid, tanh": lambda L: [_out(L, lambda L, o, f=f: f(L.arange(3.0), out=o), L.empty(3))
                                                     for f in (L.exp, L.sqrt, L.abs, L.neg, L.sigmoid, L.tanh)],
    "gt into bool and float": lambda L: [_out(L, lambda L, o: L.gt(L.arange(3.0), 1, out=o), L.empty(3, dtype=dt))
                                         for dt in (L.bool, L.float32, L.int64)],
    "max(dim) into a tuple": lambda L: L.max(_arange(L, 2, 3), 1, out=(L.empty(0), L.empty(0, dtype=L.int64))),
    "max(dim) indices of the wrong dtype": lambda L: L.max(_arange(L, 2, 3), 1, out=(L.empty(0), L.empty(0))),
    "argmax": lambda L: _out(L, lambda L, o: L.argmax(_arange(L, 2, 3), 1, out=o), L.empty(2, dtype=L.int64)),
    "softmax": lambda L: _out(L, lambda L, o: L.softmax(_arange(L, 2, 3), 1, out=o), L.empty(2, 3)),
    "cumsum": lambda L: _out(L, lambda L, o: L.cumsum(_arange(L, 2, 3), 1, out=o), L.empty(2, 3)),
    "maximum": lambda L: _out(L, lambda L, o: L.maximum(L.ones(2), L.zeros(2), out=o), L.empty(2)),
    "pow": lambda L: _out(L, lambda L, o: L.pow(L.arange(3.0), 2, out=o), L.empty(3)),
    "arange, zeros": lambda L: [_out(L, lambda L, o: L.arange(6, out=o), L.empty(6)),
                                _out(L, lambda L, o: L.zeros(2, 3, out=o), L.empty(2, 3))],
}


def _no_grad_out(L):
    o = L.zeros(3, requires_grad=True)
    with L.no_grad():
        L.add(L.ones(3), 1, out=o)
    return Version(o)


@cases(OUT_CASES)
def test_out(fn):
    same(fn)


LEGACY = {
    "FloatTensor(list)": lambda L: L.FloatTensor([1, 2]), "FloatTensor(sizes)": lambda L: L.FloatTensor(2, 3).shape,
    "FloatTensor()": lambda L: L.FloatTensor(), "LongTensor(floats)": lambda L: L.LongTensor([1.5, 2]),
    "LongTensor(size)": lambda L: L.LongTensor(2).shape, "DoubleTensor": lambda L: L.DoubleTensor([1]),
    "IntTensor": lambda L: L.IntTensor([1]), "BoolTensor": lambda L: L.BoolTensor([1, 0]),
    "ByteTensor": lambda L: L.ByteTensor([1, 0]), "HalfTensor": lambda L: L.HalfTensor([1, 0]),
    "ShortTensor": lambda L: L.ShortTensor([1, 0]), "CharTensor": lambda L: L.CharTensor([1, 0]),
    "Tensor(float32 array) shares": lambda L: _shares_np(L, L.Tensor, np.float32),
    "Tensor(float64 array) copies": lambda L: _shares_np(L, L.Tensor, np.float64),
    "FloatTensor(float32 array) shares": lambda L: _shares_np(L, L.FloatTensor, np.float32),
    "LongTensor(int64 array) shares": lambda L: _shares_np(L, L.LongTensor, np.int64),
    "LongTensor(int32 array) copies": lambda L: _shares_np(L, L.LongTensor, np.int32),
    "Tensor(tensor) shares": lambda L: _shares_t(L, L.Tensor, L.tensor([1.0, 2.0])),
    "Tensor(long tensor)": lambda L: L.Tensor(L.tensor([1, 2])),
    "FloatTensor(tensor) shares": lambda L: _shares_t(L, L.FloatTensor, L.tensor([1.0, 2.0])),
    "LongTensor(float tensor)": lambda L: L.LongTensor(L.tensor([1.0, 2.0])),
    "Tensor()": lambda L: L.Tensor(), "Tensor(2, 3)": lambda L: L.Tensor(2, 3).shape,
    "Tensor((2, 3))": lambda L: L.Tensor((2, 3)), "Tensor(Size)": lambda L: L.Tensor(L.Size([2, 3])).shape,
    "Tensor(3.5)": lambda L: L.Tensor(3.5), "Tensor([])": lambda L: L.Tensor([]),
    "Tensor(dtype=)": lambda L: L.Tensor([1], dtype=L.float64), "Tensor(device=)": lambda L: L.Tensor([[1, 2]],
                                                                                                       device="cpu"),
    "Tensor(np scalar)": lambda L: L.Tensor(np.float32(2)), "Tensor(2, 3.0)": lambda L: L.Tensor(2, 3.0),
    "Tensor(x) of x requiring grad": lambda L: _alias_of_leaf(L),
    "isinstance": lambda L: (isinstance(L.FloatTensor([1]), L.FloatTensor), isinstance(L.ones(1), L.LongTensor),
                             isinstance(L.ones(1), L.Tensor), type(L.FloatTensor([1])) is L.Tensor),
    "t.type(LongTensor)": lambda L: (L.ones(2).type(L.LongTensor), L.ones(2).type("torch.IntTensor"),
                                     L.ones(2).type()),
    "tensor(tensor) warns": lambda L: L.tensor(L.ones(2)),
    "tensor(tensor requiring grad) warns": lambda L: L.tensor(L.ones(2, requires_grad=True)),
    "new_tensor(tensor) warns": lambda L: L.ones(2).new_tensor(L.ones(2)),
    "tensor(list of tensors) does not": lambda L: L.tensor([L.tensor(1.0), L.tensor(2.0)]),
    "as_tensor(tensor) does not": lambda L: L.as_tensor(L.ones(2)),
}


def _shares_np(L, ctor, dtype):
    a = np.array([1, 2], dtype)
    t = ctor(a)
    a[0] = 99
    return t


def _shares_t(L, ctor, src):
    t = ctor(src)
    src[0] = 99
    return t, Version(src)


def _alias_of_leaf(L):
    x = L.ones(2, requires_grad=True)
    y = L.Tensor(x)
    return y.requires_grad, type(y.grad_fn).__name__, y._base is x, y.data_ptr() == x.data_ptr()


@cases(LEGACY)
def test_legacy_constructors(fn):
    same(fn)


def test_backends_probes():
    same(lambda L: (L.backends.mps.is_available(), L.backends.mps.is_built(), L.backends.cudnn.is_available(),
                    L.backends.cudnn.enabled, L.backends.cudnn.deterministic))


def test_backends_cudnn_imports_and_takes_flags():
    import minitorch.backends.cudnn as cudnn
    cudnn.benchmark = True
    assert minitorch.backends.cudnn.benchmark is True
    cudnn.benchmark = False


def test_classes_print_with_the_package_name():
    same(lambda L: [repr(c).replace("torch", "X").replace("miniX", "X") for c in (L.Tensor, L.Size, L.dtype, L.device)])
    assert repr(type(minitorch.ones(1))) == "<class 'minitorch.Tensor'>"


def test_device_never_equals_a_string():
    same(lambda L: (L.ones(1).device == "cpu", L.ones(1).device != "cpu", L.ones(1).device == L.device("cpu"),
                    L.ones(1).device.type == "cpu", str(L.ones(1).device) == "cpu", "cpu" == L.device("cpu")))


MATMUL_ERRORS = {
    "3-d @ 2-d": ((16, 8, 8), (64, 10)), "2-d @ 3-d": ((8, 8), (2, 64, 10)), "3-d @ 3-d": ((2, 8, 8), (2, 64, 10)),
    "1-d @ 2-d": ((8,), (64, 10)), "2-d @ 1-d": ((8, 3), (64,)), "3-d @ 1-d": ((2, 8, 3), (64,)),
    "1-d @ 3-d": ((3,), (2, 64, 10)), "4-d @ 2-d": ((2, 3, 8, 8), (64, 10)), "batch mismatch": ((2, 8, 8), (3, 8, 10)),
    "4-d @ 3-d": ((2, 3, 8, 8), (3, 64, 10)), "1-d @ 1-d": ((3,), (4,)),
}


@pytest.mark.parametrize("shapes", list(MATMUL_ERRORS.values()), ids=list(MATMUL_ERRORS))
def test_matmul_errors_name_the_folded_shapes(shapes):
    def msg(L):
        try:
            L.ones(*shapes[0]) @ L.ones(*shapes[1])
        except RuntimeError as e:
            return str(e)
    (_, t), _ = _run(torch, msg)
    (_, m), _ = _run(minitorch, msg)
    assert m.startswith(t), f"minitorch: {m}\ntorch:     {t}"


def test_matmul_dtype_errors():
    for a, b in [((2, 3), (3, 4)), ((3,), (3,))]:
        def f(L):
            L.ones(*a) @ L.ones(*b, dtype=L.float64)
        (_, et), _ = _run(torch, f)
        (_, em), _ = _run(minitorch, f)
        assert str(em).startswith(str(et)), (em, et)


def test_bmm_and_mm_errors():
    for f in (lambda L: L.mm(L.ones(2, 3), L.ones(4, 5)), lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 4, 5))):
        (_, et), _ = _run(torch, f)
        (_, em), _ = _run(minitorch, f)
        assert str(em).startswith(str(et)), (em, et)


# ---- random keys and random layouts (hypothesis) ------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def keys(draw):
    """A shape and a key mixing ints, slices, None, Ellipsis, lists, ranges, bool masks and scalars."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    key, dim, ellipsis = [], 0, False
    while dim < len(shape) and draw(st.booleans()) or not key:
        kind = draw(st.sampled_from(["int", "slice", "none", "list", "range", "mask", "ellipsis", "bool"]))
        if kind == "ellipsis" and not ellipsis:
            key.append(Ellipsis)
            ellipsis = True
            dim = len(shape) - sum(1 for k in key if k is not None and k is not Ellipsis and k is not True)
            continue
        if dim >= len(shape) and kind not in ("none", "bool"):
            break
        n = shape[dim] if dim < len(shape) else 1
        if kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
            dim += 1
        elif kind == "slice":
            key.append(slice(draw(st.integers(-n, n)), draw(st.integers(-n, n) | st.none()),
                             draw(st.integers(1, 3) | st.none())))
            dim += 1
        elif kind == "none":
            key.append(None)
        elif kind == "bool":
            key.append(True)
        elif kind == "list":
            key.append(("list", draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))))
            dim += 1
        elif kind == "range":
            key.append(("range", draw(st.integers(0, n))))
            dim += 1
        else:
            key.append(("mask", draw(st.lists(st.booleans(), min_size=n, max_size=n))))
            dim += 1
    return shape, key


def _realize(L, key):
    out = []
    for k in key:
        if isinstance(k, tuple):
            kind, v = k
            k = list(v) if kind == "list" else range(v) if kind == "range" else L.tensor(v)
        out.append(k)
    return tuple(out)


@settings(max_examples=150)
@given(keys())
def test_random_keys_read_write_and_differentiate_as_pytorch(case):
    shape, key = case

    def run(L):
        x = (L.arange(math.prod(shape), dtype=L.float64).reshape(shape) - 3).requires_grad_()
        y = x[_realize(L, key)]
        w = L.arange(y.numel(), dtype=L.float64).reshape(y.shape) + 1
        (y * w).sum().backward()
        z = x.detach().clone()
        z[_realize(L, key)] = -w
        return Layout(y), x.grad, Version(z)
    same(run, warns=False)


@st.composite
def layouts(draw):
    """A tensor seen through a random view: permuted, step-sliced, expanded, unsqueezed."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    ops = draw(st.lists(st.sampled_from(["permute", "slice", "expand", "unsqueeze", "T"]), max_size=3))
    perm = draw(st.permutations(range(len(shape))))
    return shape, ops, perm


def _viewed(L, shape, ops, perm):
    t = L.arange(math.prod(shape), dtype=L.float32).reshape(shape) - 2
    for op in ops:
        if op == "permute" and len(perm) == t.ndim:
            t = t.permute(tuple(perm))
        elif op == "slice" and t.shape[-1] > 1:
            t = t[..., ::2]
        elif op == "expand":
            t = t.unsqueeze(0).expand(2, *t.shape)
        elif op == "unsqueeze":
            t = t.unsqueeze(t.ndim // 2)
        elif op == "T" and t.ndim >= 2:
            t = t.mT
    return t


@settings(max_examples=100)
@given(layouts(), layouts(), st.sampled_from(["+", "*", "where", "exp", "clone", "ones_like", "to", "relu", "+ 1"]))
def test_random_layouts_of_fresh_results_match_pytorch(a, b, op):
    def run(L):
        x, y = _viewed(L, *a), _viewed(L, *b)
        if op == "+":
            return Layout(x + y) if _broadcastable(x.shape, y.shape) else None
        if op == "*":
            return Layout(x * x)
        if op == "where":
            return Layout(L.where(x > 0, x, 0.5))
        if op == "exp":
            return Layout(x.exp())
        if op == "clone":
            return Layout(x.clone())
        if op == "ones_like":
            return Layout(L.ones_like(x))
        if op == "to":
            return Layout(x.to(L.float64))
        if op == "relu":
            return Layout(x.relu())
        return Layout(x + 1)
    same(run, warns=False)


def _broadcastable(s1, s2):
    return all(p == q or p == 1 or q == 1 for p, q in zip(reversed(s1), reversed(s2)))


# ---- torch.linalg: norms, inv, det, solve, svdvals, with their gradients -------------------------

def _linalg_case(expr, grad=True):
    def run(L):
        A = L.tensor([[2.0, -1.0, 0.5], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], dtype=L.float64, requires_grad=True)
        b = L.tensor([[1.0, 2.5, -3.0], [0.5, 0.25, 1.0]], dtype=L.float64, requires_grad=True)
        # S[0] is singular (its det is +-0.)
        S = L.tensor([[[1.0, 2.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 2.0]]], requires_grad=True)
        out = eval(expr, {"L": L, "A": A, "b": b, "S": S, "inf": math.inf})  # noqa: S307 (our own table)
        if not grad:
            return out
        (out * L.linspace(0.5, 1.5, out.numel()).reshape(out.shape).to(out.dtype)).sum().backward()
        return out, out.grad_fn.name(), A.grad, b.grad, S.grad
    return run


LINALG = {e: _linalg_case(e) for e in [
    "L.linalg.norm(A)", "L.linalg.norm(A, 'fro')", "L.linalg.norm(A, 'nuc')", "L.linalg.norm(A, 2)",
    "L.linalg.norm(A, -2)", "L.linalg.norm(A, 1)", "L.linalg.norm(A, -inf)", "L.linalg.norm(A, inf)",
    "L.linalg.norm(A[0], 3)", "L.linalg.norm(A, dim=1)", "L.linalg.norm(A, 1, dim=(1, 0), keepdim=True)",
    "L.linalg.vector_norm(A, 0.5, dim=(0, 1))", "L.linalg.vector_norm(b, inf, dim=-1, keepdim=True)",
    "L.linalg.matrix_norm(S)", "L.linalg.matrix_norm(S, 'nuc', keepdim=True)", "L.linalg.matrix_norm(S, -1)",
    "L.linalg.inv(A)", "L.inverse(A)", "A.inverse()", "L.linalg.inv(S[1:])", "L.linalg.det(A)", "L.det(S[1:])",
    "A.det()", "L.linalg.solve(A, b[0])", "L.linalg.solve(A, b.mT)", "L.linalg.solve(A, b, left=False)",
    "L.linalg.solve(A.expand(2, 3, 3), b)", "L.linalg.svdvals(A)", "L.linalg.svdvals(b)",
    "L.linalg.matmul(A, b.mT)",
]}
LINALG.update({e: _linalg_case(e, grad=False) for e in [
    "L.linalg.norm(L.ones(2, 2, 2), 1)", "L.linalg.norm(L.ones(2), 'fro')", "L.linalg.vector_norm(A, 'fro')",
    "L.linalg.matrix_norm(A[0])", "L.linalg.matrix_norm(A, 3)", "L.linalg.norm(A, dim=(0, 0))",
    "L.linalg.inv(b)", "L.linalg.inv(A[0])", "L.linalg.inv(A.long())", "L.linalg.inv(A.half())", "L.linalg.det(b)",
    "L.linalg.solve(A, L.ones(2, dtype=L.float64))", "L.linalg.norm(A.long())", "L.linalg.inv(L.ones(0, 0))",
    "L.linalg.det(L.ones(0, 0))", "L.linalg.solve(A, b.mT.float())",
]})


@cases(LINALG)
def test_linalg_matches_pytorch(fn):
    same(fn)


@pytest.mark.parametrize("expr", ["L.linalg.inv(L.ones(2, 2))", "L.linalg.solve(L.ones(2, 2), L.ones(2))"])
def test_linalg_singular_matrices_raise_linalg_error(expr):
    for L in (torch, minitorch):
        with pytest.raises(RuntimeError, match="singular") as info:
            eval(expr, {"L": L})  # noqa: S307
        assert isinstance(info.value, L.linalg.LinAlgError)


def test_det_of_a_singular_matrix_has_pytorchs_zero_gradient():
    def run(L):
        S = L.tensor([[[1.0, 2.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 2.0]]], requires_grad=True)
        d = L.linalg.det(S)
        (d * L.tensor([2.0, 3.0])).sum().backward()
        return d.abs(), S.grad.abs()  # (the sign of a zero det is LAPACK's rounding: not compared)
    same(run)


def test_linalg_names_what_it_lacks():
    with pytest.raises(NotImplementedError, match=r"torch\.linalg\.eig is not implemented"):
        minitorch.linalg.eig(minitorch.eye(2))
    missing = [n for n in ("norm", "vector_norm", "matrix_norm", "inv", "det", "solve", "svdvals", "LinAlgError")
               if not hasattr(minitorch.linalg, n)]
    assert not missing


# ---- the smaller torch functions (minitorch/_ops/more.py): values, grad_fn names, gradients, layout ----

def _more_case(expr):
    def run(L):
        a = L.tensor([[1.0, -2.0, 3.0], [0.0, 5.0, math.nan]], requires_grad=True)
        b = L.tensor([[2.0, 1.0, 0.5], [1.0, 0.0, 2.0]], requires_grad=True)
        c = L.tensor([[1.0, -2.0, 3.0], [0.5, 5.0, 4.0]], requires_grad=True)
        out = eval(expr, {"L": L, "a": a, "b": b, "c": c, "nan": math.nan})  # noqa: S307 (our own table)
        w = L.linspace(-1, 1, out.numel()).reshape(out.shape)
        grads = L.autograd.grad((out * w).sum(), (a, b, c), allow_unused=True)
        # (+ 0.0: the sign of a zero gradient is not compared)
        return Layout(out), out.grad_fn.name(), [None if g is None else g + 0.0 for g in grads]
    return run


MORE = {e: _more_case(e) for e in [
    "L.hypot(c, b)", "L.xlogy(c, b)", "L.xlogy(2, b)", "L.xlogy(c, 3)", "c.xlogy(b)", "L.copysign(c, b)",
    "L.copysign(c, -1.0)", "L.fmax(a, b)", "L.fmin(a, b)", "a.fmax(c)", "a.nansum()", "a.nansum(1)",
    "L.nansum(a, (0, 1), keepdim=True)", "L.nanmean(a)", "L.nanmean(a, 1, keepdim=True)", "L.aminmax(b)[0]",
    "L.aminmax(b, dim=1)[1]", "L.aminmax(b, dim=0, keepdim=True).min", "b.cummax(1)[0]", "b.cummin(0).values",
    "L.logcumsumexp(c, 1)", "c.logcumsumexp(0)", "L.kron(c, b)", "L.kron(c[0], b)", "L.cross(c, b, dim=1)",
    "L.rot90(c)", "L.rot90(c, 2)", "L.rot90(c, 3, [1, 0])", "L.rot90(c, -1)", "L.tensordot(c, b.T, 1)",
    "L.tensordot(c, b, 2)", "L.tensordot(c, b, ([1], [1]))", "L.inner(c, b)", "L.inner(c[0], b[1])",
    "L.tensor_split(c, 2, 1)[0]", "L.tensor_split(c, [1, 2], 1)[1]", "L.cartesian_prod(b[0], c[1])",
    "L.dstack([c, b])", "L.column_stack([b[0], b[1]])", "L.column_stack([c, b])", "L.atleast_3d(b[0])",
    "L.atleast_2d(b[0])", "c.fliplr()", "c.flipud()", "L.vdot(c[0], b[0])",
]}


@cases(MORE)
def test_more_functions_match_pytorch(fn):
    same(fn)


MORE_PLAIN = {e: (lambda e: lambda L: eval(e, {"L": L, "nan": math.nan}))(e) for e in [  # noqa: S307
    "L.heaviside(L.tensor([-1.0, 0.0, 2.0]), L.tensor([0.5]))", "L.heaviside(L.tensor([1, 0]), L.tensor([7, 7]))",
    "L.heaviside(L.tensor([1.0]), L.tensor([1]))", "L.signbit(L.tensor([-0.0, 1.0, -2.0]))",
    "L.signbit(L.tensor([-3, 0]))", "L.positive(L.tensor([True]))", "L.hypot(L.tensor([1]), L.tensor([2]))",
    "L.hypot(L.tensor([1.0]), 2.0)", "L.fmax(L.tensor([1.0]), 2)", "L.nansum(L.tensor([True, True]))",
    "L.nanmean(L.tensor([1, 2]))", "L.aminmax(L.tensor([]))", "L.aminmax(L.tensor([True, False]))",
    "L.cummax(L.tensor([1.0, 3, 3, nan, 2, nan]), 0)", "L.cummin(L.tensor([3, 1, 1, 2]), 0)",
    "L.cummax(L.tensor(3.0), 0)", "L.logcumsumexp(L.tensor([1, 2]), 0)", "L.logcumsumexp(L.tensor([]), 0)",
    "L.vdot(L.tensor([1]), L.tensor([1.0]))", "L.vdot(L.ones(3), L.ones(2))", "L.inner(L.ones(2), L.ones(2).double())",
    "L.inner(L.ones(2, 3), L.ones(2, 4))", "L.cross(L.ones(3), L.ones(3).long(), dim=0)",
    "L.cross(L.ones(2), L.ones(2), dim=0)", "L.kron(L.tensor([1, 2]), L.tensor([1.0, -1.0]))", "L.rot90(L.ones(3))",
    "L.fliplr(L.ones(3))", "L.flipud(L.tensor(1.0))", "L.scalar_tensor(True)", "L.scalar_tensor(3, dtype=L.int64)",
    "L.column_stack([L.ones(3), L.tensor(1.0)])", "L.dstack([L.ones(3), L.ones(3).long()])",
    "L.tensor_split(L.ones(3), 0)", "L.tensor_split(L.arange(3), [1, 5])", "L.tensor_split(L.tensor(1.0), 1)",
    "L.tensordot(L.ones(3), L.ones(3), 0)", "L.tensordot(L.ones(3).long(), L.ones(3), 1)",
    "L.cartesian_prod(L.ones(2)).shape",
]}


@cases(MORE_PLAIN)
def test_more_functions_values_and_errors_match_pytorch(fn):
    same(fn)


def test_comparisons_in_place_write_ones_and_zeros_in_the_tensors_dtype():
    def run(L):
        x, y = L.tensor([1.0, 2.0, 3.0]), L.tensor([1, 5, 2])
        x.lt_(2.5)
        y.ge_(L.tensor([1, 6, 2]))
        return Version(x), Version(y), x.eq_(1).ne_(0)
    same(run)


# ---- found by the random programs (tests/test_torch_random_programs.py), one case each ----------

def _names(*ts):
    return [t.grad_fn.name() if t.grad_fn is not None else None for t in ts]


FOUND = {
    # a reshape that must copy gives the copy itself (PyTorch's _unsafe_view), not a view of a temporary
    "reshape_copy": lambda L: (lambda x: (x.T.reshape(-1), x.T.reshape(-1)._base is None, _names(x.T.reshape(-1)),
                                          x.T.flatten()._base is None, _names(x.T.ravel())))(
        L.ones(2, 3, requires_grad=True)),
    "repeat_interleave_copies": lambda L: (lambda x: (Layout(x[1:].repeat_interleave(1)),
                                                      x.repeat_interleave(1).data_ptr() != x.data_ptr()))(
        L.tensor([1.0, 2.0, 3.0])),
    "nonzero_as_tuple_views": lambda L: [(Layout(t), t._base.shape, t._base.stride())
                                         for t in L.nonzero(L.tensor([[1, 0], [1, 1]]), as_tuple=True)],
    "where_one_arg_views": lambda L: [(Layout(t), t._base.shape) for t in L.where(L.tensor([1.0, 0.0, 2.0]))],
    "int_rounding_in_place_bumps_version": lambda L: [
        (lambda x: (getattr(x, m)(), x._version)[1])(L.tensor([1, -2])) for m in
        ("trunc_", "fix_", "nan_to_num_", "floor_")] + [(lambda x: (x.sign_(), x._version)[1])(L.tensor([True]))],
    "apply_and_map_leave_version": lambda L: (lambda x: (x.apply_(lambda v: v * 2), x.map_(x, lambda a, b: a + b),
                                                         Version(x))[-1])(L.tensor([1.0, 2.0])),
    "half_std_var_norm_in_float32": lambda L: (lambda x: (x.std(), x.var(), L.std_mean(x, 0), x.norm(),
                                                          L.linalg.vector_norm(x, 3)))(
        L.tensor([-2.5, 3.0, 2.66, -0.0, -3.0, -10000.0, -3.0, 2.0], dtype=L.float16)),
    "cat_dtype_counts_skipped_empty": lambda L: L.cat([L.ones(2, 2, dtype=L.uint8), L.tensor([], dtype=L.float64)]),
    "number_shift_tensor_dtype": lambda L: (-2 << L.tensor([1, 2], dtype=L.int16),
                                            False << L.tensor([1], dtype=L.uint8), 3 >> L.tensor([1], dtype=L.int8)),
    "linspace_one_step": lambda L: (L.linspace(0.5, math.nan, 1), L.linspace(2.0, -3.0, 1)),
    "kl_div_negative_target_nan": lambda L: L.nn.functional.kl_div(L.tensor([3.0, 2.0]), L.tensor([-2.25, 1.75]),
                                                                    reduction="sum"),
    "resize_non_contiguous": lambda L: (lambda x: (x.resize_(2, 3), Layout(x))[1])(
        L.tensor([[[-823, 8, -6]], [[-7, 2, 7]]], dtype=L.int32).permute([2, 1, 0])),
    "resize_offset_view": lambda L: (lambda x: (x.resize_(3), Layout(x))[1])(L.arange(10.0)[2::2]),
    "bernoulli_fresh_version": lambda L: (L.manual_seed(3), Version(L.bernoulli(L.tensor([0.3, 0.9]))))[1],
    "grad_fn_names": lambda L: (lambda x, y: _names(
        L.rsub(x, y), x.clamp_max(y), x.clamp_min(y), x.clamp(min=y), x.masked_fill(x > 1, L.tensor(0.0)),
        x.mean([]), x.sum([]), x.sum(dim=()), L.div(x, y, rounding_mode="trunc"), L.polygamma(0, x),
        x.clone().copy_(y)))(L.tensor([1.0, 2.0, 3.0], requires_grad=True),
                             L.tensor([2.0, 1.0, 0.0], requires_grad=True)),
    "rsub_next_functions_order": lambda L: (lambda x, y: [type(n).__name__
                                                          for n, _ in L.rsub(x, y * 1).grad_fn.next_functions])(
        L.ones(2, requires_grad=True), L.ones(2, requires_grad=True)),
    "cpp_node_names": lambda L: (lambda x: (lambda y: (y.__setitem__(0, 5.0), y.grad_fn.name(), repr(y)[-25:],
                                                       (x // 2).grad_fn.name()))(x * 1)[1:])(
        L.ones(2, requires_grad=True)),
    "return_types_print": lambda L: repr(L.tensor([[3.0, 1.0]]).max(1)).replace("minitorch", "torch"),
    "printoptions_profile": lambda L: (L.set_printoptions(profile="short"), repr(L.arange(3.0) / 7),
                                       L.set_printoptions(profile="default"), repr(L.arange(3.0) / 7))[1::2],
}


@cases(FOUND)
def test_found_by_random_programs(fn):
    same(fn)


def _backward_error(t):
    try:
        t.sum().backward()
    except RuntimeError as e:
        return str(e)
    return None


FOUND_2 = {
    "uint8_negative_int_wraps_in_place_and_clamp": lambda L: (
        L.tensor([5], dtype=L.uint8).add_(-128), L.tensor([7, 3], dtype=L.uint8).clamp(-1, 9),
        L.tensor([1, 3], dtype=L.uint8).clamp(max=-1), L.tensor([200], dtype=L.uint8).sub_(-100)),
    "number_mod_tensor_has_no_derivative": lambda L: (lambda r: (r, r.grad_fn.name(), _backward_error(r)))(
        5.0 % L.tensor([1.5, -2.0, 3.0], requires_grad=True)),
    "sign_of_nan_and_negative_zero": lambda L: (L.tensor([math.nan, -0.0, 2.0, -3.0]).sign(),
                                                L.tensor([math.nan, -0.0]).sgn(), L.tensor([math.nan]).sign_()),
    "std_of_empty_warns": lambda L: (L.std(L.ones(4, 0, 4), 0), L.std_mean(L.ones(3, 0), -1)),
    "cross_entropy_ignored_row_with_inf": lambda L: (lambda x: (
        lambda loss: (loss, loss.backward(), x.grad)[::2])(
            L.nn.functional.cross_entropy(x, L.tensor([1, 0, 0]), ignore_index=0)))(
        L.tensor([[0.001, 1.0, -0.7], [-0.38, 3.0, 1.0], [-2.9, math.inf, -2.25]], requires_grad=True)),
    "float_of_a_tensor_that_requires_grad_warns": lambda L: (lambda x: (float(x), int(x), x.item()))(
        L.tensor(2.0, requires_grad=True) * 1),
    "empty_integer_division_by_zero": lambda L: (L.tensor([], dtype=L.int64) % L.tensor(0),
                                                 L.zeros(0, 3, dtype=L.uint8) // L.tensor([0, 1, 2], dtype=L.uint8)),
}


@cases(FOUND_2)
def test_found_by_random_programs_2(fn):
    same(fn)


def test_logspace_with_infinite_ends_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = [minitorch.logspace(a, b, n).tolist() for a, b, n in [(3.25, math.inf, 2), (math.inf, -0.0, 2)]]
    want = [torch.logspace(a, b, n).tolist() for a, b, n in [(3.25, math.inf, 2), (math.inf, -0.0, 2)]]
    assert str(got) == str(want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_linspace_is_pytorchs_bit_for_bit(dtype):
    for a, b, n in [(0, 1, 7), (-3.3, 7.1, 100), (0.1, 0.9, 33), (-1e3, 1e-3, 1001), (-3.14159, 3.14159, 2000),
                    (2, 2, 5), (1.0, -0.0, 3)]:
        want = torch.linspace(a, b, n, dtype=getattr(torch, dtype)).numpy()
        got = minitorch.linspace(a, b, n, dtype=getattr(minitorch, dtype)).numpy()
        assert np.array_equal(want, got) and np.array_equal(np.signbit(want), np.signbit(got)), (a, b, n)


def test_nuclear_norm_through_tensor_norm():
    def run(L):
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
        n = x.norm(p="nuc")
        n.backward()
        return n, n.grad_fn.name(), x.grad, L.norm(x, "nuc", dim=(0, 1))
    same(run)


def test_randn_of_nothing_takes_any_dtype():
    same(lambda L: (L.randn((0,), dtype=L.int64), L.randn(2, 0, dtype=L.uint8)))
    same(lambda L: L.randn(2, dtype=L.int64))  # (refused when something is drawn)
    same(lambda L: L.rand(2, 0, dtype=L.int32))  # (rand refuses integer dtypes even then)


FOUND_3 = {
    "prod_backward_of_empty": lambda L: (lambda x, y: ((x.prod().backward(), x.grad)[1],
                                                       (y.prod(dim=-1).backward(L.ones(0, 4)), y.grad)[1]))(
        L.ones(1, 2, 0, 4, requires_grad=True), L.ones(0, 4, 3, requires_grad=True)),
    "clamp_min_wraps_uint8_bound": lambda L: (L.tensor([0, 7], dtype=L.uint8).clamp_min(-1),
                                              L.tensor([0, 7, 8], dtype=L.uint8).clamp_min_(-128)),
    "random_fills_of_empty_integer_tensors": lambda L: [getattr(L.zeros(0, dtype=L.int64), m)() for m in
                                                        ("normal_", "exponential_", "log_normal_")],
    "log_normal_refuses_integers": lambda L: L.zeros(2, dtype=L.int64).log_normal_(),
    "masked_fill_broadcasts_out_of_place": lambda L: (lambda x: (lambda y: (y, y.sum().backward(), x.grad)[::2])(
        x.masked_fill(L.tensor([False, True]), 2.0)))(L.tensor([1.0], requires_grad=True)),
    "masked_fill_in_place_does_not": lambda L: L.tensor([1]).masked_fill_(L.tensor([False, True]), 2),
    "tensordot_size_one_contracted_dim": lambda L: (lambda a, b: (
        lambda r: (r, r.sum().backward(), a.grad, b.grad)[::2])(
        L.tensordot(a, b, dims=1)))(L.tensor([[4.0, 3.0], [1.0, -2.5]], requires_grad=True),
                                    L.tensor([-1.0], requires_grad=True)),
}


@cases(FOUND_3)
def test_found_by_random_programs_3(fn):
    same(fn)


FOUND_4 = {
    "round_decimals_half_in_float32": lambda L: [L.round(L.tensor([-1.0, 0.001, -0.3638, 123.456, 3.14159],
                                                                   dtype=L.float16), decimals=d) for d in (5, 2, -1)],
    "clamp_bool_by_int_promotes": lambda L: (L.clamp(L.tensor([True, False]), 0, 3), L.tensor([True]).clamp(min=5),
                                             L.tensor([True, False]).clamp_min(1)),
}


@cases(FOUND_4)
def test_found_by_random_programs_4(fn):
    same(fn)


def test_nansum_of_infinities_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = minitorch.tensor([math.inf, -math.inf, 1.0]).nansum((0,), keepdim=True)
    assert math.isnan(got.item()) and math.isnan(torch.tensor([math.inf, -math.inf, 1.0]).nansum().item())


def test_svdvals_second_derivative_is_refused_not_wrong():
    x = minitorch.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=minitorch.float64, requires_grad=True)
    (g,) = minitorch.autograd.grad(minitorch.linalg.svdvals(x).sum(), x)  # first order: fine
    assert g.shape == (2, 2)
    with pytest.raises(NotImplementedError, match="second derivative of linalg.svdvals"):
        minitorch.autograd.grad(minitorch.linalg.svdvals(x).sum(), x, create_graph=True)


@pytest.mark.parametrize("code", [
    "T.sum(T.tensor([True, True]), 0, out=T.tensor(False))",
    "T.sum(T.tensor([1.5, 2.5]), 0, out=T.tensor(0))",
    "T.sum(T.tensor([[1.5, 2.5]]), 1, out=T.zeros(1, dtype=T.float64))",
    "T.prod(T.tensor([2, 3]), 0, out=T.tensor(False))",
    "T.cumsum(T.tensor([1.5, 2.5]), 0, out=T.zeros(2, dtype=T.long))",
    "T.cumprod(T.tensor([1.5, 2.5]), 0, out=T.zeros(2, dtype=T.long))",
])
def test_accumulating_reductions_compute_in_the_out_dtype(code):
    ours, theirs = eval(code, {"T": minitorch}), eval(code, {"T": torch})
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.tolist() == theirs.tolist()


def test_mean_out_still_refuses_an_integer_out():
    for T in (minitorch, torch):
        with pytest.raises(RuntimeError, match="can't be cast"):
            T.mean(T.tensor([2.0, 3.0]), 0, out=T.tensor(0))


def _after(fn):
    """fn(L) may raise: the tensors it was given, as they are afterwards (with their version)."""
    def case(L):
        box = []
        try:
            fn(L, box)
        except RuntimeError as e:
            box.append(str(e))
        return [Version(x) if _is_tensor(x) else x for x in box]
    return case


def _grad_of(op, x):
    def case(L):
        t = L.tensor(x, requires_grad=True)
        y = op(L, t)
        y.sum().backward()
        return y, t.grad
    return case


FOUND_5 = {
    # integer division by zero in place: PyTorch's kernel has written the elements before the first zero
    "int_remainder_by_zero_in_place_writes_up_to_it": _after(lambda L, box: (
        box.append(L.tensor([9, -4, -(1 << 62), (1 << 62) - 1])),
        box[0].__imod__(L.tensor([339, 4, 0, 6])))),
    "int_division_by_zero_in_memory_order": _after(lambda L, box: (
        box.append(L.arange(1, 13).reshape(3, 4).t()),
        box[0].floor_divide_(L.tensor([2] * 6 + [0] + [2] * 5).reshape(3, 4).t()))),
    "int_division_by_zero_other_dtype_writes_nothing": _after(lambda L, box: (
        box.append(L.arange(1, 13, dtype=L.int8)), box[0].remainder_(L.tensor([2, 0] * 6)))),
    "number_mod_float_tensor_sign_of_zero": lambda L: 255 % L.tensor([-3.0, 0.0, 3.0, -1.0, 1e-6], dtype=L.float16),
    "softshrink_keeps_nan": _grad_of(lambda L, t: L.nn.functional.softshrink(t),
                                     [-0.0, 0.0, -0.3, 0.3, 0.5, -0.5, math.nan, 2.0]),
    "hardshrink_keeps_nan": _grad_of(lambda L, t: L.nn.functional.hardshrink(t), [-0.3, 0.5, math.nan, 2.0]),
    # a view's strides at size-1 dims: PyTorch's computeStride, not NumPy's
    "view_of_a_permuted_row_major_tensor": lambda L: [Layout(L.tensor([[9, 2]]).permute(1, 0).view(-1, 1, 1)),
                                                      Layout(L.tensor([[1.0, 2.0, 4.0]]).t().reshape(3, 1, 1))],
    "unflatten_strides_at_size_one": lambda L: [
        Layout(L.arange(9, dtype=L.int32).reshape(1, 3, 3, 1).permute(3, 1, 2, 0).unflatten(0, (1, -1))),
        Layout(L.tensor([[5, 6, -1, -2]], dtype=L.int8)[:, None].mT.unflatten(-2, (4, 1)))],
    "flip_and_rot90_copy_in_the_inputs_layout": lambda L: [
        Layout(L.fliplr(L.tensor([[-2.5, -3.5]]).t()).T),
        Layout(L.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[:, ::2].flip(0)),
        *[Layout(L.rot90(L.tensor([[0], [255]], dtype=L.uint8), k)) for k in range(4)]],
    "rot90_never_shares_memory": lambda L: (lambda a: [L.rot90(a, k).data_ptr() == a.data_ptr()
                                                       for k in range(4)])(L.tensor([[0], [255]])),
    "unfold_1x1_copies": lambda L: (lambda x: (lambda c: (c, c.data_ptr() == x.data_ptr()))(
        L.nn.functional.unfold(x, 1)))(L.tensor([[[[3.75]]]]).asin()),
    "normal_of_a_0d_mean_is_0d": lambda L: (L.manual_seed(2), L.normal(L.tensor(-1.0), 0.0),
                                            L.normal(L.tensor(1.0, dtype=L.float16), 1.0))[1:],
    "median_of_empty_integers_is_nan_cast": lambda L: [
        (L.tensor([], dtype=dt).median(), L.tensor([], dtype=dt).nanmedian())
        for dt in (L.int8, L.int32, L.int64, L.uint8, L.bool)],
    # comparisons happen in the promoted dtype: a 0-d int64 tensor wraps into int16, int64 vs float32 rounds
    "comparisons_in_the_promoted_dtype": lambda L: [
        L.tensor([2, -2, 7], dtype=L.int16) >= L.tensor(-(1 << 62)),
        L.tensor([[0], [7]], dtype=L.int32) == L.tensor(-(1 << 62)),
        L.tensor([16777217]) == L.tensor([16777216.0]),
        L.tensor([0.1], dtype=L.float16) == L.tensor(0.1, dtype=L.float64)],
    "resize_reads_memory_in_its_order": lambda L: [
        L.arange(24, dtype=L.int16).reshape(2, 3, 4).permute(1, 2, 0).clone().resize_(24),
        L.arange(12).reshape(3, 4).t().clone().resize_(2, 2)],
    "float16_clamp_keeps_the_input_on_a_tie": lambda L: (lambda x: [
        x.clamp_max(-0.0), x.clamp(min=-0.0, max=0.0), x.clone().clamp_max_(-0.0), x.clone().clamp_(-0.0, 0.0)])(
        L.tensor([0.1145, 0.0, -0.0, math.nan, -1.0], dtype=L.float16)),
    # views under no_grad require grad when the memory's owner does (not a leaf that is itself a view)
    "no_grad_views_require_grad_as_their_base": lambda L: (lambda v, x: (L.set_grad_enabled(False), [
        v[1:].requires_grad, v[0].requires_grad, v.split(1, 1)[0].requires_grad, x[1:].requires_grad,
        (x * 2)[1:].requires_grad, x.unbind()[0].requires_grad], L.set_grad_enabled(True))[1])(
        L.ones(1, 2, 2).transpose(-1, -2).requires_grad_(), L.ones(3, requires_grad=True)),
    "cat_keeps_skipped_empties_as_inputs": lambda L: (lambda e, w: [
        [n.name() if n else None for n, _ in c.grad_fn.next_functions]
        for c in (L.cat((e, e)), L.cat((e, w)), L.cat((w.double(), w)))])(
        L.tensor([], requires_grad=True), L.ones(2, requires_grad=True)),
    "cat_casts_inside_its_backward": lambda L: (lambda e, w, m: (lambda c: (c, c.sum().backward(), e.grad, w.grad))(
        L.cat((m, e, w.double()[None].expand(1, 2))))[::2])(
        L.tensor([], requires_grad=True), L.ones(2, requires_grad=True), L.ones(3, 2, dtype=L.float64)),
    "in_place_integer_ops_compute_in_the_promoted_dtype": lambda L: [
        L.tensor([115, 254, 1], dtype=L.uint8).floor_divide_(L.tensor([-3, -528, 510])),
        L.tensor([115, 254, 1, 7], dtype=L.uint8).remainder_(L.tensor([-2, -3, 3, -4], dtype=L.int8))],
    "reshape_of_a_strided_tensor_is_reshape_alias": lambda L: (lambda x: [
        y.grad_fn.name() for y in (x.reshape(3, 2), x.t().reshape(3, 2), x[:, :1].reshape(2), x[:1].t().reshape(3))])(
        L.ones(2, 3, requires_grad=True)),
    "flatten_of_0d_checks_its_dims": lambda L: L.flatten(L.tensor(2.5), 1),
    "prelu_of_a_0d_input_is_0d": lambda L: (lambda x, w: (L.nn.functional.prelu(x, w).backward(), x.grad, w.grad))(
        L.tensor(-4.0, requires_grad=True), L.tensor([0.25], requires_grad=True))[1:],
}


@cases(FOUND_5)
def test_found_by_random_programs_5(fn):
    same(fn)


def test_grad_of_a_non_leaf_then_backward_through_it():
    """autograd.grad(..., y) stops at y: y's own node has not run, so its saved tensors are still there
    for a later backward through it."""
    x = minitorch.tensor([[0.0, 4.0], [-4.0, -0.5]], dtype=minitorch.float64, requires_grad=True)
    y = x.clamp_min(-1)
    (g,) = minitorch.autograd.grad(y.sin().sum(), y)
    y.backward(minitorch.ones(2, 2, dtype=minitorch.float64))
    assert g.tolist() == y.detach().cos().tolist()
    assert x.grad.tolist() == [[1.0, 1.0], [0.0, 1.0]]


def _grads(L, f, *xs):
    """f(*xs) backward from ones: the result and each input's gradient."""
    y = f(*xs)
    y.backward(L.ones_like(y))
    return [y] + [x.grad for x in xs]


FOUND_6 = {
    # Python numbers into a tensor of a narrow integer dtype are checked, as t[i] = v and fill_ are
    "tensor_of_an_out_of_range_int_overflows": lambda L: L.tensor([1, 300], dtype=L.int8),
    "tensor_of_an_out_of_range_float_overflows": lambda L: L.tensor([127.5], dtype=L.int8),
    "tensor_of_a_negative_float_into_uint8_overflows": lambda L: L.tensor(-1.0, dtype=L.uint8),
    "tensor_of_a_numpy_scalar_overflows": lambda L: L.tensor([np.int64(300)], dtype=L.int8),
    "new_tensor_of_an_out_of_range_int_overflows": lambda L: L.zeros(2, dtype=L.int8).new_tensor([128]),
    "tensor_wraps_a_negative_int_into_uint8": lambda L: L.tensor([-1, -255, 255], dtype=L.uint8),
    "tensor_of_an_array_casts_without_a_check": lambda L: L.tensor(np.array([300, -1]), dtype=L.int8),
    "tensor_of_a_nan_into_an_integer_overflows": lambda L: L.tensor([math.nan], dtype=L.int32),
    "tensor_keeps_int32_extremes": lambda L: L.tensor([-2 ** 31, 2 ** 31 - 1], dtype=L.int32),
    # the mean's gradient of std_mean / var_mean does not see the spread's nan when dof <= 0
    "std_mean_of_one_element_mean_grad": lambda L: _grads(L, lambda x: L.std_mean(x, -1)[1], L.tensor(
        [1.5], dtype=L.float64, requires_grad=True)),
    "var_mean_of_one_element_mean_grad": lambda L: _grads(L, lambda x: L.var_mean(x, 1)[1], L.tensor(
        [[1.5], [2.0]], requires_grad=True)),
    "std_mean_of_one_element_both_grads_nan": lambda L: _grads(L, lambda x: sum(L.std_mean(x, 1)), L.tensor(
        [[1.5], [2.0]], requires_grad=True)),
    # hardswish's gradient at -3 is 0 and at 3 is 1 (PyTorch's ends of the middle piece)
    "hardswish_grad_at_the_ends": lambda L: _grads(L, L.nn.functional.hardswish, L.tensor(
        [-3.0, 3.0, -3.5, 0.0, 2.5, -2.5], requires_grad=True)),
    # relu keeps -0. in float16 too (NumPy's float16 maximum does not)
    "relu_keeps_negative_zero_in_half": lambda L: (lambda x: [x.relu(), L.relu(x), x.clone().relu_()])(
        L.tensor([-0.0, 0.0, -1.0, 2.0, math.nan, -math.inf] * 3, dtype=L.float16)),
    # binary_cross_entropy_with_logits computes into the target's dtype
    # (PyTorch's log-sigmoid runs in the input's dtype: compared to 5 digits)
    "bce_with_logits_has_the_targets_dtype": lambda L: (lambda x: [
        (lambda y, g: (y.dtype, round(y.item(), 5), g.dtype, [round(v, 5) for v in g.tolist()]))(*_grads(
            L, lambda v: L.nn.functional.binary_cross_entropy_with_logits(v, L.tensor([0.0, 1.0], dtype=L.float64)),
            x)), L.nn.functional.binary_cross_entropy_with_logits(x.double(), L.tensor([0.0, 1.0])).dtype])(
        L.tensor([1.0, -3.0], requires_grad=True)),
    # lerp of 0-d tensors promotes to a 0-d weight's dtype; with a dimensioned input it keeps the input's
    "lerp_of_0d_tensors_promotes": lambda L: (lambda a: [L.lerp(a, a * 2, L.tensor(0.25)),
                                                         L.lerp(a[None], a[None], L.tensor(0.25))])(
        L.tensor(1.0, dtype=L.float16)),
    "mT_of_0d_is_the_tensor_itself": lambda L: (lambda a: a.mT is a)(L.tensor(2.0)),
    # threshold leaves NaN alone (NaN <= threshold is false); logit clamps below eps first, as PyTorch
    "threshold_keeps_nan": lambda L: L.nn.functional.threshold(L.tensor([math.nan, 1.0, 4.0]), 3.25, 3.25),
    "logit_with_eps_over_a_half": lambda L: L.logit(L.tensor([-3.0, 1.0, 2.5, 0.0, 0.665]), eps=1.0),
    "logit_with_eps_keeps_nan": lambda L: L.logit(L.tensor([0.0, 0.3, 1.0, math.nan]), eps=0.1),
    # half precision layer / group norm normalise in float32: no overflow of the variance
    "layer_norm_of_large_half_values": lambda L: L.nn.functional.layer_norm(
        L.tensor([[-10000.0], [-1.0], [1.0]], dtype=L.float16), (3, 1), eps=1.0),
    "group_norm_of_inf_is_nan_silently": lambda L: L.nn.functional.group_norm(
        L.tensor([[[1.0, 2.0], [3.0, math.inf]]]), 1),
}


@cases(FOUND_6)
def test_found_by_random_programs_6(fn):
    same(fn)


def _history(y):
    """What a learner sees of y's record: its name and the names of the nodes it points to."""
    g = y.grad_fn
    return (g.name(), [n.name() for n, _ in g.next_functions if n]) if g is not None else None


def _inplace_record(L, f, view=False):
    """f applied in place to a non-leaf (or to a row of one): the history of the tensor written
    and of its base, its version, and the gradient that reaches the leaf."""
    a = L.tensor([[0.5, 1.5, -0.3], [1.0, 2.0, 3.0]], requires_grad=True)
    x = a * 1
    t = x[0] if view else x
    f(L, t)
    (x * L.tensor([1.0, -2.0, 0.5])).sum().backward()
    return _history(t), _history(x), Version(x), a.grad


# in-place forms computed from other ops are recorded as the op itself (Log1PBackward0, ...), random
# fills and comparisons under PyTorch's names, and logical_*_ not at all, as in PyTorch
INPLACE_RECORDS = {
    "log1p_": lambda L, t: t.log1p_(), "expm1_": lambda L, t: t.expm1_(), "rsqrt_": lambda L, t: t.abs_().rsqrt_(),
    "reciprocal_": lambda L, t: t.reciprocal_(), "square_": lambda L, t: t.square_(),
    "hypot_": lambda L, t: t.hypot_(L.tensor([1.0, 0.5, 2.0])), "xlogy_": lambda L, t: t.xlogy_(2.0),
    "copysign_": lambda L, t: t.copysign_(-1.0), "div_ floor": lambda L, t: t.div_(2.0, rounding_mode="floor"),
    "div_ trunc": lambda L, t: t.div_(L.tensor([2.0, 1.0, 3.0]), rounding_mode="trunc"),
    "remainder_ number": lambda L, t: t.remainder_(0.7), "%= number": lambda L, t: t.__imod__(2),
    "fmod_ number": lambda L, t: t.fmod_(0.7), "remainder_ tensor": lambda L, t: t.remainder_(L.tensor([0.7])),
    "normal_": lambda L, t: t.normal_(), "uniform_": lambda L, t: t.uniform_(), "bernoulli_": lambda L, t: t.bernoulli_(),
    "bernoulli_(p tensor)": lambda L, t: t.bernoulli_(L.tensor([0.5, 0.5, 0.5])),
    "random_()": lambda L, t: t.random_(), "random_(to)": lambda L, t: t.random_(5),
    "random_(from, to)": lambda L, t: t.random_(1, 5), "exponential_": lambda L, t: t.exponential_(),
    "geometric_": lambda L, t: t.geometric_(0.5), "cauchy_": lambda L, t: t.cauchy_(),
    "log_normal_": lambda L, t: t.log_normal_(), "lt_ number": lambda L, t: t.lt_(1.0),
    "ge_ tensor": lambda L, t: t.ge_(L.tensor([1.0, 0.0, 2.0])), "ne_ tensor": lambda L, t: t.ne_(L.tensor(0.5)),
    "less_equal_": lambda L, t: t.less_equal_(1.0), "logical_not_": lambda L, t: t.logical_not_(),
    "logical_and_": lambda L, t: t.logical_and_(L.tensor([1.0, 0.0, 2.0])),
    "logical_xor_": lambda L, t: t.logical_xor_(L.tensor([1.0, 0.0, 2.0])),
}


@pytest.mark.parametrize("view", [False, True], ids=["tensor", "view"])
@pytest.mark.parametrize("f", list(INPLACE_RECORDS.values()), ids=list(INPLACE_RECORDS))
def test_inplace_forms_are_recorded_as_pytorch_records_them(f, view):
    def case(L):
        L.manual_seed(0)
        return _inplace_record(L, f, view)
    same(case)


def test_inplace_forms_save_what_pytorch_saves():
    """rsqrt_ saves its result, written in the tensor: a later in-place change is caught at backward."""
    def case(L):
        x = L.tensor([0.5, 1.5], requires_grad=True) * 1
        x.rsqrt_().mul_(2)
        error = _backward_error(x)
        return error.split(":")[0], "is at version 2; expected version 1" in error
    same(case)


def test_logical_inplace_on_a_leaf_that_requires_grad_runs():
    same(lambda L: (lambda a: (a.logical_not_(), a.grad_fn, Version(a)))(L.tensor([0.5, 0.0], requires_grad=True)))


# a dim reduction of a 0-d (or empty) tensor is recorded as the reduction, not as a clone
ZERO_D_REDUCTIONS = {
    "max(0)": lambda L, a: a.max(0)[0], "min(-1)": lambda L, a: a.min(-1)[0],
    "max(0, keepdim)": lambda L, a: a.max(0, keepdim=True)[0], "torch.max(dim=0)": lambda L, a: L.max(a, dim=0)[0],
    "cumprod(0)": lambda L, a: a.cumprod(0), "logcumsumexp(0)": lambda L, a: a.logcumsumexp(0),
    "cummax of empty": lambda L, a: a.reshape(1)[:0].cummax(0)[0],
    "cummin of empty 2-d": lambda L, a: a.expand(2, 3)[:, :0].cummin(-1)[0],
    "logcumsumexp of empty": lambda L, a: a.reshape(1)[:0].logcumsumexp(0),
}


@pytest.mark.parametrize("f", list(ZERO_D_REDUCTIONS.values()), ids=list(ZERO_D_REDUCTIONS))
def test_dim_reductions_of_0d_tensors_are_recorded_as_the_reduction(f):
    def case(L):
        a = L.tensor(1.5, requires_grad=True)
        y = f(L, a)
        (y * 3).sum().backward()
        return y, y.grad_fn.name(), Layout(y), a.grad
    same(case)


def _partial_write(L, f):
    """f(x) raises an IndexError part way: what x holds then, and its version."""
    x = L.zeros(3, 4)
    with pytest.raises(IndexError):
        f(L, x)
    return x, Version(x)


# found by the long run of random programs
FOUND_7 = {
    # nonzero's result is laid out column by column (strides (1, n)), as PyTorch's
    "nonzero_layout": lambda L: [Layout(L.tensor([[0.0, 1.0, 2.0], [3.0, 0.0, 5.0]]).nonzero()),
                                 Layout(L.tensor([0, 4, 5]).nonzero()), Layout(L.argwhere(L.ones(2, 1, 3)))],
    # half products round after each step; running products of floats are kept wider
    "prod_of_half_overflows_in_half": lambda L: (lambda x: [x.prod(), x.prod(0), x[None].prod(1, keepdim=True),
                                                           x.float().prod(0, dtype=L.float16)])(
        L.tensor([60000.0, 2.0, 0.5], dtype=L.float16)),
    "prod_of_float32_overflows_in_float32": lambda L: L.tensor([1e20, 1e20, 1e-20]).prod(),
    "cumprod_keeps_a_wider_running_product": lambda L: [L.tensor([1e20, 1e20, 1e-20]).cumprod(0),
                                                        L.tensor([60000.0, 2.0, 0.5], dtype=L.float16).cumprod(0)],
    # unflatten only splits a dim: always a view (ViewBackward0), whatever the layout
    "unflatten_is_a_view": lambda L: (lambda b: [(y.grad_fn.name(), Layout(y)) for y in (
        b.unflatten(1, (2, 3)), b.t().unflatten(0, (2, 3)), b[:, ::2].unflatten(1, (3, 1)),
        L.nn.Unflatten(1, (3, 2))(b))])(L.ones(2, 6, requires_grad=True)),
    # kron is PyTorch's product of views: its layout, its error on some transposed inputs, its record
    "kron_layouts": lambda L: [Layout(r) for r in (
        L.kron(L.ones(2, 3).T, L.ones(2, 2).T), L.kron(L.ones(2, 3).T, L.ones(2, 2).T).unsqueeze(0),
        L.kron(L.ones(2, 3), L.ones(2, 1, 1)).T, L.kron(L.ones(1).expand(3), L.ones(2)))],
    "kron_of_a_transposed_input_cannot_be_viewed": lambda L: L.kron(L.ones(2, 3).T, L.ones(2, 2)),
    "kron_record_and_gradients": lambda L: (lambda a, b: (lambda k: (
        k.grad_fn.name(), [n.name() for n, _ in k.grad_fn.next_functions], k.dtype,
        (k * L.arange(12.0).reshape(2, 6)).sum().backward(), a.grad, b.grad))(L.kron(a, b.double())))(
        L.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True), L.tensor([1.0, -2.0, 0.5], requires_grad=True)),
    # index_put_ writes the positions before the first index out of range, then raises
    "setitem_writes_before_a_bad_index": lambda L: _partial_write(
        L, lambda L, x: x.__setitem__(_index(L, [2, -1, 5, 0]), L.tensor(7.0))),
    "setitem_2d_index_writes_before_a_bad_index": lambda L: _partial_write(
        L, lambda L, x: x.__setitem__((_index(L, [[0, 1], [9, 2]]), _index(L, [1, 2])), L.tensor([[1.0, 2.0], [3.0, 4.0]]))),
    "index_put_writes_before_a_bad_index": lambda L: _partial_write(
        L, lambda L, x: x.index_put_((_index(L, [1, 0]), _index(L, [1, -5])), L.tensor([1.0, 2.0]))),
    "index_put_accumulate_writes_before_a_bad_index": lambda L: _partial_write(
        L, lambda L, x: x.index_put_((_index(L, [1, 1, 3]),), L.tensor([1.0, 2.0, 3.0, 4.0]), accumulate=True)),
}


def _index(L, values):
    return L.tensor(values)


@cases(FOUND_7)
def test_found_by_random_programs_7(fn):
    same(fn)


def _error(f):
    """The exception f() raises (its type and first words), or None."""
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split(" (")[0]
    return None


# found by the random programs on other seeds
FOUND_8 = {
    # softmax / log_softmax / softmin of an empty tensor are recorded as themselves
    "softmax_of_empty_is_softmax": lambda L: (lambda a: [(f(a).grad_fn.name(), tuple(f(a).shape)) for f in (
        lambda t: t.softmax(1), lambda t: t.log_softmax(0), lambda t: L.nn.functional.softmin(t, 1))])(
        L.zeros(2, 0, requires_grad=True)),
    # half activations are computed in float and rounded once, as PyTorch's kernels do
    "half_activations_round_once": lambda L: (lambda x: [
        (lambda y: (y, (y * L.linspace(-2, 2, 9, dtype=L.float16)).sum().backward(), x.grad)[::2])(f(x))
        for f in (L.nn.functional.gelu, lambda t: L.nn.functional.gelu(t, approximate="tanh"), L.nn.functional.silu,
                  L.nn.functional.logsigmoid, L.nn.functional.hardswish)])(
        L.tensor([60000.0, -1.6634, -2.25, 3.0, 0.0, 100.0, -20.0, 0.3, -0.7], dtype=L.float16, requires_grad=True)),
    "leaky_relu_with_an_infinite_slope": lambda L: _grads(
        L, lambda x: L.nn.functional.leaky_relu(x, math.inf), L.tensor([1.0, -2.0, 0.0, math.inf], requires_grad=True)),
    # nan_to_num is empty_like + a copy: the input's own strides, size-1 dims included
    "nan_to_num_keeps_the_strides": lambda L: Layout(L.nan_to_num(
        L.tensor([[[-3.0, math.nan]], [[4.0, 0.5]]]).transpose(-1, -2), nan=0.001)),
    "tensor_op_number_keeps_the_strides": lambda L: Layout(
        L.tensor([[[[6], [-2], [2], [-873]]]], dtype=L.int32).permute([0, 2, 1, 3]).remainder(5)),
    # cummax / cummin results are row-major; sort's keep the input's layout
    "cummax_results_are_row_major": lambda L: [Layout(r) for r in (
        *L.ones(2, 1, 3, 3).expand(2, 2, 3, 3).cummax(1), *L.ones(2, 3).T.cummin(0))],
    "sort_results_keep_the_layout": lambda L: [Layout(r) for r in (
        *L.ones(3, 2).T.sort(0), *L.ones(2, 3, 4).permute(2, 0, 1).sort(1), *L.ones(4)[::2].sort())],
    "sort_results_of_a_transpose_cannot_be_flattened_by_view": lambda L: _error(
        lambda: L.fliplr(L.tensor([[1.0, -1.0], [-2.0, 1.5]]).T).sort(0)[0].view(4)),
    # prod's gradient divides the product by the element when nothing is zero (inf / inf is nan)
    "prod_grad_with_an_infinite_element": lambda L: _grads(
        L, lambda x: x.prod(0), L.tensor([[2.0, -math.inf], [1.0, 3.0], [-0.25, 0.5]], requires_grad=True)),
    # a leaf whose requires_grad is turned off (or that is detach_()ed) after the graph is built gets no .grad
    "no_grad_for_a_leaf_turned_off": lambda L: (lambda a: (lambda y: (setattr(a, "requires_grad", False),
                                                                      y.backward(), a.grad)[2])(a.exp().sum()))(
        L.tensor([0.75, 1.75], requires_grad=True)),
    "no_grad_for_a_detached_leaf": lambda L: (lambda a: (lambda y: (a.detach_(), y.backward(L.ones(3)), a.grad)[2])(
        L.nn.functional.normalize(a, p=3, dim=0)))(L.tensor([-0.25, 1.0, -1.0], requires_grad=True)),
    # logit with a negative eps is logit without one (PyTorch's default is -1)
    "logit_with_a_negative_eps": lambda L: _grads(L, lambda x: L.logit(x, eps=-1.5), L.tensor(
        [-2.0, -1.25, 0.07, 0.0, 1.0, 2.0, 0.6], requires_grad=True)),
    # in-place pow computes in the promoted dtype, and checks a Python exponent as PyTorch does
    "pow_by_a_wider_integer_tensor_wraps": lambda L: L.tensor([[3, 0, 6, 171], [0, 3, 6, 190]], dtype=L.uint8).pow_(
        L.tensor([654, 9, -1, 4])),
    "pow_by_a_negative_python_int": lambda L: _error(lambda: L.tensor([1, 2], dtype=L.uint8).pow_(-1)),
    "pow_by_an_out_of_range_python_int": lambda L: _error(lambda: L.tensor([1, 2], dtype=L.int8).pow_(300)),
    # dims are checked on 0-d tensors too, and select checks its dim
    "count_nonzero_of_0d_checks_the_dim": lambda L: _error(lambda: L.count_nonzero(L.tensor(3.0), 5)),
    "select_checks_the_dim": lambda L: [_error(lambda: L.tensor([3, 4, 5])[::2].select(d, -2)) for d in (5, 1, 0)],
    "round_decimals_of_integers_refused": lambda L: [_error(lambda: L.round(L.tensor([1, 2]), decimals=0)),
                                                     L.round(L.tensor([1, 2]))],
    # threshold passes the gradient unless x <= threshold (so a NaN threshold passes it)
    "threshold_grad_with_a_nan_threshold": lambda L: _grads(L, lambda x: L.nn.functional.threshold(
        x, math.nan, math.nan), L.tensor([[-1.75, 2.0]], dtype=L.float16, requires_grad=True)),
    # the mean of var_mean / std_mean used alone: its gradient does not see the spread's nan
    "var_mean_mean_grad_with_nan_data": lambda L: _grads(L, lambda x: L.var_mean(x, -1, keepdim=True)[1], L.tensor(
        [[math.nan, 1.5, 0.5, -3.25], [-4.0, -3.0, 1.5, 3.0]], requires_grad=True)),
    # prod() over two zeros or more: every product of the others is 0, whatever the rest holds
    "prod_grad_with_two_zeros": lambda L: _grads(L, lambda x: x.prod(), L.tensor(
        [[1.75, math.inf, -0.0], [math.nan, 0.5, 0.0]], requires_grad=True)),
    # pairwise_distance is PyTorch's older norm (NormBackward1), for 0-d and 1-d inputs too
    "pairwise_distance_record": lambda L: [(lambda r: (r, r.grad_fn.name(), r.sum().backward(), x1.grad)[::3])(
        L.nn.functional.pairwise_distance(x1, x2, p=p)) for x1, x2, p in (
        (L.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]], requires_grad=True), L.tensor([0.5, 1.0, -1.0]), 2.0),
        (L.tensor(1.5, requires_grad=True), L.tensor(-1.25), 1), (L.tensor([1.0, 2.0], requires_grad=True),
                                                                 L.tensor([1.0, 2.0]), 3))],
    # div(..., rounding_mode=None) is recorded as the rounding overload (DivBackward2), div(a, b) is not
    "div_with_rounding_mode_none": lambda L: (lambda a, b: [r.grad_fn.name() for r in (
        L.div(a, b), L.div(a, b, rounding_mode=None), a.div(2.0, rounding_mode=None), (a * 1).div_(b),
        (a * 1).div_(b, rounding_mode=None))])(L.tensor([1.5, -2.0], requires_grad=True), L.tensor([2.0, 0.5])),
    # unique_consecutive is its own record, and flattens an empty input as it flattens any other
    "unique_consecutive_record_and_empty_input": lambda L: (lambda a, e: [
        a.unique_consecutive().grad_fn.name(), a.unique_consecutive(dim=0).grad_fn.name(),
        e.unique_consecutive(return_inverse=True, return_counts=True), e.unique_consecutive(dim=0),
        _error(lambda: a.unique_consecutive().sum().backward())])(
        L.tensor([1.0, 1.0, 2.0, 2.0, 3.0], requires_grad=True), L.zeros(0, 2, 3)),
    # pixel_shuffle / pixel_unshuffle are one op each, with a fresh result, even for a factor of 1
    "pixel_shuffle_record": lambda L: (lambda x: [(lambda r: (r.grad_fn.name(), r._base is None, Layout(r)))(r) for r in (
        L.nn.functional.pixel_shuffle(x, 2), L.nn.functional.pixel_shuffle(x, 1),
        L.nn.functional.pixel_unshuffle(x, 1), L.nn.functional.pixel_shuffle(x.transpose(2, 3), 2))] + [
        _grads(L, lambda t: L.nn.functional.pixel_shuffle(t, 2) * L.arange(32.0).reshape(2, 1, 4, 4), x)[1]])(
        L.arange(32.0).reshape(2, 4, 2, 2).requires_grad_()),
    # an in-place op on an expanded tensor is refused for the overlap before its dtype
    "overlap_is_checked_first": lambda L: [_error(lambda: L.tensor([[1, 2]]).expand(2, 2).frac_()),
                                           _error(lambda: L.tensor([[True]]).expand(2, 2).round_())],
}


@cases(FOUND_8)
def test_found_by_random_programs_8(fn):
    same(fn)


def _lazy_linear(L):
    """nn.LazyLinear as the d2l chapters use it: an UninitializedParameter until the first call,
    then a Linear initialised then (so from the random stream at that point); an optimizer made
    before the call updates the materialised parameters; a state_dict load gives them its shapes."""
    L.manual_seed(0)
    m = L.nn.LazyLinear(3)
    before = [repr(m), repr(m.weight), type(m.weight).__name__, _error(lambda: m.weight.shape),
              [repr(v) for v in m.state_dict().values()]]
    opt = L.optim.SGD(m.parameters(), lr=0.5)
    y = m(L.arange(8.0).reshape(2, 4))
    y.sum().backward()
    opt.step()
    after = [repr(m), type(m).__name__, m.in_features, type(m.weight).__name__, m.weight, m.bias, y,
             opt.param_groups[0]["params"][0] is m.weight, L.randn(2)]
    loaded = L.nn.LazyLinear(2, bias=False)
    keys = loaded.load_state_dict({"weight": L.ones(2, 5)})
    loaded_out = [repr(loaded), loaded.weight, repr(keys), loaded(L.ones(1, 5)), repr(loaded)]
    return before, after, loaded_out


def _sci_mode_reprs(L):
    """set_printoptions(sci_mode=True/False) forces or forbids scientific notation; any later call
    without sci_mode (here the profile reset) goes back to choosing by the values."""
    values = ([1e-5, 123.456, 1e4], [1.0, 2000.0], [1.0, 2.0], [1e9, 1.0], [0.5, 1e-5], [0.0, 0.0], [float("nan"), 1.0])
    out = []
    try:
        for mode in (True, False, None):
            L.set_printoptions(precision=2, sci_mode=mode)
            out.append([repr(L.tensor(v)) for v in values])
        L.set_printoptions(sci_mode=False)
        L.set_printoptions(profile="default")
        out.append([repr(L.tensor(v)) for v in values])
    finally:
        L.set_printoptions(profile="default")
    return out


FOUND_BY_PROGRAMS = {
    # torch.histogram (makemore's activation plots): equal bins over the data's range, or given edges
    "histogram": lambda L: [tuple(L.histogram(x, **kw)) for x, kw in (
        (L.tensor([1.0, 2.0, 1.0, 4.0]), {"bins": 3}), (L.tensor([1.0, 1.0]), {"bins": 4}),
        (L.tensor([]), {"bins": 2}), (L.tensor([1.0, 2.0, 3.0, 9.0]), {"bins": 2, "range": (0.0, 4.0)}),
        (L.tensor([1.0, 2.0, 3.0, 4.0]), {"bins": 2, "weight": L.tensor([1.0, 2.0, 3.0, 4.0]), "density": True}),
        (L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64), {"bins": L.tensor([0.0, 2.0, 5.0], dtype=L.float64)}),
        (L.linspace(-1, 1, 50).tanh(), {"density": True}))] + [
        L.tensor([1.0, 2.0]).histogram(2).bin_edges, type(L.histogram(L.tensor([1.0]), 1)).__name__],
    "histogram_errors": lambda L: [_error(f) for f in (
        lambda: L.histogram(L.tensor([1, 2]), bins=2),
        lambda: L.histogram(L.tensor([1.0, 2.0]), bins=L.tensor([0.0, 2.0], dtype=L.float64)),
        lambda: L.histogram(L.tensor([1.0, 2.0]), bins=0),
        lambda: L.histogram(L.tensor([1.0, 2.0]), bins=2, range=(3.0, 1.0)),
        lambda: L.histogram(L.tensor([1.0, float("inf")]), bins=2))],
    "lazy_linear": _lazy_linear,
    "set_printoptions_sci_mode": _sci_mode_reprs,
    # nn.init.orthogonal_ draws PyTorch's normals (so the stream after it agrees too) and QR-factors them
    "orthogonal_init": lambda L: (L.manual_seed(0), [L.nn.init.orthogonal_(L.empty(*s), gain=g) for s, g in (
        ((3, 3), 1.0), ((2, 5), 2.0), ((5, 2), 1.0), ((4, 2, 3), 0.5))], L.randn(3),
        _error(lambda: L.nn.init.orthogonal_(L.empty(3))), L.nn.init.orthogonal_(L.empty(0, 3)))[1:],
    # the errors beginners meet first, in PyTorch's words: class ids of the wrong dtype or shape,
    # a float64 batch into a float32 layer (Linear with a bias is one addmm in PyTorch), matmul's
    # dtype errors as the kernel its shapes lead to words them
    "class_id_target_errors": lambda L: [_error(f) for f in (
        lambda: L.nn.CrossEntropyLoss()(L.zeros(3, 5), L.tensor([1.0, 0.0, 4.0])),
        lambda: L.nn.functional.nll_loss(L.zeros(3, 5), L.tensor([1, 0, 4]).int()),
        lambda: L.nn.functional.nll_loss(L.zeros(3, 5), L.tensor([True, False, True])),
        lambda: L.nn.CrossEntropyLoss()(L.zeros(3, 5), L.tensor([[1], [0], [4]])),
        lambda: L.nn.CrossEntropyLoss()(L.zeros(3, 5), L.zeros(3, 1)),
        lambda: L.nn.CrossEntropyLoss()(L.zeros(3, 5), L.tensor([1, 0])),
        lambda: L.nn.CrossEntropyLoss()(L.zeros(3, 5), L.tensor(1)),
        lambda: L.nn.CrossEntropyLoss()(L.zeros(2, 5, 4), L.zeros(2, 3, dtype=L.int64)),
        lambda: L.nn.CrossEntropyLoss()(L.zeros(2, 5, 4), L.zeros(2, 4, 1, dtype=L.int64)),
        lambda: L.nn.functional.nll_loss(L.zeros(5), L.tensor([1, 2, 3])),
        lambda: L.nn.functional.nll_loss(L.zeros(5), L.zeros(2, 3, dtype=L.int64)),
        lambda: L.nn.functional.nll_loss(L.tensor(1.0), L.tensor(0)))],
    "nll_loss_of_one_row_takes_a_one_element_target": lambda L: (lambda x: [
        L.nn.functional.nll_loss(x, L.tensor([2])), L.nn.functional.nll_loss(x, L.tensor([2]), reduction="none"),
        L.nn.functional.cross_entropy(x, L.tensor([2]), reduction="sum"), L.nn.functional.nll_loss(x, L.tensor(2))])(
        L.tensor([0.5, -1.0, 2.0, 0.25])),
    "matmul_dtype_errors": lambda L: [_error(f) for f in (
        lambda: L.nn.Linear(3, 1)(L.ones(2, 3, dtype=L.float64)),
        lambda: L.nn.Linear(3, 1)(L.ones(2, 3, dtype=L.int64)),
        lambda: L.nn.Linear(3, 1)(L.ones(3, dtype=L.float16)),
        lambda: L.nn.Linear(3, 1)(L.ones(5, 2, 3, dtype=L.float64)),
        lambda: L.nn.Linear(3, 1, bias=False)(L.ones(2, 3, dtype=L.float64)),
        lambda: L.nn.Linear(3, 2)(L.ones(5, 4, 3, dtype=L.float64).transpose(0, 1)),
        lambda: L.nn.functional.linear(L.ones(5, 4, 3, dtype=L.float64).transpose(0, 1), L.ones(2, 3), L.ones(2)),
        lambda: L.ones(4, 3, dtype=L.float64) @ L.ones(3, 2),
        lambda: L.ones(4, 3, dtype=L.float64) @ L.ones(2, 3, 2),
        lambda: L.ones(2, 4, 3) @ L.ones(2, 3, 2, dtype=L.float64),
        lambda: L.ones(5, 4, 3, dtype=L.float64) @ L.ones(3, 2),
        lambda: L.ones(4, 3, dtype=L.float64) @ L.ones(3),
        lambda: L.bmm(L.ones(2, 2, 3), L.ones(2, 3, 2, dtype=L.float64)))],
}


@cases(FOUND_BY_PROGRAMS)
def test_found_by_beginner_programs(fn):
    same(fn)


# ---- found by the random differential programs (tests/test_torch_random_programs.py) -----------

def _graph_names(f, depth=3):
    """The grad_fn names along the last input of each node, from f (the history as tutorials print it)."""
    out = []
    while f is not None and depth:
        out.append(f.name())
        nodes = [n for n, _ in f.next_functions if n is not None]
        f, depth = (nodes[-1] if nodes else None), depth - 1
    return out


def _written_base(L):
    """A view, then its base multiplied in place: the view's grad_fn is renewed when it is read."""
    b = _leaf(L, 4).clone()
    v = b[1:]
    b.mul_(2)
    return b, v


def _renewed_view_grad(L, write):
    x = _leaf(L, 4)
    b = x.clone()
    v = b[1:]
    write(L, b, v)
    (v * L.arange(3.0)).sum().backward()
    return x.grad, _graph_names(v.grad_fn)


def _no_grad_write(L, b, v):
    with L.no_grad():
        b.add_(1)


VIEW_HISTORY = {
    # PyTorch renews a view's grad_fn when .grad_fn is read after its memory was written in place
    # (through the base, another view, or under no_grad): AsStridedBackward0 on the base's new history
    "base_written": lambda L: _graph_names(_written_base(L)[1].grad_fn),
    "read_twice_is_one_node": lambda L: (lambda v: v.grad_fn is v.grad_fn)(_written_base(L)[1]),
    "an_op_uses_the_renewed_node": lambda L: (lambda v: (lambda g: (v * 2).grad_fn.next_functions[0][0] is g)(
        v.grad_fn))(_written_base(L)[1]),
    "sibling_written": lambda L: (lambda b: (lambda v, w: (w.mul_(2), _graph_names(v.grad_fn), _graph_names(w.grad_fn),
                                                           _graph_names(b.grad_fn)))(b[1:], b[:2])[1:])(_leaf(L, 3).clone()),
    "written_under_no_grad": lambda L: (lambda b: (lambda v: (_no_grad_write(L, b, v), _graph_names(v.grad_fn),
                                                              _graph_names(b.grad_fn))[1:])(b[1:]))(_leaf(L, 3).clone()),
    "view_of_a_view": lambda L: (lambda b: (lambda v: (lambda w: (b.mul_(2), _graph_names(w.grad_fn), _graph_names(v.grad_fn))[1:])(
        v[1:]))(b[1:]))(_leaf(L, 4).clone()),
    "view_op_and_transpose": lambda L: (lambda b: (lambda v, t: (b.mul_(2), _graph_names(v.grad_fn), _graph_names(t.grad_fn))[1:])(
        b.view(2, 2), b.view(2, 2).t()))(_leaf(L, 4).clone()),
    "the_view_itself_under_no_grad": lambda L: (lambda b: (lambda v: (_no_grad_write(L, v, v), _graph_names(v.grad_fn))[1])(
        b[1:]))(_leaf(L, 3).clone()),
    "a_leaf_view_under_no_grad": lambda L: (lambda x: (lambda v: (_no_grad_write(L, x, v), _graph_names(v.grad_fn))[1])(
        x[1:]))(_leaf(L, 3)),
    "printed": lambda L: str(_written_base(L)[1]).split("grad_fn=")[1],
    "is_leaf_and_requires_grad": lambda L: (lambda v: (v.is_leaf, v.requires_grad))(_written_base(L)[1]),
    "gradient_through_a_renewed_view": lambda L: _renewed_view_grad(L, lambda L, b, v: b.mul_(2)),
    "gradient_after_a_no_grad_write": lambda L: _renewed_view_grad(L, _no_grad_write),
    "retain_grad_follows_the_renewal": lambda L: (lambda b, v: (v.retain_grad(), b.mul_(2), v.sum().backward(),
                                                               v.grad)[-1])(*(lambda b: (b, b[1:]))(_leaf(L, 4).clone())),
    "in_place_view_op_on_a_view_keeps_its_node": lambda L: (lambda v: (v.unsqueeze_(0), _graph_names(v.grad_fn),
                                                                       Version(v))[1:])(_leaf(L, 3).clone()[1:]),
    # views PyTorch refuses to show a history for, once their memory was written
    "no_grad_view_after_a_write": lambda L: (lambda b: (lambda v: (b.mul_(2), _error(lambda: v.grad_fn),
                                                                   _error(lambda: v * 2), str(v).split("grad_fn=")[1]))(
        _no_grad_view(L, b)))(_leaf(L, 3).clone()),
    "no_grad_view_used_under_no_grad": lambda L: (lambda b: (lambda v: (b.mul_(2), _under_no_grad(L, lambda: v * 2)))(
        _no_grad_view(L, b)))(_leaf(L, 3).clone()),
    "split_output_after_a_write": lambda L: (lambda b: (lambda q: (b.mul_(2), _error(lambda: q.grad_fn),
                                                                   _error(lambda: q * 2)))(b.split(2)[1]))(
        _leaf(L, 3).clone()),
    "unbind_output_after_a_no_grad_write": lambda L: (lambda b: (lambda q: (_no_grad_write(L, b, q),
                                                                            _error(lambda: q.grad_fn)))(b.unbind()[1]))(
        _leaf(L, 3).clone()),
}


def _no_grad_view(L, b):
    with L.no_grad():
        return b[1:]


def _under_no_grad(L, f):
    with L.no_grad():
        return f()


@cases(VIEW_HISTORY)
def test_a_view_renews_its_history_when_read(fn):
    same(fn)


VIEW_OF_A_LEAF = {
    # PyTorch's check_inplace: a view (made by a view op) requiring grad whose base is a leaf, even a
    # base that does not require grad, may not be written in place; `x[False] = v` writes nothing
    "view_of_a_leaf_that_does_not_require_grad": lambda L: _error(lambda: _pow_into(
        L.permute(L.tensor([[-4.0, -4.0, 2.0]]).expand((1, 3)).requires_grad_(), (0, 1)))),
    "the_expanded_leaf_itself": lambda L: _error(lambda: _pow_into(
        L.tensor([[-4.0, -4.0, 2.0]]).expand((1, 3)).requires_grad_())),
    "a_slice_made_a_leaf": lambda L: _error(lambda: (lambda v: v.requires_grad_().mul_(2))(L.tensor([1.0, 2, 3])[1:])),
    "a_view_of_a_detached_alias": lambda L: _error(
        lambda: L.tensor([1.0, 2.0], requires_grad=True).detach()[1:].requires_grad_().mul_(2)),
    "nothing_written_through_false": lambda L: (lambda v: (_mul_false(v), Version(v)))(
        L.tensor([4.0, -1e4, 3.75, -2.0], requires_grad=True)[1:]),
    "false_key_on_a_leaf": lambda L: (lambda x: (x.__setitem__(False, 3.0), Version(x))[1])(
        L.tensor([4.0, -1e4], requires_grad=True)),
    "false_key_on_a_plain_tensor": lambda L: (lambda x: (x.__setitem__(False, 3.0), Version(x))[1])(L.zeros(3)),
    "true_key_copies_with_a_cast": lambda L: [(lambda x: (x.__setitem__(True, v), Version(x))[1])(L.zeros(*shape, dtype=dt))
                                              for shape, dt, v in (((4,), L.float32, L.tensor([[1.5, 2, 3, 4]], dtype=L.float64)),
                                                                   ((4,), L.int64, L.tensor([1.5, 2, 3, 4])),
                                                                   ((3, 2), L.float32, L.tensor([1.5, 2], dtype=L.float64)),
                                                                   ((4,), L.float32, L.tensor(2.5, dtype=L.float64)))],
    "true_key_of_a_wrong_shape": lambda L: _error(lambda: L.zeros(4).__setitem__(True, L.ones(2))),
}


def _pow_into(v):
    v **= 5
    return v


def _mul_false(v):
    v[False] *= -1.5


@cases(VIEW_OF_A_LEAF)
def test_inplace_checks_on_views_of_leaves(fn):
    same(fn)


def _setitem_history(L, key, value, shape=(3, 3)):
    x = L.zeros(shape, requires_grad=True).clone()
    x[key] = value.requires_grad_()
    return _graph_names(x.grad_fn), [n and n.name() for n, _ in x.grad_fn.next_functions]


SETITEM_HISTORY = {
    # PyTorch's copy_to: a value of another shape is viewed without its leading 1s and expanded
    "same_shape": lambda L: _setitem_history(L, 0, L.ones(3)),
    "broadcast_row": lambda L: _setitem_history(L, 0, L.ones(1)),
    "zero_d": lambda L: _setitem_history(L, 0, L.tensor(2.0)),
    "broadcast_block": lambda L: _setitem_history(L, slice(0, 2), L.ones(3)),
    "leading_ones": lambda L: _setitem_history(L, slice(0, 2), L.ones(1, 1, 3)),
    "whole": lambda L: _setitem_history(L, slice(None), L.ones(3)),
    "ellipsis": lambda L: _setitem_history(L, ..., L.ones(3)),
    "none": lambda L: _setitem_history(L, None, L.ones(3)),
    "true": lambda L: _setitem_history(L, True, L.ones(3)),
    "gradient": lambda L: (lambda x, v: (x.__setitem__(slice(0, 2), v), (x * L.arange(9.0).reshape(3, 3)).sum().backward(),
                                          v.grad)[-1])(L.zeros(3, 3, requires_grad=True).clone(), L.ones(1, 3, requires_grad=True)),
}


@cases(SETITEM_HISTORY)
def test_setitem_records_pytorch_steps(fn):
    same(fn)


def _logit_grad(L, eps, dtype):
    x = L.tensor([4.0, -0.0, 0.0, 1.0, 0.5, -1.0, math.inf, -math.inf, math.nan], dtype=dtype, requires_grad=True)
    L.logit(x, eps=eps).backward(L.full((9,), -2.0, dtype=dtype))
    return x.grad


def _poisson(L, rates, dtype):
    L.manual_seed(0)
    return L.poisson(L.tensor(rates, dtype=dtype))


def _backward_of(L, f, data, upstream=None, dtype=None):
    x = L.tensor(data, dtype=dtype or L.float64, requires_grad=True)
    y = f(x)
    y.backward(upstream if upstream is None else L.tensor(upstream, dtype=x.dtype))
    return y, x.grad


ONE_OP_CORNERS = {
    "round_with_decimals_0_is_its_own_overload": lambda L: (lambda x: [
        L.round(x, decimals=0).grad_fn.name(), x.round(decimals=1).grad_fn.name(), L.round(x).grad_fn.name(),
        x.clone().round_(decimals=0).grad_fn.name(), x.clone().round_().grad_fn.name(),
        _error(lambda: L.tensor([1]).round(decimals=0)), L.tensor([1]).round()])(L.tensor([1.25, -2.5], requires_grad=True)),
    # small inputs (PyTorch's scalar loop): at 0 and 1 the gradient is grad * inf, -0. included
    "logit_gradient_at_its_ends": lambda L: [_logit_grad(L, eps, dt) for eps in (math.nan, None, 0.0, 0.25, -0.5)
                                             for dt in (L.float32, L.float64)],
    "cat_of_legacy_empty_tensors_only_takes_any_dim": lambda L: [
        L.cat((L.tensor([], dtype=L.bool),) * 2, -2), L.cat((L.tensor([]), L.tensor([])), 3),
        L.cat((L.tensor([]),), 1), L.cat((L.tensor([]), L.zeros(0, dtype=L.int64)), 2),
        _error(lambda: L.cat((L.zeros(2), L.tensor([])), 1)), _error(lambda: L.cat((L.tensor([]), L.zeros(2, 3)), 5))],
    "inner_and_tensordot_of_empty_tensors": lambda L: [
        L.inner(L.tensor([], dtype=L.int16), L.tensor([], dtype=L.int16)), L.inner(L.zeros(0), L.zeros(0)),
        L.inner(L.zeros(2, 0), L.zeros(3, 0)), L.tensordot(L.zeros(2, 0), L.zeros(3, 0), ([1], [1]))],
    "tensordot_of_every_dim_is_a_dot": lambda L: [
        _graph_names(L.tensordot(_leaf(L, *sa), L.ones(*sb), dims).grad_fn, 4)
        for sa, sb, dims in (((2,), (2,), ([0], [0])), ((0,), (0,), 1), ((2, 3), (2, 3), 2), ((2, 3), (3,), 1),
                             ((2, 3), (4, 5), 0))],
    "scatter_reduce_and_gather_of_0d_tensors": lambda L: [
        _backward_of(L, lambda x: x.scatter_reduce(0, L.tensor(0), L.tensor(3.0, dtype=L.float64), r), 2.0, 3.0)
        for r in ("prod", "sum", "mean", "amax", "amin")] + [_backward_of(L, lambda x: x.gather(0, L.tensor(0)), 2.0, 3.0)],
    "poisson_of_infinite_and_huge_rates": lambda L: [
        _poisson(L, [2.4, math.inf, 4.0, 0.0, 1e30, 3.0, 50.0, 12.0], L.float32),
        _poisson(L, [2.4, 1e30, 4.0, 0.0, 1.0, 3.0], L.float64)],
    "is_inference": lambda L: [L.ones(2).is_inference(), L.is_inference(L.ones(2))],
    "an_unknown_print_profile_is_ignored": lambda L: (L.set_printoptions(profile="unknown", precision=2),
                                                      str(L.tensor([1.23456])), L.set_printoptions(profile="default"))[1],
    # layouts
    "number_to_a_tensor_power_is_row_major": lambda L: [Layout(b ** e) for b in (1, -1, 2, 2.5) for e in (
        _arange(L, 2, 3).t(), _arange(L, 2, 3, dtype=L.int64).t() - 3)] + [Layout((-1 ** _arange(L, 2, 3).t()).squeeze()),
                                                                          Layout(L.pow(2, _arange(L, 1, 2, 3).transpose(0, 2)))],
    "mode_indices_are_row_major": lambda L: [Layout(t) for x in (
        L.tensor([[3.0, 1, 3, 2], [1, 1, 2, 2], [0, 0, 5, 5]])[:, ::2], L.tensor([[3.0, 1, 3, 2], [1, 1, 2, 2]]).t())
        for d in (0, 1) for k in (True, False) for t in x.mode(d, keepdim=k)],
    "argsort_is_laid_out_as_its_input": lambda L: [Layout(x.argsort(d)) for x in (
        _arange(L, 4, 3).t(), _arange(L, 2, 1, 3).transpose(0, 2), _arange(L, 3, 4)[:, ::2]) for d in (0, 1)],
    # gradients at NaN: PyTorch's formulas, not "the larger one wins"
    "maximum_and_minimum_at_nan_and_ties": lambda L: [
        (lambda a, b: (getattr(L, f)(a, b).backward(L.ones(5, dtype=L.float64)), a.grad, b.grad)[1:])(
            L.tensor([1.0, math.nan, 2.0, 3.0, math.nan], dtype=L.float64, requires_grad=True),
            L.tensor([2.0, 1.0, 2.0, 1.0, math.nan], dtype=L.float64, requires_grad=True))
        for f in ("maximum", "minimum")],
    "maximum_broadcast_gradient": lambda L: (lambda a, b: (L.maximum(a, b).sum().backward(), a.grad, b.grad)[1:])(
        L.tensor([[1.0], [2.0]], requires_grad=True), L.tensor([2.0, 1.0, 2.0], requires_grad=True)),
    "max_of_everything_with_nan": lambda L: [_backward_of(L, lambda x: getattr(x, f)(), data, 2.0)
                                             for f in ("max", "min", "amax", "amin")
                                             for data in ([[1.0, math.nan], [math.nan, 2.0]], [[1.0, 3.0], [3.0, 2.0]],
                                                          [[math.nan, 1.0]])],
    # a node that saved nothing it needs may run again; one that saved a number may not
    "addcmul_twice_when_nothing_was_saved": lambda L: (lambda x: (
        (lambda y: (y.backward(L.ones(4, 2)), y.backward(L.ones(4, 2))))(
            L.addcmul(x.expand(2), L.ones(4, 2), L.tensor([False, True]), value=3.0)), x.grad)[1])(
        L.tensor([1.0, 2.0], requires_grad=True)),
    "addcmul_and_addcdiv_gradients": lambda L: [(lambda a, b, c: (f(a, b, c, value=2).sum().backward(), a.grad, b.grad,
                                                                   c.grad)[1:])(*(L.full((2,), v, requires_grad=True)
                                                                                  for v in (1.0, 2.0, 3.0)))
                                                for f in (L.addcmul, L.addcdiv)],
    "cummax_of_an_empty_tensor_takes_any_dim": lambda L: [
        (lambda r: (r.values, r.indices, r.values.grad_fn.name()))(getattr(L.zeros(2, 0, requires_grad=True), f)(-3))
        for f in ("cummax", "cummin")] + [_error(lambda: L.zeros(2, 1).cummax(-3))],
    "median_of_everything_keeps_an_infinite_gradient_on_the_median": lambda L: [
        _backward_of(L, lambda x: getattr(x, f)(), data, up, L.float32) for f in ("median", "nanmedian")
        for data, up in (([0.25, -3.0, math.nan], math.inf), ([0.25, -3.0], -math.inf), ([1.0, 2.0, 1.0], math.inf))] + [
        _backward_of(L, lambda x: 0.0 ** x.median(), [0.25, -3.0], 1.0, L.float32)],
    "addcdiv_twice_needs_its_saved_tensors": lambda L: _error(lambda: (lambda y: (y.backward(), y.backward()))(
        L.addcdiv(L.ones(2), L.ones(2), L.full((2,), 2.0, requires_grad=True)).sum())),
}


@cases(ONE_OP_CORNERS)
def test_one_op_corner_cases(fn):
    same(fn)


def _again(f):
    """f() once more after a backward: 'ok', or the start of its error."""
    try:
        f()
        return "ok"
    except RuntimeError as e:
        return str(e)[:40]


def _exp_chain(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    return x, y


BACKWARD_INPUTS = {
    # backward(inputs=...): the node of a non-leaf input runs (and is freed), the nodes beyond it do
    # not; the input retains its grad from then on. autograd.grad runs neither.
    "the_root_as_input": lambda L: (lambda x, y: (lambda z: (z.backward(inputs=[z]), _again(lambda: y.sum().backward()),
                                                             _again(lambda: z.backward()), z.grad, x.grad)[1:])(
        y.amax(0)))(*_exp_chain(L)),
    "a_non_leaf_input": lambda L: (lambda x, y: (lambda z: (z.backward(inputs=[y]), y.grad,
                                                            _again(lambda: y.sum().backward()), y.grad, x.grad)[1:])(
        (y * 3).amax(0)))(*_exp_chain(L)),
    "a_leaf_input": lambda L: (lambda x, y: (lambda z: (z.backward(inputs=[x]), x.grad,
                                                        _again(lambda: y.sum().backward()))[1:])((y * 3).amax(0)))(
        *_exp_chain(L)),
    "an_input_that_already_retains_its_grad": lambda L: (lambda x, y: (y.retain_grad(), (y * 3).amax(0).backward(
        inputs=[y, x]), x.grad, y.grad)[2:])(*_exp_chain(L)),
    "a_node_beyond_the_input_keeps_its_tensors": lambda L: (lambda x, y: (lambda w: (
        (w * 3).amax(0).backward(inputs=[w]), _again(lambda: (y * 5).sum().backward()),
        _again(lambda: w.sum().backward()), x.grad)[1:])(y * 2))(*_exp_chain(L)),
    "autograd_grad_runs_no_input_node": lambda L: (lambda x, y: (L.autograd.grad(y.sum() * 2, y),
                                                                _again(lambda: y.sum().backward()), x.grad)[1:])(
        *_exp_chain(L)),
}


@cases(BACKWARD_INPUTS)
def test_backward_with_inputs_runs_what_pytorch_runs(fn):
    same(fn)


def _product_errors(L, ops, dtypes):
    """The error (type and PyTorch's words) or result dtype of each product, for each dtype pair."""
    out = []
    for a, b in dtypes:
        for f in ops:
            made = iter((a,) + (b,) * 3)
            try:
                out.append(str(f(L, lambda *shape: L.ones(shape, dtype=getattr(L, next(made)))).dtype).split(".")[-1])
            except Exception as e:  # noqa: BLE001 (compared)
                out.append((type(e).__name__, str(e).split(" (")[0]))
    return out


_PRODUCTS = [
    lambda L, m: L.mm(m(2, 3), m(3, 2)), lambda L, m: L.bmm(m(2, 2, 3), m(2, 3, 2)),
    lambda L, m: L.matmul(m(3), m(3)), lambda L, m: L.matmul(m(2, 3), m(3)), lambda L, m: L.matmul(m(3), m(3, 2)),
    lambda L, m: L.matmul(m(2, 2, 3), m(3, 2)), lambda L, m: L.matmul(m(2, 2, 3), m(2, 3, 2)),
    lambda L, m: L.mv(m(2, 3), m(3)), lambda L, m: L.dot(m(3), m(3)), lambda L, m: L.vdot(m(3), m(3)),
    lambda L, m: L.addmm(m(2, 2), m(2, 3), m(3, 2)), lambda L, m: L.addmv(m(2), m(2, 3), m(3)),
    lambda L, m: L.addr(m(2, 3), m(2), m(3)), lambda L, m: L.baddbmm(m(2, 2, 2), m(2, 2, 3), m(2, 3, 2)),
    lambda L, m: L.addbmm(m(2, 2), m(2, 2, 3), m(2, 3, 2)),
    lambda L, m: L.einsum("ij,jk->ik", m(2, 3), m(3, 2)), lambda L, m: L.einsum("i,i->", m(3), m(3)),
    lambda L, m: L.einsum("i,j->ij", m(3), m(2)), lambda L, m: L.einsum("ij,kj->", m(2, 3), m(2, 3)),
    lambda L, m: L.tensordot(m(2, 3), m(3, 2), 1), lambda L, m: L.tensordot(m(2, 3), m(2, 3), 2),
    lambda L, m: L.inner(m(2, 3), m(4, 3)), lambda L, m: L.inner(m(3), m(3)), lambda L, m: L.outer(m(3), m(2)),
    lambda L, m: L.ger(m(3), m(2)), lambda L, m: L.cross(m(2, 3), m(2, 3), dim=1),
    lambda L, m: L.linalg.matrix_power(m(2, 2), 2), lambda L, m: L.cdist(m(3, 3), m(3, 3)),
    lambda L, m: L.cdist(m(30, 3), m(30, 3)), lambda L, m: L.cdist(m(3, 3), m(3, 3), p=1), lambda L, m: L.dist(m(3), m(3)),
]

MATRIX_PRODUCT_DTYPES = {
    # PyTorch's CPU kernels have no bool matrix products (and no half cdist off its mm path): its
    # errors, in its order of checks, for one dtype and for mixed ones
    "one_dtype": lambda L: _product_errors(L, _PRODUCTS, [(d, d) for d in (
        "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")]),
    "mixed_dtypes": lambda L: _product_errors(L, _PRODUCTS, [
        ("float32", "float64"), ("int64", "float32"), ("float16", "float32"), ("int32", "int64"), ("bool", "int64"),
        ("float64", "int64")]),
    "fused_products_check_their_dtypes_in_pytorch_order": lambda L: [_error(lambda: getattr(L, f)(*(
        L.ones(s, dtype=getattr(L, d)) for s, d in zip(shapes, dts))))
        for f, shapes in (("addmm", ((2, 2), (2, 3), (3, 2))), ("addmv", ((2,), (2, 3), (3,))),
                          ("baddbmm", ((2, 2, 2), (2, 2, 3), (2, 3, 2))), ("addbmm", ((2, 2), (2, 2, 3), (2, 3, 2))))
        for dts in (("float32", "float64", "float64"), ("float64", "float32", "float64"), ("float64", "float64", "float32"),
                    ("bool", "bool", "int64"), ("int64", "bool", "int64"))],
    "empty_products_reach_no_kernel": lambda L: [
        _error(f) or f() for f in (
            lambda: L.mm(L.ones(2, 0, dtype=L.bool), L.ones(0, 3, dtype=L.bool)),
            lambda: L.mm(L.ones(2, 4, dtype=L.bool), L.ones(4, 0, dtype=L.bool)),
            lambda: L.bmm(L.ones(0, 2, 4, dtype=L.bool), L.ones(0, 4, 3, dtype=L.bool)),
            lambda: L.mv(L.ones(2, 0, dtype=L.bool), L.ones(0, dtype=L.bool)),
            lambda: L.dot(L.ones(0, dtype=L.bool), L.ones(0, dtype=L.bool)),
            lambda: L.bmm(L.ones(2, 2, 0), L.ones(2, 0, 2, dtype=L.float64)),
            lambda: L.bmm(L.ones(0, 2, 3, dtype=L.int64), L.ones(0, 3, 2)),
            lambda: L.mm(L.ones(0, 3), L.ones(3, 2, dtype=L.float64)),
            lambda: L.cdist(L.zeros(2, 0), L.zeros(3, 0, dtype=L.float64)),
            lambda: L.cdist(L.zeros(0, 0), L.zeros(0, 0, dtype=L.float16)),
            lambda: L.einsum("...i,...i->...", L.ones(0, 2, 4, dtype=L.bool), L.ones(2, 4)))],
    "sizes_are_checked_before_dtypes": lambda L: [_error(f) for f in (
        lambda: L.mm(L.ones(2, 3), L.ones(4, 2, dtype=L.float64)), lambda: L.bmm(L.ones(2, 2, 3), L.ones(2, 4, 2, dtype=L.float64)),
        lambda: L.bmm(L.ones(2, 2, 3, dtype=L.bool), L.ones(2, 4, 2, dtype=L.bool)),
        lambda: L.mv(L.ones(2, 3), L.ones(4, dtype=L.float64)), lambda: L.dot(L.ones(3), L.ones(4, dtype=L.float64)),
        lambda: L.ones(3, 6, 4, dtype=L.bool) @ L.ones(3, 6, 4, dtype=L.uint8),
        lambda: L.cross(L.tensor(True), L.tensor(1, dtype=L.int8), dim=-1),
        lambda: L.cross(L.ones(2, 2, dtype=L.bool), L.ones(2, 2, dtype=L.bool), dim=-1))],
    "argument_checks_of_tensordot_and_dist": lambda L: [_error(f) for f in (
        lambda: L.tensordot(L.tensor(1.0), L.tensor(2.0), dims=1), lambda: L.tensordot(L.ones(3), L.ones(3, 2), 2),
        lambda: L.tensordot(L.ones(3), L.ones(3, 2), -1), lambda: L.dist(L.ones(3), L.ones(3), "fro"),
        lambda: L.dist(L.ones(3, dtype=L.bool), L.ones(3)), lambda: L.dist(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool)))],
    "addbmm_keeps_an_integer_dtype": lambda L: [L.addbmm(L.ones(2, 2, dtype=d), L.ones(2, 2, 3, dtype=d),
                                                         L.ones(2, 3, 2, dtype=d)) for d in (L.uint8, L.int8, L.int32)],
    "addr_promotes": lambda L: (lambda r: (r, r.grad_fn.name()))(L.addr(L.ones(2, 3), L.ones(2, dtype=L.float64),
                                                                      L.ones(3, requires_grad=True))),
}


@cases(MATRIX_PRODUCT_DTYPES)
def test_matrix_products_refuse_what_pytorch_refuses(fn):
    same(fn)


def _einsum_case(L, eq, *shapes, dtype=None):
    g = np.random.default_rng(len(eq) * 7 + len(shapes))
    ops = [L.tensor(g.standard_normal(s), dtype=dtype or L.float64, requires_grad=dtype is None) for s in shapes]
    r = L.einsum(eq, *ops)
    if r.requires_grad:
        r.backward(L.ones_like(r))
    return Layout(r), _graph_names(r.grad_fn, 8), [o.grad for o in ops]


EINSUM = {
    # PyTorch's steps: every operand lined up on (output dims, summed dims), then contracted pairwise
    # by bmm (its operands swapped when that gives a row-major result) or multiplied
    eq: (lambda eq, shapes: lambda L: _einsum_case(L, eq, *shapes))(eq, shapes) for eq, shapes in [
        ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk->ki", [(2, 3), (3, 4)]), ("ij->", [(2, 3)]), ("ij->ji", [(2, 3)]),
        ("ii->i", [(3, 3)]), ("iji->j", [(2, 3, 2)]), ("ij,ij->i", [(2, 3), (2, 3)]), ("i,i->", [(3,), (3,)]),
        ("i,j->ij", [(3,), (2,)]), ("bij,bjk->bki", [(2, 2, 3), (2, 3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
        ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]), ("b...,b->...", [(2, 3, 4), (2,)]), ("iJ", [(2, 3)]),
        ("Ji,iK", [(2, 3), (3, 2)]), ("abi,bi->ba", [(2, 3, 1), (3, 1)]), ("ij,jk->ik", [(2, 0), (0, 3)]),
        ("as,swx->wax", [(2, 7), (7, 3, 4)]), ("as,swx->xwa", [(2, 7), (7, 3, 4)]), ("abc,bc->a", [(2, 3, 4), (3, 4)])]}
EINSUM["integer_ellipsis_contraction"] = lambda L: _einsum_case(L, "...i,...i->...", (2, 1, 4, 1), (1, 4, 1), dtype=L.int64)
EINSUM["sublist_numbers_are_upper_case_first"] = lambda L: [L.einsum(L.ones(2, 3), [27, 0]).shape,
                                                             _error(lambda: L.einsum(L.ones(2, 3), [0, 60]))]
EINSUM["broadcast_and_repeat_errors"] = lambda L: [_error(lambda: L.einsum("ii->i", L.ones(2, 3))),
                                                   _error(lambda: L.einsum("ij,ij->", L.ones(2, 3), L.ones(2, 4))),
                                                   _error(lambda: L.einsum("...ij,...ij->", L.ones(2, 2, 3), L.ones(3, 2, 3)))]


@cases(EINSUM)
def test_einsum_takes_pytorch_steps(fn):
    same(fn)


def _pow_values(L, dtype, e, inplace=False):
    x = L.tensor([-math.inf, -0.0, -4.0, 0.0, math.inf, 4.0, 0.5, 3.0], dtype=dtype)
    return x.pow_(e) if inplace else x ** e


POW_BY_A_NUMBER = {
    # PyTorch's CPU kernel: in float and double 0.5, -0.5 and -1 are sqrt, rsqrt and reciprocal (the
    # sign of -0. and NaN at -inf), in half C's pow of the rounded exponent
    f"{dt}_{e}{'_' if inplace else ''}": (lambda dt, e, inplace: lambda L: _pow_values(L, getattr(L, dt), e, inplace))(
        dt, e, inplace)
    for dt in ("float16", "float32", "float64") for e in (0.5, -0.5, -1, 2, 3, -2, 1.5, 0.25, -1.5)
    for inplace in (False, True)}
POW_BY_A_NUMBER["number_base_is_row_major_integers"] = lambda L: [Layout(2 ** (_arange(L, 2, 3, dtype=L.int64).t() - 3))]
POW_BY_A_NUMBER["half_prod_of_an_empty_dim"] = lambda L: (lambda x: (Layout(L.prod(x, -1)), x.prod(1), _graph_names(
    L.prod(x.requires_grad_(), -1).grad_fn)))(L.ones(1, 0, 4, 3, dtype=L.float16).transpose(-1, -2))


@cases(POW_BY_A_NUMBER)
def test_pow_by_a_number_as_pytorch_computes_it(fn):
    same(fn)


def _expanded_write(L, f):
    x = L.zeros(3).expand(2, 3)
    try:
        f(L, x)
    except RuntimeError as e:
        return "RuntimeError", str(e).split(" (")[0]
    return x, Version(x)


EXPANDED_WRITES = {
    # PyTorch still writes index_put_ and index_fill_ (and setitem, masked_fill_) through an expanded
    # tensor's shared memory, warning that it is deprecated; the other indexed writes refuse it
    "index_put_": lambda L: _expanded_write(L, lambda L, x: x.index_put_((L.tensor([0]),), L.tensor(6.0))),
    "index_put_accumulate": lambda L: _expanded_write(L, lambda L, x: x.index_put_((L.tensor([0, 0]),), L.tensor(6.0),
                                                                                  accumulate=True)),
    "index_put_one_column": lambda L: (lambda x: (x.index_put_((L.tensor([3]),), L.tensor(6), accumulate=True),
                                                  Version(x)))(L.tensor([[-4]]).expand(4, 1)),
    "index_put_warns_before_its_checks": lambda L: _error(lambda: L.tensor([5], dtype=L.int8).expand((4,)).index_put_(
        (L.tensor([0], dtype=L.int32),), L.tensor(3, dtype=L.int64), accumulate=True)),
    "setitem": lambda L: _expanded_write(L, lambda L, x: x.__setitem__(L.tensor([0]), 7.0)),
    "index_fill_": lambda L: _expanded_write(L, lambda L, x: x.index_fill_(1, L.tensor([0]), 5.0)),
    "index_fill_tensor": lambda L: _expanded_write(L, lambda L, x: x.index_fill_(1, L.tensor([0]), L.tensor(5.0))),
    "masked_fill_": lambda L: _expanded_write(L, lambda L, x: x.masked_fill_(L.tensor([True, False, False]), 5.0)),
    "scatter_": lambda L: _expanded_write(L, lambda L, x: x.scatter_(1, L.tensor([[0], [1]]), 5.0)),
    "index_add_": lambda L: _expanded_write(L, lambda L, x: x.index_add_(1, L.tensor([0]), L.ones(2, 1))),
    "index_copy_": lambda L: _expanded_write(L, lambda L, x: x.index_copy_(1, L.tensor([0]), L.ones(2, 1))),
    "put_": lambda L: _expanded_write(L, lambda L, x: x.put_(L.tensor([0]), L.ones(1))),
    "copy_": lambda L: _expanded_write(L, lambda L, x: x.copy_(L.ones(2, 3))),
}


@cases(EXPANDED_WRITES)
def test_indexed_writes_into_expanded_tensors(fn):
    same(fn)


def _normals(L, dtype, n, mean, std):
    L.manual_seed(2)
    return L.zeros(n, dtype=dtype).normal_(mean, std)


@pytest.mark.parametrize("mean,std", [(math.inf, 3.0), (0.0, math.inf), (-math.inf, 0.0), (math.inf, math.inf),
                                      (2.5, 1e308), (math.nan, 1.0)])
def test_normal_with_infinite_or_huge_parameters(mean, std):
    """Its fused multiply-add gives inf (or the huge finite value) there, never a NaN of its own."""
    same(lambda L: [_normals(L, getattr(L, dt), n, mean, std) for dt in ("float64", "float32") for n in (3, 20)])
