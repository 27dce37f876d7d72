"""Shared fixtures: scratch course directories graded by real nbgrader and real kernels."""

from __future__ import annotations

import contextlib
import copy
import csv
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import pytest

from autograder.cells import is_test_cell
from autograder.course import ASSIGNMENT, NOTEBOOKS, Course, make_scratch_course, sqlite_url
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# the canary (grading.canary) grades the reference once per kit, Python and course config in this test session,
# not once per scratch course: the suite grades dozens of identical ones (xdist workers inherit this; the process
# that made the folder removes it as the session ends, pytest_unconfigure)
_CANARY_CACHE = None if "AUTOGRADER_CANARY_CACHE" in os.environ else tempfile.mkdtemp(prefix="kit-canary-")
if _CANARY_CACHE:
    os.environ["AUTOGRADER_CANARY_CACHE"] = _CANARY_CACHE
ENV = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def nbgrader(course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run the real nbgrader command line in ``course``."""
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=course, env=ENV, capture_output=True, text=True, timeout=900
    )
    if check and result.returncode != 0:
        raise AssertionError(f"nbgrader {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def kit(
    *args: str, cwd: Path = REPO, check: bool = True, timeout: int = 900, env: dict | None = None
) -> subprocess.CompletedProcess:
    """Run ``python -m autograder`` as a user would (in ``env``, by default the suite's ENV)."""
    result = subprocess.run(
        [sys.executable, "-m", "autograder", *args],
        cwd=cwd,
        env=ENV if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"autograder {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def grade_until_killed(course: Path, students: int, timeout: float = 300) -> list[str]:
    """Start ``grade --jobs 1`` in a session of its own and kill that whole session (the grader, its workers
    and kernels, mid-class) once ``students`` students are reported graded; return their ids in order."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "1"],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    graded, deadline = [], time.monotonic() + timeout
    for line in proc.stdout:
        if line.startswith("  graded "):
            graded.append(line.split()[1].rstrip(":"))
        if len(graded) == students or time.monotonic() > deadline:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return graded


def serve_in_thread(server) -> threading.Thread:
    """The kernel side of a channel (``channel.client.Server``) served in a daemon thread.  When the checker
    hangs up first (its deadline passed, the test ended) the thread ends quietly, as ``forward`` in a kernel
    does, rather than as an unhandled exception that pytest pins on whichever test runs next."""

    def serve():
        with contextlib.suppress(OSError, EOFError):
            server.serve()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


# Courses made once per test process and copied for each test that needs one: registering the assignment
# (nbgrader generate_assignment) costs about 10 s of CPU, copying the result a fraction of a second, and the
# suite makes some thirty courses. A copy is the same course: no file of it names its own folder.
_COURSE_TEMPLATES: dict[str, Path] = {}


def copy_of_course(kind: str, make, target: Path) -> None:
    """Copy into ``target`` the course ``make(folder)`` makes, made once per test process for ``kind``."""
    if kind not in _COURSE_TEMPLATES:
        template = Path(tempfile.mkdtemp(prefix=f"kit-{kind}-course-")) / "course"
        make(template)
        _COURSE_TEMPLATES[kind] = template
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(_COURSE_TEMPLATES[kind], target, dirs_exist_ok=True)


def pytest_unconfigure(config):
    for template in _COURSE_TEMPLATES.values():
        shutil.rmtree(template.parent, ignore_errors=True)
    if _CANARY_CACHE:
        shutil.rmtree(_CANARY_CACHE, ignore_errors=True)


def scratch_course(course: Path) -> str:
    """What ``make_scratch_course`` makes (source/, nbgrader_config.py and the assignment registered in a new
    SQLite gradebook), as a copy; the gradebook URL."""
    copy_of_course("scratch", make_scratch_course, course)
    return sqlite_url(Course(course).gradebook)


def make_class(course: Path, students: dict) -> str:
    """A scratch course with one submission per student (student id -> persona, as ``persona_notebooks``
    takes it, or the notebooks themselves: lesson -> notebook); the gradebook URL."""
    db_url = scratch_course(course)
    for student, persona in students.items():
        write_submission(course, student, persona if isinstance(persona, dict) else persona_notebooks(persona))
    return db_url


def scores(course: Path) -> dict[str, float]:
    """student id -> score, from the grades.csv `grade` wrote."""
    with open(Course(course).grades_csv, newline="") as f:
        return {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}


def kernel_starts(course: Path, student: str) -> dict[str, str]:
    """notebook -> how the executor recorded its kernel came up ("forked" into its sandbox, or "started")."""
    found = {}
    for path in sorted((course / "autograded" / student / ASSIGNMENT).glob("*.ipynb")):
        found[path.stem] = nbformat.read(path, as_version=4).metadata.get("kit_execution", {}).get("kernel")
    return found


def per_test(course: Path) -> list[dict]:
    """The rows of the per-test CSV `grade` wrote."""
    with open(Course(course).reports(ASSIGNMENT) / "tests.csv", newline="") as f:
        return list(csv.DictReader(f))


def graded_test_cells() -> int:
    """How many graded test cells the assignment has."""
    return sum(
        is_test_cell(cell)
        for path in Course(REPO).source_notebooks(ASSIGNMENT)
        for cell in nbformat.read(str(path), as_version=4).cells
    )


def generated_course(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "source" / ASSIGNMENT, root / "source" / ASSIGNMENT)
    shutil.copy(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")


def new_course(root: Path) -> Path:
    """A course directory with the kit's source notebooks and config, assignment generated by nbgrader
    (its gradebook and release/), as a copy."""
    copy_of_course("generated", generated_course, root)
    return root


NOISE = "import warnings; np.log(np.zeros(1)); np.exp(np.array([1e4])); warnings.warn('just noise')"


def with_noise(code: str) -> str:
    """``code`` with a line that emits two RuntimeWarnings and a UserWarning at the top of every function but
    ``__init__``."""
    out = []
    for line in code.splitlines():
        out.append(line)
        stripped = line.lstrip()
        if stripped.startswith("def ") and stripped.endswith(":") and not stripped.startswith("def __init__"):
            out.append(" " * (len(line) - len(stripped) + 4) + NOISE)
    return "\n".join(out)


def independent_solution() -> dict[str, nbformat.NotebookNode]:
    """One student who wrote every unit differently from the reference (the catalogue's alternatives), and
    whose correct code also emits RuntimeWarnings and a UserWarning while graded (``with_noise``)."""
    notebooks = persona_notebooks("independent")
    for nb in notebooks.values():
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
                cell.source = with_noise(cell.source)
    return notebooks


@contextlib.contextmanager
def small_file_system(folder: Path, megabytes: int):
    """``folder`` as a file system of its own of ``megabytes`` (a size-capped tmpfs), to fill up in a test;
    skips where this process may not mount one (it needs root, or CAP_SYS_ADMIN)."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m,mode=755", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"cannot mount a small file system for this test: {e}")
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system for this test (needs root): {mounted.stderr.strip()[:200]}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], capture_output=True, timeout=30)


def kernels_of_server(server: int) -> list[int]:
    """The kernels a fork server forked that still run, or are left for it to reap: its children in another PID
    namespace (the sandbox's).  Its other child is the handler waiting for the next request (forkserver.serve)."""
    try:
        own = os.readlink(f"/proc/{server}/ns/pid")
        children = Path(f"/proc/{server}/task/{server}/children").read_text().split()
    except OSError:
        return []
    kernels = []
    for pid in map(int, children):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/ns/pid") != own:
                kernels.append(pid)
            elif Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                kernels.append(pid)  # ended, not reaped: a zombie (its namespace is no longer shown)
    return kernels


def sandbox_or_skip() -> None:
    """Skip a test about the sandbox itself where bubblewrap cannot start one here (not installed, or no user
    namespaces for this user), with the kit's own reason; grading elsewhere falls back as configured."""
    from autograder.sandbox import SandboxUnavailable, bwrap_path, check_sandbox

    try:
        bwrap_path()
        check_sandbox()
    except SandboxUnavailable as e:
        pytest.skip(f"the sandbox cannot run on this machine: {e}")


def stub_submission() -> dict[str, str]:
    return persona_notebooks("stub")


def reference_submission() -> dict[str, nbformat.NotebookNode]:
    return persona_notebooks("reference")


@pytest.fixture(scope="session")
def plain_course(tmp_path_factory) -> Path:
    """A course graded with nothing but nbgrader's own commands: autograde, generate_feedback, export."""
    course = new_course(tmp_path_factory.mktemp("plain") / "course")
    shutil.copytree(REPO / "source" / ASSIGNMENT, course / "source-copy")  # to prove grading leaves source alone
    write_submission(course, "reference", reference_submission())
    write_submission(course, "stub", stub_submission())
    write_submission(course, "independent", independent_solution())  # (its code also emits warnings)
    write_submission(course, "overwriter", persona_notebooks(["scatter-overwrite"]))
    nbgrader(course, "autograde", ASSIGNMENT)
    nbgrader(course, "generate_feedback", ASSIGNMENT)
    nbgrader(course, "export")
    return course


# The first class a newcomer grades (tests/test_class_feedback.py reads what they and the instructor see), in a
# course that renames nbgrader's submitted, autograded and feedback folders (tests/test_course_config.py reads
# where everything went): one grading serves both modules (ONE_WORKER keeps them on one worker).
# ada hands in the reference, eli the scatter-overwrite bug, cor a notebook cut short (not JSON) and no
# lesson 2, and lock the reference with every locked test cell edited; collected with a roster, then graded.
FIRST_CLASS_ROSTER = (
    'student_id,name,email\nlock,"Lovelace, Ada",lock@example.org\neli,Eli Whitney,eli@example.org\n'
    "cor,Cora Brown,cor@example.org\nada,Ada King,ada@example.org\n"
)
RENAMED_FOLDERS = {
    "submitted_directory": "handed-in",
    "autograded_directory": "graded-copies",
    "feedback_directory": "for-students",
}


def edited_locked_cells() -> tuple[dict[str, nbformat.NotebookNode], int]:
    """The reference with a comment added to every test cell (all locked): the notebooks and how many."""
    notebooks, edited = persona_notebooks("reference"), 0
    for nb in notebooks.values():
        for cell in nb.cells:
            if cell.cell_type == "code" and is_test_cell(cell):
                cell.source += "\n# I was here"
                edited += 1
    return notebooks, edited


@pytest.fixture(scope="session")
def first_class(tmp_path_factory) -> dict:
    """The first class above, collected and graded by the kit with two workers: the course root, the renamed
    folders (``submitted``, ``autograded``, ``feedback``: where they are), grade's stdout and how many locked
    cells lock edited."""
    base = tmp_path_factory.mktemp("first-class")
    root = new_course(base / "course")
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write("\n" + "\n".join(f"c.CourseDirectory.{k} = {v!r}" for k, v in RENAMED_FOLDERS.items()) + "\n")
    drop = base / "download"
    corrupt = persona_notebooks("reference")
    text = nbformat.writes(corrupt[NOTEBOOKS[0]])
    corrupt[NOTEBOOKS[0]] = text[: len(text) // 2]  # a copy cut short: not JSON
    del corrupt[NOTEBOOKS[1]]
    locked, edited = edited_locked_cells()
    for student, notebooks in {
        "ada": persona_notebooks("reference"),
        "eli": persona_notebooks(["scatter-overwrite"]),
        "cor": corrupt,
        "lock": locked,
    }.items():
        write_submission(drop, student, notebooks)  # drop/submitted/<student>/<assignment>/, a layout collect reads
    (base / "roster.csv").write_text(FIRST_CLASS_ROSTER)
    kit("collect", ASSIGNMENT, str(drop / "submitted"), "--roster", str(base / "roster.csv"), "--course-dir", str(root))
    run = kit("grade", ASSIGNMENT, "--course-dir", str(root), "--jobs", "2")
    folders = {name: root / RENAMED_FOLDERS[f"{name}_directory"] for name in ("submitted", "autograded", "feedback")}
    return {"root": root, **folders, "stdout": run.stdout, "edited": edited}


# How `pytest -n 3` (make test) spreads the suite over its workers. xdist's `xdist_group` marker does not
# take effect with pytest 9.2 (xdist 3.8 renames items through `item._nodeid`, which pytest 9.2 no longer
# reads), so the scheduler below groups tests itself, like xdist's loadgroup: one scope per group listed in
# ONE_WORKER, every other test a scope of its own.
#
# ONE_WORKER: modules (or single tests, ``module::test``) that share a module- or session-scoped fixture that is
# dear to build (a class graded with real kernels, servers, a fresh venv, a traced grading): a group runs on one
# worker, in file order, so the fixture is built once. Spread over the workers, each would build it (a session
# fixture such as plain_course included: the last full run built test_syscall_allow_list's traces twice, 161 s
# and 158 s, and test_faults' killed_server_course twice, 35 s each).
# test_browser.py must besides run in file order on one worker: its tests are the steps of one session.
ONE_WORKER = {
    "tests/test_browser.py": "browser",
    "tests/test_bulk_grading.py": "bulk_grading",
    "tests/test_check_numpy_only.py": "check_numpy_only",
    # first_class (a session fixture) is graded once for the two modules that read it
    "tests/test_class_feedback.py": "first_class",
    "tests/test_course_config.py": "first_class",
    "tests/test_dask_grading.py": "dask_grading",
    # killed_server_course: the damaged-gradebook test goes on from the course the killed-server test reads
    "tests/test_faults.py::test_a_damaged_gradebook_or_read_only_course_is_named_in_one_line_and_the_copy_restores_it": (
        "killed_server_course"
    ),
    "tests/test_faults.py::test_a_killed_fork_server_or_placeholder_never_costs_a_student_points": "killed_server_course",
    "tests/test_generated_mutants.py": "generated_mutants",
    "tests/test_hostile.py": "hostile",
    "tests/test_jupyterhub.py": "jupyterhub",
    "tests/test_release_runs_anywhere.py": "release_runs_anywhere",
    # kernel_reports: one kernel brought up each way, read by these two
    "tests/test_sandbox_audit.py::test_every_way_a_kernel_comes_up_gives_the_same_report": "sandbox_audit",
    "tests/test_sandbox_audit.py::test_a_kernel_started_the_ordinary_way_as_root_cannot_mknod_or_mount": "sandbox_audit",
    "tests/test_similarity.py": "similarity",
    "tests/test_syscall_allow_list.py": "syscall_allow_list",
    # plain_course (a session fixture) is graded once for the three modules that read it
    "tests/test_gradescope.py": "plain_course",
    "tests/test_lms_export.py": "plain_course",
    "tests/test_plain_nbgrader.py": "plain_course",
}
# The dearest scopes (groups of ONE_WORKER, or modules whose tests each grade on their own), dearest first,
# by the kernels and gradings each runs (`make test` prints the slowest tests, --durations=30, to keep this
# right): the workers take these first, so that what is left at the end is many short tests that the
# workers share out and finish together. Everything else follows in collection order.
DEAREST_FIRST = (
    "syscall_allow_list",
    "browser",
    "dask_grading",
    "hostile",
    "tests/test_grading_inputs.py",
    "plain_course",
    "bulk_grading",
    "tests/test_history.py",
    "tests/test_faults.py",
    "jupyterhub",
    "tests/test_point_change.py",
    "tests/test_canary_beside.py",
    "tests/test_demo.py",
    "tests/test_mutants.py",
    "tests/test_postgres_gradebook.py",
    "killed_server_course",
    "tests/test_readme.py",
    "first_class",
    "release_runs_anywhere",
    "tests/test_interrupt.py",
    "sandbox_audit",
    "check_numpy_only",
    "generated_mutants",
    # the dearest in-process tests (8-10 s each): last in collection order, they kept one worker busy while the other
    # had nothing left
    "tests/test_verified_diagnoses.py",
    "tests/test_check_consistency.py::test_reference_passes_every_check_on_every_seed",
)


def scope_of(nodeid: str) -> str:
    """The scheduling unit of a test: its module's or its own ONE_WORKER group, else the test itself."""
    module, _, name = nodeid.partition("::")
    return ONE_WORKER.get(module) or ONE_WORKER.get(f"{module}::{name.split('[', 1)[0]}") or nodeid


def cost_rank(scope: str) -> int:
    """A scope's place in DEAREST_FIRST (by its group, or by its test's module); the rest after, as collected."""
    key = scope if scope in DEAREST_FIRST else scope.split("::", 1)[0]
    return DEAREST_FIRST.index(key) if key in DEAREST_FIRST else len(DEAREST_FIRST)


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") not in ("load", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class DearestFirst(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            # xdist hands out the queue's first unit: make it the dearest one left (min keeps the queue's
            # order among equals, so a module's own tests still go out in file order)
            dearest = min(self.workqueue, key=cost_rank)
            self.workqueue.move_to_end(dearest, last=False)
            super()._assign_work_unit(node)

    return DearestFirst(config, log)


PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), None)


