# The forum and StackOverflow classics, each as its question shows it and its accepted answer fixes
# it: backward through the graph a second time, "expected scalar type Long but found Float" and other
# dtype mismatches, "element 0 of tensors does not require grad", in-place on a leaf, view vs reshape on
# a transposed tensor, no_grad vs detach, the torch.where NaN-gradient trap, x.grad.zero_() in a
# manual loop, counting and freezing parameters by name, register_forward_hook feature extraction,
# weighted CrossEntropyLoss, random_split with a seeded generator, early stopping with
# copy.deepcopy(model.state_dict()), set_printoptions, torch.finfo / iinfo, tensors of many shapes
# and dtypes printed, and .detach().cpu().numpy().
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)

# "Trying to backward through the graph a second time"
x = torch.randn(3, requires_grad=True)
y = x.exp()
z = (y * 2).sum()
z.backward()
try:
    z.backward()
except RuntimeError as e:
    print(e)
z = (x.exp() * 2).sum()
z.backward(retain_graph=True)
z.backward()
print(torch.allclose(x.grad, 6 * x.exp()))

# the same error from a hidden state carried between batches, fixed with detach()
rnn = nn.RNN(2, 3, batch_first=True)
h = torch.zeros(1, 1, 3)
for step in range(2):
    out, h = rnn(torch.randn(1, 4, 2), h)
    try:
        out.sum().backward()
    except RuntimeError as e:
        print("step", step, str(e)[:60])
h = torch.zeros(1, 1, 3)
for step in range(2):
    h = h.detach()
    out, h = rnn(torch.randn(1, 4, 2), h)
    out.sum().backward()
print("detached:", h.requires_grad, h.grad_fn is not None)

# dtypes
logits = torch.randn(3, 5)
target = torch.tensor([1.0, 0.0, 4.0])
try:
    F.nll_loss(F.log_softmax(logits, dim=1), target)
except RuntimeError as e:
    print(e)
print(F.cross_entropy(logits, target.long()).item() > 0)
try:
    nn.CrossEntropyLoss()(logits, target)
except RuntimeError as e:
    print(e)
try:
    nn.Linear(2, 2)(torch.tensor([[1, 2]]))
except RuntimeError as e:
    print(e)
print(nn.Linear(2, 2)(torch.tensor([[1, 2]]).float()).dtype)
try:
    nn.MSELoss()(torch.randn(3, dtype=torch.float64, requires_grad=True), torch.randn(3)).backward()
    print("mse float64 vs float32 ok")
except RuntimeError as e:
    print(e)
try:
    torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)
except RuntimeError as e:
    print(e)
try:
    nn.BCELoss()(torch.sigmoid(torch.randn(3)), torch.tensor([1, 0, 1]))
except RuntimeError as e:
    print(e)
try:
    nn.Embedding(5, 2)(torch.tensor([1.0, 2.0]))
except RuntimeError as e:
    print(e)
try:
    torch.randn(2, 3) + torch.randn(3, 2)
except RuntimeError as e:
    print(e)
try:
    torch.zeros(3)[torch.tensor([0.0, 1.0])]
except IndexError as e:
    print(e)

# "element 0 of tensors does not require grad and does not have a grad_fn"
w = torch.randn(3)
loss = (w * 2).sum()
try:
    loss.backward()
except RuntimeError as e:
    print(e)
model = nn.Linear(3, 1)
with torch.no_grad():
    loss = model(torch.randn(4, 3)).sum()
try:
    loss.backward()
except RuntimeError as e:
    print(e)
loss = model(torch.randn(4, 3)).sum().item()
print(type(loss).__name__)
pred = model(torch.randn(4, 3))
loss = torch.tensor(pred.detach().numpy()).sum()
print(loss.requires_grad)

# "a leaf Variable that requires grad is being used in an in-place operation"
w = torch.randn(3, requires_grad=True)
try:
    w -= 0.1 * torch.ones(3)
except RuntimeError as e:
    print(e)
try:
    w[0] = 1.0
except RuntimeError as e:
    print(e)
with torch.no_grad():
    w -= 0.1 * torch.ones(3)
w.data[0] = 1.0
print(w.is_leaf, w.requires_grad, w.grad_fn)
a = torch.randn(3, requires_grad=True)
b = a.sigmoid()
b.mul_(2)
try:
    b.sum().backward()
