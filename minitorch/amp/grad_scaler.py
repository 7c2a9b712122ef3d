"""GradScaler: loss scaling for float16 training.

float16 gradients smaller than about 6e-8 round to zero. Multiplying the loss by a large scale
before backward() lifts them into range; the optimizer then sees the gradients divided back
(unscale_), and a step whose gradients overflowed to inf / nan is skipped, the scale halved.
After `growth_interval` good steps in a row the scale doubles again.
"""
from __future__ import annotations

import math
import warnings

from .. import _dtype

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        from .. import cuda
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # made on the first scale(), on the loss's device
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), {"stage": _READY, "found_inf": None})

    def _require_scale(self, funcname):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")

    def scale(self, outputs):
        """outputs (a tensor, or an iterable of them) multiplied by the current scale."""
        from .._tensor import Tensor
        from .._factories import full
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._scale = full((), self._init_scale, dtype=_dtype.float32, device=outputs.device)
                self._growth_tracker = full((), self._init_growth_tracker, dtype=_dtype.int32,
                                            device=outputs.device)
            return outputs * self._scale.to(device=outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(v) for v in outputs)
        if hasattr(outputs, "__iter__"):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale (in place) and note whether any is inf / nan."""
        from ..autograd import no_grad
        from .._factories import full
        if not self._enabled:
            return
        self._require_scale("unscale_")
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()  # (the reciprocal in float64, as PyTorch)
        found_inf = full((), 0.0, dtype=_dtype.float32, device=self._scale.device)
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype is _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not bool(p.grad.isfinite().all()):
                        found_inf.fill_(1.0)
                    p.grad.mul_(inv_scale.to(p.grad.device))
        state["found_inf"] = found_inf
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(), unless this iteration's gradients hold an inf or nan (then skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._require_scale("step")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None
        if not state["found_inf"].item():
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Back off the scale after a skipped step, grow it after growth_interval good ones."""
        if not self._enabled:
            return
        self._require_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                         "torch.FloatTensor with requires_grad=False.")
                self._scale.copy_(new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(f.item() for f in found):
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker.fill_(0)
            elif self._growth_tracker.item() + 1 == self._growth_interval:
                if math.isfinite(self._scale.item() * self._growth_factor):
                    self._scale.mul_(self._growth_factor)
                self._growth_tracker.fill_(0)
            else:
                self._growth_tracker.add_(1)
        self._per_optimizer_states = {}

    def get_scale(self):
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
