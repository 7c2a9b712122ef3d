"""Special functions (erf, lgamma, digamma, ...) on the array module of a device.

NumPy has none of them. SciPy (CPU) and cupyx (GPU) do, and are used when present; without
SciPy, the CPU falls back to the standard library's `math` functions element by element
(exact, slower), and to short series for the ones `math` lacks. Results keep the input's
float dtype; the fallbacks compute in float64.
"""
from __future__ import annotations

import functools
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
    with _quiet_np(xp):  # PyTorch's I0 is nan at +-inf (NumPy's is inf)
        return xp.where(xp.isinf(x), xp.nan, xp.i0(x)).astype(x.dtype, copy=False)


def i1(xp, x):
    sp = _scipy_special(xp)
    return sp.i1(x).astype(x.dtype, copy=False) if sp else _elementwise(xp, _i1_scalar, x)


def _i1_scalar(x):
    """I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!): every term is positive, so the sum is exact to
    rounding; it stops once a term no longer changes it."""
    if math.isnan(x) or math.isinf(x):
        return math.nan  # (PyTorch's value at +-inf)
    half, term = x / 2.0, x / 2.0
    total, k = term, 0
    while True:
        k += 1
        term *= half * half / (k * (k + 1))
        if total + term == total:
            return total
        total += term


# ---- the special functions of torch.special beyond the core ones ----------------------------
# Each takes and returns float64 arrays (the callers round to the input's dtype). Where a closed
# form has no NumPy ufunc, the value comes from a convergent series where it converges without
# cancellation, from an integral representation by Gauss-Legendre or trapezoidal quadrature in
# the middle range, and from the asymptotic expansion for large arguments: each to about double
# precision, never a table of fitted coefficients.

_EULER = 0.57721566490153286061
_SQRT_PI = math.sqrt(math.pi)


def _quiet_np(xp):
    """No NumPy warnings for the inf and nan of the edges of a domain (CuPy gives none)."""
    import numpy
    return numpy.errstate(all="ignore")


@functools.lru_cache(maxsize=None)
def _leggauss(n):
    """Gauss-Legendre nodes and weights on [-1, 1]: computed once, on the host, for any backend."""
    import numpy
    return numpy.polynomial.legendre.leggauss(n)


def _integrate(xp, f, lo, hi, n=64):
    """The integral of f over [lo, hi] for every element (lo, hi arrays or numbers): Gauss-Legendre
    with n nodes, exact for smooth integrands that a polynomial of degree 2n - 1 follows closely."""
    t, w = (xp.asarray(a) for a in _leggauss(n))
    mid, half = (hi + lo) / 2, (hi - lo) / 2
    nodes = xp.asarray(mid)[..., None] + xp.asarray(half)[..., None] * t
    return half * (f(nodes) * w).sum(-1)


