"""Reductions and ordering on bad and corner-case input, against PyTorch 2.13: sum, prod, mean,
amax / amin, any / all, max / min / argmax / argmin along a dim, var / std (and var_mean /
std_mean), norm and linalg.vector_norm, logsumexp, count_nonzero, cumsum / cumprod, sort /
argsort / msort, topk, kthvalue, median / nanmedian, mode, unique / unique_consecutive, histc,
searchsorted / bucketize.

Each case runs on both libraries. Where PyTorch raises, minitorch must raise the same exception
type with PyTorch's first line of message word for word (minitorch's hint rides along as a note);
where PyTorch runs, minitorch must give the same dtype, shape and values. The tables loop over
every dtype from bool to float64, 0-d, size-1, empty and 2-D inputs, negative and out-of-range
dims, keepdim and dtype=, so that the order of PyTorch's checks (the dim first, then an empty
input without identity, then the dtype its kernel refuses) is tested and not just each check.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SHAPES = [(), (0,), (1,), (3,), (2, 0), (0, 3), (2, 3)]
DIMS = [None, 0, -1, 1, -2, 2]


def _data(lib, shape, dtype):
    """Small values with ties, zeros and (where the dtype has them) negatives: the same on both."""
    n = int(np.prod(shape)) if shape else 1
    values = (np.arange(n) * 7 % 5 - 1).reshape(shape)
    if dtype == "uint8":
        values = values + 1
    return lib.tensor(values.tolist(), dtype=getattr(lib, dtype))


def _flat(x):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        arr = x.detach().numpy().astype(np.float64) if x.numel() else np.zeros(tuple(x.shape))
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), arr)
    if isinstance(x, (tuple, list)):
        return tuple(_flat(v) for v in x)
    return x


def outcome(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("runs", _flat(fn(lib)))
        except Exception as e:  # noqa: BLE001 (the type is what is compared)
            return ("raises", type(e).__name__, str(e).split("\n")[0])


def _same(a, b):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        return (isinstance(b, tuple) and a[:3] == b[:3]
                and np.allclose(a[3], b[3], rtol=1e-3, atol=1e-6, equal_nan=True))
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def mismatch(fn, words=True):
    """None where minitorch behaves as PyTorch; else both outcomes. `words`: compare the message too."""
    t, m = outcome(fn, torch), outcome(fn, minitorch)
    if t[0] != m[0] or t[0] == "raises" and (t[1] != m[1] or words and t[2] != m[2]):
        return f"torch {t[:3]}\n      minitorch {m[:3]}"
    if t[0] == "runs" and not _same(t[1], m[1]):
        return f"torch {t[1]}\n      minitorch {m[1]}"
    return None


def _report(bad):
    return f"{len(bad)} cases differ from PyTorch, e.g.:\n" + "\n".join(bad[:8])


# ---- one table: every op over dtypes x shapes x dims ----------------------------------------

def _opt(f, g):
    """f(L, x) without a dim, g(L, x, d) with one."""
    return lambda L, x, d: f(L, x) if d is None else g(L, x, d)


OVER_DIMS = {
    "sum": _opt(lambda L, x: L.sum(x), lambda L, x, d: L.sum(x, d)),
    "prod": _opt(lambda L, x: L.prod(x), lambda L, x, d: L.prod(x, d)),
    "mean": _opt(lambda L, x: L.mean(x), lambda L, x, d: L.mean(x, d)),
    "amax": _opt(lambda L, x: L.amax(x), lambda L, x, d: L.amax(x, d)),
    "amin": _opt(lambda L, x: L.amin(x), lambda L, x, d: L.amin(x, d)),
    "any": _opt(lambda L, x: L.any(x), lambda L, x, d: L.any(x, d)),
    "all": _opt(lambda L, x: L.all(x), lambda L, x, d: L.all(x, d)),
    "max": _opt(lambda L, x: L.max(x), lambda L, x, d: tuple(L.max(x, d))),
    "min": _opt(lambda L, x: L.min(x), lambda L, x, d: tuple(L.min(x, d))),
    "argmax": _opt(lambda L, x: L.argmax(x), lambda L, x, d: L.argmax(x, d)),
    "argmin": _opt(lambda L, x: L.argmin(x), lambda L, x, d: L.argmin(x, d)),
    "var": _opt(lambda L, x: L.var(x), lambda L, x, d: L.var(x, d)),
    "std": _opt(lambda L, x: L.std(x), lambda L, x, d: L.std(x, d)),
    "var_mean": _opt(lambda L, x: tuple(L.var_mean(x)), lambda L, x, d: tuple(L.var_mean(x, d))),
    "std_mean": _opt(lambda L, x: tuple(L.std_mean(x)), lambda L, x, d: tuple(L.std_mean(x, d))),
    "norm": _opt(lambda L, x: L.norm(x), lambda L, x, d: L.norm(x, dim=d)),
    "norm p=0": _opt(lambda L, x: L.norm(x, p=0), lambda L, x, d: L.norm(x, p=0, dim=d)),
    "norm p=inf": _opt(lambda L, x: L.norm(x, p=float("inf")), lambda L, x, d: L.norm(x, p=float("inf"), dim=d)),
    "vector_norm ord=-inf": _opt(lambda L, x: L.linalg.vector_norm(x, ord=-float("inf")),
                                 lambda L, x, d: L.linalg.vector_norm(x, ord=-float("inf"), dim=d)),
    "vector_norm ord=-1": _opt(lambda L, x: L.linalg.vector_norm(x, ord=-1),
                               lambda L, x, d: L.linalg.vector_norm(x, ord=-1, dim=d)),
    "logsumexp": lambda L, x, d: L.logsumexp(x, 0 if d is None else d),
    "count_nonzero": _opt(lambda L, x: L.count_nonzero(x), lambda L, x, d: L.count_nonzero(x, d)),
    "cumsum": lambda L, x, d: L.cumsum(x, 0 if d is None else d),
    "cumprod": lambda L, x, d: L.cumprod(x, 0 if d is None else d),
    "sort": _opt(lambda L, x: tuple(L.sort(x)), lambda L, x, d: tuple(L.sort(x, d))),
    "argsort": _opt(lambda L, x: L.argsort(x), lambda L, x, d: L.argsort(x, d)),
    "msort": lambda L, x, d: L.msort(x),
    "topk k=1": _opt(lambda L, x: tuple(L.topk(x, 1)), lambda L, x, d: tuple(L.topk(x, 1, d))),
    "topk k=0": _opt(lambda L, x: tuple(L.topk(x, 0)), lambda L, x, d: tuple(L.topk(x, 0, d))),
    "kthvalue k=1": _opt(lambda L, x: tuple(L.kthvalue(x, 1)), lambda L, x, d: tuple(L.kthvalue(x, 1, d))),
    "median": _opt(lambda L, x: L.median(x), lambda L, x, d: tuple(L.median(x, d))),
    "nanmedian": _opt(lambda L, x: L.nanmedian(x), lambda L, x, d: tuple(L.nanmedian(x, d))),
    "mode": _opt(lambda L, x: tuple(L.mode(x)), lambda L, x, d: tuple(L.mode(x, d))),
    "unique": _opt(lambda L, x: L.unique(x), lambda L, x, d: L.unique(x, dim=d)),
    "unique_consecutive": _opt(lambda L, x: L.unique_consecutive(x),
                               lambda L, x, d: L.unique_consecutive(x, dim=d)),
    "histc": lambda L, x, d: L.histc(x, bins=4),
}


@pytest.mark.parametrize("name", list(OVER_DIMS))
def test_each_dtype_shape_and_dim_as_pytorch(name):
    op = OVER_DIMS[name]
    bad = []
    for dt in DTYPES:
        for shape in SHAPES:
            for d in DIMS:
                diff = mismatch(lambda L: op(L, _data(L, shape, dt), d))  # noqa: B023
                if diff:
                    bad.append(f"  {name} of {dt} {shape}, dim={d}:\n      {diff}")
    assert not bad, _report(bad)


# ---- dim lists, keepdim and dtype= ----------------------------------------------------------

WITH_KEEPDIM = {
    "sum": lambda L, x, d, k: L.sum(x, d, keepdim=k),
    "mean": lambda L, x, d, k: L.mean(x, d, keepdim=k),
    "amax": lambda L, x, d, k: L.amax(x, d, keepdim=k),
    "amin": lambda L, x, d, k: L.amin(x, d, keepdim=k),
    "any": lambda L, x, d, k: L.any(x, d, keepdim=k),
    "var": lambda L, x, d, k: L.var(x, d, keepdim=k),
    "std": lambda L, x, d, k: L.std(x, d, keepdim=k, correction=0),
    "norm": lambda L, x, d, k: L.norm(x, dim=d, keepdim=k),
    "norm p=-1": lambda L, x, d, k: L.norm(x, p=-1, dim=d, keepdim=k),
    "norm p=inf": lambda L, x, d, k: L.norm(x, p=float("inf"), dim=d, keepdim=k),
    "logsumexp": lambda L, x, d, k: L.logsumexp(x, d, keepdim=k),
    "count_nonzero": lambda L, x, d, k: L.count_nonzero(x, d),
    "var_mean": lambda L, x, d, k: tuple(L.var_mean(x, d, keepdim=k)),
    "nansum": lambda L, x, d, k: L.nansum(x, d, keepdim=k),
}


@pytest.mark.parametrize("name", list(WITH_KEEPDIM))
def test_dim_lists_and_keepdim_as_pytorch(name):
    """() and [] (every dim, or for logsumexp PyTorch's own reading), repeated and out-of-range dims
    in a list: PyTorch checks an empty input's dims one by one, as written, before it looks for repeats."""
    op = WITH_KEEPDIM[name]
    bad = []
    for dt in ["bool", "int64", "float16", "float64"]:
        for shape in [(), (0,), (1,), (3,), (2, 0), (2, 3)]:
            for d in [(0,), (-1,), (0, -1), (0, 1), (1, 0), (), [], 0]:
                for k in (False, True):
                    diff = mismatch(lambda L: op(L, _data(L, shape, dt), d, k))  # noqa: B023
                    if diff:
                        bad.append(f"  {name} of {dt} {shape}, dim={d}, keepdim={k}:\n      {diff}")
    assert not bad, _report(bad)


ALONG_A_DIM = {
    "median keepdim": lambda L, x, d, f: tuple(L.median(x, d, keepdim=f)),
    "max keepdim": lambda L, x, d, f: tuple(L.max(x, d, keepdim=f)),
    "kthvalue k=2": lambda L, x, d, f: tuple(L.kthvalue(x, 2, d, keepdim=f)),
    "topk k=2": lambda L, x, d, f: tuple(L.topk(x, 2, d, largest=f)),
    "sort descending": lambda L, x, d, f: tuple(L.sort(x, d, descending=f)),
    "sort stable=": lambda L, x, d, f: tuple(L.sort(x, dim=d, descending=f, stable=True)),
    "argsort stable=": lambda L, x, d, f: L.argsort(x, dim=d, descending=f, stable=True),
    "cumsum dtype=": lambda L, x, d, f: L.cumsum(x, d, dtype=L.float64 if f else L.int32),
    "cumprod dtype=bool": lambda L, x, d, f: L.cumprod(x, d, dtype=L.bool),
    "cumsum dtype=bool": lambda L, x, d, f: L.cumsum(x, d, dtype=L.bool),
    "sum dtype=": lambda L, x, d, f: L.sum(x, d, dtype=L.float16 if f else L.bool),
    "mean dtype=": lambda L, x, d, f: L.mean(x, d, dtype=L.float16 if f else L.float64),
    "mean dtype=int": lambda L, x, d, f: L.mean(x, d, dtype=L.int64 if f else L.bool),
    "prod dtype=": lambda L, x, d, f: L.prod(x, d, dtype=L.float32 if f else L.uint8),
    "norm dtype=": lambda L, x, d, f: L.norm(x, dim=d, dtype=L.float64 if f else L.int64),
    "unique counts": lambda L, x, d, f: tuple(L.unique(x, dim=d, return_counts=True, return_inverse=f)),
}


@pytest.mark.parametrize("name", list(ALONG_A_DIM))
def test_keyword_forms_as_pytorch(name):
    op = ALONG_A_DIM[name]
    bad = []
    for dt in DTYPES:
        for shape in SHAPES:
            for d in [0, -1, 1, 2]:
                for f in (False, True):
                    diff = mismatch(lambda L: op(L, _data(L, shape, dt), d, f))  # noqa: B023
                    if diff:
                        bad.append(f"  {name} of {dt} {shape}, dim={d}, flag={f}:\n      {diff}")
    assert not bad, _report(bad)


# ---- single cases: each a check PyTorch makes in a place the tables do not reach -------------

def _inf(L):
    return float("inf")


CASES = {
    # an empty input to a reduction without an identity: the dims, as written, in PyTorch's order
    "amax() of an empty tensor": lambda L: L.zeros(2, 0).amax(),
    "amax(dim=()) of an empty tensor": lambda L: L.zeros(2, 0).amax(()),
    "amax(dim=-1) names -1": lambda L: L.zeros(2, 0).amax(-1),
    "amin(dim=(0, 1)) of (0,): dim 0 before the range of 1": lambda L: L.zeros(0).amin((0, 1)),
    "amin(dim=(1, 0)) of (0,): the range of 1 first": lambda L: L.zeros(0).amin((1, 0)),
    "argmax() of an empty tensor": lambda L: L.zeros(0, 3).argmax(),
    "max(dim=-1) of (2, 0)": lambda L: L.zeros(2, 0).max(-1),
    "max(dim=0) of (0, 3) is fine": lambda L: tuple(L.zeros(2, 0).max(0)),
    "norm p=inf of an empty tensor": lambda L: L.zeros(2, 0).norm(p=float("inf")),
    "norm p=-2 over its empty dim": lambda L: L.zeros(2, 0).norm(p=-2, dim=1),
    "norm p=-0.5 over (0, -1)": lambda L: L.zeros(2, 0).norm(p=-0.5, dim=(0, -1)),
    "norm p=inf over its non-empty dim": lambda L: L.zeros(2, 0).norm(p=float("inf"), dim=0),
    "vector_norm ord=-1 of an empty tensor": lambda L: L.linalg.vector_norm(L.zeros(0), ord=-1),
    "norm of an int tensor with dtype=float": lambda L: L.norm(L.tensor([3, 4]), dtype=L.float32),
    "norm narrowing dtype=": lambda L: L.norm(L.tensor([3., 4.]), dtype=L.float16),
    "norm widening dtype=": lambda L: L.norm(L.tensor([3., 4.], dtype=L.float16), dtype=L.float32),
    # a result dtype that carries no gradient
    "sum(dtype=int64) of a tensor that requires grad":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).sum(dtype=L.int64),
    "sum(0, dtype=int32) of a tensor that requires grad":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).sum(0, dtype=L.int32),
    "prod(dtype=bool) of a tensor that requires grad":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).prod(dtype=L.bool),
    "cumsum(dtype=int16) of a tensor that requires grad":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).cumsum(0, dtype=L.int16),
    "cumprod(dtype=int64) of a tensor that requires grad":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).cumprod(0, dtype=L.int64),
    "cumsum(dim=3, dtype=int64): the dim first":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).cumsum(3, dtype=L.int64),
    "cumsum(dtype=bool) of a tensor that requires grad: the kernel first":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).cumsum(0, dtype=L.bool),
    "nansum(dtype=int64) of a tensor that requires grad":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).nansum(dtype=L.int64),
    "sum(dtype=float16) of a tensor that requires grad":
        lambda L: L.tensor([1.5, 2.], requires_grad=True).sum(dtype=L.float16),
    "sum(dtype=int64) detached": lambda L: L.tensor([1.5, 2.], requires_grad=True).detach().sum(dtype=L.int64),
    # half means are summed in float32 from the input itself
    "mean(dtype=float16) of ints beyond half": lambda L: L.tensor([70000, -70000, 5]).mean(dtype=L.float16),
    "mean(0, dtype=float16) of floats beyond half": lambda L: L.tensor([70000., -70000., 5.]).mean(0, dtype=L.float16),
    "mean(dtype=float32) of half": lambda L: L.tensor([1., 2.], dtype=L.float16).mean(dtype=L.float32),
    # logsumexp over dim=(): every dim, which only keepdim=True (or an empty input) survives
    "logsumexp(dim=()) keepdim": lambda L: L.logsumexp(L.tensor([[1., 2.], [3., 4.]]), (), keepdim=True),
    "logsumexp(dim=())": lambda L: L.logsumexp(L.tensor([[1., 2.], [3., 4.]]), ()),
    "logsumexp(dim=()) of an empty tensor": lambda L: L.logsumexp(L.zeros(2, 0), ()),
    "logsumexp(dim=()) of 0-d": lambda L: L.logsumexp(L.tensor(2.), ()),
    "count_nonzero(dim=())": lambda L: L.count_nonzero(L.tensor([[0, 1], [2, 0]]), ()),
    # ordering: the kernels' dtypes and the 0-d shortcuts
    "topk of a 0-d tensor with k=0": lambda L: tuple(L.topk(L.tensor(3.), 0)),
    "topk of bool": lambda L: L.topk(L.tensor([True, False]), 1),
    "topk of bool with k out of range: k first": lambda L: L.topk(L.tensor([True]), 5),
    "kthvalue of 0-d bool": lambda L: tuple(L.kthvalue(L.tensor(True), 1)),
    "kthvalue of bool": lambda L: L.kthvalue(L.tensor([True, False]), 1),
    "kthvalue of an empty dim: before k": lambda L: L.kthvalue(L.zeros(2, 0), 1),
    "kthvalue k out of range on 0-d": lambda L: L.kthvalue(L.tensor(1.), 2),
    "median of an empty bool tensor": lambda L: L.median(L.zeros(0, dtype=L.bool)),
    "median of bool": lambda L: L.median(L.tensor([True, False])),
    "median(dim) of bool": lambda L: L.median(L.tensor([True, False]), 0),
    "nanmedian of bool": lambda L: L.nanmedian(L.tensor([True, False])),
    "nanmedian over an empty dim says median": lambda L: L.nanmedian(L.zeros(2, 0), 1),
    "unique(dim=0) of 0-d": lambda L: L.unique(L.tensor(3), dim=0),
    "unique(dim=-5) of 0-d": lambda L: L.unique(L.tensor(3), dim=-5),
    "unique(dim=0) with another dim empty": lambda L: L.unique(L.zeros(2, 0), dim=0),
    "unique(dim=0) of its own empty dim": lambda L: L.unique(L.zeros(0, 2), dim=0),
    "unique_consecutive(dim=1) with another dim empty": lambda L: L.unique_consecutive(L.zeros(0, 2), dim=1),
    # sort's two forms: once stable= is given, dim and descending are keywords only
    "sort(x, -1, stable=True)": lambda L: L.sort(L.zeros(3), -1, stable=True),
    "sort(x, -1, stable=None)": lambda L: L.sort(L.zeros(3), -1, stable=None),
    "sort(x, dim=0, stable=True)": lambda L: tuple(L.sort(L.tensor([2., 1., 2.]), dim=0, stable=True)),
    "sort(x, 0, True)": lambda L: tuple(L.sort(L.tensor([2., 1., 3.]), 0, True)),
    "argsort(x, 0, stable=True)": lambda L: L.argsort(L.zeros(3), 0, stable=True),
    "argsort(x, stable=True, descending=True)":
        lambda L: L.argsort(L.tensor([1., 3., 2.]), stable=True, descending=True),
    # histc: bins, then the range (the data's own, inf and nan included), then the dtype
    "histc bins=0": lambda L: L.histc(L.tensor([1., 2.]), bins=0),
    "histc bins=0 of bool": lambda L: L.histc(L.tensor([True]), bins=0),
    "histc of data holding inf": lambda L: L.histc(L.tensor([1., _inf(L)])),
    "histc of data holding nan": lambda L: L.histc(L.tensor([float("nan")])),
    "histc min=inf": lambda L: L.histc(L.tensor([1., 2.]), min=_inf(L), max=3),
    "histc min=nan": lambda L: L.histc(L.tensor([1., 2.]), min=float("nan"), max=3),
    "histc min > max": lambda L: L.histc(L.tensor([1., 2.]), min=3, max=1),
    "histc with inf outside the range": lambda L: L.histc(L.tensor([1.5, _inf(L)]), bins=3, min=0, max=3),
    "histc of bool": lambda L: L.histc(L.tensor([True])),
    "histc of bool, min > max": lambda L: L.histc(L.tensor([True]), min=1, max=-1),
    "histc of uint8 whose range goes below 0": lambda L: L.histc(L.tensor([5], dtype=L.uint8)),
    "histc of uint8 with an empty input": lambda L: L.histc(L.zeros(0, dtype=L.uint8)),
    "histc of int8 max=128": lambda L: L.histc(L.tensor([1], dtype=L.int8), min=0, max=128),
    "histc of int32 in range": lambda L: L.histc(L.tensor([1, 2], dtype=L.int32), min=0, max=3),
    "histc of half max=70000": lambda L: L.histc(L.tensor([1.], dtype=L.float16), min=0, max=70000),
    "histc of half": lambda L: L.histc(L.tensor([1., 2.], dtype=L.float16), bins=3),
    "histc of an empty tensor": lambda L: L.histc(L.zeros(0), bins=3),
    "histc of 0-d": lambda L: L.histc(L.tensor(2.), bins=3),
    # searchsorted: PyTorch's binary search (NaN sends it right), in the common dtype
    "searchsorted with NaN last": lambda L: L.searchsorted(L.tensor([1., 2., float("nan")]),
                                                           L.tensor([0., 1.5, 2., 5., float("nan")])),
    "searchsorted right= with NaN last": lambda L: L.searchsorted(L.tensor([1., 2., float("nan")]),
                                                                  L.tensor([0., 1.5, 2., 5.]), right=True),
    "searchsorted of bool": lambda L: L.searchsorted(L.tensor([False, True]), L.tensor([True])),
    "bucketize of bool": lambda L: L.bucketize(L.tensor([True]), L.tensor([False, True])),
    "searchsorted int8 with a 0-d int16 value": lambda L: L.searchsorted(L.tensor([1, 2, 3], dtype=L.int8),
                                                                         L.tensor(-690, dtype=L.int16)),
    "searchsorted ints with a float value": lambda L: L.searchsorted(L.tensor([1, 2, 3]), L.tensor([2.5])),
    "searchsorted with a Python float": lambda L: L.searchsorted(L.tensor([1., 2., 3.]), 2.5),
    "searchsorted rows with a sorter": lambda L: L.searchsorted(
        L.tensor([[3., 1., 2.], [float("nan"), 0., 1.]]), L.tensor([[2., 0.5], [0.5, 3.]]),
        sorter=L.tensor([[1, 2, 0], [1, 2, 0]])),
    "searchsorted of an empty sequence": lambda L: L.searchsorted(L.zeros(0), L.tensor([1., 2.])),
}


