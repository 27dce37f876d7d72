"""The kit on Gradescope: build autograder.zip, unpack it into a scratch /autograder-shaped folder, run its
setup.sh (reusing this test's Python instead of installing one) and run_autograder on three uploads, and
check results.json against Gradescope's format and the scores the same notebooks get from plain nbgrader.
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.course import ASSIGNMENT
from autograder.devtools.demo import persona_notebooks

from .audit import LESSON, digest, digests_in, probe_notebook, reference
from .conftest import ENV, REPO, kit

VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def graded_cells() -> list[tuple[str, str, float]]:
    cells = []
    for path in sorted((REPO / "source" / ASSIGNMENT).glob("*.ipynb")):
        for cell in nbformat.read(str(path), as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and not meta.get("solution"):
                cells.append((path.stem, meta["grade_id"], float(meta["points"])))
    return cells


def unpack(archive: Path, target: Path) -> None:
    """What Gradescope does with the upload: extract it, keeping the executable bits the zip records."""
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            path = target / info.filename
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(z.read(info))
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                path.chmod(mode)


@pytest.fixture(scope="module")
def gradescope_root(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("gradescope")
    archive = work / "autograder.zip"
    kit("gradescope", ASSIGNMENT, "--out", str(archive))
    root = work / "autograder"
    unpack(archive, root / "source")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")  # as Gradescope's image build does
    env = dict(ENV, AUTOGRADER_ROOT=str(root), KIT_PYTHON=sys.executable)
    subprocess.run(["bash", "setup.sh"], cwd=root / "source", env=env, check=True, capture_output=True, timeout=300)
    return root


def run_autograder(root: Path, files: dict[str, object]) -> tuple[dict, str]:
    shutil.rmtree(root / "submission", ignore_errors=True)
    shutil.rmtree(root / "results", ignore_errors=True)
    for rel, nb in files.items():
        path = root / "submission" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nb if isinstance(nb, str) else nbformat.writes(nb), encoding="utf-8")
    (root / "results").mkdir()
    env = dict(ENV, AUTOGRADER_ROOT=str(root), KIT_PYTHON=sys.executable)
    env.pop("AUTOGRADER_SANDBOX", None)  # run_autograder decides, as it does on Gradescope
    done = subprocess.run(
        [str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "canary: the reference solution" in done.stdout, done.stdout[-3000:]  # graded, or passed before
    if shutil.which("bwrap"):  # where bubblewrap works, student code runs inside it here too
        assert "sandbox: bubblewrap works in this container" in done.stdout
    text = (root / "results" / "results.json").read_text(encoding="utf-8")
    return json.loads(text), text


def check_format(results: dict) -> None:
    """Gradescope's documented results.json: a numeric score, tests with name, score, max_score, output."""
    assert isinstance(results["score"], (int, float))
    assert results["visibility"] in VISIBILITY and results["stdout_visibility"] in VISIBILITY
    assert isinstance(results["output"], str) and isinstance(results["execution_time"], (int, float))
    cells = graded_cells()
    assert [t["name"] for t in results["tests"]] == [f"{nb}: {gid}" for nb, gid, _ in cells]  # one per graded cell
    for test, (_, _, points) in zip(results["tests"], cells):
        assert set(test) <= {"score", "max_score", "status", "name", "number", "output", "visibility"}
        assert test["max_score"] == points and 0 <= test["score"] <= points
        assert test["status"] == ("passed" if test["score"] == points else "failed")
        assert isinstance(test["output"], str) and test["output"] and test["visibility"] in VISIBILITY
    assert results["score"] == sum(t["score"] for t in results["tests"])
    assert sum(t["max_score"] for t in results["tests"]) == 100


def assert_no_hidden_code(text: str) -> None:
    for marker in ("_hidden", "autograder.hidden", "HIDDEN TESTS", "import autograder", "Traceback"):
        assert marker not in text


def test_zip_has_gradescope_layout_and_keeps_the_mutants_home(tmp_path):
    archive = tmp_path / "autograder.zip"
    kit("gradescope", ASSIGNMENT, "--out", str(archive))
    with zipfile.ZipFile(archive) as z:
        names = set(z.namelist())
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in z.infolist()}
        assert z.read("requirements.lock") == (REPO / "requirements.lock").read_bytes()
        assert z.read("kit/autograder/hidden/lesson02.py") == (REPO / "autograder/hidden/lesson02.py").read_bytes()
    assert {"setup.sh", "run_autograder", "kit/pyproject.toml", "course/nbgrader_config.py"} <= names
    assert modes["setup.sh"] & stat.S_IXUSR and modes["run_autograder"] & stat.S_IXUSR
    assert len([n for n in names if n.startswith(f"course/source/{ASSIGNMENT}/")]) == 5
    with zipfile.ZipFile(archive) as z:
        mutants = [n for n in names if "/mutants/" in n]
        assert mutants and all(z.read(n) == b'"""Not shipped to Gradescope."""\n' for n in mutants)
    assert not [n for n in names if "__pycache__" in n]


