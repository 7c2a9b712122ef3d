"""Corner cases of the core ops against PyTorch 2.13: how a Python number is written into a tensor
(PyTorch's checked conversion: 300 does not fit int8, -1 wraps into uint8, a float is truncated),
bound and alpha / value arguments (clamp, hardtanh, threshold, add, addcmul, where, linspace,
logspace), arange / range and their checks in PyTorch's order, lerp's dtype rules, padding's shape
checks, the gradient of the gate activations (a NaN or inf upstream gradient stops at a closed gate),
the layout of cat's result, as_strided's default offset and as_strided_, and the result
tensor ** tensor keeps for backward.

Each case is a line of source run on both libraries: the same exception type (and, where marked
exact, the same message), or the same values, dtype and shape. Skipped when PyTorch is not
installed.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch

def _attempt(f, *args, **kwargs):
    """f(*args): its exception's type name if it raises (for a case that reads a tensor after an error)."""
    try:
        f(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__
    return None


NAMES = {"nan": math.nan, "inf": math.inf, "attempt": _attempt}


def _flat(r):
    if isinstance(r, (torch.Tensor, minitorch.Tensor)):
        return ("tensor", str(r.dtype).split(".")[-1], tuple(r.shape), r.detach().numpy().copy())
    if isinstance(r, (tuple, list)):  # (return types such as cummax's too)
        return ("seq", tuple(_flat(x) for x in r))
    return ("value", r)


def _outcome(lib, src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = eval(src, {"T": lib, **NAMES})  # noqa: S307  (the cases below, nothing else)
        except Exception as e:  # noqa: BLE001
            return ("raises", type(e).__name__, str(e).split("\n")[0])
    return _flat(r)


def _same(want, got, src):
    assert want[0] == got[0], f"{src}: PyTorch {want}, minitorch {got}"
    if want[0] == "tensor":
        assert want[1:3] == got[1:3], f"{src}: PyTorch {want[1:3]}, minitorch {got[1:3]}"
        if want[3].dtype.kind == "f":  # (to rounding: NumPy's and PyTorch's kernels may differ in the last bit)
            np.testing.assert_allclose(got[3], want[3], rtol=2e-6, atol=0, equal_nan=True, err_msg=src)
        else:
            np.testing.assert_array_equal(got[3], want[3], err_msg=src)
    elif want[0] == "seq":
        assert len(want[1]) == len(got[1]), f"{src}: PyTorch {len(want[1])} results, minitorch {len(got[1])}"
        for w, g in zip(want[1], got[1]):
            _same(w, g, src)
    else:
        assert want == got, src


def check(src, exact=False):
    want, got = _outcome(torch, src), _outcome(minitorch, src)
    if want[0] == "raises" and got[0] == "raises":
        assert want[1] == got[1], f"{src}: PyTorch raises {want[1:]}, minitorch {got[1:]}"
        if exact:
            assert want[2] == got[2].replace("minitorch", "torch"), f"{src}: message {got[2]!r}, PyTorch's {want[2]!r}"
        return
    _same(want, got, src)


INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]

# writing a Python number into a tensor: fills, bounds, alpha / value, elementwise Python callables
CONVERSIONS = [
    "T.zeros(3, dtype=T.{dt}).fill_({v})",
    "T.full((2,), {v}, dtype=T.{dt})",
    "T.ones(2, dtype=T.{dt}).masked_fill(T.tensor([True, False]), {v})",
    "T.ones(2, dtype=T.{dt}).clamp({v})",
    "T.ones(2, dtype=T.{dt}).clamp(max={v})",
    "T.ones(2, dtype=T.{dt}).clamp_(min={v})",
    "T.clamp_min(T.ones(2, dtype=T.{dt}), {v})",
    "T.clamp_max(T.ones(2, dtype=T.{dt}), {v})",
    "T.nn.functional.hardtanh(T.ones(2, dtype=T.{dt}), -1, {v})",
    "T.nn.functional.threshold(T.ones(2, dtype=T.{dt}), {v}, 0)",
    "T.nn.functional.threshold(T.ones(2, dtype=T.{dt}), 0, {v})",
    "T.add(T.ones(2, dtype=T.{dt}), T.ones(2, dtype=T.{dt}), alpha={v})",
    "T.ones(2, dtype=T.{dt}).sub_(1, alpha={v})",
    "T.addcmul(T.ones(2, dtype=T.{dt}), T.ones(2, dtype=T.{dt}), T.ones(2, dtype=T.{dt}), value={v})",
    "T.ones(2, dtype=T.{dt}).addcmul_(T.ones(2, dtype=T.{dt}), T.ones(2, dtype=T.{dt}), value={v})",
    "T.where(T.tensor([True, False]), T.ones(2, dtype=T.{dt}), {v})",
    "T.where(T.tensor([True, False]), {v}, T.ones(2, dtype=T.{dt}))",
    "T.ones(2, dtype=T.{dt}).apply_(lambda x: {v})",
    "T.ones(2, dtype=T.{dt}).map_(T.ones(2, dtype=T.{dt}), lambda x, y: {v})",
    "T.linspace(0, {v}, 3, dtype=T.{dt})",
    "T.logspace(0, {v}, 3, dtype=T.{dt})",
]
NUMBERS = ["1", "2.7", "-1", "-1.5", "127", "128", "-129", "255", "256", "-256", "40000", "2**31", "nan", "inf",
           "True"]


@pytest.mark.parametrize("template", CONVERSIONS)
@pytest.mark.parametrize("dt", INT_DTYPES + ["bool", "float16", "float32"])
def test_number_written_into_a_tensor(template, dt):
    for v in NUMBERS:
        if "logspace" in template and v in ("255", "256", "40000", "2**31", "128", "127"):
            continue  # (10 ** 127 in float is inf: what an integer dtype then holds is the C cast's)
        check(template.format(dt=dt, v=v))


SCALAR_CASES = [
    # bool tensors: PyTorch's kernels refuse them, or promote for an int / float bound
    "T.clamp(T.tensor([True]), max=False)", "T.clamp(T.tensor([True]), min=False)",
    "T.clamp(T.tensor([True]), False, True)", "T.clamp_min(T.tensor([True]), False)",
    "T.tensor([True]).clamp_(max=False)", "T.clamp(T.tensor([True]), min=0)", "T.clamp(T.tensor([True]), max=0.5)",
    "+T.tensor([True])", "+T.tensor([1])", "T.positive(T.tensor([True]))",
    "T.addcmul(T.tensor([True]), T.tensor([True]), T.tensor([True]), value=2)",
    # alpha
    "T.sub(T.tensor([2, 5], dtype=T.uint8), T.tensor(5, dtype=T.uint8), alpha=True)",
    "T.add(T.tensor([2., 5]), 1, alpha=True)", "T.add(T.tensor([True]), T.tensor([True]), alpha=False)",
    "T.tensor([2, 5]).add_(T.tensor(5), alpha=True)", "T.rsub(T.tensor([2, 5]), 1, alpha=True)",
    "T.add(T.tensor([1.], dtype=T.float16), T.tensor([1.], dtype=T.float16), alpha=1e6)",
    "T.add(T.tensor([1.]), T.tensor([1.]), alpha=1e300)", "T.add(T.tensor([1]), T.tensor([1]), alpha=nan)",
    "T.addcmul(T.tensor([1.], dtype=T.float16), T.tensor([2.], dtype=T.float16), T.tensor([3.], "
    "dtype=T.float16), value=1e6)",
    "T.addcmul(T.tensor([1.]), T.tensor([2.]), T.tensor([3.]), value=1e300)",
    # arange / range / linspace / logspace
    "T.arange(0, 3, dtype=T.bool)", "T.arange(-2.0, inf, 0.001)", "T.arange(0.001, inf, nan)", "T.arange(inf, -2, -1)",
    "T.arange(inf, inf)", "T.arange(nan)", "T.arange(inf)", "T.arange(0, 5, nan)", "T.arange(0, 5, 0)",
    "T.arange(0, 5, -1)", "T.arange(5, 0, 1)", "T.arange(0, 1e20, 1e-10)", "T.arange(0, 300, 100, dtype=T.int8)",
    "T.arange(0, 3.5, dtype=T.int8)", "T.arange(T.tensor(3))", "T.arange(T.tensor([3]))",
    "T.arange(0, T.tensor([3]))", "T.range(0, 3)", "T.range(0, 1, 0.3)", "T.range(5, 0, -2)",
    "T.range(0, 3, dtype=T.int64)", "T.range(0, 3, 0)", "T.range(0, 3, -1)",
    "T.linspace(0, 1, 3, dtype=T.bool)", "T.logspace(0, 1, 3, dtype=T.bool)", "T.linspace(0.5, 10.7, 4, dtype=T.int32)",
    "T.linspace(-1, 10, 3, dtype=T.uint8)", "T.logspace(0, 2, 3, base=-2, dtype=T.int8)",
    # lerp: end's and weight's dtypes are checked before the kernel's
    "T.lerp(T.tensor([0], dtype=T.int8), T.tensor(3.0), 3.25)",
    "T.lerp(T.tensor([0], dtype=T.int8), T.tensor([3], dtype=T.int8), 3.25)",
    "T.lerp(T.tensor([0.], dtype=T.float16), T.tensor([3.]), 0.5)",
    "T.lerp(T.tensor([0.]), T.tensor([3.], dtype=T.float64), 0.5)",
    "T.lerp(T.tensor([0.]), T.tensor([3.]), T.tensor([0.5], dtype=T.float64))",
    "T.lerp(T.tensor([0.]), T.tensor([3.]), T.tensor(0.5, dtype=T.float64))",
    "T.lerp(T.zeros(3, 0, dtype=T.int16), T.tensor([], dtype=T.float16), T.tensor([], dtype=T.float16))",
    "T.lerp(T.tensor([0.]), T.tensor([3.]), T.tensor([0, 1]))", "T.lerp(T.tensor([0]), T.tensor([3]), T.tensor([1]))",
    "T.lerp(T.tensor([0]), T.tensor([3]), T.tensor(1.5))",
    "T.lerp(T.tensor(0., dtype=T.float16), T.tensor(3., dtype=T.float16), T.tensor(0.3, dtype=T.float64))",
    "T.tensor([0.]).lerp_(T.tensor([3.], dtype=T.float64), 0.5)",
    # bitwise_not of floats, binary_cross_entropy of NaN
    "T.bitwise_not(T.tensor([1.5], dtype=T.float16))", "T.tensor([1.5], dtype=T.float64).bitwise_not_()",
    "T.nn.functional.binary_cross_entropy(T.tensor([nan, 0.5]), T.tensor([0.5, 0.5]))",
    "T.nn.functional.binary_cross_entropy(T.tensor([0.5, 0.5]), T.tensor([nan, 0.5]))",
    # functional transforms of an integer input
    "T.autograd.functional.jacobian(lambda t: t.sin(), T.tensor([1, 2]))",
    "T.autograd.functional.hessian(lambda t: t.sin().sum(), T.tensor([1, 2]))",
    # softmax: the dim is checked before the dtype; an empty integer input is returned as it is
    "T.softmax(T.arange(3), 5)", "T.log_softmax(T.tensor(3), 1)", "T.softmax(T.zeros(2, 0, dtype=T.long), 0)",
    "T.nn.Softmax(dim=-2)(T.zeros(3, 0, 4, 0, dtype=T.uint8))", "T.nn.functional.glu(T.ones(1), -2)",
]

# 0-d and shape checks in PyTorch's order, hsplit / vsplit / dsplit, ldexp / nextafter, torch.special
# extras, apply_ / map_ one element at a time, broadcast errors, identity-size interpolation
MORE_CASES = [
    "T.nn.functional.max_pool2d(T.tensor([[[[1.3, nan, 0.5, nan], [-3.0, nan, 0.1, 2], [nan, 1, 2, 3]]]]), 2, 1, "
    "return_indices=True)",
    "T.nn.functional.adaptive_max_pool2d(T.tensor([[[[1.3, nan, 0.5, nan], [-3.0, nan, 0.1, 2], [nan, 1, 2, 3]]]]), "
    "(2, 2), return_indices=True)",
    "T.nn.functional.max_pool1d(T.tensor([[1.3, nan, 0.5, nan, 2., nan]]), 3, 1, return_indices=True)",
    "T.tensor(1.0, requires_grad=True).bitwise_not_()", "T.tensor(1.0).bitwise_not_()",
    "T.ones(2).map_(T.ones(2, dtype=T.float64, requires_grad=True), lambda a, b: a)",
    "(lambda x: (T.linalg.norm(x).backward(), x.grad.stride())[1])(T.zeros(0, 0, 4, requires_grad=True))",
    "(lambda x: ((x * 2).sum().backward(), x.grad.stride())[1])"
    "(T.arange(12.).reshape(2, 2, 3).transpose(1, 2).detach().requires_grad_())",
    "(lambda x: ((x * 2).sum().backward(), x.grad.stride())[1])(T.ones(3, 1).expand(3, 4).detach().requires_grad_())",
    "T.arange(36).reshape(2, 2, 3, 3).permute([2, 1, 0, 3]).mul(1).as_strided((2, 2), (1, 3), 2)",
    "T.arange(36).reshape(2, 2, 3, 3).permute([2, 1, 0, 3]).mul(1).as_strided((4,), (1,))",
    "T.arange(6.).reshape(2, 3).t().contiguous().t().as_strided((3,), (2,))",
    "T.arange(6.)[2:].as_strided((2,), (1,))",
    "T.zeros(0, 3, dtype=T.long).index_add(1, T.tensor([1, 1, 1]), T.zeros(0, 3, dtype=T.long), alpha=nan)",
    "T.zeros(2, 3, dtype=T.long).index_add(1, T.tensor([1, 1, 1]), T.zeros(2, 3, dtype=T.long), alpha=nan)",
    "T.zeros(2, 3, dtype=T.long).index_add(1, T.tensor([], dtype=T.long), T.zeros(2, 0, dtype=T.long), alpha=nan)",
    "T.nonzero(T.tensor(2), as_tuple=True)[0]._base.stride()",
    "T.ones(3)[1:].detach()._base", "T.ones(3).view(T.int32)._base", "T.ones(3)[1:].detach().storage_offset()",
    'T.ones(2).narrow(0, 3, 0)',
    'T.ones(2).narrow(0, -3, 0)',
    'T.ones(2).narrow(0, -2, 1)',
    'T.ones(2).narrow(0, 2, 0)',
    'T.ones(2).narrow(0, 1, 2)',
    'T.ones(2).narrow(0, 0, -1)',
    'T.ones(2).narrow(1, 0, 1)',
    'T.ones(2).narrow(0, T.tensor(1), 1)',
    'T.normal(T.zeros(2, 0, dtype=T.long), 2.0)',
    'T.randn_like(T.zeros(0, 1, dtype=T.int8))',
    'T.randn_like(T.zeros(0, 1, dtype=T.int8), dtype=T.int16)',
    'T.randn(0, dtype=T.int64)',
    'T.rand(0, dtype=T.int64)',
    'T.normal(T.zeros(2, dtype=T.long), nan)',
    'T.normal(0., nan, (2,))',
    'T.zeros(0, dtype=T.long).normal_()',
    'T.zeros(2).normal_(0, nan)',
    'T.normal(T.zeros(2), T.tensor([nan, 1.]))',
    'T.rand_like(T.zeros(0, dtype=T.int8))',
    'T.tensor(1.).split(1)',
    'T.tensor(1.).split([1])',
    'T.tensor(1.).chunk(2)',
    'T.tensor(1.).chunk(2, 0)',
    'T.tensor(1.).narrow(0, 0, 1)',
    'T.tensor(1.).tensor_split(2)',
    'T.tensor(1.).unbind()',
    'T.tensor(1.).movedim(-1, -1)',
    'T.tensor(1.).movedim(0, 0)',
    'T.tensor(1.).movedim(1, 0)',
    'T.tensor(1.).movedim((0,), (0,))',
    'T.tensor(1.).moveaxis(0, 0)',
    'T.tensor(1.).unflatten(0, (1, 1))',
    'T.tensor(1.).hsplit(1)',
    'T.tensor(1.).swapaxes(0, 0)',
    'T.tensor(1.).transpose(0, -1)',
    'T.tensor(1.).select(0, 0)',
    'T.tensor(1.).diagonal()',
    'T.tensor(1.).flip(0)',
    'T.tensor(1.).roll(1, 0)',
    'T.tensor(1.).roll(1)',
    'T.tensor(1.).unfold(0, 1, 1)',
    'T.tensor(1.).repeat_interleave(2, 0)',
    'T.tensor(1.).cumsum(0)',
    'T.tensor(1.).squeeze(0)',
    'T.tensor(1.).unsqueeze(1)',
    'T.tensor(1.).flatten(0, 0)',
    'T.tensor(1.).view(1)',
    'T.tensor(1.).expand(())',
    'T.tensor(1.).permute()',
    'T.tensor(1.).permute(0)',
    'T.tensor(1.).t()',
    'T.tensor(1.).T',
    'T.tensor(1.).mT',
    'T.tensor(1.).mH',
    'T.tensor(1.).stride(0)',
    'T.tensor(1.).size(0)',
    'T.tensor(1.).size(-1)',
    'T.ones(2, 3).stride(2)',
    'T.mv(T.tensor(1), T.tensor([1, 2]))',
    'T.mv(T.ones(2, 2), T.tensor(1.))',
    'T.mm(T.tensor(1.), T.ones(2, 2))',
    'T.bmm(T.tensor(1.), T.ones(2, 2))',
    'T.addmm(T.tensor(1.), T.tensor(1.), T.ones(2, 2))',
    'T.addmv(T.tensor(1.), T.tensor(1.), T.ones(2))',
    'T.baddbmm(T.tensor(1.), T.tensor(1.), T.ones(2, 2))',
    'T.baddbmm(T.tensor(1.), T.ones(2, 2, 2), T.ones(2, 2))',
    'T.baddbmm(T.tensor(1.), T.ones(2, 2), T.ones(2, 2, 2))',
    'T.baddbmm(T.tensor(1.), T.ones(2), T.ones(2, 2, 2))',
    'T.addbmm(T.tensor(1.), T.ones(2, 2), T.ones(2, 2, 2))',
    'T.addbmm(T.tensor(1.), T.ones(2, 2, 2), T.ones(2, 2))',
    'T.addr(T.tensor(1.), T.tensor(1.), T.ones(2))',
    'T.outer(T.tensor(1.), T.ones(2))',
    'T.dot(T.tensor(1.), T.ones(2))',
    'T.inner(T.tensor(1.), T.ones(2))',
    'T.hsplit(T.ones(4), 2)',
    'T.hsplit(T.ones(4), 3)',
    'T.hsplit(T.ones(4), 0)',
    'T.hsplit(T.ones(4), -1)',
    'T.hsplit(T.ones(4), [1])',
    'T.hsplit(T.ones(2, 4), 2)',
    'T.hsplit(T.ones(2, 4), (1, 3))',
    'T.hsplit(T.tensor(1.), 1)',
    'T.vsplit(T.ones(4), 2)',
    'T.vsplit(T.ones(2, 4), 2)',
    'T.vsplit(T.ones(2, 4), [1])',
    'T.dsplit(T.ones(2, 4), 2)',
    'T.dsplit(T.ones(2, 2, 4), 2)',
    'T.dsplit(T.ones(2, 2, 4), 3)',
    'T.ones(2, 2, 4).dsplit([1, 2])',
    'T.ones(2, 4).hsplit(2)[1]',
    'T.tensor([False, True]) ** T.tensor([4, -2, 4, -1, 9, 4, 0])',
    'T.ones(3, 1, 3, 4, dtype=T.float16).__isub__(T.ones(2, 1, 3, 4, dtype=T.float16))',
    'T.ones(3, 1, 3, 4).sub_(T.ones(2, 1, 3, 4))',
    'T.ones(3, 4).mul_(T.ones(2, 4))',
    'T.ones(3, 4).pow_(T.ones(2, 4))',
    'T.ones(3, 4).atan2_(T.ones(2, 4))',
    'T.ones(3, 4).lerp_(T.ones(2, 4), 0.5)',
    'T.ones(3, 4).copy_(T.ones(2, 4))',
    'T.ones(3, 4).where(T.ones(2, 4) > 0, 1.)',
    'T.nn.functional.binary_cross_entropy_with_logits(T.ones(4, 2), T.ones(4, 2), pos_weight=T.ones(4, 7))',
    'T.atan2(T.ones(3), T.ones(2))',
    'T.hypot(T.ones(3), T.ones(2))',
    'T.fmod(T.ones(3), T.ones(2))',
    'T.ones(3, dtype=T.int64) << T.ones(2, dtype=T.int64)',
    'T.ldexp(T.ones(3), T.ones(2))',
    'T.xlogy(T.ones(3), T.ones(2))',
    'T.copysign(T.ones(3), T.ones(2))',
    'T.nextafter(T.ones(3), T.ones(2))',
    'T.logaddexp(T.ones(3), T.ones(2))',
    'T.heaviside(T.ones(3), T.ones(2))',
    'T.lerp(T.ones(3), T.ones(2), 0.5)',
    'T.addcmul(T.ones(3), T.ones(2), T.ones(3))',
    'T.clamp(T.ones(3), T.ones(2))',
    'T.maximum(T.ones(3), T.ones(2))',
    'T.ones(3).masked_fill(T.ones(2) > 0, 1)',
    'T.nn.functional.mse_loss(T.ones(3), T.ones(2))',
    'T.nn.functional.l1_loss(T.ones(3), T.ones(2))',
    'T.nn.functional.smooth_l1_loss(T.ones(3), T.ones(2))',
    'T.dist(T.ones(3), T.ones(2))',
    'T.isclose(T.ones(3), T.ones(2))',
    'T.eq(T.ones(3), T.ones(2))',
    'T.logical_and(T.ones(3), T.ones(2))',
    'T.special.xlog1py(T.tensor([0., 1, 2, nan, 0]), T.tensor([nan, -1, 1, 1, -2]))',
    'T.special.xlog1py(T.tensor([1, 2]), T.tensor([1, 2]))',
    'T.special.xlog1py(2, T.tensor([1.]))',
    'T.special.xlog1py(T.tensor([1.]), 2)',
    'T.special.xlog1py(T.tensor([1.], dtype=T.float64), T.tensor([1.]))',
    'T.special.xlog1py(T.tensor([1.], dtype=T.float16), 3)',
    'T.special.entr(T.tensor([0., 1, 0.5, -1, nan, inf]))',
    'T.special.entr(T.tensor([1, 2]))',
    'T.special.ndtr(T.tensor([0., 1, -40, 3]))',
    'T.special.ndtr(T.tensor([1, 2]))',
    'T.special.ndtri(T.tensor([0., 0.5, 0.9, 1, -1, 0.01]))',
    'T.special.ndtri(T.tensor([0, 1]))',
    'T.special.xlogy(T.tensor([0., 1]), T.tensor([0., 2]))',
    'T.ldexp(T.tensor([1, 2]), T.tensor([3, 4]))',
    'T.ldexp(T.tensor([1.], dtype=T.float16), T.tensor([3]))',
    'T.ldexp(T.tensor([1.]), T.tensor([3.], dtype=T.float64))',
    'T.ldexp(T.tensor([1.5, -2]), T.tensor([-1, 200]))',
    'T.tensor([1.5]).ldexp(T.tensor([2]))',
    'T.tensor([1.5]).ldexp_(T.tensor([2]))',
    'T.nextafter(T.tensor([1., 2]), T.tensor([3., 0]))',
    'T.nextafter(T.tensor([1]), T.tensor([2]))',
    'T.nextafter(T.tensor([1.]), 2.)',
    'T.nextafter(T.tensor([1.]), T.tensor([2.], dtype=T.float64))',
    'T.tensor([1.]).nextafter_(T.tensor([2.]))',
    'T.tensor([[0, 576, 5, 5]], dtype=T.int32).expand((2, 4)).map_(T.tensor([[9, -4, 2, 1], [110, 5, 9, -4]], dtype=T.int32), lambda x, y: x + y)',
    'T.tensor([[0, 576, 5, 5]], dtype=T.int32).expand((2, 4)).apply_(lambda x: x + 1)',
    'T.tensor([[3, 8, 255, 4, 1, 6], [0, 4, 255, 1, 2, 8]], dtype=T.uint8)[:, ::2].map_(T.tensor([[9, 2, 7], [5, 0, 7]], dtype=T.uint8), lambda x, y: x + y)',
    'T.ones(2).map_(T.ones(2, dtype=T.int32), lambda x, y: x)',
    'T.ones(2, dtype=T.bool).map_(T.ones(2, dtype=T.uint8), lambda x, y: x)',
    'T.ones(2, dtype=T.int8).map_(T.ones(2, dtype=T.bool), lambda x, y: x)',
    'T.ones(2).map_(T.ones(3), lambda x, y: x)',
    'T.ones(2).map_(T.ones(2, 2), lambda x, y: x)',
    'T.tensor([[-731, 4611686018427387904]], dtype=T.int64).apply_(lambda v: v * 2)',
    'T.tensor([[-731, 4611686018427387904]], dtype=T.int64).apply_(lambda v: v * 4)',
    'T.ones(3).apply_(lambda v: v * 2)',
    'T.aminmax(T.zeros(2, 0), dim=1)',
    'T.aminmax(T.zeros(2, 0), dim=-1)',
    'T.aminmax(T.zeros(2, 0), dim=0)',
    'T.aminmax(T.zeros(2, 0))',
    'T.aminmax(T.tensor(1.), dim=0)',
    'T.aminmax(T.tensor(1.), dim=1)',
    'T.cummax(T.tensor(1.), 1)',
    'T.cummax(T.tensor(1.), -2)',
    'T.cummin(T.tensor(1.), 3)',
    'T.cummax(T.tensor(1.), 0)',
    'T.cummax(T.ones(2), 1)',
    'T.cummax(T.zeros(0), 0)',
    'T.logcumsumexp(T.tensor(1.), 1)',
    'T.repeat_interleave(T.tensor(3), 2, 0)',
    'T.repeat_interleave(T.tensor(3), 2, -1)',
    'T.repeat_interleave(T.tensor(3), 2, 1)',
    'T.repeat_interleave(T.tensor(3), 2)',
    'T.repeat_interleave(T.tensor(3.), T.tensor([2]), 0)',
    'T.trace(T.ones(2, 2, dtype=T.bool))',
    'T.trace(T.ones(2, 2, 2, dtype=T.bool))',
    'T.trace(T.ones(2, 2, 2))',
    'T.trace(T.ones(2, 3, dtype=T.uint8))',
    "T.nn.functional.interpolate(T.tensor([[[[1., inf, 3], [4, 5, 6]]]]), size=(2, 3), mode='bilinear')",
    "T.nn.functional.interpolate(T.tensor([[[[1., inf, 3], [4, 5, 6]]]]), size=(1, 3), mode='bilinear')",
    "T.nn.functional.interpolate(T.tensor([[[[1., inf, 3], [4, 5, 6]]]]), size=(4, 3), mode='bilinear')",
    "T.nn.functional.interpolate(T.tensor([[[[1., inf, 3], [4, 5, 6]]]]), size=(2, 6), mode='bilinear')",
    "T.nn.functional.interpolate(T.tensor([[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]), size=(1, 3), mode='bilinear')",
    "T.nn.functional.interpolate(T.tensor([[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]), size=(3, 1), mode='bilinear')",
    "T.nn.functional.interpolate(T.tensor([[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]), size=(3, 3), mode='bilinear')",
    "T.nn.functional.interpolate(T.tensor([[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]), size=(5, 5), mode='bilinear')",
    "T.nn.functional.interpolate(T.tensor([[[1., 2, 3], [-2, inf, 6]]]), size=(3,), mode='linear')",
    "T.nn.functional.interpolate(T.tensor([[[1., 2, 3], [-2, inf, 6]]]), size=(1,), mode='linear')",
    "T.nn.functional.interpolate(T.tensor([[[1., 2, 3], [-2, inf, 6]]]), size=(5,), mode='linear')",
    "T.nn.functional.interpolate(T.tensor([[[1., 2, 3], [-2, inf, 6]]]), size=(3,), mode='linear', align_corners=True)",
    "T.nn.functional.interpolate(T.tensor([[[1., 2, 3], [-2, inf, 6]]]), scale_factor=1.0, mode='linear')",
    "T.nn.functional.interpolate(T.tensor([[[1., 2, 3], [-2, inf, 6]]]), scale_factor=1.0, mode='linear', align_corners=True)",
    "T.nn.functional.interpolate(T.tensor([[[1., 2, 3], [-2, inf, 6]]]), scale_factor=1.0, mode='linear', recompute_scale_factor=True)",
    "T.nn.functional.interpolate(T.tensor([[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]), size=(3, 3), mode='bicubic')",
    "T.nn.functional.interpolate(T.tensor([[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]), size=(3, 3), mode='bicubic', align_corners=True)",
    "T.nn.functional.interpolate(T.tensor([[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]), size=(3, 3), mode='nearest')",
    "T.nn.functional.interpolate(T.tensor([[[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]]), size=(1, 3, 3), mode='trilinear')",
    "T.nn.functional.interpolate(T.tensor([[[[[1., 2, 3], [-2, 5, 6], [inf, 8, nan]]]]]), size=(2, 3, 2), mode='trilinear')",
]


# PyTorch broadcasts before it looks up a dtype kernel (the size error first), and clamp_ / relu_
# refuse what cannot be written back
ORDER_CASES = [
    'T.hypot(T.ones(2, dtype=T.int16), T.ones(7, dtype=T.int16))',
    'T.bitwise_and(T.ones(3), T.ones(7, dtype=T.int64))',
    '(lambda a: a.bitwise_and_(T.ones(4, 1, dtype=T.int64)))(T.ones(2, 2, 0, 1))',
    '(lambda a: a.bitwise_xor_(T.ones(3, 1, 2, 4, dtype=T.int64)))(T.ones(4))',
    '(lambda a: a.bitwise_or_(T.ones(2, 3, dtype=T.int64)))(T.ones(1, 3))',
    '(lambda a: a.bitwise_or_(T.ones(2, dtype=T.int64)))(T.ones(()))',
    'T.fmod(T.ones(3, dtype=T.bool), T.ones(7, 1, 1, 1, dtype=T.bool))',
    '(lambda a: a.__iand__(T.tensor([[-3], [-1], [7], [9]], dtype=T.int16)))(T.tensor([3.0], dtype=T.float16)[1:])',
    '(lambda a: a.__irshift__(T.ones(4, dtype=T.bool)))(T.ones(1, dtype=T.bool))',
    'T.bitwise_left_shift(T.ones(3), T.ones(2, dtype=T.int64))',
    'T.remainder(T.ones(3, dtype=T.bool), T.ones(2, dtype=T.bool))',
    'T.floor_divide(T.ones(3, dtype=T.bool), T.ones(2, dtype=T.bool))',
    '(lambda a: a.remainder_(T.ones(2)))(T.ones(3))',
    '(lambda a: a.bitwise_and_(T.ones(3, dtype=T.int64)))(T.ones(3))',
    '(lambda a: a.bitwise_and_(T.ones(1, dtype=T.int64)))(T.ones(3, dtype=T.int64))',
    'T.tensor([True, False]).clamp(T.tensor([False, True]), T.tensor([True, False]))',
    'T.tensor([True, False]).clamp(min=T.tensor([False, True]))',
    'T.tensor([True, False]).clamp(max=T.tensor([True, True]))',
    'T.tensor([True, False]).clamp(0, 1)',
    'T.tensor([True, False]).clamp(min=0)',
    'T.tensor([True, False]).clamp_max_(5)',
    'T.tensor([True, False]).clamp_min_(0)',
    'T.tensor([True, False]).clamp_min(0)',
    'T.tensor([True, False]).clamp_min_(True)',
    'T.tensor([True, False]).clamp_(min=False)',
    'T.tensor([], dtype=T.bool).clamp_min_(0)',
    'T.tensor([1, 2]).clamp_min_(0.5)',
    'T.tensor([1, 2]).clamp_(0.5, 1.5)',
    'T.tensor([1, 2]).clamp_(T.tensor(0.5))',
    'T.tensor([True]).relu_()',
    'T.tensor([True]).relu()',
    'T.tensor([], dtype=T.bool).relu_()',
    'T.tensor([True]).clamp(T.tensor([1]), T.tensor([2]))',
    'T.tensor([1]).clamp_(T.tensor([1.5]))',
    'T.tensor([True, False]).clamp_max(T.tensor(True))',
]


EXACT = [
    "T.softmax(T.arange(6).reshape(2, 3), 0)", "T.softmax(T.arange(6).reshape(2, 3), 1)",
    "T.log_softmax(T.arange(6).reshape(2, 3), 0)", "T.log_softmax(T.tensor(3), 0)",
    "T.nn.functional.pad(T.zeros(2, 2, dtype=T.bool), (1, 1), mode='reflect')",
    "T.nn.functional.gelu(T.tensor([1]))", "T.arange(0, 5, -1)", "T.arange(inf)", "T.arange(-2.0, inf, 0.001)",
    "T.lerp(T.tensor([0], dtype=T.int8), T.tensor(3.0), 3.25)",
    "T.lerp(T.tensor([0.]), T.tensor([3.]), T.tensor([0.5], dtype=T.float64))",
    "T.bitwise_not(T.tensor([1.5]))", "T.ones(2, 3)[:1].detach_()",
    "T.ones(2, 3, requires_grad=True)[:, ::2].t_()",
]

PADS = [((2, 0, 2), (1, 1)), ((0, 2, 2), (1, 1)), ((2, 2, 0), (1, 1)), ((1, 2, 0, 2), (1, 1, 1, 1)),
        ((1, 0, 2, 2), (1, 1, 1, 1)), ((0, 2, 2, 2), (1, 1, 1, 1)), ((1, 1, 0, 2, 2), (1, 1, 1, 1, 1, 1)),
        ((2, 3), (-2, -1)), ((2, 3), (-3, -1)), ((2, 3), (3, -1)), ((2, 3), (-1, 5)), ((1, 3, 3), (-2, -1, 0, 0)),
        ((1, 3, 3), (0, 0, -2, -1)), ((1, 1, 3, 3, 3), (0, 0, -2, -1, 0, 0)), ((2, 3), (-1, -1)), ((3,), (1, 1))]

VIEW_OPS = ["t_()", "transpose_(0, 1)", "squeeze_()", "unsqueeze_(0)", "swapdims_(0, 1)", "as_strided_((3,), (1,))",
            "detach_()", "resize_(3)"]


@pytest.mark.parametrize("src", SCALAR_CASES)
def test_scalar_and_factory_cases(src):
    check(src)


@pytest.mark.parametrize("src", MORE_CASES)
def test_more_cases(src):
    check(src)


@pytest.mark.parametrize("src", ORDER_CASES)
def test_check_order_and_in_place_clamps(src):
    check(src, exact=True)


@pytest.mark.parametrize("src", EXACT)
def test_messages_are_pytorchs(src):
    check(src, exact=True)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("shape,pad", PADS)
def test_padding_shape_checks(shape, pad, mode):
    if mode == "circular" and pad == (3, -1):
        pytest.skip("PyTorch leaves a column of its result uninitialised when a circular pad equals the size")
    check(f"T.nn.functional.pad(T.zeros{shape}, {pad}, mode={mode!r})")


@pytest.mark.parametrize("op", VIEW_OPS)
@pytest.mark.parametrize("make", ["T.ones(2, 3, requires_grad=True)", "T.ones(2, 3, requires_grad=True)[:1]",
                                  "T.ones(2, 3)[:1]", "(T.ones(2, 3, requires_grad=True) * 2)[:1]",
                                  "(T.ones(2, 3, requires_grad=True) * 2)", "T.ones(2, 3)[:1].detach()"])
def test_in_place_view_ops_on_leaves_and_views(make, op):
    check(f"{make}.{op}")


GATES = ["relu6", "hardtanh", "hardsigmoid", "hardswish", "hardshrink", "softshrink", "threshold"]


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", GATES)
def test_gate_activation_gradients_stop_nan_and_inf(name, dt):
    xs = [-5., -3, -2., -1, -0.5, 0., 0.5, 1, 2., 3, 5., math.nan]
    for gs in ([math.nan, math.inf, -math.inf, math.nan, math.inf, math.nan, math.inf, 1, 1, 1, 1, 1], [1.3] * 12):
        grads = []
        for lib in (torch, minitorch):
            x = lib.tensor(xs, dtype=getattr(lib, dt), requires_grad=True)
            args = (0.5, 0.0) if name == "threshold" else ()
            getattr(lib.nn.functional, name)(x, *args).backward(lib.tensor(gs, dtype=getattr(lib, dt)))
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(grads[1], grads[0], err_msg=f"{name} {dt} upstream {gs}")


CAT_INPUTS = ["T.arange(24.).reshape(4, 3, 2).transpose(-1, -2)", "T.arange(120.).reshape(2, 4, 5, 3).permute(0, 3, 1, 2)",
              "T.arange(24.).reshape(2, 1, 3, 4)", "T.arange(24.).reshape(2, 3, 4, 1).permute(0, 3, 1, 2)",
              "T.arange(6.).reshape(6, 1, 1, 1)", "T.arange(24.).reshape(2, 3, 4).transpose(0, 1)",
              "T.arange(120.).reshape(2, 3, 4, 5).permute(0, 2, 3, 1)[:, :, :, :1]", "T.arange(6.)[::2]"]


@pytest.mark.parametrize("src", CAT_INPUTS)
def test_cat_result_layout(src):
    for lib in (torch, minitorch):
        a = eval(src, {"T": lib})  # noqa: S307
        b = lib.arange(float(a.numel())).reshape(a.shape)
        lib_results = [(d, lib.cat([a], d).stride(), lib.cat([a, a], d).stride(), lib.cat([a, b], d).stride())
                       for d in range(a.ndim)]
        if lib is torch:
            want = lib_results
    assert lib_results == want, f"cat of {src}: PyTorch {want}, minitorch {lib_results}"


def test_as_strided_starts_at_the_tensors_offset_and_as_strided_in_place():
    out = []
    for lib in (torch, minitorch):
        x = lib.arange(6.)[2:]
        a = lib.arange(6.).requires_grad_()
        b = a * 1
        b.as_strided_((2, 2), (1, 2), 1)
        b.sum().backward()
        out.append((x.as_strided((2,), (1,)).tolist(), lib.as_strided(x, (2,), (1,), 1).tolist(), b.tolist(),
                    type(b.grad_fn).__name__, b._version, a.grad.tolist()))
    assert out[1] == out[0]


def test_tensor_pow_tensor_keeps_its_result_for_backward():
    for needs_exponent in (True, False):
        errors = []
        for lib in (torch, minitorch):
            a = lib.tensor([1., 2.], requires_grad=True)
            b = lib.tensor([2., 3.], requires_grad=needs_exponent)
            y = a ** b
            y.exp_()
            try:
                y.sum().backward()
                errors.append(None)
            except RuntimeError as e:
                errors.append(str(e).split(":")[0])
        assert errors[1] == errors[0], f"exponent requires grad: {needs_exponent}"
    a, b = minitorch.tensor([1., 2.], requires_grad=True), minitorch.tensor([2., 3.], requires_grad=True)
    (a ** b).sum().backward()
    ta, tb = torch.tensor([1., 2.], requires_grad=True), torch.tensor([2., 3.], requires_grad=True)
    (ta ** tb).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-6)


