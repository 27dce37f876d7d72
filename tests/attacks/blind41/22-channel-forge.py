# attack: talk to the checker's socket directly: hello for modules / checks outside the lessons, private names, a forged `done` verdict, an oversize frame, many idle connections; list and write the socket folder
# breach: the checker starts serving a check the kernel named outside lessonNN or a private name, accepts a verdict from the kernel, returns source text, or another session's socket is in the folder
# expect: the checker refuses (closes, or an error) every forged hello; the folder read-only and holding only this kernel's socket
# run: python3 22-channel-forge.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


def frame(msg):
    head = json.dumps(dict(msg, arrays=[])).encode()
    return struct.pack(">QI", 4 + len(head), len(head)) + head


def talk(path, msg, wait=1.5, raw=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(wait)
    try:
        s.connect(path)
        s.sendall(raw if raw is not None else frame(msg))
        data = b""
        end = time.monotonic() + wait
        while time.monotonic() < end:
            try:
                c = s.recv(65536)
            except socket.timeout:
                break
            if not c:
                break
            data += c
            if len(data) >= 12:
                size = struct.unpack(">Q", data[:8])[0]
                if len(data) >= 8 + size:
                    break
        if not data:
            return "closed/no answer"
        if len(data) >= 12:
            size, hl = struct.unpack(">QI", data[:12])
            try:
                return "answer: " + data[12:12 + hl].decode(errors="replace")[:200]
            except Exception:  # noqa: BLE001
                pass
        return "answer %dB" % len(data)
    finally:
        s.close()


def main():
    path = os.environ.get("AUTOGRADER_CHANNEL")
    if not path:
        R["channel"] = "absent"
        return
    folder = os.path.dirname(path)
    probe("folder_listing", lambda: (len(os.listdir(folder)) > 1, ",".join(sorted(os.listdir(folder)))[:200]))

    def write():
        p = os.path.join(folder, ".kitattack-%d" % os.getpid())
        os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o600))
        os.unlink(p)
        return (True, "created and removed a file")

    probe("folder_write", write)
    others = [os.path.join(folder, n) for n in os.listdir(folder) if os.path.join(folder, n) != path]
    for o in others[:5]:
        probe("other_socket_" + os.path.basename(o), lambda o=o: (True, talk(o, {"op": "hello", "module": "lesson01", "check": "x", "args": []})))
    bad = lambda t: isinstance(t, str) and ('"op": "call"' in t or '"op": "getattr"' in t or '"op": "setattr"' in t)
    src = lambda t: isinstance(t, str) and re.search(r"\bdef |\bimport |Traceback", t)
    tries = {
        "hello_module_os": {"op": "hello", "module": "os", "check": "system", "args": []},
        "hello_module_traversal": {"op": "hello", "module": "lesson01/../../grading/checker", "check": "run", "args": []},
        "hello_module_dotted": {"op": "hello", "module": "autograder.grading.checker", "check": "run", "args": []},
        "hello_private_name": {"op": "hello", "module": "lesson01", "check": "__dict__", "args": []},
        "hello_dunder_globals": {"op": "hello", "module": "lesson01", "check": "__globals__", "args": []},
        "forged_done_verdict": {"op": "done", "diagnosis": None, "verdict": "passed", "points": 100},
        "forged_value_reply": {"value": True, "calls": [], "passed": True},
    }
    for name, msg in tries.items():
        if left() < 3:
            break
        t = probe(name, lambda msg=msg: talk(path, msg))
        if bad(t) or src(t):
            B.append(name)
    probe("oversize_frame", lambda: talk(path, None, raw=struct.pack(">QI", 1 << 40, 8) + b"x" * 8))

    def idle():
        conns = []
        try:
            for _ in range(40):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.setblocking(False)
                try:
                    s.connect(path)
                except (BlockingIOError, OSError):
                    s.close()
                    break
                conns.append(s)
            return "%d idle connections accepted" % len(conns)
        finally:
            for s in conns:
                s.close()

    probe("idle_connections", idle)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('22-channel-forge')
