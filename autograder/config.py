"""The kit's options, as traitlets read from the course's ``nbgrader_config.py`` like nbgrader's own.

In ``nbgrader_config.py``::

    c.KitConfig.notebook_budget = 90
    c.KitConfig.jobs = 8

The ``grade`` command's flags override the file.  Every option's ``help=`` is its documentation, and
each default is written once, here.  The seconds one cell may run are nbgrader's own
``c.Execute.timeout`` (plain ``nbgrader autograde`` reads it too), not a second option of the kit's.

:func:`grading_options` turns the file and the flags into one frozen :class:`GradingOptions`, the
value every grader (local pool, Dask task, Gradescope, ``check --thorough``) is handed whole.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from pathlib import Path

from traitlets import Bool, Float, Integer, Unicode, default
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

CONFIG_FILE = "nbgrader_config.py"
JOBS_PER_CPU = 2  # graders per core: each waits on its kernel part of the time (benchmarks/bench_dask.py)
SANDBOX_SWITCH = "AUTOGRADER_SANDBOX"  # off / 0 / no / false: grade without bubblewrap (student code runs as you)
CELL_TIMEOUT = 60  # seconds per cell when the course's nbgrader_config.py sets no c.Execute.timeout
HUNG_GRACE = 30.0  # seconds past the cell timeout a grading may go without progress before it is presumed hung


class KitConfig(Configurable):
    """Budgets, limits and parallelism of the kit's grading."""

    notebook_budget = Float(
        120.0, help="Seconds one notebook may run in all; once spent, its remaining cells are not run and score 0."
    ).tag(config=True)
    memory_limit_mb = Integer(
        4096, help="Address-space limit of each process of a grading kernel, in MiB (0: none)."
    ).tag(config=True)
    jobs = Integer(
        help="Worker processes grading students side by side (default: twice the CPU count: a worker "
        "waits on its kernel part of the time; benchmarks/bench_dask.py measures it)."
    ).tag(config=True)
    hung_grace = Float(
        HUNG_GRACE,
        help="Seconds past the cell timeout a student's grading may go without progress (a finished cell, a "
        "kernel that answered, a step of grading) before its worker is presumed hung, killed and the student "
        "graded again elsewhere. Shorter finds a hung worker sooner; it must stay above the longest quiet step "
        "of an honest grading on your machines (a kernel's start, a gradebook write, under load).",
    ).tag(config=True)
    sandbox = Bool(
        help=f"Run student code inside bubblewrap (default: on, unless the environment sets {SANDBOX_SWITCH}=off)."
    ).tag(config=True)

    @default("jobs")
    def _default_jobs(self) -> int:
        return JOBS_PER_CPU * (os.cpu_count() or 1)

    @default("sandbox")
    def _default_sandbox(self) -> bool:
        return os.environ.get(SANDBOX_SWITCH, "on").lower() not in ("off", "0", "no", "false")


class SimilarityConfig(Configurable):
    """The similarity report (`similarity`, and the end of `grade`): which pairs the class report lists."""

    threshold = Float(
        0.5,
        help="Pairs scoring at least this (0..1) are listed in the class report; the "
        "similarity page shows each notebook's top pairs whatever their score. Independent "
        "solutions of this module score about 0.1, a renamed and reordered copy about "
        "1.",
    ).tag(config=True)
    shown = Integer(5, help="Pairs per notebook the similarity page shows side by side.").tag(config=True)
    common_share = Float(
        0.1,
        help="A fragment found in more than this share of the submissions (and in more "
        "than 3) is common knowledge and never counts (MOSS's -m).",
    ).tag(config=True)
    past = Unicode(
        "",
        help="A folder of earlier terms' submissions (any NOTEBOOK.ipynb under it) compared "
        "with the class too (empty: none).",
    ).tag(config=True)


def read_course_config(course_dir: Path) -> Config:
    """The course's ``nbgrader_config.py`` as a traitlets Config (empty when the course has none)."""
    course_dir = Path(course_dir).resolve()
    config = Config()
    if (course_dir / CONFIG_FILE).exists():
        config.merge(PyFileConfigLoader(CONFIG_FILE, path=str(course_dir)).load_config())
    return config


def course_cell_timeout(config: Config | None = None) -> int:
    """Seconds one cell may run: the course's ``c.Execute.timeout``, else the kit's default."""
    timeout = (config or Config()).get("Execute", {}).get("timeout")
    return int(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else CELL_TIMEOUT


@dataclass(frozen=True)
class GradingOptions:
    """One grading run's choices, decided once (:func:`grading_options`) and handed whole to every grader."""

    notebook_budget: float
    cell_timeout: int
    memory_limit_mb: int
    sandbox: bool
    jobs: int
    feedback: bool = True
    hung_grace: float = HUNG_GRACE  # not a grading input: how soon a silent worker is presumed hung


def grading_options(
    config: Config | None = None,
    *,
    notebook_budget: float | None = None,
    cell_timeout: int | None = None,
    sandbox: bool | None = None,
    jobs: int | None = None,
    feedback: bool = True,
) -> GradingOptions:
    """The run's options: the course's ``config`` (its nbgrader_config.py), each flag that is not None
    written over it (command-line flags win over the file, as in nbgrader)."""
    kit = kit_options(config, notebook_budget=notebook_budget, sandbox=sandbox, jobs=jobs)
    return GradingOptions(
        notebook_budget=kit.notebook_budget,
        cell_timeout=cell_timeout if cell_timeout is not None else course_cell_timeout(config),
        memory_limit_mb=kit.memory_limit_mb,
        sandbox=kit.sandbox,
        jobs=kit.jobs,
        feedback=feedback,
        hung_grace=kit.hung_grace,
    )


def kit_options(config: Config | None = None, **overrides) -> KitConfig:
    """The kit's options from ``config``, with every override that is not None written over them
    (command-line flags win over the file, as in nbgrader)."""
    config = copy.deepcopy(config) if config is not None else Config()
    for name, value in overrides.items():
        if name not in KitConfig.class_trait_names(config=True):
            raise TypeError(f"KitConfig has no option {name!r}")
        if value is not None:
            config.KitConfig[name] = value
    return KitConfig(config=config)
