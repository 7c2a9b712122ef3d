"""Whether new operations are recorded into the autograd graph.

`no_grad`, `enable_grad` and `set_grad_enabled` work as context managers and as decorators,
like PyTorch's. The flag is one attribute read on every op, so it is kept on a tiny object.
"""
from __future__ import annotations

import functools


class _State:
    enabled = True
    inference = False  # inside inference_mode()
    grad_layout = True  # a leaf's new .grad takes the leaf's strides (enforce_grad_layout_policy)
    dual = False  # dual tensors exist (forward_ad.py): ops compute their outputs' tangents too


STATE = _State()


def is_grad_enabled() -> bool:
    return STATE.enabled


class _Mode:
    _target = True

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = self._target

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_Mode):
    """Operations inside are not recorded: results have requires_grad=False."""

    _target = False


class enable_grad(_Mode):
    """Turn recording back on inside a no_grad block."""

    _target = True


class set_grad_enabled(_Mode):
    """`set_grad_enabled(False)` behaves like no_grad; it also takes effect when called as a plain function."""

    def __init__(self, mode: bool):
        self._prev = STATE.enabled
        self._target = bool(mode)
        STATE.enabled = self._target  # like PyTorch: calling it already switches the mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def __call__(self, func):
        STATE.enabled = self._prev  # used as a decorator: undo the eager switch
        target = self._target

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = STATE.enabled
            STATE.enabled = target
            try:
                return func(*args, **kwargs)
            finally:
                STATE.enabled = prev
        return wrapper


class inference_mode(no_grad):
    """no_grad, and the tensors made inside answer is_inference() True (PyTorch's inference
    tensors; its refusals of them outside the mode are not enforced: README)."""

    def __init__(self, mode: bool = True):
        self._target = not mode
        self._mode = bool(mode)

    def __enter__(self):
        self._prev_inference = STATE.inference
        STATE.inference = self._mode
        return super().__enter__()

    def __exit__(self, *exc):
        STATE.inference = self._prev_inference
        return super().__exit__(*exc)

    def __call__(self, func):
        mode = self._mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled() -> bool:
    return STATE.inference


class enforce_grad_layout_policy:  # noqa: N801 (PyTorch's name)
    """Whether a leaf's new `.grad` is laid out as the leaf is (its strides, when its memory is dense;
    row-major otherwise). `enforce_grad_layout_policy(False)` lets the engine keep a fresh gradient
    as backward made it, whatever its strides; a gradient it must copy is still laid out as the leaf.
    Like set_grad_enabled, it takes effect when called, and works as a context manager and a decorator."""

    def __init__(self, enable: bool = True):
        self.prev = STATE.grad_layout
        STATE.grad_layout = self.mode = bool(enable)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.grad_layout = self.prev
        return False

    def __call__(self, func):
        STATE.grad_layout = self.prev  # used as a decorator: undo the eager switch
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with enforce_grad_layout_policy(mode):
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__(self.mode)
