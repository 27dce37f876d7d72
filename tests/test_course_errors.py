"""Errors that point the right way: a folder that is not a course says so and names --course-dir; a
misspelt assignment gets the closest name the course has.  The real command line, in this process."""

from __future__ import annotations

import shutil

import pytest

from autograder.cli import main
from autograder.course import ASSIGNMENT

from .conftest import REPO


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("command", [["grade", ASSIGNMENT], ["collect", ASSIGNMENT, "."], ["export", ASSIGNMENT]])
def test_a_folder_that_is_not_a_course_says_so_and_names_course_dir(tmp_path, capsys, command):
    (tmp_path / "class").mkdir()
    code, err = run(capsys, *command, "--course-dir", str(tmp_path / "class"))
    assert code == 2
    assert f"{tmp_path / 'class'} is not a course root: it has no nbgrader_config.py and no source/ folder" in err
    assert "--course-dir PATH" in err and "unknown assignment" not in err


@pytest.mark.parametrize("command", ["grade", "collect"])
def test_a_misspelt_assignment_gets_the_closest_name(tmp_path, capsys, command):
    shutil.copytree(REPO / "source" / ASSIGNMENT, tmp_path / "source" / ASSIGNMENT)
    shutil.copy(REPO / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    source = ["."] if command == "collect" else []
    code, err = run(capsys, command, "embedings", *source, "--course-dir", str(tmp_path))
    assert code == 2
    assert (
        f"unknown assignment 'embedings': no source notebooks in {tmp_path / 'source' / 'embedings'}; "
        f"did you mean '{ASSIGNMENT}'?" in err
    )
    code, err = run(capsys, command, "lesson-zero", *source, "--course-dir", str(tmp_path))
    assert code == 2 and f"the course has '{ASSIGNMENT}'" in err