def test_single_cases_as_pytorch():
    bad = [f"  {name}:\n      {diff}" for name, fn in CASES.items() if (diff := mismatch(fn, words=True))
           and not (name.startswith(("sort(x", "argsort(x")) and mismatch(fn, words=False) is None)]
    assert not bad, _report(bad)


def test_sort_method_forms_keep_the_type():
    """x.sort(-1, stable=True): PyTorch's TypeError (its message lists the call without the tensor)."""
    for fn in (lambda L: L.zeros(3).sort(-1, stable=True), lambda L: L.zeros(3).argsort(0, stable=False)):
        assert mismatch(fn, words=False) is None


def test_hints_ride_as_notes():
    """PyTorch's message is the error's text; minitorch's hint is a note beside it (or, before Python
    3.11, after it in parentheses)."""
    import sys
    with pytest.raises(NotImplementedError) as e:
        minitorch.median(minitorch.tensor([True, False]))
    assert str(e.value).startswith("\"median_cpu\" not implemented for 'Bool'")
    if sys.version_info >= (3, 11):
        assert str(e.value) == "\"median_cpu\" not implemented for 'Bool'"
        assert e.value.__notes__ and "x.int()" in e.value.__notes__[0]


def test_searchsorted_matches_pytorch_on_random_sequences():
    """Sorted, reversed and NaN- / inf-holding sequences, every side and dtype pair."""
    rng = np.random.default_rng(7)
    bad = []
    for _ in range(150):
        pool = [-2., -1., 0., 1., 1., 2., 3., np.nan, np.inf, -np.inf]
        seq = np.sort(rng.choice(pool, size=int(rng.integers(0, 7))))
        if rng.random() < 0.3:
            seq = seq[::-1].copy()
        vals = rng.choice([-3., -1., 0., 0.5, 1., 2., 4., np.nan, np.inf, -np.inf], size=int(rng.integers(0, 5)))
        for ds, dv in [("float32", "float32"), ("int64", "float32"), ("float16", "float64"), ("int8", "int16")]:
            if "int" in ds and not np.isfinite(seq).all() or "int" in dv and not np.isfinite(vals).all():
                continue
            for right in (False, True):
                def fn(L, seq=seq, vals=vals, ds=ds, dv=dv, right=right):
                    return L.searchsorted(L.tensor(seq.tolist(), dtype=getattr(L, ds)),
                                          L.tensor(vals.tolist(), dtype=getattr(L, dv)), right=right)
                diff = mismatch(fn)
                if diff:
                    bad.append(f"  {seq} {vals} {ds}/{dv} right={right}:\n      {diff}")
    assert not bad, _report(bad)


