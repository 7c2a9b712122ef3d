"""`optim.swa_utils`: Stochastic Weight Averaging (SWA) and exponential moving averages (EMA)
of a model's weights.

    swa_model = swa_utils.AveragedModel(model)            # a copy, whose weights are averages
    swa_sched = swa_utils.SWALR(opt, swa_lr=0.05)         # anneal to a constant lr for the SWA phase
    for epoch in range(epochs):
        train_one_epoch(model, opt)
        if epoch >= swa_start:
            swa_model.update_parameters(model)            # fold the current weights into the average
            swa_sched.step()
    swa_utils.update_bn(loader, swa_model)                # BatchNorm statistics for the averaged weights

The average of n models folds in the next one as avg + (w - avg) / (n + 1); an EMA as
decay * avg + (1 - decay) * w (`get_ema_multi_avg_fn`).
"""
from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .. import _dtype
from .._factories import tensor
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.module import Module
from ..nn.normalization import _BatchNorm
from .lr_scheduler import LRScheduler, _per_group, _warn_get_lr_called_outside_step

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


# ---- averaging functions: (averaged, current, number averaged so far) ---------------------------

def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An EMA that updates a list of averaged tensors in place: avg = lerp(avg, w, 1 - decay)."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                if p_ema.is_floating_point() or p_ema.is_complex():
                    p_ema.lerp_(p_model, 1 - decay)
                else:  # lerp has no integer form
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """The equal-weight average, updating a list of averaged tensors in place."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                if p_avg.is_floating_point() or p_avg.is_complex():
                    p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
                else:
                    p_avg.add_((p_model - p_avg) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An EMA for one tensor: returns decay * avg + (1 - decay) * w."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The equal-weight average for one tensor: returns avg + (w - avg) / (n + 1)."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


# ---- the averaged model -------------------------------------------------------------------------

class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers, with use_buffers=True) are the running
    average of those of the models given to update_parameters(); n_averaged counts them.

    avg_fn(avg, w, n) returns one new averaged tensor; multi_avg_fn(avgs, ws, n) updates a list
    in place; by default, the equal-weight average. The first update copies the weights."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dtype.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold `model`'s current weights into the average."""
        if self.use_buffers:
            averaged = itertools.chain(self.module.parameters(), self.module.buffers())
            current = itertools.chain(model.parameters(), model.buffers())
        else:
            averaged, current = self.parameters(), model.parameters()
        pairs = [(p_avg.detach(), p_model.detach().to(p_avg.device)) for p_avg, p_model in zip(averaged, current)]
        if bool(self.n_averaged == 0):  # the first model: copy it
            for p_avg, p_model in pairs:
                p_avg.copy_(p_model)
        elif self.avg_fn is not None:
            for p_avg, p_model in pairs:
                p_avg.copy_(self.avg_fn(p_avg, p_model, self.n_averaged.to(p_avg.device)))
        elif self.multi_avg_fn is not None:
            # one call per (device, dtype), as the fused PyTorch kernels it mirrors take them
            groups = {}
            for p_avg, p_model in pairs:
                groups.setdefault((p_avg.device, p_avg.dtype), []).append((p_avg, p_model))
            for (device, _), group in groups.items():
                self.multi_avg_fn([a for a, _ in group], [m for _, m in group], self.n_averaged.to(device))
        else:
            avg_fn = get_swa_avg_fn()
            for p_avg, p_model in pairs:
                p_avg.copy_(avg_fn(p_avg, p_model, self.n_averaged.to(p_avg.device)))
        if not self.use_buffers:
            # buffers (BatchNorm's running statistics, ...) are not averaged: keep the model's
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recompute the running statistics of every BatchNorm layer of `model` with one pass over
    `loader` (batches are tensors, or lists / tuples whose first item is the input): the
    averaged weights need their own statistics, which no training step computed."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None  # None: the statistics are a plain average over all batches
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


# ---- the SWA learning rate --------------------------------------------------------------------

class SWALR(LRScheduler):
    """Anneal each group's lr to swa_lr over anneal_epochs steps ("cos" or "linear"), then keep
    it there:   lr_t = swa_lr * a(t) + lr_0 * (1 - a(t)),   t = step / anneal_epochs in [0, 1],
    with a(t) = t (linear) or (1 - cos(pi t)) / 2 (cos). Each step recovers lr_0 from the
    current lr, so another scheduler may have moved it before."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = [v.clone() if isinstance(v, Tensor) else v for v in _per_group("swa_lr", optimizer, swa_lr)]
        for swa_lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = swa_lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        """The lr_0 that the formula above turns into lr at the step with weight alpha."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self):
        _warn_get_lr_called_outside_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self):
        """Everything but the optimizer and the annealing function (restored from its name)."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
