"""The examples train to their target accuracies on real data (and one synthetic text set)."""
from __future__ import annotations

import pathlib
import sys

import pytest

pytest.importorskip("sklearn", reason="scikit-learn (which ships the digits data) is not installed")

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples import cnn_digits, mlp_digits, text_classifier  # noqa: E402
from examples.text_data import make_sentences  # noqa: E402


def _check(metrics, threshold):
    assert metrics["test_accuracy"] >= threshold, metrics["test_accuracy"]
    losses = metrics["losses"]
    assert losses[-1] < 0.5 * losses[0]  # it learned, steadily
    return metrics


def test_mlp_on_digits_reaches_95_percent():
    m = _check(mlp_digits.main(), 0.95)
    assert m["train_accuracy"] >= 0.98


def test_cnn_on_digits_reaches_95_percent():
    m = _check(cnn_digits.main(), 0.95)
    assert m["model"].features[0].weight.shape == (16, 1, 3, 3)


def test_embedding_text_classifier_reaches_95_percent():
    _check(text_classifier.main(), 0.95)


def test_training_is_deterministic():
    a = mlp_digits.main(epochs=1)
    b = mlp_digits.main(epochs=1)
    assert a["losses"] == b["losses"] and a["test_accuracy"] == b["test_accuracy"]


def test_text_data_follows_its_rule():
    for sentence, label in make_sentences(200, seed=3):
        words = sentence.split()
        from examples.text_data import POSITIVE
        positive = any(w in POSITIVE for w in words)
        assert label == int(positive != ("not" in words)), sentence
