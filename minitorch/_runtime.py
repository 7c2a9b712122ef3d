"""Process-wide settings that PyTorch programs make at their top: thread counts, float32 matmul
precision, deterministic algorithms, denormals, warn-always, and torch.compile.

minitorch computes with NumPy, whose BLAS picks its own threads and always multiplies float32 at
full precision, and whose ops are deterministic: so these settings are checked and remembered
(the getters return what was set) but change nothing, and torch.compile returns what it is given
(README: Differences from PyTorch)."""
from __future__ import annotations

import os

_SETTINGS = {
    "threads": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1),
    "interop_threads": None,
    "matmul_precision": "highest",
    "deterministic": False,
    "deterministic_warn_only": False,
    "warn_always": False,
}
_SETTINGS["interop_threads"] = _SETTINGS["threads"]


def _positive_int(op, n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{op} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{op} expects a positive integer")
    return n


def set_num_threads(n):
    _SETTINGS["threads"] = _positive_int("set_num_threads", n)


def get_num_threads():
    return _SETTINGS["threads"]


def set_num_interop_threads(n):
    _SETTINGS["interop_threads"] = _positive_int("set_num_interop_threads", n)


def get_num_interop_threads():
    return _SETTINGS["interop_threads"]


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}: expected 'highest', 'high' or 'medium'")
    _SETTINGS["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _SETTINGS["matmul_precision"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    _SETTINGS["deterministic"], _SETTINGS["deterministic_warn_only"] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _SETTINGS["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _SETTINGS["deterministic_warn_only"]


def set_deterministic_debug_mode(debug_mode):
    modes = {"default": 0, "warn": 1, "error": 2}
    mode = modes.get(debug_mode, debug_mode)
    if mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(mode > 0, warn_only=mode == 1)


def get_deterministic_debug_mode():
    if not _SETTINGS["deterministic"]:
        return 0
    return 1 if _SETTINGS["deterministic_warn_only"] else 2


def set_warn_always(b):
    _SETTINGS["warn_always"] = bool(b)


def is_warn_always_enabled():
    return _SETTINGS["warn_always"]


def set_flush_denormal(mode):
    """False: NumPy cannot flush denormal numbers to zero, so the request is not honoured (PyTorch
    answers True on x86 CPUs and then flushes)."""
    return False


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None,  # noqa: A001
            name=None, disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """torch.compile: minitorch has no compiler, so the model (or function) is returned as it is and
    runs as before; used as `@torch.compile(...)`, it returns a decorator that does the same."""
    if model is None:
        return lambda fn: fn
    if not callable(model):
        raise RuntimeError("torch.compile: the model must be a callable (an nn.Module or a function)")
    return model


def get_device(input):
    """The GPU index a tensor is on, -1 on the CPU."""
    return input.get_device()


def typename(obj):
    """'torch.FloatTensor' for a float32 tensor (the legacy type name); for a class or a function,
    its own full name; for any other object, its type's."""
    from ._tensor import Tensor
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module, name = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"

