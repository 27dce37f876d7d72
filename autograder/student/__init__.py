"""What a student runs.  ``selfcheck`` executes a notebook's visible self-checks (never the hidden
tests) and its practice exercises, and prints a table, so a student knows where they stand before
handing in.  ``thorough`` (``check --thorough``) is for a self-learner with the kit and no instructor:
it grades their notebook on their machine exactly as the instructor's ``grade`` would, hidden checks
included, which is why this part sits above ``grading`` in the package's layers.
"""
