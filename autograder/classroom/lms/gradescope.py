"""The kit on Gradescope: ``python -m autograder gradescope ASSIGNMENT`` builds ``autograder.zip``.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once (as root) to build the
image, then runs ``run_autograder`` in a fresh container for every submission, with the student's
uploaded files in ``/autograder/submission``; it reads ``/autograder/results/results.json``.

The zip holds ``setup.sh``, ``run_autograder``, the pinned ``requirements.lock``, the kit (``kit/``)
and the course (``course/``: ``nbgrader_config.py`` and the source notebooks).  ``setup.sh`` installs
Python, bubblewrap and the pinned packages into ``/autograder/venv`` and puts the assignment into a
gradebook (``--setup``); ``run_autograder`` grades the upload with the same step as the kit's ``grade``
(``grade_student``: nbgrader autograde, hidden checks outside the kernel) and writes one Gradescope test per graded
cell, its output the diagnosis, never the hidden test code (``--run``).

The base folder is ``$AUTOGRADER_ROOT`` (default ``/autograder``) or ``--root``, and ``KIT_PYTHON``
names an existing Python with the kit installed, in which case ``setup.sh`` installs nothing; so the
whole round trip runs in a scratch folder.

Sandbox: the container is Gradescope's sandbox, one per submission.  When ``AUTOGRADER_SANDBOX`` is not
set, ``run_autograder`` tries bubblewrap and uses it when it works in the container; otherwise it grades
with the kit's sandbox off and says so in the instructor's log (``results/stdout``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import traceback
import zipfile
from pathlib import Path

import nbformat

from ...grading.notes import group_notes, split_notes

RESULTS = "results/results.json"
STUDENT = "student"
IGNORED_PARTS = {"__MACOSX", ".ipynb_checkpoints"}
NOT_SHIPPED = {"mutants", "devtools"}  # buggy variants and alternative solutions stay home
NOT_SHIPPED_STUB = b'"""Not shipped to Gradescope."""\n'
STAMP = (2026, 1, 1, 0, 0, 0)

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (apt-get update already ran).
# KIT_PYTHON=/path/to/python skips every install and uses that Python, which must have the kit installed.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
SRC="$ROOT/source"
if [ -z "${{KIT_PYTHON:-}}" ]; then
    apt-get install -y python3 python3-venv python3-pip bubblewrap
    PYTHON=python3
    if ! python3 -c 'import sys; sys.exit(not (3, 10) <= sys.version_info[:2] < (3, 14))'; then
        echo "the kit needs Python 3.10 to 3.13 (pyproject.toml requires-python); this image has $(python3 --version)" >&2
        exit 1
    fi
    "$PYTHON" -m venv "$ROOT/venv"
    "$ROOT/venv/bin/python" -m pip install --upgrade "pip>=24"
    "$ROOT/venv/bin/python" -m pip install -r "$SRC/requirements.lock"
    "$ROOT/venv/bin/python" -m pip install --no-deps --no-build-isolation "$SRC/kit"
fi
PY="${{KIT_PYTHON:-$ROOT/venv/bin/python}}"
export PATH="$(dirname "$PY"):$PATH"   # nbgrader runs `alembic` when it creates the gradebook
"$PY" -m autograder gradescope {assignment} --setup --root "$ROOT"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission; the upload is in $ROOT/submission.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PY="${{KIT_PYTHON:-$ROOT/venv/bin/python}}"
export PATH="$(dirname "$PY"):$PATH"
exec "$PY" -m autograder gradescope {assignment} --run --root "$ROOT"
"""


def default_root() -> Path:
    return Path(os.environ.get("AUTOGRADER_ROOT") or "/autograder")


def course_dir(root: Path) -> Path:
    return Path(root) / "source" / "course"


# --- building the zip --------------------------------------------------------------------------------


