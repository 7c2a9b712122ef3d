# d2l.ai chapter 12 "Optimization Algorithms", shrunk: gradient descent in one and two dimensions
# (with f-strings of 0-d tensors: f'{x:f}'), Newton's method on a nonconvex function, then the
# optimizers written from scratch over a `states` tuple (momentum, AdaGrad, RMSProp, Adadelta, Adam,
# Yogi: v[:] = ..., p[:] -= ..., p.grad.data.zero_()), trained with train_ch11 on a synthetic
# five-feature regression (in place of the airfoil data), and train_concise_ch11 with the
# torch.optim classes for comparison.
import math
import numpy as np
import torch
from torch import nn


def f(x):  # Objective function
    return x ** 2


def f_grad(x):  # Gradient (derivative) of the objective function
    return 2 * x


def gd(eta, f_grad):
    x = 10.0
    results = [x]
    for i in range(10):
        x -= eta * f_grad(x)
        results.append(float(x))
    print(f'epoch 10, x: {x:f}')
    return results


results = gd(0.2, f_grad)
gd(0.05, f_grad)
gd(1.1, f_grad)

c = torch.tensor(0.15 * np.pi)


def f(x):  # Objective function
    return x * torch.cos(c * x)


def f_grad(x):  # Gradient of the objective function
    return torch.cos(c * x) - c * x * torch.sin(c * x)


print(gd(2, f_grad)[-3:])


def train_2d(trainer, steps=20, f_grad=None):
    """Optimize a 2D objective function with a customized trainer."""
    # `s1` and `s2` are internal state variables that will be used in Momentum, adagrad, RMSProp
    x1, x2, s1, s2 = -5, -2, 0, 0
    results = [(x1, x2)]
    for i in range(steps):
        if f_grad:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2, f_grad)
        else:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2)
        results.append((x1, x2))
    print(f'epoch {i + 1}, x1: {float(x1):f}, x2: {float(x2):f}')
    return results


def f_2d(x1, x2):  # Objective function
    return x1 ** 2 + 2 * x2 ** 2


def f_2d_grad(x1, x2):  # Gradient of the objective function
    return (2 * x1, 4 * x2)


def gd_2d(x1, x2, s1, s2, f_grad):
    g1, g2 = f_grad(x1, x2)
    return (x1 - eta * g1, x2 - eta * g2, 0, 0)


eta = 0.1
train_2d(gd_2d, f_grad=f_2d_grad)


def sgd_2d(x1, x2, s1, s2, f_grad):
    g1, g2 = f_grad(x1, x2)
    # Simulate noisy gradient
    g1 += torch.normal(0.0, 1, (1,)).item()
    g2 += torch.normal(0.0, 1, (1,)).item()
    eta_t = eta * lr()
    return (x1 - eta_t * g1, x2 - eta_t * g2, 0, 0)


def constant_lr():
    return 1


def exponential_lr():
    # Global variable that is defined outside this function and updated inside
    global t
    t += 1
    return math.exp(-0.1 * t)


torch.manual_seed(0)
lr = constant_lr  # Constant learning rate
train_2d(sgd_2d, steps=50, f_grad=f_2d_grad)
t = 1
lr = exponential_lr
train_2d(sgd_2d, steps=50, f_grad=f_2d_grad)

# Newton's method on a nonconvex function
c = torch.tensor(0.15 * np.pi)


def f(x):  # Objective function
    return x * torch.cos(c * x)


def f_grad(x):  # Gradient of the objective function
    return torch.cos(c * x) - c * x * torch.sin(c * x)


def f_hess(x):  # Hessian of the objective function
    return - 2 * c * torch.sin(c * x) - x * c**2 * torch.cos(c * x)


def newton(eta=1):
    x = 10.0
    results = [x]
    for i in range(10):
        x -= eta * f_grad(x) / f_hess(x)
        results.append(float(x))
    print('epoch 10, x:', x)
    return results


newton()
newton(0.5)

