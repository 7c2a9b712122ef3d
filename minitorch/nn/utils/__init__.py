"""`nn.utils`: gradient clipping, parameters as one vector, weight and spectral normalisation,
parametrizations (nn.utils.parametrize, nn.utils.parametrizations) and the sequence utilities
(nn.utils.rnn), calling a module with other tensors (nn.utils.stateless), pruning
(nn.utils.prune), folding BatchNorm into the layer before it (nn.utils.fusion)."""
from . import fusion, memory_format, parametrizations, parametrize, prune, rnn, stateless  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["rnn", "parametrize", "parametrizations", "stateless", "clip_grad_norm_", "clip_grad_norm", "clip_grad_value_",
           "clip_grads_with_norm_", "get_total_norm", "parameters_to_vector", "vector_to_parameters", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "prune", "fusion", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "skip_init",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]
