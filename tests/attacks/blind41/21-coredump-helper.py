# attack: a crash of the kernel is handled by the host: a piped core_pattern runs a helper as root outside every namespace, fed our memory, writing to the host's disk; the forked kernel is dumpable and may raise RLIMIT_CORE
# breach: core_pattern pipes to a host helper while this process is dumpable and can raise RLIMIT_CORE (a crash would write up to the address-space cap outside the sandbox's tmpfs)
# expect: RLIMIT_CORE hard 0, or not dumpable, or a core_pattern that stays inside (a plain file name lands in the sandbox's capped /tmp); no crash is made here
# run: python3 21-coredump-helper.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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
    pat = probe("core_pattern", lambda: open("/proc/sys/kernel/core_pattern").read().strip())
    probe("core_pipe_limit", lambda: open("/proc/sys/kernel/core_pipe_limit").read().strip())
    probe("suid_dumpable", lambda: open("/proc/sys/fs/suid_dumpable").read().strip())
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    R["rlimit_core"] = "%s/%s" % (soft, hard)
    libc.prctl.restype = ctypes.c_int
    dumpable = libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    R["dumpable"] = dumpable

    def raise_core():
        try:
            resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
            return "ok raised to %s" % hard
        except (OSError, ValueError) as e:
            return "!" + _en(e)

    raised = in_child(raise_core)
    R["rlimit_core_raise"] = raised
    can_dump = dumpable == 1 and hard != 0 and raised.startswith("ok")
    if isinstance(pat, str) and pat.startswith("|") and can_dump:
        R["host_core_helper"] = "a crash would run %s on the host" % pat.split()[0]
        B.append("host_core_helper")
    elif isinstance(pat, str) and pat.startswith("/") and can_dump:
        R["host_core_helper"] = "core written to %s (inside the sandbox's view)" % pat.split("%")[0]
    else:
        R["host_core_helper"] = "no"


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('21-coredump-helper')
