"""`torch.nn.modules.fold`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..layers import Fold, Unfold

__all__ = ["Fold", "Unfold"]
