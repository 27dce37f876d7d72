"""The JupyterHub path: nbgrader's exchange from release to fetched feedback, and the Validate button.

Every step is the real nbgrader command line, run as a subprocess in the folder where it runs on a
hub: the instructor's in the course root, each student's in their own home folder and as that
student. nbgrader 0.9.6 takes the student id from the Unix account (pwd.getpwuid(os.getuid())), or
from JUPYTERHUB_USER when the account is `jovyan` (the docker-stacks images); USER and LOGNAME do not
count. So each student command runs under bubblewrap as uid 1000 with a one-line /etc/passwd that
names the student (or `jovyan`, for one student), the way it runs on a hub.

Students never see the course's nbgrader_config.py, so both sides learn the exchange from one
system-wide config, here a scratch stand-in for /etc/jupyter/nbgrader_config.py named by
JUPYTER_CONFIG_PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import filled_notebook

from .conftest import ENV, REPO, kit, new_course, sandbox_or_skip

COURSE_ID = "embeddings"
DIAGNOSIS = "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]"
SECRETS = ("HIDDEN TESTS", "_hidden", "autograder")

# student id -> what they hand in, one submission after another (the last one must count): a stub, a
# diagnosed mistake, and a stub followed by the reference (max: the reference's full marks, and the latest
# of two hand-ins collected); each student costs a grading and three commands, so no more than these
STUDENTS = {
    "ben": ["stub"],
    "eli": [["scatter-overwrite"]],
    "max": ["stub", "reference"],
}
# a hub user's environment must not leak in: nbgrader would read these instead
DROP = (
    "NBGRADER_EXCHANGE",
    "JUPYTER_CONFIG_DIR",
    "JUPYTER_DATA_DIR",
    "JUPYTER_RUNTIME_DIR",
    "JUPYTERHUB_USER",
    "JUPYTER_CONFIG_PATH",
)


def hub_env(system_config: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in ENV.items() if k not in DROP}
    env["JUPYTER_CONFIG_PATH"] = str(system_config)
    env.update(extra)
    return env


# `python -m nbgrader` for the exchange's steps (release, fetch, submit, collect, feedback): the real command line,
# without jsonschema's optional "iri" format checker, whose import (rfc3987_syntax builds its grammar) costs each
# command about 1 s of CPU; none of these steps checks an iri. `nbgrader validate` below, which checks notebooks, runs
# as is.
NBGRADER = [
    sys.executable,
    "-c",
    "import runpy, sys; sys.modules['rfc3987_syntax'] = None; runpy.run_module('nbgrader', run_name='__main__')",
]


def run(cwd: Path, env: dict[str, str], *args: str, prefix: list[str] = ()) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [*prefix, *NBGRADER, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise AssertionError(
            f"nbgrader {' '.join(args)} in {cwd} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
    return result


JOVYAN = "ben"  # runs as the docker-stacks user `jovyan`; JUPYTERHUB_USER names him


class Student:
    """One hub user: a home folder, an account (uid 1000 in a user namespace) and their environment."""

    def __init__(self, sid: str, home: Path, system_config: Path):
        self.sid, self.home = sid, home
        account = "jovyan" if sid == JOVYAN else sid
        passwd = home.parent / f".passwd-{sid}"
        passwd.write_text(f"root:x:0:0:root:/root:/bin/sh\n{account}:x:1000:1000::{home}:/bin/sh\n")
        self.prefix = [
            shutil.which("bwrap") or "bwrap",
            "--dev-bind",
            "/",
            "/",
            "--ro-bind",
            str(passwd),
            "/etc/passwd",
            "--unshare-user",
            "--uid",
            "1000",
            "--gid",
            "1000",
            "--chdir",
            str(home),
            "--",
        ]
        extra = {"JUPYTERHUB_USER": sid} if sid == JOVYAN else {}
        self.env = hub_env(system_config, HOME=str(home), USER=account, LOGNAME=account, **extra)

    def nbgrader(self, *args: str) -> subprocess.CompletedProcess:
        return run(self.home, self.env, *args, prefix=self.prefix)


def hand_in(folder: Path, persona) -> None:
    """The student edits the fetched notebooks in place (a stub student changes nothing)."""
    if persona == "stub":
        return
    for name, nb in persona_notebooks(persona).items():
        nbformat.write(nb, str(folder / f"{name}.ipynb"))


def inbound(exchange: Path, student: str) -> list[str]:
    """Timestamps of a student's submissions in the exchange, oldest first."""
    folders = (exchange / COURSE_ID / "inbound").glob(f"{student}+{ASSIGNMENT}+*")
    return sorted(p.name.split("+")[2] for p in folders)  # one format, so text order is time order


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    sandbox_or_skip()  # each student's commands run as uid 1000 in a user namespace
    base = tmp_path_factory.mktemp("hub")
    exchange = base / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o777)  # nbgrader's exchange is writable to everyone (it checks and warns)
    system_config = base / "etc-jupyter"
    system_config.mkdir()
    (system_config / "nbgrader_config.py").write_text(f"c = get_config()\nc.Exchange.root = {str(exchange)!r}\n")

    course = new_course(base / "course")  # source/ + nbgrader_config.py, generate_assignment run
    instructor = hub_env(system_config)
    run(course, instructor, "release_assignment", ASSIGNMENT)

    students = {}
    for sid, personas in STUDENTS.items():
        (base / "home" / sid).mkdir(parents=True)
        student = students[sid] = Student(sid, base / "home" / sid, system_config)
        student.nbgrader("fetch_assignment", ASSIGNMENT, "--course", COURSE_ID)
        for persona in personas:
            hand_in(student.home / ASSIGNMENT, persona)
            student.nbgrader("submit", ASSIGNMENT, "--course", COURSE_ID)

    collected = run(course, instructor, "collect", ASSIGNMENT)
    graded = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2")
    run(course, instructor, "release_feedback", ASSIGNMENT)
    for student in students.values():
        student.nbgrader("fetch_feedback", ASSIGNMENT, "--course", COURSE_ID)
    homes = {sid: student.home for sid, student in students.items()}
    return {
        "course": course,
        "exchange": exchange,
        "homes": homes,
        "system_config": system_config,
        "collect": collected,
        "grade": graded,
    }


