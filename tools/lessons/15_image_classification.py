# %% [markdown]
# # 15 · Image classification: images as 4-D tensors, and a small CNN
#
# Lesson 14 flattened each 8x8 digit into a row of 64 numbers, throwing away which pixel is
# next to which. A convolutional network keeps the picture: its input is a **4-D tensor**
#
#     (batch, channels, height, width)
#
# and its layers slide small filters over the height and width. This lesson:
#
# 1. turns the digits into a (N, 1, 8, 8) tensor;
# 2. builds a convolution by hand, first with loops, then with *im2col* (a strided view of
#    every window, then one matrix product), and checks it against `nn.functional.conv2d`;
# 3. puts the model and the data on the same `device`;
# 4. trains a small CNN to over 95% test accuracy in a few seconds;
# 5. shows test images with their predicted and true labels, mistakes in red.

# %% id="setup"
from threadpoolctl import threadpool_limits

import minitorch as torch
from minitorch import nn
from minitorch.nn import functional as F
from minitorch.utils.data import DataLoader, TensorDataset
from minitorch_course import draw
from minitorch_course.compare import compare_with_pytorch
from minitorch_course.show import show_source

# Small matrix products run faster on one BLAS thread, especially on a busy 2-core machine.
_blas = threadpool_limits(1, user_api="blas")
_ = torch.manual_seed(0)

# %% [markdown]
# ## 1. A batch of images is a 4-D tensor
#
# scikit-learn ships the digits as 1797 grey images of 8x8 pixels (no download). A grey image
# has one *channel*; a colour image would have three (red, green, blue). PyTorch's layout puts
# the batch first and the channels second, so a batch of these digits has shape (N, 1, 8, 8):
# `unsqueeze(1)` inserts the channel axis.

# %% id="images-4d" claims="C40"
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
images = torch.tensor(digits.images.astype("float32") / 16.0)     # (1797, 8, 8), values in [0, 1]
labels = torch.tensor(digits.target.astype("int64"))
batch = images.unsqueeze(1)                                         # (1797, 1, 8, 8)
n, c, h, w = batch.shape
print("images:", tuple(images.shape), "-> batch:", tuple(batch.shape), batch.dtype)
print(f"batch={n}, channels={c}, height={h}, width={w}")
print("one image is batch[0]:", tuple(batch[0].shape), "| its label:", labels[0].item())
print("an RGB batch of 32 photos of 224x224 would be:", tuple(torch.zeros(32, 3, 224, 224).shape))

# %% [markdown]
# The same split as lesson 14 (a quarter for testing, stratified, fixed seed), now keeping the
# pictures:

# %% id="split"
idx_train, idx_test = train_test_split(range(n), test_size=0.25, random_state=0, stratify=digits.target)
x_train, y_train = batch[torch.tensor(idx_train)], labels[torch.tensor(idx_train)]
x_test, y_test = batch[torch.tensor(idx_test)], labels[torch.tensor(idx_test)]
print("train:", tuple(x_train.shape), "test:", tuple(x_test.shape))

# %% [markdown]
# ## 2. Convolution by hand
#
# A convolution layer slides a small kernel (here 2x2) over the image. At each position it
# multiplies the kernel with the window under it, element by element, and adds up: one output
# pixel per position. (Deep learning's "convolution" is, strictly, cross-correlation: the
# kernel is not flipped.) A 4x4 image and a 2x2 kernel give a 3x3 output:

# %% id="conv-loops"
x = (torch.arange(16.0) * 7 % 10).reshape(1, 1, 4, 4)    # (N=1, C=1, H=4, W=4): some pixel values
k = torch.tensor([[[[1.0, 0.0], [0.0, -1.0]]]])          # (O=1, C=1, kh=2, kw=2): a diagonal edge detector
print("image:\n", x[0, 0])
print("kernel:\n", k[0, 0])

oh, ow = 4 - 2 + 1, 4 - 2 + 1
out_loops = torch.zeros(1, 1, oh, ow)
for i in range(oh):
    for j in range(ow):
        window = x[0, 0, i:i + 2, j:j + 2]
        out_loops[0, 0, i, j] = (window * k[0, 0]).sum()
print("output (loops):\n", out_loops[0, 0])

# %% [markdown]
# Four nested Python loops (images, channels, rows, columns) are far too slow for real work.
# The trick every library uses is **im2col**: copy each window into one column of a matrix,
# and the whole convolution becomes a single matrix product.
#
# The windows don't even need copying to be *read*: lesson 05's strides do it. The image is
# stored row by row, strides (16, 16, 4, 1). Moving one window to the right is moving one
# element (stride 1); one window down is one row (stride 4); and inside a window, the same.
# So a view of shape (N, C, kh, kw, OH, OW) with strides (16, 16, 4, 1, 4, 1) *is* every
# window, with no copy:

