"""`minitorch.random`, as `torch.random`: the default generator and its state.

    minitorch.manual_seed(0)                  # same as minitorch.random.manual_seed(0)
    minitorch.rand(3)                         # tensor([0.4963, 0.7682, 0.0885]), as PyTorch
    with minitorch.random.fork_rng():         # draws inside leave the outer stream untouched
        minitorch.randn(5)
"""
from __future__ import annotations

import contextlib

from ._random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed,  # noqa: F401
                      set_rng_state)

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state", "thread_safe_generator"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Run a block with its own copy of the random state: on leaving, the default generator
    is put back where it was. (GPU draws come from the same host generator, so `devices` has
    nothing more to save.)"""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator():
    """The generator a DataLoader *thread* worker draws from; None elsewhere (the main process, a
    process worker), which makes the random functions use the default generator. minitorch's
    DataLoader has process workers only, so it is always None here."""
    return None
