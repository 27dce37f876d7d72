"""The class: collecting submissions, grading them all, and telling the instructor what happened.

One room per concern, each a subpackage, and the report beside them:

- ``run``: grading a class (``grade_command`` is ``python -m autograder grade``, ``batch`` the local pool
  of grading processes, ``dask_pool`` the Dask cluster, ``progress`` the terminal's progress bar,
  ``dry_run`` is ``grade --dry-run``);
- ``history``: every grade run kept in the gradebook (``history``), two states of the class compared
  (``changes``), and ``runs`` / ``diff`` (``regrade``);
- ``lms``: the round trip with an LMS (``collect`` places downloads into submitted/, ``roster`` the
  class list, ``targets`` the export targets (one entry each, in ``TARGETS``), ``lms`` the
  ``export`` command and the feedback zip, ``export`` grades.csv and the per-test CSV,
  ``gradescope`` the kit on Gradescope);
- ``similarity``: similar submissions (``similarity`` compares, ``similarity_page`` draws the page,
  ``similarity_command`` runs it after a grading and as ``python -m autograder similarity``);
- ``report``: the class report.

Imports between them go one way: ``run`` puts the others together; ``lms``, ``similarity`` and
``report`` may use ``history``, never each other; ``history`` uses none of them.
"""
