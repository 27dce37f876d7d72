"""What decides a grade besides the submission: every grading input, as one comparable record.

A student's grade is a function of their submission and of these inputs:

- ``source``: each source notebook's graded and locked cells (their source, their nbgrader metadata, points
  included), one digest per notebook; a notebook added or removed changes the set;
- ``kit``: the kit's version and every file of its package (the hidden checks, the grading, the feedback
  templates), the digest the canary takes of them;
- ``options``: the run's grading options (budgets, each notebook's limits as decided, cell timeout, sandbox,
  feedback: every field of :class:`~autograder.config.GradingOptions` but ``jobs`` and ``hung_grace``) and every
  setting of the course's ``nbgrader_config.py`` except those listed in :data:`NOT_GRADING` (where the
  exchange is, how many workers run, how soon a silent one is presumed hung, the similarity report), which cannot
  change a grade or a feedback page;
- ``versions``: the versions of the Python and the packages that run the grading (:data:`VERSIONED`).

``grade`` keeps the record a student was graded on in their state file and skips the student only when the
submission and every input are what they were (:func:`same_inputs`); :func:`what_changed` says in one line
which input moved.  The run history keeps the same record per run, so ``runs`` and the skip agree.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
from pathlib import Path

import nbformat

from ...config import GradingOptions
from ...course import Assignment

# Settings of the course's config that cannot change a grade or what a student reads: (section, name); a name of
# None is the whole section.  Everything else the config sets is a grading input (allow nothing by default).
NOT_GRADING = {
    ("KitConfig", "jobs"),
    ("KitConfig", "canary_beside"),  # the canary graded beside the first students or before them: the same grades
    ("KitConfig", "hung_grace"),  # how soon a silent grading is presumed hung and graded again: not what it scores
    ("CourseDirectory", "db_url"),
    ("CourseDirectory", "root"),
    ("Exchange", None),
    ("SimilarityConfig", None),
    # how a kernel comes up, forked into its sandbox or started anew: the same sandbox, limits and checks either way
    # (tests/test_forked_kernels.py compares what the two see), and the fallback when forking fails
    ("SandboxedKernelManager", "fork_kernels"),
}
# GradingOptions' recorded fields: not jobs, hung_grace, canary_beside
GRADING_OPTIONS = ("notebook_budget", "cell_timeout", "sandbox", "feedback", "limits")
VERSIONED = ("nbgrader", "nbconvert", "nbclient", "ipykernel", "jupyter_client", "numpy")
KINDS = ("source", "kit", "options", "versions")


def _digest(data) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def graded_cells(path: Path) -> str:
    """The digest of a source notebook's graded and locked cells: each one's type, source and nbgrader metadata
    (points included), in order.  A change to a solution cell or a free text cell does not move it."""
    nb = nbformat.read(str(path), as_version=4)
    cells = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") or meta.get("locked"):
            cells.append([cell.get("cell_type"), cell.get("source", ""), meta])
    return _digest(cells)


def kit_digest() -> str:
    """The kit's version and the digest of its package's files (as the canary takes it: name and bytes)."""
    from importlib.metadata import PackageNotFoundError, version

    from ...grading.canary import digest_files
    from ...sandbox import PACKAGE_DIR

    try:
        found = version("embeddings-autograder")
    except PackageNotFoundError:
        found = "unknown"
    files = sorted(p for p in PACKAGE_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    digest = hashlib.sha256(found.encode() + b"\0")
    digest_files(digest, files, PACKAGE_DIR)
    return f"{found}:{digest.hexdigest()[:16]}"


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "-"
    return found


def course_options(config, grading: GradingOptions) -> dict[str, str]:
    """The run's grading options and the course config's settings (each as text), but :data:`NOT_GRADING`."""
    found = {}
    for name in GRADING_OPTIONS:
        value = getattr(grading, name)
        if dataclasses.is_dataclass(value):  # each notebook's limits: one entry a limit, so a change names it
            found.update({f"grade.{name}.{k}": repr(v) for k, v in dataclasses.asdict(value).items()})
        else:
            found[f"grade.{name}"] = repr(value)
    for section, values in (config or {}).items():
        if (section, None) in NOT_GRADING or not hasattr(values, "items"):
            continue
        for name, value in values.items():
            if (section, name) not in NOT_GRADING:
                found[f"{section}.{name}"] = repr(value)
    return found


def grading_inputs(assignment: Assignment, grading: GradingOptions, config=None) -> dict:
    """Every grading input of ``assignment`` as run with ``grading`` (``config``: the course's nbgrader config,
    by default the one the course reads)."""
    return {
        "source": {p.name: graded_cells(p) for p in sorted(assignment.source_notebooks())},
        "kit": kit_digest(),
        "options": course_options(assignment.course.config if config is None else config, grading),
        "versions": versions(),
    }


def same_inputs(before: dict | None, after: dict) -> bool:
    return bool(before) and all(before.get(kind) == after.get(kind) for kind in KINDS)


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def changes(before: dict | None, after: dict) -> list[str]:
    """The inputs that differ, a few words each: ``source: 03_sinusoidal.ipynb (graded cells)``."""
    if not before:
        return []
    if "kit" not in before:  # recorded by a kit that kept fewer inputs: no part-by-part comparison to make
        return ["every grading input recorded from this run on (the runs before kept fewer)"]
    parts = []
    for kind in KINDS:
        old, new = before.get(kind), after.get(kind)
        if old == new:
            continue
        if kind == "kit":
            parts.append(f"kit {_short(old)} -> {_short(new)}" if old else "kit (not recorded before)")
        elif isinstance(old, dict) and isinstance(new, dict):
            names = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
            if kind == "source":
                parts.append("source: " + ", ".join(f"{n} (graded cells)" for n in names))
            else:
                moved = [f"{n} {_short(old.get(n, '-'))} -> {_short(new.get(n, '-'))}" for n in names]
                parts.append(f"{kind}: " + ", ".join(moved))
        else:
            parts.append(f"{kind} (not recorded before)")
    return parts


def what_changed(before: dict | None, after: dict) -> str:
    if before is None:
        return "first run"
    return "; ".join(changes(before, after)) or "same inputs"
