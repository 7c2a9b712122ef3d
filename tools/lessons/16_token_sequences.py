# %% [markdown]
# # 16 · Token sequences: text as a 2-D tensor of integers
#
# Images are 4-D tensors (batch, channels, height, width). Text is a **2-D tensor of integers**:
# one row per sentence, one column per position, each entry the id of a word in a vocabulary.
# This lesson goes from raw sentences to a trained classifier:
#
# 1. a vocabulary, token ids, and padding sentences of different lengths into one batch;
# 2. a picture of the batch, and the padding mask;
# 3. an embedding is just indexing: `one_hot @ W == W[ids]`, built by hand, then `nn.Embedding`;
# 4. a small embedding classifier, trained on the course's synthetic reviews, that ignores
#    padding with the mask.

# %% id="setup"
import importlib.util
import sys
from pathlib import Path

import numpy as np

import minitorch as torch
from minitorch import nn
from minitorch_course import draw, links
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

_ = torch.manual_seed(0)

# The synthetic reviews come from the course repository's examples/text_data.py (a fixed-seed
# generator, nothing downloaded). Run from a clone, it is one folder up from notebooks/.
REPO_ROOT = Path.cwd().parent
if (REPO_ROOT / "examples" / "text_data.py").exists() and str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
if importlib.util.find_spec("examples") is None and "google.colab" in sys.modules:
    import subprocess  # on Colab only the library is installed: fetch the examples folder too
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", links.BRANCH, links.clone_url(),
                    "/content/course"], check=True)
    sys.path.insert(0, "/content/course")

from examples import text_data

# %% [markdown]
# ## 1. From words to ids
#
# A model computes with numbers, so the first step of every text pipeline turns words into
# integers. The course's dataset generates short reviews whose label follows a rule
# (positive adjective XOR "not"); here are a few:

# %% id="raw-sentences" claims="C32"
sentences = text_data.make_sentences(5, seed=3)
for s, label in sentences:
    print(f"{'positive' if label else 'negative':8}  {s!r}")

# %% [markdown]
# A **vocabulary** gives every distinct word an id. Two ids are reserved: `0` for padding
# (`<pad>`, explained below) and `1` for a word never seen when the vocabulary was built
# (`<unk>`). Sorting the words makes the ids the same on every run.

# %% id="vocab-by-hand" claims="C32"
words = sorted({w for s, _ in sentences for w in s.split()})
itos = ["<pad>", "<unk>"] + words                  # id -> string
stoi = {w: i for i, w in enumerate(itos)}          # string -> id
print(f"{len(itos)} ids:", itos)


def encode(sentence):
    return [stoi.get(w, 1) for w in sentence.split()]


for s, _ in sentences[:2]:
    print(f"{s!r:42} -> {encode(s)}")
print("an unseen word becomes <unk>:", encode("the soup was superb"))

# %% [markdown]
# ## 2. Padding: sentences of different lengths in one tensor
#
# A tensor is rectangular, sentences are not. The usual fix: pad every sentence on the right
# with the `<pad>` id up to the longest one in the batch. The batch is then a 2-D tensor of
# shape **(batch, sequence length)**, of integers (`int64`, PyTorch's type for ids).

# %% id="pad-batch" claims="C41 C32"
encoded = [encode(s) for s, _ in sentences]
max_len = max(len(e) for e in encoded)
ids = torch.tensor([e + [0] * (max_len - len(e)) for e in encoded])
print("lengths:", [len(e) for e in encoded])
print("ids.shape:", ids.shape, "= (batch, sequence length) | dtype:", ids.dtype)
print(ids)

# %% [markdown]
# The same batch as a picture: one row per sentence, one coloured cell per token, padding
# in grey. Every row has the same length; the grey tail is how much is not text.

# %% id="batch-picture" claims="C41"
draw.token_grid(ids, itos, title=f"a token batch: ids.shape = {tuple(ids.shape)}", show_ids=False)

# %% id="batch-picture-source" tags=["nbval-ignore-output"]
show_source(draw.token_grid)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# Padding positions are not words, and a model must not read them as such. A **mask** says
# which positions are real: `ids != 0`, a boolean tensor of the same shape. Summing it along
# the sequence dimension gives each sentence's length back.

# %% id="padding-mask" claims="C41"
mask = ids != 0
print("mask.shape:", mask.shape, "| dtype:", mask.dtype)
print(mask.int())
print("lengths from the mask:", mask.sum(dim=1).tolist())

# %% [markdown]
# ## 3. An embedding is indexing
#
# Ids are labels, not quantities: word 7 is not "more" than word 3. So a model doesn't
# compute with the id itself; it gives each word its own learned vector, a row of a weight
# matrix `W` of shape (vocabulary size, dim). The classic way to write "pick row `i`" as
# linear algebra is a **one-hot** vector (all zeros, a 1 at position `i`) times `W`:

