"""nbgrader configuration of the course.  The course root is the folder this file is in."""
import os

c = get_config()  # noqa: F821 (provided by nbgrader)

# The one course and its exchange.  On JupyterHub, point Exchange.root at the shared exchange
# (nbgrader's documented default is /srv/nbgrader/exchange); NBGRADER_EXCHANGE overrides it.
c.CourseDirectory.course_id = "embeddings"
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")

# Student code gets at most this long per cell; the kit's `grade` command also caps each notebook.
c.Execute.timeout = 60

# Feedback must show a hidden check's diagnosis, never the hidden test code (upstream #917, #1363).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "nbgrader.preprocessors.ClearHiddenTests",
    "autograder.feedback.ScrubTestTracebacks",
]
