# Autograd beyond backward(): retain_grad, hooks, torch.autograd.grad, higher derivatives.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.retain_grad()
z = (y ** 2).sum()
z.backward()
print(x.grad, y.grad, y.is_leaf, z.grad_fn)

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(dy,) = torch.autograd.grad(y, x, create_graph=True)
(d2y,) = torch.autograd.grad(dy, x)
print(dy, d2y)

grads = []
v = torch.tensor([1.0, 1.0], requires_grad=True)
h = v.register_hook(lambda g: grads.append(g.clone()))
(v * torch.tensor([3.0, 4.0])).sum().backward()
print(grads, v.grad)
h.remove()

a = torch.ones(2, requires_grad=True)
for _ in range(3):
    (a * 3).sum().backward()
print(a.grad)
a.grad = None
b = a.detach()
b[0] = 5
print(a, b)

w = torch.randn(3, 2, requires_grad=True) if False else torch.ones(3, 2, requires_grad=True)
out = torch.tanh(torch.ones(1, 3) @ w)
out.backward(torch.ones_like(out))
print(w.grad)
print(out.grad_fn.next_functions[0][0])
c = torch.tensor([0.5], requires_grad=True)
d = 2 * c.sin()
print(d.grad_fn.next_functions)
with torch.enable_grad():
    e = c * 2
print(e.requires_grad, torch.is_grad_enabled())
print(torch.autograd.functional.jacobian(lambda t: t ** 2, torch.tensor([1.0, 2.0])))
