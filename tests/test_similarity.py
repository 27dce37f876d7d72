"""The similarity report: a renamed, reordered copy stands out; independent solutions in different styles
do not.  The class is made of submitted notebooks only (the step reads nothing else), so nothing is graded."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.classroom.similarity.similarity import PAST_PREFIX, normalise, solution_code, starter_notebook, tokens
from autograder.classroom.similarity.similarity_command import run_similarity, similarity_options
from autograder.cli import main as cli
from autograder.config import SimilarityConfig
from autograder.course import ASSIGNMENT, Assignment, Course, make_scratch_course
from autograder.devtools.mutants import catalogue
from autograder.devtools.personas import filled_notebook, reference_solutions, write_submission

REPO = Path(__file__).resolve().parent.parent
LAYER, EMBED = "05_embedding_layer", "02_token_embeddings"
THRESHOLD = SimilarityConfig().threshold

# lesson 5's constructor, as the release gives it (not the student's work)
INIT = reference_solutions(REPO, LAYER)["embedding-layer"].split("    def forward")[0]

# Two students who wrote the layer themselves, sharing the lesson's idioms (np.add.at, E[idx] + P[:T]).
HAND_LAYER = {
    "hand-newaxis": INIT
    + """    def forward(self, idx):
        idx = np.asarray(idx, dtype=int)
        T = idx.shape[1]
        if T > self.block_size:
            raise ValueError("block_size exceeded")
        tok = self.E[idx]
        pos = self.P[np.arange(T)]
        self.cache = idx
        return tok + pos[np.newaxis, :, :]

    def backward(self, dout):
        idx = self.cache
        T = idx.shape[1]
        dE = np.zeros(self.E.shape)
        for b in range(idx.shape[0]):
            np.add.at(dE, idx[b], dout[b])
        self.dE = dE
        dP = np.zeros(self.P.shape)
        if not self.freeze_positions:
            dP[:T] = np.sum(dout, axis=0)
        self.dP = dP
""",
    "hand-flat": INIT
    + """    def forward(self, idx):
        ids = np.array(idx)
        if ids.ndim != 2:
            raise ValueError("expected (B, T) ids")
        B, T = ids.shape
        if T > self.block_size:
            raise ValueError(f"T={T} > block_size")
        self.cache = ids
        out = self.E[ids]
        out += self.P[:T]
        return out

    def backward(self, dout):
        ids = self.cache
        T = ids.shape[-1]
        dE = np.zeros_like(self.E)
        np.add.at(dE, ids.reshape(-1), dout.reshape(-1, self.C))
        dP = np.zeros_like(self.P)
        dP[:T] = 0 if self.freeze_positions else dout.sum(0)
        self.dE, self.dP = dE, dP
        return None
