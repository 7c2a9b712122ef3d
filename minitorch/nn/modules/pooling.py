"""`torch.nn.modules.pooling`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
                       LPPool1d, LPPool2d, MaxPool1d, MaxPool2d, MaxUnpool1d, MaxUnpool2d)

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d",
           "LPPool1d", "LPPool2d", "MaxPool1d", "MaxPool2d", "MaxUnpool1d", "MaxUnpool2d"]
