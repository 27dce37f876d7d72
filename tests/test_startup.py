"""A command imports only what it uses: `--help` and every command's start-up import none of the grading
packages, and `check` only what its self-checks need (docs/speed.md: importing nbgrader is seconds).

Each test runs the command line in a fresh Python and reads what that Python imported.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from autograder.course import ASSIGNMENT

from .conftest import ENV, REPO

# what grading needs and a command line, a `--help` or a self-check never does
GRADING = (
    "nbgrader",
    "nbconvert",
    "nbclient",
    "jupyter_client",
    "ipykernel",
    "zmq",
    "sqlalchemy",
    "alembic",
    "matplotlib",
    "hypothesis",
    "copydetect",
    "jupytext",
    "distributed",
)
# what a notebook's self-checks need: the notebook read as grading reads it (nbformat, with its schema)
READER = ("nbformat", "jsonschema")

RUN_MAIN = """
import json, sys
from autograder.cli import main
for argv in json.loads(sys.argv[1]):
    try:
        main(argv)
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def imported(*argvs: list[str]) -> set[str]:
    """The top-level modules a fresh Python imported running ``autograder`` with each of ``argvs`` in turn."""
    run = subprocess.run(
        [sys.executable, "-c", RUN_MAIN, json.dumps(argvs)],
        cwd=REPO,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return {name.split(".")[0] for name in json.loads(run.stdout.strip().splitlines()[-1])}


def test_help_and_every_commands_start_up_import_nothing_of_grading():
    listed = subprocess.run(
        [sys.executable, "-m", "autograder", "--help"], cwd=REPO, env=ENV, capture_output=True, text=True, timeout=120
    )
    commands = re.search(r"\{([a-z,-]+)\}", listed.stdout).group(1).split(",")
    assert {"check", "grade", "build", "export", "runs"} <= set(commands)
    found = imported(["--help"], *([name, "--help"] for name in commands))
    assert not found & set(GRADING + READER), found & set(GRADING + READER)


def test_check_imports_only_what_the_self_checks_need():
    found = imported(["check", f"release/{ASSIGNMENT}/02_token_embeddings.ipynb"])
    assert "nbformat" in found  # the notebook is read as grading reads it
    assert not found & set(GRADING), found & set(GRADING)


def test_no_process_of_the_kit_imports_the_dear_format_checkers():
    """jsonschema imports rfc3987_syntax (38 Earley parsers, seconds of CPU) and isoduration (arrow, a quarter of a
    second) unless the kit's package keeps them out; no schema nbformat or nbgrader validates has a format, so no
    check is lost."""
    probe = (
        "import autograder, sys, nbgrader.api, nbformat, jsonschema; "
        "print(*[sys.modules.get(m) for m in ('rfc3987_syntax', 'isoduration', 'arrow')], "
        "*[f in jsonschema.FormatChecker().checkers for f in ('iri', 'duration', 'color', 'uri-template')])"
    )
    run = subprocess.run([sys.executable, "-c", probe], env=ENV, capture_output=True, text=True, timeout=120)
    assert run.stdout.split() == ["None"] * 3 + ["False"] * 4, run.stdout + run.stderr

    import nbformat
    import nbgrader.nbgraderformat

    def formats(schema) -> set[str]:
        if isinstance(schema, dict):
            here = {schema["format"]} if isinstance(schema.get("format"), str) else set()
            return here.union(*(formats(v) for v in schema.values()))
        if isinstance(schema, list):
            return set().union(*(formats(v) for v in schema))
        return set()

    files = [
        *Path(nbformat.__file__).parent.rglob("*.json"),
        *Path(nbgrader.nbgraderformat.__file__).parent.glob("*.json"),
    ]
    assert len(files) > 5
    assert not any(formats(json.loads(path.read_text())) for path in files)
