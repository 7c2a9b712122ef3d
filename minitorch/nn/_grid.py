"""Spatial transformers: affine_grid and grid_sample, as primitives.

A *sampling grid* says, for every output pixel, where in the input to read, in normalised
coordinates: -1 is the left (top) edge of the input, +1 the right (bottom) edge. grid_sample
reads the input there, between pixels by bilinear interpolation (or at the nearest pixel, or
bicubic: a cubic through the 4 x 4 pixels around the point);
affine_grid builds the grid of an affine map theta, so that

    grid_sample(x, affine_grid(theta, x.shape))

rotates, scales, shears or shifts the image x, differentiably in theta (the spatial
transformer network). Both work for images (N, C, H, W) and volumes (N, C, D, H, W): the grid's
last dim holds (x, y) or (x, y, z), x indexing the width.

align_corners=True puts -1 and +1 on the centres of the corner pixels; False (the default) on
the outer edges of the corner pixels, so that the result does not depend on the resolution.
"""
from __future__ import annotations

import itertools
import math

from .._ops._prim import Primitive
from .._ops.index import index_add_flat


def base_coords(xp, n, align_corners, dtype):
    """The n normalised coordinates of a row of n pixels' centres (PyTorch's linspace_from_neg_one)."""
    if n <= 1:
        return xp.zeros(n, dtype=dtype)
    coords = xp.linspace(-1, 1, n, dtype=dtype)
    return coords if align_corners else coords * (n - 1) / n


def base_grid(xp, size, align_corners, dtype):
    """(D, H, W, nd + 1) (or (H, W, 3)): every output pixel's (x, y[, z], 1)."""
    spatial = tuple(size[2:])
    nd = len(spatial)
    grid = xp.ones(spatial + (nd + 1,), dtype=dtype)
    for k in range(nd):  # coordinate k (x, y, z) runs along spatial dim nd-1-k (W, H, D)
        q = nd - 1 - k
        grid[..., k] = base_coords(xp, spatial[q], align_corners, dtype).reshape((-1,) + (1,) * (nd - 1 - q))
    return grid


class AffineGrid(Primitive):
    """grid[n, p] = theta[n] @ (x_p, y_p, 1): one matrix product per batch entry.

    forward:  grid = base @ theta^T        base (P, nd + 1), theta (N, nd, nd + 1)
    backward: dtheta = grad^T @ base       grad (N, P, nd)
    """
    _node_name = "AffineGridGeneratorBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, theta, *, size, align_corners):
        xp = theta._device.xp
        base = base_grid(xp, size, align_corners, theta._data.dtype)
        ctx.base = rows = base.reshape(-1, base.shape[-1])
        out = xp.matmul(rows, theta._data.transpose(0, 2, 1))  # (N, P, nd)
        return out.reshape((theta.shape[0],) + base.shape[:-1] + (theta.shape[1],))

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        base = Tensor._make(ctx.base, grad._device)
        g = grad.reshape(grad.shape[0], -1, grad.shape[-1])  # (N, P, nd)
        return (g.transpose(1, 2) @ base,)


# ---- grid_sample: from normalised coordinates to pixels -----------------------------------------

