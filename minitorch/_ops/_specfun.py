"""Special functions (erf, lgamma, digamma, ...) on the array module of a device.

NumPy has none of them. SciPy (CPU) and cupyx (GPU) do, and are used when present; without
SciPy, the CPU falls back to the standard library's `math` functions element by element
(exact, slower), and to short series for the ones `math` lacks. Results keep the input's
float dtype; the fallbacks compute in float64.
"""
from __future__ import annotations

import math


def _scipy_special(xp):
    if xp.__name__ == "numpy":
        try:
            import scipy.special as sp
        except ImportError:
            return None
        return sp
    import cupyx.scipy.special as sp  # any other backend is CuPy
    return sp


def _elementwise(xp, fn, x):
    """Apply a Python float function to every element (the fallback path, CPU only)."""
    flat = x.astype("float64").reshape(-1)
    out = xp.fromiter((fn(v) for v in flat.tolist()), dtype="float64", count=flat.size)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _safe(fn):
    def f(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):  # lgamma at a pole: inf, as SciPy and PyTorch give
            return math.inf
    return f


def erf(xp, x):
    sp = _scipy_special(xp)
    return sp.erf(x).astype(x.dtype, copy=False) if sp else _elementwise(xp, math.erf, x)


def erfc(xp, x):
    sp = _scipy_special(xp)
    return sp.erfc(x).astype(x.dtype, copy=False) if sp else _elementwise(xp, math.erfc, x)


def erfinv(xp, x):
    sp = _scipy_special(xp)
    if sp:
        return sp.erfinv(x).astype(x.dtype, copy=False)
    return _elementwise(xp, _erfinv_scalar, x)


def _erfinv_scalar(y):
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    # Giles' single-precision approximation as the first guess, then Newton steps on erf(x) - y
    w = -math.log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w -= 2.5
        coeffs = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
    else:
        w = math.sqrt(w) - 3.0
        coeffs = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
    p = 0.0
    for c in coeffs:
        p = p * w + c
    x = p * y
    for _ in range(4):
        step = (math.erf(x) - y) / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
        x -= step
        if abs(step) <= 1e-16 * max(1.0, abs(x)):
            break
    return x


def lgamma(xp, x):
    sp = _scipy_special(xp)
    return sp.gammaln(x).astype(x.dtype, copy=False) if sp else _elementwise(xp, _safe(math.lgamma), x)


def digamma(xp, x):
    return polygamma(xp, 0, x)


def polygamma(xp, n, x):
    sp = _scipy_special(xp)
    if sp:
        out = sp.digamma(x) if n == 0 else sp.polygamma(n, x)
        return out.astype(x.dtype, copy=False)
    return _elementwise(xp, lambda v: _polygamma_scalar(n, v), x)


def _polygamma_scalar(n, x):
    """psi^(n)(x): shift x up with the recurrence, then the asymptotic series; reflection for
    x < 0 (digamma only). PyTorch's convention: digamma at 0 is -inf, at negative integers nan."""
    if math.isnan(x):
        return math.nan
    if x <= 0 and x == math.floor(x):
        if n == 0:
            return -math.inf if x == 0 else math.nan
        return math.inf if n % 2 else math.nan
    if x < 0 and n == 0:
        return _polygamma_scalar(0, 1 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    sign = (-1) ** (n + 1)
    fact = math.factorial(n)
    while x < 12:
        acc += (1 / x if n == 0 else sign * fact / x ** (n + 1))
        x += 1
    if n == 0:
        x2 = 1 / (x * x)
        series = math.log(x) - 0.5 / x - x2 * (1 / 12 - x2 * (1 / 120 - x2 * (1 / 252 - x2 * (1 / 240 - x2 / 132))))
        return series - acc
    # psi^(n)(x) ~ (-1)^(n+1) [ (n-1)!/x^n + n!/(2 x^(n+1)) + sum_k B_2k (2k+n-1)!/((2k)! x^(2k+n)) ]
    bern = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
    s = math.factorial(n - 1) / x ** n + fact / (2 * x ** (n + 1))
    for k, b in enumerate(bern, start=1):
        s += b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
    return sign * s + acc


def i0(xp, x):
    """The modified Bessel function of the first kind, order 0 (NumPy and CuPy have it)."""
    return xp.i0(x).astype(x.dtype, copy=False)


def i1(xp, x):
    sp = _scipy_special(xp)
    return sp.i1(x).astype(x.dtype, copy=False) if sp else _elementwise(xp, _i1_scalar, x)


def _i1_scalar(x):
    """I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!): every term is positive, so the sum is exact to
    rounding; it stops once a term no longer changes it."""
    if math.isnan(x) or math.isinf(x):
        return x
    half, term = x / 2.0, x / 2.0
    total, k = term, 0
    while True:
        k += 1
        term *= half * half / (k * (k + 1))
        if total + term == total:
            return total
        total += term
