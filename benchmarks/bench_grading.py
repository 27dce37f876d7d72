"""Grading speed: the kit against plain nbgrader, side by side, on the same class, and one student's steps.

    python benchmarks/bench_grading.py [--students 16] [--jobs 2] [--no-bare] [--no-plain]

Two scratch courses get the same class (16 submissions by default: the reference, stubs, an
independent solution, a half-finished one and the common misconceptions, no hangs). Then:

1. plain nbgrader, as an instructor runs it: `nbgrader autograde`, `nbgrader generate_feedback` and
   `nbgrader export`, one after the other;
2. the kit: `python -m autograder grade --jobs N` (the canary, autograde in sandboxed kernels, hidden
   checks run outside them, feedback, exports, similarity and the class report);
3. bare execution: `jupyter nbconvert --execute` of every notebook of one finished submission;
4. one reference student graded alone with `grade_student`, in a process of its own: first as the
   process's first student (cold: imports, templates), then a second one as a warm pool worker grades
   it, with the time of each step.

For each of 1-3 it prints the wall time and the CPU time per notebook: the whole machine's user +
system time (from /proc/stat, so sandboxed kernels count, and so does anything else the machine runs
meanwhile) and the CPU of the command's process tree (its reaped children, which other work on the
machine does not inflate); then the ratios of plain nbgrader to the kit.  `--students 2` gives a quick
run for comparing two versions of the kit on a busy machine (run both back to back).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course import ASSIGNMENT, NOTEBOOKS, make_scratch_course  # noqa: E402
from autograder.devtools.demo import CLASS, persona_notebooks  # noqa: E402
from autograder.devtools.personas import write_submission  # noqa: E402

ENV = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
TICK = os.sysconf("SC_CLK_TCK")


def the_class(n: int) -> dict[str, object]:
    personas = [p for _, p in CLASS.values() if p not in ("hangs", "crashes", "broken-file")]
    return {f"s{i:03d}": personas[i % len(personas)] for i in range(n)}


def machine_cpu() -> float:
    """Seconds of CPU the whole machine has spent since boot: user + nice + system, every core (/proc/stat)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()
    user, nice, system = (int(x) for x in fields[1:4])
    return (user + nice + system) / TICK


def children_cpu() -> float:
    """User + system seconds of this process's reaped children (and theirs, when they reaped them)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Run:
    wall: float = 0.0
    machine: float = 0.0  # whole-machine CPU seconds over the run
    tree: float = 0.0  # the command's process tree
    stdout: str = ""

    def __add__(self, other: Run) -> Run:
        return Run(
            self.wall + other.wall, self.machine + other.machine, self.tree + other.tree, self.stdout + other.stdout
        )


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    wall, machine, tree = time.perf_counter(), machine_cpu(), children_cpu()
    out = subprocess.run(
        cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env or ENV, text=True, check=True
    )
    return Run(time.perf_counter() - wall, machine_cpu() - machine, children_cpu() - tree, out.stdout)


def class_course(course: Path, students: dict[str, object]) -> None:
    """A scratch course (config, source notebooks, a new gradebook) with ``students``' submissions."""
    make_scratch_course(course)
    for student, persona in students.items():
        write_submission(course, student, persona_notebooks(persona))


def plain_nbgrader(course: Path, *, export: bool = True) -> list[Run]:
    """nbgrader as an instructor runs it: `autograde`, `generate_feedback` (and `export`), one after the other."""
    nbg = [sys.executable, "-m", "nbgrader"]
    steps = [["autograde", ASSIGNMENT], ["generate_feedback", ASSIGNMENT]] + ([["export"]] if export else [])
    return [timed(nbg + step, course) for step in steps]


# --- one student alone, in a process of its own ------------------------------------------------------


def one_student(course: Path) -> None:
    """(In the child process) grade two reference students one after the other; print their results as JSON."""
    from autograder.course import Assignment, Course
    from autograder.grading.grade import grade_student

    assignment = Assignment(Course(course), ASSIGNMENT)
    out = []
    for student in ("solo-cold", "solo-warm"):
        cpu = time.process_time()
        result = grade_student(assignment, student)
        out.append(
            {
                "status": str(result.status),
                "score": result.score,
                "seconds": result.seconds,
                "cpu": time.process_time() - cpu,
                "notebooks": result.notebook_seconds,
                "steps": getattr(result, "step_seconds", {}),  # (a kit from before it recorded them)
            }
        )
    print(json.dumps(out))


def hidden_checks_seconds(repeats: int = 5) -> float:
    """Median seconds of all hidden checks of the five reference notebooks, run in this process."""
    from statistics import median

    from autograder.devtools.mutants.inprocess import time_checks

    return sum(median(time_checks(name, repeats)) for name in NOTEBOOKS)


def student_alone(course: Path) -> tuple[list[dict], Run]:
    for student in ("solo-cold", "solo-warm"):
        write_submission(course, student, persona_notebooks("reference"))
    run = timed([sys.executable, __file__, "--one-student", str(course)], course)
    return json.loads(run.stdout.strip().splitlines()[-1]), run


