"""F.pad: add (or, with negative amounts, remove) border around the last dims of a tensor.

    pad(x, (left, right))                         the last dim
    pad(x, (left, right, top, bottom))            the last two (the last dim comes first)
    mode='constant' fills with `value`; 'reflect' mirrors the border (without repeating the
    edge); 'replicate' repeats the edge; 'circular' wraps around.

Constant padding is one primitive whose backward is the opposite padding (a crop). The other
modes are an index map per padded dim (output position -> input position): forward gathers
along it, backward adds every gradient back to the position it was read from.

The result is laid out as PyTorch's kernels lay it out (nn/_layout.py): channels-last for an
input stored channels-last, row-major otherwise; a pad that only crops is a copy of the crop
that keeps its layout (as `clone()`); circular padding is always row-major.
"""
from __future__ import annotations

from .._ops._prim import Primitive
from . import _kernels
from .._ops.common import elem_strides, like_strides, relayout
from .._ops.index import index_add_flat
from ._layout import CONTIGUOUS, in_format, suggest_memory_format


class ConstantPadNd(Primitive):
    """forward: crop the negative amounts, then pad the positive ones with `value`.
    backward: the same with every amount negated (the gradient of the border is zero)."""
    _node_name = "ConstantPadNdBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, x, *, pads, value):
        xp = x._device.xp
        ctx.pads = pads
        a = x._data[tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(pads, x.shape))]
        if all(lo <= 0 and hi <= 0 for lo, hi in pads):  # only a crop: PyTorch clones it
            return relayout(a, like_strides(a.shape, elem_strides(a)), xp, copy=True)
        out = xp.pad(a, [(max(lo, 0), max(hi, 0)) for lo, hi in pads], mode="constant", constant_values=value)
        return in_format(out, suggest_memory_format(x), xp)

    @staticmethod
    def backward(ctx, grad):
        return (ConstantPadNd.apply(grad, pads=tuple((-lo, -hi) for lo, hi in ctx.pads), value=0),)


def _source(xp, n, lo, hi, mode):
    """For one dim of size n padded by (lo, hi): the input position each output position reads."""
    if mode == "circular":  # PyTorch crops first (negative amounts), then wraps the rest
        start, kept = max(-lo, 0), n - max(-lo, 0) - max(-hi, 0)
        return xp.arange(-max(lo, 0), kept + max(hi, 0)) % kept + start
    i = xp.arange(-lo, n + hi)
    if mode == "reflect":
        return xp.where(i < 0, -i, xp.where(i >= n, 2 * (n - 1) - i, i))
    return xp.clip(i, 0, n - 1)  # replicate


def _along(axis, start, stop):
    """The index that takes positions start:stop of dim `axis` (all of the dims before it)."""
    return (slice(None),) * axis + (slice(start, stop),)


def _pad_by_slices(xp, a, sides, mode):
    """a padded by `sides` ((axis, lo, hi), each amount >= 0) in `mode`: a is copied once into the
    middle of the result, then the borders are filled dim after dim from slices of the result
    itself (the values the index maps gather, in one pass over the data instead of one per dim)."""
    shape, middle = list(a.shape), [slice(None)] * a.ndim
    for axis, lo, hi in sides:
        shape[axis] += lo + hi
        middle[axis] = slice(lo, lo + a.shape[axis])
    out = xp.empty(shape, dtype=a.dtype)
    out[tuple(middle)] = a
    for axis, lo, hi in sides:
        n = a.shape[axis]
        if mode == "circular":
            low, high = out[_along(axis, n, n + lo)], out[_along(axis, lo, lo + hi)]
        elif mode == "replicate":
            low, high = out[_along(axis, lo, lo + 1)], out[_along(axis, lo + n - 1, lo + n)]
        else:  # reflect: mirrored, without repeating the edge
            low = xp.flip(out[_along(axis, lo + 1, 2 * lo + 1)], axis)
            high = xp.flip(out[_along(axis, lo + n - 1 - hi, lo + n - 1)], axis)
        out[_along(axis, 0, lo)] = low
        out[_along(axis, lo + n, lo + n + hi)] = high
    return out


class IndexPad(Primitive):
    """out = x gathered along each padded dim by its index map (reflect, replicate, circular).
    backward: the adjoint, IndexPadAdd."""
    reads_input_in_backward = False
    keeps_input = False  # PyTorch's reflection / replication nodes keep the input (a second backward is refused)
    mode = None

    @classmethod
    def forward(cls, ctx, x, *, maps, sides=None):
        xp = x._device.xp
        ctx.maps, ctx.in_shape = maps, tuple(x.shape)
        ctx.fmt = fmt = suggest_memory_format(x) if cls.keeps_input else CONTIGUOUS  # (circular: always row-major)
        if cls.keeps_input:
            ctx.save_for_backward(x)
        else:
            ctx._keeps_values = True  # (PyTorch's circular pad, CopySlices over narrowed copies, is freed by backward)
        if sides is not None and all(lo >= 0 and hi >= 0 for _, lo, hi in sides):
            return in_format(_pad_by_slices(xp, x._data, sides, cls.mode), fmt, xp)
        out = x._data  # (a negative amount crops: the index maps say what is read)
        for axis, idx in maps:
            out = xp.take(out, idx, axis=axis)
        return in_format(out, fmt, xp)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018  (refused once freed, or when a kept input was changed in place)
        return (IndexPadAdd.apply(grad, maps=ctx.maps, in_shape=ctx.in_shape, fmt=ctx.fmt),)


