"""`minitorch.cuda`: the GPU backend, on CuPy.

Nothing here imports CuPy at `import minitorch` time. The first question about CUDA
(`is_available()`, or making a tensor on "cuda") tries the import once and remembers the
answer, including *why* there is no GPU, so the error a learner sees can say it.
"""
from __future__ import annotations

from . import _device

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
    from . import _random
    index = _device._current_index.get("cuda", 0)
    _random.cuda_generator(index).manual_seed(int(seed))


def manual_seed_all(seed) -> None:
    """Seed every GPU's generator."""
    from . import _random
    _random.seed_cuda(int(seed))


def seed() -> None:
    """Seed the current GPU's generator from the operating system's entropy."""
    from . import _random
    _random.cuda_generator(_device._current_index.get("cuda", 0)).seed()


def seed_all() -> None:
    """Seed every GPU's generator with one fresh seed."""
    from . import _random
    _random.seed_cuda(_random.Generator().seed())


def initial_seed() -> int:
    """The current GPU generator's seed (needs a GPU, as in PyTorch)."""
    from . import _random
    _require()
    return _random.cuda_generator(current_device()).initial_seed()


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