def as_postgres(*cmd: str) -> None:
    """PostgreSQL refuses to run as root: as root, run it as the postgres user; otherwise as yourself."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    subprocess.run([*prefix, *cmd], check=True, capture_output=True, timeout=120)


@contextlib.contextmanager
def postgres_server(name: str, databases: tuple[str, ...] = ("gradebook",)):
    """A throwaway PostgreSQL server on a Unix socket, owned by the postgres user (by you, as non-root);
    yields database name -> URL."""
    if PG_BIN is None or not (PG_BIN / "initdb").exists():
        pytest.skip(
            "PostgreSQL server binaries are not installed (.ci/run installs them as root: apt-get install postgresql)"
        )
    root = Path("/tmp") / f"kit-pg-{os.getpid()}-{name}"
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
    as_postgres(
        str(PG_BIN / "pg_ctl"),
        "-D",
        str(data),
        "-w",
        "-l",
        str(root / "log"),
        "-o",
        f"-k {sock} -c listen_addresses='' -p 5433",
        "start",
    )
    try:
        for db in databases:
            as_postgres(
                str(PG_BIN / "createdb") if (PG_BIN / "createdb").exists() else "createdb",
                "-h",
                str(sock),
                "-p",
                "5433",
                "-U",
                "postgres",
                db,
            )
        yield {db: f"postgresql://postgres@/{db}?host={sock}&port=5433" for db in databases}
    finally:
        as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres(tmp_path):
    """The URL of an empty gradebook database on a throwaway PostgreSQL server."""
    with postgres_server(tmp_path.name) as urls:
        yield urls["gradebook"]


# `make test-fast` (pytest -m inprocess): the tests that start no kernel, no server and no browser, for
# the edit loop. A module listed with None is in-process whole; otherwise only the tests named. A test
# module not listed here runs with `make test` only.
IN_PROCESS = {
    "test_assignment.py": None,
    "test_boundaries.py": None,
    "test_browser_setup.py": {"test_ci_asks_for_the_browser_tests_to_run"},
    "test_channel.py": None,
    "test_crashes_told.py": None,
    "test_check_consistency.py": None,
    "test_docs.py": None,
    "test_faults.py": {"test_a_gradebook_error_is_told_without_the_drivers_text"},
    "test_highlight_store.py": None,
    "test_generated_mutants.py": None,
    "test_gradcheck.py": None,
    "test_grading_options.py": None,
    "test_hidden_folders.py": {
        "test_a_path_that_cannot_be_shown_or_hidden_is_refused_saying_why",
        "test_the_view_is_mounted_outer_first",
        "test_a_kits_folder_in_no_shown_path_gets_no_cover",
        "test_a_hidden_folder_the_machine_lacks_is_no_mount",
        "test_the_threat_models_table_lists_every_hidden_folder",
    },
    "test_layers.py": None,
    "test_output_schema.py": None,
    "test_metadata_check.py": None,
    "test_no_answer_released.py": None,
    "test_one_voice.py": None,
    "test_points_agree.py": None,
    "test_registries.py": None,
    "test_shrink_rows.py": None,
    "test_student_trial.py": None,
    "test_system_view.py": None,
    "test_verdicts.py": None,
    "test_verified_diagnoses.py": None,
    "test_voice.py": None,
    "test_course_config.py": {
        "test_kit_options_come_from_the_course_config_and_flags_win",
        "test_the_cell_timeout_is_the_courses_execute_timeout",
    },
    "test_lms_export.py": {
        "test_bad_rosters_are_refused_with_file_and_row",
        "test_roster_headers_are_checked_by_name",
        "test_a_roster_column_is_one_field_of_the_entry",
    },
    "test_mutants.py": {
        "test_catalogue_covers_every_spec_diagnostic_and_every_unit",
        "test_the_kernel_sample_meets_every_diagnosis_unit_and_lesson",
    },
    "test_smallest_case.py": {
        "test_a_bug_outside_the_catalogue_is_shown_on_a_small_case",
        "test_the_line_is_one_line_written_out_whole",
        "test_a_correct_solution_never_searches",
        "test_a_catalogued_mistake_or_a_named_relationship_does_not_search",
        "test_only_checks_with_a_case_space_and_generic_ids_search",
        "test_the_search_is_bounded_by_cases_and_by_time",
        "test_the_search_is_the_same_for_the_same_grading_seed",
        "test_the_search_writes_nothing_where_it_runs",
        "test_a_search_that_meets_hostile_code_adds_nothing_and_changes_no_verdict",
    },
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = Path(str(item.fspath)).name
        if module in IN_PROCESS and (IN_PROCESS[module] is None or item.originalname in IN_PROCESS[module]):
            item.add_marker(pytest.mark.inprocess)


@contextlib.contextmanager
def read_only(folder: Path):
    """``folder`` remounted read-only (a read-only bind mount of itself, which holds for root too, as a file
    system turned read-only would); skips where this process may not mount (it needs root, or CAP_SYS_ADMIN)."""
    bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True, text=True, timeout=30)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount a folder read-only for this test (needs root): {bound.stderr.strip()[:200]}")
    try:
        ro = subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], capture_output=True, text=True, timeout=30)
        if ro.returncode != 0:
            pytest.skip(f"cannot remount a folder read-only for this test: {ro.stderr.strip()[:200]}")
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], capture_output=True, timeout=30)


# Where the suite's wall time goes, for tuning the schedule above: with KIT_TEST_CPU naming a file, each test appends
# one JSON line (its node id, its wall seconds from setup to teardown, the CPU seconds its xdist worker spent meanwhile
# and the CPU of the processes it started and reaped: kernels, graders, servers). A test whose wall is far above its
# CPU leaves a core idle for the difference (sleeps, timeouts, servers), unless the machine is busy with other work.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = os.environ.get("KIT_TEST_CPU")
    if not path:
        yield
        return
    import json
    import resource

    def cpu(who) -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    start, own, children = time.monotonic(), cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
    yield
    line = {
        "test": item.nodeid,
        "wall": round(time.monotonic() - start, 2),
        "cpu_self": round(cpu(resource.RUSAGE_SELF) - own, 2),
        "cpu_children": round(cpu(resource.RUSAGE_CHILDREN) - children, 2),
    }
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def lingering(notebooks: dict, seconds: float) -> dict:
    """A copy of ``notebooks`` with the first one's first solution cell waiting ``seconds``: each try of that notebook
    runs long enough for its kernel to be killed there, and not on the next notebook (or on the kernel started ahead).
    (A copy: changed in place, notebooks several students share took the wait once per student.)"""
    notebooks = copy.deepcopy(notebooks)
    first = notebooks[sorted(notebooks)[0]]
    cell = next(c for c in first.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))
    cell.source += f"\nimport time\ntime.sleep({seconds})\n"
    return notebooks
