"""The checker's side of the channel: stand-ins for the student's classes, functions and objects.

The hidden checks run unchanged against these proxies.  Calling a :class:`RemoteClass` constructs
an object in the kernel and returns a :class:`RemoteObject`; reading an attribute returns a copy of
plain data (or another proxy); calling a :class:`RemoteFunction` sends plain data and waits for the
answer until the session's deadline.  A proxy has no arithmetic, comparison or conversion of its
own (no ``__eq__``, ``__array__``, ``__float__``): only decoded plain data is ever judged.

Exceptions raised by student code come back as the built-in class named by the kernel (a subclass
of it carrying the student's class name); anything else as :class:`RemoteError`.  When the channel
breaks (no answer before the deadline, a closed socket, a malformed frame) the session records why
and every later request fails at once; the check's verdict is then a failure whatever it returned.
"""

from __future__ import annotations

import builtins
import re
import socket

import numpy as np

from . import wire
from .fixtures import Fixture, watched


class RemoteError(Exception):
    """An exception of a class that is not built in, raised by student code in the kernel."""


class ChannelBroken(Exception):
    """The kernel did not answer a question properly; the check cannot pass."""


SAFE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")


def exception_class(name: str, base: str) -> type:
    cls = getattr(builtins, base, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)) and cls is not SystemExit:
        cls = RemoteError
    if not SAFE_NAME.match(name):
        name = cls.__name__
    if name == cls.__name__:
        return cls
    return type(name, (cls,), {"__module__": "student"})


class Session:
    """One conversation with a kernel: the requests of one hidden check."""

    def __init__(self, sock: socket.socket, deadline: float):
        self.sock, self.deadline = sock, deadline
        self.broken: str | None = None
        self.requests = 0
        self.kept: dict = {}  # id of an array the kernel handed out -> (that array, the kernel's number for it)

    # -- plumbing
    def fail(self, why: str):
        if self.broken is None:
            self.broken = why
        raise ChannelBroken(self.broken)

    def ask(self, message: dict, arrays: list) -> tuple[dict, list]:
        if self.broken is not None:
            raise ChannelBroken(self.broken)
        self.requests += 1
        try:
            wire.send(self.sock, message, arrays)
            return wire.receive(self.sock, self.deadline)
        except TimeoutError:
            self.fail("the student's code did not answer within the time left for this cell")
        except EOFError:
            self.fail("the kernel stopped answering (it died or closed the channel)")
        except wire.ProtocolError as e:
            self.fail(f"the kernel answered with something that is not plain data ({e})")
        except OSError as e:
            self.fail(f"the channel to the kernel failed ({e.__class__.__name__})")

    def encode(self, args, kwargs) -> tuple[list, dict, list, dict]:
        """The headers of the arguments, the arrays sent, and which sent array carries which of the check's
        arrays (``wire.LAYOUTS``: a non-contiguous array travels as a contiguous carrier)."""
        arrays: list = []
        seen: dict = {}

        def handle_of(obj):
            if isinstance(obj, RemoteMethod):  # handed over as a value: the method as the kernel reads it now
                obj = self.getattr(object.__getattribute__(obj, "_id"), object.__getattribute__(obj, "__name__"))
            if isinstance(obj, Remote):
                return {"handle": object.__getattribute__(obj, "_id"), "kind": "object", "name": "?"}
            if isinstance(obj, Fixture):
                return {"fixture": obj.name, "x": wire.header_of(obj.x, arrays, handle_of, seen)}
            if isinstance(obj, dict):
                return {"kwargs": {str(k): wire.header_of(v, arrays, handle_of, seen) for k, v in obj.items()}}
            raise TypeError(f"{type(obj).__name__} cannot be sent to the student's code")

        a = [wire.header_of(v, arrays, handle_of, seen) for v in args]
        k = {"kwargs": {str(n): wire.header_of(v, arrays, handle_of, seen) for n, v in kwargs.items()}}
        return a, k, arrays, seen.get(wire.VIEWS, {})

    def resolve(self, hid, kind, name, methods=()):
        cls = {"class": RemoteClass, "function": RemoteFunction}.get(kind, RemoteObject)
        if cls is not RemoteObject:
            return cls(self, hid, name)
        # messages name the student's type: "got Liar", not "got RemoteObject"
        return _named(name if SAFE_NAME.match(name) else "object")(self, hid, name, methods)

    def answer(self, message: dict, arrays: list, sent: list | None = None, fixtures: list | None = None, views=None):
        if sent is not None:
            after_from = message.get("after_from")
            if not (isinstance(after_from, int) and 0 <= after_from and len(arrays) - after_from == len(sent)):
                self.fail("the kernel's answer does not give back the arrays it was sent")
            arrays, back = arrays[:after_from], arrays[after_from:]
            for i, (mine, theirs) in enumerate(zip(sent, back)):
                if (
                    views and i in views and theirs.shape == mine.shape
                ):  # a carrier: the check's array is the view of it
                    mine, layout = views[i]
                    theirs = wire.LAYOUTS[layout].view(theirs)
                # copy-out only where the check asked (fixtures.watch): any other array of the check stays
                # what the check made it, whatever student code did to its copy
                if watched(mine) and mine.ndim and mine.flags.writeable and theirs.shape == mine.shape:
                    mine[...] = theirs
        calls = message.get("calls")
        if fixtures and isinstance(calls, list) and len(calls) == len(fixtures):
            for f, n in zip(fixtures, calls):
                if isinstance(n, int):
                    f.calls += n
        if "raised" in message and isinstance(message["raised"], dict):
            info = message["raised"]
            if info.get("type") == "ProtocolError":
                self.fail(f"the student's answer could not cross the channel: {str(info.get('message'))[:200]}")
            cls = exception_class(str(info.get("type")), str(info.get("builtin")))
            try:
                error = cls(str(info.get("message", ""))[:2000])
            except Exception:  # noqa: BLE001 - a built-in that wants other arguments
                error = exception_class(str(info.get("type")), "Exception")(str(info.get("message", ""))[:2000])
            frames = info.get("frames")
            error.remote_frames = [str(f)[:100] for f in frames] if isinstance(frames, list) else []
            raise error
        if "value" not in message:
            self.fail("the kernel's answer has no value")
        try:
            value = wire.decode(message["value"], arrays, self.resolve)
            if isinstance(value, np.ndarray) and isinstance(message.get("kept"), int):
                self.kept[id(value)] = (value, message["kept"])
            return value
        except wire.ProtocolError as e:
            self.fail(f"the kernel answered with something that is not plain data ({e})")

    # -- the three questions
    def call(self, hid: int, args, kwargs):
        a, k, arrays, views = self.encode(args, kwargs)
        fixtures = [v for v in [*args, *kwargs.values()] if isinstance(v, Fixture)]
        message, back = self.ask({"op": "call", "target": hid, "args": a, "kwargs": k}, arrays)
        return self.answer(message, back, arrays, fixtures, views)

    def callattr(self, hid: int, name: str, args, kwargs):
        """``obj.name(*args, **kwargs)`` in one request: the kernel reads the method and calls it."""
        a, k, arrays, views = self.encode(args, kwargs)
        fixtures = [v for v in [*args, *kwargs.values()] if isinstance(v, Fixture)]
        message, back = self.ask({"op": "callattr", "target": hid, "name": name, "args": a, "kwargs": k}, arrays)
        return self.answer(message, back, arrays, fixtures, views)

    def getattr(self, hid: int, name: str):
        message, back = self.ask({"op": "getattr", "target": hid, "name": name}, [])
        return self.answer(message, back)

    def setattr(self, hid: int, name: str, value):
        a, _, arrays, _ = self.encode([value], {})
        message, back = self.ask({"op": "setattr", "target": hid, "name": name, "value": a[0]}, arrays)
        self.answer(message, back)

    def recall(self, value):
        """What an array the kernel handed out holds now in the kernel (``value`` itself if it is not one)."""
        kept = self.kept.get(id(value))
        if kept is None or kept[0] is not value:
            return value
        message, back = self.ask({"op": "recall", "kept": kept[1]}, [])
        return self.answer(message, back)

    def subtract(self, hid: int, name: str, value):
        """``obj.name -= value`` in the kernel, in place in the student's array (an optimizer step)."""
        a, _, arrays, _ = self.encode([value], {})
        message, back = self.ask({"op": "subtract", "target": hid, "name": name, "value": a[0]}, arrays)
        self.answer(message, back)

    def done(self, diagnosis: tuple[str, str] | None) -> None:
        """Tell the kernel the diagnosis to show (if it still listens); it decides nothing."""
        try:
            payload = {"id": diagnosis[0], "message": diagnosis[1][:20000]} if diagnosis else None
            self.sock.settimeout(1.0)
            wire.send(self.sock, {"op": "done", "diagnosis": payload})
        except (OSError, wire.ProtocolError):
            pass


