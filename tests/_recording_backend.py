"""A *recording* device for the CuPy API check (tests/test_cupy_api.py): device type "recording".

No GPU has to be present for most of what could break on one to show up: a call CuPy lacks, a
keyword it does not take, a NumPy call that reaches a device array, a host array mixed into
device compute. This device finds those by running the library's own tests on it.

It computes with NumPy, but where a CuPy run would differ from a NumPy run, it behaves as CuPy:

- its array module `xp` stands in for `cupy`: `xp.<name>` exists only if `cupy.<name>` does,
  `xp.__name__ == "cupy"`, `xp.ndarray` is the device array class, and every call, ufunc call
  and ufunc method call (`.at`, `.reduce`, `.accumulate`, `.outer`, ...) is recorded with its
  number of positional arguments, its keyword names and the dtypes of its array operands.
  `cupyx.scipy.special` is stood in for the same way (over SciPy).
- its arrays are `DeviceArray`s, which are *not* NumPy arrays (a CuPy array is not one either):
  `isinstance(a, np.ndarray)` is False, `np.asarray(a)` raises CuPy's TypeError, a NumPy
  function reaches it only through `__array_function__`/`__array_ufunc__` (as CuPy dispatches,
  so only to functions CuPy has), reductions and scalar indexing give 0-d arrays (not NumPy
  scalars), `flags` has only CuPy's three fields, `data` is a pointer object with `.ptr`, and
  `get()` copies to the host. Every attribute and method used on one is recorded.

Only what the library itself does (and bench/, whose GPU rows call CuPy directly) is recorded,
and made to behave as CuPy: an event whose nearest caller (past the standard library and
installed packages) is a test is not recorded, and gets NumPy's behaviour, so a test may still
inspect `_data`.

`install()` registers the device and makes it the default device of the factories, so every
tensor a test creates without `device=` lives on it; `LOG.dump(path)` writes what was recorded.
It is used by `pytest --record-cupy-usage=PATH` (tests/conftest.py), which tests/test_cupy_api.py
runs in a subprocess. `make_default` alone serves `pytest --default-device=cuda` on a GPU machine.
"""
from __future__ import annotations

import functools
import json
import os
import sys
import sysconfig
import types

import numpy as np

import minitorch
from minitorch import _device

try:
    import cupy
except Exception:  # without CuPy the device still records, but cannot mimic what CuPy lacks
    cupy = None

TYPE = "recording"

_HERE = os.path.abspath(__file__)
_LIB = os.path.dirname(os.path.abspath(minitorch.__file__)) + os.sep
_ROOT = os.path.dirname(_LIB.rstrip(os.sep)) + os.sep
# the code whose calls are recorded: the library, and the GPU benchmarks' raw-CuPy code
_CHECKED = (_LIB, os.path.join(_ROOT, "bench") + os.sep)
_OUTSIDE = tuple(sorted({os.path.abspath(p) + os.sep for k, p in sysconfig.get_paths().items()
                         if k in ("stdlib", "platstdlib", "purelib", "platlib")}))

# creation functions: the way host data is meant to reach the device, so a host array is fine there
_TAKES_HOST = {"cupy.array", "cupy.asarray", "cupy.asanyarray"}
_CUPY_MEMBERS = frozenset(dir(cupy.ndarray)) if cupy is not None else None


# ---- the log ------------------------------------------------------------------------------

_OPS = ("forward", "backward")


