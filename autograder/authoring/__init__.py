"""Authoring: assignments/ (jupytext .py, the single source of truth) -> source/ -> release/.

``build`` turns each lesson's authoring file into an nbgrader source notebook and runs the real
``nbgrader generate_assignment`` for the student release; ``rules`` are the checks every authored
notebook must pass first (markers, locked test cells, hidden-check calls, the contract's names, points), each
failure naming the file and the cell.  Nothing here runs student code or touches a gradebook.
"""
