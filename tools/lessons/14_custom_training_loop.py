# %% [markdown]
# # 14 · A custom training loop, written with tensors
#
# `model.fit(...)` in other frameworks hides the loop. In PyTorch you write it, and it is only
# a handful of tensor operations repeated: take a batch, compute predictions, compute a loss,
# `backward()`, update the weights, clear the gradients. This lesson writes that loop on real
# data (scikit-learn's 8x8 handwritten digits, shipped with the package: no download):
#
# 1. data as tensors, and a loss function written with tensor operations;
# 2. a first loop with bare weight tensors, no `nn`, no `optim`;
# 3. `DataLoader` with a seeded generator, so shuffling is reproducible;
# 4. the everyday loop (`nn.Module` + `optim.Adam`) with a progress bar;
# 5. loss and accuracy curves;
# 6. a learning-rate slider that retrains a tiny model and redraws its curve.

# %% id="setup"
from threadpoolctl import threadpool_limits

import minitorch as torch
from minitorch import nn
from minitorch.utils.data import DataLoader, TensorDataset
from minitorch_course import draw
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

# Matrices this small multiply faster on one BLAS thread (waking a thread pool for a 64x64
# product costs more than the product, especially on a busy 2-core machine).
_blas = threadpool_limits(1, user_api="blas")
_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. The data, as tensors
#
# 1797 grey 8x8 images of the digits 0-9. Flattened, each is a row of 64 numbers; we scale
# them to [0, 1], keep a quarter aside for testing (stratified, fixed seed), and convert to
# tensors: `float32` features, `int64` class labels, as `cross_entropy` expects.

# %% id="data"
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x_np = digits.data.astype("float32") / 16.0
y_np = digits.target.astype("int64")
x_tr_np, x_te_np, y_tr_np, y_te_np = train_test_split(x_np, y_np, test_size=0.25, random_state=0, stratify=y_np)
x_train, y_train = torch.tensor(x_tr_np), torch.tensor(y_tr_np)
x_test, y_test = torch.tensor(x_te_np), torch.tensor(y_te_np)
print("train:", tuple(x_train.shape), x_train.dtype, "|", tuple(y_train.shape), y_train.dtype)
print("test: ", tuple(x_test.shape), x_test.dtype, "|", tuple(y_test.shape), y_test.dtype)

# %% [markdown]
# ## 2. A loss written with tensor operations
#
# Cross-entropy for classification: turn the model's 10 scores (logits) per image into
# log-probabilities with a log-softmax, pick the log-probability of the true class, average,
# negate. Each step is an ordinary tensor operation, so autograd differentiates the whole
# thing with no extra code:
#
#     log_softmax(z)_k = z_k - log(sum_j exp(z_j))      (logsumexp: stable for large z)
#     loss = - mean_i log_softmax(z_i)[y_i]

# %% id="custom-loss" claims="C44"
def my_cross_entropy(logits, target):
    log_probs = logits - logits.logsumexp(dim=1, keepdim=True)   # (N, 10)
    picked = log_probs[torch.arange(len(target)), target]        # (N,): the true class of each row
    return -picked.mean()


logits = torch.randn(5, 10, requires_grad=True)
target = torch.tensor([3, 0, 9, 3, 1])
mine = my_cross_entropy(logits, target)
ref = nn.functional.cross_entropy(logits, target)
print(f"my_cross_entropy: {mine.item():.5f}   nn.functional.cross_entropy: {ref.item():.5f}")
g_mine, = torch.autograd.grad(mine, logits)
g_ref, = torch.autograd.grad(ref, logits)
print("same gradient:", torch.allclose(g_mine, g_ref, atol=1e-6))

# %% [markdown]
# A custom loss is where tensor operations pay off: any prediction error you can write down
# is a loss. For instance, *label smoothing* (aim for 0.9 on the true class, spread 0.1 over
# the rest) is one more line:

