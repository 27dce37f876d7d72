"""Frames of the channel: plain data only, decoded without pickle or eval.

A frame is an 8-byte big-endian length, then a JSON header of that many bytes' prefix and the raw
bytes of the arrays it lists.  A value is plain data (None, bool, int, float, str, lists and tuples
of values, NumPy arrays and scalars of a numeric or bool dtype) or a handle naming an object that
stays on the side that owns it.  Arrays travel as C-contiguous bytes and are rebuilt with
``np.frombuffer`` on an allow-list of dtypes; a declared shape that disagrees with the bytes, an
unknown dtype or a frame over the size cap is a :class:`ProtocolError`.

An array that is not contiguous in memory keeps its kind of layout across (see :data:`LAYOUTS`, the one registry
of the memory layouts the checks hand student code: the input space, the checks and the messages read it): it
travels as a contiguous carrier, and the other side hands on a view of that carrier with the same
values, so code that meets transposes and strided slices where the checks make them meets them in
the kernel too.  The view shares the carrier's memory, so what the code writes into it comes back
with the carrier.
"""

from __future__ import annotations

import json
import math
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

MAX_FRAME = 64 * 2**20  # bytes of one frame
MAX_DEPTH = 20  # nesting of lists and tuples
DTYPES = {
    np.dtype(t).str: np.dtype(t)
    for t in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
    )
}


@dataclass(frozen=True)
class Layout:
    """A memory layout an array handed to student code may have: a boundary class of the input space.  An array of
    it travels as a contiguous ``carrier`` and the receiving side hands on ``view(carrier)``: the same values, laid
    out in memory the same way (not with the same strides)."""

    words: str  # how a message names it: "a transpose in memory" ("" for the plain one)
    told: str  # what a message says after an argument's name: "laid out as a transpose in memory, as X.T ... give"
    holds: Callable[[np.ndarray], bool]  # whether an array that is not contiguous is of it (the catch-all: any)
    carrier: Callable[[np.ndarray], np.ndarray]  # the contiguous array whose view holds the array's values
    view: Callable[[np.ndarray], np.ndarray]  # the receiving side's view of a carrier
    catch_all: bool = False  # the layout of every non-contiguous array no other layout holds

    def lay(self, a) -> np.ndarray:
        """``a``'s values as a new array of this layout (a 0-d array: a copy, it has no layout)."""
        a = np.asarray(a)
        return np.array(a, copy=True) if a.ndim == 0 else self.view(np.array(self.carrier(a), copy=True, order="C"))


def _strided_carrier(a: np.ndarray) -> np.ndarray:
    carrier = np.zeros(tuple(2 * n for n in a.shape), dtype=a.dtype)
    carrier[(slice(None, None, 2),) * a.ndim] = a
    return carrier


# The layouts, the one registry: the input space's layout dimensions (hidden/space.py), the checks' boundary cases
# (hidden/boundary.py), their smallest-case search (hidden/cases.py) and the messages are made from it.  A new layout
# is one entry here.  "contiguous" first (the simplest), the catch-all last.
LAYOUTS = {
    "contiguous": Layout("", "", lambda a: a.flags.c_contiguous or a.size <= 1, lambda a: a, lambda c: c),
    # a transpose of a contiguous array (the carrier is its transpose); a 1-D array has none, and is strided
    "transposed": Layout(
        "a transpose in memory",
        "laid out as a transpose in memory, as X.T or np.swapaxes give",
        lambda a: a.ndim >= 2 and a.T.flags.c_contiguous,
        lambda a: a.T if a.ndim >= 2 else _strided_carrier(a),
        lambda c: c.T if c.ndim >= 2 else c[::2],
    ),
    # any other non-contiguous array: every second entry of a carrier twice as long along every axis
    "strided": Layout(
        "a strided slice in memory",
        "a strided slice in memory, as a[::2] gives",
        lambda a: True,
        _strided_carrier,
        lambda c: c[(slice(None, None, 2),) * c.ndim],
        catch_all=True,
    ),
}


