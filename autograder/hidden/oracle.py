"""The one oracle: every case of a unit's declared input space (``hidden.space``) run on the student's code and on
the reference, compared, and the smallest failing case shown.

- Drawing: a pairwise covering array of the unit's dimensions, made from the grading's seed (every value of every
  dimension, every pair of values of two dimensions), then random rows on top.
- Comparing: values at the float64 bars (at the input dtype's precision, ``space.RULES``), the shape, the exception
  class on invalid input, the inputs left as they were.
- Sequences: a stateful unit is driven through random call sequences (every ordered pair of its steps occurs), and
  compared with the reference model after every call.
- Shrinking: a failing case moves every dimension towards its first, simplest value while it still fails; a failing
  sequence drops calls while it still fails.  What is shown is that smallest case, in the student's words.
- A mistake is named only when it is verified on the failing case: a recognisable transform of the right result
  (``voice.relationship``), or a result that is the right one of an earlier state (``stale-state``).  Otherwise the
  message says what differs and shows the case.

NumPy only: under plain nbgrader it runs in the kernel; where the kit grades, in the grading process through the
channel's proxies.  Each lesson module keeps its units' trials (how one case of the space becomes a call and its
reference result).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import os
import zlib
from dataclasses import dataclass, field

import numpy as np

from ..channel.fixtures import watch
from ..channel.wire import LAYOUTS, layout_of
from ..channel.wire import laid as laid
from ..voice import Diagnosis, explain, fmt, fmt_apart, relationship
from .calls import current as this_grading
from .calls import written
from .space import FLOAT_RTOL, UNITS

DRAWN: dict = {}  # (unit, what) -> cases run in this process: the benchmark reports it (benchmarks/bench_hidden_checks.py)
RTOL = FLOAT_RTOL  # one entry a float dtype of the space
RANDOM_ROWS = 4  # random rows drawn on top of the covering array
SEQUENCE_LENGTH = 15  # steps of a call sequence at most, its first forward included
WHOLE = 48


def seed_of(name: str) -> int:
    """The grading's seed for one unit: fresh entropy at every grading, or AUTOGRADER_SEED for debugging."""
    seed = os.environ.get("AUTOGRADER_SEED")
    base = int(seed) if seed else int.from_bytes(os.urandom(4), "little")
    return base ^ zlib.crc32(name.encode())


def covering(dims, rng: np.random.Generator) -> list[dict]:
    """A pairwise covering array of ``dims``: rows (one value per dimension) in which every value of every dimension
    and every pair of values of two dimensions occur (a single dimension has no pairs: its every value is a row),
    built greedily in a random order from ``rng``."""
    names = [d.name for d in dims]
    values = {d.name: list(d.values) for d in dims}
    # still_open[a, i, b][j]: 1 while no row holds a's i-th value beside b's j-th (kept both ways round)
    still_open = {
        (a, i, b): bytearray(b"\x01" * len(values[b]))
        for a in names
        for b in names
        if a != b
        for i in range(len(values[a]))
    }
    # the same pairs, sorted: a row's random start is drawn by its place in sorted order
    uncovered = sorted(
        (a, i, b, j)
        for a, b in itertools.combinations(names, 2)
        for i in range(len(values[a]))
        for j in range(len(values[b]))
    )
    unmet = sorted((a, i) for a in names for i in range(len(values[a])))  # every value, where no pair holds it
    rows = []
    while uncovered or unmet or not rows:
        row: dict[str, int] = {}
        # start from an uncovered pair, or an unmet value, so that every row covers one at least
        if uncovered:
            a, i, b, j = uncovered[int(rng.integers(len(uncovered)))]
            row[a], row[b] = i, j
        elif unmet:
            a, i = unmet[int(rng.integers(len(unmet)))]
            row[a] = i
        for name in [names[k] for k in rng.permutation(len(names))]:
            if name in row:
                continue
            # each value's gain: how many open pairs it would make with the values the row holds
            gains = list(map(sum, zip(*[still_open[o, v, name] for o, v in row.items()])))
            top = max(gains)
            best = [v for v, g in enumerate(gains) if g == top]
            row[name] = best[int(rng.integers(len(best)))]
        for a, b in itertools.combinations(names, 2):
            i, j = row[a], row[b]
            if still_open[a, i, b][j]:
                still_open[a, i, b][j] = still_open[b, j, a][i] = 0
                del uncovered[bisect.bisect_left(uncovered, (a, i, b, j))]
        for held in row.items():
            k = bisect.bisect_left(unmet, held)
            if k < len(unmet) and unmet[k] == held:
                del unmet[k]
        rows.append({n: values[n][row[n]] for n in names})
    return rows


def random_rows(dims, rng, n: int) -> list[dict]:
    return [{d.name: d.values[int(rng.integers(len(d.values)))] for d in dims} for _ in range(n)]


def anchored(dims, typical: dict) -> list[dict]:
    """Every value of every dimension on the unit's typical case (``Unit.typical``): a value that shows a mistake only
    next to a typical value of a third dimension meets it at every grading, whatever the covering array paired."""
    rows = []
    for d in dims:
        for v in d.values:
            if v != typical[d.name]:
                rows.append(dict(typical, **{d.name: v}))
    return rows


