"""`torch.utils.data.sampler`: where PyTorch keeps the samplers, for code that imports them from
there (`from torch.utils.data.sampler import SubsetRandomSampler`). They live in the package."""
from . import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,  # noqa: F401
               WeightedRandomSampler)
