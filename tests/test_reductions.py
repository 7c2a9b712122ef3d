"""Reductions over all elements, one dim, or a tuple of dims, with and without keepdim (vs NumPy)."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)
XP = RNG.uniform(0.5, 1.5, (2, 3, 4)).astype(np.float32)  # for prod: values near 1 keep it well scaled
W = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 0.0]], np.float32)  # ties

DIMS = [None, 0, 1, 2, -1, (0, 1), (2, 0), (0, 1, 2), (-1, -2)]


def close(t, expected, rtol=1e-5, atol=1e-5):
    expected = np.asarray(expected)
    assert tuple(t.shape) == expected.shape, (tuple(t.shape), expected.shape)
    np.testing.assert_allclose(t.numpy().astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol)


def np_kw(dim, keepdim):
    return {"axis": dim, "keepdims": keepdim}


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("name, f, data", [
    ("sum", np.sum, X), ("mean", np.mean, X), ("amax", np.max, X), ("amin", np.min, X),
    ("std", lambda a, **k: np.std(a, ddof=1, **k), X), ("var", lambda a, **k: np.var(a, ddof=1, **k), X),
    ("norm", lambda a, **k: np.sqrt(np.sum(a.astype(np.float64) ** 2, **k)), X),
    ("logsumexp", lambda a, **k: np.log(np.sum(np.exp(a.astype(np.float64)), **k)), X),
], ids=lambda v: v if isinstance(v, str) else "")
def test_reduction_matches_numpy(name, f, data, dim, keepdim):
    t = mt.tensor(data)
    if name == "logsumexp" and dim is None:
        with pytest.raises(TypeError):  # dim is required, as in PyTorch
            t.logsumexp()
        return
    kw = {} if dim is None and not keepdim else {"dim": dim, "keepdim": keepdim}
    if dim is None and keepdim and name in ("sum", "mean", "std", "var", "norm"):
        kw = {"dim": None, "keepdim": True}
    out = getattr(t, name)(**kw)
    expected = f(data, **np_kw(dim, keepdim)) if kw else f(data)
    close(out, expected)
    assert out.dtype is mt.float32


@pytest.mark.parametrize("dim", [None, 0, 1, -1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod(dim, keepdim):
    t = mt.tensor(XP)
    if dim is None:
        close(t.prod(), np.prod(XP))
    else:
        close(t.prod(dim, keepdim=keepdim), np.prod(XP, axis=dim, keepdims=keepdim))
        close(mt.prod(t, dim=dim, keepdim=keepdim), np.prod(XP, axis=dim, keepdims=keepdim))


def test_sum_and_prod_of_ints_and_bools_accumulate_in_int64():
    i = np.array([[1, 2], [3, 4]], np.int32)
    assert mt.tensor(i).sum().dtype is mt.int64 and mt.tensor(i).sum().item() == 10
    assert mt.tensor(i).prod(1).tolist() == [2, 12] and mt.tensor(i).prod(1).dtype is mt.int64
    b = np.array([[True, False], [True, True]])
    assert mt.tensor(b).sum().item() == 3 and mt.tensor(b).sum(0).tolist() == [2, 1]
    assert mt.tensor(i).sum(dtype=mt.float64).dtype is mt.float64
    big = mt.full((3,), 100, dtype=mt.int8)
    assert big.sum().item() == 300  # no int8 overflow: the sum is int64


def test_mean_std_var_need_floats():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype.*Got: Long"):
        mt.tensor([1, 2]).mean()
    assert mt.tensor([1, 2]).mean(dtype=mt.float64).item() == 1.5
    with pytest.raises(RuntimeError, match="(?s)std and var only support floating point.*x.float\\(\\).std\\(\\)"):
        mt.tensor([1, 2]).std()
    with pytest.raises(RuntimeError, match="(?s)std and var only support floating point.*Long"):
        mt.tensor([1, 2]).var()


def test_std_var_correction():
    x = mt.tensor(X)
    close(x.var(correction=0), np.var(X))
    close(x.std(1, unbiased=False), np.std(X, axis=1))
    close(x.var(dim=(0, 2), correction=2), np.var(X, axis=(0, 2), ddof=2))
    close(mt.std(x, 1, keepdim=True), np.std(X, axis=1, ddof=1, keepdims=True))


def test_max_min_over_all_elements_return_a_0d_tensor():
    x = mt.tensor(X)
    m = x.max()
    assert isinstance(m, mt.Tensor) and m.shape == () and m.item() == X.max()
    assert mt.min(x).item() == X.min()


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_along_dim_return_values_and_indices(dim, keepdim):
    x = mt.tensor(X)
    for name, vf, af in [("max", np.max, np.argmax), ("min", np.min, np.argmin)]:
        r = getattr(x, name)(dim, keepdim=keepdim)
        values, indices = r  # a named tuple, like PyTorch's
        assert r.values is values and r.indices is indices
        close(values, vf(X, axis=dim, keepdims=keepdim))
        assert indices.dtype is mt.int64
        np.testing.assert_array_equal(indices.numpy(), af(X, axis=dim, keepdims=keepdim))


def test_max_ties_take_the_first_index():
    values, indices = mt.tensor(W).max(1)
    assert values.tolist() == [3.0, 2.0] and indices.tolist() == [1, 0]
    assert mt.tensor(W).min(1).indices.tolist() == [0, 1]
    assert mt.tensor(W).argmax(1).tolist() == [1, 0] and mt.tensor(W).argmin(1).tolist() == [0, 1]


@pytest.mark.parametrize("name, f", [("argmax", np.argmax), ("argmin", np.argmin)])
def test_argmax_argmin(name, f):
    x = mt.tensor(X)
    r = getattr(x, name)()
    assert r.shape == () and r.dtype is mt.int64 and r.item() == f(X)  # index into the flattened tensor
    for dim in (0, 1, -1):
        np.testing.assert_array_equal(getattr(x, name)(dim).numpy(), f(X, axis=dim))
        np.testing.assert_array_equal(getattr(mt, name)(x, dim=dim, keepdim=True).numpy(),
                                      f(X, axis=dim, keepdims=True))


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_all_any(dim, keepdim):
    m = RNG.random((3, 4)) > 0.3
    kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    nkw = {} if dim is None else {"axis": dim, "keepdims": keepdim}
    for name, f in [("all", np.all), ("any", np.any)]:
        r = getattr(mt.tensor(m), name)(**kw)
        assert r.dtype is mt.bool
        np.testing.assert_array_equal(r.numpy(), f(m, **nkw))
    i = np.array([[0, 2], [3, 4]])
    assert mt.tensor(i).all().item() is False and mt.tensor(i).any().item() is True
    assert mt.tensor(i).all(1).tolist() == [False, True]


def test_empty_reductions():
    assert mt.zeros(0).sum().item() == 0.0
    assert mt.zeros(0).prod().item() == 1.0
    assert mt.zeros(0, dtype=mt.bool).all().item() is True and mt.zeros(0, dtype=mt.bool).any().item() is False
    assert np.isnan(mt.zeros(0).mean().item())
    assert mt.zeros(0, 3).sum(0).tolist() == [0.0, 0.0, 0.0]
    assert mt.zeros(2, 0).amax(0).shape == (0,)
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
        mt.zeros(0).max()
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        mt.zeros(0, 3).max(0)


def test_empty_dim_list_means_all_dims():
    x = mt.tensor(X)
    close(x.sum(dim=[]), np.sum(X))
    close(x.mean(dim=()), np.mean(X))
    close(x.var(dim=[]), np.var(X, ddof=1))
    close(x.amax(dim=[]), np.max(X))
    close(x.sum(dim=(), keepdim=True), np.sum(X, keepdims=True))


def test_0d_reductions():
    s = mt.tensor(5.0)
    assert s.sum().item() == 5.0 and s.sum(0).item() == 5.0 and s.sum(-1).shape == ()
    assert s.max(0).values.item() == 5.0 and s.max(0).indices.item() == 0
    assert s.mean(dim=0, keepdim=True).shape == ()


def test_norm_p():
    x = mt.tensor(X)
    close(x.norm(), np.linalg.norm(X.ravel()))
    close(x.norm(1), np.abs(X).sum())
    close(x.norm(float("inf")), np.abs(X).max())
    close(x.norm(3, dim=1), np.sum(np.abs(X) ** 3, axis=1) ** (1 / 3))
    close(mt.norm(x, dim=(0, 2), keepdim=True), np.sqrt((X.astype(np.float64) ** 2).sum((0, 2), keepdims=True)))


def test_cumsum_cumprod():
    close(mt.tensor(X).cumsum(1), np.cumsum(X, 1))
    close(mt.cumsum(mt.tensor(X), dim=-1), np.cumsum(X, -1))
    close(mt.tensor(XP).cumprod(0), np.cumprod(XP, 0))
    r = mt.tensor([1, 2, 3], dtype=mt.int32).cumsum(0)
    assert r.dtype is mt.int64 and r.tolist() == [1, 3, 6]


def test_softmax_log_softmax_logsumexp_are_stable():
    x = X * 100  # exp(300) overflows float32; the stable forms don't
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    close(mt.tensor(x).softmax(1), e / e.sum(1, keepdims=True))
    close(mt.tensor(x).log_softmax(1), np.log(e / e.sum(1, keepdims=True)), rtol=1e-5, atol=1e-4)
    close(mt.softmax(mt.tensor(x), dim=-1).sum(-1), np.ones((2, 3)))
    big = mt.tensor([1000.0, 1000.0])
    assert big.logsumexp(0).item() == pytest.approx(1000 + np.log(2))
    assert mt.tensor([-float("inf"), -float("inf")]).logsumexp(0).item() == -float("inf")


def test_dim_errors():
    x = mt.tensor(X)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"):
        x.sum(3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.max(-4)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        x.sum((0, 0))
    with pytest.raises(TypeError, match="prod\\(\\): argument 'dim' must be int, not tuple"):
        x.prod((0, 1))


# ---- PyTorch's edge cases ---------------------------------------------------------------------

def test_softmax_and_logsumexp_over_an_empty_dim():
    assert mt.zeros(2, 0).softmax(1).shape == (2, 0) and mt.zeros(2, 0).log_softmax(1).shape == (2, 0)
    assert mt.zeros(2, 0).logsumexp(1).tolist() == [float("-inf")] * 2


def test_argmax_of_a_scalar_and_norm_zero():
    assert mt.tensor(3.0).argmax(dim=0).item() == 0
    assert mt.tensor([0.0, 1.0, 2.0]).norm(p=0).item() == 2.0
    with pytest.raises(RuntimeError, match="does not support bool input"):
        mt.tensor([True]).argmax()


def test_var_and_std_warn_without_degrees_of_freedom():
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        assert np.isnan(mt.tensor([1.0]).var().item())
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
        assert mt.tensor([1.0, 2.0]).std(correction=3).item() == float("inf")


def test_mean_with_an_integer_dtype_is_refused():
    with pytest.raises(RuntimeError, match="Optional dtype must be either a floating point or complex dtype"):
        mt.tensor([1.0, 2.0]).mean(dtype=mt.int64)


def test_numpy_names_for_dim_and_keepdim():
    a = mt.arange(6.0).reshape(2, 3)
    assert a.sum(axis=1, keepdims=True).tolist() == [[3.0], [12.0]]
    assert mt.mean(a, axis=0).tolist() == [1.5, 2.5, 3.5] and a.max(axis=0).values.tolist() == [3.0, 4.0, 5.0]


def test_std_var_norm_logsumexp_are_single_nodes():
    x = mt.ones(2, 3, requires_grad=True)
    names = [type(f(x).grad_fn).__name__ for f in (lambda t: t.std(), lambda t: t.var(1), lambda t: t.norm(),
                                                    lambda t: t.logsumexp(0))]
    assert names == ["StdBackward0", "VarBackward0", "LinalgVectorNormBackward0", "LogsumexpBackward0"]
    y = x.norm()
    y.mul_(2)  # the saved result changed: backward must refuse
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