# %% id="im2col-strides" claims="C40"
kh, kw = 2, 2
s_n, s_c, s_h, s_w = x.stride()
windows = x.as_strided((1, 1, kh, kw, oh, ow), (s_n, s_c, s_h, s_w, s_h, s_w))
print("x.stride():", x.stride(), "-> windows.stride():", windows.stride())
print("windows shape:", tuple(windows.shape), "| shares x's memory:", windows.data_ptr() == x.data_ptr())
print("the window at output (1, 2):\n", windows[0, 0, :, :, 1, 2])
print("x[0, 0, 1:3, 2:4]:\n", x[0, 0, 1:3, 2:4])

# %% [markdown]
# Now reshape: each of the `C*kh*kw = 4` kernel positions becomes a row, each of the
# `OH*OW = 9` output pixels a column (this is where the copy happens). The kernel, reshaped to
# `(O, C*kh*kw)`, multiplies it in one go:

# %% id="im2col-matmul"
cols = windows.reshape(1, 1 * kh * kw, oh * ow)          # (N, C*kh*kw, OH*OW)
print("cols: one column per output pixel\n", cols[0])
out_im2col = (k.reshape(1, -1) @ cols).reshape(1, 1, oh, ow)
print("output (im2col):\n", out_im2col[0, 0])
print("same as the loops:", torch.equal(out_im2col, out_loops))

# %% [markdown]
# The same with several input and output channels, a bias, and a random batch, against
# `minitorch.nn.functional.conv2d`:

# %% id="im2col-vs-conv2d"
def my_conv2d(x, weight, bias):
    n, c, h, w = x.shape
    o, _, kh, kw = weight.shape
    oh, ow = h - kh + 1, w - kw + 1
    s_n, s_c, s_h, s_w = x.contiguous().stride()
    windows = x.contiguous().as_strided((n, c, kh, kw, oh, ow), (s_n, s_c, s_h, s_w, s_h, s_w))
    cols = windows.reshape(n, c * kh * kw, oh * ow)
    out = weight.reshape(o, -1) @ cols + bias.reshape(o, 1)   # (N, O, OH*OW)
    return out.reshape(n, o, oh, ow)


g = torch.Generator().manual_seed(0)
xc = torch.randn(5, 3, 7, 6, generator=g)                 # 5 images, 3 channels, 7x6 pixels
wc = torch.randn(4, 3, 3, 3, generator=g)                 # 4 filters of 3x3 over 3 channels
bc = torch.randn(4, generator=g)
mine, ref = my_conv2d(xc, wc, bc), F.conv2d(xc, wc, bc)
print("output shape:", tuple(mine.shape), "| matches F.conv2d:", torch.allclose(mine, ref, atol=1e-5))

# %% [markdown]
# minitorch's own convolution is this same idea (plus padding, stride and dilation, which only
# change the strides of the window view), with one change of order: `im2col_last` stores each
# window pixel by pixel with the pixel's channels side by side (*channels-last*), so the copy
# reads runs of neighbouring numbers, several times faster in NumPy than our column order. The
# numbers are the same, and the weight is reordered to match. Its backward uses *col2im*, which
# adds every column back onto the pixels it came from:

# %% id="conv-source" tags=["nbval-ignore-output"]
from minitorch.nn import _conv

show_source(_conv.im2col_last)
show_source(_conv.Conv2d.forward)

# %% [markdown]
# ## 3. Model and data on the same device
#
# The idiom of every PyTorch script: choose a `device` once, move the model's parameters
# there with `model.to(device)`, and move every batch with `.to(device)` before using it. An
# operation needs all its operands on one device (lesson 08 shows the error otherwise). Here
# the device is the GPU when there is one, and the CPU otherwise; the code is the same.

# %% id="small-cnn" claims="C28"
class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 4 x 4
            nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 2 x 2
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 2 * 2, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


torch.manual_seed(0)
model = SmallCNN()
print(model)
out = model(x_test[:4])
print("input: ", type(out).__name__, tuple(x_test[:4].shape), "-> output:", type(out).__name__, tuple(out.shape))
x = x_test[:4]
for layer in model.features:
    x = layer(x)
    print(f"  after {type(layer).__name__:9} {tuple(x.shape)}")

