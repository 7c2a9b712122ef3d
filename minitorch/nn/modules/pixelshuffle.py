"""`torch.nn.modules.pixelshuffle`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..layers import PixelShuffle, PixelUnshuffle

__all__ = ["PixelShuffle", "PixelUnshuffle"]
