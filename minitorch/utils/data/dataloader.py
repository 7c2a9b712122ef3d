"""`torch.utils.data.dataloader`: where PyTorch keeps DataLoader and its collate functions, for
code that imports them from there. They live in the package."""
from . import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401
