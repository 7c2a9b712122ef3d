"""`Buffer`: a tensor that a Module keeps as state, not as something to train.

    self.running_mean = nn.Buffer(torch.zeros(3))      # the same as
    self.register_buffer("running_mean", torch.zeros(3))

A buffer is saved in the state_dict (unless persistent=False) and moved by `model.to(...)`,
but `parameters()` never lists it, so no optimizer updates it. As in PyTorch, `Buffer(t)` is
an ordinary Tensor (t detached) marked as a buffer; `isinstance(x, nn.Buffer)` reads the mark.
"""
from __future__ import annotations

from .._tensor import Tensor


class UninitializedTensorMixin:
    """What a placeholder tensor of a lazy module (nn.LazyLinear, nn.LazyConv2d, ...) shares: it
    has no shape until `materialize(shape)` turns it, in place, into a real tensor of that shape
    (its class becomes `cls_to_become`), so an optimizer made before then holds the right object."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        from .._factories import empty
        self.data = empty(shape, device=self.device if device is None else device,
                          dtype=self.dtype if dtype is None else dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"


def is_lazy(param):
    """Whether `param` is an UninitializedParameter or UninitializedBuffer (a lazy module's placeholder)."""
    return isinstance(param, UninitializedTensorMixin)


class _BufferMeta(type):
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """`Buffer(data, *, persistent=True)`: `data` detached (same memory), marked as a buffer."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .._factories import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach' (Buffer() takes a "
                                 "Tensor: wrap numbers and lists with minitorch.tensor(...) first)")
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t  # a plain Tensor: Buffer.__init__ does not run


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape a lazy module (nn.LazyBatchNorm1d, ...) learns from its first input."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .._factories import empty
        data = empty(0, device=device, dtype=dtype)
        t = cls._make(data._data, data._device, data._storage)
        if requires_grad:
            t.requires_grad_(True)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass  # everything happened in __new__ (Tensor.__init__ would make a new tensor)

    def __deepcopy__(self, memo):
        return memo.setdefault(id(self), type(self)(self.requires_grad, self.device, self.dtype, self.persistent))

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad, self.device, self.dtype, self.persistent))