class Log:
    """Every distinct event, with how often it happened and a few of the library lines that made
    it; and every library function that made any (which ops ran on the device)."""

    MAX_SITES = 6

    def __init__(self):
        self.events = {}
        self.functions = set()

    def add(self, kind, name, npos=None, kw=None, dtypes=None, values=None, frame=None):
        """Record an event made by the library line `frame` is at (found when not given);
        nothing when the caller is not library code."""
        frame = frame or library_frame()
        if frame is None:
            return
        site = _where(frame)
        self.functions.add(_function(frame.f_code))
        if frame.f_code.co_name not in _OPS:
            self._callers(frame)
        key = (kind, name, npos, kw, dtypes, values)
        entry = self.events.get(key)
        if entry is None:
            entry = self.events[key] = [0, []]
        entry[0] += 1
        if site not in entry[1] and len(entry[1]) < self.MAX_SITES:
            entry[1].append(site)

    def _callers(self, frame):
        """A helper's library callers, up to the op (forward/backward) that called it: they ran on
        the device too."""
        f, n = frame.f_back, 0
        while f is not None and n < 4:
            kind = _code_kind(f.f_code)
            if kind == _OTHER:
                return
            if kind == _CHECK:
                self.functions.add(_function(f.f_code))
                if f.f_code.co_name in _OPS:
                    return
                n += 1
            f = f.f_back

    def records(self):
        out = []
        for (kind, name, npos, kw, dtypes, values), (count, sites) in self.events.items():
            out.append({"kind": kind, "name": name, "npos": npos, "kw": None if kw is None else list(kw),
                        "dtypes": None if dtypes is None else list(dtypes),
                        "values": None if values is None else [list(v) for v in values],
                        "count": count, "sites": sites})
        return out

    def dump(self, path):
        with open(path, "w") as f:
            json.dump({"cupy": getattr(cupy, "__version__", None), "events": self.records(),
                       "functions": sorted(self.functions)}, f, indent=0)


LOG = Log()


_SKIP, _CHECK, _OTHER = 0, 1, 2
_CODE_KIND = {}  # code object -> _SKIP (this module, stdlib, packages), _CHECK (library), _OTHER (tests)


def _code_kind(code):
    kind = _CODE_KIND.get(code)
    if kind is None:
        fn = code.co_filename
        if fn == _HERE or fn.startswith(_OUTSIDE) or fn.startswith("<"):
            kind = _SKIP
        elif fn.startswith(_CHECKED):
            kind = _SKIP if code.co_name == "__array__" else _CHECK
        else:
            kind = _OTHER
        _CODE_KIND[code] = kind
    return kind


def library_frame():
    """The nearest caller's frame that is project code, when that is the library (minitorch/, or
    bench/); None when it is a test (or anything else). `Tensor.__array__` is passed over: NumPy
    calls it for whoever handed NumPy the tensor, and that caller is the one to name."""
    f = sys._getframe(1)
    kinds = _CODE_KIND
    while f is not None:
        kind = kinds.get(f.f_code)
        if kind is None:
            kind = _code_kind(f.f_code)
        if kind == _SKIP:
            f = f.f_back
            continue
        return f if kind == _CHECK else None
    return None


_WHERE = {}
_FUNCTION = {}


def _function(code):
    """(file, qualified name) of a library function, as tests/test_cupy_api.py names the ops."""
    f = _FUNCTION.get(code)
    if f is None:
        f = _FUNCTION[code] = (code.co_filename[len(_ROOT):], getattr(code, "co_qualname", code.co_name))
    return f


def _where(frame):
    key = (frame.f_code, frame.f_lineno)
    site = _WHERE.get(key)
    if site is None:
        site = _WHERE[key] = f"{frame.f_code.co_filename[len(_ROOT):]}:{frame.f_lineno}"
    return site


def library_site():
    """'minitorch/x.py:LINE' of the library line that called, or None (see library_frame)."""
    f = library_frame()
    return None if f is None else _where(f)


def _dtype_of(x):
    return x._a.dtype.char if type(x) is DeviceArray else None


def _str_values(kw):
    """Keyword arguments given as strings (order='A', kind='stable', ...): CuPy may take fewer."""
    vals = tuple(sorted((k, v) for k, v in kw.items() if isinstance(v, str)))
    return vals or None


# ---- moving between the wrapper and NumPy ----------------------------------------------------

