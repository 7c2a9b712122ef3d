"""`torch.nn.modules.upsampling`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..layers import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
