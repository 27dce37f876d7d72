# Phone home.
import os, socket
_port = int(open(os.path.join(os.path.dirname(os.path.abspath("x")), "port.txt")).read()) if os.path.exists("port.txt") else 9
try:
    _s = socket.create_connection(("127.0.0.1", _port), timeout=3)
    _s.sendall(b"hello from the sandbox")
    _s.close()
    _net = "connected"
except OSError as _e:
    _net = f"blocked: {_e}"
print("network:", _net)
