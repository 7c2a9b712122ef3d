# %% [markdown]
# # 01 · What is a tensor?
#
# A neural network never sees a photo, a sentence or a price. It sees **tensors**: blocks of
# numbers of one type, laid out along any number of dimensions. The raw inputs are tensors, the
# weights are tensors, the predictions are tensors. If you know NumPy, you already know the idea:
# a tensor is PyTorch's `ndarray`, plus two powers we meet later (gradients and GPUs).
#
# In this lesson we
#
# 1. find the *shape* of nested lists by hand, then let minitorch do it;
# 2. build a tiny tensor from a flat list and a shape, and see that minitorch stores its numbers
#    the same way;
# 3. watch a small "model" made of nothing but tensors;
# 4. turn real data into tensors: a batch of images (4-D) and a batch of sentences (2-D).

# %% id="setup"
import numpy as np

import minitorch as torch
from minitorch_course import draw  # the pictures: one call each
from minitorch_course.compare import compare_with_pytorch  # the same lines, run on PyTorch too
from minitorch_course.show import show_source  # the real source of anything, in the notebook

torch.manual_seed(0)  # every random number in this lesson is the same on every run
rng = np.random.default_rng(0)


# %% [markdown]
# ## 1. Shape: how many, along each dimension
#
# Start with plain Python. A number, a list of numbers, a list of lists... each extra level of
# nesting is one more **dimension**. The *shape* lists the length at each level: how many rows,
# how many numbers in each row, and so on. It only makes sense if every row at a level has the
# same shape (the data is *rectangular*), so our function checks that too.

# %% id="shape-by-hand"
def shape_of(data):
    """The shape of nested lists: (len at level 0, len at level 1, ...); () for a plain number."""
    if not isinstance(data, list):
        return ()  # a single number has no dimensions
    inner = [shape_of(item) for item in data]
    if any(s != inner[0] for s in inner):
        raise ValueError(f"not rectangular: the items have shapes {inner}")
    return (len(data),) + (inner[0] if inner else ())