# %% id="one-hot-matmul" claims="C41"
V, D = len(itos), 4
W = torch.randn(V, D, requires_grad=True)             # one learnable row per word
one_hot = (ids.unsqueeze(-1) == torch.arange(V)).float()  # (batch, length, V): broadcasting
print("one_hot.shape:", one_hot.shape, "| exactly one 1 per token:", bool((one_hot.sum(-1) == 1).all()))
by_matmul = one_hot @ W                               # (batch, length, V) @ (V, D)
by_index = W[ids]                                     # pick rows: (batch, length, D)
print("one_hot @ W:", by_matmul.shape, "| W[ids]:", by_index.shape)
print("equal:", torch.allclose(by_matmul, by_index))

# %% [markdown]
# Same numbers, very different costs: the matrix product multiplies `V` numbers per token
# (almost all by zero), and a real vocabulary has 30 000 words or more. Indexing reads `D`
# numbers per token. The gradient tells the same story: only the rows of words that occur
# receive a gradient, counted once per occurrence.

# %% id="embedding-grad" claims="C41"
by_index.sum().backward()
counts = torch.tensor(np.bincount(ids.numpy().ravel(), minlength=V))  # occurrences of each id
print("gradient of each row == how often its word occurs:",
      torch.equal(W.grad[:, 0], counts.float()))
print("rows with a gradient:", int((W.grad.abs().sum(1) > 0).sum()), "of", V)

# %% [markdown]
# `nn.Embedding(num_embeddings, embedding_dim)` is exactly this: a weight `Parameter` of shape
# (num_embeddings, embedding_dim) and a forward pass that indexes it. With
# `padding_idx=0`, row 0 starts at zero and never receives a gradient, so padding embeds to
# a vector of zeros for the whole of training.

# %% id="embedding-source" tags=["nbval-ignore-output"]
show_source(nn.Embedding.forward)

# %% id="nn-embedding" claims="C41"
emb = nn.Embedding(V, D, padding_idx=0)
out = emb(ids)
print("ids", tuple(ids.shape), "->", "embeddings", tuple(out.shape), "= (batch, length, dim)")
print("weight:", tuple(emb.weight.shape), "requires_grad:", emb.weight.requires_grad)
print("same as indexing the weight:", torch.equal(out, emb.weight[ids]))
print("padding positions embed to zeros:", bool((out[~mask] == 0).all()))
out.sum().backward()
print("padding row's gradient stays zero:", bool((emb.weight.grad[0] == 0).all()))

# %% [markdown]
# Ids must be integers, and a float tensor of ids is a mistake the layer catches, with
# PyTorch's message and minitorch's hint (a note, which a traceback shows under the message):

# %% id="embedding-float-ids"
try:
    emb(ids.float())
except RuntimeError as e:
    print("RuntimeError:", e)
    print(*getattr(e, "__notes__", []))

# %% [markdown]
# ## 4. A small embedding classifier
#
# The whole dataset: 2000 training and 500 test reviews, padded to 12 tokens, as the
# course's `examples/text_data.py` builds them (its `Vocab` is the one of section 1).

# %% id="dataset" claims="C41 C32"
(train_ids, train_y), (test_ids, test_y), vocab = text_data.make_dataset(n_train=2000, n_test=500, seq_len=12)
print("train:", train_ids.shape, train_ids.dtype, "| labels:", train_y.shape, train_y.dtype)
print("test: ", test_ids.shape, "| vocabulary:", len(vocab), "words")
print("share of padding in the training batch:", round(float((train_ids == 0).float().mean()), 2))
print("first review:", " ".join(vocab.itos[i] for i in train_ids[0].tolist()), "->", int(train_y[0]))

# %% [markdown]
# The model: embed every token, average the vectors of the **real** tokens (the mask
# keeps the padding out of the average), and classify the average with a small MLP. The
# hidden layer matters: the label is "positive word XOR not", which no single word decides.
#
# Why the mask? `padding_idx` already makes padding vectors zero, so they add nothing to a
# **sum**; but a plain mean divides by 12 for every sentence, so a short review would get a
# smaller average than a long one with the same words. Dividing by the true length fixes it.

# %% id="model" claims="C41"
class EmbeddingClassifier(nn.Module):
    def __init__(self, vocab_size, dim=16, hidden=32, classes=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, ids):                                   # ids: (B, L) int64
        e = self.embed(ids)                                   # (B, L, dim)
        mask = (ids != 0).unsqueeze(-1).float()               # (B, L, 1): 1 for real tokens
        mean = (e * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)   # (B, dim)
        return self.mlp(mean)                                 # (B, classes)


