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


DEFERRED_PROBE = """
import json, sys
import autograder, nbgrader.coursedir
before = sorted(m for m in ("jupyter_server", "tornado.web", "nbgrader.api", "nbgrader.apps") if m in sys.modules)
import nbgrader
from nbgrader.server_extensions.formgrader import apihandlers  # a submodule: from the real folder
stand_in = nbgrader.load_formgrader.__self__  # what nbgrader's own _load_jupyter_server_extension calls
real = stand_in.real()
import nbgrader.server_extensions.formgrader.formgrader as own
print(json.dumps({
    "before": before,
    "stand_in": type(stand_in).__name__,
    "apihandlers": apihandlers.__name__,
    "real": sys.modules["nbgrader.server_extensions.formgrader"] is real
    and nbgrader.server_extensions.formgrader is real
    and real.load_jupyter_server_extension is own.load_jupyter_server_extension,
    "others": [type(sys.modules[f"nbgrader.server_extensions.{n}"]).__name__
               for n in ("assignment_list", "course_list", "validate_assignment")],
    "after": sorted(m for m in ("jupyter_server", "tornado.web") if m in sys.modules),
}))
"""


def test_nbgrader_read_by_the_kit_leaves_its_server_extensions_until_a_server_loads_them():
    """``import nbgrader`` imports its four Jupyter server extensions (Jupyter Server, the exchange, nbgrader's apps:
    about half a second); a kit process that only reads a course's folders goes without them until a server asks for
    one (``autograder/lean_imports.py``), and then gets the real module, submodules included."""
    run = subprocess.run([sys.executable, "-c", DEFERRED_PROBE], env=ENV, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["before"] == [], found
    assert found["stand_in"] == "Deferred", found
    assert found["apihandlers"] == "nbgrader.server_extensions.formgrader.apihandlers", found
    assert found["real"] is True, found
    assert found["others"] == ["Deferred"] * 3, found
    assert "jupyter_server" in found["after"], found  # the real extension imported what it needs


WAITING_PROBE = """
import json, os, sys, tempfile, zipfile
import autograder, nbgrader.api, nbgrader.utils
from nbgrader.auth import jupyterhub
before = {"requests": type(sys.modules["requests"]).__name__, "setuptools": "setuptools" in sys.modules}
folder = tempfile.mkdtemp()
with zipfile.ZipFile(os.path.join(folder, "hand-in.zip"), "w") as archive:
    archive.writestr("ada/lesson.ipynb", "{}")
os.mkdir(os.path.join(folder, "out"))
nbgrader.utils.unzip(os.path.join(folder, "hand-in.zip"), os.path.join(folder, "out"))
import setuptools.archive_util as real
print(json.dumps({
    "before": before,
    "unzipped": sorted(str(p.relative_to(folder)) for p in __import__("pathlib").Path(folder, "out").rglob("*")),
    "real archive_util": real.unpack_zipfile.__module__ == "setuptools.archive_util" and hasattr(real, "UnrecognizedFormat"),
    "requests": jupyterhub.requests.codes.ok,
    "requests real": type(sys.modules["requests"]).__name__ == "module" and sys.modules["requests"].Session.__name__,
}))
"""


def test_nbgraders_requests_and_setuptools_wait_for_their_first_use_and_then_work():
    """``nbgrader.api`` imports ``requests`` (for its JupyterHub authenticator) and ``nbgrader.utils`` setuptools'
    archive_util (to unzip): about 0.1 s of CPU together in each kit process that reads a gradebook, for what grading
    never calls. Both wait for their first use (``autograder/lean_imports.py``) and then are the real ones."""
    run = subprocess.run([sys.executable, "-c", WAITING_PROBE], env=ENV, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["before"] == {"requests": "Deferred", "setuptools": False}, found
    assert found["unzipped"] == ["out/ada", "out/ada/lesson.ipynb"], found
    assert found["real archive_util"] is True, found
    assert found["requests"] == 200 and found["requests real"] == "Session", found
