"""The gradebook is whatever nbgrader supports: the same class graded on PostgreSQL, two workers."""

from __future__ import annotations

import csv
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from autograder.course import ASSIGNMENT
from autograder.devtools.demo import persona_notebooks
from autograder.devtools.personas import write_submission

from .conftest import ENV, PG_BIN, as_postgres, kit, scratch_course


def test_parallel_grading_on_postgresql(tmp_path, postgres):
    course = tmp_path / "course"
    scratch_course(course)
    # full marks, none and a diagnosed mistake, graded by two workers that write to the server at once
    for student, persona in {"ada": "reference", "ben": "stub", "eli": ["scatter-overwrite"]}.items():
        write_submission(course, student, persona_notebooks(persona))
    result = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2", "--db-url", postgres)
    assert f"gradebook {postgres}" in result.stdout
    with open(course / "grades.csv", newline="") as f:
        scores = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert scores["ada"] == 100 and scores["ben"] == 0 and 0 < scores["eli"] < 100
    again = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2", "--db-url", postgres)
    assert "skipping 3 submission(s)" in again.stdout
    from nbgrader.api import Gradebook

    with Gradebook(postgres) as gb:
        assert sorted(s.student.id for s in gb.assignment_submissions(ASSIGNMENT)) == ["ada", "ben", "eli"]


def server_folder(url: str) -> Path:
    """The fixture's server's folder (its data/, sock/ and log), from the URL's socket."""
    return Path(parse_qs(urlsplit(url).query)["host"][0]).parent


def stop_postgres(url: str) -> None:
    """Stop the fixture's server the fast way: its sessions are ended, their transactions rolled back."""
    as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(server_folder(url) / "data"), "-m", "fast", "-w", "stop")


def start_postgres(url: str) -> None:
    """Start the fixture's server again, on the same socket."""
    root = server_folder(url)
    options = f"-k {root / 'sock'} -c listen_addresses='' -p 5433"
    as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(root / "data"), "-w", "-l", str(root / "log"), "-o", options, "start")


def restart_postgres(url: str, down: float) -> None:
    """Stop the fixture's server, leave it down ``down`` seconds, start it again."""
    stop_postgres(url)
    time.sleep(down)
    start_postgres(url)


DRIVERS_TEXT = ("[SQL", "[parameters", "sqlalche.me", "Traceback", "psycopg.", "sqlalchemy.exc", "server closed")


