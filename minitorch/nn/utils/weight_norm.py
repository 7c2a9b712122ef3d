"""Weight normalisation: a weight written as a direction times a length, w = g * v / ||v||,
so that training moves the length (g) and the direction (v) separately.

    layer = nn.utils.weight_norm(nn.Linear(20, 40))   # layer.weight_g (40, 1), layer.weight_v (40, 20)

||v|| is taken over every dim but `dim` (one norm per output row for dim=0; dim=None: one norm
of the whole tensor). This is the old, hook-based form: a forward pre-hook recomputes
`layer.weight` from weight_g and weight_v before each call. PyTorch deprecates it in favour of
nn.utils.parametrizations.weight_norm, which computes the same weight.
"""
from __future__ import annotations

import warnings

from ..._ops._prim import Primitive
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002
    """The p-norm of v over every dim except `dim`, shaped to broadcast against v (dim=-1: the
    norm of all of v, a 0-d tensor)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(v.shape[0], *[1] * (v.ndim - 1))
    if dim == v.ndim - 1:
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(*[1] * (v.ndim - 1), v.shape[-1])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


class WeightNormInterface(Primitive):
    """w = v * (g / ||v||), one op (PyTorch's fused kernel, for dim 0 or the last dim).

    backward, with n = ||v|| over the other dims and s = sum(grad * v) over them:
        dg = s / n,    dv = (g / n) * (grad - v * s / n^2)."""
    _node_name = "WeightNormInterfaceBackward0"

    @staticmethod
    def forward(ctx, v, g, *, dim):
        ctx.dim = dim
        ctx.save_for_backward(v, g)
        with no_grad():
            return (v * (g / norm_except_dim(v, 2, dim)))._data

    @staticmethod
    def backward(ctx, grad):
        v, g = ctx.saved_tensors
        n = norm_except_dim(v, 2, ctx.dim)
        others = [d for d in range(v.ndim) if d != ctx.dim % v.ndim]
        s = (grad * v).sum(others, keepdim=True)
        return (g / n) * (grad - v * (s / (n * n))), (s / n).reshape(g.shape)


def _weight_norm(v, g, dim=0):
    """g * v / ||v|| (||v|| over every dim but dim): one recorded op for dim 0 or the last dim, as
    PyTorch fuses it (WeightNormInterfaceBackward0); a composition otherwise."""
    if dim in (0, v.ndim - 1) and v.ndim > 0:
        return WeightNormInterface.apply(v, g, dim=dim)
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes module.<name> from <name>_g and <name>_v."""

    def __init__(self, name, dim):
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying weight normalization")
        del module._parameters[name]  # the weight is now computed: g and v are what is trained
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace module.<name> by <name>_g * <name>_v / ||<name>_v|| (deprecated: use
    nn.utils.parametrizations.weight_norm). Returns the module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo weight_norm: module.<name> becomes a Parameter again, holding the current weight."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
