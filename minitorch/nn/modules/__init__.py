"""`torch.nn.modules`: the package PyTorch keeps its layer classes in. Programs import from its
submodules (`from torch.nn.modules.loss import _Loss`, `torch.nn.modules.batchnorm._BatchNorm`);
here each submodule names the same classes as minitorch.nn, where they are written."""
from . import (activation, batchnorm, container, conv, distance, dropout, flatten, fold, instancenorm,  # noqa: F401
               lazy, linear, linear_cross_entropy_options, loss, module, normalization, padding, pixelshuffle,
               pooling, rnn, sparse, transformer, upsampling, utils)
from .activation import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .linear_cross_entropy_options import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
