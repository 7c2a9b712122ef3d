"""torch.distributions against PyTorch 2.13: for each distribution its samples after manual_seed
(minitorch draws through the same generator ops, so they are PyTorch's numbers), rsample,
log_prob, cdf / icdf, entropy, mean / mode / variance / stddev, shapes, expand, repr and
support, the gradients of all of these to the parameters, argument and sample validation
(exception type and message), and kl_divergence for the registered pairs.

Each case is a function of the library returning what it wants compared.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _validation_on():
    """Distributions validate their arguments by default. PyTorch's first torch.compile (another test
    file may call it in this process) switches that off process-wide: switch it back on."""
    for lib in (torch, minitorch):
        lib.distributions.Distribution.set_default_validate_args(True)


def _flat(x):
    """What is compared of a result: tensors become (dtype name, shape, values, grad_fn name)."""
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        name = type(x.grad_fn).__name__ if x.grad_fn is not None else None
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.detach().numpy().copy(), name)
    if isinstance(x, (torch.Size, minitorch.Size)):
        return ("size", tuple(x))
    if isinstance(x, (tuple, list)):
        return tuple(_flat(v) for v in x)
    if isinstance(x, dict):
        return {k: _flat(v) for k, v in x.items()}
    if isinstance(x, str):
        return x.replace("minitorch", "torch")
    return x


def run(case, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _flat(case(lib))
        except Exception as e:  # noqa: BLE001 (the exception type and message are what is compared)
            return ("raises", type(e).__name__, str(e).replace("minitorch", "torch"))


def assert_same(a, b, where="result", rtol=1e-5, atol=1e-6):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", f"{where}: PyTorch {a}, minitorch {b}"
        assert a[1:3] == b[1:3], f"{where}: PyTorch {a[1]} {a[2]}, minitorch {b[1]} {b[2]}"
        assert a[4] == b[4], f"{where}: grad_fn PyTorch {a[4]}, minitorch {b[4]}"
        np.testing.assert_allclose(b[3], a[3], rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(a, tuple) and a and a[0] == "raises":
        # the same exception type, and PyTorch's message first (a hint of ours may follow)
        assert isinstance(b, tuple) and b[:2] == a[:2] and b[2].startswith(a[2]), f"{where}: PyTorch {a}, minitorch {b}"
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), f"{where}: PyTorch {a}, minitorch {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]", rtol, atol)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: PyTorch {a}, minitorch {b}"
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}", rtol, atol)
    elif isinstance(a, float):
        assert b == pytest.approx(a, rel=rtol, abs=atol, nan_ok=True), f"{where}: PyTorch {a}, minitorch {b}"
    else:
        assert a == b, f"{where}: PyTorch {a!r}, minitorch {b!r}"


def same(case, **tol):
    assert_same(run(case, torch), run(case, minitorch), **tol)


def leaf(lib, values, dtype="float32"):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)


def _try(f):
    """f(), or the exception it raised (type and message), so that one case can go on."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return ("raises", type(e).__name__, str(e).replace("minitorch", "torch"))


def everything(lib, make, params, value=None, sample_shape=(3,), seed=0, draw=True):
    """The distribution `make(lib, *params)` asked everything it answers, then the gradients of
    its differentiable answers to the parameters."""
    lib.manual_seed(seed)
    d = make(lib, *params)
    out = {"repr": repr(d), "batch": d.batch_shape, "event": d.event_shape, "has_rsample": d.has_rsample,
           "has_enum": d.has_enumerate_support}
    differentiable = []
    if draw:
        out["sample"] = _try(lambda: d.sample(sample_shape))
        out["sample0"] = _try(lambda: d.sample())
    if draw and d.has_rsample:
        r = d.rsample(sample_shape)
        out["rsample"] = r
        differentiable.append(r)
    if value is None:
        value = d.sample(sample_shape)
    value = value(lib) if callable(value) else value
    lp = d.log_prob(value)
    out["log_prob"] = lp
    differentiable.append(lp)
    for name in ("mean", "mode", "variance", "stddev"):
        out[name] = _try(lambda: getattr(d, name))
    ent = _try(d.entropy)
    out["entropy"] = ent
    out["perplexity"] = _try(d.perplexity)
    if isinstance(ent, (torch.Tensor, minitorch.Tensor)):
        differentiable.append(ent)
    for name in ("cdf", "icdf"):
        out[name] = _try(lambda: getattr(d, name)(value if name == "cdf" else lib.full_like(value, 0.3)))
    out["support"] = _try(lambda: repr(d.support))
    out["enumerate"] = _try(lambda: d.enumerate_support())
    out["expanded"] = _try(lambda: expanded(lib, d, value, draw))
    total = sum(t.float().sum() for t in differentiable if t.requires_grad and t.dtype.is_floating_point)
    if isinstance(total, (torch.Tensor, minitorch.Tensor)):
        total.backward()
    out["grads"] = [p.grad for p in params if isinstance(p, (torch.Tensor, minitorch.Tensor))]
    return out


