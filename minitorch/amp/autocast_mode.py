"""autocast: inside the region, the ops that gain most from lower precision (matmul, linear,
convolution) run in float16, and the ops that lose most (losses, and on a GPU also softmax,
exp, log, norms, sums) run in float32, whatever their inputs' dtype.

It works by casting the inputs at the start of those ops (`lower` and `widen`, called by the
ops themselves); every other op runs in its inputs' dtype. The casts are ordinary `.to()` calls,
so gradients flow back through them (ToCopyBackward0) to the float32 parameters.
"""
from __future__ import annotations

import functools
import warnings

from .. import _dtype

# per device type: [enabled, dtype]. ACTIVE is True while any is enabled, so that an op outside
# autocast (nearly every call) pays one test.
_STATE = {"cpu": [False, _dtype.bfloat16], "cuda": [False, _dtype.float16]}
ACTIVE = False

def is_autocast_available(device_type):
    return device_type in _STATE


def is_autocast_enabled(device_type=None):
    return _STATE.get(device_type or "cuda", [False])[0]


def get_autocast_dtype(device_type):
    if device_type not in _STATE:
        raise RuntimeError(f"unsupported autocast device_type '{device_type}'")
    return _STATE[device_type][1]


_NO_BFLOAT16 = ("autocast in bfloat16 (the CPU's default) needs bfloat16 tensors, which minitorch does not have (NumPy "
                "has no bfloat16 type): pass dtype=minitorch.float16, or enabled=False")


class autocast:
    """A region (or a decorator) in which eligible ops run in `dtype` on `device_type` tensors."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        from .. import cuda
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _STATE:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = _STATE[device_type][1] if dtype is None else dtype
        if enabled and device_type == "cuda" and not cuda.is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        elif enabled and self.fast_dtype is _dtype.bfloat16:
            raise NotImplementedError(_NO_BFLOAT16)
        elif enabled and self.fast_dtype is not _dtype.float16:
            warnings.warn(f"In {device_type.upper()} autocast, but the target dtype is not supported. Disabling "
                          f"autocast.\n{device_type.upper()} Autocast only supports dtypes of minitorch.float16 "
                          "currently.", stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)

    def __enter__(self):
        global ACTIVE
        self._prev = list(_STATE[self.device])
        _STATE[self.device][:] = [self._enabled, self.fast_dtype]
        ACTIVE = any(on for on, _ in _STATE.values())
        return self

    def __exit__(self, *exc):
        global ACTIVE
        _STATE[self.device][:] = self._prev
        ACTIVE = any(on for on, _ in _STATE.values())
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you mean to "
                            "use autocast as a context manager? For example:\n    with torch.autocast(device_type=...):"
                            "\n        output = model(input)")

        @functools.wraps(func)
        def run(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return func(*args, **kwargs)
        return run


def _eligible(t, device_type):
    # float64 is never cast down: autocast lowers what is float32 (or already lower) only
    from .._tensor import Tensor
    return (isinstance(t, Tensor) and t.dtype.is_floating_point and t.dtype is not _dtype.float64
            and t._device.type == device_type)


def _cast_all(args, kwargs, to):
    """args / kwargs with each eligible tensor (also inside a list or tuple) cast by to(t)."""
    def one(a):
        if isinstance(a, (list, tuple)):
            return type(a)(one(x) for x in a)
        return to(a)
    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


def _casting(target, devices):
    """A decorator for an op: while autocast is on for a device type in `devices`, the op's floating
    inputs on that device are cast to `target` (None: the autocast dtype) before it runs. The op's
    own inner steps then run without autocast, as PyTorch's kernels do below the autocast layer."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            global ACTIVE
            if not ACTIVE:
                return fn(*args, **kwargs)

            def to(t):
                for device_type in devices:
                    on, dt = _STATE[device_type]
                    want = target or dt
                    if on and _eligible(t, device_type) and t.dtype is not want:
                        return t.to(want)
                return t
            args, kwargs = _cast_all(args, kwargs, to)
            ACTIVE = False
            try:
                return fn(*args, **kwargs)
            finally:
                ACTIVE = True
        return run
    return wrap


# The three lists a learner meets (PyTorch's, for the ops minitorch has):
lower_precision = _casting(None, ("cpu", "cuda"))       # matmul, mm, bmm, addmm, (b)addbmm, linear, conv, prelu, sdpa
lower_precision_gpu = _casting(None, ("cuda",))         # mv, addmv, addr: float16 on a GPU only
float32 = _casting(_dtype.float32, ("cpu", "cuda"))     # the losses, cdist, prod, trace, inverse, ...
float32_cpu = _casting(_dtype.float32, ("cpu",))        # reflection / replication padding, quantile
float32_gpu = _casting(_dtype.float32, ("cuda",))       # softmax, log_softmax, exp, log, pow, norms, sums on a GPU


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """For an autograd.Function's forward: with cast_inputs, run it outside autocast on inputs
    cast to that dtype; either way remember the autocast state for custom_bwd."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def run(ctx, *args, **kwargs):
        on, dt = _STATE[device_type]
        ctx._fwd_autocast = (device_type, on, dt)
        if cast_inputs is None or not on:
            return fwd(ctx, *args, **kwargs)
        args, kwargs = _cast_all(args, kwargs, lambda t: t.to(cast_inputs) if _eligible(t, device_type) else t)
        with autocast(device_type, enabled=False):
            return fwd(ctx, *args, **kwargs)
    return run


def custom_bwd(bwd=None, *, device_type):
    """For an autograd.Function's backward: run it under the autocast state its forward saw."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def run(ctx, *args):
        device, on, dt = getattr(ctx, "_fwd_autocast", (device_type, False, None))
        with autocast(device, dtype=dt or _dtype.float16, enabled=on):
            return bwd(ctx, *args)
    return run
