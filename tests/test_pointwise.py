"""Elementwise operators and math, with broadcasting, checked against NumPy."""
from __future__ import annotations

import operator

import numpy as np
import pytest

import minitorch as mt

RNG = np.random.default_rng(0)

# pairs of shapes that broadcast, and what they broadcast to (NumPy decides)
SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((), (2, 3)),
          ((5,), ()), ((1,), (2, 2)), ((2, 1, 3), (4, 1)), ((0, 3), (3,)), ((1, 0), (4, 1))]


def arr(shape, kind="float", low=-3, high=3):
    if kind == "float":
        return RNG.uniform(low, high, shape).astype(np.float32)
    if kind == "pos":
        return RNG.uniform(0.5, high, shape).astype(np.float32)
    if kind == "int":
        return RNG.integers(low, high + 1, shape).astype(np.int64)
    if kind == "nonzero-int":
        a = RNG.integers(1, high + 1, shape) * RNG.choice([-1, 1], shape)
        return np.asarray(a, dtype=np.int64)
    return RNG.random(shape) > 0.5


def close(t, expected, rtol=1e-5, atol=1e-6):
    assert isinstance(t, mt.Tensor)
    expected = np.asarray(expected)
    assert tuple(t.shape) == expected.shape, (t.shape, expected.shape)
    np.testing.assert_allclose(t.numpy().astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                               equal_nan=True)


# ---- arithmetic -----------------------------------------------------------------------

ARITH = [operator.add, operator.sub, operator.mul, operator.truediv]


@pytest.mark.parametrize("sa, sb", SHAPES, ids=[f"{a}-{b}" for a, b in SHAPES])
@pytest.mark.parametrize("op", ARITH, ids=lambda f: f.__name__)
def test_arithmetic_broadcasts_like_numpy(op, sa, sb):
    a, b = arr(sa), arr(sb, "pos")
    out = op(mt.tensor(a), mt.tensor(b))
    close(out, op(a, b))
    assert out.dtype is mt.float32


@pytest.mark.parametrize("op", ARITH + [operator.pow], ids=lambda f: f.__name__)
@pytest.mark.parametrize("scalar", [2, 0.5, -1.5])
def test_arithmetic_with_python_scalars_both_sides(op, scalar):
    a = arr((3, 4), "pos")
    close(op(mt.tensor(a), scalar), op(a, np.float32(scalar)), rtol=1e-5)
    with np.errstate(invalid="ignore"):  # (-1.5) ** a is nan: NumPy warns
        expected = op(np.float32(scalar), a)
    close(op(scalar, mt.tensor(a)), expected, rtol=1e-5)


