# The "Broadcasting semantics" and "Reproducibility" notes: which shapes broadcast, in-place
# broadcasting rules and their errors, backward through a broadcast; then manual_seed,
# torch.Generator, get_rng_state / set_rng_state, initial_seed, and seeded DataLoader workers.
import random
import numpy as np
import torch

x = torch.empty(5, 7, 3)
y = torch.empty(5, 7, 3)
print((x + y).size())  # same shapes are always broadcastable
x = torch.empty((0,))
y = torch.empty(2, 2)
try:
    x + y
except RuntimeError as e:
    print("error:", e)
x = torch.empty(5, 3, 4, 1)
y = torch.empty(3, 1, 1)
print((x + y).size())
x = torch.empty(5, 2, 4, 1)
y = torch.empty(3, 1, 1)
try:
    (x + y).size()
except RuntimeError as e:
    print("error:", e)
x = torch.empty(1)
y = torch.empty(3, 1, 7)
print((x + y).size())
print(torch.broadcast_shapes((2,), (3, 1), (1, 1, 1)))
a, b = torch.broadcast_tensors(torch.arange(3), torch.arange(2).view(2, 1))
print(a, b, a.stride(), b.stride(), sep="\n")

# in-place: the result may not change the shape of the tensor written to
x = torch.empty(5, 3, 4, 1)
y = torch.empty(3, 1, 1)
print(x.add_(y).size())
x = torch.empty(1, 3, 1)
y = torch.empty(3, 1, 7)
try:
    x.add_(y)
except RuntimeError as e:
    print("error:", e)

# backward compatibility note: same number of elements, different shapes
try:
    torch.add(torch.ones(4, 1), torch.randn(4))
    print(torch.add(torch.ones(4, 1), torch.ones(4)).shape)
except RuntimeError as e:
    print("error:", e)

# a bias broadcast over a batch gets its gradient summed back
w = torch.ones(3, requires_grad=True)
m = torch.arange(6.0).view(2, 3)
(m * w).sum().backward()
print(w.grad, w.grad.shape)
col = torch.ones(2, 1, requires_grad=True)
(m + col).pow(2).sum().backward()
print(col.grad)
print(torch.arange(3)[:, None] * torch.arange(4)[None, :])
print(torch.arange(6).reshape(2, 3) - torch.tensor([[10], [20]]))

# reproducibility
torch.manual_seed(0)
random.seed(0)
np.random.seed(0)
print(torch.initial_seed())
a = torch.rand(3)
torch.manual_seed(0)
b = torch.rand(3)
print(a, torch.equal(a, b))
state = torch.get_rng_state()
print(state.dtype, state.shape)
c = torch.randn(2, 2)
torch.set_rng_state(state)
d = torch.randn(2, 2)
print(torch.equal(c, d), c)
g = torch.Generator().manual_seed(2147483647)
print(g.initial_seed(), torch.randint(0, 10, (5,), generator=g))
g_state = g.get_state()
e = torch.rand(2, generator=g)
g.set_state(g_state)
print(torch.equal(e, torch.rand(2, generator=g)), e)
print(torch.randperm(6, generator=torch.Generator().manual_seed(1)))
print(torch.normal(0.0, 1.0, size=(3,), generator=torch.Generator().manual_seed(5)))
torch.manual_seed(42)
print(torch.randint(0, 100, (4,)), torch.rand(1).item() < 1)
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 5, replacement=True))
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(False)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


g = torch.Generator()
g.manual_seed(0)
loader = torch.utils.data.DataLoader(torch.arange(10), batch_size=4, shuffle=True, num_workers=0,
                                     worker_init_fn=seed_worker, generator=g)
print([batch.tolist() for batch in loader])
print(torch.seed() > 0, torch.initial_seed() != 42)
