"""The lessons' pictures: each one a call, so a lesson cell shows the picture, not the plotting.

    from minitorch_course import draw
    draw.memory_layout(storage, {"x": x, "x.t()": x.t()})
    show_source(draw.memory_layout)       # how it is drawn, one click away

Every function takes minitorch tensors (or plain Python data), draws one figure and shows it.
matplotlib is imported only when a picture is drawn, so importing the course stays fast.
"""
from __future__ import annotations

import numpy as np

BLUE, ORANGE, GREEN, RED, GREY = "#4c72b0", "#dd8452", "#55a868", "#c44e52", "#dddddd"


def _plt():
    import matplotlib.pyplot as plt
    return plt


def _finish(fig):
    plt = _plt()
    plt.show()
    plt.close(fig)


def _array(t):
    """A NumPy array of a tensor's values (on any device), or of an array-like."""
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "cpu"):
        t = t.cpu()
    return np.asarray(t)


# ---- tables ---------------------------------------------------------------------------------

def table(header, rows):
    """A Markdown table (header: column titles; rows: lists of cells, Markdown allowed)."""
    from IPython.display import Markdown, display
    lines = ["| " + " | ".join(map(str, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    display(Markdown("\n".join(lines)))


# ---- lesson 01: what a tensor is --------------------------------------------------------------

def _block(ax, shape, x0, color, numbers):
    """A tensor of rank <= 3 as squares: deeper slices sit behind, shifted up and right."""
    plt = _plt()
    depth, rows, cols = (1,) * (3 - len(shape)) + tuple(shape)
    for k in reversed(range(depth)):
        for i in range(rows):
            for j in range(cols):
                x, y = x0 + j + 0.4 * k, -i + 0.4 * k
                ax.add_patch(plt.Rectangle((x, y), 1, 1, facecolor=color, edgecolor="white",
                                           alpha=0.45 + 0.55 * (k == 0)))
                if numbers and k == 0:
                    ax.text(x + 0.5, y + 0.5, str(i * cols + j), ha="center", va="center",
                            fontsize=8, color="white")


def ranks(shapes):
    """Tensors of the given shapes (rank 0 to 4) side by side, one square per number."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(13, 2.8))
    x = 0.0
    for shape in shapes:
        blocks = shape[0] if len(shape) == 4 else 1  # a 4-D tensor: a row of 3-D blocks
        block_shape = shape[1:] if len(shape) == 4 else shape
        width = (block_shape[-1] if block_shape else 1) + (0.4 if len(block_shape) == 3 else 0)
        for b in range(blocks):
            _block(ax, block_shape, x + b * (width + 0.6), ["tab:blue", "tab:orange"][b % 2],
                   numbers=len(shape) <= 2)
        total = blocks * width + (blocks - 1) * 0.6
        names = {0: "scalar", 1: "vector", 2: "matrix"}
        title = f"{len(shape)}-D" + (f": {names[len(shape)]}" if len(shape) in names else "")
        ax.text(x + total / 2, 2.2, f"{title}\nshape {tuple(shape)}", ha="center", va="bottom", fontsize=10)
        x += total + 1.5
    ax.set_xlim(-0.5, x - 1)
    ax.set_ylim(-2.2, 3.4)
    ax.set_aspect("equal")
    ax.axis("off")
    _finish(fig)


def image_grid(images, titles, title=None, columns=8, correct=None):
    """Grayscale images (a (N, 1, H, W) or (N, H, W) tensor) in a grid, a title above each.
    correct: optional list of booleans; False frames the image (and its title) in red."""
    plt = _plt()
    pics = _array(images)
    pics = pics[:, 0] if pics.ndim == 4 else pics
    rows = -(-len(pics) // columns)
    # constrained layout keeps each title clear of the row above (tight_layout did not)
    fig, axes = plt.subplots(rows, columns, figsize=(1.35 * columns, 1.6 * rows + 0.5),
                             layout="constrained", squeeze=False)
    for k, ax in enumerate(axes.flat):
        ax.set_xticks([])
        ax.set_yticks([])
        if k >= len(pics):
            ax.axis("off")
            continue
        ok = True if correct is None else bool(correct[k])
        ax.imshow(pics[k], cmap="gray_r", vmin=0, vmax=max(1.0, float(pics.max())))
        ax.set_title(titles[k], fontsize=8, color="black" if correct is None else ("tab:green" if ok else "tab:red"))
        for side in ax.spines.values():
            side.set_edgecolor("black" if ok else "tab:red")
            side.set_linewidth(0.5 if ok else 3)
    if title:
        fig.suptitle(title, fontsize=11)
    _finish(fig)


def color_channels(color):
    """A (batch, 3, H, W) color batch: image 0's three channels alone, then every image whole.
    matplotlib wants channels last, (H, W, 3): permute(1, 2, 0) reorders the dims for drawing."""
    plt = _plt()
    fig, axes = plt.subplots(1, 4 + len(color), figsize=(11, 1.9))
    for c, name in enumerate(["red", "green", "blue"]):
        keep = np.zeros((3, 1, 1), dtype=np.float32)
        keep[c] = 1.0  # keep channel c, zero the others
        axes[c].imshow(np.clip(_array(color[0].permute(1, 2, 0)) * keep.reshape(1, 1, 3), 0, 1))
        axes[c].set_title(f"color[0, {c}]: {name}", fontsize=8)
    axes[3].text(0.5, 0.5, "together:", ha="center", va="center", fontsize=9)
    for i in range(len(color)):
        axes[4 + i].imshow(np.clip(_array(color[i].permute(1, 2, 0)), 0, 1))
        axes[4 + i].set_title(f"color[{i}]", fontsize=8)
    for ax in axes:
        ax.axis("off")
    _finish(fig)


def token_grid(tokens, words, title=None, show_ids=True):
    """A (batch, sequence) tensor of token ids: one row per sentence, a color per id, padding
    (id 0) in grey; each cell names its word (words: id -> string, a list or a dict)."""
    plt = _plt()
    ids = _array(tokens)
    fig, ax = plt.subplots(figsize=(max(6, 1.0 * ids.shape[1]), 0.55 * ids.shape[0] + 1.2))
    ax.set_facecolor(GREY)
    ax.imshow(np.ma.masked_equal(ids, 0), cmap="tab20", vmin=1, vmax=max(20, int(ids.max())),
              aspect="auto")
    for (r, c), v in np.ndenumerate(ids):
        label = words[int(v)] if v else "<pad>"
        ax.text(c, r, f"{label}\n{v}" if show_ids else label, ha="center", va="center", fontsize=7,
                color="#777777" if v == 0 else "black")
    ax.set_xticks(range(ids.shape[1]))
    ax.set_yticks(range(ids.shape[0]))
    ax.set_xlabel("sequence position (dim 1)")
    ax.set_ylabel("batch (dim 0)")
    ax.set_title(title or f"a 2-D tensor of token ids, shape {ids.shape}")
    fig.tight_layout()
    _finish(fig)


# ---- lesson 02: creating tensors ----------------------------------------------------------------

def histograms(samples):
    """One histogram per {title: tensor of samples}; integer samples get one bar per value."""
    plt = _plt()
    fig, axes = plt.subplots(1, len(samples), figsize=(3.7 * len(samples), 2.6), squeeze=False)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for k, (ax, (name, values)) in enumerate(zip(axes.flat, samples.items())):
        v = _array(values)
        if np.issubdtype(v.dtype, np.integer):
            ax.hist(v, bins=np.arange(v.min(), v.max() + 2) - 0.5, color=colors[k % 4], rwidth=0.8)
        else:
            ax.hist(v, bins=40, color=colors[k % 4])
        ax.set_title(name, fontsize=10)
    fig.tight_layout()
    _finish(fig)


def promotion_table(dtypes, promote, numpy_promote):
    """The grid of promote(a, b) for every pair of dtypes; a red frame where NumPy's answer
    (numpy_promote(a, b), a NumPy dtype) differs. Returns how many pairs differ."""
    plt = _plt()
    short = [str(d).split(".")[-1] for d in dtypes]
    order = {s: i for i, s in enumerate(short)}
    fig, ax = plt.subplots(figsize=(7.5, 6))
    grid = np.array([[order[str(promote(a, b)).split(".")[-1]] for b in dtypes] for a in dtypes])
    ax.imshow(grid, cmap="viridis", alpha=0.85)
    differ = 0
    for i, a in enumerate(dtypes):
        for j, b in enumerate(dtypes):
            ours = str(promote(a, b)).split(".")[-1]
            ax.text(j, i, ours.replace("float", "f").replace("uint", "u").replace("int", "i"),
                    ha="center", va="center", fontsize=8, color="black" if order[ours] >= 6 else "white")
            if ours != str(numpy_promote(a, b)):
                differ += 1
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    ax.set_xticks(range(len(dtypes)), short, rotation=45)
    ax.set_yticks(range(len(dtypes)), short)
    ax.set_xlabel("dtype of b")
    ax.set_ylabel("dtype of a")
    ax.set_title(f"promote_types(a, b); red: NumPy differs ({differ} of {len(dtypes) ** 2} pairs)")
    fig.tight_layout()
    _finish(fig)
    return differ


# ---- lessons 03 and 05: strides and memory ------------------------------------------------------

def memory_walk(offsets, title):
    """The memory offset of each element, in a view's reading order: a straight staircase when
    the view is contiguous (blue), a hopping line when it is not (red)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 2.4))
    in_order = list(offsets) == sorted(offsets)
    ax.plot(range(len(offsets)), offsets, "o-", color="tab:blue" if in_order else "tab:red", markersize=4)
    ax.set_xlabel("position in the view's reading order")
    ax.set_ylabel("offset in memory")
    ax.set_title(title)
    fig.tight_layout()
    _finish(fig)


def _layout(ax, t, numel, title):
    """Storage cells on top, the 2-D view `t` below, arrows from its first row into storage."""
    from matplotlib.patches import Rectangle
    plt = _plt()
    rows, cols = t.shape
    stride, offset = t.stride(), t.storage_offset()
    pos = [[offset + i * stride[0] + j * stride[1] for j in range(cols)] for i in range(rows)]
    colours = plt.get_cmap("viridis")(np.linspace(0.1, 0.9, rows * cols))
    colour_at = {pos[i][j]: colours[i * cols + j] for i in range(rows) for j in range(cols)}
    for p in range(numel):
        ax.add_patch(Rectangle((p, 0), 1, 1, facecolor=colour_at.get(p, GREY), edgecolor="white", lw=2))
        ax.text(p + 0.5, 0.5, str(p), ha="center", va="center", color="white" if p in colour_at else "grey")
    left = (numel - cols) / 2
    for i in range(rows):
        for j in range(cols):
            y = -2.2 - i
            ax.add_patch(Rectangle((left + j, y), 1, 1, facecolor=colours[i * cols + j], edgecolor="white", lw=2))
            ax.text(left + j + 0.5, y + 0.5, str(pos[i][j]), ha="center", va="center", color="white")
    for j in range(cols):
        ax.annotate("", xy=(pos[0][j] + 0.5, 0), xytext=(left + j + 0.5, -1.2),
                    arrowprops=dict(arrowstyle="->", color="#444444", lw=1))
    ax.text(-0.3, 0.5, "storage", ha="right", va="center")
    ax.text(left - 0.3, -1.7, "view", ha="right", va="center")
    ax.set_title(f"{title}: shape {tuple(t.shape)}, stride {stride}, offset {offset}")
    ax.set_xlim(-2, numel + 0.2)
    ax.set_ylim(-2.4 - rows, 1.2)
    ax.set_aspect("equal")
    ax.axis("off")


def memory_layout(storage, views):
    """For each {name: 2-D view of storage}: the storage row, the view below it (each cell
    labelled with the position it reads, colored in reading order), arrows from its first row."""
    plt = _plt()
    fig, axes = plt.subplots(len(views), 1, figsize=(9, 3.2 * len(views)), squeeze=False)
    for ax, (name, t) in zip(axes.flat, views.items()):
        _layout(ax, t, storage.numel(), name)
    fig.tight_layout()
    _finish(fig)


# ---- lesson 04: broadcasting ----------------------------------------------------------------------

def _grid(ax, values, real_rows, real_cols, colour, title):
    """A 2-D grid of numbers; cells beyond (real_rows, real_cols) are pale: broadcast copies."""
    from matplotlib.patches import Rectangle
    rows, cols = values.shape
    for i in range(rows):
        for j in range(cols):
            real = i < real_rows and j < real_cols
            ax.add_patch(Rectangle((j, rows - 1 - i), 1, 1, facecolor=colour if real else "#e8eef6",
                                   edgecolor="white", linewidth=2))
            ax.text(j + 0.5, rows - 0.5 - i, f"{values[i, j]:g}", ha="center", va="center",
                    fontsize=11, color="white" if real else "#7f93ad")
    ax.set_xlim(-0.1, cols + 0.1)
    ax.set_ylim(-0.1, rows + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=11)


def broadcast(a, b):
    """a + b for tensors of at most 2 dims: each input stretched to the result's shape, the
    numbers it really holds dark, the copies broadcasting pretends are there pale."""
    plt = _plt()
    out = a + b
    shape = tuple(out.shape) if out.ndim == 2 else (1,) * (2 - out.ndim) + tuple(out.shape)
    fig, axes = plt.subplots(1, 3, figsize=(10, 3))
    for ax, t, colour, name in [(axes[0], a, BLUE, "a"), (axes[1], b, ORANGE, "b")]:
        real = (1,) * (2 - t.ndim) + tuple(t.shape)  # a missing dim counts as size 1
        _grid(ax, _array(t.expand(*shape)).reshape(shape), real[0], real[1], colour,
              f"{name}: {tuple(t.shape)} -> {tuple(out.shape)}")
    _grid(axes[2], _array(out).reshape(shape), *shape, GREEN, f"a + b: {tuple(out.shape)}")
    fig.text(0.36, 0.45, "+", fontsize=22, ha="center")
    fig.text(0.64, 0.45, "=", fontsize=22, ha="center")
    _finish(fig)


# ---- lessons 06, 14, 16, 17: bars and curves ------------------------------------------------------

def bars(values, xlabel, title, colors=None, fmt="%.2f"):
    """Horizontal bars for {label: number}, each labelled with its value."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(values) + 0.8))
    names = list(values)
    drawn = ax.barh(names, [values[k] for k in names], color=colors)
    ax.bar_label(drawn, fmt=fmt, padding=4)
    ax.set_xlim(0, 1.25 * max(values.values()))
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    fig.tight_layout()
    _finish(fig)


def curves(panels, figsize=None):
    """Line plots side by side. panels: [{"title", "xlabel", "ylabel", "lines": {label: (x, y)},
    optional "yscale"/"xscale" ("log"), "ylim", "hline" (a y value drawn grey)}]."""
    plt = _plt()
    fig, axes = plt.subplots(1, len(panels), figsize=figsize or (5 * len(panels), 3.2), squeeze=False)
    for ax, p in zip(axes.flat, panels):
        for label, (x, y) in p["lines"].items():
            ax.plot(list(x), list(y), marker="o" if len(list(x)) <= 30 else None, markersize=4, label=label)
        if p.get("hline") is not None:
            ax.axhline(p["hline"], color="gray", lw=0.8)
        ax.set_xscale(p.get("xscale", "linear"))
        ax.set_yscale(p.get("yscale", "linear"))
        if p.get("ylim"):
            ax.set_ylim(*p["ylim"])
        ax.set_xlabel(p.get("xlabel", ""))
        ax.set_ylabel(p.get("ylabel", ""))
        ax.set_title(p.get("title", ""))
        if len(p["lines"]) > 1:
            ax.legend()
    fig.tight_layout()
    _finish(fig)


# ---- lesson 09: the autograd graph ----------------------------------------------------------------

def is_leaf_node(node) -> bool:
    """An AccumulateGrad node (it holds the leaf in .variable), whatever its name() says:
    "AccumulateGrad" or PyTorch's "torch::autograd::AccumulateGrad"."""
    return hasattr(node, "variable")


def graph_layout(root):
    """Nodes (in discovery order), edges (parent -> child) and the depth of each node: its
    longest distance from the output, found by walking next_functions."""
    nodes, edges, depth = [root], [], {root: 0}
    i = 0
    while i < len(nodes):
        node = nodes[i]
        i += 1
        for child, _ in node.next_functions:
            if child is None:
                continue
            edges.append((node, child))
            if child not in depth:
                nodes.append(child)
                depth[child] = 0
    changed = True  # longest path from the root: relax until stable (the graph has no cycle)
    while changed:
        changed = False
        for parent, child in edges:
            if depth[child] < depth[parent] + 1:
                depth[child] = depth[parent] + 1
                changed = True
    return nodes, edges, depth


def autograd_graph(root, names=None, title=""):
    """Draw the graph behind root (a grad_fn): one row per depth, arrows the way the gradient
    flows, leaves (AccumulateGrad) in green with the name given in names ({id(tensor): name}).
    Returns (nodes, edges)."""
    plt = _plt()
    names = names or {}
    nodes, edges, depth = graph_layout(root)
    rows = {}
    for n in nodes:
        rows.setdefault(depth[n], []).append(n)
    pos = {n: (k - (len(row) - 1) / 2, -d) for d, row in rows.items() for k, n in enumerate(row)}
    width = max(len(r) for r in rows.values())
    fig, ax = plt.subplots(figsize=(2.6 * width + 1.5, 1.25 * len(rows) + 0.5))
    for parent, child in edges:
        (x0, y0), (x1, y1) = pos[parent], pos[child]
        ax.annotate("", xy=(x1, y1 + 0.2), xytext=(x0, y0 - 0.2), arrowprops=dict(arrowstyle="->", color="gray"))
    for n, (px, py) in pos.items():
        label = n.name().split("::")[-1]
        if is_leaf_node(n):
            label += "\n" + names.get(id(n.variable), "leaf")
        ax.text(px, py, label, ha="center", va="center", fontsize=10, family="monospace",
                bbox=dict(boxstyle="round,pad=0.4", fc="#cde8c4" if is_leaf_node(n) else "#c9daf8", ec="black"))
    ax.set_xlim(-width / 2 - 0.3, width / 2 + 0.3)
    ax.set_ylim(-len(rows) + 0.5, 0.5)
    ax.set_title(title)
    ax.axis("off")
    _finish(fig)
    return nodes, edges
