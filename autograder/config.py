"""The kit's options, as traitlets read from the course's ``nbgrader_config.py`` like nbgrader's own.

In ``nbgrader_config.py``::

    c.KitConfig.notebook_budget = 90
    c.KitConfig.jobs = 8
    c.ResourceLimits.memory_limit = "2GiB"

Every option a course can set is declared once, here: the run's (:class:`KitConfig`) and each graded notebook's
limits (:class:`ResourceLimits`), each with one name, one unit and its ``help=`` as its documentation, and each
default written once.  The ``grade`` command's flags override the file.  The seconds one cell may run are
nbgrader's own ``c.Execute.timeout`` (plain ``nbgrader autograde`` reads it too), not a second option of the kit's.
Memory is a size: ``"2GiB"``, ``"512MiB"``, ``"2GB"`` (decimal, as Dask reads it) or a number of bytes.

:func:`grading_options` turns the file and the flags into one frozen :class:`GradingOptions`, the value every
grader (local pool, Dask task, Gradescope, ``check --thorough``) is handed whole, and every grading setting is
read from: the sandbox's limits are its :class:`NotebookLimits`, and it is the run's recorded grading input
(``classroom/history/inputs.py``).  Names that were replaced (:data:`RENAMED`) still work, with a warning.
"""

from __future__ import annotations

import copy
import os
import re
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from traitlets import Bool, Enum, Float, Int, Integer, TraitError, TraitType, Unicode, default
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

CONFIG_FILE = "nbgrader_config.py"
JOBS_PER_CPU = 2  # graders per core: each waits on its kernel part of the time (benchmarks/bench_dask.py)
SANDBOX_SWITCH = "AUTOGRADER_SANDBOX"  # off / 0 / no / false: grade without bubblewrap (student code runs as you)
CELL_TIMEOUT = 60  # seconds per cell when the course's nbgrader_config.py sets no c.Execute.timeout
MiB = 1024 * 1024

# the units of a size, as Dask's memory limits read them: decimal kB/MB/GB (and k/M/G), binary KiB/MiB/GiB
SIZE_UNITS = {"": 1, "b": 1}
for _power, _letter in enumerate("kmgtp", start=1):
    SIZE_UNITS.update({_letter: 1000**_power, f"{_letter}b": 1000**_power, f"{_letter}ib": 1024**_power})
SIZE_EXAMPLES = '"2GiB", "512MiB", "2GB" (decimal) or a whole number of bytes'


class ConfigError(ValueError):
    """A setting of the course's nbgrader_config.py that cannot be read: the message names the file and the value."""


def parse_size(value) -> int:
    """Bytes of a size written as Dask writes memory limits: ``"2GiB"``, ``"512 MiB"``, ``"2GB"``, ``"1.5G"``
    (k, M, G, T decimal; KiB, MiB, GiB, TiB binary; case does not matter) or a number of bytes."""
    if isinstance(value, bool):
        raise ValueError(f"not a size: write {SIZE_EXAMPLES}")
    if isinstance(value, (int, float)):
        number, unit = value, ""
    else:
        found = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*", str(value))
        if not found or found.group(2).lower() not in SIZE_UNITS:
            raise ValueError(f"not a size: write {SIZE_EXAMPLES}")
        number, unit = float(found.group(1)), found.group(2).lower()
    if number < 0:
        raise ValueError(f"a size cannot be negative: write {SIZE_EXAMPLES}")
    return int(number * SIZE_UNITS[unit])


class Size(TraitType):
    """A traitlet holding bytes, set as a size: ``"2GiB"``, ``"512MiB"``, ``"2GB"`` or a number of bytes."""

    info_text = f"a size ({SIZE_EXAMPLES})"

    def validate(self, obj, value) -> int:
        try:
            return parse_size(value)
        except ValueError as e:
            raise TraitError(f"c.{type(obj).__name__}.{self.name} = {value!r}: {e}") from None


