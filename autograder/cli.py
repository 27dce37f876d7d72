"""`autograder COMMAND` (or `python -m autograder COMMAND`): the kit's command line.

Each command imports what it needs when it runs: the command line itself imports no package of the
kit's dependencies but traitlets (its defaults are the kit's options).  `check` needs only Python and
NumPy, like the notebooks: in a Python that lacks any of the kit's other packages (a student's, with
NumPy and perhaps a few of them), only `check` is offered, and any other command says what to install.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from .student.selfcheck import DEFAULT_TIMEOUT

WHOLE_KIT = "run `make setup` in the kit's folder, then `. .venv/bin/activate`"
# What every command but `check` imports, by top-level module name (pyproject.toml's dependencies and
# theirs that the kit imports itself); looked up, not imported, before the command line is built.
WHOLE_KIT_MODULES = (
    "traitlets",
    "nbformat",
    "nbconvert",
    "nbclient",
    "jupyter_client",
    "ipykernel",
    "zmq",
    "nbgrader",
    "sqlalchemy",
    "alembic",
    "jinja2",
    "jupytext",
    "matplotlib",
    "hypothesis",
    "copydetect",
)


def missing_modules() -> list[str]:
    """The kit's packages this Python cannot import (none: the whole kit is here)."""
    return [name for name in WHOLE_KIT_MODULES if importlib.util.find_spec(name) is None]


def cmd_mutants(args) -> int:
    if args.generated:
        return cmd_mutants_generated(args)
    from .devtools.mutants.run import format_table, run_mutants

    rows = run_mutants(jobs=args.jobs, names=args.only or None)
    print(format_table(rows))
    return 0 if all(r.ok for r in rows) else 1


def cmd_mutants_generated(args) -> int:
    """Cosmic Ray's mutants of the reference solutions against the hidden checks and the visible self-checks, in
    this process: exit 1 when a mutant survives the hidden checks that equivalent.txt does not explain."""
    if importlib.util.find_spec("cosmic_ray") is None:
        print(
            "mutants --generated needs Cosmic Ray, the mutation tool of the kit's dev extra: " + WHOLE_KIT,
            file=sys.stderr,
        )
        return 2
    from .devtools.mutants import generated

    mutants = generated.generate()
    if args.every > 1:
        mutants = generated.subset(mutants, args.every)
    suites = ("hidden", "self-checks") if args.suite == "both" else (args.suite,)
    figures = []
    for suite in suites:
        figures.append(generated.run(mutants, suite))
        print(generated.format_report(figures[-1:]), flush=True)
    stale = generated.stale_equivalents(generated.generate() if args.every > 1 else mutants)
    for name in stale:
        print(f"equivalent.txt names a mutant that is no longer made: {name}")
    hidden = next((f for f in figures if f.suite == "hidden"), None)
    return 1 if (hidden is not None and hidden.survivors) or stale else 0


def cmd_check(args) -> int:
    if args.thorough:
        return cmd_check_thorough(args)
    from .student.selfcheck import all_graded_pass, format_rows, run_self_checks

    status = 0
    for notebook in args.notebooks:
        try:
            rows = run_self_checks(Path(notebook), timeout=args.timeout)
        except (ValueError, FileNotFoundError) as e:
            print(f"check: {e}", file=sys.stderr)
            status = 2
            continue
        print(format_rows(Path(notebook), rows))
        if not all_graded_pass(rows):
            status = max(status, 1)
    return status


def cmd_check_thorough(args) -> int:
    from .student.thorough import ThoroughError, format_graded, thorough_check

    try:
        outcomes = thorough_check(
            [Path(n) for n in args.notebooks], Path(args.kit) if args.kit else None, cell_timeout=args.timeout
        )
    except ThoroughError as e:
        print(f"check --thorough: {e}", file=sys.stderr)
        return 2
    status = 0
    for outcome in outcomes:
        if isinstance(outcome, ThoroughError):
            print(f"check --thorough: {outcome}", file=sys.stderr)
            status = 2
            continue
        print(format_graded(outcome))
        if not outcome.full_marks:
            status = max(status, 1)
    return status


