"""The wider API against NumPy and closed forms (no PyTorch needed: these run in every `make
test`); tests/test_torch_api.py compares the same ops with PyTorch when it is installed."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch
from minitorch._ops import _specfun

R = np.random.default_rng(7)
floats = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                    elements=st.floats(-100, 100, allow_nan=False, width=64))


def T(a):
    return minitorch.tensor(a)


# ---- special functions, also without SciPy ------------------------------------------------

@pytest.fixture(params=["default", "no-scipy"])
def special(request, monkeypatch):
    if request.param == "no-scipy":  # the standard-library fallback the CPU uses without SciPy
        monkeypatch.setattr(_specfun, "_scipy_special", lambda xp: None)
    return request.param


def test_erf_erfc_lgamma_match_math(special):
    x = np.linspace(-4, 4, 41)
    np.testing.assert_allclose(minitorch.erf(T(x)).numpy(), [math.erf(v) for v in x], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(minitorch.erfc(T(x)).numpy(), [math.erfc(v) for v in x], rtol=1e-12, atol=1e-15)
    pos = np.linspace(0.1, 20, 40)
    np.testing.assert_allclose(minitorch.lgamma(T(pos)).numpy(), [math.lgamma(v) for v in pos], rtol=1e-12)
    assert minitorch.lgamma(T([0.0, -1.0, -math.inf])).tolist() == [math.inf] * 3


def test_erfinv_inverts_erf(special):
    y = np.linspace(-0.999, 0.999, 37)
    np.testing.assert_allclose(minitorch.erf(minitorch.erfinv(T(y))).numpy(), y, rtol=1e-12, atol=1e-14)
    ends = minitorch.erfinv(T([-1.0, 1.0, 0.0, 2.0])).tolist()
    assert ends[:3] == [-math.inf, math.inf, 0.0] and math.isnan(ends[3])


def test_digamma_and_polygamma_closed_forms(special):
    euler = 0.5772156649015329
    d = minitorch.digamma(T(np.array([1.0, 0.5, 2.0]))).numpy()
    np.testing.assert_allclose(d, [-euler, -euler - 2 * math.log(2), 1 - euler], rtol=1e-12)
    one = T(np.array([1.0]))
    np.testing.assert_allclose(minitorch.polygamma(1, one).numpy(), [math.pi ** 2 / 6], rtol=1e-12)
    np.testing.assert_allclose(minitorch.polygamma(2, one).numpy(), [-2.4041138063191885], rtol=1e-12)
    assert minitorch.digamma(T([0.0])).item() == -math.inf


def test_bessel_i0_i1(special):
    x = np.linspace(-6, 6, 25)
    np.testing.assert_allclose(minitorch.i0(T(x)).numpy(), np.i0(x), rtol=1e-12)
    # I1 = I0' : the central difference of np.i0
    h = 1e-5
    np.testing.assert_allclose(minitorch.special.i1(T(x)).numpy(), (np.i0(x + h) - np.i0(x - h)) / (2 * h), rtol=1e-8)


def test_float32_stays_float32(special):
    for f in (minitorch.erf, minitorch.erfinv, minitorch.lgamma, minitorch.digamma):
        assert f(minitorch.tensor([0.5])).dtype is minitorch.float32


# ---- against NumPy ----------------------------------------------------------------------

@given(floats)
def test_sort_argsort_match_numpy(a):
    for dim in range(a.ndim):
        v, i = minitorch.sort(T(a), dim)
        np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=dim, kind="stable"))
        np.testing.assert_array_equal(i.numpy(), np.argsort(a, axis=dim, kind="stable"))
        d = minitorch.sort(T(a), dim, descending=True).values.numpy()
        np.testing.assert_array_equal(d, np.flip(np.sort(a, axis=dim), axis=dim))


@given(floats)
def test_tril_triu_roll_diagonal_match_numpy(a):
    t = T(a)
    np.testing.assert_array_equal(minitorch.roll(t, 2).numpy(), np.roll(a, 2))
    if a.ndim >= 2:
        for k in (-1, 0, 2):
            np.testing.assert_array_equal(t.tril(k).numpy(), np.tril(a, k))
            np.testing.assert_array_equal(t.triu(k).numpy(), np.triu(a, k))
            np.testing.assert_array_equal(t.diagonal(k).numpy(), np.diagonal(a, k))
            np.testing.assert_array_equal(t.diagonal(k, -1, 0).numpy(), np.diagonal(a, k, -1, 0))


def test_einsum_matches_numpy():
    a, b, c = R.standard_normal((2, 3, 4)), R.standard_normal((4, 5)), R.standard_normal((5,))
    for eq, ops in [("bij,jk->bik", (a, b)), ("bij,jk,k->bi", (a, b, c)), ("bij->j", (a,)), ("ij,ij->", (b.T, b.T)),
                    ("...j,jk->...k", (a, b)), ("k,k", (c, c)), ("ii->i", (b[:4, :4],))]:
        np.testing.assert_allclose(minitorch.einsum(eq, *map(T, ops)).numpy(), np.einsum(eq, *ops), rtol=1e-12)


def test_cdist_and_dist_match_brute_force():
    x, y = R.standard_normal((4, 3)), R.standard_normal((5, 3))
    for p in (1.0, 2.0, 3.0, math.inf):
        want = np.array([[np.linalg.norm(u - v, ord=p) for v in y] for u in x])
        np.testing.assert_allclose(minitorch.cdist(T(x), T(y), p=p).numpy(), want, rtol=1e-12)
        np.testing.assert_allclose(minitorch.dist(T(x[0]), T(y[0]), p).item(), np.linalg.norm(x[0] - y[0], ord=p))


def test_scatter_family_matches_numpy():
    x = R.standard_normal((3, 4))
    idx = R.integers(0, 3, (5, 4))
    src = R.standard_normal((5, 4))
    want = x.copy()
    np.add.at(want, (idx, np.arange(4)), src)
    np.testing.assert_allclose(T(x).scatter_add(0, T(idx), T(src)).numpy(), want)
    want = x.copy()
    np.add.at(want, [0, 2, 0], src[:3])
    np.testing.assert_allclose(T(x).index_add(0, T([0, 2, 0]), T(src[:3])).numpy(), want)
    np.testing.assert_array_equal(T(x).take(T([[0, 11], [5, -1]])).numpy(), x.reshape(-1)[[[0, 11], [5, -1]]])
    mask = x > 0
    np.testing.assert_array_equal(T(x).masked_select(T(mask)).numpy(), x[mask])


def test_counting_and_searching_match_numpy():
    a = R.integers(0, 7, 30)
    np.testing.assert_array_equal(minitorch.bincount(T(a), minlength=9).numpy(), np.bincount(a, minlength=9))
    vals, inv, counts = minitorch.unique(T(a), return_inverse=True, return_counts=True)
    nv, ni, nc = np.unique(a, return_inverse=True, return_counts=True)
    for got, want in ((vals, nv), (inv, ni), (counts, nc)):
        np.testing.assert_array_equal(got.numpy(), want)
    f = R.standard_normal(50)
    np.testing.assert_array_equal(minitorch.histc(T(f), bins=7, min=-1, max=1).numpy(),
                                  np.histogram(f[(f >= -1) & (f <= 1)], bins=7, range=(-1, 1))[0])
    s = np.sort(R.standard_normal(9))
    np.testing.assert_array_equal(minitorch.searchsorted(T(s), T(f)).numpy(), np.searchsorted(s, f))
    np.testing.assert_array_equal(minitorch.bucketize(T(f), T(s), right=True).numpy(),
                                  np.searchsorted(s, f, side="right"))
    np.testing.assert_array_equal(minitorch.repeat_interleave(T(f[:3]), T([2, 0, 3])).numpy(),
                                  np.repeat(f[:3], [2, 0, 3]))


def test_statistics_match_numpy():
    x = R.standard_normal((4, 5))
    std, mean = minitorch.std_mean(T(x), 1)
    np.testing.assert_allclose(std.numpy(), x.std(1, ddof=1))
    np.testing.assert_allclose(mean.numpy(), x.mean(1))
    var, mean = minitorch.var_mean(T(x), correction=0)
    np.testing.assert_allclose([var.item(), mean.item()], [x.var(), x.mean()])
    v, _ = minitorch.median(T(x), 1)
    np.testing.assert_array_equal(v.numpy(), np.sort(x, 1)[:, 2])
    np.testing.assert_allclose(minitorch.logspace(-1, 2, 4).numpy(), np.logspace(-1, 2, 4), rtol=1e-6)


def test_meshgrid_matches_numpy():
    a, b = np.arange(3.0), np.arange(4.0)
    for indexing in ("ij", "xy"):
        got = minitorch.meshgrid(T(a), T(b), indexing=indexing)
        for g, w in zip(got, np.meshgrid(a, b, indexing=indexing)):
            np.testing.assert_array_equal(g.numpy(), w)


# ---- autograd.functional against closed forms -------------------------------------------

def test_jacobian_and_hessian_closed_forms():
    x = np.array([0.5, -1.0, 2.0])
    xt = minitorch.tensor(x)
    J = minitorch.autograd.functional.jacobian(lambda t: t ** 2, xt)
    np.testing.assert_allclose(J.numpy(), np.diag(2 * x))
    H = minitorch.autograd.functional.hessian(lambda t: (t ** 3).sum(), xt)
    np.testing.assert_allclose(H.numpy(), np.diag(6 * x))
    (ja, jb) = minitorch.autograd.functional.jacobian(lambda a, b: a * b, (xt, xt * 2))
    np.testing.assert_allclose(ja.numpy(), np.diag(2 * x))
    np.testing.assert_allclose(jb.numpy(), np.diag(x))
    assert not J.requires_grad


def test_detect_anomaly_names_the_backward_that_made_nan():
    x = minitorch.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = minitorch.autograd.detect_anomaly()
    with mode, pytest.warns(UserWarning, match="Error detected in DivBackward0"):
        with pytest.raises(RuntimeError, match=r"^Function 'DivBackward0' returned nan values in its 1th output\.$"):
            (x / x).sum().backward()
    assert not minitorch.is_anomaly_enabled()
    (x / x).sum().backward()  # outside the mode: nan is a value, as in PyTorch
    assert math.isnan(x.grad[0].item())
