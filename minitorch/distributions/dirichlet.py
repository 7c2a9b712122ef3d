import minitorch as torch

from . import constraints
from .distribution import ExponentialFamily
from ._samplers import _Dirichlet

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """A distribution over probability vectors (the last dim), with density proportional to
    prod(x_i^(concentration_i - 1))."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = torch.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        # normalised Gamma draws (torch._sample_dirichlet), differentiable in the concentration
        shape = self._extended_shape(sample_shape)
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return torch.xlogy(a - 1.0, value).sum(-1) + torch.lgamma(a.sum(-1)) - torch.lgamma(a).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        am1 = (self.concentration - 1).clamp(min=0.0)
        mode = am1 / am1.sum(-1, True)
        # every concentration below 1: the density peaks at a corner of the simplex
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = torch.nn.functional.one_hot(mode[mask].argmax(dim=-1), am1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        a0 = self.concentration.sum(-1, True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def entropy(self):
        a = self.concentration
        k, a0 = a.size(-1), a.sum(-1)
        return (torch.lgamma(a).sum(-1) - torch.lgamma(a0) - (k - a0) * torch.digamma(a0)
                - ((a - 1.0) * torch.digamma(a)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - torch.lgamma(x.sum(-1))