def test_cosine_similarity_keeps_a_float_inputs_precision():
    out = []
    for lib in (torch, minitorch):
        a = lib.tensor([[-2.0, 0.8925, -1.25, 0.0], [-1.6753, -1, 1.184, 2.9501]], requires_grad=True)
        b = lib.tensor([[1.5, 2, 3, 4.]], dtype=lib.float64)
        y = lib.nn.functional.cosine_similarity(a, b)
        y.sum().backward()
        out.append((str(y.dtype).split(".")[-1], y.detach().numpy(), a.grad.numpy()))
    assert out[0][0] == out[1][0]
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-12)  # float32 steps, in both
    np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-6)


def test_pooling_over_inf_and_nan_is_silent():
    x = minitorch.tensor([[[[1., math.inf, 3], [-math.inf, math.nan, 1], [1, 2, 3]]]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kw in ({"count_include_pad": False}, {}, {"ceil_mode": True}, {"padding": 1}):
            y = minitorch.nn.functional.avg_pool2d(x, 2, **kw)
            y.backward(minitorch.full_like(y, math.inf))


def _both(fn):
    return [fn(lib) for lib in (torch, minitorch)]


def test_reflection_and_replication_pads_keep_their_input_for_backward():
    def run(lib):
        out = []
        for mode in ("reflect", "replicate", "circular"):
            x = lib.ones(2, 4, requires_grad=True)
            y = lib.nn.functional.pad(x, (1, 2), mode=mode)
            y.sum().backward()
            try:
                y.sum().backward()
                out.append("second backward runs")
            except RuntimeError:
                out.append("freed")
            z = x * 1
            y = lib.nn.functional.pad(z, (1, 2), mode=mode)
            z.add_(1)
            try:
                y.sum().backward()
                out.append("runs after an in-place change")
            except RuntimeError:
                out.append("version")
        return out
    want, got = _both(run)
    assert got == want


def test_a_view_requires_grad_when_its_base_does():
    def run(lib):
        v0 = lib.tensor([0.4739, -2.25, 2.5, -3.0])[1:]
        v4 = v0.permute((0,))
        v0.remainder_(lib.tensor([-2.0, 0.6912, -3.75], requires_grad=True))
        x = lib.ones(3)
        v = x[1:]
        x.requires_grad_()
        w = lib.ones(3, requires_grad=True).detach()[1:]
        return (v4.requires_grad, type(v4.grad_fn).__name__, v.requires_grad, v.is_leaf, w.requires_grad)
    want, got = _both(run)
    assert got == want


def test_mixed_precision_gradients_round_as_pytorchs():
    def run(lib):
        out = []
        x = lib.tensor([-1.8937, -1.1455, 1e-06, -2.0], dtype=lib.float16, requires_grad=True)
        lib.hypot(x, lib.tensor([False]).expand((1,))).backward(
            lib.tensor([-4.0, 0.0, 3.0, -2.2037], dtype=lib.float16))
        out.append(x.grad.numpy().astype(float))
        x = lib.tensor([0.6864], dtype=lib.float64, requires_grad=True)
        loss = lib.nn.functional.binary_cross_entropy_with_logits(
            x, lib.tensor([2.9202], dtype=lib.float64), pos_weight=lib.tensor(-0.1716, dtype=lib.float16))
        loss.backward(lib.tensor(4.0, dtype=lib.float64))
        out.append(x.grad.numpy())
        a = lib.tensor(-2.0698, requires_grad=True)
        out.append(str(lib.nn.functional.mse_loss(a, lib.ones(3, dtype=lib.float16)).dtype).split(".")[-1])
        return out
    want, got = _both(run)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    assert got[2] == want[2]


# Findings of the random-program survey (tests/test_torch_random_programs.py), each as the smallest
# program that showed it: the same outcome, and PyTorch's message word for word where both raise.
_BACKWARD_TWICE = "(lambda y: (y.sum().backward(), y.sum().backward()))({})"
_MODIFIED_OUTPUT = "(lambda r: (r[{i}].add_(0), r[{j}].sum().backward()))({})"
SURVEY_CASES = [
    # a weight / pos_weight / bias that would broadcast the result beyond the input's shape
    "T.nn.functional.binary_cross_entropy_with_logits(T.zeros(2, 1), T.zeros(2, 1), pos_weight=T.ones(2))",
    "T.nn.functional.binary_cross_entropy_with_logits(T.zeros(2, 1), T.zeros(2, 1), weight=T.ones(2))",
    "T.nn.functional.binary_cross_entropy_with_logits(T.zeros(2, 2), T.zeros(2, 2), weight=T.ones(3))",
    "T.nn.functional.binary_cross_entropy_with_logits(T.tensor(1.), T.tensor(.5), pos_weight=T.ones(2))",
    "T.nn.functional.binary_cross_entropy(T.full((2, 2), .5), T.full((2, 2), .5), weight=T.ones(3))",
    "T.nn.functional.binary_cross_entropy(T.full((2, 1), .5), T.full((2, 1), .5), weight=T.ones(1, 2, 1))",
    "T.nn.functional.linear(T.zeros(2, 2, 3), T.zeros(1, 3), T.zeros(2, 1))",
    "T.nn.functional.linear(T.zeros(2, 2, 3), T.zeros(1, 3), T.zeros(2, 2))",
    "T.nn.functional.linear(T.zeros(2, 3), T.zeros(1, 3), T.zeros(4, 2))",
    "T.nn.functional.linear(T.zeros(2, 3), T.zeros(3), T.zeros(2))",
    "T.nn.functional.linear(T.zeros(3), T.zeros(1, 3), T.zeros(2))",
    "T.nn.functional.linear(T.zeros(2, 2, 3, requires_grad=True), T.zeros(1, 3), T.zeros(4, 1)).grad_fn.name()",
    "T.nn.functional.linear(T.zeros(2, 2, 3, requires_grad=True), T.zeros(1, 3), T.zeros(1, 1)).grad_fn.name()",
    "T.nn.functional.linear(T.zeros(2, 3), T.zeros(2, 3, dtype=T.float64), T.zeros(2))",
    "T.nn.functional.linear(T.ones(3, dtype=T.bool), T.ones(3, 4, dtype=T.bool).mT)",
    "T.nn.functional.linear(T.ones(2, 3, dtype=T.bool), T.ones(4, 3, dtype=T.bool))",
    "T.addmm(T.zeros(2, dtype=T.float64), T.zeros(2, 3), T.zeros(3))",
    "T.addmm(T.zeros(1, 1, 1), T.zeros(2, 3), T.zeros(3, 1))",
    "T.zeros(4, 2).expand(2, 1)", "T.zeros(2, 3, dtype=T.float64).expand(1)",
    # a second backward through a node that keeps its indices: refused, as in PyTorch
    _BACKWARD_TWICE.format("T.nn.functional.embedding(T.tensor([0, 1]), T.ones(2, 3, requires_grad=True))"),
    _BACKWARD_TWICE.format("T.nn.functional.nll_loss(T.ones(2, 3, requires_grad=True), T.tensor([0, 1]))"),
    _BACKWARD_TWICE.format("T.ones(2, 3, requires_grad=True).mode(1)[0]"),
    _BACKWARD_TWICE.format("T.ones(2, 3, requires_grad=True).take(T.tensor([0, 3]))"),
    _BACKWARD_TWICE.format("T.ones(2, 3, requires_grad=True).index_add(0, T.tensor([1]), T.ones(1, 3))"),
    _BACKWARD_TWICE.format("T.ones(2, 3).index_add(0, T.tensor([1]), T.ones(1, 3, requires_grad=True))"),
    _BACKWARD_TWICE.format("T.ones(2, 3, requires_grad=True).scatter(1, T.tensor([[0], [1]]), 0.)"),
    _BACKWARD_TWICE.format("T.ones(2, 3, requires_grad=True).masked_select(T.tensor([True, False, True]))"),
    _BACKWARD_TWICE.format("T.nn.functional.multilabel_margin_loss(T.ones(2, 3, requires_grad=True), "
                           "T.tensor([[0, -1, 1], [1, 0, -1]]))"),
    # scatter's gradient of a src larger than the index has the index's shape, which PyTorch refuses
    "T.ones(2, 3).scatter(1, T.tensor([[0], [1]]), T.ones(2, 3, requires_grad=True)).sum().backward()",
    "(lambda s: (T.ones(2, 3).scatter_reduce(1, T.tensor([[0], [1]]), s, 'amax').sum().backward(), s.grad))"
    "(T.tensor([[1., 5, 3], [4, 2, 6]], requires_grad=True))",
    # out=: no argument may require grad (checked first), and some ops want out of their input's dtype
    "T.sum(T.ones(4, 3, dtype=T.bool), -3, out=T.zeros(3, dtype=T.float64, requires_grad=True))",
    "T.abs(T.ones(3, dtype=T.bool), out=T.zeros(3, requires_grad=True))",
    "T.cat([T.ones(3, requires_grad=True)], out=T.zeros(3))",
    "T.abs(T.tensor(4), out=T.tensor(4, dtype=T.int8))", "T.floor(T.tensor([4.]), out=T.zeros(1, dtype=T.float64))",
    "T.neg(T.tensor([True]), out=T.zeros(1, dtype=T.int64))",
    "T.bitwise_and(T.tensor([4.]), 2, out=T.zeros(1, dtype=T.bool))",
    "T.where(T.ones(3, dtype=T.bool), T.ones(3), 0., out=T.zeros(3))",
    # storage NumPy holds too (numpy(), from_numpy) is not resizable; a resize_ that shrank can grow back
    "(lambda a: (a.numpy(), a.resize_(2, 3)))(T.tensor(8).unsqueeze(0))",
    "T.from_numpy(T.zeros(2).numpy()).resize_(5)", "T.from_numpy(T.zeros(2).numpy()).resize_(1)",
    "(lambda a: (a.resize_(2), a.resize_(3)))(T.arange(3.))",
    # fill_ with a tensor value checks the overlap of the written tensor, as other in-place ops
    "T.tensor([-4], dtype=T.int8).expand(4).fill_(T.tensor(8))", "T.tensor([1.]).expand(4).fill_(2.)",
    # an input sharing part of the memory an in-place op writes
    "(lambda x: x.add_(x.t()))(T.ones(2, 2))", "(lambda x: x.add_(x[0, 0]))(T.ones(2, 2))",
    "(lambda x: x[0].add_(x[:, 0]))(T.ones(2, 2))", "(lambda x: x.mul_(x.detach()))(T.ones(2, 2))",
    "(lambda y: y[1:].mul_(y[:3]))(T.arange(4.))", "(lambda y: y[::2].mul_(y[:2]))(T.arange(4.))",
    "(lambda z: z.bitwise_or_(z[1:2]))(T.tensor([-3, 3, 7, 268], dtype=T.int32)[1:])",
    "(lambda y: y.clamp_(y[:1], y[3:]))(T.arange(4.))", "(lambda y: y.lerp_(y[1:2], 0.5))(T.arange(4.))",
    "(lambda w: w.logical_and_(w[1]))(T.ones(3, 4))", "(lambda w: w.hypot_(w[1]))(T.ones(3, 4))",
    "(lambda y: y.div_(y[1:2], rounding_mode='floor'))(T.arange(4.))",
    "(lambda y: y.ldexp_(y[1:2]))(T.arange(4.))", "(lambda y: y.fill_(y[1]))(T.arange(4.))",
    "(lambda y: y.masked_fill_(y > 1, y[0]))(T.arange(4.))",
    "(lambda y: y.index_put_((T.tensor([0, 1]),), y[1:3]))(T.arange(4.))",
    "(lambda y: y.copy_(y[1:2]))(T.arange(4.))", "(lambda y: y.__setitem__(slice(0, 2), y[1:3]))(T.arange(4.))",
    "(lambda y: y.__setitem__(T.tensor([0, 1]), y[1:3]))(T.arange(4.))",
    # alpha= checked against the result's dtype (1.0 too), after an in-place op's cast check
    "T.add(T.tensor([1, 2]), T.tensor([1, 2]), alpha=1.0)", "T.sub(T.tensor(0, dtype=T.int32), 1, alpha=1.0)",
    "T.tensor([1, 2]).add_(T.tensor([1., 2]), alpha=True)", "T.rsub(T.tensor([1, 2]), T.tensor([1, 2]), alpha=True)",
    "T.add(T.ones(2), T.ones(2, requires_grad=True), alpha=1.0).grad_fn.next_functions[1][0].name()",
    "T.addcdiv(T.tensor([1, 2]), T.tensor([1, 2]), T.tensor([1, 2]))",
    # a 0-d tensor value is written as a number, checked: it must fit the tensor's dtype
    "T.tensor([1, 2], dtype=T.uint8).masked_fill(T.tensor([False, True]), T.tensor(-2.0))",
    "T.tensor([1, 2], dtype=T.int8).masked_fill(T.tensor([False, False]), T.tensor(300))",
    "T.tensor([1, 2], dtype=T.float16).masked_fill_(T.tensor([False, True]), T.tensor(4611686018427387904))",
    # an indexed write: the value is converted first, then the key's dims counted, then autograd's check
    "(lambda t: t.__setitem__([0], float('inf')))(T.tensor(4, dtype=T.uint8))",
    "(lambda t: t.__setitem__(T.tensor([0.]), 1))(T.tensor(4, dtype=T.uint8))",
    "(lambda t: t.__setitem__(5, 1))(T.tensor(4))", "T.tensor(4)[(0,)]", "T.tensor(4)[:]",
    "(lambda t: t.__setitem__(T.tensor([0.]), 1))(T.tensor([4., 5.], requires_grad=True))",
    "(lambda t: t.__setitem__(T.tensor([True]), 1))(T.tensor([4., 5.], requires_grad=True))",
    "(lambda t: t.__setitem__((False, 0), T.tensor(300)))(T.tensor([4., 5.], requires_grad=True))",
    "(lambda t: t.__setitem__(T.tensor([[True]]), 1))(T.tensor([4., 5.], requires_grad=True))",
    "(lambda t: t.__setitem__(T.tensor([0]), T.tensor(300)))(T.tensor([4, 5], dtype=T.int16))",
    # clamp's backward of a tensor max that, with min, broadcasts beyond the input: PyTorch's error
    "T.ones(2, requires_grad=True).clamp(T.zeros(3, 2), T.ones((), requires_grad=True) * 2).sum().backward()",
    "T.ones(2, requires_grad=True).clamp(T.zeros(3, 2, requires_grad=True)).sum().backward()",
    # an in-place view op on a leaf that requires grad: autograd's check comes before the dim's
    "T.ones(2, 1, requires_grad=True).unsqueeze_(3)", "T.ones(2, 1, requires_grad=True)[:1].squeeze_(5)",
    "T.ones(2, 1, requires_grad=True).transpose_(0, 5)", "(T.ones(2, 1, requires_grad=True) * 2).unsqueeze_(3)",
    # backward from a view taken under no_grad: it says it requires grad, but leads nowhere
    "(lambda v: T.no_grad()(lambda: v[1:])().backward(T.ones(1)))(T.ones(4, requires_grad=True)[::2])",
    "(lambda v: T.no_grad()(lambda: v[1:])().requires_grad)(T.ones(4, requires_grad=True)[::2])",
    # pow's gradient through a bool exponent, and with a bool base: PyTorch's errors
    "T.pow(T.tensor([1., 2.], requires_grad=True), T.tensor([True, False])).sum().backward()",
    "T.tensor([1., 2.], requires_grad=True).pow(T.tensor(True)).sum().backward()",
    "T.pow(T.tensor([1., 2.], requires_grad=True), True).sum().backward()",
    "T.pow(True, T.tensor([1., 2.], requires_grad=True)).sum().backward()",
    "T.pow(2, T.tensor([1., 2.], requires_grad=True)).sum().backward()",
    # a saved tensor detached in place since
    "(lambda v1: (T.nn.functional.leaky_relu(v1, 3.25), v1.detach_())[0].sum().backward())"
    "(T.tensor([-1., -3., 1.75], requires_grad=True) * 2)",
    "(lambda v1: (T.nn.functional.leaky_relu(v1, 3.25), v1.detach_())[0].sum().backward())"
    "(T.tensor([-1., -3., 1.75], requires_grad=True))",
    # div with rounding keeps a tensor divisor: a second backward is refused
    _BACKWARD_TWICE.format("T.div(T.tensor([1., 2.], requires_grad=True), T.tensor([2., 3.]), rounding_mode='floor')"),
    _BACKWARD_TWICE.format("T.div(T.tensor([1., 2.], requires_grad=True), 2., rounding_mode='trunc')"),
    # bilinear: PyTorch's checks and steps (rows, then a view back)
    "T.nn.functional.bilinear(T.ones(3), T.ones(4), T.ones(2, 3, 4), T.ones(3))",
    "T.nn.functional.bilinear(T.ones(5, 3), T.ones(6, 4), T.ones(2, 3, 4))",
    "T.nn.functional.bilinear(T.ones(5, 3), T.ones(4), T.ones(2, 3, 4))",
    "T.nn.functional.bilinear(T.ones(5, 3), T.ones(5, 4), T.ones(2, 3, 4), T.ones(2, dtype=T.float64))",
    "T.nn.functional.bilinear(T.ones(1, 0, 0, 3).mT, T.ones(1, 0, 0, 3).mT, T.ones(2, 0, 0))",
    "T.nn.functional.bilinear(T.ones(2, 5, 3), T.ones(2, 5, 4), T.ones(2, 3, 4, requires_grad=True)).grad_fn.name()",
    "T.ones(0, 3).reshape(0, -1, 2)",
    # pooling takes an empty batch, not an empty channel or spatial dim
    "T.nn.functional.max_pool1d(T.ones(2, 0, 3), 1)", "T.nn.functional.avg_pool1d(T.ones(2, 3, 0), 1)",
    "T.nn.functional.max_pool2d(T.ones(2, 2, 0, 3), 1)", "T.nn.functional.lp_pool2d(T.ones(0, 3, 3), 2, 1)",
    "T.nn.functional.max_pool2d(T.ones(0, 2, 3, 3), 1, return_indices=True)",
    "T.nn.functional.max_pool3d(T.ones(2, 2, 0, 3, 3), 1)", "T.nn.functional.avg_pool3d(T.ones(0, 2, 3, 3, 3), 1)",
    "T.nn.functional.adaptive_max_pool1d(T.ones(2, 0, 3), 1)", "T.nn.functional.adaptive_max_pool2d(T.ones(0, 3, 3), 2)",
    "T.nn.functional.adaptive_max_pool3d(T.ones(2, 0, 3, 3), 1)", "T.nn.functional.adaptive_avg_pool1d(T.ones(2, 3, 0), 2)",
    "T.nn.functional.adaptive_avg_pool1d(T.ones(2, 0, 3), 2)", "T.nn.functional.adaptive_avg_pool3d(T.ones(2, 0, 3, 3), 1)",
    # the normalisations' Python checks (one value per channel, one spatial element), and empty inputs
    "T.nn.functional.batch_norm(T.ones(0, 3), None, None, training=True)",
    "T.nn.functional.batch_norm(T.ones(1, 3, 1), None, None, training=True)",
    "T.nn.functional.instance_norm(T.ones(2, 3))", "T.nn.functional.instance_norm(T.ones(1, 3, 1))",
    "T.nn.functional.instance_norm(T.ones(3, 1, 0, 4))", "T.nn.functional.instance_norm(T.ones(1, 0, 3, 3))",
    "T.nn.functional.instance_norm(T.ones(1, 3, 0, requires_grad=True)).grad_fn.name()",
    "T.nn.functional.group_norm(T.ones(1, 1, 1, 1), 1)", "T.nn.functional.group_norm(T.ones(1, 2, 1), 2)",
    "(lambda w: (T.nn.functional.group_norm(T.ones(0, 4, 1), 2, w).sum().backward(), w.grad)[1])"
    "(T.ones(4, requires_grad=True))",
    # dropout returns an empty input itself; the feature dropouts add and remove a batch dim as PyTorch's
    "(lambda x: T.nn.functional.dropout(x, 0.5) is x)(T.ones(0, 3))",
    "(lambda x: T.nn.functional.dropout(x, 0.0) is x)(T.tensor([1, 2]))",
    "T.nn.functional.dropout(T.tensor([1, 2]), 0.5)",
    "(lambda x: T.nn.functional.dropout3d(x, 0.3, training=False) is x)(T.ones(2, 2, 2, 2))",
    "(lambda x: T.nn.functional.dropout1d(x, 0.0) is x)(T.ones(2, 2))",
    "(lambda x: T.nn.functional.dropout2d(x, 0.0) is x)(T.ones(2, 2))",
    "T.nn.functional.dropout1d(T.ones(2, 2, 2, 2), 0.5)",
    "T.nn.functional.dropout2d(T.ones(3, 4, requires_grad=True), 1.0).grad_fn.name()",
    "T.nn.functional.dropout3d(T.ones(2, 3, 4, 5, requires_grad=True), 1.0).grad_fn.name()",
    # an in-place comparison with an operand that requires grad records even an integer result
    "(lambda r: (str(r.dtype)[-5:], r.requires_grad, r.grad_fn.name(), r.is_leaf))"
    "(T.tensor([1, 2]).eq_(T.ones(2, requires_grad=True)))",
    "(lambda r: (r.requires_grad, r.grad_fn.name()))(T.tensor([True, False]).lt_(T.ones(2, requires_grad=True)))",
    "(lambda r: (r.requires_grad, r.grad_fn))(T.tensor([1, 2]).logical_and_(T.ones(2, requires_grad=True)))",
    # erfinv's node keeps its input, not its result: the result may change in place
    "(lambda x: (lambda y: (y * 1, y.exp_())[0])(T.erfinv(x)).sum().backward() or x.grad)"
    "(T.tensor([0.1, -0.5], dtype=T.float64, requires_grad=True))",
    # split / chunk / unflatten arguments, and an empty dim chunked (recorded as split_with_sizes)
    "T.ones(4, 3).split(-1)", "T.ones(4, 3).split([1, -1, 4])", "T.ones(4, 3).split(2.5)", "T.ones(4, 3).chunk(2.5)",
    "T.ones(4, 3).split_with_sizes([1, 3])", "T.split_with_sizes(T.ones(4, 3), [2, 1], 1)",
    "T.ones(4, 3).unflatten(0, (3, -1))", "T.ones(4, 3).unflatten(0, ())", "T.ones(4).view(2, -2)",
    "[t.grad_fn.name() for t in T.ones(0, 2, requires_grad=True).chunk(3, 0)]",
    "T.ones(2, 3, requires_grad=True).expand(2, 2, 3).t_()",
    # bitwise ops and shifts name the promoted dtype; tensor-only in-place methods check their argument
    "T.bitwise_and(T.tensor([True, False]), T.tensor([1.5, -2.0], dtype=T.float16))",
    "T.tensor([3, 2]).bitwise_left_shift_(T.tensor([1.5, 2.0], dtype=T.float64))",
    "T.tensor([True, False]).logical_and_(True)", "T.tensor([3, -2]).gcd_(2)", "T.tensor([3, -2]).gcd_(T.tensor([1.5, 2.0]))",
    # an in-place op on a leaf that requires grad: autograd refuses it before the op looks at its arguments
    "T.ones(2, requires_grad=True).add_(T.ones(2), alpha=True)", "T.ones(2, requires_grad=True)[:2].lt_(T.ones(3, 2))",
    "T.ones(2, requires_grad=True).copy_(T.ones(3, 2))", "T.ones(2, requires_grad=True).lerp_(T.ones(3, 2), 0.5)",
    "T.ones(2, requires_grad=True).fill_(T.ones(2))", "T.ones(2, requires_grad=True).uniform_(2, 1)",
    "T.ones(2, requires_grad=True).clamp_(min=T.ones(3))", "T.ones(2, requires_grad=True).addmm_(T.ones(2, 2), T.ones(2, 2))",
    "T.ones(2, requires_grad=True).logical_not_()",
    # rms_norm and prelu as PyTorch records them
    "T.nn.functional.rms_norm(T.ones(3, 1).t().requires_grad_(), (3,)).grad_fn.name()",
    "T.nn.functional.rms_norm(T.ones(2, 3, 4, 5).permute(0, 2, 3, 1).requires_grad_(), (3,)).stride()",
    "[n.name() for n, _ in T.nn.functional.prelu(T.ones(2, 3, requires_grad=True), T.ones(3, requires_grad=True))"
    ".grad_fn.next_functions] + [T.nn.functional.prelu(T.ones(2, 3), T.ones(3, requires_grad=True)).grad_fn.name()]",
    "T.nn.functional.prelu(T.ones(()), T.ones(2))", "T.nn.functional.prelu(T.ones(2, 3), T.ones(1, 1, 1))",
    # sum(dtype=float16) casts first; an empty roll copies; in-place comparisons keep what backward needs
    "T.tensor([70000, -70000]).sum(dtype=T.float16)", "T.ones(0, 3).roll(1, 5)",
    _BACKWARD_TWICE.format("T.ones(2).eq_(T.ones(2, requires_grad=True))"),
    "T.addcmul(T.ones(2, 1, 3, dtype=T.bool), T.ones(2, dtype=T.bool), T.ones(3, dtype=T.bool))",
    "T.ones(2, requires_grad=True).clamp(T.tensor(-1.), T.zeros(2, 1)).sum().backward()",
    # an in-place write records even on an integer tensor (an in-place comparison made it require grad)
    "(lambda b: (b.lt_(T.ones(4, requires_grad=True)), b.add_(1).grad_fn.name(), b.dtype.is_floating_point))"
    "(T.tensor([6, 1, -2, 8]))[1:]",
    "(lambda b: (b[::2].lt_(T.ones(2, requires_grad=True)), b.grad_fn.name(), b[1:].grad_fn))(T.tensor([6, 1, -2, 8]))[1:]",
    # indexing a 0-d tensor, and float keys: PyTorch's slicing step checks them before autograd does
    "(lambda x: x.__setitem__(-1, 0))(T.tensor(2.5, requires_grad=True))", "T.tensor(2.5)[T.tensor(0)]",
    "T.tensor(2.5)[1.5]", "T.tensor(2.5)[(0, None)]", "(lambda x: x.__setitem__(1.5, 0))(T.ones(2, requires_grad=True))",
    "(lambda x: x.__setitem__((1.5, 0, 0), 0))(T.ones(2, 2, requires_grad=True))", "T.ones(2, 2)[(0, 1.5)]",
    "(lambda x: x.__setitem__(T.tensor(True), 0))(T.tensor(2.5, requires_grad=True))",
    # multinomial of rows of no categories
    "T.multinomial(T.ones(4, 0), 3, replacement=True)", "T.multinomial(T.ones(4, 0), 1)",
    "T.multinomial(T.ones(0, 0), 3, True).shape",
    # sgn's gradient is +0.; a view taken before its base required grad leads nowhere, and may not be written
    "(lambda x: (T.sgn(x).backward(T.full((2,), -1.)), x.grad.signbit())[1])(T.tensor([3., -2.], requires_grad=True))",
    "(lambda b: (lambda v: (b.requires_grad_(), v.requires_grad, v.is_leaf, (v * 2).sum().backward(), b.grad))(b[1:]))"
    "(T.ones(2, 3))[1:]",
    "(lambda b: (lambda v: (b.requires_grad_(), v.add_(1)))(b[1:]))(T.ones(2, 3))",
    "(lambda b: (lambda v: (b.requires_grad_(), v.add_(1)))(b.split(1)[0]))(T.ones(2, 3))",
    "(lambda b: (lambda v: v.mul_(T.ones(3, requires_grad=True)))(b.unbind()[0]))(T.ones(2, 3))",
    # out=: a resize keeps the memory while it is large enough; PyTorch's memory checks; out= types
    "(lambda b: (T.add(T.ones(2), 1, out=b[1:]), b)[1])(T.zeros(2, 3))",
    "(lambda x: T.add(x, 1, out=x[0]))(T.ones(2, 3))", "(lambda x: T.exp(x, out=x.t()))(T.ones(2, 3))",
    "T.add(T.ones(2, 3), 1, out=T.zeros(1).expand(2, 3))", "(lambda x: T.cat([x], out=x))(T.ones(2, 3))",
    "(lambda x: T.gather(x, 1, T.zeros(2, 3, dtype=T.long), out=x[0]))(T.ones(2, 3))",
    "T.cat([T.ones(2, 3)], out=T.zeros(1).expand(2, 3))", "T.softmax(T.ones(2, 3), 1, out=T.zeros(1).expand(2, 3))",
    "(lambda x: T.add(x, T.ones(2, 4), out=x))(T.ones(4))", "(lambda x: T.cumsum(x, 1, out=x[0]))(T.ones(2, 3))",
    "type(T.max(T.ones(2, 3), 1, out=(T.empty(0), T.empty(0, dtype=T.long)))).__name__",
    "T.nonzero(T.ones(2), out=T.empty(0))", "T.all(T.ones(2, 3), 1, out=T.empty(0))",
    "T.any(T.ones(2, 3), 1, out=T.empty(0, dtype=T.uint8))",
    # layouts and dtypes: int ** negative ints, repeat, an empty bmm (the second operand's dtype)
    "(T.tensor([[275, 6, 8]], dtype=T.int32).t() ** T.tensor([[-4]], dtype=T.int8)).stride()",
    "T.ones(3, 3, dtype=T.int64).t().repeat(1, 1).stride()",
    "str(T.bmm(T.ones(2, 0, 3), T.ones(2, 3, 4, dtype=T.int64)).dtype).split('.')[1]",
    "str(T.einsum('ij,ij->i', T.ones(0, 2), T.ones(0, 2, dtype=T.int64)).dtype).split('.')[1]",
    "(T.tensor([[-2.], [3.]]) @ T.tensor([[0., -3.25]])).signbit()",
    "(T.tensor([[[-2.], [3.]]]) @ T.tensor([[0., -3.25]])).signbit()",
    # half losses: the mean in float, mse's steps rounded in half
    "T.nn.functional.huber_loss(T.tensor([-10000., 0., 60000., 0.], dtype=T.float16), T.tensor([0., 4., 4., 0.], dtype=T.float16))",
    "T.nn.functional.mse_loss(T.tensor([-2.1, 0.5], dtype=T.float16), T.tensor([2., -1.], dtype=T.float16), reduction='none')",
    "(lambda a: (T.nn.functional.mse_loss(a, T.tensor([4., 0.], dtype=T.float16)).backward(), a.grad)[1])"
    "(T.tensor([60000., 1.], dtype=T.float16, requires_grad=True))",
    "T.tensor([-2.5, 1., 0., -inf, -1.], dtype=T.float16) ** nan",
    # attention: PyTorch's math (q and k each scaled, SafeSoftmax, half computed in float), empty sizes
    "T.nn.functional.scaled_dot_product_attention(T.ones(3, 0), T.ones(3, 0), T.ones(3, 2))",
    "str(T.nn.functional.scaled_dot_product_attention(T.ones(3, 0, dtype=T.bool), T.ones(3, 0, dtype=T.bool), "
    "T.ones(3, 0, dtype=T.bool)).dtype).split('.')[1]",
    "(lambda q: T.nn.functional.scaled_dot_product_attention(q, q, q).grad_fn.name())(T.ones(3, 0, requires_grad=True))",
    "T.nn.functional.scaled_dot_product_attention(T.ones(3, 4, requires_grad=True), T.ones(3, 4), T.ones(3, 4))"
    ".grad_fn.next_functions[0][0].name()",
    "T.nn.functional.scaled_dot_product_attention(T.ones(2, 3, dtype=T.float16, requires_grad=True), "
    "T.ones(2, 3, dtype=T.float16), T.ones(2, 3, dtype=T.float16)).grad_fn.name()",
    # the second backward through an in-place op on a view (CopySlices lets go of the op's node)
    "(lambda b, w: (b[1:].add_(w), b.sum().backward(), b.sum().backward()))(T.zeros(2, 2), T.ones(2, requires_grad=True))",
    # a convolution of an empty batch: no dtype checks, x * weight[0]'s dtype, zero gradients
    "T.nn.functional.conv2d(T.ones(0, 2, 1, 3), T.ones(2, 2, 1, 2), padding='same').shape",
    "(lambda x, w: (T.nn.functional.conv1d(x, w).sum().backward(), w.grad, x.grad.shape)[1:])"
    "(T.ones(0, 2, 4, dtype=T.float64, requires_grad=True), T.ones(2, 2, 2, requires_grad=True))",
    "str(T.nn.functional.conv1d(T.ones(0, 2, 4, dtype=T.int64), T.ones(2, 2, 2)).dtype).split('.')[1]",
    "T.nn.functional.conv1d(T.ones(0, 2, 4, dtype=T.float64), T.ones(2, 2, 2), T.ones(2, dtype=T.float16))",
    "T.nn.functional.conv_transpose2d(T.ones(0, 3, 0, 4), T.ones(3, 2, 3, 3), stride=3).shape",
    "T.nn.functional.pad(T.ones(0, 3, 3, dtype=T.bool), (1, 1), mode='reflect')",
    # scatter_reduce(prod)'s gradient where an input is 0 (PyTorch's formula)
    "(lambda x, s: (x.scatter_reduce(0, T.tensor([2, 1, 2]), s, 'prod').backward(T.tensor([2., 3., -2.], "
    "dtype=T.float64)), x.grad, s.grad)[1:])(T.tensor([2., 3., 0.], dtype=T.float64, requires_grad=True), "
    "T.tensor([0., 3., 2.], dtype=T.float64, requires_grad=True))",
    "(lambda x, s: (x.scatter_reduce(0, T.tensor([1, 1, 0]), s, 'prod', include_self=False).sum().backward(), x.grad, "
    "s.grad)[1:])(T.tensor([-4., 0., 1.5], dtype=T.float64, requires_grad=True), T.tensor([0., 0., 2.], "
    "dtype=T.float64, requires_grad=True))",
    # index_copy_ writes the slices before an index out of range; pow_ checks the shape before the dtype
    "(lambda x: (attempt(x.index_copy_, 0, T.tensor([1, 5, 0]), T.arange(1, 7).reshape(3, 2)), x))(T.zeros(3, 2, dtype=T.int64))",
    "(lambda x: (attempt(x.index_copy_, 1, T.tensor([1, 5, 0]), T.arange(1, 7).reshape(2, 3)), x))(T.zeros(2, 3, dtype=T.int64))",
    "T.ones(2, dtype=T.int64).pow_(T.ones(3, 2))", "T.ones(2, dtype=T.bool).pow_(T.ones(3, 2))",
    # cdist of empty half inputs; dist's p=0 gradient (none; for `other`, PyTorch's error)
    "T.cdist(T.ones(2, 3, 0, dtype=T.float16), T.ones(2, 3, 0, dtype=T.float16))",
    "(lambda v: (T.dist(T.ones(2, 3), v, 0).backward(), v.grad))(T.tensor(2.5, requires_grad=True))",
    "(lambda v: (T.dist(v, T.tensor(2.5), 0).backward(), v.grad)[1])(T.ones(2, 3, requires_grad=True))",
    "T.std_mean(T.tensor([1., inf, 2.]))", "T.var_mean(T.tensor([[1., -inf], [2., 3.]]), 1)",
    # an in-place elementwise op checks self's layout, then the shapes, then the dtypes (TensorIterator's order)
    "T.ones(2, dtype=T.bool).expand(2, 2).div_(T.ones(2, dtype=T.bool), rounding_mode='trunc')",
    "T.ones(2, dtype=T.bool).expand(2, 2).div_(T.ones(2))", "T.tensor(True).div_(T.tensor([[False]]), rounding_mode='floor')",
    "T.ones(2, dtype=T.int64).add_(T.ones(3, 2), alpha=2.5)", "T.ones(2, dtype=T.bool).expand(2, 2).add_(T.ones(2), alpha=2.5)",
    "T.ones(2, dtype=T.int64).remainder_(T.ones(3, 2))", "T.ones(2, dtype=T.bool).expand(2, 2).eq_(T.ones(3, 2))",
    "T.ones(2, dtype=T.int64).copy_(T.ones(3, 2))", "T.ones(2, dtype=T.int64).expand(2, 2).copy_(T.ones(2))",
    "T.ones(2, dtype=T.int64).lerp_(T.ones(3, 2), 0.5)", "T.ones(2).lerp_(T.ones(3, 2), 0.5)",
    "T.ones(2, requires_grad=True).lerp_(2.5, 0.5)", "T.ones(2, requires_grad=True).atan2_(2.5)",
    "T.ones(2, requires_grad=True).hypot_(2.5)", "T.ones(2).heaviside_(0.5)", "T.ones(2, dtype=T.bool).hypot_(T.ones(2, dtype=T.int64))",
    "T.ones(2, dtype=T.bool).expand(2, 2).logical_and_(T.ones(3, 2))",
    # clamp keeps its bounds as given (an in-place change of an integer bound is caught); 1-D @ 2-D into out=
    "(lambda lo, x: (lambda y: (lo.add_(1), y.sum().backward()))(T.clip(x, lo)))(T.tensor([5, 2], dtype=T.int32), "
    "T.ones(3, 2, requires_grad=True))",
    "(lambda o: (T.matmul(T.ones(2), T.ones(2, 3), out=o), o._version)[1])(T.empty(3))",
    "(lambda v: v.backward(T.tensor([2.5, -2.0])))(T.tensor([9, 7], dtype=T.uint8).eq_(T.tensor(1.5, requires_grad=True)))",
    # unique of a no_grad view: its gradient goes nowhere, so backward has nothing to refuse
    "(lambda x: (T.set_grad_enabled(False), (v := x[1:]), T.set_grad_enabled(True), T.unique(v).sum().backward()))"
    "(T.ones(3, requires_grad=True))[3]",
    # add / sub with alpha: one node that keeps alpha (its input's gradient goes straight to the leaf, twice too)
    "(lambda w: (lambda r: ([n.name() for n, _ in r.grad_fn.next_functions if n], r.backward(), r.backward(), w.grad))"
    "(T.add(T.tensor(0, dtype=T.uint8), w, alpha=3)))(T.tensor(-2.0, requires_grad=True))",
    "(lambda w: (T.sub(T.ones(2), w, alpha=-2).sum().backward(), w.grad)[1])(T.ones(2, requires_grad=True))",
    "(lambda x: (x.add_(T.ones(2, requires_grad=True), alpha=2.5), x.grad_fn.next_functions[1][0].name()))(T.ones(2))[1]",
    # logical ops compare in the promoted dtype; histc's bins as PyTorch's kernel places them
    "T.logical_xor(T.tensor(4611686018427387904), T.tensor([125, 3, 0], dtype=T.uint8))",
    "T.logical_and(T.tensor(256), T.tensor([1, 0], dtype=T.uint8))",
    "T.histc(T.tensor([0.001], dtype=T.float64), bins=2)", "T.histc(T.tensor([1.2], dtype=T.float64), bins=2)",
    "T.histc(T.tensor([60000., -60000.], dtype=T.float16), bins=2)",
    "T.histc(T.tensor([-3.5, -10000.0, 60000., 0.5], dtype=T.float16), bins=3, min=-1, max=1)",
    # the slices index_add_ writes before an index out of range; clamp_min_'s bound converted, checked
    "(lambda x: (attempt(x.index_add_, 0, T.tensor([1, 5, 0]), T.ones(3, 2)), x))(T.zeros(3, 2))",
    "(lambda x: (attempt(x.index_add_, 0, T.tensor([0, 1, 1]), T.tensor([-1.0, inf, 0.0]), alpha=nan), x))"
    "(T.tensor([-3.0]))", "T.tensor([254, 8], dtype=T.uint8).clamp_min_(300)",
    "T.tensor([254, 8], dtype=T.uint8).clamp_max_(-1)",
    # the gradient of var / std with no degrees of freedom (PyTorch divides by n - correction, negative)
    "(lambda x: (x.std(0, correction=3).backward(), x.grad)[1])(T.tensor([-0.058, -1.0], requires_grad=True))",
    "(lambda x: (x.var(0, correction=3).backward(), x.grad)[1])(T.tensor([-0.058, -1.0], requires_grad=True))",
    "(lambda x: (sum(T.var_mean(x, 0, correction=3)).backward(), x.grad)[1])(T.tensor([-0.058, -1.0], requires_grad=True))",
    "(lambda x: (T.nn.functional.mse_loss(x, T.ones(0, dtype=T.float16)).backward(), x.grad)[1])"
    "(T.ones(0, dtype=T.float16, requires_grad=True))",
    # more orders and layouts: logsigmoid's result is row-major; int pow with an exponent negative in the result's
    # dtype; a 1-D cross_entropy target's dtype before its size; zero input channels in a convolution
    "T.nn.functional.logsigmoid(T.ones(1, 2, 4).transpose(-1, -2)).stride()",
    "T.tensor([-2, 6], dtype=T.int16).pow_(T.tensor(2147483647, dtype=T.int32))",
    "T.ones(2, 1, 4, dtype=T.int8).expand(2, 3, 4).trunc_()", "T.nn.functional.cross_entropy(T.ones(1), T.ones(3))",
    "T.nn.functional.conv1d(T.ones(1, 0, 4, dtype=T.int64), T.ones(2, 0, 2)).shape",
    "T.nn.functional.conv_transpose1d(T.ones(1, 2, 0), T.ones(2, 2, 2))",
    "T.nn.functional.conv_transpose1d(T.ones(1, 0, 4), T.ones(0, 2, 2))",
    "(lambda v1, x: (lambda v4: (T.matmul(3 - v1, T.ones(0, 1), out=v1), v4.backward(T.ones(2, 0)), x.grad.shape)[2])"
    "(T.hypot(v1, x)))(T.ones(2, 0), T.ones(2, 0, requires_grad=True))",
    "(lambda x: (lambda r: (T.fmax(r[0], T.tensor(2.6)).backward(), x.grad)[1])(T.std_mean(x, -1)))"
    "(T.tensor(-1.0, requires_grad=True))",
    # addcmul / addcdiv keep tensor1 / tensor2 as given (an in-place change of an int8 one is caught)
    "(lambda t1, w: (lambda r: (t1.add_(1), r.sum().backward()))(T.addcmul(T.ones(3, dtype=T.float16), t1, w)))"
    "(T.tensor([1, 2, 3], dtype=T.int8), T.ones(3, dtype=T.float16, requires_grad=True))",
    "(lambda t2, a: (lambda r: (t2.add_(1), r.sum().backward()))(T.addcdiv(a, T.ones(3), t2)))"
    "(T.tensor([1., 2., 3.]), T.ones(3, requires_grad=True))",
    # bilinear records PyTorch's TrilinearBackward0; roll's result is row-major; masked_scatter_ from self's memory
    "[n.name() for n, _ in T.nn.functional.bilinear(T.ones(2, 2, 3, requires_grad=True), T.ones(2, 2, 4), "
    "T.ones(5, 3, 4)).grad_fn.next_functions if n]",
    "T.ones(2, 3).t().roll(1, 0).stride()", "T.ones(2, 3, 2).transpose(1, 2).roll(300, -1).stride()",
    "(lambda v0: (v0.masked_scatter_(T.tensor([[False, True, True], [True, False, True]]), v0[1]), v0)[1])"
    "(T.arange(6.).reshape(2, 3))",
    "T.zeros(3, dtype=T.bool).scatter_reduce(0, T.tensor([1]), T.ones(1, dtype=T.bool), 'mean')",
    # an op on an integer tensor that requires grad (an in-place comparison's result): refused where PyTorch records,
    # not where the op has no gradient (shifts, comparisons, floor_divide, a copy to an integer dtype)
    "(lambda b: (b.eq_(T.ones(2, requires_grad=True)), [(lambda r: (r.requires_grad, r.dtype.is_floating_point))(f(b)) "
    "for f in (lambda t: t << 3, lambda t: t == 1, lambda t: t // 2, lambda t: t.long(), lambda t: t.float())])[1])"
    "(T.tensor([True, False]))",
    "(lambda b: (b.eq_(T.ones(2, requires_grad=True)), b * 2))(T.tensor([True, False]))",
    "(lambda b: (b.eq_(T.ones(2, requires_grad=True)), b % 2))(T.tensor([True, False]))",
    "T.bmm(T.ones(2, 0, 3, requires_grad=True), T.ones(2, 3, 4, dtype=T.int64))",
    "T.ones(3, dtype=T.int8).add_(T.tensor([-4, 7, -2147483647], dtype=T.int32), alpha=300)",
    "T.nn.functional.conv2d(T.ones(3, 4, 4, 0), T.ones(2, 4, 2, 1), padding=1)",
    # an expanded bool trunc_ (layout first); an int of an indexed write out of range (before autograd);
    # clamp's min gradient where min < max would grow (x < min)
    "T.tensor([[False]]).expand(3, 2).trunc_()",
    "(lambda v: v.__setitem__((T.tensor([], dtype=T.int64), 0), -128))(T.ones(1, 0, requires_grad=True)[:, ::2])",
    "(lambda v: v.__setitem__((T.tensor([0]), 5), 1))(T.ones(2, 3, requires_grad=True))",
    "(lambda v: v.backward(T.ones(2, dtype=T.float64)))(T.tensor(1.5, dtype=T.float64).clamp("
    "T.tensor(2.3, requires_grad=True), T.tensor([-3, 4])))",
    # repeat's result is row-major (tile(()) of a 0-d tensor too); an empty input to attention
    "T.ones(2, 3).t().repeat(1, 1).stride()", "T.tensor(2.).tile(()).shape", "T.tensor(False).repeat(()).shape",
    "T.nn.functional.scaled_dot_product_attention(T.ones(0, 4, 4, dtype=T.float16, requires_grad=True), "
    "T.ones(0, 4, 4, dtype=T.float16), T.ones(0, 4, 4, dtype=T.float16)).grad_fn.name()",
    # a convolution's dtype checks in PyTorch's words, by path; the bias's shape
    "T.nn.functional.conv1d(T.ones(1, 1, 3, dtype=T.float16), T.ones(1, 1, 2))",
    "T.nn.functional.conv1d(T.ones(1, 1, 3, dtype=T.float64), T.ones(1, 1, 2))",
    "T.nn.functional.conv1d(T.ones(1, 1, 3), T.ones(1, 1, 2), T.ones(1, dtype=T.float64))",
    "T.nn.functional.conv1d(T.ones(1, 1, 3), T.ones(1, 1, 2), T.ones(1, dtype=T.float64), padding='same')",
    "T.nn.functional.conv_transpose1d(T.ones(1, 1, 3, dtype=T.int64), T.ones(1, 1, 2, dtype=T.int64), T.ones(1))",
    "T.nn.functional.conv_transpose1d(T.ones(1, 1, 3), T.ones(1, 1, 2), T.ones(1, dtype=T.float64))",
    "T.nn.functional.conv1d(T.ones(1, 1, 3), T.ones(1, 1, 2), T.ones(2))",
    "T.nn.functional.conv_transpose1d(T.ones(1, 2, 3), T.ones(2, 4, 2), T.ones(2))",
]


# an output that backward reads, modified in place since: PyTorch's error there (its message names the
# node and the fix, where PyTorch's points to anomaly mode)
MODIFIED_OUTPUTS = [
    _MODIFIED_OUTPUT.format("T.ones(2, 3, requires_grad=True).max(1)", i=1, j=0),
    _MODIFIED_OUTPUT.format("T.ones(2, 3, requires_grad=True).sort(1)", i=1, j=0),
    _MODIFIED_OUTPUT.format("T.ones(2, 3, requires_grad=True).cummin(1)", i=1, j=0),
    _MODIFIED_OUTPUT.format("T.ones(2, 3, requires_grad=True).aminmax()", i=1, j=0),
    _MODIFIED_OUTPUT.format("T.std_mean(T.ones(2, 3, requires_grad=True), 1)", i=0, j=1),
    _MODIFIED_OUTPUT.format("T.var_mean(T.ones(2, 3, requires_grad=True), 1)", i=0, j=1),
    _MODIFIED_OUTPUT.format("T.nn.functional.max_pool1d(T.ones(2, 3, requires_grad=True), 1, return_indices=True)",
                            i=1, j=0),
    # sgn keeps its input and result; embedding its indices
    "(lambda y: (y.exp_(), y.sum().backward()))((T.ones(3, requires_grad=True) * 1).sgn())",
    "(lambda i: (lambda y: (i.zero_(), y.sum().backward()))(T.nn.functional.embedding(i, T.ones(2, 1, requires_grad=True))))"
    "(T.tensor([1, 0]))",
]


@pytest.mark.parametrize("src", SURVEY_CASES)
def test_survey_findings(src):
    check(src, exact=True)


@pytest.mark.parametrize("src", MODIFIED_OUTPUTS)
def test_an_output_backward_reads_may_not_change(src):
    check(src)


@pytest.mark.parametrize("src", [
    "T.sum(x, 1, out=x[0])", "T.sum(x, 0, out=x)", "T.mean(x, 1, out=x.t()[0])", "T.prod(x, 1, out=x[1])",
    "T.amax(x, 1, out=x[0])", "T.std(x, 1, out=x[0])", "T.matmul(x, x.t(), out=x)", "T.mm(x, x.t(), out=x[1:])",
    "T.max(x, 1, out=(x[0], T.empty(0, dtype=T.long)))",
])
def test_out_sharing_memory_with_a_reduction_input_is_refused(src):
    """A reduction or matrix product whose out= shares memory with its input: PyTorch runs it, reading
    the input as it overwrites it (a result that depends on its kernel's order); minitorch refuses it,
    with PyTorch's error for the partial case (README: Differences from PyTorch)."""
    x = minitorch.tensor([[1., 2., 3.], [4., 5., 6.]])
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        eval(src, {"T": minitorch, "x": x})  # noqa: S307
    assert x.tolist() == [[1., 2., 3.], [4., 5., 6.]]
