"""The kernel's side of the channel: answer the checker's questions, then report its verdict.

A hidden test cell calls a check of ``autograder.hidden.lessonNN`` on the student's class or
function.  With ``AUTOGRADER_CHANNEL`` in the environment, that call connects to the checker's socket,
offers its arguments as handles and serves requests until the checker says it is done:

- ``call``: call a handle with plain-data arguments (arrays are fresh copies; after the call their
  final contents go back, and the checker copies them into the check's arrays only where the check
  watches one, see ``fixtures.watch``) and answer with the result, or with the exception raised, by type name;
- ``getattr`` / ``setattr``: read or write an attribute of a handle.

Anything that is not plain data (see ``wire``) is answered as a new handle.  At the end the checker
sends the diagnosis to show, which this side raises so that the cell fails with that message.  This
side never decides a grade: what it sends is only ever an answer.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import socket
import sys
import types
import warnings

import numpy as np

from ..voice import UNVERIFIED, Diagnosis  # the checker's verdict is raised as the one Diagnosis a student sees
from . import ENV, wire
from .fixtures import Fixture

MAX_HANDLES = 100_000
MAX_KEPT = 4096  # arrays handed out that the checker may ask about again (op "recall")
MAX_MESSAGE = 2000


def builtin_base(error: BaseException) -> str:
    """The first built-in exception class in the error's MRO."""
    for cls in type(error).__mro__:
        if getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return "Exception"


def methods_of(obj) -> tuple:
    """The public methods of ``obj``: the names its class defines as plain functions (the first definition along
    the MRO) that ``obj`` itself does not hold.  None for a class that defines its own ``__getattribute__``, whose
    attributes only a read can tell."""
    cls = type(obj)
    try:
        if any("__getattribute__" in vars(c) for c in cls.__mro__ if c is not object):
            return ()
        own = vars(obj) if hasattr(obj, "__dict__") else {}
        names, seen = [], set()
        for c in cls.__mro__:
            for n, v in vars(c).items():
                if n in seen:
                    continue
                seen.add(n)
                if isinstance(v, types.FunctionType) and wire.method_name(n) and n not in own:
                    names.append(n)
        return tuple(names[: wire.MAX_METHODS])
    except Exception:  # noqa: BLE001 - the student's class: its attributes are read one at a time then
        return ()


