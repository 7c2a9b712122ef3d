"""What the exercises certify is true of PyTorch 2.13: every reference answer (the instructor's
solutions, on the visible cases and on seeded random ones) is what PyTorch itself does, where
PyTorch does it. Where an exercise says it departs from PyTorch (08's two device types, 01's
messages where PyTorch raises a TypeError), the test checks exactly that departure and no other.

Skipped without PyTorch (CI installs it; the course never needs it).
"""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from _answers import answers_of, key_of
from minitorch_course.exercises import get_exercise

torch = pytest.importorskip("torch", reason="the exercises are compared with PyTorch only where it is installed")

pytestmark = [pytest.mark.torch, pytest.mark.timeout(300)]


def cases(name, qid, n_random=100):
    key, q = key_of(name), get_exercise(name).question(qid)
    return [c.args for c in key.cases(q)] + [c.args for c in key.cases(q, [], n_random, "torch")]


def outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return "raise", type(e).__name__, str(e)


def test_01_shape_of_is_torch_tensors_shape_or_error():
    ref = answers_of("01_tensor_shapes")
    for (data,) in cases("01_tensor_shapes", "q1"):
        mine, theirs = outcome(ref.shape_of, data), outcome(lambda d: tuple(torch.tensor(d).shape), data)
        if theirs[0] == "ok" or mine[0] == "ok":
            assert mine == theirs, data
        elif theirs[1] == "TypeError":  # a number where a list is expected, or the reverse: minitorch's words
            assert mine[1] == "ValueError" and ("(got " in mine[2]), (data, mine, theirs)
        else:
            assert mine[1:] == theirs[1:], (data, mine, theirs)


def test_01_from_flat_is_torch_reshape():
    ref = answers_of("01_tensor_shapes")
    for values, shape in cases("01_tensor_shapes", "q2"):
        mine = outcome(ref.from_flat, values, shape)
        theirs = outcome(lambda: torch.tensor(values, dtype=torch.int64 if all(type(v) is int for v in values)
                                              else None).reshape(shape).tolist())
        assert mine[0] == theirs[0] and (mine[0] == "raise" or mine[1] == theirs[1]), (values, shape)
        if mine[0] == "raise":
            assert mine[2] in theirs[2], (values, shape, mine, theirs)


def _name(dtype):
    return str(dtype).split(".")[-1]


def test_02_dtype_rules_are_torchs():
    ref = answers_of("02_dtype_rules")
    for (data,) in cases("02_dtype_rules", "q1"):
        assert ref.infer_dtype(data) == _name(torch.tensor(data).dtype), data
    for dtype, scalar, op in cases("02_dtype_rules", "q2"):
        t = torch.zeros(2, dtype=getattr(torch, dtype))
        out = {"+": lambda: t + scalar, "*": lambda: t * scalar, "/": lambda: t / scalar}[op]()
        assert ref.scalar_op_dtype(dtype, scalar, op) == _name(out.dtype), (dtype, scalar, op)


def test_03_the_views_table_is_torchs():
    ref = answers_of("03_strides")
    x = torch.arange(24).reshape(2, 3, 4)
    for expr, shape, stride, offset in ref.VIEWS:
        v = eval(expr.replace("minitorch.", "torch."), {"torch": torch, "x": x})  # noqa: S307 - our own table
        assert (tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous()) == (
            shape, stride, offset, ref.is_contiguous(shape, stride)), expr
    for (shape,) in cases("03_strides", "q1"):
        if math.prod(shape) < 10 ** 6:
            assert ref.contiguous_strides(shape) == torch.empty(shape).stride(), shape


def test_04_broadcasting_is_torchs():
    ref = answers_of("04_broadcasting")
    for shapes in cases("04_broadcasting", "q1"):
        mine, theirs = outcome(ref.broadcast_shapes, *shapes), outcome(lambda: tuple(torch.broadcast_shapes(*shapes)))
        assert mine[0] == theirs[0] and (mine[0] == "raise" or mine[1] == theirs[1]), shapes
        if mine[0] == "raise" and all(math.prod(s) < 10 ** 5 for s in shapes) and len(shapes) == 2:
            op = outcome(lambda: torch.zeros(shapes[0]) + torch.zeros(shapes[1]))
            assert op[1:] == mine[1:], (shapes, op, mine)
    for shape, strides, new in cases("04_broadcasting", "q2"):
        base = torch.zeros(sum((n - 1) * s for n, s in zip(shape, strides)) + 1)
        theirs = torch.as_strided(base, shape, strides).expand(tuple(new)).stride() if new else ()
        assert ref.expand_strides(shape, strides, new) == theirs, (shape, strides, new)
    for a, b in cases("04_broadcasting", "q3"):
        assert ref.result_dtype(a, b) == _name(torch.promote_types(getattr(torch, a), getattr(torch, b))), (a, b)