def _unnormalise(coord, size, align_corners):
    """Normalised coordinate -> pixel coordinate, and d(pixel)/d(coordinate)."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _clip(xp, ix, size):
    """Clamp into [0, size - 1]; the derivative is 0 where clamped (PyTorch's clip_coordinates_set_grad)."""
    inside = (ix >= 0) & (ix <= size - 1)
    return xp.clip(ix, 0, size - 1), inside.astype(ix.dtype)


def _reflect(xp, ix, twice_low, twice_high):
    """Reflect into [low, high] (given doubled, as PyTorch's reflect_coordinates_set_grad), and
    the derivative, +1 or -1 by how many reflections it took."""
    if twice_low == twice_high:
        return xp.zeros_like(ix), xp.zeros_like(ix)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    ix = ix - low
    sign = xp.where(ix < 0, -1, 1).astype(ix.dtype)
    ix = xp.abs(ix)
    extra, flips = xp.fmod(ix, span), xp.floor(ix / span)
    even = flips % 2 == 0
    return xp.where(even, extra + low, span - extra + low), xp.where(even, sign, -sign)


def source_index(xp, coord, size, padding_mode, align_corners):
    """The pixel coordinate to read for normalised `coord` along a dim of `size` pixels, with
    the padding mode applied, and its derivative with respect to coord."""
    ix, d = _unnormalise(coord, size, align_corners)
    d = xp.full(ix.shape, d, dtype=ix.dtype)
    if padding_mode == "border":
        ix, m = _clip(xp, ix, size)
        d = d * m
    elif padding_mode == "reflection":
        ix, m = _reflect(xp, ix, 0, 2 * (size - 1)) if align_corners else _reflect(xp, ix, -1, 2 * size - 1)
        ix, m2 = _clip(xp, ix, size)
        d = d * m * m2
    return ix, d


def _taps(xp, ixs, sizes, mode):
    """The pixels one output pixel reads: for each, its flat position in the input, its weight
    (0 outside the input) and the weight's derivative along each dim."""
    nd = len(sizes)
    if mode == "nearest":
        near = [xp.rint(ix) for ix in ixs]  # (half to even, as PyTorch's nearbyint)
        corners = [(near, [1] * nd, [xp.ones_like(ix) for ix in ixs])]
    else:
        low = [xp.floor(ix) for ix in ixs]
        frac = [ix - lo for ix, lo in zip(ixs, low)]
        corners = []
        for bits in itertools.product((0, 1), repeat=nd):  # the 2 (4, 8) pixels around the point
            pos = [lo + b for lo, b in zip(low, bits)]
            corners.append((pos, [1 if b else -1 for b in bits], [f if b else 1 - f for f, b in zip(frac, bits)]))
    taps = []
    for pos, signs, factors in corners:
        inside = 1
        for p, n in zip(pos, sizes):
            inside = inside & (p >= 0) & (p <= n - 1)
        flat = 0
        for p, n in zip(pos, sizes):
            flat = flat * n + xp.clip(p, 0, n - 1).astype(xp.int64)
        weight = math.prod(factors) * inside
        if mode == "nearest":
            slopes = [xp.zeros_like(weight) for _ in range(nd)]  # (a step function: no gradient to the grid)
        else:
            slopes = [s * math.prod(f for r, f in enumerate(factors) if r != q) * inside for q, s in enumerate(signs)]
        taps.append((flat, weight, slopes))
    return taps


def _cubic(xp, t):
    """The 4 weights of the pixels at offsets -1, 0, 1, 2 from floor(ix), t = ix - floor(ix), and
    their derivatives in t: Keys' cubic convolution with A = -0.75, as PyTorch's bicubic."""
    a = -0.75
    near = lambda x: ((a + 2) * x - (a + 3)) * x * x + 1  # |x| <= 1  # noqa: E731
    far = lambda x: ((a * x - 5 * a) * x + 8 * a) * x - 4 * a  # 1 < |x| < 2  # noqa: E731
    d_near = lambda x: (3 * (a + 2) * x - 2 * (a + 3)) * x  # noqa: E731
    d_far = lambda x: (3 * a * x - 10 * a) * x + 8 * a  # noqa: E731
    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    slopes = [d_far(t + 1), d_near(t), -d_near(1 - t), -d_far(2 - t)]
    return weights, slopes


def _bicubic_taps(xp, ixs, sizes, padding_mode, align_corners):
    """The 16 pixels around each point (offsets -1..2 along each dim), weighted by the cubic
    weights. The padding mode moves each pixel (not the point): border clamps it into the image,
    reflection mirrors it; with zeros a pixel outside reads 0."""
    per_dim = []
    for ix, n in zip(ixs, sizes):
        low = xp.floor(ix)
        weights, slopes = _cubic(xp, ix - low)
        pos = []
        for k in range(4):
            p = low - 1 + k
            if padding_mode == "border":
                p = xp.clip(p, 0, n - 1)
            elif padding_mode == "reflection":
                p = _reflect(xp, p, 0, 2 * (n - 1))[0] if align_corners else _reflect(xp, p, -1, 2 * n - 1)[0]
                p = xp.clip(p, 0, n - 1)
            pos.append(p)
        per_dim.append((pos, weights, slopes))
    taps = []
    for ks in itertools.product(range(4), repeat=len(sizes)):
        inside, flat = 1, 0
        for (pos, _, _), k, n in zip(per_dim, ks, sizes):
            inside = inside & (pos[k] >= 0) & (pos[k] <= n - 1)
            flat = flat * n + xp.clip(pos[k], 0, n - 1).astype(xp.int64)
        factors = [w[k] for (_, w, _), k in zip(per_dim, ks)]
        weight = math.prod(factors) * inside
        slopes = [s[k] * math.prod(f for r, f in enumerate(factors) if r != q) * inside
                  for q, ((_, _, s), k) in enumerate(zip(per_dim, ks))]
        taps.append((flat, weight, slopes))
    return taps


class GridSample(Primitive):
    """out[n, c, p] = sum over the pixels around grid[n, p] of weight * input[n, c, pixel].

    forward:  gather the 2 (4, 8) pixels around each grid point, weighted (bilinear) or the nearest
    backward: d input = scatter-add of weight * g; d grid = sum over c of g * input[pixel] * d weight
    """
    _node_name = "GridSampler2DBackward0"

    @staticmethod
    def forward(ctx, input, grid, *, mode, padding_mode, align_corners):  # noqa: A002
        xp = input._device.xp
        n, c, *sizes = input.shape
        nd = len(sizes)
        points = grid._data.reshape(n, -1, nd)  # (N, P, nd): (x, y[, z]) per output pixel
        # coordinate k of a point indexes spatial dim nd-1-k: reorder them to the input's dims
        if mode == "bicubic":  # (the padding mode applies to each of the 16 pixels read, in _bicubic_taps)
            found = [_unnormalise(points[:, :, nd - 1 - q], sizes[q], align_corners) for q in range(nd)]
            taps = _bicubic_taps(xp, [ix for ix, _ in found], sizes, padding_mode, align_corners)
        else:
            found = [source_index(xp, points[:, :, nd - 1 - q], sizes[q], padding_mode, align_corners)
                     for q in range(nd)]
            taps = _taps(xp, [ix for ix, _ in found], sizes, mode)
        flat_in = input._data.reshape(n, c, -1)
        out = 0
        for flat, weight, _ in taps:
            out = out + xp.take_along_axis(flat_in, flat[:, None, :], axis=2) * weight[:, None, :]
        ctx.taps, ctx.d = taps, [d for _, d in found]
        ctx.save_for_backward(input)
        return xp.ascontiguousarray(out.astype(input._data.dtype, copy=False)).reshape((n, c) + grid.shape[1:-1])

    @staticmethod
    def backward(ctx, grad):
        from .._tensor import Tensor
        (input,) = ctx.saved_tensors
        xp = grad._device.xp
        n, c, *sizes = input.shape
        nd = len(sizes)
        g = grad._data.reshape(n, c, -1)  # (N, C, P)
        gx = gg = None
        if ctx.needs_input_grad[0]:
            flat_gx = xp.zeros(input._data.size, dtype=g.dtype)
            base = (xp.arange(n * c) * math.prod(sizes)).reshape(n, c, 1)
            for flat, weight, _ in ctx.taps:
                pos = (flat[:, None, :] + base).reshape(-1)
                index_add_flat(xp, flat_gx, pos, (g * weight[:, None, :]).reshape(-1))
            gx = Tensor._make(flat_gx.reshape(input.shape), grad._device)
        if ctx.needs_input_grad[1]:
            flat_in = input._data.reshape(n, c, -1)
            per_dim = [0] * nd
            for flat, _, slopes in ctx.taps:
                seen = (xp.take_along_axis(flat_in, flat[:, None, :], axis=2) * g).sum(axis=1)  # (N, P)
                for q in range(nd):
                    per_dim[q] = per_dim[q] + seen * slopes[q]
            # back to the grid's order (x, y[, z]), through the unnormalisation and padding
            cols = [per_dim[nd - 1 - k] * ctx.d[nd - 1 - k] for k in range(nd)]
            shape = (n,) + tuple(grad.shape[2:]) + (nd,)
            gg = Tensor._make(xp.stack(cols, axis=-1).astype(g.dtype, copy=False).reshape(shape), grad._device)
        return gx, gg


class GridSample3d(GridSample):
    _node_name = "GridSampler3DBackward0"
