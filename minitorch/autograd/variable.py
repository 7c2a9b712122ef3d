"""`Variable`, from before PyTorch 0.4 merged it into Tensor, still in old tutorials and forum
answers: `Variable(t, requires_grad=True)` is a new leaf sharing t's memory, and every tensor is
an instance of Variable."""
from __future__ import annotations


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        from .._tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from .._tensor import Tensor
        if data is None:
            from .._factories import tensor
            data = tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
