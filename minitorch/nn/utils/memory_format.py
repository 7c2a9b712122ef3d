"""Storing conv weights channels-last (the layout fast convolution kernels prefer)."""
from __future__ import annotations


def convert_conv2d_weight_memory_format(module, memory_format):
    """Every Conv2d / ConvTranspose2d weight inside `module` re-laid in `memory_format`
    (minitorch.channels_last, or minitorch.contiguous_format); the values do not change.
    Returns the module, changed in place."""
    from ..conv import Conv2d, ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """The same for Conv3d / ConvTranspose3d (minitorch.channels_last_3d)."""
    from ..conv import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module
