"""`nn.utils.stateless`: call a module with other tensors in place of its parameters and buffers.

    functional_call(model, {"weight": w, "bias": b}, x)   is   model(x), computed with w and b

For the duration of the call each named tensor is swapped into the module (into
`_parameters` / `_buffers`, so it need not be an nn.Parameter), and the module's own tensors
are put back afterwards, even if the call raises. This is what lets torch.func transforms
differentiate a model with respect to its parameters: they are now ordinary arguments.
"""
from __future__ import annotations

import contextlib
import warnings

from ..._tensor import Tensor

__all__ = ["functional_call"]

_MISSING = object()  # a name the module did not have before the call


def _swap_tensor(module, name, tensor):
    """Put `tensor` at `module.<name>` (a dotted path); return what was there (_MISSING for nothing)."""
    prefix, _, attr = name.rpartition(".")
    owner = module.get_submodule(prefix)
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for store in (owner._parameters, owner._buffers):
        if attr in store:
            orig = store[attr]
            if tensor is _MISSING:
                del store[attr]
            else:
                store[attr] = tensor
            return orig
    orig = getattr(owner, attr, _MISSING)
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{attr}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(owner, attr, tensor)
    elif hasattr(owner, attr):
        delattr(owner, attr)
    return orig


def _untie(module, parameters_and_buffers):
    """With tied weights (one tensor under two names, e.g. an embedding shared with the output
    layer), a value given for one name goes to every name of that tensor."""
    names_of = {}  # id(tensor) -> its names
    for name, t in [*module.named_parameters(remove_duplicate=False), *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given = [n for n in parameters_and_buffers if n in tied]
    for name in given:
        names = tied[name]
        values = {id(parameters_and_buffers[n]) for n in names if n in parameters_and_buffers}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             "Consider using tie_weights=False")
    untied = dict(parameters_and_buffers)
    for name in given:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    tensors = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = {n for n, _ in [*module.named_parameters(remove_duplicate=False),
                                *module.named_buffers(remove_duplicate=False)]}
        missing, unexpected = sorted(valid - set(tensors)), sorted(set(tensors) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(msgs))
    originals = {}
    try:
        for name, t in tensors.items():
            originals[name] = _swap_tensor(module, name, t)
        yield
    finally:
        now = {name: _swap_tensor(module, name, orig) for name, orig in originals.items()}
        # a module that rebinds one of them (self.count = self.count + 1) leaves the new value in the dict
        parameters_and_buffers.update({k: now[k] for k in parameters_and_buffers if k in now})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named tensors of `parameters_and_buffers` in place of the
    module's own (deprecated in PyTorch 2.0: use torch.func.functional_call, which also takes a
    tuple of dicts)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
