"""Scratch course directories: a copy of the kit's course in which grading can do anything."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from . import ASSIGNMENT
from .grading.grade import sqlite_url


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def make_scratch_course(target: Path, repo: Path | None = None) -> str:
    """Copy source/ and nbgrader_config.py into ``target`` and register the assignment in a new
    SQLite gradebook there; return the gradebook URL."""
    repo = repo or repo_root()
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(repo / "source" / ASSIGNMENT, target / "source" / ASSIGNMENT, dirs_exist_ok=True)
    shutil.copy(repo / "nbgrader_config.py", target / "nbgrader_config.py")
    db_url = sqlite_url(target / "gradebook.db")
    register_assignment(target, db_url)
    return db_url


def register_assignment(course_dir: Path, db_url: str, assignment: str = ASSIGNMENT,
                        release_directory: str = ".kit/release") -> None:
    """Put the assignment and its source notebooks into the gradebook with the real
    ``nbgrader generate_assignment``, writing its student copy to ``release_directory`` (by default a
    folder of the kit's own, so that the course's release/ is never touched)."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
         f"--CourseDirectory.db_url={db_url}", f"--CourseDirectory.release_directory={release_directory}"],
        cwd=course_dir, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nbgrader generate_assignment failed in {course_dir}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
