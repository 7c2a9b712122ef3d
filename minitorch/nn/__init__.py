"""`minitorch.nn`: Parameter, Module, layers, losses, and nn.functional / nn.init / nn.utils.

    import minitorch as torch
    from minitorch import nn

    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    loss = nn.CrossEntropyLoss()(model(x), y)
"""
from __future__ import annotations

from . import functional, init  # noqa: F401
from .activation import (CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, RReLU, Sigmoid, SiLU, Softmax, Softmax2d,
                         Softmin, Softplus, Softshrink, Softsign, Tanh, Tanhshrink, Threshold)
from .attention import MultiheadAttention
from .buffer import Buffer, UninitializedBuffer
from .container import Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import ChannelShuffle, Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .embedding_bag import EmbeddingBag
from .layers import (AlphaDropout, Bilinear, CosineSimilarity, Dropout, Dropout1d, Dropout2d, Dropout3d, Embedding,
                     FeatureAlphaDropout, Flatten, Fold, Identity, LazyLinear, Linear, PairwiseDistance, PixelShuffle,
                     PixelUnshuffle, Unflatten, Unfold, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d)
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d,
                   LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d,
                   LazyInstanceNorm2d, LazyInstanceNorm3d)
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, CTCLoss, GaussianNLLLoss,
                   HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss, LinearCrossEntropyLoss, MarginRankingLoss, MSELoss,
                   MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss, NLLLoss2d,
                   PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .module import Module
from .modules.linear_cross_entropy_options import LinearCrossEntropyOptions
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d,
                            InstanceNorm3d, LayerNorm, LocalResponseNorm, RMSNorm, SyncBatchNorm)
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .parameter import Parameter, UninitializedParameter
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d,
                      AvgPool2d, LPPool1d, LPPool2d, MaxPool1d, MaxPool2d, MaxUnpool1d, MaxUnpool2d)
from .modules.pooling import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d,
                              LPPool3d, MaxPool3d, MaxUnpool3d)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                          TransformerEncoderLayer)
from .parallel import DataParallel
from . import modules, parallel, parameter, utils  # noqa: F401


__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]
