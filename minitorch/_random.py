"""Random numbers: PyTorch's CPU generator, and PyTorch's ways of drawing from it, bit for bit.

After `minitorch.manual_seed(s)` every random function gives the numbers `torch.manual_seed(s)`
gives on a CPU. Three layers make that true:

1. the generator: a Mersenne Twister (`_mt19937.py`) seeded as PyTorch seeds it, with its
   state in PyTorch's byte layout, so `get_rng_state()` / `set_rng_state()` travel both ways;
2. the draws: how many 32-bit words each value takes (64 for float64 and wide integer ranges)
   and how they become a number; these are the functions below, one per distribution;
3. the order: PyTorch fills a tensor in memory order, and takes different paths for small or
   non-contiguous tensors; the callers (`_factories.py`, `_random_fill.py`) say which.

On a GPU, minitorch draws on the host with the same algorithm, from a generator per GPU (seeded
by `manual_seed` and `minitorch.cuda.manual_seed`), and copies the values over: a seed gives the
same numbers on CPU and GPU (PyTorch's CUDA generator, Philox, is different, so those are not
PyTorch's CUDA numbers).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math
import os
import platform

import numpy as np

from . import _avx_mathfun
from ._fma import fma32, fma64, libm
from ._mt19937 import MT19937, N

DEFAULT_SEED = 67280421310721  # what a new torch.Generator() starts from

# torch.get_rng_state()'s bytes: the old TH generator struct, then the float normal cache
_STATE = np.dtype([
    ("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"), ("state", "<u8", (N,)),
    ("normal_x", "<f8"), ("normal_y", "<f8"), ("normal_rho", "<f8"), ("normal_is_valid", "<i4"), ("pad", "V4"),
    ("next_float_normal", "<f4"), ("next_float_normal_is_valid", "u1"), ("pad2", "V3")])
assert _STATE.itemsize == 5056


class Generator:
    """`torch.Generator`: an MT19937 stream and the one cached normal that Box-Muller leaves over."""

    def __init__(self, device="cpu"):
        from ._device import device as _device
        self.device = _device(device) if isinstance(device, str) else device
        self._reset(DEFAULT_SEED)

    def _reset(self, seed):
        self._engine = MT19937(seed)
        self._next_double_normal = None  # the sin half of the last Box-Muller pair, if unused
        self._next_float_normal = None  # kept only so a state round-trips

    def manual_seed(self, seed):
        """Restart the stream from `seed` (any int in [-2**63, 2**64); negatives wrap to 2**64 + seed)."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError("Overflow when unpacking long long")
        self._reset(seed % (1 << 64))
        return self

    def seed(self):
        """Reseed from the operating system's entropy; returns the new seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self._reset(s)
        return s

    def initial_seed(self):
        return self._engine.seed

    def get_state(self):
        """The state as a uint8 tensor, byte for byte what torch's get_state() returns."""
        from ._factories import from_numpy
        rec = np.zeros((), _STATE)
        e = self._engine
        rec["seed"], rec["left"], rec["seeded"], rec["next"] = e.seed, e.left, 1, e.next
        rec["state"] = e.state
        if self._next_double_normal is not None:
            rec["normal_y"], rec["normal_is_valid"] = self._next_double_normal, 1
        if self._next_float_normal is not None:
            rec["next_float_normal"], rec["next_float_normal_is_valid"] = self._next_float_normal, 1
        return from_numpy(np.frombuffer(rec.tobytes(), np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state from get_state() (minitorch's or torch's); returns self."""
        raw = _state_bytes(new_state)
        if raw.size != _STATE.itemsize:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE.itemsize} but found the input "
                               f"RNG state size to be {raw.size}")
        rec = raw.view(_STATE)[0]
        left, nxt = int(rec["left"]), int(rec["next"]) & 0xFFFFFFFF
        if not (rec["seeded"] != 0 and 0 < left <= N and nxt <= N):
            raise RuntimeError("Invalid mt19937 state")
        e = MT19937.__new__(MT19937)
        e.seed = int(rec["seed"])
        e.load(rec["state"].astype(np.uint32), left, nxt)
        self._engine = e
        self._next_double_normal = float(rec["normal_y"]) if rec["normal_is_valid"] else None
        self._next_float_normal = (np.float32(rec["next_float_normal"]) if rec["next_float_normal_is_valid"]
                                   else None)
        return self

    def __repr__(self):  # PyTorch's class lives in its C extension, torch._C
        return f"<minitorch._C.Generator object at {id(self):#x}>"


def _state_bytes(state):
    from ._tensor import Tensor
    if isinstance(state, Tensor):
        if state.dtype.np != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        return np.ascontiguousarray(state.detach().cpu().numpy())
    if type(state).__module__.startswith("torch") and hasattr(state, "numpy"):  # a state taken from PyTorch
        if str(getattr(state, "dtype", "")) != "torch.uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        return np.ascontiguousarray(state.detach().cpu().numpy())
    kind = type(state)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    raise TypeError(f"expected a torch.ByteTensor, but got {name}")


default_generator = Generator()
default_generator.seed()  # as PyTorch: an unseeded program gets a fresh stream each run


def generator(gen, device=None):
    """The generator to draw from: `gen`, or the default one of `device` (the CPU's, or a GPU's)."""
    if gen is None:
        if device is not None and device.type == "cuda":
            return cuda_generator(device.index or 0)
        return default_generator
    if not isinstance(gen, Generator):
        raise TypeError(f"generator must be a minitorch.Generator, not {type(gen).__name__} (make one with "
                        "minitorch.Generator().manual_seed(seed))")
    return gen


def manual_seed(seed):
    """Seed the default generator, and every GPU's, as PyTorch does: every later rand/randn/randint/
    shuffle repeats exactly."""
    seed_cuda(int(seed))
    return default_generator.manual_seed(int(seed))


# ---- the GPUs' generators ----------------------------------------------------------------------
# Values for a tensor on "cuda" are drawn on the host, with the same algorithm, from a generator
# of that GPU's own (PyTorch keeps one per device too), so GPU draws never move the CPU's stream
# and minitorch.cuda.manual_seed never changes CPU numbers. A seed gives the same numbers on
# either device.
_cuda_generators = {}  # device index -> Generator
_cuda_seed = None  # the seed a GPU generator made later starts from (None: a fresh one)


def cuda_generator(index):
    g = _cuda_generators.get(index)
    if g is None:
        g = _cuda_generators[index] = Generator(f"cuda:{index}")
        g.seed() if _cuda_seed is None else g.manual_seed(_cuda_seed)
    return g


def seed_cuda(seed, index=None):
    """manual_seed for one GPU's generator (`index`), or for all of them (None), present and future."""
    global _cuda_seed
    if index is None:
        _cuda_seed = seed
        for g in _cuda_generators.values():
            g.manual_seed(seed)
    else:
        cuda_generator(index).manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


# ---- which of PyTorch's CPU kernels runs here -------------------------------------------------
# PyTorch compiles each kernel several times and picks one for the CPU at startup. On x86 with
# AVX2 and FMA the compiler fuses `a * b + c` into one rounding, and float32 normals take the
# vectorised Cephes path; without them ("DEFAULT", or ATEN_CPU_CAPABILITY=default) there is
# no fusion, and float32 normals call the C library's logf/sinf/cosf.

def _cpu_features():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__
    return __cpu_features__


def _vector_kernels():
    if os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower() == "default":
        return False
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686"):
        return False
    f = _cpu_features()
    return bool(f.get("AVX2") and f.get("FMA3"))


VECTOR_KERNELS = _vector_kernels()


def _madd32(a, b, c):
    return fma32(a, b, c) if VECTOR_KERNELS else np.float32(a) * np.float32(b) + np.float32(c)


def _fused64(a, b, c):
    """fma64(a, b, c); where its emulation overflows into NaN (an infinite or huge std or mean), IEEE's
    a * b + c, which is then what a true fused multiply-add gives too (inf, or the finite value)."""
    out = fma64(a, b, c)
    if not np.isnan(out).any():
        return out
    plain = np.float64(a) * b + c
    return np.where(np.isnan(out) & ~np.isnan(plain), plain, out)


def _madd64(a, b, c):
    return _fused64(a, b, c) if VECTOR_KERNELS else np.float64(a) * b + c


# ---- the draws ---------------------------------------------------------------------------------
# Each function takes a Generator and a count and returns a 1-D NumPy array, in the order
# PyTorch draws: one value after the other, in the memory order of the tensor being filled.

_MASK24, _MASK53 = np.uint64((1 << 24) - 1), np.uint64((1 << 53) - 1)


def unit32(g, n):
    """n float32 uniforms in [0, 1): 24 random bits of one 32-bit word each."""
    return (g._engine.words(n) & _MASK24).astype(np.float32) * np.float32(2.0 ** -24)


def unit64(g, n):
    """n float64 uniforms in [0, 1): 53 random bits of one 64-bit draw (two words) each."""
    return (g._engine.words64(n) & _MASK53).astype(np.float64) * 2.0 ** -53


def uniform(g, n, dtype, low, high):
    """U[low, high) as `uniform_`: x * (high - low) + low in float64 for float64, else in
    float32 (float16 rounds the result), and a value that rounds up to `high` becomes `low`."""
    if dtype == np.float64:
        low, high = float(low), float(high)
        v = unit64(g, n)
        if (low, high) != (0.0, 1.0):
            v = _madd64(v, high - low, low)
    else:
        lo, hi = np.float32(low), np.float32(high)
        v = unit32(g, n)
        if (lo, hi) != (0.0, 1.0):
            v = _madd32(v, hi - lo, lo)
        v = v.astype(dtype, copy=False)
        if (lo, hi) == (0.0, 1.0) and dtype == np.float32:
            return v  # x * 1 + 0 is x, and x < 1
    high, low = v.dtype.type(high), v.dtype.type(low)
    return np.where(v == high, low, v)


def cast(values, dtype):
    """float64 draws to the tensor's dtype as C++ casts them (to float16 by way of float32)."""
    if dtype == np.float16:
        values = values.astype(np.float32)
    return values.astype(dtype)


def normal(g, n, dtype, mean, std, contiguous):
    """N(mean, std^2) as `normal_`: a contiguous tensor of 16 or more elements is filled in
    blocks of 16 (`_fill16`); anything else one value at a time (`_normal_serial`)."""
    if n >= 16 and contiguous:
        if dtype == np.float32:
            return _fill16(g, n, lambda u: _box_muller32(u, mean, std), unit32)
        if dtype == np.float64:
            return _fill16(g, n, lambda u: _box_muller64(u, float(mean), float(std)), unit64)
        if dtype == np.float16:  # float32 normals, rounded; only the whole blocks' uniforms come first
            return _fill16(g, n, lambda u: _box_muller32(u, mean, std), unit32, whole_blocks=True).astype(dtype)
    return cast(_normal_serial(g, n, float(mean), float(std)), dtype)


_CHUNK = 1 << 16  # a multiple of 16


def _fill16(g, n, transform, draw, whole_blocks=False):
    """PyTorch's normal_fill: draw all n uniforms (float16: only those of the whole blocks),
    transform each whole block of 16; when n is not a multiple of 16, draw 16 fresh uniforms
    and recompute the *last* 16 outputs."""
    full = n - n % 16
    u = draw(g, full if whole_blocks else n)
    out = np.empty(n, u.dtype)
    for i in range(0, full, _CHUNK):  # in cache-sized pieces: the float32 kernel is many array ops
        out[i:min(i + _CHUNK, full)] = transform(u[i:min(i + _CHUNK, full)])
    if full != n:
        out[n - 16:] = transform(draw(g, 16))
    return out


def _box_muller32(u, mean, std):
    if VECTOR_KERNELS:
        return _avx_mathfun.box_muller16(u, mean, std)
    return _box_muller32_libm(u, mean, std)


def _box_muller64(u, mean, std):
    u = u.reshape(-1, 16)
    radius = np.sqrt(libm(math.log, 1.0 - u[:, :8]) * -2.0)
    theta = (2.0 * math.pi) * u[:, 8:]
    out = np.empty_like(u)
    out[:, :8] = _scale64(radius * libm(math.cos, theta), mean, std)
    out[:, 8:] = _scale64(radius * libm(math.sin, theta), mean, std)
    return out.reshape(-1)


def _scale64(z, mean, std):
    """fma(z, std, mean); for N(0, 1) that is z + 0.0 (which turns -0.0 into 0.0, as fma does)."""
    return z + 0.0 if (mean, std) == (0.0, 1.0) else _fused64(z, std, mean)


def _box_muller32_libm(u, mean, std):
    """The portable kernel: the same 16-blocks with the C library's float32 logf/sinf/cosf."""
    lib = _libm32()
    u = u.reshape(-1, 16)
    u1, u2 = np.float32(1.0) - u[:, :8], u[:, 8:]
    radius = np.sqrt(_map32(lib.logf, u1) * np.float32(-2.0))
    theta = (u2.astype(np.float64) * (2.0 * math.pi)).astype(np.float32)
    out = np.empty_like(u)
    out[:, :8] = fma32(radius * _map32(lib.cosf, theta), np.float32(std), np.float32(mean))
    out[:, 8:] = fma32(radius * _map32(lib.sinf, theta), np.float32(std), np.float32(mean))
    return out.reshape(-1)


_LIBM = None


def _libm32():
    global _LIBM
    if _LIBM is None:
        lib = ctypes.CDLL(ctypes.util.find_library("m") or None)
        for name in ("logf", "sinf", "cosf"):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        _LIBM = lib
    return _LIBM


def _map32(fn, x):
    return np.fromiter(map(fn, x.ravel().tolist()), np.float32, x.size).reshape(x.shape)


def _normal_serial(g, n, mean, std):
    """Normals one at a time, as `at::normal_distribution<double>`: each pair of 64-bit uniforms
    gives r*cos(theta), returned, and r*sin(theta), kept in the generator for the next call."""
    out = np.empty(n)
    start = 0
    if n and g._next_double_normal is not None:
        out[0], g._next_double_normal, start = g._next_double_normal, None, 1
    m = n - start
    if m:
        pairs = (m + 1) // 2
        u = unit64(g, 2 * pairs)
        radius = np.sqrt(libm(math.log1p, -u[1::2]) * -2.0)
        theta = (2.0 * math.pi) * u[0::2]
        both = np.empty(2 * pairs)
        both[0::2] = radius * libm(math.cos, theta)
        both[1::2] = radius * libm(math.sin, theta)
        out[start:] = both[:m]
        if m % 2:
            g._next_double_normal = float(both[-1])
    return out + 0.0 if (mean, std) == (0.0, 1.0) else _madd64(out, std, mean)


def integers(g, n, span, low, dtype):
    """Integers in [low, low + span) as `random_(from, to)`: one word modulo span, plus low;
    from span = 2**28 on, one 64-bit draw instead (a 32-bit word modulo a span that large
    would favour the low values)."""
    wide = span >= (1 << 28)
    w = g._engine.words64(n) if wide else g._engine.words(n)
    v = (w % np.uint64(span)).astype(np.int64) + np.int64(low) if span < (1 << 64) else w.astype(np.int64)
    return v.astype(dtype)


def integers_default(g, n, dtype):
    """`random_()` with no bounds: [0, 2**mantissa] for floats, [0, max] for integers, 0/1 for bool."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (g._engine.words(n) & np.uint64(1)).astype(np.bool_)
    if dtype.kind == "f":
        span = (1 << (np.finfo(dtype).nmant + 1)) + 1
    else:
        span = int(np.iinfo(dtype).max) + 1
    wide = dtype in (np.int64, np.float64)
    w = g._engine.words64(n) if wide else g._engine.words(n)
    return (w % np.uint64(span)).astype(dtype)


def bernoulli_scalar(g, n, p):
    """1 where a float64 uniform < p, as `bernoulli_(p)`."""
    return unit64(g, n) < p


def bernoulli_tensor(g, p):
    """1 where a uniform < p[i], elementwise: float64 uniforms for a float64 p, else float32."""
    if p.dtype == np.float64:
        return unit64(g, p.size) < p
    return unit32(g, p.size) < p.astype(np.float32)


def exponential(g, n, lambd):
    return (-1.0 / lambd) * libm(math.log1p, -unit64(g, n))


def geometric(g, n, p):
    return np.ceil(libm(math.log, unit64(g, n)) / math.log1p(-p))


def cauchy(g, n, median, sigma):
    return _madd64(sigma, libm(math.tan, math.pi * (unit64(g, n) - 0.5)), median)


def log_normal(g, n, mean, std):
    return libm(math.exp, _normal_serial(g, n, mean, std))


def permutation(g, n):
    """randperm(n): Fisher-Yates from the front, swapping i with i + word % (n - i). (PyTorch
    switches to 64-bit draws from n = 2**32 // 20 on, where 32-bit draws would skew.)"""
    if n >= (1 << 32) // 20:
        return _permutation_large(g, n)
    perm = list(range(n))
    if n > 1:
        picks = (g._engine.words(n - 1).astype(np.int64) % np.arange(n, 1, -1)).tolist()
        for i, z in enumerate(picks):
            j = i + z
            perm[i], perm[j] = perm[j], perm[i]
    return np.array(perm, dtype=np.int64)


def _permutation_large(g, n):
    """The inside-out shuffle PyTorch uses for huge n: element i goes to a random slot <= i."""
    perm = np.empty(n, dtype=np.int64)
    for i in range(n):
        z = int(g._engine.words64(1)[0]) % (i + 1)
        perm[i] = perm[z]
        perm[z] = i
    return perm


def poisson(g, rates):
    """One Poisson count per rate, as PyTorch's sample_poisson (from NumPy's distributions.c)."""
    out = np.empty(len(rates))
    for i, lam in enumerate(np.asarray(rates, np.float64).tolist()):
        out[i] = _poisson_one(g, lam)
    return out


def _uniform1(g):
    return float(unit64(g, 1)[0])


def _int64(x):
    """C's cast of floor(x) to int64, as the CPU does it: out of range (inf, nan, huge rates) gives
    the smallest int64, which PyTorch then returns as the count."""
    return math.floor(x) if math.isfinite(x) and -2.0 ** 63 <= x < 2.0 ** 63 else -2 ** 63


def _poisson_one(g, lam):
    if lam >= 10:  # transformed rejection (Hoermann 1993)
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _uniform1(g) - 0.5
            v = _uniform1(g)
            us = 0.5 - abs(u)
            k = _int64((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= (
                    -lam + k * loglam - math.lgamma(k + 1)):
                return k
    if lam == 0:
        return 0
    limit, count, prod = math.exp(-lam), 0, 1.0  # multiply uniforms until below e^-lambda
    while True:
        prod *= _uniform1(g)
        if prod > limit:
            count += 1
        else:
            return count
