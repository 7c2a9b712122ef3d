"""Which dtypes an nn.functional op takes, and PyTorch's error for the others.

PyTorch computes most layers, losses and activations in one compiled kernel each, built for
a fixed set of dtypes (most for the floating ones only, some for integers too). Called on
another dtype it raises NotImplementedError naming the kernel and the dtype:

    F.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 2]))
    NotImplementedError: "mse_cpu" not implemented for 'Long'

Our functions check their operands here, against the dtypes of PyTorch's kernel, so that a
program PyTorch refuses is refused here too, at the same line, with the same exception and
PyTorch's words first, then how to fix it. (The dtype sets were read off PyTorch 2.13's CPU
kernels: tests/test_nn_functional_dtypes.py runs every function over every dtype on both.)
"""
from __future__ import annotations

from .._dtype import can_cast
from .._errors import hinted

FLOATING = frozenset({"float16", "float32", "float64"})
INTEGRAL = frozenset({"uint8", "int8", "int16", "int32", "int64"})
NOT_BOOL = FLOATING | INTEGRAL
ANY = NOT_BOOL | {"bool"}
FLOAT_OR_LONG = FLOATING | {"int64"}  # (avg_pool2d, conv_transpose2d: int64 is their one integer dtype)
SINGLE_DOUBLE = frozenset({"float32", "float64"})  # (kernels without a half version: pdist, multi_margin_loss)


def check(kernel, dtype, accepts=FLOATING, op=None):
    """Raise PyTorch's NotImplementedError when `kernel` has no version for `dtype`."""
    if dtype.name in accepts:
        return
    if accepts <= FLOATING:
        fix = "convert it with .float()" if "float32" in accepts else "convert it with .double()"
        what = "a floating point" if accepts == FLOATING else " or ".join(sorted(accepts))
    else:
        fix = "convert it with .float() or .long()" if "int64" in accepts else "convert it with .to(...)"
        what = "a non-bool" if accepts == NOT_BOOL else "a " + ", ".join(sorted(accepts))
    raise hinted(NotImplementedError, f'"{kernel}" not implemented for \'{dtype._short}\'',
                 f"{op or kernel} takes {what} tensor, got {dtype.name}: {fix}")


def same_dtype(found, expected, op):
    """PyTorch's check that two operands of a fused kernel (input and target, say) share a dtype."""
    if found.dtype is not expected.dtype:
        raise hinted(RuntimeError, f"Found dtype {found.dtype._short} but expected {expected.dtype._short}",
                     f"{op} takes operands of one dtype: convert one, e.g. target.to(input.dtype)")


def cast_to(result, out, op):
    """PyTorch's check when a kernel writes a result of dtype `result` into a tensor of dtype `out`
    (a float result into an integer tensor, any number into a bool one)."""
    if not can_cast(result, out):
        raise hinted(RuntimeError, f"result type {result._short} can't be cast to the desired output type "
                     f"{out._short}", f"{op} writes its result in the dtype {out.name}: convert the operands to a "
                     "floating point dtype")


def no_grad_arg(t, name, op):
    """PyTorch's kernels take some arguments (a loss's class weights) as constants."""
    if t is not None and t.requires_grad:
        raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument '{name}'. This "
                           f"input cannot have requires_grad True. (pass {name}.detach())")
