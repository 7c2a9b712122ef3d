"""The older top-level forms of the decompositions, still common in tutorials: torch.svd (V, not
Vh; `some` for the reduced factors), torch.qr(some=), torch.cholesky(upper=), torch.pinverse(rcond=),
torch.slogdet, torch.logdet, torch.matrix_power. Each is torch.linalg's function underneath, with
PyTorch's deprecation warnings where it gives them."""
from __future__ import annotations

import warnings

from . import linalg, return_types


def svd(input, some=True, compute_uv=True, *, out=None):  # noqa: A002
    if not compute_uv:  # PyTorch returns square zero matrices in place of U and V then
        from ._factories import zeros
        m, n = input.shape[-2:]
        batch, kw = input.shape[:-2], dict(dtype=input.dtype, device=input.device)
        return return_types.svd(zeros(batch + (m, m), **kw), linalg.svdvals(input), zeros(batch + (n, n), **kw))
    U, S, Vh = linalg.svd(input, full_matrices=not some, out=out)
    return return_types.svd(U, S, Vh.mT)


def qr(input, some=True, *, out=None):  # noqa: A002
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                  "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
                  "Q, R = torch.qr(A, some)\nshould be replaced with\n"
                  "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning, stacklevel=2)
    return return_types.qr(*linalg.qr(input, "reduced" if some else "complete", out=out))


def cholesky(input, upper=False, *, out=None):  # noqa: A002
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
                  "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                  "This transform will produce equivalent results for all valid (symmetric positive definite) "
                  "inputs.", UserWarning, stacklevel=2)
    return linalg.cholesky(input, upper=upper, out=out)


def pinverse(input, rcond=1e-15):  # noqa: A002
    return linalg.pinv(input, rtol=rcond)


def slogdet(input):  # noqa: A002
    return return_types.slogdet(*linalg.slogdet(input))


logdet = linalg.logdet
matrix_power = linalg.matrix_power
