"""Reading a notebook file: one reader for grading and for a student's `check`, with a reason a person can read.

Grading reads every submitted notebook strictly: a file that is too large, not UTF-8, not JSON, or
not a valid notebook is refused with what is wrong, and the batch goes on.  A student's ``check``
uses the same reader, so it refuses what grading would refuse, in the same words.

``check`` must run in a Python that has only NumPy (the notebooks need nothing else), so this module
imports nothing beyond the standard library at the top.  Where nbformat is installed (the kit's own
environment) the notebook is nbformat's, upgraded to version 4 and validated against its schema, as
nbgrader reads it.  Without nbformat it is the same JSON as plain :class:`PlainNode` dictionaries
with attribute access (``cell.source``, ``cell.metadata``), the sources joined into strings as
nbformat joins them; only the schema check is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024
MULTILINE_KEYS = ("source", "text")  # fields nbformat stores as a list of lines and reads as one string


class PlainNode(dict):
    """A dict whose keys read and write as attributes, as nbformat's NotebookNode does."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value


def plain_node(value):
    """JSON values as PlainNodes, every multi-line field joined into one string."""
    if isinstance(value, dict):
        return PlainNode(
            {
                key: "".join(item) if key in MULTILINE_KEYS and isinstance(item, list) else plain_node(item)
                for key, item in value.items()
            }
        )
    if isinstance(value, list):
        return [plain_node(item) for item in value]
    return value


def read_notebook(path: Path, *, validate: bool = True):
    """The notebook at ``path``, as version 4, or raise ValueError naming the file and what is wrong.

    FileNotFoundError passes through: a path that names nothing is the caller's to word.  ``validate=False``
    returns a version-4 file as plain JSON nodes without nbformat's schema check, which costs more than
    everything else the similarity report does with a notebook (it reads only sources and metadata)."""
    path = Path(path)
    data = path.read_bytes()
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(
            f"{path.name}: {len(data) / 2**20:.0f} MiB is larger than the {MAX_NOTEBOOK_BYTES // 2**20} MiB limit"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path.name}: not UTF-8 text (byte {e.start})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path.name}: not a notebook: invalid JSON at line {e.lineno}, column {e.colno}") from None
    if not isinstance(raw, dict) or "cells" not in raw and "worksheets" not in raw:
        raise ValueError(f"{path.name}: not a notebook: the JSON has no cells")
    if not validate and raw.get("nbformat") == 4 and isinstance(raw.get("cells"), list):
        return plain_node(raw)
    try:
        import nbformat
    except ImportError:  # a student's NumPy-only Python running `check`
        if raw.get("nbformat") != 4 or not isinstance(raw.get("cells"), list):
            raise ValueError(
                f"{path.name}: a notebook of format {raw.get('nbformat', '?')}; this Python reads "
                "format 4 only (save it again from Jupyter, or install nbformat)"
            ) from None
        return plain_node(raw)
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception as e:  # noqa: BLE001 - nbformat raises several kinds; the reason is what matters
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(
            f"{path.name}: not a valid notebook (nbformat {raw.get('nbformat', '?')}): {first[:200]}"
        ) from None
    return nb
