import minitorch as torch

from . import constraints
from ._samplers import binomial
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0), with the gradient 1/2 at x == 0 that PyTorch's formula has
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """The number of successes in `total_count` trials, each a success with probability `probs`
    (or sigmoid(`logits`))."""
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name = "probs" if probs is not None else "logits"
        total_count, param = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = total_count.type_as(param)
        setattr(self, name, param)
        self._param = param
        super().__init__(param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = torch.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_binom = torch.lgamma(n + 1) - torch.lgamma(value + 1) - torch.lgamma(n - value + 1)
        # n * log(1 + exp(logits)), written so that exp never overflows
        log_normaliser = n * _clamp_by_zero(logits) + n * torch.log1p(torch.exp(-torch.abs(logits)))
        return value * logits + log_binom - log_normaliser

    def entropy(self):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = torch.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values