# %% id="device-idiom" claims="C46"
device = "cuda" if torch.cuda.is_available() else "cpu"
print("On this machine: device =", device)
model = model.to(device)
x_train, y_train = x_train.to(device), y_train.to(device)
x_test, y_test = x_test.to(device), y_test.to(device)
param_device = next(model.parameters()).device
print("model and data on the same device:", param_device == x_train.device == y_train.device == x_test.device)

# %% [markdown]
# ## 4. Training
#
# The custom loop of lesson 14, unchanged except for the model: a seeded `DataLoader`, Adam,
# cross-entropy. 12 epochs take a few seconds on a laptop CPU.

# %% id="train-cnn" claims="C40 C28"
def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train()
    return acc


loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True,
                    generator=torch.Generator().manual_seed(0))
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
losses = []
for epoch in range(12):
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)        # a no-op here; essential when loading from CPU to a GPU
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(yb)
    losses.append(total / len(y_train))
    if epoch % 3 == 2:
        print(f"epoch {epoch + 1:2}: train loss {losses[-1]:.3f}")
test_acc = accuracy(model, x_test, y_test)
print(f"test accuracy: {test_acc:.3f}  (at least 0.95: {test_acc >= 0.95})")

# %% [markdown]
# ## 5. Looking at the predictions
#
# The model's output for a batch is a (N, 10) tensor of scores; `argmax(dim=1)` picks the
# class. A grid of test images with the prediction over each: green when right, red when
# wrong. The first row shows the model's mistakes.

# %% id="predictions" claims="C28"
model.eval()
with torch.no_grad():
    scores = model(x_test)
pred = scores.argmax(dim=1)
wrong = (pred != y_test).nonzero().flatten().tolist()
print("scores:", tuple(scores.shape), scores.dtype, "-> predictions:", tuple(pred.shape), pred.dtype)
print(f"{len(wrong)} mistakes out of {len(y_test)} test images")
print("mistakes (true -> predicted):", [(y_test[i].item(), pred[i].item()) for i in wrong[:8]])

# %% id="prediction-grid"
right = [i for i in range(len(y_test)) if i not in set(wrong)]
shown = (wrong[:8] + right)[:32]
draw.image_grid(x_test[shown], [f"pred {pred[i].item()} / true {y_test[i].item()}" for i in shown],
                title="test digits: predicted / true label (mistakes in red)",
                correct=[pred[i].item() == y_test[i].item() for i in shown])

# %% id="prediction-grid-source" tags=["nbval-ignore-output"]
show_source(draw.image_grid)  # how the picture is drawn (folded: click to open)

# %% [markdown]
# ## PyTorch check
#
# With PyTorch installed, our im2col `my_conv2d` runs on both libraries, and matches
# `nn.functional.conv2d` (and the strided window view matches) on the same numbers.

# %% id="pytorch-conv" tags=["nbval-ignore-output"]
compare_with_pytorch("""
def my_conv2d(x, weight, bias):
    n, c, h, w = x.shape
    o, _, kh, kw = weight.shape
    oh, ow = h - kh + 1, w - kw + 1
    s_n, s_c, s_h, s_w = x.contiguous().stride()
    windows = x.contiguous().as_strided((n, c, kh, kw, oh, ow), (s_n, s_c, s_h, s_w, s_h, s_w))
    cols = windows.reshape(n, c * kh * kw, oh * ow)
    out = weight.reshape(o, -1) @ cols + bias.reshape(o, 1)
    return out.reshape(n, o, oh, ow)

xc, wc, bc = torch.tensor(x_values), torch.tensor(w_values), torch.tensor(b_values)
my_conv2d(xc, wc, bc)
torch.nn.functional.conv2d(xc, wc, bc)
x = torch.arange(16.0).reshape(1, 1, 4, 4)
x.as_strided((1, 1, 2, 2, 3, 3), (16, 16, 4, 1, 4, 1)).stride()
x.as_strided((1, 1, 2, 2, 3, 3), (16, 16, 4, 1, 4, 1))[0, 0, :, :, 1, 2]
torch.nn.Conv2d(1, 8, 3, padding=1)(torch.zeros(2, 1, 8, 8)).shape
""", values={"x_values": xc.tolist(), "w_values": wc.tolist(), "b_values": bc.tolist()})

# %% [markdown]
# ## Summary
#
# - Images are 4-D tensors (batch, channels, height, width); model inputs and outputs are
#   tensors, and so are the scores you turn into predictions.
# - A convolution is a sliding dot product; im2col turns it into one matrix product, and a
#   strided view reads every window without copying.
# - Choose `device` once, and put the model and every batch on it.
