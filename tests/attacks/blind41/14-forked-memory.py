# attack: a forked kernel is a copy of the fork server's memory: scan our own heap for what the server held (earlier requests naming other sandboxes, the grader's strings)
# breach: another kernel's folder, another placeholder's request, solution / hidden-test text, or a gradebook path found in our own memory
# expect: only this kernel's own paths (the fork server holds nothing of the kit, and nothing of other sandboxes that matters)
# run: python3 14-forked-memory.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


PATTERNS = {
    "kernel_folders": re.compile(rb"kit-kernel-[a-z0-9_]{8}"),
    "channel_folders": re.compile(rb"kit-channel-[a-z0-9_]{8}"),
    "placeholder_requests": re.compile(rb'"placeholder": [0-9]+'),
    "cgroup_paths": re.compile(rb"kit-[0-9]+-[0-9]+-[0-9a-f]{6}"),
    "solution_text": re.compile(rb"#{3} BEGIN SOLUTION|#{3} BEGIN HIDDEN TESTS"),
    "gradebook": re.compile(rb"gradebook\.db|sqlite:///[A-Za-z0-9_./-]{3,}\.db"),
}


def main():
    regions = []
    for line in open("/proc/self/maps"):
        p = line.split()
        if "r" not in p[1] or (len(p) > 5 and p[5].startswith("[v")):
            continue
        if len(p) > 5 and p[5].startswith("/") and "w" not in p[1]:
            continue  # read-only file mappings: code and data of libraries
        a, b = (int(x, 16) for x in p[0].split("-"))
        regions.append((a, b))
    hits = {k: set() for k in PATTERNS}
    scanned = 0
    fd = os.open("/proc/self/mem", os.O_RDONLY)
    try:
        for a, b in regions:
            if scanned > 400 << 20 or left() < 2:
                break
            off = a
            while off < b and left() > 2:
                n = min(8 << 20, b - off)
                try:
                    chunk = os.pread(fd, n, off)
                except OSError:
                    break
                scanned += len(chunk)
                for k, rx in PATTERNS.items():
                    for m in rx.finditer(chunk):
                        if len(hits[k]) < 50:
                            hits[k].add(m.group(0)[:80])
                off += n
    finally:
        os.close(fd)
    R["scanned_mb"] = scanned >> 20
    own = set()
    for a in sys.argv + [os.environ.get("AUTOGRADER_CHANNEL", "")]:
        m = re.search(r"kit-(kernel|channel)-[a-z0-9_]{8}", a)
        if m:
            own.add(m.group(0).encode())
    for k, v in hits.items():
        other = v - own
        R[k] = "%d distinct (%d not this kernel's)" % (len(v), len(other))
    if hits["kernel_folders"] - own:
        B.append("kernel_folders")
    if len(hits["placeholder_requests"]) > 1:
        B.append("placeholder_requests")
    for k in ("solution_text", "gradebook"):
        if hits[k]:
            B.append(k)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('14-forked-memory')
