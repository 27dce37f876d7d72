# attack: what a process may still do to the sandbox's PID 1 (the placeholder whose death is the kit's) beyond signals: rlimits, priority, affinity, pidfd, its /proc folder, the pipe it reads
# breach: PID 1's limits changed (even to their own value), its /proc folder readable or writable, or a pidfd signal delivered
# expect: prlimit EPERM (filter), /proc/1 an empty read-only folder, signals ignored; renice / affinity of PID 1 to its own value harmless
# run: python3 25-pid1-reach.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

import os, sys, json, errno, time, ctypes, signal, socket, struct, stat, re, resource, select, glob, warnings
warnings.filterwarnings("ignore")
_T0 = time.monotonic()
R, B = {}, []
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def _en(e):
    if isinstance(e, OSError) and e.errno:
        return "absent" if e.errno == errno.ENOENT else errno.errorcode.get(e.errno, "E%d" % e.errno)
    return type(e).__name__


def sysc(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if r == -1:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def probe(name, fn):
    """fn() -> value, or (harmed, value); records 'ok' / the value / the errno name."""
    try:
        out = fn()
    except KeyboardInterrupt:
        R[name] = "interrupted"
        return None
    except BaseException as e:  # noqa: BLE001
        R[name] = _en(e)
        return None
    harmed = False
    if isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], bool):
        harmed, out = out
    R[name] = "ok" if out is None else (out if isinstance(out, (int, float, bool)) else str(out)[:300])
    if harmed:
        B.append(name)
    return out


def left(total=8.5):
    return total - (time.monotonic() - _T0)


def in_child(fn, timeout=2.0):
    """fn() in a forked child; its result as a string ('!ENAME' if it raised, 'died:<status>' if it died)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            try:
                out = str(fn())
            except BaseException as e:  # noqa: BLE001
                out = "!" + _en(e)
            os.write(w, out.encode()[:4000])
        finally:
            os._exit(0)
    os.close(w)
    data, end = b"", time.monotonic() + timeout
    while time.monotonic() < end:
        rd, _, _ = select.select([r], [], [], max(0.0, end - time.monotonic()))
        if not rd:
            break
        chunk = os.read(r, 4096)
        if not chunk:
            break
        data += chunk
    os.close(r)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    status = 0
    try:
        status = os.waitpid(pid, 0)[1]
    except OSError:
        pass
    return data.decode(errors="replace") if data else "died:%d" % status


def child_probe(name, fn, timeout=2.0):
    """probe() of fn run in a child: 'ok...' results are breaches, '!E..' errors."""
    out = in_child(fn, timeout)
    if out.startswith("!"):
        R[name] = out[1:]
    elif out.startswith("died:"):
        R[name] = out
    else:
        R[name] = out[:300]
        if out.startswith("ok"):
            B.append(name)
    return out


def finish(attack):
    print("KITATTACK " + json.dumps({"attack": attack, "results": R, "breached": B}, default=str), flush=True)


def main():
    probe("kill_0", lambda: (os.kill(1, 0), "exists")[1])

    def prl():
        old = (ctypes.c_uint64 * 2)()
        sysc(302, 1, 0, 0, old)  # RLIMIT_CPU, read only
        same = (ctypes.c_uint64 * 2)(old[0], old[1])
        sysc(302, 1, 0, same, 0)  # written back unchanged
        return (True, "RLIMIT_CPU of PID 1 written (its own value)")

    probe("prlimit_cpu_pid1_same", prl)

    def nice():
        cur = os.getpriority(os.PRIO_PROCESS, 1)
        os.setpriority(os.PRIO_PROCESS, 1, cur)
        return "setpriority(PID 1, its own %d)" % cur

    probe("setpriority_pid1_same", nice)

    def aff():
        cur = os.sched_getaffinity(1)
        os.sched_setaffinity(1, cur)
        return "sched_setaffinity(PID 1, its own)"

    probe("affinity_pid1_same", aff)

    def pidfd():
        fd = sysc(434, 1, 0)  # pidfd_open
        try:
            sysc(424, fd, 0, 0, 0)  # pidfd_send_signal(sig 0)
            return "pidfd opened, signal 0 accepted"
        finally:
            os.close(fd)

    probe("pidfd_pid1", pidfd)
    probe("proc1_entries", lambda: (len(os.listdir("/proc/1")) > 0, "%d entries" % len(os.listdir("/proc/1"))))

    def proc1_write():
        p = "/proc/1/.kitattack"
        os.close(os.open(p, os.O_CREAT | os.O_WRONLY))
        os.unlink(p)
        return (True, "wrote into /proc/1")

    probe("proc1_write", proc1_write)

    def via_task():
        for base in ("/proc/self/task/../../1", "/proc/thread-self/../../1"):
            try:
                n = os.listdir(base)
                if n:
                    return (True, "%s lists %d entries" % (base, len(n)))
            except OSError:
                pass
        return "empty"

    probe("proc1_other_paths", via_task)

    def children_of_1():
        return open("/proc/self/stat").read().rsplit(")", 1)[1].split()[1]

    probe("my_ppid", children_of_1)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('25-pid1-reach')
