# attack: the file-count limit reads only /tmp's inode count: make names elsewhere (/dev/shm, whose tmpfs caps bytes, not inodes) and hard links in /tmp (a link is no new inode)
# breach: more than max_files (10000) names made that the limit does not see
# expect: ENOSPC / the notebook stopped at the file limit, or a small inode cap on /dev/shm
# run: python3 19-files-outside-count.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


N = 10500


def make_many(folder, fn):
    os.makedirs(folder, exist_ok=True)
    made = 0
    try:
        for i in range(N):
            if left() < 3:
                break
            fn(os.path.join(folder, "f%05d" % i))
            made += 1
    except OSError as e:
        R[os.path.basename(folder) + "_stopped"] = _en(e)
    return made


def cleanup(folder):
    try:
        for n in os.listdir(folder):
            try:
                os.unlink(os.path.join(folder, n))
            except OSError:
                pass
        os.rmdir(folder)
    except OSError:
        pass


def main():
    def shm():
        st0 = os.statvfs("/tmp")
        d = "/dev/shm/.kitattack-%d" % os.getpid()
        try:
            made = make_many(d, lambda p: os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o600)))
            shm = os.statvfs("/dev/shm")
            st1 = os.statvfs("/tmp")
        finally:
            cleanup(d)
        grew = (st1.f_files - st1.f_ffree) - (st0.f_files - st0.f_ffree)
        return (made >= 10001 and grew < 100, "%d files in /dev/shm (its inode cap %d), /tmp inode count +%d" % (made, shm.f_files, grew))

    probe("dev_shm_files", shm)

    def links():
        d = "/tmp/.kitattack-links-%d" % os.getpid()
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "src")
        open(src, "w").close()
        st0 = os.statvfs("/tmp")
        try:
            made = make_many(os.path.join(d, "l"), lambda p: os.link(src, p))
            st1 = os.statvfs("/tmp")
        finally:
            cleanup(os.path.join(d, "l"))
            cleanup(d)
        grew = (st1.f_files - st1.f_ffree) - (st0.f_files - st0.f_ffree)
        return (made >= 10001 and grew < 100, "%d hard links in /tmp, inode count +%d" % (made, grew))

    probe("tmp_hard_links", links)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('19-files-outside-count')
