"""`Module`: the base class of every layer and model.

A Module keeps three ordered dicts, filled by plain attribute assignment:

    self.weight = nn.Parameter(...)   ->  self._parameters["weight"]
    self.fc = nn.Linear(2, 3)         ->  self._modules["fc"]
    self.register_buffer("mean", t)   ->  self._buffers["mean"]  (state, not trained)

Everything else (parameters(), state_dict(), to(), train()/eval(), zero_grad(), repr) is a
walk over that tree of modules.
"""
from __future__ import annotations

import collections
import itertools
import warnings

from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled, no_grad
from .buffer import Buffer
from .parameter import Parameter, is_lazy


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _RemovableHandle:
    _next_id = itertools.count()

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = next(self._next_id)

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class BackwardHookFunction(Function):
    """The identity on a module's input (or output) tensors, recorded as a node of its own, so
    that a module's full backward hooks see the gradients that pass through it: its backward
    hands them to `on_backward`, which may replace them (PyTorch's BackwardHookFunctionBackward)."""

    @staticmethod
    def forward(ctx, on_backward, *tensors):
        ctx.on_backward = on_backward
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors  # returned as is: apply hands out new aliases of them

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.on_backward(grads))


class _BackwardHooks:
    """One call of a module that has full backward hooks: its inputs and outputs pass through a
    BackwardHookFunction each. In backward the outputs' gradients arrive first (the pre-hooks may
    replace them) and are kept; when the inputs' gradients arrive, the hooks get both."""

    def __init__(self, module, hooks):
        self.module = module
        self.hooks = hooks  # the full backward hooks (legacy ones hang on the output's grad_fn instead)
        self.grad_outputs = None
        self.inputs_at = None  # positions of the tensor inputs, once they are wrapped
        self.n_inputs = 0

    @staticmethod
    def _wrap(values, on_backward):
        """`values` with its tensors (those of a tuple, or a single tensor) passed through the identity
        node; also the tensors' positions. Unchanged when no tensor needs a gradient."""
        single = not isinstance(values, tuple)
        items = (values,) if single else values
        at = [i for i, v in enumerate(items) if isinstance(v, Tensor)]
        if not (is_grad_enabled() and any(items[i].requires_grad for i in at)):
            return values, None
        new = list(items)
        for i, t in zip(at, BackwardHookFunction.apply(on_backward, *[items[i] for i in at])):
            new[i] = t
        return (new[0] if single else tuple(new)), at

    @staticmethod
    def _pack(at, grads, n):
        """Gradients per position of the module's arguments (or outputs): None where no tensor was."""
        packed = [None] * n
        for i, g in zip(at, grads):
            packed[i] = g
        return tuple(packed)

    def wrap_inputs(self, args):
        self.n_inputs = len(args)
        args, self.inputs_at = self._wrap(args, self._on_input_grads)
        return args

    def wrap_outputs(self, out):
        self.n_outputs = len(out) if isinstance(out, tuple) else 1
        out, self.outputs_at = self._wrap(out, self._on_output_grads)
        return out

    def _on_output_grads(self, grads):
        self.grad_outputs = self._pack(self.outputs_at, grads, self.n_outputs)
        for hook in list(self.module._backward_pre_hooks.values()):
            res = hook(self.module, self.grad_outputs)
            if res is None:
                continue
            if len(res) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got {len(res)}, "
                                   f"but expected {len(self.grad_outputs)}")
            self.grad_outputs = tuple(res)
        grad_outputs = self.grad_outputs
        if self.inputs_at is None:  # no input needs a gradient: the hooks run now, with None for each
            grad_inputs = (None,) * self.n_inputs
            if self.hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                              "outputs since no inputs require gradients. See https://docs.pytorch.org/docs/main/"
                              "generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for "
                              "more details.", stacklevel=2)
            for hook in self.hooks:
                res = hook(self.module, grad_inputs, grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.outputs_at)

    def _on_input_grads(self, grads):
        grad_inputs = self._pack(self.inputs_at, grads, self.n_inputs)
        if self.grad_outputs is None:  # the module's outputs got no gradient: nothing to report
            return grads
        for hook in self.hooks:
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is None:
                continue
            if len(res) != len(grad_inputs):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(res)}, but "
                                   f"expected {len(grad_inputs)}")
            grad_inputs = tuple(res)
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in self.inputs_at)


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _type_name(value):
    if isinstance(value, Tensor):
        return value._type_name()
    return type(value).__name__