def expanded(lib, d, value, draw):
    """d expanded by a new leading batch dim of 2: its shapes, log_prob, repr, and a sample."""
    e = d.expand((2,) + d.batch_shape)
    lib.manual_seed(5)
    at = value.unsqueeze(value.dim() - len(d.batch_shape) - len(d.event_shape))  # broadcasts over the new dim
    return e.batch_shape, e.event_shape, e.log_prob(at), repr(e), e.sample() if draw else None


D = lambda lib: lib.distributions  # noqa: E731


CASES = {
    "normal": (lambda lib, m, s: D(lib).Normal(m, s),
               lambda lib: [leaf(lib, [0.0, 1.0, -2.0]), leaf(lib, [1.0, 0.5, 2.0])]),
    "normal_scalar": (lambda lib, m, s: D(lib).Normal(m, s), lambda lib: [0.5, 2.0]),
    "normal_0d": (lambda lib, m, s: D(lib).Normal(m, s), lambda lib: [leaf(lib, 0.3), leaf(lib, 1.5)]),
    "normal_broadcast": (lambda lib, m, s: D(lib).Normal(m, s),
                         lambda lib: [leaf(lib, [[0.0], [1.0]]), leaf(lib, [1.0, 0.5, 2.0])]),
    "normal_f64": (lambda lib, m, s: D(lib).Normal(m, s),
                   lambda lib: [leaf(lib, [0.0, 1.0], "float64"), leaf(lib, [1.0, 3.0], "float64")]),
    "bernoulli_probs": (lambda lib, p: D(lib).Bernoulli(probs=p), lambda lib: [leaf(lib, [0.2, 0.5, 0.9])]),
    "bernoulli_logits": (lambda lib, p: D(lib).Bernoulli(logits=p), lambda lib: [leaf(lib, [-1.0, 0.0, 2.0])]),
    "bernoulli_scalar": (lambda lib, p: D(lib).Bernoulli(p), lambda lib: [0.3]),
    "categorical_probs": (lambda lib, p: D(lib).Categorical(probs=p),
                          lambda lib: [leaf(lib, [[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])]),
    "categorical_logits": (lambda lib, p: D(lib).Categorical(logits=p), lambda lib: [leaf(lib, [1.0, -1.0, 0.5, 2.0])]),
    "categorical_zero_prob": (lambda lib, p: D(lib).Categorical(probs=p), lambda lib: [leaf(lib, [0.0, 0.3, 0.7])]),
    "onehot": (lambda lib, p: D(lib).OneHotCategorical(logits=p), lambda lib: [leaf(lib, [[1.0, 0.0, -1.0]] * 2)]),
    "onehot_st": (lambda lib, p: D(lib).OneHotCategoricalStraightThrough(probs=p),
                  lambda lib: [leaf(lib, [0.2, 0.3, 0.5])]),
    "uniform": (lambda lib, lo, hi: D(lib).Uniform(lo, hi),
                lambda lib: [leaf(lib, [0.0, -1.0]), leaf(lib, [1.0, 3.0])]),
    "uniform_scalar": (lambda lib, lo, hi: D(lib).Uniform(lo, hi), lambda lib: [2.0, 5.0]),
    "independent": (lambda lib, m, s: D(lib).Independent(D(lib).Normal(m, s), 1),
                    lambda lib: [leaf(lib, [[0.0, 1.0, 2.0]] * 2), leaf(lib, [0.5, 1.0, 2.0])]),
    "mvn_cov": (lambda lib, m, c: D(lib).MultivariateNormal(m, covariance_matrix=c),
                lambda lib: [leaf(lib, [1.0, -1.0, 0.5]),
                             leaf(lib, [[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])]),
    "mvn_tril": (lambda lib, m, L: D(lib).MultivariateNormal(m, scale_tril=L),
                 lambda lib: [leaf(lib, [[0.0, 1.0], [2.0, 3.0]]), leaf(lib, [[1.5, 0.0], [0.4, 0.7]])]),
    "mvn_precision": (lambda lib, m, P: D(lib).MultivariateNormal(m, precision_matrix=P),
                      lambda lib: [leaf(lib, [0.0, 1.0]), leaf(lib, [[2.0, 0.5], [0.5, 1.0]])]),
    "mvn_batch_cov": (lambda lib, m, c: D(lib).MultivariateNormal(m, c),
                      lambda lib: [leaf(lib, [0.0, 1.0]),
                                   leaf(lib, [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 0.0], [0.0, 3.0]]])]),
    "exponential": (lambda lib, r: D(lib).Exponential(r), lambda lib: [leaf(lib, [0.5, 1.0, 4.0])]),
    "exponential_scalar": (lambda lib, r: D(lib).Exponential(r), lambda lib: [2.0]),
    "laplace": (lambda lib, m, s: D(lib).Laplace(m, s), lambda lib: [leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 0.3])]),
    "laplace_f64": (lambda lib, m, s: D(lib).Laplace(m, s),
                    lambda lib: [leaf(lib, [0.0, 1.0], "float64"), leaf(lib, [1.0, 0.3], "float64")]),
    "poisson": (lambda lib, r: D(lib).Poisson(r), lambda lib: [leaf(lib, [0.5, 3.0, 12.0, 40.0])]),
}


