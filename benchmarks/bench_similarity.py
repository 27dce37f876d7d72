"""How long the similarity report takes for a large class (the target: under a minute for 256 students).

    python benchmarks/bench_similarity.py [STUDENTS]

Builds a scratch course whose students each fill every solution cell of every notebook with one of
the catalogue's versions of it (the reference, a correct alternative or a mutant, picked at random)
plus a few lines of their own (random constants: no two students alike), then times
`python -m autograder similarity`'s work: fingerprinting, every pair of every notebook compared, the
CSV and the page written.  Nothing is graded: the step reads only the submitted notebooks.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.classroom.similarity.similarity_command import run_similarity, similarity_options  # noqa: E402
from autograder.config import CONFIG_FILE  # noqa: E402
from autograder.course import NOTEBOOKS, Assignment, Course, repo_root  # noqa: E402
from autograder.devtools.mutants import catalogue  # noqa: E402
from autograder.devtools.personas import filled_notebook, reference_solutions, write_submission  # noqa: E402


def versions(repo: Path) -> dict[tuple[str, str], list[str]]:
    """(notebook, grade id) -> every source the catalogue has for that solution cell."""
    found = {(nb, gid): [src] for nb in NOTEBOOKS for gid, src in reference_solutions(repo, nb).items()}
    mutants, alternatives = catalogue()
    for m in mutants + alternatives:
        found[(m.notebook, m.cell)].append(m.cell_source(found[(m.notebook, m.cell)][0]))
    return found


def own_lines(rng: random.Random) -> str:
    return "\n".join(
        f"check_{i} = np.round({rng.random():.6f} * {rng.randint(2, 999)}, {rng.randint(1, 6)})"
        for i in range(rng.randint(1, 4))
    )


def make_class(course: Path, students: int, repo: Path) -> None:
    kit = Course(repo)
    course.mkdir(parents=True, exist_ok=True)
    shutil.copy(repo / CONFIG_FILE, course / CONFIG_FILE)
    for step in ("source", "release"):
        shutil.copytree(kit.folder(step), Course(course).folder(step), dirs_exist_ok=True)
    rng = random.Random(0)
    cells = versions(repo)
    for s in range(students):
        notebooks = {}
        for nb in NOTEBOOKS:
            answers = {
                gid: rng.choice(sources) + "\n" + own_lines(rng) for (name, gid), sources in cells.items() if name == nb
            }
            notebooks[nb] = filled_notebook(repo, nb, answers)
        write_submission(course, f"student{s:03d}", notebooks)


def main() -> None:
    students = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    repo = repo_root()
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp)
        make_class(course, students, repo)
        run_similarity(Assignment(Course(course)), course / "scratch", similarity_options(course))  # imports, caches
        started, cpu = time.perf_counter(), time.process_time()
        outcome = run_similarity(Assignment(Course(course)), None, similarity_options(course))
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        pairs = sum(len(r.pairs) for r in outcome.results)
        # the CPU time too: on a shared machine the wall clock also counts other people's work
        print(
            f"similarity of {students} students x {len(NOTEBOOKS)} notebooks ({os.cpu_count()} cores, one used): "
            f"{seconds:.1f}s wall, {cpu:.1f}s CPU ({pairs} pairs with code in common, {len(outcome.flagged)} at "
            f"or above {outcome.threshold:g}; target < 60s)"
        )


if __name__ == "__main__":
    main()