def cases(unit_name: str, invalid: bool = False, part: str = "") -> tuple[list[dict], np.random.Generator]:
    """The cases one check of a unit draws: the pairwise covering array of the dimensions that can change its results
    (``Dim.parts``), the others at their first, plainest value (so a fault of another check's is not charged here on
    some draws); typical-case anchors; random cases on top."""
    unit = UNITS[unit_name]
    seed = seed_of(unit_name + ("/invalid" if invalid else ""))
    key = (unit_name, invalid, part, seed)
    kept = KEPT_ROWS.get(key)
    if kept is not None and kept[0] is unit:
        rng = np.random.default_rng()
        rng.bit_generator.state = kept[2]  # the generator as the drawing left it
        return [dict(r) for r in kept[1]], rng
    rows, rng = _drawn(unit, invalid, part, seed)
    # a seed fixed by AUTOGRADER_SEED comes back (the tests grade many submissions on the same seeds): its rows are
    # kept, for the last KEEP_ROWS draws; fresh entropy never comes back, so a grading keeps nothing
    if os.environ.get("AUTOGRADER_SEED"):
        KEPT_ROWS[key] = (unit, tuple(dict(r) for r in rows), rng.bit_generator.state)
        if len(KEPT_ROWS) > KEEP_ROWS:
            del KEPT_ROWS[next(iter(KEPT_ROWS))]
    return rows, rng


KEEP_ROWS = 1024
KEPT_ROWS: dict = {}  # (unit name, invalid, part, seed) -> (the unit, its rows, the generator's state after them)


def _drawn(unit, invalid: bool, part: str, seed: int) -> tuple[list[dict], np.random.Generator]:
    """:func:`cases` for one seed, drawn afresh: the rows and the generator as the drawing left it."""
    rng = np.random.default_rng(seed)
    dims = unit.invalid if invalid else unit.dims
    mine = [d for d in dims if not part or not d.parts or part in d.parts]
    rows = covering(mine, rng) if mine else [{}]
    rows += random_rows(mine, rng, RANDOM_ROWS)
    rows = [dict({d.name: d.values[0] for d in dims}, **r) for r in rows]  # the others at their plainest value
    anchors = anchored(dims, unit.typical) if unit.typical and not invalid else []
    return rows + anchors, rng


# ------------------------------------------------------------------------------------------------ arrays of the space


def described(name: str, a) -> str:
    """``name = [values]`` with its dtype and layout when they are not the plain ones."""
    if not isinstance(a, np.ndarray):
        kind = type(a).__name__
        return f"{name} = {fmt(a)}" + ("" if kind in ("int", "float") else f" (a NumPy {kind})")
    notes = []
    if a.dtype != np.float64 and a.dtype.kind == "f" or a.dtype.kind in "ui" and a.dtype != np.int64:
        notes.append(str(a.dtype))
    if a.ndim == 0:
        notes.append("a 0-d array")
    elif layout_of(a) is not None:
        notes.append(LAYOUTS[layout_of(a)].words)
    return f"{name} = {short(a)}" + (f" ({', '.join(notes)})" if notes else "")


def short(a) -> str:
    text = " ".join(fmt(a, 4, whole=WHOLE).split())
    return text if len(text) <= 400 else text[:400] + " ..."


def same(got, want, rtol: float) -> bool:
    want = np.asarray(want, dtype=np.float64)
    try:
        got = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    if got.shape != want.shape:
        return False
    with np.errstate(all="ignore"):
        if not np.isfinite(got).all():
            return False
        size = abs(want)
        scale = max(1.0, float(size.max())) if want.size else 1.0
        if scale == np.inf or scale != scale:  # a reference that is not finite: NumPy's rules for inf and nan
            return bool(np.allclose(got, want, rtol=rtol, atol=rtol * scale))
        # np.allclose's test for finite values, without its general machinery (this runs for every result compared)
        return bool((abs(got - want) <= rtol * scale + rtol * size).all())


# ------------------------------------------------------------------------------------------------ one case


@dataclass
class Result:
    """One thing a trial compares: the student's ``got`` and the reference's ``want``, named for the student."""

    name: str
    got: object
    want: object
    rtol: float = 1e-9
    part: str = ""  # which hidden check it belongs to ("" = every one of the unit)
    earlier: tuple = ()  # the right results of the calls made before it: a result equal to one of them is stale
    call: object = ""  # the call that returned ``got``, written out (or a function writing it); "" = the trial's words
    # () -> whether the same call with a key no cache holds is right: then a ``got`` that is the right result of an
    # earlier call of the grading (any check's) is told as kept state; None: only ``earlier`` is looked at
    fresh: object = None
    # with ``recall``: a copy of ``got`` as it was handed out, to tell a result changed later from a wrong one
    handed: object = None
    recall: bool = False  # the trial called the student's code again after it: ask what it holds now


