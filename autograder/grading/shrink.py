"""The smallest failing case: after a hidden check fails with a diagnosis outside the catalogue, find the
smallest case of that check's input space that still fails the same way, and say it in one line.

"dP fails the gradient check ... worst entry dP[1, 0]" on a drawn batch of shape (3, 6, 7) is true and
no help to a student who cannot see why; the same bug on ``EmbeddingLayer(vocab_size=1, block_size=1,
C=2)`` with one id and a dout of [[[0.0, 1.0]]] can be worked by hand.  Hypothesis does the search
(``find`` and its shrinker) over the check's case space (``autograder.hidden.cases``), in this
grading process, against the student's code behind the channel's proxies; the kernel side needs
nothing but NumPy.

- Only a failing check searches, and only for the ids in :data:`SEARCHED` (and a factor with no name):
  a correct solution, a catalogued mistake or a named relationship (whose message already shows the
  mistake) costs nothing.
- "The same way" is the same diagnosis id, so a small case that crashes where the drawn case gave a
  wrong value does not count.
- Bounded: at most :data:`MAX_CASES` cases run on the student's code (and a fifth more to leave out rows
  and columns, which Hypothesis seldom does) and :data:`SECONDS` of time;
  when the budget runs out (or the student's code stops answering) before the search ends at a case
  with every size <= 3, nothing is added and the drawn case's diagnosis stands alone.
- Deterministic: the search is seeded from ``AUTOGRADER_SEED`` (0 when unset) and the check's name,
  and does not depend on the drawn case, so regrading a submission shows the same smallest case.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import random
import shutil
import time
import zlib

import numpy as np

from ..scratch import private_folder

# the generic ids of a wrong answer; catalogue ids and relationships already tell the mistake in its own words
SEARCHED = frozenset({"wrong-value", "wrong-gradient", "wrong-shape", "crashed", "side-effect"})
# ... except a factor with no name, which shows no case: "softmax(x) is the right values times 0.4409"
UNNAMED_FACTOR = "the right values times "
MAX_CASES = 100  # cases run on the student's code per failing check (2 to 10 calls each)
SECONDS = 8.0  # and at most this much time (a search through the channel takes 1-4 s), within the cell's time
MARGIN = 2.0  # seconds of the cell's time left untouched, for the verdict to reach the kernel
SHOWN = "Smallest failing"  # a message that shows its smallest case (or call sequence) already
ROWS_LEFT_OUT = 5  # 1/5 of max_cases more, after Hypothesis's, for leaving out one row or column at a time
SMALL = 3  # a search cut short by the budget is shown only if every size of its case is at most this


def searched(misconception: str, message: str = "") -> bool:
    """Whether a diagnosis gets the search: a generic id, or a relationship whose words alone show no case."""
    return misconception in SEARCHED or (misconception == "scaled" and UNNAMED_FACTOR in message)


def grading_seed(module: str, check: str) -> int:
    seed = os.environ.get("AUTOGRADER_SEED")
    return zlib.crc32(f"{module}.{check}".encode()) ^ (int(seed) if seed else 0)


def largest_size(case: dict) -> int:
    """The largest size of a case: of its arrays' dimensions and its integer sizes (T, C, V, ...)."""
    sizes = [d for v in case.values() if isinstance(v, np.ndarray) for d in v.shape]
    sizes += [v for k, v in case.items() if isinstance(v, int) and k not in ("k", "axis")]  # not sizes
    return max(sizes, default=0)


_home: list[str] = []


def private_storage() -> None:
    """Hypothesis caches what it learns in ``.hypothesis/`` under the current folder, which in grading is a
    student's folder: give it a folder of this process's own instead, removed at exit."""
    if not _home:
        from hypothesis.configuration import set_hypothesis_home_dir

        _home.append(str(private_folder("hypothesis")))
        atexit.register(shutil.rmtree, _home[0], True)
        set_hypothesis_home_dir(_home[0])


@contextlib.contextmanager
def bounded(session, seconds: float):
    """While searching, a kernel that takes too long ends the search, never the check's verdict: the
    session's deadline is brought forward, and a channel broken by the search is forgiven afterwards (the
    check had its answers already)."""
    if session is None:
        yield
        return
    saved, broken = session.deadline, session.broken
    session.deadline = time.monotonic() + seconds + 1.0  # within the cell's time: search() leaves a margin
    try:
        yield
    finally:
        session.deadline, session.broken = saved, broken


