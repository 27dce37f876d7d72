# attack: per-user kernel quotas that a user namespace charges to the same uid outside (inotify instances and watches): one sandbox graded by root uses up root's quota machine-wide
# breach: inotify_init fails on the per-user quota (EMFILE below our own descriptor limit) while the sandbox holds them: every other process of that uid (the grader, systemd, other sandboxes) is refused meanwhile
# expect: a quota of the sandbox's own (a user namespace with its own limits) that is not the host uid's, or far above what one sandbox can hold
# run: python3 17-inotify-quota.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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
    libc.inotify_init1.restype = ctypes.c_int
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    R["rlimit_nofile"] = soft
    for p in ("/proc/sys/fs/inotify/max_user_instances", "/proc/sys/user/max_inotify_instances", "/proc/sys/fs/inotify/max_user_watches"):
        try:
            R[p.split("/")[-1] + ("_userns" if "/user/" in p else "")] = open(p).read().strip()
        except OSError as e:
            R[p.split("/")[-1]] = _en(e)
    fds, why = [], "limit of this probe (150)"
    try:
        for _ in range(150):
            fd = libc.inotify_init1(os.O_CLOEXEC)
            if fd < 0:
                why = _en(OSError(ctypes.get_errno(), ""))
                break
            fds.append(fd)
        opened = len(os.listdir("/proc/self/fd"))
    finally:
        for fd in fds:
            os.close(fd)  # held for a few milliseconds only
    R["inotify_instances_taken"] = "%d, then %s (with %d descriptors open)" % (len(fds), why, opened)
    if why == "EMFILE" and opened < soft - 2:
        B.append("inotify_instances_taken")

    def watches():
        fd = libc.inotify_init1(os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "")
        n = 0
        try:
            paths = [p for p in ("/usr", "/etc", "/usr/lib", "/usr/bin", sys.prefix, os.path.dirname(os.__file__)) if os.path.isdir(p)]
            for p in paths:
                if libc.inotify_add_watch(fd, p.encode(), 0x100 | 0x200 | 0x2) >= 0:  # CREATE|DELETE|MODIFY
                    n += 1
        finally:
            os.close(fd)
        return "watched %d host folders (their activity is visible from the sandbox)" % n

    probe("inotify_watch_host_folders", watches)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('17-inotify-quota')
