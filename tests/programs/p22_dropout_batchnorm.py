# Dropout and BatchNorm: train() and eval() behave differently.
import torch
import torch.nn as nn

torch.manual_seed(0)
drop = nn.Dropout(p=0.5)
x = torch.ones(2, 6)
print(drop(x))
drop.eval()
print(drop(x))
bn = nn.BatchNorm1d(3)
data = torch.randn(8, 3) * 2 + 1
out = bn(data)
print(out.mean(0).abs() < 1e-5, bn.running_mean, bn.running_var)
bn.eval()
print(bn(data)[:2])
print(bn.num_batches_tracked, bn.weight, bn.bias)
ln = nn.LayerNorm(3)
print(ln(data)[:2])
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Dropout(0.2))
print(model.training, model[1].training)
model.eval()
print(model.training, model[1].training)
print(model)