def layout(name: str | None) -> Layout:
    """The registered layout of that name (None: contiguous).  An unknown name is an error, never a default."""
    try:
        return LAYOUTS["contiguous" if name is None else name]
    except KeyError:
        raise ValueError(
            f"unknown layout {name!r}: the layouts are {', '.join(LAYOUTS)} (LAYOUTS in channel/wire.py)"
        ) from None


def laid(a, name: str | None) -> np.ndarray:
    """``a``'s values as a new array of the layout ``name`` (None or "contiguous": a contiguous copy)."""
    return layout(name).lay(a)


def layout_of(a: np.ndarray) -> str | None:
    """The layout an array travels with: None for a C-contiguous one."""
    if LAYOUTS["contiguous"].holds(a):
        return None
    ordered = sorted((entry.catch_all, name) for name, entry in LAYOUTS.items() if name != "contiguous")
    return next(name for _, name in ordered if LAYOUTS[name].holds(a))


def carrier_of(a: np.ndarray, name: str) -> np.ndarray:
    """The contiguous array whose view (``LAYOUTS[name].view``) holds ``a``'s values."""
    return LAYOUTS[name].carrier(a)


class ProtocolError(Exception):
    """The other side sent something that is not a frame of this protocol."""


class Handle:
    """A reference to an object kept by the side that owns it; ``methods``: the names the other side may call on it
    in one request (op "callattr": the attribute read and called as it is then), as the owner found them."""

    __slots__ = ("id", "kind", "name", "methods")

    def __init__(self, id: int, kind: str, name: str, methods: tuple = ()):
        self.id, self.kind, self.name, self.methods = id, kind, name, methods


MAX_METHODS = 100  # names of methods a handle carries at most


VIEWS = "views"  # the key of ``seen`` under which header_of records the arrays sent as a carrier


def header_of(value, arrays: list, handle_of, seen: dict, depth: int = 0):
    if depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    t = type(value)
    if value is None or t is bool or t is str:
        return value
    if t is int:
        return value if -(2**63) <= value < 2**64 else {"bigint": str(value)}
    if t is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if t is list or t is tuple:
        items = [header_of(v, arrays, handle_of, seen, depth + 1) for v in value]
        return items if t is list else {"tuple": items}
    if isinstance(value, np.generic) and not isinstance(value, (np.void, np.object_)) and value.dtype.str in DTYPES:
        arr = np.asarray(value)
        arrays.append(arr)
        return {"array": len(arrays) - 1, "scalar": True}
    if t is np.ndarray and value.dtype.str in DTYPES:
        key = id(value)
        layout = layout_of(value)
        if key not in seen:  # the same array twice is one array on the other side too
            arrays.append(value if layout is None else carrier_of(value, layout))
            seen[key] = len(arrays) - 1
            if layout is not None:  # which sent array carries which of the sender's arrays, and how
                seen.setdefault(VIEWS, {})[seen[key]] = (value, layout)
        return {"array": seen[key]} if layout is None else {"array": seen[key], "layout": layout}
    h = handle_of(value)
    if isinstance(h, dict):
        return h
    header = {"handle": h.id, "kind": h.kind, "name": h.name}
    return dict(header, methods=list(h.methods)) if h.methods else header


def encode(value, handle_of, seen: dict | None = None) -> tuple[object, list[np.ndarray]]:
    """(JSON-able header, arrays) of a value; ``handle_of(obj)`` makes a handle of anything not plain."""
    arrays: list[np.ndarray] = []
    return header_of(value, arrays, handle_of, {} if seen is None else seen), arrays


def method_name(name) -> bool:
    """A name a handle may carry as a method's (:class:`Handle`): a public identifier of at most 100 characters."""
    return isinstance(name, str) and name.isidentifier() and len(name) <= 100 and not name.startswith("_")


