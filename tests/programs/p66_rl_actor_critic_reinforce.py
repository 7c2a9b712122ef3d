# Policy-gradient reinforcement learning without gym: a CartPole written out in NumPy (gym's equations
# of motion, a seeded RandomState), then PyTorch's examples/reinforcement_learning/actor_critic.py
# (SavedAction namedtuple, a two-headed Policy, Categorical, returns normalised with
# np.finfo(np.float32).eps, F.smooth_l1_loss(value, torch.tensor([R])), torch.stack(...).sum(),
# del model.rewards[:]), and REINFORCE written by hand with torch.multinomial and
# torch.log(probs.gather(...)) instead of torch.distributions, with a discounted-return helper
# using torch.flip / cumsum tricks, entropy bonus and a running reward.
import math
from collections import namedtuple
from itertools import count

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class CartPoleEnv:
    """gym's CartPole-v1, with its equations of motion and termination rules."""

    def __init__(self, seed=0, max_steps=200):
        self.gravity, self.masscart, self.masspole = 9.8, 1.0, 0.1
        self.total_mass = self.masspole + self.masscart
        self.length = 0.5  # actually half the pole's length
        self.polemass_length = self.masspole * self.length
        self.force_mag, self.tau = 10.0, 0.02
        self.theta_threshold_radians = 12 * 2 * math.pi / 360
        self.x_threshold = 2.4
        self.max_steps = max_steps
        self.np_random = np.random.RandomState(seed)

    def reset(self):
        self.state = self.np_random.uniform(low=-0.05, high=0.05, size=(4,))
        self.steps = 0
        return np.array(self.state, dtype=np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + self.polemass_length * theta_dot ** 2 * sintheta) / self.total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta ** 2 / self.total_mass))
        xacc = temp - self.polemass_length * thetaacc * costheta / self.total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * xacc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        self.steps += 1
        terminated = bool(x < -self.x_threshold or x > self.x_threshold
                          or theta < -self.theta_threshold_radians or theta > self.theta_threshold_radians)
        truncated = self.steps >= self.max_steps
        return np.array(self.state, dtype=np.float32), 1.0, terminated, truncated, {}


# ---- examples/reinforcement_learning/actor_critic.py ------------------------------------------------
gamma = 0.99
log_interval = 2
env = CartPoleEnv(seed=543)
torch.manual_seed(543)

SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class Policy(nn.Module):
    """
    implements both actor and critic in one model
    """
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 32)

        # actor's layer
        self.action_head = nn.Linear(32, 2)

        # critic's layer
        self.value_head = nn.Linear(32, 1)

        # action & reward buffer
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        """
        forward of both actor and critic
        """
        x = F.relu(self.affine1(x))

        # actor: choses action to take from state s_t
        # by returning probability of each action
        action_prob = F.softmax(self.action_head(x), dim=-1)

        # critic: evaluates being in state s_t
        state_values = self.value_head(x)

        # return values for both actor and critic as a tuple of 2 values:
        # 1. a list with the probability of each action over the action space
        # 2. the value from state s_t
        return action_prob, state_values


model = Policy()
optimizer = optim.Adam(model.parameters(), lr=3e-2)
eps = np.finfo(np.float32).eps.item()
print(eps, type(eps).__name__)


def select_action(state):
    state = torch.from_numpy(state).float()
    probs, state_value = model(state)

    # create a categorical distribution over the list of probabilities of actions
    m = Categorical(probs)

    # and sample an action using the distribution
    action = m.sample()

    # save to action buffer
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))

    # the action to take (left or right)
    return action.item()


def finish_episode():
    """
    Training code. Calculates actor and critic loss and performs backprop.
    """
    R = 0
    saved_actions = model.saved_actions
    policy_losses = []  # list to save actor (policy) loss
    value_losses = []  # list to save critic (value) loss
    returns = []  # list to save the true values

    # calculate the true value using rewards returned from the environment
    for r in model.rewards[::-1]:
        # calculate the discounted value
        R = r + gamma * R
        returns.insert(0, R)

    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)

    for (log_prob, value), R in zip(saved_actions, returns):
        advantage = R - value.item()

        # calculate actor (policy) loss
        policy_losses.append(-log_prob * advantage)

        # calculate critic (value) loss using L1 smooth loss
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))

    # reset gradients
    optimizer.zero_grad()

    # sum up all the values of policy_losses and value_losses
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()

    # perform backprop
    loss.backward()
    optimizer.step()

    # reset rewards and action buffer
    del model.rewards[:]
    del model.saved_actions[:]
    return loss


