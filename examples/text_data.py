"""A small synthetic text dataset: short reviews whose label follows a clear rule.

Each sentence says something about a thing with an adjective, maybe negated:

    "the soup was really tasty"          positive
    "honestly the plot was not boring"   positive  (negated negative)
    "the staff seemed not very friendly" negative  (negated positive)
    "the room is dull i think"           negative

label = (adjective is positive) XOR ("not" appears). A bag of words needs a hidden layer to
learn this (neither "not" nor the adjective decides alone), so it is a real, if small,
classification problem. Generated with a fixed seed: nothing is downloaded.
"""
from __future__ import annotations

import numpy as np

POSITIVE = ["good", "great", "excellent", "lovely", "tasty", "fantastic", "nice", "superb", "friendly", "fun",
            "charming", "delightful"]
NEGATIVE = ["bad", "awful", "terrible", "bland", "poor", "horrible", "boring", "dull", "rude", "noisy",
            "disappointing", "mediocre"]
NOUNS = ["food", "soup", "movie", "plot", "service", "staff", "book", "music", "room", "show", "game", "coffee",
         "hotel", "ending", "price", "view"]
VERBS = ["was", "is", "seemed", "looked", "felt"]
INTENSIFIERS = ["", "", "really", "very", "quite", "so", "truly"]
OPENERS = ["", "", "", "honestly", "overall", "well", "sadly", "frankly"]
CLOSERS = ["", "", "", "i think", "to be fair", "in my opinion", "as always", "today"]

PAD, UNK = "<pad>", "<unk>"


def make_sentences(n, seed=0):
    """n (sentence, label) pairs; label 1 is positive."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        positive_word = bool(rng.integers(2))
        negated = bool(rng.integers(2))
        adj = rng.choice(POSITIVE if positive_word else NEGATIVE)
        words = [rng.choice(OPENERS), "the", rng.choice(NOUNS), rng.choice(VERBS)]
        if negated:
            words.append("not")
        words += [rng.choice(INTENSIFIERS), adj, rng.choice(CLOSERS)]
        sentence = " ".join(w for w in words if w)
        out.append((sentence, int(positive_word != negated)))
    return out


class Vocab:
    """word <-> id; id 0 is padding, id 1 stands for words never seen in training."""

    def __init__(self, sentences):
        words = sorted({w for s in sentences for w in s.split()})
        self.itos = [PAD, UNK] + words
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, sentence, length):
        ids = [self.stoi.get(w, 1) for w in sentence.split()][:length]
        return ids + [0] * (length - len(ids))


def make_dataset(n_train=2000, n_test=500, seq_len=12, seed=0):
    """((train ids, labels), (test ids, labels), vocab): ids are (n, seq_len) int64 tensors,
    right-padded with 0."""
    import minitorch as torch
    train = make_sentences(n_train, seed)
    test = make_sentences(n_test, seed + 1)
    vocab = Vocab([s for s, _ in train])

    def tensors(pairs):
        ids = torch.tensor([vocab.encode(s, seq_len) for s, _ in pairs], dtype=torch.int64)
        labels = torch.tensor([y for _, y in pairs], dtype=torch.int64)
        return ids, labels
    return tensors(train), tensors(test), vocab
