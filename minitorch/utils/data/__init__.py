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
from ..._errors import hinted
from ..._factories import empty, randint, randperm, tensor
from ..._random import Generator
from ..._tensor import Tensor
from . import _worker
from ._worker import WorkerInfo  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "Subset", "ConcatDataset", "ChainDataset",
           "DataLoader", "random_split", "default_collate", "default_convert", "get_worker_info", "Sampler",
           "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler"]


# ---- datasets --------------------------------------------------------------------------------

class Dataset:
    """Subclass it and define __getitem__(i) and __len__()."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclass it and define __iter__ (no indexing). A DataLoader reads
    it in order and batches what it yields; shuffle and samplers do not apply."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several iterable datasets, one after the other."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


def get_worker_info():
    """Inside a DataLoader worker (its dataset's __getitem__ / __iter__, its worker_init_fn): a
    WorkerInfo with its id, num_workers, seed and its copy of the dataset; None elsewhere."""
    return _worker.CURRENT[0]


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


class StackDataset(Dataset):
    """Samples of several datasets side by side: a tuple (positional) or a dict (keywords)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        parts = args or kwargs
        sizes = [len(d) for d in (args or kwargs.values())]
        if len(set(sizes)) > 1:
            raise ValueError("Size mismatch between datasets")
        self._length, self.datasets = (sizes[0] if sizes else 0), parts

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


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
    """A fresh permutation each epoch (or, with replacement, num_samples random indices), drawn
    as PyTorch draws it: from `generator`, or, without one, from a new generator seeded by one
    draw of minitorch's default generator, so `minitorch.manual_seed` gives PyTorch's order."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement, self._num_samples, self.generator = (
            data_source, replacement, num_samples, generator)
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = self.generator
        if g is None:
            g = Generator().manual_seed(_draw_seed(None))
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), generator=g).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), generator=g).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=g).tolist()
            yield from randperm(n, generator=g).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each epoch (torch.randperm over their positions)."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probabilities proportional to weights (with replacement by
    default): one torch.multinomial over the weights, as PyTorch draws them."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        from ..._factories import as_tensor
        w = as_tensor(weights, dtype=_dtype.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights, self.num_samples, self.replacement, self.generator = w, num_samples, replacement, generator

    def __iter__(self):
        from ..._factories import multinomial
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


def _draw_seed(generator):
    """One int64 draw, as PyTorch's torch.empty((), dtype=torch.int64).random_(generator=...)."""
    return int(empty((), dtype=_dtype.int64).random_(generator=generator).item())


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
    strings are kept as the batch holds them (a list of samples' fields, or a tuple when the
    field comes from zipping tuple samples: PyTorch's collate returns the string batch as is)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        from ..._ops.join import stack
        for i, b in enumerate(batch):
            if b.shape != elem.shape:  # stack's own error, with the fix as a note
                raise hinted(RuntimeError, f"stack expects each tensor to be equal size, but got {list(elem.shape)} "
                             f"at entry 0 and {list(b.shape)} at entry {i}",
                             "default_collate stacks samples: pad them to one shape, or pass collate_fn=")
        return stack(list(batch), 0)
    if type(elem).__module__ == "numpy" and not isinstance(elem, (str, bytes)):
        import numpy as np
        if elem.dtype.kind in "SUO":  # strings and objects: no tensor holds them
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                            f"found {elem.dtype}")
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
        return batch
    if isinstance(elem, dict):
        fields = {k: default_collate([b[k] for b in batch]) for k in elem}
        try:
            return type(elem)(fields)  # keep the mapping's own type (OrderedDict, ...), as PyTorch
        except TypeError:
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, (tuple, list)):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(s) for s in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")


# ---- the loader ------------------------------------------------------------------------------

class DataLoader:
    """Iterate a dataset in batches.

    batch_size: samples per batch (None: no batching, yield samples one by one);
    shuffle: a new random order each epoch, drawn from `generator` (or minitorch's default);
    drop_last: skip the last, incomplete batch; collate_fn: how to combine samples.
    num_workers > 0: PyTorch's worker processes, each with its copy of the dataset and its own
    random state, played out in this process (_worker.py): the same batches in the same order.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
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
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers = num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self.persistent_workers, self._workers = persistent_workers, None
        self.pin_memory, self.timeout, self.worker_init_fn = pin_memory, timeout, worker_init_fn
        self.multiprocessing_context, self.in_order = multiprocessing_context, in_order
        self._auto_collation = batch_sampler is not None
        self.collate_fn = collate_fn if collate_fn is not None else (default_collate if self._auto_collation
                                                                     else default_convert)
        _worker.check_worker_number(num_workers)

    def __iter__(self):
        # Each pass starts by drawing a base seed (PyTorch's, for worker processes), so that
        # every later draw comes where it comes in PyTorch; the samples are produced lazily.
        if self.num_workers == 0:
            _draw_seed(self.generator)
            return self._batches()
        _worker.check_worker_number(self.num_workers)
        if self._workers is not None:  # persistent workers, started by the first pass: a new pass each
            for w in self._workers:
                with w.running():
                    w.start()
            return _worker.batches(self, self._workers)
        base_seed = _draw_seed(self.generator)
        workers = [_worker.Worker(self, k, base_seed) for k in range(self.num_workers)]
        if self.persistent_workers:
            self._workers = workers
        return _worker.batches(self, workers)

    def _collate_indices(self, dataset, indices):
        if isinstance(dataset, TensorDataset) and self.collate_fn is default_collate:
            # same result as collating the samples one by one, in one indexing per tensor
            idx = tensor(indices, dtype=_dtype.int64)
            return [t[idx.to(t.device)] for t in dataset.tensors]
        return self.collate_fn([dataset[i] for i in indices])

    def _batches(self):
        if self._iterable:
            yield from self._stream()
            return
        if not self._auto_collation:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        for indices in self.batch_sampler:
            yield self._collate_indices(self.dataset, indices)

    def _stream(self):
        """An IterableDataset: samples in the order it yields them, batch_size at a time."""
        it = iter(self.dataset)
        if not self._auto_collation:
            for sample in it:
                yield self.collate_fn(sample)
            return
        while True:
            batch = []
            for sample in it:
                batch.append(sample)
                if len(batch) == self.batch_size:
                    break
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)
            if len(batch) < self.batch_size:
                return

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)  # a TypeError when the dataset has no length, as in PyTorch
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        if self._auto_collation:
            return len(self.batch_sampler)
        return len(self.sampler)


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: None, forever (the dataset decides what comes next)."""

    def __iter__(self):
        while True:
            yield None


def default_convert(data):
    """Without batching: NumPy arrays and scalars become tensors, inside containers too; the
    rest passes through (PyTorch's default_convert)."""
    if isinstance(data, Tensor):
        return data
    if type(data).__module__ == "numpy" and not isinstance(data, (str, bytes)):
        if getattr(data, "dtype", None) is not None and data.dtype.kind in "SUO":
            return data
        return tensor(data)
    if isinstance(data, dict):
        try:
            return type(data)({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data


_convert = default_convert


# PyTorch's submodule names, so `torch.utils.data.sampler.SubsetRandomSampler` and the imports from
# them work as well (loaded last: they re-export what is defined above).
from . import dataloader, dataset, sampler  # noqa: E402, F401
