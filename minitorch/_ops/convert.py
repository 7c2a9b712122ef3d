"""Copies: clone, and `.to()` across dtypes and devices (gradients flow back through both)."""
from __future__ import annotations

from ._prim import Primitive


class Clone(Primitive):
    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a, *, strides=None):
        """strides: the copy's element strides (None: laid out like a, PyTorch's preserve_format)."""
        if strides is None:
            return preserved(a, a._data)
        from .common import relayout
        return relayout(a._data, strides, a._device.xp, copy=True)

    @staticmethod
    def backward(ctx, grad):
        return (grad,)


def preserved(a, arr):
    """`arr` (a copy of a's values) laid out as PyTorch lays out a copy made "like" `a`: a's own
    strides when a is dense (a transpose stays transposed), else dense in a's order of dims."""
    from .common import canonical
    if arr.size == 0 or canonical(a._data):
        return arr if arr is not a._data else arr.copy()
    from .common import like_strides, relayout
    return relayout(arr, like_strides(a.shape, a.stride()), a._device.xp, copy=arr is a._data)


class ToCopy(Primitive):
    _node_name = "ToCopyBackward0"
    int_result_error = False  # (a copy into an integer dtype carries no gradient: nothing is recorded)

    @classmethod
    def apply(cls, a, *, dtype, device, strides=None):
        out = super().apply(a, dtype=dtype, device=device, strides=strides)
        out._device = device
        if out.grad_fn is not None:  # a gradient of the copy arrives on the new device
            out.grad_fn._output_meta = ((out._data.shape, out.dtype, device),)
        return out

    @staticmethod
    def forward(ctx, a, *, dtype, device, strides=None):
        ctx.src_device, ctx.src_dtype = a._device, a.dtype
        arr = a._data
        if device != a._device:
            host = a._device._xp_backend.to_host(arr)
            arr = device._xp_backend.from_host(host, device.index)
            if arr is host:
                arr = arr.copy()  # a second NumPy-backed device must not share memory with the CPU
        if arr.dtype != dtype.np:
            arr = arr.astype(dtype.np)
        elif arr is a._data:
            arr = arr.copy()
        if strides is not None:
            from .common import relayout
            return relayout(arr, strides, device.xp)
        return preserved(a, arr) if device == a._device else arr

    @staticmethod
    def backward(ctx, grad):
        return (grad.to(ctx.src_device, ctx.src_dtype),)


def clone(a, *, memory_format=None):
    from .. import _memory_format as mf
    return Clone.apply(a, strides=mf.strides(mf.checked(memory_format, "clone"), tuple(a.shape)))


def to_copy(a, dtype, device, memory_format=None):
    if device != a._device and device.type != "cpu":
        from .._factories import place
        import numpy as np
        place(np.empty((0,), dtype.np), device)  # a clear error if the device is not there
    from .. import _memory_format as mf
    return ToCopy.apply(a, dtype=dtype, device=device,
                        strides=mf.strides(mf.checked(memory_format, "to"), tuple(a.shape)))
