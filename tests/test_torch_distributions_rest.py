"""The rest of torch.distributions against PyTorch 2.13: the relaxed (Concrete) distributions,
ContinuousBernoulli, VonMises (its rejection sampler draw for draw), MixtureSameFamily,
LowRankMultivariateNormal, Kumaraswamy, InverseGamma, GeneralizedPareto, FisherSnedecor,
LKJCholesky and Wishart (Bartlett draws, PyTorch's retry included); the matrix, cat / stack,
softplus, reshape and cdf transforms with the biject_to / transform_to entries that use them;
and every KL pair PyTorch registers.

Skipped when PyTorch is not installed.
"""
from __future__ import annotations

import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

from test_torch_distributions import _try, everything, leaf, same  # noqa: E402 (after the skip)

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _validation_on():
    """Distributions validate their arguments by default. PyTorch's first torch.compile (another test
    file may call it in this process) switches that off process-wide: switch it back on."""
    for lib in (torch, minitorch):
        lib.distributions.Distribution.set_default_validate_args(True)


D = lambda lib: lib.distributions  # noqa: E731
f64 = "float64"

CASES = {
    "relaxed_bernoulli": (lambda lib, t, p: D(lib).RelaxedBernoulli(t, probs=p),
                          lambda lib: [leaf(lib, [0.5]), leaf(lib, [0.1, 0.5, 0.9])]),
    "relaxed_bernoulli_logits": (lambda lib, p: D(lib).RelaxedBernoulli(lib.tensor(2.0), logits=p),
                                 lambda lib: [leaf(lib, [-1.0, 2.0])]),
    "logit_relaxed_bernoulli": (lambda lib, p: D(lib).relaxed_bernoulli.LogitRelaxedBernoulli(lib.tensor(0.7), p),
                                lambda lib: [leaf(lib, [0.2, 0.6])]),
    "relaxed_onehot": (lambda lib, t, p: D(lib).RelaxedOneHotCategorical(t, probs=p),
                       lambda lib: [leaf(lib, 0.8), leaf(lib, [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])]),
    "relaxed_onehot_logits": (lambda lib, p: D(lib).RelaxedOneHotCategorical(lib.tensor(1.5), logits=p),
                              lambda lib: [leaf(lib, [1.0, -1.0, 0.0, 0.5])]),
    "exp_relaxed_categorical": (lambda lib, p: D(lib).relaxed_categorical.ExpRelaxedCategorical(lib.tensor(0.5), p),
                                lambda lib: [leaf(lib, [0.2, 0.3, 0.5])]),
    "continuous_bernoulli": (lambda lib, p: D(lib).ContinuousBernoulli(p),
                             lambda lib: [leaf(lib, [0.1, 0.4995, 0.7, 0.95])]),
    "continuous_bernoulli_logits": (lambda lib, p: D(lib).ContinuousBernoulli(logits=p),
                                    lambda lib: [leaf(lib, [-2.0, 0.0, 1.5], f64)]),
    "von_mises": (lambda lib, m, k: D(lib).VonMises(m, k),
                  lambda lib: [leaf(lib, [0.0, 1.0, -2.5, 3.0]), leaf(lib, [0.5, 2.0, 8.0, 1e-6])]),
    "von_mises_f64": (lambda lib, m, k: D(lib).VonMises(m, k), lambda lib: [leaf(lib, [0.5], f64), leaf(lib, [4.0], f64)]),
    "mixture": (lambda lib, w, m, s: D(lib).MixtureSameFamily(D(lib).Categorical(probs=w), D(lib).Normal(m, s)),
                lambda lib: [leaf(lib, [0.2, 0.5, 0.3]), leaf(lib, [-1.0, 0.0, 2.0]), leaf(lib, [0.5, 1.0, 0.3])]),
    "mixture_batched_mvn": (lambda lib, w, m: D(lib).MixtureSameFamily(
        D(lib).Categorical(logits=w), D(lib).Independent(D(lib).Normal(m, lib.ones(2, 3, 2)), 1)),
        lambda lib: [leaf(lib, [[0.0, 1.0, -1.0], [0.5, 0.5, 0.0]]), leaf(lib, [[[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]] * 2)]),
    "lowrank_mvn": (lambda lib, m, W, d: D(lib).LowRankMultivariateNormal(m, W, d),
                    lambda lib: [leaf(lib, [0.0, 1.0, -1.0]), leaf(lib, [[1.0, 0.5], [0.0, 0.3], [-0.4, 1.0]]),
                                 leaf(lib, [0.5, 1.0, 2.0])]),
    "lowrank_mvn_batch": (lambda lib, m, W, d: D(lib).LowRankMultivariateNormal(m, W, d),
                          lambda lib: [leaf(lib, [[0.0, 1.0], [2.0, -1.0]]), leaf(lib, [[1.0], [0.5]]),
                                       leaf(lib, [0.5, 1.0])]),
    "kumaraswamy": (lambda lib, a, b: D(lib).Kumaraswamy(a, b),
                    lambda lib: [leaf(lib, [0.5, 2.0, 5.0]), leaf(lib, [3.0, 0.7, 2.0])]),
    "kumaraswamy_scalar": (lambda lib, a, b: D(lib).Kumaraswamy(a, b), lambda lib: [2.0, 3.0]),
    "inverse_gamma": (lambda lib, a, b: D(lib).InverseGamma(a, b),
                      lambda lib: [leaf(lib, [0.5, 1.5, 3.0]), leaf(lib, [1.0, 2.0, 0.5])]),
    "generalized_pareto": (lambda lib, m, s, k: D(lib).GeneralizedPareto(m, s, k),
                           lambda lib: [leaf(lib, [0.0, 1.0, -1.0]), leaf(lib, [1.0, 2.0, 0.5]), leaf(lib, [0.3, 0.0, -0.2])]),
    "fisher_snedecor": (lambda lib, a, b: D(lib).FisherSnedecor(a, b),
                        lambda lib: [leaf(lib, [1.0, 3.0, 6.0]), leaf(lib, [2.0, 5.0, 9.0])]),
    "lkj_cholesky": (lambda lib, c: D(lib).LKJCholesky(3, c), lambda lib: [leaf(lib, [0.5, 2.0])]),
    "lkj_cholesky_scalar": (lambda lib: D(lib).LKJCholesky(4, 1.5), lambda lib: []),
    # (Wishart's draws are compared below: backward through its rsample raises in PyTorch 2.13)
    "wishart_cov": (lambda lib, df, c: D(lib).Wishart(df, covariance_matrix=c),
                    lambda lib: [leaf(lib, [4.0, 6.5], f64), leaf(lib, [[2.0, 0.3], [0.3, 1.0]], f64)], False),
    "wishart_tril": (lambda lib, L: D(lib).Wishart(5.0, scale_tril=L),
                     lambda lib: [leaf(lib, [[1.5, 0.0, 0.0], [0.4, 0.7, 0.0], [-0.2, 0.1, 1.1]], f64)], False),
    "wishart_precision": (lambda lib, P: D(lib).Wishart(lib.tensor(3.5, dtype=lib.float64), precision_matrix=P),
                          lambda lib: [leaf(lib, [[2.0, 0.5], [0.5, 1.0]], f64)], False),
}

@pytest.mark.parametrize("name", CASES)
def test_distribution_matches_pytorch(name):
    make, params, draw = (CASES[name] + (True,))[:3]

    def case(lib):
        value = (lambda lib: make(lib, *params(lib)).mean.detach()) if not draw else None
        out = everything(lib, make, params(lib), value=value, draw=draw)
        return out
    same(case, rtol=2e-5, atol=1e-5)


def test_von_mises_rejection_sampler_is_pytorchs_draw_for_draw():
    """Many rounds of the Best-Fisher loop (small and large concentrations, float32 through the
    float64 sampler), then the stream after it."""
    def case(lib):
        lib.manual_seed(3)
        d = D(lib).VonMises(lib.tensor([0.0, 2.0, -1.0]), lib.tensor([1e-4, 0.3, 50.0]))
        return d.sample((40,)), lib.rand(2)
    same(case, rtol=0, atol=0)


def test_mixture_and_relaxed_samples_are_pytorchs():
    def case(lib):
        lib.manual_seed(11)
        mix = D(lib).MixtureSameFamily(D(lib).Categorical(lib.tensor([0.3, 0.7])),
                                       D(lib).MultivariateNormal(lib.zeros(2, 2), lib.eye(2).expand(2, 2, 2)))
        return (mix.sample((4,)), D(lib).RelaxedOneHotCategorical(lib.tensor(0.3), lib.ones(4)).rsample((2,)),
                D(lib).RelaxedBernoulli(lib.tensor(0.1), logits=lib.zeros(3)).sample((2,)))
    same(case, rtol=1e-6, atol=1e-7)


def test_wishart_draws_are_pytorchs():
    """Bartlett draws (Chi2 diagonal, normals below it) and PyTorch's retry of them, batched and not;
    then the stream after them."""
    def case(lib):
        lib.manual_seed(2)
        L = lib.tensor([[1.0, 0.0], [0.5, 2.0]], dtype=lib.float64)
        batched = D(lib).Wishart(lib.tensor([3.0, 7.0], dtype=lib.float64), scale_tril=L)
        single = D(lib).Wishart(2.5, covariance_matrix=L @ L.mT)
        return batched.rsample((3,)), batched.sample(), single.sample((2,)), single.expand((2,)).sample(), lib.rand(1)
    same(case, rtol=1e-10, atol=1e-10)


def test_wishart_rsample_gradients_are_pytorchs():
    def case(lib):
        lib.manual_seed(6)
        L, df = leaf(lib, [[1.0, 0.0], [0.5, 2.0]], f64), leaf(lib, [3.0, 4.0], f64)
        x = D(lib).Wishart(df, scale_tril=L).rsample()
        (x * lib.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=lib.float64)).sum().backward()
        return x, L.grad, df.grad
    same(case, rtol=1e-9, atol=1e-9)


