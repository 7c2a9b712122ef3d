"""More torch.distributions against PyTorch 2.13: the gamma, Dirichlet and binomial samplers
(torch._standard_gamma, torch._sample_dirichlet, torch.binomial) draw for draw after manual_seed
with their reparameterised gradients, and the distributions built on them or on transforms
(Chi2, StudentT, LogNormal, HalfNormal, HalfCauchy, Cauchy, Gumbel, Geometric, Weibull, Pareto):
samples, log_prob, cdf / icdf, entropy, moments, shapes, expand, repr, and the gradients of all.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

from test_torch_distributions import everything, leaf, same  # noqa: E402 (after the skip)

from minitorch.distributions import _samplers  # noqa: E402

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _validation_on():
    """Distributions validate their arguments by default. PyTorch's first torch.compile (another test
    file may call it in this process) switches that off process-wide: switch it back on."""
    for lib in (torch, minitorch):
        lib.distributions.Distribution.set_default_validate_args(True)


# torch's private samplers under the names minitorch keeps them by
SAMPLERS = {"_standard_gamma": (torch._standard_gamma, _samplers._standard_gamma),
            "_sample_dirichlet": (torch._sample_dirichlet, _samplers._sample_dirichlet),
            "binomial": (torch.binomial, _samplers.binomial)}


def _call(lib, name, *args):
    return SAMPLERS[name][0 if lib is torch else 1](*args)


ALPHAS = [0.01, 0.3, 0.999, 1.0, 2.5, 7.0, 9.0, 40.0, 1e-3, 0.5]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", [0, 3])
def test_standard_gamma_draws_are_pytorchs(seed, dtype):
    def case(lib):
        lib.manual_seed(seed)
        a = lib.tensor(ALPHAS * 2, dtype=getattr(lib, dtype)).reshape(4, 5)
        x = _call(lib, "_standard_gamma", a)
        return x, lib.randn(3, dtype=getattr(lib, dtype))  # the stream (and its cached normal) left as PyTorch's
    same(case, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_draws_are_pytorchs(dtype):
    def case(lib):
        lib.manual_seed(1)
        a = lib.tensor([ALPHAS[:3], ALPHAS[3:6], ALPHAS[6:9]], dtype=getattr(lib, dtype))
        wide = lib.tensor([ALPHAS * 3], dtype=getattr(lib, dtype))  # 30 wide: PyTorch's order of additions
        return _call(lib, "_sample_dirichlet", a), _call(lib, "_sample_dirichlet", wide)
    same(case, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", [0, 5])
def test_binomial_draws_are_pytorchs(seed, dtype):
    """Inversion (n p < 10), BTRS rejection (n p >= 10), p > 1/2 by symmetry, and the edge cases."""
    def case(lib):
        lib.manual_seed(seed)
        dt = getattr(lib, dtype)
        n = lib.tensor([0.0, 1.0, 5.0, 10.0, 50.0, 100.0, 1000.0, 37.0, 20.0, 3.0], dtype=dt)
        p = lib.tensor([0.3, 0.0, 0.5, 0.9, 0.2, 0.7, 0.01, 0.5, 1.0, 0.999], dtype=dt)
        return _call(lib, "binomial", n, p), _call(lib, "binomial", n.expand(3, 10), p), lib.rand(2, dtype=dt)
    same(case, rtol=0, atol=0)


def test_samplers_reject_integer_input():
    def case(lib):
        return [_try(lambda: _call(lib, "_standard_gamma", lib.tensor([1, 2]))),
                _try(lambda: _call(lib, "binomial", lib.tensor([3, 4]), lib.tensor([0.5, 0.5])))]
    same(case)


def _try(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return ("raises", type(e).__name__, str(e).replace("minitorch", "torch"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_gradient_is_pytorchs(dtype):
    """Every region of PyTorch's approximation: x < 0.8 (series), alpha > 8 (saddle point, near and
    away from the mean), and the rational fit."""
    def case(lib):
        lib.manual_seed(2)
        a = leaf(lib, ALPHAS * 2, dtype)
        x = _call(lib, "_standard_gamma", a)
        (x * lib.arange(20.0, dtype=a.dtype)).sum().backward()
        return x, a.grad
    same(case, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_and_beta_rsample_gradients_are_pytorchs(dtype):
    def case(lib):
        lib.manual_seed(4)
        c = leaf(lib, [[0.3, 2.0, 1.2], [7.5, 9.0, 12.0], [0.05, 0.7, 30.0]], dtype)
        x = lib.distributions.Dirichlet(c).rsample((2,))
        (x * lib.tensor([1.0, -2.0, 0.5], dtype=x.dtype)).sum().backward()
        a, b = leaf(lib, [0.5, 3.0, 8.0], dtype), leaf(lib, [2.0, 0.4, 9.0], dtype)
        y = lib.distributions.Beta(a, b).rsample((3,))
        y.pow(2).sum().backward()
        return x, c.grad, y, a.grad, b.grad
    same(case, rtol=2e-5, atol=1e-6)


D = lambda lib: lib.distributions  # noqa: E731

CASES = {
    "gamma": (lambda lib, a, b: D(lib).Gamma(a, b), lambda lib: [leaf(lib, [0.5, 2.0, 12.0]), leaf(lib, [1.0, 0.5, 3.0])]),
    "gamma_f64": (lambda lib, a, b: D(lib).Gamma(a, b),
                  lambda lib: [leaf(lib, [0.2, 3.0], "float64"), leaf(lib, [2.0, 1.0], "float64")]),
    "gamma_scalar": (lambda lib, a, b: D(lib).Gamma(a, b), lambda lib: [3.0, 2.0]),
    "beta": (lambda lib, a, b: D(lib).Beta(a, b), lambda lib: [leaf(lib, [0.5, 2.0]), leaf(lib, [3.0, 2.0])]),
    "dirichlet": (lambda lib, a: D(lib).Dirichlet(a), lambda lib: [leaf(lib, [[0.5, 2.0, 1.2], [0.3, 0.4, 0.9]])]),
    "chi2": (lambda lib, df: D(lib).Chi2(df), lambda lib: [leaf(lib, [1.0, 3.0, 10.0])]),
    "studentT": (lambda lib, df, m, s: D(lib).StudentT(df, m, s),
                 lambda lib: [leaf(lib, [0.8, 1.5, 5.0]), leaf(lib, [0.0, 1.0, -1.0]), leaf(lib, [1.0, 2.0, 0.5])]),
    "binomial": (lambda lib, p: D(lib).Binomial(lib.tensor([5.0, 30.0, 100.0]), p),
                 lambda lib: [leaf(lib, [0.3, 0.5, 0.8])]),
    "cauchy": (lambda lib, m, s: D(lib).Cauchy(m, s), lambda lib: [leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 0.3])]),
    "lognormal": (lambda lib, m, s: D(lib).LogNormal(m, s), lambda lib: [leaf(lib, [0.0, 1.0]), leaf(lib, [0.5, 0.3])]),
    "halfnormal": (lambda lib, s: D(lib).HalfNormal(s), lambda lib: [leaf(lib, [1.0, 2.5])]),
    "halfcauchy": (lambda lib, s: D(lib).HalfCauchy(s), lambda lib: [leaf(lib, [1.0, 0.5])]),
    "gumbel": (lambda lib, m, s: D(lib).Gumbel(m, s), lambda lib: [leaf(lib, [0.0, 2.0]), leaf(lib, [1.0, 0.5])]),
    "gumbel_scalar": (lambda lib, m, s: D(lib).Gumbel(m, s), lambda lib: [1.0, 2.0]),
    "geometric": (lambda lib, p: D(lib).Geometric(p), lambda lib: [leaf(lib, [0.2, 0.5, 1.0])]),
    "geometric_logits": (lambda lib, p: D(lib).Geometric(logits=p), lambda lib: [leaf(lib, [-1.0, 0.5])]),
    "weibull": (lambda lib, s, c: D(lib).Weibull(s, c), lambda lib: [leaf(lib, [1.0, 2.0]), leaf(lib, [0.7, 3.0])]),
    "pareto": (lambda lib, s, a: D(lib).Pareto(s, a), lambda lib: [leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 1.5])]),
    "logistic_normal": (lambda lib, m, s: D(lib).LogisticNormal(m, s),
                        lambda lib: [leaf(lib, [[0.0, 1.0, -0.5]] * 2), leaf(lib, [0.5, 1.0, 2.0])]),
    "negative_binomial": (lambda lib, n, p: D(lib).NegativeBinomial(n, p),
                          lambda lib: [leaf(lib, [2.0, 5.5, 0.5]), leaf(lib, [0.3, 0.5, 0.8])]),
    "negative_binomial_logits": (lambda lib, p: D(lib).NegativeBinomial(3.0, logits=p),
                                 lambda lib: [leaf(lib, [-1.0, 0.5])]),
    "multinomial": (lambda lib, p: D(lib).Multinomial(6, probs=p), lambda lib: [leaf(lib, [[0.2, 0.3, 0.5]] * 2)]),
    "multinomial_logits": (lambda lib, p: D(lib).Multinomial(4, logits=p), lambda lib: [leaf(lib, [1.0, -1.0, 0.0, 2.0])]),
}


@pytest.mark.parametrize("name", CASES)
def test_distribution_matches_pytorch(name):
    make, params = CASES[name]

    def case(lib):
        out = everything(lib, make, params(lib))
        return out
    same(case)


VALIDATION = {
    "gamma": lambda lib: D(lib).Gamma(lib.tensor([-1.0]), 1.0),
    "chi2": lambda lib: D(lib).Chi2(lib.tensor([0.0])),
    "studentT": lambda lib: D(lib).StudentT(lib.tensor([1.0]), 0.0, lib.tensor([-2.0])),
    "cauchy": lambda lib: D(lib).Cauchy(0.0, lib.tensor([0.0])),
    "lognormal_value": lambda lib: D(lib).LogNormal(0.0, 1.0).log_prob(lib.tensor([-1.0])),
    "halfnormal_value": lambda lib: D(lib).HalfNormal(1.0).log_prob(lib.tensor([-1.0])),
    "geometric_zero": lambda lib: D(lib).Geometric(lib.tensor([0.0, 0.5])),
    "weibull": lambda lib: D(lib).Weibull(lib.tensor([1.0]), lib.tensor([-1.0])),
    "pareto_value": lambda lib: D(lib).Pareto(2.0, 1.0).log_prob(lib.tensor([1.0])),
    "binomial_value": lambda lib: D(lib).Binomial(3, lib.tensor([0.5])).log_prob(lib.tensor([4.0])),
}


@pytest.mark.parametrize("name", VALIDATION)
def test_validation_errors_are_pytorchs(name):
    same(lambda lib: VALIDATION[name](lib))


TRANSFORMS = {
    "exp": lambda T, lib: T.ExpTransform(),
    "affine": lambda T, lib: T.AffineTransform(lib.tensor([1.0, -1.0, 0.5]), lib.tensor([2.0, -0.5, 3.0])),
    "affine_scalar": lambda T, lib: T.AffineTransform(1.0, -2.0),
    "sigmoid": lambda T, lib: T.SigmoidTransform(),
    "tanh": lambda T, lib: T.TanhTransform(),
    "power": lambda T, lib: T.PowerTransform(lib.tensor(2.5)),
    "stick": lambda T, lib: T.StickBreakingTransform(),
    "compose": lambda T, lib: T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.SigmoidTransform()]),
    "inverse": lambda T, lib: T.SigmoidTransform().inv,
}


@pytest.mark.parametrize("name", TRANSFORMS)
def test_transforms_match_pytorch(name):
    def case(lib):
        t = TRANSFORMS[name](lib.distributions.transforms, lib)
        x = leaf(lib, [0.3, 1.2, 0.7])
        y = t(x)
        ladj = t.log_abs_det_jacobian(x, y)
        back = t.inv(y)
        (y.sum() + ladj.sum() + back.sum()).backward()
        return (repr(t), y, ladj, back, x.grad, t.forward_shape((4, 3)), t.inverse_shape((4, 3)),
                repr(t.domain), repr(t.codomain), t.bijective, t == TRANSFORMS[name](lib.distributions.transforms, lib))
    same(case)


CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "real_vector",
               lambda c: c.greater_than(2.0), lambda c: c.less_than(-1.0), lambda c: c.interval(-2.0, 3.0),
               lambda c: c.half_open_interval(0.0, 1.0), lambda c: c.independent(c.positive, 1)]


@pytest.mark.parametrize("which", range(len(CONSTRAINTS)))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_constraint_registry_matches_pytorch(registry, which):
    def case(lib):
        c = lib.distributions.constraints
        constraint = CONSTRAINTS[which](c) if callable(CONSTRAINTS[which]) else getattr(c, CONSTRAINTS[which])
        t = getattr(lib.distributions, registry)(constraint)
        x = leaf(lib, [[0.3, -1.2, 0.7], [2.0, 0.1, -0.4]])
        y = t(x)
        ladj = _try(lambda: t.log_abs_det_jacobian(x, y))
        y.sum().backward()
        return repr(t), y, ladj, x.grad, constraint.check(y).all()
    same(case)


def test_constraint_registry_errors_are_pytorchs():
    same(lambda lib: lib.distributions.biject_to(lib.distributions.constraints.boolean))
    same(lambda lib: lib.distributions.biject_to.register(3, lambda c: c))


def test_transformed_distribution_matches_pytorch():
    def case(lib):
        T = lib.distributions.transforms
        lib.manual_seed(0)
        loc, scale = leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 2.0])
        d = lib.distributions.TransformedDistribution(lib.distributions.Normal(loc, scale),
                                                      [T.AffineTransform(1.0, -3.0), T.TanhTransform()])
        x = d.rsample((3,))
        lp = d.log_prob(lib.tensor([0.3, -0.4]))
        (x.sum() + lp.sum()).backward()
        return (x, lp, d.cdf(lib.tensor([0.3, -0.4])), d.icdf(lib.tensor([0.2, 0.9])), d.batch_shape,
                d.event_shape, repr(d.support), loc.grad, scale.grad, d.expand((4, 2)).sample().shape)
    same(case)


KL_PAIRS = {
    "cauchy": lambda D, lib: (D.Cauchy(leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 2.0])), D.Cauchy(0.5, 1.5)),
    "geometric": lambda D, lib: (D.Geometric(leaf(lib, [0.2, 0.7])), D.Geometric(lib.tensor([0.5, 0.1]))),
    "gumbel": lambda D, lib: (D.Gumbel(leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 2.0])), D.Gumbel(0.5, 1.5)),
    "halfnormal": lambda D, lib: (D.HalfNormal(leaf(lib, [1.0, 2.0])), D.HalfNormal(lib.tensor([0.5, 3.0]))),
    "pareto": lambda D, lib: (D.Pareto(leaf(lib, [1.0, 0.5]), leaf(lib, [2.0, 3.0])), D.Pareto(lib.tensor([0.8, 1.0]), 1.5)),
    "lognormal": lambda D, lib: (D.LogNormal(leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 0.5])), D.LogNormal(0.3, 2.0)),
    "gamma_chi2": lambda D, lib: (D.Gamma(leaf(lib, [1.0, 3.0]), 2.0), D.Chi2(lib.tensor([2.0, 5.0]))),
    "transformed_mismatch": lambda D, lib: (D.LogNormal(0.0, 1.0), D.HalfNormal(1.0)),
}


@pytest.mark.parametrize("name", KL_PAIRS)
def test_kl_pairs_match_pytorch(name):
    def case(lib):
        p, q = KL_PAIRS[name](lib.distributions, lib)
        kl = lib.distributions.kl_divergence(p, q)
        kl.sum().backward()
        return kl
    same(case)


def test_gamma_rsample_under_seed_is_pytorchs_and_never_zero():
    def case(lib):
        lib.manual_seed(0)
        return lib.distributions.Gamma(lib.tensor([1e-3, 1e-4]), 1.0).rsample((50,)).min() > 0
    same(case)


def test_binomial_sample_expands_and_keeps_dtype():
    def case(lib):
        lib.manual_seed(9)
        d = lib.distributions.Binomial(lib.tensor([[10.0], [200.0]]), probs=lib.tensor([0.1, 0.5, 0.95],
                                                                                      dtype=lib.float64))
        return d.sample((2,)), d.sample()
    same(case, rtol=0, atol=0)


def test_exports():
    for name in ("_standard_gamma", "_sample_dirichlet", "binomial"):
        assert callable(getattr(_samplers, name))
    assert np.isfinite(_samplers._digamma(0.5))
