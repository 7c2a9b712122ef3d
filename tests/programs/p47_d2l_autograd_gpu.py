# d2l.ai "Automatic Differentiation" (2.5) and "GPUs" (6.7): gradients of a dot product, of
# non-scalars with backward(gradient=...), detach to cut the graph, Python control flow; then the
# device helpers (try_gpu, try_all_gpus) falling back to the CPU, and a net moved with .to().
import torch
from torch import nn

x = torch.arange(4.0)
print(x)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)

x.grad.zero_()  # reset the gradient
y = x.sum()
y.backward()
print(x.grad)

x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))  # faster: y.sum().backward()
print(x.grad)
try:
    (x * x).backward()
except RuntimeError as e:
    print(e)

x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u, u.requires_grad, u.grad_fn)
x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


a = torch.tensor(0.37, requires_grad=True)
d = f(a)
d.backward()
print(d, a.grad, a.grad == d / a)
v = torch.tensor([-0.5, 0.25, 1.5], requires_grad=True)
w = f(v)
w.sum().backward()
print(w, v.grad)

# GPUs
print(torch.device('cpu'), torch.device('cuda'), torch.device('cuda:1'))
print(torch.cuda.device_count(), torch.cuda.is_available())


def cpu():
    return torch.device('cpu')


def gpu(i=0):
    return torch.device(f'cuda:{i}')


def num_gpus():
    return torch.cuda.device_count()


def try_gpu(i=0):
    """Return gpu(i) if exists, otherwise return cpu()."""
    if num_gpus() >= i + 1:
        return gpu(i)
    return cpu()


def try_all_gpus():
    """Return all available GPUs, or [cpu(),] if no GPU exists."""
    return [gpu(i) for i in range(num_gpus())]


print(try_gpu(), try_gpu(10), try_all_gpus())
x = torch.tensor([1, 2, 3])
print(x.device, x.is_cuda, x.device.type, x.get_device())
X = torch.ones(2, 3, device=try_gpu())
print(X)
Y = torch.rand(2, 3, device=try_gpu(1))
print(Y.device == X.device, Y.device)
Z = X.cuda(0) if torch.cuda.is_available() else X.cpu()
print(Z is X, Z.to(try_gpu()) is Z, Z.to("cpu", torch.float64).dtype)
net = nn.Sequential(nn.Linear(3, 1))
net = net.to(device=try_gpu())
torch.manual_seed(0)
nn.init.normal_(net[0].weight, std=0.1)
print(net(X).shape, net[0].weight.data.device, next(net.parameters()).is_cuda)
try:
    torch.ones(2, device="cuda:0") + 1
except (AssertionError, RuntimeError) as e:
    print("no GPU here")
print(torch.zeros(2).to(torch.device("cpu")).device, torch.tensor(1.0).cpu().item())
