# A fork bomb that stops itself: a few thousand processes that each sleep a while, then exit.
import os, time
_children = []
for _ in range(3000):
    try:
        _pid = os.fork()
    except OSError:
        continue  # refused: try again, as a real fork bomb would
    if _pid == 0:
        time.sleep(20)
        os._exit(0)
    _children.append(_pid)
for _pid in _children:
    os.waitpid(_pid, 0)
