"""minitorch's benchmark suite: `python -m bench` (see bench/__main__.py).

Modules: _timing (measuring, tables, environment), ops (small and large tensor ops),
autograd (graph overhead, MLP step), train (digits epoch), gpu (CuPy), _mlp (the MLP step
written for minitorch/torch, and by hand in NumPy).
"""
