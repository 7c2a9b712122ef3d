"""bfloat16: the dtype exists (programs name it, compare with it, ask finfo and promote_types about
it), but no minitorch tensor can hold it (NumPy has no bfloat16 type): making one is refused with
an error that names the operation and the fix.

What needs no tensor is compared with PyTorch 2.13; the refusals are minitorch's own."""
from __future__ import annotations

import pickle

import pytest

import minitorch

torch = pytest.importorskip("torch", reason="PyTorch not installed: differential tests skipped")

pytestmark = pytest.mark.torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bfloat16"]


def _name(d):
    return str(d).split(".")[-1]


def test_the_dtype_is_pytorchs():
    m, t = minitorch.bfloat16, torch.bfloat16
    assert _name(m) == _name(t) == "bfloat16" and repr(m) == "minitorch.bfloat16"
    for attr in ("is_floating_point", "is_signed", "is_complex", "itemsize"):
        assert getattr(m, attr) == getattr(t, attr), attr
    assert isinstance(m, minitorch.dtype) and m is not minitorch.float16
    assert pickle.loads(pickle.dumps(m)) is m


def test_finfo_is_pytorchs():
    m, t = minitorch.finfo(minitorch.bfloat16), torch.finfo(torch.bfloat16)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(m, attr) == getattr(t, attr), attr
    assert repr(m) == repr(t)
    with pytest.raises(TypeError):
        minitorch.iinfo(minitorch.bfloat16)


@pytest.mark.parametrize("other", DTYPES)
def test_promote_types_and_can_cast_are_pytorchs(other):
    """Answered by minitorch's own table (no NumPy type needed): bfloat16 with float16 is float32."""
    m, t = minitorch.bfloat16, torch.bfloat16
    mo, to = getattr(minitorch, other), getattr(torch, other)
    assert _name(minitorch.promote_types(m, mo)) == _name(torch.promote_types(t, to))
    assert _name(minitorch.promote_types(mo, m)) == _name(torch.promote_types(to, t))
    assert minitorch.can_cast(m, mo) == torch.can_cast(t, to)
    assert minitorch.can_cast(mo, m) == torch.can_cast(to, t)


def test_the_probes_answer_as_pytorchs_cpu_build():
    for lib in (minitorch, torch):
        assert lib.cuda.is_bf16_supported() is False
        assert lib.cuda.is_bf16_supported(including_emulation=False) is False
    assert _name(minitorch.get_autocast_dtype("cpu")) == _name(torch.get_autocast_dtype("cpu")) == "bfloat16"


def test_nanogpts_prelude_runs():
    """nanoGPT's train.py names every dtype it might use before it picks one."""
    for lib in (minitorch, torch):
        dtype = "bfloat16" if lib.cuda.is_available() and lib.cuda.is_bf16_supported() else "float16"
        ptdtype = {"float32": lib.float32, "bfloat16": lib.bfloat16, "float16": lib.float16}[dtype]
        assert ptdtype is lib.float16


bf = minitorch.bfloat16
MAKERS = {  # where a bfloat16 tensor would be made: (what runs, the op the error names)
    "zeros": (lambda: minitorch.zeros(2, dtype=bf), "zeros"),
    "ones_like": (lambda: minitorch.ones_like(minitorch.ones(2), dtype=bf), "ones"),
    "tensor": (lambda: minitorch.tensor([1.0], dtype=bf), "tensor"),
    "arange": (lambda: minitorch.arange(3, dtype=bf), "arange"),
    "randn": (lambda: minitorch.randn(2, dtype=bf), "randn"),
    "to": (lambda: minitorch.ones(2).to(bf), "to"),
    "to_keyword": (lambda: minitorch.ones(2).to(dtype=bf), "to"),
    "method": (lambda: minitorch.ones(2).bfloat16(), "Tensor.bfloat16"),
    "type": (lambda: minitorch.ones(2).type(bf), "to"),
    "module_to": (lambda: minitorch.nn.Linear(2, 2).to(bf), "to"),
    "sum_dtype": (lambda: minitorch.ones(2).sum(dtype=bf), "sum"),
    "softmax_dtype": (lambda: minitorch.ones(2).softmax(0, dtype=bf), "softmax"),
    "view_dtype": (lambda: minitorch.ones(2).view(bf), "view"),
    "set_default_dtype": (lambda: minitorch.set_default_dtype(bf), "set_default_dtype"),
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_making_a_bfloat16_tensor_is_refused(make):
    fn, op = make
    with pytest.raises(NotImplementedError) as info:
        fn()
    assert str(info.value) == (f"{op}(): minitorch has no bfloat16 tensors (NumPy has no bfloat16 type): use "
                               "float16 for half precision, or float32")


def test_autocast_in_bfloat16_is_refused():
    for make in (lambda: minitorch.autocast("cpu"), lambda: minitorch.autocast("cpu", dtype=bf),
                 lambda: minitorch.amp.autocast(device_type="cpu", dtype=bf)):
        with pytest.raises(NotImplementedError, match="bfloat16.*dtype=minitorch.float16"):
            make()
    with minitorch.autocast("cpu", dtype=minitorch.float16):
        assert (minitorch.ones(2, 2) @ minitorch.ones(2, 2)).dtype is minitorch.float16
