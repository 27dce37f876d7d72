"""Development aids for the kit's authors, never imported by grading or by grading kernels.

``mutants`` is the catalogue of buggy and correct variants the hidden checks must catch, diagnose or
accept; ``personas`` fills release notebooks with the reference or with chosen variants to make
submissions; ``demo`` grades a built-in class end to end.  The sandbox covers this folder, so the
code being graded cannot read the catalogue either.
"""
