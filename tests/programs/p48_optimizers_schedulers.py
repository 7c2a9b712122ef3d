# "How to adjust learning rate" (torch.optim docs) and the optimizer zoo: RMSprop, Adagrad,
# AdamW, SGD with nesterov, per-parameter options; StepLR, MultiStepLR, ExponentialLR,
# CosineAnnealingLR, LambdaLR, ReduceLROnPlateau, OneCycleLR, chained schedulers; their
# get_last_lr(), state_dict() and the "scheduler.step() before optimizer.step()" warning.
import warnings
import torch
import torch.nn as nn
from torch.optim import lr_scheduler

torch.manual_seed(0)
X = torch.randn(32, 3)
y = X @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3


def fit(make_opt, steps=15):
    torch.manual_seed(1)
    model = nn.Linear(3, 1)
    opt = make_opt(model)
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), y)
        loss.backward()
        opt.step()
    return model, opt, loss.item()


for name, make in [
    ("SGD", lambda m: torch.optim.SGD(m.parameters(), lr=0.1)),
    ("SGD nesterov", lambda m: torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=True)),
    ("RMSprop", lambda m: torch.optim.RMSprop(m.parameters(), lr=0.01)),
    ("RMSprop centered", lambda m: torch.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", lambda m: torch.optim.Adagrad(m.parameters(), lr=0.5)),
    ("Adam amsgrad", lambda m: torch.optim.Adam(m.parameters(), lr=0.1, amsgrad=True)),
    ("AdamW", lambda m: torch.optim.AdamW(m.parameters(), lr=0.1, weight_decay=0.1)),
    ("Adadelta", lambda m: torch.optim.Adadelta(m.parameters(), lr=1.0)),
]:
    model, opt, loss = fit(make)
    print(f"{name:18s} loss {loss:.5f} w {model.weight.data.view(-1)}")
print(opt)
model, opt, _ = fit(lambda m: torch.optim.RMSprop(m.parameters(), lr=0.01), steps=2)
print(sorted(opt.state[model.weight].keys()), opt.state[model.weight]["step"])
print(opt.state_dict()["param_groups"])

# per-parameter options
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 1e-3}],
                      lr=1e-2, momentum=0.9)
print([(g["lr"], g["momentum"], len(g["params"])) for g in opt.param_groups])


def lrs(make_sched, epochs=8, lr=0.1, metric=None):
    opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=lr)
    sched = make_sched(opt)
    out = []
    for epoch in range(epochs):
        opt.step()
        out.append(round(opt.param_groups[0]["lr"], 6))
        if metric is None:
            sched.step()
        else:
            sched.step(metric[epoch])
    return out, sched


for name, make in [
    ("StepLR", lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
    ("MultiStepLR", lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5], gamma=0.1)),
    ("ExponentialLR", lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9)),
    ("CosineAnnealingLR", lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01)),
    ("LambdaLR", lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch)),
    ("MultiplicativeLR", lambda o: lr_scheduler.MultiplicativeLR(o, lr_lambda=lambda epoch: 0.8)),
    ("LinearLR", lambda o: lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=4)),
    ("OneCycleLR", lambda o: lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=8)),
    ("CyclicLR", lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2)),
    ("CosineWarmRestarts", lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3)),
]:
    values, sched = lrs(make)
    print(f"{name:18s} {values} last {[round(v, 6) for v in sched.get_last_lr()]}")

values, sched = lrs(lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="min", factor=0.5, patience=1),
                    metric=[1.0, 0.9, 0.95, 0.97, 0.99, 0.5, 0.6, 0.7])
print("ReduceLROnPlateau", values, sched.num_bad_epochs, sched.best)
opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=1.0)
s1 = lr_scheduler.ExponentialLR(opt, gamma=0.9)
s2 = lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
out = []
for epoch in range(5):
    opt.step()
    out.append(round(opt.param_groups[0]["lr"], 6))
    s1.step()
    s2.step()
print("chained", out)
opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)
warm = lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=2)
decay = lr_scheduler.ExponentialLR(opt, gamma=0.5)
seq = lr_scheduler.SequentialLR(opt, schedulers=[warm, decay], milestones=[2])
out = []
for epoch in range(6):
    opt.step()
    out.append(round(opt.param_groups[0]["lr"], 6))
    seq.step()
print("SequentialLR", out)

opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)
sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
print(sorted(sched.state_dict().keys()))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    sched.step()  # before any optimizer.step()
    print([str(x.message)[:60] for x in w])
for _ in range(3):
    opt.step()
    sched.step()
sd = sched.state_dict()
print(sd["last_epoch"], sd["_last_lr"], sd["step_size"], sd["gamma"])
opt2 = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)
sched2 = lr_scheduler.StepLR(opt2, step_size=2, gamma=0.5)
sched2.load_state_dict(sd)
print(sched2.last_epoch, sched2.get_last_lr())
try:
    lr_scheduler.StepLR(object(), step_size=1)
except TypeError as e:
    print(e)
