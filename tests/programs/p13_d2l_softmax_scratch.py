# d2l.ai 4.2/4.4 "Softmax Regression from Scratch", on synthetic three-class data.
import torch

torch.manual_seed(0)
num_inputs, num_outputs = 4, 3
centers = torch.tensor([[2.0, 0.0, 0.0, 1.0], [-2.0, 1.0, 0.0, 0.0], [0.0, -2.0, 2.0, 0.0]])
y = torch.randint(0, 3, (300,))
X = centers[y] + 0.5 * torch.randn(300, num_inputs)

W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)

X_ = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X_.sum(0, keepdim=True), X_.sum(1, keepdim=True))


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


X_prob = softmax(torch.normal(0, 1, (2, 5)))
print(X_prob, X_prob.sum(1))


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


y_ = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y_])


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])


print(cross_entropy(y_hat, y_))


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y_) / len(y_))
lr = 0.1
for epoch in range(5):
    for i in range(0, 300, 30):
        Xb, yb = X[i:i + 30], y[i:i + 30]
        l = cross_entropy(net(Xb), yb)
        l.mean().backward()
        with torch.no_grad():
            W -= lr * W.grad
            b -= lr * b.grad
            W.grad.zero_()
            b.grad.zero_()
    with torch.no_grad():
        print(f"epoch {epoch + 1}, loss {cross_entropy(net(X), y).mean():.4f}, acc {accuracy(net(X), y) / 300:.3f}")
