"""`nn.utils.skip_init`: build a module without running its initialisation."""
from __future__ import annotations

import inspect


def skip_init(module_cls, *args, **kwargs):
    """`module_cls(*args, **kwargs)` with its parameters and buffers left uninitialised (as
    torch.empty leaves them), for code that sets them itself (loading a checkpoint, a custom
    init). The random stream is not advanced. PyTorch builds the module on its "meta" device and
    then allocates it; minitorch builds it normally with the random state set back afterwards,
    then replaces every tensor with an empty one of the same shape."""
    from ... import _factories
    from ...random import fork_rng
    from ..module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    with fork_rng():
        module = module_cls(*args, **kwargs)
    for sub in module.modules():
        for name, t in sub._parameters.items():
            if t is not None:
                t.data = _factories.empty_like(t)
        for name, t in sub._buffers.items():
            if t is not None:
                sub._buffers[name] = _factories.empty_like(t)
    return module
