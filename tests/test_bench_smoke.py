"""The benchmark suite runs and prints the tables it promises (bench/, `make bench`).

Tiny sizes and very short repeats: this checks that every benchmark runs and reports the
expected rows, never how fast anything is (no timing asserts, ever: see DESIGN.md).
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import minitorch  # noqa: E402
from bench import _cnn, _mlp, _timing, autograd, gpu, graph, memory, ops, train  # noqa: E402
from bench.__main__ import main  # noqa: E402

try:
    import torch
except Exception:
    torch = None

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def cfg():
    c = _timing.Config.make(quick=True, repeat=1, min_time=0.0002)
    c.settle = 0.0
    _timing.setup_threads(c)
    return c


def _names(rows):
    return [r.key for r in rows]


def _check_torch_cells(rows):
    for r in rows:
        if r.skipped:
            continue
        if torch is None:
            assert r.times["torch"] == _timing.NO_TORCH, r.key
        else:
            assert isinstance(r.times["torch"], _timing.Timing), r.key


def test_small_rows(cfg):
    rows = ops.small_rows(cfg)
    assert _names(rows) == [f"small.{k}" for k, *_ in ops.SMALL_OPS]
    for r in rows:
        assert isinstance(r.times["minitorch"], _timing.Timing) and r.times["minitorch"].median > 0
        assert isinstance(r.times["numpy"], _timing.Timing)
        assert r.ratio("numpy") is not None
    _check_torch_cells(rows)
    assert rows[0].target == ("torch", 1.0)
    text = _timing.table("small", rows)
    for label in ("a + b  (10x10)", "a.view(100)", "mt/NumPy", "mt/PyTorch"):
        assert label in text
    if torch is None:
        assert "n/a (PyTorch not installed)" in text


def test_large_rows_tiny(cfg):
    rows = ops.large_rows(cfg, ops.TINY_LARGE_SIZES)
    assert _names(rows) == ["large.add", "large.mul", "large.exp", "large.matmul0", "large.matmul1",
                            "large.sum", "large.sum_dim1"]
    assert all(r.target == ("numpy", 1.10) for r in rows)
    _check_torch_cells(rows)
    assert "a.sum(dim=1)" in _timing.table("large", rows)


def test_autograd_rows(cfg):
    rows = autograd.rows(cfg, mlp_sizes=(64, 16, 10), mlp_batch=8)
    keys = _names(rows)
    assert keys[:3] == ["autograd.add_grad", "autograd.mul_sum_backward", "autograd.mlp_step_raw"]
    assert keys[3] == "autograd.mlp_step_nn"
    nn_row = rows[3]
    if _mlp.missing_nn(minitorch):
        assert "minitorch lacks" in nn_row.skipped  # skipped with a note, not an error
    assert rows[1].times["numpy"] == "-"
    _check_torch_cells(rows)
    text = _timing.table("autograd", rows)
    assert "MLP step, tensor ops" in text and "MLP step, nn + optim" in text


def test_autograd_cnn_row(cfg):
    rows = autograd.cnn_rows(cfg, batch=4)
    assert _names(rows) == ["autograd.cnn_step"]
    assert rows[0].target == ("torch", 1.3) and not rows[0].skipped
    assert rows[0].times["numpy"] == "-"
    _check_torch_cells(rows)


def test_cnn_versions_compute_the_same_step():
    """Lesson 15's CNN starts from the same weights in both libraries, so the losses agree."""
    if torch is None:
        pytest.skip("PyTorch not installed: nothing to compare with")
    w = _cnn.init_weights(seed=3)
    x, y = _cnn.batch(8, seed=4)
    mine, theirs = _cnn.CNN(minitorch, w), _cnn.CNN(torch, w)
    for _ in range(3):
        a = mine.step(minitorch.from_numpy(x.copy()), minitorch.from_numpy(y.copy())).item()
        b = theirs.step(torch.from_numpy(x.copy()), torch.from_numpy(y.copy())).item()
        assert a == pytest.approx(b, rel=1e-4)


def test_depth_rows_are_per_op(cfg):
    rows = graph.rows(cfg, depths=(3, 30))
    assert _names(rows) == ["depth.chain3", "depth.chain30"]
    assert rows[-1].target == ("torch", 1.8) and rows[0].target is None
    _check_torch_cells(rows)
    assert "per op" in _timing.table("depth", rows)


def test_memory_row_measures_each_library_in_its_own_process(cfg):
    pytest.importorskip("sklearn")
    rows = memory.rows(cfg, limit=130, epochs=1)
    assert _names(rows) == ["memory.digits_peak_rss"]
    row = rows[0]
    assert row.unit == "bytes" and row.target == ("torch", 0.5)
    for c in ("minitorch", "numpy") + (("torch",) if torch is not None else ()):
        assert isinstance(row.times[c], _timing.Timing) and row.times[c].value > 10 * 2**20, (c, row.times[c])
    assert "MiB" in _timing.table("memory", rows)  # bytes, not seconds
    assert "final loss" in row.note


