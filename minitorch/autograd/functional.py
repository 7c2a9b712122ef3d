"""Jacobian and Hessian-vector products built on autograd.grad."""
from __future__ import annotations


def vjp(func, inputs, v=None, create_graph=False):
    from . import grad
    out = func(inputs)
    g = grad(out, inputs, v, create_graph=create_graph, allow_unused=True)
    return out, g[0]


def hvp(func, inputs, v, create_graph=False):
    """Hessian-vector product H v, by differentiating (grad f) . v once more."""
    from . import grad
    out = func(inputs)
    (g,) = grad(out, inputs, create_graph=True)
    (hv,) = grad((g * v).sum(), inputs, create_graph=create_graph)
    return out, hv
