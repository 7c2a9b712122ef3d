"""`torch.nn.modules.module`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..module import Module

__all__ = ["Module"]