# %% id="smoothed-loss" claims="C44"
def smoothed_cross_entropy(logits, target, smoothing=0.1):
    log_probs = logits - logits.logsumexp(dim=1, keepdim=True)
    n_classes = logits.shape[1]
    wanted = torch.full_like(log_probs, smoothing / n_classes)
    wanted[torch.arange(len(target)), target] += 1 - smoothing      # the target distribution
    return -(wanted * log_probs).sum(dim=1).mean()


print(f"smoothed loss: {smoothed_cross_entropy(logits, target).item():.5f}   "
      f"(smoothing=0 gives back {smoothed_cross_entropy(logits, target, 0.0).item():.5f})")

# %% [markdown]
# ## 3. A first loop with bare tensors
#
# No `nn`, no `optim`: two weight matrices and two bias vectors with `requires_grad=True`, a
# forward pass written out, mini-batches cut from a seeded random permutation, and the SGD
# update `w -= lr * w.grad` under `no_grad`. Everything the loop touches is a tensor.

# %% id="bare-loop" claims="C31"
g = torch.Generator().manual_seed(0)
W1 = (torch.randn(64, 32, generator=g) * (1 / 8)).requires_grad_()
b1 = torch.zeros(32, requires_grad=True)
W2 = (torch.randn(32, 10, generator=g) * (1 / 32 ** 0.5)).requires_grad_()
b2 = torch.zeros(10, requires_grad=True)
weights = [W1, b1, W2, b2]


def forward(x):
    return (x @ W1 + b1).relu() @ W2 + b2


def accuracy_of(predict, x, y):
    with torch.no_grad():
        return (predict(x).argmax(dim=1) == y).float().mean().item()


lr, batch_size = 0.5, 64
for epoch in range(10):
    order = torch.randperm(len(x_train), generator=g)            # a new shuffle every epoch
    total = 0.0
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        loss = my_cross_entropy(forward(x_train[idx]), y_train[idx])
        loss.backward()
        with torch.no_grad():
            for w in weights:
                w -= lr * w.grad
                w.grad = None
        total += loss.item() * len(idx)
    if epoch % 3 == 0 or epoch == 9:
        print(f"epoch {epoch}: mean training loss {total / len(order):.3f}, "
              f"test accuracy {accuracy_of(forward, x_test, y_test):.3f}")

# %% [markdown]
# The test accuracy can wobble on the way up: plain SGD with a large learning
# rate takes every batch's gradient at face value, and the last batch of each epoch holds only
# 3 images. Adam, below, averages gradients over steps and is much steadier.
#
# ## 4. `DataLoader`: batches, shuffled reproducibly
#
# Cutting batches by hand gets old. `TensorDataset` pairs the rows of several tensors;
# `DataLoader` shuffles them each epoch and stacks `batch_size` rows at a time. Give it a
# seeded `Generator` and the shuffle is the same on every run, which is what makes a training
# run (and this notebook's outputs) reproducible.

# %% id="dataloader" claims="C31"
train_set = TensorDataset(x_train, y_train)
print("dataset length:", len(train_set), "| one item:", tuple(train_set[0][0].shape), train_set[0][1])


def make_loader(seed):
    return DataLoader(train_set, batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(seed))


loader = make_loader(0)
xb, yb = next(iter(loader))
print("batches per epoch:", len(loader), "| a batch:", tuple(xb.shape), tuple(yb.shape))
print("first labels, seed 0:", make_loader(0).__iter__().__next__()[1][:10].tolist())
print("again,        seed 0:", make_loader(0).__iter__().__next__()[1][:10].tolist())
print("other seed,   seed 1:", make_loader(1).__iter__().__next__()[1][:10].tolist())

# %% [markdown]
# The real thing: a `DataLoader` epoch is a permutation of the indices (drawn from its
# generator when `shuffle=True`), cut into `batch_size` slices, each stacked into tensors.

# %% id="dataloader-source" tags=["nbval-ignore-output"]
show_source(DataLoader.__iter__)