except RuntimeError as e:
    print(str(e).split(":")[0], "|", "is at version 1; expected version 0 instead" in str(e))

# view vs reshape
t = torch.arange(6).reshape(2, 3)
tt = t.t()
print(tt.is_contiguous(), tt.stride(), t.stride())
try:
    tt.view(6)
except RuntimeError as e:
    print(e)
print(tt.reshape(6), tt.contiguous().view(6), tt.contiguous().stride())
print(t.view(3, 2).data_ptr() == t.data_ptr(), tt.reshape(6).data_ptr() == t.data_ptr())
x = torch.randn(4, 3, 5).permute(0, 2, 1)
print(x.is_contiguous(), x.reshape(4, -1).shape, x.flatten(1).shape)
try:
    x.view(4, -1)
except RuntimeError as e:
    print(e)

# no_grad vs detach
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
z = (x * 2).detach()
print(y.requires_grad, z.requires_grad, y.grad_fn, z.is_leaf)
z[0] = 5.0  # shares memory with the graph's tensor, but not its history
print(z, torch.is_grad_enabled())


@torch.no_grad()
def evaluate(m, data):
    return m(data), torch.is_grad_enabled()


out, enabled = evaluate(model, torch.randn(2, 3))
print(out.requires_grad, enabled, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print(model(torch.randn(1, 3)).requires_grad)
with torch.inference_mode():
    print(model(torch.randn(1, 3)).requires_grad)

# the torch.where NaN gradient trap
x = torch.tensor([-1.0, 0.0, 4.0], requires_grad=True)
y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
y.sum().backward()
print(y, x.grad)
x.grad = None
safe = torch.where(x > 0, x, torch.ones_like(x))  # the double-where fix
y = torch.where(x > 0, torch.sqrt(safe), torch.zeros_like(x))
y.sum().backward()
print(y, x.grad)
x.grad = None
y = torch.sqrt(x.clamp(min=1e-12)) * (x > 0)
y.sum().backward()
print(x.grad)

# x.grad.zero_() in a manual loop
x = torch.tensor([2.0], requires_grad=True)
for i in range(3):
    y = x ** 2
    y.backward()
    print(i, x.grad)  # accumulates when nothing resets it
x.grad.zero_()
for i in range(3):
    y = x ** 2
    y.backward()
    print(i, x.grad.item())
    with torch.no_grad():
        x -= 0.1 * x.grad
    x.grad.zero_()
print(x)

# counting and freezing parameters by name
net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 10))
total = sum(p.numel() for p in net.parameters())
trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
print(f"total {total:,}, trainable {trainable:,}")
for name, param in net.named_parameters():
    if not name.startswith("4."):
        param.requires_grad = False
print([n for n, p in net.named_parameters() if p.requires_grad],
      sum(p.numel() for p in net.parameters() if p.requires_grad))
optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, net.parameters()), lr=0.1)
print(len(optimizer.param_groups[0]["params"]))
for name, module in net.named_modules():
    if isinstance(module, nn.BatchNorm2d):
        module.eval()
print([m.training for m in net], net.training)
print({name: tuple(p.shape) for name, p in net.state_dict().items()})

# register_forward_hook feature extraction
activation = {}


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook


h1 = net[0].register_forward_hook(get_activation("conv"))
h2 = net[3].register_forward_hook(get_activation("flat"))
out = net(torch.randn(2, 1, 8, 8))
print(activation["conv"].shape, activation["flat"].shape, activation["conv"].requires_grad)
h1.remove()
h2.remove()
activation.clear()
net(torch.randn(2, 1, 8, 8))
print(activation)
features = []
handle = net[2].register_forward_hook(lambda m, i, o: features.append(o.mean().item() >= 0))
net(torch.randn(1, 1, 8, 8))
handle.remove()
print(features)

# weighted CrossEntropyLoss for imbalanced classes
counts = torch.tensor([90.0, 9.0, 1.0])
weights = 1.0 / counts
weights = weights / weights.sum() * len(counts)
print(weights)
logits = torch.randn(6, 3)
target = torch.tensor([0, 0, 1, 2, 0, 1])
criterion = nn.CrossEntropyLoss(weight=weights)
loss = criterion(logits, target)
manual = (F.cross_entropy(logits, target, reduction="none") * weights[target]).sum() / weights[target].sum()
print(round(loss.item(), 4), round(manual.item(), 4), criterion)
print(round(nn.CrossEntropyLoss(weight=weights, label_smoothing=0.1)(logits, target).item(), 4))
print(round(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0]))(torch.randn(4, 1), torch.ones(4, 1)).item(), 4))

