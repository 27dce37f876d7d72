"""Hostile and broken submissions, graded with the kit's own `grade` next to an honest student.

The honest student keeps full marks. Every attacker ends with a recorded score and a reason, earns
nothing, and the course files and the other students' results stay byte-for-byte unchanged. The
same attacks are also graded by plain nbgrader, to show which ones it falls for.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

from autograder.course import ASSIGNMENT, NOTEBOOKS, STAGING
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import filled_notebook, write_submission

from .audit import assert_audited, probe_notebook, reference, report_of
from .conftest import ENV, REPO, kernel_starts, kit, nbgrader, new_course, sandbox_or_skip, scratch_course

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
    """Lesson 2 whose forward raises an exception with an 8 MiB message: over the feedback page's 5 MiB with the
    kit's ERROR_CAP (20 000 characters) broken, which the test of it then catches."""
    nb = filled_notebook(REPO, LESSON)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "embedding":
            cell.source = cell.source.replace(
                "def forward(self, idx):", "def forward(self, idx):\n        raise ValueError('x' * (8 * 2**20))", 1
            )
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
    tests = [
        c
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")
    ]
    tests[0].source = "pass"  # edited
    tests[1].metadata["nbgrader"]["points"] = 1000  # changed metadata
    tests[2].metadata["nbgrader"]["grade"] = False  # no longer a test
    nb.cells.remove(tests[3])  # deleted
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
    "missing-and-extra": {
        "01_why_position": filled_notebook(REPO, "01_why_position", solve=False),
        "scratch": nbformat.v4.new_notebook(),
    },
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
    "shadow-kit": {
        LESSON: stub_with(attack("self_check_noop")),
        "autograder/__init__.py": "",
        "autograder/hidden/__init__.py": "",
        "autograder/hidden/lesson02.py": "def __getattr__(name):\n    return lambda *a, **k: None\n",
    },
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
    # the solution of "keyring-writer" (graded in the run before), found in the kernel keyring: nothing of its own
    "keyring-reader": {LESSON: stub_with(attack("keyring_read"), replace=True)},
    # the sandbox audit's probe (tests/audit.py), in a forked kernel; "sandbox-probe-started" is graded in the
    # first run, whose kernels are started the ordinary way
    "sandbox-probe": {LESSON: probe_notebook()},
}
# graded in the first run, with the honest student: correct lesson-2 code that also stores itself in the keyring
KEYRING_WRITER = {LESSON: filled_notebook(REPO, LESSON)}
for _cell in KEYRING_WRITER[LESSON].cells:
    if _cell.metadata.get("nbgrader", {}).get("grade_id") == "embedding":
        _cell.source += "\n\n" + attack("keyring_write")
