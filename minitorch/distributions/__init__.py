"""torch.distributions: probability distributions to sample from, score (log_prob) and
compare (kl_divergence), with the shapes, argument checks and random streams of PyTorch's.

Sampling draws through the same tensor ops PyTorch's distributions use (normal, bernoulli,
multinomial, exponential_, ...), so after manual_seed a sample equals PyTorch's. rsample is the
reparameterised sample: a parameter-free draw moved and scaled by the parameters, so that
gradients reach them (VAEs); sample is the same draw with no graph (REINFORCE scores it with
log_prob instead).
"""
from . import constraints, kl  # noqa: F401 (the submodules, as torch.distributions.kl)
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution, ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Dirichlet", "Distribution", "Exponential",
           "ExponentialFamily", "Gamma", "Independent", "Laplace", "MultivariateNormal", "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson", "Uniform", "kl_divergence",
           "register_kl"]
