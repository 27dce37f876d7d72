"""The canary: a course whose grading kernels cannot import the kit is refused before any student is graded."""

from __future__ import annotations

import os
import shutil

from autograder.course import ASSIGNMENT, Assignment, Course, sqlite_url
from autograder.devtools.personas import write_submission
from autograder.grading.canary import fingerprint

from .conftest import REPO, kit, new_course, reference_submission, scratch_course, stub_submission


def test_a_course_whose_kernels_cannot_import_the_kit_is_refused_before_any_student(tmp_path):
    """The issue's second clone: the course folder holds its own copy of the kit, which `python -m autograder`
    run there imports, while the kernel's Python (this venv) installs the kit from another folder that the
    sandbox does not mount.  Without the canary every student is recorded at 0, the reference included."""
    course = new_course(tmp_path / "course")
    shutil.copytree(REPO / "autograder", course / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    write_submission(course, "ref", reference_submission())
    write_submission(course, "stub", stub_submission())
    result = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2", cwd=course, check=False)
    assert result.returncode != 0, result.stdout[-2000:]
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith(
        "grade: no student was graded: the canary failed: the grading kernel cannot import the "
        "kit's public package `autograder`"
    ), result.stderr[-2000:]
    assert f"imported the kit's `autograder` from {course / 'autograder'}" in line, line
    assert "graded ref" not in result.stdout and "graded stub" not in result.stdout
    # no grade recorded anywhere: no gradebook submission, no CSV, no autograded folder, no state file
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_assignment(ASSIGNMENT).submissions == []
    assert not (course / "grades.csv").exists()
    assert not Course(course).step_root("autograded").exists()
    assert not list((course / ".kit").glob(f"{ASSIGNMENT}/*.json"))


def test_the_canary_is_graded_again_only_when_something_it_depends_on_changed(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(REPO / "source", course / "source")
    shutil.copy(REPO / "nbgrader_config.py", course)
    options = {"notebook_budget": 60, "cell_timeout": 30, "sandbox": None}
    assignment = Assignment(Course(course), ASSIGNMENT)
    key = fingerprint(assignment, None, options)
    assert fingerprint(assignment, None, dict(options)) == key
    assert fingerprint(assignment, None, dict(options, cell_timeout=31)) != key
    assert fingerprint(assignment, ["01_why_position"], options) != key
    source = assignment.notebook("source", "03_sinusoidal")
    source.write_text(source.read_text().replace("sinusoidal", "sinusoidal ", 1))
    changed = fingerprint(assignment, None, options)
    assert changed != key
    with open(course / "nbgrader_config.py", "a") as f:
        f.write("\nc.KitConfig.cell_timeout = 29\n")
    assert fingerprint(assignment, None, options) != changed


def test_the_canary_is_graded_again_when_a_package_is_installed_or_changes_version(tmp_path, monkeypatch):
    course = tmp_path / "course"
    shutil.copytree(REPO / "source", course / "source")
    shutil.copy(REPO / "nbgrader_config.py", course)
    options = {"notebook_budget": 60, "cell_timeout": 30, "sandbox": None}
    assignment = Assignment(Course(course), ASSIGNMENT)
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    key = fingerprint(assignment, None, options)
    assert fingerprint(assignment, None, options) == key
    (site / "numpy_helper-1.0.dist-info").mkdir()  # installed
    installed = fingerprint(assignment, None, options)
    assert installed != key
    (site / "numpy_helper-1.0.dist-info").rename(site / "numpy_helper-1.1.dist-info")  # upgraded
    assert fingerprint(assignment, None, options) not in (key, installed)


def test_the_reference_is_graded_against_a_copy_of_the_runs_gradebook_while_it_matches_the_source(tmp_path):
    """`grade` hands the canary its own gradebook, where the assignment is registered as the students are graded:
    copied with the student copy its registration wrote, instead of a new gradebook registered by an nbgrader
    process of its own; not when the student copy is older than its source, nor for a gradebook not in a file."""
    from nbgrader.api import Gradebook

    from autograder.grading.canary import run_gradebook_copy

    db_url = scratch_course(tmp_path / "course")
    assignment = Assignment(Course(tmp_path / "course"), ASSIGNMENT)
    sources = assignment.source_notebooks()

    def scratch(name):
        root = tmp_path / name
        root.mkdir()
        return assignment.in_course(root)

    copy = scratch("copy")
    url = run_gradebook_copy(assignment, db_url, copy, sources)
    assert url == sqlite_url(copy.course.gradebook)
    with Gradebook(url) as gb:
        assert [n.name for n in gb.find_assignment(ASSIGNMENT).notebooks] == [p.stem for p in sources]
    assert sorted(p.name for p in copy.registered_release.glob("*.ipynb")) == sorted(p.name for p in sources)
    assert run_gradebook_copy(assignment, None, scratch("none"), sources) is None
    assert run_gradebook_copy(assignment, "postgresql://kit@localhost/gradebook", scratch("pg"), sources) is None
    later = assignment.registered_release.stat().st_mtime + 5
    os.utime(sources[2], (later, later))  # the source edited since its registration
    stale = scratch("stale")
    assert run_gradebook_copy(assignment, db_url, stale, sources) is None
    assert not stale.course.gradebook.exists()
