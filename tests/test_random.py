"""minitorch's random numbers without PyTorch: the generator, its state, determinism, and
the first values of PyTorch's stream as published (tests/test_random_torch.py compares
against PyTorch itself, bit for bit, where it is installed)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import minitorch as mt
from minitorch import _avx_mathfun, _fma, _mt19937
from minitorch import _random as R
from minitorch._random_fill import arrange, memory_order

import _simulated_device as sim


# ---- the Mersenne Twister ------------------------------------------------------------------

def test_mt19937_matches_the_cpp_standard():
    # ISO C++ [rand.predef]: the 10000th output of a default-constructed std::mt19937 (seed 5489)
    assert int(_mt19937.MT19937(5489).words(10000)[-1]) == 4123659995
    assert int(_mt19937.MT19937(5489).words(1)[0]) == 3499211612  # its first output


def _reference_words(state, left, nxt, n):
    """The engine written out word by word from twist() and temper(), as PyTorch's C++ reads
    it: decrement left, twist when it reaches 0, read state[next]."""
    state, out = state.copy(), []
    for _ in range(n):
        left -= 1
        if left == 0:
            state, left, nxt = _mt19937.twist(state), _mt19937.N, 0
        out.append(state[nxt])
        nxt += 1
    return _mt19937.temper(np.array(out, dtype=np.uint32))


@pytest.mark.parametrize("left, nxt", [(1, 0), (624, 1), (300, 325), (5, 620), (1, 624), (10, 3)])
def test_engine_steps_as_the_reference(left, nxt):
    state = _mt19937.seeded_state(77)
    e = _mt19937.MT19937.__new__(_mt19937.MT19937)
    e.seed = 77
    e.load(state, left, nxt)
    expected = _reference_words(state, left, nxt, 2000)
    got = np.concatenate([e.words(k) for k in (0, 1, 3, 700, 1296)])
    np.testing.assert_array_equal(got.astype(np.uint32), expected)


def test_engine_records_left_and_next_as_pytorch():
    e = _mt19937.MT19937(3)
    assert (e.left, e.next) == (1, 0)  # freshly seeded: the first word twists
    e.words(1)
    assert (e.left, e.next) == (624, 1)
    e.words(623)
    assert (e.left, e.next) == (1, 624)
    e.words(5)
    assert (e.left, e.next) == (620, 5)


# ---- published first values of PyTorch's stream --------------------------------------------

def test_first_values_after_manual_seed():
    # torch.manual_seed(0); torch.rand(3) -> tensor([0.4963, 0.7682, 0.0885])
    mt.manual_seed(0)
    np.testing.assert_allclose(mt.rand(3).numpy(), [0.4963, 0.7682, 0.0885], atol=5e-5)
    # torch.manual_seed(0); torch.randn(3) -> tensor([ 1.5410, -0.2934, -2.1788])
    mt.manual_seed(0)
    np.testing.assert_allclose(mt.randn(3).numpy(), [1.5410, -0.2934, -2.1788], atol=5e-5)
    # torch.manual_seed(0); torch.randn(4, 4)[0] -> tensor([-1.1258, -1.1524, -0.2506, -0.4339])
    mt.manual_seed(0)
    np.testing.assert_allclose(mt.randn(4, 4)[0].numpy(), [-1.1258, -1.1524, -0.2506, -0.4339], atol=5e-5)
    # torch.Generator().initial_seed() -> 67280421310721 (the Generator docs' example)
    assert mt.Generator().initial_seed() == 67280421310721


def test_rand_is_24_bits_of_one_word():
    g = mt.Generator().manual_seed(12)
    words = _mt19937.MT19937(12).words(5)
    expected = (words & 0xFFFFFF).astype(np.float32) / np.float32(2 ** 24)
    np.testing.assert_array_equal(mt.rand(5, generator=g).numpy(), expected)


# ---- determinism and independence ----------------------------------------------------------

DRAWS = {
    "rand": lambda g: mt.rand(3, 2, generator=g),
    "randn-small": lambda g: mt.randn(5, generator=g),
    "randn-large": lambda g: mt.randn(40, generator=g),
    "randn-f64": lambda g: mt.randn(40, dtype=mt.float64, generator=g),
    "randint": lambda g: mt.randint(0, 100, (5,), generator=g),
    "randint-wide": lambda g: mt.randint(0, 2 ** 40, (5,), generator=g),
    "randperm": lambda g: mt.randperm(30, generator=g),
    "normal": lambda g: mt.normal(mt.zeros(4), mt.ones(4), generator=g),
    "bernoulli": lambda g: mt.bernoulli(mt.full((8,), 0.5), generator=g),
    "multinomial": lambda g: mt.multinomial(mt.ones(10), 4, generator=g),
    "multinomial-repl": lambda g: mt.multinomial(mt.ones(10), 4, True, generator=g),
    "poisson": lambda g: mt.poisson(mt.tensor([1.0, 20.0]), generator=g),
    "uniform_": lambda g: mt.empty(20).t().uniform_(-1, 1, generator=g),
    "normal_-strided": lambda g: mt.empty(6, 6).t().normal_(generator=g),
    "exponential_": lambda g: mt.empty(9).exponential_(generator=g),
    "geometric_": lambda g: mt.empty(9).geometric_(0.4, generator=g),
    "cauchy_": lambda g: mt.empty(9).cauchy_(generator=g),
    "log_normal_": lambda g: mt.empty(9).log_normal_(generator=g),
    "random_": lambda g: mt.empty(9, dtype=mt.int32).random_(generator=g),
}


@pytest.mark.parametrize("draw", list(DRAWS.values()), ids=list(DRAWS))
def test_same_seed_same_numbers_different_seed_different(draw):
    a = draw(mt.Generator().manual_seed(5)).numpy()
    b = draw(mt.Generator().manual_seed(5)).numpy()
    c = draw(mt.Generator().manual_seed(6)).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("draw", list(DRAWS.values()), ids=list(DRAWS))
def test_explicit_generator_leaves_the_default_alone(draw):
    mt.manual_seed(1)
    before = mt.get_rng_state().numpy().copy()
    draw(mt.Generator().manual_seed(2))
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), before)


def test_default_generator_follows_manual_seed():
    mt.manual_seed(9)
    a = [mt.rand(4).numpy(), mt.randn(17).numpy(), mt.randint(0, 9, (3,)).numpy()]
    mt.manual_seed(9)
    b = [mt.rand(4).numpy(), mt.randn(17).numpy(), mt.randint(0, 9, (3,)).numpy()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_a_transposed_fill_is_the_contiguous_stream_in_memory_order():
    g1, g2 = mt.Generator().manual_seed(4), mt.Generator().manual_seed(4)
    flat = mt.empty(3, 5).uniform_(generator=g1)
    t = mt.empty(5, 3).t().uniform_(generator=g2)  # memory holds 5 rows of 3
    np.testing.assert_array_equal(t.t().numpy().ravel(), flat.numpy().ravel())


def test_memory_order_and_arrange():
    assert memory_order((2, 3), (3, 1)) == (0, 1)
    assert memory_order((2, 3), (1, 2)) == (1, 0)
    assert memory_order((4, 1, 3), (3, 3, 1)) in ((0, 1, 2), (1, 0, 2))
    a = arrange(np.arange(6), (2, 3), (1, 0))
    assert a.tolist() == [[0, 2, 4], [1, 3, 5]] and a.strides[0] < a.strides[1]


# ---- state: layout and round trips -----------------------------------------------------------

def test_state_is_pytorchs_byte_layout():
    g = mt.Generator().manual_seed(2 ** 40 + 7)
    s = g.get_state()
    assert s.dtype is mt.uint8 and tuple(s.shape) == (5056,)
    raw = s.numpy()
    assert int.from_bytes(raw[0:8].tobytes(), "little") == 2 ** 40 + 7  # the seed, all 64 bits
    assert int.from_bytes(raw[8:12].tobytes(), "little") == 1  # left
    assert int.from_bytes(raw[12:16].tobytes(), "little") == 1  # seeded
    words = np.frombuffer(raw[24:24 + 624 * 8].tobytes(), np.uint64)
    np.testing.assert_array_equal(words, _mt19937.seeded_state((2 ** 40 + 7) & 0xFFFFFFFF))
    assert raw[5040] == 0 and raw[5052] == 0  # no cached normals yet
    mt.randn(1, generator=g)  # Box-Muller leaves its second value cached
    raw = g.get_state().numpy()
    assert raw[5040] == 1 and np.frombuffer(raw[5024:5032].tobytes(), np.float64)[0] != 0


@pytest.mark.parametrize("draw", list(DRAWS.values()), ids=list(DRAWS))
def test_state_round_trip(draw):
    mt.manual_seed(3)
    mt.randn(3)  # a cached normal is part of the state
    state = mt.get_rng_state()
    a = draw(None).numpy()
    mt.set_rng_state(state)
    np.testing.assert_array_equal(draw(None).numpy(), a)
    g = mt.Generator().set_state(state)
    np.testing.assert_array_equal(draw(g).numpy(), a)


def test_fork_rng():
    mt.manual_seed(8)
    with mt.random.fork_rng():
        inside = mt.rand(3).numpy()
    np.testing.assert_array_equal(mt.rand(3).numpy(), inside)
    with mt.random.fork_rng(enabled=False):
        mt.rand(3)
    assert not np.array_equal(mt.rand(3).numpy(), inside)


def test_seed_reseeds_from_entropy():
    g = mt.Generator()
    s1, s2 = g.seed(), g.seed()
    assert s1 != s2 and g.initial_seed() == s2 and 0 <= s1 < 2 ** 64
    assert mt.seed() == mt.initial_seed()


def test_negative_and_wide_seeds_wrap_as_in_pytorch():
    assert mt.Generator().manual_seed(-1).initial_seed() == 2 ** 64 - 1
    a = mt.rand(4, generator=mt.Generator().manual_seed(2 ** 32 + 5))
    b = mt.rand(4, generator=mt.Generator().manual_seed(5))  # the words start from the low 32 bits
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# ---- the messages ------------------------------------------------------------------------------

@pytest.mark.parametrize("call, kind, text", [
    (lambda: mt.Generator().manual_seed(1.5), RuntimeError, "manual_seed expected a long, but got float"),
    (lambda: mt.manual_seed(2 ** 64), ValueError, "Overflow when unpacking long long"),
    (lambda: mt.set_rng_state(mt.zeros(5, dtype=mt.uint8)), RuntimeError,
     "Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be 5"),
    (lambda: mt.set_rng_state(mt.zeros(5056)), TypeError, "RNG state must be a torch.ByteTensor"),
    (lambda: mt.set_rng_state(np.zeros(5056, np.uint8)), TypeError, "expected a torch.ByteTensor, but got numpy.ndarray"),
    (lambda: mt.set_rng_state(mt.zeros(5056, dtype=mt.uint8)), RuntimeError, "Invalid mt19937 state"),
    (lambda: mt.rand(2, generator=5), TypeError, "generator must be a minitorch.Generator"),
    (lambda: mt.rand(2, dtype=mt.int64), NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda: mt.empty(2, dtype=mt.int64).normal_(), NotImplementedError, "\"normal_kernel_cpu\" not implemented"),
    (lambda: mt.empty(2).normal_(0, -1), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (lambda: mt.empty(2).uniform_(2, 1), RuntimeError, "uniform_ expects to return a [from, to) range"),
    (lambda: mt.empty(2).bernoulli_(1.5), RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda: mt.empty(2).exponential_(0), RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=0"),
    (lambda: mt.randint(3, 3, (2,)), RuntimeError, "random_ expects 'from' to be less than 'to', but got from=3"),
    (lambda: mt.randint(300, (2,), dtype=mt.uint8), RuntimeError, "to - 1 is out of bounds for unsigned char"),
    (lambda: mt.randperm(300, dtype=mt.uint8), RuntimeError, "value cannot be converted to type uint8_t"),
    (lambda: mt.multinomial(mt.tensor([0.1, -0.2]), 1), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: mt.multinomial(mt.tensor([0.1, 0.2]), 3), RuntimeError,
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda: mt.multinomial(mt.tensor([0.0, 0.0]), 2, True), RuntimeError,
     "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda: mt.normal(0.0, 1.0), TypeError, "normal() received an invalid combination of arguments"),
    (lambda: mt.empty(3, 2).expand(2, 3, 2).uniform_(), RuntimeError, "more than one element of the written-to"),
    (lambda: mt.tensor([1.0], requires_grad=True).normal_(), RuntimeError, "a leaf Variable that requires grad"),
])
def test_errors(call, kind, text):
    with pytest.raises(kind) as info:
        call()
    assert text in str(info.value)


def test_refusals_draw_nothing():
    mt.manual_seed(0)
    before = mt.get_rng_state().numpy().copy()
    for call in (lambda: mt.empty(2).normal_(0, -1), lambda: mt.empty(3, 2).expand(2, 3, 2).uniform_(),
                 lambda: mt.multinomial(mt.tensor([0.1, 0.2]), 3)):
        with pytest.raises(RuntimeError):
            call()
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), before)


# ---- the arithmetic: exact fma, and the vector kernel's float32 math ----------------------------

def _exact_round32(x, y, z):
    v = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    f = np.float32(float(v))
    near = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    return min(near, key=lambda q: (abs(Fraction(float(q)) - v), int(np.array(q).view(np.uint32)) & 1))


def test_fma32_is_correctly_rounded_even_halfway():
    rng = np.random.default_rng(0)
    n = 3000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = rng.standard_normal(n).astype(np.float32)
    # products exactly on a float32 halfway point, nudged by a tiny c: where double rounding fails
    a2 = rng.integers(1 << 23, 1 << 24, n).astype(np.float32)
    b2 = np.full(n, 2.0 ** -23, np.float32)
    c2 = (np.float32(2.0 ** -24) * rng.choice([-1, 1], n) * rng.choice([1, 1 + 2 ** -20], n)).astype(np.float32)
    for x, y, z in ((a, b, c), (a2, b2, c2)):
        expected = np.array([_exact_round32(*v) for v in zip(x, y, z)], np.float32)
        np.testing.assert_array_equal(_fma.fma32(x, y, z), expected)
    assert (np.float32(1.0) * a2 * b2 != _fma.fma32(a2, b2, c2)).any()  # the test can tell them apart


def test_fma64_is_correctly_rounded():
    rng = np.random.default_rng(1)
    n = 3000
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    cases = [rng.standard_normal(n), -(a * b) * (1 + rng.standard_normal(n) * 1e-15),
             rng.choice([-1, 1], n) * rng.random(n) * 2.0 ** -80]
    for c in cases:
        expected = np.array([float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)])
        np.testing.assert_array_equal(_fma.fma64(a, b, c), expected)
    assert (a * b + cases[1] != _fma.fma64(a, b, cases[1])).any()


def test_vector_kernel_math_is_close_to_the_true_functions():
    x = np.linspace(2.0 ** -24, 1.0, 10001, dtype=np.float32)
    np.testing.assert_allclose(_avx_mathfun.log_ps(x), np.log(x.astype(np.float64)), rtol=2e-7, atol=2e-7)
    t = np.linspace(0, 2 * math.pi, 10001, dtype=np.float32)
    s, c = _avx_mathfun.sincos_ps(t)
    np.testing.assert_allclose(s, np.sin(t.astype(np.float64)), atol=3e-7)
    np.testing.assert_allclose(c, np.cos(t.astype(np.float64)), atol=3e-7)


def test_both_normal_kernels_give_normals():
    """The vectorised and the C-library float32 kernel both turn 16-blocks of uniforms into
    standard normals, and agree to float32 rounding."""
    u = R.unit32(mt.Generator().manual_seed(0), 16 * 4000)
    vec = _avx_mathfun.box_muller16(u, 0.0, 1.0)
    lib = R._box_muller32_libm(u, 0.0, 1.0)
    np.testing.assert_allclose(vec, lib, rtol=1e-5, atol=1e-5)
    assert abs(vec.mean()) < 0.03 and abs(vec.std() - 1) < 0.03


# ---- distributions look right --------------------------------------------------------------------

def test_distribution_moments():
    g = mt.Generator().manual_seed(0)
    assert abs(mt.rand(100_000, generator=g).mean().item() - 0.5) < 0.01
    z = mt.randn(100_000, generator=g)
    assert abs(z.mean().item()) < 0.02 and abs(z.std().item() - 1) < 0.02
    assert abs(mt.empty(100_000).exponential_(2.0, generator=g).mean().item() - 0.5) < 0.01
    assert abs(mt.empty(100_000).bernoulli_(0.3, generator=g).mean().item() - 0.3) < 0.01
    counts = np.bincount(mt.multinomial(mt.tensor([1.0, 2.0, 7.0]), 20_000, True, generator=g).numpy(), minlength=3)
    np.testing.assert_allclose(counts / 20_000, [0.1, 0.2, 0.7], atol=0.01)
    assert abs(mt.poisson(mt.full((20_000,), 30.0), generator=g).mean().item() - 30) < 0.3
    p = mt.randperm(50, generator=g)
    assert sorted(p.tolist()) == list(range(50))
    r = mt.randint(-3, 4, (10_000,), generator=g).numpy()
    assert r.min() == -3 and r.max() == 3


def test_multinomial_without_replacement_never_repeats():
    g = mt.Generator().manual_seed(1)
    out = mt.multinomial(mt.rand(4, 30, generator=g), 30, generator=g)
    assert all(sorted(row) == list(range(30)) for row in out.tolist())


# ---- other devices draw on the host, so a seed means the same numbers there ---------------------

@pytest.fixture
def simulated():
    sim.register()
    yield "simulated:0"
    sim.unregister()


def test_device_draws_equal_cpu_draws(simulated):
    def draws(device):
        g = mt.Generator().manual_seed(3)
        x = mt.empty(20, device=device)
        return [mt.rand(5, device=device, generator=g), mt.randn(20, device=device, generator=g),
                mt.randint(0, 5, (4,), device=device, generator=g), x.normal_(generator=g),
                x.bernoulli_(0.5, generator=g), mt.randn_like(x, generator=g)]
    for a, b in zip(draws("cpu"), draws(simulated)):
        assert b.device == mt.device(simulated)
        np.testing.assert_array_equal(a.numpy(), b.cpu().numpy())
    mt.manual_seed(0)
    a = mt.nn.functional.dropout(mt.ones(50), 0.5)
    mt.manual_seed(0)
    b = mt.nn.functional.dropout(mt.ones(50, device=simulated), 0.5)
    np.testing.assert_array_equal(a.numpy(), b.cpu().numpy())


def test_bench_random_rows_run():
    """The benchmark rows for rand/randn run and report (timings are never asserted)."""
    import os
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.insert(0, root)
    from bench import _timing, random_draws
    cfg = _timing.Config.make(quick=True, repeat=1, min_time=0.0002)
    cfg.settle = 0.0
    rows = random_draws.rows(cfg, n=100)
    assert [r.key for r in rows] == ["random.rand", "random.randn", "random.randn64"]
    assert "random" in _timing.table("Random", rows).lower()