class Server:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.objects: dict[int, object] = {}
        self.kept: list = []  # arrays handed out, by the number their answer carried
        self.ids: dict[int, int] = {}

    def keep(self, result) -> dict:
        """Remember an array handed out, so the checker can ask later what it holds then (op "recall")."""
        if not isinstance(result, np.ndarray) or len(self.kept) >= MAX_KEPT:
            return {}
        self.kept.append(result)
        return {"kept": len(self.kept) - 1}

    def handle_of(self, obj) -> wire.Handle:
        key = id(obj)
        if key not in self.ids:
            if len(self.objects) >= MAX_HANDLES:
                raise wire.ProtocolError("too many handles")
            self.ids[key] = len(self.objects) + 1
            self.objects[self.ids[key]] = obj
        kind = (
            "class"
            if isinstance(obj, type)
            else "function"
            if isinstance(obj, (types.FunctionType, types.MethodType, types.BuiltinFunctionType))
            else "object"
        )
        name = getattr(obj, "__name__", None) if kind != "object" else None
        methods = methods_of(obj) if kind == "object" else ()
        return wire.Handle(self.ids[key], kind, name if isinstance(name, str) else type(obj).__name__, methods)

    def plain(self, value):
        """Arrays of subclasses travel as plain arrays; everything else as it is (or as a handle)."""
        if isinstance(value, np.ndarray) and type(value) is not np.ndarray and value.dtype.str in wire.DTYPES:
            return np.array(value, copy=True, subok=False)
        if type(value) in (list, tuple):
            return type(value)(self.plain(v) for v in value)
        return value

    def resolve(self, hid, kind, name, methods=()):
        if hid not in self.objects:
            raise wire.ProtocolError(f"no handle {hid}")
        return self.objects[hid]

    def decode(self, header, arrays):
        value = wire.decode(header, arrays, self.resolve)
        return value

    def build(self, value):
        """Fixtures named by the checker become functions over the kernel's copy of their array."""
        if isinstance(value, dict) and set(value) == {"fixture", "x"}:
            return Fixture(str(value["fixture"]), value["x"])
        return value

    def send_value(self, key: str, value, extra: dict | None = None, after: list | None = None) -> None:
        try:
            header, arrays = wire.encode(self.plain(value), self.handle_of)
            if after is not None:
                arrays = arrays + list(after)
                extra = dict(extra or {}, after_from=len(arrays) - len(after))
            wire.send(self.sock, {key: header, **(extra or {})}, arrays)
        except wire.ProtocolError as e:
            wire.send(
                self.sock,
                {"raised": {"type": "ProtocolError", "builtin": "Exception", "message": str(e)}, "after_from": 0},
                list(after or []),
            )

    def serve(self):
        while True:
            message, arrays = wire.receive(self.sock)
            op = message.get("op")
            if op == "done":
                return message.get("diagnosis")
            if op == "recall":  # an array handed out earlier, as it is now: a later call may have written into it
                n = message.get("kept")
                if not (isinstance(n, int) and 0 <= n < len(self.kept)):
                    raise wire.ProtocolError("no such result")
                self.send_value("value", self.kept[n])
                continue
            try:
                target = self.resolve(message.get("target"), "", "")
                if op == "getattr":
                    result = getattr(target, str(message.get("name")))
                    self.send_value("value", result, self.keep(result))
                    continue
                if op == "setattr":
                    setattr(target, str(message.get("name")), self.decode(message.get("value"), arrays))
                    self.send_value("value", None)
                    continue
                if op == "subtract":  # an optimizer step, in place in the student's own array
                    table = getattr(target, str(message.get("name")))
                    if not isinstance(table, np.ndarray):
                        raise TypeError(f"{message.get('name')} is a {type(table).__name__}, not an array")
                    table -= self.decode(message.get("value"), arrays)
                    self.send_value("value", None)
                    continue
                if op == "callattr":  # a method: read and called at once, as ``target.name(...)`` does
                    target = getattr(target, str(message.get("name")))
                elif op != "call":
                    raise wire.ProtocolError(f"unknown op {op!r}")
                args = [self.build(a) for a in self.decode(message.get("args", []), arrays)]
                kwargs = {str(k): self.build(v) for k, v in self.decode(message.get("kwargs", {}), arrays).items()}
                fixtures = [a for a in [*args, *kwargs.values()] if isinstance(a, Fixture)]
            except wire.ProtocolError:
                raise
            except BaseException as e:  # noqa: BLE001 - the student's attribute access raised
                self.send_error(e)
                continue
            try:
                result = target(*args, **kwargs)
            except BaseException as e:  # noqa: BLE001 - the student's code raised: the answer is its type
                self.send_error(e, after=arrays, calls=[f.calls for f in fixtures])
                continue
            self.send_value("value", result, {"calls": [f.calls for f in fixtures], **self.keep(result)}, after=arrays)

    def send_error(self, e: BaseException, after=None, calls=None):
        if isinstance(e, KeyboardInterrupt):
            raise e
        frames, tb = [], e.__traceback__
        while tb is not None:
            frames.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        try:
            text = str(e)[:MAX_MESSAGE]
        except Exception:  # noqa: BLE001
            text = "?"
        info = {"type": type(e).__name__[:100], "builtin": builtin_base(e), "message": text, "frames": frames[-50:]}
        wire.send(self.sock, {"raised": info, "calls": calls or [], "after_from": 0}, list(after or []))


@contextlib.contextmanager
def quiet():
    """While the checker drives student code: warnings and stderr silenced, as the checks always had them
    (nbgrader zeroes a test cell that writes to stderr, and a correct solution may trigger a RuntimeWarning)."""
    saved = sys.stderr
    sys.stderr = io.StringIO()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            yield
    finally:
        sys.stderr = saved


def forward(module: str, check: str, args: tuple, kwargs: dict) -> None:
    """Run the hidden check ``module.check`` in the checker, with these arguments served from here."""
    path = os.environ[ENV]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    server = Server(sock)
    try:
        handles = [server.handle_of(a) for a in args]
        wire.send(
            sock,
            {
                "op": "hello",
                "module": module,
                "check": check,
                "args": [{"handle": h.id, "kind": h.kind, "name": h.name} for h in handles],
            },
        )
        with quiet():
            verdict = server.serve()
    except (EOFError, OSError, wire.ProtocolError) as e:
        verdict = {"id": UNVERIFIED, "message": f"The check could not finish: the channel to the grader broke ({e})."}
    finally:
        sock.close()
    if verdict:
        raise Diagnosis(str(verdict.get("id")), str(verdict.get("message"))).with_traceback(None) from None


def forwarding(module: str):
    """A module ``__getattr__`` whose every attribute is a check forwarded to the channel."""

    def __getattr__(name: str):
        if name.startswith("_"):  # checks have public names; nothing else of the kit is here
            raise AttributeError(f"module {module!r} has no attribute {name!r}")

        def check(*args, **kwargs):
            forward(module, name, args, kwargs)

        check.__name__ = name
        return check

    return __getattr__
