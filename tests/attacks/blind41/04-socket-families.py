# attack: every address family and socket type the filter allows by default (AF_PACKET, raw IP, AF_KEY, AF_XDP, AF_ALG, AF_TIPC, AF_RDS...)
# breach: a packet / raw / key-management / XDP / VSOCK socket is created (raw access to traffic, or out of the network namespace)
# expect: EPERM or EAFNOSUPPORT for those (no capability in the sandbox); AF_UNIX, AF_INET(6) stream/dgram, AF_NETLINK allowed
# run: python3 04-socket-families.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


NAMES = {1: "UNIX", 2: "INET", 3: "AX25", 4: "IPX", 5: "APPLETALK", 9: "X25", 10: "INET6", 15: "KEY", 16: "NETLINK",
         17: "PACKET", 21: "RDS", 29: "CAN", 30: "TIPC", 31: "BLUETOOTH", 33: "RXRPC", 36: "IEEE802154", 38: "ALG",
         39: "NFC", 40: "VSOCK", 41: "KCM", 42: "QIPCRTR", 43: "SMC", 44: "XDP", 45: "MCTP"}
HARMFUL = {15, 17, 40, 44}
TYPES = {1: "STREAM", 2: "DGRAM", 3: "RAW", 5: "SEQPACKET"}


def main():
    modular = os.path.exists("/proc/modules")  # a socket() of an unknown family would autoload a module: skip those
    allowed, raw = [], []
    for fam in range(1, 46):
        if modular and fam not in (1, 2, 10, 16, 17):
            R["family_%d" % fam] = "skipped (modular kernel)"
            continue
        got = []
        for typ, tname in TYPES.items():
            proto = 0
            if typ == 3 and fam == 2:
                proto = 1
            if typ == 3 and fam == 10:
                proto = 58
            if fam == 17:
                proto = 0x0300  # htons(ETH_P_ALL)
            try:
                fd = sysc(41, fam, typ, proto)
                os.close(fd)
                got.append(tname)
            except OSError:
                pass
        if got:
            label = "%s(%d):%s" % (NAMES.get(fam, "?"), fam, "/".join(got))
            allowed.append(label)
            if fam in HARMFUL or (fam in (2, 10) and "RAW" in got):
                raw.append(label)
                R["family_%d_%s" % (fam, NAMES.get(fam, "?"))] = "ok " + "/".join(got)
                B.append("family_%d_%s" % (fam, NAMES.get(fam, "?")))
    R["allowed_families"] = ", ".join(allowed)[:600]

    def alg():
        s = socket.socket(38, socket.SOCK_SEQPACKET, 0)
        try:
            s.bind(("hash", "sha256"))
            op, _ = s.accept()
            op.sendall(b"kit")
            return "ok sha256 via kernel crypto: " + op.recv(32).hex()[:16]
        finally:
            s.close()

    probe("af_alg_hash", alg)

    def ping():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 1)  # ICMP datagram (ping) socket
        s.close()
        return "ok"

    probe("icmp_dgram_socket", ping)
    probe("ping_group_range", lambda: open("/proc/sys/net/ipv4/ping_group_range").read().strip())


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('04-socket-families')