def test_wishart_rsample_backward_over_a_sample_shape_raises_as_in_pytorch():
    # PyTorch's retry (which warns, its mask starting True where draws are valid) rewrites the
    # mask it indexed with in place, so backward refuses
    def case(lib):
        L = leaf(lib, [[1.0, 0.0], [0.5, 2.0]], f64)
        D(lib).Wishart(3.0, scale_tril=L).rsample((3,)).sum().backward()
    for lib in (torch, minitorch):
        with pytest.raises(RuntimeError), pytest.warns(UserWarning, match="Singular sample detected."):
            case(lib)


VALIDATION = {
    "relaxed_bernoulli_both": lambda lib: D(lib).RelaxedBernoulli(lib.tensor(1.0), probs=0.5, logits=0.0),
    "relaxed_bernoulli_probs": lambda lib: D(lib).RelaxedBernoulli(lib.tensor(1.0), probs=lib.tensor([1.5])),
    "relaxed_onehot_value": lambda lib: D(lib).RelaxedOneHotCategorical(lib.tensor(1.0), lib.ones(3)).log_prob(
        lib.tensor([0.5, 0.6, 0.1])),
    "continuous_bernoulli_probs": lambda lib: D(lib).ContinuousBernoulli(lib.tensor([1.5]), validate_args=True),
    "continuous_bernoulli_value": lambda lib: D(lib).ContinuousBernoulli(0.3).log_prob(lib.tensor([1.5])),
    "von_mises": lambda lib: D(lib).VonMises(0.0, lib.tensor([-1.0])),
    "mixture_not_categorical": lambda lib: D(lib).MixtureSameFamily(D(lib).Normal(0.0, 1.0), D(lib).Normal(0.0, 1.0)),
    "mixture_components": lambda lib: D(lib).MixtureSameFamily(D(lib).Categorical(lib.ones(3)),
                                                               D(lib).Normal(lib.zeros(2), 1.0)),
    "mixture_batch": lambda lib: D(lib).MixtureSameFamily(D(lib).Categorical(lib.ones(3, 2)),
                                                          D(lib).Normal(lib.zeros(4, 2), 1.0)),
    "mixture_value": lambda lib: D(lib).MixtureSameFamily(D(lib).Categorical(lib.ones(2)),
                                                          D(lib).Exponential(lib.ones(2))).log_prob(lib.tensor([-1.0])),
    "lowrank_shape": lambda lib: D(lib).LowRankMultivariateNormal(lib.zeros(3), lib.ones(2, 1), lib.ones(3)),
    "lowrank_diag": lambda lib: D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.tensor([1.0, -1.0])),
    "lowrank_batch": lambda lib: D(lib).LowRankMultivariateNormal(lib.zeros(3, 2), lib.ones(4, 2, 1), lib.ones(2)),
    "kumaraswamy": lambda lib: D(lib).Kumaraswamy(lib.tensor([0.0]), 1.0),
    "inverse_gamma_value": lambda lib: D(lib).InverseGamma(2.0, 1.0).log_prob(lib.tensor([-1.0])),
    "generalized_pareto_value": lambda lib: D(lib).GeneralizedPareto(0.0, 1.0, -0.5).log_prob(lib.tensor([3.0])),
    "generalized_pareto_f64": lambda lib: D(lib).GeneralizedPareto(lib.zeros(2, dtype=lib.float64), 1.0, 0.5).log_prob(
        lib.ones(2, dtype=lib.float64)),
    "fisher_snedecor": lambda lib: D(lib).FisherSnedecor(lib.tensor([1.0]), -1.0),
    "lkj_dim": lambda lib: D(lib).LKJCholesky(1),
    "lkj_value": lambda lib: D(lib).LKJCholesky(2).log_prob(lib.tensor([[1.0, 0.0], [0.6, 0.6]])),
    "wishart_df": lambda lib: D(lib).Wishart(0.5, covariance_matrix=lib.eye(2)),
    "wishart_two": lambda lib: D(lib).Wishart(3.0, covariance_matrix=lib.eye(2), scale_tril=lib.eye(2)),
    "wishart_not_pd": lambda lib: D(lib).Wishart(3.0, covariance_matrix=lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
}


