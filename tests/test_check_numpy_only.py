"""`check` needs what the README says a student needs, Python and NumPy, and nothing more.

A fresh virtual environment (no system site packages) gets NumPy alone, from pip; then a student's
command, `python -m autograder check NOTEBOOK` run in a copy of the kit's folder, must print the
table, with no traceback and no word from Jupyter on stderr, and the other commands must say what
they need instead of failing with an import error.  The same in that Python given some of the kit's
packages and not others (traitlets, then nbformat too, as a system Python may have them): `--help` offers
only `check`, and every other command names what is missing.
"""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

import nbformat
import numpy
import pytest

from autograder.course import ASSIGNMENT
from autograder.devtools.personas import filled_notebook

from .conftest import REPO


def pip_install(python: Path, *args: str) -> None:
    """``pip install ARGS`` with ``python``'s pip; the test is skipped, with pip's last word, if pip cannot."""
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *args], capture_output=True, text=True, timeout=600
    )
    if install.returncode != 0:
        pytest.skip(f"pip could not install {args}: {(install.stderr or install.stdout).strip().splitlines()[-1:]}")


@pytest.fixture(scope="module")
def numpy_only(tmp_path_factory) -> Path:
    """The python of a new venv holding NumPy (the version the kit's tests run) and nothing else."""
    root = tmp_path_factory.mktemp("numpy-only")
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(root / "venv")
    python = root / "venv" / "bin" / "python"
    pip_install(python, f"numpy=={numpy.__version__}")
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True)
    assert {line.split("==")[0].lower() for line in listed.stdout.split()} <= {"numpy", "pip", "setuptools"}
    return python


def student(python: Path, *args: str, site: Path | None = None) -> subprocess.CompletedProcess:
    """A student's command in the kit's folder, with nothing of the test's environment on the path (``site``:
    a folder of more packages that Python finds, as a system Python finds its distribution's)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{python.parent}{os.pathsep}/usr/bin:/bin"
    if site:
        env["PYTHONPATH"] = str(site)
    return subprocess.run(
        [str(python), "-m", "autograder", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_numpy_only_python_cannot_import_the_kits_other_packages(numpy_only):
    probe = (
        "import importlib.util as u; print([m for m in ('traitlets', 'nbformat', 'nbclient', 'ipykernel', "
        "'jupyter_client', 'nbgrader', 'zmq') if u.find_spec(m)])"
    )
    assert subprocess.run([str(numpy_only), "-c", probe], capture_output=True, text=True).stdout.strip() == "[]"


def test_check_runs_with_numpy_alone(numpy_only, tmp_path):
    stub = student(numpy_only, "check", f"release/{ASSIGNMENT}/02_token_embeddings.ipynb")
    assert stub.returncode == 1, stub.stderr
    assert "0/7 self-checks pass" in stub.stdout and "not implemented yet" in stub.stdout
    done = tmp_path / "02_token_embeddings.ipynb"
    nbformat.write(filled_notebook(REPO, "02_token_embeddings"), str(done))
    solved = student(numpy_only, "check", str(done))
    assert solved.returncode == 0, solved.stdout + solved.stderr
    assert "7/7 self-checks pass (25 points at stake)" in solved.stdout
    for result in (stub, solved):
        assert result.stderr == ""  # no traceback, no "Kernel is running over TCP without encryption"
        assert "Traceback" not in result.stdout and "encryption" not in result.stdout


def test_the_other_commands_say_what_they_need(numpy_only):
    for args in (["grade", ASSIGNMENT], ["check", "--thorough", f"release/{ASSIGNMENT}/02_token_embeddings.ipynb"]):
        result = student(numpy_only, *args)
        assert result.returncode == 2
        assert "needs the whole kit" in result.stderr and "make setup" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def some_of_the_kit(numpy_only, tmp_path_factory) -> dict[str, Path]:
    """Folders of packages that give the NumPy-only Python some of the kit's: traitlets alone; nbformat (with
    traitlets and its other needs) too.  The kit's own versions, from pip."""
    import traitlets

    root = tmp_path_factory.mktemp("some-of-the-kit")
    sites = {}
    for missing, wanted in (
        ("nbformat", [f"traitlets=={traitlets.__version__}"]),
        ("nbconvert", [f"traitlets=={traitlets.__version__}", f"nbformat=={nbformat.__version__}"]),
    ):
        site = root / missing
        pip_install(numpy_only, "--target", str(site), *wanted)
        sites[missing] = site
    return sites


def test_with_some_of_the_kit_only_check_is_offered_and_the_rest_say_what_is_missing(numpy_only, some_of_the_kit):
    stub_path = f"release/{ASSIGNMENT}/02_token_embeddings.ipynb"
    for missing, site in some_of_the_kit.items():
        has = subprocess.run(
            [str(numpy_only), "-c", "import traitlets, nbformat"], env={"PYTHONPATH": str(site)}, capture_output=True
        )
        assert (has.returncode == 0) == (missing != "nbformat")  # traitlets is there, nbformat only in the second
        shown = student(numpy_only, "--help", site=site)
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.startswith("usage: autograder [-h] check ...\n")  # (the whole kit's: {build,...})
        assert f"Only `check` runs in this Python (it has no {missing}" in " ".join(shown.stdout.split())
        for args in (["grade", ASSIGNMENT], ["build"], ["runs", ASSIGNMENT], ["check", "--thorough", stub_path]):
            result = student(numpy_only, *args, site=site)
            assert result.returncode == 2, (args, result.stderr)
            assert "needs the whole kit" in result.stderr and "make setup" in result.stderr, result.stderr
            assert f"it has no {missing}" in result.stderr and "Traceback" not in result.stderr, result.stderr
        stub = student(numpy_only, "check", stub_path, site=site)
        assert stub.returncode == 1 and "0/7 self-checks pass" in stub.stdout, stub.stdout + stub.stderr
        assert stub.stderr == ""
