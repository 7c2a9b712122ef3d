"""`torch.nn.modules.transformer`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                           TransformerEncoderLayer)

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]