@dataclass
class Trial:
    """One case as calls: ``run(student)`` makes them and returns the Results to compare."""

    words: object  # the calls, written out (or a function writing them)
    run: object  # student -> list[Result]
    raises: tuple = ()  # for invalid input: the exception classes allowed
    inputs: list = field(default_factory=list)  # (name, array handed over, its values before)
    part: str = ""  # the hidden check judging it: a trial makes only the calls that check needs
    tail: object = ""  # the calls made after a forward, written out (not made when the check is the forward's)
    stage: str = ""  # "forward" while the trial's forward runs
    belongs: str = ""  # the one check that judges this case, where a unit's checks split its space

    def said(self) -> str:
        """The calls written out (``words`` and ``tail`` may be functions: the writing is paid only on a failure)."""
        return written(self.words) + ("" if self.part == "forward" else written(self.tail))

    def given(self, name, array):
        """Hand ``array`` to the student's code, watched so a change in place is seen."""
        self.inputs.append((name, array, np.array(array, copy=True)))
        return watch(array) if isinstance(array, np.ndarray) else array


class Failure(Exception):
    def __init__(self, misconception: str, what: str, shown: str):
        super().__init__(what)
        self.misconception, self.what, self.shown = misconception, what, shown


def judge(trial: Trial, student, part: str = "") -> None:
    """Raise :class:`Failure` unless the student's code does on this case what the reference does."""
    trial.part = part
    if part and trial.belongs and trial.belongs != part:
        return
    try:
        results = trial.run(student)
    except Diagnosis:
        raise
    except NotImplementedError:
        raise Diagnosis("not-implemented", "A stub still raises NotImplementedError: fill in its stub.") from None
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the student's code, on an input of the space
        if trial.raises and isinstance(e, trial.raises):
            return
        if trial.stage == "forward" and part not in ("", "forward"):
            return  # the forward's check charges its own crash on this case: a fault is charged once
        if trial.raises:
            names = " or ".join(c.__name__ for c in trial.raises)
            raise Failure("wrong-error", f"it should raise {names}, but raised {type(e).__name__}", "") from None
        raise Failure("crashed", f"{explain(e, 'it').splitlines()[0]}", "") from None
    if trial.raises:
        names = " or ".join(c.__name__ for c in trial.raises)
        raise Failure("no-error-raised", f"it should raise {names}, but it returned normally", "")
    for name, array, before in trial.inputs:
        if isinstance(array, np.ndarray) and not np.array_equal(array, before):
            raise Failure("side-effect", f"it changed its argument {name} in place", "")
    for r in results:
        if part and r.part and r.part != part:
            continue
        if r.recall:  # a result is the caller's: a later call of the trial must not change it
            r.got = current(student, r.got)
            if r.handed is not None and same(r.handed, r.want, r.rtol) and not same(r.got, r.want, r.rtol):
                raise Failure(
                    "side-effect",
                    f"{r.name} was right when it was handed out and a later call changed it: your code writes into an "
                    "array it gave away (a buffer kept and reused). Make a new array at every call",
                    "",
                )
        if r.want is None:
            if r.got is not None:
                raise Failure("wrong-value", f"{r.name} should be None, got {type(r.got).__name__}", "")
            continue
        if not same(r.got, r.want, r.rtol):
            before = this_grading().earlier(student, r.call or trial.said, r.got) if r.fresh is not None else None
            raise Failure(*difference(r, before if before is not None and r.fresh() else None))
        if r.fresh is not None:  # a result a cache may hand out again (only such a unit names one from the record)
            this_grading().right(student, r.call or trial.said, r.got)


def difference(r: Result, before: str | None = None) -> tuple[str, str, str]:
    """(id, what differs, the two results written out) for a Result that is off: a transform of the right one is
    named only when it holds on this very case.  ``before``: the earlier call of the grading (any check's) whose right
    result ``r.got`` is, if there is one."""
    want = np.asarray(r.want, dtype=np.float64)
    if r.got is None:
        return "wrong-value", f"{r.name} is None", f"the right {r.name} is {clip(fmt(want, 4, whole=WHOLE))}"
    try:
        got = np.asarray(r.got, dtype=np.float64)
    except (TypeError, ValueError):
        return "wrong-value", f"{r.name} is a {type(r.got).__name__}, not numbers", ""
    if got.shape != want.shape:
        return "wrong-shape", f"{r.name} has shape {got.shape}; it should have shape {want.shape}", ""
    mine, right = fmt_apart(got, want, whole=WHOLE)
    shown = f"your {r.name} is {clip(mine)}; the right {r.name} is {clip(right)}"
    if not np.all(np.isfinite(got)):
        return "wrong-value", f"{r.name} holds nan or inf", shown
    for right in r.earlier:
        if same(got, right, r.rtol):
            return (
                "stale-state",
                f"{r.name} is the right result of the call before, with other arguments: it is kept under too little "
                "of what it depends on. Key a kept result on every argument, or compute it afresh",
                shown,
            )
    if before is not None:
        return (
            "stale-state",
            f"{r.name} is the very right result of an earlier call, {before}: it is kept under too little of what it "
            "depends on. Key a kept result on every argument, or compute it afresh",
            shown,
        )
    found = relationship(got, want) if want.size > 1 else None
    if found is not None:
        return found[0], f"{r.name} is {found[1]}", shown
    return "wrong-value", f"{r.name} is off by up to {float(np.max(np.abs(got - want))):.3g}", shown


def clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 400 else text[:400] + " ..."


def sweep(unit_name: str, student, trial_of, part: str = "", invalid: bool = False, raises: tuple = ()) -> int:
    """Run every case of the unit's covering array (and random rows) on the student's code; on the first failure,
    shrink it and raise the Diagnosis that shows the smallest failing case.  Returns the number of cases run."""
    rows, rng = cases(unit_name, invalid, part)
    seed = int(rng.integers(1 << 30))
    key = (unit_name, "invalid inputs" if invalid else f"cases ({part or 'all'})")
    DRAWN[key] = DRAWN.get(key, 0) + len(rows)
    for row in rows:
        failure = fails(trial_of, row, seed, student, part, raises)
        if failure is not None:
            row, failure = smallest(UNITS[unit_name], trial_of, row, failure, seed, student, part, raises, invalid)
            fixed = fails(trial_of, row, 0, student, part, raises)  # the same row drawn the same way at every grading
            if fixed is not None and family(fixed[1].misconception) == family(failure[1].misconception):
                failure = fixed
            failure = verified(trial_of, row, failure, student, part, raises)
            trial, f = failure
            shown = f": {f.shown}" if f.shown else ""
            where = (
                "should refuse an input the contract rules out"
                if invalid
                else "is wrong on an input the contract allows"
            )
            raise Diagnosis(
                f.misconception,
                f"{UNITS[unit_name].name} {where}: {f.what}.\nSmallest failing case: {trial.said()}{shown}.",
            )
    return len(rows)


def family(misconception: str) -> str:
    """What kind of failure: a crash, a wrong exception, a side effect, or a wrong value (of any name)."""
    if misconception in ("crashed", "not-implemented"):
        return "crash"
    if misconception in ("wrong-error", "no-error-raised"):
        return "error"
    return "side" if misconception == "side-effect" else "value"


def verified(trial_of, row, failure, student, part, raises):
    """A transform named on one case (a scale, swapped columns) is named only when it holds on two more draws of the
    same row; otherwise the failure is told as what differs, by how much."""
    trial, f = failure
    if f.misconception in ("wrong-value", "wrong-shape") or family(f.misconception) != "value":
        return failure
    for seed in (1, 2):
        again = fails(trial_of, row, seed, student, part, raises)
        if again is None or again[1].misconception != f.misconception:
            what = f.what.split(" is ", 1)[0] + " is wrong"
            return trial, Failure("wrong-value", what, f.shown)
    return failure


def fails(trial_of, row, seed, student, part, raises):
    trial = trial_of(row, np.random.default_rng(seed))
    if raises:
        trial.raises = raises
    try:
        judge(trial, student, part)
    except Failure as f:
        return trial, f
    return None


def smallest(unit, trial_of, row, failure, seed, student, part, raises, invalid):
    """Move each dimension towards its simplest value while the case still fails the same way."""
    dims = unit.invalid if invalid else unit.dims
    changed = True
    tries = 0
    while changed and tries < 60:
        changed = False
        for d in dims:
            here = d.values.index(row[d.name])
            for v in d.values[:here]:
                tries += 1
                candidate = dict(row, **{d.name: v})
                again = fails(trial_of, candidate, seed, student, part, raises)
                if again is not None and family(again[1].misconception) == family(failure[1].misconception):
                    row, failure, changed = candidate, again, True
                    break
    return row, failure


# ------------------------------------------------------------------------------------------------ call sequences


@dataclass
class Step:
    kind: str  # a space.STEP_WORDS key
    words: object  # as the student would write it (or a function writing it: paid only when a story is told)
    arg: object = None
    table: str = ""

    def said(self) -> str:
        return written(self.words)


class Machine:
    """A stateful unit, as the sequences drive it: subclasses (in the lesson modules) say how to build the object,
    draw a forward's input and a dout, and what the reference gives."""

    tables: tuple = ()  # the table attributes ("E", "P")
    grads: tuple = ()  # the gradient attributes ("dE", "dP")
    flag: str = ""  # a boolean attribute switched between calls

    def __init__(self, rng):
        self.rng = rng

    # to be written per unit
    def construct(self, student):
        raise NotImplementedError

    def constructor_words(self) -> str:
        raise NotImplementedError

    def initial_tables(self) -> dict:
        raise NotImplementedError

    def first_tables(self) -> dict:
        """The tables the constructor draws (:func:`drawn_tables`), compared before the sequence sets its own."""
        raise NotImplementedError

    def new_input(self, shape=None):
        raise NotImplementedError

    def reference_forward(self, tables, inp):
        raise NotImplementedError

    def reference_backward(self, tables, inp, dout, flag) -> tuple[object, dict]:
        """(what backward returns, {grad name: value})"""
        raise NotImplementedError

    def input_name(self) -> str:
        return "idx"


