"""The kit's executor: nbgrader's Execute with a budget per notebook, a sandboxed kernel, and its timing."""

from __future__ import annotations

import copy
import os
import time
from contextlib import contextmanager, suppress

from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Float, default

from .. import timing
from ..cells import cell_name, hidden_calls, is_test_cell
from ..config import KIT_DEATH_RETRIES, KitConfig
from . import kernel_ahead
from .checker import VERDICTS, Checker
from .output_schema import install as check_outputs_compiled
from .results import BUDGET_ENAME, DEAD_ENAME, LIMIT_ENAME

# notebook metadata key of the executor's record ({"seconds": how long the notebook ran}); results read it back
TIMING_KEY = "kit_execution"
GRADING_CLIENT = "autograder.grading.kernel_client.GradingKernelClient"
KIT_DEATH = "KitKernelDeath"  # the error that ends a notebook whose kernel the kit's side killed every time

check_outputs_compiled()  # each output the kernels send is checked against the schema compiled once (output_schema)


class KitKernelDeath(RuntimeError):
    """The notebook's kernel died of the kit's side (its fork server or its placeholder died) on every try: no grade from it."""


class BudgetedExecute(Execute):
    """nbgrader's Execute with a budget for the whole notebook, not only per cell.

    A notebook that hangs costs at most ``notebook_budget`` seconds: each cell may run for the
    smaller of ``Execute.timeout`` and what is left of the budget, and once the budget is spent the
    remaining code cells are not run but marked with a ``NotebookBudgetExceeded`` error (0 points).

    With ``outside_checks``, the hidden checks' verdicts (grade_id -> :class:`~.checker.Verdict`) are
    left in ``resources[VERDICTS]`` for :class:`~.verdicts.ApplyVerdicts`, later in the same converter
    run; they never pass through anything the kernel could reach.
    """

    notebook_budget = Float(help="Seconds one notebook may run in all (default: KitConfig.notebook_budget).").tag(
        config=True
    )
    sandbox = Bool(help="Run the kernel inside bubblewrap (autograder.sandbox; default: KitConfig.sandbox).").tag(
        config=True
    )

    @default("notebook_budget")
    def _default_notebook_budget(self) -> float:
        return KitConfig(config=self.config).notebook_budget

    @default("sandbox")
    def _default_sandbox(self) -> bool:
        return KitConfig(config=self.config).sandbox

    outside_checks = Bool(
        False, help="Run the hidden checks in this process; the kernel only answers them (autograder.channel)."
    ).tag(config=True)
    start_ahead = Bool(
        True,
        help="Start the kernel of the folder's next notebook while this one starts and runs, each in a "
        "fresh sandbox of its own (autograder.grading.kernel_ahead).",
    ).tag(config=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._place, self._ahead = None, None  # this notebook's kernel place and kernel started ahead
        if self.sandbox:  # nbgrader's Execute pins AsyncKernelManager; swap in the sandboxed one
            from ..sandbox.kernel_manager import SandboxedKernelManager

            self.kernel_manager_class = SandboxedKernelManager

    def preprocess(self, nb, resources=None, km=None):
        """Run the notebook; a kernel death the student's code did not cause (``death_cause`` of the kernel
        manager: its fork server died) is the kit's, and the notebook is run again from its submitted cells
        on a fresh kernel (a fresh server), at most :data:`KIT_DEATH_RETRIES` times, then KitKernelDeath."""
        submitted = copy.deepcopy(nb)
        for attempt in range(KIT_DEATH_RETRIES + 1):
            self._kit_death, self._graded_km = None, None
            try:
                done = self._run_once(nb, resources, km, retry=attempt > 0)
            except Exception:  # the kernel did not even answer: a dead server's kernel is the kit's
                self._kit_death = self._death_cause()
                if self._kit_death is None:
                    raise
            if self._kit_death is None:
                return done
            self.log.warning("the kernel died of the kit's side (%s); running the notebook again", self._kit_death)
            if attempt == KIT_DEATH_RETRIES:
                break
            nb.clear()
            nb.update(copy.deepcopy(submitted))
            km = None  # a fresh kernel (from a fresh server, the dead one is started again)
        raise KitKernelDeath(
            f"{KIT_DEATH}: the grading kernel died on the kit's side {KIT_DEATH_RETRIES + 1} times: {self._kit_death}"
        )

    def _death_cause(self) -> str | None:
        """Why this notebook's kernel died, if that is the kit's doing (None: the student's, or alive)."""
        km = getattr(self, "km", None) or getattr(self, "_graded_km", None)
        cause = getattr(km, "death_cause", None)
        return cause() if cause is not None else None

    def _run_once(self, nb, resources=None, km=None, retry: bool = False):
        self._kernel_died, self._started_as = None, None
        self._split = CpuSplit()
        started = time.monotonic()
        self._deadline = started + self.notebook_budget
        self.timeout_func = self._cell_timeout
        ahead = km is None and self.start_ahead and not retry  # a retry starts no other kernel meanwhile
        self._place = self._kernel_place(nb, resources) if ahead else None
        self._ahead = kernel_ahead.take(self._ahead_key()) if self._place else None
        if self._ahead is not None:
            km, self._checker = self._ahead.km, self._ahead.checker
            if hasattr(km, "finish_start"):  # its kernel was forked into its sandbox in the background
                run_sync(km.finish_start)()
            if hasattr(km, "death_cause") and km.death_cause():  # its server died since: not a kernel to grade on
                self.log.warning(
                    "the kernel started ahead lost its fork server (%s); starting another", km.death_cause()
                )
                with suppress(Exception):
                    run_sync(km.shutdown_kernel)(now=True)
                self._checker.close() if self._checker is not None else None
                km, self._ahead = None, None
                self._checker = Checker() if self.outside_checks else None
            self._graded_km = km
            self._start_next_ahead()
        else:
            self._checker = Checker() if self.outside_checks else None
        try:
            return super().preprocess(nb, resources, km)
        finally:
            self._split.done(self._checker)
            nb.metadata[TIMING_KEY] = {"seconds": round(time.monotonic() - started, 3)}
            if self._started_as:  # how its kernel came up: "forked" into its sandbox, or "started" anew, and why
                how, why = self._started_as
                nb.metadata[TIMING_KEY]["kernel"] = how
                if why:
                    nb.metadata[TIMING_KEY]["kernel_fallback"] = why
            if self._checker is not None:
                self._checker.close()
                if resources is not None:
                    resources[VERDICTS] = dict(self._checker.verdicts)

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        km.client_class = GRADING_CLIENT
        self._graded_km = km  # (nbclient forgets its km when the kernel died before it answered: asked why after)
        return km

    def start_new_kernel(self, **kwargs):
        if self._checker is not None:  # the kernel learns where to answer the hidden checks
            kwargs["env"] = {**os.environ, **(kwargs.get("env") or {}), **self._checker.env()}
        started = super().start_new_kernel(**kwargs)
        timing.beat()  # a kernel that answered is progress
        self._graded_km = self.km
        self._start_next_ahead()
        return started

    @contextmanager
    def setup_kernel(self, **kwargs):
        if self._ahead is not None:  # a kernel started ahead is this notebook's alone: stop it afterwards too
            kwargs.setdefault("cleanup_kc", True)
        with super().setup_kernel(**kwargs):
            self._split.ready(getattr(self.km, "_forked_pid", None))
            yield
            self._split.cells_done()

    # ---------------------------------------------------------------- the next notebook's kernel (kernel_ahead)
    def _kernel_place(self, nb, resources) -> tuple[str, str, str, str] | None:
        """(working folder, notebook name, kernel name, folder of the notebooks nbgrader runs) of this
        notebook's kernel, when nbgrader's resources say them."""
        resources = resources or {}
        folder, notebook = (resources.get("metadata") or {}).get("path"), resources.get("unique_key")
        student, assignment = ((resources.get("nbgrader") or {}).get(k) for k in ("student", "assignment"))
        if not (folder and notebook and student and assignment):
            return None
        from nbgrader.coursedir import CourseDirectory

        coursedir = CourseDirectory(config=self.config)
        submitted = coursedir.format_path(coursedir.submitted_directory, student, assignment)
        kernel_name = self.kernel_name or nb.metadata.get("kernelspec", {}).get("name") or ""
        return str(folder), str(notebook), kernel_name, submitted

    def _ahead_key(self) -> tuple:
        folder, _, kernel_name, _ = self._place
        return kernel_ahead.ahead_key(folder, kernel_name, self.config)

    def _start_next_ahead(self) -> None:
        """Launch, in a sandbox of its own, the kernel the folder's next notebook will run in."""
        if self._place is None:
            return
        folder, notebook, kernel_name, submitted = self._place
        if not kernel_ahead.has_later_notebook(submitted, notebook):
            return
        km, checker = None, None
        try:
            checker = Checker() if self.outside_checks else None
            started = {"env": {**os.environ, **checker.env()}} if checker is not None else {}
            km = self.kernel_manager_class(kernel_name=kernel_name, config=self.config)
            km.client_class = GRADING_CLIENT
            km.fork_in_background = True  # (a sandboxed kernel) its fork is waited for when a notebook takes it
            arguments = list(self.extra_arguments)
            if km.ipykernel and self.ipython_hist_file and not any("HistoryManager.hist_file" in a for a in arguments):
                arguments.append(f"--HistoryManager.hist_file={self.ipython_hist_file}")  # as nbclient starts one
            run_sync(km.start_kernel)(extra_arguments=arguments, cwd=folder, **started)
        except Exception as e:  # the next notebook then starts its own kernel, and meets the fault itself
            self.log.debug("could not start the next notebook's kernel ahead: %s", e)
            if km is not None:
                with suppress(Exception):
                    run_sync(km.cleanup_resources)()
            if checker is not None:
                checker.close()
            return
        kernel_ahead.keep(kernel_ahead.KernelAhead(self._ahead_key(), km, checker))

    def _remaining(self) -> float:
        return self._deadline - time.monotonic()

    def _cell_timeout(self, cell) -> int:
        per_cell = self.timeout if self.timeout and self.timeout > 0 else float("inf")
        return max(1, int(min(per_cell, self._remaining()) + 0.999))

    def preprocess_cell(self, cell, resources, index):
        cell, resources = self._preprocess_cell(cell, resources, index)
        timing.beat()  # a finished cell is progress: the grading process is not hung (classroom.run's watch)
        return _cap_errors(cell), resources

    def _preprocess_cell(self, cell, resources, index):
        if self._started_as is None and getattr(getattr(self, "km", None), "started_as", None):
            self._started_as = (self.km.started_as, getattr(self.km, "started_why", None))
        if cell.cell_type != "code" or not cell.source.strip():
            return super().preprocess_cell(cell, resources, index)
        if self._kernel_died is not None:
            return _fail(cell, DEAD_ENAME, f"not run: the kernel stopped in cell `{self._kernel_died}`"), resources
        if self._remaining() <= 0:
            return _fail(
                cell, BUDGET_ENAME, f"not run: the notebook used up its {self.notebook_budget:g} s budget"
            ), resources
        try:
            if self._checker is not None and is_test_cell(cell):
                deadline = time.monotonic() + self._cell_timeout(cell)
                with self._checker.expect(cell_name(cell, index), hidden_calls(cell.source), deadline):
                    cell, resources = super().preprocess_cell(cell, resources, index)
            else:
                cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            if self._limit_breach():
                return self._stop_at_limit(cell, index), resources
            self._kit_death = self._death_cause()  # the kit's (its fork server died): the notebook runs again
            # the student's code killed its kernel (os._exit, a crash, the OOM killer): this cell and
            # every later one score 0, the cells before keep their points, and grading goes on
            self._kernel_died = cell_name(cell, index)
            return _fail(cell, DEAD_ENAME, f"the kernel died while running cell `{self._kernel_died}`"), resources
        except CellTimeoutError:
            if self._limit_breach():
                return self._stop_at_limit(cell, index), resources
            self._kit_death = self._death_cause()
            # timed out, and the kernel did not even answer the interrupt: treat it as gone
            self._kernel_died = cell_name(cell, index)
            return _fail(
                cell, "CellTimeoutError", f"timed out, and the kernel stopped responding in cell `{self._kernel_died}`"
            ), resources
        if self._limit_breach():  # the cell ended as the limit was reached: it and what follows score 0
            return self._stop_at_limit(cell, index), resources
        return cell, resources

    def _limit_breach(self) -> str | None:
        """The resource limit (autograder.sandbox.limits) the sandbox reached, if any; the sandbox is then stopped."""
        return getattr(getattr(self, "km", None), "limit_breach", None)

    def _stop_at_limit(self, cell, index: int):
        self._kernel_died = cell_name(cell, index)
        return _fail(cell, LIMIT_ENAME, f"the notebook {self._limit_breach()}: stopped in cell `{self._kernel_died}`")


class CpuSplit:
    """Where one notebook's CPU goes, for ``AUTOGRADER_TIMINGS`` (:mod:`autograder.timing`; nothing without it):
    its kernel's start (this process's CPU until the kernel answered, the kernel's own until then), the cells
    (this process's, less the hidden checks; the kernel's own, answering the checks included), the hidden checks
    (this process's, in the checker's threads) and the kernel's stop (this process's)."""

    def __init__(self):
        self.on = timing.enabled()
        self.marks = [(time.time(), time.process_time())] if self.on else []
        self.kernel: list[float | None] = []
        self.pid = None

    def ready(self, pid: int | None) -> None:
        if self.on:
            self.pid = pid
            self.marks.append((time.time(), time.process_time()))
            self.kernel.append(timing.process_cpu(pid))

    def cells_done(self) -> None:
        if self.on and len(self.marks) == 2:
            self.kernel.append(timing.process_cpu(self.pid))
            self.marks.append((time.time(), time.process_time()))

    def done(self, checker) -> None:
        if not self.on or len(self.marks) != 3:
            return  # (the kernel never answered: nothing to split)
        self.marks.append((time.time(), time.process_time()))
        (t0, c0), (t1, c1), (t2, c2), (t3, c3) = self.marks
        checks = checker.cpu if checker is not None else 0.0
        timing.record("notebook: kernel start", t0, t1, c1 - c0)
        timing.record("notebook: cells", t1, t2, c2 - c1 - checks)
        timing.record("notebook: hidden checks", t1, t2, checks)
        timing.record("notebook: kernel stop", t2, t3, c3 - c2)
        if None not in self.kernel:
            timing.record("notebook: the kernel's own CPU, its start", t0, t1, self.kernel[0])
            timing.record("notebook: the kernel's own CPU, the cells", t1, t2, self.kernel[1] - self.kernel[0])


ERROR_CAP = 20_000  # characters of an error's message and of each traceback line (nbgrader limits streams only)


def _cap(text: str) -> str:
    return text if len(text) <= ERROR_CAP else text[:ERROR_CAP] + f"... [{len(text) - ERROR_CAP} more characters]"


def _cap_errors(cell):
    """A student's exception with a huge message must not make the notebook too big for feedback."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            out["evalue"] = _cap(str(out.get("evalue", "")))
            out["traceback"] = [_cap(str(line)) for line in out.get("traceback", [])[:200]]
    return cell


def _fail(cell, ename: str, message: str):
    cell.outputs = [NotebookNode(output_type="error", ename=ename, evalue=message, traceback=[f"{ename}: {message}"])]
    return cell


def kernel_starts(notebooks: dict[str, NotebookNode]) -> dict[str, str]:
    """notebook name -> how its kernel came up, as the executor recorded it: "forked", or "started: <why>" for a
    kernel started the ordinary way (``notebooks``: name -> the autograded notebook, as the caller has read it)."""
    found = {}
    for name, nb in notebooks.items():
        record = nb.metadata.get(TIMING_KEY)
        if isinstance(record, dict) and record.get("kernel"):
            why = record.get("kernel_fallback")
            found[name] = f"{record['kernel']}: {why}" if why else str(record["kernel"])
    return found


def notebook_seconds(notebooks: dict[str, NotebookNode]) -> dict[str, float]:
    """notebook name -> seconds its execution took, as the executor recorded it in the autograded notebook
    (``notebooks``: name -> the autograded notebook, as the caller has read it)."""
    found = {}
    for name, nb in notebooks.items():
        record = nb.metadata.get(TIMING_KEY)
        if isinstance(record, dict) and isinstance(record.get("seconds"), (int, float)):
            found[name] = float(record["seconds"])
    return found
