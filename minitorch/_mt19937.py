"""The Mersenne Twister (MT19937), run exactly as PyTorch's CPU generator runs it.

The generator's whole state is 624 32-bit words plus a read position. Each output word is a
state word passed through a fixed bit "tempering"; when all 624 have been read, the state is
"twisted" into the next 624 in one pass. Both steps are plain bit operations: `twist` and
`temper` below write them with NumPy on whole arrays. For speed the engine lets NumPy's own
MT19937 (the same recurrence, in C) do the stepping, from the state PyTorch seeds.

PyTorch's engine keeps `left` (words left before the next twist, plus one) and `next` (the
index of the next word to read); they are part of `get_rng_state()`, so they are kept here in
the same form.
"""
from __future__ import annotations

import numpy as np

N, M = 624, 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)


def seeded_state(seed):
    """The 624 words MT19937 starts from (Matsumoto and Nishimura's init_genrand); PyTorch
    seeds with the low 32 bits of the 64-bit seed."""
    words = [seed & 0xFFFFFFFF]
    for j in range(1, N):
        prev = words[-1]
        words.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
    return np.array(words, dtype=np.uint32)


def _mix(u, v):
    y = (u & _UPPER) | (v & _LOWER)
    return (y >> np.uint32(1)) ^ ((v & np.uint32(1)) * _MATRIX_A)


def twist(mt):
    """The next 624 words. Word i needs words i, i+1 and i+397 (mod 624), the last of them
    already renewed once i >= 227: so the pass splits into blocks of 227 that only read
    words an earlier block finished."""
    new = np.empty_like(mt)
    new[:227] = mt[397:] ^ _mix(mt[:227], mt[1:228])
    new[227:454] = new[:227] ^ _mix(mt[227:454], mt[228:455])
    new[454:623] = new[227:396] ^ _mix(mt[454:623], mt[455:624])
    new[623] = new[396] ^ _mix(mt[623], new[0])
    return new


def temper(y):
    """MT19937's output transform, applied to an array of state words."""
    y = y ^ (y >> np.uint32(11))
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    return y ^ (y >> np.uint32(18))


class MT19937:
    """PyTorch's engine: `words(n)` gives the next n 32-bit outputs, as n calls of its
    `engine_()` would, and `seed`, `state`, `left`, `next` are what its state records.

    The words come from NumPy's MT19937 bit generator: the same recurrence, in C, given our
    own seeded state (NumPy seeds differently, so only its stepping is used). PyTorch reads
    state[next : next + left - 1] before it twists again; those words, when a state is loaded,
    are served first ("head"), then NumPy continues from the twist on.
    """

    __slots__ = ("seed", "_bg", "_head", "_head_next", "_stepped")

    def __init__(self, seed=5489):
        self.seed = seed
        self.load(seeded_state(seed), left=1, next_=0)  # PyTorch twists before its first output

    def load(self, state, left, next_):
        state = np.asarray(state, dtype=np.uint32)
        if next_ + left - 1 > N:
            raise RuntimeError("Invalid mt19937 state")
        self._head = temper(state[next_:next_ + left - 1].copy())
        self._head_next = next_
        self._bg = np.random.MT19937()
        raw = self._bg.state
        raw["state"] = {"key": state.copy(), "pos": N}  # pos N: twist before the next word
        self._bg.state = raw
        self._stepped = False

    @property
    def state(self):
        return self._bg.state["state"]["key"].astype(np.uint32)

    @property
    def left(self):
        if self._stepped:
            return N + 1 - self._bg.state["state"]["pos"]
        return len(self._head) + 1

    @property
    def next(self):
        return self._bg.state["state"]["pos"] if self._stepped else self._head_next

    def words(self, n):
        """The next n outputs (32-bit values, held in a uint64 array, as NumPy returns them)."""
        take = min(n, len(self._head))
        head, self._head = self._head[:take], self._head[take:]
        self._head_next += take
        if n == take:
            return head.astype(np.uint64)
        self._stepped = True
        rest = self._bg.random_raw(n - take)
        return np.concatenate([head.astype(np.uint64), rest]) if take else rest

    def words64(self, n):
        """n 64-bit outputs: PyTorch's random64() joins two draws, the first as the high half."""
        w = self.words(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]
