"""What a student runs: ``selfcheck`` executes a notebook's visible self-checks (never the hidden
tests) and prints a table, so a student knows where they stand before handing in.
"""
