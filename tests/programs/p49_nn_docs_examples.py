# The "Examples" boxes of the torch.nn reference pages, one layer after another (shrunk sizes):
# build the module, print it, run a random input, print the output's shape and a few values;
# then nn.utils' helpers and ParameterList / ParameterDict / ModuleDict.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def show(m, *inputs):
    out = m(*inputs)
    first = out[0] if isinstance(out, tuple) else out
    print(m, "->", tuple(first.shape), first.reshape(-1)[:3])
    return out


show(nn.Conv1d(4, 6, 3, stride=2), torch.randn(2, 4, 9))
show(nn.Conv1d(4, 4, 3, padding="same", groups=2, bias=False), torch.randn(1, 4, 5))
show(nn.Conv2d(2, 4, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 1)), torch.randn(1, 2, 7, 5))
show(nn.ConvTranspose2d(3, 2, 3, stride=2), torch.randn(1, 3, 4, 4))
up = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
print(up(torch.randn(1, 3, 4, 4), output_size=[8, 8]).size())
show(nn.MaxPool1d(3, stride=2), torch.randn(2, 3, 9))
pool, unpool = nn.MaxPool2d(2, stride=2, return_indices=True), nn.MaxUnpool2d(2, stride=2)
o, idx = pool(torch.arange(16.0).view(1, 1, 4, 4))
print(o, idx, unpool(o, idx), sep="\n")
o, idx = pool(torch.randn(1, 1, 5, 5))
print(unpool(o, idx, output_size=torch.Size([1, 1, 5, 5])).shape, unpool)
pool1 = nn.MaxPool1d(2, stride=2, return_indices=True)
o, idx = pool1(torch.tensor([[[1., 2, 3, 4, 5, 6, 7, 8]]]))
print(nn.MaxUnpool1d(2, stride=2)(o, idx))
show(nn.AvgPool2d(3, stride=2, padding=1), torch.randn(1, 2, 5, 5))
show(nn.AdaptiveAvgPool2d((2, 3)), torch.randn(1, 2, 5, 7))
show(nn.AdaptiveAvgPool2d(1), torch.randn(2, 3, 4, 4))
show(nn.AdaptiveMaxPool1d(2), torch.randn(1, 2, 5))
show(nn.BatchNorm1d(4), torch.randn(5, 4))
show(nn.BatchNorm1d(4, affine=False), torch.randn(3, 4, 6))
show(nn.BatchNorm2d(3, momentum=None), torch.randn(2, 3, 2, 2))
ln = nn.LayerNorm([3, 4])
show(ln, torch.randn(2, 3, 4))
print(ln.weight.shape, ln.normalized_shape)
show(nn.GroupNorm(2, 4), torch.randn(2, 4, 3))
show(nn.InstanceNorm1d(3), torch.randn(2, 3, 5))
for act in (nn.GELU(), nn.GELU(approximate="tanh"), nn.SiLU(), nn.ELU(alpha=0.5), nn.Softplus(beta=2),
            nn.Mish(), nn.Hardtanh(-0.5, 0.5), nn.LeakyReLU(0.1), nn.PReLU(), nn.Softsign(), nn.CELU(),
            nn.SELU(), nn.Hardswish(), nn.Softmin(dim=0), nn.GLU()):
    show(act, torch.linspace(-2, 2, 4))