@pytest.mark.parametrize("name", CASES)
def test_distribution_matches_pytorch(name):
    make, params = CASES[name]
    same(lambda lib: everything(lib, make, params(lib)))


@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_seeded_samples_are_pytorchs(seed, shape):
    def case(lib):
        d = lib.distributions
        out = []
        for make in (lambda: d.Normal(lib.zeros(4), lib.ones(4) * 2), lambda: d.Bernoulli(lib.full((4,), 0.3)),
                     lambda: d.Categorical(lib.tensor([[0.1, 0.6, 0.3]] * 4)), lambda: d.Uniform(-1.0, 3.0),
                     lambda: d.Exponential(lib.tensor([0.5, 2.0])), lambda: d.Laplace(0.0, 2.0),
                     lambda: d.Poisson(lib.tensor([1.0, 5.0, 20.0])),
                     lambda: d.MultivariateNormal(lib.zeros(3), lib.eye(3) * 2)):
            lib.manual_seed(seed)
            dist = make()
            out.append(dist.sample(shape))
            if dist.has_rsample:
                out.append(dist.rsample(shape))
        return out
    same(case)


def test_log_prob_broadcasts_over_sample_and_batch_dims():
    def case(lib):
        d = lib.distributions
        x = lib.linspace(-1, 1, 6).reshape(6, 1)
        c = d.Categorical(logits=lib.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
        mvn = d.MultivariateNormal(lib.zeros(2, 3), lib.eye(3))
        return (d.Normal(lib.zeros(3), lib.ones(3)).log_prob(x), c.log_prob(lib.tensor([[0], [2], [1]])),
                mvn.log_prob(lib.ones(5, 1, 3)), d.Bernoulli(logits=lib.zeros(2)).log_prob(lib.tensor([[1.0], [0.0]])))
    same(case)


def MVN(lib, *args, **kwargs):
    return lib.distributions.MultivariateNormal(*args, **kwargs)


VALIDATION = {
    "normal_negative_scale": lambda lib: lib.distributions.Normal(0.0, -1.0),
    "normal_tensor_scale": lambda lib: lib.distributions.Normal(lib.zeros(2), lib.tensor([1.0, 0.0])),
    "normal_nan_loc": lambda lib: lib.distributions.Normal(lib.tensor([math.nan]), lib.ones(1)),
    "bernoulli_probs": lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.5, 1.5])),
    "bernoulli_both": lambda lib: lib.distributions.Bernoulli(probs=0.5, logits=0.0),
    "bernoulli_neither": lambda lib: lib.distributions.Bernoulli(),
    "categorical_negative": lambda lib: lib.distributions.Categorical(probs=lib.tensor([-0.1, 0.5, 0.6])),
    "categorical_0d": lambda lib: lib.distributions.Categorical(probs=lib.tensor(1.0)),
    "categorical_logits_0d": lambda lib: lib.distributions.Categorical(logits=lib.tensor(1.0)),
    "uniform_reversed": lambda lib: lib.distributions.Uniform(lib.tensor([1.0]), lib.tensor([0.0])),
    "exponential_rate": lambda lib: lib.distributions.Exponential(lib.tensor([1.0, -2.0])),
    "poisson_rate": lambda lib: lib.distributions.Poisson(lib.tensor([-1.0])),
    "mvn_not_pd": lambda lib: MVN(lib, lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "mvn_not_symmetric": lambda lib: MVN(lib, lib.zeros(2), lib.tensor([[1.0, 0.5], [0.0, 1.0]])),
    "mvn_tril_upper": lambda lib: MVN(lib, lib.zeros(2), scale_tril=lib.tensor([[1.0, 0.5], [0.0, 1.0]])),
    "mvn_two_matrices": lambda lib: MVN(lib, lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
    "mvn_0d_loc": lambda lib: MVN(lib, lib.tensor(0.0), lib.eye(1)),
    "mvn_1d_cov": lambda lib: MVN(lib, lib.zeros(2), lib.ones(2)),
    "independent_too_many": lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2), 1.0), 2),
    "log_prob_outside_support": lambda lib: lib.distributions.Exponential(1.0).log_prob(lib.tensor([-1.0])),
    "log_prob_bernoulli_value": lambda lib: lib.distributions.Bernoulli(0.5).log_prob(lib.tensor([0.5])),
    "log_prob_categorical_value": lambda lib: lib.distributions.Categorical(lib.ones(3)).log_prob(lib.tensor(3)),
    "log_prob_not_tensor": lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(0.5),
    "log_prob_event_shape": lambda lib: MVN(lib, lib.zeros(3), lib.eye(3)).log_prob(lib.zeros(2)),
    "log_prob_batch_shape": lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(4)),
    "log_prob_uniform_outside": lambda lib: lib.distributions.Uniform(0.0, 1.0).log_prob(lib.tensor([1.5])),
    "validate_off": lambda lib: (lib.distributions.Normal(0.0, -1.0, validate_args=False).scale,
                                 lib.distributions.Uniform(0.0, 1.0, validate_args=False).log_prob(lib.tensor([1.5])),
                                 lib.distributions.Categorical(lib.ones(3), validate_args=False)
                                 .log_prob(lib.tensor(1))),
    "binomial_counts": lambda lib: lib.distributions.Binomial(lib.tensor([2.5]), lib.tensor([0.5])),
    "poisson_entropy": lambda lib: lib.distributions.Poisson(2.0).entropy(),
    "rsample_not_implemented": lambda lib: lib.distributions.Independent(
        lib.distributions.Binomial(3, lib.ones(2) / 2), 1).rsample(),
}


