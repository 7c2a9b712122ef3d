"""Differential tests: the same program run on PyTorch and on minitorch must agree.

Each case is a function of the library (`torch` or `minitorch`) that builds its inputs from
NumPy arrays and returns a result. Both results are compared for type, shape, dtype and
values; when PyTorch raises, minitorch must raise too (and the other way round).
Skipped, visibly, when PyTorch is not installed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(1234)
F = RNG.standard_normal((3, 4)).astype(np.float32)     # a 3x4 float matrix
G = RNG.standard_normal((4, 5)).astype(np.float32)
V = RNG.standard_normal(4).astype(np.float32)          # a vector that broadcasts against F
C = RNG.standard_normal((3, 1)).astype(np.float32)     # a column
B3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
B3b = RNG.standard_normal((2, 4, 5)).astype(np.float32)
P = (RNG.random((3, 4)) + 0.5).astype(np.float32)      # positive
I = RNG.integers(-5, 6, (3, 4)).astype(np.int64)       # small ints
IP = RNG.integers(1, 6, (3, 4)).astype(np.int64)       # positive ints
M = F > 0                                              # a bool mask like F
W = np.array([[1.0, 2.0, 2.0], [3.0, 0.0, 3.0]], np.float32)  # ties for max/min


def _t(lib, arr, **kw):
    return lib.tensor(arr, **kw)


def _dtype_name(dt):
    return str(dt).split(".")[-1]


def _normalize(x):
    """A comparable description of a result: nested tuples of (kind, ...)."""
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        arr = x.detach().numpy() if x.requires_grad else x.numpy()
        return ("tensor", tuple(x.shape), _dtype_name(x.dtype), np.array(arr, copy=True), x.requires_grad)
    if isinstance(x, (torch.Size, minitorch.Size)):
        return ("size", tuple(x))
    if isinstance(x, (tuple, list)):
        return ("seq", tuple(_normalize(v) for v in x))
    if isinstance(x, (torch.dtype, minitorch.dtype)):
        return ("dtype", _dtype_name(x))
    if isinstance(x, bool):
        return ("bool", x)
    if isinstance(x, str):
        return ("str", x)
    if isinstance(x, (int, float)):
        return ("number", type(x).__name__, x)
    raise TypeError(f"can't compare result of type {type(x)}")


def _assert_same(expected, got, path="result"):
    assert expected[0] == got[0], f"{path}: torch gave a {expected[0]}, minitorch a {got[0]}"
    kind = expected[0]
    if kind == "tensor":
        _, shape, dt, arr, rg = expected
        _, gshape, gdt, garr, grg = got
        assert gshape == shape, f"{path}: shape {gshape} != torch's {shape}"
        assert gdt == dt, f"{path}: dtype {gdt} != torch's {dt}"
        assert grg == rg, f"{path}: requires_grad {grg} != torch's {rg}"
        if arr.dtype.kind == "f":
            tol = {2: 1e-2, 4: 1e-5, 8: 1e-12}[arr.dtype.itemsize]
            np.testing.assert_allclose(garr.astype(np.float64), arr.astype(np.float64), rtol=tol, atol=tol,
                                       equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(garr, arr, err_msg=path)
    elif kind == "seq":
        assert len(expected[1]) == len(got[1]), f"{path}: {len(got[1])} items, torch has {len(expected[1])}"
        for i, (e, g) in enumerate(zip(expected[1], got[1])):
            _assert_same(e, g, f"{path}[{i}]")
    elif kind == "number":
        assert got[1] == expected[1], f"{path}: a {got[1]}, torch gives a {expected[1]}"
        if isinstance(expected[2], float) and math.isnan(expected[2]):
            assert math.isnan(got[2])
        else:
            assert got[2] == pytest.approx(expected[2], rel=1e-5, abs=1e-6), path
    else:
        assert got == expected, path


def check(fn):
    """Run `fn(torch)` and `fn(minitorch)`; both must raise, or both agree on the result."""
    try:
        expected = fn(torch)
    except Exception as e:  # PyTorch refuses: so must we
        with pytest.raises(Exception) as info:
            fn(minitorch)
        # NotImplementedError is a RuntimeError; PyTorch's TypeErrors/IndexErrors keep their kind
        for kind in (IndexError, TypeError, ValueError, RuntimeError):
            if isinstance(e, kind):
                assert isinstance(info.value, kind), (
                    f"torch raised {type(e).__name__}: {e}; minitorch raised {type(info.value).__name__}: "
                    f"{info.value}")
                break
        return
    got = fn(minitorch)
    _assert_same(_normalize(expected), _normalize(got))


def cases(table):
    return pytest.mark.parametrize("fn", list(table.values()), ids=list(table.keys()))


# ---- dtype promotion ------------------------------------------------------------------

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_promote_types(a, b):
    check(lambda lib: lib.promote_types(getattr(lib, a), getattr(lib, b)))


def _operand(lib, dt, ndim):
    return lib.ones((2,) * ndim, dtype=getattr(lib, dt))


@pytest.mark.parametrize("op", ["+", "*", "/", "<", "==", "-", "&", "//"])
@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
@pytest.mark.parametrize("ndims", [(1, 1), (1, 0), (0, 1), (0, 0)], ids=["1d-1d", "1d-0d", "0d-1d", "0d-0d"])
def test_binary_tensor_tensor_dtypes(op, a, b, ndims):
    check(lambda lib: eval(f"x {op} y", {"x": _operand(lib, a, ndims[0]), "y": _operand(lib, b, ndims[1])}))


@pytest.mark.parametrize("op", ["+", "*", "/", "-", "<", "**", "//", "%"])
@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("scalar", [True, 3, 2.5, 1000, -2], ids=["True", "3", "2.5", "1000", "-2"])
@pytest.mark.parametrize("reflected", [False, True], ids=["t-op-s", "s-op-t"])
def test_binary_tensor_scalar_dtypes(op, a, scalar, reflected):
    expr = "s {op} x" if reflected else "x {op} s"
    check(lambda lib: eval(expr.format(op=op), {"x": _operand(lib, a, 1) * 3, "s": scalar}))


# ---- factories --------------------------------------------------------------------------

FACTORIES = {
    "tensor-ints": lambda lib: lib.tensor([[1, 2], [3, 4]]),
    "tensor-floats": lambda lib: lib.tensor([1.5, -2.0]),
    "tensor-mixed": lambda lib: lib.tensor([1, 2.5, True]),
    "tensor-bools": lambda lib: lib.tensor([True, False]),
    "tensor-scalar": lambda lib: lib.tensor(3.0),
    "tensor-int-scalar": lambda lib: lib.tensor(7),
    "tensor-empty": lambda lib: lib.tensor([]),
    "tensor-empty-2d": lambda lib: lib.tensor([[], []]),
    "tensor-dtype": lambda lib: lib.tensor([1, 2], dtype=lib.float64),
    "tensor-float-to-int": lambda lib: lib.tensor([1.7, -1.7], dtype=lib.int32),
    "tensor-requires-grad": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    "tensor-int-requires-grad": lambda lib: lib.tensor([1, 2], requires_grad=True),
    "tensor-ragged": lambda lib: lib.tensor([[1, 2], [3]]),
    "tensor-string": lambda lib: lib.tensor("abc"),
    "tensor-list-of-0d": lambda lib: lib.tensor([lib.tensor(1.0), lib.tensor(2.0)]),
    "tensor-list-of-0d-float64": lambda lib: lib.tensor([lib.tensor(1.0, dtype=lib.float64), 2]),
    "tensor-list-of-1d": lambda lib: lib.tensor([lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])]),
    "tensor-numpy-scalars": lambda lib: (lib.tensor([np.float64(1.5), 2]), lib.tensor([np.float32(1), 2.5]),
                                         lib.tensor([[np.int16(1)], [np.int8(2)]]), lib.tensor([True, np.int32(2)])),
    "tensor-int-overflow": lambda lib: lib.tensor([2 ** 63]),
    "tensor-huge-int": lambda lib: lib.tensor([2 ** 70]),
    "tensor-range": lambda lib: lib.tensor(range(4)),
    "tensor-from-f64-array": lambda lib: lib.tensor(np.arange(3.0)),
    "tensor-from-i32-array": lambda lib: lib.tensor(np.arange(3, dtype=np.int32)),
    "as_tensor-list": lambda lib: lib.as_tensor([1, 2, 3]),
    "as_tensor-dtype": lambda lib: lib.as_tensor(np.arange(3), dtype=lib.float32),
    "zeros": lambda lib: lib.zeros(2, 3),
    "zeros-tuple": lambda lib: lib.zeros((2, 3), dtype=lib.int32),
    "zeros-0d": lambda lib: lib.zeros(()),
    "zeros-negative": lambda lib: lib.zeros(2, -1),
    "ones": lambda lib: lib.ones(4, dtype=lib.bool),
    "ones-list": lambda lib: lib.ones([2, 2]),
    "full-float": lambda lib: lib.full((2, 2), 1.5),
    "full-int": lambda lib: lib.full((2,), 7),
    "full-bool": lambda lib: lib.full((2,), True),
    "full-dtype": lambda lib: lib.full((2,), 7, dtype=lib.float64),
    "empty-shape": lambda lib: lib.empty(3, 2).shape,
    "empty-dtype": lambda lib: lib.empty(3, dtype=lib.int16).dtype,
    "arange-int": lambda lib: lib.arange(5),
    "arange-start-end": lambda lib: lib.arange(2, 9, 3),
    "arange-float": lambda lib: lib.arange(0, 1, 0.1),
    "arange-float-end": lambda lib: lib.arange(5.0),
    "arange-negative-step": lambda lib: lib.arange(5, 0, -2),
    "arange-dtype": lambda lib: lib.arange(4, dtype=lib.float64),
    "arange-empty": lambda lib: lib.arange(3, 3),
    "arange-zero-step": lambda lib: lib.arange(0, 3, 0),
    "arange-wrong-sign": lambda lib: lib.arange(0, 3, -1),
    "arange-fractional": lambda lib: lib.arange(-1.5, 1.5, 0.7),
    "linspace": lambda lib: lib.linspace(0, 1, 5),
    "linspace-one": lambda lib: lib.linspace(2, 3, 1),
    "linspace-zero": lambda lib: lib.linspace(2, 3, 0),
    "linspace-dtype": lambda lib: lib.linspace(-1, 1, 4, dtype=lib.float64),
    "linspace-int": lambda lib: lib.linspace(0, 10, 5, dtype=lib.int64),
    "eye": lambda lib: lib.eye(3),
    "eye-rect": lambda lib: lib.eye(2, 4),
    "eye-int": lambda lib: lib.eye(2, dtype=lib.int64),
    "zeros_like": lambda lib: lib.zeros_like(lib.tensor([[1, 2]])),
    "ones_like-dtype": lambda lib: lib.ones_like(lib.tensor([1, 2]), dtype=lib.float32),
    "full_like": lambda lib: lib.full_like(lib.tensor([1.0, 2.0]), 3),
    "full_like-int-float": lambda lib: lib.full_like(lib.tensor([1, 2]), 2.7),
    "empty_like-shape": lambda lib: lib.empty_like(lib.tensor([[1.0], [2.0]])).shape,
    "rand-shape": lambda lib: (lib.rand(2, 3).shape, lib.rand(2, 3).dtype),
    "randn-dtype": lambda lib: lib.randn(2, dtype=lib.float64).dtype,
    "rand-int-dtype": lambda lib: lib.rand(2, dtype=lib.int64),
    "randint-shape": lambda lib: (lib.randint(0, 5, (3,)).shape, lib.randint(0, 5, (3,)).dtype),
    "randint-high-only": lambda lib: lib.randint(5, (2, 2)).dtype,
    "randint-empty-range": lambda lib: lib.randint(3, 3, (2,)),
    "rand_like": lambda lib: lib.rand_like(lib.ones(2, 2, dtype=lib.float64)).dtype,
    "randn_like-int": lambda lib: lib.randn_like(lib.ones(2, dtype=lib.int64)),
    "randint_like": lambda lib: lib.randint_like(lib.ones(3, dtype=lib.float32), 10).dtype,
    "Tensor-legacy": lambda lib: lib.Tensor([1, 2]),
    "Tensor-sizes": lambda lib: lib.Tensor(2, 3).shape,
    "set-default-float64": lambda lib: _with_default(lib, lib.float64, lambda: (
        lib.tensor([1.5]).dtype, lib.arange(2.0).dtype, (lib.tensor([1, 2]) * 2.5).dtype, lib.zeros(1).dtype)),
    "set-default-int": lambda lib: lib.set_default_dtype(lib.int64),
}


def _with_default(lib, dt, fn):
    old = lib.get_default_dtype()
    lib.set_default_dtype(dt)
    try:
        return fn()
    finally:
        lib.set_default_dtype(old)


@cases(FACTORIES)
def test_factories(fn):
    check(fn)


# ---- attributes ------------------------------------------------------------------------

ATTRIBUTES = {
    "shape": lambda lib: _t(lib, F).shape,
    "size": lambda lib: _t(lib, F).size(),
    "size-dim": lambda lib: _t(lib, F).size(-1),
    "size-bad-dim": lambda lib: _t(lib, F).size(2),
    "ndim": lambda lib: (_t(lib, B3).ndim, _t(lib, B3).dim(), _t(lib, F)[0, 0].dim()),
    "numel": lambda lib: (_t(lib, B3).numel(), lib.zeros(2, 0).numel()),
    "stride": lambda lib: (_t(lib, B3).stride(), _t(lib, B3).stride(1), _t(lib, B3).transpose(0, 2).stride()),
    "stride-slice": lambda lib: _t(lib, B3)[:, ::2, 1:].stride(),
    "stride-expand": lambda lib: _t(lib, C).expand(3, 5).stride(),
    "is_contiguous": lambda lib: [x.is_contiguous() for x in (
        _t(lib, F), _t(lib, F).t(), _t(lib, F)[:, :2], _t(lib, F)[:1], _t(lib, C).expand(3, 4),
        _t(lib, F)[::2], _t(lib, B3)[:, :1], _t(lib, C).t(), lib.zeros(0, 3).t(), _t(lib, F)[1])],
    "element_size": lambda lib: [lib.ones(1, dtype=getattr(lib, d)).element_size() for d in DTYPES],
    "itemsize-nbytes": lambda lib: (_t(lib, F).itemsize, _t(lib, F).nbytes),
    "item-float": lambda lib: _t(lib, F)[1, 2].item(),
    "item-int": lambda lib: _t(lib, I)[0, 0].item(),
    "item-bool": lambda lib: _t(lib, M)[0, 0].item(),
    "item-one-element": lambda lib: _t(lib, F)[:1, :1].item(),
    "item-many": lambda lib: _t(lib, F).item(),
    "tolist": lambda lib: _t(lib, I).tolist(),
    "tolist-0d": lambda lib: _t(lib, I)[0, 0].tolist(),
    "T-2d": lambda lib: _t(lib, F).T,
    "T-1d": lambda lib: _t(lib, V).T,
    "mT": lambda lib: _t(lib, B3).mT,
    "len": lambda lib: len(_t(lib, B3)),
    "len-0d": lambda lib: len(lib.tensor(1.0)),
    "iter": lambda lib: list(_t(lib, F)),
    "iter-0d": lambda lib: list(lib.tensor(1.0)),
    "contains": lambda lib: (2 in _t(lib, I), 100 in _t(lib, I), _t(lib, I)[1] in _t(lib, I), 0.5 in _t(lib, F)),
    "contains-str": lambda lib: "a" in _t(lib, F),
    "bool-one": lambda lib: bool(lib.tensor([0.0])),
    "bool-many": lambda lib: bool(_t(lib, F)),
    "int-float-conversions": lambda lib: (int(lib.tensor(2.7)), float(lib.tensor(3)), lib.tensor(5).__index__()),
    "index-float": lambda lib: [1, 2, 3][lib.tensor(1.0)],
    "is_floating_point": lambda lib: [lib.ones(1, dtype=getattr(lib, d)).is_floating_point() for d in DTYPES],
    "is_leaf": lambda lib: (lib.ones(1).is_leaf, lib.ones(1, requires_grad=True).is_leaf,
                            (lib.ones(1, requires_grad=True) * 2).is_leaf),
    "type": lambda lib: [lib.ones(1, dtype=getattr(lib, d)).type() for d in DTYPES],
    "requires_grad_": lambda lib: lib.ones(2).requires_grad_(),
    "requires_grad_-int": lambda lib: lib.ones(2, dtype=lib.int64).requires_grad_(),
    "storage_offset": lambda lib: (_t(lib, B3)[1, 1:].storage_offset(), _t(lib, F)[:, 2].storage_offset()),
}


@cases(ATTRIBUTES)
def test_attributes(fn):
    check(fn)


# ---- conversion ------------------------------------------------------------------------

CONVERSIONS = {
    "float": lambda lib: _t(lib, I).float(),
    "double": lambda lib: _t(lib, I).double(),
    "half": lambda lib: _t(lib, F).half(),
    "int": lambda lib: _t(lib, F * 3).int(),
    "long": lambda lib: _t(lib, F * 3).long(),
    "short": lambda lib: _t(lib, I).short(),
    "char": lambda lib: _t(lib, I).char(),
    "byte": lambda lib: _t(lib, IP).byte(),
    "bool": lambda lib: _t(lib, I).bool(),
    "to-dtype": lambda lib: _t(lib, I).to(lib.float64),
    "to-dtype-kw": lambda lib: _t(lib, I).to(dtype=lib.int16),
    "to-tensor": lambda lib: _t(lib, I).to(_t(lib, F)),
    "to-cpu": lambda lib: _t(lib, F).to("cpu"),
    "to-same-is-self": lambda lib: (lambda x: x.to(lib.float32) is x)(_t(lib, F)),
    "to-copy-is-new": lambda lib: (lambda x: x.to(lib.float32, copy=True) is x)(_t(lib, F)),
    "type_as": lambda lib: _t(lib, F).type_as(_t(lib, I)),
    "to-grad": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).double(),
    "bool-to-float": lambda lib: _t(lib, M).float(),
    "float-nan-to-bool": lambda lib: lib.tensor([0.0, float("nan"), -0.0, 0.1]).bool(),
}


@cases(CONVERSIONS)
def test_conversions(fn):
    check(fn)


# ---- pointwise ------------------------------------------------------------------------

POINTWISE = {
    "add-broadcast": lambda lib: _t(lib, F) + _t(lib, V),
    "add-column": lambda lib: _t(lib, F) + _t(lib, C),
    "add-outer": lambda lib: _t(lib, C) + _t(lib, V),
    "add-alpha": lambda lib: lib.add(_t(lib, F), _t(lib, V), alpha=2),
    "sub-alpha": lambda lib: lib.sub(_t(lib, F), _t(lib, V), alpha=0.5),
    "sub-bool-tensors": lambda lib: _t(lib, M) - _t(lib, M),
    "mul-broadcast": lambda lib: _t(lib, B3) * _t(lib, V),
    "div-int": lambda lib: _t(lib, I) / _t(lib, IP),
    "div-floor": lambda lib: lib.div(_t(lib, I), 3, rounding_mode="floor"),
    "div-trunc": lambda lib: lib.div(_t(lib, I), 3, rounding_mode="trunc"),
    "div-trunc-float": lambda lib: lib.div(_t(lib, F), 0.3, rounding_mode="trunc"),
    "div-bad-mode": lambda lib: lib.div(_t(lib, F), 2, rounding_mode="round"),
    "floordiv-neg": lambda lib: _t(lib, I) // -2,
    "floordiv-int-zero": lambda lib: _t(lib, I) // 0,
    "mod-int-zero-tensor": lambda lib: _t(lib, I) % _t(lib, I),
    "floordiv-float-zero": lambda lib: _t(lib, F) // 0,
    "mod-float-zero": lambda lib: _t(lib, F) % 0.0,
    "div-zero": lambda lib: _t(lib, I) / 0,
    "div-trunc-int-zero": lambda lib: lib.div(_t(lib, I), 0, rounding_mode="trunc"),
    "pow-overflow": lambda lib: _t(lib, F * 1e20) ** 3,
    "pow-zero-negative": lambda lib: lib.zeros(2) ** -1,
    "floordiv-bool": lambda lib: _t(lib, M) // True,
    "floordiv-float": lambda lib: _t(lib, F) // 0.3,
    "mod-neg": lambda lib: _t(lib, I) % -3,
    "mod-float": lambda lib: _t(lib, F) % 0.7,
    "fmod": lambda lib: (lib.fmod(_t(lib, I), 3), _t(lib, F).fmod(-0.7), _t(lib, I).fmod(_t(lib, IP))),
    "remainder": lambda lib: (lib.remainder(_t(lib, I), 3), _t(lib, F).remainder(-0.7)),
    "pow-scalar": lambda lib: _t(lib, F) ** 2,
    "pow-tensor": lambda lib: _t(lib, P) ** _t(lib, F),
    "rpow": lambda lib: 2 ** _t(lib, F),
    "pow-int-neg": lambda lib: _t(lib, IP) ** -1,
    "pow-int-tensor": lambda lib: _t(lib, IP) ** _t(lib, IP),
    "pow-fraction-of-negative": lambda lib: _t(lib, F) ** 0.5,
    "neg": lambda lib: -_t(lib, I),
    "neg-bool": lambda lib: -_t(lib, M),
    "pos": lambda lib: +_t(lib, F),
    "abs-int": lambda lib: abs(_t(lib, I)),
    "invert-bool": lambda lib: ~_t(lib, M),
    "invert-int": lambda lib: ~_t(lib, I),
    "invert-float": lambda lib: ~_t(lib, F),
    "and-or-xor-bool": lambda lib: (_t(lib, M) & ~_t(lib, M), _t(lib, M) | True, _t(lib, M) ^ _t(lib, M)),
    "and-or-xor-int": lambda lib: (_t(lib, I) & 6, 3 | _t(lib, I), _t(lib, I) ^ _t(lib, IP)),
    "and-float": lambda lib: _t(lib, F) & _t(lib, F),
    "eq": lambda lib: _t(lib, I) == _t(lib, IP),
    "ne-scalar": lambda lib: _t(lib, I) != 2,
    "lt-broadcast": lambda lib: _t(lib, F) < _t(lib, V),
    "le-ge-gt": lambda lib: (_t(lib, F) <= 0.1, _t(lib, F) >= _t(lib, C), _t(lib, I) > 2.5),
    "eq-none": lambda lib: _t(lib, F) == None,  # noqa: E711
    "logical": lambda lib: (lib.logical_and(_t(lib, I), _t(lib, F)), lib.logical_or(_t(lib, M), _t(lib, I)),
                            lib.logical_xor(_t(lib, I), _t(lib, IP)), lib.logical_not(_t(lib, I))),
    "exp-log": lambda lib: (_t(lib, F).exp(), _t(lib, P).log(), _t(lib, F).log()),
    "exp-int": lambda lib: _t(lib, I).exp(),
    "log-zero": lambda lib: lib.log(lib.tensor([0.0, -1.0, 1.0])),
    "sqrt": lambda lib: (_t(lib, P).sqrt(), _t(lib, F).sqrt(), lib.sqrt(_t(lib, IP))),
    "rsqrt": lambda lib: _t(lib, P).rsqrt(),
    "trig": lambda lib: (_t(lib, F).sin(), _t(lib, F).cos(), _t(lib, I).sin()),
    "tanh-sigmoid": lambda lib: (_t(lib, F * 30).tanh(), _t(lib, F * 30).sigmoid(), lib.sigmoid(_t(lib, I))),
    "sigmoid-extreme": lambda lib: lib.tensor([-1000.0, -50.0, 0.0, 50.0, 1000.0]).sigmoid(),
    "relu": lambda lib: (_t(lib, F).relu(), lib.relu(_t(lib, I))),
    "abs": lambda lib: _t(lib, F).abs(),
    "sign": lambda lib: (_t(lib, F).sign(), _t(lib, I).sign()),
    "round-floor-ceil-trunc": lambda lib: tuple(getattr(_t(lib, F * 3), f)()
                                                for f in ("round", "floor", "ceil", "trunc")),
    "round-half-even": lambda lib: lib.tensor([0.5, 1.5, 2.5, -0.5]).round(),
    "round-int": lambda lib: _t(lib, I).round(),
    "square-reciprocal": lambda lib: (_t(lib, F).square(), _t(lib, P).reciprocal(), _t(lib, I).square()),
    "reciprocal-int": lambda lib: _t(lib, IP).reciprocal(),
    "log1p-expm1": lambda lib: (_t(lib, P).log1p(), _t(lib, F).expm1()),
    "clamp": lambda lib: (_t(lib, F).clamp(-0.5, 0.5), _t(lib, F).clamp(min=0), _t(lib, F).clamp(max=0.1)),
    "clamp-int-float-bounds": lambda lib: _t(lib, I).clamp(-1.5, 2.5),
    "clamp-int-int-bounds": lambda lib: _t(lib, I).clamp(-1, 2),
    "clamp-tensor-bounds": lambda lib: _t(lib, F).clamp(_t(lib, C), _t(lib, V).abs() + 1),
    "clamp-none": lambda lib: _t(lib, F).clamp(),
    "clip": lambda lib: lib.clip(_t(lib, F), -0.1, 0.1),
    "isnan-isinf-isfinite": lambda lib: tuple(f(lib.tensor([1.0, float("nan"), float("inf"), -float("inf")]))
                                              for f in (lib.isnan, lib.isinf, lib.isfinite)),
    "where": lambda lib: lib.where(_t(lib, M), _t(lib, F), _t(lib, V)),
    "where-scalars": lambda lib: lib.where(_t(lib, M), 1.0, 0.0),
    "where-int-scalars": lambda lib: lib.where(_t(lib, M), 1, 0),
    "where-mixed": lambda lib: lib.where(_t(lib, M), _t(lib, I), 0.5),
    "where-int-float": lambda lib: lib.where(_t(lib, M), _t(lib, I), _t(lib, F)),
    "where-cond-int": lambda lib: lib.where(_t(lib, I), _t(lib, F), _t(lib, F)),
    "where-1arg": lambda lib: lib.where(_t(lib, M)),
    "where-broadcast-error": lambda lib: lib.where(_t(lib, M), _t(lib, G), 0.0),
    "maximum-minimum": lambda lib: (lib.maximum(_t(lib, F), _t(lib, V)), lib.minimum(_t(lib, C), _t(lib, F))),
    "maximum-int-float": lambda lib: lib.maximum(_t(lib, I), _t(lib, F)),
    "maximum-nan": lambda lib: lib.maximum(lib.tensor([1.0, float("nan")]), lib.tensor([float("nan"), 0.0])),
    "max-binary": lambda lib: lib.max(_t(lib, F), _t(lib, V)),
    "add-0d-float64-vector-float32": lambda lib: lib.tensor(1.5, dtype=lib.float64) + _t(lib, V),
    "add-0d-float-int-vector": lambda lib: lib.tensor(1.5) + _t(lib, I),
    "add-0d-int-uint8": lambda lib: lib.tensor(300) + _t(lib, IP).byte(),
    "add-f16-f32": lambda lib: _t(lib, F).half() + _t(lib, F),
    "add-bool-bool": lambda lib: _t(lib, M) + _t(lib, M),
    "mul-bool-bool": lambda lib: _t(lib, M) * _t(lib, M),
    "add-int8-1000": lambda lib: _t(lib, I).char() + 1000,
    "add-uint8-minus-1": lambda lib: _t(lib, IP).byte() + -1,
    "add-int-2.5": lambda lib: _t(lib, I) + 2.5,
    "add-ndarray": lambda lib: _t(lib, F) + np.ones(4, np.float32),
    "add-list": lambda lib: _t(lib, F) + [1.0, 2.0, 3.0, 4.0],
    "eq-ndarray": lambda lib: (_t(lib, I) == I[0], _t(lib, I) != np.int64(2), _t(lib, M) == np.bool_(True)),
    "mul-numpy-scalars": lambda lib: (_t(lib, I) * np.float64(2.5), _t(lib, F) * np.float64(2), _t(lib, I) + np.int32(1)),
    "add-broadcast-error": lambda lib: _t(lib, F) + _t(lib, G),
    "add-broadcast-error-3d": lambda lib: _t(lib, B3) + _t(lib, B3b),
    "isclose-allclose": lambda lib: (lib.isclose(_t(lib, F), _t(lib, F) + 1e-7),
                                     lib.allclose(_t(lib, F), _t(lib, F) + 1)),
    "equal": lambda lib: (lib.equal(_t(lib, F), _t(lib, F)), lib.equal(_t(lib, F), _t(lib, F)[:2])),
    "broadcast_shapes": lambda lib: lib.broadcast_shapes((3, 1), (1, 4), (4,)),
    "broadcast_shapes-error": lambda lib: lib.broadcast_shapes((3, 2), (4,)),
    "outer": lambda lib: lib.outer(_t(lib, V), _t(lib, V)),
}


@cases(POINTWISE)
def test_pointwise(fn):
    check(fn)


# ---- matmul ---------------------------------------------------------------------------

MATMUL = {
    "2d-2d": lambda lib: _t(lib, F) @ _t(lib, G),
    "1d-1d": lambda lib: _t(lib, V) @ _t(lib, V),
    "2d-1d": lambda lib: _t(lib, F) @ _t(lib, V),
    "1d-2d": lambda lib: _t(lib, V) @ _t(lib, G),
    "3d-3d": lambda lib: _t(lib, B3) @ _t(lib, B3b),
    "3d-2d": lambda lib: _t(lib, B3) @ _t(lib, G),
    "2d-3d": lambda lib: _t(lib, F).t() @ _t(lib, B3),
    "3d-1d": lambda lib: _t(lib, B3) @ _t(lib, V),
    "1d-3d": lambda lib: _t(lib, V[:3]) @ _t(lib, B3),
    "broadcast-batch": lambda lib: _t(lib, B3[:1]) @ _t(lib, B3b),
    "int": lambda lib: _t(lib, I) @ _t(lib, IP).t(),
    "mismatch": lambda lib: _t(lib, F) @ _t(lib, F),
    "mismatch-1d": lambda lib: _t(lib, V) @ _t(lib, V[:3]),
    "mismatch-dtype": lambda lib: _t(lib, F) @ _t(lib, G).double(),
    "0d": lambda lib: lib.tensor(2.0) @ _t(lib, V),
    "batch-mismatch": lambda lib: _t(lib, B3) @ _t(lib, np.ones((3, 4, 2), np.float32)),
    "mm": lambda lib: lib.mm(_t(lib, F), _t(lib, G)),
    "mm-1d": lambda lib: lib.mm(_t(lib, F), _t(lib, V)),
    "bmm": lambda lib: lib.bmm(_t(lib, B3), _t(lib, B3b)),
    "bmm-2d": lambda lib: lib.bmm(_t(lib, F), _t(lib, G)),
    "dot": lambda lib: lib.dot(_t(lib, V), _t(lib, V)),
    "dot-2d": lambda lib: lib.dot(_t(lib, F), _t(lib, F)),
    "mv": lambda lib: lib.mv(_t(lib, F), _t(lib, V)),
    "method-matmul": lambda lib: _t(lib, F).matmul(_t(lib, G)),
    "empty-inner": lambda lib: lib.zeros(2, 0) @ lib.zeros(0, 3),
}


@cases(MATMUL)
def test_matmul(fn):
    check(fn)


# ---- reductions -------------------------------------------------------------------------

REDUCTIONS = {}
for _name in ["sum", "mean", "prod", "amax", "amin", "std", "var", "logsumexp", "norm"]:
    for _dim in [None, 0, 1, -1, (0, 1), (1, 0)]:
        for _keep in [False, True]:
            if _dim is None and (_keep or _name == "logsumexp"):
                continue
            def _red(lib, _name=_name, _dim=_dim, _keep=_keep):
                x = _t(lib, B3)
                kw = {} if _dim is None else {"dim": _dim, "keepdim": _keep}
                return getattr(x, _name)(**kw)
            REDUCTIONS[f"{_name}-{_dim}-{'keep' if _keep else 'drop'}"] = _red
REDUCTIONS.update({
    "sum-int": lambda lib: _t(lib, I).sum(),
    "sum-int-dim": lambda lib: _t(lib, I).sum(1),
    "sum-bool": lambda lib: _t(lib, M).sum(0),
    "sum-int32": lambda lib: _t(lib, I).int().sum(),
    "sum-dtype": lambda lib: _t(lib, I).sum(dtype=lib.float32),
    "sum-0d": lambda lib: lib.tensor(3.0).sum(0),
    "sum-empty": lambda lib: lib.zeros(0, 3).sum(0),
    "sum-dim-repeated": lambda lib: _t(lib, F).sum((0, 0)),
    "empty-dim-list-means-all": lambda lib: (_t(lib, F).sum(dim=[]), _t(lib, F).mean(dim=()), _t(lib, F).var(dim=[]),
                                             _t(lib, F).amax(dim=[]), _t(lib, F).std(dim=()), _t(lib, M).all(dim=())),
    "sum-bad-dim": lambda lib: _t(lib, F).sum(2),
    "mean-int": lambda lib: _t(lib, I).mean(),
    "mean-int-dtype": lambda lib: _t(lib, I).mean(dtype=lib.float64),
    "mean-empty": lambda lib: lib.zeros(0).mean(),
    "prod-int": lambda lib: _t(lib, I).prod(1),
    "prod-bool": lambda lib: _t(lib, M).prod(),
    "max-all": lambda lib: _t(lib, F).max(),
    "max-dim": lambda lib: _t(lib, F).max(1),
    "max-dim-keep": lambda lib: _t(lib, F).max(dim=0, keepdim=True),
    "max-ties": lambda lib: _t(lib, W).max(1),
    "min-ties": lambda lib: _t(lib, W).min(1),
    "max-int": lambda lib: _t(lib, I).max(0),
    "max-empty": lambda lib: lib.zeros(0).max(),
    "max-empty-dim": lambda lib: lib.zeros(0, 3).max(0),
    "max-0d-dim": lambda lib: lib.tensor(4.0).max(0),
    "min-all": lambda lib: _t(lib, I).min(),
    "max-nan": lambda lib: lib.tensor([1.0, float("nan"), 3.0]).max(),
    "argmax": lambda lib: (_t(lib, F).argmax(), _t(lib, F).argmax(1), _t(lib, F).argmax(0, keepdim=True)),
    "argmin": lambda lib: (_t(lib, F).argmin(), _t(lib, I).argmin(1), _t(lib, W).argmin(1)),
    "argmax-ties": lambda lib: _t(lib, W).argmax(1),
    "argmax-keepdim-all": lambda lib: _t(lib, F).argmax(keepdim=True),
    "all-any": lambda lib: (_t(lib, M).all(), _t(lib, M).any(1), _t(lib, I).all(0), _t(lib, F).any(),
                            _t(lib, M).all(dim=1, keepdim=True)),
    "all-empty": lambda lib: (lib.zeros(0, dtype=lib.bool).all(), lib.zeros(0, dtype=lib.bool).any()),
    "std-correction": lambda lib: (_t(lib, F).std(correction=0), _t(lib, F).var(1, unbiased=False)),
    "var-single": lambda lib: lib.tensor([1.0]).var(),
    "std-int": lambda lib: _t(lib, I).std(),
    "norm-p": lambda lib: (_t(lib, F).norm(1), _t(lib, F).norm(float("inf")), _t(lib, F).norm(3, dim=1)),
    "norm-int": lambda lib: _t(lib, I).norm(),
    "cumsum": lambda lib: (_t(lib, F).cumsum(1), _t(lib, I).cumsum(0), _t(lib, M).cumsum(0)),
    "cumprod": lambda lib: _t(lib, P).cumprod(0),
    "softmax": lambda lib: (_t(lib, F).softmax(1), lib.softmax(_t(lib, F * 100), dim=0)),
    "log_softmax": lambda lib: _t(lib, F * 100).log_softmax(-1),
    "softmax-int": lambda lib: _t(lib, I).softmax(0),
})


@cases(REDUCTIONS)
def test_reductions(fn):
    check(fn)


# ---- shapes, views, joins -------------------------------------------------------------

VIEWS = {
    "view": lambda lib: _t(lib, B3).view(6, 4),
    "view-infer": lambda lib: _t(lib, B3).view(-1, 2),
    "view-two-infers": lambda lib: _t(lib, B3).view(-1, -1),
    "view-bad-size": lambda lib: _t(lib, B3).view(5, 5),
    "view-noncontiguous": lambda lib: _t(lib, F).t().view(12),
    "view-noncontiguous-ok": lambda lib: _t(lib, B3).transpose(1, 2).view(2, 4, 3).stride(),
    "view-split-dim-of-transpose": lambda lib: _t(lib, B3).permute(1, 0, 2).view(3, 2, 2, 2),
    "view-merge-ok": lambda lib: _t(lib, B3)[:, :, :2].view(2, 3, 2).stride(),
    "view-dtype": lambda lib: _t(lib, F).view(lib.int32),
    "view-as": lambda lib: _t(lib, F).view_as(_t(lib, F).t()),
    "reshape": lambda lib: _t(lib, F).t().reshape(2, 6),
    "reshape-tuple": lambda lib: _t(lib, F).reshape((4, -1)),
    "reshape-0d": lambda lib: lib.tensor(5.0).reshape(1, 1),
    "reshape-to-0d": lambda lib: lib.tensor([5.0]).reshape(()),
    "reshape-empty": lambda lib: lib.zeros(0, 3).reshape(3, 0, -1),
    "flatten": lambda lib: (_t(lib, B3).flatten(), _t(lib, B3).flatten(1), _t(lib, B3).flatten(0, 1),
                            lib.tensor(2.0).flatten()),
    "flatten-bad": lambda lib: _t(lib, B3).flatten(2, 1),
    "unflatten": lambda lib: _t(lib, F).unflatten(1, (2, 2)),
    "transpose": lambda lib: (_t(lib, B3).transpose(0, 2), _t(lib, B3).transpose(-1, 1)),
    "transpose-bad": lambda lib: _t(lib, F).transpose(0, 2),
    "t": lambda lib: (_t(lib, F).t(), _t(lib, V).t(), lib.tensor(1.0).t()),
    "t-3d": lambda lib: _t(lib, B3).t(),
    "permute": lambda lib: (_t(lib, B3).permute(2, 0, 1), _t(lib, B3).permute((1, 2, 0)),
                            _t(lib, B3).permute(-1, 0, 1)),
    "permute-wrong-count": lambda lib: _t(lib, B3).permute(1, 0),
    "permute-duplicate": lambda lib: _t(lib, B3).permute(0, 0, 1),
    "movedim": lambda lib: lib.movedim(_t(lib, B3), 0, -1),
    "squeeze": lambda lib: (lib.zeros(1, 3, 1).squeeze(), lib.zeros(1, 3, 1).squeeze(0), lib.zeros(1, 3, 1).squeeze(1),
                            lib.zeros(1, 3, 1).squeeze(-1), lib.zeros(1, 3, 1).squeeze((0, 2))),
    "squeeze-0d": lambda lib: lib.tensor(1.0).squeeze(),
    "squeeze-bad": lambda lib: lib.zeros(1, 3).squeeze(2),
    "unsqueeze": lambda lib: (_t(lib, F).unsqueeze(0), _t(lib, F).unsqueeze(-1), _t(lib, F).unsqueeze(1),
                              lib.tensor(1.0).unsqueeze(0)),
    "unsqueeze-bad": lambda lib: _t(lib, F).unsqueeze(3),
    "expand": lambda lib: (_t(lib, C).expand(3, 4), _t(lib, V).expand(2, 3, 4), _t(lib, C).expand(-1, 2),
                           lib.tensor(1.0).expand(2, 2)),
    "expand-stride": lambda lib: (_t(lib, C).expand(2, 3, 4).stride(), _t(lib, V).expand(3, 4).stride()),
    "expand-bad": lambda lib: _t(lib, F).expand(3, 5),
    "expand-fewer-dims": lambda lib: _t(lib, F).expand(4),
    "expand_as": lambda lib: _t(lib, C).expand_as(_t(lib, F)),
    "narrow": lambda lib: (_t(lib, F).narrow(1, 1, 2), _t(lib, F).narrow(0, -2, 2)),
    "narrow-bad": lambda lib: _t(lib, F).narrow(1, 3, 2),
    "contiguous": lambda lib: (lambda x: (x.is_contiguous(), x.stride()))(_t(lib, F).t().contiguous()),
    "clone-keeps-values": lambda lib: _t(lib, F).t().clone(),
    "select": lambda lib: _t(lib, B3).select(1, 2),
    "cat": lambda lib: (lib.cat([_t(lib, F), _t(lib, F)]), lib.cat([_t(lib, F), _t(lib, C)], 1),
                        lib.cat([_t(lib, F), _t(lib, F)], dim=-1)),
    "cat-promote": lambda lib: lib.cat([_t(lib, I), _t(lib, F)]),
    "cat-empty-1d": lambda lib: lib.cat([lib.zeros(0), _t(lib, F)]),
    "cat-mismatch": lambda lib: lib.cat([_t(lib, F), _t(lib, G)]),
    "cat-ndim-mismatch": lambda lib: lib.cat([_t(lib, F), _t(lib, V)]),
    "cat-0d": lambda lib: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]),
    "cat-nothing": lambda lib: lib.cat([]),
    "stack": lambda lib: (lib.stack([_t(lib, F), _t(lib, F)]), lib.stack([_t(lib, V), _t(lib, V)], 1),
                          lib.stack([_t(lib, V), _t(lib, V)], -1)),
    "stack-mismatch": lambda lib: lib.stack([_t(lib, F), _t(lib, F)[:2]]),
    "stack-0d": lambda lib: lib.stack([lib.tensor(1.0), lib.tensor(2.0)]),
    "hstack-vstack": lambda lib: (lib.hstack([_t(lib, V), _t(lib, V)]), lib.vstack([_t(lib, V), _t(lib, V)])),
    "split": lambda lib: (_t(lib, F).split(2, 1), _t(lib, F).split([1, 2], 0), _t(lib, F).split(3, 1)),
    "split-bad-sizes": lambda lib: _t(lib, F).split([1, 1], 0),
    "chunk": lambda lib: (_t(lib, F).chunk(2, 1), _t(lib, F).chunk(3, 1), _t(lib, F).chunk(5, 0),
                          lib.arange(5).chunk(4), lib.arange(6).chunk(4)),
    "chunk-zero": lambda lib: _t(lib, F).chunk(0),
    "unbind": lambda lib: (_t(lib, F).unbind(), _t(lib, F).unbind(1)),
    "repeat": lambda lib: (_t(lib, F).repeat(2, 1), _t(lib, V).repeat(2, 2), _t(lib, C).repeat(1, 2, 3)),
    "repeat-too-few": lambda lib: _t(lib, F).repeat(2),
    "repeat-copies": lambda lib: (lambda x: (x.repeat(1, 1).fill_(0.0), x.repeat(2, 1, 1).stride(), x))(_t(lib, F)),
    "tile": lambda lib: (_t(lib, F).tile(2), _t(lib, V).tile(2, 1)),
    "flip": lambda lib: (_t(lib, F).flip(0), _t(lib, B3).flip(0, 2), _t(lib, B3).flip((1,))),
}


@cases(VIEWS)
def test_views(fn):
    check(fn)


# ---- indexing -------------------------------------------------------------------------

def _idx(lib, key_fn, arr=B3):
    x = _t(lib, arr)
    return x[key_fn(lib)]


INDEXING = {
    "int": lambda lib: _idx(lib, lambda lib: 1),
    "neg-int": lambda lib: _idx(lib, lambda lib: -1),
    "ints": lambda lib: _idx(lib, lambda lib: (1, 2, 3)),
    "int-out-of-range": lambda lib: _idx(lib, lambda lib: 2),
    "int-out-of-range-dim1": lambda lib: _idx(lib, lambda lib: (0, 5)),
    "too-many-indices": lambda lib: _idx(lib, lambda lib: (0, 0, 0, 0)),
    "slice": lambda lib: _idx(lib, lambda lib: (slice(None), slice(1, 3))),
    "slice-step": lambda lib: _idx(lib, lambda lib: (Ellipsis, slice(None, None, 2))),
    "slice-negative": lambda lib: _idx(lib, lambda lib: (slice(-1, None), slice(-5, -1))),
    "slice-beyond": lambda lib: _idx(lib, lambda lib: slice(1, 100)),
    "slice-empty": lambda lib: _idx(lib, lambda lib: (slice(None), slice(2, 1))),
    "slice-negative-step": lambda lib: _idx(lib, lambda lib: slice(None, None, -1)),
    "none": lambda lib: _idx(lib, lambda lib: (None, 0, None)),
    "ellipsis": lambda lib: _idx(lib, lambda lib: (Ellipsis, 1)),
    "ellipsis-middle": lambda lib: _idx(lib, lambda lib: (0, Ellipsis, None, 1)),
    "bool-mask-full": lambda lib: _idx(lib, lambda lib: lib.tensor(M), F),
    "bool-mask-rows": lambda lib: _idx(lib, lambda lib: lib.tensor([True, False, True]), F),
    "bool-mask-cols": lambda lib: _idx(lib, lambda lib: (slice(None), lib.tensor([True, False, True, False])), F),
    "bool-mask-wrong-shape": lambda lib: _idx(lib, lambda lib: lib.tensor([True, False]), F),
    "bool-mask-0d": lambda lib: _idx(lib, lambda lib: lib.tensor(True), F),
    "bool-python": lambda lib: _idx(lib, lambda lib: True, F),
    "int-tensor": lambda lib: _idx(lib, lambda lib: lib.tensor([2, 0, 2]), F),
    "int-tensor-2d": lambda lib: _idx(lib, lambda lib: lib.tensor([[0, 1], [2, 2]]), F),
    "int-tensor-cols": lambda lib: _idx(lib, lambda lib: (slice(None), lib.tensor([3, 0]))),
    "int-tensor-pair": lambda lib: _idx(lib, lambda lib: (lib.tensor([0, 2]), lib.tensor([1, 3])), F),
    "int-tensor-broadcast": lambda lib: _idx(lib, lambda lib: (lib.tensor([[0], [2]]), lib.tensor([1, 3])), F),
    "int-tensor-separated": lambda lib: _idx(lib, lambda lib: (lib.tensor([0, 1]), slice(None), lib.tensor([1, 3]))),
    "int-tensor-0d": lambda lib: _idx(lib, lambda lib: lib.tensor(1), F),
    "int-tensor-negative": lambda lib: _idx(lib, lambda lib: lib.tensor([-1, -3]), F),
    "int-tensor-out-of-range": lambda lib: _idx(lib, lambda lib: lib.tensor([0, 3]), F),
    "int-list": lambda lib: _idx(lib, lambda lib: [0, 2], F),
    "float-tensor": lambda lib: _idx(lib, lambda lib: lib.tensor([0.0]), F),
    "float-index": lambda lib: _idx(lib, lambda lib: 1.0, F),
    "int32-tensor": lambda lib: _idx(lib, lambda lib: lib.tensor([1, 0], dtype=lib.int32), F),
    "uint8-mask": lambda lib: _idx(lib, lambda lib: lib.tensor([1, 0, 1], dtype=lib.uint8), F),
    "index-0d": lambda lib: lib.tensor(3.0)[()],
    "index-0d-none": lambda lib: lib.tensor(3.0)[None],
    "index-0d-int": lambda lib: lib.tensor(3.0)[0],
    "mask-combined-with-slice": lambda lib: _idx(lib, lambda lib: (slice(None), lib.tensor(M)), B3),
    "advanced-result-is-contiguous": lambda lib: [(lambda r: (r.is_contiguous(), r.stride()))(_t(lib, B3)[k(lib)])
                                                  for k in (lambda lib: (slice(None), lib.tensor([True, False, True])),
                                                            lambda lib: (slice(None), [0, 1], [2, 3]),
                                                            lambda lib: (Ellipsis, [0, 3]))],
    "gather": lambda lib: lib.gather(_t(lib, F), 1, lib.tensor([[0, 1], [3, 3], [2, 0]])),
    "gather-smaller-index": lambda lib: _t(lib, F).gather(0, lib.tensor([[2, 0], [1, 1]])),
    "gather-index-too-big": lambda lib: _t(lib, F).gather(0, lib.zeros(2, 5, dtype=lib.int64)),
    "gather-out-of-range": lambda lib: _t(lib, F).gather(1, lib.tensor([[4]])),
    "gather-ndim-mismatch": lambda lib: _t(lib, F).gather(1, lib.tensor([1])),
    "index_select": lambda lib: lib.index_select(_t(lib, F), 1, lib.tensor([3, 1])),
    "masked_fill": lambda lib: _t(lib, F).masked_fill(_t(lib, M), -1.0),
    "nonzero": lambda lib: (_t(lib, I).nonzero(), lib.nonzero(_t(lib, I), as_tuple=True)),
}


@cases(INDEXING)
def test_indexing(fn):
    check(fn)


def _setitem(lib, key_fn, value_fn, arr=F):
    x = _t(lib, arr)
    x[key_fn(lib)] = value_fn(lib)
    return x


SETITEM = {
    "int-scalar": lambda lib: _setitem(lib, lambda lib: 1, lambda lib: 5.0),
    "row-tensor": lambda lib: _setitem(lib, lambda lib: 1, lambda lib: lib.tensor([1.0, 2.0, 3.0, 4.0])),
    "row-broadcast": lambda lib: _setitem(lib, lambda lib: slice(0, 2), lambda lib: lib.tensor([1.0, 2.0, 3.0, 4.0])),
    "col-list": lambda lib: _setitem(lib, lambda lib: (slice(None), 0), lambda lib: [7.0, 8.0, 9.0]),
    "mask-scalar": lambda lib: _setitem(lib, lambda lib: lib.tensor(M), lambda lib: 0.0),
    "mask-values": lambda lib: _setitem(lib, lambda lib: lib.tensor(M), lambda lib: lib.arange(int(M.sum())).float()),
    "int-tensor": lambda lib: _setitem(lib, lambda lib: lib.tensor([0, 2]), lambda lib: -1.0),
    "int-tensor-pairs": lambda lib: _setitem(lib, lambda lib: (lib.tensor([0, 2]), lib.tensor([1, 3])),
                                             lambda lib: lib.tensor([10.0, 20.0])),
    "step-slice": lambda lib: _setitem(lib, lambda lib: (slice(None), slice(None, None, 2)), lambda lib: 3.0),
    "ellipsis-none": lambda lib: _setitem(lib, lambda lib: (Ellipsis, None), lambda lib: 1.0),
    "int-value-into-int": lambda lib: _setitem(lib, lambda lib: 0, lambda lib: 2.7, I),
    "double-value": lambda lib: _setitem(lib, lambda lib: 0, lambda lib: lib.ones(4, dtype=lib.float64)),
    "shape-mismatch": lambda lib: _setitem(lib, lambda lib: 0, lambda lib: lib.ones(3)),
    "out-of-range": lambda lib: _setitem(lib, lambda lib: 3, lambda lib: 1.0),
    "into-bool": lambda lib: _setitem(lib, lambda lib: 0, lambda lib: 1, M),
}


@cases(SETITEM)
def test_setitem(fn):
    check(fn)


# ---- in place -------------------------------------------------------------------------

def _inplace(lib, method, *args, arr=F, **kw):
    x = _t(lib, arr)
    y = getattr(x, method)(*args, **kw)
    return x, y is x


INPLACE = {
    "add_": lambda lib: _inplace(lib, "add_", _t(lib, V)),
    "add_-alpha": lambda lib: _inplace(lib, "add_", _t(lib, V), alpha=3),
    "sub_": lambda lib: _inplace(lib, "sub_", 1),
    "mul_": lambda lib: _inplace(lib, "mul_", _t(lib, C)),
    "div_": lambda lib: _inplace(lib, "div_", 4),
    "div_-int": lambda lib: _inplace(lib, "div_", 2, arr=I),
    "div_-floor-int": lambda lib: _inplace(lib, "div_", 2, rounding_mode="floor", arr=I),
    "div_-trunc-float": lambda lib: _inplace(lib, "div_", _t(lib, V), rounding_mode="trunc"),
    "pow_": lambda lib: _inplace(lib, "pow_", 2),
    "add_-float-into-int": lambda lib: _inplace(lib, "add_", 1.5, arr=I),
    "add_-int-tensor-into-float": lambda lib: _inplace(lib, "add_", _t(lib, I)),
    "add_-float-tensor-into-int": lambda lib: _inplace(lib, "add_", _t(lib, F), arr=I),
    "add_-grow": lambda lib: _inplace(lib, "add_", _t(lib, B3)),
    "mul_-bool-into-int": lambda lib: _inplace(lib, "mul_", _t(lib, M), arr=I),
    "clamp_": lambda lib: _inplace(lib, "clamp_", -0.2, 0.2),
    "clamp_-min": lambda lib: _inplace(lib, "clamp_", min=0),
    "clamp_-float-into-int": lambda lib: _inplace(lib, "clamp_", 0.5, arr=I),
    "relu_": lambda lib: _inplace(lib, "relu_"),
    "sigmoid_": lambda lib: _inplace(lib, "sigmoid_"),
    "exp_": lambda lib: _inplace(lib, "exp_"),
    "exp_-int": lambda lib: _inplace(lib, "exp_", arr=I),
    "log_": lambda lib: _inplace(lib, "log_", arr=P),
    "sqrt_": lambda lib: _inplace(lib, "sqrt_", arr=P),
    "neg_": lambda lib: _inplace(lib, "neg_"),
    "abs_": lambda lib: _inplace(lib, "abs_", arr=I),
    "tanh_-sin_-cos_": lambda lib: (_inplace(lib, "tanh_"), _inplace(lib, "sin_"), _inplace(lib, "cos_")),
    "floor_-ceil_-round_": lambda lib: (_inplace(lib, "floor_"), _inplace(lib, "ceil_"), _inplace(lib, "round_")),
    "zero_": lambda lib: _inplace(lib, "zero_"),
    "fill_": lambda lib: _inplace(lib, "fill_", 2.5),
    "fill_-int": lambda lib: _inplace(lib, "fill_", 2.5, arr=I),
    "fill_-0d-tensor": lambda lib: _inplace(lib, "fill_", lib.tensor(4.0)),
    "fill_-1d-tensor": lambda lib: _inplace(lib, "fill_", lib.tensor([4.0])),
    "copy_": lambda lib: _inplace(lib, "copy_", _t(lib, V)),
    "copy_-cast": lambda lib: _inplace(lib, "copy_", _t(lib, I)),
    "copy_-bad-shape": lambda lib: _inplace(lib, "copy_", _t(lib, G)),
    "masked_fill_": lambda lib: _inplace(lib, "masked_fill_", _t(lib, M), 9.0),
    "iadd-view": lambda lib: (lambda x: (x[1].__iadd__(1.0), x)[1])(_t(lib, F)),
    "t_": lambda lib: _inplace(lib, "t_"),
}


@cases(INPLACE)
def test_inplace(fn):
    check(fn)


def test_inplace_version_counter_matches_torch():
    def run(lib):
        x = _t(lib, F)
        v = x[0]
        versions = [x._version]
        x.add_(1)
        versions.append(v._version)
        v.mul_(2)
        versions.append(x._version)
        x[1] = 0.0
        versions.append(v._version)
        x.t().zero_()
        versions.append(x._version)
        return versions
    assert run(minitorch) == run(torch)


# ---- grad_fn names (what repr shows) ------------------------------------------------------

GRAD_FN = ["x + y", "x - y", "x * y", "x / y", "x ** 2", "-x", "x.exp()", "x.log()", "x.sqrt()", "x.abs()",
           "x.sin()", "x.cos()", "x.tanh()", "x.sigmoid()", "x.relu()", "x.clamp(0, 1)", "x.sum()", "x.sum(0)",
           "x.mean()", "x.mean(0)", "x.prod(0)", "x.max()", "x.max(0)[0]", "x.amax(0)", "x.t()", "x.transpose(0, 1)",
           "x.permute(1, 0)", "x.view(-1)", "x.reshape(3, 2)", "x.flatten()", "x.unsqueeze(0)", "x.squeeze()",
           "x.expand(2, 2, 3)", "x @ y.t()", "x[0] @ y[0]", "x.mm(y.t())", "lib.cat([x, y])", "x.flip(0)", "x.clone()",
           "x.double()", "x.cumsum(0)", "x.softmax(0)", "x.log_softmax(0)", "lib.where(x > 0, x, y)",
           "lib.maximum(x, y)", "x.gather(0, lib.tensor([[0, 1, 0]]))", "x.narrow(0, 0, 1)", "x.sign()",
           "x[0]", "x[:, 1]", "x[0:1]", "x[1, :]", "x[1, 0:2]", "x[None]", "x[:]", "x[...]", "x[:, :]", "x[0, None]",
           "x[..., 1]", "x[::2]", "x[x > 0]", "x[[0, 1]]", "x[lib.tensor([1, 0])]"]


@pytest.mark.parametrize("expr", GRAD_FN)
def test_grad_fn_names_match_torch(expr):
    def run(lib):
        x = lib.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
        y = lib.tensor([[0.5, 2.0, 1.0], [1.0, -1.0, 2.0]], requires_grad=True)
        return type(eval(expr, {"x": x, "y": y, "lib": lib}).grad_fn).__name__
    assert run(minitorch) == run(torch)


# ---- printing -------------------------------------------------------------------------

PRINTING = [
    "tensor([1, 2, 3])", "tensor([1., 2., 3.])", "tensor([1.5, 2.25, 3.])", "tensor([1e-5, 1.0])",
    "tensor([1e5, 1.0])", "tensor([1e10, 1.0])", "tensor([123456789., 1.])", "tensor([0.1, 1000.])",
    "tensor([0.1, 10000.])", "tensor([nan, 1.0])", "tensor([inf, -inf, 1.5])", "tensor([nan])",
    "tensor([nan, inf, -inf])", "tensor([nan, 1e5, 1.])", "tensor([-inf, 2.5])", "tensor([0., -0.])",
    "tensor([1e-5, -0.])", "tensor(nan)", "tensor(-inf)", "tensor([[nan, 1.], [2., 3.5]])",
    "tensor([True, False])", "tensor([])", "zeros(0, 3)", "zeros(2, 0, 4)", "zeros(0, dtype=int32)",
    "tensor(3.5)", "tensor(3)", "tensor(True)", "tensor(1e-10)", "tensor(-0.0)", "tensor(1e20)",
    "arange(2000)", "arange(2000.)", "arange(24.).reshape(2, 3, 4)", "arange(2000).reshape(40, 50)",
    "arange(3000.).reshape(10, 10, 30) / 7", "arange(1001.)", "arange(1001)", "ones(1001, dtype=bool)",
    "arange(100.) / 3", "arange(30.) * 1e6", "arange(30.) + 0.5", "arange(80)", "arange(40.).reshape(1, 40)",
    "tensor([-1.5, 2.0, -3.25])", "tensor([[-1, 10], [100, -1000]])", "tensor([1e-4, 1.])",
    "tensor([9.9999e-5, 1.])", "tensor([1e8, 1.])", "tensor([1.1e8, 1.])", "tensor([123456789.])",
    "tensor([0.001, 0.002])", "tensor([12345.678])", "tensor([0.00012345])", "tensor([2.**60])",
    "tensor([-2**60])", "tensor([[1e-8, 1.], [2., 3.]])", "linspace(0, 1, 7)",
    "tensor([1, 2], dtype=int32)", "tensor([1., 2.], dtype=float64)", "tensor([1., 2.], dtype=float16)",
    "tensor([1, 2], dtype=uint8)", "tensor([3.], dtype=float16) / 7", "zeros(2, 0, dtype=float64)",
    "tensor([1., 2.], requires_grad=True)", "tensor([1., 2.], dtype=float64, requires_grad=True)",
    "tensor([1., 2.], requires_grad=True) * 2", "tensor([[1.5, 2], [3, 4]], requires_grad=True).sum()",
    "tensor([1., 2.], requires_grad=True).exp()", "tensor([1., 2.], requires_grad=True)[0]",
    "tensor([1., 2.], requires_grad=True).view(2, 1)", "tensor([1., 2.], requires_grad=True).mean()",
    "tensor([1., 2.], requires_grad=True).double()", "zeros(2, 0, requires_grad=True)",
    "tensor([1., 2.], requires_grad=True).detach()", "arange(12.).reshape(3, 4).t()",
    "tensor([[True, False], [False, True]])", "arange(6.).reshape(1, 2, 3, 1)",
    "tensor([0.5, 0.25]) * 1e-3", "tensor([1.5e300, 1.])", "tensor([[1, 2], [3, 4]]).expand(2, 2, 2)",
    "tensor([1e-3, 1e3])", "tensor([1e-3, 1e3 + 1])", "tensor([-0.5])",
]


@pytest.mark.parametrize("expr", PRINTING)
def test_repr_matches_torch(expr):
    def run(lib):
        ns = {k: getattr(lib, k) for k in dir(lib) if not k.startswith("_")}
        ns.update(nan=math.nan, inf=math.inf)
        return repr(eval(expr, ns))
    assert run(minitorch) == run(torch).replace("torch.", "minitorch.")


def test_repr_print_options_match_torch():
    def run(lib):
        out = []
        x = lib.arange(30.0) / 7
        try:
            lib.set_printoptions(precision=2)
            out.append(repr(x))
            lib.set_printoptions(precision=4, threshold=10, edgeitems=2)
            out.append(repr(x))
            lib.set_printoptions(threshold=1000, edgeitems=3, linewidth=40)
            out.append(repr(x))
        finally:
            lib.set_printoptions(precision=4, threshold=1000, edgeitems=3, linewidth=80)
        return out
    assert run(minitorch) == run(torch)


# ---- printing, property-based ------------------------------------------------------------

_SCALES = st.sampled_from([1e-12, 1e-5, 1e-3, 0.1, 1.0, 7.0, 1e3, 1e5, 1e9])


@st.composite
def _printable(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=draw(st.sampled_from([3, 12, 40]))))
    kind = draw(st.sampled_from(["int", "bool", "float", "round", "special", "float64", "float16"]))
    if math.prod(shape) > 20000:
        shape = shape[-2:]
    if kind == "int":
        return draw(hnp.arrays(np.int64, shape, elements=st.integers(-10 ** 12, 10 ** 12)))
    if kind == "bool":
        return draw(hnp.arrays(np.bool_, shape))
    dtype = {"float64": np.float64, "float16": np.float16}.get(kind, np.float32)
    scale = draw(_SCALES)
    if kind == "special":
        values = st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, 1.5, -2.25, 1e-5 * scale, 3e4 * scale])
    elif kind == "round":
        values = st.integers(-1000, 1000).map(lambda v: float(v) * scale)
    else:
        values = st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: v * scale)
    return draw(hnp.arrays(dtype, shape, elements=values.map(lambda v: dtype(v) if abs(v) < 6e4 or dtype
                                                                  is not np.float16 else dtype(0.0))))


@given(_printable(), st.booleans(), st.sampled_from([None, (2, 5, 2, 60), (6, 1000, 3, 100)]))
def test_repr_property_matches_torch(arr, transpose, opts):
    def run(lib):
        t = lib.tensor(arr)
        if transpose and t.ndim >= 2:
            t = t.transpose(0, -1)
        if arr.dtype.kind == "f" and transpose:
            t = t.requires_grad_() if t.is_leaf else t
        try:
            if opts:
                lib.set_printoptions(precision=opts[0], threshold=opts[1], edgeitems=opts[2], linewidth=opts[3])
            return repr(t)
        finally:
            lib.set_printoptions(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    assert run(minitorch) == run(torch).replace("torch.", "minitorch.")
