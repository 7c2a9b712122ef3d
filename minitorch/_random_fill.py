"""The random in-place methods: `t.uniform_()`, `normal_`, `random_`, `bernoulli_`,
`exponential_`, `geometric_`, `cauchy_`, `log_normal_`.

Each draws its values from the generator (`_random.py` says how) and writes them in the
order PyTorch does: the tensor's *memory* order, so a transposed tensor receives the same
stream as its contiguous original, element for element in memory. The checks run before any
draw, so a refused call leaves the generator where it was, as in PyTorch.
"""
from __future__ import annotations

import warnings

import numpy as np

from . import _dtype
from . import _random as R
from ._ops import inplace
from ._tensor import Tensor


def memory_order(shape, strides):
    """The dims from outermost to innermost, as PyTorch's TensorIterator walks an output:
    by stride, and for equal strides the larger dim outside."""
    inner_first = sorted(reversed(range(len(shape))), key=lambda d: (strides[d], shape[d]))
    return tuple(reversed(inner_first))


def arrange(values, shape, order):
    """A host array of `shape` holding `values` (1-D, in walk order) at their places: laid
    out in memory in `order`, so its strides are those of the tensor walked."""
    walked = values.reshape([shape[d] for d in order])
    return walked.transpose(np.argsort(order))


def fill(t, draw, generator, op, overload=0):
    """Write draw(generator, numel) into t in memory order; returns t."""
    inplace.check_inplace(t, op)
    inplace.check_overlap(t, op)
    g = R.generator(generator, t.device)
    host = arrange(draw(g, t.numel()), t.shape, memory_order(t.shape, t.stride()))
    from ._factories import from_numpy
    src = from_numpy(host).to(t._device, t.dtype)

    def fast():
        t._data[...] = src._data
    # recorded like any in-place write: the old values get a zero gradient, under PyTorch's name
    # for the op's overload (NormalBackward0; RandomBackward0/1/2 for random_(from, to)/(to)/())
    return inplace.run_inplace(t, _drawn(op, overload), (src,), {}, fast, op)


_DRAWN = {}


def _drawn(op, overload):
    """The record of a random fill: a copy of drawn values, named as PyTorch names the op."""
    from ._methods import Copy
    name = "".join(w.capitalize() for w in op.strip("_").split("_")) + f"Backward{overload}"
    if name not in _DRAWN:
        _DRAWN[name] = type(name.replace("Backward", "Fill"), (Copy,), {"_node_name": name, "__module__": __name__})
    return _DRAWN[name]


def _num(x):
    """A number as C++ prints a double (what PyTorch's messages show): 2.0 -> 2, 0.1 -> 0.1."""
    return f"{x:g}" if isinstance(x, float) else str(x)


def _not_implemented(kernel, t):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{t.dtype._short}' (it draws floating-point "
                               "values: make the tensor float, e.g. t.float(), or use random_ for integers)")


def _floating(t, kernel):
    if not t.dtype.is_floating_point:
        raise _not_implemented(kernel, t)


# ---- the methods -----------------------------------------------------------------------------

def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    """Fill with U[from, to). (`from` is a Python keyword: pass it positionally or as from_.)"""
    inplace.check_inplace(self, "uniform_")  # (autograd's check first, as in PyTorch)
    from_ = kwargs.pop("from", from_)
    _no_extra(kwargs, "uniform_")
    _floating(self, "check_uniform_bounds")
    _check_uniform_bounds(float(from_), float(to), self.dtype)
    return fill(self, lambda g, n: R.uniform(g, n, self.dtype.np, from_, to), generator, "uniform_")


