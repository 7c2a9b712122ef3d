"""`Parameter`: a Tensor that a Module registers as something to train.

A Parameter is an ordinary tensor (same memory, same ops) with two differences: it requires
grad by default, and assigning one to a Module attribute registers it, so that
`module.parameters()` finds it and an optimizer can update it.
"""
from __future__ import annotations

from .._tensor import Tensor
# (torch.nn.parameter holds the buffer classes too)
from .buffer import Buffer, UninitializedBuffer, UninitializedTensorMixin, is_lazy  # noqa: F401


class Parameter(Tensor):
    """`Parameter(data, requires_grad=True)`: shares `data`'s memory, as PyTorch's does."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._factories import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): expected a Tensor as data, got {type(data).__name__} "
                            "(wrap numbers and lists with minitorch.tensor(...) first)")
        p = cls._make(data._data, data._device, data._storage)
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happened in __new__ (Tensor.__init__ would make a new tensor)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(self.detach().clone(), self.requires_grad)
        if self.grad is not None:
            out.grad = self.grad.clone()
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape a lazy module learns from its first input (see UninitializedTensorMixin)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._factories import empty
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        return memo.setdefault(id(self), type(self)(self.requires_grad, self.device, self.dtype))

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad, self.device, self.dtype))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)

