"""`torch.nn.parallel`: DataParallel, and DistributedDataParallel as one process sees it.

DataParallel splits each batch across the GPUs, runs a copy of the module on each and gathers
the outputs. With no GPU it is PyTorch's too: it just calls the module (device_ids is []), while
its state_dict names every entry `module.<name>`, which is why checkpoints saved from it carry
that prefix. minitorch runs it on one GPU (the module is moved there and called); splitting a
batch across several is refused with an error.
"""
from __future__ import annotations

from ... import cuda
from ..._device import device as _device
from ..._tensor import Tensor
from ...distributed import _NOT_INITIALIZED
from ..module import Module

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not cuda.is_available():
            self.module, self.device_ids = module, []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        self.dim, self.module = dim, module
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device if output_device is not None else self.device_ids[0])
        self.src_device_obj = _device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        if len(self.device_ids) > 1:
            raise NotImplementedError(f"DataParallel over several GPUs (device_ids={self.device_ids}) is not part "
                                      "of minitorch: pass device_ids=[0], or call the module itself")
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")
        to = self.src_device_obj
        inputs = tuple(_moved(a, to) for a in inputs)
        return self.module(*inputs, **{k: _moved(v, to) for k, v in kwargs.items()})


def _device_index(d):
    return d if isinstance(d, int) else _device(d).index or 0


def _moved(obj, to):
    """obj with every tensor in it (also in lists, tuples and dicts) on device `to`."""
    if isinstance(obj, Tensor):
        return obj.to(to)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_moved(o, to) for o in obj)
    if isinstance(obj, dict):
        return {k: _moved(v, to) for k, v in obj.items()}
    return obj


class DistributedDataParallel(Module):
    """Needs a process group (torch.distributed.init_process_group), which minitorch, running in
    one process, never has: refused at construction with PyTorch's error for that case."""

    def __init__(self, module, *args, **kwargs):
        raise ValueError(_NOT_INITIALIZED)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """DataParallel's forward as a function; PyTorch's refuses to run without a GPU."""
    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))