@pytest.mark.parametrize("name", VALIDATION)
def test_validation_errors_match_pytorch(name):
    same(VALIDATION[name])


def test_default_validation_can_be_switched_off():
    def case(lib):
        Dist = lib.distributions.Distribution
        Dist.set_default_validate_args(False)
        try:
            return lib.distributions.Normal(0.0, -1.0).scale, _try(lambda: Dist.set_default_validate_args(3))
        finally:
            Dist.set_default_validate_args(True)
    same(case)


KL_PAIRS = {
    "normal_normal": lambda d, lib: (d.Normal(leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 2.0])),
                                     d.Normal(leaf(lib, [0.5, -1.0]), leaf(lib, [0.7, 1.0]))),
    "normal_std": lambda d, lib: (d.Normal(leaf(lib, [[0.3, -0.2, 1.0]]), leaf(lib, [[0.5, 1.2, 0.9]])),
                                  d.Normal(0.0, 1.0)),
    "bernoulli": lambda d, lib: (d.Bernoulli(leaf(lib, [0.2, 0.0, 1.0, 0.6])),
                                 d.Bernoulli(leaf(lib, [0.5, 0.3, 0.7, 1.0]))),
    "categorical": lambda d, lib: (d.Categorical(leaf(lib, [[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])),
                                   d.Categorical(logits=leaf(lib, [[1.0, 0.0, -1.0], [0.0, 0.0, 0.0]]))),
    "categorical_inf": lambda d, lib: (d.Categorical(lib.tensor([0.5, 0.5])), d.Categorical(lib.tensor([1.0, 0.0]))),
    "onehot": lambda d, lib: (d.OneHotCategorical(leaf(lib, [0.2, 0.8])), d.OneHotCategorical(leaf(lib, [0.6, 0.4]))),
    "uniform": lambda d, lib: (d.Uniform(leaf(lib, [0.0, 0.0]), leaf(lib, [1.0, 2.0])),
                               d.Uniform(leaf(lib, [-1.0, 0.5]), leaf(lib, [2.0, 3.0]))),
    "exponential": lambda d, lib: (d.Exponential(leaf(lib, [1.0, 2.0])), d.Exponential(leaf(lib, [0.5, 3.0]))),
    "laplace": lambda d, lib: (d.Laplace(leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 2.0])),
                               d.Laplace(leaf(lib, [1.0, 1.0]), 0.5)),
    "poisson": lambda d, lib: (d.Poisson(leaf(lib, [1.0, 4.0])), d.Poisson(leaf(lib, [2.0, 4.5]))),
    "binomial": lambda d, lib: (d.Binomial(5, leaf(lib, [0.3, 0.6])),
                                d.Binomial(lib.tensor([5.0, 3.0]), leaf(lib, [0.5, 0.5]))),
    "gamma": lambda d, lib: (d.Gamma(leaf(lib, [1.0, 2.0]), leaf(lib, [1.0, 0.5])),
                             d.Gamma(leaf(lib, [2.0, 2.0]), 1.0)),
    "beta": lambda d, lib: (d.Beta(leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 0.5])), d.Beta(2.0, 2.0)),
    "dirichlet": lambda d, lib: (d.Dirichlet(leaf(lib, [1.0, 2.0, 3.0])), d.Dirichlet(leaf(lib, [2.0, 2.0, 2.0]))),
    "mvn": lambda d, lib: (d.MultivariateNormal(leaf(lib, [0.0, 1.0]), leaf(lib, [[2.0, 0.3], [0.3, 1.0]])),
                           d.MultivariateNormal(leaf(lib, [[1.0, 0.0], [0.0, 0.0]]),
                                                scale_tril=leaf(lib, [[1.0, 0.0], [0.5, 2.0]]))),
    "independent": lambda d, lib: (d.Independent(d.Normal(leaf(lib, [[0.0, 1.0]]), 1.0), 1),
                                   d.Independent(d.Normal(lib.zeros(1, 2), leaf(lib, [2.0, 0.5])), 1)),
    "normal_laplace": lambda d, lib: (d.Normal(leaf(lib, [0.0, 1.0]), 1.0), d.Laplace(0.5, leaf(lib, [1.0, 2.0]))),
    "laplace_normal": lambda d, lib: (d.Laplace(leaf(lib, [0.0, 1.0]), 1.0), d.Normal(0.5, leaf(lib, [1.0, 2.0]))),
    "uniform_normal": lambda d, lib: (d.Uniform(leaf(lib, [0.0]), 2.0), d.Normal(leaf(lib, [1.0]), 1.0)),
    "exponential_normal": lambda d, lib: (d.Exponential(leaf(lib, [2.0])), d.Normal(0.0, leaf(lib, [1.5]))),
    "exponential_gamma": lambda d, lib: (d.Exponential(leaf(lib, [2.0])), d.Gamma(leaf(lib, [1.5]), 1.0)),
    "uniform_exponential": lambda d, lib: (d.Uniform(leaf(lib, [0.5, -1.0]), 2.0),
                                           d.Exponential(leaf(lib, [1.0, 1.0]))),
    "bernoulli_poisson": lambda d, lib: (d.Bernoulli(leaf(lib, [0.3])), d.Poisson(leaf(lib, [1.0]))),
    "normal_uniform": lambda d, lib: (d.Normal(leaf(lib, [0.0]), 1.0), d.Uniform(0.0, 1.0)),
    "poisson_bernoulli": lambda d, lib: (d.Poisson(leaf(lib, [1.0])), d.Bernoulli(0.5)),
    "not_registered": lambda d, lib: (d.Categorical(lib.ones(2)), d.Normal(0.0, 1.0)),
    "independent_ndims": lambda d, lib: (d.Independent(d.Normal(lib.zeros(2, 2), 1.0), 1),
                                         d.Independent(d.Normal(lib.zeros(2, 2), 1.0), 2)),
}


