# attack: descriptors the kernel holds that came from outside: directory fds whose `..` climbs out of the sandbox's root, host files open for writing, the placeholder's pipe
# breach: a directory descriptor leads above the sandbox's root, or a descriptor writes to a file on a mount the sandbox does not show
# expect: only the kernel's own sockets, pipes, /dev/null and the `alive` pipe; no way out through /proc/self/fd
# run: python3 11-inherited-fds.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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
    root = os.stat("/")
    mounts = set()
    for line in open("/proc/self/mountinfo"):
        mounts.add(line.split()[0])
    info, escaped, foreign = [], [], []
    for fd in sorted(int(x) for x in os.listdir("/proc/self/fd")):
        try:
            target = os.readlink("/proc/self/fd/%d" % fd)
            st = os.fstat(fd)
        except OSError:
            continue
        fields = {}
        try:
            for l in open("/proc/self/fdinfo/%d" % fd):
                k, _, v = l.partition(":")
                fields[k] = v.strip()
        except OSError:
            pass
        kind = "dir" if stat.S_ISDIR(st.st_mode) else "reg" if stat.S_ISREG(st.st_mode) else "fifo" if stat.S_ISFIFO(st.st_mode) \
            else "sock" if stat.S_ISSOCK(st.st_mode) else "chr" if stat.S_ISCHR(st.st_mode) else "other"
        info.append("%d:%s:%s" % (fd, kind, target[:60]))
        flags = int(fields.get("flags", "0"), 8)
        if fields.get("mnt_id") and fields["mnt_id"] not in mounts and kind in ("reg", "dir"):
            foreign.append("%d:%s:%s" % (fd, kind, "w" if flags & 3 else "r"))
        if kind == "dir":
            cur = os.open("/proc/self/fd/%d" % fd, os.O_RDONLY | os.O_DIRECTORY)
            for _ in range(40):
                s = os.fstat(cur)
                if (s.st_dev, s.st_ino) == (root.st_dev, root.st_ino):
                    break
                up = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=cur)
                s2 = os.fstat(up)
                os.close(cur)
                cur = up
                if (s2.st_dev, s2.st_ino) == (s.st_dev, s.st_ino):
                    escaped.append("%d:%s" % (fd, target))
                    break
            os.close(cur)
    R["fds"] = "; ".join(info)[:600]
    R["dir_fd_escapes_root"] = ", ".join(escaped) if escaped else "none"
    if escaped:
        B.append("dir_fd_escapes_root")
    R["fds_on_unseen_mounts"] = ", ".join(foreign) if foreign else "none"
    if any(x.endswith(":w") for x in foreign):
        B.append("fds_on_unseen_mounts")

    def alive():
        for a in sys.argv:
            if a.endswith("connection.json"):
                p = os.path.join(os.path.dirname(a), "alive")
                fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
                return "ok: reopened the placeholder's pipe for writing (a child holding it outlives the kernel's death)"
        raise FileNotFoundError(errno.ENOENT, "no connection file")

    probe("alive_pipe_reopen", alive)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('11-inherited-fds')
