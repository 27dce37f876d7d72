"""Small jobs: what a self-learner runs again and again, and an instructor runs for one late student, each
timed side by side with its anchor in the same run (issue 34's goals).

    python benchmarks/bench_small_jobs.py [--repeat 3] [--students 8] [--only startup check thorough grade cpu]
    python benchmarks/bench_small_jobs.py --repeat 1 --no-warm-up      # the quick form, for comparing versions

Each job and its anchor run one after the other, ``--repeat`` times (after one warm-up of both, unless
``--no-warm-up``); the table gives each one's median wall time, the ratio and the goal, and whether the goal
is met or by how much it falls short:

- start-up: ``python -m autograder --help`` and every command's ``--help`` against ``python -c "import
  numpy"`` (goal: well under a second, read as at most 0.5 s);
- ``check`` of the lesson-2 reference solution against a bare ``jupyter nbconvert --to notebook --execute``
  of the same notebook (goal: at most 0.5x);
- ``check --thorough`` of it, the canary remembered (at most 1.3x the bare run) and the first time, its
  canary graded (at most 2x);
- one student's first ``grade``, on a course never graded before (the canary included), against plain
  nbgrader's ``autograde`` + ``generate_feedback`` of that student on a course of its own (at most 0.5x);
- the CPU per notebook over ``--students`` students (8), ``grade --jobs 1`` against plain nbgrader's
  ``autograde`` + ``generate_feedback`` + ``export``, the whole machine's user + system time (at least 2x
  less), run once (``--cpu-repeat``): with nothing else running, the whole machine's CPU is the kit's; the
  process tree's is printed beside it, and where a graded notebook's CPU went (:func:`cpu_split`: kernel start,
  cells, hidden checks, kernel stop, the grading process's and the kernel's own; nbgrader's Autograde around them,
  intake, gradebook, feedback; what every run pays once; the rest of the tree).

For a goal missed (or every job, with ``--breakdown``), where the kit's time went: its run of median wall time,
phase by phase, as the kit's processes recorded them (``AUTOGRADER_TIMINGS``, :mod:`autograder.timing`: each
phase's wall time and the CPU of the process that ran it; a worker's phases under the command's phase they fall in,
and what no phase holds).

The course set-up, the CPU accounting and the plain-nbgrader anchor are benchmarks/bench_grading.py's.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_grading import ENV, REPO, Run, class_course, plain_nbgrader, the_class, timed  # noqa: E402

from autograder.course import ASSIGNMENT, NOTEBOOKS  # noqa: E402
from autograder.devtools.demo import persona_notebooks  # noqa: E402

CACHE_ENV = "AUTOGRADER_CANARY_CACHE"  # autograder.grading.canary's (not imported: it imports nbgrader)
HIGHLIGHT_ENV = "AUTOGRADER_HIGHLIGHT_STORE"  # autograder.grading.highlight_store's
TIMINGS_ENV = "AUTOGRADER_TIMINGS"  # autograder.timing's
LESSON = NOTEBOOKS[1]  # lesson 2
KIT = [sys.executable, "-m", "autograder"]
JOBS = ("startup", "check", "thorough", "grade", "cpu")
STARTUP_GOAL = 0.5  # "well under a second"


@dataclass
class Row:
    job: str
    kit: float
    anchor_name: str
    anchor: float | None
    goal: str  # in words
    met: bool
    short: str  # by how much it falls short ("" when met)
    less: bool = False  # the ratio is anchor / kit ("x less"), not kit / anchor
    trace: str = ""  # the kit's job in TRACES, whose phases say where its time went

    @property
    def ratio(self) -> str:
        if not self.anchor or not self.kit:
            return ""
        return f"{self.anchor / self.kit:.2f}x less" if self.less else f"{self.kit / self.anchor:.2f}x"


TRACES: dict[str, list[tuple[float, Path]]] = {}  # a kit job -> (wall, its phases' file) of each of its runs


def kit_run(trace: str, cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """``timed``, the kit's processes recording their phases (autograder.timing) in a file kept in TRACES."""
    runs = TRACES.setdefault(trace, [])
    phases = Path(tempfile.gettempdir()) / f"kit-phases-{os.getpid()}-{trace}-{len(runs)}.jsonl"
    phases.unlink(missing_ok=True)
    run = timed(cmd, cwd, {**(env or ENV), TIMINGS_ENV: str(phases)})
    runs.append((run.wall, phases))
    return run


