# "What is torch.nn really?", part 2: refactoring with nn.Module, nn.Linear, optim, Dataset, DataLoader.
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

digits = load_digits()
x_train, y_train = map(torch.tensor, (digits.data[:512], digits.target[:512]))
x_valid, y_valid = map(torch.tensor, (digits.data[512:768], digits.target[512:768]))
x_train, x_valid = x_train.float() / 16, x_valid.float() / 16
loss_func = F.cross_entropy
bs, lr, epochs = 64, 0.5, 3


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(64, 10) / 8)
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


torch.manual_seed(0)
model = Mnist_Logistic()
print(loss_func(model(x_train[:bs]), y_train[:bs]))
with torch.no_grad():
    for p in model.parameters():
        print(type(p).__name__, p.shape, p.requires_grad)


class Mnist_Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 10)

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = Mnist_Linear()
    return model, optim.SGD(model.parameters(), lr=lr)


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        import numpy as np
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, f"{val_loss:.4f}")


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True),
            DataLoader(valid_ds, batch_size=bs * 2))


train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
print(len(train_ds), train_ds[3][1], train_ds[0][0].shape)
torch.manual_seed(1)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
print(model)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
xb, yb = next(iter(valid_dl))
print(xb.shape, yb[:8], len(valid_dl), len(train_dl))
print(model.lin.weight.grad is None, opt.param_groups[0]["lr"])
