"""Imported by the run's fork server only (``retries.WARM``, where two workers or more grade students), after the
grading: what every worker would otherwise work out for itself the first time, worked out once here and inherited
by each worker forked from this process.

- What the feedback pages of the kit's own assignment, as released, work out and keep
  (``grading.feedback.render_ahead``): the templates compiled, the given code highlighted, the Markdown rendered:
  0.3 to 0.9 s of CPU a worker spent on its first student's pages.  A course whose notebooks differ finds less of
  it: the rest is worked out in each worker, as before.
- nbformat's validators of a whole notebook, strict and relaxed (fastjsonschema compiles the schema for each: about
  0.1 s), which nbconvert and nbgrader call on every notebook.

A failure here is only a head start lost: each worker does the work itself.
"""

from __future__ import annotations


def warm() -> None:
    try:
        import nbformat

        from ...course import kit_assignment
        from ...grading.feedback import render_ahead

        released = sorted(kit_assignment().folder("release").glob("*.ipynb"))
        render_ahead(released)
        for path in released[:1]:
            nb = nbformat.read(path, as_version=4)
            nbformat.validate(nb)
            nbformat.validate(nb, relax_add_props=True)
    except Exception:  # noqa: BLE001, S110 - only a head start
        pass


warm()