def _hankel_pq(xp, nu, z, terms=40):
    """The P and Q of Hankel's expansion of J_nu and Y_nu for large z, and of I_nu and K_nu (with
    alternating signs): the k-th term is prod_j (4 nu^2 - (2j - 1)^2) / (k! (8z)^k)."""
    mu = 4.0 * nu * nu
    P, Q, term = xp.ones_like(z), xp.zeros_like(z), xp.ones_like(z)
    for k in range(1, terms):
        term = term * (mu - (2 * k - 1) ** 2) / (8.0 * k * z)
        if k % 2:
            Q = Q + (-1) ** ((k - 1) // 2) * term
        else:
            P = P + (-1) ** (k // 2) * term
    return P, Q


def _asymptotic_scaled_i(xp, nu, z, terms=40):
    """exp(-z) I_nu(z) ~ sum_k (-1)^k a_k(nu) / z^k / sqrt(2 pi z), for z >= 30."""
    mu = 4.0 * nu * nu
    total, term = xp.ones_like(z), xp.ones_like(z)
    for k in range(1, terms):
        term = -term * (mu - (2 * k - 1) ** 2) / (8.0 * k * z)
        total = total + term
    return total / xp.sqrt(2 * math.pi * z)


def _series_i(xp, n, x, terms=120):
    """I_n(x) = sum_k (x/2)^(2k+n) / (k! (k+n)!): positive terms, exact to rounding for |x| < 30."""
    half = x / 2
    term = half ** n / math.factorial(n)
    total = term
    for k in range(1, terms):
        term = term * half * half / (k * (k + n))
        total = total + term
    return total


def scaled_bessel_i(xp, n, x):
    """exp(-|x|) I_n(x), n = 0 or 1 (I_1 is odd)."""
    z = xp.abs(x)
    small = z < 30
    with _quiet_np(xp):
        out = xp.where(small, _series_i(xp, n, xp.where(small, z, 0.0)) * xp.exp(-z),
                       _asymptotic_scaled_i(xp, n, xp.where(small, 30.0, z)))
    out = xp.where(xp.isinf(z), 0.0, out)
    return xp.where(x < 0, -out, out) if n == 1 else out


def bessel_i(xp, n, x):
    """I_n(x): the series below 30, else the scaled expansion times exp(|x|) (inf past 713)."""
    with _quiet_np(xp):
        big = scaled_bessel_i(xp, n, x) * xp.exp(xp.abs(x))
        out = xp.where(xp.abs(x) < 30, _series_i(xp, n, xp.where(xp.abs(x) < 30, x, 0.0)), big)
    return xp.where(xp.isinf(x), xp.inf if n == 0 else x, out)


def _scaled_k_integral(xp, nu, x, nodes=60):
    """exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt, x >= 1.9, by the trapezoidal
    rule: the integrand is even and analytic, so the error falls like exp(-2 pi^2 / (h^2 x)); the
    range stops where the integrand is below exp(-50)."""
    T = xp.arccosh(1 + 50.0 / x)
    h = T / nodes
    t = h[..., None] * xp.arange(nodes + 1)
    f = xp.exp(-x[..., None] * (xp.cosh(t) - 1)) * xp.cosh(nu * t)
    return h * (f.sum(-1) - f[..., 0] / 2)


def _series_k(xp, n, x, terms=40):
    """K_0 and K_1 from their series at small x (A&S 9.6.13), for 0 < x <= 2."""
    q = x * x / 4
    log_half = xp.log(x / 2)
    term, harmonic, total = xp.ones_like(x), 0.0, xp.zeros_like(x)
    if n == 0:  # K0 = -(ln(x/2) + gamma) I0 + sum_k H_k (x^2/4)^k / (k!)^2
        for k in range(1, terms):
            term, harmonic = term * q / (k * k), harmonic + 1.0 / k
            total = total + harmonic * term
        return -(log_half + _EULER) * _series_i(xp, 0, x) + total
    # K1 = 1/x + ln(x/2) I1 - (x/4) sum_k (psi(k+1) + psi(k+2)) (x^2/4)^k / (k! (k+1)!)
    total = 1.0 - 2 * _EULER + xp.zeros_like(x)  # the k = 0 term: psi(1) + psi(2)
    for k in range(1, terms):
        term, harmonic = term * q / (k * (k + 1)), harmonic + 1.0 / k
        total = total + (2 * harmonic + 1.0 / (k + 1) - 2 * _EULER) * term
    return 1 / x + log_half * _series_i(xp, 1, x) - x / 4 * total


def scaled_bessel_k(xp, n, x):
    """exp(x) K_n(x), n = 0 or 1: inf at 0, nan below."""
    small = x <= 2
    with _quiet_np(xp):
        s = xp.where(small & (x > 0), x, 1.0)
        b = xp.where(small | ~xp.isfinite(x), 2.0, x)
        out = xp.where(small, _series_k(xp, n, s) * xp.exp(s), _scaled_k_integral(xp, float(n), b))
    out = xp.where(x == 0, xp.inf, xp.where(x < 0, xp.nan, out))
    return xp.where(x == xp.inf, 0.0, xp.where(xp.isnan(x), x, out))


def bessel_k(xp, n, x):
    with _quiet_np(xp):
        small = x <= 2
        s = xp.where(small & (x > 0), x, 1.0)
        out = xp.where(small, _series_k(xp, n, s), scaled_bessel_k(xp, n, xp.where(small, 3.0, x)) * xp.exp(-x))
    out = xp.where(x == 0, xp.inf, xp.where(x < 0, xp.nan, out))
    return xp.where(xp.isnan(x), x, out)


def bessel_j(xp, n, x):
    """J_n(x), n = 0 or 1: Bessel's integral (1/pi) int_0^pi cos(n t - x sin t) dt below 25, Hankel's
    expansion above; J_n(-x) = (-1)^n J_n(x)."""
    z = xp.abs(x)
    small = z < 25
    zs, zb = xp.where(small, z, 0.0), xp.where(small | ~xp.isfinite(z), 25.0, z)
    with _quiet_np(xp):
        inner = _integrate(xp, lambda t: xp.cos(n * t - zs[..., None] * xp.sin(t)), 0.0, math.pi) / math.pi
        P, Q = _hankel_pq(xp, n, zb)
        w = zb - (n / 2 + 0.25) * math.pi
        outer = xp.sqrt(2 / (math.pi * zb)) * (P * xp.cos(w) - Q * xp.sin(w))
    out = xp.where(small, inner, xp.where(xp.isinf(z), 0.0, outer))
    out = xp.where(xp.isnan(x), x, out)
    return xp.where(x < 0, -out, out) if n == 1 else out


def _series_y(xp, n, x, terms=40):
    """Y_0 and Y_1 from their series at small x (A&S 9.1.13), for 0 < x <= 2."""
    q = -x * x / 4
    log_half = xp.log(x / 2)
    term, harmonic = xp.ones_like(x), 0.0
    if n == 0:  # Y0 = (2/pi) [(ln(x/2) + gamma) J0 - sum_k H_k (-x^2/4)^k / (k!)^2]
        total = xp.zeros_like(x)
        for k in range(1, terms):
            term, harmonic = term * q / (k * k), harmonic + 1.0 / k
            total = total + harmonic * term
        return 2 / math.pi * ((log_half + _EULER) * bessel_j(xp, 0, x) - total)
    total = 1.0 - 2 * _EULER + xp.zeros_like(x)  # Y1 = -2/(pi x) + (2/pi) ln(x/2) J1 - (x/2pi) sum ...
    for k in range(1, terms):
        term, harmonic = term * q / (k * (k + 1)), harmonic + 1.0 / k
        total = total + (2 * harmonic + 1.0 / (k + 1) - 2 * _EULER) * term
    return -2 / (math.pi * x) + 2 / math.pi * log_half * bessel_j(xp, 1, x) - x / (2 * math.pi) * total


def bessel_y(xp, n, x):
    """Y_n(x), n = 0 or 1: the series up to 2, Schlafli's integral
    (1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^inf (e^(nt) + (-1)^n e^(-nt)) e^(-x sinh t) dt
    up to 25, Hankel's expansion above; -inf at 0, nan below."""
    small, mid = x <= 2, (x > 2) & (x < 25)
    with _quiet_np(xp):
        s = xp.where(small & (x > 0), x, 1.0)
        m = xp.where(mid, x, 3.0)
        b = xp.where(x >= 25, x, 25.0)
        b = xp.where(xp.isfinite(b), b, 25.0)
        first = _integrate(xp, lambda t: xp.sin(m[..., None] * xp.sin(t) - n * t), 0.0, math.pi)
        second = _integrate(xp, lambda t: (xp.exp(n * t) + (-1) ** n * xp.exp(-n * t))
                            * xp.exp(-m[..., None] * xp.sinh(t)), 0.0, xp.arcsinh(60.0 / m))
        P, Q = _hankel_pq(xp, n, b)
        w = b - (n / 2 + 0.25) * math.pi
        outer = xp.sqrt(2 / (math.pi * b)) * (P * xp.sin(w) + Q * xp.cos(w))
        out = xp.where(small, _series_y(xp, n, s), xp.where(mid, (first - second) / math.pi, outer))
    out = xp.where(x == 0, -xp.inf, xp.where(x < 0, xp.nan, xp.where(x == xp.inf, 0.0, out)))
    return xp.where(xp.isnan(x), x, out)


_AI0, _AIP0 = 0.355028053887817239260, 0.258819403792806798405  # Ai(0), -Ai'(0)


def airy_ai(xp, x):
    """Ai(x): the Maclaurin series on [-2, 2]; above, (1/pi) sqrt(x/3) K_1/3(zeta) with
    zeta = 2/3 x^1.5; below, (sqrt|x| / 3) (J_1/3(zeta) + J_-1/3(zeta)), by Schlafli's integral up to
    zeta = 25 and Hankel's expansion past it; 0 past 103.892, where PyTorch's underflows."""
    with _quiet_np(xp):
        a = xp.abs(x)
        zeta = 2.0 / 3.0 * a * xp.sqrt(a)
        near = a <= 2
        s = xp.where(near, x, 0.0)
        # f = sum 3^k (1/3)_k x^3k / (3k)!, g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!
        f, g = xp.ones_like(s), s.copy()
        tf, tg = xp.ones_like(s), s.copy()
        for k in range(1, 60):
            x3 = s * s * s
            tf = tf * x3 / ((3 * k - 1) * (3 * k))
            tg = tg * x3 / ((3 * k) * (3 * k + 1))
            f, g = f + tf, g + tg
        series = _AI0 * f - _AIP0 * g
        zp = xp.where(~near & (x > 0) & xp.isfinite(x), zeta, 2.0)
        right = xp.sqrt(xp.where(near, 0.0, a) / 3) / math.pi * _scaled_k_integral(xp, 1.0 / 3.0, zp) * xp.exp(-zp)
        zm = xp.where(~near & (x < 0) & (zeta < 25), zeta, 2.0)
        # J_1/3 + J_-1/3 = (2/pi) int_0^pi cos(t/3) cos(zeta sin t) dt
        #                  + (2 sin(pi/3) / pi) int_0^inf exp(-zeta sinh t) sinh(t/3) dt
        first = _integrate(xp, lambda t: xp.cos(t / 3) * xp.cos(zm[..., None] * xp.sin(t)), 0.0, math.pi)
        second = _integrate(xp, lambda t: xp.exp(-zm[..., None] * xp.sinh(t)) * xp.sinh(t / 3), 0.0,
                            xp.arcsinh(60.0 / zm))
        mid = 2 / math.pi * (first + math.sin(math.pi / 3) * second)
        zb = xp.where(zeta >= 25, zeta, 25.0)
        zb = xp.where(xp.isfinite(zb), zb, 25.0)
        P, Q = _hankel_pq(xp, 1.0 / 3.0, zb)  # the same P, Q for nu = 1/3 and -1/3
        w = zb - math.pi / 4
        far = xp.sqrt(2 / (math.pi * zb)) * 2 * math.cos(math.pi / 6) * (P * xp.cos(w) - Q * xp.sin(w))
        left = xp.sqrt(a) / 3 * xp.where(zeta < 25, mid, far)
        out = xp.where(near, series, xp.where(x > 0, right, left))
    out = xp.where(x > 103.892, 0.0, out)
    return xp.where(xp.isinf(x) & (x < 0), 0.0, xp.where(xp.isnan(x), x, out))


def erfcx(xp, x):
    """exp(x^2) erfc(x). Below 26 the product is formed directly, with x^2 split into a rounded
    part and its rounding error (Dekker's product) so that exp does not magnify that error; above,
    the asymptotic series 1/(x sqrt pi) sum_k (-1)^k (2k-1)!! / (2x^2)^k; below -26.7, inf."""
    with _quiet_np(xp):
        s = xp.where(x < 26, x, 0.0)
        c = 134217729.0 * s  # Veltkamp's split of s into two halves whose products are exact
        hi = c - (c - s)
        lo = s - hi
        sq = s * s
        err = ((hi * hi - sq) + 2 * hi * lo) + lo * lo
        direct = xp.exp(sq) * xp.exp(err) * erfc(xp, s)
        b = xp.where(x >= 26, x, 26.0)
        total, term = xp.ones_like(b), xp.ones_like(b)
        for k in range(1, 12):
            term = -term * (2 * k - 1) / (2 * b * b)
            total = total + term
        out = xp.where(x < 26, direct, total / (b * _SQRT_PI))
    out = xp.where(x < -26.7, xp.inf, out)
    return xp.where(xp.isnan(x), x, out)


def log_ndtr(xp, x):
    """log Phi(x), as PyTorch computes it: log(erfcx(-t) / 2) - t^2 below -1 (t = x / sqrt 2), where
    Phi underflows, else log1p(-erfc(t) / 2)."""
    t = x * math.sqrt(0.5)
    with _quiet_np(xp):
        return xp.where(x < -1, xp.log(erfcx(xp, -t) / 2) - t * t, xp.log1p(-erfc(xp, t) / 2))


def _gamma_series(a, x):
    """P(a, x) by its series x^a e^-x / Gamma(a + 1) sum_k x^k / ((a+1)...(a+k)): for x < a + 1."""
    term = total = 1.0 / a
    n = a
    for _ in range(100000):
        n += 1
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-17:
            break
    return total * _gamma_prefactor(a, x)


def _gamma_prefactor(a, x):
    """x^a e^-x / Gamma(a). For large a the two huge factors are cancelled in closed form first, by
    Stirling's Gamma(a) = sqrt(2 pi / a) (a/e)^a e^mu(a): what is left is
    sqrt(a / 2pi) exp(a (log1p(t) - t) - mu(a)) with t = (x - a) / a."""
    if a < 10:
        return math.exp(-x + a * math.log(x) - math.lgamma(a))
    t = (x - a) / a
    mu = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * a * a)) / (a * a)) / (a * a)) / (a * a)) / a
    return math.sqrt(a / (2 * math.pi)) * math.exp(a * (math.log1p(t) - t) - mu)


