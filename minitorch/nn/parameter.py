"""`Parameter`: a Tensor that a Module registers as something to train.

A Parameter is an ordinary tensor (same memory, same ops) with two differences: it requires
grad by default, and assigning one to a Module attribute registers it, so that
`module.parameters()` finds it and an optimizer can update it.
"""
from __future__ import annotations

from .._tensor import Tensor


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


class UninitializedParameter(Parameter):
    """A placeholder for a parameter whose shape a lazy module learns from its first input
    (nn.LazyLinear): it has no shape until `materialize(shape)` turns it, in place, into a
    Parameter of that shape, so an optimizer made before then still holds the right object."""

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._factories import empty
        p = super().__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)
        return p

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def materialize(self, shape):
        from .._factories import empty
        self.data = empty(shape, device=self.device, dtype=self.dtype)
        self.__class__ = Parameter

    def __repr__(self):
        return "<UninitializedParameter>"

    def __deepcopy__(self, memo):
        return memo.setdefault(id(self), UninitializedParameter(self.requires_grad, self.device, self.dtype))

    def __reduce_ex__(self, protocol):
        return (UninitializedParameter, (self.requires_grad, self.device, self.dtype))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)

