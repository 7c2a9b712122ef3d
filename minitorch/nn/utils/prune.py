"""`nn.utils.prune`: zero out part of a parameter (by magnitude, at random, whole channels) and
keep it zeroed while the model trains.

    import minitorch.nn.utils.prune as prune
    prune.l1_unstructured(conv, name="weight", amount=0.3)   # the 30% smallest weights -> 0

Pruning `weight` moves the parameter to `weight_orig` (still trained), adds a buffer
`weight_mask` (1 = kept, 0 = pruned) and makes `weight` a plain tensor, `weight_orig *
weight_mask`, recomputed by a forward pre-hook before every call. Pruning the same tensor again
combines the masks (a PruningContainer prunes only what is still kept). `prune.remove` makes it
permanent: `weight` becomes a parameter again, holding the pruned values.

The masks are drawn and ranked as PyTorch's are (rand_like + topk, kthvalue over the channels),
so after the same manual_seed they prune the same entries.
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ... import _factories
from ..._memory_format import contiguous_format


class BasePruningMethod(ABC):
    """A way to choose a mask. It is also the forward pre-hook that applies the mask."""
    _tensor_name: str

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for `t`, given the mask it already has (`default_mask`)."""

    def apply_mask(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune `module.<name>`: register <name>_orig and <name>_mask, and the hook."""
        method = cls(*args, **kwargs)
        method._tensor_name = name
        # a tensor pruned before keeps its hook: the new method joins it in a PruningContainer
        old = [(k, hook) for k, hook in module._forward_pre_hooks.items()
               if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
        if len(old) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                                 "Use a PruningContainer.")
        if old:
            key, old_method = old[0]
            del module._forward_pre_hooks[key]
            if not isinstance(old_method, PruningContainer):
                old_method = PruningContainer(old_method)
            old_method.add_pruning_method(method)
            method = old_method
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                     f"got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):  # the first pruning: the parameter moves to <name>_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _factories.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):  # put the parameter back as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """`t` times its new mask (no module involved)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(f"importance_scores should have the same shape as tensor t, got "
                                     f"{importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _factories.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: <name> is a parameter again, holding orig * mask."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied one after another to one tensor: each new one sees only the
    entries (or channels) the earlier ones kept."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' to "
                             f"PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The newest method's mask, computed on the part of `t` still kept, written into the old mask."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        n_dims = t.dim()
        if method.PRUNING_TYPE == "unstructured":
            slc = default_mask == 1  # the entries still kept
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` '
                                     "defined.")
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0  # channels still kept
            slc = tuple(keep_channel if d == dim else slice(None) for d in range(n_dims))
        elif method.PRUNING_TYPE == "global":
            slc = (slice(None),) * n_dims
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (the hook and buffers, for code that expects them)."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` entries (a fraction, or a count) chosen at random."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        nparams_toprune = _compute_nparams_toprune(self.amount, t.nelement())
        _validate_pruning_amount(nparams_toprune, t.nelement())
        mask = default_mask.clone(memory_format=contiguous_format)
        if nparams_toprune != 0:  # the entries with the k largest random draws
            prob = _factories.rand_like(t)
            mask.view(-1)[prob.view(-1).topk(k=nparams_toprune).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the `amount` entries of smallest magnitude."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        nparams_toprune = _compute_nparams_toprune(self.amount, t.nelement())
        _validate_pruning_amount(nparams_toprune, t.nelement())
        mask = default_mask.clone(memory_format=contiguous_format)
        if nparams_toprune != 0:
            mask.view(-1)[t.abs().view(-1).topk(k=nparams_toprune, largest=False).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes `amount` whole channels along `dim`, chosen at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        nchannels = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, nchannels)
        _validate_pruning_amount(nparams_toprune, nchannels)
        if nparams_toprune == 0:
            return default_mask
        prob = _factories.rand(nchannels)  # keep the channels whose draw is above the k-th smallest
        keep = prob > prob.kthvalue(k=nparams_toprune).values
        mask = _channel_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along `dim` of smallest L`n` norm."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        nchannels = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, nchannels)
        _validate_pruning_amount(nparams_toprune, nchannels)
        norm = _compute_norm(t, self.n, self.dim)
        keep = norm.topk(k=nchannels - nparams_toprune, largest=True).indices
        if nparams_toprune == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given mask is 0."""
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


# ---- the functions programs call -------------------------------------------------------------

def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune across several tensors at once, as if they were one: `amount` counts over all of
    them, so a layer of small weights may lose more than another. `parameters` holds
    (module, name) pairs; the method must be unstructured (L1Unstructured, RandomUnstructured)."""
    from .convert_parameters import parameters_to_vector
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)  # (read twice below: a generator would be empty the second time)
    scores = parameters_to_vector([importance_scores.get((module, name), getattr(module, name))
                                   for module, name in parameters])
    default_mask = parameters_to_vector([getattr(module, name + "_mask", _factories.ones_like(getattr(module, name)))
                                         for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:  # each tensor gets its slice of the one mask
        param = getattr(module, name)
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + param.numel()].view_as(param))
        pointer += param.numel()


def remove(module, name):
    """Make the pruning of `module.<name>` permanent and drop <name>_orig, <name>_mask and the hook."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether `module` or any module inside it has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())


# ---- checks and helpers ------------------------------------------------------------------------

def _validate_pruning_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size):
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t):
    if len(t.shape) <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
                         f"{t.shape} with {len(t.shape)} dims")


def _validate_pruning_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_nparams_toprune(amount, tensor_size):
    """An int amount is a count; a float, a fraction (rounded half to even, as Python's round)."""
    return amount if isinstance(amount, numbers.Integral) else round(amount * tensor_size)


def _compute_norm(t, n, dim):
    """The L`n` norm of each channel along `dim` (over all the other dims)."""
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return t.norm(p=n, dim=dims)


def _channel_mask(t, dim, keep):
    """Ones on the channels `keep` (a bool mask or indices) along `dim`, zeros elsewhere."""
    mask = _factories.zeros_like(t)
    mask[tuple(keep if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask
