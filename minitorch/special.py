"""`minitorch.special`: PyTorch's torch.special names for the special functions (the same ops
as minitorch.erf, minitorch.lgamma, ...)."""
from __future__ import annotations

from ._ops.pointwise import expm1, log1p, round, sigmoid as expit  # noqa: A004,F401
from ._ops.reduce import log_softmax, logsumexp, softmax  # noqa: F401
from ._ops.special import (digamma, erf, erfc, erfinv, exp2, i0, i1, lgamma as gammaln, logit, polygamma,  # noqa
                           sinc)

from ._ops.more import xlogy  # noqa: E402,F401
from ._ops.special_extra import entr, ndtr, ndtri, xlog1py  # noqa: E402,F401

psi = digamma