def _gamma_fraction(a, x):
    """Q(a, x) by Legendre's continued fraction (modified Lentz): for x >= a + 1."""
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return _gamma_prefactor(a, x) * h


def _igamma_scalar(a, x, upper):
    """The regularized incomplete gamma function P(a, x) (upper: Q = 1 - P), with PyTorch's values
    at the edges of its domain."""
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0:
        return math.nan
    if a == 0:
        return (0.0 if upper else 1.0) if x > 0 else math.nan
    if x == 0:
        return 1.0 if upper else 0.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else (1.0 if upper else 0.0)
    if math.isinf(x):
        return 0.0 if upper else 1.0
    if x < a + 1:
        p = _gamma_series(a, x)
        return 1 - p if upper else p
    q = _gamma_fraction(a, x)
    return q if upper else 1 - q


def igamma(xp, a, x, upper=False):
    a, x = xp.broadcast_arrays(a.astype("float64"), x.astype("float64"))
    out = [_igamma_scalar(u, v, upper) for u, v in zip(a.reshape(-1).tolist(), x.reshape(-1).tolist())]
    return xp.asarray(out, dtype="float64").reshape(a.shape)


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)  # (2k)! / B_2k, Euler-Maclaurin


def _zeta_scalar(x, q):
    """Hurwitz's zeta sum_k (k + q)^-x, as Cephes (and PyTorch) computes it: the first terms summed,
    the tail by the Euler-Maclaurin formula."""
    if math.isnan(x) or math.isnan(q):
        return math.nan
    if x == 1:
        return math.inf
    if x < 1:
        return math.nan
    if q <= 0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    eps = 1.11022302462515654042e-16

    def power(base):
        try:
            return base ** -x if base != 0 else math.inf
        except OverflowError:
            return math.inf
    s, a, i, b = power(q), q, 0, 0.0
    while i < 9 or a <= 9:
        i, a = i + 1, a + 1
        b = power(a)
        s += b
        if -eps * s < b < eps * s:
            return s
    w = a
    s += b * w / (x - 1) - 0.5 * b
    a, k = 1.0, 0.0
    for c in _ZETA_A:
        a *= x + k
        b /= w
        t = a * b / c
        s += t
        if abs(t / s) < eps:
            return s
        k += 1
        a *= x + k
        b /= w
        k += 1
    return s


