# Kill (or stop) the sandbox's placeholder, the process a forked kernel's sandbox lives by: were its death the
# kit's, the notebook would be run again and the student end `error` (no grade) instead of scored.  Every way a
# process can signal another, on the sandbox's first two pids (the placeholder is one of them), on every
# process (-1) and on their process groups; then its resource limits (a CPU limit of 1 s, the pipe it reads
# flooded), then its code (written through /proc/<pid>/mem).  The student's own child must stay killable.
import ctypes as _ct, os as _os, resource as _res, signal as _sig, struct as _st, subprocess as _sp, time as _t

_libc = _ct.CDLL(None, use_errno=True)
_NR = {  # (tgkill, tkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_open, pidfd_send_signal)
    "x86_64": (234, 200, 129, 297, 434, 424),
    "aarch64": (131, 130, 138, 240, 434, 424),
}[_os.uname().machine]
_NR = dict(zip(("tgkill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal"), _NR))


def _call(name, *args):
    result = _libc.syscall(_NR[name], *args)
    return "ok" if result >= 0 else _os.strerror(_ct.get_errno())


def _try(f):
    try:
        result = f()
        return "ok" if result is None else result
    except OSError as e:
        return e.strerror


_targets = [p for p in (1, 2) if p != _os.getpid()]
_routes = {}
for _signal in (_sig.SIGSTOP, _sig.SIGKILL):
    for _pid in _targets:
        _info = _ct.create_string_buffer(128)
        _st.pack_into("iii", _info, 0, _signal, 0, -1)  # si_code SI_QUEUE, as sigqueue(3) sends
        _routes[f"kill({_pid}, {_signal})"] = _try(lambda: _os.kill(_pid, _signal))
        _routes[f"killpg({_pid}, {_signal})"] = _try(lambda: _os.killpg(_pid, _signal))
        _routes[f"tgkill({_pid}, {_signal})"] = _call("tgkill", _pid, _pid, _signal)
        _routes[f"tkill({_pid}, {_signal})"] = _call("tkill", _pid, _signal)
        _routes[f"rt_sigqueueinfo({_pid}, {_signal})"] = _call("rt_sigqueueinfo", _pid, _signal, _info)
        _routes[f"rt_tgsigqueueinfo({_pid}, {_signal})"] = _call("rt_tgsigqueueinfo", _pid, _pid, _signal, _info)
        _fd = _libc.syscall(_NR["pidfd_open"], _pid, 0)
        if _fd >= 0:
            _routes[f"pidfd_send_signal({_pid}, {_signal})"] = _call("pidfd_send_signal", _fd, _signal, None, 0)
            _os.close(_fd)
        try:
            _fd = _os.open(f"/proc/{_pid}", _os.O_RDONLY | _os.O_DIRECTORY)
            _routes[f"/proc/{_pid} pidfd_send_signal({_signal})"] = _call("pidfd_send_signal", _fd, _signal, None, 0)
            _os.close(_fd)
        except OSError as _e:
            _routes[f"/proc/{_pid} pidfd_send_signal({_signal})"] = _e.strerror
    _routes[f"kill(-1, {_signal})"] = _try(lambda: _os.kill(-1, _signal))
_t.sleep(0.5)

# a CPU limit of 1 s, then the pipe the placeholder reads (the kernel holds it open) flooded so that it spends it
for _pid in _targets:
    _routes[f"prlimit({_pid}, RLIMIT_CPU)"] = _try(lambda: _res.prlimit(_pid, _res.RLIMIT_CPU, (1, 1)) and None)
_pipe = [
    int(fd)
    for fd in _os.listdir("/proc/self/fd")
    if _try(lambda: _os.readlink(f"/proc/self/fd/{fd}")).endswith("/alive")
]
_end = _t.monotonic() + 3
while _pipe and _t.monotonic() < _end:
    _os.write(_pipe[0], b"x" * 65536)

# its code overwritten with breakpoints (int3), then one byte on its pipe so that it runs it
for _pid in _targets:
    try:
        with open(f"/proc/{_pid}/maps") as _maps, open(f"/proc/{_pid}/mem", "r+b", 0) as _mem:
            for _line in _maps:
                _fields = _line.split()
                if "x" in _fields[1] and "vsyscall" not in _line:
                    _start, _stop = (int(x, 16) for x in _fields[0].split("-"))
                    _mem.seek(_start)
                    _mem.write(b"\xcc" * (_stop - _start))
        _routes[f"/proc/{_pid}/mem"] = "ok"
    except OSError as _e:
        _routes[f"/proc/{_pid}/mem"] = _e.strerror
if _pipe:
    _os.write(_pipe[0], b"x")
_t.sleep(0.5)
print("placeholder:", __import__("json").dumps(_routes, sort_keys=True))

# the student's own processes stay the student's to end
_child = _sp.Popen(["sleep", "60"])
_child.send_signal(_sig.SIGKILL)
print("own-child:", _child.wait(10))
