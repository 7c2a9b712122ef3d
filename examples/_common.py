"""What the examples share: the digits data as tensors, a training loop, and accuracy."""
from __future__ import annotations

import contextlib
import time

import minitorch as torch
from minitorch.utils.data import DataLoader, TensorDataset


def load_digits_tensors(test_size=0.25, seed=0):
    """sklearn's 8x8 handwritten digits (1797 images, shipped with scikit-learn: no download),
    scaled to [0, 1] and split into train and test sets (stratified, fixed seed)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    x = digits.data.astype("float32") / 16.0
    y = digits.target.astype("int64")
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=test_size, random_state=seed, stratify=y)
    return (torch.tensor(x_tr), torch.tensor(y_tr)), (torch.tensor(x_te), torch.tensor(y_te))


def accuracy(model, x, y, batch_size=512):
    """Fraction of correct argmax predictions, in eval mode and without recording a graph."""
    was_training = model.training
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            pred = model(x[i:i + batch_size]).argmax(dim=1)
            correct += int((pred == y[i:i + batch_size]).sum())
    model.train(was_training)
    return correct / len(x)


def one_blas_thread():
    """Matrices this small multiply faster on one BLAS thread: waking a pool of threads for a
    64x128 product costs more than the product, and much more on a busy 2-core machine."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover (scikit-learn depends on threadpoolctl)
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def fit(model, train, test, *, epochs, lr, batch_size=64, seed=0, progress=False, weight_decay=0.0):
    """A plain custom training loop: shuffle, forward, loss, backward, Adam step."""
    with one_blas_thread():
        return _fit(model, train, test, epochs=epochs, lr=lr, batch_size=batch_size, seed=seed,
                    progress=progress, weight_decay=weight_decay)


def _fit(model, train, test, *, epochs, lr, batch_size, seed, progress, weight_decay):
    start = time.perf_counter()
    loader = DataLoader(TensorDataset(*train), batch_size=batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(seed))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    loss_fn = torch.nn.CrossEntropyLoss()
    epoch_iter = range(epochs)
    if progress:
        from tqdm.auto import tqdm
        epoch_iter = tqdm(epoch_iter, desc=type(model).__name__, unit="epoch")
    losses = []
    for _ in epoch_iter:
        model.train()
        total, count = 0.0, 0
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(yb)
            count += len(yb)
        losses.append(total / count)
        if progress:
            epoch_iter.set_postfix(loss=f"{losses[-1]:.4f}")
    return {
        "train_loss": losses[-1],
        "losses": losses,
        "train_accuracy": accuracy(model, *train),
        "test_accuracy": accuracy(model, *test),
        "seconds": time.perf_counter() - start,
    }
