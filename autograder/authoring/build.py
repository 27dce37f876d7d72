"""assignments/ (jupytext percent .py) -> source/ (nbgrader source notebooks) -> release/ (student notebooks).

The build is deterministic: cell ids come from grade_ids or positions, so rebuilding changes no byte.
The release step runs the real ``nbgrader generate_assignment`` in a scratch course directory, so the
instructor's gradebook is never touched by a build.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import jupytext
import nbformat

from ..cells import grade_id
from ..config import CONFIG_FILE
from ..course import ASSIGNMENT, NOTEBOOKS, kit_assignment
from ..scratch import temporary_folder
from .rules import TOTAL_POINTS, AuthoringError, validate_notebook

FORBIDDEN_IN_RELEASE = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "autograder")


INCLUDE = re.compile(r"^# kit-include: (\S+)$", re.M)


PACKAGE = Path(__file__).resolve().parent.parent
PACKAGE_PREFIX = "package:"


def expand_includes(source: str, folder: Path, path: Path, _within: tuple = ()) -> str:
    """Replace each ``# kit-include: FILE`` line by that file (code every notebook shares, authored once),
    itself expanded.  FILE is relative to the authoring folder, or ``package:PATH`` inside the kit's
    package (the words the hidden checks also use, ``package:voice.py``)."""

    def include(match: re.Match) -> str:
        name = match.group(1)
        target = PACKAGE / name[len(PACKAGE_PREFIX) :] if name.startswith(PACKAGE_PREFIX) else folder / name
        if not target.is_file():
            raise AuthoringError(f"{path}: '# kit-include: {name}' names no file ({target})")
        if target in _within:
            raise AuthoringError(f"{path}: '# kit-include: {name}' includes itself (through {_within[-1].name})")
        text = target.read_text(encoding="utf-8").rstrip("\n")
        return expand_includes(text, folder, path, (*_within, target))

    return INCLUDE.sub(include, source)


CATALOGUE_ID = re.compile(r"""["']([A-Za-z]+(?:-[A-Za-z]+)+)["']""")
CATALOGUE_BLOCKS = ("CATALOGUE = {", "VOICE = {")


def catalogue_ids_used(sources: list[str]) -> set[str]:
    """The catalogue ids a notebook's own code names (quoted, as say("scatter-overwrite", ...) does)."""
    return {m.group(1) for text in sources for m in CATALOGUE_ID.finditer(text)}


def own_catalogue_only(voice_text: str, keep: set[str]) -> str:
    """voice.py's text with the CATALOGUE and VOICE entries of ids not in ``keep`` left out: a notebook carries
    its own lesson's words (headline and fix) and no other lesson's.  An entry is one line of CATALOGUE, or the
    lines of VOICE from ``    "id": (`` to its ``    ),``."""
    out, block, dropping = [], False, False
    for line in voice_text.splitlines():
        if line in CATALOGUE_BLOCKS:
            block = True
        elif block and line == "}":
            block = False
        elif block and dropping:
            dropping = line != "    ),"
            continue
        elif block and line.startswith('    "'):
            key = line[5:].split('"', 1)[0]
            if key not in keep:
                dropping = line.rstrip().endswith("(")
                continue
        out.append(line)
    return "\n".join(out)


def read_authored(path: Path) -> nbformat.NotebookNode:
    """Read one jupytext percent file as a clean nbformat 4.5 notebook with stable cell ids.  The one cell that
    includes the kit's words (``package:voice.py``) keeps only the catalogue entries this notebook's code names."""
    nb = jupytext.read(path)
    voice = f"# kit-include: {PACKAGE_PREFIX}voice.py"
    used = catalogue_ids_used([cell.source for cell in nb.cells])  # before any include is expanded
    for cell in nb.cells:
        if voice in cell.source:
            text = own_catalogue_only((PACKAGE / "voice.py").read_text(encoding="utf-8").rstrip("\n"), used)
            cell.source = cell.source.replace(voice, text)
        cell.source = expand_includes(cell.source, path.parent, path)
        cell.metadata.pop("lines_to_next_cell", None)  # jupytext's own layout hint
    nb.metadata.pop("jupytext", None)
    nb.metadata["language_info"] = {"name": "python"}
    nb.nbformat, nb.nbformat_minor = 4, 5
    for index, cell in enumerate(nb.cells):
        cell["id"] = grade_id(cell) or f"cell-{index}"
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def build_source(repo: Path, echo=print) -> list[Path]:
    """Validate every authored notebook, then write source/ (nothing is written if any fails).  The total is
    the author's: the points in the ``# %%`` headers; one other than TOTAL_POINTS is said, not refused."""
    authored = repo / "assignments" / ASSIGNMENT
    notebooks, total = {}, 0
    for name in NOTEBOOKS:
        path = authored / f"{name}.py"
        if not path.exists():
            raise AuthoringError(
                f"{path}: missing (every lesson of the contract, docs/contract.md, needs its authoring file)"
            )
        nb = read_authored(path)
        total += validate_notebook(path, nb, name)
        nbformat.validate(nb)
        notebooks[name] = nb
    if total != TOTAL_POINTS:
        echo(f"note: the points add up to {total} (the usual total is {TOTAL_POINTS}); scores are out of {total}")
    out_dir = kit_assignment(repo).source
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, nb in notebooks.items():
        target = out_dir / f"{name}.ipynb"
        target.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
        written.append(target)
    return written


def build_release(repo: Path) -> list[Path]:
    """Run nbgrader generate_assignment in a scratch course and copy release/ back."""
    with temporary_folder("build") as scratch:
        kit, scratch = kit_assignment(repo), Path(scratch)
        shutil.copy(kit.root / CONFIG_FILE, scratch / CONFIG_FILE)
        in_scratch = kit.in_course(scratch)
        shutil.copytree(kit.source, in_scratch.source)
        try:
            in_scratch.register(
                f"sqlite:///{scratch / 'gradebook.db'}", release_directory=kit.course.dirs.release_directory
            )
        except RuntimeError as e:
            raise AuthoringError(str(e)) from None
        out_dir = kit.release
        if out_dir.exists():
            shutil.rmtree(out_dir)
        out_dir.mkdir(parents=True)
        written = []
        for name in NOTEBOOKS:
            produced = in_scratch.notebook("release", name)
            text = produced.read_text(encoding="utf-8")
            for word in FORBIDDEN_IN_RELEASE:
                if word in text:
                    raise AuthoringError(f"{produced.name}: the release notebook contains {word!r}")
            target = out_dir / produced.name
            target.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
            written.append(target)
        return written


def build(repo: Path, echo=print) -> list[Path]:
    return build_source(repo, echo) + build_release(repo)
