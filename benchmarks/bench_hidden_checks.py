"""How long a notebook's hidden checks take (not the kernel start), on the reference solutions.

python benchmarks/bench_hidden_checks.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.course import NOTEBOOKS  # noqa: E402
from autograder.devtools.mutants.inprocess import time_checks  # noqa: E402

print(f"{'notebook':24}{'median ms':>11}{'max ms':>9}   (20 runs, fresh cases each)")
for name in NOTEBOOKS:
    times = time_checks(name)
    print(f"{name:24}{1000 * statistics.median(times):11.1f}{1000 * max(times):9.1f}")

try:  # the input space's oracle (issue 42): how many cases one grading draws per unit
    from autograder.hidden.oracle import DRAWN  # noqa: E402
except ImportError:
    DRAWN = {}
if DRAWN:
    print(f"\n{'unit':46}{'drawn per grading':>18}   (mean of the 20 runs)")
    for (unit, what), n in sorted(DRAWN.items()):
        print(f"{unit + ': ' + what:64}{n / 20:6.1f}")
