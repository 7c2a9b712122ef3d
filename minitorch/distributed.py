"""`torch.distributed`, as a single process sees it before `init_process_group`.

minitorch runs in one process and has no process groups. Programs that can also run distributed
ask first (`dist.is_available() and dist.is_initialized()`) and take their one-process path; here
they get PyTorch's answers (available, not initialised), and the calls that need a process group
raise PyTorch's error for an uninitialised one. `init_process_group` itself refuses, saying why.
"""
from __future__ import annotations

import os

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


def is_available():
    return True


def is_initialized():
    return False


def is_torchelastic_launched():
    """True when the program was started by torchrun (it sets TORCHELASTIC_RUN_ID)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_nccl_available():
    return False


def init_process_group(*args, **kwargs):
    raise NotImplementedError("minitorch runs in one process: it has no torch.distributed process groups (run the "
                              "program without a distributed launcher)")


def _needs_group(name):
    def call(*args, **kwargs):
        raise ValueError(_NOT_INITIALIZED)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"Raises PyTorch's error: `{name}` needs a process group, and minitorch has none."
    return call


for _name in ("get_rank", "get_world_size", "get_backend", "new_group", "barrier", "all_reduce", "all_gather",
              "all_gather_object", "broadcast", "broadcast_object_list", "reduce", "reduce_scatter", "gather",
              "scatter", "send", "recv", "all_to_all"):
    globals()[_name] = _needs_group(_name)
del _name