def breakdown(trace: str) -> list[str]:
    """Where the kit's time went in the run of ``trace`` closest to its median wall time: the command's phases in
    the order they began (a phase timed more than once adds up), each worker process's under the command's phase
    it began in, and what no phase of the command holds (the interpreter's exit, a pool's shut-down...)."""
    runs = TRACES.get(trace) or []
    if not runs:
        return []
    mid = median(wall for wall, _ in runs)
    wall, path = min(runs, key=lambda run: abs(run[0] - mid))
    try:
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        records = []
    if not records:
        return [f"  (no phases recorded: {path})"]
    command = next((r["pid"] for r in records if r["name"] == "start-up, imports"), records[0]["pid"])
    steps = ("intake", "autograde", "gradebook", "feedback")  # grade_student's, recorded as "student: step"
    students = {r["name"].split(": ")[0] for r in records if r["name"].split(": ")[-1] in steps}
    students.discard("kit-canary")
    if len(students) > 1:  # a class: each step of grading a student, added up over them
        for r in records:
            if r["name"].split(": ")[0] in students:
                r["name"] = f"{len(students)} students: {r['name'].split(': ', 1)[1]}"
    top: dict[str, list] = {}  # name -> [wall, cpu, [(name, wall, cpu, pid)]]
    for r in sorted(records, key=lambda r: r["start"]):
        if r["pid"] == command and not r["name"].startswith("canary, "):
            entry = top.setdefault(r["name"], [0.0, 0.0, {}, r])
            entry[0] += r["end"] - r["start"]
            entry[1] += r["cpu"]
    for r in sorted(records, key=lambda r: r["start"]):
        if r["pid"] != command or r["name"].startswith("canary, "):
            begun = [e for e in top.values() if e[3]["start"] <= r["start"] + 0.05]  # the clocks' tick: 10 ms
            home = max(begun, key=lambda e: e[3]["start"]) if begun else next(iter(top.values()))
            inner = home[2].setdefault((r["name"], r["pid"] != command), [0.0, 0.0])
            inner[0] += r["end"] - r["start"]
            inner[1] += r["cpu"]
    covered = sum(e[0] for name, e in top.items() if not name.startswith("("))
    lines = [f"  {'phase (CPU: of the process that ran it, its kernels not counted)':60}{'wall':>7}{'CPU':>7}"]
    for name, (w, cpu, inner, _) in top.items():
        lines.append(f"  {name:60}{w:7.2f}{cpu:7.2f}")
        for (sub, worker), (sw, scpu) in inner.items():
            lines.append(f"    {sub + (' (worker)' if worker else ''):58}{sw:7.2f}{scpu:7.2f}")
    lines.append(f"  {'in no phase of the command (its exit, gaps between phases)':60}{wall - covered:7.2f}")
    lines.append(f"  {'the whole run, as timed here':60}{wall:7.2f}")
    return lines


