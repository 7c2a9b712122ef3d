# Learning-rate schedules beyond StepLR: d2l.ai 12.11's hand-written schedulers (SquareRootScheduler,
# FactorScheduler, CosineScheduler with warmup) set through param_group['lr'], told apart from the
# built-in ones by `scheduler.__module__ == lr_scheduler.__name__`; a linear-warmup LambdaLR as in
# transformers' get_linear_schedule_with_warmup; then torch.optim.lr_scheduler's SequentialLR,
# ChainedScheduler, CyclicLR (triangular2, exp_range, with momentum cycling), CosineAnnealingWarmRestarts
# (T_mult=2, stepped with fractional epochs as its docs show), PolynomialLR, LinearLR, ConstantLR,
# OneCycleLR (three_phase), ReduceLROnPlateau (mode='max', cooldown), each printing get_last_lr().
import math
import warnings
import torch
from torch import nn
from torch.optim import lr_scheduler


class SquareRootScheduler:
    def __init__(self, lr=0.1):
        self.lr = lr

    def __call__(self, num_update):
        return self.lr * pow(num_update + 1.0, -0.5)


class FactorScheduler:
    def __init__(self, factor=1, stop_factor_lr=1e-7, base_lr=0.1):
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.base_lr = base_lr

    def __call__(self, num_update):
        self.base_lr = max(self.stop_factor_lr, self.base_lr * self.factor)
        return self.base_lr


class CosineScheduler:
    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0):
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.warmup_steps = warmup_steps
        self.warmup_begin_lr = warmup_begin_lr
        self.max_steps = self.max_update - self.warmup_steps

    def get_warmup_lr(self, epoch):
        increase = (self.base_lr_orig - self.warmup_begin_lr) * float(epoch) / float(self.warmup_steps)
        return self.warmup_begin_lr + increase

    def __call__(self, epoch):
        if epoch < self.warmup_steps:
            return self.get_warmup_lr(epoch)
        if epoch <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * (
                1 + math.cos(math.pi * (epoch - self.warmup_steps) / self.max_steps)) / 2
        return self.base_lr


torch.manual_seed(0)
X = torch.randn(40, 4)
y = (X.sum(1) > 0).long()
train_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=10)


def net_fn():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def train(net, train_iter, num_epochs, loss, trainer, scheduler=None):
    lrs = []
    for epoch in range(num_epochs):
        total = 0.0
        for X, y in train_iter:
            trainer.zero_grad()
            l = loss(net(X), y)
            l.backward()
            trainer.step()
            total += l.item()
        lrs.append(round(trainer.param_groups[0]['lr'], 5))
        if scheduler:
            if scheduler.__module__ == lr_scheduler.__name__:
                # Using PyTorch In-Built scheduler
                scheduler.step()
            else:
                # Using custom defined scheduler
                for param_group in trainer.param_groups:
                    param_group['lr'] = scheduler(epoch)
    print(f'train loss {total / len(train_iter):.3f}, lr per epoch {lrs}')


loss = nn.CrossEntropyLoss()
lr, num_epochs = 0.3, 6
net = net_fn()
train(net, train_iter, num_epochs, loss, torch.optim.SGD(net.parameters(), lr=lr))
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr)
scheduler = SquareRootScheduler(lr=0.1)
print([round(scheduler(t), 4) for t in range(5)])
train(net, train_iter, num_epochs, loss, trainer, scheduler)
scheduler = FactorScheduler(factor=0.9, stop_factor_lr=1e-2, base_lr=2.0)
print([round(scheduler(t), 4) for t in range(5)])
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
scheduler = lr_scheduler.MultiStepLR(trainer, milestones=[2, 4], gamma=0.5)
print(scheduler.__module__, lr_scheduler.__name__ == scheduler.__module__)


def get_lr(trainer, scheduler):
    lr = scheduler.get_last_lr()[0]
    trainer.step()
    scheduler.step()
    return lr


print([get_lr(trainer, scheduler) for t in range(num_epochs)])
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
scheduler = lr_scheduler.MultiStepLR(trainer, milestones=[2, 4], gamma=0.5)
train(net, train_iter, num_epochs, loss, trainer, scheduler)
scheduler = CosineScheduler(max_update=8, base_lr=0.3, final_lr=0.01)
print([round(scheduler(t), 4) for t in range(10)])
scheduler = CosineScheduler(8, warmup_steps=3, base_lr=0.3, final_lr=0.01)
print([round(scheduler(t), 4) for t in range(10)])
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.3)
train(net, train_iter, num_epochs, loss, trainer, scheduler)


# ---- a warmup schedule with LambdaLR -------------------------------------------------------------------
def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    def lr_lambda(current_step: int):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))

    return lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch)


model = nn.Linear(2, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=3, num_training_steps=10)
print(optimizer.param_groups[0]['lr'], optimizer.param_groups[0]['initial_lr'], sched.get_last_lr())
seen = []
for step in range(10):
    optimizer.step()
    sched.step()
    seen.append(round(sched.get_last_lr()[0], 7))
