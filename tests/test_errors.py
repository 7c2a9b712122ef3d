"""A learner's common mistakes get a clear error: PyTorch's type and wording, plus the op and
the shapes / dtypes involved. Each test checks the exception type and the key words."""
from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt


def full_message(e):
    """The message and the hints minitorch attaches to it as notes (PEP 678): str(e) is PyTorch's
    wording, word for word; the shapes, dtypes and the fix are in the notes."""
    return "\n".join([str(e), *getattr(e, "__notes__", ())])


def raises(kind, *fragments):
    """pytest.raises(kind) that also checks every fragment appears in the message or its notes."""
    class _Check:
        def __enter__(self):
            self.ctx = pytest.raises(kind)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            suppressed = self.ctx.__exit__(*exc)
            msg = full_message(self.info.value)
            for f in fragments:
                assert f in msg, f"{f!r} not in error message: {msg!r}"
            return suppressed
    return _Check()


# ---- broadcasting ---------------------------------------------------------------------------

@pytest.mark.parametrize("op, name", [(lambda a, b: a + b, "add"), (lambda a, b: a * b, "mul"),
                                      (lambda a, b: a - b, "sub"), (lambda a, b: a / b, "div"),
                                      (lambda a, b: a < b, "lt"), (lambda a, b: mt.maximum(a, b), "maximum"),
                                      (lambda a, b: a ** b, "pow")])
def test_broadcast_error_names_op_and_shapes(op, name):
    with raises(RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                              "dimension 1", name, "[2, 3]", "[4]"):
        op(mt.ones(2, 3), mt.ones(4))


def test_broadcast_error_3d():
    with raises(RuntimeError, "must match the size of tensor b (5)", "[2, 3, 4]", "[5, 4]"):
        mt.ones(2, 3, 4) * mt.ones(5, 4)
    with raises(RuntimeError, "where", "[2]", "[3]"):
        mt.where(mt.ones(2, dtype=mt.bool), mt.ones(3), 0.0)
    with raises(RuntimeError, "must match"):
        mt.broadcast_shapes((2, 3), (3, 2))


# ---- matmul ---------------------------------------------------------------------------------

def test_matmul_errors_name_shapes():
    with raises(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)", "[3, 4] @ [3, 4]"):
        mt.ones(3, 4) @ mt.ones(3, 4)
    with raises(RuntimeError, "(8x3 and 2x5)", "[4, 2, 3] @ [2, 5]"):  # PyTorch names the folded (4*2)x3
        mt.ones(4, 2, 3) @ mt.ones(2, 5)
    with raises(RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != long int",
                "does not promote"):
        mt.ones(2, 2) @ mt.ones(2, 2, dtype=mt.int64)
    with raises(RuntimeError, "both arguments to matmul need to be at least 1D", "0D"):
        mt.ones(2) @ mt.tensor(1.0)
    with raises(TypeError, "matmul"):
        mt.ones(2) @ [1.0, 2.0]


# ---- indexing -------------------------------------------------------------------------------

