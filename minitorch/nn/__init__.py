"""`minitorch.nn`: Parameter, Module, layers, losses, and nn.functional / nn.init.

    import minitorch as torch
    from minitorch import nn

    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    loss = nn.CrossEntropyLoss()(model(x), y)
"""
from __future__ import annotations

from . import functional, init  # noqa: F401
from .container import ModuleDict, ModuleList, Sequential
from .layers import (AvgPool2d, Conv2d, Dropout, Embedding, Flatten, Identity, LeakyReLU, Linear, LogSoftmax,
                     MaxPool2d, ReLU, Sigmoid, Softmax, Tanh, Unflatten)
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter import Parameter

__all__ = ["Parameter", "Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear", "Conv2d",
           "MaxPool2d", "AvgPool2d", "Embedding", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "Flatten", "Unflatten", "Dropout", "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss",
           "BCEWithLogitsLoss", "BCELoss", "functional", "init"]
