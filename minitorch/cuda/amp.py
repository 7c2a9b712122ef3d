"""`minitorch.cuda.amp`: the old spellings of `minitorch.amp` for CUDA, deprecated as in PyTorch."""
from __future__ import annotations

import warnings

from .. import amp as _amp
from ..amp import custom_bwd as _custom_bwd, custom_fwd as _custom_fwd


class GradScaler(_amp.GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        from .. import _dtype
        super().__init__("cuda", dtype=dtype or _dtype.float16, enabled=enabled, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _custom_bwd(bwd, device_type="cuda")
