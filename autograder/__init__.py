"""Autograder kit for the "Positional Encoding & Embeddings" nbgrader assignment.

Data flows one way: assignments/ (jupytext sources) -> source/ -> release/ -> submitted/
-> autograded/ -> feedback/ and reports/, one subpackage per step: ``authoring`` (build the
notebooks), ``grading`` (one submission), ``classroom`` (the whole class: collect, grade, export,
report), ``student`` (self-checks), with ``sandbox`` around student code.  Underneath, every step
shares ``cells`` (the cell vocabulary), ``config`` (the kit's options) and ``course`` (the course's
folders and lessons).  Hidden tests in the notebooks call ``autograder.hidden``; everything they need
lives there.  ``devtools`` (mutants, demo personas) is for the kit's authors and never reaches a
grading kernel.
"""

import sys

# jsonschema, which nbformat and nbgrader import, imports the module behind each optional format checker that is
# installed (jsonschema's format-nongpl extra) as it is itself imported.  Two of them are dear: the IRI checker's
# ``rfc3987_syntax`` builds 38 Earley parsers (about 3.3 s of CPU, most of nbgrader's import time) and the
# duration checker's ``isoduration`` imports ``arrow`` and its locales (a quarter of a second, a third of
# `check`'s start-up).  No schema that nbformat, nbgrader or the kit validates has a format at all, and
# jsonschema goes without a checker whose module cannot be imported; so every process of the kit does without
# these, and those of colors and URI templates, which nothing else uses either.  (The URI and date-time
# checkers' modules stay: jupyter_events, which nbgrader's server extension imports, uses them itself.)
FORMAT_CHECKERS_LEFT_OUT = ("rfc3987_syntax", "isoduration", "webcolors", "uri_template")
for _name in FORMAT_CHECKERS_LEFT_OUT:
    sys.modules.setdefault(_name, None)

if "nbgrader" not in sys.modules:
    from .lean_imports import defer_server_extensions

    defer_server_extensions()