running_reward = 10

# run infinitely many episodes
for i_episode in count(1):

    # reset environment and episode reward
    state, _ = env.reset()
    ep_reward = 0

    # for each episode, only run 9999 steps so that we don't
    # infinite loop while learning
    for t in range(1, 10000):

        # select action from policy
        action = select_action(state)

        # take the action
        state, reward, done, _, _ = env.step(action)

        model.rewards.append(reward)
        ep_reward += reward
        if done:
            break

    # update cumulative reward
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward

    if i_episode == 1:
        print(model.saved_actions[0].log_prob, model.saved_actions[0].value, len(model.rewards))
    # perform backprop
    loss = finish_episode()

    # log results
    if i_episode % log_interval == 0:
        print('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}\tloss {:.4f}'.format(
            i_episode, ep_reward, running_reward, loss.item()))

    # check if we have "solved" the cart pole problem
    if running_reward > 195 or i_episode >= 8:
        print("Stopped! Running reward is now {:.2f} and the last episode runs to {} time steps!".format(
            running_reward, t))
        break

print(torch.tensor([torch.tensor(0.5), torch.tensor(1.5)]), torch.tensor([torch.tensor([2.0])[0]]).shape)


# ---- REINFORCE by hand ----------------------------------------------------------------------------------
def discount_rewards(rewards, gamma=0.99):
    r = np.array([gamma ** i * rewards[i] for i in range(len(rewards))])
    # Reverse the array direction for cumsum and then revert back to the original order
    r = r[::-1].cumsum()[::-1]
    return r - r.mean()


def discounted_returns_torch(rewards, gamma=0.99):
    rewards = torch.tensor(rewards, dtype=torch.float32)
    discounts = gamma ** torch.arange(len(rewards), dtype=torch.float32)
    return torch.flip(torch.cumsum(torch.flip(rewards * discounts, dims=(0,)), dim=0), dims=(0,)) / discounts


print(discount_rewards([1.0, 1.0, 1.0]).round(4), discounted_returns_torch([1.0, 1.0, 1.0], 0.5))

torch.manual_seed(0)
env = CartPoleEnv(seed=1)
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2), nn.Softmax(dim=-1))
optimizer = torch.optim.Adam(policy.parameters(), lr=0.01)
batch_states, batch_actions, batch_returns, totals = [], [], [], []
for episode in range(6):
    s_0, _ = env.reset()
    states, rewards, actions = [], [], []
    done = False
    while not done:
        with torch.no_grad():
            action_probs = policy(torch.FloatTensor(s_0))
        action = torch.multinomial(action_probs, 1).item()
        s_1, r, done, _, _ = env.step(action)
        states.append(s_0)
        rewards.append(r)
        actions.append(action)
        s_0 = s_1
    batch_returns.extend(discounted_returns_torch(rewards).tolist())
    batch_states.extend(states)
    batch_actions.extend(actions)
    totals.append(sum(rewards))
    if (episode + 1) % 2 == 0:  # update every 2 episodes
        optimizer.zero_grad()
        state_tensor = torch.FloatTensor(np.array(batch_states))
        reward_tensor = torch.FloatTensor(batch_returns)
        reward_tensor = (reward_tensor - reward_tensor.mean()) / (reward_tensor.std() + 1e-9)
        action_tensor = torch.LongTensor(batch_actions)
        probs = policy(state_tensor)
        logprob = torch.log(probs)
        selected_logprobs = reward_tensor * torch.gather(logprob, 1, action_tensor.unsqueeze(1)).squeeze()
        entropy = -(probs * logprob).sum(dim=1).mean()
        loss = -selected_logprobs.mean() - 0.01 * entropy
        loss.backward()
        optimizer.step()
        print(f"episodes {episode - 1}-{episode}: rewards {totals[-2:]}, loss {loss.item():.4f}, "
              f"entropy {entropy.item():.4f}, states {tuple(state_tensor.shape)}, {selected_logprobs.grad_fn}")
        batch_states, batch_actions, batch_returns = [], [], []
print("mean reward over the last 4 episodes:", np.mean(totals[-4:]))
with torch.no_grad():
    print(policy(torch.zeros(1, 4)), policy(torch.zeros(4)).argmax().item())
