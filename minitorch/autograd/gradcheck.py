"""gradcheck: compare autograd's gradients with central finite differences, in float64."""
from __future__ import annotations


def _inputs(inputs):
    from .._tensor import Tensor
    return (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)


def numerical_jacobian(fn, inputs, eps=1e-6):
    """J[k][i, j] = d out_i / d input_k[j], by (f(x + eps) - f(x - eps)) / 2 eps on each element."""
    from .._tensor import Tensor
    from .grad_mode import no_grad
    jac = []
    with no_grad():
        out0 = fn(*inputs)
        n_out = out0.numel()
        for x in inputs:
            if not (isinstance(x, Tensor) and x.requires_grad):
                jac.append(None)
                continue
            j = x._device.xp.zeros((n_out, x.numel()), dtype="float64")
            flat = x._data.reshape(-1) if x.is_contiguous() else None
            if flat is None:
                raise ValueError("gradcheck: inputs must be contiguous tensors (make them with .contiguous())")
            for k in range(x.numel()):
                orig = flat[k].item()
                flat[k] = orig + eps
                plus = fn(*inputs)._data.reshape(-1).astype("float64")
                flat[k] = orig - eps
                minus = fn(*inputs)._data.reshape(-1).astype("float64")
                flat[k] = orig
                j[:, k] = (plus - minus) / (2 * eps)
            jac.append(j)
    return jac


def analytical_jacobian(fn, inputs):
    from .. import _factories
    from . import grad as autograd_grad
    out = fn(*inputs)
    diff = [x for x in inputs if getattr(x, "requires_grad", False)]
    rows = [[] for _ in diff]
    flat_out = out.reshape(-1)
    for i in range(out.numel()):
        g = _factories.zeros(out.numel(), dtype=out.dtype, device=out.device)
        g._data[i] = 1
        grads = autograd_grad(flat_out, diff, g, retain_graph=True, allow_unused=True)
        for k, (x, gr) in enumerate(zip(diff, grads)):
            rows[k].append(x._device.xp.zeros(x.numel()) if gr is None else gr._data.reshape(-1).astype("float64"))
    xp = out._device.xp
    return [xp.stack(r) if r else xp.zeros((0, x.numel())) for r, x in zip(rows, diff)]


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_ignored):
    """True when autograd's Jacobian matches the finite-difference one for every input that
    requires grad; otherwise raises (or returns False) naming the input and the worst entry."""
    inputs = _inputs(inputs)
    for x in inputs:
        if getattr(x, "requires_grad", False) and x.dtype.name != "float64":
            import warnings
            warnings.warn(f"gradcheck: input of dtype {x.dtype} is not float64; finite differences in single "
                          "precision are too coarse to check gradients reliably. Use .double().", stacklevel=2)
    numerical = [j for j in numerical_jacobian(fn, inputs, eps) if j is not None]
    analytical = analytical_jacobian(fn, inputs)
    for k, (n, a) in enumerate(zip(numerical, analytical)):
        xp = type(n).__module__.split(".")[0] == "cupy" and __import__("cupy") or __import__("numpy")
        bad = xp.abs(a - n) > atol + rtol * xp.abs(n)
        if bad.any():
            i, j = map(int, xp.argwhere(bad)[0])
            msg = (f"Jacobian mismatch for output 0 with respect to input {k},\nnumerical:{n}\nanalytical:{a}\n"
                   f"first mismatch at (output element {i}, input element {j}): numerical {float(n[i, j]):.6g}, "
                   f"analytical {float(a[i, j]):.6g}")
            if raise_exception:
                raise GradcheckError(msg)
            return False
    return True


def gradgradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Check second derivatives: gradcheck of the (recorded) gradient of fn."""
    from . import grad as autograd_grad
    inputs = _inputs(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if getattr(x, "requires_grad", False)]

    def first_grad(*xs):
        out = fn(*xs)
        gs = autograd_grad(out.sum(), [xs[i] for i in diff_idx], create_graph=True, allow_unused=True)
        from .. import _ops  # noqa: F401
        flat = [g.reshape(-1) for g in gs if g is not None]
        from .._ops.join import cat
        return cat(flat)

    return gradcheck(first_grad, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


class GradcheckError(RuntimeError):
    pass