def _strided(shape, strides, offset=0):
    size = offset + (sum((n - 1) * abs(s) for n, s in zip(shape, strides)) + 1 if all(shape) else 1)
    return torch.as_strided(torch.arange(size), shape, strides, offset)


def test_05_views_are_torchs():
    ref = answers_of("05_views")
    for shape, strides, d0, d1 in cases("05_views", "q1"):
        v = _strided(shape, strides).transpose(d0, d1)
        assert ref.transpose_strides(shape, strides, d0, d1) == (tuple(v.shape), v.stride())
    for shape, strides, offset, dim, start, stop, step in cases("05_views", "q2"):
        index = [slice(None)] * len(shape)
        index[dim] = slice(start, stop, step)
        v = _strided(shape, strides, offset)[tuple(index)]
        assert ref.slice_view(shape, strides, offset, dim, start, stop, step) == (
            tuple(v.shape), v.stride(), v.storage_offset())
    for shape, strides, new in cases("05_views", "q3"):
        theirs = outcome(lambda: _strided(shape, strides).view(new).stride())
        assert ref.view_strides(shape, strides, new) == (theirs[1] if theirs[0] == "ok" else None), (shape, new)


TORCH_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, "
               "meta, hpu, mtia, privateuseone")


def test_08_device_strings_are_read_as_torch_reads_them():
    """The same device, or the same error; the first message names minitorch's two types where
    PyTorch lists all of its own (the exercise says so)."""
    ref = answers_of("08_devices")
    for (spec,) in cases("08_devices", "q1", 300):
        mine = outcome(ref.parse_device, spec)
        theirs = outcome(lambda: (lambda d: (d.type, d.index))(torch.device(spec)))
        if theirs[0] == "raise":
            theirs = (*theirs[:2], theirs[2].replace(TORCH_TYPES, "cpu, cuda"))
        assert mine == theirs, (spec, mine, theirs)


def test_13_optimizer_steps_are_torch_optims():
    ref = answers_of("13_optimizer_steps")
    for params, grads, state, lr, *rest in cases("13_optimizer_steps", "q1"):
        if not params:
            continue
        momentum, wd = (rest + [0.0, 0.0])[:2]
        p = torch.tensor(params, dtype=torch.float64, requires_grad=True)
        o = torch.optim.SGD([p], lr=lr, momentum=momentum, weight_decay=wd)
        if state is not None and momentum:
            o.state[p]["momentum_buffer"] = torch.tensor(state, dtype=torch.float64)
        p.grad = torch.tensor(grads, dtype=torch.float64)
        o.step()
        mine, new_state = ref.sgd_step(params, grads, state, lr, momentum, wd)
        assert np.allclose(mine, p.detach().numpy(), rtol=1e-12, atol=1e-14)
        if momentum:
            assert np.allclose(new_state, o.state[p]["momentum_buffer"].numpy(), rtol=1e-12, atol=1e-14)
    for params, grads, state, *rest in cases("13_optimizer_steps", "q2"):
        if not params:
            continue
        p = torch.tensor(params, dtype=torch.float64, requires_grad=True)
        o = torch.optim.Adam([p], **dict(zip(["lr", "betas", "eps", "weight_decay"], rest)))
        if state is not None:
            o.state[p] = {"step": torch.tensor(float(state["step"])),
                          "exp_avg": torch.tensor(state["exp_avg"], dtype=torch.float64),
                          "exp_avg_sq": torch.tensor(state["exp_avg_sq"], dtype=torch.float64)}
        p.grad = torch.tensor(grads, dtype=torch.float64)
        o.step()
        mine, new_state = ref.adam_step(params, grads, state, *rest)
        assert np.allclose(mine, p.detach().numpy(), rtol=1e-9, atol=1e-12)
        assert new_state["step"] == int(o.state[p]["step"])
        assert np.allclose(new_state["exp_avg_sq"], o.state[p]["exp_avg_sq"].numpy(), rtol=1e-9, atol=1e-15)


