"""Containers: Sequential (a pipeline), ModuleList and ModuleDict (registered collections).

A plain Python list of layers would hide them from parameters(), state_dict() and to();
these containers register each layer as a submodule named by its position (or key).
"""
from __future__ import annotations

import collections
import operator
import warnings

from .._tensor import Tensor
from .module import Module, _addindent
from .parameter import Parameter


class Sequential(Module):
    """`Sequential(l1, l2, ...)` or `Sequential(OrderedDict(name=layer, ...))`: forward feeds
    each layer's output to the next."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator, idx):
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        return next(x for i, x in enumerate(iterator) if i == idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(collections.OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx, module):
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        # renumber, as PyTorch does, so indices stay 0..n-1
        items = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        out = Sequential()
        for layer in list(self) + list(other):
            out.append(layer)
        return out

    def forward(self, input):  # noqa: A002
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered (so their parameters are found). It has no forward: you
    decide how to call them."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, idx):
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._index(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._index(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._index(idx))
        items = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if isinstance(modules, Module) and not isinstance(modules, (ModuleList, Sequential)):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def __repr__(self):
        """Runs of identical layers print once, as PyTorch prints them: (0-2): 3 x Linear(...)."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2) for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for k, m in items:
            self[k] = m

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def clear(self):
        self._modules.clear()


def _param_line(key, p, type_name):
    """One line of a ParameterList / ParameterDict repr, as PyTorch writes it."""
    if not isinstance(p, Tensor):
        return f"  ({key}): Object of type: {type(p).__name__}"
    size = "x".join(str(n) for n in p.shape)
    device = f" ({p.device})" if p.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"  ({key}): {kind} containing: [{type_name(p)} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters, registered (so parameters() and the state_dict see them); plain
    tensors appended are made Parameters."""

    def __init__(self, values=None):
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self += values

    def _index(self, idx):
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return idx % len(self)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(self._index(idx)))

    def __setitem__(self, idx, param):
        idx = self._index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value):
        n = len(self)
        object.__setattr__(self, "_size", n + 1)
        self[n] = value
        return self

    def extend(self, values):
        if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        return "\n".join(_param_line(k, p, lambda t: str(t.dtype)) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters, registered; plain tensors stored are made Parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k = list(self._keys)[-1]
        return k, self.pop(k)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def copy(self):
        return ParameterDict(collections.OrderedDict((k, self[k]) for k in self._keys))

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        if isinstance(parameters, dict) and not isinstance(parameters, (collections.OrderedDict, ParameterDict)):
            items = sorted(items)  # PyTorch sorts a plain dict's keys
        for k, p in items:
            self[k] = p

    def extra_repr(self):
        return "\n".join(_param_line(k, p, lambda t: t.type()) for k, p in self.items())

    def __call__(self, input):  # noqa: A002
        raise RuntimeError("ParameterDict should not be called.")


class Container(Module):
    """Module's old name, holding the submodules given as keywords."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
