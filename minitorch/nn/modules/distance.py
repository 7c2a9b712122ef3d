"""`torch.nn.modules.distance`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..layers import CosineSimilarity, PairwiseDistance

__all__ = ["CosineSimilarity", "PairwiseDistance"]
