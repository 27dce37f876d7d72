# attack: uid 0 is the owner of every /proc/sys file: open each for writing (owner permission, no capability needed by many handlers) and write a few back with their own value
# breach: any sysctl open for writing, and core_pattern / modprobe / hostname / swappiness / panic / lease-break-time actually written (with their current value)
# expect: EROFS (bubblewrap's read-only /proc/sys) or EACCES for every file; nothing written
# run: python3 09-proc-sys-write.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


SAFE_WRITEBACK = ["kernel/core_pattern", "kernel/modprobe", "kernel/hostname", "vm/swappiness", "kernel/panic", "fs/lease-break-time"]
SKIP_DIRS = ("binfmt_misc",)


def main():
    ok, denied, n = [], {}, 0
    for root, dirs, files in os.walk("/proc/sys"):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for f in files:
            if left() < 3 or n >= 4000:
                break
            n += 1
            p = os.path.join(root, f)
            try:
                fd = os.open(p, os.O_WRONLY)  # opened only, never written
                os.close(fd)
                ok.append(p[len("/proc/sys/"):])
            except OSError as e:
                k = _en(e)
                denied[k] = denied.get(k, 0) + 1
    R["sysctl_files_tried"] = n
    R["sysctl_open_denied"] = json.dumps(denied)
    R["sysctl_open_for_write"] = "%d ok: %s" % (len(ok), ", ".join(ok[:8])) if ok else "none"
    if ok:
        B.append("sysctl_open_for_write")
    for name in SAFE_WRITEBACK:
        p = "/proc/sys/" + name

        def wb(p=p):
            cur = open(p, "rb").read()
            with open(p, "wb", buffering=0) as f:
                f.write(cur)
            return (True, "wrote back %r" % cur[:40])

        probe("writeback_" + name.replace("/", "_"), wb)
    try:
        for line in open("/proc/self/mountinfo"):
            p = line.split()
            if p[4] in ("/proc/sys", "/proc/sysrq-trigger", "/proc/bus", "/proc/irq"):
                R["mount_" + p[4]] = p[5]
    except OSError:
        pass


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('09-proc-sys-write')
