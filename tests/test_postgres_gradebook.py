"""The gradebook is whatever nbgrader supports: the same class graded on PostgreSQL, two workers."""
from __future__ import annotations

import csv
import os
import pwd
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.course import ASSIGNMENT
from autograder.course import make_scratch_course
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

from .conftest import kit

PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), None)


def as_postgres(*cmd: str) -> None:
    """PostgreSQL refuses to run as root: as root, run it as the postgres user; otherwise as yourself."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    subprocess.run([*prefix, *cmd], check=True, capture_output=True, timeout=120)


@pytest.fixture
def postgres(tmp_path):
    """A throwaway PostgreSQL server on a Unix socket, owned by the postgres user (by you, as non-root)."""
    if PG_BIN is None or not (PG_BIN / "initdb").exists():
        pytest.skip("PostgreSQL server binaries are not installed (.ci/run installs them as root: apt-get install postgresql)")
    root = Path("/tmp") / f"kit-pg-{os.getpid()}-{tmp_path.name}"
    data, sock = root / "data", root / "sock"
    sock.mkdir(parents=True)
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root, and there is no postgres system user to run the server as")
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
    as_postgres(str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
    as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-w", "-l", str(root / "log"),
                "-o", f"-k {sock} -c listen_addresses='' -p 5433", "start")
    try:
        as_postgres(str(PG_BIN.parent / "bin" / "createdb") if (PG_BIN / "createdb").exists() else "createdb",
                    "-h", str(sock), "-p", "5433", "-U", "postgres", "gradebook")
        yield f"postgresql://postgres@/gradebook?host={sock}&port=5433"
    finally:
        as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


def test_parallel_grading_on_postgresql(tmp_path, postgres):
    course = tmp_path / "course"
    make_scratch_course(course)
    for student, persona in {"ada": "reference", "ben": "stub", "eli": ["scatter-overwrite"],
                             "fay": ["sin-cos-swap"]}.items():
        write_submission(course, student, persona_notebooks(persona))
    result = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2", "--db-url", postgres)
    assert f"gradebook {postgres}" in result.stdout
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert scores["ada"] == 100 and scores["ben"] == 0 and 0 < scores["eli"] < 100 and 0 < scores["fay"] < 100
    again = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2", "--db-url", postgres)
    assert "skipping 4 submission(s)" in again.stdout
    from nbgrader.api import Gradebook
    with Gradebook(postgres) as gb:
        assert sorted(s.student.id for s in gb.assignment_submissions(ASSIGNMENT)) == ["ada", "ben", "eli", "fay"]
