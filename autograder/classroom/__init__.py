"""The class: collecting submissions, grading them all, and telling the instructor what happened.

``collect`` places LMS downloads and folders into submitted/; ``batch`` runs
``grading.grade.grade_student`` over every student in worker processes (resumable, idempotent);
``grade_command`` is ``python -m autograder grade``; ``export`` writes grades.csv and the per-test
CSV; ``report`` draws the class report; ``progress`` is the terminal progress bar.
"""
