"""float32 Box-Muller the way PyTorch's x86 CPU kernel computes it, bit for bit.

For a contiguous float32 tensor of 16 or more elements, `normal_` on an x86 CPU with AVX2
runs a vectorised kernel: it draws 16 uniforms u, takes the first 8 as u1 and the last 8 as
u2, and writes radius*cos(theta) and radius*sin(theta) with radius = sqrt(-2 log(1 - u1)),
theta = 2 pi u2. Its log, sin and cos are not the C library's: they are Cephes polynomials in
float32 (Julien Pommier's "avx_mathfun"). So the numbers only come out the same if the same
float32 operations run in the same order, including the ones the compiler fused into one
fma. This module is that sequence, written with NumPy on whole blocks.
"""
from __future__ import annotations

import numpy as np

from ._fma import fma32

f32 = np.float32
_ONE, _HALF = f32(1.0), f32(0.5)

_LOG_POLY = [f32(c) for c in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                              1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                              3.3333331174e-1)]
_SQRTHF = f32(0.707106781186547524)
_LOG_Q1, _LOG_Q2 = f32(-2.12194440e-4), f32(0.693359375)

_FOUR_OVER_PI = f32(1.27323954473516)
_DP1, _DP2, _DP3 = f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8)
_COS_POLY = (f32(2.443315711809948e-5), f32(-1.388731625493765e-3), f32(4.166664568298827e-2))
_SIN_POLY = (f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1))
_TWO_PI = f32(2.0 * np.pi)


def log_ps(x):
    """log(x) for x in (0, 1], as `log256_ps`: split x = m * 2^e with m in [0.5, 1), fold m
    below sqrt(1/2) up by one binade, then a degree-9 polynomial in m - 1."""
    bits = x.view(np.int32)
    e = ((bits >> 23) - 127).astype(f32) + _ONE
    m = ((bits & ~0x7F800000) | 0x3F000000).view(f32)  # mantissa with exponent of 0.5
    small = m < _SQRTHF
    e -= small.astype(f32)
    x = (m - _ONE) + np.where(small, m, f32(0))
    z = x * x
    y = np.full_like(x, _LOG_POLY[0])
    for c in _LOG_POLY[1:]:
        y = fma32(y, x, c)
    y = x * y
    y = fma32(y, z, e * _LOG_Q1)
    y = fma32(-z, _HALF, y)
    return fma32(e, _LOG_Q2, x + y)


def sincos_ps(x):
    """(sin x, cos x) for x >= 0, as `sincos256_ps`: reduce by multiples of pi/4 in three
    float32 pieces (Cody-Waite), then one of two short polynomials per octant."""
    j = ((x * _FOUR_OVER_PI).astype(np.int32) + 1) & ~1
    y = j.astype(f32)
    x = fma32(y, _DP1, x)
    x = fma32(_DP2, y, x)
    x = fma32(y, _DP3, x)
    z = x * x
    c = fma32(_COS_POLY[0], z, _COS_POLY[1])
    c = fma32(c, z, _COS_POLY[2])
    c = fma32(z, z * c, -(z * _HALF)) + _ONE
    s = fma32(_SIN_POLY[0], z, _SIN_POLY[1])
    s = fma32(s, z, _SIN_POLY[2])
    s = fma32(x, z * s, x)
    use_sin_poly = (j & 2) == 0
    sin = np.where(use_sin_poly, s, c)
    cos = np.where(use_sin_poly, c, s)
    sin = (sin.view(np.int32) ^ ((j & 4) << 29)).view(f32)  # the octant's sign, as a sign bit
    cos = (cos.view(np.int32) ^ ((~(j - 2) & 4) << 29)).view(f32)
    return sin, cos


def box_muller16(u, mean, std):
    """Normals from uniforms in blocks of 16 (len(u) a multiple of 16), as the kernel's
    `normal_fill_16_AVX2`: outputs 0..7 of a block use cos, 8..15 use sin."""
    u = u.reshape(-1, 16)
    radius = np.sqrt(log_ps(_ONE - u[:, :8]) * f32(-2.0))
    sin, cos = sincos_ps(_TWO_PI * u[:, 8:])
    mean, std = f32(mean), f32(std)
    out = np.empty_like(u)
    if (mean, std) == (0.0, 1.0):  # fma(z, 1, 0) is z + 0 (-0.0 becomes 0.0)
        out[:, :8] = radius * cos + f32(0)
        out[:, 8:] = radius * sin + f32(0)
    else:
        out[:, :8] = fma32(radius * cos, std, mean)
        out[:, 8:] = fma32(radius * sin, std, mean)
    return out.reshape(-1)
