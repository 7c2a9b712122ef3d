# "Reinforcement Learning (DQN) Tutorial", shrunk and without gym: a NumPy CartPole, the Transition
# namedtuple and ReplayMemory (deque + random.sample), epsilon-greedy select_action with
# policy_net(state).max(1).indices.view(1, 1), optimize_model (non_final_mask, torch.cat of the batch,
# gather(1, action_batch), target_net(...).max(1).values under no_grad, SmoothL1Loss,
# clip_grad_value_), AdamW(amsgrad=True) and the soft target update through state_dict /
# load_state_dict; then the older forum-style DQN: a list replay buffer, torch.tensor(batch,
# dtype=...) from tuples, gather(1, actions.unsqueeze(1)), max(1)[0].detach(), (1 - dones), MSE, and a
# hard target update with load_state_dict every few steps.
import math
import random
from collections import deque, namedtuple
from itertools import count

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class CartPoleEnv:
    """gym's CartPole-v1, with its equations of motion and termination rules."""

    def __init__(self, seed=0, max_steps=200):
        self.gravity, self.masscart, self.masspole = 9.8, 1.0, 0.1
        self.total_mass = self.masspole + self.masscart
        self.length = 0.5
        self.polemass_length = self.masspole * self.length
        self.force_mag, self.tau = 10.0, 0.02
        self.theta_threshold_radians = 12 * 2 * math.pi / 360
        self.x_threshold = 2.4
        self.max_steps = max_steps
        self.np_random = np.random.RandomState(seed)
        self.n_actions = 2

    def reset(self):
        self.state = self.np_random.uniform(low=-0.05, high=0.05, size=(4,))
        self.steps = 0
        return np.array(self.state, dtype=np.float32), {}

    def sample_action(self):
        return int(self.np_random.randint(self.n_actions))

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


env = CartPoleEnv(seed=0)
random.seed(0)
torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

Transition = namedtuple('Transition', ('state', 'action', 'next_state', 'reward'))


class ReplayMemory(object):

    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        """Save a transition"""
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):

    def __init__(self, n_observations, n_actions):
        super(DQN, self).__init__()
        self.layer1 = nn.Linear(n_observations, 32)
        self.layer2 = nn.Linear(32, 32)
        self.layer3 = nn.Linear(32, n_actions)

    # Called with either one element to determine next action, or a batch
    # during optimization. Returns tensor([[left0exp,right0exp]...]).
    def forward(self, x):
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        return self.layer3(x)


# BATCH_SIZE is the number of transitions sampled from the replay buffer
# GAMMA is the discount factor as mentioned in the previous section
# EPS_START is the starting value of epsilon
# EPS_END is the final value of epsilon
# EPS_DECAY controls the rate of exponential decay of epsilon, higher means a slower decay
# TAU is the update rate of the target network
# LR is the learning rate of the ``AdamW`` optimizer
BATCH_SIZE = 16
GAMMA = 0.99
EPS_START = 0.9
EPS_END = 0.01
EPS_DECAY = 50
TAU = 0.005
LR = 3e-4

# Get number of actions from gym action space
n_actions = env.n_actions
# Get the number of state observations
state, info = env.reset()
n_observations = len(state)

policy_net = DQN(n_observations, n_actions).to(device)
target_net = DQN(n_observations, n_actions).to(device)
target_net.load_state_dict(policy_net.state_dict())

optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(10000)

steps_done = 0


def select_action(state):
    global steps_done
    sample = random.random()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
    steps_done += 1
    if sample > eps_threshold:
        with torch.no_grad():
            # t.max(1) will return the largest column value of each row.
            # second column on max result is index of where max element was
            # found, so we pick action with the larger expected reward.
            return policy_net(state).max(1).indices.view(1, 1)
    else:
        return torch.tensor([[env.sample_action()]], device=device, dtype=torch.long)


episode_durations = []


def optimize_model():
    if len(memory) < BATCH_SIZE:
        return
    transitions = memory.sample(BATCH_SIZE)
    # Transpose the batch (see https://stackoverflow.com/a/19343/3343043 for
    # detailed explanation). This converts batch-array of Transitions
    # to Transition of batch-arrays.
    batch = Transition(*zip(*transitions))

    # Compute a mask of non-final states and concatenate the batch elements
    # (a final state would've been the one after which simulation ended)
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), device=device,
                                  dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)

    # Compute Q(s_t, a) - the model computes Q(s_t), then we select the
    # columns of actions taken. These are the actions which would've been taken
    # for each batch state according to policy_net
    state_action_values = policy_net(state_batch).gather(1, action_batch)

    # Compute V(s_{t+1}) for all next states.
    # Expected values of actions for non_final_next_states are computed based
    # on the "older" target_net; selecting their best reward with max(1).values
    # This is merged based on the mask, such that we'll have either the expected
    # state value or 0 in case the state was final.
    next_state_values = torch.zeros(BATCH_SIZE, device=device)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    # Compute the expected Q values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch

    # Compute Huber loss
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))

    # Optimize the model
    optimizer.zero_grad()
    loss.backward()
    # In-place gradient clipping
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss


