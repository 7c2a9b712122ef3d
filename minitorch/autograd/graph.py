"""`torch.autograd.graph`: the recorded graph's node type, and hooks on the tensors it saves.

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = model(x)          # every tensor an op saves for backward is stored as pack(tensor)
    y.backward()              # ... and read back as unpack(packed) when backward needs it

save_on_cpu() is such a pair: it keeps saved tensors in host memory and moves them back to
their device for backward (GPU memory for activations, traded for copies).
"""
from __future__ import annotations

from .function import SAVED_TENSORS_HOOKS, Node  # noqa: F401  (isinstance(y.grad_fn, Node))


class saved_tensors_hooks:
    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _DISABLED:
            raise RuntimeError(_DISABLED[-1])
        SAVED_TENSORS_HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        SAVED_TENSORS_HOOKS.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors wait in host memory (pinned when pin_memory=True, where CUDA has it)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return t.device, t.cpu()

        def unpack(packed):
            device, t = packed
            return t.to(device)
        super().__init__(pack, unpack)


_DISABLED = []


class disable_saved_tensors_hooks:
    """A region where saved_tensors_hooks may not be used (entering one raises error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _DISABLED.append(self.error_message)
        return self

    def __exit__(self, *exc):
        _DISABLED.pop()
        return False


def increment_version(tensor):
    """Bump the tensor's version counter, as an in-place change does (for code that changes a
    tensor's memory behind autograd's back)."""
    tensors = tensor if isinstance(tensor, (list, tuple)) else (tensor,)
    for t in tensors:
        t._storage.version += 1