@pytest.mark.parametrize("name", KL_PAIRS)
def test_kl_divergence_matches_pytorch(name):
    def case(lib):
        p, q = KL_PAIRS[name](lib.distributions, lib)
        kl = lib.distributions.kl_divergence(p, q)
        leaves = [t for d in (p, q) for t in list(vars(d).values()) + list(vars(getattr(d, "base_dist", d)).values())
                  + list(vars(getattr(d, "_categorical", getattr(d, "_dirichlet", d))).values())
                  if isinstance(t, (torch.Tensor, minitorch.Tensor)) and t.is_leaf and t.requires_grad]
        if kl.requires_grad and bool(kl.isfinite().all()):
            kl.sum().backward()
        return kl, [t.grad for t in leaves]
    same(case)


def test_register_kl_for_a_subclass_and_its_lookup():
    def case(lib):
        d = lib.distributions

        class MyNormal(d.Normal):
            pass

        @d.register_kl(MyNormal, d.Normal)
        def _kl(p, q):
            return lib.zeros(p.batch_shape) + 42.0

        p = MyNormal(lib.zeros(2), lib.ones(2))
        return (d.kl_divergence(p, d.Normal(0.0, 1.0)), d.kl_divergence(d.Normal(0.0, 1.0), p),
                d.kl.kl_divergence(p, p))
    same(case)