def _unwrap(x, seen, host):
    """x with every DeviceArray replaced by its NumPy array; host NumPy arrays go to `host`."""
    t = type(x)
    if t is DeviceArray:
        seen[id(x._a)] = x
        return x._a
    if t is tuple or t is list:
        return t(_unwrap(v, seen, host) for v in x)
    if t is dict:
        return {k: _unwrap(v, seen, host) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        host.append(x)
    return x


def _wrap(x, seen=None, scalars=True):
    """A result as CuPy gives it: arrays (and NumPy scalars, as 0-d arrays) on the device; an
    array that is one of the inputs (out=, a no-op astype) is handed back as the same object."""
    if isinstance(x, np.ndarray):
        if seen:
            same = seen.get(id(x))
            if same is not None and same._a is x:
                return same
        return DeviceArray(x)
    if scalars and isinstance(x, np.generic):
        return DeviceArray(np.asarray(x))
    if isinstance(x, (tuple, list)):
        items = [_wrap(v, seen, scalars) for v in x]
        if hasattr(x, "_fields"):
            return type(x)._make(items)
        return type(x)(items)
    return x


def _run(fn, args, kw):
    with np.errstate(all="ignore"):  # a GPU kernel never warns about log(0) or 0/0
        return fn(*args, **kw)


def _call(args, kw, where):
    seen, host = {}, []
    a = _unwrap(args, seen, host)
    k = _unwrap(kw, seen, host)
    if host and where not in _TAKES_HOST:
        LOG.add("host_array", where)
    return a, k, seen


def _not_in_cupy(owner, name):
    return cupy is not None and owner is not None and not hasattr(owner, name)


# ---- the array module --------------------------------------------------------------------------

class ArrayModule:
    """Stands in for `cupy` (or one of its submodules) over the matching NumPy module."""

    def __init__(self, name, real, cupy_mod):
        self.__name__ = name
        self._real = real
        self._cupy = cupy_mod
        self._cache = {}

    def __repr__(self):
        return f"<recording stand-in for module '{self.__name__}'>"

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        qual = f"{self.__name__}.{attr}"
        cached = self._cache.get(attr)
        if cached is not None:
            return cached
        missing = _not_in_cupy(self._cupy, attr)
        if missing and library_site() is not None:
            LOG.add("attribute", qual)
            raise AttributeError(f"module '{self.__name__}' has no attribute '{attr}'")
        if attr == "ndarray" and self.__name__ == "cupy":
            LOG.add("attribute", qual)
            return DeviceArray
        real = getattr(self._real, attr)
        cup = getattr(self._cupy, attr, None) if self._cupy is not None else None
        if isinstance(real, np.ufunc):
            w = _Ufunc(qual, real)
        elif isinstance(real, types.ModuleType):
            w = ArrayModule(qual, real, cup)
        elif callable(real) and not isinstance(real, type):
            w = _Function(qual, real, passthrough=cup is not None and cup is real)
        else:  # dtypes, constants (pi, inf, newaxis), classes (iinfo, errstate): existence only
            LOG.add("attribute", qual)
            return real
        if not missing:  # a name CuPy lacks is looked up (and refused to the library) every time
            self._cache[attr] = w
        return w


class _Function:
    __slots__ = ("qual", "real", "passthrough")

    def __init__(self, qual, real, passthrough):
        self.qual, self.real, self.passthrough = qual, real, passthrough

    def __call__(self, *args, **kw):
        LOG.add("function", self.qual, len(args), tuple(sorted(kw)),
                tuple(_dtype_of(a) for a in args), _str_values(kw))
        a, k, seen = _call(args, kw, self.qual)
        out = _run(self.real, a, k)
        # NumPy's own helpers that CuPy re-exports (promote_types, ...) give host values there too
        return out if self.passthrough else _wrap(out, seen)


class _Ufunc:
    """A ufunc: calls and its methods (.at, .reduce, .accumulate, .outer, .reduceat) recorded."""

    __slots__ = ("qual", "real")
    _METHODS = ("reduce", "accumulate", "at", "outer", "reduceat")

    def __init__(self, qual, real):
        self.qual, self.real = qual, real

    def __call__(self, *args, **kw):
        ops = args[:self.real.nin]
        LOG.add("ufunc", self.qual, len(args), tuple(sorted(kw)), tuple(_dtype_of(a) for a in ops),
                _str_values(kw))
        if any(type(x) in (list, tuple) for x in ops):
            LOG.add("sequence_operand", self.qual)  # CuPy's ufuncs take arrays and scalars only
        a, k, seen = _call(args, kw, self.qual)
        return _wrap(_run(self.real, a, k), seen)

    def __getattr__(self, attr):
        qual = f"{self.qual}.{attr}"
        if attr in self._METHODS:
            return functools.partial(self._method, attr, qual)
        LOG.add("attribute", qual)
        return getattr(self.real, attr)

    def _method(self, attr, qual, *args, **kw):
        LOG.add("ufunc_method", qual, len(args), tuple(sorted(kw)), tuple(_dtype_of(a) for a in args[:1]),
                _str_values(kw))
        a, k, seen = _call(args, kw, qual)
        return _wrap(_run(getattr(self.real, attr), a, k), seen)


# ---- the device array ----------------------------------------------------------------------

class _Pointer:
    """What CuPy's `ndarray.data` is: a memory pointer whose `.ptr` is the address."""

    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ptr


class _Flags:
    """CuPy's flags: c_contiguous, f_contiguous, owndata (read-only), also by index."""

    __slots__ = ("_f",)

    def __init__(self, flags):
        object.__setattr__(self, "_f", flags)

    def __getattr__(self, name):
        LOG.add("member", f"flags.{name}")
        return getattr(self._f, name)

    def __getitem__(self, key):
        LOG.add("member", f"flags[{key!r}]")
        return self._f[key]

    def __setattr__(self, name, value):
        LOG.add("member_set", f"flags.{name}")
        setattr(self._f, name, value)


_MISSING = "'cupy.ndarray' object has no attribute '{}'"
_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy "
             "array explicitly.")