def test_a_postgresql_restart_mid_run_costs_a_regrade_never_a_wrong_grade(tmp_path, postgres):
    """The gradebook's server restarted while students are graded (``pg_ctl stop -m fast``, down 3 s, started
    again: what an administrator's restart or a failover does).  What it costs: a connection the kit opens while
    the server is down waits for it to come back (up to ``gradebook_engine.RECONNECT_SECONDS``), so a student
    whose gradebook sessions all fall between the server's sessions is graded as usual, 3 s later; a student
    whose transaction the server cut is graded again once in the same run (one line: ``ada: the gradebook could
    not be written; graded again``), and if that fails too is ``error`` (no grade, one line, graded again by
    the next run).  Never a wrong score, never ``failed``, never the driver's text on the terminal.

    Without the waiting, the run died at the restart with the driver's traceback (``forget_grading`` of the
    student whose write failed: ``(psycopg.OperationalError) ... the database system is shutting down``, a
    sqlalche.me link), after one student of four."""
    course = tmp_path / "course"
    scratch_course(course)
    right = {"ada": 100.0, "ben": 0.0, "cal": 100.0, "dot": 0.0}
    for student, score in right.items():
        write_submission(course, student, persona_notebooks("reference" if score else "stub"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2"]
        + ["--db-url", postgres],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines, restarted = [], False
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("  graded ") and not restarted:  # one student done, the next ones in flight
                restart_postgres(postgres, down=3)
                restarted = True
        err = proc.stderr.read()
        code = proc.wait(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = "".join(lines)
    assert restarted, out[-3000:] + err[-3000:]
    for raw in DRIVERS_TEXT:
        assert raw not in out + err, out[-3000:] + err[:3000]
    assert code in (0, 1), out[-3000:] + err[-3000:]
    status = {}
    for line in lines:  # the progress lines, one per student as each finishes
        if line.startswith(("  graded ", "  FAILED ", "  ERROR ")):
            word, student = line.split()[:2]
            status[student.rstrip(":")] = (word, line)
    assert sorted(status) == sorted(right), out[-3000:]
    again_lines = [line.split()[0].rstrip(":") for line in lines if line.endswith("; graded again\n")]
    assert len(again_lines) == len(set(again_lines)) and set(again_lines) <= set(right), out[-3000:]
    errors = [s for s, (word, _) in status.items() if word == "ERROR"]
    assert not [s for s, (word, _) in status.items() if word == "FAILED"], out[-3000:]
    assert (code == 1) == bool(errors), out[-3000:]
    for s in errors:  # one line each, in the kit's words
        assert "the gradebook" in status[s][1], status[s][1]
    with open(course / "grades.csv", newline="") as f:
        graded = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}  # an `error` student has no row
    assert graded == {s: right[s] for s in right if s not in errors}, (graded, out[-3000:])

    again = kit("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "2", "--db-url", postgres)
    assert f"skipping {len(right) - len(errors)} submission(s)" in again.stdout, again.stdout[-3000:]
    with open(course / "grades.csv", newline="") as f:
        assert {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)} == right
    from nbgrader.api import Gradebook

    with Gradebook(postgres) as gb:
        assert sorted(s.student.id for s in gb.assignment_submissions(ASSIGNMENT)) == sorted(right)


def test_a_stopped_server_is_told_in_one_line_by_every_command(tmp_path, postgres):
    """``runs``, ``diff``, ``export`` (and ``grade`` at start) against a PostgreSQL gradebook whose server is
    down: one line naming the gradebook and the log that holds the driver's error, exit 2, no driver's text;
    ``restore-gradebook`` too.  Told at once: only a run
    already under way waits for a server to come back.  (Before, runs, diff and export printed psycopg's
    traceback.)"""
    course = tmp_path / "course"
    scratch_course(course)
    stop_postgres(postgres)  # what the gradebook holds does not matter: the server is not there
    try:
        for command in (["runs", ASSIGNMENT], ["diff", ASSIGNMENT], ["export", ASSIGNMENT], ["grade", ASSIGNMENT]):
            start = time.monotonic()
            result = kit(*command, "--course-dir", str(course), "--db-url", postgres, check=False)
            told = result.stdout + result.stderr
            assert result.returncode == 2, told[-3000:]
            for raw in DRIVERS_TEXT:
                assert raw not in told, told[-3000:]
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"{command[0]}: cannot "), told[-3000:]
            assert postgres in lines[0], lines[0]
            log = Path(lines[0].rsplit("(details: ", 1)[1].rstrip(")"))
            assert "psycopg.OperationalError" in log.read_text(), log.read_text()[-2000:]
            assert time.monotonic() - start < 30, command  # not the run's wait for a restarting server
        result = kit("restore-gradebook", "--course-dir", str(course), "--db-url", postgres, check=False)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith("restore-gradebook: cannot ") and postgres in result.stderr, result.stderr
    finally:  # the fixture stops the server it started
        start_postgres(postgres)


def test_a_postgresql_gradebook_is_dumped_before_each_run_and_restore_puts_it_back(tmp_path, postgres):
    """Before each run the kit dumps nbgrader's tables and its run history with pg_dump into
    .kit/gradebook-backups/ (the last 5 kept, as for SQLite); restore-gradebook gives the newest to pg_restore,
    after dumping the gradebook it replaces aside, and the next grade regrades the students graded since.  The bound
    on the copies is back_up's, called in this process (as test_faults does for SQLite): six more grade runs that
    grade nobody would each pay a command's and a worker's start-up for it."""
    from nbgrader.api import Gradebook
    from sqlalchemy import create_engine, text

    from autograder.classroom.run.gradebook_guard import KEEP, back_up

    course = tmp_path / "course"
    scratch_course(course)
    lesson = "01_why_position"
    write_submission(course, "ada", {lesson: persona_notebooks("reference")[lesson]})
    grade = ("grade", ASSIGNMENT, "--course-dir", str(course), "--jobs", "1", "--db-url", postgres)
    kit(*grade)  # the copy made before it: the empty gradebook
    copies = course / ".kit" / "gradebook-backups"
    kit(*grade, "--force")  # the copy made before it holds run 1 and ada's grade
    dumps = sorted(copies.glob("gradebook-*.dump"))
    assert dumps, sorted(copies.iterdir())
    write_submission(course, "ben", {lesson: persona_notebooks("stub")[lesson]})
    kit(*grade)  # run 3 grades ben
    engine = create_engine(postgres)
    with engine.begin() as db:  # an administrator's mistake: every grade gone
        db.execute(text("DELETE FROM grade"))
    engine.dispose()
    restored = kit("restore-gradebook", "--course-dir", str(course), "--db-url", postgres)
    assert "restored " in restored.stdout and ".dump" in restored.stdout, restored.stdout
    assert list(copies.glob("replaced-*.dump")), sorted(copies.iterdir())  # what it replaced, kept aside
    with Gradebook(postgres) as gb:
        graded = {s.student.id: s.score for s in gb.assignment_submissions(ASSIGNMENT)}
    assert graded == {"ada": 15.0}, graded  # as of the newest copy: before run 3, after run 2
    runs = kit("runs", ASSIGNMENT, "--course-dir", str(course), "--db-url", postgres).stdout
    assert [line.split()[0] for line in runs.splitlines()[1:]] == ["1", "2"], runs
    again = kit(*grade).stdout  # ben, graded after the copy, is graded again; ada is not
    assert "skipping 1 submission(s)" in again and "graded ben" in again, again
    for _ in range(KEEP + 1):  # the copies are bounded in number (each run makes one, as the runs above showed)
        back_up(course, postgres)
    assert len(list(copies.glob("gradebook-*.dump"))) == KEEP