def zeta(xp, x, q):
    x, q = xp.broadcast_arrays(x.astype("float64"), q.astype("float64"))
    out = [_zeta_scalar(u, v) for u, v in zip(x.reshape(-1).tolist(), q.reshape(-1).tolist())]
    return xp.asarray(out, dtype="float64").reshape(x.shape)


# ---- the orthogonal polynomials, by their three-term recurrences -----------------------------
# Each element has its own degree n (PyTorch truncates a float n to an integer); the recurrence
# runs up to the largest and each element keeps the value at its own degree. The closed forms at
# the ends of [-1, 1] and the trigonometric forms inside it for large n are PyTorch's.

def _recurrence(xp, n, p0, p1, step):
    """p_n from p_0, p_1 and p_k+1 = step(k, p_k, p_k-1), for every element's own n >= 0."""
    out = xp.where(n == 0, p0, p1)
    top = int(n.max()) if n.size else 0
    p, q = p0, p1
    for k in range(1, top):
        p, q = q, step(k, q, p)
        out = xp.where(n == k + 1, q, out)
    return out


def _degrees(xp, n, shape):
    """n as integers (nan and inf have no degree: -1, so the result is 0), broadcast to `shape`."""
    n = xp.asarray(n)
    if n.dtype.kind == "f":
        n = xp.where(xp.isfinite(n), n, -1.0).astype("int64")
    return xp.broadcast_to(n.astype("int64"), shape)


