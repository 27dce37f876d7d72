"""The fork server: a Python with ipykernel, ZMQ and NumPy imported once, that forks each grading kernel
into a sandbox bubblewrap has just built, so a kernel no longer imports them anew.

Run as a program of its own (``python forkserver.py``), never imported by the kit: it imports nothing of
the ``autograder`` package, so no module of the kit's (least of all the hidden checks) is in its memory,
and it runs no student code.  It holds no thread and no ZMQ context, and is never inside a sandbox.

It reads one request per line on stdin (JSON: the global pid of a sandbox's placeholder process, the
kernel's arguments, the cgroup files to join) and answers one line on stdout; each is read by a handler
forked before it arrives (``serve``), so no kernel is a copy of a memory that held another's request.
For each request the handler forks a child that joins the placeholder's cgroup and namespaces (user,
IPC, UTS, network, PID, mount) and its root and working folder, and forks again so that the kernel is
born inside the sandbox's PID namespace.
The kernel then takes the placeholder's environment and resource limits, drops every capability as
bubblewrap drops them, installs the kit's system-call filter (the bytes bubblewrap installed in the
placeholder: the server reads them once, from the file named by its first argument), closes every file
descriptor it inherited, checks that its credentials (capabilities, no_new_privs, filter) are the
placeholder's, gets fresh random seeds, and only then runs ``ipykernel_launcher`` as ``python -m`` would.
It holds the placeholder's pipe open for as long as it lives, so the sandbox ends when the kernel does.
"""

import ctypes
import fcntl
import importlib
import json
import os
import random
import resource
import runpy
import signal
import sys
import threading

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}
NS_GET_USERNS = 0xB701  # ioctl: the user namespace that owns a namespace
NAMESPACES = ("ipc", "uts", "net", "pid", "mnt")  # joined in this order, from their owning user namespace
CREDENTIALS = (
    *("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp"),
    "Seccomp_filters",
)

libc = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


# what a kernel imports as it starts, after the modules above (not ipykernel.debugger: it looks for debugpy), and
# what it imports to show its first traceback (a cell of a stub or of a mistake raises: most notebooks of a class)
LATER = (
    "IPython.core.completerlib",
    "IPython.core.debugger",
    "IPython.core.logger",
    "IPython.core.oinspect",
    "IPython.extensions.storemagic",
    "IPython.utils.wildcard",
    "fractions",
    "numpy.ma",  # (np.unique imports it on first use: three of the course's five notebooks call it)
    "pygments.formatters.terminal256",
    "pygments.styles.default",
    "stack_data",
    "sqlite3",
    "tornado.gen",
    "tornado.locks",
    "tornado.platform.asyncio",
    "tornado.queues",
    "unicodedata",
)


def preload() -> None:
    """What every grading kernel imports before it runs a cell, or to show a traceback; nothing else."""
    sys.modules["debugpy"] = None  # as in the sandbox, where debugpy's folder is empty: no debugger
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import ipykernel.zmqshell  # noqa: F401
    import numpy  # noqa: F401
    import numpy.random  # noqa: F401 - (NumPy imports it on first use)

    for name in LATER:
        importlib.import_module(name)

    del sys.modules["debugpy"]  # a kernel's own ``import debugpy`` finds what the sandbox shows
    transform_once()
    warm_tracebacks()
    if threading.active_count() != 1:
        raise SystemExit("forkserver: a thread started while importing; a fork would not be safe")
    import gc

    gc.collect()
    gc.freeze()  # the imported modules' objects stay out of the children's collections (fewer pages copied)


def warm_tracebacks() -> None:
    """What a kernel's first traceback works out and keeps for the rest of the process, worked out here once for every
    kernel: ``inspect.getmodule``'s map of the imported modules' files (a ``realpath`` of each, some 5,000 ``lstat``
    calls) and the compiled token table of the Python lexer that IPython's highlighting of the failing lines uses
    (about 90 regular expressions).  That is about 40 ms of CPU off each kernel that shows a traceback: a stub's, a
    crash's, most notebooks of a class.  The map holds the module files' paths as resolved outside the sandbox, which
    shows the same files at the same paths; modules imported later are mapped in the kernel, as before."""
    import inspect

    from pygments.lexers import get_lexer_by_name

    inspect.getmodule(warm_tracebacks.__code__)  # a code object: no __module__, so the whole map is built
    get_lexer_by_name("python3")


