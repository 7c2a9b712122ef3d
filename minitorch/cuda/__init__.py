"""`minitorch.cuda`: the GPU backend, on CuPy.

Nothing here imports CuPy at `import minitorch` time. The first question about CUDA
(`is_available()`, or making a tensor on "cuda") tries the import once and remembers the
answer, including *why* there is no GPU, so the error a learner sees can say it.
"""
from __future__ import annotations

from .. import _device

_probe = None  # (cupy module or None, device count, reason when unavailable)


def _cupy_state():
    global _probe
    if _probe is None:
        try:
            import cupy
        except Exception as e:  # ImportError, or a broken install raising anything
            _probe = (None, 0, f"CuPy is not installed or failed to import ({type(e).__name__}: {e}); "
                               "install CuPy on a machine with an NVIDIA GPU (`pip install -e '.[gpu]'`, "
                               "or `conda install -c conda-forge cupy`)")
        else:
            try:
                n = cupy.cuda.runtime.getDeviceCount()
            except Exception as e:
                _probe = (None, 0, f"CuPy is installed but sees no GPU ({_no_device_reason(cupy, e)})")
            else:
                _probe = (cupy, n, "" if n else "CuPy is installed but no CUDA device is visible")
    return _probe


def _no_device_reason(cupy, err):
    """Why getDeviceCount() failed, in words: CUDA reports a machine without any NVIDIA driver as
    "CUDA driver version is insufficient", which sends people off to upgrade a driver they lack."""
    try:
        driver = cupy.cuda.runtime.driverGetVersion()
    except Exception:
        driver = None
    if driver == 0:
        return "no NVIDIA driver is installed"
    return f"{type(err).__name__}: {err}"


def is_available() -> bool:
    """True only when CuPy imports and sees at least one GPU."""
    return _cupy_state()[1] > 0


def unavailable_reason() -> str:
    """Why CUDA is unavailable ('' when it is available): CuPy missing, broken, or no GPU seen."""
    return _cupy_state()[2]


def device_count() -> int:
    return _cupy_state()[1]


def current_device() -> int:
    _require()
    return _device._current_index.get("cuda", 0)


def set_device(index) -> None:
    d = _device.device(index) if not isinstance(index, int) else _device.device("cuda", index)
    _require(d.index or 0)
    _device._current_index["cuda"] = d.index or 0
    _cupy_state()[0].cuda.Device(d.index or 0).use()


def synchronize(device=None) -> None:
    """Wait for every kernel queued on the GPU (timing GPU code without this measures only the launch)."""
    cp = _require()
    index = _device.resolve(device).index if device is not None else current_device()
    with cp.cuda.Device(index):
        cp.cuda.Device(index).synchronize()


def get_device_name(device=None) -> str:
    cp = _require()
    index = _device.resolve(device).index if device is not None else current_device()
    return cp.cuda.runtime.getDeviceProperties(index)["name"].decode()


# ---- random numbers: the generator each GPU draws from ------------------------------------------
# GPU values are drawn on the host with the CPU's algorithm, from a generator per GPU, and copied
# over (see minitorch/_random.py). As in PyTorch, seeding without a GPU is quietly accepted (the
# seed is kept for when one appears), and minitorch.manual_seed seeds these too.

def manual_seed(seed) -> None:
    """Seed the current GPU's generator."""
    from .. import _random
    index = _device._current_index.get("cuda", 0)
    _random.cuda_generator(index).manual_seed(int(seed))


def manual_seed_all(seed) -> None:
    """Seed every GPU's generator."""
    from .. import _random
    _random.seed_cuda(int(seed))


def seed() -> None:
    """Seed the current GPU's generator from the operating system's entropy."""
    from .. import _random
    _random.cuda_generator(_device._current_index.get("cuda", 0)).seed()


def seed_all() -> None:
    """Seed every GPU's generator with one fresh seed."""
    from .. import _random
    _random.seed_cuda(_random.Generator().seed())


def initial_seed() -> int:
    """The current GPU generator's seed (needs a GPU, as in PyTorch)."""
    from .. import _random
    _require()
    return _random.cuda_generator(current_device()).initial_seed()


def is_initialized() -> bool:
    """Whether a GPU has been set up (here: whether CuPy found one)."""
    return _probe is not None and _probe[1] > 0


def init() -> None:
    _require()