def test_exponential_family_kl_by_bregman_divergence():
    """A subclass whose pair is not registered falls back to the Bregman divergence of its log
    normaliser, computed by autograd."""
    def case(lib):
        d = lib.distributions

        class MyExponential(d.Exponential):
            pass

        class MyNormal(d.Normal):
            pass

        rate = leaf(lib, [1.0, 2.0])
        kl = d.kl.kl_divergence(MyExponential(rate), MyExponential(lib.tensor([3.0, 0.5])))
        kl.sum().backward()
        kl2 = d.kl.kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 2.0))
        return kl, rate.grad, kl2, d.Normal(leaf(lib, [0.0]), 2.0).__class__.__mro__[1].entropy(d.Normal(0.0, 2.0))
    same(case)


def test_gradients_through_rsample_reach_the_parameters():
    """The reparameterisation trick: loss of rsample, backward, grads on loc / scale / L / bounds."""
    def case(lib):
        d = lib.distributions
        lib.manual_seed(3)
        loc, scale = leaf(lib, [0.5, -0.5]), leaf(lib, [1.0, 2.0])
        L = leaf(lib, [[1.0, 0.0], [0.3, 0.8]])
        low, high, rate = leaf(lib, [0.0]), leaf(lib, [2.0]), leaf(lib, [1.5])
        loss = (d.Normal(loc, scale).rsample((4,)) ** 2).sum()
        loss = loss + d.MultivariateNormal(loc, scale_tril=L).rsample((3,)).pow(2).sum()
        loss = loss + d.Uniform(low, high).rsample((5,)).sum() + d.Exponential(rate).rsample((2,)).sum()
        loss = loss + d.Laplace(loc, scale).rsample().sum()
        loss.backward()
        return loss, loc.grad, scale.grad, L.grad, low.grad, high.grad, rate.grad
    same(case)


def test_lazy_probs_and_logits():
    def case(lib):
        d = lib.distributions
        b = d.Bernoulli(logits=lib.tensor([0.0, 2.0]))
        before = sorted(k for k in ("probs", "logits") if k in vars(b))
        c = d.Categorical(probs=lib.tensor([2.0, 6.0]))  # normalised
        return (before, b.probs, sorted(k for k in ("probs", "logits") if k in vars(b)), c.probs, c.logits,
                d.Categorical(logits=lib.tensor([0.0, 0.0])).logits, c.param_shape, b.param_shape)
    same(case)


