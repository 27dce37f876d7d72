"""Student notebooks run top to bottom in a plain Python 3 kernel that has only NumPy (and ipykernel)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course import ASSIGNMENT, NOTEBOOKS
from autograder.devtools.personas import filled_notebook

from .conftest import REPO

PINNED = [
    line.strip()
    for line in (REPO / "requirements.lock").read_text().splitlines()
    if re.match(r"(numpy|ipykernel)==", line.strip(), re.I)
]

RUNNER = r"""
import json, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=120, kernel_name="plain-numpy", allow_errors=True,
               resources={"metadata": {"path": sys.argv[2]}}).execute()
errors = []
for cell in nb.cells:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            errors.append([cell.get("id"), out["ename"], out["evalue"]])
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            errors.append([cell.get("id"), "stderr", out["text"]])
print(json.dumps(errors))
"""


@pytest.fixture(scope="module")
def plain_kernel(tmp_path_factory):
    """A separate virtual environment with numpy and ipykernel only, as a named kernel."""
    root = tmp_path_factory.mktemp("plain-kernel")
    venv = root / "venv"
    # no pip in it (this test's pip installs into it from outside), and no bytecode compiled ahead for the
    # whole of IPython and NumPy: the kernels compile what they import
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-compile", *PINNED],
        check=True,
        timeout=600,
    )
    spec = root / "jupyter" / "kernels" / "plain-numpy"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(py), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "plain numpy",
                "language": "python",
            }
        )
    )
    probe = subprocess.run([str(py), "-c", "import nbgrader"], capture_output=True)
    assert probe.returncode != 0, "the plain kernel must not have nbgrader"
    return root / "jupyter"


def run_in_plain_kernel(jupyter_path: Path, nb, workdir: Path) -> list:
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "notebook.ipynb"
    nbformat.write(nb, str(path))
    env = dict(os.environ, JUPYTER_PATH=str(jupyter_path))
    result = subprocess.run(
        [sys.executable, "-c", RUNNER, str(path), str(workdir)], env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stub_notebook_fails_only_with_not_implemented(plain_kernel, tmp_path, name):
    nb = nbformat.read(str(REPO / "release" / ASSIGNMENT / f"{name}.ipynb"), as_version=4)
    errors = run_in_plain_kernel(plain_kernel, nb, tmp_path)
    assert errors, "a stub notebook must report its unfinished stubs"
    for cell_id, ename, evalue in errors:
        ok = ename == "NotImplementedError" or (ename == "Diagnosis" and "[not-implemented]" in evalue)
        assert ok, f"{name} cell {cell_id}: {ename}: {evalue}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_solved_notebook_passes_its_self_checks_without_the_kit(plain_kernel, tmp_path, name):
    errors = run_in_plain_kernel(plain_kernel, filled_notebook(REPO, name), tmp_path)
    assert errors == []
