# d2l.ai "Dropout" from scratch and "Weight Decay" (an L2 penalty by hand, then the optimizer's).
import torch
from torch import nn


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


torch.manual_seed(0)
X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print("dropout_p = 0:", dropout_layer(X, 0))
print("dropout_p = 0.5:", dropout_layer(X, 0.5))
print("dropout_p = 1:", dropout_layer(X, 1))


class Net(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens1, num_hiddens2, is_training=True):
        super(Net, self).__init__()
        self.num_inputs = num_inputs
        self.training = is_training
        self.lin1 = nn.Linear(num_inputs, num_hiddens1)
        self.lin2 = nn.Linear(num_hiddens1, num_hiddens2)
        self.lin3 = nn.Linear(num_hiddens2, num_outputs)
        self.relu = nn.ReLU()

    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((-1, self.num_inputs))))
        if self.training == True:
            H1 = dropout_layer(H1, 0.2)
        H2 = self.relu(self.lin2(H1))
        if self.training == True:
            H2 = dropout_layer(H2, 0.5)
        return self.lin3(H2)


net = Net(8, 3, 16, 16)
Y = torch.randint(0, 3, (2,))
loss = nn.CrossEntropyLoss(reduction="none")
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(3):
    l = loss(net(X / 16), Y)
    trainer.zero_grad()
    l.mean().backward()
    trainer.step()
    print(epoch, l)
net.training = False
print(net(X / 16))

n_train, n_test, num_inputs, batch_size = 20, 100, 200, 5
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05


def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


train_X, train_y = synthetic_data(true_w, true_b, n_train)
test_X, test_y = synthetic_data(true_w, true_b, n_test)


def init_params():
    w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def train(lambd):
    w, b = init_params()
    num_epochs, lr = 20, 0.003
    for epoch in range(num_epochs):
        for i in range(0, n_train, batch_size):
            X, y = train_X[i:i + batch_size], train_y[i:i + batch_size]
            l = squared_loss(linreg(X, w, b), y) + lambd * l2_penalty(w)
            l.sum().backward()
            sgd([w, b], lr, batch_size)
    test_l = squared_loss(linreg(test_X, w, b), test_y).mean()
    print("L2 norm of w:", torch.norm(w).item(), "test loss:", test_l.item())


train(lambd=0)
train(lambd=3)


def train_concise(wd):
    net = nn.Sequential(nn.Linear(num_inputs, 1))
    for param in net.parameters():
        param.data.normal_()
    loss = nn.MSELoss(reduction="none")
    num_epochs, lr = 20, 0.003
    trainer = torch.optim.SGD([{"params": net[0].weight, "weight_decay": wd}, {"params": net[0].bias}], lr=lr)
    for epoch in range(num_epochs):
        for i in range(0, n_train, batch_size):
            X, y = train_X[i:i + batch_size], train_y[i:i + batch_size]
            trainer.zero_grad()
            l = loss(net(X), y)
            l.mean().backward()
            trainer.step()
    print("L2 norm of w:", net[0].weight.norm().item(), trainer.param_groups[1]["weight_decay"])


train_concise(0)
train_concise(3)
