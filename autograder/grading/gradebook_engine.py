"""nbgrader's Gradebook on one SQLAlchemy engine per gradebook per process, for its statements compiled once.

nbgrader opens a Gradebook about 36 times for one student (Autograde's assignment set-up, each of its
preprocessors that reads or writes grades, GenerateFeedback's GetGrades, the kit's ApplyVerdicts and
read-back), and every Gradebook calls ``sqlalchemy.create_engine``: a new engine, whose dialect is set
up again on its first connection and whose statement cache starts empty, so each of the few hundred
queries of a student is compiled to SQL afresh.  That compiling was about a quarter of the grading
process's CPU outside the kernels.

Inside :func:`shared_engines`, the ``create_engine`` nbgrader's Gradebook calls hands out one engine per
(process, URL, options), its pool emptied first (what a new engine's would be: no connection is
reused from an earlier Gradebook, which closes its own by disposing of the pool as before); the
engine keeps only the dialect and the compiled statements.  The SQL, the transactions and what the
gradebook holds are nbgrader's (``tests/test_gradebook_engine.py`` compares a grading with and without it).
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import nbgrader.api
import sqlalchemy

ENGINES_KEPT = 8  # gradebooks a process keeps an engine for (one per course it grades, usually)
_engines: dict[tuple, sqlalchemy.engine.Engine] = {}
_lock = threading.Lock()
_users = 0  # shared_engines blocks open in this process (threads may grade side by side)
_nbgraders_own = nbgrader.api.create_engine  # put back when the last block ends


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
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                nbgrader.api.create_engine = _nbgraders_own