def test_integer_arithmetic():
    a, b = arr((3, 4), "int"), arr((4,), "nonzero-int")
    ta, tb = mt.tensor(a), mt.tensor(b)
    for op in (operator.add, operator.sub, operator.mul):
        r = op(ta, tb)
        assert r.dtype is mt.int64
        np.testing.assert_array_equal(r.numpy(), op(a, b))
    # Python's (and PyTorch's) floor semantics for // and % with negative numbers
    np.testing.assert_array_equal((ta // tb).numpy(), a // b)
    np.testing.assert_array_equal((ta % tb).numpy(), a % b)
    np.testing.assert_array_equal((ta % -3).numpy(), a % -3)
    assert (mt.tensor([-7]) // 2).item() == -4 and (mt.tensor([-7]) % 2).item() == 1
    r = ta / tb
    assert r.dtype is mt.float32
    close(r, a / b)


def test_integer_division_by_zero_is_an_error_float_division_is_not():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        mt.tensor([1, 2]) // 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        mt.tensor([1, 2]) % mt.tensor([1, 0])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        mt.div(mt.tensor([1, 2]), 0, rounding_mode="trunc")
    assert (mt.tensor([1, 2]) / 0).tolist() == [float("inf")] * 2  # true division is floating point
    r = mt.tensor([1.0, -1.0]) // 0
    assert r.tolist() == [float("inf"), float("-inf")]


def test_fmod_and_remainder_differ_in_sign():
    a = np.array([-7, -3, 3, 7])
    af = np.array([-3.5, -1.0, 1.0, 3.5], np.float32)
    np.testing.assert_array_equal(mt.fmod(mt.tensor(a), 3).numpy(), np.fmod(a, 3))  # sign of the dividend
    np.testing.assert_array_equal(mt.tensor(a).fmod(-3).numpy(), np.fmod(a, -3))
    np.testing.assert_array_equal(mt.remainder(mt.tensor(a), 3).numpy(), np.remainder(a, 3))  # of the divisor
    np.testing.assert_array_equal(mt.tensor(af).fmod(2).numpy(), np.fmod(af, 2))
    np.testing.assert_array_equal(mt.tensor(af).remainder(-2).numpy(), np.remainder(af, -2))


def test_division_rounding_modes():
    a, b = np.array([-7.0, 7.0, -7.5, 7.5], np.float32), np.array([2.0, -2.0, 2.0, 2.0], np.float32)
    close(mt.div(mt.tensor(a), mt.tensor(b), rounding_mode="floor"), np.floor(a / b))
    close(mt.div(mt.tensor(a), mt.tensor(b), rounding_mode="trunc"), np.trunc(a / b))
    r = mt.div(mt.tensor([-7, 7]), 2, rounding_mode="trunc")
    assert r.dtype is mt.int64 and r.tolist() == [-3, 3]


def test_division_by_zero_gives_inf_and_nan_without_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = mt.tensor([1.0, -1.0, 0.0]) / 0.0
        big = mt.tensor([1e30]) / 1e-30  # overflow: inf, silently
        mean_of_nothing = mt.zeros(0, 3).mean(0)
    assert big.item() == float("inf") and np.isnan(mean_of_nothing.numpy()).all()
    assert r.tolist()[:2] == [float("inf"), float("-inf")] and np.isnan(r.tolist()[2])


def test_pow():
    a, b = arr((3, 4), "pos"), arr((4,))
    close(mt.tensor(a) ** mt.tensor(b), a ** b, rtol=1e-5)
    close(mt.pow(mt.tensor(a), 3), a ** 3, rtol=1e-5)
    close(2 ** mt.tensor(b), 2.0 ** b, rtol=1e-5)
    assert (mt.tensor([2, 3]) ** 2).tolist() == [4, 9] and (mt.tensor([2]) ** 2).dtype is mt.int64
    assert (mt.tensor([4]) ** 0.5).tolist() == [2.0] and (mt.tensor([4]) ** 0.5).dtype is mt.float32
    assert np.isnan((mt.tensor([-8.0]) ** (1 / 3)).item())  # real power of a negative: nan, as NumPy
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        mt.tensor([2]) ** -1


def test_alpha_arguments():
    a, b = arr((2, 3)), arr((3,))
    close(mt.add(mt.tensor(a), mt.tensor(b), alpha=2), a + 2 * b)
    close(mt.sub(mt.tensor(a), mt.tensor(b), alpha=0.5), a - 0.5 * b)
    close(mt.tensor(a).add(mt.tensor(b)), a + b)


def test_operator_methods_match_functions():
    a, b = arr((2, 3)), arr((2, 3), "pos")
    ta, tb = mt.tensor(a), mt.tensor(b)
    for name, f in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
                    ("maximum", np.maximum), ("minimum", np.minimum)]:
        close(getattr(ta, name)(tb), f(a, b))
        close(getattr(mt, name)(ta, tb), f(a, b))
    close(mt.multiply(ta, tb), a * b)
    close(mt.true_divide(ta, tb), a / b)


def test_reflected_operators_with_numpy_arrays():
    a = arr((2, 3))
    t = mt.tensor(a)
    r = np.ones(3, np.float32) + t  # NumPy defers to the tensor (__array_priority__)
    assert isinstance(r, mt.Tensor)
    close(r, a + 1)
    assert isinstance(t * np.float32(2), mt.Tensor)


# ---- comparisons and logic --------------------------------------------------------------

CMP = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


@pytest.mark.parametrize("sa, sb", SHAPES[:6], ids=[f"{a}-{b}" for a, b in SHAPES[:6]])
@pytest.mark.parametrize("op", CMP, ids=lambda f: f.__name__)
def test_comparisons_broadcast_and_give_bool(op, sa, sb):
    a, b = arr(sa, "int"), arr(sb, "int")
    r = op(mt.tensor(a), mt.tensor(b))
    assert r.dtype is mt.bool
    np.testing.assert_array_equal(r.numpy(), op(a, b))
    r2 = op(mt.tensor(a.astype(np.float32)), 1.5)
    np.testing.assert_array_equal(r2.numpy(), op(a, 1.5))
    np.testing.assert_array_equal(op(mt.tensor(a), 1).numpy(), op(a, 1))


def test_comparison_methods_and_nan():
    x = mt.tensor([1.0, float("nan"), 3.0])
    assert (x == x).tolist() == [True, False, True]
    assert (x != x).tolist() == [False, True, False]
    assert x.eq(1.0).tolist() == [True, False, False] and x.gt(2).tolist() == [False, False, True]
    assert mt.ge(x, 3).tolist() == [False, False, True]
    assert (x == "a") is False  # not comparable: Python falls back to identity


@pytest.mark.parametrize("name, f", [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                                     ("logical_xor", np.logical_xor)])
def test_logical_ops(name, f):
    a, b = arr((3, 4), "int"), arr((4,), "float")
    r = getattr(mt, name)(mt.tensor(a), mt.tensor(b))
    assert r.dtype is mt.bool
    np.testing.assert_array_equal(r.numpy(), f(a, b))
    np.testing.assert_array_equal(getattr(mt.tensor(a), name)(mt.tensor(b)).numpy(), f(a, b))


def test_logical_not_and_bitwise_operators():
    m, n = arr((3, 4), "bool"), arr((4,), "bool")
    tm, tn = mt.tensor(m), mt.tensor(n)
    np.testing.assert_array_equal((~tm).numpy(), ~m)
    np.testing.assert_array_equal((tm & tn).numpy(), m & n)
    np.testing.assert_array_equal((tm | tn).numpy(), m | n)
    np.testing.assert_array_equal((tm ^ tn).numpy(), m ^ n)
    i = arr((4,), "int")
    np.testing.assert_array_equal((~mt.tensor(i)).numpy(), ~i)
    np.testing.assert_array_equal((mt.tensor(i) & 6).numpy(), i & 6)
    np.testing.assert_array_equal(mt.logical_not(mt.tensor(i)).numpy(), np.logical_not(i))


def test_bool_arithmetic_rules():
    a, b = mt.tensor([True, False, True]), mt.tensor([True, True, False])
    assert (a + b).dtype is mt.bool and (a + b).tolist() == [True, True, True]  # addition is "or"
    assert (a * b).tolist() == [True, False, False]
    assert (a + 1).dtype is mt.int64 and (a + 1).tolist() == [2, 1, 2]
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        a - b
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        a - 1
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor"):
        -a


# ---- unary math ---------------------------------------------------------------------------

UNARY = [
    ("exp", np.exp, "float"), ("log", np.log, "pos"), ("sqrt", np.sqrt, "pos"), ("abs", np.abs, "float"),
    ("sin", np.sin, "float"), ("cos", np.cos, "float"), ("tanh", np.tanh, "float"),
    ("sigmoid", lambda a: 1 / (1 + np.exp(-a.astype(np.float64))), "float"),
    ("relu", lambda a: np.maximum(a, 0), "float"), ("neg", np.negative, "float"), ("sign", np.sign, "float"),
    ("floor", np.floor, "float"), ("ceil", np.ceil, "float"), ("round", np.round, "float"),
    ("trunc", np.trunc, "float"), ("rsqrt", lambda a: 1 / np.sqrt(a), "pos"), ("log1p", np.log1p, "pos"),
    ("expm1", np.expm1, "float"), ("square", np.square, "float"), ("reciprocal", np.reciprocal, "pos"),
]


@pytest.mark.parametrize("name, f, kind", UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4), (0, 2)])
def test_unary_matches_numpy(name, f, kind, shape):
    a = arr(shape, kind)
    t = mt.tensor(a)
    for out in (getattr(t, name)(), getattr(mt, name)(t)):
        assert out.dtype is mt.float32
        close(out, f(a), rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(t.numpy(), a)  # the input is untouched


@pytest.mark.parametrize("name, f", [("exp", np.exp), ("sqrt", np.sqrt), ("sin", np.sin), ("sigmoid", None),
                                     ("log", np.log), ("tanh", np.tanh)])
def test_float_functions_of_integers_give_float32(name, f):
    a = np.array([1, 2, 3])
    out = getattr(mt.tensor(a), name)()
    assert out.dtype is mt.float32
    expected = 1 / (1 + np.exp(-a)) if f is None else f(a)
    close(out, expected)


def test_integer_preserving_unary():
    a = np.array([-3, 0, 2])
    for name in ("abs", "neg", "relu", "sign", "round", "floor", "square"):
        r = getattr(mt.tensor(a), name)()
        assert r.dtype is mt.int64, name
    assert mt.tensor(a).abs().tolist() == [3, 0, 2] and mt.tensor(a).relu().tolist() == [0, 0, 2]
    assert abs(mt.tensor(a)).tolist() == [3, 0, 2] and (-mt.tensor(a)).tolist() == [3, 0, -2]


def test_special_values():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch doesn't warn on log(0) or sqrt(-1), nor should we
        r = mt.log(mt.tensor([0.0, -1.0, 1.0]))
        s = mt.sqrt(mt.tensor([-1.0, 4.0]))
    assert r[0].item() == float("-inf") and np.isnan(r[1].item()) and r[2].item() == 0.0
    assert np.isnan(s[0].item()) and s[1].item() == 2.0
    sig = mt.sigmoid(mt.tensor([-1000.0, 0.0, 1000.0]))
    assert sig.tolist() == [0.0, 0.5, 1.0]  # no overflow at the extremes
    assert mt.tensor([0.5, 1.5, 2.5, -0.5]).round().tolist() == [0.0, 2.0, 2.0, -0.0]  # half to even
    x = mt.tensor([1.0, float("nan"), float("inf"), -float("inf")])
    assert mt.isnan(x).tolist() == [False, True, False, False]
    assert mt.isinf(x).tolist() == [False, False, True, True]
    assert x.isfinite().tolist() == [True, False, False, False]


def test_log2_log10():
    a = arr((4,), "pos")
    close(mt.tensor(a).log2(), np.log2(a))
    close(mt.tensor(a).log10(), np.log10(a))


# ---- clamp, where, maximum/minimum --------------------------------------------------------

def test_clamp():
    a = arr((3, 4))
    t = mt.tensor(a)
    close(t.clamp(-1, 1), np.clip(a, -1, 1))
    close(t.clamp(min=0.5), np.maximum(a, 0.5))
    close(t.clamp(max=-0.5), np.minimum(a, -0.5))
    close(mt.clamp(t, -0.1, 0.1), np.clip(a, -0.1, 0.1))
    close(mt.clip(t, 0, 1), np.clip(a, 0, 1))
    close(t.clamp_min(0), np.maximum(a, 0))
    close(t.clamp_max(0), np.minimum(a, 0))
    lo, hi = arr((4,), low=-2, high=-1), arr((3, 1), low=1, high=2)
    close(t.clamp(mt.tensor(lo), mt.tensor(hi)), np.minimum(np.maximum(a, lo), hi))
    i = mt.tensor([-5, 0, 5])
    assert i.clamp(-2, 2).dtype is mt.int64 and i.clamp(-2, 2).tolist() == [-2, 0, 2]
    assert i.clamp(-1.5, 2.5).dtype is mt.float32 and i.clamp(-1.5, 2.5).tolist() == [-1.5, 0.0, 2.5]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        t.clamp()


@pytest.mark.parametrize("sc, sa, sb", [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), ()), ((3, 1), (1, 4), (3, 4)),
                                        ((2, 1, 4), (3, 1), (4,))])