def cmd_grade(args) -> int:
    import signal
    import time

    def sweep() -> None:  # what killed grading processes left: their sandboxes, cgroups and folders
        from .sandbox.leftovers import sweep

        sweep()

    started = time.time()
    previous = signal.signal(signal.SIGTERM, _terminated)  # SIGTERM ends a run as Ctrl-C does
    try:
        if not args.dry_run and not args.scheduler:  # its first worker imports while this process does
            from . import timing
            from .classroom.run import workers

            with timing.phase("the first worker process started"):
                workers.start(
                    Path(args.course_dir),
                    jobs=args.jobs,
                    notebook_budget=args.notebook_budget,
                    cell_timeout=args.cell_timeout,
                    assignment=args.assignment,
                    students=args.student,
                )
        if not args.dry_run:
            sweep()  # what killed processes of earlier runs left
        return _grade(args)
    except KeyboardInterrupt:  # one line, no traceback: what the run recorded, and that the next one goes on
        from .classroom.run.grade_command import interrupted

        print(f"grade: {interrupted(Path(args.course_dir), args.assignment, args.db_url, started)}", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        from .classroom.run import workers
        from .classroom.run.retries import stop_fork_server

        workers.discard()
        stop_fork_server()  # the workers' CPU counted in this process's children, as spawned workers' was
        if not args.dry_run:
            sweep()  # what this run's killed workers left (a hung one, one the system killed)


def _terminated(_signum, _frame):
    raise KeyboardInterrupt


def _grade(args) -> int:
    from . import timing
    from .course import CourseError, open_assignment

    with timing.phase("the course opened (nbgrader imported)"):
        try:
            assignment = open_assignment(Path(args.course_dir), args.assignment)
        except CourseError as e:
            print(f"grade: {e}", file=sys.stderr)
            return 2
    with timing.phase("the grade command's imports"):
        from .classroom.run.batch import BatchOptions, GradingError
        from .classroom.run.dry_run import dry_run
        from .classroom.run.grade_command import grade_assignment
        from .classroom.run.progress import Progress

    options = BatchOptions(
        jobs=args.jobs,
        force=args.force,
        notebook_budget=args.notebook_budget,
        cell_timeout=args.cell_timeout,
        scheduler=args.scheduler,
        worker_deadline=args.worker_deadline,
        wait=args.wait,
    )
    run = dry_run if args.dry_run else grade_assignment  # a dry run is the same run, in scratch space
    try:
        outcome = run(
            assignment,
            db_url=args.db_url,
            students=args.student or None,
            options=options,
            progress=Progress(quiet=None),
        )
    except (CourseError, GradingError) as e:
        print(f"grade: {e}", file=sys.stderr)
        return 2
    if args.dry_run:
        outcome, _comparison = outcome  # the dry run printed its comparison; its exit status is the run's
    return 1 if outcome.errors else 0  # a student the kit failed on is not graded: cron and CI must notice


def cmd_restore_gradebook(args) -> int:
    from contextlib import ExitStack

    from .classroom.run.gradebook_guard import GradebookFault, restore
    from .classroom.run.grading_lock import Held, grading_lock
    from .course import Course
    from .grading.settings import course_settings

    root = Path(args.course_dir).resolve()
    try:
        db_url = course_settings(root, args.db_url).CourseDirectory.db_url
        with ExitStack() as held:  # no grade or export of any of the course's assignments meanwhile
            for assignment in sorted(p.name for p in Course(root).step_root("source").glob("*") if p.is_dir()):
                held.enter_context(grading_lock(db_url, assignment, "autograder restore-gradebook", wait=args.wait))
            db, source, kept = restore(root, db_url, Path(args.source) if args.source else None)
    except (GradebookFault, OSError, Held) as e:
        print(f"restore-gradebook: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - the gradebook's fault, in one line (others raised again)
        return gradebook_trouble("restore-gradebook", args, "restore", e)
    print(f"restored {db} from {source}" + (f"; the file it replaced is kept as {kept}" if kept else ""))
    print("grades recorded after that copy was made are not in it: the next `grade` grades those students again")
    return 0


def gradebook_trouble(command: str, args, doing: str, error: BaseException) -> int:
    """A command's gradebook error in one line naming the gradebook and the log that holds the driver's text;
    exit 2.  Raises ``error`` again when it is not the database driver's."""
    from .classroom.run.gradebook_guard import gradebook_fault
    from .grading.faults import from_driver
    from .grading.settings import course_settings

    if not from_driver(error):
        raise error
    root = Path(args.course_dir).resolve()
    db_url = course_settings(root, args.db_url).CourseDirectory.db_url
    print(f"{command}: {gradebook_fault(root, db_url, doing, error)}", file=sys.stderr)
    return 2


def from_history(command: str, args, read) -> int:
    """Print what ``read(history)`` makes of the course's recorded grade runs (exit 2 with the reason if none)."""
    from .classroom.history.history import History
    from .classroom.history.regrade import gradebook_url

    try:
        with History(gradebook_url(Path(args.course_dir), args.db_url)) as history:
            text = read(history)
    except ValueError as e:  # HistoryError too: no such run, no runs recorded
        print(f"{command}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - the gradebook's fault, in one line (others raised again)
        return gradebook_trouble(command, args, "read the runs from", e)
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def cmd_runs(args) -> int:
    from .classroom.history.regrade import run_rows, runs_csv, runs_text

    def show(history) -> str:
        rows = run_rows(history, args.assignment)
        return runs_csv(rows) if args.csv else runs_text(rows)

    return from_history("runs", args, show)


def cmd_diff(args) -> int:
    from .classroom.history.changes import diff_csv, format_diff
    from .classroom.history.regrade import compare_runs

    def show(history) -> str:
        comparison = compare_runs(history, args.assignment, args.from_run, args.to_run, args.student)
        return diff_csv(comparison) if args.csv else format_diff(comparison)

    return from_history("diff", args, show)


def cmd_similarity(args) -> int:
    from .classroom.similarity.similarity_command import run_similarity, similarity_options, summary
    from .course import Assignment, Course

    course_dir = Path(args.course_dir).resolve()
    past = str(Path(args.past).resolve()) if args.past else None  # from here; the config's from the course
    options = similarity_options(course_dir, threshold=args.threshold, past=past)
    try:
        outcome = run_similarity(Assignment(Course(course_dir), args.assignment), None, options)
    except ValueError as e:
        print(f"similarity: {e}", file=sys.stderr)
        return 2
    if not any(r.documents for r in outcome.results):
        print(f"similarity: no submitted notebooks of {args.assignment!r} under {course_dir}", file=sys.stderr)
        return 2
    print(summary(outcome))
    here = Path.cwd()
    shown = [p.relative_to(here) if p.is_relative_to(here) else p for p in (outcome.csv, outcome.page)]
    print(f"pairs: {shown[0]}\npage:  {shown[1]}")
    return 0


def cmd_collect(args) -> int:
    from .classroom.lms.collect import collect

    try:
        report = collect(
            Path(args.course_dir), args.assignment, Path(args.path), Path(args.roster) if args.roster else None
        )
    except ValueError as e:
        print(f"collect: {e}", file=sys.stderr)
        return 2
    print(report.text())
    return 0


def cmd_export(args) -> int:
    from .classroom.run.grading_lock import grading_lock
    from .grading.settings import course_settings

    try:
        db_url = course_settings(Path(args.course_dir).resolve(), args.db_url).CourseDirectory.db_url
        with grading_lock(db_url, args.assignment, "autograder export", wait=args.wait):
            _export(args)
    except ValueError as e:  # Held too: another run holds the assignment's lock
        print(f"export: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - the gradebook's fault, in one line (others raised again)
        return gradebook_trouble("export", args, "export the grades from", e)
    return 0


def _export(args) -> None:
    from .classroom.lms.lms import export_to_lms

    export_to_lms(
        Path(args.course_dir),
        args.assignment,
        to=args.to,
        roster=Path(args.roster) if args.roster else None,
        out=Path(args.out) if args.out else None,
        db_url=args.db_url,
        assignment_id=args.assignment_id,
        missing_as_zero=args.missing_as_zero,
        moodle_id=args.moodle_id,
        feedback=Path(args.feedback_zip) if args.feedback_zip else None,
        changed_since=args.changed_since,
    )


def cmd_gradescope(args) -> int:
    from .classroom.lms import gradescope

    root = Path(args.root) if args.root else gradescope.default_root()
    if args.setup:
        gradescope.setup(root, args.assignment)
        return 0
    if args.run:
        return gradescope.run(root, args.assignment)
    try:
        target = gradescope.build_zip(Path(args.repo), args.assignment, Path(args.out))
    except ValueError as e:
        print(f"gradescope: {e}", file=sys.stderr)
        return 2
    print(f"wrote {target}: upload it as the autograder of a Gradescope programming assignment")
    return 0


def cmd_demo(args) -> int:
    from .devtools.demo import run_demo

    run_demo(Path(args.workdir) if args.workdir else None, jobs=args.jobs)
    return 0


def cmd_build(args) -> int:
    from .authoring.build import build
    from .authoring.rules import AuthoringError
    from .devtools.doc_tables import regenerate

    try:
        for path in build(Path(args.repo)):
            print(f"wrote {path.relative_to(args.repo)}")
        for path in regenerate(Path(args.repo), missing_ok=True):  # the documents' tables made from the registries
            print(f"wrote {path.relative_to(args.repo)}")
    except AuthoringError as e:
        print(f"build failed: {e}", file=sys.stderr)
        return 1
    return 0


def add_check_command(sub, kit_root: Path | None) -> None:
    p = sub.add_parser(
        "check",
        help="run a notebook's visible self-checks and practice exercises and print a table "
        "(exit 0: every graded self-check passes); --thorough: grade it with the hidden "
        "checks",
    )
    p.add_argument("notebooks", nargs="+", help="student notebooks (.ipynb)")
    p.add_argument(
        "--timeout",
        type=int,
        default=None,
        help=f"seconds per cell (default: {DEFAULT_TIMEOUT}; with --thorough, the kit's own)",
    )
    p.add_argument(
        "--thorough",
        action="store_true",
        help="for self-learners with the kit and no instructor: grade the notebook on this machine as the "
        "instructor's `grade` would (real nbgrader, the randomized hidden checks, the sandbox when "
        "bubblewrap works) and print each graded test's points and diagnosis (exit 0: full marks)",
    )
    p.add_argument(
        "--kit",
        default=None,
        help="with --thorough: the kit's clone, holding nbgrader_config.py and "
        f"source/ (default: the installed kit's, {kit_root or 'none here'})",
    )
    p.set_defaults(func=cmd_check)


def check_only(argv, missing: list[str]) -> int:
    """The command line of a Python that has only what `check` needs (a student's, with NumPy)."""
    lacks = f"it has no {', '.join(missing)}"
    parser = argparse.ArgumentParser(
        prog="autograder",
        description=__doc__,
        epilog=f"Only `check` runs in this Python ({lacks}); for the other commands, {WHOLE_KIT}.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="check")
    add_check_command(sub, None)
    words = sys.argv[1:] if argv is None else list(argv)
    if words and not words[0].startswith("-") and words[0] != "check":
        print(
            f"autograder {words[0]}: needs the whole kit, and this Python lacks it ({lacks}); {WHOLE_KIT}",
            file=sys.stderr,
        )
        return 2
    args = parser.parse_args(argv)
    if args.thorough:
        print(
            f"autograder check --thorough: needs the whole kit, and this Python lacks it ({lacks}); {WHOLE_KIT}. "
            "Without --thorough, check runs the notebook's self-checks with NumPy alone.",
            file=sys.stderr,
        )
        return 2
    return args.func(args)


def course_arguments(p) -> None:
    """--course-dir and --db-url, as every command that reads the gradebook takes them."""
    p.add_argument("--course-dir", default=".", help="the course root (default: the current folder)")
    p.add_argument("--db-url", default=None, help="gradebook URL (default: the course's CourseDirectory.db_url)")


def main(argv=None) -> int:
    missing = missing_modules()
    if missing:  # a student's Python: NumPy, perhaps traitlets or nbformat, not nbgrader...
        return check_only(argv, missing)
    from .config import CELL_TIMEOUT, KitConfig, SimilarityConfig
    from .course import ASSIGNMENT, ensure_tools_on_path, repo_root

    ensure_tools_on_path()  # nbgrader runs `alembic` when it creates a gradebook
    defaults = KitConfig()  # the kit's own defaults; a course's nbgrader_config.py may change them for `grade`
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="assignments/*.py -> source/ and release/ (validated)")
    p.add_argument("--repo", default=str(repo_root()), help="the kit's root (default: %(default)s)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("mutants", help="grade every catalogued mutant with nbgrader; print caught/diagnosed")
    p.add_argument("--jobs", type=int, default=defaults.jobs, help="worker processes (default: twice the CPU count)")
    p.add_argument("--only", nargs="*", help="grade only these mutants (by name)")
    p.add_argument(
        "--generated",
        action="store_true",
        help="instead, Cosmic Ray's mutants of the reference solutions, run in this process: killed, survived, "
        "judged equivalent (equivalent.txt), and the survivors (needs the dev extra: make setup)",
    )
    p.add_argument("--every", type=int, default=1, help="with --generated: every N-th mutant of each cell only")
    p.add_argument(
        "--suite",
        choices=("hidden", "self-checks", "both"),
        default="both",
        help="with --generated: the test suite the mutants run against (default: both, one after the other)",
    )
    p.set_defaults(func=cmd_mutants)

    p = sub.add_parser("grade", help="grade every submission in parallel; feedback, exports, class report")
    p.add_argument("assignment", help=f"the assignment name, e.g. {ASSIGNMENT}")
    p.add_argument("--course-dir", default=".", help="the course root (default: the current folder)")
    p.add_argument("--db-url", default=None, help="gradebook URL (default: the course's CourseDirectory.db_url)")
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="worker processes (default: the course's c.KitConfig.jobs, else twice the CPU count)",
    )
    p.add_argument("--student", nargs="+", help="grade only these students")
    p.add_argument("--force", action="store_true", help="regrade submissions already graded and unchanged")
    p.add_argument(
        "--notebook-budget",
        type=float,
        default=None,
        help="seconds one notebook may run (default: the "
        f"course's c.KitConfig.notebook_budget, else {defaults.notebook_budget:g})",
    )
    p.add_argument(
        "--cell-timeout",
        type=int,
        default=None,
        help=f"seconds one cell may run (default: the course's c.Execute.timeout, else {CELL_TIMEOUT})",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:8786",
        help="grade on this Dask cluster, one task per student (default: Dask's own "
        "DASK_SCHEDULER_ADDRESS if set, else local worker processes); needs a PostgreSQL --db-url",
    )
    p.add_argument(
        "--worker-deadline",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds a grading worker may take for one student before it is presumed hung, stopped, and the "
        "student graded again by another (default: 120 s plus every notebook's budget, three times)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="grade in scratch space and print what would change against the recorded grades; "
        "the gradebook, grades.csv, feedback, reports and the run history stay as they were",
    )
    p.add_argument(
        "--wait",
        action="store_true",
        help="another grade, export or restore-gradebook of the assignment is running: wait for it to end "
        "(default: say who holds the assignment's lock and exit 2)",
    )
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser(
        "restore-gradebook", help="put back the gradebook's last copy (made before each grade run); keeps the old file"
    )
    p.add_argument("--course-dir", default=".", help="the course root (default: the current folder)")
    p.add_argument("--db-url", default=None, help="gradebook URL (default: the course's CourseDirectory.db_url)")
    p.add_argument("--from", dest="source", default=None, help="this copy instead of the newest")
    p.add_argument(
        "--wait",
        action="store_true",
        help="another grade, export or restore-gradebook of the assignment is running: wait for it to end "
        "(default: say who holds the assignment's lock and exit 2)",
    )
    p.set_defaults(func=cmd_restore_gradebook)

    p = sub.add_parser(
        "runs",
        help="the recorded grade runs of an assignment: when, students graded, class mean, "
        "what changed in the grading inputs",
    )
    p.add_argument("assignment")
    p.add_argument("--csv", action="store_true", help="CSV: run, started, finished, students, mean (oldest first)")
    course_arguments(p)
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser(
        "diff", help="per-student, per-test changes between two recorded grade runs (default: the last two)"
    )
    p.add_argument("assignment")
    p.add_argument(
        "--from", dest="from_run", type=int, metavar="RUN", help="the earlier run (default: the one before --to)"
    )
    p.add_argument("--to", dest="to_run", type=int, metavar="RUN", help="the later run (default: the last)")
    p.add_argument("--student", nargs="+", help="only these students")
    p.add_argument(
        "--csv", action="store_true", help="CSV: student, notebook, test, before, after (one row per changed test)"
    )
    course_arguments(p)
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser(
        "similarity",
        help="rank the pairs of students whose solution cells are most alike, per "
        "notebook (reports/ASSIGNMENT/similarity.csv and .html; `grade` runs it too)",
    )
    p.add_argument("assignment")
    p.add_argument("--course-dir", default=".", help="the course root (default: the current folder)")
    p.add_argument(
        "--past",
        default=None,
        help="a folder of earlier terms' submissions to compare with too "
        "(default: the course's c.SimilarityConfig.past)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="list pairs scoring at least this in the report "
        f"(default: the course's c.SimilarityConfig.threshold, else {SimilarityConfig().threshold:g})",
    )
    p.set_defaults(func=cmd_similarity)

    p = sub.add_parser("collect", help="import submissions from a folder or an LMS (Canvas-style) zip")
    p.add_argument("assignment")
    p.add_argument("path", help="a folder or a .zip download")
    p.add_argument("--roster", help="CSV with student_id and login / lms_id / canvas_id / email columns")
    p.add_argument("--course-dir", default=".", help="the course root (default: the current folder)")
    p.set_defaults(func=cmd_collect)

    from .classroom.lms.roster import COLUMNS
    from .classroom.lms.targets import TARGETS, assignment_id_help

    # every word of the targets comes from TARGETS: a new target (a Blackboard file) is one entry there, and shows here
    p = sub.add_parser("export", help="grades for the LMS: " + ", or ".join(t.help for t in TARGETS.values()))
    p.add_argument("assignment")

    p.add_argument(
        "--to",
        choices=tuple(TARGETS),
        default="csv",
        help="; ".join(f"{name}: {target.help}" for name, target in TARGETS.items()) + " (default: csv)",
    )
    p.add_argument(
        "--roster",
        help=f"the class roster CSV ({', '.join(COLUMNS)}); needed for "
        + " and ".join(name for name, t in TARGETS.items() if t.rows is not None),
    )
    p.add_argument("--out", help="the file to write (default: grades.csv, or ASSIGNMENT-TARGET.csv)")
    p.add_argument("--assignment-id", help=assignment_id_help())
    p.add_argument(
        "--missing-as-zero",
        action="store_true",
        help="a roster student without a graded submission gets 0 instead of an empty cell",
    )
    p.add_argument(
        "--moodle-id",
        choices=("email", "idnumber"),
        default="email",
        help="the roster column Moodle matches users by (default: %(default)s)",
    )
    p.add_argument(
        "--feedback-zip",
        nargs="?",
        const="feedback-upload.zip",
        metavar="ZIP",
        help="also pack every feedback HTML under the student's LMS file name (default: %(const)s)",
    )
    p.add_argument("--course-dir", default=".", help="the course root (default: the current folder)")
    p.add_argument("--db-url", default=None, help="gradebook URL (default: the course's CourseDirectory.db_url)")
    p.add_argument(
        "--changed-since",
        type=int,
        metavar="RUN",
        help="only the students whose score changed since this recorded grade run (see `runs`)",
    )
    p.add_argument(
        "--wait",
        action="store_true",
        help="another grade, export or restore-gradebook of the assignment is running: wait for it to end "
        "(default: say who holds the assignment's lock and exit 2)",
    )
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("gradescope", help="build autograder.zip for a Gradescope programming assignment")
    p.add_argument("assignment")
    p.add_argument("--out", default="autograder.zip", help="the zip to write (default: %(default)s)")
    p.add_argument("--repo", default=str(repo_root()), help="the kit's root (default: %(default)s)")
    p.add_argument("--setup", action="store_true", help="(inside Gradescope, from setup.sh) prepare the course")
    p.add_argument("--run", action="store_true", help="(inside Gradescope, from run_autograder) grade the submission")
    p.add_argument("--root", help="the Gradescope folder (default: $AUTOGRADER_ROOT or /autograder)")
    p.set_defaults(func=cmd_gradescope)

    p = sub.add_parser("demo", help="collect, grade, export and report a built-in class in a scratch course")
    p.add_argument("--workdir", help="where to put the scratch course (default: a new temporary folder)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default: %(default)s)")
    p.set_defaults(func=cmd_demo)

    add_check_command(sub, repo_root())

    args = parser.parse_args(argv)
    from . import timing

    timing.started()  # where a run's time goes (AUTOGRADER_TIMINGS: benchmarks/bench_small_jobs.py)
    return args.func(args)