show(nn.Bilinear(3, 2, 4), torch.randn(5, 3), torch.randn(5, 2))
show(nn.Embedding(10, 3, padding_idx=0), torch.tensor([[0, 2, 4], [4, 3, 9]]))
show(nn.Identity(54, unused="argument"), torch.randn(2, 2))
show(nn.Flatten(0, 1), torch.randn(2, 3, 4))
show(nn.Unflatten(1, (2, 2)), torch.randn(3, 4))
show(nn.Dropout1d(0.5).eval(), torch.randn(2, 3, 4))
show(nn.Upsample(scale_factor=2, mode="nearest"), torch.arange(4.0).view(1, 1, 2, 2))
show(nn.ZeroPad2d((1, 1, 2, 0)), torch.randn(1, 1, 2, 2))
show(nn.ReflectionPad1d(2), torch.arange(4.0).view(1, 1, 4))
show(nn.CosineSimilarity(dim=1), torch.randn(3, 4), torch.randn(3, 4))
show(nn.PairwiseDistance(), torch.randn(3, 4), torch.randn(3, 4))
show(nn.PixelShuffle(2), torch.randn(1, 4, 2, 2))
show(nn.RNN(4, 3, 2, nonlinearity="relu"), torch.randn(5, 2, 4), torch.zeros(2, 2, 3))
show(nn.GRU(4, 3, bidirectional=True, batch_first=True), torch.randn(2, 5, 4))
show(nn.LSTMCell(4, 3), torch.randn(2, 4))
show(nn.GRUCell(4, 3), torch.randn(2, 4))
mha = nn.MultiheadAttention(8, 2, batch_first=True)
q = torch.randn(2, 3, 8)
attn_output, attn_weights = mha(q, q, q)
print(mha, attn_output.shape, attn_weights.shape, attn_weights.sum(-1).round(decimals=3))

print("losses")
inp, tgt = torch.randn(3, 5, requires_grad=True), torch.randn(3, 5)
for loss in (nn.L1Loss(), nn.MSELoss(reduction="sum"), nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(delta=0.5),
             nn.SoftMarginLoss(), nn.CosineEmbeddingLoss()):
    args = (inp, tgt) if not isinstance(loss, (nn.SoftMarginLoss, nn.CosineEmbeddingLoss)) else (
        (inp, tgt.sign()) if isinstance(loss, nn.SoftMarginLoss) else (inp, tgt, torch.tensor([1, -1, 1])))
    out = loss(*args)
    out.backward()
    print(loss, out, out.grad_fn.name())
kl = nn.KLDivLoss(reduction="batchmean")
print(kl(F.log_softmax(torch.randn(3, 5), dim=1), F.softmax(torch.rand(3, 5), dim=1)))
print(nn.KLDivLoss(reduction="batchmean", log_target=True)(F.log_softmax(inp, 1), F.log_softmax(tgt, 1)))
print(nn.BCEWithLogitsLoss(pos_weight=torch.ones(5) * 2)(inp, torch.rand(3, 5)))
print(nn.CrossEntropyLoss(label_smoothing=0.1)(inp, torch.tensor([1, 0, 4])))
print(nn.CrossEntropyLoss()(inp, F.softmax(torch.randn(3, 5), dim=1)))
print(nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 1.0, 1.0, 0.5]))(F.log_softmax(inp, 1), torch.tensor([1, 0, 4])))
print(nn.MarginRankingLoss(margin=0.1)(torch.randn(3), torch.randn(3), torch.tensor([1, -1, 1])))
print(nn.TripletMarginLoss()(torch.randn(2, 4), torch.randn(2, 4), torch.randn(2, 4)))
print(nn.PoissonNLLLoss()(torch.randn(4), torch.rand(4) * 3))
print(nn.GaussianNLLLoss()(torch.randn(4), torch.randn(4), torch.ones(4)))

print("utils")
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
model(torch.randn(6, 3)).pow(2).sum().backward()
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
# (the clipped norm is 1 up to the last bit, which depends on the order of the sums: print 4 decimals)
print(total, f"{torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters())).item():.4f}")
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
print(model[0].weight.grad.abs().max())
vec = nn.utils.parameters_to_vector(model.parameters())
print(vec.shape, vec[:4])
nn.utils.vector_to_parameters(torch.zeros_like(vec), model.parameters())
print(model[2].bias, model[2].bias.requires_grad)
plist = nn.ParameterList([nn.Parameter(torch.randn(2, 2)) for _ in range(3)])
print(plist, len(plist), sum(p.numel() for p in plist))
pdict = nn.ParameterDict({"left": nn.Parameter(torch.randn(5, 10)), "right": nn.Parameter(torch.randn(5, 10))})
print(pdict, list(pdict.keys()))
mdict = nn.ModuleDict({"conv": nn.Conv2d(1, 2, 3), "pool": nn.MaxPool2d(2)})
print(mdict, [k for k, _ in mdict.items()])
mlist = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
mlist.append(nn.ReLU())
print(mlist, len(list(mlist.parameters())))
