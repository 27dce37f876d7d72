"""The gradebook is never the only copy, and its faults are told in one line that says what to do.

Before each run, a SQLite gradebook is checked (``PRAGMA quick_check``) and copied with SQLite's online
backup into ``.kit/gradebook-backups/`` of the course; a PostgreSQL gradebook is copied there too, as a logical
dump of nbgrader's tables and the kit's run history made by PostgreSQL's own ``pg_dump`` (custom format, which
``restore`` gives to ``pg_restore``).  Either way the last :data:`KEEP` copies are kept.

A damaged or unreadable gradebook, a read-only or full course folder, and any other gradebook error
are told in one line naming the file or folder (and, for a damaged gradebook, the copy that restores
it and the command that does it); the database driver's own text goes to a log file that line names.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import tempfile
import time
import traceback
from pathlib import Path

from ...course import sqlite_file

KEEP = 5  # copies of the gradebook kept under .kit/gradebook-backups/
BACKUPS = "gradebook-backups"
LOGS = "logs"
READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)
FULL = (errno.ENOSPC, errno.EDQUOT)


class GradebookFault(Exception):
    """The gradebook or the course folder cannot be used: the message is one line, for the instructor."""


def backup_folder(course_root: Path) -> Path:
    return Path(course_root) / ".kit" / BACKUPS


def backups(course_root: Path) -> list[Path]:
    """The gradebook's copies (SQLite files, PostgreSQL dumps), newest first."""
    folder = backup_folder(course_root)
    return sorted(
        [*folder.glob("gradebook-*.db"), *folder.glob("gradebook-*.dump")], key=lambda p: p.name, reverse=True
    )


# --- PostgreSQL: pg_dump and pg_restore ------------------------------------------------------------------------


def is_postgres(db_url: str) -> bool:
    return db_url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres")


def libpq(db_url: str) -> tuple[str, dict[str, str]]:
    """The gradebook URL as PostgreSQL's own tools take it (no SQLAlchemy driver; the password in PGPASSWORD,
    not on a command line other users can read), and their environment."""
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    return url.set(drivername="postgresql", password=None).render_as_string(hide_password=False), env


def gradebook_tables() -> list[str]:
    """nbgrader's tables (its schema, and alembic's version of it) and the kit's run history beside them."""
    from nbgrader.api import Base

    from ..history.history import METADATA

    return sorted({*Base.metadata.tables, "alembic_version", *METADATA.tables})


def pg_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise GradebookFault(
            f"{name} is not installed: the kit copies a PostgreSQL gradebook with PostgreSQL's own tools before "
            "each run (apt-get install postgresql-client, or your system's PostgreSQL client package)"
        )
    return found


