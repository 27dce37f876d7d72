"""`python -m autograder check --thorough NOTEBOOK`: grade your own notebook as the instructor's `grade` would.

For a self-learner who has the kit and no instructor.  The notebook is copied, as a submission, into a
scratch course made in a temporary folder (the kit's ``nbgrader_config.py`` and the lesson's source
notebook, registered in a new gradebook with nbgrader), then graded by ``grade_student``, the one step
every grader of the kit runs: real nbgrader, the randomized hidden checks run outside the kernel, the
sandbox when bubblewrap works here.  The result is one row per graded test (points earned, max, the
diagnosis) plus the practice exercises as 0-point rows.  The student's file is never written.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..cells import grade_id, is_test_cell
from ..config import CONFIG_FILE, GradingOptions, KitConfig, grading_options
from ..course import ASSIGNMENT, KIT, NOTEBOOKS, Assignment, Course, kit_assignment, repo_root, sqlite_url
from ..grading.canary import CanaryFailed, digest_files, run_canary
from ..grading.intake import locked_cells, renamed_from
from ..grading.notes import group_notes, split_notes
from ..grading.results import Status, TestResult, failure_text
from ..notebooks import read_notebook
from ..sandbox import PACKAGE_DIR
from ..scratch import temporary_folder
from .selfcheck import NOT_IMPLEMENTED, CheckRow, demo_rows, practice_rows, practice_summary, table

STUDENT = "self"


class ThoroughError(ValueError):
    """A notebook `check --thorough` cannot grade, with the reason in words."""


@dataclass
class Graded:
    path: Path
    lesson: str
    rows: list[CheckRow]  # graded tests in notebook order, then the practice exercises
    max_points: list[float]  # per row (0 for practice)
    score: float
    max_score: float
    notes: list[str] = field(default_factory=list)

    @property
    def full_marks(self) -> bool:
        return self.max_score > 0 and self.score >= self.max_score


def kit_source(kit: Path, lesson: str) -> Path:
    return kit_assignment(kit).notebook("source", lesson)


def check_kit(kit: Path, lessons=NOTEBOOKS) -> None:
    """Raise ThoroughError naming what the kit lacks: its course config, the source notebooks (which hold
    the hidden tests), or the hidden checks of a lesson."""
    import importlib.util

    from ..course import lesson_module

    missing = [CONFIG_FILE] if not (kit / CONFIG_FILE).exists() else []
    missing += [
        str(kit_source(kit, lesson).relative_to(kit)) for lesson in lessons if not kit_source(kit, lesson).exists()
    ]
    missing += [
        f"autograder/hidden/{lesson_module(lesson)}.py"
        for lesson in lessons
        if importlib.util.find_spec(f"autograder.hidden.{lesson_module(lesson)}") is None
    ]
    if missing:
        raise ThoroughError(
            f"the kit at {kit} is missing {', '.join(missing)}. --thorough grades with the kit's source notebooks "
            "and hidden checks: run it from a clone of the whole kit installed with `make setup` (or "
            "`pip install -e .`), or point --kit at that clone"
        )


def which_lesson(path: Path, nb, kit: Path) -> str:
    """The lesson a notebook is: by its file name, else (a renamed copy) by the cells it carries."""
    if path.stem in NOTEBOOKS:
        return path.stem
    expected = {
        lesson: locked_cells(read_notebook(kit_source(kit, lesson)))
        for lesson in NOTEBOOKS
        if kit_source(kit, lesson).exists()
    }
    found = renamed_from(nb, expected, set(expected))
    if found is None:
        raise ThoroughError(
            f"{path}: not one of the five lesson notebooks ({', '.join(f'{n}.ipynb' for n in NOTEBOOKS)}): "
            "neither its file name nor its cells match one"
        )
    return found


def choose_sandbox() -> tuple[bool, str]:
    """(sandboxed?, a sentence saying so): bubblewrap when it works here, else unsandboxed, said plainly."""
    from ..sandbox import SandboxUnavailable
    from ..sandbox import choose_sandbox as sandbox_here

    try:
        ok, why = sandbox_here()
    except SandboxUnavailable as e:
        raise ThoroughError(str(e)) from None
    if ok:
        return True, "sandboxed with bubblewrap, as the instructor's `grade` runs it"
    if not KitConfig().sandbox:
        return False, f"UNSANDBOXED ({why}): your code runs with your own permissions, as it does in Jupyter"
    return False, (
        f"UNSANDBOXED: bubblewrap cannot run here ({why.split('. ')[0]}); your code runs with your own "
        "permissions, as it does in Jupyter. The instructor's `grade` would refuse to run without it"
    )


def make_course(target: Path, kit: Path, lessons: list[str]) -> str:
    """A scratch course in ``target`` holding only ``lessons``, registered in a new gradebook; its URL."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(kit / CONFIG_FILE, target / CONFIG_FILE)
    scratch = kit_assignment(target)
    scratch.source.mkdir(parents=True, exist_ok=True)
    for lesson in sorted(set(lessons)):
        shutil.copy(kit_source(kit, lesson), scratch.source / f"{lesson}.ipynb")
    db_url = sqlite_url(scratch.course.gradebook)
    scratch.register(db_url)
    return db_url


