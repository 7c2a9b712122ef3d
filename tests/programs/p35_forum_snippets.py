# Snippets in the style of forum answers: .data, .item() in loops, torch.max(out, 1), eval + no_grad.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
net = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Dropout(0.5), nn.Linear(20, 4))
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()
inputs = torch.randn(64, 10)
targets = torch.randint(0, 4, (64,))

running_loss = 0.0
for i in range(20):
    optimizer.zero_grad(set_to_none=True)
    outputs = net(inputs)
    loss = criterion(outputs, targets)
    loss.backward()
    optimizer.step()
    running_loss += loss.item()
    if i % 5 == 4:
        print("[%d] loss: %.3f" % (i + 1, running_loss / 5))
        running_loss = 0.0
print(net[0].weight.grad is not None)
optimizer.zero_grad(set_to_none=True)
print(net[0].weight.grad)

net.eval()
correct = 0
total = 0
with torch.no_grad():
    outputs = net(inputs)
    _, predicted = torch.max(outputs.data, 1)
    total += targets.size(0)
    correct += (predicted == targets).sum().item()
print("Accuracy: %d %%" % (100 * correct / total))
values, indices = torch.max(outputs, 1)
print(values[:4], indices[:4], outputs.requires_grad)

# "how do I get the value out of a tensor"
t = torch.tensor([[1.5]])
print(t.item(), t.data, t.tolist(), float(t), t.numpy())

# "why is my weight not changing": .data bypasses autograd
w = torch.ones(3, requires_grad=True)
w.data.mul_(2)
print(w, w.is_leaf, w.grad_fn)
y = (w * 3).sum()
y.backward()
print(w.grad)
w.grad.data.zero_()
print(w.grad)

# "softmax over which dim?"
logits = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
print(F.softmax(logits, dim=1).sum(dim=1), F.softmax(logits, dim=0))
print(torch.argmax(logits, dim=1), logits.max(dim=1).values, logits.max())

# "one-hot and back"
labels = torch.tensor([0, 2, 1])
oh = F.one_hot(labels, 3)
print(oh, oh.argmax(1), oh.dtype)

# "detach vs clone"
a = torch.randn(3, requires_grad=True)
b = a.detach()
c = a.clone()
print(b.requires_grad, c.requires_grad, c.grad_fn, b.data_ptr() == a.data_ptr())

# "requires_grad error"
try:
    torch.ones(2, requires_grad=True).numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
x = torch.ones(2, requires_grad=True)
print(x.detach().numpy(), x.sum().item())
with torch.no_grad():
    z = x * 2
print(z.requires_grad, (x * 2).requires_grad)
model = nn.Linear(3, 1)
for name, param in model.named_parameters():
    if "bias" in name:
        param.requires_grad = False
print([p.requires_grad for p in model.parameters()])
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