KIT_DEATH_RETRIES = 2  # a notebook whose kernel the kit's side killed is run again on a fresh kernel this often
HUNG_GRACE = 30.0  # seconds past the cell timeout a grading may go without progress before it is presumed hung


class KitConfig(Configurable):
    """Budgets, limits and parallelism of the kit's grading."""

    notebook_budget = Float(
        120.0, help="Seconds one notebook may run in all; once spent, its remaining cells are not run and score 0."
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
    canary_beside = Bool(
        True,
        help="On a course whose canary must be graded, grade it beside the first students (one per worker, only "
        "students nothing was recorded of), recording nothing of them until it passed and taking their grading "
        "back exactly if it fails (docs/speed.md). False: the canary is graded alone, before any student.",
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


class ResourceLimits(Configurable):
    """Each graded notebook's limits, in its sandbox (``autograder/sandbox/limits.py`` says how each is enforced)."""

    memory_limit = Size(
        "2GiB",
        help="Memory one graded notebook may use: its kernel and every process it starts together (with cgroups, "
        f"the tmpfs pages of its scratch folder count too). A size: {SIZE_EXAMPLES}. Reaching it stops the notebook.",
    ).tag(config=True)
    process_address_space = Size(
        "4GiB",
        help="Address space each single process of a graded notebook may map (RLIMIT_AS), a size like "
        "memory_limit (0: none). It stops one huge allocation at once; memory_limit counts them all.",
    ).tag(config=True)
    max_processes = Int(
        64,
        help="Processes and threads one graded notebook may run at once, its kernel's own "
        "(about 15) included, and in a forked kernel's sandbox the zombies of processes the student's code "
        "orphaned. Reaching it stops the notebook.",
    ).tag(config=True)
    max_written_mb = Int(
        256,
        help="MiB the graded code may write inside the sandbox, its working folder and /tmp "
        "together (one size-capped tmpfs). Filling it stops the notebook.",
    ).tag(config=True)
    max_files = Int(
        10000,
        help="Files and folders the graded code may create in its working folder and /tmp "
        "together. Reaching it stops the notebook.",
    ).tag(config=True)
    max_open_files = Int(
        256,
        help="Open files per process (RLIMIT_NOFILE): the call that opens one more fails.",
    ).tag(config=True)
    max_submitted_mb = Int(
        20,
        help="MiB of a student's submitted files other than the notebooks that are copied "
        "in for grading (and so into autograded/ and feedback/); the rest is left out "
        "with a note.",
    ).tag(config=True)
    max_submitted_files = Int(
        200,
        help="Number of submitted files other than the notebooks that are copied in; the rest is left out with a note.",
    ).tag(config=True)
    mechanism = Enum(
        ["auto", "cgroup", "rlimit"],
        "auto",
        help="How process and memory limits are enforced: 'cgroup' (cgroup v1 pids+memory or a "
        "delegated cgroup v2 subtree; refuse to grade without), 'rlimit' (RLIMIT_NPROC in "
        "bubblewrap's user namespace and a memory watchdog), or 'auto' (cgroups when the kit "
        "can create them, rlimits otherwise).",
    ).tag(config=True)


# Names a course may still write, each read as the option that replaced it: (section, old name) -> (section,
# new name, the old value as the new one).  Each use warns once, naming the new option.
RENAMED = {
    ("ResourceLimits", "max_memory_mb"): ("ResourceLimits", "memory_limit", lambda mib: int(mib) * MiB),
    ("KitConfig", "memory_limit_mb"): ("ResourceLimits", "process_address_space", lambda mib: int(mib or 0) * MiB),
}


def renamed_options(config: Config, warn: bool = True) -> Config:
    """``config`` with every old name of :data:`RENAMED` written as its new one (the new one wins when both are set);
    ``warn``: say so, once per name."""
    config = copy.deepcopy(config)
    for (section, old), (new_section, new, convert) in RENAMED.items():
        if section in config and old in config[section]:
            value = config[section].pop(old)
            if warn:
                warnings.warn(
                    f'c.{section}.{old} is now c.{new_section}.{new} (a size, e.g. "2GiB"): '
                    f"nbgrader_config.py's {old} = {value!r} is read as {new} = {convert(value)} bytes",
                    FutureWarning,
                    stacklevel=2,
                )
            if new not in config[new_section]:
                config[new_section][new] = convert(value)
    return config


@dataclass(frozen=True)
class NotebookLimits:
    """Each graded notebook's limits as a run decided them (:class:`ResourceLimits` declares them): sizes in bytes."""

    memory_limit: int
    process_address_space: int
    max_processes: int
    max_written_mb: int
    max_files: int
    max_open_files: int
    max_submitted_mb: int
    max_submitted_files: int
    mechanism: str

    @classmethod
    def from_config(cls, config: Config | None = None, warn: bool = True) -> NotebookLimits:
        """The limits ``config`` sets (its old names read as the new ones), each one it does not set at its default."""
        declared = ResourceLimits(config=renamed_options(config if config is not None else Config(), warn))
        return cls(**{name: getattr(declared, name) for name in cls.__dataclass_fields__})

    # ---------------------------------------------------------------------------------------- words
    def reason_processes(self) -> str:
        return f"started more than {self.max_processes} processes or threads"

    def reason_memory(self) -> str:
        return f"used more than {size_words(self.memory_limit)} of memory"

    def reason_written(self) -> str:
        return f"wrote more than {self.max_written_mb} MiB"

    def reason_files(self) -> str:
        return f"created more than {self.max_files} files"


def size_words(size: int) -> str:
    """A size as the kit's messages say it: ``2048 MiB`` (in MiB when it is whole MiB), else ``1000000 bytes``."""
    return f"{size // MiB} MiB" if size % MiB == 0 else f"{size} bytes"


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
    """The course's ``nbgrader_config.py`` as a traitlets Config (empty when the course has none); a setting of the
    kit's that cannot be read is a :class:`ConfigError` naming the file and the value."""
    course_dir = Path(course_dir).resolve()
    config = Config()
    if (course_dir / CONFIG_FILE).exists():
        config.merge(PyFileConfigLoader(CONFIG_FILE, path=str(course_dir)).load_config())
        try:
            renamed = renamed_options(config, warn=False)  # the old names are warned of when the options are decided
            NotebookLimits.from_config(renamed)
            KitConfig(config=renamed)
        except TraitError as e:
            raise ConfigError(f"{course_dir / CONFIG_FILE}: {e}") from None
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
    sandbox: bool
    jobs: int
    feedback: bool = True
    limits: NotebookLimits = field(
        default_factory=lambda: NotebookLimits.from_config()
    )  # each graded notebook's, in its sandbox
    hung_grace: float = HUNG_GRACE  # not a grading input: how soon a silent worker is presumed hung
    canary_beside: bool = True  # not a grading input: whether the first students are graded beside the canary


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
        sandbox=kit.sandbox,
        jobs=kit.jobs,
        feedback=feedback,
        limits=NotebookLimits.from_config(config),
        hung_grace=kit.hung_grace,
        canary_beside=kit.canary_beside,
    )


def limits_config(limits: NotebookLimits) -> Config:
    """The traitlets settings of a run's limits: how they reach the kernel manager nbgrader makes."""
    config = Config()
    config.ResourceLimits = Config(asdict(limits))
    return config


def kit_options(config: Config | None = None, **overrides) -> KitConfig:
    """The kit's options from ``config``, with every override that is not None written over them
    (command-line flags win over the file, as in nbgrader)."""
    config = renamed_options(config, warn=False) if config is not None else Config()
    for name, value in overrides.items():
        if name not in KitConfig.class_trait_names(config=True):
            raise TypeError(f"KitConfig has no option {name!r}")
        if value is not None:
            config.KitConfig[name] = value
    return KitConfig(config=config)