@pytest.mark.parametrize("name", VALIDATION)
def test_validation_errors_are_pytorchs(name):
    same(lambda lib: VALIDATION[name](lib))


def _normal01(lib):
    return D(lib).Normal(0.0, 1.0)


# (transform, input)
TRANSFORMS = {
    "softplus": (lambda T, lib: T.SoftplusTransform(), lambda lib: leaf(lib, [-3.0, 0.2, 25.0])),
    "reshape": (lambda T, lib: T.ReshapeTransform((2, 3), (3, 2)), lambda lib: leaf(lib, [[[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]]] * 2)),
    "lower_cholesky": (lambda T, lib: T.LowerCholeskyTransform(), lambda lib: leaf(lib, [[0.5, 2.0], [-1.0, 0.3]])),
    "positive_definite": (lambda T, lib: T.PositiveDefiniteTransform(),
                          lambda lib: leaf(lib, [[[0.5, 2.0], [-1.0, 0.3]], [[0.0, 0.0], [1.0, -1.0]]])),
    "corr_cholesky": (lambda T, lib: T.CorrCholeskyTransform(),
                      lambda lib: leaf(lib, [[0.3, -1.2, 0.7, 2.0, 0.1, -0.4], [0.0, 0.5, -0.5, 1.0, -1.0, 3.0]])),
    "cat": (lambda T, lib: T.CatTransform([T.ExpTransform(), T.identity_transform, T.SigmoidTransform()], dim=-1,
                                          lengths=[2, 1, 2]),
            lambda lib: leaf(lib, [[0.3, -1.2, 0.7, 2.0, 0.1]] * 2)),
    "cat_dim0": (lambda T, lib: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=0, lengths=[1, 2]),
                 lambda lib: leaf(lib, [[0.3, -1.2], [0.7, 2.0], [0.1, 0.5]])),
    "stack": (lambda T, lib: T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=1),
              lambda lib: leaf(lib, [[0.3, -1.2], [0.7, 2.0], [0.1, 0.5]])),
    "cdf": (lambda T, lib: T.CumulativeDistributionTransform(_normal01(lib)), lambda lib: leaf(lib, [-1.0, 0.0, 2.0])),
}


