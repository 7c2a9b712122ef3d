# PyTorch tutorials "Saving and Loading Models" and "Saving and loading a general checkpoint":
# state_dict contents, torch.save / torch.load to a temporary folder and to memory, a checkpoint
# with the optimizer's state, load_state_dict(strict=False), and resuming training.
import io
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 3, 3)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(3 * 3 * 3, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.bn(self.fc1(x)))
        return self.fc2(x)


torch.manual_seed(0)
net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())

inputs, labels = torch.randn(6, 1, 8, 8), torch.randint(0, 4, (6,))
criterion = nn.CrossEntropyLoss()
for step in range(3):
    optimizer.zero_grad()
    loss = criterion(net(inputs), labels)
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))

print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name] if var_name == "param_groups" else
          {k: tuple(v["momentum_buffer"].shape) for k, v in optimizer.state_dict()[var_name].items()})
print(optimizer.state_dict()["state"][7]["momentum_buffer"])
print(net.bn.num_batches_tracked, net.bn.running_mean)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.pt")
    torch.save(net.state_dict(), path)
    model = Net()
    print(model.load_state_dict(torch.load(path, weights_only=True)))
    model.eval()
    print(model.training, model.bn.training)

    ckpt_path = os.path.join(tmp, "checkpoint.tar")
    torch.save({"epoch": 3, "model_state_dict": net.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "loss": loss}, ckpt_path)
    model = Net()
    opt2 = optim.SGD(model.parameters(), lr=0.5, momentum=0.1)
    checkpoint = torch.load(ckpt_path, weights_only=True)
    model.load_state_dict(checkpoint["model_state_dict"])
    opt2.load_state_dict(checkpoint["optimizer_state_dict"])
    epoch = checkpoint["epoch"]
    loss2 = checkpoint["loss"]
    print(epoch, loss2, opt2.param_groups[0]["lr"], opt2.param_groups[0]["momentum"])
    print(sorted(os.listdir(tmp)))

# resume: both copies take the same next step
model.train()
for m, o in ((net, optimizer), (model, opt2)):
    o.zero_grad()
    criterion(m(inputs), labels).backward()
    o.step()
print(torch.equal(net.fc2.weight, model.fc2.weight), torch.allclose(net.conv1.bias, model.conv1.bias))
print(opt2.state_dict()["state"][0]["momentum_buffer"].shape)

# warmstarting a model from a different one: strict=False reports what did not match
class NetB(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 3, 3)
        self.fc1 = nn.Linear(27, 8)
        self.head = nn.Linear(8, 2)


buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
netB = NetB()
result = netB.load_state_dict(torch.load(buf), strict=False)
print(result)
print(result.missing_keys, result.unexpected_keys)
print(torch.equal(netB.fc1.weight, net.fc1.weight))
try:
    netB.load_state_dict(net.state_dict())
except RuntimeError as e:
    print(str(e).splitlines()[0])
bad = dict(netB.state_dict())
bad["head.weight"] = torch.zeros(3, 8)
try:
    netB.load_state_dict(bad)
except RuntimeError as e:
    print(str(e).splitlines()[0])
    print(str(e).splitlines()[1].strip())

# Adam's state after a step, saved and restored
adam = optim.Adam(netB.parameters(), lr=1e-3, betas=(0.8, 0.99))
netB.head(F.relu(netB.fc1(torch.randn(2, 27)))).sum().backward()
adam.step()
sd = adam.state_dict()
print(sd["param_groups"][0]["betas"], sorted(sd["state"][4].keys()), sd["state"][4]["step"])
buf = io.BytesIO()
torch.save({"model": netB.state_dict(), "optim": sd}, buf)
print(buf.tell() > 0)
buf.seek(0)
restored = torch.load(buf)
adam2 = optim.Adam(NetB().parameters())
adam2.load_state_dict(restored["optim"])
print(adam2.param_groups[0]["lr"], adam2.param_groups[0]["betas"])
print(torch.equal(adam2.state_dict()["state"][4]["exp_avg"], sd["state"][4]["exp_avg"]))
print(list(restored["model"].keys()))

# saving the whole model object (pickled), and what weights_only=True says about it
seq = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
buf = io.BytesIO()
torch.save(seq, buf)
buf.seek(0)
whole = torch.load(buf, weights_only=False)
print(type(whole).__name__, whole)
print(torch.equal(whole[0].weight, seq[0].weight), whole[0].weight.requires_grad)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0][:40])
