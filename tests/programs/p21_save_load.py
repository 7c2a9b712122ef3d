# Saving and loading a model's state_dict (to an in-memory file).
import io
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model(torch.randn(5, 4)).sum().backward()
opt.step()
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3}, buf)
buf.seek(0)
ckpt = torch.load(buf)
model2 = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
print(model2.load_state_dict(ckpt["model"]))
print(ckpt["epoch"], list(ckpt["model"].keys()))
print(torch.equal(model2[0].weight, model[0].weight))
x = torch.randn(2, 4)
print(torch.allclose(model(x), model2(x)))
buf = io.BytesIO()
torch.save(torch.arange(5), buf)
buf.seek(0)
print(torch.load(buf))
model2.eval()
with torch.no_grad():
    print(model2(x).shape)
