# Seven processes of 450 MiB each (3.1 GiB in all), each far under the 4 GiB per-process cap.
import os, time
_children = []
for _ in range(7):
    _pid = os.fork()
    if _pid == 0:
        _balloon = b"\x01" * (450 * 2 ** 20)  # touched, so it is really in memory
        time.sleep(15)
        os._exit(0)
    _children.append(_pid)
    time.sleep(0.5)
for _pid in _children:
    os.waitpid(_pid, 0)
