"""`torch.nn.modules.activation`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..activation import (CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                          LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, RReLU, Sigmoid, SiLU, Softmax, Softmax2d,
                          Softmin, Softplus, Softshrink, Softsign, Tanh, Tanhshrink, Threshold)
from ..attention import MultiheadAttention

__all__ = ["CELU", "ELU", "GELU", "GLU", "SELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU",
           "LogSigmoid", "LogSoftmax", "Mish", "PReLU", "ReLU", "ReLU6", "RReLU", "Sigmoid", "SiLU", "Softmax",
           "Softmax2d", "Softmin", "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold",
           "MultiheadAttention"]
