"""The kit's metadata check is nbgrader's, its schema checked once: the same verdict on every cell, and grading uses it.

In-process and quick: nbgrader's validator and the kit's on the source notebooks, whole and damaged.
"""

from __future__ import annotations

import copy

import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator

from autograder.course import NOTEBOOKS, Course, repo_root
from autograder.grading.grade import course_config
from autograder.grading.metadata_check import KIT_CHECK, SchemaCheckedOnceValidator


def source(name: str) -> nbformat.NotebookNode:
    return nbformat.read(str(Course(repo_root()).notebook("source", name)), as_version=4)


def graded_cell(nb: nbformat.NotebookNode):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))


def points_not_a_number(meta):
    meta["points"] = "lots"


def no_points(meta):
    del meta["points"]


def schema_too_new(meta):
    meta["schema_version"] = 9


def unknown_key(meta):
    meta["secret"] = True


def no_grade_id(meta):
    del meta["grade_id"]


def verdict(validator, nb) -> tuple[str, str] | None:
    try:
        validator().validate_nb(copy.deepcopy(nb))
    except Exception as e:  # noqa: BLE001 - the verdict is the error, whichever it is
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("damage", [None, points_not_a_number, no_points, schema_too_new, unknown_key, no_grade_id])
def test_the_kit_and_nbgrader_give_the_same_verdict(damage):
    for name in NOTEBOOKS:
        nb = source(name)
        if damage is not None:
            damage(graded_cell(nb).metadata["nbgrader"])
        expected = verdict(MetadataValidator, nb)
        assert verdict(SchemaCheckedOnceValidator, nb) == expected, name
        assert (expected is None) == (damage is None), (name, expected)  # each damage is an error


@pytest.mark.parametrize("damage", [points_not_a_number, no_points, schema_too_new, unknown_key, no_grade_id])
def test_metadata_remembered_as_valid_does_not_hide_a_damaged_copy(damage):
    """The kit remembers metadata it found valid: a damaged copy of it, checked next, is still nbgrader's error."""
    for name in NOTEBOOKS:
        nb = source(name)
        assert verdict(SchemaCheckedOnceValidator, nb) is None
        damage(graded_cell(nb).metadata["nbgrader"])
        expected = verdict(MetadataValidator, nb)
        assert expected is not None and verdict(SchemaCheckedOnceValidator, nb) == expected, name
        assert verdict(SchemaCheckedOnceValidator, nb) == expected, name  # an error is never remembered as valid


def test_grading_checks_the_metadata_with_the_kits_check_in_both_passes():
    config = course_config(repo_root())
    assert KIT_CHECK in config.Autograde.autograde_preprocessors
    assert KIT_CHECK in config.Autograde.sanitize_preprocessors
    assert not any(
        "CheckCellMetadata" in str(step) and step != KIT_CHECK for step in config.Autograde.sanitize_preprocessors
    )
