"""The clean re-run: a second opinion on every hidden test, out of the student's kernel.

nbgrader lets the student's own kernel decide the student's grade, and that kernel runs the student's
code first: it can replace NumPy functions, install IPython hooks that swallow exceptions, or put a
fake ``autograder`` on the path.  The judge re-runs each notebook in a fresh, sandboxed Python process
(no IPython): the kit and NumPy are imported and snapshotted *before* any student code runs, the
student's cells are executed in order, and every hidden check is called directly.  Each time control
comes back from student code, everything the snapshot covers is put back, and student functions are
wrapped so that this happens even when a check calls them indirectly.  A test that passed in the
notebook but fails here scores 0.

Parent side: :func:`judge_notebooks`.  Child side: ``python -m autograder.grading.judge`` reads a JSON job on
stdin and writes one ``KIT-JUDGE`` JSON line per notebook to the stdout it had at start.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import shutil
from pathlib import Path

MARK = "KIT-JUDGE "
KIT_NAME = re.compile(r"\bautograder\b|\b_hidden\b")  # no given cell mentions the kit (the build checks that)


# --------------------------------------------------------------------------------------------- parent

def notebook_job(path: Path, verify: set[str] | None = None) -> dict:
    """What the judge needs from an autograded notebook: its code cells, each test's hidden calls, and
    which tests to verify (those that scored; the rest have nothing to lose)."""
    import nbformat

    from ..cells import grade_id, hidden_calls, is_test_cell

    nb = nbformat.read(str(path), as_version=4)
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if is_test_cell(cell):
            cells.append({"kind": "test", "grade_id": grade_id(cell), "calls": hidden_calls(cell.source)})
        else:
            cells.append({"kind": "code", "source": cell.source})
    tests = [c["grade_id"] for c in cells if c["kind"] == "test"]
    return {"notebook": path.stem, "cells": cells, "verify": sorted(verify) if verify is not None else tests}


def judge_notebooks(paths: list[Path], *, budget: float, hide: list[str], sandbox: bool,
                    verify: dict[str, set[str]] | None = None, memory_mb: int = 0, limits=None) -> dict[str, dict]:
    """notebook -> {grade_id: [passed, diagnosis, message]}.  Only the tests in ``verify`` (notebook ->
    grade_ids; default all) are checked, and a notebook stops once its last one is; a test the judge
    could not reach maps to [False, "unverified", why].  ``memory_mb`` caps the re-run's address space (0: none);
    in the sandbox the re-run gets the same resource ``limits`` (:class:`autograder.sandbox.limits.ResourceLimits`)
    as the kernel."""
    from ..sandbox import bwrap_command
    from ..sandbox.limits import Watchdog, new_cgroup

    verdicts: dict[str, dict] = {}
    jobs = [notebook_job(p, (verify or {}).get(p.stem) if verify is not None else None) for p in paths]
    pending = list(jobs)
    while pending:
        workdir = Path(tempfile.mkdtemp(prefix="kit-judge-"))
        cgroup = None
        try:
            for extra in paths[0].parent.iterdir():  # the student's own files, as the kernel saw them
                if extra.is_file() and extra.suffix != ".ipynb":
                    shutil.copy(extra, workdir / extra.name)
            # -I: no environment variables, no user site, no current folder on sys.path (no shadow kit)
            cmd = [sys.executable, "-I", "-m", "autograder.grading.judge"]
            if sandbox:
                cgroup = new_cgroup(limits) if limits is not None else None
                cmd = bwrap_command(workdir, [], hide, memory_mb * 1024 * 1024 or None, limits=limits, cgroup=cgroup) + cmd
            env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JPY_"))}
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    text=True, cwd=workdir, env=env)
            watchdog = Watchdog(proc.pid, limits, cgroup) if sandbox and limits is not None else None
            if watchdog:
                watchdog.start()
            try:
                out, _ = proc.communicate(json.dumps(pending), timeout=budget * len(pending) + 10)  # a budget each
                why = f"the clean re-run stopped (exit code {proc.returncode})"
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
                why = "the clean re-run timed out"
            if watchdog:
                watchdog.stop()
                if watchdog.breach:
                    why = f"the clean re-run {watchdog.breach}"
        finally:
            if cgroup is not None:
                cgroup.remove()
            shutil.rmtree(workdir, ignore_errors=True)
        partial: dict[str, dict] = {}
        for line in out.splitlines():
            if not line.startswith(MARK):
                continue
            try:
                item = json.loads(line[len(MARK):])
            except ValueError:
                continue
            if "test" in item:  # one verdict, written as soon as the check finished
                partial.setdefault(item["notebook"], {})[item["test"]] = item["verdict"]
            elif "tests" in item:  # the notebook is done
                verdicts[item["notebook"]] = item["tests"]
        unfinished = [j for j in pending if j["notebook"] not in verdicts]
        if unfinished:
            # the notebook it stopped in keeps the verdicts reached; a test never reached cannot be trusted
            first = unfinished[0]
            reached = partial.get(first["notebook"], {})
            verdicts[first["notebook"]] = {g: reached.get(g, [False, "unverified", why]) for g in first["verify"]}
        pending = unfinished[1:]
    return verdicts


# ---------------------------------------------------------------------------------------------- child

def _child() -> None:
    import builtins
    import importlib
    import threading
    import types
    import warnings

    import numpy as np
    import numpy.linalg
    import numpy.random
    import numpy.testing

    import autograder.hidden as hidden
    from autograder.course import NOTEBOOKS, lesson_module
    from autograder.hidden.diagnostics import Diagnosis

    for lesson in map(lesson_module, NOTEBOOKS):
        try:
            importlib.import_module(f"autograder.hidden.{lesson}")
        except ModuleNotFoundError:
            pass

    result_fd = os.dup(1)  # results go here; student code writes to /dev/null
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    jobs = json.loads(sys.stdin.read())

    watched = [np, numpy.linalg, numpy.random, numpy.testing, builtins, warnings, json, os,
               *[m for name, m in sorted(sys.modules.items()) if name == "autograder" or name.startswith("autograder.")]]
    snapshot = {m: dict(vars(m)) for m in watched}
    sys_saved = {k: getattr(sys, k) for k in ("stdout", "stderr", "excepthook", "displayhook", "meta_path",
                                              "path_hooks", "path", "settrace", "setprofile")}
    sys_lists = {"meta_path": list(sys.meta_path), "path_hooks": list(sys.path_hooks), "path": list(sys.path)}
    modules_saved = {k: v for k, v in sys.modules.items() if k in ("numpy", "builtins") or k.startswith(("numpy.", "autograder"))}
    sys_settrace, threading_count = sys.settrace, threading.active_count()

    def restore() -> None:
        sys_settrace(None)
        sys.setprofile(None)
        for module, saved in snapshot.items():
            current = vars(module)
            for key, value in saved.items():
                if current.get(key, restore) is not value:
                    try:
                        current[key] = value
                    except TypeError:
                        pass
            if module.__name__.startswith("autograder"):
                for key in [k for k in current if k not in saved]:
                    del current[key]
        for key, value in sys_saved.items():
            setattr(sys, key, value)
        for key, items in sys_lists.items():
            getattr(sys, key)[:] = items
        sys.modules.update(modules_saved)
        warnings.resetwarnings()
        warnings.simplefilter("ignore")

    class KitBlocker:
        """While student code runs, the kit is not importable: its checks compute right answers."""

        def find_spec(self, name, path=None, target=None):
            if name == "autograder" or name.startswith("autograder."):
                raise ImportError("the grader is not available to the code being graded")
            return None

    blocker = KitBlocker()
    kit_modules = {k for k in modules_saved if k.startswith("autograder")}

    def hide_kit() -> None:
        for name in kit_modules:
            sys.modules.pop(name, None)
        if blocker not in sys.meta_path:
            sys.meta_path.insert(0, blocker)

    hidden.before_student_code = hide_kit
    hidden.after_student_code = restore
    snapshot[hidden]["before_student_code"] = hide_kit
    snapshot[hidden]["after_student_code"] = restore

    def wrap(fn):
        if getattr(fn, "__kit_wrapped__", False):
            return fn

        def wrapped(*args, **kwargs):
            hide_kit()
            try:
                return fn(*args, **kwargs)
            finally:
                restore()

        wrapped.__kit_wrapped__ = True
        wrapped.__name__, wrapped.__doc__ = getattr(fn, "__name__", "f"), getattr(fn, "__doc__", None)
        wrapped.__wrapped__ = fn
        return wrapped

    def guard_namespace(ns: dict, before: set) -> None:
        for name, value in list(ns.items()):
            if isinstance(value, types.FunctionType) and not name.startswith("__"):
                ns[name] = wrap(value)
            elif isinstance(value, type) and value.__module__ == "__student__":
                for attr, member in list(vars(value).items()):
                    if isinstance(member, types.FunctionType):
                        setattr(value, attr, wrap(member))

    def transform(source: str) -> str:
        lines = []
        for line in source.splitlines():
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")):
                continue  # IPython magics and shell escapes have no meaning in the clean re-run
            lines.append(line)
        return "\n".join(lines)

    for job in jobs:
        ns = {"__name__": "__student__", "__builtins__": builtins,
              "display": lambda *a, **k: None}  # IPython's display(), a no-op here
        tests = {}
        reaches_in = [c for c in job["cells"] if c["kind"] == "code" and KIT_NAME.search(c["source"])]
        if reaches_in:
            tests = {c["grade_id"]: [False, "side-effect", "the code refers to the grader (autograder), which "
                                     "graded code may not use"] for c in job["cells"] if c["kind"] == "test"}
            os.write(result_fd, (MARK + json.dumps({"notebook": job["notebook"], "tests": tests}) + "\n").encode())
            continue
        remaining = set(job["verify"])
        for cell in job["cells"]:
            if not remaining:
                break  # every test that scored is verified; what follows cannot change a grade
            if cell["kind"] == "code":
                try:
                    code = compile(transform(cell["source"]), "<cell>", "exec")
                    hide_kit()
                    exec(code, ns)  # noqa: S102 - this is the student's code, sandboxed
                except BaseException:  # noqa: BLE001 - like nbgrader, a failing cell does not stop the run
                    pass
                finally:
                    restore()
                guard_namespace(ns, set())
                if threading.active_count() > threading_count:
                    tests = {c["grade_id"]: [False, "side-effect", "the code starts threads, which grading does not allow"]
                             for c in job["cells"] if c["kind"] == "test"}
                    break
                continue
            verdict = [True, None, None]
            if cell["grade_id"] not in remaining:
                continue  # it scored nothing in the notebook: nothing to verify
            remaining.discard(cell["grade_id"])
            if not cell["calls"]:
                verdict = [True, None, None]  # a visible-only test: nbgrader's verdict stands
            for module_name, function, args in cell["calls"]:
                try:
                    check = getattr(sys.modules[f"autograder.hidden.{module_name}"], function)
                    values = [ns[a] for a in args]
                    check(*values)
                except Diagnosis as d:
                    verdict = [False, d.misconception, d.message]
                    break
                except KeyError as e:
                    verdict = [False, "not-implemented", f"{e.args[0]} is not defined"]
                    break
                except BaseException as e:  # noqa: BLE001
                    verdict = [False, "crashed", f"{type(e).__name__}: {e}"]
                    break
                finally:
                    restore()
            tests[cell["grade_id"]] = verdict
            os.write(result_fd, (MARK + json.dumps({"notebook": job["notebook"], "test": cell["grade_id"],
                                                    "verdict": verdict}) + "\n").encode())
        os.write(result_fd, (MARK + json.dumps({"notebook": job["notebook"], "tests": tests}) + "\n").encode())


if __name__ == "__main__":
    _child()
    os._exit(0)  # no atexit handlers the student may have registered