def test_constraints():
    def case(lib):
        c = lib.distributions.constraints
        x = lib.tensor([[-1.0, 0.0, 0.5], [1.0, 2.0, math.nan]])
        m = lib.tensor([[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.2], [0.2, -1.0]]])
        checks = [c.real, c.positive, c.nonnegative, c.unit_interval, c.boolean, c.nonnegative_integer,
                  c.positive_integer, c.interval(0.0, 1.0), c.half_open_interval(0.0, 1.0), c.greater_than(0.5),
                  c.greater_than_eq(0.5), c.less_than(0.5), c.integer_interval(0, 1), c.real_vector, c.simplex,
                  c.independent(c.positive, 1), c.one_hot]
        out = [(repr(k), k.check(x), k.event_dim, k.is_discrete) for k in checks]
        for k in (c.lower_triangular, c.lower_cholesky, c.square, c.symmetric, c.positive_definite,
                  c.positive_semidefinite):
            out.append((repr(k), k.check(m), k.event_dim))
        out.append(c.simplex.check(lib.tensor([[0.2, 0.8], [0.5, 0.6]])))
        out.append(c.one_hot.check(lib.tensor([[0.0, 1.0], [1.0, 1.0]])))
        out.append(c.cat([c.positive, c.real], lengths=[1, 2]).check(lib.tensor([-1.0, 1.0, 2.0])))
        out.append(c.stack([c.positive, c.real], dim=0).check(lib.tensor([[-1.0, 1.0], [2.0, 3.0]])))
        out.append((c.is_dependent(c.dependent), c.is_dependent(c.real),
                    c.is_dependent(lib.distributions.Uniform.support),
                    repr(lib.distributions.Uniform(0.0, 2.0).support)))
        out.append(_try(lambda: c.dependent.check(x)))
        return out
    same(case)


def test_sample_shapes_and_extended_shape():
    def case(lib):
        d = lib.distributions
        out = []
        for dist in (d.Normal(lib.zeros(2, 3), 1.0), d.Categorical(lib.ones(4, 5)), d.OneHotCategorical(lib.ones(2, 3)),
                     d.MultivariateNormal(lib.zeros(4, 3), lib.eye(3)),
                     d.Independent(d.Normal(lib.zeros(2, 3), 1.0), 2)):
            lib.manual_seed(0)
            out.append((dist.sample().shape, dist.sample((5,)).shape, dist.sample(lib.Size([2, 1])).shape,
                        dist._extended_shape((7,)), dist.batch_shape, dist.event_shape, repr(dist)))
        return out
    same(case)


def test_reprs():
    def case(lib):
        d = lib.distributions
        return [repr(x) for x in (
            d.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0])), d.Normal(0.0, 1.0),
            d.Normal(lib.tensor([0.5]), 1.0), d.Bernoulli(probs=0.3), d.Bernoulli(logits=lib.zeros(3)),
            d.Categorical(logits=lib.zeros(4)), d.Uniform(0.0, 2.5), d.Exponential(lib.tensor([0.5, 1.0])),
            d.Laplace(0.0, 1.0), d.Poisson(lib.tensor([3.0])), d.Independent(d.Normal(lib.zeros(2, 3), 1.0), 1),
            d.MultivariateNormal(lib.zeros(2), scale_tril=lib.eye(2)), d.OneHotCategorical(lib.ones(3)),
            d.Binomial(10, lib.tensor([0.5, 0.2])), d.Gamma(2.0, 1.0), d.Beta(2.0, 3.0),
            d.Dirichlet(lib.ones(3)))]
    same(case)


CALL_FORMS = {
    "int_params": lambda lib: (lib.manual_seed(0), lib.distributions.Normal(0, 1).sample((2,)))[1],
    "int_sample_shape": lambda lib: (lib.manual_seed(0), lib.distributions.Normal(0.0, 1.0).sample(5))[1],
    "sample_n": lambda lib: (lib.manual_seed(0), lib.distributions.Normal(0.0, 1.0).sample_n(3))[1],
    "categorical_float_value": lambda lib: lib.distributions.Categorical(logits=lib.zeros(3)).log_prob(
        lib.tensor([1.0, 2.0])),
    "float64_value": lambda lib: lib.distributions.Normal(lib.zeros(2), 1.0).log_prob(lib.ones(2, dtype=lib.float64)),
    "int_value": lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(lib.tensor([1, 2])),
    "bernoulli_int_value": lambda lib: lib.distributions.Bernoulli(logits=lib.zeros(2)).log_prob(lib.tensor([0, 1])),
    "kl_broadcast": lambda lib: lib.distributions.kl_divergence(lib.distributions.Normal(lib.zeros(2, 1), 1.0),
                                                                lib.distributions.Normal(lib.zeros(3), 2.0)),
    "sample_of_a_leaf": lambda lib: (lib.manual_seed(0), lib.distributions.Categorical(
        lib.tensor([0.2, 0.8], requires_grad=True)).sample((3,)))[1],
    "sample_has_no_graph": lambda lib: lib.distributions.Normal(lib.zeros(2, requires_grad=True), 1.0).sample()
    .requires_grad,
    "lazy_logits_keep_the_graph": lambda lib: lib.distributions.Bernoulli(
        lib.tensor([0.3], requires_grad=True)).logits.grad_fn is not None,
    "mvn_expand_sample": lambda lib: (lib.manual_seed(0), MVN(lib, lib.zeros(2), lib.eye(2)).expand((3,)).sample())[1],
    "mvn_matrices": lambda lib: (lambda m: (m.covariance_matrix, m.precision_matrix, m.scale_tril, m.variance))(
        MVN(lib, lib.zeros(2), scale_tril=lib.tensor([[1.0, 0.0], [0.5, 2.0]]))),
    "str": lambda lib: str(lib.distributions.Normal(lib.tensor([0.5]), lib.tensor([1.0]))),
    "cdf_outside": lambda lib: lib.distributions.Uniform(0.0, 1.0, validate_args=False).cdf(lib.tensor([-1.0, 2.0])),
}