def transform_once() -> None:
    """Each cell's source is transformed once (IPython's ``%magic``, ``!command`` and ``?help`` syntax), not twice.

    ipykernel transforms a cell to decide how to run it, then IPython's ``run_cell`` transforms the same source
    again (about 23 ms of CPU per notebook of this course).  The first result is kept and given to the next call if
    that call is for the same source; any other call discards it.  A result is kept only from a call made between
    cells: IPython's ``pre_execute`` (before a cell's code runs) and ``post_execute`` (after it) discard it, and a call
    while a cell runs (the student's own) is never kept.  So the second call gets what it would have computed: no code
    runs between the two, and a transform depends only on the source and the shell's state."""
    from IPython.core.interactiveshell import InteractiveShell

    transform = InteractiveShell.transform_cell

    def transform_cell(self, raw_cell):
        memo = self.__dict__.get("_kit_transform")
        if memo is None:
            memo = self.__dict__["_kit_transform"] = {"running": False, "kept": None}
            self.events.register("pre_execute", lambda: memo.update(running=True, kept=None))
            self.events.register("post_execute", lambda: memo.update(running=False, kept=None))
        kept, memo["kept"] = memo["kept"], None
        if kept is not None and kept[0] == raw_cell:
            return kept[1]
        cell = transform(self, raw_cell)
        if not memo["running"]:
            memo["kept"] = (raw_cell, cell)
        return cell

    transform_cell.__doc__ = transform.__doc__
    InteractiveShell.transform_cell = transform_cell


def status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        lines = [line.split(":", 1) for line in f if ":" in line]
    return {k: " ".join(v.split()) for k, v in lines if k in CREDENTIALS}


