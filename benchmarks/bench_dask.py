"""Grading on a Dask cluster against the local pool, and how many graders one machine should run.

    python benchmarks/bench_dask.py [--sizes 16,64,256] [--class-size 16] [--jobs 2,4] [--parts 1,2,3]

Prints, side by side, in one run:

1. the local pool (`grade --jobs 2`) at each class size of --sizes: seconds per student, and how far
   each size is from the smallest (the cost per student should stay flat as the class grows);
2. a 2-worker Dask cluster (`dask scheduler` + two `dask worker --nthreads 1` on this machine)
   against `grade --jobs 2` on the same class of --class-size, both on one PostgreSQL server: the
   cluster's overhead (shipping files both ways, a scratch course per task);
3. worker counts on one machine: `grade --jobs N` for each N of --jobs on the same class, so that
   the default (``KitConfig.jobs``, twice the CPU count) follows what is measured.  The same reason
   (a grader waits on its kernel part of the time) says how many tasks a Dask worker should take
   at once: `dask worker --nthreads` twice its cores.

Every class is the demo's personas in turn, without the hang, the crash and the broken file (those
measure budgets, not throughput).  Needs the PostgreSQL server binaries (as the tests do); a quick
run: `--sizes 4,8 --class-size 8 --jobs 2,4`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.course import ASSIGNMENT, make_scratch_course  # noqa: E402
from autograder.devtools.demo import CLASS, persona_notebooks  # noqa: E402
from autograder.devtools.personas import write_submission  # noqa: E402
from tests.conftest import postgres_server  # noqa: E402 - the tests' throwaway PostgreSQL server
from tests.test_dask_grading import Cluster  # noqa: E402 - the tests' real scheduler and two workers

ENV = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def the_class(n: int) -> dict[str, object]:
    personas = [p for _, p in CLASS.values() if p not in ("hangs", "crashes", "broken-file")]
    return {f"s{i:03d}": personas[i % len(personas)] for i in range(n)}


def course_with(folder: Path, n: int) -> Path:
    make_scratch_course(folder)
    for student, persona in the_class(n).items():
        write_submission(folder, student, persona_notebooks(persona))
    return folder


def grade(course: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--course-dir", str(course), *args],
        env=ENV,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="16,64,256", help="class sizes for the local pool (default: %(default)s)")
    parser.add_argument("--class-size", type=int, default=16, help="the class for cluster and worker counts")
    parser.add_argument("--jobs", default="2,4", help="worker counts to compare on one machine (default: %(default)s)")
    parser.add_argument("--parts", default="1,2,3", help="which of the three comparisons to run (default: %(default)s)")
    args = parser.parse_args()
    parts = {int(p) for p in args.parts.split(",")}
    sizes = [int(n) for n in args.sizes.split(",")]
    counts = [int(n) for n in args.jobs.split(",")]
    n = args.class_size
    with tempfile.TemporaryDirectory(prefix="kit-bench-dask-") as tmp:
        tmp = Path(tmp)
        scaling = [
            (f"local --jobs 2, {size} students", size, grade(course_with(tmp / f"size{size}", size), "--jobs", "2"))
            for size in (sizes if 1 in parts else [])
        ]
        if 2 in parts:
            with postgres_server("bench", ("local", "cluster")) as urls:
                local = grade(course_with(tmp / "local", n), "--jobs", "2", "--db-url", urls["local"])
                cluster = Cluster(tmp / "dask")
                try:
                    remote = grade(
                        course_with(tmp / "remote", n), "--scheduler", cluster.address, "--db-url", urls["cluster"]
                    )
                finally:
                    cluster.close()
        by_jobs = {j: grade(course_with(tmp / f"jobs{j}", n), "--jobs", str(j)) for j in (counts if 3 in parts else [])}

    if scaling:
        print(f"\n1. the local pool as the class grows (cpu count {os.cpu_count()})")
        base = scaling[0][2] / scaling[0][1]
        for label, size, seconds in scaling:
            per = seconds / size
            print(
                f"   {label:34} {seconds:8.1f} s   {per:6.2f} s/student   {100 * (per / base - 1):+6.1f}% vs {sizes[0]}"
            )
    if 2 in parts:
        print(f"\n2. a 2-worker Dask cluster against the local pool, {n} students, PostgreSQL gradebook")
        print(f"   {'local --jobs 2':34} {local:8.1f} s   {local / n:6.2f} s/student")
        print(
            f"   {'dask, 2 workers x 1 thread':34} {remote:8.1f} s   {remote / n:6.2f} s/student   "
            f"{100 * (remote / local - 1):+6.1f}% overhead"
        )
    if by_jobs:
        print(f"\n3. worker counts on one machine, {n} students")
        first = by_jobs[counts[0]]
        for j, seconds in by_jobs.items():
            print(
                f"   {'local --jobs ' + str(j):34} {seconds:8.1f} s   {seconds / n:6.2f} s/student   "
                f"{100 * (1 - seconds / first):+6.1f}% faster than --jobs {counts[0]}"
            )
        best = min(by_jobs, key=by_jobs.get)
        print(
            f"\n   fastest here: --jobs {best} = {best / (os.cpu_count() or 1):g} x the CPU count "
            "(the kit's default: 2 x; a Dask worker: --nthreads 2 x its cores)"
        )


if __name__ == "__main__":
    main()
