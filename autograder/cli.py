"""`python -m autograder COMMAND`: the kit's command line."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import ASSIGNMENT


def repo_root() -> Path:
    """The kit's repository root (the course root), found from this package's location."""
    return Path(__file__).resolve().parent.parent


def _ensure_tools_on_path() -> None:
    # nbgrader shells out to `alembic` when it creates a gradebook, and to `jupyter` for kernels.
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def cmd_mutants(args) -> int:
    from .mutants.run import format_table, run_mutants

    rows = run_mutants(jobs=args.jobs, names=args.only or None)
    print(format_table(rows))
    return 0 if all(r.ok for r in rows) else 1


def cmd_build(args) -> int:
    from .build import build
    from .validate import AuthoringError

    try:
        for path in build(Path(args.repo)):
            print(f"wrote {path.relative_to(args.repo)}")
    except AuthoringError as e:
        print(f"build failed: {e}", file=sys.stderr)
        return 1
    return 0


def main(argv=None) -> int:
    _ensure_tools_on_path()
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="assignments/*.py -> source/ and release/ (validated)")
    p.add_argument("--repo", default=str(repo_root()), help="the kit's root (default: %(default)s)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("mutants", help="grade every catalogued mutant with nbgrader; print caught/diagnosed")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPU count)")
    p.add_argument("--only", nargs="*", help="grade only these mutants (by name)")
    p.set_defaults(func=cmd_mutants)

    args = parser.parse_args(argv)
    return args.func(args)
