"""`torch.utils.checkpoint`: trade compute for memory. A checkpointed segment runs its forward
without keeping the activations backward would need, and runs it again during backward.

    h = checkpoint(block, x, use_reentrant=False)

use_reentrant=True is the classic algorithm, written out below as an autograd.Function: the
forward runs under no_grad (nothing saved), and the backward re-runs it with the same random
state, on detached inputs, then back-propagates through the recomputed graph.
use_reentrant=False is the variant PyTorch recommends: it records the segment's own graph
(its nodes are the ops', as without checkpointing); here it runs the segment as it is and keeps
its activations, so the values and gradients are PyTorch's but no memory is saved.
"""
from __future__ import annotations

import warnings

from .. import _random
from .._tensor import Tensor
from ..autograd import Function, enable_grad, no_grad


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function, ctx.preserve = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.rng_state = _random.get_rng_state()  # (so that dropout draws the same mask again)
        ctx.args = [None if isinstance(a, Tensor) else a for a in args]  # the tensors are saved apart
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from ..autograd import backward
        saved = iter(ctx.saved_tensors)
        inputs = []
        for a in ctx.args:
            if a is None:
                t = next(saved)
                a = t.detach().requires_grad_(t.requires_grad)
            inputs.append(a)
        state = _random.get_rng_state()
        if ctx.preserve:
            _random.set_rng_state(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*inputs)
        finally:
            if ctx.preserve:
                _random.set_rng_state(state)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in inputs)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               early_stop=True, **kwargs):
    """function(*args, **kwargs), recomputed during backward instead of kept (see the module's note)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if not use_reentrant:
        return function(*args, **kwargs)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if context_fn is not None or debug is not False:
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
    return CheckpointFunction.apply(function, preserve, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):  # noqa: A002
    """Run a sequence of modules in `segments` chunks, each but the last checkpointed."""
    from ..nn import Sequential
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)  # noqa
    return run(end + 1, len(functions) - 1)(input)
