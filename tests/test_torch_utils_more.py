"""torch.utils.checkpoint (both variants: values, gradients, grad_fn, the random state restored
for dropout, warnings and errors), torch.profiler (record_function regions, schedule,
on_trace_ready, the table), torch.jit's guards, torch.autograd.graph (saved_tensors_hooks,
save_on_cpu, Node, increment_version), post-accumulate-grad and node hooks with their handles,
and torch.nn.attention's kernel choice, against PyTorch 2.13 where it is installed."""
from __future__ import annotations

import math
import warnings

import pytest

import minitorch
from minitorch.utils import checkpoint as mcp

try:
    import torch
    import torch.utils.checkpoint as tcp
except ImportError:  # the PyTorch comparisons skip; the rest runs
    torch = tcp = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed: differential tests skipped")


def _checkpointed(lib, cp, reentrant):
    out = []
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Dropout(0.5), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    x = lib.randn(5, 3, requires_grad=True)
    y = cp.checkpoint(m, x, use_reentrant=reentrant)
    out.append((y.grad_fn.name(), y.sum().item()))
    y.pow(2).sum().backward()  # (the re-run must draw dropout's mask again: the same gradient)
    out.append((x.grad.sum().item(), m[0].weight.grad.sum().item(), *m[3].bias.grad.tolist()))
    lib.manual_seed(0)
    z = cp.checkpoint_sequential(m, 2, lib.randn(5, 3, requires_grad=True), use_reentrant=reentrant)
    out.append((z.grad_fn.name(), z.sum().item()))
    w = lib.ones(2, requires_grad=True)
    v = cp.checkpoint(lambda a, b: (a * b, a + b), w, lib.ones(2), use_reentrant=reentrant)
    (v[0].sum() + v[1].sum()).backward()
    out.append(tuple(w.grad.tolist()))
    return out


@needs_torch
@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_as_pytorch(reentrant):
    want, got = _checkpointed(torch, tcp, reentrant), _checkpointed(minitorch, mcp, reentrant)
    for w, g in zip(want, got):
        assert w[0] == g[0] if isinstance(w[0], str) else math.isclose(w[0], g[0], rel_tol=1e-5)
        for a, b in zip(w[1:], g[1:]):
            assert math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-7), (w, g)


@needs_torch
def test_checkpoint_warnings_and_errors_as_pytorch():
    def said(lib, cp):
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lin = lib.nn.Linear(2, 2)
            y = cp.checkpoint(lin, lib.ones(2))  # no use_reentrant; no input requires grad
            out.append(y.requires_grad)
            out += [str(x.message)[:60] for x in w]
        for call in (lambda: cp.checkpoint(lin, lib.ones(2), use_reentrant=True, foo=1),
                     lambda: cp.checkpoint_sequential(lib.nn.Sequential(lin), 1, lib.ones(2), use_reentrant=True, x=1)):
            try:
                call()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return out
    assert said(minitorch, mcp) == said(torch, tcp)


def test_reentrant_checkpoint_keeps_nothing_and_recomputes():
    """The reentrant forward runs under no_grad (its output's graph is one node), and backward
    runs the function again."""
    calls = []

    def f(a):
        calls.append(1)
        return (a * a).sin()
    x = minitorch.ones(3, requires_grad=True)
    y = mcp.checkpoint(f, x, use_reentrant=True)
    assert y.grad_fn.name() == "CheckpointFunctionBackward" and len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2
    assert minitorch.allclose(x.grad, (2 * x * (x * x).cos()).detach())