# the same wrong code (the scatter-overwrite mistake, partial credit) plainly and with an attack on top
PLAIN_WRONG = {"plain-overwriter": {LESSON: overwriter_with("")}, "huge-error": {LESSON: huge_error()}}
ON_WRONG_CODE = {
    "forged-verdict": {LESSON: overwriter_with(attack("forged_verdict"))},
    "replace-checks": {LESSON: overwriter_with(attack("replace_checks", "self_check_noop"))},
    "fake-client-on-wrong": {LESSON: overwriter_with(attack("fake_client", "self_check_noop"))},
    # kill or stop the sandbox's placeholder: were its death the kit's, the student would end `error`, not scored
    "kill-placeholder": {LESSON: overwriter_with(attack("kill_placeholder"))},
}
# student -> attack: each would take the machine down without the resource limits, but stops itself
# (a few thousand processes, ten thousand threads, 3.1 GiB, 2 GiB, twenty thousand files)
RESOURCE_ATTACKS = {
    "fork-bomb": "fork_bomb",
    "threads": "threads",
    "memory-balloon": "memory_balloon",
    "write-workdir": "write_workdir",
    "write-tmp": "write_tmp",
    "many-files": "many_files",
}
CASES.update({student: {LESSON: stub_with(attack(name))} for student, name in RESOURCE_ATTACKS.items()})
# the scratch course's limits (autograder.config.ResourceLimits), set in its nbgrader_config.py
# the grading runs' time limits (--notebook-budget, --cell-timeout): the hanging student costs one cell timeout, and
# honest notebooks must finish well inside them on a loaded machine (a budget counts from before the notebook's kernel
# starts). The slowest honest cell is the sandbox audit's probe, which walks every file its kernel sees: 1.6 s in a
# forked kernel, and 8.4 s in one started the ordinary way while the syscall test traced a grading beside it (with a
# cell timeout of 8 s, its report was cut short: tests/test_hostile.py, test_faults and test_syscall_allow_list run
# together with -n 3)
BUDGET, CELL_TIMEOUT = "20", "15"
LIMITS = {"max_processes": 64, "memory_limit": "1GiB", "max_written_mb": 64, "max_files": 10000}
HONEST_BUT_ODD = {
    "renamed": {f"{LESSON} (1)": filled_notebook(REPO, LESSON)},
    "huge-output": {LESSON: huge_output()},
    # a data file over the cap on submitted files (20 MiB by default) next to a small one
    "big-upload": {
        LESSON: filled_notebook(REPO, LESSON),
        "data/notes.txt": "small",
        "data/weights.bin": b"\x00" * (25 * 2**20),
    },
}
REASONS = {
    "broken-json": "not a notebook: invalid JSON at line",
    "wrong-nbformat": "not a valid notebook (nbformat 9)",
    "missing-and-extra": "scratch.ipynb: not a notebook of this assignment",
    "edited-tests": "was edited",
    "non-utf8": "not UTF-8",
    "hang": "timed out in cell `embedding`",
    # deep recursion grows the heap (Python frames) until the memory limit or the cell timeout stops it
    "recursion": (
        "timed out in cell `embedding`",
        "used more than 1024 MiB of memory: stopped in cell `embedding`",
        "kernel died in cell `embedding`",
    ),  # a C stack overflow may take the kernel down first
    "allocate": "cell `embedding` raised MemoryError",
    "os-exit": "kernel died in cell `embedding`",
    "sys-exit": "cell `embedding` raised SystemExit",
    "kill-kernel": "kernel died in cell `embedding`",
    "shadow-kit": "did not pass it",
    "import-hook": "did not pass it",
    "fake-client": "did not pass it",
    "fork-bomb": "started more than 64 processes or threads: stopped in cell `embedding`",
    "threads": "started more than 64 processes or threads: stopped in cell `embedding`",
    "memory-balloon": "used more than 1024 MiB of memory: stopped in cell `embedding`",
    "write-workdir": "wrote more than 64 MiB: stopped in cell `embedding`",
    "write-tmp": "wrote more than 64 MiB: stopped in cell `embedding`",
    "many-files": "created more than 10000 files: stopped in cell `embedding`",
}


def write_files(course: Path, student: str, files: dict) -> None:
    notebooks = {k: v for k, v in files.items() if "/" not in k}
    folder = write_submission(course, student, notebooks)
    for rel, content in files.items():
        if "/" in rel:
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


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


class Probe:
    """A process started beside the grader that must keep answering: each ping makes it start a process."""

    SCRIPT = "import subprocess, sys\nfor line in sys.stdin:\n    subprocess.run(['true'])\n    print(line.strip(), flush=True)\n"

    def __init__(self, every: float = 0.5):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", self.SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.every, self.latencies, self.stop = every, [], False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self.stop:
            sent = time.monotonic()
            self.proc.stdin.write("ping\n")
            self.proc.stdin.flush()
            self.proc.stdout.readline()
            self.latencies.append(time.monotonic() - sent)
            time.sleep(self.every)

    def finish(self) -> list[float]:
        self.stop = True
        time.sleep(2 * self.every)
        self.proc.kill()
        return list(self.latencies)


