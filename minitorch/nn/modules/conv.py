"""`torch.nn.modules.conv`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..conv import _ConvNd, Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from ..lazy import LazyConv1d, LazyConv2d, LazyConvTranspose1d, LazyConvTranspose2d

__all__ = ["_ConvNd", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "LazyConv1d", "LazyConv2d",
           "LazyConvTranspose1d", "LazyConvTranspose2d"]
