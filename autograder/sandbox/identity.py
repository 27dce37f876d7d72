"""Whose a grading kernel is on the machine: never uid 0.

When an unprivileged user grades, every kernel is that user (bubblewrap's user namespace maps that user to
itself).  When root grades, every kernel is an unprivileged uid and gid of the kit's choosing,
``c.KernelUser.uid`` / ``c.KernelUser.gid`` (65530 by default: Debian's reserved range 65000-65533, no
account, owns no file of the machine's; pick another that owns none where 65530 is taken), with no
supplementary groups.  Root switches to it before bubblewrap starts (``setpriv``), so bubblewrap itself runs
unprivileged and its user namespace maps only that uid; a forked kernel takes it (``forkserver.take_ids``)
before it drops anything else.  The folders the kit makes for one kernel (its connection file, the copy of the
submission, the checker's socket folder, the public package) are opened to that gid (``hand_over``), the
grader staying their owner.

Root keeps, without any capability, what its uid owns: files only root may read, ``/proc/sys`` and the rest
of the kernel's writable files.  A kernel that is not uid 0 on the machine has none of that.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from traitlets import Int
from traitlets.config import Configurable

DEFAULT_ID = 65530


class KernelUser(Configurable):
    """The machine's uid and gid of every grading kernel when root grades (``c.KernelUser.uid``)."""

    uid = Int(
        DEFAULT_ID,
        help="uid every grading kernel runs as when root grades (never 0; one that owns no file of the machine's).",
    ).tag(config=True)
    gid = Int(DEFAULT_ID, help="gid every grading kernel runs as when root grades (never 0).").tag(config=True)


class KernelUserInvalid(ValueError):
    pass


def kernel_ids(config=None) -> tuple[int, int] | None:
    """(uid, gid) the kernels switch to, when root grades; None when the grader is not root (the kernels
    are the grader)."""
    if os.geteuid() != 0:
        return None
    chosen = KernelUser(config=config) if config is not None else KernelUser()
    if chosen.uid <= 0 or chosen.gid <= 0:
        raise KernelUserInvalid(
            f"c.KernelUser.uid/gid is {chosen.uid}/{chosen.gid}: a grading kernel is never uid or gid 0 on the machine"
        )
    return chosen.uid, chosen.gid


def as_kernel_user(cmd: list[str], ids: tuple[int, int] | None) -> list[str]:
    """``cmd`` run as ``ids`` with no supplementary groups (``setpriv``, util-linux), when root grades."""
    if ids is None:
        return cmd
    setpriv = shutil.which("setpriv")
    if not setpriv:
        raise KernelUserInvalid(
            "grading as root needs setpriv (util-linux) to run every kernel as an unprivileged user "
            "(c.KernelUser.uid); install util-linux, or grade as an unprivileged user"
        )
    uid, gid = ids
    return [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--", *cmd]


def hand_over(ids: tuple[int, int] | None, *paths: Path) -> None:
    """The kernel's own folders (and everything in them) are opened to the kernel's group, so that bubblewrap,
    run as the kernel user, can mount them and the kernel read them (and connect to their sockets, open their
    pipes): the grader stays their owner, and the kernel user owns no file of the machine's.  Nothing when the
    grader is the kernel's user."""
    if ids is None:
        return
    for path in paths:
        for item in [path, *(Path(f) / n for f, ds, fs in os.walk(path) for n in ds + fs)]:
            st = os.lstat(item)
            if stat.S_ISLNK(st.st_mode):
                continue
            extra = (
                0o050
                if stat.S_ISDIR(st.st_mode)
                else 0o060
                if stat.S_ISSOCK(st.st_mode) or stat.S_ISFIFO(st.st_mode)
                else 0o040
            )
            os.chown(item, -1, ids[1], follow_symlinks=False)
            os.chmod(item, stat.S_IMODE(st.st_mode) | extra)


BINDS = ("--ro-bind", "--bind", "--ro-bind-try", "--bind-try")


def reachable(path: str, ids: tuple[int, int]) -> bool:
    """Whether the uid/gid ``ids`` (no supplementary groups) may reach ``path`` and read it, by its mode bits."""
    uid, gid = ids

    def may(st: os.stat_result, bits: int) -> bool:  # bits: of "others" (r=4, x=1)
        shift = 6 if st.st_uid == uid else 3 if st.st_gid == gid else 0
        return (st.st_mode >> shift) & bits == bits

    real = Path(os.path.realpath(path))
    try:
        if not all(may(os.stat(folder), 1) for folder in real.parents):
            return False
        st = os.stat(real)
    except OSError:
        return True  # bubblewrap reports a missing source itself
    return may(st, 5 if stat.S_ISDIR(st.st_mode) else 4)


_stage: list[Path] = []


def stage_unreachable(cmd: list[str], ids: tuple[int, int] | None) -> list[str]:
    """``cmd`` (bubblewrap's, run as ``ids``) with every bind source the kernel user cannot reach (a Python
    installed under ``/root``, mode 0700) mounted first, as root, in a private mount namespace, on an empty
    folder anyone may enter (``kit-stage-*``, made once per process): bubblewrap then binds it from there.
    Nothing is mounted on the machine's own mount namespace."""
    if ids is None:
        return cmd
    out, pairs = list(cmd), []
    for at, arg in enumerate(cmd[:-1]):
        if arg in BINDS and not reachable(cmd[at + 1], ids):
            if not _stage:
                import atexit

                from ..scratch import FIXED, private_folder

                _stage.append(private_folder("stage", FIXED))
                os.chmod(_stage[0], 0o755)
                atexit.register(shutil.rmtree, _stage[0], True)
            source = cmd[at + 1]
            target = _stage[0] / str(len(pairs))
            if os.path.isdir(source):
                target.mkdir(exist_ok=True)
            else:
                target.touch(exist_ok=True)
            out[at + 1] = str(target)
            pairs += [source, str(target)]
    if not pairs:
        return cmd
    script = 'while [ "$1" != -- ]; do mount --bind "$1" "$2" || exit 95; shift 2; done; shift; exec "$@"'
    unshare = shutil.which("unshare") or "unshare"
    return [unshare, "-m", "--propagation", "private", "/bin/sh", "-c", script, "kit-stage", *pairs, "--", *out]