def _check_uniform_bounds(low, high, dt):
    name, top = _C_NAMES[dt.name], float(np.finfo(dt.np).max)
    for what, v in (("from", low), ("to", high)):
        if not -top <= v <= top:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_num(low)} > "
                           f"to={_num(high)}")
    if high - low > top:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{dt._short}>::max(), but found "
                           f"to={_num(high)} and from={_num(low)} which result in to-from to exceed the limit")


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with N(mean, std^2)."""
    inplace.check_inplace(self, "normal_")  # (autograd's check first, as in PyTorch)
    _check_std(std)
    if self.numel():  # (an empty tensor never reaches PyTorch's kernel, which would refuse integers)
        _floating(self, "normal_kernel_cpu")
    contiguous = self.is_contiguous()
    return fill(self, lambda g, n: R.normal(g, n, self.dtype.np, mean, std, contiguous), generator, "normal_")


def _check_std(std):
    if not std >= 0:  # (NaN too)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")


def random_(self, *args, generator=None, **kwargs):
    """random_(): integers over the dtype's range; random_(to): [0, to);
    random_(from, to): [from, to), with to=None meaning up to the dtype's largest value."""
    inplace.check_inplace(self, "random_")  # (autograd's check first, as in PyTorch)
    low, high, bounded = _random_args(args, kwargs)
    dt = self.dtype
    if not bounded:
        return fill(self, lambda g, n: R.integers_default(g, n, dt.np), generator, "random_", 2)
    only_to = len(args) + len(kwargs) == 1  # random_(to): RandomBackward1
    low, span = _random_range(low, high, dt)
    return fill(self, lambda g, n: R.integers(g, n, span, low, dt.np), generator, "random_", int(only_to))


def _random_args(args, kwargs):
    """PyTorch's three overloads of random_: (), (to), (from, to)."""
    if len(args) > 2 or set(kwargs) - {"from", "to"}:
        raise TypeError("random_() takes (), (to) or (from, to) arguments, plus generator=")
    if not args and not kwargs:
        return 0, None, False
    if len(args) == 1 and not kwargs:
        return 0, int(args[0]), True
    if not args and set(kwargs) == {"to"}:
        return 0, int(kwargs["to"]), True
    named = dict(zip(("from", "to"), args))
    named.update(kwargs)
    to = named.get("to")
    return int(named.get("from", 0)), None if to is None else int(to), True


_C_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
            "int64": "long int", "bool": "bool", "float16": "c10::Half", "float32": "float", "float64": "double"}


def _random_range(low, high, dt):
    """(low, span) for random_(low, high) on dtype dt, with PyTorch's checks and its rounding of
    the bounds to values the float dtype can hold."""
    if high is not None:
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        if dt.is_floating_point:
            low, high = _float_from(low, dt), _float_to(high, dt)
            if low >= high:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                                   f"but got from={low} >= to={high}")
        _check_in_range(low, high - 1, dt)
        return low, high - low
    if low == -(1 << 63):
        return low, 1 << 64
    if dt.is_floating_point:
        top = 1 << (np.finfo(dt.np).nmant + 1)
        low = _float_from(low, dt)
        if low >= top:
            raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                               f"to dtype, but got from={low} > to_inc={top}")
    else:
        top = 1 if dt is _dtype.bool else int(np.iinfo(dt.np).max)
    _check_in_range(low, top, dt)
    return low, top - low + 1


def _float_from(low, dt):
    """PyTorch's update_from: when low + 1 rounds below low in dt, move low up to a representable value."""
    rounded = int(dt.np.type(low + 1))
    if rounded < low:
        n = abs(low + 1).bit_length() - 1
        low = rounded + (1 << (n - np.finfo(dt.np).nmant))
    return low


def _float_to(high, dt):
    rounded = int(dt.np.type(high - 1))
    if rounded >= high:
        n = abs(high - 1).bit_length() - 1
        high = rounded - (1 << (n - np.finfo(dt.np).nmant))
    return high


