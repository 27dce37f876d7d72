"""`make demo` / `python -m autograder demo`: the whole kit on a built-in class, in a scratch course.

A class of students (the reference, an untouched stub, an independent solution, a half-finished
notebook, the common misconceptions, one that hangs, one that kills its kernel, one broken file) is
written as a Canvas-style zip with a roster, collected, graded in parallel on a fresh SQLite
gradebook, given feedback, reported, and exported for Canvas (its gradebook CSV and the feedback zip
for re-upload).  The instructor's own course is never touched; the scratch course is kept, and the
last line says where and how large it is.
"""

from __future__ import annotations

import csv
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat

from ..cells import is_solution_cell
from ..classroom.lms.collect import collect
from ..classroom.lms.lms import export_to_lms
from ..classroom.run.batch import BatchOptions
from ..classroom.run.grade_command import grade_assignment
from ..classroom.run.progress import Progress
from ..course import ASSIGNMENT, NOTEBOOKS, Assignment, Course, kit_assignment, make_scratch_course, repo_root
from .mutants import catalogue
from .personas import filled_notebook, reference_solutions

HANG = "        while True:  # an infinite loop in backward\n            pass\n"

# student id -> (LMS login, what they handed in): mutant names per notebook, or a special persona
CLASS = {
    "s01-ada": ("lovelace", "reference"),
    "s02-ben": ("bennett", "stub"),
    "s03-cleo": ("cleopatra", "independent"),
    "s04-dev": ("devi", "half-done"),
    "s05-eli": ("eliot", ["scatter-overwrite"]),
    "s06-fay": ("fayez", ["sin-cos-swap"]),
    "s07-gus": ("gustavo", ["halves-not-interleaved", "dP-not-summed"]),
    "s08-hana": ("hanako", ["softmax-unstable", "attention-unscaled"]),
    "s09-ivo": ("ivanov", ["positions-by-token"]),
    "s10-jun": ("junko", ["freeze-ignored", "scatter-overwrite"]),
    "s11-kai": ("kaiser", ["grad-accumulates", "one-sided-difference"]),
    "s12-lea": ("leandra", ["freq-sign", "no-restore"]),
    "s13-max": ("maxwell", "hangs"),
    "s14-nia": ("nia", "crashes"),
    "s15-oz": ("osbourne", "broken-file"),
    "s16-pia": ("piaget", ["scatter-overwrite", "positions-missing"]),
}


def _mutant_overrides(names: list[str]) -> dict[str, dict[str, str]]:
    mutants, _ = catalogue()
    by_name = {m.name: m for m in mutants}
    per_notebook: dict[str, dict[str, str]] = {}
    for name in names:
        m = by_name.get(name) or next(x for x in mutants if x.expects == name)
        per_notebook.setdefault(m.notebook, {})[m.cell] = m.cell_source(
            reference_solutions(repo_root(), m.notebook)[m.cell]
        )
    return per_notebook


def hung_in_backward(hang: str = HANG) -> nbformat.NotebookNode:
    """Lesson 2 of the reference with ``hang`` (lines of a method's body) at the start of Embedding.backward."""
    cell = reference_solutions(repo_root(), "02_token_embeddings")["embedding"]
    hung = cell.replace("        idx = self.cache\n", hang + "        idx = self.cache\n", 1)
    if hung == cell:
        raise ValueError("lesson 2's reference Embedding.backward no longer starts with `idx = self.cache`")
    return filled_notebook(repo_root(), "02_token_embeddings", {"embedding": hung})