def test_where_broadcasts(sc, sa, sb):
    c, a, b = arr(sc, "bool"), arr(sa), arr(sb)
    out = mt.where(mt.tensor(c), mt.tensor(a), mt.tensor(b))
    close(out, np.where(c, a, b))
    close(mt.tensor(a).where(mt.tensor(c), mt.tensor(b)), np.where(c, a, b))


def test_where_with_scalars_and_promotion():
    c = np.array([True, False, True])
    r = mt.where(mt.tensor(c), 1.0, 0.0)
    assert r.dtype is mt.float32 and r.tolist() == [1.0, 0.0, 1.0]
    r = mt.where(mt.tensor(c), mt.tensor([1, 2, 3]), 0.5)
    assert r.dtype is mt.float32 and r.tolist() == [1.0, 0.5, 3.0]
    r = mt.where(mt.tensor(c), 1, 0)
    assert r.dtype is mt.int64
    idx = mt.where(mt.tensor(c))
    assert isinstance(idx, tuple) and idx[0].tolist() == [0, 2]
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        mt.where(mt.tensor([1, 0]), 1.0, 0.0)


@pytest.mark.parametrize("sa, sb", SHAPES[:6], ids=[f"{a}-{b}" for a, b in SHAPES[:6]])
def test_maximum_minimum(sa, sb):
    a, b = arr(sa), arr(sb)
    close(mt.maximum(mt.tensor(a), mt.tensor(b)), np.maximum(a, b))
    close(mt.minimum(mt.tensor(a), mt.tensor(b)), np.minimum(a, b))
    close(mt.max(mt.tensor(a), mt.tensor(b)), np.maximum(a, b))
    close(mt.min(mt.tensor(a), mt.tensor(b)), np.minimum(a, b))


