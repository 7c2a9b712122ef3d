"""`minitorch.accelerator`: PyTorch's device-generic questions (`torch.accelerator.is_available()`,
`current_accelerator()`), which recent tutorials ask before choosing a device. The only
accelerator minitorch knows is a CUDA GPU through CuPy (minitorch.cuda)."""
from __future__ import annotations

from . import cuda


def is_available() -> bool:
    return cuda.is_available()


def current_accelerator(check_available=False):
    """device('cuda') when a GPU is there, else None (as PyTorch's CPU build answers)."""
    from ._device import device
    return device("cuda") if cuda.is_available() else None


def device_count() -> int:
    return cuda.device_count()


def current_device_index() -> int:
    return cuda.current_device() if cuda.is_available() else -1


current_device_idx = current_device_index


def set_device_index(device) -> None:
    cuda.set_device(device)


set_device_idx = set_device_index


def synchronize(device=None) -> None:
    if cuda.is_available():
        cuda.synchronize(device)
