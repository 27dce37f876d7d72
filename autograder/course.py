"""The course: its assignment and lessons, its folders as nbgrader names them, and scratch copies of it.

Every course path goes through nbgrader's own ``CourseDirectory.format_path``, so a course that renames
``autograded_directory`` (or any other step) in its ``nbgrader_config.py`` is graded where nbgrader
itself would look.  :class:`Course` is also the one place that lays out the kit's own files, all under
``.kit/`` (staging copies, state, verdict records, LMS names, ...).  The lesson list is written once, here.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .config import CONFIG_FILE, ConfigError, read_course_config

ASSIGNMENT = "embeddings"
# The lessons, in order, each with the names the contract (docs/contract.md) says its solution cells define.  A lesson is one
# notebook, one module of hidden checks (lesson_module) and one mutant catalogue.
LESSONS = {
    "01_why_position": ("softmax", "self_attention", "permutation_gap"),
    "02_token_embeddings": ("Embedding", "numerical_gradient", "rel_error"),
    "03_sinusoidal": ("sinusoidal_table", "shift_matrix"),
    "04_learned_positions": ("PositionalEmbedding",),
    "05_embedding_layer": ("EmbeddingLayer",),
}
NOTEBOOKS = tuple(LESSONS)
STEPS = ("source", "release", "submitted", "autograded", "feedback")
KIT = ".kit"  # the kit's own folder in a course (nbgrader never looks there)
STAGING = f"{KIT}/staging"  # the checked copies nbgrader grades (its submitted_directory while the kit grades)
KIT_RELEASE = f"{KIT}/release"  # where registering an assignment writes its student copy (release/ is the course's)


def lesson_module(notebook: str) -> str:
    """The module name of a lesson's hidden checks (and mutants): ``02_token_embeddings`` -> ``lesson02``."""
    return f"lesson{notebook[:2]}"


class CourseError(ValueError):
    """A folder that is not the course a command was pointed at, or an assignment it does not have."""


def not_a_course_root(root: Path) -> str | None:
    """Why ``root`` is not a course root (neither nbgrader_config.py nor a source/ folder), or None."""
    root = Path(root).resolve()
    if (root / CONFIG_FILE).exists() or (root / "source").is_dir():
        return None
    return (
        f"{root} is not a course root: it has no {CONFIG_FILE} and no source/ folder. Run the command in "
        "the course's folder, or name that folder with --course-dir PATH"
    )


def assignment_notebooks(course: Course, assignment: str) -> list[Path]:
    """The assignment's source notebooks; or CourseError saying what is wrong: not a course root at all
    (and --course-dir), or an assignment the course does not have (and the closest name it has)."""
    notebooks = course.source_notebooks(assignment)
    if notebooks:
        return notebooks
    wrong_place = not_a_course_root(course.root)
    if wrong_place:
        raise CourseError(wrong_place)
    source = course.step_root("source")
    have = sorted(p.name for p in source.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))) if source.is_dir() else []
    close = difflib.get_close_matches(assignment, have, n=1)
    hint = (
        f"; did you mean {close[0]!r}?" if close else f"; the course has {', '.join(map(repr, have))}" if have else ""
    )
    raise CourseError(
        f"unknown assignment {assignment!r}: no source notebooks in {course.folder('source', assignment)}" + hint
    )


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


