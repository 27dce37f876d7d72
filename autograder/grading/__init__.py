"""Grading one submission: submitted/ -> autograded/ -> feedback/, for one student.

``intake`` stages a checked copy of the submission (the original is never touched); ``execute`` is
the budgeted nbgrader executor the student's kernel runs under, and ``checker`` runs each test cell's
hidden checks in this process while the kernel only answers their questions (``kernel_client`` keeps
a dying kernel from hanging grading); ``verdicts`` applies the checks' verdicts in the gradebook in the
same nbgrader run; ``feedback`` keeps hidden-test code out of what the student sees and renders the
page they read (a summary of the failed tests on top, a page for a notebook that could not be
graded); ``results`` reads points and diagnoses back; ``notes`` groups the notes on a submission for
showing; ``grade.grade_student`` ties these steps
together and never raises for a bad submission.  Whole classes are the business of ``classroom``.
"""