# %% [markdown]
# ## 5. The everyday loop, with a progress bar
#
# The same loop with the library's pieces: an `nn.Sequential` model, `optim.Adam`, our own
# `my_cross_entropy`. Per epoch we record the mean training loss and the test accuracy
# (under `no_grad` and in `eval()` mode: evaluation builds no graph). `tqdm` draws a
# progress bar; its timings differ on every run, so that cell's output is not compared, and the
# final numbers are printed in the cell after it.

# %% id="fit-function"
def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = my_cross_entropy(logits, y).item()
        acc = (logits.argmax(dim=1) == y).float().mean().item()
    model.train()
    return loss, acc


def train(model, epochs, lr, seed=0, progress=None):
    """A custom training loop: returns per-epoch train loss, test loss, test accuracy."""
    loader = make_loader(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    history = {"train_loss": [], "test_loss": [], "test_acc": []}
    epochs_iter = progress(range(epochs), desc="training", unit="epoch") if progress else range(epochs)
    for _ in epochs_iter:
        total, count = 0.0, 0
        for xb, yb in loader:
            opt.zero_grad()                    # 1. clear last step's gradients
            loss = my_cross_entropy(model(xb), yb)   # 2. forward + loss
            loss.backward()                    # 3. gradients of every parameter
            opt.step()                         # 4. update, in place
            total += loss.item() * len(yb)
            count += len(yb)
        history["train_loss"].append(total / count)
        test_loss, test_acc = evaluate(model, x_test, y_test)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        if progress:
            epochs_iter.set_postfix(loss=f"{total / count:.3f}", acc=f"{test_acc:.3f}")
    return history


def make_mlp(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

# %% [markdown]
# Step 4, `opt.step()`, is where the weights change. Here is minitorch's Adam update, a few
# lines of in-place tensor arithmetic under `no_grad`, per parameter:

# %% id="adam-source" tags=["nbval-ignore-output"]
show_source(torch.optim.Adam.step)

# %% id="fit-progress" tags=["nbval-ignore-output"]
from tqdm.auto import tqdm

model = make_mlp(seed=0)
history = train(model, epochs=15, lr=3e-3, progress=tqdm)

# %% id="fit-metrics" claims="C31"
print(f"after {len(history['train_loss'])} epochs: train loss {history['train_loss'][-1]:.3f}, "
      f"test loss {history['test_loss'][-1]:.3f}, test accuracy {history['test_acc'][-1]:.3f}")
print("the weights are Parameters that require grad:",
      all(p.requires_grad for p in model.parameters()), "|", sum(p.numel() for p in model.parameters()), "of them")

# %% [markdown]
# ## 6. Curves
#
# Plot the history: training loss should fall steadily; test loss following it (not rising
# while training loss keeps falling) means the model is not yet over-fitting.

# %% id="curves"
epochs_axis = range(1, len(history["train_loss"]) + 1)
draw.curves([
    {"title": "loss", "xlabel": "epoch", "ylabel": "cross-entropy", "yscale": "log",
     "lines": {"train": (epochs_axis, history["train_loss"]), "test": (epochs_axis, history["test_loss"])}},
    {"title": "accuracy", "xlabel": "epoch", "ylabel": "test accuracy", "ylim": (0.5, 1.0),
     "lines": {"test accuracy": (epochs_axis, history["test_acc"])}},
], figsize=(10, 3.4))

# %% id="curves-source" tags=["nbval-ignore-output"]
show_source(draw.curves)

# %% [markdown]
# ## 7. How the learning rate changes the curve
#
# The learning rate is the one knob every loop has. Too small and the loss creeps down; too
# large and it jumps around or blows up. Move the slider: each position retrains a tiny model
# (64 -> 16 -> 10, 4 epochs, about a second) from the same seed and redraws its loss curve:
# the loss of every batch (noisy: batches differ, and the last one of each epoch holds only 3
# images), and each epoch's mean loss over all its samples, the number to compare.

# %% id="lr-function"
def tiny_run(lr, epochs=4):
    model = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 10))
    torch.manual_seed(0)
    for p in model.parameters():              # the same start for every learning rate
        nn.init.normal_(p, std=0.1)
    loader = make_loader(0)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    batch_losses, epoch_means = [], []
    for _ in range(epochs):
        total, count = 0.0, 0
        for xb, yb in loader:
            opt.zero_grad()
            loss = my_cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            batch_losses.append(loss.item())
            total += loss.item() * len(yb)        # weighted by the batch's size: a mean per sample
            count += len(yb)
        epoch_means.append(total / count)
    return batch_losses, epoch_means