def cpu_split(trace: str, tree: float, notebooks: int) -> list[str]:
    """Where a graded notebook's CPU went in the run of ``trace`` closest to its median (the process tree's
    ``tree`` seconds over ``notebooks`` graded notebooks), from the phases the kit's processes recorded: each
    notebook's kernel start, cells, hidden checks and kernel stop (the grading process's CPU and the kernel's own,
    :class:`autograder.grading.execute.CpuSplit`), nbgrader's Autograde bookkeeping around them, the students'
    intake, gradebook and feedback steps; then what every run pays once (the canary, the command, the workers'
    start) and the rest of the tree (fork servers, sandboxes' placeholders, what no phase holds)."""
    runs = TRACES.get(trace) or []
    if not runs or not notebooks:
        return []
    mid = median(wall for wall, _ in runs)
    _, path = min(runs, key=lambda run: abs(run[0] - mid))
    try:
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        return [f"  (no phases recorded: {path})"]
    canary = [(r["pid"], r["start"], r["end"]) for r in records if r["name"] == "kit-canary: autograde"]

    def of_canary(r) -> bool:
        return r["name"].startswith(("kit-canary: ", "canary")) or any(
            r["pid"] == pid and start <= r["start"] <= end for pid, start, end in canary
        )

    parts: dict[str, float] = {}

    def add(name: str, cpu: float) -> None:
        parts[name] = parts.get(name, 0.0) + cpu

    command = next((r["pid"] for r in records if r["name"] == "start-up, imports"), None)
    own = sorted((r for r in records if r["pid"] == command), key=lambda r: (r["start"], -r["end"]))
    top, last_end = [], float("-inf")
    for r in own:  # the command's phases, those inside another left out (their CPU is in it)
        if r["end"] > last_end:
            top.append(r)
            last_end = r["end"]
    add("once per run: the command (start-up, imports, checks, waiting, exports, report)", sum(r["cpu"] for r in top))
    steps = ("intake", "autograde", "gradebook", "feedback")
    in_notebooks = 0.0  # the grading process's CPU inside the notebooks' execution
    for r in records:
        name, cpu = r["name"], r["cpu"]
        if r["pid"] == command:
            continue
        if name.startswith("notebook: "):
            what = name[len("notebook: ") :]
            if of_canary(r):
                add("once per run: the canary (its kernels)", cpu if "own CPU" in what else 0.0)
                continue
            kind = {"the kernel's own CPU, its start": "kernel start", "the kernel's own CPU, the cells": "cells"}
            add(f"{kind.get(what, what)}{', the kernel' if 'own CPU' in what else ', the grading process'}", cpu)
            in_notebooks += 0.0 if "own CPU" in what else cpu
        elif of_canary(r):
            add("once per run: the canary (its grading process)", cpu)
        elif name.split(": ")[-1] in steps and ": " in name:
            if name.endswith(": autograde"):
                add("nbgrader's Autograde around the notebooks (sanitising, preprocessors, gradebook writes)", cpu)
            else:
                add(f"the student's {name.split(': ')[-1]}", cpu)
        else:
            add("once per run: the workers' start-up and imports (the canary's own process too)", cpu)
    key = "nbgrader's Autograde around the notebooks (sanitising, preprocessors, gradebook writes)"
    if key in parts:
        parts[key] -= in_notebooks
    lines = [f"  {'CPU per graded notebook (' + str(notebooks) + ' notebooks)':84}{'s':>7}{'share':>7}"]
    for name, cpu in sorted(parts.items(), key=lambda kv: (kv[0].startswith("once"), -kv[1])):
        lines.append(f"  {name:84}{cpu / notebooks:7.3f}{cpu / tree:7.0%}")
    rest = tree - sum(parts.values())
    lines.append(
        f"  {'the rest of the tree (fork servers, sandboxes, bubblewrap, what no phase holds)':84}"
        f"{rest / notebooks:7.3f}{rest / tree:7.0%}"
    )
    lines.append(f"  {'the process tree, in all':84}{tree / notebooks:7.3f}")
    return lines


def env_without_cache(**extra: str) -> dict[str, str]:
    """The kit's environment with nothing remembered: no canary cache, and an empty store of highlighted cells (the
    user's own, in ~/.cache, holds what earlier gradings highlighted: a first grade there would not start cold)."""
    env = {k: v for k, v in ENV.items() if k not in (CACHE_ENV, HIGHLIGHT_ENV)}
    store = tempfile.mkdtemp(prefix="kit-bench-highlighted-")
    atexit.register(shutil.rmtree, store, True)
    return {**env, HIGHLIGHT_ENV: store, **extra}


def medians(jobs: dict[str, Callable[[], Run]], repeat: int, warm_up: bool) -> dict[str, float]:
    """Median wall seconds of each job, the jobs taking turns (so a change in the machine's load hits all)."""
    walls: dict[str, list[float]] = {name: [] for name in jobs}
    for rep in range(repeat + warm_up):
        for name, job in jobs.items():
            wall = job().wall
            if rep or not warm_up:
                walls[name].append(wall)
    return {name: median(w) for name, w in walls.items()}


def at_most(job: str, kit: float, anchor_name: str, anchor: float, factor: float, trace: str = "") -> Row:
    ratio = kit / anchor
    met = ratio <= factor
    short = (
        "" if met else f"{ratio / factor:.2f}x over: needs {anchor * factor:.1f} s, {kit - anchor * factor:.1f} s more"
    )
    return Row(job, kit, anchor_name, anchor, f"<= {factor:g}x", met, short, trace=trace)


# --- the jobs ----------------------------------------------------------------------------------------


def commands() -> list[str]:
    listed = subprocess.run(KIT + ["--help"], cwd=REPO, env=ENV, capture_output=True, text=True, check=True)
    return re.search(r"\{([a-z,-]+)\}", listed.stdout).group(1).split(",")


