# attack: outputs that become the instructor's and student's feedback HTML: <script>, event handlers, SVG with script, raw HTML in Markdown, JavaScript output, terminal escapes, a fake passing verdict
# breach: judged on the feedback page / autograded notebook: any of the KITATTACK-XSS markers executing or surviving unescaped (the cell itself can only emit them)
# expect: the feedback HTML escapes or strips active content (no script runs when the instructor opens it); terminal escapes neutralised
# run: python3 24-feedback-injection.py   (or paste into a notebook cell); prints one line `KITATTACK {json}`

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


def main():
    js = "console.log('KITATTACK-XSS')"
    payloads = {
        "text/html": "<b>KITATTACK-XSS-html</b><script>%s</script><img src=x onerror=\"%s\"><iframe src=\"javascript:%s\"></iframe>" % (js, js, js),
        "image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg'><script>%s</script><text>KITATTACK-XSS-svg</text></svg>" % js,
        "text/markdown": "KITATTACK-XSS-md <img src=x onerror=\"%s\"> [link](javascript:%s)" % (js, js),
        "application/javascript": js,
        "text/latex": r"$\href{javascript:%s}{KITATTACK-XSS-latex}$" % js,
    }
    try:
        from IPython.display import display
        from IPython import get_ipython
        in_kernel = get_ipython() is not None
    except Exception:  # noqa: BLE001
        display, in_kernel = None, False
    R["in_kernel"] = in_kernel
    for mime, body in payloads.items():
        def emit(mime=mime, body=body):
            if not in_kernel:
                return "not in a kernel (no rich output)"
            display({mime: body, "text/plain": "KITATTACK-XSS"}, raw=True)
            return "emitted"
        probe("emit_" + mime.replace("/", "_").replace("+", "_"), emit)
    sys.stdout.write("KITATTACK-XSS-ansi \x1b]0;KITATTACK-title\x07\x1b[8mhidden\x1b[0m \x1b]52;c;S0lUQVRUQUNL\x07\n")
    sys.stdout.write("All tests passed. Score: 100/100 (KITATTACK fake verdict)\n")
    sys.stdout.flush()
    R["emit_ansi_and_fake_verdict"] = "emitted"


try:
    main()
except BaseException as _e:  # noqa: BLE001 - never raise out of the cell
    R["_crash"] = _en(_e)
finish('24-feedback-injection')
