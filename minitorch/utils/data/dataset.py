"""`torch.utils.data.dataset`: where PyTorch keeps the dataset classes, for code that imports
them from there (`from torch.utils.data.dataset import Dataset`). They live in the package."""
from . import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,  # noqa: F401
               TensorDataset, random_split)
