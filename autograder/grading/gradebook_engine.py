"""nbgrader's Gradebook on one SQLAlchemy engine per gradebook per process, for its statements compiled once.

nbgrader opens a Gradebook about 36 times for one student (Autograde's assignment set-up, each of its
preprocessors that reads or writes grades, GenerateFeedback's GetGrades, the kit's ApplyVerdicts and
read-back), and every Gradebook calls ``sqlalchemy.create_engine``: a new engine, whose dialect is set
up again on its first connection and whose statement cache starts empty, so each of the few hundred
queries of a student is compiled to SQL afresh.  That compiling was about a quarter of the grading
process's CPU outside the kernels.

Each Gradebook also checks the database's schema as it opens: it lists the tables, then asks for each of
nbgrader's tables whether it is there (``create_all``): about fifteen queries, half the cost of opening one.
Inside :func:`shared_engines` a SQLite gradebook's schema is checked the first time this process opens it (and
again if its file is replaced, or empty); later Gradebooks of the same file skip the check, since tables a check found
are not dropped by anything nbgrader or the kit does (a file replaced has a new inode: checked again).

Inside :func:`shared_engines`, the ``create_engine`` nbgrader's Gradebook calls hands out one engine per
(process, URL, options), its pool emptied first (what a new engine's would be: no connection is
reused from an earlier Gradebook, which closes its own by disposing of the pool as before); the
engine keeps only the dialect and the compiled statements.  The SQL, the transactions and what the
gradebook holds are nbgrader's (``tests/test_gradebook_engine.py`` compares a grading with and without it).

A PostgreSQL server that restarts mid-run (an administrator's ``pg_ctl restart``, a failover) is waited
for: inside :func:`riding_out_restarts` (every student's grading, and ``grade``'s own process once the
run has started), a new connection that finds the server shutting down, starting up or not listening is
tried again for up to :data:`RECONNECT_SECONDS`.  Since every Gradebook opens its connection afresh, a
grading whose sessions fall between the server's is graded as usual; one whose transaction the server
ended is the kit's fault, not the student's (status ``error``, graded again).  Outside it (``runs``,
``diff``, ``export``, ``grade`` before its run starts) a server that is down is told at once.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager

import nbgrader.api
import sqlalchemy
from sqlalchemy import event

ENGINES_KEPT = 8  # gradebooks a process keeps an engine for (one per course it grades, usually)
_engines: dict[tuple, sqlalchemy.engine.Engine] = {}
_lock = threading.Lock()
_users = 0  # shared_engines blocks open in this process (threads may grade side by side)
_nbgraders_own = nbgrader.api.create_engine  # put back when the last block ends
_nbgraders_inspect = nbgrader.api.inspect  # (nbgrader's own, put back with it)
_checked: set[tuple] = set()  # SQLite gradebooks (the file's device and inode) whose schema this process checked
RECONNECT_SECONDS = 60.0  # how long a run waits for its PostgreSQL server to come back
RECONNECT_PAUSE = 0.25
# what libpq says of a server that is restarting or not up yet, as opposed to a wrong URL, user or password
RESTARTING = (
    "the database system is shutting down",
    "the database system is starting up",
    "the database system is not yet accepting connections",
    "the database system is in recovery mode",
    "terminating connection due to administrator command",
    "server closed the connection unexpectedly",
    "Connection refused",
    "No such file or directory",
)
_riding = 0  # riding_out_restarts blocks open in this process


def shared_engine(url, **options) -> sqlalchemy.engine.Engine:
    """``sqlalchemy.create_engine(url, **options)``, the same engine for the same arguments in this process,
    with an empty pool."""
    key = (os.getpid(), str(url), tuple(sorted(options.items())))
    with _lock:
        engine = _engines.get(key)
        if engine is None:
            if len(_engines) >= ENGINES_KEPT:
                _engines.clear()
            engine = _engines[key] = sqlalchemy.create_engine(url, **options)
        else:
            engine.dispose()  # a fresh pool, as a new engine's: idle connections closed, none handed on
    return engine


@contextmanager
def shared_engines():
    """Within the block, every nbgrader Gradebook opened in this process gets its engine from :func:`shared_engine`."""
    global _users
    with _lock:
        if _users == 0:
            nbgrader.api.create_engine = shared_engine
            nbgrader.api.inspect = _inspect
            nbgrader.api.Base.metadata.create_all = _create_all
        _users += 1
    try:
        with riding_out_restarts():
            yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                nbgrader.api.create_engine = _nbgraders_own
                nbgrader.api.inspect = _nbgraders_inspect
                del nbgrader.api.Base.metadata.create_all  # the method again


def _sqlite_file(engine) -> tuple | None:
    """The device and inode of a SQLite engine's database file (None: not SQLite, in memory, or not there)."""
    url = getattr(engine, "url", None)
    if url is None or url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    try:
        stat = os.stat(url.database)
    except OSError:
        return None
    if stat.st_size == 0:  # a new file (SQLite makes it empty as it connects), whatever inode it was given
        return None
    return (str(url), stat.st_dev, stat.st_ino)


class _Checked:
    """What nbgrader's Gradebook asks of an inspector, for a gradebook whose schema this process checked: it has
    tables (so nbgrader does not write a new gradebook's version row)."""

    def get_table_names(self) -> list[str]:
        return ["(checked)"]


def _inspect(subject):
    """nbgrader's ``inspect(engine)`` as a Gradebook opens: the real one, unless the schema was checked here."""
    key = _sqlite_file(subject)
    return _Checked() if key is not None and key in _checked else _nbgraders_inspect(subject)


def _create_all(bind=None, **options) -> None:
    """nbgrader's ``Base.metadata.create_all``: skipped for a gradebook whose schema this process checked."""
    key = _sqlite_file(bind)
    if key is not None and key in _checked:
        return
    type(nbgrader.api.Base.metadata).create_all(nbgrader.api.Base.metadata, bind=bind, **options)
    key = _sqlite_file(bind)  # (a new gradebook's file exists now)
    if key is not None:
        _checked.add(key)


def restarting(error: BaseException) -> bool:
    """Whether a connection's error is a server that is restarting (or not listening yet)."""
    return any(words in str(error) for words in RESTARTING)


@contextmanager
def riding_out_restarts():
    """Within the block, a PostgreSQL connection opened in this process waits for a restarting server."""
    global _riding
    with _lock:
        _riding += 1
    try:
        yield
    finally:
        with _lock:
            _riding -= 1


@event.listens_for(sqlalchemy.engine.Engine, "do_connect")
def _connect_through_a_restart(dialect, connection_record, cargs, cparams):
    """Every engine's connect (nbgrader's Gradebooks', the run history's): on PostgreSQL, inside
    :func:`riding_out_restarts`, tried again while the server restarts, up to :data:`RECONNECT_SECONDS`."""
    if dialect.name != "postgresql" or not _riding:
        return None  # SQLAlchemy's own connect
    deadline = time.monotonic() + RECONNECT_SECONDS
    while True:
        try:
            return dialect.connect(*cargs, **cparams)
        except dialect.loaded_dbapi.OperationalError as e:
            if not restarting(e) or time.monotonic() > deadline:
                raise
        time.sleep(RECONNECT_PAUSE)