DEFAULT_SEED = 42  # the constructors' seed when it is left out (docs/contract.md)


def constructor_seed(rng) -> int:
    """A seed a sequence's object may be made with (:func:`sequences` leaves it out on every other sequence)."""
    return int(rng.integers(1 << 16))


def seed_kwargs(seed: int | None) -> dict:
    """The constructor's keyword arguments for ``seed``: none when it is left out."""
    return {} if seed is None else {"seed": seed}


def seed_words(seed: int | None) -> str:
    return "" if seed is None else f", seed={seed}"


def drawn_tables(seed: int | None, shapes: dict) -> dict:
    """The tables a new object starts with, as the contract draws them: one generator, ``default_rng(seed)``, each
    table of ``shapes`` (in its order) drawn from it in turn as ``standard_normal(shape) * 0.02``."""
    rng = np.random.default_rng(DEFAULT_SEED if seed is None else seed)
    return {name: rng.standard_normal(shape) * 0.02 for name, shape in shapes.items()}


def met(kinds: list[str]) -> tuple[set, set]:
    """What a sequence's step kinds meet: its ordered pairs of steps, and each flag switch between two calls, as
    (the call before, the flag's value after the switch, the call after).  The flag starts false."""
    pairs, switches, flag = set(), set(), False
    for i, kind in enumerate(kinds):
        if i:
            pairs.add((kinds[i - 1], kind))
        if kind == "flag":
            flag = not flag
            if 0 < i < len(kinds) - 1 and "flag" not in (kinds[i - 1], kinds[i + 1]):
                switches.add((kinds[i - 1], flag, kinds[i + 1]))
    return pairs, switches


def plans(rng, steps) -> list[list[str]]:
    """The step kinds of a grading's call sequences, each a forward first: together they meet every ordered pair of
    steps and, where the unit has a flag, every ordered pair of calls with the flag switched between them, both ways
    (off to on, on to off): what :func:`met` finds in them.  Each sequence is built from routes to what is not met
    yet, the shortest first, drawn from ``rng``; a route that no longer fits ends the sequence."""
    calls = [s for s in steps if s != "flag"]
    pairs = {(a, b) for a in steps for b in steps}
    switches = {(a, on, b) for a in calls for b in calls for on in (True, False)} if "flag" in steps else set()
    out = []
    while pairs or switches:
        kinds, flag = ["forward other shape"], False
        while len(kinds) < SEQUENCE_LENGTH and (pairs or switches):
            route = _route(rng, steps, calls, kinds[-1], flag, pairs, switches)
            if len(kinds) + len(route) > SEQUENCE_LENGTH:
                break
            for kind in route:  # what each step meets, as met() finds it
                pairs.discard((kinds[-1], kind))
                if kinds[-1] == "flag" and kind != "flag" and len(kinds) > 1 and kinds[-2] != "flag":
                    switches.discard((kinds[-2], flag, kind))
                flag = not flag if kind == "flag" else flag
                kinds.append(kind)
        out.append(kinds)
    return out


def _route(rng, steps, calls, last, flag, pairs, switches) -> list[str]:
    """The steps to add after ``last`` (the flag being ``flag``) that meet a pattern not met yet, drawn among the
    shortest such routes; the candidates are listed in the steps' order, so a seed gives the same plans anywhere."""
    shortest = [[b] for b in steps if (last, b) in pairs]
    if not shortest:
        shortest = [["flag", b] for b in calls if (last, not flag, b) in switches]
        shortest += [[a, b] for a in steps if a != last for b in steps if (a, b) in pairs]
    if not shortest:  # a switch from another call, the flag already the other way
        shortest = [[a, "flag", b] for a in calls if a != last for b in calls if (a, not flag, b) in switches]
    if not shortest:  # the flag the wrong way: switch it first
        shortest = [["flag", a, "flag", b] for a in calls for b in calls if (a, flag, b) in switches]
    return shortest[int(rng.integers(len(shortest)))]


def sequences(machine_of, unit_name: str, student, singles=()) -> int:
    """Drive the unit through call sequences (:func:`plans`) that meet every ordered pair of its steps, and of its
    calls with the flag switched between them; compare with the reference after every call.  Every other sequence
    makes its object with the constructor's seed left out, the others with a seed given.  On a failure, raise the
    Diagnosis showing the smallest failing call sequence, unless one of ``singles`` (the checks of the unit's single
    calls, its forward and its backward) fails on the same code: they charge that fault, and a fault is charged
    once."""
    steps = alphabet(UNITS[unit_name].steps, machine_of.tables)
    rng = np.random.default_rng(seed_of(unit_name + "/steps"))
    count = 0
    changes = itertools.cycle(SHAPE_CHANGES)  # shared by the sequences: every plan meets each change of shape
    for kinds in plans(rng, steps):
        machine = machine_of(np.random.default_rng(int(rng.integers(1 << 30))))
        if count % 2 == 0:
            machine.seed = None
        seq = materialise(machine, [Step(k, "") for k in kinds], changes)
        count += 1
        DRAWN[(unit_name, "call sequences")] = DRAWN.get((unit_name, "call sequences"), 0) + 1
        DRAWN[(unit_name, "calls in them")] = DRAWN.get((unit_name, "calls in them"), 0) + len(seq)
        failure = replay(machine, seq, student)
        if failure is not None:
            if any(charges(single, student) for single in singles):  # theirs: nothing to shrink or show here
                return count
            seq, failure = shortest(machine, seq, failure, student)
            seq, failure = canonical(machine_of, steps, student, seq, failure)
            raise Diagnosis(failure[0], failure[1])
    return count


