"""PyTorch's CPU samplers for the gamma, Dirichlet and binomial distributions, draw for draw, and
the reparameterised gradients of the first two.

Each sampler is a rejection loop that reads a data-dependent number of uniforms (and normals)
from the generator, one element after the other in memory order, exactly as PyTorch's
`_s_gamma_cpu`, `_s_dirichlet_cpu` and `_s_binomial_cpu` do: so after manual_seed the samples
are PyTorch's. The arithmetic keeps PyTorch's types: the element type (float32 or float64) where
its C++ code computes in the element type, float64 where it computes in double (and its `1.0f / 3.0f`
style constants are float32 numbers). float32 logs and square roots call the C library's logf,
log1pf and sqrtf, as PyTorch's std::log(float) does.

The gradients are PyTorch's approximations of -(d cdf / d alpha) / pdf (implicit
reparameterisation): Taylor series, saddle-point expansions and fitted rational functions, each
used in the region of (x, alpha) where it is accurate.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

import minitorch as torch
from minitorch import _random as _rand

__all__ = ["_standard_gamma", "_standard_gamma_grad", "_sample_dirichlet", "_dirichlet_grad", "binomial"]

_F32 = np.float32
_THIRD32 = float(_F32(1.0) / _F32(3.0))  # `1.0f / 3.0f`: the float32 third
_C0331 = float(_F32(0.0331))  # `0.0331f`
_LIBM32 = None


def _libm32():
    global _LIBM32
    if _LIBM32 is None:
        lib = ctypes.CDLL(ctypes.util.find_library("m") or None)
        for name in ("logf", "log1pf", "sqrtf"):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        _LIBM32 = lib
    return _LIBM32


# ---- one draw at a time, as at::uniform_real_distribution<double> / normal_distribution<double> ----

def _uniform(g):
    return float(_rand.unit64(g, 1)[0])


def _normal(g):
    """Box-Muller on two float64 uniforms: r cos(theta) now, r sin(theta) kept for the next call."""
    if g._next_double_normal is not None:
        z, g._next_double_normal = g._next_double_normal, None
        return z
    u1, u2 = _rand.unit64(g, 2).tolist()
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    g._next_double_normal = r * math.sin(theta)
    return r * math.cos(theta)


def _gamma_one(g, alpha, single):
    """Marsaglia and Tsang's rejection sampler, as PyTorch's sample_gamma. `alpha` is the element
    (float32 when `single`); the loop itself runs in float64."""
    scale = 1.0
    if alpha < 1.0:  # boost alpha by one; a uniform's 1/alpha power scales the draw back
        if alpha == 0:
            return 0.0
        inv = float(_F32(1.0) / _F32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1.0 - _uniform(g), inv)
        alpha = float(_F32(alpha) + _F32(1.0)) if single else alpha + 1.0
    d = float(_F32(alpha) - _F32(_THIRD32)) if single else alpha - _THIRD32
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _normal(g)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - _uniform(g)
        xx = x * x
        if u < 1.0 - _C0331 * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _host(t):
    return np.array(t.detach().cpu().numpy(), order="C")  # (ascontiguousarray would make a 0-d array 1-d)


def _tensor(values, device):
    # (NumPy's arithmetic on a 0-d array gives a scalar: asarray makes it an array again)
    return torch.from_numpy(np.asarray(values)).to(device)


def _check_floating(t, kernel):
    if not t.dtype.is_floating_point or t.dtype not in (torch.float32, torch.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{t.dtype._short}'")


def _gammas(g, alphas, single):
    return np.array([_gamma_one(g, a, single) for a in alphas.ravel().tolist()], np.float64).reshape(alphas.shape)


class _StandardGamma(torch.autograd.Function):
    """Gamma(alpha, 1) draws; their gradient in alpha is _standard_gamma_grad (implicit reparameterisation)."""
    _node_name = "StandardGammaBackward0"

    @staticmethod
    def forward(ctx, alpha, generator=None):
        g = _rand.generator(generator, alpha.device)
        host = _host(alpha)
        dt = host.dtype.type
        out = _gammas(g, host, dt is np.float32).astype(dt)
        out = np.maximum(out, np.finfo(dt).tiny)  # never exactly 0: log_prob stays finite
        x = _tensor(out, alpha.device)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _standard_gamma_grad(alpha, x), None


def _standard_gamma(alpha, generator=None):
    """torch._standard_gamma: one Gamma(alpha, 1) draw per element of `alpha`."""
    _check_floating(alpha, "gamma_cpu")
    return _StandardGamma.apply(alpha, generator)


def _sample_dirichlet(alpha, generator=None):
    """torch._sample_dirichlet: Gamma(alpha_i, 1) draws (in float64, so small alphas do not
    underflow) divided by their sum over the last dim, clamped into (0, 1)."""
    _check_floating(alpha, "dirichlet")
    g = _rand.generator(generator, alpha.device)
    host = _host(alpha)
    dt = host.dtype.type
    gam = np.maximum(_gammas(g, host.astype(np.float64), False), np.finfo(np.float64).tiny)
    out = (gam / _row_sums(gam)).astype(dt)
    out = np.minimum(np.nextafter(dt(1), dt(0)), np.maximum(np.finfo(dt).tiny, out))
    return _tensor(out, alpha.device)


def _ilp4_sum(x):
    """x of shape (rows, n, lanes) summed over n as PyTorch's row_sum: four running sums, item
    i going to sum i % 4 (a leftover to the first), then the four added in order."""
    n = x.shape[1]
    parts = [np.zeros((x.shape[0], x.shape[2])) for _ in range(4)]
    for i in range(n - n % 4):
        parts[i % 4] = parts[i % 4] + x[:, i]
    for i in range(n - n % 4, n):
        parts[0] = parts[0] + x[:, i]
    return parts[0] + parts[1] + parts[2] + parts[3]


def _row_sums(a):
    """a.sum(-1, keepdim=True) in PyTorch's order of additions, so float64 sums agree to the bit
    (its CPU sum reads a row as vectors of 4 doubles, sums the vectors 4 at a time, then adds the
    leftover elements and the vector's lanes; exact for rows under 256 elements, where its deeper
    cascade starts)."""
    k = a.shape[-1]
    if a.size == 0:
        return a.sum(-1, keepdims=True)
    rows = a.reshape(-1, k)
    nvec = k // 4
    if nvec == 0:
        total = _ilp4_sum(rows[:, :, None])[:, 0]
    else:
        lanes = _ilp4_sum(rows[:, :4 * nvec].reshape(-1, nvec, 4))
        total = np.zeros(rows.shape[0])
        for j in range(4 * nvec, k):
            total = total + rows[:, j]
        for j in range(4):
            total = total + lanes[:, j]
    return total.reshape(a.shape[:-1] + (1,))


# ---- binomial: inversion for small means, Hormann's BTRS rejection otherwise ----

def _stirling_tail(k):
    """log(k!) minus its Stirling approximation."""
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
         0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287)


class _Scalar:
    """The element type's arithmetic: float32 rounding and logf/log1pf/sqrtf, or float64 and libm."""

    def __init__(self, single):
        self.t = _F32 if single else float
        lib = _libm32() if single else None
        self.log1p = (lambda v: float(lib.log1pf(v))) if single else math.log1p
        self.sqrt = (lambda v: float(lib.sqrtf(v))) if single else math.sqrt