@pytest.mark.parametrize("name", TRANSFORMS)
def test_transforms_match_pytorch(name):
    def case(lib):
        make, value = TRANSFORMS[name]
        t, x = make(lib.distributions.transforms, lib), value(lib)
        y = t(x)
        ladj = t.log_abs_det_jacobian(x, y)
        back = t.inv(y)
        (y.sum() + ladj.sum() + back.sum()).backward()
        cached = t.with_cache(1)
        y1 = cached(x)
        return (repr(t), y, ladj, back, x.grad, t.forward_shape(x.shape), t.inverse_shape(y.shape),
                repr(t.domain), repr(t.codomain), t.bijective, t.event_dim, t.codomain.check(y),
                cached.inv(y1) is x, _try(lambda: t.sign))
    same(case)


def test_transform_shape_errors_are_pytorchs():
    def case(lib):
        T = lib.distributions.transforms
        return [_try(lambda: T.ReshapeTransform((2, 3), (4,))), _try(lambda: T.ReshapeTransform((2,), (2,)).forward_shape((3,))),
                _try(lambda: T.CorrCholeskyTransform().forward_shape((4,))),
                _try(lambda: T.CorrCholeskyTransform().inverse_shape((2, 3))),
                _try(lambda: T.CatTransform([T.ExpTransform()], lengths=[1, 2])),
                _try(lambda: T.CatTransform([T.ExpTransform()], dim=0, lengths=[2])(lib.zeros(3))),
                _try(lambda: T.StackTransform([T.ExpTransform()], dim=0)(lib.zeros(3)))]
    same(case)