def folder_bytes(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*")) if folder.exists() else 0


@pytest.fixture(scope="module")
def hostile_course(tmp_path_factory):
    sandbox_or_skip()  # the attacks are held by the sandbox: without one this file has nothing to show
    course = tmp_path_factory.mktemp("hostile") / "course"
    db_url = scratch_course(course)
    with open(course / "nbgrader_config.py", "a") as f:
        f.write("".join(f"\nc.ResourceLimits.{k} = {v!r}" for k, v in LIMITS.items()) + "\n")
    listener = Listener()
    write_submission(course, "honest", {n: filled_notebook(REPO, n) for n in NOTEBOOKS})
    write_files(course, "keyring-writer", KEYRING_WRITER)
    write_files(course, "sandbox-probe-started", {LESSON: probe_notebook()})
    config = (course / "nbgrader_config.py").read_text()
    # the first run starts its kernels the ordinary way (as the fallback does): the probe audits that path
    (course / "nbgrader_config.py").write_text(config + "\nc.SandboxedKernelManager.fork_kernels = False\n")
    budget = (
        "--notebook-budget",
        BUDGET,
        "--cell-timeout",
        CELL_TIMEOUT,
    )  # both runs: grading inputs, so honest stays graded
    first = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "1", *budget)
    (course / "nbgrader_config.py").write_text(config)
    honest_before = {
        folder: tree_digest(course / folder / "honest") for folder in ("submitted", "autograded", "feedback")
    }
    course_before = {name: tree_digest(course / name) for name in ("source",)}
    for student, files in {**CASES, **HONEST_BUT_ODD, **PLAIN_WRONG, **ON_WRONG_CODE}.items():
        write_files(course, student, files)
    # graded in the same run as the attackers ("honest" is unchanged, so that run skips it)
    write_submission(course, "honest-beside", {n: filled_notebook(REPO, n) for n in NOTEBOOKS})
    (course / "submitted" / "network" / ASSIGNMENT / "port.txt").write_text(str(listener.port))
    submitted_before = tree_digest(course / "submitted")
    probe = Probe()
    result = kit(
        "grade",
        ASSIGNMENT,
        "--course-dir",
        str(course),
        "--jobs",
        "2",
        *budget,
    )
    probe_latencies = probe.finish()
    listener.stop = True
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    return dict(
        course=course,
        db_url=db_url,
        first=first,
        result=result,
        scores=scores,
        listener=listener,
        honest_before=honest_before,
        course_before=course_before,
        submitted_before=submitted_before,
        probe_latencies=probe_latencies,
    )


def student_line(result, student: str) -> str:
    lines = [
        line
        for line in result.stdout.splitlines()
        if line.strip().startswith((f"graded {student}:", f"FAILED {student}:"))
    ]
    assert len(lines) == 1, f"{student}: {lines}\n{result.stdout[-4000:]}"
    return lines[0]


def test_the_attacks_ran_in_forked_kernels(hostile_course):
    """The attacks below hold against kernels forked into their sandboxes (autograder.sandbox.forked), the
    way every notebook is graded: none fell back to an ordinary start."""
    course = hostile_course["course"]
    ran = {student: kernel_starts(course, student) for student in ("honest-beside", *CASES)}
    ran = {student: starts for student, starts in ran.items() if starts}  # (some attacks reach no kernel)
    assert "honest-beside" in ran and len(ran) > len(CASES) // 2, sorted(ran)
    for student, starts in ran.items():
        assert set(starts.values()) == {"forked"}, (student, starts)


def test_honest_student_keeps_full_marks(hostile_course):
    assert hostile_course["scores"]["honest"] == 100
    assert hostile_course["scores"]["honest-beside"] == 100
    assert student_line(hostile_course["result"], "honest-beside").strip().startswith("graded honest-beside: 100/100")


