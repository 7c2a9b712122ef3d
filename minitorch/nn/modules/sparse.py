"""`torch.nn.modules.sparse`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..embedding_bag import EmbeddingBag
from ..layers import Embedding

__all__ = ["EmbeddingBag", "Embedding"]