def test_profiler_records_named_regions_by_schedule():
    P = minitorch.profiler
    with P.profile(activities=[P.ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            with P.record_function("forward"):
                minitorch.ones(10) + 1
    rows = {e.key: e for e in prof.key_averages()}
    assert rows["forward"].count == 3 and rows["forward"].cpu_time_total > 0
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    assert "forward" in table and "# of Calls" in table and "Self CPU time total" in table
    seen = []
    with P.profile(schedule=P.schedule(wait=1, warmup=1, active=2, repeat=1),
                   on_trace_ready=lambda p: seen.append(p.step_num)) as prof:
        for _ in range(6):
            with P.record_function("step"):
                pass
            prof.step()
    assert seen == [4] and [e.count for e in prof.key_averages()] == [2]  # (PyTorch's numbers)
    with minitorch.autograd.profiler.profile() as prof:
        with minitorch.autograd.profiler.record_function("x"):
            pass
    assert "x" in {e.key for e in prof.key_averages()}


def test_jit_guards_work_and_compiling_is_refused_clearly():
    J = minitorch.jit
    assert J.is_scripting() is False and J.is_tracing() is False and J.annotate(int, 3) == 3

    @J.ignore
    def f(x):
        return x + 1

    @J.ignore(drop=True)
    def g(x):
        return x
    assert f(1) == 2 and g(5) == 5 and J.export(f) is f and J.unused(f) is f
    for call in (lambda: J.script(minitorch.nn.Linear(2, 2)), lambda: J.trace(f, minitorch.ones(1))):
        with pytest.raises(NotImplementedError, match="torch.compile"):
            call()


def _hooks_program(lib):
    out = []
    x = lib.ones(3, requires_grad=True)
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t * 1

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = (x * x).sin().sum()
    out.append(sorted(packed))
    y.backward()
    out.append([round(v, 5) for v in x.grad.tolist()])
    x.grad = None
    with lib.autograd.graph.save_on_cpu():
        y = (x.exp() * x).sum()
    y.backward()
    out.append([round(v, 5) for v in x.grad.tolist()])
    out.append(isinstance(y.grad_fn, lib.autograd.graph.Node))
    t = lib.ones(2)
    v = t._version
    lib.autograd.graph.increment_version(t)
    out.append(t._version - v)
    with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        try:
            with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                pass
        except RuntimeError as e:
            out.append(str(e))
    with lib.autograd.graph.saved_tensors_hooks(lambda t: 3, lambda p: p):
        z = (x * x).sum()
    try:
        z.backward()
    except Exception as e:  # noqa: BLE001
        out.append((type(e).__name__, str(e)))
    # a hook after a leaf's .grad is updated (the optimizer-in-backward recipe), and hook handles
    w = lib.ones(2, requires_grad=True)
    seen = []
    h = w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    (w * 3).sum().backward()
    h.remove()
    (w * 3).sum().backward()
    out.append((seen, w.grad.tolist()))
    for call in (lambda: (w * 2).register_post_accumulate_grad_hook(print),
                 lambda: lib.ones(2).register_post_accumulate_grad_hook(print)):
        try:
            call()
        except RuntimeError as e:
            out.append(str(e))
    y = w * 2
    calls = []
    h1 = y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    h2 = y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    y.sum().backward()
    h1.remove()
    h2.remove()
    (w * 2).sum().backward()
    out.append(calls)
    return out


@needs_torch
def test_autograd_graph_hooks_as_pytorch():
    assert _hooks_program(minitorch) == _hooks_program(torch)


@needs_torch
def test_sdpa_kernel_choice_is_recorded_as_pytorch():
    import torch.nn.attention as TA
    import minitorch.nn.attention as MA

    def flags(lib, A):
        out = [str(A.SDPBackend.MATH), int(A.SDPBackend.CUDNN_ATTENTION)]
        with A.sdpa_kernel([A.SDPBackend.MATH]):
            out.append((lib.backends.cuda.flash_sdp_enabled(), lib.backends.cuda.math_sdp_enabled()))
        out.append((lib.backends.cuda.flash_sdp_enabled(), lib.backends.cuda.mem_efficient_sdp_enabled()))
        lib.backends.cuda.enable_flash_sdp(False)
        out.append(lib.backends.cuda.flash_sdp_enabled())
        lib.backends.cuda.enable_flash_sdp(True)
        q = lib.ones(1, 2, 3, 4)
        with A.sdpa_kernel(A.SDPBackend.MATH):
            out.append(lib.nn.functional.scaled_dot_product_attention(q, q, q).sum().item())
        return out
    assert flags(minitorch, MA) == flags(torch, TA)


@pytest.mark.parametrize("name", ["uint64", "complex64", "cfloat", "fft", "sparse_coo_tensor"])
def test_names_left_out_on_purpose_say_why(name):
    assert not hasattr(minitorch, name)  # (feature probes see them missing, as they are)
    with pytest.raises(AttributeError, match=f"'{name}': minitorch has no"):
        getattr(minitorch, name)
    with pytest.raises(AttributeError, match=r"has no attribute 'no_such_name'$"):
        minitorch.no_such_name  # noqa: B018


def _module_hooks_program(lib):
    out = []
    m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU())
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: out.append(("pre", prefix, keep_vars)))
    m[0].register_state_dict_post_hook(lambda mod, sd, prefix, meta: out.append(("post", prefix, sorted(sd))))
    sd = m.state_dict()
    out.append(sorted(sd))
    m[0].register_state_dict_post_hook(lambda mod, sd, prefix, meta: {})
    try:
        m.state_dict()
    except RuntimeError as e:
        out.append(str(e))
    lin = lib.nn.Linear(2, 3)

    def drop_missing(mod, keys):
        out.append(("loaded", list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.missing_keys.clear()
    lin.register_load_state_dict_post_hook(drop_missing)
    out.append(str(lin.load_state_dict({"weight": lib.zeros(3, 2)})))  # strict, but the hook forgave the bias
    lin.to_empty(device="cpu")
    out.append((tuple(lin.weight.shape), str(lin.weight.device), lin.weight.requires_grad))
    return out


@needs_torch
def test_module_state_dict_hooks_and_to_empty_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _module_hooks_program(minitorch) == _module_hooks_program(torch)


def test_module_compile_changes_nothing():
    """(Not compared with PyTorch's: its first compile patches process-wide settings, distributions'
    argument validation among them, for every test after it.)"""
    lin = minitorch.nn.Linear(2, 3)
    before = lin(minitorch.ones(2))
    assert lin.compile() is None and minitorch.equal(lin(minitorch.ones(2)), before)
