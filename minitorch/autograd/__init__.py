"""`minitorch.autograd`: the graph, the engine, and the tools around them."""
from __future__ import annotations

from .function import Function, Node, once_differentiable
from .._errors import hinted
from .grad_mode import (enable_grad, enforce_grad_layout_policy, inference_mode, is_grad_enabled,
                        is_inference_mode_enabled, no_grad, set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck
from . import forward_ad, functional, graph  # noqa: F401
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .variable import Variable  # noqa: E402,F401


def _make_grads(outputs, grad_outputs):
    from .._tensor import Tensor
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            if out.numel() != 1:
                raise hinted(RuntimeError, "grad can be implicitly created only for scalar outputs",
                             f"this output has shape {list(out.shape)}: pass gradient=, e.g. "
                             "out.backward(minitorch.ones_like(out)), or reduce it with .sum() first")
            if not out.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            g = Tensor._make(out._device.xp.ones(out.shape, out._data.dtype), out._device)
        else:
            if not isinstance(g, Tensor):
                from .._factories import tensor
                g = tensor(g, dtype=out.dtype, device=out._device)
            if g.shape != out.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] has a "
                                   f"shape of {out.shape}.")
        grads.append(g)
    return grads


def _as_list(x):
    from .._tensor import Tensor
    if x is None:
        return None
    return [x] if isinstance(x, Tensor) else list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradient of `tensors` with respect to every leaf that requires grad, and
    add it into their `.grad`."""
    from .engine import run_backward
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors) or [None] * len(tensors)
    for t in tensors:
        # (a view taken under no_grad says it requires grad, as its base does, but leads nowhere, as in PyTorch)
        if not t.requires_grad or t._no_grad_view and t.grad_fn is None:
            raise hinted(RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn",
                         "nothing computed it from a tensor with requires_grad=True: create the input with "
                         "requires_grad=True, and don't compute under no_grad() or on .detach()")
    grads = _make_grads(tensors, grads)
    if inputs is not None:
        inputs = _as_list(inputs)
        for t in inputs:
            if t.grad_fn is not None:  # PyTorch's way to fill a non-leaf input's .grad: it retains it, for good
                t.retain_grad()
        got = run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, allow_unused=True,
                           run_inputs=True)
        for t, g in zip(inputs, got):
            if g is not None and t.grad_fn is None:
                from .engine import _accumulate
                _accumulate(t, g, create_graph, hooks=False)  # the engine ran them already
        return
    run_backward(tensors, grads, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         materialize_grads=False):
    """Return the gradients of `outputs` with respect to `inputs`, without touching any `.grad`."""
    from .engine import run_backward
    outputs = _as_list(outputs)
    inputs_l = _as_list(inputs)
    grads = _make_grads(outputs, _as_list(grad_outputs) or [None] * len(outputs))
    for t in outputs:
        if not t.requires_grad or t._no_grad_view and t.grad_fn is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs_l,
                       allow_unused=bool(allow_unused) or materialize_grads)
    if materialize_grads:
        from .._factories import zeros_like
        res = tuple(zeros_like(i) if g is None else g for i, g in zip(inputs_l, res))
    return res


__all__ = ["Function", "Node", "backward", "grad", "gradcheck", "gradgradcheck", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "inference_mode", "enforce_grad_layout_policy", "once_differentiable", "detect_anomaly",
           "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
