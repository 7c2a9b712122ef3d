"""Modules as functions of their parameters: functional_call and stack_module_state.

    params = {k: v.detach() for k, v in model.named_parameters()}
    grad(lambda p, x, y: loss_fn(functional_call(model, p, (x,)), y))(params, x, y)   # d loss / d params

    params, buffers = stack_module_state(models)    # every model's tensors, stacked on a new dim 0
    vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)))(params, buffers, x)   # all models at once
"""
from __future__ import annotations

from collections.abc import Sequence

from .._ops.join import stack
from ..nn.utils.stateless import _functional_call


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """`torch.func.functional_call`: module(*args, **kwargs) computed with the tensors of
    `parameter_and_buffer_dicts` (a dict name -> tensor, or a tuple of such dicts with distinct
    keys) in place of the module's own parameters and buffers. `args` that is not a tuple is
    one argument. Names the dicts leave out keep the module's own tensors (strict=True
    refuses that)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        repeated = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, tensors, args, kwargs, tie_weights=tie_weights, strict=strict)


def stack_module_state(models):
    """`torch.func.stack_module_state`: (params, buffers), two dicts name -> the models' tensors
    of that name stacked along a new dim 0, ready for vmap. The stacked parameters are new
    leaves (they require grad if the models' did), so an optimizer can train them directly;
    they do not share memory with the models."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors, name):
    needs = [t.requires_grad for t in tensors]
    if any(needs) and not all(needs):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if all(needs) else result