def plot_lr(log10_lr=-0.5):
    lr = 10 ** log10_lr
    batch_losses, epoch_means = tiny_run(lr)
    steps_per_epoch = len(batch_losses) // len(epoch_means)
    ends = [steps_per_epoch * (e + 1) - 1 for e in range(len(epoch_means))]   # the last step of each epoch
    draw.curves([{"title": f"SGD, lr = {lr:.3g}: mean loss of the last epoch {epoch_means[-1]:.3f}",
                  "xlabel": "step (batch)", "ylabel": "training loss", "ylim": (0, 3),
                  "lines": {"each batch": (range(len(batch_losses)), batch_losses),
                            "epoch mean": (ends, epoch_means)}}], figsize=(7, 2.8))

# %% id="lr-widget" tags=["nbval-ignore-output"]
import ipywidgets as widgets

widgets.interact(plot_lr, log10_lr=widgets.FloatSlider(value=-0.5, min=-3.0, max=1.0, step=0.25,
                                                      description="log10(lr)", continuous_update=False));

# %% [markdown]
# (No slider? Widgets need a live kernel, so they don't show on GitHub, for instance. The next
# cell runs two learning rates without one.)

# %% id="lr-compare" claims="C31"
for lr in (0.01, 0.3):
    batch_losses, epoch_means = tiny_run(lr)
    print(f"lr={lr:<5} mean loss of epoch 1 {epoch_means[0]:.3f}, of epoch {len(epoch_means)} "
          f"{epoch_means[-1]:.3f}  (its last batch alone, {len(x_train) % 64} images: {batch_losses[-1]:.3f})")

# %% [markdown]
# ## PyTorch check
#
# With PyTorch installed, our `my_cross_entropy` and `smoothed_cross_entropy` run on both
# libraries, and match `nn.functional.cross_entropy` (its `label_smoothing=` too), values and
# gradients (skipped without it).

# %% id="pytorch-loss" tags=["nbval-ignore-output"]
compare_with_pytorch("""
def my_cross_entropy(logits, target):
    log_probs = logits - logits.logsumexp(dim=1, keepdim=True)
    picked = log_probs[torch.arange(len(target)), target]
    return -picked.mean()

def smoothed_cross_entropy(logits, target, smoothing=0.1):
    log_probs = logits - logits.logsumexp(dim=1, keepdim=True)
    n_classes = logits.shape[1]
    wanted = torch.full_like(log_probs, smoothing / n_classes)
    wanted[torch.arange(len(target)), target] += 1 - smoothing
    return -(wanted * log_probs).sum(dim=1).mean()

logits = torch.tensor(values, requires_grad=True)
target = torch.tensor([3, 0, 9, 3, 1])
my_cross_entropy(logits, target), torch.nn.functional.cross_entropy(logits, target)
smoothed_cross_entropy(logits, target), torch.nn.functional.cross_entropy(logits, target, label_smoothing=0.1)
torch.autograd.grad(my_cross_entropy(logits, target), logits)
torch.autograd.grad(torch.nn.functional.cross_entropy(logits, target), logits)
""", values={"values": logits.tolist()})

# %% [markdown]
# ## Summary
#
# - A training loop is tensors all the way: batches are tensors, weights are tensors with
#   `requires_grad=True`, the loss is a tensor computed by tensor operations, and the update
#   is in-place tensor arithmetic.
# - Order matters: `zero_grad`, forward, loss, `backward`, `step`.
# - Seed the model and the `DataLoader`'s generator and the whole run is reproducible.
#
# Next, lesson 15 keeps the digits as images, (batch, channels, height, width), and trains a
# convolutional network on them.
