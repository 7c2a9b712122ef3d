"""`Optimizer`: the base class that SGD and Adam fill in.

An optimizer holds `param_groups`, a list of dicts, each with its own `params` and
hyper-parameters (so one model can train its layers at different learning rates), and a
`state` dict per parameter (momentum buffers, Adam's moments). `step()` updates each
parameter *in place* from its `.grad` (SGD, Adam, AdamW, RMSprop and Adagrad on the backend
arrays directly: see `arrays_with_grad`; the others with tensor ops under no_grad).
"""
from __future__ import annotations

import copy
from collections import defaultdict

from .._tensor import Tensor


class _RequiredParameter:
    """Singleton marking a hyper-parameter without a default (like SGD's lr in old PyTorch)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


_GLOBAL_PRE_HOOKS, _GLOBAL_POST_HOOKS = {}, {}


def register_optimizer_step_pre_hook(hook):
    from ..nn.module import _RemovableHandle
    h = _RemovableHandle(_GLOBAL_PRE_HOOKS)
    _GLOBAL_PRE_HOOKS[h.id] = hook
    return h


def register_optimizer_step_post_hook(hook):
    from ..nn.module import _RemovableHandle
    h = _RemovableHandle(_GLOBAL_POST_HOOKS)
    _GLOBAL_POST_HOOKS[h.id] = hook
    return h


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {params._type_name()}")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (missing options take the defaults).
        The params may be (name, tensor) pairs, as model.named_parameters() gives."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not self.defaults.get("differentiable") and not (p.is_leaf or getattr(p, "retains_grad", False)):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(param_group["params"]) != len({id(p) for p in param_group["params"]}):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        existing = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                                 f"{which} to the optimizer")
        if existing & {id(p) for p in param_group["params"]}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Clear every parameter's .grad: to None (the default) or to zeros. Call it before each
        backward, or gradients of successive steps add up."""
        from ..nn.module import zero_grads
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs):
        """Every subclass's step() runs the registered step hooks around it."""
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_runs_hooks", False):
            def stepped(self, *args, **kw):
                for hook in list(_GLOBAL_PRE_HOOKS.values()) + list(self._pre_hooks().values()):
                    res = hook(self, args, kw)
                    if res is not None:
                        args, kw = res
                out = step(self, *args, **kw)
                for hook in list(self._post_hooks().values()) + list(_GLOBAL_POST_HOOKS.values()):
                    hook(self, args, kw)
                return out
            stepped._runs_hooks = True
            stepped.__name__, stepped.__doc__, stepped.__wrapped__ = step.__name__, step.__doc__, step
            cls.step = stepped

    def _pre_hooks(self):
        return self.__dict__.setdefault("_optimizer_step_pre_hooks", {})

    def _post_hooks(self):
        return self.__dict__.setdefault("_optimizer_step_post_hooks", {})

    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs before each step(); it may return new (args, kwargs)."""
        from ..nn.module import _RemovableHandle
        h = _RemovableHandle(self._pre_hooks())
        self._pre_hooks()[h.id] = hook
        return h

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs after each step()."""
        from ..nn.module import _RemovableHandle
        h = _RemovableHandle(self._post_hooks())
        self._post_hooks()[h.id] = hook
        return h

    def _closure_loss(self, closure):
        if closure is None:
            return None
        from ..autograd.grad_mode import enable_grad
        with enable_grad():
            return closure()

    # ---- saving and restoring -----------------------------------------------------------------
    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}: parameters
        are referred to by their position, so the dict can be loaded into a fresh optimizer."""
        index = {}
        start = 0
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = list(range(start, start + len(g["params"])))
            index.update({id(p): i for p, i in zip(g["params"], ids)})
            packed["params"] = ids
            start += len(ids)
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore a state_dict() (of this optimizer, or of a fresh one built the same way);
        state tensors move to each parameter's device and (except 'step') dtype."""
        groups, saved_groups = self.param_groups, copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = {}
        for g, s in zip(groups, saved_groups):
            id_map.update(zip(s["params"], g["params"]))
        self.state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                self.state[p] = {name: _cast_like(p, name, val) for name, val in v.items()}
            else:
                self.state[k] = copy.deepcopy(v)
        new_groups = []
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
            new_groups.append(s)
        self.param_groups = new_groups


def _cast_like(param, key, value):
    """A copy of a state value: its tensors on the parameter's device, and (except 'step') in
    its dtype when the parameter is floating point."""
    if isinstance(value, dict):
        return {k: _cast_like(param, k, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_like(param, key, v) for v in value)
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    if key == "step":
        return value.clone()
    if param.is_floating_point():
        return value.to(param.device, param.dtype).clone()
    return value.to(param.device).clone()


def _params_with_grad(group):
    for p in group["params"]:
        if p.grad is not None:
            yield p


def arrays_with_grad(group):
    """[(param, param array, grad array), ...] for the parameters of `group` that have a gradient.

    The optimizers below update these backend arrays in place: one NumPy (or CuPy) operation per
    term of the update rule, instead of a tensor op per term that would check its operands, build
    a result tensor and bump a version counter each time. What those checks protect is checked
    here, once per parameter per step: that the parameter's memory can be written element by
    element (not an expanded view), and that the gradient is in the parameter's dtype."""
    from .._ops.inplace import check_overlap
    out = []
    for p in group["params"]:
        g = p._grad
        if g is None:
            continue
        a, ga = p._data, g._data
        if not a.flags.c_contiguous:  # row-major memory never overlaps itself
            check_overlap(p, "optimizer.step")
        out.append((p, a, ga if ga.dtype == a.dtype else ga.astype(a.dtype)))
    return out


def written(*tensors):
    """Count an in-place write of each tensor's array (its version counter), as an in-place op
    does: a tensor saved for a backward that has not run yet is then caught, as in PyTorch."""
    for t in tensors:
        t._storage.version += 1


# ---- the in-place updates PyTorch's optimizers are written with, in its rounding order ----------
# Each works on tensors and on backend arrays alike (`+=` and `[...] =` mean the same for both):
# SGD, Adam, AdamW, RMSprop and Adagrad pass arrays, the other optimizers tensors.

def addcmul_(t, a, b, value=1.0):
    """t += value * a * b, rounded as PyTorch rounds it: (value * a) * b."""
    t += a * value * b
    return t


def addcdiv_(t, a, b, value=1.0):
    """t += value * a / b, rounded as PyTorch rounds it: (value * a) / b."""
    t += a * value / b
    return t


def lerp_(t, end, weight):
    """t += weight * (end - t), with PyTorch's formula for each half of the weights."""
    if weight < 0.5:
        t += (end - t) * weight
    else:
        t[...] = end - (end - t) * (1 - weight)
    return t


def scalar_state(value=0.0):
    """The optimizers' scalar state ('step', ...): a 0-d float32 tensor, as in PyTorch."""
    from .. import _dtype
    from .._factories import tensor
    return tensor(value, dtype=_dtype.float64 if _dtype.get_default_dtype() is _dtype.float64 else _dtype.float32)
