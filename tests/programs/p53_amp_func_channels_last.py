# Training-loop idioms of intermediate PyTorch code: the automatic-mixed-precision recipe
# (torch.autocast + torch.amp.GradScaler, with the nanoGPT-style `enabled=` switch and the
# "device_type from the device" pattern), channels_last models and inputs from the performance
# tuning guide, the per-sample-gradients tutorial of torch.func (vmap over grad with
# functional_call), a version check, and the torch.cuda memory calls notebooks sprinkle in.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

print("recent torch:", torch.__version__ >= "2.0", torch.__version__ < (3, 0))
device = "cuda" if torch.cuda.is_available() else "cpu"
print("device:", device, "| memory allocated:", torch.cuda.memory_allocated(), "| cache:", torch.cuda.empty_cache())

torch.manual_seed(0)
X = torch.randn(64, 10)
y = (X[:, 0] > 0).long()
model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.5)

# ---- mixed precision: float16 matmuls, a float32 loss, a scaled backward ---------------------------
scaler = torch.amp.GradScaler(device, init_scale=1024.0, growth_interval=3)
for step in range(6):
    opt.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device, dtype=torch.float16):
        logits = model(X)
        loss = F.cross_entropy(logits, y)
    if step == 0:
        print("inside autocast:", logits.dtype, loss.dtype, logits.grad_fn)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    # (float16 matmuls: the last digits of a loss depend on each kernel's rounding, so print three)
    print(f"step {step}: loss {loss.item():.3f} grad norm {norm.item():.3f} scale {scaler.get_scale()}")
print("weights stay float32:", model[0].weight.dtype, model[0].weight.grad.dtype)
print(scaler.state_dict())

use_amp = False  # the switch programs pass through: a disabled scaler and autocast do nothing
scaler = torch.amp.GradScaler(enabled=use_amp)
with torch.autocast(device_type=device, enabled=use_amp):
    out = model(X)
print("amp off:", out.dtype, scaler.is_enabled(), scaler.scale(torch.tensor(3.0)), scaler.get_scale())

# ---- channels_last -----------------------------------------------------------------------------------
conv = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
conv = conv.to(memory_format=torch.channels_last)
img = torch.randn(2, 3, 5, 5).to(memory_format=torch.channels_last)
print("weight strides:", conv[0].weight.stride(), "| input strides:", img.stride())
print("channels_last?", img.is_contiguous(memory_format=torch.channels_last), img.is_contiguous())
feat = conv(img)
print("output:", feat.shape, feat.flatten(1))
print("back to contiguous:", img.contiguous().stride(), torch.empty(1, 3, 2, 2, memory_format=torch.channels_last).stride())
try:
    torch.ones(3, 4).to(memory_format=torch.channels_last)
except RuntimeError as e:
    print("RuntimeError:", e)

# ---- per-sample gradients with torch.func --------------------------------------------------------------
params = {k: v.detach() for k, v in model.named_parameters()}


def loss_one(p, xi, yi):
    out = functional_call(model, p, (xi.unsqueeze(0),))
    return F.cross_entropy(out, yi.unsqueeze(0))


per_sample = vmap(grad(loss_one), in_dims=(None, 0, 0))(params, X[:8], y[:8])
for k, g in per_sample.items():
    print(k, tuple(g.shape), round(g.abs().sum().item(), 2))
mean_grad = per_sample["2.bias"].mean(0)
model.zero_grad()
F.cross_entropy(model(X[:8]), y[:8]).backward()
print("matches the batch gradient:", torch.allclose(mean_grad, model[2].bias.grad, atol=1e-6))
