"""One grading of an assignment at a time: a lock per assignment, held for the whole of a run.

``grade``, ``export`` and ``restore-gradebook`` take it before they read or write anything of the assignment.
Beside a SQLite gradebook it is a file lock (``flock``) on ``.<gradebook>.<assignment>.lock`` next to the
gradebook file, which the operating system lets go when the process ends, however it ends.  With a PostgreSQL
gradebook it is an advisory lock of the server's (``pg_try_advisory_lock``) on a connection the run keeps open,
so it holds across machines and Dask workers, and the server lets it go when that connection closes.

Who holds it (process, machine, command, since when) is written where the next taker reads it: into the lock
file, or into the kit's table ``kit_locks``.  A second taker says so in one line (:class:`Held`) and stops,
or, with ``wait``, waits for the lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import sys
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from ...course import sqlite_file

POLL = 0.5  # seconds between tries while waiting for the lock


class Held(ValueError):
    """Another run holds the assignment's lock: the message is one line naming it."""


def holder(command: str) -> dict:
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "command": command,
        "since": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
    }


def held_by(assignment: str, who: dict | None, where: str) -> str:
    if not who:
        return f"another run holds the lock on {assignment!r} ({where}); wait for it to end, or run again with --wait"
    return (
        f"{assignment!r} is being worked on by another run: `{who.get('command', '?')}`, process {who.get('pid')} "
        f"on {who.get('host')}, since {who.get('since')} ({where}); wait for it to end, or run again with --wait"
    )


def lock_file(db: Path, assignment: str) -> Path:
    return db.with_name(f".{db.name}.{assignment}.lock")


@contextmanager
def _file_lock(db: Path, assignment: str, command: str, wait: bool):
    path = lock_file(db, assignment)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not wait:
                    try:
                        who = json.loads(path.read_text() or "null")
                    except (OSError, ValueError):
                        who = None
                    raise Held(held_by(assignment, who, f"lock file {path}")) from None
                time.sleep(POLL)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(holder(command)).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def advisory_key(assignment: str) -> int:
    """The assignment's 64-bit advisory lock key (the kit's prefix and the name, hashed)."""
    return int.from_bytes(hashlib.sha256(f"autograder-grading:{assignment}".encode()).digest()[:8], "big", signed=True)


@contextmanager
def _advisory_lock(db_url: str, assignment: str, command: str, wait: bool):
    from sqlalchemy import create_engine, text

    engine = create_engine(db_url, poolclass=None)
    key = advisory_key(assignment)
    con = engine.connect()
    try:
        while not con.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar():
            con.rollback()
            if not wait:
                who = None
                try:
                    row = con.execute(text("SELECT holder FROM kit_locks WHERE assignment = :a"), {"a": assignment})
                    found = row.scalar()
                    who = json.loads(found) if found else None
                except Exception:  # noqa: BLE001 - only the holder's name is missing
                    con.rollback()
                raise Held(held_by(assignment, who, "an advisory lock of the gradebook's PostgreSQL server"))
            time.sleep(POLL)
        con.commit()
        con.execute(text("CREATE TABLE IF NOT EXISTS kit_locks (assignment VARCHAR(128) PRIMARY KEY, holder TEXT)"))
        con.execute(text("DELETE FROM kit_locks WHERE assignment = :a"), {"a": assignment})
        con.execute(
            text("INSERT INTO kit_locks (assignment, holder) VALUES (:a, :h)"),
            {"a": assignment, "h": json.dumps(holder(command))},
        )
        con.commit()
        try:
            yield
        finally:
            try:
                con.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                con.commit()
            except Exception:  # noqa: BLE001, S110 - closing the connection lets it go too
                pass
    finally:
        con.close()
        engine.dispose()


@contextmanager
def grading_lock(db_url: str, assignment: str, command: str | None = None, wait: bool = False):
    """Hold ``assignment``'s lock for the block (Held if another run has it and ``wait`` is false)."""
    command = command or " ".join(["autograder", *sys.argv[1:3]])
    db = sqlite_file(db_url)
    if db is not None:
        db.parent.mkdir(parents=True, exist_ok=True)
        with _file_lock(db, assignment, command, wait):
            yield
    elif db_url.startswith("postgresql"):
        with _advisory_lock(db_url, assignment, command, wait):
            yield
    else:
        yield
