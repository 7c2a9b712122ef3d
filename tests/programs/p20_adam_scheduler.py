# Adam with a learning-rate scheduler, on a small regression.
import torch
import torch.nn as nn

torch.manual_seed(42)
X = torch.randn(100, 3)
true_w = torch.tensor([[1.5], [-2.0], [0.5]])
y = X @ true_w + 0.1 * torch.randn(100, 1)
model = nn.Linear(3, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
loss_fn = nn.MSELoss()
for epoch in range(30):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
    if epoch % 10 == 9:
        print(epoch, f"{loss.item():.4f}", sched.get_last_lr())
print(model.weight.data.round(decimals=2), model.bias.data.round(decimals=2))
print(opt.state_dict()["param_groups"][0]["lr"])
opt2 = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
print(opt2)
