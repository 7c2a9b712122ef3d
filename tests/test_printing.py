"""`repr(tensor)` prints exactly what PyTorch prints (with `minitorch.` for `torch.`).

The expected strings were produced by PyTorch 2.13 itself, `repr(torch.<expr>)` with
`torch.` replaced by `minitorch.`; tests/test_torch_differential.py checks many more
against a live PyTorch when it is installed.
"""
from __future__ import annotations

import math

import pytest

import minitorch as mt

nan, inf = math.nan, math.inf

CASES = {
    'empty-int64': ('zeros(0, dtype=int64)',
        'tensor([], dtype=minitorch.int64)'),
    'empty-bool-2d': ('zeros(0, 3, dtype=bool)',
        'tensor([], size=(0, 3), dtype=minitorch.bool)'),
    'empty-float64': ('zeros(2, 0, dtype=float64)',
        'tensor([], size=(2, 0), dtype=minitorch.float64)'),
    # the line width is measured with PyTorch's names ("torch.float64"): same breaks as PyTorch
    'suffix-fits-torch-width': ('(arange(14.).reshape(2, 7) * 1234567.891).double()',
        'tensor([[       0.0000,  1234567.8750,  2469135.7500,  3703703.5000,\n          4938271.5000,  6172839.5000,  7407407.0000],\n        [ 8641975.0000,  9876543.0000, 11111111.0000, 12345679.0000,\n         13580247.0000, 14814814.0000, 16049382.0000]], dtype=minitorch.float64)'),
    'suffix-on-next-line': ('(arange(5.) * 1234.5).double()',
        'tensor([   0.0000, 1234.5000, 2469.0000, 3703.5000, 4938.0000],\n       dtype=minitorch.float64)'),
    'grad-fn-after-wrapped-rows': ('(arange(12.).reshape(2, 6) * 12345.678).requires_grad_() * 1',
        'tensor([[     0.0000,  12345.6777,  24691.3555,  37037.0312,  49382.7109,\n          61728.3906],\n        [ 74074.0625,  86419.7422,  98765.4219, 111111.1016, 123456.7812,\n         135802.4531]], grad_fn=<MulBackward0>)'),
    'ints': ('tensor([1, 2, 3])',
        'tensor([1, 2, 3])'),
    'negative-ints-aligned': ('tensor([[-1, 10], [100, -1000]])',
        'tensor([[   -1,    10],\n        [  100, -1000]])'),
    'int-valued-floats': ('tensor([1., 2., 3.])',
        'tensor([1., 2., 3.])'),
    'decimals': ('tensor([1.5, 2.25, 3.])',
        'tensor([1.5000, 2.2500, 3.0000])'),
    'negative-decimals': ('tensor([-1.5, 2.0, -3.25])',
        'tensor([-1.5000,  2.0000, -3.2500])'),
    'four-decimals-rounding': ('tensor([0.12345, 1.0])',
        'tensor([0.1235, 1.0000])'),
    'sci-small': ('tensor([1e-5, 1.0])',
        'tensor([1.0000e-05, 1.0000e+00])'),
    'sci-large-ratio': ('tensor([0.1, 10000.])',
        'tensor([1.0000e-01, 1.0000e+04])'),
    'no-sci-ratio-1000': ('tensor([0.1, 100.])',
        'tensor([  0.1000, 100.0000])'),
    'sci-above-1e8': ('tensor([1e8, 1.])',
        'tensor([1.0000e+08, 1.0000e+00])'),
    'int-floats-sci': ('tensor([1e10, 1.0])',
        'tensor([1.0000e+10, 1.0000e+00])'),
    'nan-inf': ('tensor([nan, inf, -inf])',
        'tensor([nan, inf, -inf])'),
    'nan-with-number': ('tensor([nan, 1.0])',
        'tensor([nan, 1.])'),
    'inf-with-decimal': ('tensor([-inf, 2.5])',
        'tensor([  -inf, 2.5000])'),
    'nan-sci': ('tensor([nan, 1e5, 1.])',
        'tensor([       nan, 1.0000e+05, 1.0000e+00])'),
    'zero-and-negative-zero': ('tensor([0., -0.])',
        'tensor([0., -0.])'),
    'bool': ('tensor([True, False])',
        'tensor([ True, False])'),
    'bool-2d': ('tensor([[True, False], [False, True]])',
        'tensor([[ True, False],\n        [False,  True]])'),
    'empty': ('tensor([])',
        'tensor([])'),
    'empty-2d': ('zeros(0, 3)',
        'tensor([], size=(0, 3))'),
    'empty-int': ('zeros(2, 0, dtype=int32)',
        'tensor([], size=(2, 0), dtype=minitorch.int32)'),
    'scalar-float': ('tensor(3.5)',
        'tensor(3.5000)'),
    'scalar-int': ('tensor(3)',
        'tensor(3)'),
    'scalar-bool': ('tensor(True)',
        'tensor(True)'),
    'scalar-sci': ('tensor(1e-10)',
        'tensor(1.0000e-10)'),
    'scalar-nan': ('tensor(nan)',
        'tensor(nan)'),
    'matrix': ('arange(6.).reshape(2, 3)',
        'tensor([[0., 1., 2.],\n        [3., 4., 5.]])'),
    '3d': ('arange(24.).reshape(2, 3, 4)',
        'tensor([[[ 0.,  1.,  2.,  3.],\n         [ 4.,  5.,  6.,  7.],\n         [ 8.,  9., 10., 11.]],\n\n        [[12., 13., 14., 15.],\n         [16., 17., 18., 19.],\n         [20., 21., 22., 23.]]])'),
    '4d-size-1': ('arange(6.).reshape(1, 2, 3, 1)',
        'tensor([[[[0.],\n          [1.],\n          [2.]],\n\n         [[3.],\n          [4.],\n          [5.]]]])'),
    'thirds': ('arange(6.).reshape(2, 3) / 3',
        'tensor([[0.0000, 0.3333, 0.6667],\n        [1.0000, 1.3333, 1.6667]])'),
    'wraps-lines': ('arange(30.) + 0.5',
        'tensor([ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n         8.5000,  9.5000, 10.5000, 11.5000, 12.5000, 13.5000, 14.5000, 15.5000,\n        16.5000, 17.5000, 18.5000, 19.5000, 20.5000, 21.5000, 22.5000, 23.5000,\n        24.5000, 25.5000, 26.5000, 27.5000, 28.5000, 29.5000])'),
    'wraps-ints': ('arange(40)',
        'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n        36, 37, 38, 39])'),
    'summarized-ints': ('arange(2000)',
        'tensor([   0,    1,    2,  ..., 1997, 1998, 1999])'),
    'summarized-floats': ('arange(1001.)',
        'tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])'),
    'summarized-2d': ('arange(2000).reshape(40, 50)',
        'tensor([[   0,    1,    2,  ...,   47,   48,   49],\n        [  50,   51,   52,  ...,   97,   98,   99],\n        [ 100,  101,  102,  ...,  147,  148,  149],\n        ...,\n        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])'),
    'summarized-3d': ('arange(3000.).reshape(10, 10, 30) / 7',
        'tensor([[[0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 3.8571e+00,\n          4.0000e+00, 4.1429e+00],\n         [4.2857e+00, 4.4286e+00, 4.5714e+00,  ..., 8.1429e+00,\n          8.2857e+00, 8.4286e+00],\n         [8.5714e+00, 8.7143e+00, 8.8571e+00,  ..., 1.2429e+01,\n          1.2571e+01, 1.2714e+01],\n         ...,\n         [3.0000e+01, 3.0143e+01, 3.0286e+01,  ..., 3.3857e+01,\n          3.4000e+01, 3.4143e+01],\n         [3.4286e+01, 3.4429e+01, 3.4571e+01,  ..., 3.8143e+01,\n          3.8286e+01, 3.8429e+01],\n         [3.8571e+01, 3.8714e+01, 3.8857e+01,  ..., 4.2429e+01,\n          4.2571e+01, 4.2714e+01]],\n\n        [[4.2857e+01, 4.3000e+01, 4.3143e+01,  ..., 4.6714e+01,\n          4.6857e+01, 4.7000e+01],\n         [4.7143e+01, 4.7286e+01, 4.7429e+01,  ..., 5.1000e+01,\n          5.1143e+01, 5.1286e+01],\n         [5.1429e+01, 5.1571e+01, 5.1714e+01,  ..., 5.5286e+01,\n          5.5429e+01, 5.5571e+01],\n         ...,\n         [7.2857e+01, 7.3000e+01, 7.3143e+01,  ..., 7.6714e+01,\n          7.6857e+01, 7.7000e+01],\n         [7.7143e+01, 7.7286e+01, 7.7429e+01,  ..., 8.1000e+01,\n          8.1143e+01, 8.1286e+01],\n         [8.1429e+01, 8.1571e+01, 8.1714e+01,  ..., 8.5286e+01,\n          8.5429e+01, 8.5571e+01]],\n\n        [[8.5714e+01, 8.5857e+01, 8.6000e+01,  ..., 8.9571e+01,\n          8.9714e+01, 8.9857e+01],\n         [9.0000e+01, 9.0143e+01, 9.0286e+01,  ..., 9.3857e+01,\n          9.4000e+01, 9.4143e+01],\n         [9.4286e+01, 9.4429e+01, 9.4571e+01,  ..., 9.8143e+01,\n          9.8286e+01, 9.8429e+01],\n         ...,\n         [1.1571e+02, 1.1586e+02, 1.1600e+02,  ..., 1.1957e+02,\n          1.1971e+02, 1.1986e+02],\n         [1.2000e+02, 1.2014e+02, 1.2029e+02,  ..., 1.2386e+02,\n          1.2400e+02, 1.2414e+02],\n         [1.2429e+02, 1.2443e+02, 1.2457e+02,  ..., 1.2814e+02,\n          1.2829e+02, 1.2843e+02]],\n\n        ...,\n\n        [[3.0000e+02, 3.0014e+02, 3.0029e+02,  ..., 3.0386e+02,\n          3.0400e+02, 3.0414e+02],\n         [3.0429e+02, 3.0443e+02, 3.0457e+02,  ..., 3.0814e+02,\n          3.0829e+02, 3.0843e+02],\n         [3.0857e+02, 3.0871e+02, 3.0886e+02,  ..., 3.1243e+02,\n          3.1257e+02, 3.1271e+02],\n         ...,\n         [3.3000e+02, 3.3014e+02, 3.3029e+02,  ..., 3.3386e+02,\n          3.3400e+02, 3.3414e+02],\n         [3.3429e+02, 3.3443e+02, 3.3457e+02,  ..., 3.3814e+02,\n          3.3829e+02, 3.3843e+02],\n         [3.3857e+02, 3.3871e+02, 3.3886e+02,  ..., 3.4243e+02,\n          3.4257e+02, 3.4271e+02]],\n\n        [[3.4286e+02, 3.4300e+02, 3.4314e+02,  ..., 3.4671e+02,\n          3.4686e+02, 3.4700e+02],\n         [3.4714e+02, 3.4729e+02, 3.4743e+02,  ..., 3.5100e+02,\n          3.5114e+02, 3.5129e+02],\n         [3.5143e+02, 3.5157e+02, 3.5171e+02,  ..., 3.5529e+02,\n          3.5543e+02, 3.5557e+02],\n         ...,\n         [3.7286e+02, 3.7300e+02, 3.7314e+02,  ..., 3.7671e+02,\n          3.7686e+02, 3.7700e+02],\n         [3.7714e+02, 3.7729e+02, 3.7743e+02,  ..., 3.8100e+02,\n          3.8114e+02, 3.8129e+02],\n         [3.8143e+02, 3.8157e+02, 3.8171e+02,  ..., 3.8529e+02,\n          3.8543e+02, 3.8557e+02]],\n\n        [[3.8571e+02, 3.8586e+02, 3.8600e+02,  ..., 3.8957e+02,\n          3.8971e+02, 3.8986e+02],\n         [3.9000e+02, 3.9014e+02, 3.9029e+02,  ..., 3.9386e+02,\n          3.9400e+02, 3.9414e+02],\n         [3.9429e+02, 3.9443e+02, 3.9457e+02,  ..., 3.9814e+02,\n          3.9829e+02, 3.9843e+02],\n         ...,\n         [4.1571e+02, 4.1586e+02, 4.1600e+02,  ..., 4.1957e+02,\n          4.1971e+02, 4.1986e+02],\n         [4.2000e+02, 4.2014e+02, 4.2029e+02,  ..., 4.2386e+02,\n          4.2400e+02, 4.2414e+02],\n         [4.2429e+02, 4.2443e+02, 4.2457e+02,  ..., 4.2814e+02,\n          4.2829e+02, 4.2843e+02]]])'),
    'transposed': ('arange(12.).reshape(3, 4).t()',
        'tensor([[ 0.,  4.,  8.],\n        [ 1.,  5.,  9.],\n        [ 2.,  6., 10.],\n        [ 3.,  7., 11.]])'),
    'dtype-int32': ('tensor([1, 2], dtype=int32)',
        'tensor([1, 2], dtype=minitorch.int32)'),
    'dtype-float64': ('tensor([1., 2.], dtype=float64)',
        'tensor([1., 2.], dtype=minitorch.float64)'),
    'dtype-float16': ('tensor([1., 2.5], dtype=float16)',
        'tensor([1.0000, 2.5000], dtype=minitorch.float16)'),
    'dtype-uint8': ('tensor([1, 2], dtype=uint8)',
        'tensor([1, 2], dtype=minitorch.uint8)'),
    'requires-grad': ('tensor([1., 2.], requires_grad=True)',
        'tensor([1., 2.], requires_grad=True)'),
    'requires-grad-float64': ('tensor([1., 2.], dtype=float64, requires_grad=True)',
        'tensor([1., 2.], dtype=minitorch.float64, requires_grad=True)'),
    'grad-fn-mul': ('tensor([1., 2.], requires_grad=True) * 2',
        'tensor([2., 4.], grad_fn=<MulBackward0>)'),
    'grad-fn-add': ('tensor([1., 2.], requires_grad=True) + 2',
        'tensor([3., 4.], grad_fn=<AddBackward0>)'),
    'grad-fn-sum': ('tensor([[1.5, 2], [3, 4]], requires_grad=True).sum()',
        'tensor(10.5000, grad_fn=<SumBackward0>)'),
    'grad-fn-mean': ('tensor([1., 2.], requires_grad=True).mean()',
        'tensor(1.5000, grad_fn=<MeanBackward0>)'),
    'grad-fn-exp': ('tensor([1., 2.], requires_grad=True).exp()',
        'tensor([2.7183, 7.3891], grad_fn=<ExpBackward0>)'),
    'grad-fn-select': ('tensor([1., 2.], requires_grad=True)[0]',
        'tensor(1., grad_fn=<SelectBackward0>)'),
    'grad-fn-view': ('tensor([1., 2.], requires_grad=True).view(2, 1)',
        'tensor([[1.],\n        [2.]], grad_fn=<ViewBackward0>)'),
    'grad-fn-to': ('tensor([1., 2.], requires_grad=True).double()',
        'tensor([1., 2.], dtype=minitorch.float64, grad_fn=<ToCopyBackward0>)'),
    'grad-fn-mm': ('ones(2, 2, requires_grad=True) @ ones(2, 2)',
        'tensor([[2., 2.],\n        [2., 2.]], grad_fn=<MmBackward0>)'),
    'grad-fn-long-line': ('(arange(12.).reshape(3, 4) / 7).requires_grad_()',
        'tensor([[0.0000, 0.1429, 0.2857, 0.4286],\n        [0.5714, 0.7143, 0.8571, 1.0000],\n        [1.1429, 1.2857, 1.4286, 1.5714]], requires_grad=True)'),
    'detached': ('tensor([1., 2.], requires_grad=True).detach()',
        'tensor([1., 2.])'),
}


