"""Nested containers of tensors ("pytrees"), as torch.utils._pytree sees them.

The transforms take and return any nesting of tuples, lists and dicts (a dict of parameters,
a tuple of outputs, a named tuple such as `x.max(dim=0)`'s). They work on a flat list of the
leaves and put the structure back at the end:

    flatten(({"w": w, "b": b}, x))   ->  [w, b, x],  TreeSpec(tuple, None, [TreeSpec(dict, ['w', 'b'], [*, *]), *])
    unflatten([gw, gb, gx], spec)    ->  ({"w": gw, "b": gb}, gx)

Anything else (a tensor, a number, None) is a leaf, written `*`.
"""
from __future__ import annotations

from collections import OrderedDict


class TreeSpec:
    """The shape of a nested container: its kind (tuple, list, dict, a named tuple class),
    what rebuilding it needs (a dict's keys), and one TreeSpec per child. A leaf is LEAF."""

    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind, context, children):
        self.kind, self.context, self.children = kind, context, children
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.kind is other.kind and self.context == other.context
                and self.children == other.children)

    def __repr__(self):
        if self.kind is None:
            return "*"
        return f"TreeSpec({self.kind.__name__}, {self.context}, [{', '.join(map(repr, self.children))}])"


LEAF = TreeSpec(None, None, [])


class _Star:
    def __repr__(self):
        return "*"


def pprint(spec):
    """A structure written as the container it describes: (*, *), [*], {'w': *}."""
    return repr(unflatten([_Star()] * spec.num_leaves, spec))


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _node(tree):
    """(kind, context, children) for a container, None for a leaf."""
    if _is_namedtuple(tree):
        return type(tree), None, list(tree)
    if type(tree) in (tuple, list):
        return type(tree), None, list(tree)
    if type(tree) in (dict, OrderedDict):
        return type(tree), list(tree), list(tree.values())
    return None


def flatten(tree):
    """([leaves, left to right], TreeSpec)."""
    node = _node(tree)
    if node is None:
        return [tree], LEAF
    kind, context, children = node
    leaves, specs = [], []
    for child in children:
        child_leaves, spec = flatten(child)
        leaves += child_leaves
        specs.append(spec)
    return leaves, TreeSpec(kind, context, specs)


def unflatten(leaves, spec):
    """The container `spec` describes, filled with `leaves` in order."""
    leaves = iter(leaves)

    def build(spec):
        if spec.kind is None:
            return next(leaves)
        children = [build(c) for c in spec.children]
        if spec.context is not None:  # a dict: its keys, in their order
            return spec.kind(zip(spec.context, children))
        if spec.kind not in (tuple, list):  # a named tuple
            return spec.kind(*children)
        return spec.kind(children)

    return build(spec)


def tree_map(fn, tree):
    leaves, spec = flatten(tree)
    return unflatten([fn(x) for x in leaves], spec)


def leaves(tree):
    return flatten(tree)[0]


def broadcast_prefix(prefix, spec):
    """One value per leaf of `spec`, from a `prefix` tree that stops early: a leaf of `prefix`
    stands for the whole subtree below it (vmap's in_dims=(0, None) for (params_dict, x) gives
    every tensor of the dict in_dim 0). None if `prefix` does not fit `spec`."""
    node = _node(prefix)
    if node is None:
        return [prefix] * spec.num_leaves
    kind, context, children = node
    if kind is not spec.kind or len(children) != len(spec.children):
        return None
    if context is not None:  # a dict: match by key
        if set(context) != set(spec.context):
            return None
        children = [prefix[k] for k in spec.context]
    out = []
    for child, child_spec in zip(children, spec.children):
        sub = broadcast_prefix(child, child_spec)
        if sub is None:
            return None
        out += sub
    return out
