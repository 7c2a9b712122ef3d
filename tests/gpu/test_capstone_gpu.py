"""The capstone's training on a real GPU (CuPy), with every part from solutions/ plugged in.
Without a GPU it skips, and says why (tests/test_capstone.py checks what train() says then)."""
import pytest

import minitorch as torch
from minitorch_course import capstone, parts

_why = torch.cuda._cupy_state()[2]
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason=f"no CUDA GPU: {_why}")]


@pytest.fixture(autouse=True)
def _own_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_PROGRESS", str(tmp_path / "progress.json"))
    yield
    parts.use_library()


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_the_solutions_parts_train_on_the_gpu(kind):
    reference = capstone.reference_parts()
    assert set(reference) == {p.name for p in parts.PARTS}
    history = capstone.train(kind, device="cuda", progress=False, functions=reference)
    assert "error" not in history, history.get("error")
    assert history["device"] == "cuda" and history["parts"] == [p.name for p in parts.PARTS]
    assert history["test_acc"][-1] >= 0.95, history["test_acc"]