@pytest.mark.parametrize("student", sorted(CASES))
def test_attacker_earns_nothing_and_is_recorded_with_a_reason(hostile_course, student):
    assert hostile_course["scores"][student] == 0
    line = student_line(hostile_course["result"], student)
    assert line.strip().startswith("graded "), f"every submission ends with a recorded score: {line}"
    if student in REASONS:
        expected = REASONS[student] if isinstance(REASONS[student], tuple) else (REASONS[student],)
        assert any(reason in line for reason in expected), line
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


def printed(course: Path, student: str, label: str) -> str:
    """What an attack printed after ``label:`` in its autograded notebook (files it writes never come back)."""
    nb = nbformat.read(str(course / "autograded" / student / ASSIGNMENT / f"{LESSON}.ipynb"), as_version=4)
    for cell in nb.cells:
        # one print can reach the notebook as two stream outputs ("network:", " blocked: ...") when the
        # kernel flushes between its writes, as it does on a loaded machine: read a cell's stdout whole
        stdout = "".join(out.get("text", "") for out in cell.get("outputs", []) if out.get("name") == "stdout")
        for line in stdout.splitlines():
            if line.startswith(label + ": "):
                return line[len(label) + 2 :]
    raise AssertionError(f"{student} printed no {label!r}")


def test_attackers_saw_nothing_outside_their_folder(hostile_course):
    course = hostile_course["course"]
    assert printed(course, "read-reference", "what-i-found") == "[]"
    wrote = printed(course, "write-gradebook", "what-i-wrote")
    assert "gradebook.db" not in wrote and "honest" not in wrote
    assert printed(course, "network", "network").startswith("blocked")
    assert hostile_course["listener"].connections == 0


def test_a_keyring_written_by_one_kernel_is_invisible_to_the_next(hostile_course):
    """The attack of a grader run as root: one student's kernel stores its solution in the user keyring
    (``add_key``), a later student's kernel finds it there (``keyctl(KEYCTL_SEARCH)``) and runs it.  The
    system-call filter denies both calls (and each sandbox has a user namespace, whose keyrings are its own):
    the writer keeps exactly what its code earns, the reader finds nothing and earns nothing."""
    course = hostile_course["course"]
    assert hostile_course["scores"]["keyring-writer"] == 25, "correct lesson-2 code, and nothing more"
    assert printed(course, "keyring-writer", "keyring-write").startswith("blocked: Operation not permitted")
    assert printed(course, "keyring-reader", "keyring-read").startswith("blocked: Operation not permitted")
    assert hostile_course["scores"]["keyring-reader"] == 0


def test_the_sandbox_audit_of_grade_as_root(hostile_course):
    """The probe graded by `grade` as root, in a kernel forked into its sandbox and in one started the ordinary
    way: each report is the reference's (no capability, no_new_privs, the filter, nothing succeeds, only the
    capped writable places), the same for both."""
    course = hostile_course["course"]
    for student, how in (("sandbox-probe", "forked"), ("sandbox-probe-started", "started")):
        assert kernel_starts(course, student) == {LESSON: how}, (student, kernel_starts(course, student))
        assert_audited(report_of(course, student), LIMITS["max_written_mb"])
    assert report_of(course, "sandbox-probe") == report_of(course, "sandbox-probe-started")


def test_the_run_says_how_its_kernels_came_up(hostile_course):
    """The fallback is visible: the summary `grade` prints (and the class report) counts the run's kernels
    forked and started the ordinary way, and says why."""
    import re

    first, second = hostile_course["first"].stdout, hostile_course["result"].stdout
    assert re.search(
        r"Kernels: 0 forked into their sandboxes, (\d+) started the ordinary way "
        r"\(\1: SandboxedKernelManager.fork_kernels is False\)",
        first,
    ), first[-3000:]
    assert re.search(r"Kernels: [1-9]\d* forked into their sandboxes, 0 started the ordinary way\n", second), second[
        -3000:
    ]
    report = (hostile_course["course"] / "reports" / ASSIGNMENT / "index.html").read_text()
    assert "forked into their sandboxes, 0 started the ordinary way" in report


