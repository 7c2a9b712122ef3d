# "What is torch.nn really?", part 3: a CNN, then nn.Sequential with a Lambda layer.
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

digits = load_digits()
x_train = torch.tensor(digits.data[:256], dtype=torch.float32) / 16
y_train = torch.tensor(digits.target[:256])
train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=32)


class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1)

    def forward(self, xb):
        xb = xb.view(-1, 1, 8, 8)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 1)
        return xb.view(-1, xb.size(1))


torch.manual_seed(0)
model = Mnist_CNN()
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    print(epoch, loss.item())
print(model(x_train[:2]).shape)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, 8, 8)


torch.manual_seed(0)
model = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
print(model)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    model.train()
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    with torch.no_grad():
        out = model(x_train)
        print(epoch, F.cross_entropy(out, y_train).item(), (out.argmax(1) == y_train).float().mean().item())
print(model[5](torch.arange(32.).view(2, 1, 4, 4)))
print(sum(p.numel() for p in model.parameters()))
