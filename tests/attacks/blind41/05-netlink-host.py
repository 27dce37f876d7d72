# attack: netlink views of the host: interfaces, process events (proc connector), uevents, audit, unix sockets of other namespaces
# breach: a host interface, a fork/exec event, an audit status or a socket not of this sandbox is seen
# expect: only `lo`; no proc-connector events (refused outside the initial namespaces); audit EPERM; only the sandbox's own sockets
# run: python3 05-netlink-host.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


def nl(proto, groups=0):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
    s.bind((0, groups))
    s.settimeout(0.5)
    return s


def recv_all(s, until):
    out = []
    while time.monotonic() < until:
        try:
            s.settimeout(max(0.01, until - time.monotonic()))
            out.append(s.recv(65536))
        except (socket.timeout, BlockingIOError):
            break
    return out


def msgs(data):
    off = 0
    while off + 16 <= len(data):
        ln, typ, flags, seq, pid = struct.unpack_from("<IHHII", data, off)
        if ln < 16:
            break
        yield typ, data[off + 16: off + ln]
        off += (ln + 3) & ~3


def main():
    def links():
        s = nl(0)
        req = struct.pack("<IHHII", 32, 18, 0x301, 1, 0) + struct.pack("<BBHiII", 0, 0, 0, 0, 0, 0)
        s.send(req)
        names = []
        for chunk in recv_all(s, time.monotonic() + 0.5):
            done = False
            for typ, body in msgs(chunk):
                if typ == 3:
                    done = True
                if typ != 16:
                    continue
                off = 16
                while off + 4 <= len(body):
                    alen, atyp = struct.unpack_from("<HH", body, off)
                    if alen < 4:
                        break
                    if atyp == 3:
                        names.append(body[off + 4: off + alen].split(b"\0")[0].decode())
                    off += (alen + 3) & ~3
            if done:
                break
        s.close()
        return ([n for n in names if n != "lo"] != [], ",".join(names))

    probe("interfaces", links)

    def proc_connector():
        s = nl(11, 1)  # NETLINK_CONNECTOR, CN_IDX_PROC
        cn = struct.pack("<IIIIHH", 1, 1, 0, 0, 4, 0) + struct.pack("<I", 1)  # PROC_CN_MCAST_LISTEN
        s.send(struct.pack("<IHHII", 16 + len(cn), 3, 0, 0, os.getpid()) + cn)
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        got = recv_all(s, time.monotonic() + 0.6)
        cn = struct.pack("<IIIIHH", 1, 1, 0, 0, 4, 0) + struct.pack("<I", 2)  # IGNORE
        try:
            s.send(struct.pack("<IHHII", 16 + len(cn), 3, 0, 0, os.getpid()) + cn)
        except OSError:
            pass
        s.close()
        return (len(got) > 0, "%d events" % len(got))

    probe("proc_connector_events", proc_connector)

    def uevents():
        s = nl(15, 1)
        got = recv_all(s, time.monotonic() + 0.3)
        s.close()
        return (len(got) > 0, "bound, %d uevents in 0.3 s" % len(got))

    probe("kobject_uevent", uevents)

    def audit():
        s = nl(9)
        s.send(struct.pack("<IHHII", 16, 1000, 0x5, 1, 0))  # AUDIT_GET, NLM_F_REQUEST|NLM_F_ACK
        got = recv_all(s, time.monotonic() + 0.4)
        s.close()
        for chunk in got:
            for typ, body in msgs(chunk):
                if typ == 2:
                    err = -struct.unpack_from("<i", body)[0]
                    if err:
                        raise OSError(err, os.strerror(err))
                if typ == 1000:
                    return (True, "audit status read")
        return "no answer"

    probe("audit_get_status", audit)

    def unix_diag():
        mine = set()
        for p in os.listdir("/proc"):
            if not p.isdigit():
                continue
            try:
                for fd in os.listdir("/proc/%s/fd" % p):
                    t = os.readlink("/proc/%s/fd/%s" % (p, fd))
                    if t.startswith("socket:["):
                        mine.add(int(t[8:-1]))
            except OSError:
                pass
        s = nl(4)  # NETLINK_SOCK_DIAG
        req = struct.pack("<BBHIIIII", 1, 0, 0, 0xFFFFFFFF, 0, 1, 0xFFFFFFFF, 0xFFFFFFFF)
        s.send(struct.pack("<IHHII", 16 + len(req), 20, 0x301, 1, 0) + req)
        seen = set()
        for chunk in recv_all(s, time.monotonic() + 0.5):
            stop = False
            for typ, body in msgs(chunk):
                if typ == 3:
                    stop = True
                elif typ == 20 and len(body) >= 8:
                    seen.add(struct.unpack_from("<I", body, 4)[0])
            if stop:
                break
        s.close()
        foreign = seen - mine
        return (len(foreign) > 0, "%d sockets, %d of processes this sandbox cannot see" % (len(seen), len(foreign)))

    probe("unix_sock_diag", unix_diag)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('05-netlink-host')
