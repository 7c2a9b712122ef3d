"""`minitorch.backends.cuda`: is the CUDA backend (CuPy) installed, and PyTorch's matmul switches
(accepted; NumPy and CuPy matmuls keep full float32 precision either way)."""
from __future__ import annotations

import importlib.util


def is_built() -> bool:
    """True when CuPy is installed (whether a GPU is there: minitorch.cuda.is_available())."""
    return importlib.util.find_spec("cupy") is not None


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


# ---- scaled_dot_product_attention's kernels (recorded: minitorch computes the math formula) --------
def _flag(backend):
    from ..nn.attention import ENABLED_BACKENDS, SDPBackend
    return getattr(SDPBackend, backend) in ENABLED_BACKENDS


def _set(backend, enabled):
    from ..nn.attention import ENABLED_BACKENDS, SDPBackend
    (ENABLED_BACKENDS.add if enabled else ENABLED_BACKENDS.discard)(getattr(SDPBackend, backend))


def flash_sdp_enabled():
    return _flag("FLASH_ATTENTION")


def mem_efficient_sdp_enabled():
    return _flag("EFFICIENT_ATTENTION")


def math_sdp_enabled():
    return _flag("MATH")


def cudnn_sdp_enabled():
    return _flag("CUDNN_ATTENTION")


def enable_flash_sdp(enabled):
    _set("FLASH_ATTENTION", enabled)


def enable_mem_efficient_sdp(enabled):
    _set("EFFICIENT_ATTENTION", enabled)


def enable_math_sdp(enabled):
    _set("MATH", enabled)


def enable_cudnn_sdp(enabled):
    _set("CUDNN_ATTENTION", enabled)


def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """The deprecated spelling of torch.nn.attention.sdpa_kernel."""
    import warnings
    from ..nn.attention import SDPBackend, sdpa_kernel
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=2)
    chosen = [b for b, on in ((SDPBackend.FLASH_ATTENTION, enable_flash), (SDPBackend.MATH, enable_math),
                              (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                              (SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
    return sdpa_kernel(chosen)
