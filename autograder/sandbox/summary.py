"""What ``grade`` prints at start about the sandbox: the limits of each graded notebook and how they are enforced."""

from __future__ import annotations


def describe(limits, sandbox: bool, notebook_budget: float | None = None) -> str:
    """What `grade` prints at start: the limits of each graded notebook and how they are enforced."""
    from ..config import size_words
    from .cgroups import choose_mechanism

    budget = f", {notebook_budget:g} s of running time in all (--notebook-budget)" if notebook_budget else ""
    if not sandbox:
        return f"limits per notebook: time only{budget} (the sandbox is off, so no process, memory or disk limits)"
    mechanism, why = choose_mechanism(limits)
    what = (
        f"limits per notebook: {limits.max_processes} processes and threads, {size_words(limits.memory_limit)} of memory "
        f"(all processes together), {limits.max_written_mb} MiB written and {limits.max_files} files "
        f"(working folder and /tmp together), {limits.max_open_files} open files per process{budget}"
    )
    if mechanism.startswith("cgroup"):
        how = (
            f"enforced by: {mechanism} (pids, memory), a size-capped tmpfs for the working folder and /tmp, "
            f"rlimits (nofile, fsize, address space)"
        )
    else:
        how = (
            f"enforced by: rlimits in bubblewrap's user namespace (nproc, nofile, fsize, address space), "
            f"a size-capped tmpfs for the working folder and /tmp, a memory watchdog (no cgroups: {why})"
        )
    return what + "\n" + how
