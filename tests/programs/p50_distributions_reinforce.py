# torch.distributions as the tutorials use it. First REINFORCE, in the style of PyTorch's
# examples/reinforcement_learning/reinforce.py, on a hand-made corridor instead of gym's CartPole:
# a policy network, Categorical(probs) to sample an action, log_prob for the policy gradient,
# entropy. Then one VAE-style step with Normal / Independent / kl_divergence and rsample, and a
# few other distributions a beginner meets (Bernoulli, Uniform, MultivariateNormal).
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Bernoulli, Categorical, Independent, MultivariateNormal, Normal, Uniform
from torch.distributions import kl_divergence

torch.manual_seed(543)


class Corridor:
    """Positions 0..4, start at 0; action 1 steps right, 0 steps left; reaching 4 pays 1."""
    n = 5

    def reset(self):
        self.pos = 0
        return self.state()

    def state(self):
        return F.one_hot(torch.tensor(self.pos), self.n).float()

    def step(self, action):
        self.pos = max(0, self.pos + (1 if action == 1 else -1))
        done = self.pos == self.n - 1
        return self.state(), (1.0 if done else -0.05), done


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(5, 16)
        self.affine2 = nn.Linear(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        return F.softmax(self.affine2(x), dim=1)


env = Corridor()
policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=2e-2)
eps = np.finfo(np.float32).eps.item()
gamma = 0.9


def select_action(state):
    probs = policy(state.unsqueeze(0))
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = []
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss


m = Categorical(torch.tensor([0.25, 0.25, 0.5]))
print(m, m.batch_shape, m.event_shape, m.support)
print(m.sample((6,)), m.entropy(), m.log_prob(torch.tensor(2)))

running_reward = 0
for i_episode in range(1, 31):
    state, ep_reward = env.reset(), 0
    for t in range(1, 15):
        action = select_action(state)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    if i_episode % 5 == 0:
        print('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}\tsteps {}\tloss {:.4f}'.format(
            i_episode, ep_reward, running_reward, t, loss.item()))

with torch.no_grad():
    dist = Categorical(logits=policy.affine2(F.relu(policy.affine1(torch.eye(5)))))
print("policy entropy per state:", dist.entropy())
print("greedy actions:", dist.probs.argmax(-1), dist.mode)

# --- a VAE step: the encoder's Normal, the reparameterised sample, KL to the prior -------------
torch.manual_seed(0)
x = (torch.rand(8, 6) > 0.5).float()
encoder = nn.Linear(6, 4)
decoder = nn.Linear(2, 6)
mu, logvar = encoder(x).chunk(2, dim=-1)
q = Normal(mu, torch.exp(0.5 * logvar))
prior = Normal(torch.zeros_like(mu), torch.ones_like(mu))
print(q, q.batch_shape, q.has_rsample)
z = q.rsample()
recon = Bernoulli(logits=decoder(z))
print(recon, z.shape, z.grad_fn)
nll = -recon.log_prob(x).sum(-1)
kl = kl_divergence(q, prior).sum(-1)
loss = (nll + kl).mean()
loss.backward()
print("nll {:.4f} kl {:.4f} loss {:.4f}".format(nll.mean().item(), kl.mean().item(), loss.item()))
print("encoder grad norm {:.4f}".format(encoder.weight.grad.norm().item()))
kl_closed = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=-1)
print("matches the closed form:", torch.allclose(kl, kl_closed, atol=1e-6))

diag = Independent(Normal(mu.detach(), torch.ones_like(mu)), 1)
print(diag, diag.batch_shape, diag.event_shape, diag.log_prob(z.detach()).shape)

# --- a few more a beginner meets ----------------------------------------------------------------
torch.manual_seed(1)
coin = Bernoulli(torch.tensor([0.3, 0.9]))
print(coin.sample((4,)), coin.mean, coin.variance, coin.entropy())
u = Uniform(torch.tensor([0.0]), torch.tensor([5.0]))
print(u.sample((3,)).squeeze(), u.log_prob(torch.tensor([2.0])), u.entropy())
mvn = MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 0.8], [0.8, 1.0]]))
s = mvn.sample((500,))
print(mvn, s.shape, s.mean(0).abs().max() < 0.2, mvn.log_prob(torch.zeros(2)))
try:
    Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
except ValueError as e:
    print("ValueError:", e)
try:
    coin.log_prob(torch.tensor([0.5, 1.0]))
except ValueError as e:
    print("ValueError:", e)
