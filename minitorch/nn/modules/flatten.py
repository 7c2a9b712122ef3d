"""`torch.nn.modules.flatten`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..layers import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
