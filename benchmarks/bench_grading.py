"""Grading speed: the kit against plain nbgrader, side by side, on the same class.

    python benchmarks/bench_grading.py [--students 16] [--jobs 2]

Two scratch courses get the same class (16 submissions by default: the reference, stubs, an
independent solution, a half-finished one and the common misconceptions, no hangs). Then:

1. plain nbgrader, as an instructor runs it: `nbgrader autograde`, `nbgrader generate_feedback` and
   `nbgrader export`, one after the other;
2. the kit: `python -m autograder grade --jobs N` (autograde in sandboxed kernels, hidden checks run
   outside them, feedback, exports and the class report);
3. bare execution: `jupyter nbconvert --execute` of every notebook of one finished submission.

It prints the wall times, the speed-up of the kit over plain nbgrader, and the cost per notebook of
each against bare execution.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course import ASSIGNMENT, NOTEBOOKS, make_scratch_course  # noqa: E402
from autograder.devtools.demo import CLASS, persona_notebooks  # noqa: E402
from autograder.devtools.personas import write_submission  # noqa: E402

ENV = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
QUIET = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=True)


def the_class(n: int) -> dict[str, object]:
    personas = [p for _, p in CLASS.values() if p not in ("hangs", "crashes", "broken-file")]
    return {f"s{i:03d}": personas[i % len(personas)] for i in range(n)}


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, **QUIET)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    students = the_class(args.students)
    notebooks = args.students * len(NOTEBOOKS)
    with tempfile.TemporaryDirectory(prefix="kit-bench-") as tmp:
        tmp = Path(tmp)
        plain, kit = tmp / "plain", tmp / "kit"
        for course in (plain, kit):
            make_scratch_course(course)
            for student, persona in students.items():
                write_submission(course, student, persona_notebooks(persona))
        nbg = [sys.executable, "-m", "nbgrader"]
        t_auto = timed(nbg + ["autograde", ASSIGNMENT], plain)
        t_feed = timed(nbg + ["generate_feedback", ASSIGNMENT], plain)
        t_export = timed(nbg + ["export"], plain)
        t_plain = t_auto + t_feed + t_export
        t_kit = timed([sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--jobs", str(args.jobs)], kit)

        bare_dir = tmp / "bare"
        shutil.copytree(kit / "submitted" / "s000" / ASSIGNMENT, bare_dir)
        t_bare = sum(
            timed(
                [
                    sys.executable,
                    "-m",
                    "jupyter",
                    "nbconvert",
                    "--execute",
                    "--to",
                    "notebook",
                    "--output",
                    f"{nb}-out",
                    f"{nb}.ipynb",
                ],
                bare_dir,
            )
            for nb in NOTEBOOKS
        )
        per_bare = t_bare / len(NOTEBOOKS)

    per_plain = t_plain / notebooks
    per_kit = t_kit * args.jobs / notebooks  # worker-seconds per notebook
    print(
        f"class: {args.students} submissions x {len(NOTEBOOKS)} notebooks = {notebooks} notebooks; kit jobs: {args.jobs}"
    )
    print(f"{'':38}{'wall s':>9}{'per notebook s':>16}{'vs bare':>9}")
    print(f"{'plain nbgrader (autograde)':38}{t_auto:9.1f}")
    print(f"{'plain nbgrader (generate_feedback)':38}{t_feed:9.1f}")
    print(f"{'plain nbgrader (export)':38}{t_export:9.1f}")
    print(f"{'plain nbgrader, all three':38}{t_plain:9.1f}{per_plain:16.2f}{per_plain / per_bare:8.2f}x")
    print(f"{f'kit grade --jobs {args.jobs}':38}{t_kit:9.1f}{per_kit:16.2f}{per_kit / per_bare:8.2f}x")
    print(f"{'bare jupyter nbconvert --execute':38}{t_bare:9.1f}{per_bare:16.2f}{1:8.2f}x")
    print(f"speed-up of the kit over plain nbgrader: {t_plain / t_kit:.2f}x")


if __name__ == "__main__":
    main()
