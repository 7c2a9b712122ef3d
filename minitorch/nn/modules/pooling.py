"""`torch.nn.modules.pooling`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn. The 3-D layers are written here, on the 1-D and 2-D ones' bases
(nn/pooling.py): only the function each calls differs."""
from .. import functional as F
from ..pooling import (_AdaptivePool, _LPPoolNd, _MaxPoolNd, _MaxUnpoolNd, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
                       AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, LPPool1d, LPPool2d, MaxPool1d,
                       MaxPool2d, MaxUnpool1d, MaxUnpool2d)


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


__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d",
           "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