def startup_rows(repeat: int, warm_up: bool, tmp: Path) -> list[Row]:
    jobs = {"--help": lambda: timed(KIT + ["--help"], tmp)}
    for name in commands():
        jobs[f"{name} --help"] = lambda name=name: timed(KIT + [name, "--help"], tmp)
    jobs["numpy"] = lambda: timed([sys.executable, "-c", "import numpy"], tmp)
    walls = medians(jobs, repeat, warm_up)
    numpy = walls.pop("numpy")
    rows = []
    for name, wall in walls.items():
        met = wall <= STARTUP_GOAL
        short = "" if met else f"{wall - STARTUP_GOAL:.2f} s over"
        rows.append(
            Row(f"autograder {name}", wall, 'python -c "import numpy"', numpy, "<= 0.5 s", met, short, trace=name)
        )
    return rows


def lesson_notebook(folder: Path) -> Path:
    """The lesson-2 reference solution, as a student's file."""
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{LESSON}.ipynb"
    nbformat.write(persona_notebooks("reference")[LESSON], str(path))
    return path


def bare_run(notebook: Path) -> Run:
    out = notebook.with_name(f"{notebook.stem}-executed.ipynb")
    cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--output", out.name]
    return timed(cmd + [notebook.name], notebook.parent)


def check_rows(repeat: int, warm_up: bool, tmp: Path, thorough: bool, check: bool) -> list[Row]:
    notebook = lesson_notebook(tmp / "student")
    remembered = tmp / "canary-remembered"  # filled by the warm-up (or the first repetition)
    fresh = iter(range(1_000_000))

    def first_time() -> Run:
        return kit_run(
            "thorough-first",
            KIT + ["check", "--thorough", notebook.name],
            notebook.parent,
            env_without_cache(**{CACHE_ENV: str(tmp / f"canary-{next(fresh)}")}),
        )

    jobs = {"bare": lambda: bare_run(notebook)}
    if check:
        jobs["check"] = lambda: kit_run("check", KIT + ["check", notebook.name], notebook.parent)
    if thorough:
        remembered_env = env_without_cache(**{CACHE_ENV: str(remembered)})
        if not warm_up:  # the canary remembered needs one run that remembers it
            timed(KIT + ["check", "--thorough", notebook.name], notebook.parent, remembered_env)
        jobs["remembered"] = lambda: kit_run(
            "thorough-remembered", KIT + ["check", "--thorough", notebook.name], notebook.parent, remembered_env
        )
        jobs["first"] = first_time
    walls = medians(jobs, repeat, warm_up)
    bare = "bare jupyter nbconvert --execute"
    rows = []
    if check:
        rows.append(at_most(f"autograder check {LESSON}", walls["check"], bare, walls["bare"], 0.5, "check"))
    if thorough:
        rows.append(
            at_most(
                "check --thorough, canary remembered",
                walls["remembered"],
                bare,
                walls["bare"],
                1.3,
                "thorough-remembered",
            )
        )
        rows.append(at_most("check --thorough, first time", walls["first"], bare, walls["bare"], 2.0, "thorough-first"))
    return rows


def grade_rows(repeat: int, warm_up: bool, tmp: Path) -> list[Row]:
    """One student on a course never graded before: a new course for every run of either side."""
    student = the_class(1)  # the reference solution
    made = iter(range(1_000_000))

    def fresh_course(kind: str) -> Path:
        course = tmp / f"{kind}-{next(made)}"
        class_course(course, student)
        return course

    def kit() -> Run:
        course = fresh_course("kit")
        run = kit_run("grade", KIT + ["grade", ASSIGNMENT, "--jobs", "1"], course, env_without_cache())
        shutil.rmtree(course)
        return run

    def plain() -> Run:
        course = fresh_course("plain")
        auto, feed = plain_nbgrader(course, export=False)
        shutil.rmtree(course)
        return auto + feed

    walls = medians({"kit": kit, "plain": plain}, repeat, warm_up)
    return [
        at_most(
            "grade of one student, first time",
            walls["kit"],
            "nbgrader autograde + generate_feedback",
            walls["plain"],
            0.5,
            "grade",
        )
    ]


