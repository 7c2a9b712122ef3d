"""Lazy modules: layers that read their input size from the first batch they see.

    conv = nn.LazyConv2d(16, kernel_size=3)     # in_channels not given
    conv(torch.randn(8, 3, 32, 32))             # now in_channels = 3, weight (16, 3, 3, 3)
    type(conv)                                  # nn.Conv2d

Until that first call the weight (and bias, running statistics) are placeholders,
UninitializedParameter / UninitializedBuffer. A forward pre-hook makes them real on the first
call (`initialize_parameters`), initialises them as the ordinary layer does, removes itself,
and turns the module into that layer (`cls_to_become`). Loading a state_dict into a lazy module
gives the placeholders the checkpoint's shapes instead.
"""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                            _BatchNorm, _InstanceNorm, _NormBase)
from .parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .. import _dtype, _factories

__all__ = ["LazyModuleMixin", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Mixed in before a layer class: registers the pre-hook that initialises the layer from
    its first input (the layer's own `initialize_parameters(input)` does the work)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    @staticmethod
    def _infer_parameters(module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


# ---- convolutions --------------------------------------------------------------------------------

class _LazyConvXdMixin(LazyModuleMixin):
    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):  # noqa: A002
        unbatched, batched = self._nd + 1, self._nd + 2
        if input.ndim not in (unbatched, batched):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.ndim == batched else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):  # noqa: A002
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        with no_grad():
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _lazy_parameters(self, out_channels, bias, device, dtype):
        """After the layer's __init__ made it with 0 channels: placeholders for weight and bias."""
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A Conv1d whose in_channels is read from the first input."""
    cls_to_become = Conv1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device=device,
                         dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A Conv2d whose in_channels is read from the first input."""
    cls_to_become = Conv2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device=device,
                         dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """A Conv3d whose in_channels is read from the first input."""
    cls_to_become = Conv3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device=device,
                         dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    cls_to_become = ConvTranspose1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device=device, dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device=device, dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    cls_to_become = ConvTranspose3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device=device, dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)


# ---- normalisation -------------------------------------------------------------------------------

class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features is read from the first input's dim 1. Made with 0 features and nothing
    learned or tracked, then given placeholders for what affine / track_running_stats ask for."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _factories.tensor(0, dtype=_dtype.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):  # noqa: A002
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        with no_grad():
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if t is not None:
                    t.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose num_features is read from the first input."""
    cls_to_become = BatchNorm1d
    _batched_ndims = BatchNorm1d._batched_ndims


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose num_features is read from the first input."""
    cls_to_become = BatchNorm2d
    _batched_ndims = BatchNorm2d._batched_ndims


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm1d
    _batched_ndims = InstanceNorm1d._batched_ndims


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm2d
    _batched_ndims = InstanceNorm2d._batched_ndims


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose num_features is read from the first input."""
    cls_to_become = BatchNorm3d
    _batched_ndims = BatchNorm3d._batched_ndims


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm3d
    _batched_ndims = InstanceNorm3d._batched_ndims