def environment(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as f:
        items = [item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item]
    return {os.fsdecode(k): os.fsdecode(v) for k, v in items}


with open("/proc/sys/kernel/cap_last_cap") as _f:  # read here: the sandbox shows no /proc/sys
    CAP_LAST_CAP = int(_f.read())


def take_ids(credentials: dict[str, str]) -> None:
    """The placeholder's uid and gid on the machine (``Uid:``/``Gid:`` as the server reads them: never 0, see
    ``identity``), taken in the sandbox's user namespace, which maps them to themselves, before anything else
    is dropped; its supplementary groups were dropped by a server run as root before it left the machine's."""
    uid, gid = (int(credentials[key].split()[0]) for key in ("Uid", "Gid"))
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def drop_capabilities() -> None:
    """As bubblewrap leaves its command: no capability in any set, none to gain back (no_new_privs)."""
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    for cap in range(CAP_LAST_CAP + 1):
        check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"dropping capability {cap} from the bounding set")
    check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clearing ambient capabilities")
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: all zero, both halves
    number = SYS_CAPSET.get(os.uname().machine)
    if number is None:
        raise OSError(f"capset: unknown system call number on {os.uname().machine}")
    check(libc.syscall(number, header, data), "capset")
    # joining a user namespace made the process undumpable, which a kernel started anew is not: its /proc
    # files would then be root's, and the watchdog outside could no longer read its memory use
    check(libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_filter(program: bytes) -> None:
    """The kit's system-call filter (``seccomp.py`` builds it; bubblewrap installed the same bytes in the
    placeholder), for this process and all it starts.  Needs no_new_privs (``drop_capabilities``)."""
    if not program or len(program) % 8:
        raise OSError(f"the system-call filter is {len(program)} bytes, not a BPF program")
    code = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
    check(
        libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "installing the system-call filter"
    )


def check_credentials(mine: dict[str, str], sandbox: dict[str, str]) -> None:
    """The kernel's ids equal the placeholder's, and it has no capability the placeholder lacks (bubblewrap
    run by root leaves its command most of root's; the kernel keeps none)."""
    for key, value in sandbox.items():
        same = value == mine.get(key)
        if key.startswith("Cap"):
            same = int(mine.get(key, "0"), 16) & ~int(value, 16) == 0
        if not same:
            raise OSError(f"the kernel's {key} ({mine.get(key)}) is not the sandbox's ({value})")


def limits(pid: int) -> dict[str, tuple[int, int]]:
    names = [name for name in dir(resource) if name.startswith("RLIMIT_")]
    return {name: resource.prlimit(pid, getattr(resource, name)) for name in names}


def join_user(fd: int, current: int) -> int:
    """Join the user namespace of ``fd`` unless this process is in it already (``current``, an inode)."""
    wanted = os.fstat(fd).st_ino
    if wanted != current:
        check(libc.setns(fd, CLONE_NEWUSER), "joining the sandbox's user namespace")
    return wanted


def enter(placeholder: int, cgroup_files: list[str]) -> dict:
    """Join the sandbox of ``placeholder`` (a global pid): its cgroup, namespaces, root and working folder.
    Returns what the kernel takes on from it: its credentials, environment and resource limits."""
    os.setsid()
    for path in cgroup_files:
        with open(path, "w") as f:
            f.write(str(os.getpid()))
    proc = f"/proc/{placeholder}"
    fds = {ns: os.open(f"{proc}/ns/{ns}", os.O_RDONLY) for ns in ("user", *NAMESPACES)}
    root = os.open(f"{proc}/root", os.O_RDONLY | os.O_DIRECTORY)
    cwd = os.open(f"{proc}/cwd", os.O_RDONLY | os.O_DIRECTORY)
    sandbox = {
        "credentials": status(placeholder),
        "environment": environment(placeholder),
    }
    # bubblewrap may nest user namespaces: the sandbox's namespaces belong to an outer one, in which the
    # placeholder's own (inner) one was made.  Join the owner, then the namespaces, then the inner one.
    if os.geteuid() == 0:  # no supplementary group of root's goes with the kernel (setgroups is root's here only)
        os.setgroups([])
    owner = fcntl.ioctl(fds["ipc"], NS_GET_USERNS)
    current = join_user(owner, os.stat("/proc/self/ns/user").st_ino)
    for ns in NAMESPACES:
        check(libc.setns(fds[ns], 0), f"joining the sandbox's {ns} namespace")
    os.fchdir(root)
    os.chroot(".")
    os.fchdir(cwd)
    join_user(fds["user"], current)  # (the sandbox's /proc shows this process only from its PID namespace)
    take_ids(sandbox["credentials"])  # the kernel's uid, before the child forks it (never 0 on the machine)
    sandbox["rlimits"] = limits(placeholder)  # (read as the placeholder's own user: no CAP_SYS_RESOURCE needed)
    for fd in (*fds.values(), root, cwd, owner):
        os.close(fd)
    return sandbox


def close_inherited(keep: set[int]) -> None:
    """Every file descriptor of the server's (its pipes, anything a library left open) is closed; the
    standard ones read and write /dev/null."""
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    start = 3
    for fd in sorted(keep | {null}):
        if fd > start:  # os.closerange(a, b) with b <= a closes every descriptor from a on
            os.closerange(start, fd)
        start = max(start, fd + 1)
    os.closerange(start, 1 << 20)
    if null not in keep and null > 2:
        os.close(null)


def become_kernel(sandbox: dict, arguments: list[str], alive: str, report: int, program: bytes) -> None:
    """In the sandbox's PID namespace: take on the placeholder's limits, environment and credentials and the
    system-call filter ``program``, then run the kernel.  ``report`` is the pipe to the server: "ok" once the
    kernel is about to start."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()  # as bubblewrap's --new-session: a session of its own, in the sandbox
    pipe = os.open(alive, os.O_WRONLY | os.O_CLOEXEC)  # the placeholder reads it: it ends when we do
    close_inherited({report, pipe})
    for name, (soft, hard) in sandbox["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    drop_capabilities()
    install_filter(program)
    check_credentials(status(os.getpid()), sandbox["credentials"])
    os.environ.clear()
    os.environ.update(sandbox["environment"])
    sys.path.insert(0, os.getcwd())  # as for ``python -m``: the working folder first (ipykernel_launcher removes it)
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()  # the folders' listings were read outside the sandbox
    random.seed()  # (Python reseeds it in a forked child too)
    sys.modules["numpy.random"].seed()  # NumPy's global generator does not: else every kernel would draw the same
    os.write(report, b"ok\n")
    os.close(report)
    sys.argv = ["ipykernel_launcher", *arguments]
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


def fork_kernel(request: dict, program: bytes) -> dict:
    """Fork a kernel into the request's sandbox; the kernel's global pid, or why not."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # never returns: into the sandbox, then once more so the kernel is born in its PID namespace
        code = 70
        try:
            os.close(read)
            sandbox = enter(request["placeholder"], request["cgroup_files"])
            kernel = os.fork()
            if kernel:
                os.write(write, f"pid {kernel}\n".encode())
                code = 0
            else:
                become_kernel(sandbox, request["arguments"], request["alive"], write, program)
                code = 0
        except SystemExit as e:  # the kernel's own end
            code = e.code if isinstance(e.code, int) else 0
        except BaseException as e:  # noqa: BLE001 - told to the server, which falls back
            try:
                os.write(write, f"error {type(e).__name__}: {e}\n".encode())
            except OSError:
                pass
        finally:
            os._exit(code)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 4096):
        chunks.append(chunk)
    os.close(read)
    try:
        os.waitpid(child, 0)
    except ChildProcessError:  # reaped already
        pass
    lines = b"".join(chunks).decode(errors="replace").splitlines()
    pid = next((int(line.split()[1]) for line in lines if line.startswith("pid ")), None)
    errors = [line[6:] for line in lines if line.startswith("error ")]
    if errors or "ok" not in lines or pid is None:
        return {"ok": False, "error": "; ".join(errors) or "the kernel did not start", "pid": pid}
    return {"ok": True, "pid": pid}