class Remote:
    """Base of the proxies: a handle in one session, nothing else."""

    __slots__ = ("_session", "_id", "__name__")

    def __init__(self, session: Session, hid: int, name: str):
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_id", hid)
        object.__setattr__(self, "__name__", name)

    def __repr__(self):
        return f"<{object.__getattribute__(self, '__name__')} in the student's kernel>"


class RemoteFunction(Remote):
    """A function or method of the student's kernel."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return self._session.call(self._id, args, kwargs)


class RemoteClass(RemoteFunction):
    __slots__ = ()


class RemoteMethod(RemoteFunction):
    """A method of an object of the student's kernel (one its class defines, as the kernel said), read when it is
    called: calling it is one request, the kernel reading ``obj.name`` then and calling it.  Handed over as a value,
    it is read first."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        session = object.__getattribute__(self, "_session")
        hid, name = object.__getattribute__(self, "_id"), object.__getattribute__(self, "__name__")
        return session.callattr(hid, name, args, kwargs)


class RemoteObject(Remote):
    __slots__ = ("_methods",)

    def __init__(self, session: Session, hid: int, name: str, methods=()):
        super().__init__(session, hid, name)
        object.__setattr__(self, "_methods", frozenset(methods))  # what the kernel named (wire.Handle.methods)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        session, hid = object.__getattribute__(self, "_session"), object.__getattribute__(self, "_id")
        if name in object.__getattribute__(self, "_methods"):
            return RemoteMethod(session, hid, name)
        return session.getattr(hid, name)

    def __setattr__(self, name: str, value):
        object.__getattribute__(self, "_session").setattr(object.__getattribute__(self, "_id"), name, value)

    def __call__(self, *args, **kwargs):
        return self._session.call(self._id, args, kwargs)


_NAMED: dict[str, type] = {}


def _named(type_name: str) -> type:
    """A RemoteObject subclass carrying the name of the student's type."""
    if type_name not in _NAMED and len(_NAMED) < 1000:
        _NAMED[type_name] = type(type_name, (RemoteObject,), {"__slots__": ()})
    return _NAMED.get(type_name, RemoteObject)
