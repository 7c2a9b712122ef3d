"""Exercise 08, devices: which device does a string name, and on which device does an op run?

The learner writes two small functions in plain Python; the reference solutions are the
solution cells of solutions/08_devices.ipynb. Both
raise PyTorch's RuntimeError on bad input: the questions declare `raises=(RuntimeError,)`, so
the expected outcome of such a case is that error, same type and same message. No GPU is
needed: device names are labels, and the notebook checks same_device against minitorch's own
rule (minitorch._ops.common.same_device) on stand-in tensors that only carry a device and a
number of dims.
"""
from __future__ import annotations

from ..spec import Exercise, QuestionSpec


# ---- inputs -------------------------------------------------------------------------------
# Only strings on which PyTorch 2.13 and minitorch agree (but for the list of types in the first
# message): no CPU index (PyTorch keeps any, minitorch only 0, dropped), no empty string, no
# type PyTorch knows and minitorch does not (mps, meta, ...), and no index after an unknown type
# (PyTorch's message then names the type alone, minitorch's the whole string; PyTorch reports a
# bad index there, minitorch the type).
def _visible_q1():
    return [("cuda:1",), ("cuda",), ("cpu",), ("cuda:0",), ("cuda:12",), ("gpu",), ("CUDA",), ("tpu",),
            ("cuda:",), ("cuda:x",), ("cuda:01",), ("cuda:1:2",), ("cuda:-1",), ("cpu:x",)]


def _random_q1(rng, n):
    unknown = ["gpu", "Cuda", "cud", "tpu", "CPU", "cuda_", "device"]
    valid, invalid = ["0", "1", "2", "3", "7", "15"], ["-1", "x", "1:0", "", "1.0", "+1", "01", " 1", "1 "]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.45:
            spec = "cuda" if rng.random() < 0.3 else f"cuda:{rng.choice(valid + invalid)}"
        elif r < 0.6:
            spec = rng.choice(["cpu", f"cpu:{rng.choice(invalid)}"])
        else:
            spec = rng.choice(unknown)
        out.append((spec,))
    return out


def _visible_q2():
    return [([("cuda:0", 2), ("cpu", 0)],), ([("cpu", 2), ("cpu", 1)],), ([("cuda:0", 2), ("cpu", 1)],),
            ([("cpu", 1), ("cuda:0", 2)],), ([("cpu", 0), ("cuda:1", 3)],), ([("cuda:0", 1), ("cuda:1", 1)],),
            ([("cuda:1", 0), ("cuda:0", 0)],), ([("cpu", 0), ("cpu", 0)],), ([("cuda:0", 0), ("cpu", 2)],),
            ([("cpu", 0), ("cuda:0", 1), ("cuda:0", 0), ("cpu", 0)],), ([("cuda:0", 2)],),
            ([("cpu", 0), ("cuda:0", 1), ("cpu", 2)],), ([("cpu", 3), ("cuda:1", 0), ("cuda:1", 2)],)]


def _random_q2(rng, n):
    out = []
    for _ in range(n):
        devices = rng.choice([["cpu", "cuda:0"], ["cpu", "cuda:1"], ["cuda:0", "cuda:1"],
                              ["cpu", "cuda:0", "cuda:1"], ["cpu"], ["cuda:0"]])
        tensors = []
        for _ in range(rng.randint(1, 5)):
            d = rng.choice(devices)
            tensors.append((d, 0 if rng.random() < (0.6 if d == "cpu" else 0.2) else rng.randint(1, 4)))
        out.append((tensors,))
    return out


# ---- the exercise ---------------------------------------------------------------------------
EXERCISE = Exercise(
    name="08_devices",
    title="Devices: which device, and where does an op run?",
    forbidden_calls=("numpy.*",),
    forbidden_imports=("minitorch", "torch", "jax", "tensorflow"),
    forbidden_reason="these two functions must be plain Python: minitorch (and PyTorch) apply "
                     "these rules for you, which is what this exercise asks you to do",
    questions=[
        QuestionSpec(
            id="q1", function="parse_device", title="(a) read a device string",
            solution_cell="parse_device", test_cell="test_parse_device",
            visible_cases=_visible_q1, random_cases=_random_q1,
            raises=(RuntimeError,),
            hints=[
                "A device string is a type, optionally followed by ':' and an index: "
                "spec.partition(':') splits it into (type, ':', index) or (type, '', '').",
                "The type must be exactly 'cpu' or 'cuda', else raise RuntimeError(f\"Expected one of cpu, "
                "cuda device type at start of device string: {spec}\"). After a ':' the index must be "
                "digits only (str.isdigit(), and str.isascii() to refuse other scripts' digits), without a "
                "leading zero, else raise RuntimeError(f\"Invalid device string: '{spec}'\").",
                "Return (type, int(index)), or (type, None) when there is no ':' at all.",
            ]),
        QuestionSpec(
            id="q2", function="same_device", title="(b) the device an op runs on",
            solution_cell="same_device", test_cell="test_same_device",
            visible_cases=_visible_q2, random_cases=_random_q2,
            raises=(RuntimeError,),
            hints=[
                "The op runs on the first non-CPU device among its tensors; when every tensor is on "
                "the CPU, on 'cpu'.",
                "Then every tensor must be on that device, with one exception: a 0-d tensor on the CPU "
                "(a scalar such as minitorch.tensor(2.0)) may join an op on any device.",
                "Two passes: find the device first, then check the tensors in order; at the first one "
                "that breaks the rule, raise RuntimeError(\"Expected all tensors to be on the same "
                "device, but found at least two devices, {common} and {device}!\") with the op's "
                "device first.",
            ]),
    ],
)
