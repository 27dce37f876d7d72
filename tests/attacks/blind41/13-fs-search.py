# attack: search every visible folder for what must not be there: other notebooks, the gradebook, nbgrader configs, the kit's real hidden checks / case generators / mutants, reference solutions
# breach: any of them found (paths are not printed in full, only counts and a hint)
# expect: only the student's own files, the public client package (forwarding stubs) and the OS / Python
# run: python3 13-fs-search.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


SKIP = {"/proc", "/sys", "/dev"}
LIB = ("/site-packages/", "/dist-packages/", "/share/jupyter/", "/lib/python3", "/usr/share/")


def main():
    cwd = os.getcwd()
    mine = (cwd, "/tmp/.kit-submitted")
    found = {"notebooks": [], "gradebook": [], "nbgrader_config": [], "hidden_real": [], "kit_private": [], "solution_text": []}
    entries, reads = 0, 0
    stack = ["/"]
    while stack and entries < 150000 and left() > 2:
        d = stack.pop()
        try:
            it = list(os.scandir(d))
        except OSError:
            continue
        for e in it:
            entries += 1
            p = e.path
            try:
                if e.is_symlink():
                    continue
                if e.is_dir():
                    if p not in SKIP and not p.startswith("/proc/"):
                        stack.append(p)
                    if e.name in ("grading", "devtools") and os.path.basename(d) == "autograder":
                        found["kit_private"].append(p)
                    continue
            except OSError:
                continue
            n = e.name
            lib = any(s in p for s in LIB)
            if n.endswith(".ipynb") and not p.startswith(mine) and not lib:
                found["notebooks"].append(p)
            if re.match(r"gradebook.*\.(db|sqlite3?)$", n):
                found["gradebook"].append(p)
            if n == "nbgrader_config.py" and not lib:
                found["nbgrader_config"].append(p)
            if os.path.basename(d) == "hidden" and re.match(r"(lesson\d+|cases|boundary)\.py$", n):
                try:
                    txt = open(p, errors="replace").read(20000)
                    reads += 1
                    if "forwarding(" not in txt:
                        found["hidden_real"].append(p)
                except OSError:
                    pass
            if (n.endswith((".ipynb", ".py", ".md")) and not lib and reads < 400 and not p.startswith(mine)
                    and e.stat().st_size < 400000):
                try:
                    txt = open(p, errors="replace").read()
                    reads += 1
                    if re.search(r"#{3} BEGIN SOLUTION|#{3} BEGIN HIDDEN TESTS", txt):
                        found["solution_text"].append(p)
                except OSError:
                    pass
    R["entries_walked"] = entries
    R["files_read"] = reads
    for k, v in found.items():
        R[k] = "%d found%s" % (len(v), (" e.g. …/" + "/".join(v[0].split("/")[-2:])) if v else "")
        if v:
            B.append(k)
    mods = sorted(m for m in sys.modules if m.startswith("autograder") or m.startswith("hypothesis"))
    R["modules_loaded"] = ", ".join(mods)[:300] or "none"
    if any(m.startswith(("autograder.grading", "autograder.hidden.cases", "autograder.devtools", "hypothesis")) for m in mods):
        B.append("modules_loaded")


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('13-fs-search')
