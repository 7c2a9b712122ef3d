"""minitorch.utils.data: Dataset, TensorDataset, DataLoader, collate, random_split."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.utils.data import (BatchSampler, DataLoader, Dataset, Subset, TensorDataset, default_collate,
                                  random_split)


def _xy(n=10):
    x = torch.arange(n * 2, dtype=torch.float32).reshape(n, 2)
    y = torch.arange(n)
    return x, y


class Squares(Dataset):
    """A map-style dataset of (tensor, int, float) samples."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)]), i, i / 2


def test_tensor_dataset():
    x, y = _xy()
    ds = TensorDataset(x, y)
    assert len(ds) == 10
    xi, yi = ds[3]
    assert xi.tolist() == [6.0, 7.0] and yi.item() == 3
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(x, torch.arange(9))


def test_loader_batches_in_order():
    x, y = _xy()
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    assert torch.cat([b[1] for b in batches]).tolist() == list(range(10))
    assert isinstance(batches[0], list) and batches[0][1].dtype is torch.int64


def test_drop_last():
    loader = DataLoader(TensorDataset(*_xy()), batch_size=4, drop_last=True)
    assert len(loader) == 2
    assert [len(b[1]) for b in loader] == [4, 4]


def test_shuffle_with_a_generator_is_a_reproducible_permutation():
    ds = TensorDataset(*_xy(50))

    def order(seed):
        loader = DataLoader(ds, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(seed))
        return torch.cat([yb for _, yb in loader]).tolist()
    a, b, c = order(0), order(0), order(1)
    assert a == b and a != c
    assert sorted(a) == list(range(50)) and a != list(range(50))
    loader = DataLoader(ds, batch_size=50, shuffle=True, generator=torch.Generator().manual_seed(0))
    e1, e2 = next(iter(loader))[1].tolist(), next(iter(loader))[1].tolist()
    assert e1 != e2  # a new order every epoch


def test_shuffle_uses_the_default_generator():
    ds = TensorDataset(*_xy(30))
    torch.manual_seed(5)
    a = [yb.tolist() for _, yb in DataLoader(ds, batch_size=30, shuffle=True)]
    torch.manual_seed(5)
    b = [yb.tolist() for _, yb in DataLoader(ds, batch_size=30, shuffle=True)]
    assert a == b


def test_fast_path_matches_generic_collate():
    x, y = _xy(13)

    class Wrapped(Dataset):
        def __len__(self):
            return 13

        def __getitem__(self, i):
            return x[i], y[i]

    fast = list(DataLoader(TensorDataset(x, y), batch_size=5, shuffle=True,
                           generator=torch.Generator().manual_seed(3)))
    slow = list(DataLoader(Wrapped(), batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(3)))
    assert len(fast) == len(slow) == 3
    for (fx, fy), (sx, sy) in zip(fast, slow):
        assert torch.equal(fx, sx) and torch.equal(fy, sy)


def test_collate_tuples_of_tensors_and_numbers():
    batch = next(iter(DataLoader(Squares(5), batch_size=3)))
    xb, ib, fb = batch
    assert xb.shape == (3, 2) and xb.dtype is torch.float32
    assert ib.tolist() == [0, 1, 2] and ib.dtype is torch.int64
    assert fb.tolist() == [0.0, 0.5, 1.0] and fb.dtype is torch.float64


def test_default_collate_structures():
    out = default_collate([{"a": 1, "b": np.ones(2)}, {"a": 2, "b": np.zeros(2)}])
    assert out["a"].tolist() == [1, 2] and out["b"].shape == (2, 2)
    names, flags = default_collate([("x", True), ("y", False)])
    assert names == ("x", "y") and flags.tolist() == [True, False]  # (the strings as the batch holds them)
    assert default_collate([True, False]).dtype is torch.bool
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([torch.zeros(2), torch.zeros(3)])
    with pytest.raises(TypeError, match="default_collate"):
        default_collate([object(), object()])


def test_custom_collate_and_no_batching():
    loader = DataLoader(Squares(4), batch_size=2, collate_fn=lambda samples: len(samples))
    assert list(loader) == [2, 2]
    single = list(DataLoader(Squares(3), batch_size=None))
    assert len(single) == 3 and single[1][1] == 1


def test_loader_argument_errors():
    ds = TensorDataset(*_xy())
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    # worker processes are not used, but the batches are the ones workers would give
    workers = [b[1].tolist() for b in DataLoader(ds, batch_size=3, num_workers=2, persistent_workers=True)]
    assert workers == [b[1].tolist() for b in DataLoader(ds, batch_size=3)]
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        DataLoader(ds, batch_size=0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, batch_sampler=BatchSampler(range(10), 3, False), batch_size=4)