class DeviceArray:
    """A NumPy array posing as a CuPy one (see the module docstring)."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100  # CuPy's: a Tensor (1000) wins `array + tensor`
    __hash__ = None

    def __init__(self, a):
        object.__setattr__(self, "_a", a)

    def __getattr__(self, name):
        lib = library_frame()
        a = object.__getattribute__(self, "_a")
        special = _SPECIAL.get(name)
        if name.startswith("__"):  # protocol probes (NumPy's conversion, hasattr checks)
            if lib is not None and _CUPY_MEMBERS is not None and name not in _CUPY_MEMBERS:
                LOG.add("probe", name, frame=lib)
                raise AttributeError(_MISSING.format(name))
            return special(self) if special is not None else getattr(a, name)
        if lib is not None:
            LOG.add("member", name, frame=lib)
            if _CUPY_MEMBERS is not None and name not in _CUPY_MEMBERS:
                raise AttributeError(_MISSING.format(name))
        if special is not None:
            return special(self)
        value = getattr(a, name)
        if callable(value):
            return functools.partial(self._method, name, value)
        return _wrap(value, scalars=False)  # T, mT, real, imag, base: arrays; shape, dtype: as they are

    def _method(self, name, bound, *args, **kw):
        LOG.add("method", name, len(args), tuple(sorted(kw)), values=_str_values(kw))
        a, k, seen = _call(args, kw, f"ndarray.{name}")
        seen[id(self._a)] = self
        return _wrap(_run(bound, a, k), seen)

    def _get(self, *args, **kw):
        LOG.add("method", "get", len(args), tuple(sorted(kw)))
        return self._a.copy()

    def __setattr__(self, name, value):
        LOG.add("member_set", name)
        setattr(self._a, name, value)

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    # -- NumPy's protocols: what CuPy does with them ----------------------------------------
    def __array__(self, dtype=None, copy=None):
        if library_site() is not None:
            LOG.add("implicit_conversion", "__array__")
            raise TypeError(_IMPLICIT)
        return self._a if dtype is None else self._a.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        name = "numpy." + ufunc.__name__ + ("" if method == "__call__" else "." + method)
        site = library_frame()
        if site is None:
            return _numpy_call(getattr(ufunc, method), inputs, kw, name, library=False)
        LOG.add("np_dispatch", name, len(inputs), tuple(sorted(kw)), tuple(_dtype_of(x) for x in inputs),
                frame=site)
        if cupy is not None and not hasattr(cupy, ufunc.__name__):
            return NotImplemented
        return _numpy_call(getattr(ufunc, method), inputs, kw, name)

    def __array_function__(self, func, types_, args, kw):
        name = f"{func.__module__}.{func.__name__}"
        site = library_frame()
        if site is None:
            return _numpy_call(func, args, kw, name, library=False)
        LOG.add("np_dispatch", name, len(args), tuple(sorted(kw)), frame=site)
        if cupy is not None:  # CuPy's rule: the function of the same name in the same submodule
            try:
                functools.reduce(getattr, func.__module__.split(".")[1:] + [func.__name__], cupy)
            except AttributeError:
                return NotImplemented
        return _numpy_call(func, args, kw, name)

    # -- conversions and container protocol -------------------------------------------------
    def __bool__(self):
        _op("__bool__", self)
        return bool(self._a)

    def __int__(self):
        _op("__int__", self)
        return int(self._a)

    def __float__(self):
        _op("__float__", self)
        return float(self._a)

    def __complex__(self):
        _op("__complex__", self)
        return complex(self._a)

    def __index__(self):
        if library_site() is not None:  # CuPy arrays have no __index__
            _op("__index__", self)
            raise TypeError("'cupy.ndarray' object cannot be interpreted as an integer")
        return self._a.__index__()

    def __len__(self):
        _op("__len__", self)
        return len(self._a)

    def __iter__(self):
        _op("__iter__", self)
        return (_wrap(x) for x in self._a)

    def __contains__(self, value):
        _op("__contains__", self)  # CuPy lacks it: `in` falls back to iterating, one sync per element
        return value in self._a

    def __copy__(self):
        _op("__copy__", self)
        return DeviceArray(self._a.copy())

    def __deepcopy__(self, memo):
        _op("__deepcopy__", self)
        return DeviceArray(self._a.copy())

    def __getitem__(self, key):
        seen, host = {}, []
        k = _unwrap(key, seen, host)
        _index("__getitem__", key, host)
        return _wrap(self._a[k])

    def __setitem__(self, key, value):
        seen, host = {}, []
        k = _unwrap(key, seen, host)
        v = _unwrap(value, seen, [])
        _index("__setitem__", key, host)
        if isinstance(value, np.ndarray):
            LOG.add("host_transfer", "__setitem__ value")  # CuPy copies it over: it works, slowly
        self._a[k] = v

    def __imatmul__(self, other):
        if library_site() is not None:  # CuPy has no in-place matmul: Python rebinds to a new array
            _op("__imatmul__", self, other)
            return NotImplemented
        self._a @= _unwrap(other, {}, [])
        return self


# CuPy's members that NumPy spells otherwise (or lacks)
_SPECIAL = {
    "get": lambda d: d._get,
    "data": lambda d: _Pointer(d._a.__array_interface__["data"][0]),
    "flags": lambda d: _Flags(d._a.flags),
    "device": lambda d: types.SimpleNamespace(id=0),
    "__cuda_array_interface__": lambda d: {
        "shape": d._a.shape, "typestr": d._a.dtype.str, "version": 3,
        "data": (d._a.__array_interface__["data"][0], not d._a.flags.writeable),
        "strides": None if d._a.flags.c_contiguous else d._a.strides},
}


def _numpy_call(fn, args, kw, where, library=True):
    """A NumPy function or ufunc that reached device arrays through NumPy's dispatch."""
    seen, host = {}, []
    a, k = _unwrap(args, seen, host), _unwrap(kw, seen, host)
    if not library:  # a test's own NumPy call: plain NumPy results
        return fn(*a, **k)
    if host:
        LOG.add("host_array", where)
    return _wrap(_run(fn, a, k), seen)


