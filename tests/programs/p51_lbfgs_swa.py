# LBFGS with a closure, as in the curve-fitting examples and the neural style transfer tutorial
# (`optimizer.step(closure)`, line_search_fn="strong_wolfe"), and the SWA recipe of the
# torch.optim docs: AveragedModel, SWALR after a CosineAnnealingLR phase, update_bn; an EMA model
# with get_ema_multi_avg_fn; Rprop on a full batch.
import torch
import torch.nn as nn
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn

torch.manual_seed(0)

# ---- fit y = a * sin(b * x) + c with LBFGS -------------------------------------------------------
x = torch.linspace(-3, 3, 50)
y = 1.7 * torch.sin(0.8 * x) + 0.3 + 0.05 * torch.randn(50)
params = torch.tensor([1.0, 1.0, 0.0], requires_grad=True)
optimizer = torch.optim.LBFGS([params], lr=1, max_iter=20, line_search_fn="strong_wolfe")
print(optimizer)


def closure():
    optimizer.zero_grad()
    a, b, c = params
    loss = ((a * torch.sin(b * x) + c - y) ** 2).mean()
    loss.backward()
    return loss


for i in range(3):
    loss = optimizer.step(closure)
    print(f"step {i}: loss {loss.item():.4f} params {[round(v, 3) for v in params.tolist()]}")
state = optimizer.state[params]
print(sorted(state.keys()))
print("n_iter", state["n_iter"], "history", len(state["old_dirs"]))

# a fixed step (no line search) on a small MLP, full batch
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=10, history_size=10)
X = x.unsqueeze(1)
Y = y.unsqueeze(1)
loss_fn = nn.MSELoss()
for epoch in range(4):
    def closure():
        opt.zero_grad()
        out = loss_fn(model(X), Y)
        out.backward()
        return out
    print("epoch", epoch, "loss", round(opt.step(closure).item(), 3))

try:
    torch.optim.LBFGS([{"params": model[0].parameters()}, {"params": model[2].parameters()}])
except ValueError as e:
    print(e)

# ---- Rprop, full batch --------------------------------------------------------------------------
w = torch.zeros(3, requires_grad=True)
opt = torch.optim.Rprop([w], lr=0.1)
target = torch.tensor([1.0, -2.0, 0.5])
for _ in range(15):
    opt.zero_grad()
    ((w - target) ** 2).sum().backward()
    opt.step()
print("Rprop", [round(v, 3) for v in w.tolist()], opt.state[w]["step_size"])

# ---- stochastic weight averaging ------------------------------------------------------------------
torch.manual_seed(1)
data = torch.randn(64, 4)
labels = (data[:, 0] + data[:, 1] > 0).long()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data, labels), batch_size=16)
net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
swa_model = AveragedModel(net)
ema_model = AveragedModel(net, multi_avg_fn=get_ema_multi_avg_fn(0.9))
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
swa_start = 5
swa_scheduler = SWALR(optimizer, swa_lr=0.02, anneal_epochs=2)
for epoch in range(8):
    for inputs, target in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(net(inputs), target)
        loss.backward()
        optimizer.step()
        ema_model.update_parameters(net)
    if epoch >= swa_start:
        swa_model.update_parameters(net)
        swa_scheduler.step()
    else:
        scheduler.step()
    print(f"epoch {epoch} lr {optimizer.param_groups[0]['lr']:.4f} loss {loss.item():.3f}")

print("swa n_averaged", swa_model.n_averaged, "ema n_averaged", ema_model.n_averaged)
print(list(swa_model.state_dict().keys())[:4])
update_bn(loader, swa_model)
print("running_mean", swa_model.module[1].running_mean[:3])
swa_model.eval()
with torch.no_grad():
    acc = (swa_model(data).argmax(1) == labels).float().mean()
print("swa accuracy", acc.item())
print("swa_scheduler", swa_scheduler.get_last_lr(), sorted(swa_scheduler.state_dict().keys()))
