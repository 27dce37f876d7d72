"""Similar submissions: each notebook's solution cells compared across the class with copydetect.

nbgrader has no such step, and a whole notebook is useless to compare: the lesson text, the self-checks
and the starter code are the same in every copy and drown the signal.  So only the solution cells are
compared, and only what the student wrote in them:

1. each solution cell is *normalised* with Python's own ``ast``: docstrings and comments dropped,
   the layout rewritten by ``ast.unparse`` (blank lines, spacing, parentheses, quotes), and the
   methods of a class and a run of top-level functions put in one canonical order, so that reordering
   them changes nothing;
2. copydetect (MOSS's winnowing) fingerprints the result after its own tokenizer has turned every
   name into one placeholder, so renamed variables change nothing either;
3. fingerprints of the released starter code (the stub's signatures and fixed lines) are boilerplate,
   and so is any fingerprint that many submissions share (``SimilarityConfig.common_share``, MOSS's
   ``-m``): the short NumPy idioms every honest student writes (``np.add.at(self.dE, idx, dout)``);
4. a pair's score is the share of both students' remaining code that lies in regions the two have in
   common (copydetect's per-file similarity, averaged over the two files), from 0 to 1.

A student whose notebook is missing, or whose solution cells still hold only the starter code, is not
paired.  Earlier terms' submissions (any folder holding ``NOTEBOOK.ipynb`` files) are compared with the
class too, never with each other.
"""

from __future__ import annotations

import ast
import builtins
import csv
import io
import keyword
import math
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from ...cells import grade_id, is_solution_cell
from ...course import Assignment
from ...notebooks import read_notebook

NOISE = 25  # copydetect's noise threshold: matches shorter than this many tokenized characters never count
GUARANTEE = 30  # ... and matches this long are always found (window = GUARANTEE - NOISE + 1)
PAST_PREFIX = "past:"


@dataclass
class Document:
    """One student's solution code of one notebook, normalised, with its copydetect fingerprint."""

    student: str
    code: str
    fingerprint: Fingerprint = field(repr=False)

    @property
    def past(self) -> bool:
        return self.student.startswith(PAST_PREFIX)


@dataclass(frozen=True)
class Pair:
    notebook: str
    student_a: str
    student_b: str
    score: float  # the mean of share_a and share_b
    share_a: float  # of a's compared code, the part inside regions b has too
    share_b: float
    matched: int  # tokenized characters in matching regions (of a)


@dataclass
class NotebookResult:
    notebook: str
    documents: dict[str, Document]
    pairs: list[Pair]  # highest score first; pairs with nothing in common left out
    unpaired: dict[str, str]  # student -> why they were not compared


# ---------------------------------------------------------------- normalising


DEFINITIONS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _shape(node: ast.AST) -> str:
    """A definition's structure with every name left out: the order key that renaming cannot move."""
    return " ".join(type(n).__name__ + (repr(n.value) if isinstance(n, ast.Constant) else "") for n in ast.walk(node))


def _canonical_order(body: list[ast.stmt]) -> list[ast.stmt]:
    """Each run of consecutive function definitions sorted by shape, so reordered methods compare equal."""
    out, run = [], []
    for stmt in body + [None]:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            run.append(stmt)
            continue
        out += sorted(run, key=_shape) if len(run) > 1 else run
        run = []
        if stmt is not None:
            out.append(stmt)
    return out


def _tidy(body: list[ast.stmt], sort: bool = True) -> list[ast.stmt]:
    """A body without its docstring (prose: two students who describe a function alike have not shared
    code), its definitions tidied in turn and, in a module or a class, put in canonical order.  Only
    definitions are entered: the rest of the tree holds no docstring and no methods to sort."""
    body = body[1:] if body and _is_docstring(body[0]) else body
    for node in body:
        if isinstance(node, DEFINITIONS):
            node.body = _tidy(node.body, sort=isinstance(node, ast.ClassDef))
    return _canonical_order(body or [ast.Pass()]) if sort else (body or [ast.Pass()])


MAGIC = re.compile(r"^\s*[%!].*$", re.M)  # IPython magics and shell escapes: not Python, not the solution


