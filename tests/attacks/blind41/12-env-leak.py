# attack: secrets and host facts in the kernel's environment, and in its initial environment block (/proc/self/environ: a forked kernel shows the fork server's, i.e. the grader's)
# breach: a credential-like variable (token, password, key, database URL, hub API token, agent socket), or a variable the sandbox removed (JPY_*) still readable
# expect: only the sandbox's own variables; /proc/self/environ the same as os.environ
# run: python3 12-env-leak.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


SECRET = re.compile(r"TOKEN|SECRET|PASSW|API_?KEY|PRIVATE|CREDENTIAL|AUTH|DATABASE|DB_URL|_DSN|AWS_|AZURE|GOOGLE_APPLICATION|GITHUB|GITLAB|"
                    r"SLACK|SSH_AUTH_SOCK|JUPYTERHUB|JPY_API|COOKIE|KRB5|GPG_AGENT|VAULT|CANVAS|MOODLE|LMS", re.I)
VALUE = re.compile(r"postgres(ql)?://|mysql://|://[^/\s]*:[^/\s]*@|gradebook|/source/|/submitted/|/autograded/|/feedback/")


def main():
    env = dict(os.environ)
    names = [k for k in env if SECRET.search(k)]
    R["env_count"] = len(env)
    R["env_secret_names"] = ", ".join(sorted(names)) or "none"
    if names:
        B.append("env_secret_names")
    vals = [k for k, v in env.items() if VALUE.search(v)]
    R["env_values_with_course_or_db"] = ", ".join(vals) or "none"
    if vals:
        B.append("env_values_with_course_or_db")
    for k in ("HOME", "USER", "LOGNAME", "PWD", "OLDPWD", "TMPDIR", "SHELL", "SUDO_USER", "VIRTUAL_ENV", "CONDA_PREFIX"):
        if k in env:
            R["env_" + k] = env[k][:80]
    homes = [k for k, v in env.items() if re.search(r"/home/[^/:]+|/root\b|/Users/", v)]
    R["env_host_home_paths"] = ", ".join(homes) or "none"

    def initial():
        raw = open("/proc/self/environ", "rb").read().split(b"\0")
        init = {}
        for item in raw:
            if b"=" in item:
                k, _, v = item.partition(b"=")
                init[k.decode(errors="replace")] = v.decode(errors="replace")
        hidden = sorted(set(init) - set(env))
        bad = [k for k in hidden if SECRET.search(k) or k.startswith("JPY_") or VALUE.search(init[k])]
        return (bool(bad), "%d variables only in the initial block: %s" % (len(hidden), ", ".join(hidden)[:200]))

    probe("proc_self_environ_extra", initial)

    def cmdline():
        argv = open("/proc/self/cmdline", "rb").read().split(b"\0")
        return " ".join(a.decode(errors="replace") for a in argv[:4])[:200]

    probe("proc_self_cmdline", cmdline)
    probe("hostname", lambda: socket.gethostname())
    probe("etc_hostname", lambda: open("/etc/hostname").read().strip())
    probe("cgroup", lambda: open("/proc/self/cgroup").read().strip().replace("\n", " | ")[:200])


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('12-env-leak')
