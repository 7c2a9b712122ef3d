# d2l.ai 5.2 "Concise Implementation of Multilayer Perceptrons", with init_weights via apply.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Flatten(), nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
print(net)
X = torch.randn(64, 4, 4)
y = (X.sum(dim=(1, 2)) > 0).long() + 2 * (X[:, 0, 0] > 0).long()
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(4):
    for i in range(0, 64, 16):
        l = loss(net(X[i:i + 16]), y[i:i + 16])
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
    with torch.no_grad():
        out = net(X)
        acc = (out.argmax(1) == y).float().mean()
        print(f"epoch {epoch}: loss {loss(out, y).mean():.4f} acc {acc:.4f}")
print(net[1].weight.shape, net[1].bias[:3])
print([p.shape for p in net.parameters()])
print(sum(p.numel() for p in net.parameters() if p.requires_grad))