class Course:
    """A course root and its nbgrader configuration; folders by step, as nbgrader lays them out."""

    def __init__(self, root: Path, config=None):
        from nbgrader.coursedir import CourseDirectory

        self.root = Path(root).resolve()
        try:
            self.config = config if config is not None else read_course_config(self.root)
        except ConfigError as e:  # a setting that cannot be read, named with its file
            raise CourseError(str(e)) from None
        self.dirs = CourseDirectory(config=self.config)
        self.dirs.root = str(self.root)

    def __repr__(self) -> str:
        return f"Course({str(self.root)!r})"

    def __reduce__(self):
        """Pickled as its root and configuration: a worker process makes its own nbgrader CourseDirectory."""
        return Course, (self.root, self.config)

    def folder(self, step: str, assignment: str = ASSIGNMENT, student: str = ".") -> Path:
        """``step`` is one of STEPS, or a folder of the kit's own (e.g. its staging area)."""
        name = getattr(self.dirs, f"{step}_directory") if step in STEPS else step
        return Path(self.dirs.format_path(name, student, assignment))

    def step_root(self, step: str) -> Path:
        """The folder that holds every student's ``step`` (e.g. the whole of autograded/)."""
        return self.root / getattr(self.dirs, f"{step}_directory")

    def student_folders(self, step: str, assignment: str = ASSIGNMENT) -> dict[str, Path]:
        """student id -> their ``step`` folder of ``assignment``, for every student who has one (as
        nbgrader itself finds them: glob the directory structure, read the student id back)."""
        name = getattr(self.dirs, f"{step}_directory")
        pattern = re.compile(
            self.dirs.format_path(re.escape(name), "(?P<student_id>[^/]+)", re.escape(assignment), escape=True) + "$"
        )
        found = {}
        for path in sorted(
            self.root.glob(str(Path(self.dirs.format_path(name, "*", assignment)).relative_to(self.root)))
        ):
            match = pattern.match(str(path))
            if match and path.is_dir():
                found[match.group("student_id")] = path
        return found

    def notebook(self, step: str, name: str, assignment: str = ASSIGNMENT, student: str = ".") -> Path:
        return self.folder(step, assignment, student) / f"{name}.ipynb"

    def source_notebooks(self, assignment: str = ASSIGNMENT) -> list[Path]:
        """The assignment's source notebooks: what the course grades."""
        return sorted(self.folder("source", assignment).glob("*.ipynb"))

    # --- the course's other files, and the kit's own under .kit/ ---------------------------------------

    @property
    def gradebook(self) -> Path:
        """The SQLite gradebook a course has when its config names no other."""
        return self.root / "gradebook.db"

    @property
    def grades_csv(self) -> Path:
        return self.root / "grades.csv"

    def reports(self, assignment: str = ASSIGNMENT) -> Path:
        return self.root / "reports" / assignment

    @property
    def kit(self) -> Path:
        return self.root / KIT

    def state_folder(self, assignment: str = ASSIGNMENT) -> Path:
        """One state file per graded student (fingerprint and result): what makes a rerun skip them."""
        return self.kit / assignment

    def state_file(self, assignment: str, student: str) -> Path:
        return self.state_folder(assignment) / f"{student}.json"

    @property
    def canary_records(self) -> Path:
        """One empty file per canary that passed here, named by what it depended on (grading.canary)."""
        return self.kit / "canary"

    def in_flight_note(self, assignment: str, student: str) -> Path:
        """While a worker grades ``student``, the worker's process id (for an operator looking at a stuck or
        dying run, and for the tests that kill that worker)."""
        return self.state_folder(assignment) / f".{student}.grading"

    def verdict_record(self, assignment: str, student: str) -> Path:
        """The cells whose score the kit set to 0 (its hidden check did not pass them) in the last grading."""
        return self.kit / "overrides" / assignment / f"{student}.json"

    def lms_names(self, assignment: str = ASSIGNMENT) -> Path:
        """The LMS file name of every notebook ``collect`` placed, for ``export --feedback-zip``."""
        return self.kit / "lms" / f"{assignment}.json"

    @property
    def roster_record(self) -> Path:
        """Each student's name and email from the roster ``collect`` was given, for grades.csv."""
        return self.kit / "lms" / "roster.json"

    @property
    def pristine_gradebook(self) -> Path:
        """Gradescope: the gradebook as ``--setup`` left it, copied anew for every run."""
        return self.kit / "gradescope" / "gradebook.db"

    @property
    def task_file(self) -> Path:
        """A Dask worker's scratch course: the task it grades."""
        return self.kit / "task.pickle"

    @property
    def result_file(self) -> Path:
        """A Dask worker's scratch course: the result of the task."""
        return self.kit / "result.json"


@dataclass(frozen=True)
class Assignment:
    """One assignment of a course, and every folder and file of it, by step and by student.

    Made once where a command starts (:func:`open_assignment` checks the course) and handed down:
    the modules that grade, record, export and compare ask it for their paths, and none derives one on
    its own.  So a course that renames a step in its ``nbgrader_config.py`` is read and written where
    nbgrader itself would look, everywhere at once.  It pickles whole (its course with it), so a worker
    process is handed the same value."""

    course: Course
    name: str = ASSIGNMENT

    @property
    def root(self) -> Path:
        """The course's root folder."""
        return self.course.root

    def in_course(self, root: Path) -> Assignment:
        """The same assignment in another course (a scratch copy: the canary's, a dry run's, a Dask task's)."""
        return Assignment(Course(root), self.name)

    # --- the steps: source -> release -> submitted -> (staged) -> autograded -> feedback --------------------

    def folder(self, step: str, student: str = ".") -> Path:
        """``step``'s folder of this assignment (for ``student``, in the steps that have one per student)."""
        return self.course.folder(step, self.name, student)

    def notebook(self, step: str, notebook: str, student: str = ".") -> Path:
        return self.folder(step, student) / f"{notebook}.ipynb"

    def students(self, step: str = "submitted") -> dict[str, Path]:
        """student id -> their ``step`` folder, for every student who has one (as nbgrader finds them)."""
        return self.course.student_folders(step, self.name)

    @property
    def source(self) -> Path:
        return self.folder("source")

    @property
    def release(self) -> Path:
        """The course's release/ folder: the student notebooks the build wrote."""
        return self.folder("release")

    def source_notebooks(self) -> list[Path]:
        """The source notebooks: what the course grades (none when the course has no such assignment)."""
        return sorted(self.source.glob("*.ipynb"))

    def notebooks(self) -> list[Path]:
        """The source notebooks; or CourseError saying what is wrong (see :func:`assignment_notebooks`)."""
        return assignment_notebooks(self.course, self.name)

    def submitted(self, student: str) -> Path:
        return self.folder("submitted", student)

    def staged(self, student: str) -> Path:
        """The checked copy of a submission that nbgrader grades (its submitted_directory while the kit grades)."""
        return self.folder(STAGING, student)

    def autograded(self, student: str) -> Path:
        return self.folder("autograded", student)

    def feedback(self, student: str) -> Path:
        return self.folder("feedback", student)

    @property
    def registered_release(self) -> Path:
        """The student copy :meth:`register` writes (a folder of the kit's own: release/ is the course's)."""
        return self.folder(KIT_RELEASE)

    def register(self, db_url: str, release_directory: str = KIT_RELEASE) -> None:
        """Put the assignment and its source notebooks into the gradebook (:func:`register_assignment`)."""
        register_assignment(self.root, db_url, self.name, release_directory)

    # --- what the kit keeps of it: under .kit/, and the reports --------------------------------------------

    @property
    def reports(self) -> Path:
        """The class report, the per-test CSV and the similarity page."""
        return self.course.reports(self.name)

    @property
    def state_folder(self) -> Path:
        """One state file per graded student (fingerprint and result): what makes a rerun skip them."""
        return self.course.state_folder(self.name)

    def state_file(self, student: str) -> Path:
        return self.course.state_file(self.name, student)

    def in_flight_note(self, student: str) -> Path:
        """While a worker grades ``student``, the worker's process id."""
        return self.course.in_flight_note(self.name, student)

    def verdict_record(self, student: str) -> Path:
        """The cells whose score the kit set to 0 in the student's last grading."""
        return self.course.verdict_record(self.name, student)

    @property
    def lms_names(self) -> Path:
        """The LMS file name of every notebook ``collect`` placed, for ``export --feedback-zip``."""
        return self.course.lms_names(self.name)

    def export_file(self, kind: str) -> Path:
        """A gradebook file ``export`` writes for an LMS, in the course's root: ``<assignment>-<kind>.csv``."""
        return self.root / f"{self.name}-{kind}.csv"

    def canary_record(self, key: str, folder: Path | None = None) -> Path:
        """The empty file that says the canary passed with what ``key`` fingerprints (under ``folder``, by
        default the course's canary records)."""
        return Path(folder or self.course.canary_records) / f"{self.name}-{key}"


def open_assignment(course_dir: Path, name: str = ASSIGNMENT) -> Assignment:
    """The assignment ``name`` of the course in ``course_dir``, where a command starts; CourseError in one line
    when the folder is missing, is not a course, or has a broken nbgrader_config.py.  (Whether the course has
    that assignment is :meth:`Assignment.notebooks`' to say, for the commands that need its notebooks.)"""
    root = Path(course_dir).resolve()
    if not root.is_dir():
        raise CourseError(f"course directory {root} does not exist")
    wrong_place = not_a_course_root(root)
    if wrong_place:
        raise CourseError(wrong_place)
    try:
        course = Course(root)
    except Exception as e:  # noqa: BLE001 - a broken nbgrader_config.py is named with its error
        raise CourseError(f"{root / CONFIG_FILE}: {type(e).__name__}: {e}") from None
    return Assignment(course, name)


def kit_assignment(repo: Path | None = None) -> Assignment:
    """The kit's own assignment, in its repository (by default this one) or in a copy of it."""
    return Assignment(Course(repo or repo_root()))


