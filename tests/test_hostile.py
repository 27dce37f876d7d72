"""Hostile and broken submissions, graded with the kit's own `grade` next to an honest student.

The honest student keeps full marks. Every attacker ends with a recorded score and a reason, earns
nothing, and the course files and the other students' results stay byte-for-byte unchanged. The
same attacks are also graded by plain nbgrader, to show which ones it falls for.
"""
from __future__ import annotations

import csv
import hashlib
import json
import socket
import threading
from pathlib import Path

import nbformat
import pytest

from autograder import ASSIGNMENT, NOTEBOOKS
from autograder.course import make_scratch_course
from autograder.demo import persona_notebooks
from autograder.submissions import filled_notebook, write_submission

from .conftest import REPO, kit, nbgrader, new_course

ATTACKS = Path(__file__).parent / "attacks"
LESSON = "02_token_embeddings"


def attack(*names: str) -> str:
    return "\n".join((ATTACKS / f"{n}.py").read_text() for n in names)


def stub_with(code: str, replace: bool = False) -> nbformat.NotebookNode:
    """Lesson 2 as released (every stub unfilled), with ``code`` run in the Embedding solution cell,
    before the stub class or (``replace``) instead of it."""
    nb = nbformat.read(str(REPO / "release" / ASSIGNMENT / f"{LESSON}.ipynb"), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "embedding":
            cell.source = code if replace else code + "\n\n" + cell.source
    return nb


def overwriter_with(code: str) -> nbformat.NotebookNode:
    """Lesson 2 with the scatter-overwrite mistake (it earns partial credit), ``code`` run after its Embedding."""
    nb = persona_notebooks(["scatter-overwrite"])[LESSON]
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "embedding":
            cell.source = cell.source + "\n\n" + code
    return nb


def huge_error() -> nbformat.NotebookNode:
    """Lesson 2 whose forward raises an exception with a 40 MiB message."""
    nb = filled_notebook(REPO, LESSON)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "embedding":
            cell.source = cell.source.replace("def forward(self, idx):",
                                              "def forward(self, idx):\n        raise ValueError('x' * (40 * 2**20))", 1)
    return nb


def sinusoidal_with(code: str) -> nbformat.NotebookNode:
    """Lesson 3 as released, its sinusoidal_table cell replaced by ``code``."""
    nb = nbformat.read(str(REPO / "release" / ASSIGNMENT / "03_sinusoidal.ipynb"), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "sinusoidal-table":
            cell.source = code
    return nb


def release_text() -> str:
    return (REPO / "release" / ASSIGNMENT / f"{LESSON}.ipynb").read_text()


def edited_test_cells() -> nbformat.NotebookNode:
    nb = nbformat.read(str(REPO / "release" / ASSIGNMENT / f"{LESSON}.ipynb"), as_version=4)
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")]
    tests[0].source = "pass"                                   # edited
    tests[1].metadata["nbgrader"]["points"] = 1000             # changed metadata
    tests[2].metadata["nbgrader"]["grade"] = False             # no longer a test
    nb.cells.remove(tests[3])                                  # deleted
    nb.cells.append(nbformat.from_dict(json.loads(json.dumps(tests[4]))))  # duplicated
    return nb


def huge_output() -> nbformat.NotebookNode:
    nb = filled_notebook(REPO, LESSON)
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * (20 * 2**20))]
    return nb


