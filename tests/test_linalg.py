"""The decompositions of minitorch.linalg on their own (no PyTorch needed): each factorisation
reconstructs its input, and each backward agrees with finite differences (gradcheck) on a loss
that does not depend on the signs LAPACK picks for singular vectors and eigenvectors."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as T
from minitorch.autograd import gradcheck


def f64(*shape, seed=0, sym=False, pd=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    if sym or pd:
        a = a @ a.swapaxes(-1, -2) + (np.eye(shape[-1]) * shape[-1] if pd else 0)
    return T.tensor(a, dtype=T.float64, requires_grad=True)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 3, 2)])
def test_svd_reconstructs_and_its_gradient_is_right(shape):
    A = f64(*shape)
    U, S, Vh = T.linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose(((U * S.unsqueeze(-2)) @ Vh).detach().numpy(), A.detach().numpy(), atol=1e-12)
    w = [f64(*U.shape, seed=1).detach(), f64(*Vh.shape, seed=2).detach(), f64(*S.shape, seed=3).detach()]

    def loss(a):
        u, s, vh = T.linalg.svd(a, full_matrices=False)
        return ((u ** 4) * w[0]).sum() + ((vh ** 4) * w[1]).sum() + (s * w[2]).sum()
    assert gradcheck(loss, (A,))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reconstructs_and_its_gradient_is_right(uplo):
    A = f64(4, 4, sym=True)
    L, V = T.linalg.eigh(A, UPLO=uplo)
    np.testing.assert_allclose(((V * L) @ V.mT).detach().numpy(), A.detach().numpy(), atol=1e-12)
    w = f64(4, 4, seed=1).detach()
    # eigh reads one triangle: the loss symmetrises its input so that finite differences see that too
    assert gradcheck(lambda a: ((T.linalg.eigh((a + a.mT) / 2, UPLO=uplo).eigenvectors ** 4) * w).sum()
                     + T.linalg.eigvalsh((a + a.mT) / 2).sum(), (A,))


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5)])
def test_qr_reconstructs_and_its_gradient_is_right(shape):
    A = f64(*shape)
    Q, R = T.linalg.qr(A)
    np.testing.assert_allclose((Q @ R).detach().numpy(), A.detach().numpy(), atol=1e-12)
    wq, wr = f64(*Q.shape, seed=1).detach(), f64(*R.shape, seed=2).detach()
    assert gradcheck(lambda a: (T.linalg.qr(a).Q * wq).sum() + (T.linalg.qr(a).R * wr).sum(), (A,))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_and_its_gradient(upper):
    A = f64(3, 3, pd=True)
    L = T.linalg.cholesky(A, upper=upper)
    back = L.mT @ L if upper else L @ L.mT
    np.testing.assert_allclose(back.detach().numpy(), A.detach().numpy(), atol=1e-12)
    w = f64(3, 3, seed=1).detach()
    assert gradcheck(lambda a: (T.linalg.cholesky((a + a.mT) / 2, upper=upper) * w).sum(), (A,))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_pinv_lstsq_slogdet_gradients(shape):
    A, B = f64(*shape), f64(shape[0], 2, seed=4)
    np.testing.assert_allclose((A @ T.linalg.pinv(A) @ A).detach().numpy(), A.detach().numpy(), atol=1e-12)
    assert gradcheck(lambda a: (T.linalg.pinv(a) ** 2).sum(), (A,))
    assert gradcheck(lambda a, b: (T.linalg.lstsq(a, b).solution ** 2).sum(), (A, B))
    if shape[0] > shape[1]:  # (residuals exist for tall matrices only)
        assert gradcheck(lambda a, b: T.linalg.lstsq(a, b, driver="gelsd").residuals.sum(), (A, B))
    S = f64(3, 3, pd=True)
    assert gradcheck(lambda a: T.linalg.slogdet(a).logabsdet, (S,))


def test_second_derivatives_are_refused():
    A = f64(3, 3)
    with pytest.raises(NotImplementedError, match="second derivative of linalg.svd"):
        T.autograd.grad((T.linalg.svd(A).U ** 4).sum(), A, create_graph=True)