def test_gradescope_grades_the_reference_and_the_stubs(gradescope_root):
    ref, ref_text = run_autograder(
        gradescope_root, {f"{n}.ipynb": nb for n, nb in persona_notebooks("reference").items()}
    )
    check_format(ref)
    assert ref["score"] == 100 and all(t["output"] == "Passed." for t in ref["tests"])
    assert_no_hidden_code(ref_text)

    # the stubs, lesson 2 the sandbox audit's probe (tests/audit.py), which earns nothing either
    stubs = {f"{n}.ipynb": nb for n, nb in persona_notebooks("stub").items()}
    stub, stub_text = run_autograder(gradescope_root, {**stubs, f"{LESSON}.ipynb": probe_notebook()})
    check_format(stub)
    assert stub["score"] == 0 and all(t["score"] == 0 for t in stub["tests"])
    assert_no_hidden_code(stub_text)
    if shutil.which("bwrap"):  # the report every kernel path gives, named in each of lesson 2's tests
        outputs = " ".join(t["output"] for t in stub["tests"] if t["name"].startswith(LESSON))
        assert digests_in(outputs) == {digest(reference())}, outputs[:2000]


def plain_notebook_score(course: Path, student: str, notebook: str) -> float:
    """What plain nbgrader gave ``student``'s ``notebook`` (the session's plain_course)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return gb.find_submission_notebook(notebook, ASSIGNMENT, student).score


def test_gradescope_reports_a_broken_upload_and_grades_the_mistake_as_nbgrader_does(gradescope_root, plain_course):
    """One upload, in a folder (as a zip of the work folder gives it): lesson 1 renamed by a download, lesson 2 with
    the scatter-overwrite mistake, lesson 3 the reference, lesson 4 not JSON, lesson 5 missing, a text file."""
    notebooks = persona_notebooks(["scatter-overwrite"])  # the reference but for lesson 2
    files = {f"my work/{n}.ipynb": nb for n, nb in notebooks.items() if n in ("02_token_embeddings", "03_sinusoidal")}
    # renamed by a download: found by its cells
    files["my work/01_why_position (1).ipynb"] = notebooks["01_why_position"]
    files["my work/04_learned_positions.ipynb"] = "{ not json"
    files["my work/notes.txt"] = "my notes"
    results, text = run_autograder(gradescope_root, files)
    check_format(results)
    lost = {t["name"].split(":")[0] for t in results["tests"] if t["score"] < t["max_score"]}
    assert lost == {LESSON, "04_learned_positions", "05_embedding_layer"}
    # lesson 2 earns what nbgrader itself gives the same notebook: some of its points, not all
    earned = {
        nb: sum(t["score"] for t in results["tests"] if t["name"].startswith(f"{nb}:")) for nb, _, _ in graded_cells()
    }
    out_of = {nb: sum(p for n, _, p in graded_cells() if n == nb) for nb, _, _ in graded_cells()}
    plain = plain_notebook_score(plain_course, "overwriter", LESSON)  # the same mistake, the same lesson 2
    assert 0 < earned[LESSON] < out_of[LESSON] and earned[LESSON] == plain, (earned, plain)
    assert earned["01_why_position"] == out_of["01_why_position"] and earned["03_sinusoidal"] == out_of["03_sinusoidal"]
    assert results["score"] == out_of["01_why_position"] + earned[LESSON] + out_of["03_sinusoidal"]
    failed = [t for t in results["tests"] if t["name"].startswith(LESSON) and t["score"] < t["max_score"]]
    assert failed and all(
        "Diagnosis [scatter-overwrite]: Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]"
        in t["output"]
        and "np.add.at" in t["output"]
        for t in failed
    )
    assert "notes.txt: ignored (not a notebook)" in results["output"]
    assert "04_learned_positions.ipynb: not a notebook" in results["output"]
    missing = [t["output"] for t in results["tests"] if t["name"].startswith("05_")]
    assert missing and all(o == "the notebook was not submitted or could not be graded" for o in missing)
    assert_no_hidden_code(text)