def test_train_rows(cfg):
    pytest.importorskip("sklearn")
    rows = train.rows(cfg, limit=130, sizes=(64, 16, 10))
    assert _names(rows) == ["train.digits_raw", "train.digits_nn"]
    assert isinstance(rows[0].times["minitorch"], _timing.Timing)
    assert "training accuracy" in rows[0].note
    _check_torch_cells(rows)


def test_mlp_versions_compute_the_same_step():
    """The three ways of writing the step do the same work (the comparison is fair)."""
    w = _mlp.init_weights([64, 32, 10], seed=3)
    x, y = _mlp.batch(16, 64, 10, seed=4)
    ref = _mlp.NumpyMLP(w)
    raw = _mlp.RawMLP(minitorch, w)
    others = []
    if not _mlp.missing_nn(minitorch):
        others.append(_mlp.NNMLP(minitorch, w))
    xm, ym = minitorch.from_numpy(x), minitorch.from_numpy(y)
    for _ in range(3):
        expected = float(ref.step(x, y))
        assert raw.step(xm, ym).item() == pytest.approx(expected, rel=1e-4)
        for m in others:
            assert m.step(xm, ym).item() == pytest.approx(expected, rel=1e-4)
    for (W, b), (Wm, bm) in zip(ref.params, raw.params):
        np.testing.assert_allclose(Wm.detach().numpy(), W, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(bm.detach().numpy(), b, rtol=1e-4, atol=1e-6)


def test_gpu_group_without_gpu_says_why(cfg):
    rows = gpu.rows(cfg, gpu.TINY_SIZES)
    if minitorch.cuda.is_available():
        pytest.skip("a GPU is present: the skip message is not shown")
    assert len(rows) == 1 and rows[0].skipped.startswith("no GPU: skipped (")
    assert "no GPU: skipped (" in gpu.table("GPU", rows)


def test_gpu_rows_code_runs_on_cpu(cfg):
    """The GPU benchmark code, run on the CPU with NumPy standing in for CuPy."""
    rows = gpu.device_rows(cfg, "cpu", np, lambda: None, gpu.TINY_SIZES)
    assert _names(rows) == ["gpu.add", "gpu.mul", "gpu.exp", "gpu.matmul_float32", "gpu.matmul_float16",
                            "gpu.sum", "gpu.sum_dim1", "gpu.mlp_step"]
    text = gpu.table("GPU on CPU", rows, raw_name="NumPy")
    assert "GPU speedup" in text and "MLP step" in text


def test_cli_quick_json_and_reprint(tmp_path, capsys):
    # the autograd and train groups are covered above; here the CLI plumbing, on the fast groups
    out = tmp_path / "bench.json"
    assert main(["--quick", "--tiny", "--only", "small,large", "--only", "gpu", "--repeat", "1",
                 "--min-time", "0.0002", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    for title in ("Small tensors", "Large tensors", "GPU", "Targets", "BLAS:", "timing: median"):
        assert title in text
    data = json.loads(out.read_text())
    keys = {r["key"] for r in data["results"]}
    assert {"small.add", "large.matmul1"} <= keys
    assert data["environment"]["numpy"] == np.__version__
    add = next(r for r in data["results"] if r["key"] == "small.add")
    assert add["times"]["minitorch"]["median_s"] > 0 and add["ratios"]["minitorch/numpy"] > 0
    # the saved run prints again, with another statistic, without measuring
    assert main(["--from-json", str(out), "--stat", "min"]) == 0
    again = capsys.readouterr().out
    assert "timing: min" in again and "a + b  (10x10)" in again and "Targets" in again


def test_cli_depth_and_memory_groups(tmp_path, capsys):
    pytest.importorskip("sklearn")
    out = tmp_path / "bench.json"
    assert main(["--quick", "--tiny", "--only", "depth,memory", "--repeat", "1", "--min-time", "0.0002",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Graph depth" in text and "Memory: peak RSS" in text and "MiB" in text
    saved = {r["key"]: r for r in json.loads(out.read_text())["results"]}
    assert saved["memory.digits_peak_rss"]["unit"] == "bytes" and saved["depth.chain100"]["unit"] == "s"
    assert main(["--from-json", str(out)]) == 0  # the unit survives the round trip
    assert "MiB" in capsys.readouterr().out


def test_cli_only_and_bad_group(capsys):
    assert main(["--quick", "--only", "small", "--repeat", "1", "--min-time", "0.0002"]) == 0
    text = capsys.readouterr().out
    assert "Small tensors" in text and "Large tensors" not in text
    with pytest.raises(SystemExit):
        main(["--only", "nope"])