def test_maximum_propagates_nan():
    r = mt.maximum(mt.tensor([1.0, float("nan")]), mt.tensor([float("nan"), 0.0]))
    assert np.isnan(r.numpy()).all()


def test_isclose_allclose_equal():
    a = arr((3,))
    assert mt.allclose(mt.tensor(a), mt.tensor(a + 1e-7))
    assert not mt.allclose(mt.tensor(a), mt.tensor(a + 1e-2))
    np.testing.assert_array_equal(mt.isclose(mt.tensor(a), mt.tensor(a + 1e-2)).numpy(),
                                  np.isclose(a, a + 1e-2))
    assert mt.equal(mt.tensor([1, 2]), mt.tensor([1, 2])) and not mt.equal(mt.tensor([1, 2]), mt.tensor([1, 3]))
    assert not mt.equal(mt.tensor([1, 2]), mt.tensor([[1, 2]]))


def test_outer_and_broadcast_shapes():
    a, b = arr((3,)), arr((4,))
    close(mt.outer(mt.tensor(a), mt.tensor(b)), np.outer(a, b))
    assert mt.broadcast_shapes((3, 1), (1, 4), (4,)) == np.broadcast_shapes((3, 1), (1, 4), (4,))
    assert isinstance(mt.broadcast_shapes((2,), ()), mt.Size)