def test_index_errors():
    t = mt.zeros(3, 4)
    with raises(IndexError, "index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with raises(IndexError, "index 4 is out of bounds for dimension 1 with size 4"):
        t[0, 4]
    with raises(IndexError, "too many indices for tensor of dimension 2"):
        t[0, 0, 0]
    with raises(IndexError, "tensors used as indices must be long, int, byte or bool tensors", "float32"):
        t[mt.tensor([1.0])]
    with raises(IndexError, "The shape of the mask [2] at index 0 does not match", "[3, 4]"):
        t[mt.tensor([True, False])]
    with raises(IndexError, "only integers, slices", "str"):
        t["0"]
    with raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"):
        t.sum(2)
    with raises(IndexError, "Dimension out of range", "size"):
        t.size(-3)


# ---- dtypes -----------------------------------------------------------------------------------

def test_dtype_errors():
    with raises(TypeError, "invalid dtype 'foo'", "minitorch.float32"):
        mt.zeros(2, dtype="foo")
    with raises(TypeError, "invalid dtype"):
        mt.tensor([1], dtype=complex)
    with raises(RuntimeError, "only Tensors of floating point dtype can require gradients", "int64"):
        mt.ones(2, dtype=mt.int64).requires_grad_()
    with raises(RuntimeError, "result type Float can't be cast to the desired output type Long", "add_"):
        mt.ones(2, dtype=mt.int64).add_(0.5)
    with raises(RuntimeError, "mean(): could not infer output dtype", "Long", ".float()"):
        mt.tensor([1, 2]).mean()
    with raises(RuntimeError, "Subtraction, the `-` operator, with a bool tensor is not supported", "logical_not"):
        mt.tensor([True]) - 1
    with raises(RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported"):
        -mt.tensor([True])
    with raises(TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type tensors"):
        ~mt.tensor([1.0])
    with raises(NotImplementedError, "\"bitwise_and_cpu\" not implemented for 'Float'"):
        mt.tensor([1.0]) & mt.tensor([1.0])
    with raises(RuntimeError, "where expected condition to be a boolean tensor", "int64"):
        mt.where(mt.tensor([1]), 1.0, 0.0)
    with raises(RuntimeError, "Integers to negative integer powers are not allowed"):
        mt.tensor([2]) ** -2
    with raises(RuntimeError, "ZeroDivisionError"):
        mt.tensor([2]) // 0


def test_unsupported_operands():
    with raises(TypeError, "add()", "str", "minitorch.tensor"):
        mt.ones(2) + "a"
    with raises(TypeError, "mul()", "list"):
        mt.ones(2) * [1, 2]
    with raises(TypeError, "mul()", "dict"):
        {} * mt.ones(2)


# ---- views and shapes ------------------------------------------------------------------------

def test_view_errors():
    with raises(RuntimeError, "view size is not compatible with input tensor's size and stride",
                "Use .reshape(...) instead", "[3, 2]", "stride [1, 3]"):
        mt.ones(2, 3).t().view(6)
    with raises(RuntimeError, "shape '[4, 2]' is invalid for input of size 6"):
        mt.ones(2, 3).reshape(4, 2)
    with raises(RuntimeError, "only one dimension can be inferred"):
        mt.ones(2, 3).view(-1, -1)
    with raises(RuntimeError, "The expanded size of the tensor (3) must match the existing size (2) at "
                              "non-singleton dimension 0", "[3, 3]", "[2, 3]"):
        mt.ones(2, 3).expand(3, 3)
    with raises(RuntimeError, "does not match the length of the desired ordering", "[2, 3]"):
        mt.ones(2, 3).permute(0)
    with raises(RuntimeError, "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 "
                              "for tensor number 1"):
        mt.cat([mt.ones(2, 3), mt.ones(2, 2)])
    with raises(RuntimeError, "stack expects each tensor to be equal size", "[2, 3]", "[3, 2]"):
        mt.stack([mt.ones(2, 3), mt.ones(3, 2)])


# ---- values and conversion ---------------------------------------------------------------------

def test_conversion_errors():
    with raises(RuntimeError, "a Tensor with 6 elements cannot be converted to Scalar", "[2, 3]"):
        mt.ones(2, 3).item()
    with raises(RuntimeError, "Boolean value of Tensor with more than one value is ambiguous", ".any()"):
        if mt.ones(2) > 0:
            pass
    with raises(RuntimeError, "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                              "instead."):
        mt.ones(2, requires_grad=True).numpy()
    with raises(ValueError, "expected sequence of length 2 at dim 1 (got 1)"):
        mt.tensor([[1, 2], [3]])
    with raises(TypeError, "can't assign a list to a torch.FloatTensor"):
        mt.zeros(2)[:] = [1.0, 2.0]


def test_inplace_errors():
    w = mt.ones(2, requires_grad=True)
    with raises(RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation",
                "mul_", "no_grad"):
        w.mul_(2)
    with raises(RuntimeError, "output with shape [2] doesn't match the broadcast shape [3, 2]"):
        mt.zeros(2).add_(mt.ones(3, 2))
    with raises(RuntimeError, "more than one element of the written-to tensor refers to a single memory location",
                "clone()"):
        mt.zeros(1).expand(3).add_(1.0)  # fill_ and zero_ may write there, as in PyTorch


def test_device_errors():
    with raises(RuntimeError, "Expected one of", "device type at start of device string: tpu"):
        mt.zeros(2, device="tpu")
    with raises(RuntimeError, "Invalid device string: 'cuda:x'"):
        mt.device("cuda:x")


def test_factory_errors():
    with raises(RuntimeError, "Trying to create tensor with negative dimension -2: [3, -2]"):
        mt.ones(3, -2)
    with raises(TypeError, "ones(): argument 'size' failed to unpack the object at pos 2 with error \"type must be "
                "tuple of ints,but got float\""):
        mt.ones(2, 2.0)
    with raises(RuntimeError, "upper bound and lower bound inconsistent with step sign"):
        mt.arange(0, 5, -1)
    with raises(RuntimeError, "random_ expects 'from' to be less than 'to', but got from=5 >= to=2"):
        mt.randint(5, 2, (3,))
    with raises(TypeError, "expected np.ndarray (got list)"):
        mt.from_numpy([1, 2])


def test_error_messages_are_single_sentences_without_internal_names():
    # the messages must not leak NumPy's own wording or our private names to a learner
    cases = [lambda: mt.ones(3)[5], lambda: mt.ones(2, 3) + mt.ones(4), lambda: mt.ones(2) @ mt.ones(3),
             lambda: mt.ones(2, 3).t().view(6), lambda: mt.ones(2)[mt.tensor([0, 7])]]
    for f in cases:
        with pytest.raises(Exception) as info:
            f()
        msg = str(info.value)
        assert not re.search(r"\b(axis|ndarray|_data|numpy)\b", full_message(info.value)), msg
        assert np.char.count(msg, "\n") == 0


def test_the_hint_is_a_note_beside_pytorchs_message():
    """A program that prints an error prints PyTorch's words; the traceback shows the hint too."""
    import sys
    with pytest.raises(RuntimeError) as info:
        mt.ones(2, 3) @ mt.ones(2, 3)
    assert str(info.value) == "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
    if sys.version_info >= (3, 11):
        assert any("transpose one with .T" in n for n in info.value.__notes__)
        import traceback
        assert "transpose one with .T" in "".join(traceback.format_exception(info.value))
