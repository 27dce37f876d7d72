# attack: reach host services from the sandbox: abstract and path Unix sockets listed in /proc/net/unix and in well-known folders, TCP listeners on loopback
# breach: a connection to a socket or listener this sandbox did not create (docker, postgres, systemd, jupyter, the X server, sshd...), or another grading session's kit socket visible
# expect: only the sandbox's own sockets (its network namespace has its own abstract namespace and loopback); the checker's socket is expected
# run: python3 06-unix-and-loopback.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


WELL_KNOWN = ["/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock", "/var/run/postgresql/.s.PGSQL.5432",
              "/run/postgresql/.s.PGSQL.5432", "/tmp/.X11-unix/X0", "/run/systemd/private", "/run/dbus/system_bus_socket",
              "/var/run/dbus/system_bus_socket", "/run/systemd/journal/stdout", "/run/user/0/bus", "/run/mysqld/mysqld.sock",
              "/var/run/nscd/socket", "/run/snapd.socket", "/dev/log"]


def main():
    own = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            t = os.readlink("/proc/self/fd/" + fd)
            if t.startswith("socket:["):
                own.add(t[8:-1])
        except OSError:
            pass
    chan = os.environ.get("AUTOGRADER_CHANNEL", "")
    names = []
    try:
        for line in open("/proc/net/unix").read().splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 8 and parts[3] == "00010000" and parts[6] not in own:  # listening
                names.append(parts[7])
    except OSError as e:
        R["proc_net_unix"] = _en(e)
    names += [p for p in WELL_KNOWN if p not in names]
    reached, others = [], []
    tried = 0
    for n in names[:60]:
        if left() < 3 or n == chan or n.startswith("/run/kit") or "/kit-kernel-" in n:
            continue
        if not n.startswith("@") and not os.path.exists(n):
            continue
        if "kit-channel-" in n or "kit-kernel-" in n:  # another grading session's socket: seen is enough, never connected to
            others.append(n)
            continue
        tried += 1
        for typ in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET, socket.SOCK_DGRAM):
            s = socket.socket(socket.AF_UNIX, typ)
            s.settimeout(0.2)
            try:
                s.connect("\0" + n[1:] if n.startswith("@") else n)
                reached.append(n)
                break
            except OSError:
                pass
            finally:
                s.close()
    R["other_kit_sockets_visible"] = "%d (not connected to)" % len(others) if others else "none"
    if others:
        B.append("other_kit_sockets_visible")
    R["unix_candidates"] = len(names)
    R["unix_tried"] = tried
    if reached:
        R["unix_reached"] = ", ".join(reached)[:300]
        B.append("unix_reached")
    else:
        R["unix_reached"] = "none"
    listeners = []
    for f, fam in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        try:
            for line in open(f).read().splitlines()[1:]:
                p = line.split()
                if p[3] == "0A":
                    listeners.append((fam, int(p[1].split(":")[1], 16)))
        except OSError:
            pass
    for port in (22, 5432, 3306, 6379, 8000, 8888, 8080, 11211, 2375, 9000):
        listeners.append((socket.AF_INET, port))
    hit = []
    for fam, port in sorted(set(listeners))[:40]:
        if left() < 1.5:
            break
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(0.2)
        try:
            s.connect(("127.0.0.1" if fam == socket.AF_INET else "::1", port))
            hit.append(port)
        except OSError:
            pass
        finally:
            s.close()
    R["tcp_listeners_seen"] = len(set(listeners)) - 10
    if hit:
        R["loopback_tcp_reached"] = ",".join(map(str, sorted(set(hit))))
        B.append("loopback_tcp_reached")
    else:
        R["loopback_tcp_reached"] = "none"


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('06-unix-and-loopback')
