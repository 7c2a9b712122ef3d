"""`minitorch.save` / `minitorch.load`: checkpoints in PyTorch's own file format, so a file
written here loads in PyTorch, and a PyTorch checkpoint (a state dict) loads here.

A checkpoint is a zip archive, stored uncompressed:

    archive/data.pkl     the object, pickled (protocol 2). Each tensor in it is the call
                         torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks),
                         its storage a reference ('storage', torch.FloatStorage, key, location, numel)
    archive/data/<key>   the raw bytes of each storage (little-endian); tensors that share memory
                         (views) share one storage, and still do after loading
    archive/version, archive/byteorder, ...   small records PyTorch's reader expects

Reading is safe by default (`weights_only=True`, PyTorch's default since 2.6): the unpickler
resolves only an allow-list of names (tensors, Parameter, dtypes, devices, Size, OrderedDict,
sets, ...), so a file cannot make `load` run code. Anything else is refused with an
UnpicklingError that names it. `weights_only=False` unpickles fully (whole modules, your own
classes), as PyTorch does: use it only for files you trust.
"""
from __future__ import annotations

import _compat_pickle
import collections
import contextlib
import io
import os
import pickle
import struct
import zipfile

from . import _dtype
from ._device import device as _device_cls
from ._size import Size
from ._tensor import Tensor

__all__ = ["save", "load", "add_safe_globals", "safe_globals", "get_safe_globals", "clear_safe_globals"]

# The storage class PyTorch names for each dtype
_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage", "int64": "LongStorage",
    "int32": "IntStorage", "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage",
}
_STORAGE_DTYPES = {v: k for k, v in _STORAGE_NAMES.items()}
_ALIGN = 64  # PyTorch aligns each storage's bytes in the archive, so a reader may map them directly


# ---- saving ---------------------------------------------------------------------------

class _Global:
    """A name written into the pickle as `module name` (PyTorch's, for its reader) without
    importing it: the pickle refers to torch._utils._rebuild_tensor_v2 whether or not PyTorch
    is installed."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle requires a reduce function to be callable; this one is never called
        raise TypeError(f"{self.module}.{self.name} is a name written into checkpoints, not a function")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_ORDERED_DICT = collections.OrderedDict


class _Storage:
    """One block of memory to write: the key of its record, and its bytes."""

    def __init__(self, key, flat, location):
        self.key, self.flat, self.location = key, flat, location
        self.pid = ("storage", _Global("torch", _STORAGE_NAMES[_dtype._FROM_NP[flat.dtype].name]), key, location,
                    int(flat.size))


class _Pickler(pickle._Pickler):
    """The pure-Python pickler (its `save_global` can be extended), writing tensors as PyTorch does."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}  # id(memory root) -> _Storage

    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, _Storage) else None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            from .nn.parameter import Parameter
            if isinstance(obj, Parameter):
                plain = Tensor._make(obj._data, obj._device, obj._storage, obj._base)
                return _REBUILD_PARAMETER, (plain, obj.requires_grad, _ORDERED_DICT())
            storage, offset, size, stride = self._storage_of(obj)
            return _REBUILD_TENSOR, (storage, offset, size, stride, obj.requires_grad, _ORDERED_DICT())
        if isinstance(obj, _dtype.dtype):
            return _Global("torch", obj.name), None  # the bare name (torch.float32): see save_reduce
        if isinstance(obj, _device_cls):
            return _Global("torch", "device"), ((obj.type,) if obj.index is None else (obj.type, obj.index))
        if isinstance(obj, Size):
            return _Global("torch", "Size"), (tuple(obj),)
        return NotImplemented

    def save_reduce(self, func, args, *rest, **kw):
        if args is None:  # a dtype: the global itself is the object
            return self.save(func)
        return super().save_reduce(func, args, *rest, **kw)

    def _save_torch_global(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    dispatch[_Global] = _save_torch_global

    def _storage_of(self, t):
        """The storage a tensor lives in, and its offset and strides (in elements) within it."""
        from ._ops.views import _root_array
        root = _root_array(t)
        plain = root.flags.c_contiguous or root.flags.f_contiguous
        if plain and all(s >= 0 for s in t._data.strides):
            key = id(root)
            if key not in self.storages:
                flat = t._device._xp_backend.to_host(root).reshape(-1, order="A")
                self.storages[key] = _Storage(str(len(self.storages)), flat, str(t._device))
            return self.storages[key], t.storage_offset(), tuple(t.shape), tuple(t.stride())
        # memory that is not one block (e.g. from_numpy of a strided array): save a compact copy
        flat = t._device._xp_backend.to_host(t._data).reshape(-1).copy()
        s = _Storage(str(len(self.storages)), flat, str(t._device))
        self.storages[("copy", id(t))] = s
        return s, 0, tuple(t.shape), tuple(Tensor._make(flat.reshape(t.shape), t._device).stride())


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write `obj` (a tensor, a state dict, an optimizer's state dict, or any picklable object
    holding tensors) to `f`, a path or a binary file object, in PyTorch's checkpoint format."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("minitorch.save writes PyTorch's zip format only (_use_new_zipfile_serialization"
                                  "=True); the legacy format is not supported")
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle_protocol)
    pickler.dump(obj)
    with _open_write(f) as out:
        _write_archive(out, buf.getvalue(), pickler.storages.values())


