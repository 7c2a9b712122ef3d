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

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .parameter import Parameter, UninitializedParameter


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
        object.__setattr__(self, "_forward_hooks", collections.OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", collections.OrderedDict())

    forward = None  # set by subclasses

    # ---- calling --------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self.forward is None:
            raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')
        for hook in list(self._forward_pre_hooks.values()):
            res = hook(self, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            res = hook(self, args, out)
            if res is not None:
                out = res
        return out

    def register_forward_hook(self, hook):
        """`hook(module, inputs, output)` runs after forward; a returned value replaces the output."""
        h = _RemovableHandle(self._forward_hooks)
        self._forward_hooks[h.id] = hook
        return h

    def register_forward_pre_hook(self, hook):
        """`hook(module, inputs)` runs before forward; a returned value replaces the inputs."""
        h = _RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[h.id] = hook
        return h

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
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            d["_buffers"][name] = value
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
                destination[prefix + name] = p if keep_vars or isinstance(p, UninitializedParameter) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An ordered dict name -> tensor of every parameter and persistent buffer. The tensors
        share memory with the module (detached), as in PyTorch: clone them to keep a snapshot."""
        if destination is None:
            destination = collections.OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
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
            if isinstance(own, UninitializedParameter) and isinstance(src, Tensor) and \
                    not isinstance(src, UninitializedParameter):
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
        # each module checks the keys under its own prefix (a shared module once per path)
        for prefix, m in self.named_modules(remove_duplicate=False):
            m._load_from_state_dict(state_dict, prefix + "." if prefix else "", missing, unexpected, errors,
                                    assign)
        unexpected = list(dict.fromkeys(unexpected))
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
        dtype, device, _ = _parse_to(None, args, dict(kwargs))
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t):
            dt = dtype if dtype is not None and t.dtype.is_floating_point else None
            return t.to(device=device, dtype=dt) if (device is not None or dt is not None) else t
        return self._apply(convert)

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