# the same derivatives from autograd
x = torch.tensor(10.0, requires_grad=True)
g, = torch.autograd.grad(f(x), x, create_graph=True)
h, = torch.autograd.grad(g, x)
print(torch.allclose(g, f_grad(x)), torch.allclose(h, f_hess(x.detach())), g.grad_fn is not None)


# ---- optimizers from scratch -------------------------------------------------------------------------
def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def get_data_ch11(batch_size=10, n=150):
    torch.manual_seed(1)
    features = torch.randn(n, 5)
    true_w = torch.tensor([[0.3], [-0.2], [0.5], [0.1], [-0.4]])
    labels = (features @ true_w).reshape(-1) + 0.1 * torch.randn(n)
    features = (features - features.mean(axis=0)) / features.std(axis=0)
    data_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(features, labels), batch_size,
                                            shuffle=True, generator=torch.Generator().manual_seed(2))
    return data_iter, features.shape[1]


def evaluate_loss(net, data_iter, loss):
    total, n = 0.0, 0
    for X, y in data_iter:
        out = net(X)
        y = y.reshape(out.shape)
        l = loss(out, y)
        total, n = total + float(l.sum()), n + l.numel()
    return total / n


def train_ch11(trainer_fn, states, hyperparams, data_iter, feature_dim, num_epochs=2):
    # Initialization
    torch.manual_seed(3)
    w = torch.normal(mean=0.0, std=0.01, size=(feature_dim, 1), requires_grad=True)
    b = torch.zeros((1), requires_grad=True)
    net, loss = lambda X: linreg(X, w, b), squared_loss
    # Train
    n, losses = 0, []
    for _ in range(num_epochs):
        for X, y in data_iter:
            l = loss(net(X), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
            n += X.shape[0]
            if n % 50 == 0:
                losses.append(evaluate_loss(net, data_iter, loss))
    print(f'loss: {losses[-1]:.4f}', [round(x, 4) for x in losses])
    return w, b


def sgd(params, states, hyperparams):
    for p in params:
        p.data.sub_(hyperparams['lr'] * p.grad)
        p.grad.data.zero_()


def train_sgd(lr, batch_size, num_epochs=2):
    data_iter, feature_dim = get_data_ch11(batch_size)
    return train_ch11(sgd, None, {'lr': lr}, data_iter, feature_dim, num_epochs)


train_sgd(1, 150, 4)
train_sgd(0.005, 1, 1)
w, b = train_sgd(0.05, 10)
print(w.T, b, w.grad.T, b.grad)


def init_momentum_states(feature_dim):
    v_w = torch.zeros((feature_dim, 1))
    v_b = torch.zeros(1)
    return (v_w, v_b)


def sgd_momentum(params, states, hyperparams):
    for p, v in zip(params, states):
        with torch.no_grad():
            v[:] = hyperparams['momentum'] * v + p.grad
            p[:] -= hyperparams['lr'] * v
        p.grad.data.zero_()


def train_momentum(lr, momentum, num_epochs=2):
    return train_ch11(sgd_momentum, init_momentum_states(feature_dim), {'lr': lr, 'momentum': momentum}, data_iter,
                      feature_dim, num_epochs)


data_iter, feature_dim = get_data_ch11(batch_size=10)
train_momentum(0.02, 0.5)
train_momentum(0.01, 0.9)
states = init_momentum_states(feature_dim)
train_ch11(sgd_momentum, states, {'lr': 0.005, 'momentum': 0.9}, data_iter, feature_dim)
print(states[1], states[0].shape, states[0]._version > 0)


def init_adagrad_states(feature_dim):
    s_w = torch.zeros((feature_dim, 1))
    s_b = torch.zeros(1)
    return (s_w, s_b)


def adagrad(params, states, hyperparams):
    eps = 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] += torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


train_ch11(adagrad, init_adagrad_states(feature_dim), {'lr': 0.1}, data_iter, feature_dim)


def init_rmsprop_states(feature_dim):
    s_w = torch.zeros((feature_dim, 1))
    s_b = torch.zeros(1)
    return (s_w, s_b)