# student -> files of the submission (notebook name or relative path -> notebook, text or bytes)
CASES = {
    # break it
    "broken-json": {LESSON: release_text()[:-300]},
    "wrong-nbformat": {LESSON: release_text().replace('"nbformat": 4', '"nbformat": 9')},
    "missing-and-extra": {"01_why_position": filled_notebook(REPO, "01_why_position", solve=False),
                          "scratch": nbformat.v4.new_notebook()},
    "edited-tests": {LESSON: edited_test_cells()},
    "non-utf8": {LESSON: b"\xff\xfe{\x00 \x00" + release_text().encode("utf-16-le")},
    # hang or crash it
    "hang": {LESSON: stub_with(attack("hang"))},
    "recursion": {LESSON: stub_with(attack("recursion"))},
    "allocate": {LESSON: stub_with(attack("allocate"))},
    "os-exit": {LESSON: stub_with(attack("os_exit"))},
    "sys-exit": {LESSON: stub_with(attack("sys_exit"))},
    "kill-kernel": {LESSON: stub_with(attack("kill_kernel"))},
    # cheat
    "custom-exc": {LESSON: stub_with(attack("custom_exc"))},
    "shadow-kit": {LESSON: stub_with(attack("self_check_noop")),
                   "autograder/__init__.py": "", "autograder/hidden/__init__.py": "",
                   "autograder/hidden/lesson02.py": "def __getattr__(name):\n    return lambda *a, **k: None\n"},
    "import-hook": {LESSON: stub_with(attack("import_hook", "self_check_noop"))},
    "numpy-patch": {LESSON: stub_with(attack("numpy_patch", "self_check_noop"), replace=True)},
    "read-reference": {LESSON: stub_with(attack("read_reference"), replace=True)},
    "write-gradebook": {LESSON: stub_with(attack("write_gradebook"))},
    "import-reference": {"03_sinusoidal": sinusoidal_with(attack("import_reference"))},
    "import-reference-hidden": {"03_sinusoidal": sinusoidal_with(attack("import_reference_hidden"))},
    "network": {LESSON: stub_with(attack("network"))},
    "search-kit": {LESSON: stub_with(attack("search_kit"))},
    "fake-client": {LESSON: stub_with(attack("fake_client", "self_check_noop"))},
    "rigged": {LESSON: stub_with(attack("rigged", "self_check_noop"), replace=True)},
}
# the same wrong code (the scatter-overwrite mistake, partial credit) plainly and with an attack on top
PLAIN_WRONG = {"plain-overwriter": {LESSON: overwriter_with("")}, "huge-error": {LESSON: huge_error()}}
ON_WRONG_CODE = {
    "forged-verdict": {LESSON: overwriter_with(attack("forged_verdict"))},
    "replace-checks": {LESSON: overwriter_with(attack("replace_checks", "self_check_noop"))},
    "fake-client-on-wrong": {LESSON: overwriter_with(attack("fake_client", "self_check_noop"))},
}
HONEST_BUT_ODD = {
    "renamed": {f"{LESSON} (1)": filled_notebook(REPO, LESSON)},
    "huge-output": {LESSON: huge_output()},
}
REASONS = {
    "broken-json": "not a notebook: invalid JSON at line",
    "wrong-nbformat": "not a valid notebook (nbformat 9)",
    "missing-and-extra": "scratch.ipynb: not a notebook of this assignment",
    "edited-tests": "was edited",
    "non-utf8": "not UTF-8",
    "hang": "timed out in cell `embedding`",
    "recursion": "timed out in cell `embedding`",
    "allocate": "cell `embedding` raised MemoryError",
    "os-exit": "kernel died in cell `embedding`",
    "sys-exit": "cell `embedding` raised SystemExit",
    "kill-kernel": "kernel died in cell `embedding`",
    "shadow-kit": "did not pass it",
    "import-hook": "did not pass it",
    "fake-client": "did not pass it",
}


def write_files(course: Path, student: str, files: dict) -> None:
    notebooks = {k: v for k, v in files.items() if "/" not in k}
    folder = write_submission(course, student, notebooks)
    for rel, content in files.items():
        if "/" in rel:
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)


def tree_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