def persona_notebooks(persona) -> dict[str, object]:
    """notebook name -> NotebookNode (or raw text for a broken file) for one persona."""
    repo = repo_root()
    if persona == "stub":
        return {n: kit_assignment(repo).notebook("release", n).read_text() for n in NOTEBOOKS}
    if persona == "independent":
        _, alternatives = catalogue()
        out = {}
        for n in NOTEBOOKS:
            overrides, reference = {}, reference_solutions(repo, n)
            for alt in alternatives:
                if alt.notebook == n and alt.cell not in overrides:
                    overrides[alt.cell] = alt.cell_source(reference[alt.cell])
            out[n] = filled_notebook(repo, n, overrides)
        return out
    if persona == "half-done":
        return {n: filled_notebook(repo, n, solve=i < 3) for i, n in enumerate(NOTEBOOKS)}
    notebooks = {n: filled_notebook(repo, n) for n in NOTEBOOKS}
    if persona == "hangs":
        notebooks["02_token_embeddings"] = hung_in_backward()
    elif persona == "crashes":
        notebooks["03_sinusoidal"] = filled_notebook(repo, "03_sinusoidal", {})
        for cell in notebooks["03_sinusoidal"].cells:
            if is_solution_cell(cell):
                cell.source = "import os\nos._exit(3)\n" + cell.source
                break
    elif persona == "broken-file":
        text = nbformat.writes(notebooks["04_learned_positions"])
        notebooks["04_learned_positions"] = text[: len(text) // 2]  # a truncated upload
    elif isinstance(persona, list):
        for nb, overrides in _mutant_overrides(persona).items():
            notebooks[nb] = filled_notebook(repo, nb, overrides)
    return notebooks


def build_class_zip(target: Path) -> tuple[Path, Path]:
    """The class as an LMS download (Canvas-style names) plus its roster CSV."""
    roster = target.with_suffix(".roster.csv")
    with open(roster, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "login", "lms_id"])
        for i, (student, (login, _)) in enumerate(CLASS.items()):
            writer.writerow([student, login, 1000 + i])
    stamp = time.localtime()[:6]
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for i, (_student, (login, persona)) in enumerate(CLASS.items()):
            for name, nb in persona_notebooks(persona).items():
                text = nb if isinstance(nb, str) else nbformat.writes(nb)
                info = zipfile.ZipInfo(f"submissions/{login}_{1000 + i}_{5000 + i}_{name}.ipynb", date_time=stamp)
                z.writestr(info, text)
        z.writestr(zipfile.ZipInfo("submissions/readme_from_lms.txt", date_time=stamp), "Downloaded from the LMS\n")
    return target, roster


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


# What a course root keeps out of git, as the kit's own repository (a course root too) does: the class roster
# (names, e-mails, LMS ids), submissions, grades, feedback and the kit's records.
COURSE_GITIGNORE = """\
roster.csv
*roster*.csv
submitted/
autograded/
feedback/
gradebook.db
gradebook.db-journal
.gradebook.db.*.lock
grades.csv
reports/
.kit/
*-canvas.csv
*-moodle.csv
feedback-upload.zip
"""


def run_demo(workdir: Path | None = None, jobs: int = 2) -> Path:
    base = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="kit-demo-"))
    course = base / "course"
    print(f"demo course (scratch, never your own): {course}")
    db_url = make_scratch_course(course)
    (course / ".gitignore").write_text(COURSE_GITIGNORE)  # a course put under git keeps its students' data out
    zip_path, roster = build_class_zip(base / "class-download.zip")
    print(f"\n$ autograder collect {ASSIGNMENT} {zip_path.name} --roster {roster.name}")
    print(collect(course, ASSIGNMENT, zip_path, roster).text())
    print(f"\n$ autograder grade {ASSIGNMENT} --jobs {jobs}")
    grade_assignment(
        Assignment(Course(course), ASSIGNMENT),
        db_url=db_url,
        options=BatchOptions(jobs=jobs, notebook_budget=20.0, cell_timeout=10),
        progress=Progress(quiet=None),
    )
    print(f"\n$ autograder export {ASSIGNMENT} --to canvas --roster {roster.name} --feedback-zip")
    export_to_lms(
        course, ASSIGNMENT, to="canvas", roster=roster, db_url=db_url, feedback=course / "feedback-upload.zip"
    )
    print(
        f"\nThe demo course stays for you to look at: {base} ({folder_size(base) / 2**20:.0f} MiB), with the class "
        f"report {course / 'reports' / ASSIGNMENT / 'index.html'}."
        + ("" if workdir else f" It is in the temporary folder; remove it with: rm -rf {base}")
    )
    return course