def rmsprop(params, states, hyperparams):
    gamma, eps = hyperparams['gamma'], 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] = gamma * s + (1 - gamma) * torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


train_ch11(rmsprop, init_rmsprop_states(feature_dim), {'lr': 0.01, 'gamma': 0.9}, data_iter, feature_dim)


def init_adadelta_states(feature_dim):
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    delta_w, delta_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((s_w, delta_w), (s_b, delta_b))


def adadelta(params, states, hyperparams):
    rho, eps = hyperparams['rho'], 1e-5
    for p, (s, delta) in zip(params, states):
        with torch.no_grad():
            # In-place updates via [:]
            s[:] = rho * s + (1 - rho) * torch.square(p.grad)
            g = (torch.sqrt(delta + eps) / torch.sqrt(s + eps)) * p.grad
            p[:] -= g
            delta[:] = rho * delta + (1 - rho) * g * g
        p.grad.data.zero_()


train_ch11(adadelta, init_adadelta_states(feature_dim), {'rho': 0.9}, data_iter, feature_dim)


def init_adam_states(feature_dim):
    v_w, v_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((v_w, s_w), (v_b, s_b))


def adam(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-6
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = beta2 * s + (1 - beta2) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams['t'])
            s_bias_corr = s / (1 - beta2 ** hyperparams['t'])
            p[:] -= hyperparams['lr'] * v_bias_corr / (torch.sqrt(s_bias_corr) + eps)
        p.grad.data.zero_()
    hyperparams['t'] += 1


hyperparams = {'lr': 0.01, 't': 1}
train_ch11(adam, init_adam_states(feature_dim), hyperparams, data_iter, feature_dim)
print(hyperparams)


def yogi(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-3
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = s + (1 - beta2) * torch.sign(torch.square(p.grad) - s) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams['t'])
            s_bias_corr = s / (1 - beta2 ** hyperparams['t'])
            p[:] -= hyperparams['lr'] * v_bias_corr / (torch.sqrt(s_bias_corr) + eps)
        p.grad.data.zero_()
    hyperparams['t'] += 1


train_ch11(yogi, init_adam_states(feature_dim), {'lr': 0.01, 't': 1}, data_iter, feature_dim)


# ---- the same, with torch.optim -----------------------------------------------------------------------
def train_concise_ch11(trainer_fn, hyperparams, data_iter, num_epochs=2):
    # Initialization
    torch.manual_seed(3)
    net = nn.Sequential(nn.Linear(5, 1))

    def init_weights(module):
        if type(module) == nn.Linear:
            torch.nn.init.normal_(module.weight, std=0.01)

    net.apply(init_weights)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction='none')
    n, losses = 0, []
    for _ in range(num_epochs):
        for X, y in data_iter:
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
            n += X.shape[0]
            if n % 50 == 0:
                # `MSELoss` computes squared error without the 1/2 factor
                losses.append(evaluate_loss(net, data_iter, loss) / 2)
    print(f'{type(optimizer).__name__} loss: {losses[-1]:.4f}')
    return optimizer


train_concise_ch11(torch.optim.SGD, {'lr': 0.01}, data_iter)
opt = train_concise_ch11(torch.optim.SGD, {'lr': 0.005, 'momentum': 0.9}, data_iter)
print(sorted(opt.state_dict()['state'][0].keys()), opt.state_dict()['param_groups'][0]['momentum'])
train_concise_ch11(torch.optim.Adagrad, {'lr': 0.1}, data_iter)
train_concise_ch11(torch.optim.RMSprop, {'lr': 0.01, 'alpha': 0.9}, data_iter)
train_concise_ch11(torch.optim.Adadelta, {'rho': 0.9}, data_iter)
opt = train_concise_ch11(torch.optim.Adam, {'lr': 0.01}, data_iter)
state = opt.state_dict()['state'][1]
print(sorted(state.keys()), state['step'], state['exp_avg'].shape)