def _warned(fn, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if lib is torch:
            torch.set_warn_always(True)  # (PyTorch says these once per process otherwise)
        else:
            minitorch._tensor._WARNED.clear()
        try:
            fn(lib)
        finally:
            if lib is torch:
                torch.set_warn_always(False)
    return [(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in caught]


@pytest.mark.parametrize("call", [
    lambda L: L.searchsorted(L.tensor([1., 2., 3.]), L.tensor([[1., 2.], [3., 4.]]).T),
    lambda L: L.searchsorted(L.tensor([[1., 2.], [3., 4.]]).T, L.tensor([[1., 2.], [3., 4.]])),
    lambda L: L.bucketize(L.tensor([[1., 2.], [3., 4.]]), L.tensor([1., 2., 3., 4.])[::2]),
    lambda L: L.bucketize(L.tensor([[1., 2.], [3., 4.]]).T, L.tensor([1., 2., 3.])),
    lambda L: L.searchsorted(L.tensor([1., 2., 3.]), 2.5),
    lambda L: L.searchsorted(L.tensor([1., 2., 3.]), L.tensor(2.)),
])
def test_searchsorted_says_when_it_copies_a_non_contiguous_input(call):
    assert _warned(call, minitorch) == _warned(call, torch)


@pytest.mark.parametrize("make", [
    lambda L: L.tensor([0., -0.]),
    lambda L: L.tensor([-0., 0., 1.]),
    lambda L: L.tensor([1., -0., 2., 0., -0.], dtype=L.float64),
    lambda L: L.tensor([[0., 0., -0.], [1.07, 1., -3.], [-2.47, -0.75, -2.46]], dtype=L.float64).T,  # its order, not memory's
    lambda L: L.tensor([float("nan"), 0., float("nan"), -0.], dtype=L.float16),
])
def test_unique_keeps_the_first_of_equal_elements(make):
    """0. and -0. are equal: of up to 16 elements PyTorch keeps the one that comes first (its sort is
    stable there), so the sign of a zero it returns tells which; the inverse and counts follow."""
    def signed(t):
        return [(v, np.signbit(v)) for v in t.detach().numpy().astype(np.float64).tolist()]
    t_vals, t_inv, t_counts = torch.unique(make(torch), return_inverse=True, return_counts=True)
    m_vals, m_inv, m_counts = minitorch.unique(make(minitorch), return_inverse=True, return_counts=True)
    assert str(signed(m_vals)) == str(signed(t_vals))  # (str: NaN compares equal to NaN)
    assert m_inv.tolist() == t_inv.tolist() and m_counts.tolist() == t_counts.tolist()
