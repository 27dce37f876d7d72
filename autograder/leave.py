"""How ``python -m autograder`` ends: as Python's own exit does, without tearing down what it imported.

Python's exit waits for the non-daemon threads (and what they registered with ``threading``, such as a process
pool's shut-down), runs the ``atexit`` handlers and flushes the standard streams; then it frees every module and
object one by one.  After a command that imported nbgrader that last step alone is about 0.25 s of CPU, for memory the
system takes back at once.  :func:`leave` does the first three, as Python does them, and then ends the process.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import traceback


def exit_code(status) -> int:
    """``sys.exit``'s meaning of ``status``: None is 0, an int is itself, anything else is printed and is 1."""
    if status is None:
        return 0
    if isinstance(status, int):
        return status
    print(status, file=sys.stderr)
    return 1


def leave(status) -> None:
    """End the process with ``status`` (as ``sys.exit(status)``), skipping only the interpreter's teardown."""
    code = exit_code(status)
    shutdown = getattr(threading, "_shutdown", None)  # Python's own first step of its exit
    if shutdown is None:  # (a Python without it: its ordinary exit)
        sys.exit(code)
    try:
        shutdown()
    except Exception:  # noqa: BLE001 - as Python's exit: the error printed, the status kept
        print(f"Exception ignored in: {threading!r}", file=sys.stderr)
        traceback.print_exc()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`), a closed stream: as Python's exit ignores them
            code = code or 120
    os._exit(code)
