"""Random numbers: a seeded generator, as `torch.manual_seed` / `torch.Generator`.

Numbers are drawn on the host with NumPy's PCG64 and then placed on the tensor's device, so
one seed gives the same values on the CPU and on a GPU. (They are not PyTorch's values: its
generator is a different algorithm. Same seed, same minitorch numbers, every run.)
"""
from __future__ import annotations

import numpy as np


class Generator:
    def __init__(self, device="cpu"):
        self.device = device
        self._seed = 67280421310721  # PyTorch's default seed
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed):
        seed = int(seed)
        if seed < 0:
            seed = seed % (1 << 64)  # PyTorch accepts negative seeds the same way
        self._seed = seed
        self._rng = np.random.Generator(np.random.PCG64(seed))
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        s = int(np.random.SeedSequence().entropy) % (1 << 63)
        self.manual_seed(s)
        return s

    def get_state(self):
        return self._rng.bit_generator.state

    def set_state(self, state):
        self._rng.bit_generator.state = state


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator: every later rand/randn/randint/shuffle repeats exactly."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def rng(generator=None):
    return (generator or default_generator)._rng
