"""All parameters as one flat vector, and back (handy for second-order methods and for
looking at a model's weights as a single point)."""
from __future__ import annotations

from ..._ops.join import cat
from ..._tensor import Tensor


def _check_device(param, device):
    if device is not None and param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters):
    """cat of every parameter flattened (a new tensor, differentiable)."""
    device, parts = None, []
    for p in parameters:
        device = _check_device(p, device)
        parts.append(p.view(-1))
    return cat(parts)


def vector_to_parameters(vec, parameters):
    """Give each parameter its slice of vec as its new data (the parameters now view vec)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device, start = None, 0
    for p in parameters:
        device = _check_device(p, device)
        n = p.numel()
        p.data = vec[start:start + n].view_as(p).data
        start += n