COURSES_KEPT = 4  # registered scratch courses kept under the kit's .kit/thorough/ (one per lesson set and kit version)


def course_key(kit: Path, lessons: list[str]) -> str:
    """A hash of everything a registered scratch course depends on: the kit's package and course config, the
    lessons' source notebooks, nbgrader's version and the Python that runs it."""
    digest = hashlib.sha256(
        json.dumps([sys.executable, importlib.metadata.version("nbgrader"), sorted(set(lessons))]).encode()
    )
    files = sorted(PACKAGE_DIR.rglob("*.py")) + [kit / CONFIG_FILE] + [kit_source(kit, n) for n in sorted(set(lessons))]
    digest_files(digest, files, kit)
    return digest.hexdigest()[:32]


def registered_courses(kit: Path) -> Path:
    """Where the kit keeps the scratch courses it registered for --thorough (a folder of its own, under .kit/)."""
    return kit / KIT / "thorough"


def registered_course(kit: Path, lessons: list[str]) -> Path:
    """A scratch course holding only ``lessons``, registered in its gradebook (:func:`make_course`): made
    once per :func:`course_key` and kept under the kit's .kit/thorough/, so that a check copies it instead
    of running nbgrader's ``generate_assignment`` again.  Made in a folder of its own and renamed into
    place whole: a check never sees a half-made one.  OSError when the kit's folder cannot be written."""
    folder = registered_courses(kit)
    kept = folder / course_key(kit, lessons)
    if kept.is_dir():
        return kept
    folder.mkdir(parents=True, exist_ok=True)
    making = Path(tempfile.mkdtemp(prefix=".making-", dir=folder))
    try:
        make_course(making / "course", kit, lessons)
        try:
            os.rename(making / "course", kept)
        except OSError:
            if not kept.is_dir():  # not another check's, made meanwhile
                raise
    finally:
        shutil.rmtree(making, ignore_errors=True)
    for old in sorted(
        (p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")), key=lambda p: p.stat().st_mtime
    )[:-COURSES_KEPT]:
        shutil.rmtree(old, ignore_errors=True)
    return kept


def scratch_course(target: Path, kit: Path, lessons: list[str]) -> str:
    """The scratch course of a check in ``target``: a copy of the one registered before for these lessons and
    this kit (:func:`registered_course`), else made there anew (a kit whose folder this user cannot write);
    its gradebook's URL."""
    try:
        shutil.copytree(registered_course(kit, lessons), target)
    except OSError:
        shutil.rmtree(target, ignore_errors=True)
        return make_course(target, kit, lessons)
    return sqlite_url(kit_assignment(target).course.gradebook)


def _message(test: TestResult) -> str:
    return "" if test.points >= test.max_points else failure_text(test)


def _stub(test: TestResult) -> bool:
    """The test lost its points only because the code it grades is still the released stub."""
    if test.points >= test.max_points:
        return False
    message = test.message or ""
    return test.diagnosis in ("not-implemented", "NotImplementedError") or NOT_IMPLEMENTED in message


def graded_tests_in_order(kit: Path, lesson: str) -> list[str]:
    nb = read_notebook(kit_source(kit, lesson))
    return [grade_id(cell) for cell in nb.cells if cell.cell_type == "code" and is_test_cell(cell)]


def grade_one(
    assignment: Assignment, db_url: str, kit: Path, path: Path, lesson: str, nb, student: str, options: GradingOptions
) -> Graded:
    """Grade ``nb`` (read from ``path``) as ``student``'s submission of ``lesson`` in the scratch course."""
    import nbformat

    from ..grading.grade import grade_student

    folder = assignment.submitted(student)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    nbformat.write(nb, str(folder / f"{lesson}.ipynb"))
    result = grade_student(assignment, student, db_url, options)
    if result.status is not Status.GRADED:
        raise ThoroughError(f"{path}: could not be graded: {result.reason}")
    order = {name: k for k, name in enumerate(graded_tests_in_order(kit, lesson))}
    tests = sorted((t for t in result.tests if t.notebook == lesson), key=lambda t: order.get(t.test, len(order)))
    rows = [CheckRow(t.test, t.points, t.points >= t.max_points, _message(t), done=not _stub(t)) for t in tests]
    autograded = assignment.notebook("autograded", lesson, student)
    executed = nbformat.read(str(autograded), as_version=4) if autograded.exists() else None
    practice = practice_rows(executed) + demo_rows(executed) if executed is not None else []
    # the scratch course may hold other lessons (other notebooks graded in the same run): not this one's news
    others = tuple(f"{name}.ipynb" for name in NOTEBOOKS if name != lesson)
    notes = group_notes([n for n in split_notes(result.reason) if not n.startswith(others)])
    return Graded(
        path,
        lesson,
        rows + practice,
        [t.max_points for t in tests] + [0.0] * len(practice),
        sum(t.points for t in tests),
        sum(t.max_points for t in tests),
        notes,
    )


def thorough_check(
    paths: list[Path], kit: Path | None = None, cell_timeout: int | None = None, echo=print
) -> list[Graded | ThoroughError]:
    """Grade each notebook of ``paths`` in one scratch course (made and removed here); per notebook its
    Graded result or the ThoroughError saying why it could not be graded.  Raises ThoroughError when the
    kit itself is incomplete."""
    kit = Path(kit or repo_root()).resolve()
    outcomes: list = []
    chosen = []
    for path in map(Path, paths):
        try:
            if not path.is_file():
                raise ThoroughError(f"{path}: no such file")
            try:
                nb = read_notebook(path)
            except ValueError as e:
                raise ThoroughError(f"{path}: {str(e).removeprefix(path.name + ': ')}") from None
            check_kit(kit, [])  # the course config first: nothing can be graded without it
            lesson = which_lesson(path, nb, kit)
            check_kit(kit, [lesson])
            chosen.append((len(outcomes), path, lesson, nb))
            outcomes.append(None)
        except ThoroughError as e:
            outcomes.append(e)
    if not chosen:
        return outcomes
    sandboxed, words = choose_sandbox()
    echo(f"check --thorough: grading in a scratch course with the hidden checks, {words}")
    with temporary_folder("thorough") as scratch:
        course_dir = Path(scratch) / "course"
        lessons = [lesson for _, _, lesson, _ in chosen]
        db_url = scratch_course(course_dir, kit, lessons)
        assignment = Assignment(Course(course_dir), ASSIGNMENT)
        options = grading_options(
            assignment.course.config, sandbox=sandboxed, cell_timeout=cell_timeout, feedback=False
        )

        def grade_chosen() -> None:
            for number, (slot, path, lesson, nb) in enumerate(chosen, start=1):
                try:
                    outcomes[slot] = grade_one(assignment, db_url, kit, path, lesson, nb, f"{STUDENT}{number}", options)
                except ThoroughError as e:
                    outcomes[slot] = e

        # the kit's own reference, in the same scratch course and its own process, while the notebooks are graded
        # here: none is shown unless it passed, since a fault of the kit must not read as the student's mistake
        try:
            run_canary(
                assignment,
                options,
                notebooks=sorted(set(lessons)),
                cache_root=kit,
                out=kit_self_test(echo),
                registered=(assignment, db_url),
                meanwhile=grade_chosen,
                then="your notebooks' results follow",
            )
        except CanaryFailed as e:
            raise ThoroughError(f"the kit cannot grade on this machine, your notebook was not graded: {e}") from None
    return outcomes


KIT_SELF_TEST = (
    "kit self-test (the kit grades its own reference solution first, so that a fault on the kit's side is never "
    "shown as your mistake; it says nothing about your notebook): "
)


def kit_self_test(echo):
    """``echo`` for the canary's lines, each said in words a student reads: what the check of the kit itself is."""

    def told(line: str) -> None:
        echo(KIT_SELF_TEST + line.removeprefix("canary: ") if line.startswith("canary: ") else line)

    return told


def format_graded(graded: Graded) -> str:
    lines = [
        f"{graded.path} (graded as {graded.lesson}.ipynb, hidden checks included)",
        *table(graded.rows, graded.max_points),
    ]
    passed = sum(r.passed for r in graded.rows if r.graded)
    total = sum(r.graded for r in graded.rows)
    lines.append(
        f"{passed}/{total} graded tests pass: {graded.score:g}/{graded.max_score:g} points (the hidden "
        "checks draw fresh random cases on every run, as at grading)"
    )
    practice = practice_summary(graded.rows)
    if practice:
        lines.append(practice)
    lines += [f"note: {n}" for n in graded.notes]
    return "\n".join(lines)