def zero_grads(params, set_to_none=True):
    """What Module.zero_grad and Optimizer.zero_grad both do to each parameter's .grad."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad = p.grad.detach()
            else:
                p.grad.requires_grad_(False)
            with no_grad():
                p.grad.zero_()


_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks",
               "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


def _legacy_backward_hook(module, hook):
    """A register_backward_hook hook as a hook of the output's grad_fn: it sees that one node's
    gradients (grad_input: those the node sends to its inputs), not the module's."""
    return lambda grad_inputs, grad_outputs: hook(module, tuple(grad_inputs), tuple(grad_outputs))


def _warn_legacy_backward_hook(inputs, result, grad_fn):
    """PyTorch's warnings for the cases where a legacy backward hook sees other gradients than the
    module's own (it names what the hook will miss)."""
    def warn(what):
        warnings.warn(f"Using {what} is deprecated and will be removed in future versions. This hook will be "
                      "missing some " + ("grad_input. " if "input" in what or "multiple" in what else "grad_output. ")
                      + "Please use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=4)
    result = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        return warn("non-full backward hooks on a Module that does not return a single Tensor or a tuple of Tensors")
    inputs = (inputs,) if isinstance(inputs, Tensor) else inputs
    if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        return warn("non-full backward hooks on a Module that does not take as input a single Tensor or a tuple of "
                    "Tensors")
    out_fns = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_output.",
                      FutureWarning, stacklevel=4)
    elif len(out_fns) > 1:
        warn("a non-full backward hook when outputs are generated by different autograd Nodes")
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {n[0] for n in grad_fn.next_functions}:
        warn("a non-full backward hook when the forward contains multiple autograd Nodes")