def test_14_linear_layer_and_epoch_are_torchs():
    ref = answers_of("14_training_loop")
    for x, weight, bias, grads in cases("14_training_loop", "q2"):
        out, got = ref.run_linear_forward(x, weight, bias, grads)
        args = {"x": x, "weight": weight, "bias": bias}
        t = {k: None if v is None else torch.tensor(v, dtype=torch.float32, requires_grad=k in grads)
             for k, v in args.items()}
        theirs = torch.nn.functional.linear(t["x"], t["weight"], t["bias"])
        assert np.allclose(out.detach().numpy(), theirs.detach().numpy(), atol=1e-6)
        if grads:
            theirs.sum().backward()
            for k in grads:
                assert np.allclose(got[k].numpy(), t[k].grad.numpy(), atol=1e-5), k
    for weight, bias, x, y, lr, batch in cases("14_training_loop", "q3", 30):
        losses, w_after, b_after = ref.train_epoch(weight, bias, x, y, lr, batch)
        w = torch.tensor(weight, requires_grad=True)
        b = torch.tensor(bias, requires_grad=True)
        o = torch.optim.SGD([w, b], lr=lr)
        theirs = []
        for s in range(0, len(x), batch):
            o.zero_grad()
            loss = torch.nn.functional.cross_entropy(torch.tensor(x[s:s + batch]) @ w.T + b, torch.tensor(y[s:s + batch]))
            loss.backward()
            o.step()
            theirs.append(loss.item())
        assert np.allclose(losses, theirs, rtol=1e-4, atol=1e-5)
        assert np.allclose(w_after, w.tolist(), rtol=1e-4, atol=1e-5)


def test_15_shapes_and_columns_are_torchs():
    ref = answers_of("15_im2col")
    for c in cases("15_im2col", "q1"):
        h, w, k, *rest = c
        kernel = k if isinstance(k, tuple) else (k, k)
        out = torch.nn.functional.conv2d(torch.zeros(1, 1, h, w), torch.zeros(1, 1, *kernel),
                                         **dict(zip(["stride", "padding", "dilation"], rest)))
        assert ref.conv2d_output_shape(*c) == tuple(out.shape[2:]), c
    for image, k, *rest in cases("15_im2col", "q2"):
        theirs = torch.nn.functional.unfold(torch.tensor([image]), k, **dict(zip(["stride", "padding"], rest)))
        assert ref.im2col(image, k, *rest) == theirs[0].tolist()


def test_16_embedding_is_torchs():
    ref = answers_of("16_embedding")
    for weight, ids, *pad in cases("16_embedding", "q1"):
        pad = pad[0] if pad else None
        theirs = torch.nn.functional.embedding(torch.tensor(ids), torch.tensor(weight), padding_idx=pad)
        assert ref.embedding_lookup(weight, ids, pad) == theirs.tolist(), ids
    for ids, grad_out, num, *pad in cases("16_embedding", "q2"):
        pad = pad[0] if pad else None
        g = torch.tensor(grad_out, dtype=torch.float64)
        table = torch.zeros(num, g.shape[-1], dtype=torch.float64, requires_grad=True)
        torch.nn.functional.embedding(torch.tensor(ids), table, padding_idx=pad).backward(g)
        assert np.allclose(ref.embedding_grad(ids, grad_out, num, pad), table.grad.numpy()), (ids, pad)


def test_18_diagnose_reads_torchs_own_messages():
    """The same mistakes made with PyTorch: its messages fall in the same categories."""
    ref = answers_of("18_diagnose")
    rng = random.Random(18)
    for _ in range(4):
        a, b, c = rng.randint(2, 6), rng.randint(2, 6), rng.randint(7, 9)
        w = torch.ones(a, requires_grad=True)
        loss = (w * w).sum()
        loss.backward()
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = y * y
        y.add_(1)
        mistakes = [
            ("shape", lambda: torch.ones(a, b) @ torch.ones(c, b)),
            ("shape", lambda: torch.ones(a) + torch.ones(c)),
            ("shape", lambda: torch.ones(a, b).view(a * b + 1)),
            ("shape", lambda: torch.nn.Linear(a, 1)(torch.ones(2, c))),
            ("dtype", lambda: torch.nn.Linear(a, 1)(torch.ones(2, a, dtype=torch.float64))),
            ("dtype", lambda: torch.ones(a, dtype=torch.int64) @ torch.ones(a)),
            ("inplace", lambda: torch.ones(a, requires_grad=True).sub_(0.1 * b)),
            ("inplace", lambda: z.sum().backward()),
            ("backward_twice", lambda: loss.backward()),
            ("numpy_requires_grad", lambda: torch.ones(a, requires_grad=True).numpy()),
        ]
        for category, mistake in mistakes:
            with pytest.raises(Exception) as info:  # noqa: PT011 - any of PyTorch's errors
                mistake()
            assert ref.diagnose(str(info.value)) == category, (category, str(info.value))
    for message in ref.PYTORCH_MESSAGES:
        assert ref.diagnose(message) in ref.CATEGORIES