def _op(name, *operands):
    LOG.add("operator", name, dtypes=tuple(_dtype_of(x) for x in operands))


def _index_kind(k):
    if type(k) is DeviceArray:
        return "array[bool]" if k._a.dtype == bool else "array[int]"
    if isinstance(k, np.ndarray):
        return "host array"
    if isinstance(k, (list, tuple)):
        return "list"
    if k is None or k is Ellipsis:
        return repr(k)
    return type(k).__name__


def _index(name, key, host):
    site = library_frame()
    if site is None:
        return
    keys = key if type(key) is tuple else (key,)
    LOG.add("index", name, dtypes=tuple(_index_kind(k) for k in keys), frame=site)
    if host or any(type(k) is list for k in keys):
        LOG.add("host_transfer", f"{name} index", frame=site)  # CuPy copies a host index over


# arithmetic and comparison operators: recorded with their operands' dtypes (the ufunc named
# here is the one CuPy runs, whose loops decide which dtypes it takes)
OPERATOR_UFUNC = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "power", "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
    "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift", "divmod": "divmod",
    "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal", "eq": "equal", "ne": "not_equal",
    "neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert",
}
_UNARY = ("neg", "pos", "abs", "invert")
_COMPARE = ("lt", "le", "gt", "ge", "eq", "ne")


def _defers(other):
    """CuPy's rule for `array <op> other`: let `other`'s reflected method run instead."""
    return (not isinstance(other, (DeviceArray, np.ndarray, np.generic, int, float, complex, bool))
            and getattr(other, "__array_priority__", 0) > DeviceArray.__array_priority__)