def fetched_feedback(home: Path) -> dict[str, dict[str, str]]:
    """timestamp -> {notebook name: feedback HTML} that fetch_feedback put under the student's home."""
    root = home / ASSIGNMENT / "feedback"
    return (
        {
            d.name: {p.stem: p.read_text() for p in sorted(d.glob("*.html"))}
            for d in sorted(root.iterdir())
            if d.is_dir()
        }
        if root.is_dir()
        else {}
    )


def test_every_student_fetched_the_release_into_their_home(hub):
    for student, home in hub["homes"].items():
        assert sorted(p.stem for p in (home / ASSIGNMENT).glob("*.ipynb")) == sorted(NOTEBOOKS), student


def test_submissions_are_filed_under_each_students_hub_id(hub):
    names = [p.name for p in (hub["exchange"] / COURSE_ID / "inbound").iterdir()]
    assert sorted({n.split("+")[0] for n in names}) == sorted(STUDENTS), names
    assert sorted(p.name for p in (hub["course"] / "submitted").iterdir()) == sorted(STUDENTS)


def test_gradebook_scores_of_the_collected_submissions(hub):
    with Gradebook(f"sqlite:///{hub['course'] / 'gradebook.db'}") as gb:
        scores = {s: gb.find_submission(ASSIGNMENT, s).score for s in STUDENTS}
    assert scores["ben"] == 0, scores
    assert 0 < scores["eli"] < 100, scores
    assert scores["max"] == 100, scores