def charges(check, student) -> bool:
    """Whether the hidden check ``check`` (undecorated) fails on the student's code."""
    try:
        check(student)
    except (Exception, SystemExit):  # noqa: BLE001 - a Diagnosis, or the student's code raising in it
        return True
    return False


def alphabet(steps, tables) -> list[str]:
    """The steps a sequence is made of, a table's step once per table ("step in place P"): every ordered pair of them
    is met, so a step on P is followed by every call, not only a step on E."""
    out = []
    for s in steps:
        out += [f"{s} {t}" for t in tables] if s in ("step in place", "replace table") else [s]
    return out


def canonical(machine_of, steps, student, seq, failure):
    """The first failing sequence of at most len(seq) calls among the short ones every grading tries alike (a forward,
    then one or two steps, on one fixed machine): the same submission is shown the same sequence at every grading."""
    for n in (1, 2):
        for kinds in itertools.product(steps, repeat=n):
            machine = machine_of(np.random.default_rng(0))
            short_seq = materialise(machine, [Step("forward other shape", ""), *(Step(k, "") for k in kinds)])
            if len(short_seq) > len(seq) or not valid(short_seq):
                continue
            again = replay(machine, short_seq, student)
            if again is not None:
                return short_seq, again
    return seq, failure


SHAPE_CHANGES = ((0,), (1,), (0, 1))  # a batch of another shape: another B, another T, or both (the axes that differ)
SHAPE_TRIES = 40  # batches drawn at most to find one whose shape differs in the axes asked for


def other_shape(machine: Machine, last_shape: tuple, axes: tuple):
    """A new batch whose shape differs from ``last_shape`` in exactly ``axes`` (its B, its T, or both), where the
    machine's sizes allow it; else one of any other shape; else the last drawn."""
    inp = other = None
    for _ in range(SHAPE_TRIES):
        inp = machine.new_input(None)
        differ = tuple(a for a in (0, 1) if np.shape(inp)[a] != last_shape[a])
        if differ == axes:
            return inp
        if differ and other is None:
            other = inp
    return other if other is not None else inp


def materialise(machine: Machine, seq: list[Step], changes=None) -> list[Step]:
    """Give every step its arguments (ids, dout, the step's delta, the new table, the flag's value).  A forward with a
    batch of another shape changes the axes ``changes`` gives next (SHAPE_CHANGES in turn, from the first, where none
    is given): another B with the same T, another T, both."""
    changes = itertools.cycle(SHAPE_CHANGES) if changes is None else changes
    out: list[Step] = []
    last_input = None
    last_shape = None
    flag = False
    names = iter("ABCDFHJKLMNQRSUWXYZ")
    gnames = iter(["g", "h", "k", "m", "n", "q", "r", "s"])
    for step in seq:
        k = step.kind
        if k.startswith("forward"):
            if k == "forward same" and last_input is not None:
                name, inp = last_input
            else:
                if k == "forward same shape":
                    inp = machine.new_input(last_shape)
                elif last_shape is not None:
                    inp = other_shape(machine, last_shape, next(changes))
                else:
                    inp = machine.new_input(None)
                name = next(names)
            last_input, last_shape = (name, inp), np.shape(inp)
            out.append(Step("forward", f"forward({name})", (name, inp)))
        elif k in ("backward", "backward again"):
            if last_input is None:
                continue
            prev = next((s for s in reversed(out) if s.kind == "backward"), None)
            if k == "backward again" and prev is not None and prev.arg[2] == last_input[0]:
                out.append(Step("backward", prev.words, prev.arg))
                continue
            g = next(gnames, "g")
            dout = machine.new_dout(last_input[1])
            out.append(Step("backward", f"backward({g})", (g, dout, last_input[0])))
        elif k.startswith("step in place"):
            table = k.split()[-1] if k != "step in place" else machine.tables[0]
            if any(s.kind == "backward" for s in out):
                out.append(Step("step", f"{table} -= 0.5 * d{table}", 0.5, table))
            else:
                delta = np.ones_like(machine.initial_tables()[table])
                out.append(Step("step", lambda t=table, d=delta: f"{t} -= {short(d)}", delta, table))
        elif k.startswith("replace table"):
            table = k.split()[-1] if k != "replace table" else machine.tables[0]
            new = machine.initial_tables()[table] + 1.0
            out.append(Step("replace", lambda t=table, n=new: f"{t} = {short(n)}", new, table))
        elif k == "flag":
            flag = not flag
            out.append(Step("flag", f"{machine.flag} = {flag}", flag))
    return out