END_OF_INPUT = 3  # a handler's exit status when the grading process closed the server's input


def read_request(fd: int = 0) -> bytes | None:
    """One request line from ``fd``, read a byte at a time so that nothing after its newline is taken; None at the
    end of the input."""
    line = bytearray()
    while not line.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            return None
        line += byte
    return bytes(line)


def handle_one(program: bytes) -> int:
    """In a handler, a fresh copy of the server: read one request, fork its kernel, answer.  Its exit status."""
    line = read_request()
    if line is None:
        return END_OF_INPUT
    try:
        answer = fork_kernel(json.loads(line), program)
    except Exception as e:  # noqa: BLE001 - a bad request is answered, the server goes on
        answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    os.write(1, (json.dumps(answer) + "\n").encode())
    return 0


def serve(filter_path: str) -> None:
    """Each request is read, and its kernel forked, by a handler forked from the server before the request
    arrives: the server itself never reads one, so its memory (which every later handler and kernel is a copy of)
    holds nothing of an earlier request, another sandbox's folders and pids.  The server only waits: on its
    handler, and on the kernels whose first parent has left (it is their subreaper), which it reaps."""
    with open(filter_path, "rb") as f:
        program = f.read()  # read once: every kernel gets these bytes
    preload()
    check(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "becoming the kernels' subreaper")
    print(json.dumps({"ready": os.getpid()}), flush=True)
    server = os.getpid()
    while True:
        handler = os.fork()
        if handler == 0:
            code = 70
            try:
                check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "ending with the server")
                if os.getppid() != server:  # the server ended before that
                    return
                code = handle_one(program)
            finally:
                os._exit(code)
        while True:  # reap what ends (the handler, or an orphaned kernel) until the handler has
            pid, code = os.waitpid(-1, 0)
            if pid == handler:
                break
        if os.waitstatus_to_exitcode(code) == END_OF_INPUT:
            return


if __name__ == "__main__":
    del sys.path[0]  # this file's folder is the kit's package: nothing may be imported from there
    serve(sys.argv[1])
