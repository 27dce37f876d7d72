"""Blind rounds kept as regression tests: realistic wrong solutions and independent correct ones, written from
docs/contract.md and the student notebooks alone by someone who had not read ``autograder/hidden/``.

A round is a folder of this package (``blind42/``, its README says how it was written): one file per solution, five
header lines (notebook, cell, kind, contract, story), then the whole new source of one solution cell.  Every wrong
one becomes a mutant of the catalogue expecting the diagnosis the hidden checks give it on every seed (``EXPECTS``), every
correct one an alternative; the practice exercises are worth 0 points, so no hidden check can take points from a
wrong one (the notebook's own self-check tells it), and they are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

ROUNDS = ("blind42", "blind43", "blind44", "blind45")
PRACTICE = ("ex1-naive-scatter", "ex2-freeze", "ex3-full-length")  # 0 points: no hidden check

# the diagnosis each wrong solution is told on every seed (tests/test_check_consistency.py holds it to that)
EXPECTS = {
    "01-softmax-mean-centred": "softmax-unstable",
    "02-softmax-shape-buffer": "side-effect",
    "03-attention-inline-softmax": "wrong-value",
    "04-gap-first-sequence": "wrong-value",
    "07-embedding-rank2-backward": "wrong-value",
    "08-embedding-int64-only": "crashed",
    "09-embedding-float-ids-cast": "no-error-raised",
    "10-embedding-no-asarray": "crashed",
    "11-embedding-dE-buffer-in-init": "wrong-value",
    "12-numgrad-flat-view": "wrong-value",
    "13-numgrad-rank2-loop": "wrong-value",
    "14-relerr-global-ratio": "wrong-value",
    "15-relerr-abs-of-sum": "wrong-value",
    "18-table-cache-ignores-base": "stale-state",
    "19-table-isinstance-int": "crashed",
    "20-shift-repeated-product": "wrong-value",
    "21-shift-cache-k-C": "stale-state",
    "24-pos-stale-slab": "stale-state",
    "25-pos-len-x": "crashed",
    "27-layer-uint8-flat-index": "crashed",
    "28-layer-slot-loop-scatter": "wrong-gradient",
    "29-layer-freeze-read-in-forward": "wrong-value",
    "30-layer-position-block-cache": "stale-state",
    # blind round 43
    "01-softmax-subtract-mean": "softmax-unstable",
    "02-attention-inline-softmax": "wrong-value",
    "04-embedding-whole-float-ids": "no-error-raised",
    "05-embedding-scalar-fast-path": "no-error-raised",
    "06-embedding-unsigned-rejected": "crashed",
    "07-numgrad-ravel-copy": "wrong-value",
    "09-relerror-abs-of-sum": "wrong-value",
    "10-relerror-inplace-asarray": "side-effect",
    "11-sintable-isinstance-int": "crashed",
    "12-sintable-whole-float-size": "no-error-raised",
    "13-sintable-cache-ignores-base": "stale-state",
    "14-shift-negative-k-drops-base": "wrong-value",
    "16-posemb-forward-out-buffer": "side-effect",
    "17-posemb-dP-buffer-reuse": "side-effect",
    "18-layer-two-generators": "wrong-value",
    "19-layer-freeze-zeroes-old-dP": "side-effect",
    # blind round 44 (lesson 3: state and ignored arguments; history/ holds the one whose name depends on the calls
    # drawn before it, held to being caught in the same cells on every seed by tests/test_check_consistency.py)
    "01-table-dict-T-C": "stale-state",
    "02-table-last-table-sliced": "stale-state",
    "04-table-shared-buffer": "side-effect",
    "05-table-cache-T-base-column-slice": "wrong-value",
    "06-shift-dict-k-C": "stale-state",
    "07-shift-lru-negative-inplace": "stale-state",
    "08-table-int-base-default": "wrong-value",
    "09-table-odd-C-hardcoded-base": "wrong-value",
    "10-table-accepts-whole-float": "no-error-raised",
    "11-shift-negative-k-drops-base": "wrong-value",
    "12-shift-isinstance-int": "crashed",
    # blind round 45 (lessons 2, 4 and 5 over call sequences: kept buffers, memos, the freeze flag; history/ holds the
    # three whose name depends on the sequence drawn, held to being caught in the same cells on every seed)
    "01-embedding-onehot-buffer": "wrong-value",
    "02-embedding-whole-float-ids": "no-error-raised",
    "03-posemb-slab-memo": "stale-state",
    "04-posemb-output-buffer": "side-effect",
    "05-posemb-zero-grad-in-forward": "side-effect",
    "06-layer-freeze-flag-and": "stale-state",
    "07-layer-freeze-zeroes-old-dP": "side-effect",
}
# why no visible self-check can meet a catalogued one (Mutant.fresh_only): only the hidden checks' space draws it
FRESH_ONLY = {
    "01-softmax-mean-centred": "subtracting the mean is right on every fixed example of the self-checks (scores of one "
    "sign, or close together); only the space's spread wider than exp holds (-800 to 800) overflows it",
    "01-softmax-subtract-mean": "blind round 42's 01 again: the mean is right on every fixed example of the "
    "self-checks; only the space's spread from -800 to 800 overflows it",
}


def named_by_history() -> list[tuple]:
    """(name, notebook, cell, source) of the kept blind solutions whose diagnosis depends on which calls came before
    the failing one (a ``history/`` folder of a round): caught on every seed, named as each failing case shows."""
    return [(name, meta["notebook"], meta["cell"], text) for name, _, meta, text in _solutions("history")]


def _solutions(folder: str = "") -> list[tuple]:
    """(name, file stem, header, source) of every solution file of every round's ``folder``."""
    found = []
    for name in ROUNDS:
        for path in sorted((Path(__file__).parent / name / folder).glob("[0-9]*.py")):
            text = path.read_text()
            found.append((f"{name}-{path.stem}", path.stem, header(text), text))
    return found


def header(text: str) -> dict:
    return dict(re.findall(r"^#\s*(notebook|cell|kind):\s*(\S+)", text, re.M))


def rounds() -> list[tuple]:
    """(name, notebook, cell, expected diagnosis or None for a correct one, source, why only fresh cases catch it)
    of every kept blind solution."""
    solutions = []
    for name, stem, meta, text in _solutions():
        if meta["cell"] in PRACTICE:
            continue
        expects = None if meta["kind"] == "correct" else EXPECTS[stem]
        solutions.append((name, meta["notebook"], meta["cell"], expects, text, FRESH_ONLY.get(stem, "")))
    return solutions
