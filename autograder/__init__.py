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
