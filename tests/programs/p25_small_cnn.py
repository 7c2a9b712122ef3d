# A small CNN: Conv2d, MaxPool2d, Linear; one training step on random images.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.fc1 = nn.Linear(8 * 3 * 3, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x))) if x.shape[-1] > 3 else F.relu(self.conv2(x))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


torch.manual_seed(0)
net = Net()
print(net)
images = torch.randn(4, 1, 8, 8)
labels = torch.tensor([0, 1, 2, 1])
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
for step in range(3):
    optimizer.zero_grad()
    outputs = net(images)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    print(step, outputs.shape, f"{loss.item():.4f}")
print(net.conv1.weight.shape, net.conv1.weight.grad.shape)
print(sum(p.numel() for p in net.parameters()))
_, predicted = torch.max(outputs, 1)
print(predicted)