# random_split with a seeded generator, and early stopping with deepcopy of the best state_dict
X = torch.randn(50, 4)
y = (X[:, 0] + X[:, 1] > 0).long()
dataset = TensorDataset(X, y)
train_set, val_set = random_split(dataset, [40, 10], generator=torch.Generator().manual_seed(42))
print(len(train_set), len(val_set), val_set.indices[:5], type(train_set).__name__)
print([len(s) for s in random_split(dataset, [0.7, 0.2, 0.1], generator=torch.Generator().manual_seed(1))])
train_loader = DataLoader(train_set, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(0))
val_loader = DataLoader(val_set, batch_size=10)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
best_loss, best_state, patience, bad_epochs = float("inf"), None, 2, 0
for epoch in range(20):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = sum(F.cross_entropy(model(xb), yb, reduction="sum").item() for xb, yb in val_loader) / len(val_set)
    if val_loss < best_loss - 1e-3:
        best_loss, bad_epochs = val_loss, 0
        best_state = copy.deepcopy(model.state_dict())
    else:
        bad_epochs += 1
        if bad_epochs >= patience:
            print(f"early stopping at epoch {epoch}, best val loss {best_loss:.4f}")
            break
shallow = model.state_dict()
model.load_state_dict(best_state)
print(best_state["0.weight"] is not shallow["0.weight"], torch.equal(model[0].weight, best_state["0.weight"]))
print(best_state["2.bias"].requires_grad, list(best_state.keys()))

# printing
torch.set_printoptions(precision=2, sci_mode=False)
print(torch.tensor([1e-5, 0.123456, 1234.5678]))
print(torch.randn(2, 3) * 1000)
torch.set_printoptions(profile="default")
print(torch.tensor([1e-5, 0.123456, 1234.5678]))
print(torch.tensor([1e-10, 1.0]), torch.tensor([1e10, 1.0]), torch.tensor([0.1, 100000.0]))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10), torch.arange(20.0).reshape(4, 5))
torch.set_printoptions(profile="default")
torch.set_printoptions(linewidth=40)
print(torch.arange(12.0))
torch.set_printoptions(profile="default")
print(torch.zeros(0), torch.zeros(2, 0), torch.ones(1, 1, 1), torch.tensor(3), torch.tensor(-0.0))
print(torch.tensor([True, False]), torch.tensor([1, -2], dtype=torch.int8), torch.tensor([1.5], dtype=torch.float16))
print(torch.tensor([1.0, float("nan"), float("inf"), -float("inf")]), torch.tensor([2.0, 3.0], dtype=torch.float64))
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.uint8), torch.full((2, 2), 7, dtype=torch.int32))
print(torch.arange(3000.0).reshape(3, 1000))
print(torch.tensor([123456789.0, 1.0]), torch.tensor([0.5, 0.25], requires_grad=True))

# finfo / iinfo
for dt in [torch.float32, torch.float64, torch.float16]:
    fi = torch.finfo(dt)
    print(dt, fi.eps, fi.max, fi.min, fi.tiny, fi.bits, fi.resolution)
print(torch.finfo(torch.float32))
print(torch.iinfo(torch.int64).max, torch.iinfo(torch.int8).min, torch.iinfo(torch.uint8))
print(torch.finfo().eps == torch.finfo(torch.get_default_dtype()).eps)
print(torch.tensor([1.0]) + torch.finfo(torch.float32).eps / 2 == torch.tensor([1.0]))

# .detach().cpu().numpy()
out = model(torch.randn(3, 4))
try:
    out.numpy()
except RuntimeError as e:
    print(e)
arr = out.detach().cpu().numpy()
print(type(arr).__name__, arr.dtype, arr.shape)
arr[0, 0] = 100.0  # shares memory with the detached tensor
print(out[0, 0].item() == 100.0)
print(out.argmax(1).cpu().numpy().tolist(), np.asarray(torch.tensor([1, 2])).dtype)
print(torch.from_numpy(np.array([1.5, 2.5])).dtype, torch.tensor(np.float32(3.0)).dtype, torch.as_tensor([1, 2]).dtype)