@contextlib.contextmanager
def _open_write(f):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            yield fh
    else:
        if not hasattr(f, "write"):
            raise AttributeError(f"save(): expected a file path or a binary file object, got {type(f).__name__}")
        yield f


def _write_archive(out, data_pkl, storages):
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
        def record(name, data, align=False):
            info = zipfile.ZipInfo("archive/" + name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            if align:
                # pad the local header's extra field so the bytes start at a multiple of _ALIGN
                start = z.fp.tell() + 30 + len(info.filename.encode("utf-8")) + 4
                pad = -start % _ALIGN
                info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            z.writestr(info, data)
        record("data.pkl", data_pkl)
        record(".format_version", b"1")
        record(".storage_alignment", str(_ALIGN).encode())
        record("byteorder", b"little")
        for s in storages:
            flat = s.flat if s.flat.dtype.byteorder != ">" else s.flat.astype(s.flat.dtype.newbyteorder("<"))
            record(f"data/{s.key}", flat.tobytes(), align=True)
        record("version", b"3\n")


# ---- loading --------------------------------------------------------------------------

_safe_globals = {}  # "module.name" -> object, added by add_safe_globals
_BLOCKED_MODULES = ("sys", "os", "posix", "nt", "subprocess", "builtins.eval")


def add_safe_globals(safe_globals):
    """Allow `load(weights_only=True)` to resolve these classes or functions too (trust them first)."""
    for g in safe_globals:
        if isinstance(g, tuple):
            obj, name = g
        else:
            obj, name = g, f"{g.__module__}.{g.__qualname__}"
        _safe_globals[name] = obj


def get_safe_globals():
    return list(_safe_globals.values())


def clear_safe_globals():
    _safe_globals.clear()


@contextlib.contextmanager
def safe_globals(globals_list):
    before = dict(_safe_globals)
    add_safe_globals(globals_list)
    try:
        yield
    finally:
        _safe_globals.clear()
        _safe_globals.update(before)


class _StorageType:
    """What `torch.FloatStorage` and friends mean in a checkpoint: the dtype of a storage."""

    def __init__(self, name):
        self.dtype = getattr(_dtype, _STORAGE_DTYPES[name])


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    """A tensor over `storage` (a flat tensor), as PyTorch lays it out: offset and strides in elements."""
    flat = storage._data
    size, stride = tuple(size), tuple(stride)
    item = flat.itemsize
    n = 1
    for s in size:
        n *= s
    if storage_offset == 0 and n == flat.size and _is_row_major(size, stride):  # the whole storage, in order
        t = Tensor._make(flat.reshape(size), storage._device, storage._storage)
    else:
        xp = storage._device.xp
        strides = tuple(s * item for s in stride)
        arr = xp.lib.stride_tricks.as_strided(flat[storage_offset:], shape=size, strides=strides)
        t = Tensor._make(arr, storage._device, storage._storage, storage)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _is_row_major(size, stride):
    expected = 1
    for n, s in zip(reversed(size), reversed(stride)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def _rebuild_parameter(data, requires_grad, backward_hooks, *state):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    p.__dict__.update(state or {})
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    from .nn.parameter import Parameter
    t = func(*args)
    if new_type is Parameter and not isinstance(t, Parameter):
        t = Parameter(t, t.requires_grad)
    if state:
        t.__dict__.update(state if isinstance(state, dict) else {})
    return t


def _get_layout(name):
    return name  # only torch.strided tensors are supported; the layout needs no object here


def _allowed():
    """What a checkpoint may name, as PyTorch's weights-only loader allows it: "module.name" -> object."""
    from . import nn
    names = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.nn.parameter.Parameter": nn.Parameter,
        "torch.Tensor": Tensor,
        "torch._tensor.Tensor": Tensor,
        "torch.Size": Size,
        "torch.device": _device_cls,
        "torch.serialization._get_layout": _get_layout,
        "_codecs.encode": _codecs_encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
    }
    for name in _STORAGE_DTYPES:
        names[f"torch.{name}"] = _StorageType(name)
    for d in _dtype._FROM_NP.values():
        names[f"torch.{d.name}"] = d
    return names


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    import codecs
    return codecs.encode(obj, encoding, errors)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, archive, prefix, location, weights_only, encoding):
        super().__init__(file, encoding=encoding)
        self.archive, self.prefix, self.location = archive, prefix, location
        self.weights_only = weights_only
        self.allowed = {**_allowed(), **_safe_globals}
        self.loaded = {}
        self.big_endian = False

    def find_class(self, module, name):
        if (module, name) in _compat_pickle.NAME_MAPPING:  # protocol 2 writes Python 2's names (__builtin__.set)
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        full = f"{module}.{name}"
        found = self.allowed.get(full)
        if found is not None:
            return found
        if self.weights_only:
            raise pickle.UnpicklingError(_refusal(module, name))
        if module == "torch" or module.startswith("torch."):
            return _torch_name(module, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        kind, storage_type, key, location, numel = pid[:5]
        if kind != "storage":
            raise pickle.UnpicklingError(f"unknown persistent id kind {kind!r} in the checkpoint")
        if key not in self.loaded:
            dt = storage_type.dtype if isinstance(storage_type, _StorageType) else storage_type
            self.loaded[key] = self._read_storage(key, dt, location, numel)
        return self.loaded[key]

    def _read_storage(self, key, dt, location, numel):
        import numpy as np  # the bytes are read on the host, then placed on the device
        raw = self.archive.read(f"{self.prefix}data/{key}")
        np_dt = np.dtype(dt.np).newbyteorder(">" if self.big_endian else "<")
        flat = np.frombuffer(raw, dtype=np_dt, count=numel).astype(dt.np)  # a writable copy in native order
        storage = Tensor._make(flat, _device_cls("cpu"))
        return _place(storage, location, self.location)


def _refusal(module, name):
    # PyTorch's wording, its bold escape codes included, so the message reads as the learner will see it there
    head = ("Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. \n"
            "\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from "
            "`False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but "
            "it can result in arbitrary code execution. Do it only if you got the file from a trusted source.\n"
            "\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the "
            "following error message.\n\tWeightsUnpickler error: ")
    root = module.split(".")[0]
    if root in _BLOCKED_MODULES or module in _BLOCKED_MODULES:
        return head + f"Trying to load unsupported GLOBAL {module}.{name} whose module {root} is blocked."
    return head + (f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by default. Please use "
                   f"`minitorch.serialization.add_safe_globals([{name}])` or the "
                   f"`minitorch.serialization.safe_globals([{name}])` context manager to allowlist this global if "
                   "you trust this class/function.")


def _torch_name(module, name):
    """A PyTorch name in a fully unpickled file, found in minitorch (torch.nn.modules.linear.Linear -> nn.Linear)."""
    import importlib
    for mod in ("mini" + module, ".".join(["minitorch"] + module.split(".")[1:2]), "minitorch"):
        try:
            obj = getattr(importlib.import_module(mod), name)
        except (ImportError, AttributeError):
            continue
        return obj
    raise pickle.UnpicklingError(f"the checkpoint needs {module}.{name}, which minitorch does not have")


def _place(storage, saved_location, map_location):
    """Where a storage saved at `saved_location` goes, by PyTorch's map_location rules."""
    if callable(map_location) and not isinstance(map_location, (str, _device_cls)):
        out = map_location(storage, saved_location)
        if out is None:
            out = storage
        return out if isinstance(out, Tensor) else storage.to(out)
    target = saved_location
    if isinstance(map_location, dict):
        target = map_location.get(saved_location, saved_location)
    elif map_location is not None:
        target = map_location
    target = str(target) if isinstance(target, _device_cls) else target
    if target == "cpu":
        return storage
    if str(target).startswith("cuda"):
        from . import cuda
        if not cuda.is_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
                "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') "
                "to map your storages to the CPU.")
    return storage.to(target)