def _inversion(g, n, p, s):
    """Count geometric waiting times (one uniform each) until they pass n trials."""
    logprob = s.log1p(-p)
    geom_sum, k = 0.0, 0
    while True:
        geom_sum += math.ceil(math.log(_uniform(g)) / logprob)
        if geom_sum > n:
            return k
        k += 1


def _btrs(g, n, p, s):
    t = s.t
    stddev = s.sqrt(t(t(n * p) * t(1 - p)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(p)
    c = float(t(n * p)) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(t(p / t(1 - p)))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(math.floor(t(t(n + 1) * p)))
    n_ = float(n)
    while True:
        u = _uniform(g) - 0.5
        v = _uniform(g)
        us = 0.5 - abs(u)
        k = float(t(math.floor((2 * a / us + b) * u + c)))
        if k < 0 or k > n_:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        nk1 = float(t(t(n_ - k) + 1))  # count - k + 1, in the element type
        bound = ((m + 0.5) * math.log((m + 1) / (r * (n_ - m + 1)))
                 + float(t(n + 1)) * math.log((n_ - m + 1) / nk1)
                 + (k + 0.5) * math.log(r * nk1 / float(t(k + 1)))
                 + _stirling_tail(m) + _stirling_tail(n_ - m) - _stirling_tail(k) - _stirling_tail(float(t(n_ - k))))
        if v <= bound:
            return k


def _binomial_one(g, n, p, s):
    t = s.t
    n, p = t(n), t(p)
    if n <= 0.0 or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return float(n)
    if p <= 0.5:
        return _btrs(g, n, p, s) if t(n * p) >= 10.0 else float(_inversion(g, n, p, s))
    if p > 0.5:
        q = t(1.0 - float(p))
        k = _btrs(g, n, q, s) if t(n * q) >= 10.0 else float(_inversion(g, n, q, s))
        return float(t(n - t(k)))
    return math.nan  # p is nan


def binomial(count, prob, generator=None):
    """torch.binomial: one Binomial(count, prob) draw per element (prob broadcast to count's shape)."""
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: {t.dtype._short}")
    _check_floating(count, "binomial_cpu")
    g = _rand.generator(generator, count.device)
    n = _host(count)
    p = np.broadcast_to(_host(prob).astype(n.dtype), n.shape)
    s = _Scalar(n.dtype == np.float32)
    flat = [_binomial_one(g, a, b, s) for a, b in zip(n.ravel().tolist(), p.ravel().tolist())]
    out = np.array(flat, np.float64).astype(n.dtype).reshape(n.shape)
    return _tensor(out, count.device)


# ---- the reparameterised gradients (PyTorch's formulas, in float64) ----

def _polevl(x, coefs):
    result = 0.0
    for c in coefs:
        result = result * x + c
    return result


_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


def _digamma(x):
    """Cephes' digamma: the recurrence up to x >= 10, then the asymptotic series."""
    if x == 0:
        return math.inf
    extra = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        extra = -math.pi / math.tan(math.pi * x)
        x = 1 - x
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + 2.25175258906672110764 + extra
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        y = z * _polevl(z, _PSI_A)
    return result + math.log(x) - 0.5 / x - y + extra


_GAMMA_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
             (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
              -0.00058392623),
             (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
              0.00085092367, -1.5247877e-07))
_F08, _F09, _F11 = float(_F32(0.8)), float(_F32(0.9)), float(_F32(1.1))


def _gamma_grad_one(alpha, x):
    """d x / d alpha for a Gamma(alpha, 1) draw x, as PyTorch's standard_gamma_grad_one."""
    if x < _F08:  # Taylor series of the cdf for small x
        numer, denom = 1.0, alpha
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = math.pow(x, alpha)
        pdf = math.pow(x, alpha - 1) * math.exp(-x)
        cdf = pow_x_alpha * series1
        cdf_alpha = (math.log(x) - _digamma(alpha)) * cdf - pow_x_alpha * series2
        result = -cdf_alpha / pdf
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:  # Rice saddle point expansion for large alpha
        if _F09 * alpha <= x <= _F11 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
            return numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = math.pow(x - alpha - alpha * math.log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = math.log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    u, v = math.log(x / alpha), math.log(alpha)  # a fitted rational function of log(x/alpha), log(alpha)
    cv = [_GAMMA_UV[0][i] + u * (_GAMMA_UV[1][i] + u * _GAMMA_UV[2][i]) for i in range(8)]
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    return math.exp(p / q)


def _pointwise(fn, *tensors):
    """fn over the broadcast elements of `tensors` (as float64), in the first tensor's dtype."""
    arrays = np.broadcast_arrays(*[_host(t).astype(np.float64) for t in tensors])
    flat = [fn(*vals) for vals in zip(*[a.ravel().tolist() for a in arrays])]
    out = np.array(flat, np.float64).reshape(arrays[0].shape).astype(tensors[0].dtype.np)
    return _tensor(out, tensors[0].device)


def _standard_gamma_grad(alpha, x):
    """torch._standard_gamma_grad: d x / d alpha for Gamma(alpha, 1) draws x."""
    return _pointwise(_gamma_grad_one, alpha, x)


def _beta_grad_alpha_small(x, alpha, beta):
    factor = _digamma(alpha) - _digamma(alpha + beta) - math.log(x)
    numer = 1.0
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer *= (i - beta) * x / i
        denom = alpha + i
        series += numer / denom * (factor + 1 / denom)
    result = x * math.pow(1 - x, -beta) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta):
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, factor / alpha
    for i in range(1, 9):
        numer *= -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series += numer / (alpha + i) * (dbetas + factor * betas)
    result = -math.pow(1 - x, 1 - beta) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:  # avoid the singularity at x = mean
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (math.sqrt(2 * alpha / beta) * math.pow(total, 1.5) * axbx * axbx)
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = math.pow(beta * math.log(beta / (total * (1 - x))) + alpha * math.log(alpha / (total * x)), -1.5)
    return stirling * prefactor * (term1 + term2 * (term3 + (term4 if x < mean else -term4)))


_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))))


