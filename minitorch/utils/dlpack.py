"""`minitorch.utils.dlpack`, as `torch.utils.dlpack`: exchanging tensors with other array
libraries (NumPy, CuPy, PyTorch, JAX) through DLPack, the protocol by which two libraries share
one block of memory without copying it.

    t = minitorch.arange(4)
    a = np.from_dlpack(t)            # a NumPy array over t's memory
    t2 = minitorch.from_dlpack(a)    # and back: writes through any of them show in all three
"""
from __future__ import annotations

import enum

import numpy as np

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """Where a DLPack tensor's memory lives (the numbers of the DLPack standard)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor):
    """The tensor as a DLPack capsule: an opaque object that `from_dlpack` (of any library) turns
    back into an array over the same memory, once. Prefer passing the tensor itself."""
    return tensor.__dlpack__()


class _Capsule:
    """A bare capsule presented as an object with `__dlpack__`, the form NumPy takes (a capsule
    from `to_dlpack` describes host memory: minitorch makes its GPU tensors' capsules with CuPy)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return DLDeviceType.kDLCPU, 0


class _Writable:
    """A capsule of the old, unversioned DLPack cannot say whether its memory may be written, so
    NumPy reads it as read-only; PyTorch writes to it. This presents the same memory as writable
    (and keeps `arr`, which keeps the capsule's memory alive)."""

    def __init__(self, arr):
        self.arr = arr
        self.__array_interface__ = dict(arr.__array_interface__, data=(arr.__array_interface__["data"][0], False))


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor over the memory of `ext_tensor` (an object with `__dlpack__`: a NumPy or CuPy array,
    a tensor of minitorch or of another library) or of a DLPack capsule: writes through either show
    in both. copy=True copies instead; `device` moves the result there."""
    from .._device import device as as_device
    from .._factories import from_numpy
    from .._tensor import Tensor
    if not hasattr(ext_tensor, "__dlpack__"):
        if device is not None or copy is not None:
            raise AssertionError("device and copy kwargs not supported when ext_tensor is already a DLPack capsule.")
        return from_numpy(np.asarray(_Writable(np.from_dlpack(_Capsule(ext_tensor)))))
    kind, index = ext_tensor.__dlpack_device__()
    if kind == DLDeviceType.kDLCPU:
        t = from_numpy(np.from_dlpack(ext_tensor))
    elif kind == DLDeviceType.kDLCUDA:
        dev = as_device("cuda", index)
        t = Tensor._make(dev.xp.from_dlpack(ext_tensor), dev)
    else:
        raise BufferError(f"minitorch has no device for DLPack device type {kind}")
    if copy:
        t = t.clone()
    return t if device is None else t.to(device)