def get_device_capability(device=None):
    """(major, minor) compute capability of the GPU."""
    props = get_device_properties(device)
    return props["major"], props["minor"]


def get_device_properties(device=None):
    """CUDA's property record of the GPU, as CuPy reads it (a dict: name, totalGlobalMem, major, ...)."""
    cp = _require()
    index = _device.resolve(device).index if device is not None else current_device()
    return cp.cuda.runtime.getDeviceProperties(index or 0)


def is_bf16_supported(including_emulation=True) -> bool:
    return False  # minitorch has no bfloat16 dtype (NumPy has none)


def get_arch_list():
    return []


# ---- memory: what CuPy's memory pool holds ------------------------------------------------------
# PyTorch's caching allocator keeps freed GPU blocks for reuse; CuPy's memory pool does the same.
# Without a GPU every count is 0 and empty_cache() does nothing, as in PyTorch's CPU build.

_peak = {"allocated": 0}


def _pool():
    cp, n, _ = _cupy_state()
    return cp.get_default_memory_pool() if n else None


def memory_allocated(device=None) -> int:
    """Bytes held by live tensors."""
    pool = _pool()
    used = 0 if pool is None else int(pool.used_bytes())
    _peak["allocated"] = max(_peak["allocated"], used)
    return used


def max_memory_allocated(device=None) -> int:
    """The largest memory_allocated() seen since the last reset_peak_memory_stats(). CuPy's pool keeps
    no peak of its own: this is the largest value seen when it was asked (README: Differences)."""
    memory_allocated(device)
    return _peak["allocated"]


def memory_reserved(device=None) -> int:
    """Bytes the pool holds from the GPU: live tensors plus freed blocks kept for reuse."""
    pool = _pool()
    return 0 if pool is None else int(pool.total_bytes())


def max_memory_reserved(device=None) -> int:
    return memory_reserved(device)


def memory_cached(device=None) -> int:
    import warnings
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    _peak["allocated"] = memory_allocated(device) if _pool() is not None else 0


def reset_max_memory_allocated(device=None) -> None:
    reset_peak_memory_stats(device)


def memory_stats(device=None):
    """The pool's counters in PyTorch's key names (empty without a GPU, as in PyTorch)."""
    from collections import OrderedDict
    if _pool() is None:
        return OrderedDict()
    return OrderedDict([("allocated_bytes.all.current", memory_allocated(device)),
                        ("allocated_bytes.all.peak", max_memory_allocated(device)),
                        ("reserved_bytes.all.current", memory_reserved(device))])


def memory_summary(device=None, abbreviated=False) -> str:
    s = memory_stats(device)
    if not s:
        return "No CUDA GPU: no memory is in use.\n"
    return "".join(f"{k:<32} {v:>16,} bytes\n" for k, v in s.items())


def mem_get_info(device=None):
    """(free, total) bytes of the GPU, as the driver reports them."""
    cp = _require()
    return tuple(int(n) for n in cp.cuda.runtime.memGetInfo())


def empty_cache() -> None:
    """Give the pool's freed blocks back to the GPU (tensors still alive keep their memory)."""
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()
        _cupy_state()[0].get_default_pinned_memory_pool().free_all_blocks()


def ipc_collect() -> None:
    _require()


def _require(index=0):
    cp, n, why = _cupy_state()
    if n == 0:
        raise RuntimeError(f"CUDA is not available: {why}. Use device='cpu', or check "
                           "minitorch.cuda.is_available() before asking for 'cuda'.")
    if index >= n:
        raise RuntimeError(f"CUDA error: invalid device ordinal: asked for cuda:{index} but only "
                           f"{n} CUDA device(s) are visible (cuda:0 .. cuda:{n - 1})")
    return cp


def _to_host(a):
    return a.get()


def _from_host(a, index):
    cp = _require(index)
    with cp.cuda.Device(index):
        return cp.asarray(a)


def _load():
    return _require()


_device.register_backend(_device._Backend(
    "cuda",
    load_module=_load,
    to_host=_to_host,
    from_host=_from_host,
    count=device_count,
    describe_missing=lambda: _cupy_state()[2],
    synchronize=lambda index: synchronize(index),
))


from . import amp  # noqa: E402,F401  (minitorch.cuda.amp: the deprecated spellings of minitorch.amp)
