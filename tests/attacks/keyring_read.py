# Keyring (the reader): find another student's lesson-2 code in the user keyring, read it and run it.
import ctypes as _ct, os as _os

_libc = _ct.CDLL(None, use_errno=True)
_libc.syscall.restype = _ct.c_long
_NR_KEYCTL = {"x86_64": 250, "aarch64": 219}[_os.uname().machine]
_KEYCTL_SEARCH, _KEYCTL_READ = 10, 11
_key = _libc.syscall(_NR_KEYCTL, _KEYCTL_SEARCH, _ct.c_long(-4), b"user", b"kit-lesson-02", 0)
if _key < 0:
    print("keyring-read:", f"blocked: {_os.strerror(_ct.get_errno())}")
else:
    _buffer = _ct.create_string_buffer(32768)
    _size = _libc.syscall(_NR_KEYCTL, _KEYCTL_READ, _ct.c_long(_key), _buffer, len(_buffer))
    print("keyring-read:", f"found {_size} bytes")
    exec(_buffer.raw[:_size].decode())
