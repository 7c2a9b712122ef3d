"""gradcheck: compare autograd's gradients with central finite differences, in float64."""
from __future__ import annotations


def _inputs(inputs):
    from .._tensor import Tensor
    return (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)


def _outputs(out):
    """The outputs gradcheck compares: the floating-point tensors `fn` returned."""
    from .._tensor import Tensor
    outs = (out,) if isinstance(out, Tensor) else tuple(out)
    return tuple(o for o in outs if isinstance(o, Tensor) and o.dtype.is_floating_point)


def _wants_grad(x):
    return getattr(x, "requires_grad", False)


def numerical_jacobian(fn, inputs, eps=1e-6):
    """J[o][k][i, j] = d output_o[i] / d input_k[j], by (f(x + eps) - f(x - eps)) / 2 eps on
    each element of each input that requires grad (None for the others)."""
    import numpy as np
    from .grad_mode import no_grad
    inputs = _inputs(inputs)
    with no_grad():
        outs = _outputs(fn(*inputs))
        jac = [[None] * len(inputs) for _ in outs]
        for k, x in enumerate(inputs):
            if not _wants_grad(x):
                continue
            cols = [x._device.xp.zeros((o.numel(), x.numel()), dtype="float64") for o in outs]
            arr = x._data  # written element by element through its own strides, so views work too
            for j, idx in enumerate(np.ndindex(*arr.shape)):
                orig = arr[idx].item()
                arr[idx] = orig + eps
                plus = [o._data.reshape(-1).astype("float64") for o in _outputs(fn(*inputs))]
                arr[idx] = orig - eps
                minus = [o._data.reshape(-1).astype("float64") for o in _outputs(fn(*inputs))]
                arr[idx] = orig
                for c, p, m in zip(cols, plus, minus):
                    c[:, j] = (p - m) / (2 * eps)
            for o, c in enumerate(cols):
                jac[o][k] = c
    return jac


def analytical_jacobian(fn, inputs):
    """J[o][k] built row by row: one backward pass per output element, with a one-hot gradient."""
    from . import grad as autograd_grad
    inputs = _inputs(inputs)
    diff = [k for k, x in enumerate(inputs) if _wants_grad(x)]
    outs = _outputs(fn(*inputs))
    jac = []
    for o, out in enumerate(outs):
        xp = out._device.xp
        rows = [xp.zeros((out.numel(), inputs[k].numel()), dtype="float64") for k in diff]
        if out.requires_grad:
            for i in range(out.numel()):
                g = out.new_zeros(out.shape)
                g._data.reshape(-1)[i] = 1
                grads = autograd_grad(out, [inputs[k] for k in diff], g, retain_graph=True, allow_unused=True)
                for r, k, gr in zip(rows, diff, grads):
                    if gr is None:
                        continue
                    x = inputs[k]
                    if gr.shape != x.shape:
                        raise GradcheckError(f"Gradient of output {o} with respect to input {k} has the wrong "
                                             f"size: got {list(gr.shape)}, expected {list(x.shape)}")
                    if gr.dtype is not x.dtype:
                        raise GradcheckError(f"Gradient of output {o} with respect to input {k} has the wrong "
                                             f"dtype: got {gr.dtype}, expected {x.dtype}")
                    r[i] = gr._data.reshape(-1).astype("float64")
        full = [None] * len(inputs)
        for k, r in zip(diff, rows):
            full[k] = r
        jac.append(full)
    return jac


def forward_jacobian(fn, inputs):
    """J[o][k] built column by column with forward-mode AD: one pass per input element, that
    input made dual with a one-hot tangent."""
    from . import forward_ad
    inputs = _inputs(inputs)
    jac = None
    for k, x in enumerate(inputs):
        if not _wants_grad(x):
            continue
        for j in range(x.numel()):
            onehot = x.detach().new_zeros(x.shape)
            onehot._data.reshape(-1)[j] = 1
            with forward_ad.dual_level():
                args = [forward_ad.make_dual(x, onehot) if i == k else a for i, a in enumerate(inputs)]
                outs = _outputs(fn(*args))
                tangents = [forward_ad.unpack_dual(o).tangent for o in outs]
            if jac is None:
                jac = [[None if not _wants_grad(a) else o._device.xp.zeros((o.numel(), a.numel()), dtype="float64")
                        for a in inputs] for o in outs]
            for o, t in enumerate(tangents):
                if t is not None:
                    jac[o][k][:, j] = t._data.reshape(-1).astype("float64")
    return jac or []


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, check_forward_ad=False,
              check_backward_ad=True, **_ignored):
    """True when autograd's Jacobian (backward mode, and forward mode with check_forward_ad=True)
    matches the finite-difference one for every output and every input that requires grad;
    otherwise raises (or returns False) naming the pair and the first entry that disagrees.
    Inputs may be non-contiguous (views)."""
    inputs = _inputs(inputs)
    for x in inputs:
        if _wants_grad(x) and x.dtype.name != "float64":
            import warnings
            warnings.warn(f"gradcheck: input of dtype {x.dtype} is not float64; finite differences in single "
                          "precision are too coarse to check gradients reliably. Use .double().", stacklevel=2)
    try:
        checks = [("", analytical_jacobian(fn, inputs))] if check_backward_ad else []
        if check_forward_ad:
            checks.append((" computed with forward mode", forward_jacobian(fn, inputs)))
    except GradcheckError:
        if raise_exception:
            raise
        return False
    numerical = numerical_jacobian(fn, inputs, eps)
    for mode, analytical in checks:
        for o, (n_row, a_row) in enumerate(zip(numerical, analytical)):
            for k, (n, a) in enumerate(zip(n_row, a_row)):
                if n is None:
                    continue
                xp = __import__(type(n).__module__.split(".")[0])
                bad = ~(xp.abs(a - n) <= atol + rtol * xp.abs(n))  # NaN anywhere counts as a mismatch
                if bad.any():
                    i, j = map(int, xp.argwhere(bad)[0])
                    msg = (f"Jacobian{mode} mismatch for output {o} with respect to input {k},\nnumerical:{n}\n"
                           f"analytical:{a}\nfirst mismatch at (output element {i}, input element {j}): "
                           f"numerical {float(n[i, j]):.6g}, analytical {float(a[i, j]):.6g}")
                    if raise_exception:
                        raise GradcheckError(msg)
                    return False
    return True


def gradgradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Check second derivatives: gradcheck of the (recorded) gradient of fn."""
    from . import grad as autograd_grad
    from .grad_mode import enable_grad
    inputs = _inputs(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if _wants_grad(x)]

    def first_grad(*xs):
        with enable_grad():  # the finite differences run under no_grad, but this needs a graph
            return _first_grad(*xs)

    def _first_grad(*xs):
        outs = [o for o in _outputs(fn(*xs)) if o.requires_grad]
        total = sum((o * _weights(o)).sum() for o in outs)
        gs = autograd_grad(total, [xs[i] for i in diff_idx], create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grad, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


def _weights(o):
    """Fixed, distinct weights for each output element, so that no second derivative hides
    behind a plain sum (whose gradient is constant for linear ops)."""
    w = o.new_zeros(o.shape)
    n = w.numel()
    w._data.reshape(-1)[...] = w._device.xp.linspace(0.5, 1.5, n) if n > 1 else 1.0
    return w


class GradcheckError(RuntimeError):
    pass
