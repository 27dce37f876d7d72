# Ten thousand threads, each waiting a while (small stacks, so the address-space cap is not what stops them).
import threading
threading.stack_size(256 * 1024)
_release = threading.Event()
_threads = []
for _ in range(10000):
    _t = threading.Thread(target=_release.wait, args=(20,), daemon=True)
    try:
        _t.start()
    except RuntimeError:
        continue
    _threads.append(_t)
_release.set()
