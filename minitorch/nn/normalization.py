"""Normalisation modules: BatchNorm, LayerNorm, GroupNorm, InstanceNorm, RMSNorm,
LocalResponseNorm.

BatchNorm keeps running estimates of each channel's mean and variance (buffers, saved in the
state_dict, not trained): updated from every training batch, used instead of the batch's own
statistics after model.eval().
"""
from __future__ import annotations

import numbers
import warnings

from .. import _dtype, _factories
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class _NormBase(Module):
    _batched_ndims = ()  # the input ranks with a batch dim
    _name = ""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = dict(device=device, dtype=dtype)
        if affine:
            self.weight = Parameter(_factories.empty(num_features, **kw))
            if bias:
                self.bias = Parameter(_factories.empty(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _factories.zeros(num_features, **kw))
            self.register_buffer("running_var", _factories.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", _factories.tensor(0, dtype=_dtype.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):  # noqa: A002
        if input.ndim not in self._batched_ndims:
            wanted = " or ".join(f"{n}D" for n in self._batched_ndims)
            raise ValueError(f"expected {wanted} input (got {input.ndim}D input)")

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    def forward(self, input):  # noqa: A002
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # momentum=None: a cumulative average over every batch seen so far
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                            self.weight, self.bias, use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Normalise each feature over the batch: input (N, C) or (N, C, L)."""
    _batched_ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Normalise each channel over the batch and the image: input (N, C, H, W)."""
    _batched_ndims = (4,)


class BatchNorm3d(_BatchNorm):
    _batched_ndims = (5,)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm whose training statistics are those of the whole batch, across the processes of a
    distributed job. minitorch runs in one process, where (as PyTorch's without an initialised
    process group) it is BatchNorm of any input of 2 or more dims."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):  # noqa: A002
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm layer in it (itself included) replaced by a SyncBatchNorm
        sharing its parameters and running statistics."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            out.running_mean, out.running_var = module.running_mean, module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class _InstanceNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input):  # noqa: A002
        n = self._batched_ndims[0]
        if input.ndim not in (n - 1, n):
            raise ValueError(f"expected {n - 1}D or {n}D input (got {input.ndim}D input)")

    def forward(self, input):  # noqa: A002
        self._check_input_dim(input)
        feature_dim = input.ndim - (self._batched_ndims[0] - 1)
        if input.shape[feature_dim] != self.num_features:  # (affine=False never reads num_features)
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        unbatched = input.ndim == self._batched_ndims[0] - 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum or 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _batched_ndims = (3,)


class InstanceNorm2d(_InstanceNorm):
    _batched_ndims = (4,)


class InstanceNorm3d(_InstanceNorm):
    _batched_ndims = (5,)


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(int(n) for n in normalized_shape)


def _affine(module, shape, affine, bias, device, dtype):
    """Register the learned scale (`weight`) and shift (`bias`) of `shape`, or None for each
    (their values are set by the module's reset_parameters: _reset_affine)."""
    if affine:
        module.weight = Parameter(_factories.empty(*shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(_factories.empty(*shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    """weight to ones, bias to zeros (each where it exists)."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """Normalise each sample over its last dims (normalized_shape), then scale and shift."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape, self.eps = _shape(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        _affine(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):  # noqa: A002
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise each sample's channels in groups (over the group's channels and positions)."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):  # noqa: A002
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) over the last dims, times a learned weight."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape, self.eps = _shape(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_factories.empty(*self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):  # noqa: A002
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
