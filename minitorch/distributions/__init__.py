"""torch.distributions: probability distributions to sample from, score (log_prob) and
compare (kl_divergence), with the shapes, argument checks and random streams of PyTorch's.

Sampling draws through the same tensor ops PyTorch's distributions use (normal, bernoulli,
multinomial, exponential_, ...), so after manual_seed a sample equals PyTorch's. rsample is the
reparameterised sample: a parameter-free draw moved and scaled by the parameters, so that
gradients reach them (VAEs); sample is the same draw with no graph (REINFORCE scores it with
log_prob instead).
"""
# the submodules, as torch.distributions.kl
from . import constraint_registry, constraints, exp_family, kl, transforms  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution, ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .generalized_pareto import GeneralizedPareto
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .constraint_registry import biject_to, transform_to
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .pareto import Pareto
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli  # (LogitRelaxedBernoulli stays in its module, as in torch)
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403 (torch.distributions exports them too)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "GeneralizedPareto", "Gamma",
           "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy",
           "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
           "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
           "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "TransformedDistribution", "Uniform",
           "VonMises", "Weibull", "Wishart", "biject_to", "kl_divergence", "register_kl", "transform_to"]
__all__ += transforms.__all__
