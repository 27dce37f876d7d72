"""nbgrader configuration of the course.  The course root is the folder this file is in."""

import os

c = get_config()  # noqa: F821 (provided by nbgrader)

# The one course and its exchange.  Exchange.root is left to the system-wide config that students'
# nbgrader reads too (on JupyterHub /etc/jupyter/nbgrader_config.py), so both sides use one path;
# nbgrader 0.9.6's built-in default is /usr/local/share/nbgrader/exchange.  NBGRADER_EXCHANGE
# overrides it for the instructor's commands run in this folder (a scratch exchange, the tests).
c.CourseDirectory.course_id = "embeddings"
if os.environ.get("NBGRADER_EXCHANGE"):
    c.Exchange.root = os.environ["NBGRADER_EXCHANGE"]

# Student code gets at most this long per cell, in plain nbgrader and in the kit's `grade` (whose
# --cell-timeout overrides it); the kit also caps each notebook (c.KitConfig.notebook_budget).
c.Execute.timeout = 60

# The kit's own options (autograder/config.py: KitConfig, each with its help and default) are set here
# too, e.g. `c.KitConfig.notebook_budget = 90` or `c.KitConfig.jobs = 8`; `grade`'s flags override them.
# The similarity report (docs/similarity.md) lists pairs scoring at least `c.SimilarityConfig.threshold`
# (default 0.5) in the class report; `c.SimilarityConfig.past` names a folder of earlier terms' submissions.

# Feedback must show a hidden check's diagnosis, never the hidden test code (upstream #917, #1363).
# The kit's `grade` adds its summary step and its page template (autograder/grading/feedback.py) to these.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "nbgrader.preprocessors.ClearHiddenTests",
    "autograder.grading.feedback.ScrubTestTracebacks",
]