class IndexPadAdd(Primitive):
    """The adjoint of IndexPad: each gradient is added to the input position it was read from."""
    _node_name = "IndexPadBackwardBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, grad, *, maps, in_shape, fmt=CONTIGUOUS):
        xp = grad._device.xp
        ctx.maps = maps
        out = grad._data
        for axis, idx in reversed(maps):
            moved = xp.moveaxis(out, axis, 0)
            acc = xp.zeros((in_shape[axis],) + moved.shape[1:], dtype=out.dtype)
            index_add_flat(xp, acc, idx, moved)
            out = xp.moveaxis(acc, 0, axis)
        return in_format(out, fmt, xp)

    @staticmethod
    def backward(ctx, grad):
        return (_MODES[None].apply(grad, maps=ctx.maps),)


def _named(mode, nd):
    names = {"reflect": f"ReflectionPad{nd}DBackward0", "replicate": f"ReplicationPad{nd}DBackward0",
             "circular": "CopySlices", None: "IndexPadBackward0"}
    return type(names[mode].replace("Backward0", ""), (IndexPad,),
                {"_node_name": names[mode], "keeps_input": mode in ("reflect", "replicate"), "mode": mode})


# one subclass per PyTorch node name (ReflectionPad2DBackward0, ...)
_MODES = {(mode, nd): _named(mode, nd) for mode in ("reflect", "replicate", "circular") for nd in (1, 2, 3)}
_MODES[None] = _named(None, 0)

_COMBINATIONS = ("Supported combinations for non-constant padding:\n"
                 "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                 "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                 "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


def _check_fits(xp, dtype, value):
    """PyTorch's checked conversion of the fill value into an integer dtype."""
    if dtype.name in _C_NAMES:
        info = xp.iinfo(dtype.np)
        if not info.min <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype.name]} without overflow (pad of a "
                               f"{dtype.name} tensor takes values in [{info.min}, {info.max}])")


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """Pad the last len(pad)//2 dims of `input`; `pad` lists (before, after) pairs starting
    from the last dim."""
    amounts = [int(p) for p in pad]
    if len(amounts) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    nd = len(amounts) // 2
    if nd > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(amounts)} and input of dimension {input.ndim}")
    pairs = [(amounts[2 * i], amounts[2 * i + 1]) for i in range(nd)]  # last dim first
    if mode == "constant":
        full = [(0, 0)] * (input.ndim - nd) + pairs[::-1]
        for (lo, hi), n in zip(full, input.shape):
            if n + lo + hi < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        value = 0 if value is None else value
        _check_fits(input._device.xp, input.dtype, value)
        return ConstantPadNd.apply(input, pads=tuple(full), value=value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if not (nd + 1 <= input.ndim <= nd + 2) or nd > 3:
        raise NotImplementedError(f"Padding size {len(amounts)} is not supported for {input.ndim}D input tensor.\n"
                                  + _COMBINATIONS)
    if mode != "circular":  # PyTorch's reflection / replication kernels take an empty batch, no other empty dim
        batched = input.ndim == nd + 2
        if any(n == 0 for n in input.shape[1 if batched else 0:]):
            raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with possibly 0 batch size and "
                               f"other non-zero dimensions for input, but got: {list(input.shape)}")
    xp = input._device.xp
    maps, sides = [], []
    for i, (lo, hi) in enumerate(pairs):
        axis = input.ndim - 1 - i
        n = input.shape[axis]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {axis} of input "
                               f"{list(input.shape)}")
        if nd == 1 and mode != "circular" and n + lo + hi < 1:
            raise RuntimeError(f"input (W: {n}) is too small. Calculated output W: {n + lo + hi}")
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "circular" and n + lo + hi < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        if mode == "replicate" and n == 0:
            raise RuntimeError(f"Expected input dimension {axis} to be non-empty for replication padding")
        maps.append((axis, _source(xp, n, lo, hi, mode)))
        sides.append((axis, lo, hi))
    if mode != "circular":  # (PyTorch checks the shape first, then the dtype, an empty batch too)
        _kernels.check(f"{'reflection' if mode == 'reflect' else 'replication'}_pad{nd}d", input.dtype,
                       _kernels.NOT_BOOL, "pad")
    return _MODES[(mode, nd)].apply(input, maps=tuple(maps), sides=tuple(sides))
