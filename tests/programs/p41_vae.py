# The classic PyTorch examples VAE, shrunk to 16-pixel "images": an encoder to (mu, logvar), the
# reparameterisation trick with randn_like, BCE(reduction='sum') + KL divergence, a few epochs of
# Adam over a DataLoader, then sampling from the prior.
import torch
from torch import nn, optim
from torch.nn import functional as F

torch.manual_seed(1)
device = torch.device("cpu")
kwargs = {'num_workers': 1, 'pin_memory': True} if torch.cuda.is_available() else {}

# binary-ish images: two prototype patterns plus noise, values in [0, 1]
protos = torch.tensor([[1.0] * 8 + [0.0] * 8, [0.0, 1.0] * 8])
which = torch.randint(0, 2, (64,))
images = (protos[which] * 0.9 + 0.1 * torch.rand(64, 16)).clamp(0, 1)
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, which), batch_size=16,
                                           shuffle=True, **kwargs)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(16, 12)
        self.fc21 = nn.Linear(12, 2)
        self.fc22 = nn.Linear(12, 2)
        self.fc3 = nn.Linear(2, 12)
        self.fc4 = nn.Linear(12, 16)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 16))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE().to(device)
print(model)
optimizer = optim.Adam(model.parameters(), lr=1e-2)


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 16), reduction='sum')
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2), Kingma and Welling, Appendix B
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % 2 == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item() / len(data)))
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, train_loss / len(train_loader.dataset)))


for epoch in range(1, 4):
    train(epoch)

x = images[:4]
recon, mu, logvar = model(x)
print(recon.shape, mu.shape, logvar.shape, recon.grad_fn)
print(loss_function(recon, x, mu, logvar).grad_fn)
model.eval()
with torch.no_grad():
    mu, logvar = model.encode(images[:6])
    print(mu)
    print(which[:6])
    sample = torch.randn(3, 2).to(device)
    sample = model.decode(sample).cpu()
    print(sample.view(3, 1, 4, 4).shape)
    print(sample.round(decimals=1))
    print(F.binary_cross_entropy(sample, images[:3]), F.binary_cross_entropy(sample, images[:3], reduction='none').shape)
try:
    F.binary_cross_entropy(torch.tensor([0.5, 1.2]), torch.tensor([1.0, 0.0]))
except RuntimeError as e:
    print(type(e).__name__, str(e)[:47])