def chebyshev(xp, x, n, kind, shifted=False):
    """T, U, V and W (kind 't', 'u', 'v', 'w'), of y = x or, shifted, of y = 2x - 1: all follow
    p_k+1 = 2y p_k - p_k-1 from p_0 = 1 and p_1 = y, 2y, 2y - 1 or 2y + 1."""
    x = x.astype("float64")
    shape = xp.broadcast_shapes(x.shape, xp.asarray(n).shape)
    x, n = xp.broadcast_to(x, shape), _degrees(xp, n, shape)
    y = x + x - 1 if shifted else x
    first = {"t": y, "u": y + y, "v": y + y - 1, "w": y + y + 1}[kind]
    with _quiet_np(xp):
        out = _recurrence(xp, n, xp.ones_like(y), first, lambda k, q, p: (y + y) * q - p)
    big = n > ({"t": 6, "u": 6, "v": 6, "w": 4} if shifted else {"t": 6, "u": 8, "v": 8, "w": 8})[kind]
    with _quiet_np(xp):
        theta = xp.arccos(xp.clip(y, -1, 1))
        trig = {"t": lambda: xp.cos(n * theta),
                "u": lambda: xp.sin((n + 1) * theta) / xp.sin(theta),
                "v": lambda: xp.cos((n + 0.5) * theta) / xp.cos(theta / 2),
                "w": lambda: xp.sin((n + 0.5) * theta) / xp.sin(theta / 2)}[kind]()
    out = xp.where(big & (xp.abs(y) < 1), trig, out)
    odd = (n % 2 == 1)
    sign = xp.where(odd, -1.0, 1.0)
    at_plus = {"t": 1.0, "u": n + 1.0, "v": 1.0, "w": 2.0 * n + 1}[kind]
    at_minus = sign * {"t": 1.0, "u": n + 1.0, "v": 2.0 * n + 1, "w": 1.0}[kind]
    plus, minus = (x == 1, x == 0) if shifted else (x == 1, x == -1)
    out = xp.where(plus, at_plus, xp.where(minus, at_minus, out))
    return xp.where(n < 0, 0.0, out)