class Module:
    """Base class for all neural network modules: subclass it, create layers in `__init__`,
    and compute in `forward`. Call the module (`model(x)`), not `forward`, so hooks run."""

    training: bool
    _version = 1

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments; did you forget to "
                            "pass them to your own __init__ instead of super().__init__()?")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        for hooks in _HOOK_DICTS:
            object.__setattr__(self, hooks, collections.OrderedDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", set())
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", set())
        object.__setattr__(self, "_is_full_backward_hook", None)  # None until a backward hook is registered

    forward = None  # set by subclasses

    # ---- calling --------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self.forward is None:
            raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')
        for key, hook in list(self._forward_pre_hooks.items()):
            if key in self._forward_pre_hooks_with_kwargs:  # hook(module, args, kwargs) -> (args, kwargs)
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        full = list(self._backward_hooks.values()) if self._is_full_backward_hook else []
        backward_hooks = _BackwardHooks(self, full) if full or self._backward_pre_hooks else None
        if backward_hooks is not None:
            args = backward_hooks.wrap_inputs(args)
        out = self.forward(*args, **kwargs)
        for key, hook in list(self._forward_hooks.items()):
            res = hook(self, args, kwargs, out) if key in self._forward_hooks_with_kwargs else hook(self, args, out)
            if res is not None:
                out = res
        if backward_hooks is not None:
            out = backward_hooks.wrap_outputs(out)
        if self._backward_hooks and self._is_full_backward_hook is False:
            self._hang_legacy_backward_hooks(args, out)
        return out

    def _hang_legacy_backward_hooks(self, args, out):
        var = out
        while not isinstance(var, Tensor):  # the first tensor of the output
            var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
        if var.grad_fn is not None:
            for hook in self._backward_hooks.values():
                var.grad_fn.register_hook(_legacy_backward_hook(self, hook))
            _warn_legacy_backward_hook(args, out, var.grad_fn)

    @staticmethod
    def _add_hook(hooks, hook, prepend):
        h = _RemovableHandle(hooks)
        hooks[h.id] = hook
        if prepend:
            hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """`hook(module, args, output)` runs after forward; a returned value replaces the output.
        with_kwargs=True: `hook(module, args, kwargs, output)`."""
        h = self._add_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(h.id)
        return h

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args)` runs before forward; a returned value replaces the args.
        with_kwargs=True: `hook(module, args, kwargs)`, returning None or (args, kwargs)."""
        h = self._add_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(h.id)
        return h

    def register_full_backward_hook(self, hook, prepend=False):
        """`hook(module, grad_input, grad_output)` runs once the gradients with respect to the
        module's inputs are computed: one entry per positional argument (None where it is not a
        tensor, or needs no gradient); a returned tuple replaces grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        return self._add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """The legacy form (deprecated): `hook(module, grad_input, grad_output)` is hung on the
        grad_fn of the module's output, so it sees the gradients of that last op only (for Linear:
        addmm's three inputs), not the module's inputs. Use register_full_backward_hook."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = False
        return self._add_hook(self._backward_hooks, hook, False)

    def _register_state_dict_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata)` runs after this module's state_dict
        entries are added; a returned dict replaces the state_dict."""
        return self._add_hook(self._state_dict_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata)`, after this module's entries are added
        (it may change the dict in place, and must return None)."""
        hook._from_public_api = True
        return self._add_hook(self._state_dict_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook):
        """`hook(module, prefix, keep_vars)`, before state_dict() collects this module's entries."""
        return self._add_hook(self._state_dict_pre_hooks, hook, False)

    def register_load_state_dict_post_hook(self, hook):
        """`hook(module, incompatible_keys)` after load_state_dict(); it may clear keys from
        incompatible_keys.missing_keys / unexpected_keys before strict loading checks them."""
        return self._add_hook(self._load_state_dict_post_hooks, hook, False)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """`hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)` (with_module: the module first) runs before this module loads its entries;
        it may rename keys in the state_dict (a copy of the one given to load_state_dict)."""
        if with_module:
            return self._add_hook(self._load_state_dict_pre_hooks, lambda *a: hook(self, *a), False)
        return self._add_hook(self._load_state_dict_pre_hooks, hook, False)

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """`hook(module, grad_output)` runs when the gradients of the module's outputs arrive, before
        they flow into it; a returned tuple replaces grad_output."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    # ---- registration -------------------------------------------------------------------
    def _check_ready(self, what):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call (call super().__init__() "
                                 "first thing in your __init__)")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            self._check_ready("parameters")
            self._remove_from(name, d, d["_buffers"], d["_modules"])
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            self._check_ready("module")
            self._remove_from(name, d, d["_parameters"], d["_buffers"])
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = value
        elif isinstance(value, Buffer) or (d.get("_buffers") is not None and name in d["_buffers"]):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            self._check_ready("buffers")
            persistent = value.persistent if isinstance(value, Buffer) else \
                name not in d["_non_persistent_buffers_set"]
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name, *dicts):
        for dct in dicts:
            dct.pop(name, None)

    def __getattr__(self, name):
        # only called when normal lookup fails: look in the three registries
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            reg = d.get(key)
            if reg is not None and name in reg:
                return reg[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for key in ("_parameters", "_buffers", "_modules"):
            reg = self.__dict__.get(key)
            if reg is not None and name in reg:
                del reg[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(super().__dir__())
        for key in ("_parameters", "_buffers", "_modules"):
            keys.update(self.__dict__.get(key, {}))
        return sorted(k for k in keys if not k[0].isdigit())

    def _check_name(self, name, kind):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name, param):
        self._check_ready("parameters")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             "created explicitly. To express '" + name + "' as a function of another Tensor, "
                             "compute the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """State that is not trained (running statistics, masks): saved in state_dict when
        persistent, moved by to(), never returned by parameters()."""
        self._check_ready("buffers")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if item not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target):
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if name not in mod._parameters:
            raise AttributeError(f"{mod._get_name()} has no parameter `{name}`")
        return mod._parameters[name]

    # ---- walking the tree -----------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, get, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mprefix, mod in mods:
            for k, v in get(mod):
                if v is None or (remove_duplicate and v in seen):
                    continue
                if remove_duplicate:
                    seen.add(v)
                yield mprefix + ("." if mprefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, parameter) pairs, e.g. ('0.weight', ...); a parameter shared by two layers
        is listed once."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- modes --------------------------------------------------------------------------
    def train(self, mode=True):
        """Training mode (dropout active); returns self. `eval()` is `train(False)`."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clear the gradients of all parameters: to None (the default, as in PyTorch 2) or to zeros."""
        zero_grads(self.parameters(), set_to_none)

    # ---- state_dict ---------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars or is_lazy(p) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars or is_lazy(b) else b.detach()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An ordered dict name -> tensor of every parameter and persistent buffer. The tensors
        share memory with the module (detached), as in PyTorch: clone them to keep a snapshot."""
        if destination is None:
            destination = collections.OrderedDict()
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, {})
            if getattr(hook, "_from_public_api", False):
                if res is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif res is not None:
                destination = res
        return destination

    def _load_from_state_dict(self, state_dict, prefix, missing, unexpected, errors, assign):
        local = {k: v for k, v in itertools.chain(self._parameters.items(), self._buffers.items())
                 if v is not None and not (k in self._buffers and k in self._non_persistent_buffers_set)}
        for name, own in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            src = state_dict[key]
            if is_lazy(own) and isinstance(src, Tensor) and not is_lazy(src):
                with no_grad():
                    own.materialize(src.shape)  # a lazy module takes the checkpoint's shape
            if not isinstance(src, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(src)}")
                continue
            if src.shape != own.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape {src.shape} from checkpoint, "
                              f"the shape in current model is {own.shape}.")
                continue
            if assign:
                if name in self._parameters:
                    new = src if isinstance(src, Parameter) else Parameter(src.detach(), own.requires_grad)
                    self._parameters[name] = new
                else:
                    self._buffers[name] = src
                continue
            try:
                with no_grad():
                    own.copy_(src)
            except Exception as e:  # noqa: BLE001 (report, like PyTorch, and go on)
                errors.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                              f"{own.shape} and whose dimensions in the checkpoint are {src.shape}, an "
                              f"exception occurred : {e.args}.")
        for key in state_dict:
            if key.startswith(prefix):
                rest = key[len(prefix):]
                head, dot, _ = rest.partition(".")
                if (head not in self._modules) if dot else (rest not in local):
                    unexpected.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from `state_dict` into this module's parameters and buffers (in place).
        With strict=True (the default), missing or unexpected keys are an error; the result
        names them either way."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        state_dict = collections.OrderedDict(state_dict)  # (a copy: the pre-hooks may rename keys)
        # each module checks the keys under its own prefix (a shared module once per path)
        for prefix, m in self.named_modules(remove_duplicate=False):
            prefix = prefix + "." if prefix else ""
            for hook in m._load_state_dict_pre_hooks.values():
                hook(state_dict, prefix, {}, strict, missing, unexpected, errors)
            m._load_from_state_dict(state_dict, prefix, missing, unexpected, errors, assign)
        unexpected[:] = list(dict.fromkeys(unexpected))
        keys = _IncompatibleKeys(missing, unexpected)
        for _, m in self.named_modules(remove_duplicate=False):
            for hook in m._load_state_dict_post_hooks.values():
                if hook(m, keys) is not None:
                    raise RuntimeError("load_state_dict post-hook must return None")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ---- moving and converting ------------------------------------------------------------
    def _apply(self, fn):
        """Replace every parameter's, gradient's and buffer's values by fn(values), *in place on
        the same Parameter objects*, so an optimizer made before `.to()` still holds them."""
        for m in self.children():
            m._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                new = fn(p)
                if new is not p:
                    p.data = new
                if p.grad is not None:
                    g = fn(p.grad)
                    if g is not p.grad:
                        p.grad.data = g
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """`model.to(device)`, `model.to(dtype)`, `model.to(device, dtype)`, `model.to(tensor)`.
        A dtype applies to floating-point parameters and buffers only; integer buffers keep theirs."""
        from .._tensor import _parse_to
        fmt = kwargs.get("memory_format")
        dtype, device, _, _ = _parse_to(None, args, dict(kwargs))
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t):
            dt = dtype if dtype is not None and t.dtype.is_floating_point else None
            if fmt is not None and t.ndim in (4, 5):  # conv weights: model.to(memory_format=channels_last)
                return t.to(device=device, dtype=dt, memory_format=fmt)
            return t.to(device=device, dtype=dt) if (device is not None or dt is not None) else t
        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Every parameter and buffer replaced by uninitialised memory of its shape on `device`
        (for a module whose values will be loaded next)."""
        from .._factories import empty_like
        if not recurse:
            raise NotImplementedError("to_empty(recurse=False): minitorch moves the whole module")
        return self._apply(lambda t: empty_like(t, device=device))

    def compile(self, *args, **kwargs):
        """torch.compile for this module, in place: minitorch has no compiler, so nothing changes."""
        from .. import compile as _compile
        _compile(self, *args, **kwargs)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device if not isinstance(device, int) else f"cuda:{device}")

    def float(self):  # noqa: A003
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type):  # noqa: A003
        return self._apply(lambda t: t.to(dst_type))

    def apply(self, fn):
        """Call fn(m) on every submodule (children first) and on self; returns self. The usual
        way to initialise weights: `model.apply(init_fn)`."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- printing -----------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside the parentheses of this module's repr (its arguments)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({k}): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        lines = extra_lines + child_lines
        s = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                s += extra_lines[0]
            else:
                s += "\n  " + "\n  ".join(lines) + "\n"
        return s + ")"

    # ---- copying --------------------------------------------------------------------------
    def __setstate__(self, state):
        self.__dict__.update(state)
        for hooks in _HOOK_DICTS:  # a module pickled before it had all of them
            self.__dict__.setdefault(hooks, collections.OrderedDict())
        self.__dict__.setdefault("_forward_hooks_with_kwargs", set())
        self.__dict__.setdefault("_forward_pre_hooks_with_kwargs", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)
