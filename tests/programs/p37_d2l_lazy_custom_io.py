# d2l.ai "Lazy Initialization", "Custom Layers" and "File I/O".
import os
import tempfile
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net[0].weight)
print(net)
X = torch.rand(2, 20)
print(net(X).shape)
print(net[0].weight.shape, net[2].weight.shape)
print(net)
print(type(net[0]).__name__, net[0].in_features)


class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
Y = net(torch.rand(4, 8))
print(Y.mean().abs() < 1e-6)


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.rand(2, 5)))
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.rand(2, 64)))

with tempfile.TemporaryDirectory() as d:
    x = torch.arange(4)
    torch.save(x, os.path.join(d, "x-file"))
    x2 = torch.load(os.path.join(d, "x-file"))
    print(x2)
    y = torch.zeros(4)
    torch.save([x, y], os.path.join(d, "x-files"))
    x2, y2 = torch.load(os.path.join(d, "x-files"))
    print((x2, y2))
    mydict = {"x": x, "y": y}
    torch.save(mydict, os.path.join(d, "mydict"))
    print(torch.load(os.path.join(d, "mydict")))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.LazyLinear(256)
            self.output = nn.LazyLinear(10)

        def forward(self, x):
            return self.output(F.relu(self.hidden(x)))

    net = MLP()
    X = torch.randn(size=(2, 20))
    Y = net(X)
    torch.save(net.state_dict(), os.path.join(d, "mlp.params"))
    clone = MLP()
    clone(X)
    print(clone.load_state_dict(torch.load(os.path.join(d, "mlp.params"))))
    print(clone.eval())
    print(clone(X) == Y)