CONSTRAINTS = [lambda c: c.lower_cholesky, lambda c: c.positive_definite, lambda c: c.positive_semidefinite,
               lambda c: c.corr_cholesky, lambda c: c.cat([c.positive, c.real], dim=-1, lengths=[3, 3]),
               lambda c: c.stack([c.positive, c.unit_interval, c.real], dim=-2),
               lambda c: c.independent(c.lower_cholesky, 0)]


@pytest.mark.parametrize("which", range(len(CONSTRAINTS)))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_constraint_registry_matches_pytorch(registry, which):
    def case(lib):
        constraint = CONSTRAINTS[which](lib.distributions.constraints)
        t = _try(lambda: getattr(lib.distributions, registry)(constraint))
        if isinstance(t, tuple):
            return t
        x = leaf(lib, [[0.3, -1.2, 0.7, 0.2, 1.0, 0.5], [2.0, 0.1, -0.4, 0.0, -2.0, 1.5], [0.2] * 6])
        if constraint.event_dim == 2 and repr(t) != "CorrCholeskyTransform()":
            x = x[:, :3]  # a square matrix
        y = t(x)
        ladj = _try(lambda: t.log_abs_det_jacobian(x, y))
        y.sum().backward()
        return repr(t), y, ladj, x.grad, constraint.check(y)
    same(case)


