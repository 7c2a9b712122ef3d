"""`torch.jit`: TorchScript, PyTorch's compiler of models to a graph it can save and run without
Python, is not part of minitorch. What library code calls as guards works (is_scripting(),
is_tracing(), the decorators @ignore / @unused / @export, annotate); compiling refuses with an
error that says what to do instead."""
from __future__ import annotations

from typing import Final  # noqa: F401  (torch.jit.Final, for annotations)

_WHY = ("TorchScript is not part of minitorch: run the model as it is (drop torch.jit.{op}), or use "
        "torch.compile(model), which minitorch accepts and returns unchanged")


def script(obj, *args, **kwargs):
    raise NotImplementedError(_WHY.format(op="script"))


def trace(func, *args, **kwargs):
    raise NotImplementedError(_WHY.format(op="trace"))


def trace_module(mod, *args, **kwargs):
    raise NotImplementedError(_WHY.format(op="trace_module"))


def save(m, f, *args, **kwargs):
    raise NotImplementedError(_WHY.format(op="save") + "; to save weights, use torch.save(model.state_dict(), f)")


def load(f, *args, **kwargs):
    raise NotImplementedError(_WHY.format(op="load") + "; to load weights, use model.load_state_dict(torch.load(f))")


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def ignore(drop=False, **kwargs):
    """@torch.jit.ignore (or @ignore(drop=True)): leaves the function as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj
