"""What a grading of a course is set to, read without the grading itself: the course's nbgrader config pointed at
its folders and gradebook with the run's options, and the source notebooks' graded cells.

``grade``'s own process (the gradebook's URL, the report's settings, the tests' points) and the commands that only
read a course use these; they import neither nbgrader's preprocessors nor the kernel's side (about 0.6 s of CPU
that only the workers, :mod:`.grade`, need).
"""

from __future__ import annotations

import copy
from pathlib import Path

from traitlets.config import Config

from ..config import GradingOptions, grading_options, limits_config, read_course_config, renamed_options
from ..course import STAGING, Assignment, Course, sqlite_url
from ..notebooks import read_notebook
from .intake import locked_cells


def options_config(options: GradingOptions) -> Config:
    """The traitlets settings of a run's options: the one place they become nbgrader's and the kit's config."""
    config = Config()
    config.KitConfig.notebook_budget = options.notebook_budget
    config.KitConfig.sandbox = options.sandbox
    config.KitConfig.jobs = options.jobs
    config.Execute.timeout = options.cell_timeout
    config.BudgetedExecute.timeout = options.cell_timeout
    config.BudgetedExecute.notebook_budget = options.notebook_budget
    config.BudgetedExecute.sandbox = options.sandbox
    config.merge(limits_config(options.limits))  # the sandbox's limits: the kernel manager reads them back
    return config


def course_settings(course_dir: Path, db_url: str | None = None, options: GradingOptions | None = None) -> Config:
    """The course's nbgrader_config.py, pointed at ``course_dir`` and ``db_url`` (by default the course's own
    gradebook), with the run's ``options`` (by default the course's own: :func:`~autograder.config.grading_options`)."""
    course_dir = Path(course_dir).resolve()
    config = renamed_options(read_course_config(course_dir), warn=False)  # said when the options were decided
    config.merge(options_config(options or grading_options(config)))
    config.CourseDirectory.root = str(course_dir)
    config.CourseDirectory.submitted_directory = STAGING  # checked copies; submitted/ is never touched
    config.CourseDirectory.db_url = (
        db_url or config.CourseDirectory.get("db_url") or sqlite_url(Course(course_dir, config).gradebook)
    )
    return config


def expected_notebooks(assignment: Assignment) -> dict[str, dict[str, dict]]:
    """Notebook name -> its locked and graded cells, from the course's source notebooks.

    A worker grades student after student against the same source notebooks: what they hold is read once per
    process, and read again when a file changes (:func:`_file_version`); each caller gets its own copy."""
    key = tuple((path, *_file_version(path)) for path in assignment.source_notebooks())
    if key not in _expected:
        if len(_expected) >= EXPECTED_KEPT:
            _expected.clear()
        _expected[key] = {path.stem: locked_cells(read_notebook(path)) for path, *_ in key}
    return copy.deepcopy(_expected[key])


EXPECTED_KEPT = 8  # assignments a worker keeps the source notebooks' cells of
_expected: dict[tuple, dict[str, dict[str, dict]]] = {}


def _file_version(path: Path) -> tuple[int, ...]:
    """What changes when the file does: its inode (a file replaced), size, and modification and change times
    (the change time moves with every write, and cannot be set back)."""
    stat = path.stat()
    return stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


def notebook_points(expected: dict[str, dict[str, dict]]) -> dict[str, float]:
    """Notebook name -> the points of its graded cells (from :func:`expected_notebooks`)."""
    return {
        name: float(sum(c["points"] or 0 for c in cells.values() if c["grade"])) for name, cells in expected.items()
    }
