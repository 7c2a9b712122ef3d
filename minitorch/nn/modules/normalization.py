"""`torch.nn.modules.normalization`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm

__all__ = ["GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]
