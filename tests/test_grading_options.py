"""One home per setting: every option a course sets is declared once (autograder/config.py), decided once into the
frozen GradingOptions, read from it by every grader and the sandbox, and recorded as a grading input."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

from autograder.classroom.history.inputs import GRADING_OPTIONS, course_options
from autograder.config import (
    GradingOptions,
    NotebookLimits,
    ResourceLimits,
    grading_options,
    parse_size,
    read_course_config,
)
from autograder.course import Course, CourseError
from autograder.grading.grade import course_config

GiB, MiB = 2**30, 2**20


@pytest.mark.parametrize(
    ("written", "size"),
    [("2GiB", 2 * GiB), ("512MiB", 512 * MiB), ("512 mib", 512 * MiB), ("2GB", 2 * 10**9), ("1.5G", 15 * 10**8)]
    + [("100", 100), (4096, 4096), ("0", 0)],
)
def test_a_size_is_read_as_dask_reads_memory_limits(written, size):
    assert parse_size(written) == size


def course_with(tmp_path, line: str):
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(f"c = get_config()\n{line}\n")
    return root


@pytest.mark.parametrize("bad", ["'2 gigs'", "'2GiBs'", "-5", "True"])
def test_a_bad_memory_limit_names_the_file_and_the_value(tmp_path, bad):
    root = course_with(tmp_path, f"c.ResourceLimits.memory_limit = {bad}")
    with pytest.raises(CourseError) as raised:
        Course(root)
    said = str(raised.value)
    assert str(root / "nbgrader_config.py") in said and "c.ResourceLimits.memory_limit" in said, said
    assert str(eval(bad)) in said and '"2GiB"' in said, said  # the value, and how to write one


def test_the_memory_limit_reaches_the_sandbox_from_grading_options_alone(tmp_path):
    """What the kernel manager reads back is the run's GradingOptions.limits, even when the run's options are not
    the course's own (a second route from the course config to the sandbox would show here)."""
    root = course_with(tmp_path, 'c.ResourceLimits.memory_limit = "3GiB"\nc.ResourceLimits.max_processes = 40')
    options = grading_options(read_course_config(root))
    assert options.limits.memory_limit == 3 * GiB and options.limits.max_processes == 40
    chosen = dataclasses.replace(options, limits=dataclasses.replace(options.limits, memory_limit=768 * MiB))
    assert NotebookLimits.from_config(course_config(root, options=chosen)) == chosen.limits
    assert NotebookLimits.from_config(course_config(root)) == options.limits


def test_every_grading_option_is_a_recorded_grading_input():
    """Every field of GradingOptions but the workers, how soon a silent one is presumed hung and when the canary is
    graded is recorded (a new
    field is decided here on purpose); a changed limit, even at its default (no line of the course's config moves),
    changes the record and names the limit."""
    not_recorded = {"jobs", "hung_grace", "canary_beside"}
    assert set(GRADING_OPTIONS) == {f.name for f in dataclasses.fields(GradingOptions)} - not_recorded
    before = grading_options()
    after = dataclasses.replace(before, limits=dataclasses.replace(before.limits, memory_limit=3 * GiB))
    old, new = course_options({}, before), course_options({}, after)
    assert {k for k in old if old[k] != new.get(k)} == {"grade.limits.memory_limit"}


def test_every_limit_a_course_sets_is_decided_and_has_help():
    declared = set(ResourceLimits.class_trait_names(config=True))
    assert declared == {f.name for f in dataclasses.fields(NotebookLimits)}
    assert all(trait.help for trait in ResourceLimits.class_traits(config=True).values())


def test_the_old_names_still_work_and_say_their_new_one(tmp_path):
    root = course_with(tmp_path, "c.ResourceLimits.max_memory_mb = 1024\nc.KitConfig.memory_limit_mb = 3072")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        limits = grading_options(read_course_config(root)).limits
    assert limits.memory_limit == GiB and limits.process_address_space == 3 * GiB
    words = " ".join(str(w.message) for w in said)
    assert "c.ResourceLimits.memory_limit" in words and "c.ResourceLimits.process_address_space" in words
    assert NotebookLimits.from_config(course_config(root)) == limits  # and the sandbox reads the same
