"""torch.linalg's decompositions and what is built on them, against PyTorch 2.13: svd, eigh, qr,
cholesky, lstsq, pinv, slogdet / logdet, matrix_rank, matrix_power, multi_dot, cond, vecdot, and
the older torch.svd / qr / cholesky / pinverse forms; also torch.finfo / torch.iinfo.

Each case is a function of the library returning what it wants compared (values to float64
rounding, dtypes, shapes, grad_fn names, exception types). Singular vectors and eigenvectors are
unique only up to sign (NumPy's LAPACK and PyTorch's choose differently: README), so those cases
compare sign-free quantities: the columns up to sign, reconstructions, and losses of the fourth
power of the vectors, whose gradients are exact tests of the backward formulas.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch


def _flat(x):
    """What is compared of a result: tensors become (dtype name, shape, values, grad_fn name)."""
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        name = type(x.grad_fn).__name__ if x.grad_fn is not None else None
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.detach().numpy().copy(), name)
    if isinstance(x, (tuple, list)):
        return tuple(_flat(v) for v in x)
    if isinstance(x, dict):
        return {k: _flat(v) for k, v in x.items()}
    return x


def run(case, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _flat(case(lib))
        except Exception as e:  # noqa: BLE001 (the exception type is what is compared)
            return ("raises", type(e).__name__ if type(e).__name__ != "_LinAlgError" else "LinAlgError")


def assert_same(a, b, where="result", rtol=1e-7, atol=1e-9):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", f"{where}: PyTorch {a}, minitorch {b}"
        assert a[1:3] == b[1:3], f"{where}: PyTorch {a[1]} {a[2]}, minitorch {b[1]} {b[2]}"
        assert a[4] == b[4], f"{where}: grad_fn PyTorch {a[4]}, minitorch {b[4]}"
        np.testing.assert_allclose(b[3], a[3], rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), f"{where}: PyTorch {a}, minitorch {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]", rtol, atol)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}", rtol, atol)
    elif isinstance(a, float):
        assert b == pytest.approx(a, rel=rtol, abs=atol), f"{where}: PyTorch {a}, minitorch {b}"
    else:
        assert a == b, f"{where}: PyTorch {a!r}, minitorch {b!r}"


def same(case, **tol):
    assert_same(run(case, torch), run(case, minitorch), **tol)


RNG = np.random.default_rng(7)
SHAPES = [(4, 3), (3, 4), (3, 3), (2, 3, 2), (1, 1), (5, 1), (1, 5)]


def mat(lib, shape, seed=0, sym=False, pd=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    if sym or pd:
        a = a @ a.swapaxes(-1, -2) + (np.eye(shape[-1]) * shape[-1] if pd else 0)
    return lib.tensor(a, dtype=lib.float64, requires_grad=True)


def weights(lib, shape, seed=1):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=lib.float64)


def signs_fixed(U, dim=-2):
    """U with each column (dim=-2) or row (dim=-1) multiplied by the sign of its largest entry."""
    idx = U.abs().argmax(dim, keepdim=True)
    return U * U.gather(dim, idx).sign()


# ---- svd -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("full", [False, True])
def test_svd_values_and_gradient(shape, full):
    def case(lib):
        A = mat(lib, shape)
        U, S, Vh = lib.linalg.svd(A, full_matrices=full)
        k = S.shape[-1]
        recon = (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
        loss = ((U ** 4) * weights(lib, U.shape, 2)).sum() + ((Vh ** 4) * weights(lib, Vh.shape, 3)).sum() \
            + (S * weights(lib, S.shape, 4)).sum()
        loss.backward()
        return (S, recon, signs_fixed(U[..., :k].detach()), signs_fixed(Vh[..., :k, :].detach(), -1),
                U.shape, Vh.shape, type(U.grad_fn).__name__, A.grad)
    same(case, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_svd_of_singular_values_only(shape):
    def case(lib):
        A = mat(lib, shape)
        S = lib.linalg.svd(A, full_matrices=False).S
        (S.sum() + (S ** 2).sum()).backward()
        return S, A.grad
    same(case)


def test_torch_svd_returns_V_and_reduced_factors():
    def case(lib):
        A = mat(lib, (4, 3))
        U, S, V = lib.svd(A)
        U2, S2, V2 = lib.svd(A, some=False)
        z = lib.svd(A, compute_uv=False)
        ((V ** 4).sum() + S.sum()).backward()
        return (U.shape, V.shape, U2.shape, V2.shape, type(V.grad_fn).__name__, z.U, z.V,
                signs_fixed(V.detach()), A.grad, A.svd().S)
    same(case)


def test_svd_of_an_empty_matrix_and_errors():
    same(lambda lib: lib.linalg.svd(lib.ones(0, 3)))
    same(lambda lib: lib.linalg.svd(lib.ones(0, 3), full_matrices=False))
    same(lambda lib: lib.linalg.svd(lib.ones(2, 2, dtype=lib.int64)))
    same(lambda lib: lib.linalg.svd(lib.ones(2, 2, dtype=lib.float16)))
    same(lambda lib: lib.linalg.svd(lib.ones(3)))


# ---- eigh ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (4, 4), (2, 3, 3), (1, 1)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_values_and_gradient(shape, uplo):
    def case(lib):
        A = mat(lib, shape, sym=True)
        L, V = lib.linalg.eigh(A, UPLO=uplo)
        loss = ((V ** 4) * weights(lib, V.shape, 2)).sum() + (L * weights(lib, L.shape, 3)).sum()
        loss.backward()
        return L, signs_fixed(V.detach()), (V * L.unsqueeze(-2)) @ V.mT, A.grad, lib.linalg.eigvalsh(A, uplo)
    same(case, rtol=1e-6, atol=1e-8)


def test_eigh_errors():
    same(lambda lib: lib.linalg.eigh(lib.ones(2, 3)))
    same(lambda lib: lib.linalg.eigh(lib.ones(2, 2), UPLO="X"))
    same(lambda lib: lib.linalg.eigh(lib.ones(2, 2, dtype=lib.int32)))


# ---- qr ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_values_and_gradient(shape, mode):
    def case(lib):
        A = mat(lib, shape)
        Q, R = lib.linalg.qr(A, mode=mode)
        out = [Q.shape, R, Q.detach() if mode != "r" else None]
        loss = (R * weights(lib, R.shape, 2)).sum()
        if mode != "r":
            loss = loss + (Q * weights(lib, Q.shape, 3)).sum()
        try:
            loss.backward()
            out.append(A.grad)
        except RuntimeError as e:
            out.append(("raises", type(e).__name__, str(e).split("\n")[0]))
        return out
    same(case, rtol=1e-6, atol=1e-8)


def test_torch_qr():
    same(lambda lib: lib.qr(mat(lib, (4, 3))))
    same(lambda lib: lib.qr(mat(lib, (4, 3)), some=False).Q.shape)


# ---- cholesky ------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (1, 1), (2, 4, 4)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_values_and_gradient(shape, upper):
    def case(lib):
        A = mat(lib, shape, pd=True)
        L = lib.linalg.cholesky(A, upper=upper)
        (L * weights(lib, L.shape)).sum().backward()
        ex = lib.linalg.cholesky_ex(A.detach())
        return L, A.grad, ex.L, ex.info, lib.cholesky(A.detach(), upper=upper)
    same(case)


def test_cholesky_of_a_matrix_that_is_not_positive_definite():
    same(lambda lib: lib.linalg.cholesky(-lib.eye(3, dtype=lib.float64)))
    same(lambda lib: lib.linalg.cholesky(lib.tensor([[1.0, 2.0], [2.0, 1.0]])))
    with pytest.raises(minitorch.linalg.LinAlgError, match="leading minor of order 2"):
        minitorch.linalg.cholesky(minitorch.tensor([[1.0, 2.0], [2.0, 1.0]]))
    same(lambda lib: lib.linalg.cholesky_ex(lib.tensor([[1.0, 2.0], [2.0, 1.0]])).info)
    same(lambda lib: lib.linalg.cholesky_ex(lib.tensor([[-1.0, 2.0], [2.0, 1.0]])).info)
    same(lambda lib: lib.linalg.cholesky_ex(lib.tensor([[1.0, 2.0], [2.0, 1.0]]), check_errors=True))


# ---- lstsq and pinv ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (3, 3), (2, 4, 2)])
@pytest.mark.parametrize("driver", [None, "gels", "gelsd", "gelss"])
def test_lstsq(shape, driver):
    def case(lib):
        A = mat(lib, shape)
        B = mat(lib, shape[:-1] + (2,), seed=5)
        r = lib.linalg.lstsq(A, B, driver=driver)
        (r.solution * weights(lib, r.solution.shape)).sum().backward()
        return tuple(r), A.grad, B.grad
    same(case, rtol=1e-6, atol=1e-8)


def test_lstsq_vector_right_side_rank_deficient_and_errors():
    def vector(lib):
        A, b = mat(lib, (4, 2)), mat(lib, (4,), seed=3)
        x = lib.linalg.lstsq(A, b).solution
        x.sum().backward()
        return x, A.grad, b.grad
    same(vector)
    # rank deficient: the minimum-norm solution
    same(lambda lib: lib.linalg.lstsq(lib.tensor([[1.0, 1.0], [1.0, 1.0], [2.0, 2.0]], dtype=lib.float64),
                                      lib.tensor([[1.0], [2.0], [3.0]], dtype=lib.float64)).solution)
    same(lambda lib: lib.linalg.lstsq(lib.ones(2, 2, dtype=lib.int64), lib.ones(2, 2, dtype=lib.int64)))
    same(lambda lib: lib.linalg.lstsq(lib.ones(4, 3, dtype=lib.float64), lib.ones(3, 2, dtype=lib.float64)))
    same(lambda lib: lib.linalg.lstsq(lib.ones(4, 3, dtype=lib.float64), lib.ones(4, 2)))


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 2, 3)])
def test_pinv(shape):
    def case(lib):
        A = mat(lib, shape)
        P = lib.linalg.pinv(A)
        (P * weights(lib, P.shape)).sum().backward()
        return P, A.grad, lib.pinverse(A.detach()), A.pinverse()
    same(case, rtol=1e-6, atol=1e-8)


def test_pinv_tolerances_and_rank():
    def case(lib):
        A = lib.tensor([[1.0, 0.0, 0.0], [0.0, 1e-4, 0.0], [0.0, 0.0, 1e-12]], dtype=lib.float64)
        return (lib.linalg.pinv(A), lib.linalg.pinv(A, atol=1e-3), lib.linalg.pinv(A, rtol=1e-5),
                lib.pinverse(A, rcond=1e-3), lib.linalg.matrix_rank(A), lib.linalg.matrix_rank(A, atol=1e-3),
                lib.linalg.matrix_rank(A, rtol=1e-5), lib.linalg.matrix_rank(A, hermitian=True),
                lib.linalg.matrix_rank(lib.ones(2, 3, 3)), lib.linalg.pinv(lib.ones(0, 3)))
    same(case)


# ---- determinants, powers, chains ---------------------------------------------------------------

@pytest.mark.parametrize("sign", [1, -1])
def test_slogdet_and_logdet(sign):
    def case(lib):
        A = mat(lib, (3, 3), pd=True)
        B = A * lib.tensor([[sign], [1.0], [1.0]], dtype=lib.float64)
        s, la = lib.linalg.slogdet(B)
        la.backward()
        return (s, la, A.grad, lib.slogdet(B.detach()), lib.logdet(B.detach()), lib.logdet(lib.zeros(2, 2)),
                type(lib.logdet(B).grad_fn).__name__)
    same(case)


@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 3, 5, 6])
def test_matrix_power(n):
    def case(lib):
        A = mat(lib, (3, 3), pd=True) / 4
        P = lib.linalg.matrix_power(A, n)
        (P * weights(lib, P.shape)).sum().backward()
        return P, A.grad, lib.matrix_power(A.detach(), n), A.detach().matrix_power(n)
    same(case, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shapes", [[(2, 3), (3, 4), (4, 1)], [(3,), (3, 4), (4, 5), (5,)], [(3,), (3, 2)],
                                    [(5, 2), (2, 6), (6, 3), (3, 2)]])
def test_multi_dot(shapes):
    def case(lib):
        ts = [mat(lib, s, seed=i) for i, s in enumerate(shapes)]
        r = lib.linalg.multi_dot(ts)
        (r * weights(lib, r.shape)).sum().backward()
        return r, [t.grad for t in ts]
    same(case)


def test_cond_vecdot_cross_and_errors():
    same(lambda lib: (lib.linalg.cond(mat(lib, (3, 3))), lib.linalg.cond(mat(lib, (3, 3)), "fro"),
                      lib.linalg.cond(mat(lib, (2, 3, 3)), 1)), rtol=1e-6)
    same(lambda lib: (lib.linalg.vecdot(mat(lib, (3, 4)), mat(lib, (4,), 2)),
                      lib.linalg.vecdot(mat(lib, (3, 4)), mat(lib, (3, 4), 2), dim=0)))
    same(lambda lib: lib.linalg.cross(mat(lib, (4, 3)), mat(lib, (4, 3), 2)))
    same(lambda lib: lib.linalg.slogdet(lib.ones(2, 3)))
    same(lambda lib: lib.linalg.pinv(lib.ones(3, dtype=lib.float64)))
    same(lambda lib: lib.linalg.multi_dot([lib.ones(3)]))
    same(lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2, 2, dtype=lib.float64)]))
    same(lambda lib: lib.linalg.multi_dot([lib.ones(2, 2, 2), lib.ones(2, 2)]))
    same(lambda lib: lib.linalg.vecdot(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64)))
    same(lambda lib: lib.linalg.vecdot(lib.ones(2), lib.ones(2, dtype=lib.float64)))


# ---- finfo and iinfo ----------------------------------------------------------------------------

def test_finfo_and_iinfo():
    def case(lib):
        out = []
        for name in ("float16", "float32", "float64"):
            f = lib.finfo(getattr(lib, name))
            out.append((repr(f), f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype))
        for name in ("uint8", "int8", "int16", "int32", "int64"):
            i = lib.iinfo(getattr(lib, name))
            out.append((repr(i), i.bits, i.max, i.min, i.dtype))
        out.append((repr(lib.finfo()), lib.finfo(lib.float32) == lib.finfo(lib.float32)))
        return out
    same(case)
    same(lambda lib: lib.finfo(lib.int32))
    same(lambda lib: lib.iinfo(lib.float32))
    same(lambda lib: lib.iinfo(lib.bool))


# ---- singular matrices: PyTorch's errors, and the _ex forms' info -------------------------------

def _raised(fn):
    """(type name, message) of what fn raises, or its result when it raises nothing."""
    try:
        return _flat(fn())
    except Exception as e:  # noqa: BLE001 (the exception is what is compared)
        return type(e).__name__, str(e)


SINGULAR = [[[1.0, 2, 3], [2, 4, 6], [0, 1, 1]], [[0.0, 1, 0], [1, 0, 0], [0, 0, 1]], [[0.0, 0], [0, 0]],
            [[1.0, 2], [2, 1]]]


@pytest.mark.parametrize("m", SINGULAR)
@pytest.mark.parametrize("call", [
    "L.linalg.inv(A)", "L.inverse(A)", "L.linalg.inv_ex(A)", "L.linalg.inv_ex(A, check_errors=True)",
    "L.linalg.solve(A, L.ones(A.shape[-1]))", "L.linalg.solve_ex(A, L.ones(A.shape[-1]), check_errors=True)",
    "L.linalg.solve_ex(A, L.ones(A.shape[-1]))", "L.linalg.cholesky(A)", "L.linalg.cholesky(A, upper=True)",
    "L.linalg.cholesky_ex(A)", "L.linalg.cholesky_ex(A, upper=True)", "L.linalg.cholesky_ex(A, check_errors=True)",
    "L.cholesky(A)", "L.linalg.inv(L.stack([L.eye(A.shape[-1]), A]))", "L.linalg.inv_ex(L.stack([L.eye(A.shape[-1]), A]))",
    "L.linalg.cholesky(L.stack([L.eye(A.shape[-1]), A]))", "L.linalg.cholesky_ex(L.stack([L.eye(A.shape[-1]), A]))",
    "L.linalg.solve(L.stack([A, A]), L.ones(A.shape[-1]))", "L.cholesky_inverse(A)",
    "L.cholesky_inverse(L.stack([L.eye(A.shape[-1]), A]), upper=True)", "L.linalg.cond(A, 1)",
    "L.linalg.cond(A, 'fro')", "L.linalg.matrix_power(A, -1)", "L.linalg.tensorinv(A, 1)"])
def test_singular_matrices_raise_pytorchs_linalg_errors(m, call):
    def case(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _raised(lambda: eval(call, {"L": lib, "A": lib.tensor(m)}))  # noqa: S307
    theirs, ours = case(torch), case(minitorch)
    if isinstance(theirs, tuple) and len(theirs) == 2 and isinstance(theirs[0], str):
        assert ours == theirs
    else:
        assert_same(theirs, ours, rtol=1e-6, atol=1e-6)


def test_linalg_error_is_pytorchs_class_and_missing_arguments_are_named_as_pytorch_does():
    assert issubclass(minitorch.linalg.LinAlgError, RuntimeError)
    assert minitorch.linalg.LinAlgError.__name__ == torch.linalg.LinAlgError.__name__
    for call in ["L.linalg.solve_ex(L.eye(2))", "L.linalg.solve(L.eye(2))", "L.linalg.inv()", "L.linalg.solve_ex()"]:
        assert _raised(lambda: eval(call, {"L": minitorch})) == _raised(lambda: eval(call, {"L": torch}))  # noqa


# ---- geqrf and householder_product, LDL, tensorinv and tensorsolve -----------------------------

@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
def test_geqrf_and_householder_product(shape):
    def case(lib):
        A = mat(lib, shape)
        a, tau = lib.geqrf(A.detach())
        if shape[-2] < shape[-1]:
            return a, tau
        h = a.clone().requires_grad_()
        t = tau.clone().requires_grad_()
        Q = lib.linalg.householder_product(h, t)
        (Q * weights(lib, Q.shape)).sum().backward()
        return a, tau, Q, h.grad, t.grad, lib.linalg.householder_product(a, tau[..., :1])
    same(case, rtol=1e-6, atol=1e-9)
    same(lambda lib: _raised(lambda: lib.geqrf(mat(lib, shape)).a.sum().backward()))


@pytest.mark.parametrize("call", [
    "L.linalg.householder_product(L.randn(2, 3), L.randn(2))", "L.linalg.householder_product(L.randn(3, 2), L.randn(3))",
    "L.linalg.householder_product(L.randn(3), L.randn(3))", "L.linalg.householder_product(L.randn(3, 2), L.randn(2, 2))",
    "L.linalg.householder_product(L.randn(2, 3, 2), L.randn(3, 2))",
    "L.linalg.householder_product(L.randn(3, 2), L.randn(2).double())", "L.geqrf(L.randn(3))",
    "L.linalg.ldl_factor(L.zeros(3, 3))", "L.linalg.ldl_factor_ex(L.zeros(2, 3, 3), check_errors=True)",
    "L.linalg.ldl_factor(L.randn(2, 3))", "L.linalg.ldl_factor(L.ones(2, 2).half())",
    "L.linalg.ldl_solve(*L.linalg.ldl_factor(L.eye(3)), L.randn(3))",
    "L.linalg.ldl_solve(*L.linalg.ldl_factor(L.eye(3).double()), L.randn(3, 2))",
    "L.linalg.tensorinv(L.randn(4, 3), ind=1)", "L.linalg.tensorinv(L.randn(4, 4), ind=0)",
    "L.linalg.tensorsolve(L.zeros(2, 2, 2, 2), L.ones(2, 3))", "L.linalg.tensorsolve(L.zeros(2, 2, 2, 2), L.ones(2, 2))"])
def test_compact_factorization_errors(call):
    assert _raised(lambda: eval(call, {"L": minitorch})) == _raised(lambda: eval(call, {"L": torch}))  # noqa: S307


@pytest.mark.parametrize("m", [
    np.random.default_rng(0).standard_normal((5, 5)), [[0.0, 1], [1, 0]], [[1.0, 2, 3], [2, 1, 5], [3, 5, 0]],
    np.zeros((3, 3)), [[1e-3, 2, 0.5, 1], [2, 1e-3, 3, 0.2], [0.5, 3, 1e-4, 5], [1, 0.2, 5, 2e-3]],
    np.random.default_rng(1).standard_normal((2, 4, 4))])
def test_ldl_factor_and_solve(m):
    def case(lib):
        A = lib.tensor(np.asarray(m, dtype=np.float64), requires_grad=True)
        S = A + A.mT
        LD, pivots, info = lib.linalg.ldl_factor_ex(S)
        B = weights(lib, S.shape[:-1] + (2,))
        return LD, pivots, info, lib.linalg.ldl_solve(LD, pivots, B), lib.linalg.ldl_solve(LD, pivots, B.unsqueeze(0)), \
            _raised(lambda: LD.sum().backward())
    same(case)


def test_tensorinv_and_tensorsolve():
    def case(lib):
        A = mat(lib, (4, 6, 8, 3))
        Ainv = lib.linalg.tensorinv(A, ind=2)
        (Ainv * weights(lib, Ainv.shape)).sum().backward()
        A2, B = mat(lib, (6, 4, 4, 3, 2), 2), mat(lib, (4, 3, 2), 3)
        X = lib.linalg.tensorsolve(A2, B, dims=(0, 2))
        (X * weights(lib, X.shape)).sum().backward()
        return Ainv.detach(), A.grad, X, A2.grad, B.grad, lib.linalg.tensorinv(mat(lib, (3, 3)), ind=1)
    same(case)


# ---- the layout of LAPACK's results: PyTorch returns them column-major -------------------------

LAYOUT_CASES = [
    "L.linalg.inv(A)", "L.linalg.inv(Ab)", "L.linalg.inv_ex(A).inverse", "L.linalg.solve(A, B)",
    "L.linalg.solve(Ab, B[:, 0])", "L.linalg.solve(A, B.mT, left=False)", "L.linalg.solve(Ab, B)",
    "L.linalg.cholesky(Ab)", "L.linalg.cholesky(A, upper=True)", "L.linalg.lu_factor(T).LU",
    "L.linalg.lu_solve(*L.linalg.lu_factor(A), B)", "L.linalg.lu_solve(*L.linalg.lu_factor(A), B.mT, left=False)",
    "L.linalg.solve_triangular(A.triu(), B, upper=True)", "L.linalg.qr(W).Q", "L.linalg.qr(T).R",
    "L.linalg.qr(W, mode='complete').R", "L.linalg.svd(W).U", "L.linalg.svd(T).Vh", "L.svd(W).V",
    "L.linalg.eigh(Ab).eigenvectors", "L.linalg.lstsq(W, B2).solution", "L.linalg.lstsq(T, B).solution",
    "L.cholesky_solve(B, A)", "L.cholesky_inverse(Ab)", "L.geqrf(T).a", "L.linalg.householder_product(*L.geqrf(W))",
    "L.linalg.ldl_factor(Ab).LD", "L.triangular_solve(B, A.triu()).solution", "L.linalg.matrix_exp(A)",
    "L.linalg.pinv(W)", "L.linalg.tensorinv(A, 1)"]


@pytest.mark.parametrize("expr", LAYOUT_CASES)
def test_results_have_pytorchs_strides(expr):
    def case(lib):
        rng = np.random.default_rng(3)
        A, Ab = rng.standard_normal((3, 3)), rng.standard_normal((2, 3, 3))
        env = {"L": lib, "A": A @ A.T + np.eye(3), "Ab": Ab @ Ab.swapaxes(-1, -2) + np.eye(3),
               "B": rng.standard_normal((3, 2)), "B2": rng.standard_normal((4, 2)), "W": rng.standard_normal((4, 3)),
               "T": rng.standard_normal((3, 4))}
        env.update({k: lib.tensor(v, dtype=lib.float32) for k, v in env.items() if k != "L"})
        r = eval(expr, env)  # noqa: S307
        return tuple(r.shape), r.stride(), r.is_contiguous()
    assert case(minitorch) == case(torch)
