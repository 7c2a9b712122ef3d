"""`torch.nn.modules.instancenorm`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d
from ..normalization import _InstanceNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d", "_InstanceNorm", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d"]