def normalise(source: str) -> str:
    """A solution cell as the comparison sees it (see the module's docstring); a cell Python cannot
    parse is compared as written."""
    try:
        tree = ast.parse(MAGIC.sub("", source))
    except (SyntaxError, ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return source
    tree.body = _tidy(tree.body)
    try:
        return ast.unparse(tree)
    except RecursionError:
        return source


def solution_code(nb) -> dict[str, str]:
    """grade id -> the normalised source of each code solution cell of a notebook (written answers in
    markdown are prose, not compared)."""
    return {
        grade_id(cell): normalise(cell.source)
        for cell in nb.cells
        if is_solution_cell(cell) and cell.cell_type == "code"
    }


def joined(cells: dict[str, str], starter: dict[str, str]) -> str:
    """One document of a notebook's solution cells, in the starter's order, each under its grade id (a
    comment: the fingerprint never sees it); cells still as the starter left them are left out."""
    parts = [f"# --- {gid} ---\n{cells[gid]}" for gid in starter if cells.get(gid, starter[gid]) != starter[gid]]
    return "\n\n".join(parts)


# ---------------------------------------------------------------- fingerprints

KEPT = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"self"}
DROPPED = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def tokens(code: str) -> tuple[str, list[int]]:
    """The code as the fingerprint sees it, and where in ``code`` the token of each of its characters starts
    (one more entry: where the last token ends), so marked regions begin and end on whole tokens: every name
    but a keyword, a builtin or ``self`` becomes ``V``, every string ``S``; comments and layout go.  The
    same filtering as copydetect's own (pygments-based) one, on Python's tokenizer: six times faster."""
    starts = [0]
    for line in code.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    text, where, end = [], [], 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in DROPPED or tok.type in STRING_PARTS:
                continue
            at = starts[tok.start[0] - 1] + tok.start[1]
            if tok.type == tokenize.NAME and tok.string not in KEPT:
                piece = "V"
            elif tok.type in STRINGS:
                piece = "S"
            else:
                piece = tok.string
            text.append(piece)
            where += [at] * len(piece)
            end = starts[tok.end[0] - 1] + tok.end[1]
    except (tokenize.TokenError, SyntaxError):  # not Python after all: compared as written, less its layout
        where = [i for i, ch in enumerate(code) if not ch.isspace()]
        return "".join(code[i] for i in where), where + [where[-1] + 1 if where else 0]
    return "".join(text), where + [end]