def _not_a_checkpoint(what):
    return pickle.UnpicklingError(
        f"{what} is not a checkpoint written by minitorch.save or torch.save: expected a zip archive holding "
        "data.pkl (PyTorch's format since 1.6). PyTorch's legacy (non-zip) format is not supported; re-save the "
        "file with a recent PyTorch.")


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, encoding="utf-8",
         **pickle_load_args):
    """Read an object written by `save` (or by PyTorch's `torch.save`).

    weights_only=True (the default): only tensors, Parameters, dtypes, devices, sizes and plain
    containers (dict, OrderedDict, list, tuple, set, numbers, strings) are rebuilt; any other
    name in the file is refused. weights_only=False unpickles everything (your own classes,
    whole modules): it can run code from the file, so only use it on files you trust.

    map_location: None (where each tensor was saved), a device or string ("cpu"), a dict
    {"cuda:0": "cpu"}, or a function (storage, location) -> storage.
    """
    if weights_only is None:
        weights_only = True
    what = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file object"
    with _open_read(f) as fh:
        if not zipfile.is_zipfile(fh):
            raise _not_a_checkpoint(what)
        fh.seek(0)
        with zipfile.ZipFile(fh) as z:
            pkl = [n for n in z.namelist() if n.endswith("data.pkl") and n.count("/") <= 1]
            if not pkl:
                raise _not_a_checkpoint(what)
            prefix = pkl[0][: -len("data.pkl")]
            un = _Unpickler(io.BytesIO(z.read(pkl[0])), z, prefix, map_location, weights_only, encoding)
            names = set(z.namelist())
            if prefix + "byteorder" in names:  # files without the record are little-endian
                un.big_endian = z.read(prefix + "byteorder").strip() == b"big"
            try:
                return un.load()
            except (AttributeError, TypeError, ValueError, KeyError, EOFError, IndexError) as e:
                if weights_only:
                    raise pickle.UnpicklingError(
                        f"Weights only load failed: the checkpoint could not be read ({type(e).__name__}: {e})"
                    ) from e
                raise


@contextlib.contextmanager
def _open_read(f):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            yield fh
    else:
        if not (hasattr(f, "read") and hasattr(f, "seek")):
            raise AttributeError(f"load(): expected a file path or a seekable binary file object, got "
                                 f"{type(f).__name__}")
        yield f
