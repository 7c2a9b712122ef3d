"""The Tensor: a backend array, a storage record shared by its views, and autograd state.

- `_data`    the NumPy/CuPy array holding the values (a view into the base's memory for views)
- `_storage` shared by a tensor and all its views; holds the version counter (`t._version`)
- `_base`    for a view, the tensor that owns the memory; None otherwise
- `_device`  where it lives; its array module (`_device.xp`) computes every op
- `requires_grad`, `grad`, `grad_fn` the autograd state (see minitorch/autograd)

Everything else (dtype, shape, strides) is read off the array, so it can never disagree.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import _device as _dev
from . import _dtype
from . import parts as _parts
from . import _memory_format as _mf
from ._memory_format import (channels_last, channels_last_3d, contiguous_format, memory_format,  # noqa: F401
                             preserve_format)
from ._size import Size
from ._errors import hinted
from .autograd.grad_mode import STATE


class _Storage:
    """What all views of one piece of memory share: the version counter (a view whose grad_fn
    was made at an older version needs a new one: see autograd.function.refresh_view)."""

    # A class default, not __init__: every op makes a storage, and most are never written to
    # (an instance gets its own value only when an in-place op bumps it).
    version = 0
    # The array that owns the memory, kept only once a tensor other than a view shares it (detach(),
    # view(dtype)): storage_offset() counts from it. Otherwise the root is the view's _base.
    root = None
    # False once NumPy holds the memory too (numpy(), from_numpy): resize_ may not move it then
    resizable = True


class Tensor:
    # Fixed fields (slots): every op makes a tensor and reads these, and a slot is the cheapest
    # attribute to set and to read. `_make` gives each its default. (`__dict__` stays, so that
    # code can hang its own attributes on a tensor, as on a PyTorch one.)
    __slots__ = (
        "_data", "_device", "_storage",
        "_base",  # for a view, the tensor that owns the memory
        "_requires_grad",  # read through `requires_grad`; the library's own hot paths read it directly
        "_grad", "_grad_fn", "_output_nr", "_retains_grad",
        "_accum",  # this leaf's AccumulateGrad node, once it has been recorded (see autograd/function.py)
        "_accum_hooks",  # hooks on a leaf's gradient, run before accumulation
        "_no_grad_view",  # a view taken under no_grad: may not be modified in place with grad mode on
        "_multi_view",  # an output of split/unbind (or a view of one) in the graph: no in-place ops on it
        # (False: one made while nothing required grad)
        "_seen_version",  # for a view made by a view op: the storage version its grad_fn reflects
        "__dict__", "__weakref__")
    __array_priority__ = 1000  # so `ndarray + tensor` calls Tensor.__radd__
    __hash__ = object.__hash__  # tensors are hashed by identity, as in PyTorch

    def __init__(self, *args, device=None):
        """The legacy constructor, as PyTorch's: `Tensor([1, 2])` is a float32 copy of the data,
        `Tensor(2, 3)` an uninitialised 2x3 float tensor, `Tensor(float32_array)` and `Tensor(t)`
        share memory with their argument. Prefer minitorch.tensor()."""
        made = legacy_new(None, args, device)
        for name in _FIELDS:
            setattr(self, name, getattr(made, name))

    @classmethod
    def _make(cls, data, device, storage=None, base=None):
        """A new tensor around a backend array: the one place that sets every field."""
        t = object.__new__(cls)
        if data.__class__ is not np.ndarray and isinstance(data, np.generic):
            data = np.asarray(data)  # NumPy returns scalars from 0-d ops; a tensor needs an array
        t._data = data
        t._device = device
        t._storage = _Storage() if storage is None else storage
        t._base = base
        t._requires_grad = False
        t._grad = t._grad_fn = None
        t._output_nr = 0
        t._retains_grad = False
        t._accum = t._accum_hooks = None
        t._no_grad_view = False
        t._multi_view = t._seen_version = None
        if STATE.inference:
            t._inference = True
        return t

    @classmethod
    def _zeros(cls, shape, dtype, device):
        return cls._make(device.xp.zeros(shape, dtype.np), device)

    # ---- attributes --------------------------------------------------------------------
    @property
    def shape(self):
        return tuple.__new__(Size, self._data.shape)  # the array's shape is already a tuple of ints

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        from ._ops.common import wrap_dim
        return self._data.shape[wrap_dim(dim, self._data.ndim, "size")]

    @property
    def dtype(self):
        return _dtype._FROM_NP[self._data.dtype]

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return int(self._data.size)

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return int(self._data.nbytes)

    def stride(self, dim=None):
        """Steps, in elements, between neighbours along each dim (NumPy counts in bytes)."""
        if self._data.size or any(self._data.strides):  # (an empty view of real memory keeps its strides)
            item = self._data.itemsize
            st = tuple(s // item for s in self._data.strides)
        else:
            # NumPy reports all-zero strides for a new empty array, so the layout is gone; give the
            # row-major strides PyTorch gives a new empty tensor (a size-0 dim counts as 1)
            st, step = [], 1
            for n in reversed(self._data.shape):
                st.append(step)
                step *= max(n, 1)
            st = tuple(reversed(st))
        if dim is None:
            return st
        from ._ops.common import wrap_dim
        return st[wrap_dim(dim, self.ndim, "stride")]

    def is_contiguous(self, memory_format=None):
        """True when the elements lie in memory in row-major order with no gaps (or in the order
        `memory_format` names, e.g. channels_last). Like PyTorch, the stride of a size-1 dim does
        not matter."""
        if memory_format is not None and _mf.checked(memory_format, "is_contiguous").name.startswith("channels"):
            return _mf.is_in(tuple(self._data.shape), self.stride(), memory_format)
        if _parts.is_contiguous is not None:  # a course part (minitorch/parts.py)
            return bool(_parts.is_contiguous(tuple(self._data.shape), self.stride()))
        expected = 1
        for n, s in zip(reversed(self._data.shape), reversed(self.stride())):
            if n == 1:
                continue
            if s != expected:
                return self._data.size == 0
            expected *= n
        return True

    def data_ptr(self):
        """The address of the first element (views share their base's memory)."""
        from ._ops.views import data_ptr
        return data_ptr(self._data)

    def storage_offset(self):
        from ._ops.views import _root_array, data_ptr
        root = _root_array(self)
        return (data_ptr(self._data) - data_ptr(root)) // self._data.itemsize

    def untyped_storage(self):
        from ._ops.views import _root_array
        from .storage import UntypedStorage
        return UntypedStorage(_root_array(self), self._device)

    def storage(self):
        """The memory as a TypedStorage of this tensor's dtype (deprecated in PyTorch, which warns)."""
        from ._ops.views import _root_array
        from .storage import TypedStorage, _warn_typed_storage_removal
        _warn_typed_storage_removal()
        return TypedStorage(_flat=Tensor._make(_root_array(self).reshape(-1), self._device, self._storage))

    @property
    def _version(self):
        return self._storage.version

    @property
    def grad(self):
        """The gradient accumulated by backward: kept for leaves (and for tensors that called
        retain_grad()); None until the first backward."""
        g = self._grad
        if g is None and self.grad_fn is not None and not self._retains_grad:
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
                "by mistake, make sure you access the leaf Tensor instead.", UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value):
        if value is not None:  # a wrong .grad would only fail later, inside an optimizer step
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                                   f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                                   "the same size")
            want = self.__dict__.get("_grad_dtype", self.dtype)
            if want is not None and value.dtype is not want:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dtype.CPP_NAME[value.dtype.name]}' to a tensor "
                    f"with grad_dtype '{want._short}'. The gradient must match the tensor's grad_dtype (defaults to "
                    "the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or "
                    "None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match.")
            if value._device != self._device:
                raise RuntimeError(f"attempting to assign a gradient located on device '{value._device}' to a "
                                   f"tensor located on device '{self._device}'. Please ensure that the gradient "
                                   "and the tensor are on the same device")
        self._grad = value

    @property
    def grad_dtype(self):
        """The dtype a leaf's gradient is kept in: its own dtype unless set (None: whatever arrives).
        Backward casts the gradients reaching the leaf to it."""
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self.__dict__.get("_grad_dtype", self.dtype)

    @grad_dtype.setter
    def grad_dtype(self, value):
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtype.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
        self.__dict__["_grad_dtype"] = value
        if self._accum is not None:  # (the leaf's node, already made, casts what reaches it)
            shape, _, device = self._accum._output_meta[0]
            self._accum._output_meta = ((shape, value or self.dtype, device),)

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf). A view whose memory was written in place
        since its node was made (through its base, another view, or under no_grad) gets a new one
        here, as in PyTorch: a strided view of its base as the base is now (AsStridedBackward0)."""
        if self._seen_version is not None and self._seen_version != self._storage.version:
            from .autograd.function import refresh_view
            refresh_view(self)
        return self._grad_fn

    @property
    def requires_grad(self):
        # a view (of a view op, not a detach() alias) requires grad when its base does, as in PyTorch:
        # after base.requires_grad_() or an in-place op that made the base require grad
        return self._requires_grad or (self._seen_version is not None and self._base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value):
        if value.__class__ is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:
            raise RuntimeError(_NON_LEAF_FLAG if value else _NON_LEAF_FLAG + _NON_LEAF_HINT)
        if value and not self.dtype.is_floating_point:
            raise hinted(RuntimeError, "only Tensors of floating point and complex dtype can require gradients",
                         f"this one is {self.dtype}; convert it first, e.g. t = t.float()")
        self._requires_grad = value

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def data(self):
        """The same memory, cut off from autograd *and* from its version counter (PyTorch's `.data`):
        a change made through it is never reported by backward. Prefer detach(), which is checked."""
        return self._alias(_Storage())

    @data.setter
    def data(self, other):
        if (other._data.shape, other._data.dtype, other._device) != (self._data.shape, self._data.dtype, self._device):
            self._accum = None  # the leaf's AccumulateGrad checks gradients against its old shape and dtype
        self._data = other._data
        self._storage = other._storage
        self._device = other._device

    @property
    def T(self):  # noqa: N802
        """All dims reversed (a permute, as in PyTorch). Meant for matrices: on other tensors PyTorch
        warns that it is deprecated (use .mT for batches of matrices, or permute)."""
        if self._data.ndim == 2:
            return _permute_cls().apply(self, dims=(1, 0))  # PermuteBackward0, as PyTorch records .T
        warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
                  if self.ndim == 0 else
                  "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                  "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                  "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                  "tensor.")
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self):  # noqa: N802
        """The last two dims swapped: the transpose of each matrix in a batch."""
        if self.ndim < 2:
            if self.ndim == 0:
                warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.")
                return self  # PyTorch's identity: the same tensor, not a view
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D "
                               "tensor.")
        return self.transpose(-2, -1)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    _inference = False  # made inside inference_mode() (Tensor._make)

    def is_inference(self):
        """True for a tensor made inside inference_mode(), as PyTorch's inference tensors; what
        PyTorch then refuses them (in-place updates and autograd outside the mode) is not enforced
        (README: Differences from PyTorch)."""
        return self._inference

    def type(self, dtype=None, non_blocking=False):
        """`t.type()` names the legacy type ('torch.FloatTensor'); `t.type(minitorch.LongTensor)`,
        `t.type('torch.LongTensor')` or `t.type(minitorch.int64)` converts."""
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return f"{prefix}{self.dtype._short}Tensor"
        if isinstance(dtype, str) and dtype.split(".")[-1] in LEGACY_TYPES:
            dtype = LEGACY_TYPES[dtype.split(".")[-1]]
        return self.to(getattr(dtype, "dtype", dtype) if isinstance(dtype, _LegacyTensorType) else dtype)

    def _type_name(self):
        return ("torch.cuda." if self.is_cuda else "torch.") + self.dtype._short + "Tensor"

    def get_device(self):
        return -1 if self._device.type == "cpu" else self._device.index

    # ---- conversion --------------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise hinted(RuntimeError, f"a Tensor with {self._data.size} elements cannot be converted to Scalar",
                         f"item() needs exactly one element; this tensor has shape {list(self.shape)}: index it "
                         "first, e.g. t[0].item(), or use t.tolist()")
        return self._data.reshape(-1)[0].item()

    def tolist(self):
        return self._host().tolist()

    def _host(self):
        return self._device._xp_backend.to_host(self._data)

    def numpy(self, *, force=False):
        """The same memory as a NumPy array (a write through either shows in both)."""
        if force:
            return self.detach().cpu()._data.copy() if self._device.type != "cpu" else self.detach()._data
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self._device.type != "cpu":
            raise TypeError(
                f"can't convert {self._device.type}:{self._device.index} device type tensor to numpy. Use "
                "Tensor.cpu() to copy the tensor to host memory first.")
        self._storage.resizable = False
        return self._data

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()  # PyTorch's errors: requires_grad needs detach(), a GPU tensor needs cpu()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The DLPack capsule other libraries' from_dlpack (np.from_dlpack, ...) read this tensor's
        memory through (minitorch.utils.dlpack)."""
        if self.requires_grad:  # (the capsule would lose the autograd history)
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        given = {"stream": stream, "max_version": max_version, "dl_device": dl_device, "copy": copy}
        return self._data.__dlpack__(**{k: v for k, v in given.items() if v is not None})

    def __dlpack_device__(self):
        from .utils.dlpack import DLDeviceType
        kind, index = self._data.__dlpack_device__()
        return DLDeviceType(kind), index

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size != 1:
            raise hinted(RuntimeError, "Boolean value of Tensor with no values is ambiguous" if not self._data.size
                         else "Boolean value of Tensor with more than one value is ambiguous",
                         f"shape {list(self.shape)}: use .any() or .all()")
        return bool(self._data.reshape(-1)[0])

    def __float__(self):
        if self._requires_grad and STATE.enabled:  # (PyTorch warns for float(t), once, not for t.item() or int(t))
            warn_once("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                      "Consider using tensor.detach() first.")
        return float(self._one_element().item())

    def __int__(self):
        return int(self._one_element().item())

    def _one_element(self):
        """float(t), int(t), complex(t): PyTorch's ValueError (item() raises a RuntimeError instead)."""
        if self._data.size != 1:
            raise hinted(ValueError, "only one element tensors can be converted to Python scalars",
                         f"this tensor has shape {list(self.shape)}: index one element first, or reduce it "
                         "(t.sum(), t.mean())")
        return self

    def __index__(self):
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self._one_element().item())

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def __repr__(self):
        from ._printing import tensor_str
        return tensor_str(self)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._host(), str(self._device), self.requires_grad))

    def __deepcopy__(self, memo):
        out = self.detach().clone()
        out._requires_grad = self._requires_grad
        if self.grad is not None:
            out.grad = self.grad.clone()
        memo[id(self)] = out
        return out

    # ---- dtype and device --------------------------------------------------------------
    def to(self, *args, **kwargs):
        """`.to(dtype)`, `.to(device)`, `.to(device, dtype)`, `.to(other_tensor)`.
        Returns `self` when nothing changes, as PyTorch does."""
        dtype, device, copy, fmt = _parse_to(self, args, kwargs)
        dt = self.dtype if dtype is None else dtype
        dev = self._device if device is None else device
        if fmt is not preserve_format:
            _mf.order(fmt, self.ndim)  # (a rank check for channels_last, before anything else)
        if dt is self.dtype and dev == self._device and not copy and (
                fmt is preserve_format or _suggested_format(self) is fmt):
            return self
        from ._ops.convert import to_copy
        return to_copy(self, dt, dev, fmt)

    def cpu(self):
        return self.to(_dev.cpu)

    def cuda(self, device=None):
        if device is None:
            return self.to("cuda")
        return self.to(device if not isinstance(device, int) else f"cuda:{device}")

    # float(), double(), half(), int(), long(), short(), char(), byte(), bool(): below the class

    def type_as(self, other):
        return self.to(other.dtype)

    # ---- autograd ----------------------------------------------------------------------
    def requires_grad_(self, requires_grad=True):
        if not self.is_leaf:
            if not requires_grad:
                raise RuntimeError(_NON_LEAF_FLAG + _NON_LEAF_HINT)
            return self
        if requires_grad and not self.dtype.is_floating_point:
            raise hinted(RuntimeError, "only Tensors of floating point dtype can require gradients",
                         f"this one is {self.dtype}; convert it first, e.g. t = t.float()")
        self._requires_grad = bool(requires_grad)
        return self

    def detach(self):
        """The same memory (and version counter), cut off from the graph."""
        return self._alias(self._storage)

    def _alias(self, storage):
        # Not a view in autograd's sense (no _base, as in PyTorch), so an in-place op on the alias
        # never rebases the original's graph (CopySlices) or trips the leaf checks; the memory's
        # root moves to the storage, for storage_offset().
        from ._ops.views import _root_array
        storage.root = _root_array(self)
        return Tensor._make(self._data, self._device, storage)

    def detach_(self):
        if self._base is not None and self._seen_version is not None:  # (a view op's view, not a detach() alias)
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                               "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                               "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                               "function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    def retain_grad(self):
        """Keep .grad on this non-leaf after backward (leaves always keep theirs)."""
        if self.grad_fn is None:
            if not self.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        import weakref
        node = self.grad_fn
        if node._retain is None:
            node._retain = {}
        node._retain[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    @property
    def retains_grad(self):
        return self._retains_grad

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            self.grad_fn._add_pre_hook(self._output_nr, hook)
            hooks, key = self.grad_fn._pre_hooks[self._output_nr], hook
        else:
            if self._accum_hooks is None:
                self._accum_hooks = []
                from .autograd.function import accumulator
                accumulator(self).hold()
            self._accum_hooks.append(hook)
            hooks, key = self._accum_hooks, hook
        return _RemovableHandle(hooks, key)

    def register_post_accumulate_grad_hook(self, hook):
        """Call `hook(leaf)` after a backward pass has added into this leaf's .grad (e.g. to step
        an optimizer for this parameter there and then)."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        from .autograd.function import accumulator
        node = accumulator(self)
        node.hold()  # (its hook must run even when the graph outlives every other name for the leaf)
        if node._post_accumulate is None:
            node._post_accumulate = []
        node._post_accumulate.append(hook)
        return _RemovableHandle(node._post_accumulate, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ---- copies ------------------------------------------------------------------------
    def clone(self, *, memory_format=None):
        from ._ops.convert import clone
        return clone(self, memory_format=memory_format)

    def contiguous(self, memory_format=contiguous_format):
        from ._ops.convert import clone
        if memory_format is None:  # (the default is contiguous_format; None is no memory format)
            raise TypeError("contiguous(): argument 'memory_format' must be torch.memory_format, not NoneType")
        fmt = _mf.checked(memory_format, "contiguous")
        if fmt is preserve_format:
            raise hinted(RuntimeError, "preserve memory format is unsupported by the contiguous operator",
                         "use clone() to copy a tensor keeping its layout")
        return self if self.is_contiguous(fmt) else clone(self, memory_format=fmt)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        from ._factories import copy_construct_warning, tensor
        import warnings
        copy_construct_warning(data, "tensor.new_tensor(sourceTensor)")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # warned once above, in new_tensor's words
            return tensor(data, dtype=dtype or self.dtype, device=device or self._device,
                          requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **kw):
        from ._factories import _size, sizes_by_keyword, zeros
        if kw:  # new_zeros(size=(2, 3)), as PyTorch names it
            size = sizes_by_keyword(size, kw, "new_zeros")
        return zeros(_size(size, "new_zeros"), dtype=dtype or self.dtype, device=device or self._device,
                     requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **kw):
        from ._factories import _size, sizes_by_keyword, ones
        if kw:  # new_ones(size=(2, 3)), as PyTorch names it
            size = sizes_by_keyword(size, kw, "new_ones")
        return ones(_size(size, "new_ones"), dtype=dtype or self.dtype, device=device or self._device,
                    requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
                 pin_memory=False):
        from ._factories import _size, _size_sequence, full
        return full(_size((_size_sequence(size, "new_full"),), "new_full"), fill_value, dtype=dtype or self.dtype,
                    device=device or self._device, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **kw):
        from ._factories import _size, sizes_by_keyword, empty
        if kw:  # new_empty(size=(2, 3)), as PyTorch names it
            size = sizes_by_keyword(size, kw, "new_empty")
        return empty(_size(size, "new_empty"), dtype=dtype or self.dtype, device=device or self._device,
                     requires_grad=requires_grad)

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                          pin_memory=False):
        from ._ops.scatter_views import empty_strided
        return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self._device,
                             requires_grad=requires_grad)


_PERMUTE = None


def _permute_cls():
    global _PERMUTE  # bound on first use: the op modules import this one
    if _PERMUTE is None:
        from ._ops.views import Permute
        _PERMUTE = Permute
    return _PERMUTE


_WARNED = set()


def warn_once(message, category=UserWarning):
    """PyTorch's deprecation warnings about a call (x.T on a 3-D tensor, ...) come once per process."""
    if message not in _WARNED:
        _WARNED.add(message)
        import warnings
        warnings.warn(message, category, stacklevel=3)


def legacy_new(dt, args, device):
    """What `Tensor(...)` and the typed constructors (`FloatTensor(...)`, ...) build: no argument,
    an empty tensor; sizes, an uninitialised one; a tensor or a NumPy array already of the dtype,
    one sharing its memory; other data, a copy converted to the dtype (float32 for Tensor)."""
    from . import _factories as f
    want = dt or _dtype.get_default_dtype()
    if not args:
        return f.empty(0, dtype=want, device=device)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if dt is not None and first.dtype is not dt:
            raise TypeError(f"expected {dt._short}Tensor (got {first.dtype._short}Tensor): convert it first, "
                            f"e.g. t.to({dt!r})")
        return first[...]  # an alias of the same memory (AliasBackward0 when it requires grad)
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(first, Size)):
        return f.empty(*args, dtype=want, device=device)
    if len(args) > 1:
        raise TypeError(f"new(): expected sizes (ints) or one sequence of data, got {len(args)} arguments "
                        f"of types {', '.join(type(a).__name__ for a in args)}")
    if isinstance(first, np.ndarray) and _dtype._FROM_NP.get(first.dtype) is want and (
            device is None or _dev.resolve(device).type == "cpu"):
        return f.from_numpy(first)
    if not isinstance(first, (list, tuple, np.ndarray)) and not hasattr(first, "__cuda_array_interface__"):
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
    return f.tensor(first, dtype=want, device=device)


