"""Each output a kernel sends, checked against nbformat's schema once it is compiled, not once per output.

nbclient makes every message of a running cell into an output with nbformat's ``output_from_msg``, which checks it
against the ``output`` part of the notebook schema (``nbformat.v4.nbbase.validate(node, ref="output")``).  For a part
of the schema nbformat hands the check to jsonschema, which builds its validator anew for every output: 0.1-0.2 ms
each, some hundred outputs per graded notebook.  Here each part is compiled once with fastjsonschema, as nbformat
compiles the whole schema for a whole notebook.  An output the compiled part refuses is checked again nbformat's
way, so what is refused, and the error it raises, are what they always were (nbformat itself trusts fastjsonschema's
verdict on whole notebooks and asks jsonschema only for the words of an error).

:func:`install` puts this check in nbformat's place in the process that grades (the executor's module calls it).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import fastjsonschema
import nbformat.v4 as v4
from nbformat.v4 import nbbase

_nbformat_validate = nbbase.validate


@functools.cache
def compiled(ref: str):
    """The ``ref`` part of the current v4 schema (the one ``nbbase.validate`` checks against), compiled."""
    with (Path(v4.__file__).parent / v4.nbformat_schema[(nbbase.nbformat, nbbase.nbformat_minor)]).open() as f:
        schema = json.load(f)  # as nbformat.validator reads it
    return fastjsonschema.compile(
        {"$schema": schema["$schema"], "definitions": schema["definitions"], "$ref": f"#/definitions/{ref}"}
    )


def validate(node, ref=None):
    """``nbformat.v4.nbbase.validate``: None for a valid node, nbformat's own error for one that is not."""
    if ref is not None:
        try:
            compiled(ref)(node)
            return None
        except Exception:  # noqa: BLE001, S110 - refused (or not checkable here): nbformat's own check decides
            pass
    return _nbformat_validate(node, ref=ref)


def install() -> None:
    """nbformat's ``new_output`` (so nbclient's ``output_from_msg``) checks with :func:`validate` from now on."""
    nbbase.validate = validate