def fewer_entries(case: dict):
    """The case with one index of one axis left out, of every array of the case that has that axis at that size (a
    batch's ids and its dout lose the same slot), for each axis and index in turn."""
    arrays = {k: v for k, v in case.items() if isinstance(v, np.ndarray) and v.ndim}
    for axis, n in sorted({(axis, n) for v in arrays.values() for axis, n in enumerate(v.shape) if n > 1}):
        for i in range(n):
            smaller = dict(case)
            for k, v in arrays.items():
                if v.ndim > axis and v.shape[axis] == n:
                    smaller[k] = np.delete(v, i, axis=axis)
            yield smaller


def smallest_failing_case(
    module: str,
    check: str,
    student: list,
    misconception: str,
    message: str = "",
    *,
    session=None,
    max_cases: int = MAX_CASES,
    seconds: float = SECONDS,
) -> str | None:
    """The ``Smallest failing case: ...`` line for a check that failed with ``misconception`` on the student's
    code ``student`` (the check's arguments), or None: no search for this id or check, Hypothesis missing,
    no small case fails the same way, or the budget ran out first."""
    try:
        found = search(
            module, check, student, misconception, message, session=session, max_cases=max_cases, seconds=seconds
        )
        return found[1].line() if found else None
    except (Exception, SystemExit):  # noqa: BLE001 - the search only adds a line; it never changes a verdict
        return None


def search(
    module: str,
    check: str,
    student: list,
    misconception: str,
    message: str = "",
    *,
    session=None,
    max_cases: int = MAX_CASES,
    seconds: float = SECONDS,
):
    """(case, :class:`~autograder.hidden.cases.Outcome`) of the smallest case found that fails the same way, or
    None (see :func:`smallest_failing_case`)."""
    if not searched(misconception, message) or (session is not None and session.broken is not None):
        return None
    if SHOWN in message:  # the input space's oracle (hidden.oracle) has shrunk this case already
        return None
    try:
        from hypothesis import HealthCheck, Phase, Verbosity, find, settings
        from hypothesis.errors import HypothesisException

        from ..hidden.cases import space_of
    except ImportError:
        return None
    space = space_of(module, check)
    if session is not None:
        seconds = min(seconds, session.deadline - time.monotonic() - MARGIN)
    if space is None or seconds <= 0:
        return None
    from ..channel.client import quiet
    from ..channel.proxy import ChannelBroken

    private_storage()

    stop = time.monotonic() + seconds
    seen: dict[str, bool] = {}  # Hypothesis replays cases; each runs on the student's code once
    failing: list = []  # every case that failed the same way, in the order met: the last is the smallest
    cut = []  # the budget refused a case: the search did not end by itself

    limit = [max_cases]

    def fails_same_way(case) -> bool:
        nonlocal stop
        key = repr(sorted((k, v.tolist() if isinstance(v, np.ndarray) else v) for k, v in case.items()))
        if key not in seen:
            if len(seen) >= limit[0] or time.monotonic() > stop:
                # out of budget: every further case "fails", so the shrinker runs down to its simplest case at
                # once, without calling the student's code (the answer is the last real failure, in ``failing``)
                cut.append(True)
                return True
            try:
                outcome = space.run(tuple(student), case)
            except ChannelBroken:  # no answer in time: the search ends here
                cut.append(True)
                stop = 0.0
                return True
            seen[key] = outcome.diagnosis is not None and outcome.diagnosis.misconception == misconception
            if seen[key]:
                failing.append((case, outcome))
        return seen[key]

    options = settings(
        max_examples=max_cases,
        deadline=None,
        database=None,
        derandomize=False,
        phases=[Phase.generate, Phase.shrink],
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
    )
    with bounded(session, seconds), quiet():
        try:
            find(space.cases, fails_same_way, settings=options, random=random.Random(grading_seed(module, check)))
        except HypothesisException:  # NoSuchExample, or a search cut short by the budget
            pass
    if not failing:
        return None
    case, outcome = failing[-1]
    # Hypothesis shrinks the numbers of a drawn shape, seldom the shape (the numbers are drawn after it): leave out
    # one row or column at a time, while the budget lasts and the case still fails the same way
    limit[0], hypothesis_cut = len(seen) + max_cases // ROWS_LEFT_OUT, bool(cut)  # its own few cases
    cut.clear()

    def still_fails(smaller) -> bool:
        try:  # a case left out of shape may not be one the check can run (ids past a table): not a smaller one
            return not cut and fails_same_way(smaller) and not cut
        except Exception:  # noqa: BLE001
            return False

    smaller = next(filter(still_fails, fewer_entries(case)), None)
    while smaller is not None:
        case, outcome = failing[-1]
        smaller = next(filter(still_fails, fewer_entries(case)), None)
    if (cut or hypothesis_cut) and largest_size(case) > SMALL:
        return None  # half shrunk: not worth showing
    return case, outcome