def test_results_are_new_tensors_not_views():
    a = mt.tensor(arr((3,)))
    for r in (a + 0, a * 1, a.abs(), a.clamp(-10, 10)):
        assert r.data_ptr() != a.data_ptr()


# ---- PyTorch's semantics where NumPy's differ -------------------------------------------------

def test_rounding_an_integer_tensor_gives_a_copy():
    x = mt.tensor([1, 2])
    for name in ("floor", "ceil", "round", "trunc"):
        y = getattr(x, name)()
        y += 10
        assert y is not x and x.tolist() == [1, 2], name


def test_bool_tensors_refuse_what_pytorch_refuses():
    t = mt.tensor([True, False])
    for f in (lambda: t.abs(), lambda: t.floor(), lambda: t.round()):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            f()
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        t.relu()
    assert t.sign().tolist() == [True, False]


def test_alpha_is_applied_after_promotion():
    r = mt.add(mt.tensor([1.5]), mt.tensor([6], dtype=mt.uint8), alpha=-1)  # 1.5 - 6, not 1.5 + 250
    assert r.tolist() == [-4.5]
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        mt.add(mt.tensor([1]), mt.tensor([2]), alpha=0.5)


def test_log1p_and_expm1_of_integers_and_of_small_values():
    assert mt.tensor([255], dtype=mt.uint8).log1p().dtype is mt.float32
    np.testing.assert_allclose(mt.tensor([255], dtype=mt.uint8).log1p().numpy(), np.log1p([255.0]), rtol=1e-6)
    tiny = np.array([1e-10, -3e-9])  # log(1 + x) would lose most digits here
    np.testing.assert_allclose(mt.tensor(tiny).log1p().numpy(), np.log1p(tiny), rtol=1e-14)
    np.testing.assert_allclose(mt.tensor(tiny).expm1().numpy(), np.expm1(tiny), rtol=1e-14)


