"""`minitorch.func`: PyTorch's function transforms (torch.func, once "functorch").

A transform takes a function and returns a new function:

    grad(f)              the gradient of a scalar f                  grad(grad(f)) for the second
    vmap(f)              f mapped over a batch dimension              vmap(grad(loss)) for per-sample gradients
    vjp, jvp             vector-Jacobian / Jacobian-vector products
    jacrev, jacfwd       whole Jacobians;  hessian = jacfwd(jacrev(f))
    linearize(f, x)      f(x) and a function computing J t for any t
    functional_call      a module as a function of its parameters     with stack_module_state: model ensembles
    functionalize(f)     f without mutations (here: f itself, run eagerly)
    rearrange            einops' "b h w c -> b c h w" patterns

Everything here is composed from autograd.grad (`_autodiff.py`) and a loop over slices
(`_vmap.py`): the same results as PyTorch's transforms (values, shapes, dtypes, which results
require grad), computed the plain way. What PyTorch refuses inside a transform and this
version allows, because f runs on ordinary tensors: `.item()` and data-dependent `if` under
vmap, `requires_grad_()` on a tensor inside f, and in-place writes to a tensor f captured
(a buffer updated by batch norm in training mode) under grad. More on vmap in `_vmap.py`.
"""
from ._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._functionalize import functionalize
from ._module import functional_call, stack_module_state
from ._rearrange import rearrange
from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vmap", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "linearize",
           "functional_call", "stack_module_state", "functionalize", "rearrange"]