def cpu_rows(repeat: int, tmp: Path, students: int) -> tuple[list[Row], str]:
    """CPU per notebook over the class, the whole machine's (user + system) and the process tree's."""
    per_notebook = students * len(NOTEBOOKS)
    kits, plains = [], []
    for rep in range(repeat):
        kit, plain = tmp / f"cpu-kit-{rep}", tmp / f"cpu-plain-{rep}"
        class_course(kit, the_class(students))
        class_course(plain, the_class(students))
        plains.append(sum(plain_nbgrader(plain), Run()))
        kits.append(kit_run("cpu", KIT + ["grade", ASSIGNMENT, "--jobs", "1"], kit, env_without_cache()))
    rows = []
    for label, pick in (("whole machine", lambda r: r.machine), ("process tree", lambda r: r.tree)):
        kit = median(pick(r) for r in kits) / per_notebook
        plain = median(pick(r) for r in plains) / per_notebook
        met = plain / kit >= 2
        short = "" if met else f"{plain / kit:.2f}x less; needs {plain / 2:.2f} s, {kit - plain / 2:.2f} s less"
        rows.append(
            Row(
                f"CPU/notebook, {students} students, --jobs 1, {label}",
                kit,
                "plain nbgrader, all three",
                plain,
                ">= 2x less",
                met,
                short,
                less=True,
                trace="cpu",
            )
        )
    wall = median(r.wall for r in kits)
    note = f"(wall: grade --jobs 1 of {students} students {wall:.1f} s, plain nbgrader's three steps "
    note += f"{median(r.wall for r in plains):.1f} s)"
    split = cpu_split("cpu", median(r.tree for r in kits), per_notebook)
    if split:
        note += "\n\nwhere a graded notebook's CPU went (the process tree's, the run of median wall time):\n"
        note += "\n".join(split)
    return rows, note


def print_rows(rows: list[Row]) -> None:
    print(f"{'small job':52}{'kit':>7}  {'anchor':40}{'anchor':>7}{'ratio':>13}  {'goal':11}goal met")
    for r in rows:
        anchor = f"{r.anchor:7.2f}" if r.anchor is not None else f"{'':7}"
        verdict = "yes" if r.met else f"no, {r.short}"
        print(f"{r.job:52}{r.kit:7.2f}  {r.anchor_name:40}{anchor}{r.ratio:>13}  {r.goal:11}{verdict}")


def print_breakdowns(rows: list[Row], every: bool) -> None:
    """Where the kit's time went, for each goal missed (every job's, with ``every``), each job once."""
    shown = set()
    for r in rows:
        if (r.met and not every) or r.trace in shown:
            continue
        shown.add(r.trace)
        lines = breakdown(r.trace)
        what = "goal met" if r.met else f"goal missed, {r.short}"
        if not lines:  # the start-up's --help exits before a phase is recorded
            lines = [
                f"  (no phases recorded: `python -X importtime -m autograder{r.job[len('autograder') :]}` shows the imports)"
            ]
        print(f"\nwhere the kit's time went, {r.job} ({what}):")
        print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each job and anchor (median; default 3)")
    parser.add_argument("--no-warm-up", dest="warm_up", action="store_false", help="no untimed first run")
    parser.add_argument("--students", type=int, default=8, help="the class of the CPU comparison (default 8)")
    parser.add_argument("--cpu-repeat", type=int, default=1, help="runs of the CPU comparison (default 1)")
    parser.add_argument("--only", nargs="+", choices=JOBS, default=list(JOBS), help="these jobs only")
    parser.add_argument(
        "--breakdown", action="store_true", help="where the kit's time went for every job, not only a goal missed"
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="kit-small-jobs-") as folder:
        tmp = Path(folder)
        rows: list[Row] = []
        if "startup" in args.only:
            rows += startup_rows(args.repeat, args.warm_up, tmp)
        if "check" in args.only or "thorough" in args.only:
            rows += check_rows(args.repeat, args.warm_up, tmp, "thorough" in args.only, "check" in args.only)
        if "grade" in args.only:
            rows += grade_rows(args.repeat, args.warm_up, tmp)
        cpu, note = cpu_rows(args.cpu_repeat, tmp, args.students) if "cpu" in args.only else ([], "")
    print(
        f"\nsmall jobs side by side with their anchors ({os.cpu_count()} cores, load average {load:.1f} at the "
        f"start, {os.getloadavg()[0]:.1f} at the end; the whole machine's CPU counts whatever else it ran)"
    )
    if rows:
        print(f"wall seconds, median of {args.repeat}{' after a warm-up' if args.warm_up else ''}:")
        print_rows(rows)
    if cpu:
        print(f"CPU seconds per notebook, user + system (median of {args.cpu_repeat}):")
        print_rows(cpu)
        print(note)
    print_breakdowns(rows + cpu, args.breakdown)
    for runs in TRACES.values():
        for _, phases in runs:
            phases.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
