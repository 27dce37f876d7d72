# attack: /proc files that root may read without capabilities, or that leak kernel addresses and host state: kallsyms, slabinfo, pagemap PFNs, /proc/keys, kcore, kmsg, iomem, sysrq-trigger, PID 1
# breach: kernel addresses (KASLR), physical frame numbers, slab layout, other users' key descriptions, the kernel log, writable sysrq-trigger, PID 1's files
# expect: zeroed addresses, EACCES/EPERM, nothing in /proc/keys, /proc/1 empty, sysrq-trigger read-only
# run: python3 08-proc-root-only.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


def head(path, n=65536):
    with open(path, "rb") as f:
        return f.read(n)


def main():
    def kallsyms():
        lines = head("/proc/kallsyms", 20000).decode(errors="replace").splitlines()
        nz = [l for l in lines if l and not l.startswith("0000000000000000")]
        return (len(nz) > 0, "%d/%d symbols with a real address" % (len(nz), len(lines)))

    probe("kallsyms_addresses", kallsyms)
    for name in ("slabinfo", "pagetypeinfo", "timer_list", "sched_debug", "vmallocinfo", "zoneinfo", "buddyinfo", "modules", "config.gz"):
        def rd(name=name):
            data = head("/proc/" + name)
            st = os.stat("/proc/" + name)
            private = not (st.st_mode & 0o004)
            return (private and len(data) > 0, "read %dB (mode %o)" % (len(data), st.st_mode & 0o777))
        probe("read_" + name, rd)

    def vmalloc_addrs():
        data = head("/proc/vmallocinfo").decode(errors="replace").splitlines()
        nz = [l for l in data if l and not l.startswith("0x0000000000000000")]
        return (len(nz) > 0, "%d lines with addresses" % len(nz))

    probe("vmallocinfo_addresses", vmalloc_addrs)

    def iomem():
        lines = head("/proc/iomem").decode(errors="replace").splitlines()
        nz = [l for l in lines if l.strip() and not l.strip().startswith("00000000-00000000")]
        return (len(nz) > 0, "%d ranges with addresses" % len(nz))

    probe("iomem_addresses", iomem)

    def pagemap():
        buf = ctypes.create_string_buffer(4096)
        buf[0] = b"x"
        va = ctypes.addressof(buf)
        with open("/proc/self/pagemap", "rb") as f:
            f.seek((va // 4096) * 8)
            ent = struct.unpack("<Q", f.read(8))[0]
        pfn = ent & ((1 << 55) - 1)
        return (pfn != 0, "pfn %s" % ("nonzero" if pfn else "0"))

    probe("pagemap_pfn", pagemap)

    def keys():
        lines = [l for l in head("/proc/keys").decode(errors="replace").splitlines() if l.strip()]
        return (len(lines) > 0, "%d keys visible" % len(lines))

    probe("proc_keys", keys)
    probe("proc_key_users", lambda: "%d users" % len(head("/proc/key-users").splitlines()))

    def opn(path, flags):
        fd = os.open(path, flags)
        os.close(fd)
        return (True, "opened")

    probe("kcore_open", lambda: opn("/proc/kcore", os.O_RDONLY))
    probe("kmsg_open", lambda: opn("/proc/kmsg", os.O_RDONLY | os.O_NONBLOCK))  # opened only: reading would consume the log
    probe("sysrq_trigger_open_write", lambda: opn("/proc/sysrq-trigger", os.O_WRONLY))  # never written
    probe("proc1_listing", lambda: (len(os.listdir("/proc/1")) > 0, "%d entries" % len(os.listdir("/proc/1"))))
    probe("proc1_environ", lambda: (True, "read %dB" % len(head("/proc/1/environ"))))
    probe("proc1_mem_open", lambda: opn("/proc/1/mem", os.O_RDONLY))
    probe("proc1_oom_score_adj_open_write", lambda: opn("/proc/1/oom_score_adj", os.O_WRONLY))  # never written
    probe("cmdline", lambda: head("/proc/cmdline", 300).decode(errors="replace").strip())
    probe("boot_id", lambda: head("/proc/sys/kernel/random/boot_id").decode().strip()[:8] + "…")
    probe("pids_visible", lambda: len([p for p in os.listdir("/proc") if p.isdigit()]))


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('08-proc-root-only')
