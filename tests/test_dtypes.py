"""dtypes are objects, with PyTorch's defaults and promotion rules (not NumPy's).

Expected dtypes below are derived by hand from PyTorch's documented rule: operands are
ranked dimensioned tensor > 0-d tensor > Python scalar, and a lower-ranked operand only
changes the result when it is of a higher category (bool < integer < floating point).
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import minitorch as mt

ALL = [mt.bool, mt.uint8, mt.int8, mt.int16, mt.int32, mt.int64, mt.float16, mt.float32, mt.float64]
NP = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]


# ---- dtype objects ---------------------------------------------------------------------

@pytest.mark.parametrize("dt, np_dt", list(zip(ALL, NP)), ids=[d.name for d in ALL])
def test_dtype_object_attributes(dt, np_dt):
    assert isinstance(dt, mt.dtype)
    assert repr(dt) == f"minitorch.{np.dtype(np_dt).name}"
    assert dt.itemsize == np.dtype(np_dt).itemsize
    assert dt.is_floating_point == (np.dtype(np_dt).kind == "f")
    assert dt.is_signed == (np.dtype(np_dt).kind in "if")
    assert dt.is_complex is False
    t = mt.zeros(2, dtype=dt)
    assert t.dtype is dt  # one object per dtype: identity comparison works
    assert t.numpy().dtype == np.dtype(np_dt)
    assert pickle.loads(pickle.dumps(dt)) is dt


def test_aliases_are_the_same_objects():
    assert mt.float is mt.float32 and mt.double is mt.float64 and mt.half is mt.float16
    assert mt.int is mt.int32 and mt.long is mt.int64 and mt.short is mt.int16


@pytest.mark.parametrize("spec, expected", [
    ("float64", mt.float64), (np.float16, mt.float16), (np.dtype("int8"), mt.int8),
    (float, mt.float64), (int, mt.int64), (bool, mt.bool),
])
def test_dtype_argument_accepts_numpy_python_and_names(spec, expected):
    assert mt.zeros(1, dtype=spec).dtype is expected
    assert mt.tensor([1], dtype=spec).dtype is expected


@pytest.mark.parametrize("bad", ["float128x", "complex64", object, 3])
def test_invalid_dtype_is_a_type_error_naming_the_choices(bad):
    with pytest.raises(TypeError, match="dtype") as info:
        mt.zeros(2, dtype=bad)
    assert "minitorch.float32" in str(info.value)


# ---- defaults --------------------------------------------------------------------------

def test_default_dtypes_of_python_data():
    assert mt.tensor([1.0, 2.0]).dtype is mt.float32       # not NumPy's float64
    assert mt.tensor([1, 2]).dtype is mt.int64
    assert mt.tensor([True]).dtype is mt.bool
    assert mt.tensor([1, 2.5]).dtype is mt.float32
    assert mt.tensor([True, 2]).dtype is mt.int64
    assert mt.zeros(2).dtype is mt.float32
    assert mt.arange(3).dtype is mt.int64
    assert mt.arange(3.0).dtype is mt.float32
    assert mt.get_default_dtype() is mt.float32


def test_set_default_dtype_changes_new_floats_and_python_float_scalars():
    mt.set_default_dtype(mt.float64)
    assert mt.get_default_dtype() is mt.float64
    assert mt.tensor([1.5]).dtype is mt.float64
    assert mt.zeros(1).dtype is mt.float64
    assert mt.rand(2).dtype is mt.float64
    assert mt.linspace(0, 1, 3).dtype is mt.float64
    assert (mt.tensor([1, 2]) * 2.5).dtype is mt.float64
    assert (mt.tensor([1, 2]) / 2).dtype is mt.float64
    assert mt.tensor([1]).dtype is mt.int64                   # integers are unaffected
    assert (mt.ones(2, dtype=mt.float32) * 2.5).dtype is mt.float32  # a tensor's own dtype wins
    mt.set_default_dtype(mt.float32)
    assert mt.tensor([1.5]).dtype is mt.float32


def test_set_default_dtype_rejects_integers():
    with pytest.raises(TypeError, match="floating"):
        mt.set_default_dtype(mt.int64)
    assert mt.get_default_dtype() is mt.float32


def test_default_dtype_is_restored_between_tests():
    # test_set_default_dtype_* leave nothing behind (tests/conftest.py restores it)
    assert mt.get_default_dtype() is mt.float32


# ---- promotion: tensors with tensors -------------------------------------------------

@pytest.mark.parametrize("a, b, expected", [
    (mt.bool, mt.bool, mt.bool),
    (mt.bool, mt.uint8, mt.uint8),
    (mt.uint8, mt.int8, mt.int16),       # no common 8-bit type: widen
    (mt.uint8, mt.int16, mt.int16),
    (mt.int8, mt.int64, mt.int64),
    (mt.int32, mt.float16, mt.float16),  # any float beats any int, whatever the widths
    (mt.int64, mt.float32, mt.float32),
    (mt.float16, mt.float32, mt.float32),
    (mt.float32, mt.float64, mt.float64),
    (mt.bool, mt.float16, mt.float16),
])
def test_promote_types(a, b, expected):
    assert mt.promote_types(a, b) is expected
    assert mt.promote_types(b, a) is expected
    x, y = mt.ones(2, dtype=a), mt.ones(2, dtype=b)
    assert (x * y).dtype is expected
    assert mt.result_type(x, y) is expected


def test_promotion_table_agrees_with_numpy_for_same_category_pairs():
    # within one category PyTorch and NumPy agree (they differ across categories)
    for a in ALL:
        for b in ALL:
            if a.is_floating_point == b.is_floating_point and (a is mt.bool) == (b is mt.bool):
                assert mt.promote_types(a, b).np == np.promote_types(a.np, b.np), (a, b)


# ---- promotion: Python scalars and 0-d tensors -----------------------------------------

@pytest.mark.parametrize("make, expected", [
    (lambda: mt.tensor([1, 2], dtype=mt.int32) + 2.5, mt.float32),        # NumPy: float64
    (lambda: mt.tensor([1, 2], dtype=mt.int8) + 1000, mt.int8),           # the scalar's size is ignored
    (lambda: mt.tensor([1, 2], dtype=mt.int16) * 3, mt.int16),
    (lambda: mt.tensor([True, False]) + mt.tensor([True, True]), mt.bool),
    (lambda: mt.tensor([True]) + 1, mt.int64),
    (lambda: mt.tensor([True]) + 1.5, mt.float32),
    (lambda: mt.tensor([True]) & True, mt.bool),
    (lambda: mt.ones(2, dtype=mt.float16) + mt.ones(2, dtype=mt.float32), mt.float32),
    (lambda: mt.tensor(1.5, dtype=mt.float64) + mt.ones(3, dtype=mt.float32), mt.float32),
    (lambda: mt.tensor(7) + mt.ones(3, dtype=mt.uint8), mt.uint8),        # 0-d int64 + uint8 vector
    (lambda: mt.tensor(2.5) + mt.ones(3, dtype=mt.int32), mt.float32),    # 0-d float changes the category
    (lambda: mt.tensor(2.5, dtype=mt.float64) + mt.ones(3, dtype=mt.int32), mt.float64),  # ...to its own dtype
    (lambda: mt.tensor(2.5, dtype=mt.float16) + mt.ones(3, dtype=mt.int32), mt.float16),
    (lambda: mt.tensor(1, dtype=mt.int8) + mt.tensor(1, dtype=mt.int16), mt.int16),  # two 0-d: plain promotion
    (lambda: mt.tensor(1.0, dtype=mt.float64) + 1, mt.float64),
    (lambda: 2.5 * mt.ones(2, dtype=mt.float16), mt.float16),
    (lambda: mt.ones(2, dtype=mt.uint8) - 300, mt.uint8),
    (lambda: mt.ones(2, dtype=mt.int64) / 2, mt.float32),                 # true division always floats
    (lambda: mt.ones(2, dtype=mt.int64) // 2, mt.int64),
    (lambda: mt.ones(2, dtype=mt.int32) < 2.5, mt.bool),
    (lambda: mt.where(mt.tensor([True, False]), 1.0, mt.ones(2, dtype=mt.int64)), mt.float32),
    (lambda: mt.cat([mt.ones(1, dtype=mt.int8), mt.ones(1, dtype=mt.float16)]), mt.float16),
])
def test_scalar_and_zero_dim_promotion(make, expected):
    assert make().dtype is expected


def test_small_int_arithmetic_wraps_like_torch():
    # int8 + 1000: 1000 wraps to -24 in int8 (1000 - 4*256), then 1 + -24 = -23
    assert (mt.ones(2, dtype=mt.int8) + 1000).tolist() == [-23, -23]
    # uint8: 0 - 1 wraps to 255
    assert (mt.zeros(1, dtype=mt.uint8) - 1).tolist() == [255]
    assert (mt.tensor([100], dtype=mt.int8) * 2).tolist() == [-56]  # 200 - 256


def test_numpy_scalars_count_as_python_numbers():
    x = mt.ones(2, dtype=mt.int32)
    assert (x * np.float64(2.5)).dtype is mt.float32
    assert (x + np.int64(3)).dtype is mt.int32
    assert (mt.ones(2, dtype=mt.float16) * np.float64(2)).dtype is mt.float16


# ---- conversions ------------------------------------------------------------------------

@pytest.mark.parametrize("method, expected", [
    ("float", mt.float32), ("double", mt.float64), ("half", mt.float16), ("int", mt.int32),
    ("long", mt.int64), ("short", mt.int16), ("char", mt.int8), ("byte", mt.uint8), ("bool", mt.bool),
])
def test_conversion_methods(method, expected):
    src = np.array([-2.7, -0.5, 0.0, 0.5, 2.7, 3.0], np.float64)
    if expected is mt.uint8:
        src = np.abs(src)  # negative floats to unsigned is undefined behaviour in C (and PyTorch)
    out = getattr(mt.tensor(src, dtype=mt.float64), method)()
    assert out.dtype is expected
    np.testing.assert_array_equal(out.numpy(), src.astype(expected.np))


def test_float_to_int_truncates_toward_zero():
    assert mt.tensor([-2.7, -0.5, 0.5, 2.7]).long().tolist() == [-2, 0, 0, 2]


def test_to_dtype_returns_self_when_nothing_changes_and_copies_otherwise():
    x = mt.tensor([1.0, 2.0])
    assert x.to(mt.float32) is x
    assert x.float() is x
    assert x.to(dtype=mt.float32, copy=True) is not x
    y = x.to(mt.float64)
    assert y.dtype is mt.float64 and y.tolist() == [1.0, 2.0]
    y[0] = 5.0
    assert x[0].item() == 1.0  # a converted tensor has its own memory
    assert x.to(mt.tensor([1])).dtype is mt.int64  # to(other) takes other's dtype
    assert x.type_as(mt.tensor([1], dtype=mt.int16)).dtype is mt.int16


def test_bool_conversion_of_floats_is_nonzero_test():
    assert mt.tensor([0.0, -0.0, 0.1, float("nan")]).bool().tolist() == [False, False, True, True]


def test_half_precision_rounds():
    # float16 has an 11-bit significand: 2049 is not representable and rounds to even (2048)
    assert mt.tensor([2049.0]).half().item() == 2048.0
    assert mt.tensor([2051.0]).half().item() == 2052.0
