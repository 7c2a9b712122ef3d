# Forum-style snippets: gather, scatter, one_hot, topk, masks, argmax over dims.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
logits = torch.randn(4, 5)
labels = torch.tensor([1, 0, 4, 2])
print(logits.argmax(dim=1), logits.max(dim=1))
print(logits.gather(1, labels.unsqueeze(1)).squeeze(1))
print(logits[torch.arange(4), labels])
print(F.one_hot(labels, num_classes=5))
print(torch.zeros(4, 5).scatter_(1, labels.unsqueeze(1), 1.0))
values, indices = torch.topk(logits, 2, dim=1)
print(values, indices)
mask = logits > 0
print(mask.sum(), logits[mask].shape, logits.masked_fill(~mask, 0.0))
print(torch.where(logits > 0, logits, torch.zeros_like(logits)))
x = torch.arange(24).reshape(2, 3, 4)
print(x[:, 1], x[..., -1], x[0, :, [0, 2]], x[:, None].shape)
print(x.permute(2, 0, 1).shape, x.transpose(0, 1).stride())
print(x.flatten(1).shape, x.view(-1, 4).shape, x.unsqueeze(0).shape, x[0:1].squeeze(0).shape)
y = torch.tensor([3.0, 1.0, 2.0])
print(y.sort(), y.argsort(descending=True), torch.cumsum(y, 0))
print(torch.stack([y, y * 2]), torch.cat([y, y]), torch.chunk(torch.arange(6), 3))
print(torch.unique(torch.tensor([3, 1, 3, 2, 1]), return_counts=True))
print(torch.clamp(torch.linspace(-2, 2, 5), min=-1, max=1))
print(torch.nonzero(torch.tensor([0, 1, 0, 2])))
b = torch.zeros(3, 3)
b[torch.tensor([0, 2]), torch.tensor([1, 2])] = 5
b[1] += 1
print(b)
