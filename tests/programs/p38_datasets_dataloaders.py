# PyTorch tutorial "Datasets & DataLoaders": a custom Dataset, batching, shuffling with a seeded
# generator, collate of tuples and dicts, random_split, Subset, TensorDataset and samplers.
import torch
from torch.utils.data import (DataLoader, Dataset, RandomSampler, SequentialSampler, Subset, TensorDataset,
                              WeightedRandomSampler, random_split)


class SquaresDataset(Dataset):
    """Sample i is the pair (i as a float feature vector, i squared as the label)."""

    def __init__(self, n, transform=None, target_transform=None):
        self.n = n
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        x = torch.tensor([idx, idx + 0.5])
        y = idx * idx
        if self.transform:
            x = self.transform(x)
        if self.target_transform:
            y = self.target_transform(y)
        return x, y


ds = SquaresDataset(10, transform=lambda x: x / 10, target_transform=lambda y: torch.tensor(y, dtype=torch.float32))
print(len(ds))
x, y = ds[3]
print(x, y, y.dtype)

loader = DataLoader(ds, batch_size=4)
print(len(loader))
for xb, yb in loader:
    print(xb.shape, yb)

g = torch.Generator()
g.manual_seed(0)
shuffled = DataLoader(ds, batch_size=3, shuffle=True, generator=g, drop_last=True)
print(len(shuffled))
for xb, yb in shuffled:
    print(yb.tolist())

train_features, train_labels = next(iter(DataLoader(ds, batch_size=5, shuffle=False)))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
print(train_features[0], train_labels[0].item())


class DictDataset(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return {"id": i, "tokens": torch.arange(3) + i, "name": f"item{i}"}


batch = next(iter(DataLoader(DictDataset(), batch_size=4)))
print(sorted(batch.keys()))
print(batch["id"], batch["id"].dtype)
print(batch["tokens"])
print(batch["name"])

raw = DataLoader(DictDataset(), batch_size=2, collate_fn=lambda items: [it["id"] for it in items])
print(list(raw))

X = torch.arange(20, dtype=torch.float32).reshape(10, 2)
Y = torch.arange(10) % 3
tds = TensorDataset(X, Y)
print(len(tds), tds[4])
print(tds.tensors[1])

train, val = random_split(tds, [7, 3], generator=torch.Generator().manual_seed(42))
print(len(train), len(val), type(train).__name__)
print(sorted(train.indices), sorted(val.indices))
a, b, c = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(1))
print(len(a), len(b), len(c), list(c))

sub = Subset(tds, [0, 2, 4])
print(len(sub), sub[1])
for xb, yb in DataLoader(sub, batch_size=2):
    print(xb.tolist(), yb.tolist())

print(list(SequentialSampler(range(5))))
print(list(RandomSampler(range(6), generator=torch.Generator().manual_seed(3))))
weights = [0.1, 0.1, 0.8]
wrs = WeightedRandomSampler(weights, num_samples=8, replacement=True, generator=torch.Generator().manual_seed(0))
print(list(wrs))
print(len(wrs))

torch.manual_seed(7)
for epoch in range(2):
    order = [yb.tolist() for _, yb in DataLoader(tds, batch_size=5, shuffle=True)]
    print(f"epoch {epoch}: {order}")

from torch.utils.data import BatchSampler, IterableDataset, default_collate, get_worker_info
import numpy as np


class CountUp(IterableDataset):
    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        print("worker info:", info)
        return iter(range(self.start, self.end))


print(list(DataLoader(CountUp(3, 10), batch_size=3)))
print(list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)))
print(list(DataLoader(tds, batch_sampler=[[0, 1], [5, 6, 7]])))
print(default_collate([np.array([1.0, 2.0]), np.array([3.0, 4.0])]))
print(default_collate([(1, 2.5, "a"), (3, 4.5, "b")]))
print(next(iter(DataLoader(tds, batch_size=None)))) 

# the train / validation split of older tutorials: shuffled indices and SubsetRandomSampler
from torch.utils.data.sampler import SubsetRandomSampler
from torch.utils.data.dataloader import default_collate as collate

indices = list(range(len(tds)))
np.random.seed(0)
np.random.shuffle(indices)
split = int(np.floor(0.3 * len(tds)))
train_idx, valid_idx = indices[split:], indices[:split]
train_loader = DataLoader(tds, batch_size=4, sampler=SubsetRandomSampler(train_idx, generator=torch.Generator().manual_seed(0)))
valid_loader = DataLoader(tds, batch_size=4, sampler=SubsetRandomSampler(valid_idx))
print(train_idx, valid_idx, len(train_loader), len(valid_loader), len(train_loader.sampler))
print([yb.tolist() for _, yb in train_loader], collate is default_collate)
