"""How often a student's grading is tried again when its worker dies or hangs, and what the student is told after
the last try: the local pool's (:mod:`.batch`) and the Dask cluster's (:mod:`.dask_pool`) alike."""

WORKER_DEATHS = 2  # a submission in flight on this many dead (or hung) grading workers is not tried again
KILLED_TWICE = (
    "its grading killed the grading worker process twice (out of memory, or killed by the system); "
    "it was retried alone once and not graded"
)
HUNG_TWICE = (
    "its grading worker hung past its deadline twice (stopped, or stuck on a lock or a file system), "
    "was stopped each time, and the student was not graded"
)