def _pg_run(course_root: Path, what: str, command: list[str], env: dict[str, str]) -> None:
    import subprocess

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        error = RuntimeError(f"{Path(command[0]).name} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
        raise GradebookFault(f"{what} (details: {log_error(course_root, what, error)})")


def _pg_back_up(course_root: Path, db_url: str) -> Path:
    url, env = libpq(db_url)
    folder = backup_folder(course_root)
    target = folder / f"gradebook-{time.strftime('%Y%m%dT%H%M%S')}-{time.time_ns() % 10**9:09d}.dump"
    tmp = folder / f".{target.name}.tmp"
    folder.mkdir(parents=True, exist_ok=True)
    tables = [arg for table in gradebook_tables() for arg in ("-t", table)]
    try:
        _pg_run(
            course_root,
            f"the gradebook {redacted(db_url)} could not be copied to {folder} with pg_dump",
            [pg_tool("pg_dump"), "-Fc", "--no-owner", "-f", str(tmp), *tables, "-d", url],
            env,
        )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _pg_has_gradebook(course_root: Path, db_url: str) -> bool:
    """Whether the database holds nbgrader's tables yet (a new one has none until the assignment is registered)."""
    from sqlalchemy import create_engine, inspect

    engine = create_engine(db_url)
    try:
        return inspect(engine).has_table("assignment")
    except Exception as e:  # noqa: BLE001 - the server is down or refuses: one line, the driver's text in the log
        raise gradebook_fault(course_root, db_url, "open", e) from None
    finally:
        engine.dispose()


def redacted(db_url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(db_url).render_as_string(hide_password=True)


def _pg_restore(course_root: Path, db_url: str, source: Path) -> Path | None:
    """Put the dump ``source`` back in one transaction (nbgrader's and the kit's tables as they were); the
    gradebook as it was before is dumped aside first (None if it could not be: a damaged database)."""
    kept = None
    try:
        kept = _pg_back_up(course_root, db_url)
        kept = kept.rename(kept.with_name(kept.name.replace("gradebook-", "replaced-", 1)))
    except GradebookFault:
        kept = None
    url, env = libpq(db_url)
    _pg_run(
        course_root,
        f"the copy {source} could not be restored into {redacted(db_url)} with pg_restore",
        [pg_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction", "-d", url, str(source)],
        env,
    )
    return kept


def log_error(course_root: Path, what: str, error: BaseException) -> Path:
    """The full error (the driver's text, the traceback) in a log file: under the course's ``.kit/logs/``,
    or, where the course folder cannot be written, under the system's temporary folder."""
    text = f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} {what}\n" + "".join(
        traceback.format_exception(type(error), error, error.__traceback__)
    )
    name = f"grade-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
    for folder in (Path(course_root) / ".kit" / LOGS, Path(tempfile.gettempdir()) / "autograder-logs"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / name
            with open(path, "a") as f:
                f.write(text + "\n")
            return path
        except OSError:
            continue
    return Path(os.devnull)


def folder_fault(course_root: Path, error: OSError) -> str | None:
    """A read-only or full course folder, in one line; None for another error."""
    if error.errno in READ_ONLY:
        return (
            f"the course folder {course_root} is read-only: nothing can be graded or recorded there "
            "(remount it read-write, or grade a copy of it with --course-dir)"
        )
    if error.errno in FULL:
        return f"the disk holding the course folder {course_root} is full: free space there and run `grade` again"
    return None


def _check(path: Path) -> None:
    """Raise sqlite3.DatabaseError unless ``path`` is a whole SQLite database."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
    try:
        row = con.execute("PRAGMA quick_check").fetchone()
        if not row or row[0] != "ok":
            raise sqlite3.DatabaseError(f"quick_check: {row[0] if row else 'no answer'}")
    finally:
        con.close()


def damaged(course_root: Path, db: Path, log: Path) -> str:
    """The line for a damaged gradebook: the copy that restores it and the command that does it."""
    good = next(iter(backups(course_root)), None)
    if good is None:
        restore = f"there is no copy of it under {backup_folder(course_root)} (the kit copies it before each run)"
    else:
        restore = (
            f"the last copy is {good}; restore it with "
            f"`python -m autograder restore-gradebook --course-dir {course_root}`"
        )
    return f"the gradebook {db} is damaged or is not a gradebook: {restore} (details: {log})"


def writable(course_root: Path) -> None:
    """GradebookFault when the course folder is read-only or full (a probe file in its ``.kit/``)."""
    kit = Path(course_root) / ".kit"
    try:
        kit.mkdir(exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=kit, prefix=".probe-")
        try:
            os.write(fd, b"\0" * 4096)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as e:
        words = folder_fault(course_root, e)
        if words:
            raise GradebookFault(f"{words} (details: {log_error(course_root, words, e)})") from None
        raise


def back_up(course_root: Path, db_url: str) -> Path | None:
    """Check the course folder and the gradebook, then copy a SQLite gradebook into the course's
    ``.kit/gradebook-backups/`` (SQLite's online backup, so a gradebook in use is copied whole), keeping
    the last :data:`KEEP`; a PostgreSQL gradebook is dumped there (:func:`_pg_back_up`).  Returns the copy (None:
    no gradebook yet); GradebookFault."""
    course_root = Path(course_root)
    writable(course_root)
    if is_postgres(db_url):
        if not _pg_has_gradebook(course_root, db_url):
            return None
        target = _pg_back_up(course_root, db_url)
        for old in backups(course_root)[KEEP:]:
            old.unlink(missing_ok=True)
        return target
    db = sqlite_file(db_url)
    if db is None or not db.exists():
        return None
    try:
        _check(db)
    except sqlite3.DatabaseError as e:
        raise GradebookFault(damaged(course_root, db, log_error(course_root, f"checking {db}", e))) from None
    folder = backup_folder(course_root)
    target = folder / f"gradebook-{time.strftime('%Y%m%dT%H%M%S')}-{time.time_ns() % 10**9:09d}.db"
    tmp = folder / f".{target.name}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        source = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)
        try:
            copy = sqlite3.connect(tmp)
            try:
                source.backup(copy)
            finally:
                copy.close()
        finally:
            source.close()
        os.replace(tmp, target)
    except (OSError, sqlite3.Error) as e:
        tmp.unlink(missing_ok=True)
        words = folder_fault(course_root, e) if isinstance(e, OSError) else None
        if words is None and isinstance(e, sqlite3.Error) and "full" in str(e):
            words = folder_fault(course_root, OSError(errno.ENOSPC, str(e)))
        words = words or f"the gradebook {db} could not be copied to {folder}"
        raise GradebookFault(f"{words} (details: {log_error(course_root, words, e)})") from None
    for old in backups(course_root)[KEEP:]:
        old.unlink(missing_ok=True)
    return target


def gradebook_fault(course_root: Path, db_url: str, doing: str, error: BaseException) -> GradebookFault:
    """Any error of the gradebook, in one line (the driver's text goes to the log the line names)."""
    course_root = Path(course_root)
    log = log_error(course_root, f"{doing} {db_url}", error)
    text = f"{type(error).__name__}: {error}"
    orig = getattr(error, "orig", None)
    if isinstance(orig, OSError) or isinstance(error, OSError):
        words = folder_fault(course_root, orig if isinstance(orig, OSError) else error)
        if words:
            return GradebookFault(f"{words} (details: {log})")
    db = sqlite_file(db_url)
    if "readonly database" in text or "read-only" in text:
        where = db.parent if db else course_root
        return GradebookFault(
            f"the course folder {where} is read-only: the gradebook cannot be written (details: {log})"
        )
    if "database or disk is full" in text:
        return GradebookFault(f"the disk holding the gradebook {db or db_url} is full (details: {log})")
    if db and ("file is not a database" in text or "malformed" in text):
        return GradebookFault(damaged(course_root, db, log))
    return GradebookFault(f"cannot {doing} the gradebook {db or db_url}: {type(error).__name__} (details: {log})")


def forget_later_gradings(course_root: Path, since: float) -> list[Path]:
    """The kit's state files of gradings finished after ``since`` (the copy restored does not hold them)
    removed, so that the next ``grade`` grades those students again instead of skipping them."""
    kit = Path(course_root) / ".kit"
    later = [p for p in kit.glob("*/*.json") if p.parent.name not in (BACKUPS, LOGS) and p.stat().st_mtime > since]
    for path in later:
        path.unlink(missing_ok=True)
    return later


def restore(course_root: Path, db_url: str, source: Path | None = None) -> tuple[Path, Path, Path | None]:
    """Put a copy back as the gradebook (the newest, or ``source``); the damaged file is kept aside, and
    the students graded after the copy was made are graded again by the next run.
    Returns (gradebook, the copy restored, where the old file was kept)."""
    course_root = Path(course_root)
    db = sqlite_file(db_url)
    wanted = ".dump" if db is None else ".db"
    source = Path(source) if source else next((p for p in backups(course_root) if p.suffix == wanted), None)
    if source is None or not source.exists():
        raise GradebookFault(f"no copy of the gradebook under {backup_folder(course_root)}")
    if db is None:
        if not is_postgres(db_url):
            raise GradebookFault(f"the gradebook {db_url} is neither a SQLite file nor PostgreSQL: restore it yourself")
        kept = _pg_restore(course_root, db_url, source)
        forget_later_gradings(course_root, source.stat().st_mtime)
        return redacted(db_url), source, kept
    try:
        _check(source)
    except sqlite3.DatabaseError:
        raise GradebookFault(f"the copy {source} is damaged too: choose another with --from") from None
    kept = None
    if db.exists():
        kept = db.with_name(f"{db.name}.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
        os.replace(db, kept)
    tmp = db.with_name(f".{db.name}.restoring")
    shutil.copyfile(source, tmp)
    os.replace(tmp, db)
    forget_later_gradings(course_root, source.stat().st_mtime)
    return db, source, kept