KL_P = {  # the p of each pair (parameters that require grad)
    "Bernoulli": lambda D, lib: D.Bernoulli(leaf(lib, [0.3, 0.8])),
    "Beta": lambda D, lib: D.Beta(leaf(lib, [0.5, 2.0]), leaf(lib, [1.5, 3.0])),
    "ContinuousBernoulli": lambda D, lib: D.ContinuousBernoulli(leaf(lib, [0.2, 0.9])),
    "Exponential": lambda D, lib: D.Exponential(leaf(lib, [0.5, 2.0])),
    "Gamma": lambda D, lib: D.Gamma(leaf(lib, [0.7, 3.0]), leaf(lib, [1.0, 2.0])),
    "Gumbel": lambda D, lib: D.Gumbel(leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 0.5])),
    "Laplace": lambda D, lib: D.Laplace(leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 0.5])),
    "Normal": lambda D, lib: D.Normal(leaf(lib, [0.0, 1.0]), leaf(lib, [1.0, 0.5])),
    "Pareto": lambda D, lib: D.Pareto(leaf(lib, [1.0, 0.5]), leaf(lib, [3.0, 1.5])),
    "Uniform": lambda D, lib: D.Uniform(leaf(lib, [0.1, 0.5]), leaf(lib, [0.6, 0.9])),
    "Poisson": lambda D, lib: D.Poisson(leaf(lib, [0.5, 2.0])),
}
KL_Q = {  # the q (fixed)
    "Beta": lambda D, lib: D.Beta(lib.tensor([2.0, 0.5]), 1.5),
    "ContinuousBernoulli": lambda D, lib: D.ContinuousBernoulli(lib.tensor([0.6, 0.3])),
    "Exponential": lambda D, lib: D.Exponential(lib.tensor([1.0, 3.0])),
    "Gamma": lambda D, lib: D.Gamma(lib.tensor([2.0, 0.5]), lib.tensor([1.0, 1.5])),
    "Gumbel": lambda D, lib: D.Gumbel(lib.tensor([0.5, -1.0]), lib.tensor([2.0, 1.0])),
    "Normal": lambda D, lib: D.Normal(lib.tensor([0.5, -1.0]), lib.tensor([2.0, 1.0])),
    "Pareto": lambda D, lib: D.Pareto(lib.tensor([0.05, 1.0]), lib.tensor([2.0, 1.0])),
    "Uniform": lambda D, lib: D.Uniform(lib.tensor([0.0, -1.0]), lib.tensor([1.0, 0.8])),
    "Binomial": lambda D, lib: D.Binomial(3, lib.tensor([0.5, 0.2])),
    "Bernoulli": lambda D, lib: D.Bernoulli(lib.tensor([0.5, 0.2])),
}
NEW_KL_PAIRS = [("ContinuousBernoulli", "ContinuousBernoulli")] + [
    (p, q) for p in KL_P for q in ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Gumbel", "Normal",
                                   "Pareto", "Uniform"]
    if p in ("Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Gumbel", "Laplace", "Normal", "Pareto", "Uniform")
    and p != q]


@pytest.mark.parametrize("p,q", NEW_KL_PAIRS)
def test_kl_pairs_match_pytorch(p, q):
    def case(lib):
        kl = lib.distributions.kl_divergence(KL_P[p](lib.distributions, lib), KL_Q[q](lib.distributions, lib))
        if kl.requires_grad:
            kl.sum().backward()
        return kl
    same(case, rtol=2e-5, atol=1e-6)


def test_lowrank_kl_pairs_match_pytorch():
    def case(lib):
        Dl = lib.distributions
        W, d = leaf(lib, [[1.0, 0.5], [0.0, 0.3], [-0.4, 1.0]]), leaf(lib, [0.5, 1.0, 2.0])
        p = Dl.LowRankMultivariateNormal(lib.zeros(3), W, d)
        q = Dl.LowRankMultivariateNormal(lib.ones(2, 3), lib.tensor([[0.2], [0.1], [0.7]]), lib.ones(3))
        m = Dl.MultivariateNormal(lib.tensor([1.0, 0.0, -1.0]), scale_tril=lib.tensor(
            [[1.0, 0.0, 0.0], [0.3, 2.0, 0.0], [0.1, -0.2, 0.5]]).expand(2, 3, 3))
        kls = [Dl.kl_divergence(p, q), Dl.kl_divergence(m, q), Dl.kl_divergence(p, m)]
        sum(k.sum() for k in kls).backward()
        mismatch = _try(lambda: Dl.kl_divergence(p, Dl.LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(2))))
        return kls, W.grad, d.grad, mismatch
    same(case, rtol=2e-5, atol=1e-6)