num_episodes = 4
losses = []
for i_episode in range(num_episodes):
    # Initialize the environment and get its state
    state, info = env.reset()
    state = torch.tensor(state, dtype=torch.float32, device=device).unsqueeze(0)
    for t in count():
        action = select_action(state)
        observation, reward, terminated, truncated, _ = env.step(action.item())
        reward = torch.tensor([reward], device=device)
        done = terminated or truncated

        if terminated:
            next_state = None
        else:
            next_state = torch.tensor(observation, dtype=torch.float32, device=device).unsqueeze(0)

        # Store the transition in memory
        memory.push(state, action, next_state, reward)

        # Move to the next state
        state = next_state

        # Perform one step of the optimization (on the policy network)
        loss = optimize_model()
        if loss is not None:
            losses.append(loss.item())

        # Soft update of the target network's weights
        # θ′ ← τ θ + (1 −τ )θ′
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        for key in policy_net_state_dict:
            target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
        target_net.load_state_dict(target_net_state_dict)

        if done:
            episode_durations.append(t + 1)
            break
    print(f"episode {i_episode}: duration {episode_durations[-1]}, memory {len(memory)}, steps {steps_done}, "
          f"last loss {losses[-1] if losses else None:.4f}")

print('Complete', episode_durations)
durations_t = torch.tensor(episode_durations, dtype=torch.float)
print(durations_t, durations_t.mean())
transition = memory.memory[0]
print(transition.state.shape, transition.action, transition.reward, transition.reward.dtype)
batch = Transition(*zip(*memory.sample(3)))
print(torch.cat(batch.state).shape, torch.cat(batch.action).shape, type(batch.next_state).__name__)
diff = sum((p - q).abs().sum() for p, q in zip(policy_net.parameters(), target_net.parameters()))
print(f"{len(losses)} optimisation steps, target lags behind: {diff.item() > 0}",
      policy_net.state_dict()['layer1.weight'].requires_grad)


# ---- the older forum-style DQN ------------------------------------------------------------------------
class QNetwork(nn.Module):
    def __init__(self, state_size, action_size, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(state_size, hidden)
        self.fc2 = nn.Linear(hidden, action_size)

    def forward(self, state):
        return self.fc2(F.relu(self.fc1(state)))


class ReplayBuffer:
    def __init__(self, capacity):
        self.capacity = capacity
        self.buffer = []
        self.position = 0

    def push(self, state, action, reward, next_state, done):
        if len(self.buffer) < self.capacity:
            self.buffer.append(None)
        self.buffer[self.position] = (state, action, reward, next_state, done)
        self.position = (self.position + 1) % self.capacity

    def sample(self, batch_size):
        batch = random.sample(self.buffer, batch_size)
        state, action, reward, next_state, done = map(np.stack, zip(*batch))
        return state, action, reward, next_state, done

    def __len__(self):
        return len(self.buffer)


random.seed(1)
np.random.seed(1)
torch.manual_seed(1)
env = CartPoleEnv(seed=1)
qnet, target = QNetwork(4, 2), QNetwork(4, 2)
target.load_state_dict(qnet.state_dict())
target.eval()
optimizer = optim.Adam(qnet.parameters(), lr=1e-3)
buffer = ReplayBuffer(50)
epsilon, gamma, batch_size, update_every = 1.0, 0.99, 8, 10
total_steps = 0
for episode in range(4):
    state, _ = env.reset()
    episode_reward, done = 0.0, False
    while not done:
        if np.random.rand() < epsilon:
            action = env.sample_action()
        else:
            with torch.no_grad():
                q_values = qnet(torch.FloatTensor(state).unsqueeze(0))
                action = q_values.argmax().item()
        next_state, reward, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
        buffer.push(state, action, reward, next_state, float(terminated))
        state = next_state
        episode_reward += reward
        total_steps += 1
        if len(buffer) >= batch_size:
            states, actions, rewards, next_states, dones = buffer.sample(batch_size)
            states = torch.tensor(states, dtype=torch.float32)
            actions = torch.tensor(actions, dtype=torch.int64)
            rewards = torch.tensor(rewards, dtype=torch.float32)
            next_states = torch.tensor(next_states, dtype=torch.float32)
            dones = torch.tensor(dones, dtype=torch.float32)
            q = qnet(states).gather(1, actions.unsqueeze(1)).squeeze(1)
            q_next = target(next_states).max(1)[0].detach()
            q_target = rewards + gamma * q_next * (1 - dones)
            loss = F.mse_loss(q, q_target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if total_steps % update_every == 0:
            target.load_state_dict(qnet.state_dict())
    epsilon = max(0.05, epsilon * 0.5)
    print(f"episode {episode}: reward {episode_reward}, epsilon {epsilon}, buffer {len(buffer)}, "
          f"loss {loss.item():.4f}")
print(states.dtype, actions.dtype, dones[:4], q.grad_fn, q_next.requires_grad, q_target.shape)
print(qnet(states).max(1), torch.max(qnet(states), 1)[1].shape)
try:
    qnet(states).gather(1, actions)
except RuntimeError as e:
    print(e)
try:
    qnet(states).gather(1, actions.unsqueeze(1).float())
except RuntimeError as e:
    print(e)
