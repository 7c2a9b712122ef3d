"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional, batch_first, packed
sequences) and their single-step cells, composed from tensor ops.

One step of each cell, with gates computed from the input x and the previous hidden state h
(PyTorch's gate order in the stacked weights):

    RNN:   h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)                    (or relu)
    LSTM:  i, f, g, o = chunks of (x W_ih^T + b_ih + h W_hh^T + b_hh)
           c' = sigmoid(f) * c + sigmoid(i) * tanh(g);   h' = sigmoid(o) * tanh(c')
    GRU:   r, z, n from the input and hidden parts gi, gh:
           r = sigmoid(gi_r + gh_r);  z = sigmoid(gi_z + gh_z);  n = tanh(gi_n + r * gh_n)
           h' = n + z * (h - n)

A layer runs the cell over the time steps (the input part x W_ih^T + b_ih for all steps at
once); a bidirectional layer runs a second cell from the last step back and concatenates the
two outputs; layers stack, with dropout between them while training. On the CPU an LSTM layer is
recorded as one node, as PyTorch's kernel records it (see _LSTMLayer).
"""
from __future__ import annotations

import math
import numbers
import warnings

from .. import _dtype, _factories
from .._ops.join import cat, stack
from ..autograd import Function, enable_grad, is_grad_enabled
from ..autograd import grad as _autograd_grad
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# ---- one step of each cell ------------------------------------------------------------------------

def _rnn_step(gi, state, w_hh, b_hh, w_hr, relu):
    h = F.linear(state, w_hh, b_hh) + gi
    return (h.relu() if relu else h.tanh()),


def _lstm_step(gi, state, w_hh, b_hh, w_hr, relu):
    h, c = state
    i, f, g, o = (F.linear(h, w_hh, b_hh) + gi).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _gru_step(gi, state, w_hh, b_hh, w_hr, relu):
    h = state
    gi_r, gi_z, gi_n = gi.chunk(3, 1)
    gh_r, gh_z, gh_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r, z = (gh_r + gi_r).sigmoid(), (gh_z + gi_z).sigmoid()
    n = (gi_n + gh_n * r).tanh()
    return ((h - n) * z + n),


_STEPS = {"RNN_TANH": _rnn_step, "RNN_RELU": _rnn_step, "LSTM": _lstm_step, "GRU": _gru_step}


def _run_direction(mode, seq, state, weights, batch_sizes, packed, reverse):
    """One direction of one layer over a sequence: (T, B, F), or packed (sum of B_t, F) where
    only the first B_t sequences are still running at step t. Returns the outputs per step
    and the final state."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    step = _STEPS[mode]
    state = list(state)  # (h,) or (h, c), each (B, H)
    gi = F.linear(seq, w_ih, b_ih)  # the input part of every step at once
    gis = gi.split(batch_sizes, 0) if packed else gi.unbind(0)
    outs = [None] * len(gis)
    order = range(len(gis) - 1, -1, -1) if reverse else range(len(gis))
    for t in order:
        b = batch_sizes[t]
        active = [s[:b] for s in state]
        new = step(gis[t], active[0] if len(active) == 1 else tuple(active), w_hh, b_hh, w_hr, mode == "RNN_RELU")
        state = [n if s.shape[0] == b else cat([n, s[b:]], 0) for n, s in zip(new, state)]
        outs[t] = new[0]
    return outs, state


class _LSTMLayer(Function):
    """One direction of one LSTM layer, recorded as one node, as PyTorch's CPU kernel (oneDNN)
    records it: programs print `grad_fn=<MkldnnRnnLayerBackward0>`, and its inputs are the
    layer's (input, w_ih, w_hh, b_ih, b_hh, h0, c0). Forward runs the steps above without
    recording them; backward runs them again, recorded, and differentiates that: the same
    gradients as the steps recorded one by one (second derivatives included)."""
    _node_name = "MkldnnRnnLayerBackward0"

    @staticmethod
    def forward(ctx, seq, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
        ctx.save_for_backward(seq, w_ih, w_hh, b_ih, b_hh, h0, c0)
        ctx.reverse = reverse
        return _lstm_layer(seq, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse)

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        need = ctx.needs_input_grad[:7]
        create = is_grad_enabled()  # (a backward with create_graph=True: the recomputation links to the inputs)
        inputs = [t if t is None or create else t.detach().requires_grad_(n) for t, n in zip(ctx.saved_tensors, need)]
        with enable_grad():
            outs = _lstm_layer(*inputs, ctx.reverse)
        wrt = [t for t, n in zip(inputs, need) if n]
        grads = iter(_autograd_grad(outs, wrt, (g_out, g_h, g_c), create_graph=create, allow_unused=True))
        return (*(next(grads) if n else None for n in need), None)


def _lstm_layer(seq, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
    outs, (h, c) = _run_direction("LSTM", seq, (h0, c0), (w_ih, w_hh, b_ih, b_hh, None), [seq.shape[1]] * seq.shape[0],
                                  False, reverse)
    return stack(outs, 0), h, c


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the stacked weights, the checks, and the layer loop."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=3)
        for name, v in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(v, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(v).__name__}")
        for name, v in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(v, int):
                raise TypeError(f"{name} should be of type int, got: {type(v).__name__}")
            if v <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gate = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        dirs = 2 if bidirectional else 1
        kw = dict(device=device, dtype=dtype)
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(dirs):
                layer_in = input_size if layer == 0 else real_hidden * dirs
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate, layer_in)), ("weight_hh", (gate, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for base, shape in shapes:
                    name = f"{base}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_factories.empty(*shape, **kw)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """A no-op here (PyTorch packs the weights for cuDNN)."""

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def _layer_weights(self, layer, direction):
        suffix = "_reverse" if direction == 1 else ""
        get = self._parameters.get
        return (get(f"weight_ih_l{layer}{suffix}"), get(f"weight_hh_l{layer}{suffix}"),
                get(f"bias_ih_l{layer}{suffix}"), get(f"bias_hh_l{layer}{suffix}"),
                get(f"weight_hr_l{layer}{suffix}"))

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---- forward --------------------------------------------------------------------------------
    def _check_input(self, x, packed):
        w = self._flat_weights[0]
        if x.dtype is not w.dtype:
            raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype ({w.dtype}). Convert input: "
                             f"input.to({w.dtype}), or convert model: model.to({x.dtype})")
        expected = 2 if packed else 3
        if x.ndim != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {x.ndim}")
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{x.shape[-1]}")

    def _check_hidden(self, hx, batch, hidden, msg="Expected hidden size {}, got {}"):
        expected = (self.num_layers * (2 if self.bidirectional else 1), batch, hidden)
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _zeros(self, batch, size, like):
        return _factories.zeros(self.num_layers * (2 if self.bidirectional else 1), batch, size, dtype=like.dtype,
                                device=like.device)

    def _prepare(self, input, hx, n_states):  # noqa: A002
        """Normalise the call: (steps, batch_sizes, states, how to undo) from input and hx."""
        packed = isinstance(input, PackedSequence)
        sorted_idx = unsorted_idx = sizes = None
        if n_states == 2 and hx is not None:  # PyTorch's LSTM reads hx[0] and hx[1] (a tuple, a list, a tensor)
            hx = (hx[0], hx[1])
        if packed:
            x, sizes, sorted_idx, unsorted_idx = input
            batch_sizes = [int(b) for b in sizes.tolist()]
            batched = True
        else:
            if input.ndim not in (2, 3):
                raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D tensor "
                                 "instead")
            batched = input.ndim == 3
            x = input if batched else input.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                want = 3 if batched else 2
                for h in (hx if isinstance(hx, tuple) else (hx,)):
                    if h.ndim != want:
                        kind = "batched 3-D" if batched else "unbatched 2-D"
                        raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {h.ndim}-D tensor"
                                           if n_states == 1 else
                                           f"For {kind} input, hx and cx should also be {want}-D but got "
                                           f"({hx[0].ndim}-D, {hx[1].ndim}-D) tensors")
                if not batched:
                    hx = tuple(h.unsqueeze(1) for h in hx) if isinstance(hx, tuple) else hx.unsqueeze(1)
            if self.batch_first:
                x = x.transpose(0, 1)
            batch_sizes = [x.shape[1]] * x.shape[0]
        self._check_input(x, packed)
        batch = batch_sizes[0] if batch_sizes else 0
        return x, batch_sizes, batch, hx, (packed, batched, sorted_idx, unsorted_idx, sizes)

    def _run(self, x, batch_sizes, states, packed):
        """Every layer and direction; states: per state kind, a (layers*dirs, B, H) tensor."""
        dirs = 2 if self.bidirectional else 1
        finals = [[] for _ in states]
        seq = x
        # PyTorch's CPU LSTM runs each layer as one oneDNN kernel (float32, no projection, not packed)
        fused = (self.mode == "LSTM" and not packed and self.proj_size == 0 and x.dtype is _dtype.float32
                 and x.device.type == "cpu")
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                if fused:
                    w_ih, w_hh, b_ih, b_hh, _ = self._layer_weights(layer, d)
                    out, *last = _LSTMLayer.apply(seq, w_ih, w_hh, b_ih, b_hh, states[0][k], states[1][k], d == 1)
                else:
                    steps, last = _run_direction(self.mode, seq, [s[k] for s in states],
                                                 self._layer_weights(layer, d), batch_sizes, packed, reverse=d == 1)
                    out = cat(steps, 0) if packed else stack(steps, 0)
                outs.append(out)
                for f, s in zip(finals, last):
                    f.append(s)
            seq = cat(outs, -1) if dirs == 2 else outs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                seq = F.dropout(seq, self.dropout, True)
        return seq, [stack(f, 0) for f in finals]

    def _finish(self, out, finals, how):
        packed, batched, sorted_idx, unsorted_idx, batch_sizes = how
        if packed:
            if unsorted_idx is not None:
                finals = [f.index_select(1, unsorted_idx) for f in finals]
            return PackedSequence(out, batch_sizes, sorted_idx, unsorted_idx), finals
        if self.batch_first:  # (PyTorch's RNN and GRU kernels transpose their result in place, LSTM's not)
            out = out.transpose(0, 1) if self.mode == "LSTM" else out.transpose_(0, 1)
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
            finals = [f.squeeze(1) for f in finals]
        return out, finals

    def _sorted(self, h, how):
        sorted_idx = how[2]
        return h if sorted_idx is None else h.index_select(1, sorted_idx)


class RNN(RNNBase):
    """An Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh) (or relu)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self_nonlin = args[3]
            args = args[:3] + args[4:]
        else:
            self_nonlin = kwargs.pop("nonlinearity", "tanh")
        if self_nonlin == "tanh":
            mode = "RNN_TANH"
        elif self_nonlin == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self_nonlin}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = self_nonlin

    def forward(self, input, hx=None):  # noqa: A002
        x, batch_sizes, batch, hx, how = self._prepare(input, hx, 1)
        if hx is None:
            hx = self._zeros(batch, self.hidden_size, x)
        else:
            hx = self._sorted(hx, how)
        self._check_hidden(hx, batch, self.hidden_size)
        out, (h,) = self._finish(*self._run(x, batch_sizes, [hx], how[0]), how)
        return out, h


class LSTM(RNNBase):
    """Long short-term memory: a cell state c carried alongside h, updated through gates."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):  # noqa: A002
        x, batch_sizes, batch, hx, how = self._prepare(input, hx, 2)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0, c0 = self._zeros(batch, real_hidden, x), self._zeros(batch, self.hidden_size, x)
        else:
            h0, c0 = (self._sorted(h, how) for h in hx)
        self._check_hidden(h0, batch, real_hidden)
        self._check_hidden(c0, batch, self.hidden_size, "Expected hidden[1] size {}, got {}")
        out, (h, c) = self._finish(*self._run(x, batch_sizes, [h0, c0], how[0]), how)
        return out, (h, c)


class GRU(RNNBase):
    """Gated recurrent unit: a reset and an update gate decide how much of h to keep."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    forward = RNN.forward


# ---- cells: one time step ------------------------------------------------------------------------

class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = dict(device=device, dtype=dtype)
        self.weight_ih = Parameter(_factories.empty(num_chunks * hidden_size, input_size, **kw))
        self.weight_hh = Parameter(_factories.empty(num_chunks * hidden_size, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(_factories.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(_factories.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.__dict__.get("bias", True) is not True:
            s += f", bias={self.bias}"
        if self.__dict__.get("nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _batch(self, input, hx, op):  # noqa: A002
        if input.ndim not in (1, 2):
            raise ValueError(f"{op}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        for h in (hx if isinstance(hx, tuple) else (hx,)):
            if h is not None and h.ndim not in (1, 2):
                raise ValueError(f"{op}: Expected hidden to be 1D or 2D, got {h.ndim}D instead")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        if hx is not None and not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if isinstance(hx, tuple) else hx.unsqueeze(0)
        if x.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {x.shape[1]} expected {self.input_size}")
        return x, hx, batched

    def _zero_state(self, x):
        return _factories.zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)

    def _gi(self, x):
        return F.linear(x, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):  # noqa: A002
        x, hx, batched = self._batch(input, hx, "RNNCell")
        h = self._zero_state(x) if hx is None else hx
        (h,) = _rnn_step(self._gi(x), h, self.weight_hh, self.bias_hh, None, self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):  # noqa: A002
        x, hx, batched = self._batch(input, hx, "LSTMCell")
        state = (self._zero_state(x), self._zero_state(x)) if hx is None else tuple(hx)
        h, c = _lstm_step(self._gi(x), state, self.weight_hh, self.bias_hh, None, False)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):  # noqa: A002
        x, hx, batched = self._batch(input, hx, "GRUCell")
        h = self._zero_state(x) if hx is None else hx
        (h,) = _gru_step(self._gi(x), h, self.weight_hh, self.bias_hh, None, False)
        return h if batched else h.squeeze(0)
