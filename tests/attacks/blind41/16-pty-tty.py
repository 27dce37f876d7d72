# attack: terminals: the machine-wide pty pool shared by every devpts instance, host pts nodes, /dev/console, a controlling terminal to inject keystrokes (TIOCSTI)
# breach: a host pts or the console opened, TIOCSTI into a terminal outside, or the shared pty pool exhaustible from one sandbox (max_processes x max_open_files >= pty/max - pty/reserve)
# expect: a private devpts instance, no console, no controlling terminal, TIOCSTI refused
# run: python3 16-pty-tty.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


import fcntl, termios


def rd(p):
    return int(open(p).read().strip())


def main():
    probe("pts_entries", lambda: ",".join(sorted(os.listdir("/dev/pts")))[:200])
    ours = set()

    def host_pts():
        opened = []
        for n in os.listdir("/dev/pts"):
            if not n.isdigit():
                continue
            try:
                fd = os.open("/dev/pts/" + n, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)  # opened, never written
                os.close(fd)
                opened.append(n)
            except OSError:
                pass
        return (len(opened) > 0, "opened existing pts: %s" % (",".join(opened) or "none"))

    probe("existing_pts_open", host_pts)
    for dev in ("/dev/console", "/dev/tty0", "/dev/tty1", "/dev/ttyS0", "/dev/hvc0"):
        def o(dev=dev):
            fd = os.open(dev, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
            os.close(fd)
            return (True, "opened (never written)")
        probe("open_" + dev.replace("/dev/", ""), o)

    def ctty():
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        os.close(fd)
        return (True, "a controlling terminal")

    probe("controlling_tty", ctty)
    probe("std_fds_isatty", lambda: ",".join(str(int(os.isatty(i))) for i in (0, 1, 2)))
    probe("legacy_tiocsti", lambda: open("/proc/sys/dev/tty/legacy_tiocsti").read().strip())

    def tiocsti_own():
        m, s = os.openpty()
        try:
            fcntl.ioctl(s, termios.TIOCSTI, b"\n")  # into our own new pty only
            return "ok on an own pty"
        finally:
            os.close(m)
            os.close(s)

    probe("tiocsti_own_pty", tiocsti_own)

    def pool():
        before = rd("/proc/sys/kernel/pty/nr")
        fds = []
        try:
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
            for _ in range(min(60, max(0, (soft - 40) // 2))):
                fds += list(os.openpty())
            during = rd("/proc/sys/kernel/pty/nr")
        finally:
            for f in fds:
                os.close(f)
        n = len(fds) // 2
        room = rd("/proc/sys/kernel/pty/max") - rd("/proc/sys/kernel/pty/reserve")
        shared = during - before >= n > 0
        reach = 64 * max(1, (resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 20) // 2)
        return (shared and reach >= room, "opened %d ptys, machine-wide counter +%d; pool for new instances %d, one sandbox can hold ~%d"
                % (n, during - before, room, reach))

    probe("pty_pool_shared_exhaustible", pool)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('16-pty-tty')
