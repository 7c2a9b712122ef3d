"""DataLoader(num_workers=N): PyTorch's worker processes, played out in this process.

PyTorch starts N processes. Each gets its own copy of the dataset and its own random state
(torch, Python's `random` and NumPy's, seeded from the loader's base seed and its id), runs
`worker_init_fn(id)`, and answers the batches it is sent, one at a time, in order; inside it,
`get_worker_info()` says which worker it is. The main process sends the batches' indices round
robin to the workers still going (two per worker ahead, `prefetch_factor`), and yields the
results in the order it sent them. For an IterableDataset each worker iterates its own copy,
so a dataset that does not split its items by `get_worker_info()` yields them once per worker,
and a worker whose copy runs out is dropped from the rotation.

Here the workers are objects that take turns: while worker k fetches, its random state and its
WorkerInfo are swapped in. The batches, their order, and what the dataset sees are PyTorch's;
nothing runs in parallel, so there is no speed-up (and nothing is pickled).
"""
from __future__ import annotations

import contextlib
import copy
import itertools
import os
import random
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

from ... import _random

_STOP = object()  # a worker's answer when its dataset copy has run out


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Which loader worker is running, as get_worker_info() gives it inside one."""
    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str | None = "multiprocessing"


CURRENT = [None]  # the WorkerInfo of the worker now running, if any


class Worker:
    def __init__(self, loader, worker_id, base_seed):
        self.loader, self.id = loader, worker_id
        try:  # (a forked process's copy: attributes the worker sets stay its own)
            self.dataset = copy.copy(loader.dataset)
        except Exception:  # noqa: BLE001 (a dataset that cannot be copied is shared)
            self.dataset = loader.dataset
        seed = base_seed + worker_id
        self.info = WorkerInfo(id=worker_id, num_workers=loader.num_workers, seed=seed, dataset=self.dataset)
        self.torch_state = _random.Generator().manual_seed(seed).get_state()
        self.py_state = random.Random(seed).getstate()
        self.np_state = np.random.RandomState(np.array(_numpy_seed(base_seed, worker_id), dtype=np.uint32)).get_state()
        self.error = None
        with self.running():
            try:
                if loader.worker_init_fn is not None:
                    loader.worker_init_fn(worker_id)
                self.start()
            except Exception as e:  # noqa: BLE001 (raised in the main process at the first batch, as PyTorch does)
                self.error = e

    def start(self):
        """A new pass over the worker's dataset (PyTorch makes a new fetcher)."""
        self.stopped = self.exhausted = False  # (stopped: it has said so, and answers no more)
        if self.loader._iterable:
            self.items = iter(self.dataset)

    @contextlib.contextmanager
    def running(self):
        """This worker's random state and WorkerInfo in place while it works."""
        saved = _random.get_rng_state(), random.getstate(), np.random.get_state(), CURRENT[0]
        _random.set_rng_state(self.torch_state)
        random.setstate(self.py_state)
        np.random.set_state(self.np_state)
        CURRENT[0] = self.info
        try:
            yield
        finally:
            self.torch_state, self.py_state, self.np_state = _random.get_rng_state(), random.getstate(), \
                np.random.get_state()
            _random.set_rng_state(saved[0])
            random.setstate(saved[1])
            np.random.set_state(saved[2])
            CURRENT[0] = saved[3]

    def fetch(self, index):
        """The answer to one task: a batch, an exception to raise, _STOP when the dataset copy runs
        out (once), or None once it has (the worker no longer answers)."""
        if self.error is not None:
            e, self.error = self.error, None
            return _reraised(e, self.id)
        if self.stopped:
            return None
        with self.running():
            try:
                return self._fetch(index)
            except StopIteration as e:
                if not self.loader._iterable:
                    return _reraised(e, self.id)
                self.stopped = True
                return _STOP
            except Exception as e:  # noqa: BLE001 (the main process raises it, naming the worker)
                return _reraised(e, self.id)

    def _fetch(self, index):
        loader = self.loader
        if loader._iterable:  # (PyTorch's _IterableDatasetFetcher)
            if self.exhausted:
                raise StopIteration
            if not loader._auto_collation:
                return loader.collate_fn(next(self.items))
            data = []
            for _ in index:
                try:
                    data.append(next(self.items))
                except StopIteration:
                    self.exhausted = True
                    break
            if not data or loader.drop_last and len(data) < len(index):
                raise StopIteration
            return loader.collate_fn(data)
        if not loader._auto_collation:
            return loader.collate_fn(self.dataset[index])
        return loader._collate_indices(self.dataset, index)


