"""`torch.nn.modules.loss`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..loss import (_Loss, _WeightedLoss, BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss,
                    CTCLoss, GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss, LinearCrossEntropyLoss,
                    MarginRankingLoss, MSELoss,
                    MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss, NLLLoss2d, PoissonNLLLoss, SmoothL1Loss,
                    SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)

__all__ = ["_Loss", "_WeightedLoss", "BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "CTCLoss",
           "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "L1Loss", "LinearCrossEntropyLoss", "MarginRankingLoss", "MSELoss",
           "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss", "SmoothL1Loss", "SoftMarginLoss",
           "TripletMarginLoss", "TripletMarginWithDistanceLoss"]
