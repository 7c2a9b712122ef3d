"""`torch.nn.modules.container`, the path PyTorch programs import these classes from: the same
classes as minitorch.nn."""
from ..container import Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential

__all__ = ["Container", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