def decode(header, arrays: list[np.ndarray], resolve, depth: int = 0):
    """The value a header describes; ``resolve(id, kind, name, methods)`` turns a handle into an object."""
    if depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if header is None or isinstance(header, (bool, str)):
        return header
    if isinstance(header, int):
        return header
    if isinstance(header, float):
        return header
    if isinstance(header, list):
        return [decode(h, arrays, resolve, depth + 1) for h in header]
    if isinstance(header, dict):
        if "tuple" in header and isinstance(header["tuple"], list):
            return tuple(decode(h, arrays, resolve, depth + 1) for h in header["tuple"])
        if "float" in header and header["float"] in ("nan", "inf", "-inf"):
            return float(header["float"])
        if "bigint" in header and isinstance(header["bigint"], str) and len(header["bigint"]) < 5000:
            return int(header["bigint"])
        if "array" in header and isinstance(header["array"], int) and 0 <= header["array"] < len(arrays):
            arr = arrays[header["array"]]
            if "layout" in header:
                if header["layout"] not in LAYOUTS or set(header) != {"array", "layout"}:
                    raise ProtocolError(f"not a layout of this protocol: {str(header)[:80]}")
                return LAYOUTS[header["layout"]].view(arr)
            return arr[()] if header.get("scalar") and arr.ndim == 0 else arr
        if "fixture" in header and isinstance(header["fixture"], str) and set(header) == {"fixture", "x"}:
            return {"fixture": header["fixture"], "x": decode(header["x"], arrays, resolve, depth + 1)}
        if "kwargs" in header and isinstance(header["kwargs"], dict) and len(header) == 1:
            return {str(k): decode(v, arrays, resolve, depth + 1) for k, v in header["kwargs"].items()}
        if "handle" in header and isinstance(header["handle"], int):
            kind, name = str(header.get("kind", "object"))[:20], str(header.get("name", "?"))[:100]
            methods = header.get("methods", [])
            if not (isinstance(methods, list) and len(methods) <= MAX_METHODS and all(map(method_name, methods))):
                raise ProtocolError("a handle's methods are not names")
            return resolve(header["handle"], kind, name, tuple(methods))
    raise ProtocolError(f"not a value of this protocol: {str(header)[:80]}")


def send(sock: socket.socket, message: dict, arrays: list[np.ndarray] = ()) -> None:
    payloads = [np.ascontiguousarray(a).tobytes() for a in arrays]
    message = dict(message, arrays=[[a.dtype.str, list(a.shape)] for a in arrays])
    head = json.dumps(message).encode()
    size = 4 + len(head) + sum(len(p) for p in payloads)
    if size > MAX_FRAME:
        raise ProtocolError(f"a frame of {size} bytes is over the {MAX_FRAME}-byte cap")
    sock.sendall(b"".join([struct.pack(">QI", size, len(head)), head, *payloads]))


def _read(sock: socket.socket, n: int, deadline: float | None) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer in time")
            sock.settimeout(left)
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the channel")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def receive(sock: socket.socket, deadline: float | None = None) -> tuple[dict, list[np.ndarray]]:
    """One frame: (header, arrays).  Raises ProtocolError, TimeoutError or EOFError."""
    size, head_len = struct.unpack(">QI", _read(sock, 12, deadline))
    if size > MAX_FRAME or head_len + 4 > size:
        raise ProtocolError(f"a frame of {size} bytes is over the {MAX_FRAME}-byte cap or malformed")
    body = _read(sock, size - 4, deadline)
    try:
        message = json.loads(body[:head_len])
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError("the header is not JSON") from None
    if not isinstance(message, dict) or not isinstance(message.get("arrays", []), list):
        raise ProtocolError("the header is not an object")
    arrays, offset = [], head_len
    for spec in message.pop("arrays", []):
        if not (
            isinstance(spec, list)
            and len(spec) == 2
            and spec[0] in DTYPES
            and isinstance(spec[1], list)
            and len(spec[1]) <= 32
            and all(isinstance(n, int) and 0 <= n for n in spec[1])
        ):
            raise ProtocolError(f"not an array of an allowed dtype: {str(spec)[:80]}")
        dtype = DTYPES[spec[0]]
        count = math.prod(spec[1])
        nbytes = count * dtype.itemsize
        if offset + nbytes > len(body):
            raise ProtocolError("an array's shape promises more bytes than the frame holds")
        arrays.append(np.frombuffer(body, dtype=dtype, count=count, offset=offset).reshape(spec[1]).copy())
        offset += nbytes
    if offset != len(body):
        raise ProtocolError("the frame holds bytes no array accounts for")
    return message, arrays