scalar = 3.5
vector = [1.0, 2.0, 3.0]
matrix = [[1, 2, 3], [4, 5, 6]]
cube = [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
        [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]

for name, data in [("scalar", scalar), ("vector", vector), ("matrix", matrix), ("cube", cube)]:
    print(f"{name:7} shape {shape_of(data)!s:10} -> {len(shape_of(data))} dimension(s)")

# %% [markdown]
# Now the same data through `torch.tensor`. Its `.shape` agrees with ours, and so does NumPy's.
# The number of dimensions is called the **rank** (`.ndim`). A tensor can have any rank: 0 for a
# scalar, 1 for a vector, 2 for a matrix, and on beyond.

# %% id="ranks" claims="C04"
for name, data in [("scalar", scalar), ("vector", vector), ("matrix", matrix), ("cube", cube)]:
    t = torch.tensor(data)
    a = np.array(data)
    assert t.shape == shape_of(data) == a.shape
    print(f"rank {t.ndim}  {name:7} t.shape = {t.shape!s:25} np.array(data).shape = {a.shape}")

print()
print(torch.tensor(scalar))
print(torch.tensor(matrix))

# %% [markdown]
# A picture says it faster. Each square is one number; a 3-D tensor is a stack of matrices,
# and a 4-D tensor is a row of such stacks:

# %% id="ranks-picture"
draw.ranks([(), (4,), (3, 4), (2, 3, 4), (2, 2, 3, 4)])

# %% id="ranks-picture-source" tags=["nbval-ignore-output"]
show_source(draw.ranks)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# Ragged data is not a tensor: minitorch refuses it the way PyTorch does, and says where.

# %% id="ragged"
try:
    torch.tensor([[1, 2], [3]])
except ValueError as e:
    print("ValueError:", e)

# %% [markdown]
# `.shape` looks like a tuple because it *is* one: `minitorch.Size` is a tuple subclass that
# prints like PyTorch's `torch.Size` and knows how many elements it describes. Here is all of it:

# %% id="size-source" tags=["nbval-ignore-output"]
show_source(torch.Size)

# %% id="size-is-a-tuple"
t = torch.tensor(cube)
print(t.shape, "| is a tuple:", isinstance(t.shape, tuple), "| elements:", t.shape.numel())
print("rows:", t.shape[1], "| last two dims:", t.shape[-2:])

# %% [markdown]
# ## 2. Inside a tensor: one flat block of numbers, and a shape
#
# How would *you* store a 2×3×4 block of numbers? Nested lists are slow to walk. The trick every
# array library uses: keep all the numbers in **one flat list**, in reading order (the last index
# changes fastest), and keep the shape on the side. To find element `[i, j, k]`, turn the index
# into a position in the flat list. Let's build exactly that.

# %% id="tiny-tensor"
def flatten(data):
    """All the numbers of nested lists, in reading order."""
    if not isinstance(data, list):
        return [data]
    return [x for item in data for x in flatten(item)]


class TinyTensor:
    """A tensor, the minimal way: a flat list of numbers, and a shape that says how to read it."""

    def __init__(self, data):
        self.shape = shape_of(data)
        self.storage = flatten(data)

    def numel(self):
        n = 1
        for size in self.shape:
            n *= size
        return n

    def __getitem__(self, index):
        offset = 0
        for i, size in zip(index, self.shape):
            offset = offset * size + i  # one level deeper: skip `size` slots per step, then add i
        return self.storage[offset]


tiny = TinyTensor(cube)
print("shape  ", tiny.shape, " numel", tiny.numel(), " storage", tiny.storage)
print(f"tiny[1, 2, 3] = {tiny[1, 2, 3]}  (the nested lists say cube[1][2][3] = {cube[1][2][3]})")

# %% [markdown]
# minitorch does the same. A tensor keeps its numbers in a NumPy array (`_data`: a private
# attribute, we peek only to learn), and everything else, the shape included, is read off that
# array:

# %% id="tensor-inside"
t = torch.tensor(cube)
print("t[1, 2, 3]         =", t[1, 2, 3].item())
print("numel              =", t.numel(), "(= 2·3·4)")
print("flat, in order     =", t.reshape(-1).tolist())
print("numbers live in a  ", type(t._data).__module__ + "." + type(t._data).__name__)

# %% id="shape-source" tags=["nbval-ignore-output"]
show_source(torch.Tensor.shape.fget)
show_source(torch.Tensor.numel)

# %% [markdown]
# Lesson 05 returns to this flat layout: a small change (*strides*) lets transposes and slices
# reuse the same numbers without copying.
#
# ## 3. Everything is a tensor
#
# Now a "model" that classifies 8×8 images of handwritten digits. It is untrained (its weights are
# random), but look at *what* flows through it: raw inputs, weights, outputs, every one of them
# a tensor.

# %% id="everything-is-a-tensor" claims="C01 C28"
from sklearn.datasets import load_digits

digits = load_digits()  # 1797 scanned digits, shipped inside scikit-learn (no download)

inputs = torch.tensor(digits.data[:5], dtype=torch.float32) / 16  # 5 images, 64 pixels each, in [0, 1]
weights = torch.randn(64, 10) * 0.1  # one column of weights per digit class
bias = torch.zeros(10)
scores = inputs @ weights + bias  # the model's output: 10 scores per image
probabilities = torch.softmax(scores, dim=1)

for name, value in [("inputs", inputs), ("weights", weights), ("bias", bias),
                    ("scores", scores), ("probabilities", probabilities)]:
    print(f"{name:14} {type(value).__name__}  shape {str(tuple(value.shape)):8} dtype {value.dtype}")
print("each row of probabilities sums to 1:", torch.allclose(probabilities.sum(dim=1), torch.ones(5)))

# %% [markdown]
# Operations take tensors and give tensors. A **layer** is a function of tensors, and a **model**
# is layers composed, so it is tensors in, tensors out, all the way down:

# %% id="layers-and-models" claims="C06 C28"
def linear(x, w, b):
    """A layer: an affine map of its input."""
    return x @ w + b


def model(x):
    """A model: layers (here just one) and a softmax, composed."""
    return torch.softmax(linear(x, weights, bias), dim=1)


out = model(inputs)
print("model(inputs) is a", type(out).__name__, "of shape", out.shape)
print("predicted digits:", out.argmax(dim=1), "| true digits:", torch.tensor(digits.target[:5]))

# %% [markdown]
# (The guesses are poor: nobody trained it. Lesson 14 does.)
#
# ## 4. Real data as tensors
#
# Converting raw data into tensors is the first step of every pipeline. Two shapes come up
# constantly.
#
# ### Images: 4-D, `(batch, channels, height, width)`
#
# An image is a grid of pixels per color channel: `(channels, height, width)`. Models eat several
# images at once, a *batch*, which adds a dimension in front. Our digits are grayscale, one
# channel. By hand first: a batch is just a list of images, and each image a list of channels.

# %% id="image-batch-by-hand"
raw = digits.images[:16]  # what scikit-learn gives: a NumPy array of 16 images, 8x8, values 0..16
print("raw:", type(raw).__name__, raw.shape, raw.dtype)

batch_as_lists = [[img.tolist()] for img in raw]  # each image wrapped in a 1-channel list
print("by hand: shape", shape_of(batch_as_lists), "= (batch, channels, height, width)")

# %% id="image-batch" claims="C40 C32"
images = torch.tensor(raw, dtype=torch.float32).unsqueeze(1) / 16  # add the channel dim; scale to [0, 1]
labels = torch.tensor(digits.target[:16])

print("images:", images.shape, images.dtype, "  labels:", labels.shape, labels.dtype)
print("one image, images[3]:         ", images[3].shape)
print("its only channel, images[3, 0]:", images[3, 0].shape)
print("one pixel, images[3, 0, 2, 4]: ", round(images[3, 0, 2, 4].item(), 4))

# %% [markdown]
# Every image of the batch, drawn from the tensor itself (`images[i, 0]` is an 8×8 tensor;
# matplotlib takes it like a NumPy array):

# %% id="image-grid"
draw.image_grid(images, [f"[{i}]: a {labels[i].item()}" for i in range(len(images))],
                title=f"images: a 4-D tensor of shape {tuple(images.shape)}")

# %% id="image-grid-source" tags=["nbval-ignore-output"]
show_source(draw.image_grid)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# Color images have three channels: how much red, green and blue light each pixel gives. Let's
# light up four digits, each in its own mix of the three. To draw one, matplotlib wants the
# channels *last*, `(height, width, channels)`, while minitorch (like PyTorch) keeps them *first*;
# the drawing calls `permute(1, 2, 0)` to reorder the dimensions, just for drawing.

# %% id="color-batch" claims="C40"
mix = torch.tensor([[1.0, 0.45, 0.1], [0.1, 0.7, 1.0], [0.3, 1.0, 0.3], [1.0, 0.3, 0.9]])  # (4 images, 3 channels)
color = images[:4] * mix.reshape(4, 3, 1, 1)  # each channel: the strokes, at that channel's strength
print("color batch:", color.shape, "= (batch, channels, height, width)")

draw.color_channels(color)

# %% id="color-batch-source" tags=["nbval-ignore-output"]
show_source(draw.color_channels)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# ### Sentences: 2-D, `(batch, sequence length)`
#
# A model cannot read words, only numbers. So we give every word an id (a *vocabulary*), turn each
# sentence into a list of ids, and pad the short ones with a reserved id 0 (`<pad>`) so that every
# row has the same length. Rectangular again, so: a 2-D tensor. By hand first:

# %% id="tokens-by-hand"
sentences = ["the cat sat on the mat", "a dog barked", "tensors hold all the data", "hello"]

vocab = {"<pad>": 0}
for sentence in sentences:
    for word in sentence.split():
        vocab.setdefault(word, len(vocab))  # a new word gets the next free id

ids = [[vocab[w] for w in s.split()] for s in sentences]
longest = max(len(row) for row in ids)
padded = [row + [0] * (longest - len(row)) for row in ids]
print("vocabulary:", vocab)
for s, row in zip(sentences, padded):
    print(f"{s!r:28} -> {row}")
print("shape:", shape_of(padded))

# %% id="token-batch" claims="C41 C32"
tokens = torch.tensor(padded)  # integers stay integers: int64, like PyTorch
mask = tokens != 0  # True where there is a real word
print(tokens)
print("shape", tokens.shape, "= (batch, sequence length), dtype", tokens.dtype)
print("sentence lengths:", mask.sum(dim=1))

# %% [markdown]
# As a picture: one row per sentence, one column per position, a color per word id, padding in
# gray.

# %% id="token-grid"
inverse = {i: w for w, i in vocab.items()}  # id -> word
draw.token_grid(tokens, inverse, title=f"tokens: a 2-D tensor of shape {tuple(tokens.shape)}")

# %% id="token-grid-source" tags=["nbval-ignore-output"]
show_source(draw.token_grid)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# A language model's first layer looks each id up in a table of vectors (an *embedding*, lesson
# 16). Indexing a table with the token tensor does exactly that and adds one dimension:
# `(batch, sequence)` becomes `(batch, sequence, features)`.

# %% id="embedding-teaser"
table = torch.randn(len(vocab), 4)  # one 4-number vector per word in the vocabulary
vectors = table[tokens]
print("table", table.shape, "indexed by tokens", tokens.shape, "->", vectors.shape)

# %% [markdown]
# ### Checking against PyTorch
#
# If PyTorch is installed, the same lines run there too: the same data gives the same shapes,
# dtypes and values.

# %% id="pytorch-check" tags=["nbval-ignore-output"]
compare_with_pytorch("""
torch.tensor(scalar).shape
torch.tensor(vector).shape
torch.tensor(matrix)
torch.tensor(cube).shape
torch.tensor(cube).dtype
torch.tensor(padded)
torch.tensor([[1, 2], [3]])
torch.tensor(raw, dtype=torch.float32).unsqueeze(1) / 16
torch.tensor(cube).reshape(-1).tolist()
""", values={"scalar": scalar, "vector": vector, "matrix": matrix, "cube": cube, "padded": padded,
             "raw": raw})

# %% [markdown]
# ## Recap
#
# - A tensor is a rectangular block of numbers of one type, with any number of dimensions; its
#   `shape` says how many along each one.
# - Inside, it is one flat run of numbers plus a shape (minitorch keeps the numbers in a NumPy array).
# - Inputs, weights and outputs of a model are all tensors; layers and models are functions of tensors.
# - Images travel as `(batch, channels, height, width)`, sentences as `(batch, sequence length)` of ids.
#
# Next: **02 · Creating tensors**, and the question we skipped: *what type* are those numbers?