STRINGS = {tokenize.STRING} | ({tokenize.FSTRING_START} if hasattr(tokenize, "FSTRING_START") else set())
STRING_PARTS = {getattr(tokenize, name) for name in ("FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, name)}


@dataclass
class Fingerprint:
    """copydetect's CodeFingerprint, made from our own tokens (its attributes, so that copydetect's
    ``compare_files`` compares two of them and maps the matches back onto the readable code)."""

    raw_code: str
    filtered_code: str
    offsets: object  # copydetect's (filtered index, characters to add) table
    hashes: set
    hash_idx: dict
    token_coverage: int
    k: int = NOISE


def kgram_hashes(filtered: str):
    """The hash of every k-gram (a polynomial hash, all k-grams at once), the same in every run:
    copydetect's own uses Python's ``hash()``, which changes with each process (PYTHONHASHSEED), and with
    it which fingerprints winnowing picks, and so the scores."""
    import numpy as np

    codes = np.frombuffer(filtered.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    count = len(codes) - NOISE + 1
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    hashes = np.zeros(count, dtype=np.uint64)
    for j in range(NOISE):  # wraps around modulo 2**64, as intended
        hashes = hashes * np.uint64(1_000_003) + codes[j : j + count]
    return hashes.view(np.int64)


def fingerprint(code: str, boilerplate: set) -> Fingerprint:
    """copydetect's winnowing (``get_document_fingerprints``) over our tokens and stable hashes."""
    import numpy as np

    from .winnowing import utils

    get_token_coverage, winnow = utils().get_token_coverage, utils().winnow
    filtered, where = tokens(code)
    at = np.array(where, dtype=np.int64)
    offsets = np.column_stack([np.arange(len(at)), at - np.arange(len(at))])
    hashes, idx = winnow(kgram_hashes(filtered), window_size=GUARANTEE - NOISE + 1, remove_duplicates=False)
    hash_idx: dict[int, list[int]] = {}
    for value, i in zip(hashes.tolist(), idx.tolist()):
        if value not in boilerplate:
            hash_idx.setdefault(value, []).append(i)
    return Fingerprint(
        code, filtered, offsets, set(hash_idx), hash_idx, get_token_coverage(hash_idx, NOISE, len(filtered))
    )


def boilerplate_hashes(starter: dict[str, str]) -> set:
    """Every k-gram of the starter code (no winnowing: all of it is boilerplate)."""
    return set(kgram_hashes(tokens("\n\n".join(starter.values()))[0]).tolist())


def drop_hashes(fp, hashes: set) -> None:
    """Remove fingerprints shared too widely to tell anything (MOSS's -m), keeping copydetect's
    bookkeeping (its coverage) consistent."""
    from .winnowing import utils

    fp.hashes -= hashes
    fp.hash_idx = {h: i for h, i in fp.hash_idx.items() if h not in hashes}
    fp.token_coverage = utils().get_token_coverage(fp.hash_idx, fp.k, len(fp.filtered_code))


def common_limit(documents: int, share: float) -> int:
    """A fingerprint in more than this many documents is common knowledge, not evidence."""
    return max(3, math.ceil(share * documents))


# ---------------------------------------------------------------- comparing


def compare(notebook: str, a: Document, b: Document) -> Pair | None:
    from .winnowing import compare_files

    if not a.fingerprint.hashes & b.fingerprint.hashes:
        return None
    matched, (share_a, share_b), _ = compare_files(a.fingerprint, b.fingerprint)
    if not matched:
        return None
    share_a, share_b = min(float(share_a), 1.0), min(float(share_b), 1.0)
    return Pair(notebook, a.student, b.student, (share_a + share_b) / 2, share_a, share_b, int(matched))


def matching_regions(a: Document, b: Document):
    """copydetect's matching slices of a's and b's normalised code (for the page)."""
    from .winnowing import compare_files

    return compare_files(a.fingerprint, b.fingerprint)[2]


def compare_notebook(
    notebook: str,
    starter_nb,
    submissions: dict[str, Path | None],
    past: dict[str, Path] | None = None,
    common_share: float = 0.1,
) -> NotebookResult:
    """Rank every pair of students (and every student against every past submission) on one notebook."""
    starter = solution_code(starter_nb)
    boilerplate = boilerplate_hashes(starter)
    documents, unpaired = {}, {}
    for student, path in {**submissions, **(past or {})}.items():
        if path is None or not path.exists():
            unpaired[student] = "no notebook submitted"
            continue
        try:
            cells = solution_code(read_notebook(path, validate=False))
        except ValueError as e:  # names the file and what is wrong with it; the rest of the class goes on
            unpaired[student] = f"unreadable: {e}"
            continue
        except Exception as e:  # noqa: BLE001 - valid JSON of another shape (a cell that is not an object...)
            unpaired[student] = f"unreadable: {path.name}: {type(e).__name__}: {e}"
            continue
        code = joined(cells, starter)
        if not code:
            unpaired[student] = "solution cells hold only the starter code"
            continue
        documents[student] = Document(student, code, fingerprint(code, boilerplate))
    frequency = Counter(h for d in documents.values() for h in d.fingerprint.hashes)
    limit = common_limit(len(documents), common_share)
    common = {h for h, n in frequency.items() if n > limit}
    for student, doc in list(documents.items()):
        drop_hashes(doc.fingerprint, common)
        if not doc.fingerprint.token_coverage:
            unpaired[student] = "nothing left to compare once the starter code and common idioms are set aside"
            del documents[student]
    pairs = [
        pair
        for a, b in combinations(documents.values(), 2)
        if not (a.past and b.past)
        for pair in [compare(notebook, a, b)]
        if pair
    ]
    pairs.sort(key=lambda p: (-p.score, p.student_a, p.student_b))
    return NotebookResult(notebook, documents, pairs, unpaired)


# ---------------------------------------------------------------- the class


def starter_notebook(assignment: Assignment, notebook: str):
    """The released notebook (the starter code every student began from); when the course has no
    release/ copy, the student copy the kit's registration wrote (nbgrader's generate_assignment of the same
    source), else nbgrader's own ClearSolutions makes it from the source, as the release would."""
    for released in (assignment.notebook("release", notebook), assignment.registered_release / f"{notebook}.ipynb"):
        if released.exists():
            return read_notebook(released, validate=False)
    from nbgrader.preprocessors import ClearSolutions

    nb = read_notebook(assignment.notebook("source", notebook))
    return ClearSolutions().preprocess(nb, {})[0]


def past_submissions(folder: Path, notebook: str) -> dict[str, Path]:
    """``past:TERM/STUDENT`` -> an earlier term's ``NOTEBOOK.ipynb``, anywhere under ``folder``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"past submissions: {folder} is not a folder")
    return {PAST_PREFIX + str(p.parent.relative_to(folder)): p for p in sorted(folder.rglob(f"{notebook}.ipynb"))}


def compare_class(assignment: Assignment, past: Path | None = None, common_share: float = 0.1) -> list[NotebookResult]:
    """Every notebook of the assignment, the submitted copies of every student compared.  One process:
    256 students take about ten seconds of CPU (benchmarks/bench_similarity.py), less than spawning
    workers that import NumPy and copydetect would save."""
    students = assignment.students("submitted")
    results = []
    for source in assignment.source_notebooks():
        name = source.stem
        submissions = {s: folder / f"{name}.ipynb" for s, folder in students.items()}
        earlier = past_submissions(past, name) if past else None
        results.append(compare_notebook(name, starter_notebook(assignment, name), submissions, earlier, common_share))
    return results


def write_csv(results: list[NotebookResult], target: Path) -> Path:
    """``notebook, student_a, student_b, score``: each notebook's pairs, highest score first."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["notebook", "student_a", "student_b", "score"])
        for result in results:
            for p in result.pairs:
                writer.writerow([p.notebook, p.student_a, p.student_b, f"{p.score:.3f}"])
    return target


def flagged(results: list[NotebookResult], threshold: float) -> list[Pair]:
    """The pairs the class report lists: at or above the threshold, highest first."""
    return sorted((p for r in results for p in r.pairs if p.score >= threshold), key=lambda p: -p.score)