def test_integer_powers_with_negative_integer_exponents():
    assert (mt.tensor([2, 3, 1, -1]) ** mt.tensor([-1, 2, -3, -3])).tolist() == [0, 9, 1, -1]
    assert (2 ** mt.tensor([-1, 2])).tolist() == [0, 4]
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        mt.tensor([2]) ** -1


def test_two_python_numbers_where_pytorch_takes_them():
    assert mt.add(5, 5).tolist() == 10 and mt.add(5, 5).dtype is mt.int64
    assert mt.div(5, 2).item() == 2.5 and mt.add(True, True).dtype is mt.bool
    with pytest.raises(TypeError):
        mt.maximum(mt.ones(2), 3)
    with pytest.raises(TypeError):
        mt.logical_and(mt.ones(2), 0.5)


def test_shifts_and_remainder_signs():
    assert (mt.arange(4) << 2).tolist() == [0, 4, 8, 12] and (mt.tensor([1]) << 70).tolist() == [0]
    assert (mt.tensor([-8]) >> 100).tolist() == [-1]
    r = mt.tensor([-2.0, 2.0]) % 1.0  # fmod then the divisor's sign: -0. stays -0.
    assert np.signbit(r.numpy()).tolist() == [True, False]


def test_round_with_decimals():
    assert mt.tensor([1.2345, 1234.5]).round(decimals=2).tolist() == pytest.approx([1.23, 1234.5])
    assert mt.tensor([1234.5, 35.0]).round(decimals=-1).tolist() == [1230.0, 40.0]
    with pytest.raises(NotImplementedError):
        mt.tensor([12]).round(decimals=-1)


def test_numpy_floating_point_warnings_do_not_reach_the_learner():
    """PyTorch gives inf and nan silently; NumPy's RuntimeWarnings from inside minitorch are
    silenced (a filter minitorch installs), while the learner's own NumPy code still warns."""
    import warnings
    x = mt.tensor([1000.0, -1.0, 0.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # a fresh process's filters, plus the one minitorch installs
        warnings.filterwarnings(**mt._QUIET_NUMPY)
        y = (x.exp(), x.log(), x / 0, x.sqrt(), x * float("inf"), x.exp().sum(), x.pow(1000))
        np.log(np.array([-1.0]))
    assert [str(w.message) for w in caught] == ["invalid value encountered in log"]
    assert y[0].tolist()[0] == float("inf") and np.isnan(y[1].tolist()[1])


def test_importing_minitorch_installs_the_numpy_warning_filter():
    import subprocess
    import sys
    code = ("import warnings, minitorch\n"
            "assert any(f[0] == 'ignore' and f[2] is RuntimeWarning and f[3] is not None and f[3].pattern == "
            "minitorch._QUIET_NUMPY['module'] for f in warnings.filters)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    minitorch.tensor([1000.0]).exp()\n"
            "assert not w, w\n")
    subprocess.run([sys.executable, "-c", code], check=True)
