"""Faults of the kit's own side while grading one student, told apart from the student's.

A student's grade must never carry a fault of the machinery: a full disk, a gradebook that cannot be
written, a grading kernel that cannot start (the sandbox, the kernelspec), an error raised by the
kit's own code.  Such a grading ends with status ``error`` (:class:`~autograder.grading.results.Status`):
no grade is recorded, and the next run grades the student again.  What the student's code does
inside its kernel (dies, hangs, breaks its imports) stays the student's.
"""

from __future__ import annotations

import errno


class KitFault(RuntimeError):
    """The kit's own side failed: whatever was being graded gets no grade from it."""


DISK_FULL = ("No space left on device", "database or disk is full", "Disk quota exceeded")
# nbgrader's log of a converter that failed, and what it means on the kit's side
KIT_SIDE = {  # the first that a log shows is told (a kernel killed three times may also not have started)
    "KitKernelDeath": "the grading kernel was killed on the kit's side (its fork server or its sandbox's placeholder "
    "died) on every try",
    "Kernel died before replying to kernel_info": "the grading kernel did not start (the sandbox or the kernelspec)",
    "Kernel didn't respond in": "the grading kernel did not start (the sandbox or the kernelspec)",
    "No such kernel named": "the notebook's kernelspec is not installed for grading",
    "OperationalError": "the gradebook could not be written",
    "the checker's channel could not be opened": "the checker's channel could not be opened",
}


DRIVERS = ("sqlalchemy", "sqlite3", "psycopg", "psycopg2")  # their errors' text is SQL, parameters and links


def from_driver(error: BaseException) -> bool:
    """Whether ``error`` is the database driver's (SQLAlchemy's, sqlite3's, psycopg's): its text is not for the terminal."""
    return type(error).__module__.split(".")[0] in DRIVERS


def disk_full(text: str) -> bool:
    return any(marker in text for marker in DISK_FULL)


def kit_fault(text: str) -> str | None:
    """The kit-side fault a failed grading's log or error shows, in words; None when it shows none."""
    if disk_full(text):
        return "the disk holding the course is full (No space left on device)"
    return next((words for marker, words in KIT_SIDE.items() if marker in text), None)


def exception_fault(error: BaseException) -> str:
    """An exception raised by the kit's own grading code, in words."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk holding the course is full ({error.strerror}: {error.filename or ''})".replace(": )", ")")
    words = kit_fault(f"{type(error).__name__}: {error}")
    if words is None and from_driver(error):  # never the driver's SQL and parameters
        words = f"the gradebook could not be read or written ({type(error).__name__})"
    return words or f"the kit's grading raised {type(error).__name__}: {str(error)[:300]}"