def hermite(xp, x, n, physicists=True):
    """H_n (physicists) from H_k+1 = 2x H_k - 2k H_k-1, or He_n from He_k+1 = x He_k - k He_k-1;
    nan past PyTorch's limit of degree (512 in float64, 128 in float32)."""
    limit = 128 if x.dtype.itemsize == 4 else 512
    x = x.astype("float64")
    shape = xp.broadcast_shapes(x.shape, xp.asarray(n).shape)
    x, n = xp.broadcast_to(x, shape), _degrees(xp, n, shape)
    c = 2.0 if physicists else 1.0
    with _quiet_np(xp):
        out = _recurrence(xp, xp.minimum(n, limit + 1), xp.ones_like(x), c * x, lambda k, q, p: c * x * q - c * k * p)
    out = xp.where(n > limit, xp.nan, out)
    return xp.where(n < 0, 0.0, out)


def laguerre(xp, x, n):
    """L_n from (k + 1) L_k+1 = (2k + 1 - x) L_k - k L_k-1; 1 at x = 0."""
    x = x.astype("float64")
    shape = xp.broadcast_shapes(x.shape, xp.asarray(n).shape)
    x, n = xp.broadcast_to(x, shape), _degrees(xp, n, shape)
    with _quiet_np(xp):
        out = _recurrence(xp, n, xp.ones_like(x), 1 - x, lambda k, q, p: ((k + k + (1 - x)) * q - k * p) / (k + 1))
    out = xp.where(x == 0, 1.0, out)
    return xp.where(n < 0, 0.0, out)


def legendre(xp, x, n):
    """P_n from (k + 1) P_k+1 = (2k + 1) x P_k - k P_k-1; (+-1)^n at x = +-1."""
    x = x.astype("float64")
    shape = xp.broadcast_shapes(x.shape, xp.asarray(n).shape)
    x, n = xp.broadcast_to(x, shape), _degrees(xp, n, shape)
    with _quiet_np(xp):
        out = _recurrence(xp, n, xp.ones_like(x), x.copy(), lambda k, q, p: ((k + k + 1) * x * q - k * p) / (k + 1))
    out = xp.where(x == 1, 1.0, xp.where(x == -1, xp.where(n % 2 == 1, -1.0, 1.0), out))
    return xp.where(n < 0, 0.0, out)


def spherical_bessel_j0(xp, x):
    """sin(x) / x, by its Taylor polynomial below 0.5 (as PyTorch); 0 at +-inf."""
    x2 = x * x
    poly = 1 + x2 * (-1 / 6 + x2 * (1 / 120 + x2 * (-1 / 5040 + x2 * (1 / 362880 + x2 * (-1 / 39916800 + x2 * (
        1 / 6227020800))))))
    with _quiet_np(xp):
        out = xp.where(xp.abs(x) < 0.5, poly, xp.sin(x) / x)
    return xp.where(xp.isinf(x), 0.0, out)
