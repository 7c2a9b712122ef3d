"""`torch.nn.modules.dropout`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..layers import _DropoutNd, AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout

__all__ = ["_DropoutNd", "AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]
