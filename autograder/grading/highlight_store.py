"""The highlighted HTML of locked code cells, kept on disk for the next grading process.

A feedback page shows every code cell highlighted by Pygments.  The locked cells (the given code, the self-check
helpers, the tests: some 550 lines a lesson) are the same in every submission, as nbgrader puts them back from the
source notebooks, and a process highlights each source once (``feedback.RememberedHighlight``).  Yet every grading
process starts cold: one that grades one student highlights them all, about 0.17 s of CPU a lesson, a third of
what its feedback costs.  So the HTML of a locked cell is kept in a file, for every later process of this user.

- A file is named by a hash of everything the HTML is made from (the source, its language, the lexer and its
  options, the Pygments and nbconvert versions), so it holds the one right page fragment for that name, and any
  change makes another name.  Its first line is the hash of the rest: a file cut short or changed is not used.
- Only locked cells: a student's own cells are highlighted in memory only, so a class fills no folder.
- The folder is ``$AUTOGRADER_HIGHLIGHT_STORE``, else ``$XDG_CACHE_HOME/autograder/highlighted`` (``~/.cache/...``),
  made for this user alone.  ``AUTOGRADER_HIGHLIGHT_STORE=off`` keeps nothing; a folder that cannot be written keeps
  nothing either, and grading goes on as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

STORE_ENV = "AUTOGRADER_HIGHLIGHT_STORE"


def folder() -> Path | None:
    chosen = os.environ.get(STORE_ENV, "")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "autograder" / "highlighted"


def name_of(*made_from: object) -> str:
    import nbconvert
    import pygments

    parts = [pygments.__version__, nbconvert.__version__, *made_from]
    return hashlib.sha256(json.dumps(parts, default=repr).encode()).hexdigest()


def read(name: str) -> str | None:
    where = folder()
    if where is None:
        return None
    try:
        data = (where / f"{name}.html").read_bytes()
    except OSError:
        return None
    check, _, html = data.partition(b"\n")
    if hashlib.sha256(html).hexdigest().encode() != check:
        return None
    return html.decode()


def write(name: str, html: str) -> None:
    where = folder()
    if where is None:
        return
    body = html.encode()
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=where, prefix=".writing-")
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            os.replace(temporary, where / f"{name}.html")  # whole or not at all, for a process reading it meanwhile
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
