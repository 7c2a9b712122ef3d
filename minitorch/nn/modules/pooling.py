"""`torch.nn.modules.pooling`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn. The 3-D layers are written here, on the 1-D and 2-D ones' bases
(nn/pooling.py): only the function each calls differs; and fractional max pooling, 2-D and 3-D."""
from .. import functional as F
from ..module import Module
from ..pooling import (_AdaptivePool, _LPPoolNd, _MaxPoolNd, _MaxUnpoolNd, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
                       AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, LPPool1d, LPPool2d, MaxPool1d,
                       MaxPool2d, MaxUnpool1d, MaxUnpool2d)
from .utils import _pair, _triple


class MaxPool3d(_MaxPoolNd):
    """The maximum of every kd*kh*kw window of (N, C, D, H, W) volumes."""
    _fn = staticmethod(F.max_pool3d)


class AvgPool3d(AvgPool2d):
    """The mean of every kd*kh*kw window of (N, C, D, H, W) volumes."""

    def forward(self, input):  # noqa: A002
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class LPPool3d(_LPPoolNd):
    _fn = staticmethod(F.lp_pool3d)


class AdaptiveMaxPool3d(_AdaptivePool):
    _fn = staticmethod(F.adaptive_max_pool3d)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    def forward(self, input):  # noqa: A002
        return F.adaptive_avg_pool3d(input, self.output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    _n = 3


class _FractionalMaxPoolNd(Module):
    """F.fractional_max_pool2d / 3d as a layer: each call draws new windows, unless
    _random_samples (a buffer) fixes them."""
    _nd = 0

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        name, nd = type(self).__name__, self._nd
        if nd == 3 and (isinstance(kernel_size, int) and kernel_size <= 0 or isinstance(kernel_size, (tuple, list))
                        and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        as_tuple = _pair if nd == 2 else _triple
        self.kernel_size = as_tuple(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = as_tuple(output_size) if output_size is not None else None
        self.output_ratio = as_tuple(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < self.output_ratio[q] < 1 for q in range(nd)):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):  # noqa: A002
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _nd = 3


__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d",
           "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]
