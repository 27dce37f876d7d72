"""Run a notebook's code cells, in order, in this plain Python process: what `check` starts as a child.

A self-check needs what a kernel gives a notebook and nothing more: the cells run one after another
in one namespace, in the notebook's folder, with each cell's printed text and error kept apart.  A
Jupyter kernel would bring ipykernel, jupyter_client and pyzmq into a student's Python (and a warning
about unencrypted TCP); this file needs only the standard library, and is run by path, so the kit's
package need not be importable in the child.

Protocol: stdin holds ``{"token": str, "cells": [source, ...]}``.  After each cell one line goes to the
real stdout, ``<token> <json>``, where the JSON is ``{"index": i, "outputs": [...]}`` with outputs in
nbformat's shape (``stream`` for stdout and stderr, ``error`` with ``ename`` and ``evalue``), so the
caller reads them as it would read a kernel's.  Lines without the token (a cell that writes to the
file descriptor itself) are not the protocol and are ignored by the caller.
"""

import contextlib
import io
import json
import os
import sys
import traceback


def run_cell(source: str, index: int, namespace: dict) -> list[dict]:
    out, err = io.StringIO(), io.StringIO()
    error = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            exec(compile(source, f"<cell {index}>", "exec"), namespace)
        except BaseException as e:  # noqa: BLE001 - a kernel reports whatever a cell raises, SystemExit included
            error = {
                "output_type": "error",
                "ename": type(e).__name__,
                "evalue": str(e),
                "traceback": traceback.format_exception(type(e), e, e.__traceback__),
            }
    outputs = [
        {"output_type": "stream", "name": name, "text": stream.getvalue()}
        for name, stream in (("stdout", out), ("stderr", err))
        if stream.getvalue()
    ]
    return outputs + ([error] if error else [])


def main() -> None:
    request = json.loads(sys.stdin.read())
    token, report = request["token"], sys.stdout
    sys.path[0] = os.getcwd()  # as in a kernel: the notebook's folder is importable, this file's is not
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    for index, source in enumerate(request["cells"]):
        outputs = run_cell(source, index, namespace)
        report.write(f"{token} {json.dumps({'index': index, 'outputs': outputs})}\n")
        report.flush()


if __name__ == "__main__":
    main()