def test_matrix_parameters_are_pytorchs():
    """The lazily derived matrices of LowRankMultivariateNormal and Wishart, and their gradients."""
    def case(lib):
        W, d = leaf(lib, [[[1.0, 0.5], [0.0, 0.3], [-0.4, 1.0]]] * 2), leaf(lib, [0.5, 1.0, 2.0])
        lr = D(lib).LowRankMultivariateNormal(lib.zeros(3), W, d)
        P = leaf(lib, [[2.0, 0.5], [0.5, 1.0]], f64)
        wp = D(lib).Wishart(lib.tensor([3.0, 4.0], dtype=lib.float64), precision_matrix=P)
        out = [lr.scale_tril, lr.covariance_matrix, lr.precision_matrix, lr.variance,
               wp.scale_tril, wp.covariance_matrix, wp.precision_matrix, wp.mode]
        sum(t.sum() for t in out[:4]).backward()
        sum(t.sum() for t in out[4:]).backward()
        return out, W.grad, d.grad, P.grad
    same(case, rtol=1e-5, atol=1e-6)


def test_relaxed_and_mixture_attributes_are_pytorchs():
    def case(lib):
        rb = D(lib).RelaxedBernoulli(lib.tensor(0.5), logits=lib.tensor([0.0, 1.0]))
        ro = D(lib).RelaxedOneHotCategorical(lib.tensor(0.5), probs=lib.tensor([0.2, 0.8]))
        mix = D(lib).MixtureSameFamily(D(lib).Categorical(lib.ones(2, 3)), D(lib).Normal(lib.zeros(2, 3), 1.0))
        return (rb.temperature, rb.probs, rb.logits, ro.probs, ro.logits, ro.base_dist.param_shape,
                repr(mix.support), mix.mixture_distribution.probs, mix.component_distribution.batch_shape,
                mix.support.check(lib.zeros(4, 2)), repr(D(lib).Kumaraswamy(0.5, 2.0).mode))
    same(case)


def test_constraint_registries_cover_pytorchs():
    import torch.distributions.constraint_registry as theirs

    from minitorch.distributions import constraint_registry as ours
    for name in ("biject_to", "transform_to"):
        assert ({k.__name__ for k in getattr(theirs, name)._registry}
                == {k.__name__ for k in getattr(ours, name)._registry}), name


def test_bregman_kl_of_wishart_and_expands_are_pytorchs():
    def case(lib):
        Dl = lib.distributions
        C = leaf(lib, [[2.0, 0.5], [0.5, 1.0]], f64)
        p = Dl.Wishart(lib.tensor(4.0, dtype=lib.float64), covariance_matrix=C)
        q = Dl.Wishart(lib.tensor(5.0, dtype=lib.float64), covariance_matrix=lib.eye(2, dtype=lib.float64) * 2)
        kl = Dl.kl_divergence(p, q)  # through ExponentialFamily: the Bregman divergence of the log normaliser
        kl.backward()
        lkj = Dl.LKJCholesky(3, lib.tensor([0.5, 2.0])).expand((4, 2))
        lib.manual_seed(1)
        vm = Dl.VonMises(lib.tensor(0.5), lib.tensor(2.0)).expand((3,))
        return kl, C.grad, lkj.batch_shape, lkj.sample().shape, vm.sample(), repr(vm)
    same(case, rtol=1e-6, atol=1e-8)


def test_every_pytorch_kl_pair_is_registered():
    import torch.distributions.kl as torch_kl
    ours = {(a.__name__, b.__name__) for a, b in minitorch.distributions.kl._KL_REGISTRY}
    assert {(a.__name__, b.__name__) for a, b in torch_kl._KL_REGISTRY} <= ours


def test_exports_are_pytorchs():
    for mod in ("", ".transforms", ".constraints"):
        ours = __import__("minitorch.distributions" + mod, fromlist=["_"])
        theirs = __import__("torch.distributions" + mod, fromlist=["_"])
        assert sorted(ours.__all__) == sorted(theirs.__all__), mod