def _reraised(e, worker_id):
    """PyTorch's ExceptionWrapper: the same exception type, its message naming the worker and
    carrying the original traceback."""
    message = (f"Caught {type(e).__name__} in DataLoader worker process {worker_id}.\nOriginal "
               + "".join(traceback.format_exception(type(e), e, e.__traceback__)))
    try:
        return type(e)(message)
    except Exception:  # noqa: BLE001
        return RuntimeError(message)


def batches(loader, workers):
    """The main process's loop: indices sent round robin to the workers still going, results
    taken in the order sent (PyTorch's _MultiProcessingDataLoaderIter, in_order=True)."""
    n = len(workers)
    index_iter = iter(loader.batch_sampler if loader._auto_collation else loader.sampler)
    turn = itertools.cycle(range(n))
    going = [True] * n
    tasks = []  # (worker, answer), in the order sent

    def send():
        try:
            index = next(index_iter)
        except StopIteration:
            return
        for _ in range(n):
            k = next(turn)
            if going[k]:
                tasks.append((k, workers[k].fetch(index)))
                return

    for _ in range(loader.prefetch_factor * n):
        send()
    while tasks:
        k, answer = tasks.pop(0)
        if not going[k]:
            continue  # sent before the worker was known to be done: never answered
        if answer is _STOP:
            going[k] = False
            send()
            continue
        send()
        if isinstance(answer, BaseException):
            raise answer
        yield answer


def check_worker_number(num_workers):
    """PyTorch's warning when a loader would start more workers than this process may use CPUs."""
    suggest = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if num_workers and (suggest is None or num_workers > suggest):
        cpuset = "" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)"
        advice = (f"Our suggested max number of worker in current system is {suggest}{cpuset}, which is smaller than "
                  "what this DataLoader is going to create." if suggest is not None else
                  "DataLoader is not able to compute a suggested max number of worker in current system.")
        warnings.warn(f"This DataLoader will create {num_workers} worker processes in total. {advice} Please be aware "
                      "that excessive worker creation might get DataLoader running slow or even freeze, lower the "
                      "worker number to avoid potential slowness/freeze if necessary.", UserWarning, stacklevel=3)


def _numpy_seed(base_seed, worker_id):
    """The seed a worker gives NumPy's global generator: PyTorch's hash of (base seed, worker id)
    into four 32-bit words (torch/utils/data/_utils/worker.py, _generate_state)."""
    mask = 0xFFFFFFFF
    hash_a, mult_a, hash_b, mult_b = [0x43B0D7E5], 0x931E8875, [0x8B51F9DD], 0x58F38DED

    def hashed(value):
        value = (value ^ hash_a[0]) & mask
        hash_a[0] = (hash_a[0] * mult_a) & mask
        value = (value * hash_a[0]) & mask
        return (value ^ (value >> 16)) & mask

    def mix(x, y):
        r = (((0xCA01F9DD * x) & mask) - ((0x4973F715 * y) & mask)) & mask
        return (r ^ (r >> 16)) & mask

    pool = [hashed(v) for v in (worker_id, base_seed & mask, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashed(pool[src]))
    state = []
    for value in pool:
        value = (value ^ hash_b[0]) & mask
        hash_b[0] = (hash_b[0] * mult_b) & mask
        value = (value * hash_b[0]) & mask
        state.append((value ^ (value >> 16)) & mask)
    return state
