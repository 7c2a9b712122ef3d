# "What is torch.nn really?", part 1: logistic regression from scratch on the digits images.
import math
import torch
from sklearn.datasets import load_digits

digits = load_digits()
x_train, y_train = map(torch.tensor, (digits.data[:400], digits.target[:400]))
x_valid, y_valid = map(torch.tensor, (digits.data[400:600], digits.target[400:600]))
x_train, x_valid = x_train.float() / 16, x_valid.float() / 16
n, c = x_train.shape
print(x_train.shape, y_train.min(), y_train.max(), x_train.dtype, y_train.dtype)

torch.manual_seed(0)
weights = torch.randn(64, 10) / math.sqrt(64)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


print(accuracy(preds, yb))

lr = 0.5
epochs = 3
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
    print(epoch, loss_func(model(x_valid), y_valid).item(), accuracy(model(x_valid), y_valid).item())

print(loss_func(model(xb), yb), accuracy(model(xb), yb))
print(weights.grad.abs().sum(), bias.is_leaf, pred.grad_fn)