def replay(machine: Machine, seq: list[Step], student):
    """Run ``seq`` on the student's object and on the reference; None, or (id, message) of the first difference."""
    tables = {k: np.array(v, copy=True) for k, v in machine.initial_tables().items()}
    grads: dict = {}
    history: list = []  # every right answer so far: (what, value), to tell a stale result
    handed: list = []  # every result handed out so far: (what, the student's array, its right value)
    flag = False
    last = None
    done: list[Step] = []  # the steps made so far (their words are written only when a story is told)
    try:
        obj = machine.construct(student)
        for name in ("cache",) + machine.grads:
            if getattr(obj, name) is not None:
                return "wrong-value", (
                    f"{machine.constructor_words()} should start with self.{name} = None (it has no forward or "
                    f"backward to remember yet); it starts with {fmt(getattr(obj, name))}."
                )
        first = machine.first_tables()  # what the constructor draws, before the sequence sets its own tables
        for name, want in first.items():
            got = getattr(obj, name)
            if not same(got, want, RTOL["float64"]):
                return "wrong-value", (
                    f"{machine.constructor_words()} should start with self.{name} drawn as the contract says: one "
                    f"generator, np.random.default_rng(seed) (seed {DEFAULT_SEED} when it is left out), and "
                    + ", then ".join(f"{t} = standard_normal({np.shape(v)}) * 0.02" for t, v in first.items())
                    + f"; your self.{name} is {short(got)}; the right one is {short(want)}."
                )
        for name, value in tables.items():
            setattr(obj, name, np.array(value, copy=True))
        if machine.flag:
            setattr(obj, machine.flag, False)
    except (Exception, SystemExit) as e:  # noqa: BLE001
        return "crashed", f"{machine.constructor_words()} raised {explain(e, 'it').splitlines()[0]}"
    for step in seq:
        done.append(step)
        try:
            if step.kind == "forward":
                name, inp = step.arg
                given = np.array(inp, copy=True)
                got = obj.forward(given)
                want = machine.reference_forward(tables, inp)
                last = inp
                bad = compare_step(machine, seq, done, "output", got, want, history, handed, student)
                if bad:
                    return bad
                history.append(("output", want))
            elif step.kind == "backward":
                g, dout, _ = step.arg
                ret = obj.backward(np.array(dout, copy=True))
                want_ret, want_grads = machine.reference_backward(tables, last, dout, flag)
                if want_ret is None and ret is not None:
                    return "wrong-value", story(
                        machine, seq, done, f"backward returned a {type(ret).__name__}; it should return None"
                    )
                if want_ret is not None:
                    bad = compare_step(machine, seq, done, "returned gradient", ret, want_ret, history)
                    if bad:
                        return bad
                other = machine.reference_backward(tables, last, dout, not flag)[1] if machine.flag else {}
                for gname, want in want_grads.items():
                    bad = compare_step(
                        machine, seq, done, gname, getattr(obj, gname), want, history, handed, student, other.get(gname)
                    )
                    if bad:
                        return bad
                    history.append((gname, want))
                grads = want_grads
            elif step.kind == "step":
                if isinstance(step.arg, np.ndarray):
                    delta = step.arg
                else:
                    delta = step.arg * grads["d" + step.table]
                bad = recheck(machine, seq, done, handed, student)  # a result may be a view of the table (E[3] is):
                if bad:  # after the step, which is the caller's own write, they are not asked again
                    return bad
                subtract_in_place(obj, step.table, delta)
                tables[step.table] = tables[step.table] - delta
            elif step.kind == "replace":
                setattr(obj, step.table, np.array(step.arg, copy=True))
                tables[step.table] = np.array(step.arg, copy=True)
            elif step.kind == "flag":
                setattr(obj, machine.flag, step.arg)
                flag = step.arg
        except Diagnosis:
            raise
        except NotImplementedError:
            raise Diagnosis("not-implemented", "A stub still raises NotImplementedError: fill in its stub.") from None
        except (Exception, SystemExit) as e:  # noqa: BLE001 - the student's code, on a sequence the contract allows
            return "crashed", story(machine, seq, done, f"the last call raised {explain(e, 'it').splitlines()[0]}")
    return recheck(machine, seq, done, handed, student)


def recheck(machine, seq, done, handed, student):
    """None, or (id, message) when a result handed out earlier in the sequence has changed since (asked of the kernel
    once, before an optimizer step and at the end: not after every call)."""
    for name, got, want in handed:
        if not same(current(student, got), want, 1e-9):
            return "side-effect", story(
                machine,
                seq,
                done,
                f"the {name} an earlier call handed out changed afterwards: your code writes into an array it gave "
                "away (a buffer kept and reused). Make a new array at every call",
            )
    handed.clear()
    return None


