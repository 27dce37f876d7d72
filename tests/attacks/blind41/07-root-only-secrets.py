# attack: uid 0 without capabilities still passes owner permission checks: read root-only files of the visible /etc, /root, homes, database folders
# breach: a file that is not world-readable (shadow, gshadow, ssh host keys, TLS keys, sudoers, DB credentials, jupyter/nbgrader config) is read
# expect: EACCES or absent for each (only the sizes are reported, never the contents)
# run: python3 07-root-only-secrets.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


import hashlib

PATTERNS = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh/ssh_host_*_key", "/etc/ssl/private/*",
            "/etc/sudoers", "/etc/sudoers.d/*", "/etc/security/opasswd", "/etc/krb5.keytab", "/etc/mysql/debian.cnf",
            "/etc/NetworkManager/system-connections/*", "/etc/wireguard/*", "/etc/letsencrypt/live/*/privkey.pem",
            "/etc/jupyter/*", "/etc/jupyterhub/*", "/etc/nbgrader/*", "/usr/local/etc/jupyter/*", "/etc/postgresql/*/main/*.conf",
            "/etc/environment", "/etc/cron.d/*", "/etc/crontab", "/root/*", "/root/.*", "/root/.ssh/*", "/home/*/.ssh/*",
            "/home/*/.bash_history", "/home/*/.jupyter/*", "/var/lib/postgresql/*", "/var/lib/mysql/*", "/srv/nbgrader/*",
            "/srv/*", "/opt/*", "/etc/machine-id", "/var/spool/cron/crontabs/*", "/etc/apt/auth.conf*", "/etc/docker/*",
            "/root/.docker/config.json", "/root/.aws/credentials", "/root/.netrc", "/root/.pgpass", "/root/.git-credentials"]


def main():
    files = []
    for pat in PATTERNS:
        try:
            hits = glob.glob(pat)
        except OSError:
            hits = []
        files += hits[:10] if hits else [] if any(c in pat for c in "*?") else [pat]
    R["candidates"] = len(files)
    secret_read = []
    for path in files[:120]:
        if left() < 1:
            break
        try:
            st = os.stat(path)
        except OSError as e:
            if not any(c in path for c in "*?"):
                R[path] = _en(e)
            continue
        if stat.S_ISDIR(st.st_mode):
            try:
                n = len(os.listdir(path))
                private = not (st.st_mode & 0o005)
                R[path] = "listed %d entries (mode %o)" % (n, st.st_mode & 0o777)
                if private:
                    secret_read.append(path)
            except OSError as e:
                R[path] = _en(e)
            continue
        try:
            with open(path, "rb") as f:
                data = f.read(1 << 20)
        except OSError as e:
            R[path] = _en(e)
            continue
        private = not (st.st_mode & 0o004)
        R[path] = "read %dB (mode %o uid %d) sha256:%s" % (len(data), st.st_mode & 0o777, st.st_uid, hashlib.sha256(data).hexdigest()[:8])
        if private:
            secret_read.append(path)
    for p in secret_read:
        B.append(p)
    R["root_only_files_read"] = len(secret_read)


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('07-root-only-secrets')