print(seen)
print(sorted(sched.state_dict().keys()), sched.state_dict()['lr_lambdas'])


# ---- the built-in schedulers ---------------------------------------------------------------------------
def run(make, steps=10, lr=0.1, per_step=None, **opt_kw):
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, **opt_kw)
    scheduler = make(optimizer)
    lrs = []
    for epoch in range(steps):
        optimizer.step()
        lrs.append(round(scheduler.get_last_lr()[0], 6))
        if per_step is None:
            scheduler.step()
        else:
            per_step(scheduler, epoch)
    return lrs, scheduler, optimizer


for name, make in [
    ('LinearLR', lambda o: lr_scheduler.LinearLR(o, start_factor=0.5, end_factor=1.0, total_iters=4)),
    ('ConstantLR', lambda o: lr_scheduler.ConstantLR(o, factor=0.25, total_iters=3)),
    ('PolynomialLR', lambda o: lr_scheduler.PolynomialLR(o, total_iters=6, power=2.0)),
    ('CosineAnnealingLR', lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=5)),
    ('CosineWarmRestarts', lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.01)),
    ('CyclicLR triangular2', lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                                             mode='triangular2')),
    ('CyclicLR exp_range', lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                                           step_size_down=1, mode='exp_range', gamma=0.9)),
    ('OneCycleLR 3-phase', lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=10, three_phase=True,
                                                             anneal_strategy='linear')),
    ('SequentialLR', lambda o: lr_scheduler.SequentialLR(o, schedulers=[
        lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2), lr_scheduler.ExponentialLR(o, gamma=0.9)],
        milestones=[2])),
    ('ChainedScheduler', lambda o: lr_scheduler.ChainedScheduler([
        lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2), lr_scheduler.ExponentialLR(o, gamma=0.9)])),
]:
    lrs, scheduler, optimizer = run(make, momentum=0.9)
    print(f'{name:22s} {lrs}')
print(type(scheduler).__name__, scheduler.optimizer is optimizer, sorted(scheduler.state_dict().keys()))

# momentum cycles against the learning rate
lrs, scheduler, optimizer = run(lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                                                base_momentum=0.8, max_momentum=0.9),
                                steps=5, momentum=0.9)
print(lrs, round(optimizer.param_groups[0]['momentum'], 4))
lrs, scheduler, optimizer = run(lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.5, epochs=2, steps_per_epoch=3),
                                steps=6, momentum=0.9)
print(lrs, round(optimizer.param_groups[0]['momentum'], 4), optimizer.param_groups[0]['max_lr'])
print(sorted(k for k in scheduler.state_dict().keys() if not k.startswith('_')))
try:
    run(lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=3), steps=5)
except ValueError as e:
    print(e)
try:
    lr_scheduler.CyclicLR(torch.optim.Adam(nn.Linear(1, 1).parameters()), base_lr=0.01, max_lr=0.1)
except ValueError as e:
    print(e)

# CosineAnnealingWarmRestarts stepped every iteration with a fractional epoch, as in its docs
iters = 4
lrs, scheduler, optimizer = run(lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1),
                                steps=3 * iters,
                                per_step=lambda s, i: s.step(i // iters + (i % iters + 1) / iters))
print(lrs, scheduler.T_cur, scheduler.T_i)

# two parameter groups, each with its own schedule
model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
optimizer = torch.optim.SGD([{'params': model[0].parameters(), 'lr': 0.1},
                             {'params': model[1].parameters(), 'lr': 0.01}], momentum=0.9)
scheduler = lr_scheduler.LambdaLR(optimizer, lr_lambda=[lambda e: 0.5 ** e, lambda e: 1.0 + e])
for _ in range(3):
    optimizer.step()
    scheduler.step()
print(scheduler.get_last_lr(), scheduler.base_lrs, [g['initial_lr'] for g in optimizer.param_groups])

# ReduceLROnPlateau on an accuracy that stops improving
optimizer = torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
scheduler = lr_scheduler.ReduceLROnPlateau(optimizer, mode='max', factor=0.5, patience=1, threshold=0.01,
                                           threshold_mode='abs', cooldown=1, min_lr=0.1)
for acc in [0.50, 0.60, 0.605, 0.61, 0.60, 0.62, 0.62, 0.62, 0.62, 0.62, 0.62, 0.62]:
    optimizer.step()
    scheduler.step(acc)
    print(optimizer.param_groups[0]['lr'], scheduler.num_bad_epochs, scheduler.cooldown_counter, end=' | ')
print()
print(scheduler.best, scheduler.get_last_lr(), scheduler.mode_worse)

# the warnings a misordered loop gets
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    optimizer = torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
    scheduler = lr_scheduler.StepLR(optimizer, step_size=1)
    scheduler.step()
    optimizer.step()
    scheduler.step(5)
    print([str(x.message).split('.')[0] for x in w])
    print([x.category.__name__ for x in w], scheduler.last_epoch, scheduler.get_last_lr())