@pytest.mark.parametrize("student", sorted(ON_WRONG_CODE))
def test_an_attack_on_wrong_code_earns_no_more_than_the_wrong_code(hostile_course, student):
    scores = hostile_course["scores"]
    assert 0 < scores["plain-overwriter"] < 25, "the plain wrong code earns partial credit"
    assert scores[student] <= scores["plain-overwriter"], (student, scores[student], scores["plain-overwriter"])


def test_the_placeholder_a_student_tries_to_kill_lives_and_the_student_is_scored(hostile_course):
    """Wrong code that also tries every way to kill or stop its sandbox's placeholder (``attacks/kill_placeholder.py``):
    the placeholder lives (it is the sandbox's PID 1, which ignores every signal sent from inside, its limits are not
    the student's to set, its /proc folder is empty), so the kernel does too, and the student is graded as the plain
    wrong code is, never `error`; the student's own child is still theirs to kill."""
    course, result = hostile_course["course"], hostile_course["result"]
    line = student_line(result, "kill-placeholder")
    assert line.strip().startswith("graded kill-placeholder: "), line
    assert "kernel died" not in line, line
    assert set(kernel_starts(course, "kill-placeholder").values()) == {"forked"}, kernel_starts(
        course, "kill-placeholder"
    )
    routes = json.loads(printed(course, "kill-placeholder", "placeholder"))
    assert routes["kill(1, 9)"] == "ok" and routes["prlimit(1, RLIMIT_CPU)"] == "Operation not permitted", routes
    assert printed(course, "kill-placeholder", "own-child") == "-9"


# text that only the kit's hidden checks, reference computations and mutants contain
SECRET = [
    "_scatter_overwrite_probe",
    "def _reference_table",
    "ATTENTION_VARIANTS",
    "def hidden_check",
    "COMPARE_FLOOR",
    "def _ids_with_repeats",
    "BEGIN SOLUTION",
]


def test_no_check_source_reaches_the_kernel_or_the_feedback(hostile_course):
    course = hostile_course["course"]
    # what the search printed (its file never comes back: only the notebook does)
    nb = nbformat.read(str(course / "autograded" / "search-kit" / ASSIGNMENT / f"{LESSON}.ipynb"), as_version=4)
    found = "".join(out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []))
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
    assert seconds < float(BUDGET) + 10, (
        f"a {BUDGET} s notebook budget, but grading the hanging student took {seconds} s"
    )


def test_grade_prints_the_limits_in_force(hostile_course):
    out = hostile_course["result"].stdout
    assert (
        "limits per notebook: 64 processes and threads, 1024 MiB of memory (all processes together), 64 MiB "
        "written and 10000 files (working folder and /tmp together), 256 open files per process, "
        f"{BUDGET} s of running time in all (--notebook-budget)"
    ) in out, out[:2000]
    assert "enforced by: " in out and "size-capped tmpfs" in out


def test_resource_attacks_leave_nothing_in_the_course(hostile_course):
    """Only the notebook comes back: what graded code writes stays in its sandbox's tmpfs."""
    course = hostile_course["course"]
    made = {"ballast.bin", "many"}
    assert not [p for p in course.rglob("*") if p.name in made], "a file made by graded code reached the course"
    grown = {
        student: sum(folder_bytes(course / folder / student) for folder in ("autograded", "feedback", STAGING))
        for student in RESOURCE_ATTACKS
    }
    assert sum(grown.values()) < 4 * 2**20, grown


def test_the_machine_kept_answering(hostile_course):
    latencies = hostile_course["probe_latencies"]
    assert len(latencies) > 20, "the probe answered too few pings during the run"
    assert max(latencies) < 5, f"the probe beside the grader stalled for {max(latencies):.1f} s"


NOBODY = 65534


