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
from ._ops.special_more import (airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1,  # noqa: E402,F401
                                chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,
                                chebyshev_polynomial_w, erfcx, gammainc, gammaincc, hermite_polynomial_h,
                                hermite_polynomial_he, i0e, i1e, laguerre_polynomial_l, legendre_polynomial_p,
                                log_ndtr, modified_bessel_i0, modified_bessel_i1, modified_bessel_k0,
                                modified_bessel_k1, multigammaln, scaled_modified_bessel_k0,
                                scaled_modified_bessel_k1, shifted_chebyshev_polynomial_t,
                                shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
                                shifted_chebyshev_polynomial_w, spherical_bessel_j0, zeta)
