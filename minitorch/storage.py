"""Storages, as `torch.storage`: the flat block of memory under a tensor and every view of it.

    t = minitorch.tensor([1, 2, 3])
    t.untyped_storage()          # its bytes: 24 of them (3 int64 elements)
    t[1:].untyped_storage().data_ptr() == t.untyped_storage().data_ptr()   # True: views share it

`TypedStorage` (what the older `t.storage()` returns) reads the same memory as elements of one
dtype; PyTorch has deprecated it in favour of `UntypedStorage` and warns once when it is used.
"""
from __future__ import annotations

import numpy as np

__all__ = ["TypedStorage", "UntypedStorage"]


def _listing(storage, info):
    """PyTorch's str() of a storage: one element a line, then what it is."""
    return " " + "\n ".join(str(x) for x in storage.tolist()) + "\n" + info


class UntypedStorage:
    """The bytes under a tensor (`t.untyped_storage()`), shared with all its views."""

    def __init__(self, root, device):
        self._root, self._device = root, device  # (root: the array that owns the memory)

    def _bytes(self):
        return self._device._xp_backend.to_host(self._root).reshape(-1).view(np.uint8)

    @property
    def device(self):
        return self._device

    def data_ptr(self):
        from ._ops.views import data_ptr
        return data_ptr(self._root)

    def nbytes(self):
        return int(self._root.nbytes)

    def size(self):
        return int(self._root.nbytes)

    def __len__(self):
        return self.size()

    def element_size(self):
        return 1

    def __getitem__(self, i):
        return int(self._bytes()[i])

    def tolist(self):
        return self._bytes().tolist()

    def __repr__(self):
        from ._runtime import typename
        return _listing(self, f"[{typename(self)}(device={self.device}) of size {len(self)}]")


_WARNED = []


def _warn_typed_storage_removal(stacklevel=2):
    """PyTorch's warning, once per process, pointing at the caller's caller (`stacklevel` frames up)."""
    if not _WARNED:
        _WARNED.append(True)
        import warnings
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=stacklevel + 1)


class TypedStorage:
    """A storage read as elements of one dtype: `TypedStorage(size, dtype=)`, `TypedStorage(sequence,
    dtype=)`, or `t.storage()`, which shares t's memory."""

    def __init__(self, *args, dtype=None, device=None, _flat=None):
        from ._factories import tensor, zeros
        if _flat is None:  # (a new storage: its elements zeroed, where PyTorch leaves them uninitialised)
            _warn_typed_storage_removal()
            data = args[0] if args else 0
            make = zeros if isinstance(data, int) else tensor
            _flat = make(data, dtype=dtype, device=device).reshape(-1)
        self._flat = _flat  # a 1-D tensor over the memory

    @property
    def dtype(self):
        return self._flat.dtype

    @property
    def device(self):
        return self._flat.device

    def size(self):
        return self._flat.numel()

    def __len__(self):
        return self.size()

    def element_size(self):
        return self._flat.element_size()

    def nbytes(self):
        return self.size() * self.element_size()

    def data_ptr(self):
        return self._flat.data_ptr()

    def untyped(self):
        from ._ops.views import _root_array
        return UntypedStorage(_root_array(self._flat), self._flat._device)

    def __getitem__(self, i):
        return self._flat[i].item()

    def __setitem__(self, i, value):
        from .autograd.grad_mode import no_grad
        with no_grad():
            self._flat[i] = value

    def tolist(self):
        return self._flat.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        from ._runtime import typename
        return _listing(self, f"[{typename(self)}(dtype={self.dtype}, device={self.device}) of size {len(self)}]")


def is_storage(obj):
    """Whether obj is a storage (not a tensor)."""
    return type(obj) in (UntypedStorage, TypedStorage)
