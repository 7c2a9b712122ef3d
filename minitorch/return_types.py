"""The named tuples ops with two results return (`values, indices = x.max(dim=1)`), printed as
PyTorch prints its torch.return_types: `torch.return_types.max(values=..., indices=...)`."""
from __future__ import annotations

import collections


def _return_type(name, fields=("values", "indices")):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = __name__

    def __repr__(self):
        return f"{__name__}.{name}(\n" + ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self)) + ")"
    cls.__repr__ = __repr__
    return cls


max, min, sort, topk, kthvalue, median, nanmedian, mode, cummax, cummin = (  # noqa: A001
    _return_type(n) for n in ("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax",
                              "cummin"))
aminmax = _return_type("aminmax", ("min", "max"))
histogram = _return_type("histogram", ("hist", "bin_edges"))
frexp = _return_type("frexp", ("mantissa", "exponent"))

# the decompositions of torch.linalg, and the older torch.svd / torch.qr / torch.slogdet
linalg_svd = _return_type("linalg_svd", ("U", "S", "Vh"))
linalg_eigh = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_qr = _return_type("linalg_qr", ("Q", "R"))
linalg_slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))
linalg_lstsq = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_cholesky_ex = _return_type("linalg_cholesky_ex", ("L", "info"))
linalg_inv_ex = _return_type("linalg_inv_ex", ("inverse", "info"))
svd = _return_type("svd", ("U", "S", "V"))
qr = _return_type("qr", ("Q", "R"))
slogdet = _return_type("slogdet", ("sign", "logabsdet"))