def _dirichlet_grad_one(x, alpha, total):
    """d x / d alpha for the x ~ Beta(alpha, total - alpha) marginal of a Dirichlet draw, over (1 - x)."""
    beta = total - alpha
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:  # x near 0
        return _beta_grad_alpha_small(x, alpha, beta)
    if x >= 0.5 and boundary < 0.75:  # x near 1
        return -_beta_grad_beta_small(1 - x, beta, alpha)
    if alpha > 6 and beta > 6:  # both large
        return _beta_grad_alpha_mid(x, alpha, beta)
    u = math.log(x)  # otherwise a rational correction to an analytic approximation
    a = math.log(alpha) - u
    b = math.log(total) - a
    pow_u, pow_a = (1, u, u * u), (1, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _DIRICHLET_C[0][i][j], _DIRICHLET_C[1][i][j]
            p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * (_digamma(total) - _digamma(alpha)) / beta
    return p / q * approx


def _dirichlet_grad(x, alpha, total):
    """torch._dirichlet_grad: elementwise PyTorch's dirichlet_grad_one(x, alpha, total)."""
    return _pointwise(_dirichlet_grad_one, x, alpha, total)


class _Dirichlet(torch.autograd.Function):
    """A Dirichlet draw; its gradient in the concentration by implicit reparameterisation."""

    @staticmethod
    def forward(ctx, concentration):
        x = _sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = _dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True))
