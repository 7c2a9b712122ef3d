"""`minitorch.amp`: automatic mixed precision, as `torch.amp`.

    scaler = minitorch.amp.GradScaler("cuda")
    with minitorch.autocast(device_type="cuda", dtype=minitorch.float16):
        loss = loss_fn(model(x), y)          # matmuls in float16, losses in float32
    scaler.scale(loss).backward()            # a scaled loss keeps small float16 gradients from underflowing
    scaler.step(optimizer)                   # unscale, then step only if no gradient is inf / nan
    scaler.update()

Without a GPU, autocast("cuda") and GradScaler("cuda") warn once and do nothing, as PyTorch's do.
"""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
