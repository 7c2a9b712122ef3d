"""`minitorch.utils.data`: datasets and the DataLoader that batches them.

    ds = TensorDataset(X, y)                        # ds[i] == (X[i], y[i])
    loader = DataLoader(ds, batch_size=32, shuffle=True, generator=minitorch.Generator().manual_seed(0))
    for xb, yb in loader:                           # xb: (32, ...), yb: (32,)
        ...

A Dataset is anything with __getitem__ and __len__. The DataLoader draws indices (in order,
or shuffled by a seeded generator), groups them into batches, and *collates* each batch:
the samples' tensors are stacked along a new first dim, numbers become tensors, tuples are
collated field by field.
"""
from __future__ import annotations

import bisect
import math
import numbers
import warnings

from ... import _dtype
from ..._factories import randperm, tensor
from ..._tensor import Tensor

__all__ = ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "DataLoader", "random_split", "default_collate",
           "Sampler", "SequentialSampler", "RandomSampler", "BatchSampler"]


# ---- datasets --------------------------------------------------------------------------------

class Dataset:
    """Subclass it and define __getitem__(i) and __len__()."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the i-th rows of the given tensors: ds[i] = (t0[i], t1[i], ...)."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        n = tensors[0].size(0)
        for t in tensors:
            if t.size(0) != n:
                raise ValueError(f"Size mismatch between tensors: all tensors need the same first dimension "
                                 f"(got {[t.size(0) for t in tensors]})")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if d == 0 else self.cumulative_sizes[d - 1]
        return self.datasets[d][idx - start]


def random_split(dataset, lengths, generator=None):
    """Split into non-overlapping random subsets of the given lengths (or fractions summing to 1)."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):  # spread the remainder round-robin, as PyTorch does
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = randperm(n, generator=generator).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start:start + length]))
        start += length
    return out


# ---- samplers ----------------------------------------------------------------------------------

class Sampler:
    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh permutation each epoch, from `generator` (or minitorch's default generator, so
    `minitorch.manual_seed` makes it repeatable)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if replacement or num_samples is not None:
            raise NotImplementedError("RandomSampler: replacement and num_samples are not supported by minitorch")
        self.data_source, self.generator = data_source, generator

    def __iter__(self):
        return iter(randperm(len(self.data_source), generator=self.generator).tolist())

    def __len__(self):
        return len(self.data_source)


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of batch_size (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


# ---- collate ---------------------------------------------------------------------------------

def default_collate(batch):
    """Turn a list of samples into one batch, recursively: tensors are stacked (new dim 0),
    ints become an int64 tensor, floats a float64 tensor (as PyTorch), NumPy arrays are
    stacked into a tensor, tuples/lists are collated per field (into a list), dicts per key,
    strings are kept as a list."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        from ..._ops.join import stack
        shapes = {tuple(b.shape) for b in batch}
        if len(shapes) > 1:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {sorted(shapes)} in the batch "
                               "(default_collate stacks samples: pad them to one shape, or pass collate_fn=)")
        return stack(list(batch), 0)
    if type(elem).__module__ == "numpy" and not isinstance(elem, (str, bytes)):
        import numpy as np
        if isinstance(elem, np.ndarray):
            return tensor(np.stack(batch))
        return tensor(np.array(batch))
    if isinstance(elem, bool):
        return tensor(batch, dtype=_dtype.bool)
    if isinstance(elem, numbers.Integral):
        return tensor(batch, dtype=_dtype.int64)
    if isinstance(elem, float):
        return tensor(batch, dtype=_dtype.float64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, dict):
        return {k: default_collate([b[k] for b in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, (tuple, list)):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")


# ---- the loader ------------------------------------------------------------------------------

class DataLoader:
    """Iterate a dataset in batches.

    batch_size: samples per batch (None: no batching, yield samples one by one);
    shuffle: a new random order each epoch, drawn from `generator` (or minitorch's default);
    drop_last: skip the last, incomplete batch; collate_fn: how to combine samples.
    Everything runs in this process (num_workers must be 0).
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 generator=None, **_ignored):
        if num_workers != 0:
            raise ValueError("DataLoader: minitorch loads in the main process only; use num_workers=0")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers = num_workers
        self._auto_collation = batch_sampler is not None
        self.collate_fn = collate_fn if collate_fn is not None else (default_collate if self._auto_collation
                                                                     else _convert)

    def __iter__(self):
        if not self._auto_collation:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate
        for indices in self.batch_sampler:
            if fast:
                # same result as collating the samples one by one, in one indexing per tensor
                idx = tensor(indices, dtype=_dtype.int64)
                yield [t[idx.to(t.device)] for t in self.dataset.tensors]
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self):
        if self._auto_collation:
            return len(self.batch_sampler)
        return len(self.sampler)


def _convert(sample):
    """Without batching, samples pass through (NumPy arrays become tensors, as in PyTorch)."""
    if type(sample).__module__ == "numpy":
        return tensor(sample)
    return sample