def print_student(results: list[dict], checks: float) -> None:
    print(f"\none reference student graded alone (grade_student, {len(NOTEBOOKS)} notebooks), seconds:")
    print(f"hidden checks of the {len(NOTEBOOKS)} notebooks, in-process (median of 5): {checks:.3f} s")
    print(f"{'':44}{'cold wall':>10}{'cpu':>7}{'warm wall':>11}{'cpu':>7}")

    def row(label: str, cells: list[tuple[float, float | None]]) -> None:
        text = "".join(f"{w:{10 + i}.2f}{'' if c is None else f'{c:.2f}':>7}" for i, (w, c) in enumerate(cells))
        print(f"{label:44}{text}")

    def step(r: dict, name: str) -> tuple[float, float]:
        s = r["steps"].get(name, {"wall": 0.0, "cpu": 0.0})
        return s["wall"], s["cpu"]

    execution = [sum(r["notebooks"].values()) for r in results]
    row("total (grading process CPU)", [(r["seconds"], r["cpu"]) for r in results])
    if not all(r["steps"] for r in results):  # a kit from before grade_student recorded its steps
        row("  kernel execution, all notebooks", [(e, None) for e in execution])
        return
    row("  intake (config, source notebooks, staging)", [step(r, "intake") for r in results])
    row("  autograde (nbgrader Autograde)", [step(r, "autograde") for r in results])
    row("    kernel execution, all notebooks", [(e, None) for e in execution])
    for name in NOTEBOOKS:
        row(f"      {name}", [(r["notebooks"].get(name, 0.0), None) for r in results])
    row(
        "    bookkeeping (autograde less execution)",
        [(step(r, "autograde")[0] - e, None) for r, e in zip(results, execution)],
    )
    row("  gradebook (read back points, diagnoses)", [step(r, "gradebook") for r in results])
    row("  feedback (GenerateFeedback, pages)", [step(r, "feedback") for r in results])


# --- the whole comparison ----------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=16, help="submissions in the class (default 16)")
    parser.add_argument("--jobs", type=int, default=2, help="the kit's grading processes (default 2)")
    parser.add_argument("--no-bare", action="store_true", help="skip the bare nbconvert --execute run")
    parser.add_argument(
        "--no-plain", action="store_true", help="skip plain nbgrader (the kit alone: its CPU per notebook, and split)"
    )
    parser.add_argument("--one-student", type=Path, help=argparse.SUPPRESS)  # the child of step 4
    args = parser.parse_args()
    if args.one_student:
        one_student(args.one_student)
        return
    students = the_class(args.students)
    notebooks = args.students * len(NOTEBOOKS)
    with tempfile.TemporaryDirectory(prefix="kit-bench-") as tmp:
        tmp = Path(tmp)
        plain, kit = tmp / "plain", tmp / "kit"
        for course in (kit,) if args.no_plain else (plain, kit):
            class_course(course, students)
        auto, feed, export = (Run(), Run(), Run()) if args.no_plain else plain_nbgrader(plain)
        nbgrader = auto + feed + export
        # an empty store of highlighted cells (the user's own, ~/.cache, holds what earlier gradings highlighted)
        cold = dict(ENV, AUTOGRADER_HIGHLIGHT_STORE=str(tmp / "highlighted"))
        ours = timed([sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--jobs", str(args.jobs)], kit, cold)
        canary = re.search(r"canary: .* in ([0-9.]+)s", ours.stdout)

        bare = Run()
        if not args.no_bare:
            bare_dir = tmp / "bare"
            shutil.copytree(kit / "submitted" / "s000" / ASSIGNMENT, bare_dir)
            for nb in NOTEBOOKS:
                cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--execute", "--to", "notebook"]
                bare = bare + timed(cmd + ["--output", f"{nb}-out", f"{nb}.ipynb"], bare_dir)
        solo, _ = student_alone(kit)
        checks = hidden_checks_seconds()

    print(
        f"class: {args.students} submissions x {len(NOTEBOOKS)} notebooks = {notebooks} notebooks; kit jobs: {args.jobs}"
    )
    print("CPU: whole machine (user + system, /proc/stat) and the command's process tree, per notebook")
    print(f"{'':38}{'wall s':>9}{'per notebook s':>16}{'vs bare':>9}{'CPU/nb machine':>16}{'tree':>7}")
    per_bare = bare.wall / len(NOTEBOOKS) if bare.wall else 0.0

    def row(label: str, run: Run, count: int, per: float | None = None) -> None:
        vs = f"{per / per_bare:8.2f}x" if per is not None and per_bare else ""
        per_text = f"{per:16.2f}" if per is not None else f"{'':16}"
        print(f"{label:38}{run.wall:9.1f}{per_text}{vs:>9}{run.machine / count:16.2f}{run.tree / count:7.2f}")

    if not args.no_plain:
        row("plain nbgrader (autograde)", auto, notebooks)
        row("plain nbgrader (generate_feedback)", feed, notebooks)
        row("plain nbgrader (export)", export, notebooks)
        row("plain nbgrader, all three", nbgrader, notebooks, nbgrader.wall / notebooks)
    row(f"kit grade --jobs {args.jobs}", ours, notebooks, ours.wall * args.jobs / notebooks)
    if bare.wall:
        row("bare jupyter nbconvert --execute", bare, len(NOTEBOOKS), per_bare)
    print("(the kit's per notebook wall is worker-seconds: wall x jobs / notebooks; its run includes the canary,")
    print(f" the reference graded once before the class{f': {canary.group(1)} s' if canary else ''})")
    if not args.no_plain:
        print(f"speed-up of the kit over plain nbgrader, wall: {nbgrader.wall / ours.wall:.2f}x")
        print(
            f"CPU per notebook, plain nbgrader / kit: whole machine {nbgrader.machine / ours.machine:.2f}x, "
            f"process tree {nbgrader.tree / ours.tree:.2f}x"
        )
    print_student(solo, checks)


if __name__ == "__main__":
    main()