@pytest.mark.parametrize("name", CALL_FORMS)
def test_call_forms_of_beginner_code(name):
    same(CALL_FORMS[name])


PORTED_SAMPLER = {
    "binomial": (lambda lib, n, p: lib.distributions.Binomial(n, p),
                 lambda lib: [lib.tensor([5.0, 5.0, 5.0]), leaf(lib, [0.2, 0.5, 0.9])],
                 lambda lib: lib.tensor([0.0, 3.0, 5.0])),
    "binomial_logits": (lambda lib, n, p: lib.distributions.Binomial(n, logits=p),
                        lambda lib: [4, leaf(lib, [-1.0, 2.0])], lambda lib: lib.tensor([[1.0, 4.0], [0.0, 2.0]])),
    "gamma": (lambda lib, a, b: lib.distributions.Gamma(a, b),
              lambda lib: [leaf(lib, [0.5, 2.0, 5.0]), leaf(lib, [1.0, 0.5, 3.0])],
              lambda lib: lib.tensor([0.3, 2.0, 1.5])),
    "beta": (lambda lib, a, b: lib.distributions.Beta(a, b),
             lambda lib: [leaf(lib, [0.5, 2.0]), leaf(lib, [3.0, 2.0])], lambda lib: lib.tensor([0.3, 0.9])),
    "dirichlet": (lambda lib, a: lib.distributions.Dirichlet(a),
                  lambda lib: [leaf(lib, [[0.5, 2.0, 1.2], [0.3, 0.4, 0.9]])], lambda lib: lib.tensor([0.2, 0.3, 0.5])),
}


@pytest.mark.parametrize("name", PORTED_SAMPLER)
def test_distributions_with_a_ported_sampler(name):
    """log_prob, entropy, mean, mode, variance and their gradients as PyTorch's, and the samples of
    PyTorch's gamma / Dirichlet / binomial samplers after manual_seed (distributions/_samplers.py)."""
    make, params, value = PORTED_SAMPLER[name]

    def case(lib):
        out = everything(lib, make, params(lib), value=value)
        return out
    same(case)


def test_dirichlet_log_prob_gradient_at_concentration_one():
    def case(lib):
        a = leaf(lib, [1.0, 2.0, 0.5])
        lib.distributions.Dirichlet(a).log_prob(lib.tensor([0.2, 0.3, 0.5])).backward()
        return a.grad
    same(case)


def test_import_paths_of_pytorch():
    from minitorch.distributions import constraints, kl
    from minitorch.distributions.categorical import Categorical
    from minitorch.distributions.exp_family import ExponentialFamily
    from minitorch.distributions.kl import kl_divergence
    from minitorch.distributions.normal import Normal
    from minitorch.distributions.utils import probs_to_logits
    assert issubclass(Normal, ExponentialFamily) and Categorical.has_enumerate_support
    assert kl_divergence is kl.kl_divergence and constraints.real.check(probs_to_logits(minitorch.ones(1) / 2)).all()
    names = [n for n in torch.distributions.__all__ if hasattr(minitorch.distributions, n)]
    assert {"Normal", "Bernoulli", "Categorical", "OneHotCategorical", "Uniform", "Independent", "MultivariateNormal",
            "Exponential", "Laplace", "Poisson", "Binomial", "Beta", "Gamma", "Dirichlet", "kl_divergence",
            "register_kl", "Distribution", "ExponentialFamily"} <= set(names)