class _LegacyTensorType(type):
    """`minitorch.FloatTensor` and friends: calling one builds a Tensor of its dtype, and
    `isinstance(t, FloatTensor)` asks for that dtype, as in PyTorch (their instances are Tensors)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj._device.type == "cpu"

    def __call__(cls, *args, device=None):
        return legacy_new(cls.dtype, args, device)


def _legacy_types():
    return {f"{d._short}Tensor": _LegacyTensorType(f"{d._short}Tensor", (), {
        "dtype": d, "is_cuda": False, "__module__": "minitorch", "__doc__": f"A Tensor of dtype {d!r} (legacy)."})
        for d in _dtype.ALL}


LEGACY_TYPES = _legacy_types()


_NON_LEAF_FLAG = "you can only change requires_grad flags of leaf variables."
_NON_LEAF_HINT = (" If you want to use a computed variable in a subgraph that doesn't require differentiation use "
                  "var_no_grad = var.detach().")


class _RemovableHandle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _rebuild(arr, device, requires_grad):
    from ._factories import tensor
    return tensor(arr, dtype=_dtype.from_numpy_dtype(arr.dtype), device=device, requires_grad=requires_grad)


def _parse_to(t, args, kwargs):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = kwargs.pop("memory_format", None)
    fmt = preserve_format if fmt is None else _mf.checked(fmt, "to")
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            dtype, device = a.dtype, a._device
        elif isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, (str, _dev.device)) or (isinstance(a, int) and not isinstance(a, bool)):
            device = a
        elif isinstance(a, bool):
            copy = a  # to(device, dtype, non_blocking, copy)
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {type(a).__name__}; expected "
                            "a dtype, a device (or 'cpu'/'cuda' string), or a tensor")
    if dtype is not None:
        dtype = _dtype.as_dtype(dtype, "to")
    if device is not None:
        device = _dev.resolve(device)
    return dtype, device, copy, fmt


def _suggested_format(t):
    """PyTorch's suggest_memory_format(): the channels-last format a 4-D / 5-D tensor's strides
    suggest, else contiguous_format (.to(memory_format=f) returns the tensor itself when it is f)."""
    from ._ops.common import suggests_channels_last
    if suggests_channels_last(tuple(t._data.shape), t.stride()):
        return channels_last if t.ndim == 4 else channels_last_3d
    return contiguous_format


def _cast(dt, name):
    def cast(self, memory_format=preserve_format):
        return self.to(dt) if memory_format is preserve_format else self.to(dt, memory_format=memory_format)
    cast.__name__ = cast.__qualname__ = name
    return cast


# t.float() is t.to(torch.float32), ...
for _name, _dt in {"float": _dtype.float32, "double": _dtype.float64, "half": _dtype.float16, "int": _dtype.int32,
                   "long": _dtype.int64, "short": _dtype.int16, "char": _dtype.int8, "byte": _dtype.uint8,
                   "bool": _dtype.bool}.items():
    setattr(Tensor, _name, _cast(_dt, _name))


def bfloat16(self, memory_format=preserve_format):
    """Refused, in words that say why (NumPy, so minitorch, has no bfloat16)."""
    return self.to(_dtype.as_dtype(_dtype.bfloat16, "Tensor.bfloat16"), memory_format=memory_format)


Tensor.bfloat16 = bfloat16

_ = STATE  # imported for the op modules that extend Tensor
_FIELDS = tuple(n for n in Tensor.__slots__ if not n.startswith("__"))

# The public name, so that the class prints as <class 'minitorch.Tensor'> (PyTorch: torch.Tensor)
Tensor.__module__ = "minitorch"
