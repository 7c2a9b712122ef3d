"""`torch.nn.modules.lazy`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..lazy import LazyModuleMixin

__all__ = ["LazyModuleMixin"]
