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

# jsonschema, which nbformat and nbgrader import, imports the IRI checker of ``rfc3987_syntax`` when that is
# installed (jsonschema's format-nongpl extra), and that module builds 38 Earley parsers as it is imported:
# about 3.3 s of CPU in every process that reads a notebook, most of nbgrader's import time.  No schema
# that nbformat, nbgrader or the kit validates has an ``iri`` format, and jsonschema goes without that one
# checker when the module cannot be imported; so every process of the kit does without it.
sys.modules.setdefault("rfc3987_syntax", None)