def _add(z: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    z.writestr(info, data)


def build_zip(repo: Path, assignment: str, target: Path) -> Path:
    """autograder.zip: setup.sh and run_autograder at the root, the lock file, the kit and the course."""
    from ...course import Assignment, Course

    repo = Path(repo)
    shipped = Assignment(Course(repo), assignment)
    notebooks = shipped.source_notebooks()
    if not notebooks:
        raise ValueError(f"unknown assignment {assignment!r}: no source notebooks in {shipped.source}")
    package = repo / "autograder"
    with zipfile.ZipFile(target, "w") as z:
        _add(z, "setup.sh", SETUP_SH.format(assignment=assignment).encode(), executable=True)
        _add(z, "run_autograder", RUN_AUTOGRADER.format(assignment=assignment).encode(), executable=True)
        _add(z, "requirements.lock", (repo / "requirements.lock").read_bytes())
        _add(z, "kit/pyproject.toml", (repo / "pyproject.toml").read_bytes())
        for path in sorted(package.rglob("*")):
            rel = path.relative_to(package)
            if not path.is_file() or "__pycache__" in rel.parts or path.suffix in (".pyc", ".pyo"):
                continue
            if rel.parts[0] in NOT_SHIPPED:
                continue
            _add(z, f"kit/autograder/{rel.as_posix()}", path.read_bytes())
        for folder in sorted(NOT_SHIPPED):
            # the package keeps its folders, empty (the sandbox mounts over the mutants' folder, which must exist)
            top = package / folder
            for sub in [top, *sorted(top.rglob("*"))] if top.is_dir() else []:
                if sub.is_dir() and sub.name != "__pycache__":
                    rel = sub.relative_to(package).as_posix()
                    _add(z, f"kit/autograder/{rel}/__init__.py", NOT_SHIPPED_STUB)
        _add(z, "course/nbgrader_config.py", (repo / "nbgrader_config.py").read_bytes())
        for nb in notebooks:
            _add(z, f"course/{nb.relative_to(shipped.root).as_posix()}", nb.read_bytes())
    return Path(target)


# --- inside Gradescope: setup and run ----------------------------------------------------------------


def setup(root: Path, assignment: str) -> None:
    """(setup.sh) Put the assignment into a gradebook once, and keep a pristine copy for every run."""
    from ...course import Assignment, Course, sqlite_url

    course = Course(course_dir(root))
    db = course.gradebook
    Assignment(course, assignment).register(sqlite_url(db))
    course.pristine_gradebook.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(db, course.pristine_gradebook)
    print(f"gradescope setup: {assignment!r} is in the gradebook {db}")


def choose_sandbox(echo=print) -> bool:
    """Bubblewrap if it works in this container, else off (``sandbox.choose_sandbox``), said in the log."""
    from ...sandbox import choose_sandbox as sandbox_here

    ok, why = sandbox_here()
    echo(
        "sandbox: bubblewrap works in this container; student code runs inside it"
        if ok
        else f"sandbox: off ({why.split('. ')[0]}); the container is the only sandbox"
    )
    return ok


def place_submission(upload: Path, target: Path) -> list[str]:
    """Copy every notebook of the upload (any folder depth) into ``target``; return notes for the student."""
    notes, chosen = [], {}
    for path in sorted(p for p in Path(upload).rglob("*") if p.is_file()):
        rel = path.relative_to(upload)
        if IGNORED_PARTS & set(rel.parts) or rel.name.startswith("._"):
            continue
        if path.suffix != ".ipynb":
            notes.append(f"{rel}: ignored (not a notebook)")
            continue
        if path.name in chosen:
            older, newer = sorted([chosen[path.name], path], key=lambda p: p.stat().st_mtime)
            notes.append(f"{older.relative_to(upload)}: ignored (another {path.name} was uploaded)")
            chosen[path.name] = newer
            continue
        chosen[path.name] = path
    target.mkdir(parents=True, exist_ok=True)
    for name, path in chosen.items():
        shutil.copy2(path, target / name)
    return notes


def graded_cells(assignment) -> list[tuple[str, str, float]]:
    """(notebook, grade_id, points) of every graded test cell of the assignment, in notebook and cell order."""
    from ...cells import grade_id, is_test_cell, points

    cells = []
    for path in assignment.source_notebooks():
        cells += [
            (path.stem, grade_id(cell), points(cell))
            for cell in nbformat.read(str(path), as_version=4).cells
            if is_test_cell(cell)
        ]
    return cells


def _test_output(test) -> str:
    from ...grading.results import failure_text

    if test.points >= test.max_points:
        return "Passed."
    lines = [f"Partial credit: {test.points:g} of {test.max_points:g}."] if test.points > 0 else []
    return "\n".join(lines + [failure_text(test)])


def results_json(result, cells: list[tuple[str, str, float]], notes: list[str]) -> dict:
    """Gradescope's results.json: one test per graded cell, the total, and the notes for the student."""
    by_cell = {(t.notebook, t.test): t for t in result.tests}
    tests = []
    for number, (notebook, grade_id, points) in enumerate(cells, start=1):
        test = by_cell.get((notebook, grade_id))
        if test is None:
            entry = {
                "score": 0.0,
                "max_score": points,
                "status": "failed",
                "output": f"Not graded: {result.reason or 'the notebook could not be graded'}",
            }
        else:
            entry = {
                "score": test.points,
                "max_score": test.max_points,
                "status": "passed" if test.points >= test.max_points else "failed",
                "output": _test_output(test),
            }
        tests.append({"name": f"{notebook}: {grade_id}", "number": str(number), **entry, "visibility": "visible"})
    score = sum(t["score"] for t in tests)
    max_score = sum(t["max_score"] for t in tests)
    remarks = group_notes(split_notes(result.reason)) + notes
    output = "\n".join([f"Score: {score:g} / {max_score:g}"] + [f"- {r}" for r in remarks])
    return {"score": score, "output": output, "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}


def _reset(assignment) -> None:
    """A clean course for this run (a Gradescope container is fresh anyway; a scratch folder may not be)."""
    from ...course import STAGING

    course = assignment.course
    for folder in [course.step_root(step) for step in ("submitted", "autograded", "feedback")] + [
        course.root / STAGING,
        assignment.state_folder,
        assignment.verdict_record(STUDENT),
    ]:
        if folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
        else:
            folder.unlink(missing_ok=True)
    shutil.copy2(course.pristine_gradebook, course.gradebook)


def grade_upload(root: Path, assignment: str, echo=print) -> dict:
    """Grade the upload with the course's own options (its nbgrader_config.py), the sandbox as it works here."""
    from ...config import grading_options
    from ...course import Assignment, Course, sqlite_url
    from ...grading.canary import run_canary
    from ...grading.faults import KitFault
    from ...grading.grade import grade_student
    from ...grading.results import Status

    course = Course(course_dir(root))
    graded = Assignment(course, assignment)
    _reset(graded)
    notes = place_submission(Path(root) / "submission", graded.submitted(STUDENT))
    options = grading_options(course.config, sandbox=choose_sandbox(echo), feedback=False)
    # the reference first, through the same grading: a fault of the kit's own must not become this student's score
    run_canary(graded, options, out=echo, then="grading the submission")
    result = grade_student(graded, STUDENT, sqlite_url(course.gradebook), options)
    echo(f"graded: {result.status} {result.score:g}/{result.max_score:g} in {result.seconds:.1f}s {result.reason}")
    if result.status is Status.ERROR:
        raise KitFault(result.reason)
    return results_json(result, graded_cells(graded), notes)


def run(root: Path, assignment: str, echo=print) -> int:
    """(run_autograder) Grade the upload and write results.json, whatever happens to the student's code.  A fault
    of the kit's own (the canary failed, or status error) writes no results.json and exits 1: Gradescope then
    shows that the autograder failed, and records no score for the student."""
    from ...grading.faults import KitFault

    start = time.monotonic()
    target = Path(root) / RESULTS
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        payload = grade_upload(Path(root), assignment, echo)
    except KitFault as e:  # the canary failed, or the kit's side failed while grading this upload
        print(f"run_autograder: no score recorded, a fault on the kit's side: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - Gradescope must get a result; the instructor gets the traceback
        traceback.print_exc()
        payload = {
            "score": 0.0,
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "tests": [],
            "output": f"The autograder could not grade this submission ({type(e).__name__}); "
            "your instructor can see the details.",
        }
    payload["execution_time"] = round(time.monotonic() - start, 1)
    target.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
    echo(f"wrote {target}: score {payload['score']:g}")
    return 0
