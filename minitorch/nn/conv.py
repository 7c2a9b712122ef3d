"""Convolution modules: Conv1d, Conv2d, Conv3d and their transposes. Each holds weight and bias and
calls nn.functional in forward; padding modes other than zeros pad the input first (F.pad),
as PyTorch does."""
from __future__ import annotations

from . import functional as F
from .layers import _default_init, _empty
from .module import Module
from .parameter import Parameter

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    _nd = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                 padding_mode, output_padding=0, device=None, dtype=None):
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in F._ntuple(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = F._ntuple(kernel_size, nd, "kernel_size")
        self.stride = F._ntuple(stride, nd, "stride")
        self.padding = padding if isinstance(padding, str) else F._ntuple(padding, nd, "padding")
        self.dilation = F._ntuple(dilation, nd, "dilation")
        self.transposed = self._transposed
        self.output_padding = F._ntuple(output_padding, nd, "output_padding")
        self.groups, self.padding_mode = groups, padding_mode
        self._reversed_padding_repeated_twice = self._pad_amounts()
        shape = ((in_channels, out_channels // groups) if self._transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(_empty(*shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _pad_amounts(self):
        """The F.pad amounts (last dim first) for a padding mode other than zeros."""
        out = []
        for i in reversed(range(self._nd)):
            if isinstance(self.padding, str):
                total = self.dilation[i] * (self.kernel_size[i] - 1) if self.padding == "same" else 0
                out += [total // 2, total - total // 2]
            else:
                out += [self.padding[i], self.padding[i]]
        return out

    def reset_parameters(self):
        _default_init(self.weight, self.bias)

    def extra_repr(self):
        nd = self._nd
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def forward(self, input):  # noqa: A002
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            x = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L) batches; weight (C_out, C_in/groups, k)."""
    _nd = 1
    _fn = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W) batches; weight (C_out, C_in/groups, kh, kw)."""
    _nd = 2
    _fn = staticmethod(F.conv2d)


class _ConvTranspose(_ConvNd):
    _transposed = True
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding, device=device, dtype=dtype)

    def _output_padding(self, input, output_size):  # noqa: A002
        """The output_padding that makes the output `output_size` (which may include N and C)."""
        if output_size is None:
            return self.output_padding
        nd = self._nd
        size = list(output_size)[-nd:]
        if len(size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.ndim}D input, output_size must have {nd} or "
                             f"{nd + 2} elements (got {len(output_size)})")
        pads = []
        for i in range(nd):
            n = input.shape[input.ndim - nd + i]
            least = ((n - 1) * self.stride[i] - 2 * self.padding[i] + self.dilation[i] * (self.kernel_size[i] - 1)
                     + 1)
            if not least <= size[i] < least + self.stride[i]:
                lo = [((input.shape[input.ndim - nd + j] - 1) * self.stride[j] - 2 * self.padding[j]
                       + self.dilation[j] * (self.kernel_size[j] - 1) + 1) for j in range(nd)]
                hi = [v + self.stride[j] - 1 for j, v in enumerate(lo)]
                raise ValueError(f"requested an output size of {size}, but valid sizes range from {lo} to {hi} "
                                 f"(for an input of {list(input.shape[2:])})")
            pads.append(size[i] - least)
        return tuple(pads)

    def forward(self, input, output_size=None):  # noqa: A002
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding,
                              self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    _nd = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    """The transposed convolution (it upsamples); weight (C_in, C_out/groups, kh, kw)."""
    _nd = 2
    _fn = staticmethod(F.conv_transpose2d)


class Conv3d(_Conv):
    """3-D convolution over (N, C_in, D, H, W) batches of volumes; weight (C_out, C_in/groups, kd, kh, kw)."""
    _nd = 3
    _fn = staticmethod(F.conv3d)


class ConvTranspose3d(_ConvTranspose):
    """The transposed 3-D convolution; weight (C_in, C_out/groups, kd, kh, kw)."""
    _nd = 3
    _fn = staticmethod(F.conv_transpose3d)


class ChannelShuffle(Module):
    """Interleave the channel groups of (N, C, *) (ShuffleNet's layer between grouped convolutions)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):  # noqa: A002
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