def _eval(expr):
    ns = {k: getattr(mt, k) for k in dir(mt) if not k.startswith("_")}
    ns.update(nan=nan, inf=inf)
    return eval(expr, ns)


@pytest.mark.parametrize("expr, expected", list(CASES.values()), ids=list(CASES.keys()))
def test_repr_is_pytorchs(expr, expected):
    t = _eval(expr)
    assert repr(t) == expected
    assert str(t) == expected


def test_print_options_precision():
    x = mt.tensor([1.0 / 3, 2.0 / 3])
    mt.set_printoptions(precision=2)
    assert repr(x) == "tensor([0.33, 0.67])"
    mt.set_printoptions(precision=6)
    assert repr(x) == "tensor([0.333333, 0.666667])"


def test_print_options_threshold_and_edgeitems():
    mt.set_printoptions(threshold=5, edgeitems=2)
    assert repr(mt.arange(10)) == "tensor([0, 1,  ..., 8, 9])"
    mt.set_printoptions(threshold=1000, edgeitems=3)
    assert repr(mt.arange(10)) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"


def test_print_options_linewidth():
    mt.set_printoptions(linewidth=30)
    # each element takes 4 characters ("10, "); 30 - len("tensor(") = 23 leaves room for 5 per line
    assert repr(mt.arange(10, 22)) == ("tensor([10, 11, 12, 13, 14,\n"
                                       "        15, 16, 17, 18, 19,\n"
                                       "        20, 21])")


def test_reprs_of_size_dtype_device():
    assert repr(mt.zeros(2, 3).shape) == "minitorch.Size([2, 3])"
    assert repr(mt.float16) == "minitorch.float16" and str(mt.int64) == "minitorch.int64"
    assert repr(mt.device("cpu")) == "device(type='cpu')" and str(mt.device("cpu")) == "cpu"


def test_format_of_0d_tensor_uses_the_number():
    assert f"{mt.tensor(2.0):.3f}" == "2.000"
    assert f"loss={mt.tensor(0.125).item():.2e}" == "loss=1.25e-01"
