"""Variable-length sequences for the recurrent layers: padding and packing.

A batch of sequences of different lengths is either *padded* to the longest, (T, B, *), or
*packed*: sorted by length (longest first) and stored time step by time step, with
batch_sizes[t] = how many sequences are still running at step t. An RNN given a packed
sequence never computes on the padding.
"""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable

from ... import _dtype
from ..._factories import arange, full, tensor
from ..._ops.join import cat, stack
from ..._tensor import Tensor


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """data (sum of lengths, *): the steps of every sequence, time-major; batch_sizes[t]: how
    many sequences have a step t; sorted_indices / unsorted_indices: the sort by length (None
    when the input was already sorted)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        dev = data.device
        idx = [None if t is None else t.to(dev) for t in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *idx)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def float(self):  # noqa: A003
        return self.to(dtype=_dtype.float32)

    def double(self):
        return self.to(dtype=_dtype.float64)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The inverse of a permutation (1-D indices): out[permutation[i]] = i. None gives None.
    (It turns a PackedSequence's sorted_indices into its unsorted_indices.)"""
    if permutation is None:
        return None
    from ..._factories import arange, empty_like
    return empty_like(permutation).scatter_(0, permutation, arange(permutation.numel(), device=permutation.device))


def _invert(perm):
    xp = perm._device.xp
    inv = xp.empty_like(perm._data)
    inv[perm._data] = xp.arange(perm._data.shape[0])
    return Tensor._make(inv, perm._device)


def _host_lengths(lengths):
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):  # noqa: A002
    """Pack a padded batch (T, B, *) (or (B, T, *) with batch_first) of the given lengths."""
    lens = _host_lengths(lengths)
    x = input.transpose(0, 1) if batch_first else input
    if len(lens) != x.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={x.shape[1]})")
    if any(n <= 0 for n in lens):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                               "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])  # stable: ties keep their order
        sorted_indices = tensor(order, dtype=_dtype.int64, device=input.device)
        x = x.index_select(1, sorted_indices)
        lens = [lens[i] for i in order]
    if lens[0] > x.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to the maximum length, but got "
                           f"{x.shape[0]} < {lens[0]}")
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    data = cat([x[t, :b] for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, tensor(batch_sizes, dtype=_dtype.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded batch, lengths), in the original order."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    b = batch_sizes[0]
    rows, start = [], 0
    for t in range(steps):
        n = batch_sizes[t] if t < len(batch_sizes) else 0
        step = data[start:start + n]
        start += n
        if n < b:
            fill = full((b - n,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
            step = cat([step, fill], 0)
        rows.append(step)
    padded = stack(rows, 0)  # (T, B, *)
    lengths = [sum(1 for s in batch_sizes if s > i) for i in range(b)]
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        order = sequence.unsorted_indices.tolist()
        lengths = [lengths[i] for i in order]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, tensor(lengths, dtype=_dtype.int64)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shapes (L_i, *) into (T, B, *) (or (B, T, *)), padding to the longest."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    seqs = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    longest = max(s.shape[0] for s in seqs)
    rows = []
    for s in seqs:
        gap = longest - s.shape[0]
        if gap:
            fill = full((gap,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length (new tensors, not views).

    As PyTorch's, it turns a (T, B, *) batch to (B, T, *) in place: the caller's tensor is
    left batch-first."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = arange(padded_sequences.shape[1], device=lengths.device)
    return [seq[steps < n] for seq, n in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