class Listener:
    """A TCP listener on loopback that records whether anybody connected."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
                self.connections += 1
                conn.close()
            except OSError:
                continue


@pytest.fixture(scope="module")
def hostile_course(tmp_path_factory):
    course = tmp_path_factory.mktemp("hostile") / "course"
    db_url = make_scratch_course(course)
    listener = Listener()
    write_submission(course, "honest", {n: filled_notebook(REPO, n) for n in NOTEBOOKS})
    kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "1")
    honest_before = {folder: tree_digest(course / folder / "honest") for folder in ("submitted", "autograded", "feedback")}
    course_before = {name: tree_digest(course / name) for name in ("source",)}
    for student, files in {**CASES, **HONEST_BUT_ODD, **PLAIN_WRONG, **ON_WRONG_CODE}.items():
        write_files(course, student, files)
    (course / "submitted" / "network" / ASSIGNMENT / "port.txt").write_text(str(listener.port))
    submitted_before = tree_digest(course / "submitted")
    result = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2",
                 "--notebook-budget", "20", "--cell-timeout", "15")
    listener.stop = True
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    return dict(course=course, db_url=db_url, result=result, scores=scores, listener=listener,
                honest_before=honest_before, course_before=course_before, submitted_before=submitted_before)


def student_line(result, student: str) -> str:
    lines = [l for l in result.stdout.splitlines() if l.strip().startswith(("graded ", "FAILED ")) and f" {student}:" in l]
    assert len(lines) == 1, f"{student}: {lines}\n{result.stdout[-4000:]}"
    return lines[0]


def test_honest_student_keeps_full_marks(hostile_course):
    assert hostile_course["scores"]["honest"] == 100


@pytest.mark.parametrize("student", sorted(CASES))
def test_attacker_earns_nothing_and_is_recorded_with_a_reason(hostile_course, student):
    assert hostile_course["scores"][student] == 0
    line = student_line(hostile_course["result"], student)
    assert line.strip().startswith("graded "), f"every submission ends with a recorded score: {line}"
    if student in REASONS:
        assert REASONS[student] in line, line
    course = hostile_course["course"]
    with open(course / "reports" / ASSIGNMENT / "tests.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["student"] == student]
    assert rows and all(r["diagnostic"] for r in rows), "every lost test names why"


def test_odd_but_honest_submissions_lose_nothing(hostile_course):
    assert hostile_course["scores"]["renamed"] == 25
    assert "graded as 02_token_embeddings.ipynb (renamed file)" in student_line(hostile_course["result"], "renamed")
    assert hostile_course["scores"]["huge-output"] == 25


def test_a_huge_error_message_still_gets_its_feedback(hostile_course):
    html = hostile_course["course"] / "feedback" / "huge-error" / ASSIGNMENT / f"{LESSON}.html"
    assert html.exists() and html.stat().st_size < 5 * 2**20
    assert "more characters]" in html.read_text()
    assert 0 < hostile_course["scores"]["huge-error"] < 25


def test_course_files_and_other_students_are_untouched(hostile_course):
    course = hostile_course["course"]
    for folder, digest in hostile_course["honest_before"].items():
        assert tree_digest(course / folder / "honest") == digest, f"{folder}/honest changed"
    assert tree_digest(course / "source") == hostile_course["course_before"]["source"]
    assert tree_digest(course / "submitted") == hostile_course["submitted_before"], "a submission was modified"
    from nbgrader.api import Gradebook
    with Gradebook(hostile_course["db_url"]) as gb:
        assert gb.find_submission(ASSIGNMENT, "honest").score == 100


def test_attackers_saw_nothing_outside_their_folder(hostile_course):
    course = hostile_course["course"]
    found = (course / "autograded" / "read-reference" / ASSIGNMENT / "what-i-found.txt").read_text()
    assert found == "[]"
    wrote = (course / "autograded" / "write-gradebook" / ASSIGNMENT / "what-i-wrote.txt").read_text()
    assert "gradebook.db" not in wrote and "honest" not in wrote
    net = (course / "autograded" / "network" / ASSIGNMENT / "network.txt").read_text()
    assert net.startswith("blocked")
    assert hostile_course["listener"].connections == 0


@pytest.mark.parametrize("student", sorted(ON_WRONG_CODE))
def test_an_attack_on_wrong_code_earns_no_more_than_the_wrong_code(hostile_course, student):
    scores = hostile_course["scores"]
    assert 0 < scores["plain-overwriter"] < 25, "the plain wrong code earns partial credit"
    assert scores[student] <= scores["plain-overwriter"], (student, scores[student], scores["plain-overwriter"])


# text that only the kit's hidden checks, reference computations and mutants contain
SECRET = ["_scatter_overwrite_probe", "def _reference_table", "ATTENTION_VARIANTS", "def hidden_check", "COMPARE_FLOOR",
          "def _ids_with_repeats", "BEGIN SOLUTION"]


def test_no_check_source_reaches_the_kernel_or_the_feedback(hostile_course):
    course = hostile_course["course"]
    found = (course / "autograded" / "search-kit" / ASSIGNMENT / "what-i-found-kit.txt").read_text()
    assert "forwarding(" in found, "the search ran and found the public client"
    assert not [s for s in SECRET if s in found], "the kernel could read the kit's checks"
    for html in (course / "feedback").rglob("*.html"):
        text = html.read_text()
        assert not [s for s in SECRET if s in text], html


def test_feedback_never_shows_hidden_tests(hostile_course):
    course = hostile_course["course"]
    for html in (course / "feedback").rglob("*.html"):
        text = html.read_text()
        assert "HIDDEN TESTS" not in text and "_hidden." not in text, html


# nbgrader 0.9 already records an error that a custom IPython exception handler swallowed, so
# "custom-exc" earns nothing there either; these earn points under plain nbgrader.
PLAIN_FALLS_FOR = ["shadow-kit", "import-hook", "numpy-patch", "read-reference", "import-reference"]


def test_plain_nbgrader_falls_for_the_cheats_the_kit_stops(tmp_path):
    """Documentation by test: the same submissions earn points under plain `nbgrader autograde`."""
    course = new_course(tmp_path / "plain")
    for student in PLAIN_FALLS_FOR:
        write_files(course, student, CASES[student])
    nbgrader(course, "autograde", ASSIGNMENT)
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        earned = {s: gb.find_submission(ASSIGNMENT, s).score for s in PLAIN_FALLS_FOR}
    assert all(points > 0 for points in earned.values()), earned


def test_a_hanging_notebook_costs_at_most_one_budget(hostile_course):
    import re
    line = student_line(hostile_course["result"], "hang").strip()
    seconds = float(re.search(r"\[([0-9.]+)s\]$", line).group(1))
    assert seconds < 20 + 10, f"a 20 s notebook budget, but grading the hanging student took {seconds} s"
