# "Autograd mechanics" and the fine-tuning recipe: freeze a pretrained body with
# requires_grad_(False), replace the head, optimize only filter(lambda p: p.requires_grad, ...);
# module forward / backward hooks, tensor hooks, the non-leaf .grad warning, grad.zero_(),
# no_grad vs detach vs set_grad_enabled, and a second derivative with create_graph=True.
import warnings
import torch
import torch.nn as nn

torch.manual_seed(0)
body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
model = nn.Sequential(body, nn.Linear(8, 3))
for param in model.parameters():
    param.requires_grad = False
model[1] = nn.Linear(8, 2)  # a new head: its parameters require grad
print(model)
print([(n, p.requires_grad) for n, p in model.named_parameters()])
trainable = filter(lambda p: p.requires_grad, model.parameters())
optimizer = torch.optim.SGD(trainable, lr=0.1, momentum=0.9)
print(len(optimizer.param_groups[0]["params"]))
print(sum(p.numel() for p in model.parameters()), sum(p.numel() for p in model.parameters() if p.requires_grad))

x, y = torch.randn(6, 4), torch.tensor([0, 1, 0, 1, 1, 0])
before = model[0][0].weight.clone()
for step in range(3):
    optimizer.zero_grad()
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4), model[0][0].weight.grad, model[1].weight.grad.shape)
print(torch.equal(before, model[0][0].weight), out.requires_grad, model[0](x).requires_grad)

# unfreeze the last body layer, with its own learning rate
model[0][2].requires_grad_(True)
optimizer.add_param_group({"params": model[0][2].parameters(), "lr": 0.01})
print([g["lr"] for g in optimizer.param_groups], [len(g["params"]) for g in optimizer.param_groups])

# module hooks: print what flows through
activations = {}


def save_activation(name):
    def hook(module, inp, output):
        activations[name] = output.detach()
    return hook


h1 = model[0][1].register_forward_hook(save_activation("relu1"))
h2 = model[0][0].register_forward_pre_hook(lambda m, inp: print("pre-hook input", inp[0].shape))
grads = []
h3 = model[1].register_full_backward_hook(lambda m, gin, gout: grads.append((gin[0].shape, gout[0].shape)))
out = model(x)
out.sum().backward()
print(sorted(activations), activations["relu1"].shape, (activations["relu1"] >= 0).all())
print(grads)
for h in (h1, h2, h3):
    h.remove()
model(x)
print(len(grads), list(activations))

# backward hooks that change gradients: clip what flows into a layer, scale what leaves it
lin = nn.Linear(3, 2)
inp = torch.randn(4, 3, requires_grad=True)
pre = lin.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 0.5,))
clip = lin.register_full_backward_hook(lambda m, gin, gout: (gin[0].clamp(-0.1, 0.1),))
out = lin(inp)
print(out.grad_fn.name(), out.requires_grad)
out.pow(2).sum().backward()
print(inp.grad.abs().max() <= 0.1, lin.weight.grad)
pre.remove()
clip.remove()
seen = []
lin.register_full_backward_hook(lambda m, gin, gout: seen.append((gin, gout[0].shape)))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    lin(torch.randn(2, 3)).sum().backward()  # the input needs no gradient: grad_input is (None,)
print(seen, [(x.category.__name__, str(x.message)[:50]) for x in w])
with torch.no_grad():
    print(lin(inp).grad_fn)

# tensor hooks
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * a
hook = b.register_hook(lambda g: g * 10)
a.register_hook(lambda g: print("a's grad arrives:", g))
b.sum().backward()
print(a.grad)
hook.remove()
a.grad.zero_()
(a * a).sum().backward()
print(a.grad)

# .grad of a non-leaf: None, with a warning
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    c = a * 2
    c.sum().backward()
    print(c.grad, c.is_leaf, a.is_leaf)
    print(len(w), w[0].category.__name__, str(w[0].message)[:60])

# no_grad, detach, set_grad_enabled, inference_mode
with torch.no_grad():
    d = a * 2
print(d.requires_grad, d.grad_fn)
e = a.detach()
print(e.requires_grad, e.data_ptr() == a.data_ptr())
torch.set_grad_enabled(False)
print((a * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((a * 2).requires_grad)
with torch.inference_mode():
    f = a * 2
print(f.requires_grad, f.is_inference())

# higher derivatives
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(dy,) = torch.autograd.grad(y, x, create_graph=True)
(d2y,) = torch.autograd.grad(dy, x)
print(dy, d2y)
w = torch.randn(3, requires_grad=True)
g = torch.autograd.grad((w ** 2).sum(), w, create_graph=True)[0]
print(g.grad_fn is not None, torch.allclose(g, 2 * w))
penalty = g.pow(2).sum()
penalty.backward()
print(torch.allclose(w.grad, 8 * w))
try:
    torch.autograd.grad(y, x)
except RuntimeError as e:
    print(str(e)[:70])
