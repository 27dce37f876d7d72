# attack: take the CPU from the machine: real-time scheduling (SCHED_FIFO / SCHED_DEADLINE), negative nice, real-time I/O priority, allowed by inherited RLIMIT_RTPRIO / RLIMIT_NICE or the uid
# breach: a process of the sandbox becomes real-time or higher-priority than the grader (it could starve both cores, the watchdog and the budget timer); each try is in a child that exits at once
# expect: EPERM for each (no CAP_SYS_NICE, RLIMIT_RTPRIO and RLIMIT_NICE 0)
# run: python3 20-rt-scheduling.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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
    R["rlimit_rtprio"] = str(resource.getrlimit(resource.RLIMIT_RTPRIO))
    R["rlimit_nice"] = str(resource.getrlimit(resource.RLIMIT_NICE))

    def fifo():
        p = ctypes.c_int(1)
        if libc.sched_setscheduler(0, 1, ctypes.byref(p)) != 0:
            return "!" + errno.errorcode.get(ctypes.get_errno(), "?")
        return "ok SCHED_FIFO prio 1 (child exits at once)"

    child_probe("sched_fifo", fifo)

    def rr():
        p = ctypes.c_int(1)
        if libc.sched_setscheduler(0, 2, ctypes.byref(p)) != 0:
            return "!" + errno.errorcode.get(ctypes.get_errno(), "?")
        return "ok SCHED_RR"

    child_probe("sched_rr", rr)

    def deadline():
        attr = struct.pack("<IIQiIQQQ", 48, 6, 0, 0, 0, 1000000, 10000000, 10000000)
        try:
            sysc(314, 0, ctypes.create_string_buffer(attr, 48), 0)
            return "ok SCHED_DEADLINE"
        except OSError as e:
            return "!" + _en(e)

    child_probe("sched_deadline", deadline)

    def nice():
        try:
            os.setpriority(os.PRIO_PROCESS, 0, -5)
            return "ok nice -5"
        except OSError as e:
            return "!" + _en(e)

    child_probe("negative_nice", nice)

    def ioprio():
        try:
            sysc(251, 1, 0, (1 << 13) | 0)  # IOPRIO_WHO_PROCESS, self, IOPRIO_CLASS_RT level 0
            return "ok I/O class RT"
        except OSError as e:
            return "!" + _en(e)

    child_probe("ioprio_realtime", ioprio)
    probe("cpu_affinity", lambda: str(sorted(os.sched_getaffinity(0))))


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('20-rt-scheduling')