def test_the_latest_of_two_submissions_is_collected(hub):
    stamps = inbound(hub["exchange"], "max")
    assert len(stamps) == 2 and stamps[0] != stamps[1], stamps  # nbgrader stamps to the microsecond
    collected = (hub["course"] / "submitted" / "max" / ASSIGNMENT / "timestamp.txt").read_text().strip()
    assert collected == stamps[-1]
    for name in NOTEBOOKS:  # the second hand-in (the reference), not the first (the stub)
        got = nbformat.read(str(hub["course"] / "submitted" / "max" / ASSIGNMENT / f"{name}.ipynb"), as_version=4)
        assert solutions(got) == solutions(filled_notebook(REPO, name)), name


def solutions(nb) -> list[str]:
    return [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]


def test_every_student_fetches_feedback_for_every_notebook(hub):
    for student, home in hub["homes"].items():
        feedback = fetched_feedback(home)
        assert len(feedback) == 1, (student, list(feedback))  # only the collected submission has feedback
        ((stamp, pages),) = feedback.items()
        assert stamp == inbound(hub["exchange"], student)[-1]
        assert sorted(pages) == sorted(NOTEBOOKS), student


def test_fetched_feedback_shows_the_diagnosis(hub):
    (pages,) = fetched_feedback(hub["homes"]["eli"]).values()
    assert DIAGNOSIS in pages["02_token_embeddings"]
    assert DIAGNOSIS not in pages["05_embedding_layer"]
    (pages,) = fetched_feedback(hub["homes"]["max"]).values()
    assert DIAGNOSIS not in pages["02_token_embeddings"]


def test_fetched_feedback_shows_no_hidden_test_or_kit(hub):
    for student, home in hub["homes"].items():
        for stamp, pages in fetched_feedback(home).items():
            for name, html in pages.items():
                for secret in SECRETS:
                    assert secret not in html, f"{student}/{stamp}/{name}.html shows {secret!r}"


def test_nbgrader_exchange_overrides_the_system_config_for_the_instructor(hub, tmp_path):
    other = tmp_path / "other-exchange"
    other.mkdir()
    os.chmod(other, 0o777)
    run(
        hub["course"],
        hub_env(hub["system_config"], NBGRADER_EXCHANGE=str(other)),
        "release_assignment",
        ASSIGNMENT,
        "--force",
    )
    released = other / COURSE_ID / "outbound" / ASSIGNMENT
    assert sorted(p.stem for p in released.glob("*.ipynb")) == sorted(NOTEBOOKS)


# --- the Validate button: `nbgrader validate` on a student's notebook, visible checks only ---------

NOTEBOOK = "02_token_embeddings"


def validate(tmp_path: Path, nb) -> str:
    """Run `nbgrader validate` on ``nb`` in a student's folder, the way the Validate button does."""
    folder = tmp_path / "home"
    folder.mkdir()
    target = folder / f"{NOTEBOOK}.ipynb"
    if isinstance(nb, bytes):
        target.write_bytes(nb)
    else:
        nbformat.write(nb, str(target))
    env = {k: v for k, v in ENV.items() if k not in DROP}
    env["HOME"] = str(folder)
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", "validate", target.name],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_validate_reports_failures_on_a_stub(tmp_path):
    report = validate(tmp_path, (REPO / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_bytes())
    assert "VALIDATION FAILED ON" in report
    assert "Diagnosis [not-implemented]: " in report  # the self-checks speak of a stub in the kit's voice
    assert "not implemented yet. Fill in its stub" in report
    assert "Success!" not in report


def test_validate_reports_the_misconception_from_the_visible_self_check(tmp_path):
    report = validate(tmp_path, persona_notebooks(["scatter-overwrite"])[NOTEBOOK])
    assert "VALIDATION FAILED ON 1 CELL(S)!" in report
    assert "Diagnosis [scatter-overwrite]: " + DIAGNOSIS.split(" should be")[0] in report  # validate cuts long lines
    for secret in SECRETS:  # the release has no hidden tests: validate runs the visible checks only
        assert secret not in report


def test_validate_reports_success_on_a_correct_notebook(tmp_path):
    report = validate(tmp_path, filled_notebook(REPO, NOTEBOOK))
    assert "Success! Your notebook passes all the tests." in report
    assert "VALIDATION FAILED" not in report
