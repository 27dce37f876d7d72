# 2 GiB into a file in /tmp, a MiB at a time; stop at the first refusal.
_chunk = b"\x01" * 2 ** 20
with open("/tmp/ballast.bin", "wb") as _f:
    for _ in range(2048):
        _f.write(_chunk)