def sqlite_url(path: Path) -> str:
    # a generous busy timeout: several worker processes may write the same SQLite gradebook
    return f"sqlite:///{Path(path).resolve()}?timeout=60"


def sqlite_file(db_url: str) -> Path | None:
    """The file of a ``sqlite:///`` gradebook URL; None for another database (PostgreSQL)."""
    if not db_url.startswith("sqlite:///"):
        return None
    return Path(db_url.split("sqlite:///", 1)[1].split("?", 1)[0])


def ensure_tools_on_path() -> None:
    """nbgrader runs `alembic` (and `jupyter`) from PATH: put this Python's bin folder there."""
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def make_scratch_course(target: Path, repo: Path | None = None) -> str:
    """Copy the kit's source notebooks and nbgrader_config.py into ``target`` and register the
    assignment in a new SQLite gradebook there; return the gradebook URL."""
    kit, target = Course(repo or repo_root()), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(kit.root / CONFIG_FILE, target / CONFIG_FILE)
    shutil.copytree(kit.folder("source"), Course(target).folder("source"), dirs_exist_ok=True)
    db_url = sqlite_url(Course(target).gradebook)
    register_assignment(target, db_url)
    return db_url


def alembic_head() -> str:
    """The gradebook schema's version that nbgrader records in a new gradebook, read in this process.

    nbgrader's own ``get_alembic_version`` runs ``alembic heads`` in a new Python, which imports nbgrader
    again: about 4 s of CPU for every gradebook created.  This reads the same migration scripts with
    alembic's API in the process that has imported nbgrader already.  nbgrader's answer is the fallback."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/gradebook.db") as ini:
        heads = ScriptDirectory.from_config(Config(ini)).get_heads()
    return heads[0] if len(heads) == 1 else nbgrader_alembic_version()


def nbgrader_alembic_version() -> str:
    """nbgrader's own ``get_alembic_version``, whether or not :func:`use_alembic_head` replaced it."""
    import nbgrader.api

    return getattr(alembic_head, "replaced", nbgrader.api.get_alembic_version)()


def use_alembic_head() -> None:
    """nbgrader, in this process, reads the gradebook's schema version with :func:`alembic_head` (the same answer)."""
    import nbgrader.api

    if nbgrader.api.get_alembic_version is not alembic_head:
        alembic_head.replaced = nbgrader.api.get_alembic_version
        nbgrader.api.get_alembic_version = alembic_head


def run_converter(converter, config, assignment: str, student: str | None = None, force: bool = True) -> dict:
    """One of nbgrader's converters (GenerateAssignment, Autograde, GenerateFeedback) run in this process on
    ``assignment`` (and ``student``) with ``config``, its log captured (nbgrader's ``capture_log``: success, log,
    error) and the working folder it changes to put back."""
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id = assignment
    if student is not None:
        coursedir.student_id = student
    app = converter(coursedir=coursedir, config=config)
    app.force = force
    if hasattr(app, "create_student"):
        app.create_student = True
    cwd = os.getcwd()
    try:
        return capture_log(app)
    finally:
        os.chdir(cwd)


def register_assignment(
    course_dir: Path, db_url: str, assignment: str = ASSIGNMENT, release_directory: str = KIT_RELEASE
) -> None:
    """Put the assignment and its source notebooks into the gradebook with nbgrader's own ``generate_assignment``
    (its GenerateAssignment converter, run in this process as the kit runs Autograde: no Python started and
    nbgrader imported again for it), writing its student copy to ``release_directory`` (by default a folder of
    the kit's own, so that the course's release/ is never touched).  RuntimeError with nbgrader's log if it fails."""
    from nbgrader.converters import GenerateAssignment

    ensure_tools_on_path()  # nbgrader runs `alembic` to bring an older gradebook's schema up to date
    use_alembic_head()
    course_dir = Path(course_dir).resolve()
    config = read_course_config(course_dir)
    config.CourseDirectory.root = str(course_dir)
    config.CourseDirectory.db_url = db_url
    config.CourseDirectory.release_directory = release_directory
    outcome = run_converter(GenerateAssignment, config, assignment)
    if not outcome.get("success"):
        raise RuntimeError(
            f"nbgrader generate_assignment failed in {course_dir}:\n"
            f"{(outcome.get('log') or '')[-2000:]}{(outcome.get('error') or '')[-2000:]}"
        )