def unprivileged_run_unavailable() -> str | None:
    """Why `grade` cannot be run as an unprivileged user here, or None when it can."""
    import shutil

    if os.geteuid() != 0:
        return "needs root to switch to an unprivileged uid (setpriv)"
    if not shutil.which("setpriv"):
        return "setpriv (util-linux) is not installed"
    try:
        probe = subprocess.run(
            [
                "setpriv",
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                "bwrap",
                "--ro-bind",
                "/",
                "/",
                "--unshare-pid",
                "--proc",
                "/proc",
                "true",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"setpriv failed: {e}"
    if probe.returncode != 0:
        return f"bubblewrap does not run unprivileged here (no user namespaces?): {probe.stderr.strip()[:200]}"
    venv = Path(sys.prefix) if sys.prefix != sys.base_prefix else None
    closed = folder_closed_to_others(REPO) or (venv and folder_closed_to_others(venv))
    if closed:
        return (
            f"uid {NOBODY} cannot reach the kit or its environment: {closed} is closed to other users "
            "(mktemp -d makes mode 0700); clone the kit under a folder others may enter to run this test"
        )
    probe = subprocess.run(
        as_nobody([sys.executable, "-c", "import autograder.cli, nbgrader"]),
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
    )
    if probe.returncode != 0:
        return f"uid {NOBODY} cannot import the kit here: {probe.stderr.strip().splitlines()[-1:]}"
    return None


def folder_closed_to_others(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that other users may not enter or read, or None.  (A Python
    installation under a closed folder is dealt with by ``as_nobody``; the kit and its venv are not.)"""
    path = path.resolve()
    for folder in [*reversed(path.parents), path]:
        if folder == path and (os.stat(folder).st_mode & 0o005) != 0o005:
            return folder
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


def as_nobody(cmd: list[str]) -> list[str]:
    """``cmd`` run as uid 65534.  When the Python installation sits in a folder only root may enter
    (pyenv under /root), a private mount namespace puts it back under an open folder first."""
    python = Path(os.path.realpath(sys.executable))
    closed = next((p for p in reversed(python.parents) if not os.stat(p).st_mode & 0o001), None)
    setpriv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    if closed is None:
        return setpriv + cmd
    inner = python.parents[len(python.parents) - len(closed.parts) - 1]  # the folder inside `closed` holding Python
    script = (
        'd=$(mktemp -d) && mount --bind "$1" "$d" && mount -t tmpfs -o mode=755,size=1m tmpfs "$2" && '
        'mkdir -p "$1" && mount --move "$d" "$1" && rmdir "$d" && shift 2 && exec "$@"'
    )
    return [
        "unshare",
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        script,
        "as-nobody",
        str(inner),
        str(closed),
        *setpriv,
        *cmd,
    ]


def test_limits_hold_for_an_unprivileged_user():
    """`grade` run as uid 65534: no cgroups can be made, so rlimits in bubblewrap's user namespace, the
    size-capped tmpfs and the watchdog must stop the attacks, and the honest student keeps full marks."""
    import shutil
    import tempfile

    sandbox_or_skip()
    why = unprivileged_run_unavailable()
    if why:
        pytest.skip(why)
    root = Path(tempfile.mkdtemp(prefix="kit-nonroot-"))
    try:
        course = root / "course"
        scratch_course(course)
        with open(course / "nbgrader_config.py", "a") as f:
            f.write("".join(f"\nc.ResourceLimits.{k} = {v!r}" for k, v in LIMITS.items()) + "\n")
        write_files(course, "honest", {LESSON: filled_notebook(REPO, LESSON)})
        attackers = ("fork-bomb", "memory-balloon", "write-tmp")
        for student in attackers:
            write_files(course, student, CASES[student])
        write_files(course, "sandbox-probe", CASES["sandbox-probe"])
        (root / "home").mkdir()
        for path in [root, *root.rglob("*")]:
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
        env = dict(ENV, HOME=str(root / "home"))
        env.pop("XDG_RUNTIME_DIR", None)
        # the session's canary cache (AUTOGRADER_CANARY_CACHE) stays: root's private folder, which this
        # user may not read; the canary then grades the reference again instead of failing the run
        assert os.environ.get("AUTOGRADER_CANARY_CACHE") == env.get("AUTOGRADER_CANARY_CACHE")
        result = subprocess.run(
            as_nobody(
                [
                    sys.executable,
                    "-m",
                    "autograder",
                    "grade",
                    ASSIGNMENT,
                    "--course-dir",
                    str(course),
                    "--jobs",
                    "2",
                    "--notebook-budget",
                    BUDGET,
                    "--cell-timeout",
                    CELL_TIMEOUT,
                ]
            ),
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        assert "enforced by: rlimits in bubblewrap's user namespace" in result.stdout, result.stdout[:2000]
        assert "graded honest: 25/100" in student_line(result, "honest"), result.stdout[-3000:]
        for student in attackers:
            line = student_line(result, student)
            assert line.strip().startswith(f"graded {student}: 0/100"), line
            assert REASONS[student] in line, line
        assert not [p for p in course.rglob("ballast.bin")]
        for student in ("honest", *attackers, "sandbox-probe"):  # in kernels forked into the user namespace's sandboxes
            assert set(kernel_starts(course, student).values()) == {"forked"}, (student, kernel_starts(course, student))
        # the sandbox audit, unprivileged: the report of a sandbox built as a kernel's by this user, which is root's
        # but for the ids (root's kernels are the kit's kernel user; bubblewrap runs unprivileged for both)
        report = report_of(course, "sandbox-probe")
        assert_audited(report, LIMITS["max_written_mb"], as_user=(NOBODY, as_nobody))
        assert report["ids"] == {"Uid": str(NOBODY), "Gid": str(NOBODY), "Groups": ""}, report["ids"]
        roots = reference(LIMITS["max_written_mb"])  # (not `root`: the finally removes that folder)
        assert {**report, "ids": None} == {**roots, "ids": None}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_grade_as_a_user_who_cannot_enter_its_home_refuses_in_one_line():
    """An unprivileged user whose HOME it may not enter (root's, as `sudo -u` leaves it): Dask's configuration folder
    there cannot be looked at, which `grade` took for a crash (a PermissionError traceback, blind fault round);
    it goes on, and a refusal is its one line and status 2."""
    import shutil
    import tempfile

    why = unprivileged_run_unavailable()
    if why:
        pytest.skip(why)
    root = Path(tempfile.mkdtemp(prefix="kit-nonroot-"))  # (in /tmp: the user must reach the course)
    try:
        root.chmod(0o755)
        home = root / "home"
        (home / ".config" / "dask").mkdir(parents=True)
        home.chmod(0o700)  # root's own
        course = root / "course"
        scratch_course(course)
        for path in [course, *course.rglob("*")]:
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
        result = subprocess.run(
            as_nobody([sys.executable, "-m", "autograder", "grade", "nope", "--course-dir", str(course)]),
            cwd=course,
            env=dict(ENV, HOME=str(home)),
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert result.returncode == 2, result.stderr[-3000:]
    assert "unknown assignment 'nope'" in result.stderr and "Traceback" not in result.stderr, result.stderr[-3000:]


def test_submitted_files_are_copied_only_up_to_the_cap(hostile_course):
    course = hostile_course["course"]
    assert hostile_course["scores"]["big-upload"] == 25
    line = student_line(hostile_course["result"], "big-upload")
    assert "1 submitted file(s) (25.0 MiB, first data/weights.bin) left out" in line, line
    for folder in ("autograded", "feedback"):
        graded = course / folder / "big-upload" / ASSIGNMENT
        assert (graded / "data" / "notes.txt").read_text() == "small"
        assert not (graded / "data" / "weights.bin").exists()