""",
}

# The copier: the reference with its names changed, its methods swapped, its comments and layout redone.
COPIED_LAYER = (
    INIT
    + '''    # backward first, why not
    def backward(self, grad_out):

        tokens, length = self.cache
        self.dE = np.zeros_like( self.E )
        np.add.at(self.dE, tokens, grad_out)   # repeats add up
        self.dP = np.zeros_like(self.P)
        if not self.freeze_positions:
            self.dP[:length] = grad_out.sum(axis = 0)
        return None

    def forward(self, ids):
        """Look the rows up."""
        ids = np.asarray(ids)
        batch, length = ids.shape
        if length > self.block_size:
            raise ValueError(f"too long: {length} > {self.block_size}")
        self.cache = (ids, length)
        return (self.E[ids]
                + self.P[:length])
'''
)

HAND_REL_ERROR = """def rel_error(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    denominator = np.maximum(np.abs(a) + np.abs(b), 1e-12)
    return float((np.abs(a - b) / denominator).max())
"""


def alternatives(notebook: str) -> dict[str, dict[str, str]]:
    """grade id -> {name: source} of the catalogue's correct alternatives of a notebook."""
    found: dict[str, dict[str, str]] = {}
    reference = reference_solutions(REPO, notebook)
    for alt in catalogue()[1]:
        if alt.notebook == notebook:
            found.setdefault(alt.cell, {})[alt.name] = alt.cell_source(reference[alt.cell])
    return found


def rename(source: str, names: dict[str, str]) -> str:
    import re

    for old, new in names.items():
        source = re.sub(rf"\b{old}\b", new, source)
    return source


def embedding_students() -> dict[str, dict[str, str]]:
    """Lesson 2: three students, each of whose three cells is their own (reference, or the catalogue's
    alternatives, or written here), and a copy of the second with names, order and comments changed."""
    alt = alternatives(EMBED)
    first = {
        "embedding": alt["embedding"]["embedding-loops-bincount"],
        "numerical-gradient": alt["numerical-gradient"]["numgrad-flat-index"],
        "rel-error": alt["rel-error"]["rel-error-loop"],
    }
    second = {
        "embedding": alt["embedding"]["embedding-sorted-onehot"],
        "numerical-gradient": alt["numerical-gradient"]["numgrad-nditer"],
        "rel-error": HAND_REL_ERROR,
    }
    copy = {
        gid: "# my own work\n"
        + rename(
            src,
            {
                "flat": "ids_1d",
                "out": "result",
                "grad": "g_num",
                "g": "G",
                "ids": "tokens",
                "i": "j",
                "k": "pos",
                "c": "col",
            },
        )
        for gid, src in first.items()
    }
    head, forward_and_backward = copy["embedding"].split("    def forward")
    forward, backward = forward_and_backward.split("    def backward")
    copy["embedding"] = head + "    def backward" + backward.rstrip() + "\n\n    def forward" + forward
    return {"ref": reference_solutions(REPO, EMBED), "alt-one": first, "alt-two": second, "copier": copy}


def layer_students() -> dict[str, str]:
    students = {"ref": reference_solutions(REPO, LAYER)["embedding-layer"], "copier": COPIED_LAYER, **HAND_LAYER}
    students.update(alternatives(LAYER)["embedding-layer"])
    return students


def make_class(course: Path) -> Path:
    """A course with source/, release/ and a class of submitted notebooks (two notebooks each)."""
    kit = Course(REPO)
    course.mkdir(parents=True)
    shutil.copy(REPO / "nbgrader_config.py", course / "nbgrader_config.py")
    for step in ("source", "release"):
        shutil.copytree(kit.folder(step), Course(course).folder(step))
    embed, layer = embedding_students(), layer_students()
    for student in sorted(set(embed) | set(layer)):
        notebooks = {}
        if student in embed:
            notebooks[EMBED] = filled_notebook(REPO, EMBED, embed[student], solve=False)
        if student in layer:  # the practice exercises left as released: not the student's code
            notebooks[LAYER] = filled_notebook(REPO, LAYER, {"embedding-layer": layer[student]}, solve=False)
        write_submission(course, student, notebooks)
    write_submission(course, "garbled", {LAYER: b"{not json"})
    release = Course(REPO).folder("release")
    write_submission(
        course, "stub", {n: nbformat.read(str(release / f"{n}.ipynb"), as_version=4) for n in (EMBED, LAYER)}
    )
    return course


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    return make_class(tmp_path_factory.mktemp("similar") / "course")


@pytest.fixture(scope="module")
def outcome(course):
    return run_similarity(Assignment(Course(course)), None, similarity_options(course))


def by_notebook(outcome, notebook):
    (result,) = [r for r in outcome.results if r.notebook == notebook]
    return result


@pytest.mark.parametrize("notebook", [LAYER, EMBED])
def test_the_copied_pair_ranks_first_by_a_clear_margin(outcome, notebook):
    result = by_notebook(outcome, notebook)
    first, *others = result.pairs
    copied = {"ref", "copier"} if notebook == LAYER else {"alt-one", "copier"}
    assert {first.student_a, first.student_b} == copied, result.pairs[:3]
    assert first.score >= 0.9, first
    assert others and first.score - max(p.score for p in others) >= 0.5, (first, others[:3])


@pytest.mark.parametrize("notebook", [LAYER, EMBED])
def test_no_honest_pair_crosses_the_default_threshold(outcome, notebook):
    result = by_notebook(outcome, notebook)
    copier_twin = {"ref", "copier"} if notebook == LAYER else {"alt-one", "copier"}
    honest = [p for p in result.pairs if {p.student_a, p.student_b} != copier_twin]
    assert len(result.documents) >= 4
    assert honest and max(p.score for p in honest) < THRESHOLD, honest[:3]
    assert [(p.student_a, p.student_b) for p in outcome.flagged if p.notebook == notebook] == [
        tuple(sorted(copier_twin))
    ]


def test_students_who_handed_in_nothing_are_not_paired(outcome):
    layer = by_notebook(outcome, LAYER)
    assert "stub" in layer.unpaired and "stub" not in layer.documents
    for student in ("alt-one", "alt-two"):  # submitted lesson 2 only
        assert layer.unpaired[student] == "no notebook submitted"
    assert all("stub" not in (p.student_a, p.student_b) for r in outcome.results for p in r.pairs)
    untouched = [r for r in outcome.results if r.notebook not in (LAYER, EMBED)]
    assert untouched and all(not r.pairs and not r.documents for r in untouched)


def test_an_unreadable_notebook_is_named_and_the_class_goes_on(outcome):
    layer = by_notebook(outcome, LAYER)
    assert layer.unpaired["garbled"].startswith(f"unreadable: {LAYER}.ipynb: not a notebook: invalid JSON")
    assert len(layer.documents) == len(layer_students()) and layer.pairs  # every student's but the garbled one


def test_the_csv_ranks_pairs_per_notebook(outcome):
    with open(outcome.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["notebook", "student_a", "student_b", "score"]
    for notebook in (LAYER, EMBED):
        scores = [float(r["score"]) for r in rows if r["notebook"] == notebook]
        assert scores == sorted(scores, reverse=True) and 0 <= scores[-1] <= scores[0] <= 1
    assert {r["notebook"] for r in rows} == {LAYER, EMBED}


def test_the_page_marks_the_matching_regions_and_accuses_nobody(outcome):
    page = outcome.page.read_text()
    assert "for a person to review" in page and "not a finding" in page
    assert page.count("<mark>") > 4 and "characters of tokenized code lie in regions both have" in page
    assert "copier" in page and "np.add.at" in page
    for word in ("plagiar", "cheat", "guilty"):
        assert word not in page.lower()


def test_normalising_removes_what_copiers_change():
    a = '''class A:
    def f(self, x):
        """Doc."""
        return x + 1  # one

    def g(self, y):
        return y * 2
'''
    b = """class A:

    def g(self, q):
        return (q *
                2)
    def f(self, z):
        return z+1
"""
    assert tokens(normalise(a))[0] == tokens(normalise(b))[0]
    assert normalise("%timeit x = 1\nx = 2") == "x = 2"
    assert normalise("def broken(:\n  pass") == "def broken(:\n  pass"  # compared as written


def test_past_terms_are_compared_with_the_class_but_not_with_each_other(course, tmp_path):
    past = tmp_path / "past"
    for term, student in (("2024", "ann"), ("2025", "bob")):
        target = past / term / student
        target.mkdir(parents=True)
        shutil.copy(Course(course).notebook("submitted", LAYER, ASSIGNMENT, "hand-flat"), target / f"{LAYER}.ipynb")
    out = run_similarity(Assignment(Course(course)), tmp_path / "reports", similarity_options(course, past=str(past)))
    pairs = by_notebook(out, LAYER).pairs
    assert {(p.student_a, p.student_b) for p in pairs if p.score > 0.9} >= {
        ("hand-flat", f"{PAST_PREFIX}2024/ann"),
        ("hand-flat", f"{PAST_PREFIX}2025/bob"),
    }
    assert not [p for p in pairs if p.student_a.startswith(PAST_PREFIX) and p.student_b.startswith(PAST_PREFIX)]


def test_the_command_prints_the_top_pairs_and_where_it_wrote(course, capsys):
    assert cli(["similarity", ASSIGNMENT, "--course-dir", str(course)]) == 0
    out = capsys.readouterr().out
    assert f"{LAYER}: {len(layer_students())} compared" in out and "1.00  copier ~ ref" in out
    assert "similarity.csv" in out and "similarity.html" in out
    assert cli(["similarity", ASSIGNMENT, "--course-dir", str(course), "--past", str(course / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_the_threshold_comes_from_nbgrader_config(course, tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.SimilarityConfig.threshold = 0.1\n")
    options = similarity_options(tmp_path)
    assert options.threshold == 0.1 and similarity_options(tmp_path, threshold=0.7).threshold == 0.7
    out = run_similarity(Assignment(Course(course)), tmp_path / "reports", options)
    assert len(out.flagged) > 2 and min(p.score for p in out.flagged) >= 0.1
    assert "Pairs scoring at least 0.1" in out.report_section()


def test_without_a_release_folder_the_starter_is_cleared_from_the_source(tmp_path):
    """A course graded from a scratch copy has source/ only: the student copy its registration wrote, or without
    one nbgrader's ClearSolutions, gives the same starter as the release."""
    shutil.copytree(Course(REPO).folder("source"), Course(tmp_path).folder("source"))
    registered = tmp_path / "registered"
    make_scratch_course(registered)
    assert not (registered / "release").exists() and Assignment(Course(registered)).registered_release.is_dir()
    for notebook in (EMBED, LAYER):
        released = solution_code(starter_notebook(Assignment(Course(REPO)), notebook))
        for course in (tmp_path, registered):
            cleared = solution_code(starter_notebook(Assignment(Course(course)), notebook))
            assert cleared == released and "raise NotImplementedError()" in "".join(cleared.values()), course


def test_copydetects_functions_load_without_its_package_and_compare_as_its_own(tmp_path):
    """The kit loads copydetect's utils alone (its package imports matplotlib.pyplot, 0.4 s per graded run), in a
    fresh Python: nothing of copydetect or matplotlib stays imported, and the kit's compare_files gives what
    copydetect's own gives on a copied pair and on a pair with nothing in common."""
    script = r"""
import sys
from autograder.classroom.similarity import similarity, winnowing
code = ["def forward(self, idx):\n    out = self.E[idx]\n    self.idx = idx\n    return out\n" * 3,
        "def forward(self, ids):\n    y = self.E[ids]\n    self.idx = ids\n    return y\n" * 3 + "x = 1\n",
        "print('hello, this is not the same at all, not a single line of it')\n"]
prints = [similarity.fingerprint(c, set()) for c in code]
ours = [winnowing.compare_files(prints[0], prints[i]) for i in (1, 2)]
assert not [m for m in sys.modules if m.startswith(("copydetect", "matplotlib"))], sorted(sys.modules)
import copydetect
theirs = [copydetect.compare_files(prints[0], prints[i]) for i in (1, 2)]
assert ours[0][0] > 0 and ours[1][0] == 0, ours
for (n, shares, slices), (n2, shares2, slices2) in zip(ours, theirs):
    assert n == n2 and shares == shares2, (n, shares, n2, shares2)
    assert all((a == b).all() for a, b in zip(slices, slices2)), (slices, slices2)
print("same")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout.strip() == "same", done.stderr
