"""Private folders for Unix sockets, whose paths must fit in ``sun_path``.

A Unix socket's path is at most 107 bytes on Linux.  The kit makes its sockets (the checker's, a
sandboxed kernel's ZMQ ones) in a fresh folder of the temporary directory; where ``TMPDIR`` is deep
(a CI runner's work folder, a test's scratch folder) their paths no longer fit, the socket cannot be
bound, and no student could be graded.  Such a folder is then made under ``/tmp`` instead.
"""

from __future__ import annotations

from pathlib import Path

from ..scratch import FIXED, private_folder

SUN_PATH_ROOM = 107  # bytes of a socket's path (sun_path is 108, with its closing NUL)


def socket_folder(kind: str, longest_name: int) -> Path:
    """A new private folder (mode 0700, :func:`autograder.scratch.private_folder`'s ``kind``) in which sockets named
    up to ``longest_name`` characters fit."""
    folder = private_folder(kind)
    if len(str(folder).encode()) + 1 + longest_name <= SUN_PATH_ROOM:
        return folder
    folder.rmdir()
    return private_folder(kind, FIXED)
