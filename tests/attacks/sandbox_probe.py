# The sandbox audit: what this kernel holds and may do, printed as one line of JSON.  Every attempt
# answers "ok" if the call succeeded, else the error's name; nothing should answer "ok".
import ctypes as _ct
import errno as _errno
import json as _json
import os as _os
import re as _re
import signal as _signal
import stat as _stat
import sys as _sys

_libc = _ct.CDLL(None, use_errno=True)
_libc.syscall.restype = _ct.c_long
_NR = {
    "x86_64": {"add_key": 248, "keyctl": 250, "clone": 56, "clone3": 435, "userfaultfd": 323},
    "aarch64": {"add_key": 217, "keyctl": 219, "clone": 220, "clone3": 435, "userfaultfd": 282},
}[_os.uname().machine]
_CLONE_NEWUSER, _USER_KEYRING = 0x10000000, -4


def _answer(result):
    if result >= 0:
        return "ok"
    return _errno.errorcode.get(_ct.get_errno(), str(_ct.get_errno()))


def _in_child(call):
    """Run ``call`` (a libc call returning -1 on error) in a forked child, which then exits at once."""
    _ct.set_errno(0)
    child = _os.fork()
    if child == 0:
        code = 0 if call() >= 0 else (_ct.get_errno() or 255)
        _os._exit(code)
    _, status = _os.waitpid(child, 0)
    code = _os.waitstatus_to_exitcode(status)
    return "ok" if code == 0 else _errno.errorcode.get(code, f"exit {code}")


def _add_key():
    key = _libc.syscall(_NR["add_key"], b"user", b"kit-audit", b"x", 1, _ct.c_long(_USER_KEYRING))
    answer = _answer(key)
    if key >= 0:  # take it out again
        _libc.syscall(_NR["keyctl"], 21, _ct.c_long(key))
    return answer


def _mknod():
    """A device node for the disk /usr is on: mounted, it would show the whole machine."""
    path = "/tmp/.kit-audit-disk"
    try:
        _os.mknod(path, _stat.S_IFBLK | 0o600, _os.stat("/usr").st_dev)
    except OSError as e:
        return _errno.errorcode.get(e.errno, str(e.errno))
    _os.unlink(path)
    return "ok"


def _mount():
    _os.makedirs("/tmp/.kit-audit-mount", exist_ok=True)
    answer = _answer(_libc.mount(b"none", b"/tmp/.kit-audit-mount", b"tmpfs", 0, None))
    if answer == "ok":
        _libc.umount2(b"/tmp/.kit-audit-mount", 2)
    _os.rmdir("/tmp/.kit-audit-mount")
    return answer


def _ptrace():
    """Attach to a process of our own (a child waiting on a pipe)."""
    read, write = _os.pipe()
    child = _os.fork()
    if child == 0:
        _os.read(read, 1)
        _os._exit(0)
    _ct.set_errno(0)
    answer = _answer(_libc.ptrace(16, child, None, None))  # PTRACE_ATTACH
    _os.kill(child, _signal.SIGKILL)
    _os.waitpid(child, 0)
    _os.close(read), _os.close(write)
    return answer


def _clone_newuser():
    _ct.set_errno(0)
    child = _libc.syscall(_NR["clone"], _ct.c_long(_CLONE_NEWUSER | _signal.SIGCHLD), None, None, None, None)
    if child == 0:
        _os._exit(0)
    answer = _answer(child)
    if child > 0:
        _os.waitpid(child, 0)
    return answer


def _writable_places(mounts):
    """Every mount point a file can be created in, with its file system and size in MiB."""
    places = {}
    for point, fstype in mounts:
        probe = _os.path.join(point, ".kit-audit-write")
        try:
            _os.close(_os.open(probe, _os.O_CREAT | _os.O_EXCL | _os.O_WRONLY, 0o600))
        except OSError:
            continue
        _os.unlink(probe)
        st = _os.statvfs(point)
        places[point] = f"{fstype} {st.f_blocks * st.f_frsize // 2**20} MiB"
    return places


def _mounts():
    found = []
    for line in open("/proc/self/mountinfo"):
        left, _, right = line.partition(" - ")
        point = left.split()[4].replace("\\040", " ")
        found.append((point, right.split()[0], "rw" if "rw" in left.split()[5].split(",") else "ro"))
    return found