def _binary(name, reflected=False, inplace=False):
    dunder = f"__{'r' if reflected else 'i' if inplace else ''}{name}__"

    def op(self, other):
        if _defers(other):
            return NotImplemented
        site = library_frame()
        seen, host = {}, []
        o = _unwrap(other, seen, host)
        if site is not None:
            first, second = (other, self) if reflected else (self, other)
            LOG.add("operator", dunder, dtypes=(_dtype_of(first), _dtype_of(second)), frame=site)
            if host:
                LOG.add("host_array", dunder, frame=site)  # CuPy's ufunc refuses a host array
        out = _run(getattr(self._a, dunder), (o,), {})
        if out is NotImplemented:
            return out
        return self if inplace else _wrap(out)
    op.__name__ = dunder
    return op


def _unary(name):
    dunder = f"__{name}__"

    def op(self):
        _op(dunder, self)
        return _wrap(_run(getattr(self._a, dunder), (), {}))
    op.__name__ = dunder
    return op


for _n in OPERATOR_UFUNC:
    if _n in _UNARY:
        setattr(DeviceArray, f"__{_n}__", _unary(_n))
        continue
    setattr(DeviceArray, f"__{_n}__", _binary(_n))
    if _n not in _COMPARE:
        setattr(DeviceArray, f"__r{_n}__", _binary(_n, reflected=True))
        if _n not in ("divmod", "matmul"):
            setattr(DeviceArray, f"__i{_n}__", _binary(_n, inplace=True))
del _n


# ---- the device --------------------------------------------------------------------------------

def _special_module():
    try:
        import scipy.special as real
    except ImportError:
        real = types.SimpleNamespace()
    try:
        import cupyx.scipy.special as cup
    except Exception:
        cup = None
    return ArrayModule("cupyx.scipy.special", real, cup)


XP = ArrayModule("cupy", np, cupy)


def __getattr__(name):
    # `__import__(type(arr).__module__)` is how code finds a CuPy array's module; for a
    # DeviceArray that is this module, so it answers as the stand-in array module does
    return getattr(XP, name)


def _from_host(a, index):
    return DeviceArray(np.array(a, copy=True))


def _to_host(a):
    return a.get()


def register():
    """Register the recording device (idempotent); returns it."""
    if TYPE not in _device._BACKENDS:
        _device.register_backend(_device._Backend(
            TYPE, load_module=lambda: XP, to_host=_to_host, from_host=_from_host, count=lambda: 1,
            describe_missing=lambda: "the recording device is registered by the CuPy API check only"))
    return _device.device(TYPE, 0)


def unregister():
    """Take the device away again (a test that registered it in a shared process)."""
    _device._BACKENDS.pop(TYPE, None)
    for key in [k for k in _device._cache if isinstance(k, tuple) and k and isinstance(k[0], str)
                and k[0].split(":")[0] == TYPE]:
        del _device._cache[key]


def make_default(dev):
    """Make `dev` the device of every tensor a factory makes without `device=` (PyTorch's
    set_default_device, for a test run). Tests compare results through `.numpy()`, so for a
    test's own call that copies a tensor of `dev` to the host; from library code it raises,
    as PyTorch does on a GPU (and on the recording device that call is recorded)."""
    from minitorch import _factories
    from minitorch._tensor import Tensor

    dev = _device.resolve(dev)
    original_target = _factories._target
    _factories._target = lambda device: dev if device is None else original_target(device)
    original_numpy = Tensor.numpy

    @functools.wraps(original_numpy)
    def numpy(self, *, force=False):
        if self._device.type == dev.type and not force:
            if library_frame() is not None:
                LOG.add("implicit_conversion", "Tensor.numpy")
            elif not self.requires_grad:
                return self._device._xp_backend.to_host(self._data)
        return original_numpy(self, force=force)
    Tensor.numpy = numpy


def install():
    """The recording run: register the device, make it the default, and route
    `cupyx.scipy.special` (which the library imports for special functions on a CUDA device)
    to the recorder."""
    if TYPE in _device._BACKENDS:
        return
    make_default(register())
    special = _special_module()
    sys.modules["cupyx.scipy.special"] = special
    try:
        import cupyx.scipy
        cupyx.scipy.special = special
    except Exception:
        parent = types.ModuleType("cupyx.scipy")
        parent.special = special
        top = sys.modules.setdefault("cupyx", types.ModuleType("cupyx"))
        top.scipy = parent
        sys.modules["cupyx.scipy"] = parent
