"""Spectral normalisation (the old, hook-based form): the weight divided by its largest
singular value sigma, so the layer can stretch no input by more than a factor of 1 (used to
keep GAN discriminators smooth).

    d = nn.utils.spectral_norm(nn.Linear(20, 40))  # d.weight_orig (trained), buffers d.weight_u, d.weight_v

sigma is estimated by power iteration, one step per training forward (n_power_iterations),
starting from the u and v of the previous step:

    v = normalize(W^T u),  u = normalize(W v),  sigma = u . (W v),  weight = W / sigma

where W is the weight as a matrix (dim `dim` first, the rest flattened). u and v are updated
under no_grad; the gradient flows through W / sigma. nn.utils.parametrizations.spectral_norm is
the newer form of the same idea.
"""
from __future__ import annotations

from ... import _factories
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that sets module.<name> = <name>_orig / sigma before each call."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():  # u and v are written in place: the buffers carry over to the next call
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(weight_mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(weight_mat.mv(v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()  # backward must see this step's u and v, not the next one's
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure "
                             "to run the dummy forward before applying spectral normalization")
        with no_grad():  # random unit starting vectors (drawn as PyTorch draws them)
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(_factories.empty(h, dtype=weight.dtype, device=weight.device).normal_(0, 1), dim=0,
                            eps=fn.eps)
            v = F.normalize(_factories.empty(w, dtype=weight.dtype, device=weight.device).normal_(0, 1), dim=0,
                            eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)  # a plain tensor until the first forward recomputes it
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide module.<name> by its spectral norm before each call; returns the module.
    dim: the output dim of the weight (0, or 1 for the transposed convolutions)."""
    if dim is None:
        from ..conv import ConvTranspose1d, ConvTranspose2d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo spectral_norm: module.<name> becomes a Parameter holding the normalised weight."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
