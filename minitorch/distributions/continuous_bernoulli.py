"""The continuous Bernoulli (Loaiza-Ganem and Cunningham 2019): density C(p) p^x (1-p)^(1-x) on
[0, 1], the correctly normalised likelihood for a VAE's pixel intensities in [0, 1]. `probs`
is not a probability here and `logits` not a log-odds; they only share Bernoulli's formula.

Near p = 1/2 the closed forms divide 0 by 0, so inside (lims[0], lims[1]) each quantity is its
Taylor series instead (and p is "cut" to lims[0] in the closed form, so no NaN enters a gradient).
"""
import math
import numbers

import minitorch as torch
from minitorch.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .distribution import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            if validate_args is not None and not self.arg_constraints["probs"].check(param).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = param = clamp_probs(param)
        else:
            self.logits = param
        self._param = param
        self._lims = lims
        batch_shape = torch.Size() if isinstance(given, numbers.Number) else param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = torch.Size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return torch.le(self.probs, self._lims[0]) | torch.gt(self.probs, self._lims[1])

    def _cut_probs(self):
        return torch.where(self._outside_unstable_region(), self.probs, self._lims[0] * torch.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(p) = log |log(1-p) - log p| - log |1 - 2p|."""
        p = self._cut_probs()
        below_half = torch.where(torch.le(p, 0.5), p, torch.zeros_like(p))
        above_half = torch.where(torch.ge(p, 0.5), p, torch.ones_like(p))
        log_norm = torch.log(torch.abs(torch.log1p(-p) - torch.log(p))) - torch.where(
            torch.le(p, 0.5), torch.log1p(-2.0 * below_half), torch.log(2.0 * above_half - 1.0))
        x = torch.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torch.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        p = self._cut_probs()
        mus = p / (2.0 * p - 1.0) + 1.0 / (torch.log1p(-p) - torch.log(p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torch.pow(x, 2)) * x
        return torch.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return torch.sqrt(self.variance)

    @property
    def variance(self):
        p = self._cut_probs()
        vars = p * (p - 1.0) / torch.pow(1.0 - 2.0 * p, 2) + 1.0 / torch.pow(torch.log1p(-p) - torch.log(p), 2)
        x = torch.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torch.where(self._outside_unstable_region(), vars, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=torch.Size()):
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        with torch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=torch.Size()):
        # inverse-cdf sampling: icdf is differentiable in p, so the draw is reparameterised
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        cdfs = (torch.pow(p, value) * torch.pow(1.0 - p, 1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        unbounded_cdfs = torch.where(self._outside_unstable_region(), cdfs, value)
        return torch.where(torch.le(value, 0.0), torch.zeros_like(value),
                           torch.where(torch.ge(value, 1.0), torch.ones_like(value), unbounded_cdfs))

    def icdf(self, value):
        p = self._cut_probs()
        return torch.where(self._outside_unstable_region(),
                           (torch.log1p(-p + value * (2.0 * p - 1.0)) - torch.log1p(-p))
                           / (torch.log(p) - torch.log1p(-p)),
                           value)

    def entropy(self):
        log_probs0, log_probs1 = torch.log1p(-self.probs), torch.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the natural parameter x = logit(p): log |expm1(x) / x|."""
        out_unst_reg = torch.le(x, self._lims[0] - 0.5) | torch.gt(x, self._lims[1] - 0.5)
        cut_nat_params = torch.where(out_unst_reg, x, (self._lims[0] - 0.5) * torch.ones_like(x))
        log_norm = torch.log(torch.abs(torch.special.expm1(cut_nat_params))) - torch.log(torch.abs(cut_nat_params))
        taylor = 0.5 * x + torch.pow(x, 2) / 24.0 - torch.pow(x, 4) / 2880.0
        return torch.where(out_unst_reg, log_norm, taylor)
