"""Folding a BatchNorm in eval mode into the Conv or Linear layer before it, for deployment.

In eval mode BatchNorm is an affine map per channel, y = (x - mean) / sqrt(var + eps) * w + b,
so a layer followed by it is one layer with its weight scaled per output channel and a new bias:

    scale = w / sqrt(var + eps)
    W' = W * scale (along the output-channel dim)      b' = (b_layer - mean) * scale + b

The fused layer computes the same outputs (up to rounding) with one op instead of two.
"""
from __future__ import annotations

import copy

from ... import _factories
from ..._ops.pointwise import rsqrt
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` (Conv1d/2d/3d, or a ConvTranspose with transpose=True) with the eval-mode
    `bn` after it folded in."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(fused_conv.weight, fused_conv.bias, bn.running_mean,
                                                              bn.running_var, bn.eps, bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused (weight, bias) as Parameters, in the conv's dtypes. A ConvTranspose keeps its
    output channels in dim 1 of its weight, a Conv in dim 0."""
    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    conv_b = _factories.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = _factories.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = _factories.zeros_like(bn_rm) if bn_b is None else bn_b
    bn_var_rsqrt = rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (len(conv_w.shape) - 2)
    fused_conv_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_conv_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)
    return Parameter(fused_conv_w, conv_w.requires_grad), Parameter(fused_conv_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` with the eval-mode `bn` (BatchNorm1d over its out_features, or over 1
    feature) after it folded in."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    # bn's channels must broadcast against the linear's outputs: as many, or one
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(fused_linear.weight, fused_linear.bias,
                                                                    bn.running_mean, bn.running_var, bn.eps,
                                                                    bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused (weight, bias) as Parameters, in the linear's dtypes."""
    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    linear_b = _factories.zeros_like(bn_rm) if linear_b is None else linear_b
    bn_scale = bn_w * rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