def _check_in_range(low, high_inclusive, dt):
    name = _C_NAMES[dt.name]
    if dt.is_floating_point:
        digits = np.finfo(dt.np).nmant + 1
        top = float(np.finfo(dt.np).max)
        for what, v in (("from", low), ("to - 1", high_inclusive)):
            if not -top <= v <= top:
                raise RuntimeError(f"{what} is out of bounds for {name}")
        for what, v in (("from", low), ("to - 1", high_inclusive)):
            if not -(1 << digits) <= v <= (1 << digits):
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{name} can support discrete uniform distribution only within this range. This "
                              "warning will become an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=4)
        return
    lo, hi = (0, 1) if dt is _dtype.bool else (int(np.iinfo(dt.np).min), int(np.iinfo(dt.np).max))
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= high_inclusive <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 1 (probability p) or 0; p a number, or a tensor of probabilities broadcast to self."""
    inplace.check_inplace(self, "bernoulli_")  # (autograd's check first, as in PyTorch)
    if isinstance(p, Tensor):
        probs = _probabilities(p, self)
        return fill(self, lambda g, n: R.bernoulli_tensor(g, probs).astype(self.dtype.np), generator, "bernoulli_",
                    1)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return fill(self, lambda g, n: R.bernoulli_scalar(g, n, p).astype(self.dtype.np), generator, "bernoulli_", 2)


def _probabilities(p, t):
    """p broadcast to t's shape, on the host, flattened in the order fill() walks t."""
    if not p.dtype.is_floating_point:
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{p.dtype._short}' (p must "
                                  "hold probabilities: make it float, e.g. p.float())")
    try:
        arr = np.broadcast_to(p.detach().cpu().numpy(), t.shape)
    except ValueError:
        raise RuntimeError(f"bernoulli_: p of shape {list(p.shape)} can't be broadcast to the tensor's shape "
                           f"{list(t.shape)}") from None
    arr = arr.transpose(memory_order(t.shape, t.stride())).ravel()
    if arr.size and not ((arr >= 0) & (arr <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false. (every probability in p "
                           "must lie in [0, 1])")
    return arr


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with Exp(lambd): -log(1 - U) / lambd."""
    inplace.check_inplace(self, "exponential_")  # (autograd's check first, as in PyTorch)
    if not self.dtype.is_floating_point and self.numel():
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self.dtype._short}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return fill(self, lambda g, n: R.cast(R.exponential(g, n, lambd), self.dtype.np), generator, "exponential_")


def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success."""
    inplace.check_inplace(self, "geometric_")  # (autograd's check first, as in PyTorch)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    return fill(self, lambda g, n: R.cast(R.geometric(g, n, p), self.dtype.np), generator, "geometric_")


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    inplace.check_inplace(self, "cauchy_")  # (autograd's check first, as in PyTorch)
    if not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self.dtype._short}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    return fill(self, lambda g, n: R.cast(R.cauchy(g, n, median, sigma), self.dtype.np), generator, "cauchy_")


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    inplace.check_inplace(self, "log_normal_")  # (autograd's check first, as in PyTorch)
    if not self.dtype.is_floating_point and self.numel():
        raise _not_implemented("log_normal_cpu", self)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    return fill(self, lambda g, n: R.cast(R.log_normal(g, n, mean, std), self.dtype.np), generator, "log_normal_")


def dropout_noise(x, keep, shape=None, generator=None):
    """PyTorch's dropout mask for x: an empty_like(x) (or, for the channel dropouts, a new
    tensor of `shape`) filled by bernoulli_(keep), then divided by keep in x's dtype; so its
    entries are 0 or 1/keep."""
    from ._factories import _like_order, from_numpy
    g = R.generator(generator, x.device)
    if shape is None:
        shape, order = tuple(x.shape), _like_order(x)
    else:
        shape, order = tuple(shape), tuple(range(len(shape)))
    n = 1
    for s in shape:
        n *= s
    dt = x.dtype.np
    scale = (np.float32(1) / np.float32(keep)).astype(dt) if dt != np.float64 else 1.0 / keep
    noise = np.where(R.bernoulli_scalar(g, n, keep), dt.type(scale), dt.type(0))
    return from_numpy(arrange(noise, shape, order)).to(x.device)


def _no_extra(kwargs, op):
    if kwargs:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kwargs))}'")


def bernoulli(self, p=None, *, generator=None):
    """A new tensor of 0/1 draws: with probabilities self (p=None), or p for every element."""
    from ._factories import bernoulli as _bernoulli
    return _bernoulli(self, p, generator=generator)


def multinomial(self, num_samples, replacement=False, *, generator=None):
    from ._factories import multinomial as _multinomial
    return _multinomial(self, num_samples, replacement, generator=generator)


for _f in (uniform_, normal_, random_, bernoulli_, exponential_, geometric_, cauchy_, log_normal_, bernoulli,
           multinomial):
    setattr(Tensor, _f.__name__, _f)