def compare_step(machine, seq, done, name, got, want, history, handed=None, student=None, flipped=None):
    """None, or (id, message) when ``got`` is not ``want``; ``flipped``: the right value with the flag the other way."""
    if handed is not None:
        handed.append((name, got, want))
    if same(got, want, 1e-9):
        return None
    r = Result(name, got, want)
    misconception, what, shown = difference(r)
    if misconception == "wrong-value":
        try:
            g = np.asarray(got, dtype=np.float64)
            stale = any(w == name and np.shape(v) == g.shape and same(g, v, 1e-9) for w, v in history)
        except (TypeError, ValueError):
            stale = False
        if flipped is not None and not same(flipped, want, 1e-9) and same(g, flipped, 1e-9):
            misconception = "stale-state"
            what = (
                f"{name} is what it would be with {machine.flag} the other way, as it was at an earlier call: "
                f"backward reads {machine.flag} when it runs, as it is then"
            )
        elif stale:
            misconception = "stale-state"
            what = (
                f"{name} is the right {name} of an earlier call: it keeps a result (or a copy of a table) under "
                "too little of what it depends on. Compute it from the arguments and the tables as they are at "
                "every call"
            )
    return misconception, story(machine, seq, done, what, shown)


def story(machine, seq, done, what, shown="") -> str:
    """The smallest failing call sequence, in the student's words."""
    given = []
    for s in seq[: len(done)]:
        if s.kind == "forward" and s.arg[0] not in [g.split(" = ")[0] for g in given]:
            given.append(described(s.arg[0], s.arg[1]))
        if s.kind == "backward" and s.arg[0] not in [g.split(" = ")[0] for g in given]:
            given.append(described(s.arg[0], s.arg[1]))
    tables = ", ".join(described(k, v) for k, v in machine.initial_tables().items())
    return (
        f"On a call sequence the contract allows, {what}.\nSmallest failing call sequence: "
        f"{machine.constructor_words()} with {tables}: "
        + ", ".join(s.said() for s in done)
        + (f": {shown}" if shown else "")
        + (f"; where {'; '.join(given)}" if given else "")
        + "."
    )


def shortest(machine, seq, failure, student):
    """Drop calls (never the first forward) while the sequence still fails the same way."""
    while True:
        for i in range(len(seq) - 1, 0, -1):
            candidate = seq[:i] + seq[i + 1 :]
            if not valid(candidate):
                continue
            again = replay(machine, candidate, student)
            if again is not None and again[0] == failure[0]:
                seq, failure = candidate, again
                break
        else:
            return seq, failure


def current(student, value):
    """What ``value``, handed out by the student's code earlier, holds now: where the kit grades, the kernel is asked
    (the checker's copy never changes); in the kernel it is the object itself."""
    from ..channel.proxy import Remote

    for s in student if isinstance(student, tuple) else (student,):
        if isinstance(s, Remote):
            return object.__getattribute__(s, "_session").recall(value)
    return value


def valid(seq: list[Step]) -> bool:
    """A sequence the contract allows: a forward first; a step by a gradient only after a backward."""
    if not seq or seq[0].kind != "forward":
        return False
    backward = False
    for s in seq:
        backward = backward or s.kind == "backward"
        if s.kind == "step" and not isinstance(s.arg, np.ndarray) and not backward:
            return False
    return True


def subtract_in_place(obj, name: str, delta) -> None:
    """``obj.name -= delta`` as an optimizer step does it, in place in the student's array."""
    from ..channel.proxy import Remote

    if isinstance(obj, Remote):
        session = object.__getattribute__(obj, "_session")
        session.subtract(object.__getattribute__(obj, "_id"), name, delta)
        return
    table = getattr(obj, name)
    table -= delta


def cover(namespace: dict, checks: dict) -> None:
    """After each named hidden check of a lesson module, run what ``checks`` gives for it (a sweep of a unit's space
    or its call sequences) on the same student code: ``checks`` is {check name: function of the check's arguments}."""
    from . import hidden_check

    for name, then in checks.items():
        inner = namespace[name].__wrapped__

        def check(*args, _inner=inner, _then=then):
            _inner(*args)
            singles = [namespace[n].__wrapped__ for n in getattr(_then, "charged_by", ())]
            _then(*args, **({"singles": singles} if singles else {}))

        functools.update_wrapper(check, inner)
        namespace[name] = hidden_check(check)


def sweeping(unit: str, trial_of, part: str = "", invalid: bool = False):
    """A ``cover`` entry: sweep ``unit``'s space with ``trial_of`` on the check's arguments."""
    return lambda *student: sweep(unit, student[0] if len(student) == 1 else student, trial_of, part, invalid)


def sequencing(unit: str, machine_of, charged_by: tuple = ()):
    """A ``cover`` entry: drive ``unit`` through call sequences of its ``STEPS``.  ``charged_by``: the names of the
    module's checks of the unit's single calls (its forward, its backward); a failing sequence is charged here only
    when they pass on the same code, since a fault one call shows is theirs."""

    def then(cls, singles=()):
        return sequences(machine_of, unit, cls, singles)

    then.charged_by = charged_by
    return then
