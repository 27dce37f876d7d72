"""The README's commands work as written.

The `bash` blocks of the README's Set-up, student and instructor sections are run verbatim, in a
fresh shell (no environment of this test, PATH the system's), in a scratch copy of the course: the
Set-up block first, then one section's blocks, with `set -e`, so a command that fails fails the
test.  `text` blocks are shown, never run.  What a reader brings is put in place first, and only
that: the LMS download in `~/Downloads`, the class roster, and a student's finished copy of lesson 2
in `my_work/`.  The scratch course's `.venv` is the kit's own, already made by `make setup` (the
README's `make setup` then finds nothing to do).

Also: every `autograder` command the README and docs/ show is a command `autograder --help` lists,
with options its own `--help` lists.
"""

from __future__ import annotations

import csv
import os
import re
import shlex
import shutil
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import filled_notebook

from .conftest import REPO

README = REPO / "README.md"
RUN_SECTIONS = ("Set-up", "For students and self-learners", "For instructors")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
# the class in the LMS download: student id -> (login, Canvas user id, what they handed in)
CLASS = {
    "s01-ada": ("lovelace", "1001", "reference"),
    "s02-ben": ("bennett", "1002", "stub"),
    "s03-eli": ("eliot", "1003", ["scatter-overwrite"]),
}


def sections(text: str) -> dict[str, str]:
    """The README's `## ` sections by title."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2])}


def bash_blocks(body: str) -> list[str]:
    return [code for language, code in BLOCK.findall(body) if language == "bash"]


def test_the_readme_marks_what_it_runs():
    """The sections the test runs exist and hold bash blocks; every other block of them is `text`."""
    found = sections(README.read_text(encoding="utf-8"))
    for title in RUN_SECTIONS:
        assert title in found, f"README has no section '## {title}'"
        assert bash_blocks(found[title]), f"'## {title}' has no bash block to run"
        assert {language for language, _ in BLOCK.findall(found[title])} <= {"bash", "text"}, title


def lms_download(target: Path) -> None:
    """A Canvas-style zip of CLASS: `login_userid_submissionid_notebook.ipynb`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w") as z:
        for k, (login, user, persona) in enumerate(CLASS.values()):
            for name, nb in persona_notebooks(persona).items():
                text = nb if isinstance(nb, str) else nbformat.writes(nb)
                z.writestr(f"submissions/{login}_{user}_{7000 + k}_{name}.ipynb", text)


def roster(target: Path) -> None:
    with open(target, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "name", "login", "canvas_id", "sis_user_id", "section"])
        for student, (login, user, _) in CLASS.items():
            writer.writerow([student, login.title(), login, user, f"SIS{user}", "A"])


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A copy of the course with the kit's .venv, and what a reader brings; the README's make setup is a no-op."""
    venv = REPO / ".venv"
    if not (venv / ".installed").exists():
        pytest.skip("the README's set-up uses the kit's .venv: run `make setup` first")
    root = tmp_path_factory.mktemp("readme")
    course, home = root / "course", root / "home"
    course.mkdir()
    for name in ("Makefile", "pyproject.toml", "requirements.lock", "nbgrader_config.py"):
        shutil.copy2(REPO / name, course / name)
    for folder in ("source", "release"):
        shutil.copytree(REPO / folder, course / folder)
    (course / ".venv").symlink_to(venv)
    up_to_date = subprocess.run(["make", "-q", "setup"], cwd=course, capture_output=True, text=True)
    if up_to_date.returncode != 0:
        pytest.skip("the kit's .venv is older than requirements.lock or pyproject.toml: run `make setup` first")
    lms_download(home / "Downloads" / "submissions.zip")
    roster(course / "roster.csv")
    (course / "my_work").mkdir()
    nbformat.write(filled_notebook(REPO, "02_token_embeddings"), str(course / "my_work" / "02_token_embeddings.ipynb"))
    return course


def run_section(course: Path, title: str) -> subprocess.CompletedProcess:
    found = sections(README.read_text(encoding="utf-8"))
    script = "set -e\n" + "".join(bash_blocks(found["Set-up"])) + "".join(bash_blocks(found[title]))
    env = {
        "HOME": str(course.parent / "home"),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
    }
    if "AUTOGRADER_SANDBOX" in os.environ:  # the machine's own sandbox choice (as CI sets it), not a README step
        env["AUTOGRADER_SANDBOX"] = os.environ["AUTOGRADER_SANDBOX"]
    result = subprocess.run(["bash", "-c", script], cwd=course, env=env, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, (
        f"README section '{title}' failed (exit {result.returncode}):\n{script}\n"
        f"--- stdout\n{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}"
    )
    assert "Traceback" not in result.stdout + result.stderr
    return result


def test_the_students_commands_work_as_written(scratch):
    out = run_section(scratch, "For students and self-learners").stdout
    assert "7/7 self-checks pass (25 points at stake)" in out
    assert "7/7 graded tests pass: 25/25 points" in out


def test_the_instructors_commands_work_as_written(scratch):
    out = run_section(scratch, "For instructors").stdout
    assert f"for {len(CLASS)} student(s)" in out
    with open(scratch / "grades.csv", newline="") as f:
        scores = {row["student_id"]: float(row["score"]) for row in csv.DictReader(f)}
    assert scores["s01-ada"] == 100 and scores["s02-ben"] == 0 and 0 < scores["s03-eli"] < 100
    with open(scratch / f"{ASSIGNMENT}-canvas.csv", newline="") as f:
        canvas = list(csv.DictReader(f))
    assert [row["ID"] for row in canvas] == [user for _, user, _ in CLASS.values()]
    with zipfile.ZipFile(scratch / "feedback-upload.zip") as z:
        assert len(z.namelist()) == len(CLASS) * len(NOTEBOOKS)
    assert (scratch / "reports" / ASSIGNMENT / "index.html").exists()


# --- the commands the pages show are the commands --help shows -------------------------------------


def shown_commands() -> list[tuple[str, str]]:
    """(page, command line) of every `autograder ...` line in a bash block of the README and docs/."""
    found = []
    for page in [README, *sorted((REPO / "docs").glob("*.md"))]:
        for code in bash_blocks(page.read_text(encoding="utf-8")):
            for line in code.replace("\\\n", " ").splitlines():
                command = line.split("#")[0].strip()
                if command.startswith("autograder "):
                    found.append((page.name, command))
    return found


def help_text(capsys, *args: str) -> str:
    """What `autograder ARGS --help` prints (the CLI's own parser, in this process)."""
    from autograder.cli import main

    with pytest.raises(SystemExit) as exited:
        main([*args, "--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


def test_the_commands_the_pages_show_are_the_ones_help_lists(capsys):
    shown = shown_commands()
    assert len(shown) > 10
    top = help_text(capsys)
    assert top.startswith("usage: autograder ")
    helps: dict[str, str] = {}
    for page, command in shown:
        words = shlex.split(command)
        name = words[1]
        if name not in helps:
            assert f" {name} " in top.replace(",", " ").replace("{", " ").replace("}", " "), (
                f"{page}: `{command}`: autograder --help lists no command {name!r}"
            )
            helps[name] = help_text(capsys, name)
        for option in (w.split("=")[0] for w in words[2:] if w.startswith("--")):
            assert option in helps[name], f"{page}: `{command}`: autograder {name} --help lists no {option}"
