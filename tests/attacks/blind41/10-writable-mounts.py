# attack: find every place the sandbox can write: each mount point of /proc/self/mountinfo and the host folders it shows (submission, sockets, kit, course)
# breach: a scratch file created (and removed at once) anywhere but /tmp, /dev/shm and /run/kit
# expect: EROFS / EACCES everywhere else (the sandbox's root and all binds read-only)
# run: python3 10-writable-mounts.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


ALLOWED = ("/tmp", "/dev/shm", "/run/kit")
SKIP_FS = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "bpf", "tracefs", "debugfs", "securityfs", "pstore",
           "configfs", "fusectl", "binfmt_misc", "autofs", "efivarfs", "hugetlbfs", "nsfs", "rpc_pipefs", "selinuxfs"}


def main():
    points = []
    for line in open("/proc/self/mountinfo"):
        left_, _, right = line.partition(" - ")
        f, t = left_.split(), right.split()
        if t and t[0] in SKIP_FS:
            continue
        points.append(f[4].replace("\\040", " "))
    extra = ["/", "/etc", "/usr", sys.prefix, sys.base_prefix, os.getcwd(), "/tmp/.kit-submitted", "/root", "/home", "/var/tmp",
             "/var", "/srv", "/opt", "/run", "/dev", "/proc", os.path.dirname(os.environ.get("AUTOGRADER_CHANNEL", "") or "/nonexistent")]
    for a in sys.argv:
        if a.endswith(".json"):
            extra.append(os.path.dirname(a))
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f and "autograder" in f:
            extra.append(os.path.dirname(f))
            break
    seen, writable = set(), []
    for p in points + extra:
        if p in seen or left() < 1:
            continue
        seen.add(p)
        if not os.path.isdir(p):
            continue
        name = os.path.join(p, ".kitattack-%d" % os.getpid())
        try:
            fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            os.close(fd)
            os.unlink(name)
            writable.append(p)
        except OSError:
            pass
    R["places_tried"] = len(seen)
    R["writable"] = ", ".join(writable)[:500]
    bad = [p for p in writable if not any(p == a or p.startswith(a + "/") for a in ALLOWED)]
    if bad:
        R["writable_outside_caps"] = ", ".join(bad)[:400]
        B.append("writable_outside_caps")
    else:
        R["writable_outside_caps"] = "none"


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('10-writable-mounts')