_ = torch.manual_seed(0)
model = EmbeddingClassifier(len(vocab))
logits = model(train_ids[:4])
print("ids", tuple(train_ids[:4].shape), "-> logits", tuple(logits.shape))
print({name: tuple(p.shape) for name, p in model.named_parameters()})

# %% [markdown]
# The training loop of lesson 14: shuffled mini-batches, cross-entropy, Adam. The matrices
# are tiny, so we pin NumPy's BLAS to one thread (waking a pool of threads costs more than
# these products). Training takes about a second.

# %% id="train" claims="C41 C31"
from threadpoolctl import threadpool_limits

from minitorch.utils.data import DataLoader, TensorDataset


def accuracy(model, ids, y):
    with torch.no_grad():
        return float((model(ids).argmax(dim=1) == y).float().mean())


_ = torch.manual_seed(0)
model = EmbeddingClassifier(len(vocab))
loader = DataLoader(TensorDataset(train_ids, train_y), batch_size=64, shuffle=True,
                    generator=torch.Generator().manual_seed(0))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()
losses = []
with threadpool_limits(1, user_api="blas"):
    for epoch in range(6):
        total = 0.0
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(yb)
        losses.append(total / len(train_ids))
        print(f"epoch {epoch}  train loss below 0.1: {losses[-1] < 0.1}")
    test_acc = accuracy(model, test_ids, test_y)
print("On this machine: train losses", [round(v, 4) for v in losses])
print("test accuracy, rounded to 0.05:", round(test_acc * 20) / 20)
print("On this machine: test accuracy", round(test_acc, 4))

# %% id="loss-curve" tags=["nbval-ignore-output"]
draw.curves([{"title": "embedding classifier on the synthetic reviews", "xlabel": "epoch",
              "ylabel": "train loss (log scale)", "yscale": "log", "lines": {"train": (range(len(losses)), losses)}}],
            figsize=(5, 2.6))

# %% id="loss-curve-source" tags=["nbval-ignore-output"]
show_source(draw.curves)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# New sentences go through the same pipeline: encode with the training vocabulary, pad to a
# batch, run the model. Words it never saw become `<unk>`.

# %% id="predict" claims="C41 C28"
reviews = ["the coffee was really good", "the coffee was not good", "sadly the plot was dull",
           "honestly the music was not boring i think", "the view was not very wonderful"]
batch = torch.tensor([vocab.encode(r, 12) for r in reviews])
with torch.no_grad():
    probs = model(batch).softmax(dim=1)
for r, row, p in zip(reviews, batch.tolist(), probs[:, 1].tolist()):
    verdict = "positive" if p > 0.5 else "negative"
    print(f"{r!r:45} -> {verdict if 1 not in row else 'a guess: it contains <unk>'}")
print("'wonderful' is unknown, id:", vocab.encode("wonderful", 1))

# %% [markdown]
# The last review shows the limit of a model trained on 24 adjectives: an unknown word is
# `<unk>`, which carries no sentiment, so what the model says is a guess.

# %% [markdown]
# With PyTorch installed, the lines of this lesson run there too, on the same ids and the same
# weights: the mask, one-hot versus indexing, the gradient counts, and `nn.Embedding` with its
# padding row.

# %% id="pytorch-compare" tags=["nbval-ignore-output"]
compare_with_pytorch("""
ids = torch.tensor(id_rows)
mask = ids != 0
mask.sum(dim=1)
W = torch.tensor(weights, requires_grad=True)
one_hot = (ids.unsqueeze(-1) == torch.arange(W.shape[0])).float()
by_index = W[ids]
torch.allclose(one_hot @ W, by_index), by_index
by_index.sum().backward()
W.grad[:, 0]
emb = torch.nn.Embedding(W.shape[0], W.shape[1], padding_idx=0)
with torch.no_grad():
    emb.weight.copy_(torch.tensor(weights))
    emb.weight[0] = 0
out = emb(ids)
out
out.sum().backward()
emb.weight.grad[0], emb.weight.grad.sum(dim=1)
emb(ids.float())
""", values={"id_rows": ids.tolist(), "weights": W.detach().tolist()})

# %% [markdown]
# ## Summary
#
# * Text enters a model as a 2-D `int64` tensor of ids, shape **(batch, sequence length)**;
#   building it (vocabulary, encoding, padding) is the first step of the pipeline.
# * Padding makes sentences rectangular; the mask `ids != 0` says which positions are real.
# * An embedding is a row lookup, `W[ids]`, the same as `one_hot @ W` but without the
#   multiplications by zero; `nn.Embedding` wraps the weight as a `Parameter`.
# * (B, L) ids -> (B, L, D) vectors -> masked mean (B, D) -> MLP -> (B, classes).