def _named(point, fstype, mode):
    """A mount point in words that do not change from one grading to the next (its random folder names)."""
    import importlib.util

    kit = importlib.util.find_spec("autograder")
    package = _os.path.dirname(kit.origin) if kit and kit.origin else None
    known = {
        _sys.prefix: "<the Python environment>",
        _sys.base_prefix: "<the Python installation>",
        package: "<the kit's package>",
        package and _os.path.dirname(package): "<the kit's folder>",
    }
    if point in known:
        return known[point]
    try:
        empty = fstype == "tmpfs" and mode == "ro" and _os.listdir(point) == []
    except OSError:
        empty = False
    if empty:  # the covers of the course, of the kit's development tools, of debugpy
        return "<an empty folder>"
    for tmpdir in (_os.environ.get("TMPDIR", "").rstrip("/"), "/tmp"):  # the kit's folders on the host
        if tmpdir and point.startswith(tmpdir + "/kit-"):
            point = "$TMPDIR" + point[len(tmpdir) :]
    return _re.sub(r"kit-([a-z]+)-[A-Za-z0-9_.-]+", r"kit-\1-*", point)


def _opens(path, flags):
    try:
        _os.close(_os.open(path, flags | _os.O_NONBLOCK | _os.O_NOCTTY))
        return True
    except OSError:
        return False


def _files(top, skip=()):
    """Every regular file under ``top`` (not following links), but under ``skip``."""
    todo = [top]
    while todo:
        folder = todo.pop()
        try:
            entries = list(_os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.path in skip:
                continue
            if entry.is_dir(follow_symlinks=False):
                todo.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                yield entry.path


def _settings_writable():
    """Files of the kernel's settings and of the machine's devices that open for writing (the first 20)."""
    found = [p for top in ("/proc/sys", "/sys") for p in _files(top) if _opens(p, _os.O_WRONLY)]
    return sorted(found)[:20]


def _private_readable():
    """Files of the machine that others may not read and that open for reading (the first 20): what root reads
    without any capability.  The sandbox's own places are left out: its processes in /proc, its tmpfs mounts."""
    own = {f"/proc/{name}" for name in _os.listdir("/proc") if name.isdigit() or name in ("self", "thread-self")}
    found = []
    for path in _files("/", skip=own | {"/dev/pts", "/tmp", "/dev/shm", "/run/kit"}):
        try:
            st = _os.lstat(path)
        except OSError:
            continue
        if not st.st_mode & 0o004 and _opens(path, _os.O_RDONLY):
            found.append(path)
    return sorted(found)[:20]


def _families(high):
    """The socket families (0-63) a socket can be made in, with ``high`` set in the 64-bit argument too."""
    nr = {"x86_64": 41, "aarch64": 198}[_os.uname().machine]
    made = []
    for family in range(64):
        for kind in (1, 2, 3, 5):  # SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET
            fd = _libc.syscall(nr, _ct.c_long(family | high), kind, 0)
            if fd >= 0:
                _os.close(fd)
                made.append(family)
                break
    return made


_status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
_mounted = _mounts()
_report = {
    "capabilities": {k: _status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
    "no_new_privs": _status["NoNewPrivs"].strip(),
    "seccomp": _status["Seccomp"].strip(),
    "seccomp_filters": _status.get("Seccomp_filters", "?").strip(),
    "attempts": {
        "add_key": _add_key(),
        "keyctl": _answer(_libc.syscall(_NR["keyctl"], 0, _ct.c_long(_USER_KEYRING), 0)),  # KEYCTL_GET_KEYRING_ID
        "mount": _mount(),
        "mknod": _mknod(),
        "ptrace": _ptrace(),
        "unshare": _in_child(lambda: _libc.unshare(_CLONE_NEWUSER)),
        "clone(CLONE_NEWUSER)": _clone_newuser(),
        "setns": _answer(_libc.setns(_os.open("/proc/self/ns/net", _os.O_RDONLY), 0)),
        "chroot": _in_child(lambda: _libc.chroot(b"/tmp")),
        "userfaultfd": _answer(_libc.syscall(_NR["userfaultfd"], 0)),
        "personality(ADDR_NO_RANDOMIZE)": _in_child(lambda: _libc.personality(0x0040000)),
    },
    # its ids in its user namespace (the machine's view, /proc/<pid>/status outside, is the tests' to read)
    "ids": {k: _status[k].split()[0] for k in ("Uid", "Gid")} | {"Groups": _status["Groups"].strip()},
    "settings_writable": _settings_writable(),
    "private_readable": _private_readable(),
    "socket_families": {"plain": _families(0), "high bits": _families(1 << 32)},
    "mounts": sorted({f"{_named(*mount)} {mount[1]} {mount[2]}" for mount in _mounted}),
    "writable": {_named(p, "", "rw"): what for p, what in _writable_places([(p, f) for p, f, _ in _mounted]).items()},
}
_text = _json.dumps(_report, sort_keys=True)
print("sandbox-report:", _text)
# where only the test results come back (check --thorough, Gradescope), every test names the report's digest
_digest = __import__("hashlib").sha256(_text.encode()).hexdigest()[:16]


class Embedding:
    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"sandbox-report {_digest}")
