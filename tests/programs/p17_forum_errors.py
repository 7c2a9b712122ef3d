# Forum-style snippets: the errors beginners meet, and what they print.
import torch

w = torch.randn(3, requires_grad=True)
try:
    w += 1
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
with torch.no_grad():
    w += 1
print(w.requires_grad, w.is_leaf)

try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:55])

try:
    torch.ones(3).view(2, 2)
except RuntimeError as e:
    print("RuntimeError")

x = torch.ones(2, 2, requires_grad=True)
y = (x * 2).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])

try:
    x.numpy()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:55])
print(x.detach().numpy())

a = torch.tensor([1, 2, 3])
print(a.dtype, (a / 2).dtype, (a // 2).dtype, (a * 1.5).dtype)
try:
    a.mean()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
print(a.float().mean())
try:
    torch.tensor([1.0, 2.0]).item()
except (RuntimeError, ValueError) as e:
    print(type(e).__name__)
t = torch.tensor([[1, 2], [3, 4]])
print(t.T.is_contiguous(), t.T.contiguous().is_contiguous())
try:
    t.T.view(4)
except RuntimeError:
    print("view failed, reshape works:", t.T.reshape(4))
print(torch.tensor(3.0) == 3, torch.tensor([1, 2]) == torch.tensor([1, 3]))
print(torch.equal(torch.tensor([1, 2]), torch.tensor([1, 2])))