def test_batch_sampler_option():
    loader = DataLoader(TensorDataset(*_xy()), batch_sampler=[[0, 9], [5]])
    assert [yb.tolist() for _, yb in loader] == [[0, 9], [5]]


def test_random_split():
    ds = TensorDataset(*_xy(20))
    a, b = random_split(ds, [15, 5], generator=torch.Generator().manual_seed(0))
    assert len(a) == 15 and len(b) == 5
    ids = sorted(a.indices + b.indices)
    assert ids == list(range(20))
    c, d, e = random_split(ds, [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
    assert (len(c), len(d), len(e)) == (10, 6, 4)
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [10, 5])
    assert isinstance(a, Subset) and torch.equal(a[0][0], ds[a.indices[0]][0])


def test_dataset_addition_concatenates():
    both = Squares(2) + Squares(3)
    assert len(both) == 5 and both[2][1] == 0 and both[-1][1] == 2


# ---- num_workers > 0: PyTorch's worker processes, played out in this process -----------------------

def _worker_program(lib, data):
    """Loaders with workers; returns every batch (as lists), what each worker saw, and the main
    process's random state after: all must be PyTorch's."""
    import math
    import random

    class Range(data.IterableDataset):
        def __init__(self, start, end, split=True):
            self.start, self.end, self.split = start, end, split

        def __iter__(self):
            info = data.get_worker_info()
            if info is None or not self.split:
                return iter(range(self.start, self.end))
            per = int(math.ceil((self.end - self.start) / float(info.num_workers)))
            s = self.start + info.id * per
            return iter(range(s, min(s + per, self.end)))

    class Augmented(data.Dataset):  # random "augmentation" from torch's, Python's and NumPy's generators
        def __len__(self):
            return 5

        def __getitem__(self, i):
            info = data.get_worker_info()
            return lib.tensor([float(i), lib.rand(()).item(), random.random(), float(np.random.rand()),
                               -1.0 if info is None else float(info.id), -1.0 if info is None else info.seed % 1000])

    def init_fn(worker_id):  # the docs' example: each worker narrows its copy of the dataset
        info = data.get_worker_info()
        per = int(math.ceil((info.dataset.end - info.dataset.start) / float(info.num_workers)))
        info.dataset.start += worker_id * per
        info.dataset.end = min(info.dataset.start + per, info.dataset.end)

    def plain(b):
        return b.tolist() if hasattr(b, "tolist") else [plain(x) for x in b] if isinstance(b, list) else b

    def run(loader):
        return [plain(b) for b in loader]

    lib.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
    shared = Range(3, 12, split=False)
    persistent = data.DataLoader(Range(0, 6), num_workers=2, batch_size=2, persistent_workers=True)
    out = [run(data.DataLoader(Range(3, 7), num_workers=2)), run(data.DataLoader(Range(3, 7, False), num_workers=2)),
           run(data.DataLoader(Range(0, 11), num_workers=2, batch_size=3, drop_last=True)),
           run(data.DataLoader(shared, num_workers=2, worker_init_fn=init_fn, batch_size=2)), (shared.start, shared.end),
           run(data.DataLoader(Augmented(), num_workers=2, batch_size=2, shuffle=True)),
           run(persistent), run(persistent),
           lib.rand(()).item(), random.random(), float(np.random.rand()), data.get_worker_info()]
    return out


def test_workers_give_pytorchs_batches_in_pytorchs_order():
    real = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")
    import torch.utils.data as real_data
    import minitorch.utils.data as mini_data
    state = np.random.get_state()
    try:
        ours, theirs = _worker_program(torch, mini_data), _worker_program(real, real_data)
    finally:
        np.random.set_state(state)
    assert ours == theirs


def test_worker_errors_and_info():
    class Bad(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                raise KeyError("bad item")
            return i
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0"):
        list(DataLoader(Bad(), num_workers=2))
    assert DataLoader(Bad(), num_workers=2).prefetch_factor == 2 and DataLoader(Bad()).prefetch_factor is None
    seen = []
    DataLoader(Bad(), num_workers=2, worker_init_fn=lambda k: seen.append(torch.utils.data.get_worker_info()))
    assert seen == []  # (workers start with an iteration)
    list(DataLoader(Squares(2), num_workers=2, worker_init_fn=lambda k: seen.append(torch.utils.data.get_worker_info())))
    assert [(w.id, w.num_workers, w.worker_method) for w in seen] == [(0, 2, "multiprocessing"), (1, 2, "multiprocessing")]
    with pytest.raises(Exception, match="cannot assign to field"):
        seen[0].id = 3
