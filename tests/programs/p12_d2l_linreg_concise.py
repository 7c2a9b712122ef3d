# d2l.ai 3.3 "Concise Implementation of Linear Regression".
import torch
from torch.utils import data
from torch import nn

torch.manual_seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
X = torch.normal(0, 1, (1000, len(true_w)))
y = torch.matmul(X, true_w) + true_b
y += torch.normal(0, 0.01, y.shape)
features, labels = X, y.reshape((-1, 1))


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


batch_size = 10
data_iter = load_array((features, labels), batch_size)
print(next(iter(data_iter)))

net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
num_epochs = 3
for epoch in range(num_epochs):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:f}')
w = net[0].weight.data
print('error in estimating w:', true_w - w.reshape(true_w.shape))
b = net[0].bias.data
print('error in estimating b:', true_b - b)
print(net)
print(len(data_iter), len(data_iter.dataset))
