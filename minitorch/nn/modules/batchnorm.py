"""`torch.nn.modules.batchnorm`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from ..normalization import _NormBase, _BatchNorm, BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "_NormBase", "_BatchNorm", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]
