"""Case spaces of the hidden checks: every case a check could judge, as a Hypothesis strategy, and the
check's judgement of one such case.

A hidden check draws a few random cases of a fixed size and one case of each boundary class that applies to it
(``hidden.boundary``).  When it fails with a diagnosis outside the
catalogue (``wrong-value``, ``wrong-gradient``, ...), the grading process searches the check's case
space for the smallest case that still fails the same way (``autograder.grading.shrink``) and shows
it whole.  A space is therefore built to shrink to something a student can work by hand: sizes from
1 (B, T, C, V, block_size), ids from 0 (so repeated ids come early), numbers as small integers stored
as float64 (0, 1, -1, 2 before anything else).  It spans the same boundary classes as the checks (docs/contract.md,
"The input space"): the arrays handed to student code laid out contiguous, as a transpose or as a strided slice
(``layout``), ids that repeat and ids that never occur, shifts from negative to large, scores spread wider than
``exp`` holds, and a function called once before the call judged (``before``), so a mistake that shows only there
is shown on a case of its own class.

``run(student, case)`` runs one case on the student's code, through the same helpers the check itself
judges with (so the same mistake gets the same diagnosis id), and returns an :class:`Outcome`: the
call written out, the student's result, the right result (from the check's reference) and the
diagnosis, or None when the case passes.

Only the grading process imports this module (it needs Hypothesis); the notebooks' kernels and the
hidden checks themselves never do.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..channel.proxy import ChannelBroken
from ..channel.wire import layout as layout_of_name
from ..voice import explain, fmt, fmt_apart
from . import call, expect_array, lesson01, lesson02, lesson03, lesson04, lesson05
from .boundary import LAYOUTS, laid_out
from .diagnostics import Diagnosis, relationship

NO_RESULT = object()  # the student's code gave nothing to show (it raised first)


WHOLE = 64  # entries an array may have to be written out whole (every right answer here has at most 48)


def show(value, digits=4) -> str:
    """An array or number written out whole, on one line, as every message writes values (``voice.fmt``): ids as
    integers, floats as 1.0 or 0.8415.  A result of more than WHOLE entries (a wrong one) is summarised, and no
    rendering exceeds 600 characters."""
    return _capped(fmt(value, digits, whole=WHOLE))


def _capped(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 600 else text[:600] + " ..."


@dataclass
class Outcome:
    """One case run on the student's code."""

    call: str  # the call, every argument written out
    name: str  # what the result is called in the line: "dP", "forward(idx)"
    want: object  # the right result, from the check's reference
    got: object = NO_RESULT  # what the student's code returned
    diagnosis: Diagnosis | None = None  # how the check judges this case; None: it passes

    def line(self) -> str:
        """``Smallest failing case: ...`` for this (failing) case."""
        if self.got is NO_RESULT:
            yours = self.diagnosis.message.splitlines()[0].rstrip(".") if self.diagnosis else "your code gave nothing"
        else:
            mine, right = fmt_apart(self.got, self.want, whole=WHOLE)  # at the precision where the two differ
            return (
                f"Smallest failing case: {self.call}: your {self.name} is {_capped(mine)}; "
                f"the right {self.name} is {_capped(right)}."
            )
        return f"Smallest failing case: {self.call}: {yours}; the right {self.name} is {show(self.want)}."

    @contextlib.contextmanager
    def judging(self):
        """Record the check's diagnosis of what runs inside, as ``hidden_check`` would turn it into one."""
        try:
            yield self
        except Diagnosis as d:
            self.diagnosis = d
        except ChannelBroken:
            raise  # the kernel stopped answering: the search ends here
        except NotImplementedError:
            self.diagnosis = Diagnosis("not-implemented", "A stub still raises NotImplementedError.")
        except (Exception, SystemExit) as e:  # noqa: BLE001 - student code misbehaved in a way no check foresaw
            self.diagnosis = Diagnosis("crashed", explain(e))


@dataclass(frozen=True)
class Space:
    """The cases of one hidden check, and how the check judges one of them."""

    cases: st.SearchStrategy
    run: Callable[[tuple, object], Outcome]


# ------------------------------------------------------------------------------------------------ strategies

SIZE = st.integers(1, 4)
SMALL = st.integers(-2, 3).map(float)  # shrinks to 0.0, then 1.0, -1.0, 2.0, ...
LAYOUT = st.sampled_from([None, *LAYOUTS])  # how an array handed to student code lies in memory (None: contiguous)


def laid(name: str, layout) -> str:
    """An argument's name in the call written out, with its layout: "dout", "dout (a transpose in memory)"."""
    return name if layout is None else f"{name} ({layout_of_name(layout).words})"


def numbers(shape):
    return hnp.arrays(np.float64, shape, elements=SMALL)


def id_arrays(shape, V):
    return hnp.arrays(np.int64, shape, elements=st.integers(0, V - 1))


@st.composite
def batches(draw, ids: bool = True, dout: bool = True, tables: tuple = (), inputs: bool = False):
    """A batch of shape (B, T) with T <= block_size: the sizes, and as asked the ids (B, T) below V, the
    ``tables`` ("E" of shape (V, C), "P" of shape (block_size, C)), x and dout (B, T, C)."""
    block_size, C, B = draw(SIZE), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    T = draw(st.integers(1, block_size))
    case = {"block_size": block_size, "C": C, "layout": draw(LAYOUT)}  # of dout, or else of the forward's input
    if ids:
        case["V"] = draw(SIZE)
        case["idx"] = draw(id_arrays((B, T), case["V"]))
    if "E" in tables:
        case["E"] = draw(numbers((case["V"], C)))
    if "P" in tables:
        case["P"] = draw(numbers((block_size, C)))
    if inputs:
        case["x"] = draw(numbers((B, T, C)))
    if dout:
        case["dout"] = draw(numbers((B, T, C)))
    return case


# ------------------------------------------------------------------------------------------------ helpers


def _arg(name: str, value, layout) -> str:
    """An array argument written out, with its layout when it is not contiguous."""
    return show(value) if layout is None else f"{laid(name, layout)} = {show(value)}"


def _constructor(cls_name: str, **sizes) -> str:
    return f"{cls_name}(" + ", ".join(f"{k}={v}" for k, v in sizes.items()) + ")"


def _set_tables(obj, **tables) -> bool:
    """Give the student's object these tables; False if it does not keep them as given."""
    for name, value in tables.items():
        setattr(obj, name, value.copy())
    return all(
        np.array_equal(np.asarray(getattr(obj, name), dtype=np.float64), value) for name, value in tables.items()
    )


def _positions(dout, block_size):
    """The right dP: rows :T hold dout summed over the batch, the rest zero."""
    dP = np.zeros((block_size, dout.shape[2]))
    dP[: dout.shape[1]] = dout.sum(axis=0)
    return dP


# ------------------------------------------------------------------------------------------------ lesson 1


@st.composite
def softmax_cases(draw):
    # the boundary classes first: the shrinker settles them (contiguous, a small spread) before the shape
    spread = draw(st.sampled_from([1.0, 400.0]))  # 400: scores from -800 to 1200, past what exp holds
    layout = draw(LAYOUT)
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    axis = draw(st.sampled_from([None, *range(-1, ndim)]))
    return {"x": draw(numbers(shape)) * spread, "axis": axis, "layout": layout}


def run_softmax(student, case) -> Outcome:
    (softmax,) = student
    x, axis, layout = case["x"], case["axis"], case.get("layout")
    ax = -1 if axis is None else axis
    shown = show(x) if layout is None else f"{laid('x', layout)} = {show(x)}"
    call = f"softmax({shown})" if axis is None else f"softmax({shown}, axis={axis})"
    out = Outcome(call, "result", lesson01._softmax(x, ax))
    with out.judging():
        got, x0 = lesson01._softmax_case(softmax, laid_out(x, layout), axis)
        out.got = got
        problem = lesson01._describe_softmax(got, x0, ax, default_axis=axis is None)
        if problem:
            raise Diagnosis(*problem)
    return out


@st.composite
def attention_cases(draw):
    B, T, C, hs = (draw(st.integers(1, 3)) for _ in range(4))
    return {
        "X": draw(numbers((B, T, C))),
        "Wq": draw(numbers((C, hs))),
        "Wk": draw(numbers((C, hs))),
        "Wv": draw(numbers((C, hs))),
    }


def run_attention(student, case) -> Outcome:
    """attention_values on one case: any constant scale of the scores passes (attention_scaling judges it)."""
    self_attention, softmax = student
    X, Wq, Wk, Wv = (case[k] for k in ("X", "Wq", "Wk", "Wv"))
    out = Outcome(
        f"self_attention(X={show(X)}, Wq={show(Wq)}, Wk={show(Wk)}, Wv={show(Wv)})",
        "output",
        lesson01._attention(X, Wq, Wk, Wv),
    )
    rng = np.random.default_rng(0)  # the probe of the student's softmax draws its scores from it
    with out.judging():
        got = lesson01._run_attention(self_attention, softmax, rng, X.copy(), Wq.copy(), Wk.copy(), Wv.copy())
        out.got = got
        C, hs = Wq.shape
        scales = lesson01._scales(C, hs).values()
        if not any(lesson01._same(got, lesson01._attention(X, Wq, Wk, Wv, s)) for s in scales):
            lesson01._classify_attention(got, X, Wq, Wk, Wv, softmax, rng, f"For X of shape {X.shape} and hs = {hs}:")
    return out


@st.composite
def gap_cases(draw):
    """permutation_gap with positions: sizes from 1, any permutation of T (the identity too), P with more rows."""
    B, T, C, hs = draw(st.integers(1, 3)), draw(st.integers(2, 3)), draw(st.integers(1, 2)), 1
    return {
        "X": draw(numbers((B, T, C))),
        "perm": np.array(draw(st.permutations(range(T))), dtype=np.int64),
        "Wq": draw(numbers((C, hs))),
        "Wk": draw(numbers((C, hs))),
        "Wv": draw(numbers((C, hs))),
        "P": draw(numbers((T + draw(st.integers(0, 1)), C))),
    }


def run_gap(student, case) -> Outcome:
    """permutation_gap_with_pos on one case: the gap from the student's self_attention or the reference one passes."""
    permutation_gap, self_attention = student
    X, perm, Wq, Wk, Wv, P = (case[k] for k in ("X", "perm", "Wq", "Wk", "Wv", "P"))
    reference = lambda *a: lesson01._attention(*a)  # noqa: E731
    out = Outcome(
        f"permutation_gap(X={show(X)}, perm={show(perm)}, Wq={show(Wq)}, Wk={show(Wk)}, Wv={show(Wv)}, P={show(P)})",
        "gap",
        lesson01._correct_gap(reference, X, perm, Wq, Wk, Wv, P),
    )
    with out.judging():
        out.got = call(
            "permutation_gap", permutation_gap, X.copy(), perm.copy(), Wq.copy(), Wk.copy(), Wv.copy(), P=P.copy()
        )
        got = lesson01._as_gap(out.got, "permutation_gap(X, perm, Wq, Wk, Wv, P)")
        wants = [out.want]
        with contextlib.suppress(Exception):  # a self_attention that fails is judged by its own tests
            wants.append(lesson01._correct_gap(self_attention, X, perm, Wq, Wk, Wv, P))
        if not any(lesson01._gap_matches(got, w) for w in wants):
            raise Diagnosis("wrong-value", "permutation_gap is not the largest |difference|.")
    return out


# ------------------------------------------------------------------------------------------------ lesson 2


def run_embedding_forward(student, case) -> Outcome:
    (Embedding,) = student
    V, C, idx, E, layout = case["V"], case["C"], case["idx"], case["E"], case.get("layout")
    out = Outcome(
        f"{_constructor('Embedding', vocab_size=V, C=C)} with E = {show(E)}, forward({_arg('idx', idx, layout)})",
        "forward(idx)",
        E[idx],
    )
    with out.judging():
        emb = call("Embedding(vocab_size, C)", Embedding, V, C)
        if not _set_tables(emb, E=E):
            return Outcome(out.call, out.name, out.want)
        out.got = call("Embedding.forward", emb.forward, laid_out(idx, layout))
        got = expect_array("forward(idx)", out.got, idx.shape + (C,))
        if not np.array_equal(np.asarray(emb.E), E):
            raise Diagnosis("side-effect", "forward changed the table E.")
        if not np.allclose(got, E[idx], rtol=0, atol=1e-15):
            found = relationship(got, E[idx])  # as embedding_forward tells it
            raise Diagnosis(*(found or ("wrong-value", "forward(idx) is not E[idx].")))
    return out


def run_embedding_backward(student, case) -> Outcome:
    (Embedding,) = student
    V, C, idx, G, layout = case["V"], case["C"], case["idx"], case["dout"], case.get("layout")
    want = lesson02.scatter_add(idx, G, V)
    out = Outcome(
        f"{_constructor('Embedding', vocab_size=V, C=C)}, forward({show(idx)}), backward({_arg('dout', G, layout)})",
        "dE",
        want,
    )
    with out.judging():
        emb = call("Embedding(vocab_size, C)", Embedding, V, C)
        call("Embedding.forward", emb.forward, idx.copy())
        ret = call("Embedding.backward", emb.backward, laid_out(G, layout))
        out.got = emb.dE
        dE = lesson02.expect_gradient_rows("self.dE after backward", out.got, (V, C), idx)
        if ret is not None:
            raise Diagnosis("wrong-value", "backward should return None.")
        lesson02.dE_diagnosis(dE, want, idx, G, lambda: lesson02._scatter_overwrite_probe(Embedding))
    return out


@st.composite
def pairs(draw):
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    return {"a": draw(numbers(shape)), "b": draw(numbers(shape)), "layout": draw(LAYOUT)}  # SMALL has both signs


def run_rel_error(student, case) -> Outcome:
    (rel_error,) = student
    a, b, layout = case["a"], case["b"], case.get("layout")
    want = float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))))
    out = Outcome(f"rel_error({_arg('a', a, layout)}, {show(b)})", "value", want)
    with out.judging():
        out.got = call("rel_error(a, b)", rel_error, laid_out(a, layout), b.copy())
        try:
            got = float(out.got)
        except (TypeError, ValueError):
            raise Diagnosis("wrong-value", "rel_error should return one float.") from None
        if not np.isclose(got, want, rtol=1e-9, atol=0):
            raise Diagnosis(
                "wrong-value", "rel_error(a, b) is not the largest entry of |a - b| / max(1e-12, |a| + |b|)."
            )
    return out


# ------------------------------------------------------------------------------------------------ lesson 3


@st.composite
def table_cases(draw, widths=(1, 2, 3, 4), bases=(None,)):
    """(T, C, base); ``widths`` as the check draws them (one check has only even C, another only odd); ``before``:
    the arguments of a call made first, or None."""
    case = {"T": draw(SIZE), "C": draw(st.sampled_from(widths)), "base": draw(st.sampled_from(bases))}
    case["before"] = draw(st.none() | st.tuples(SIZE, st.sampled_from(widths), st.sampled_from(bases)))
    return case


@st.composite
def shift_cases(draw, bases=(None,)):
    """(k, C, base), k from small shifts of either sign to a large one; ``before`` as for the table."""
    k = draw(st.integers(-3, 3) | st.sampled_from([100_000]))
    case = {"k": k, "C": 2 * draw(st.integers(1, 2)), "base": draw(st.sampled_from(bases))}
    case["before"] = draw(st.none() | st.tuples(st.integers(-3, 3), st.sampled_from([2, 4]), st.sampled_from(bases)))
    return case


def _function_of_sizes(function: str, name: str, first: str, make, judge, reference):
    """``run`` for a lesson-3 function of (a first size, C, base): its call through ``make`` (which names it
    too), judged by ``judge``, the right answer from ``reference``."""

    def written(n, C, base) -> str:
        return f"{function}({n}, {C}" + ("" if base is None else f", base={base:g}") + ")"

    def run(student, case) -> Outcome:
        n, C, base = case[first], case["C"], case["base"]
        b = lesson03.DEFAULT_BASE if base is None else base
        before = case.get("before")
        shown = written(n, C, base) if before is None else f"{written(*before)}, then {written(n, C, base)}"
        out = Outcome(shown, name, reference(n, C, b))
        with out.judging():
            if before is not None:
                make(student[0], *before)  # only its side effects matter: what it leaves for the next call
            what, out.got = make(student[0], n, C, base)
            judge(out.got, n, C, b, what)
        return out

    return run


run_table = _function_of_sizes(
    "sinusoidal_table", "table", "T", lesson03._table, lesson03._judge_table, lesson03._reference_table
)
run_shift = _function_of_sizes(
    "shift_matrix", "matrix", "k", lesson03._shift, lesson03._judge_shift, lesson03._reference_shift
)


# ------------------------------------------------------------------------------------------------ lesson 4


def run_positional_forward(student, case) -> Outcome:
    (PositionalEmbedding,) = student
    block_size, C, P, x, layout = case["block_size"], case["C"], case["P"], case["x"], case.get("layout")
    T = x.shape[1]
    out = Outcome(
        f"{_constructor('PositionalEmbedding', block_size=block_size, C=C)} with P = {show(P)}, "
        f"forward({_arg('x', x, layout)})",
        "forward(x)",
        x + P[:T],
    )
    with out.judging():
        pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C)
        if not _set_tables(pe, P=P):
            return Outcome(out.call, out.name, out.want)
        x_in = laid_out(x, layout)
        out.got = lesson04.call_forward("PositionalEmbedding.forward", pe.forward, x_in, T, block_size)
        got = expect_array("forward(x)", out.got, x.shape)
        if not np.array_equal(x_in, x):
            raise Diagnosis("side-effect", "forward changed its input x in place.")
        if not np.array_equal(np.asarray(pe.P), P):
            raise Diagnosis("side-effect", "forward changed the table P.")
        lesson04.forward_diagnosis(got, x, P, T, base_name="x")
    return out


def run_positional_dP(student, case) -> Outcome:
    (PositionalEmbedding,) = student
    block_size, C, G, x, layout = case["block_size"], case["C"], case["dout"], case["x"], case.get("layout")
    T = x.shape[1]
    want = _positions(G, block_size)
    out = Outcome(
        f"{_constructor('PositionalEmbedding', block_size=block_size, C=C)}, forward({show(x)}), "
        f"backward({_arg('dout', G, layout)})",
        "dP",
        want,
    )
    with out.judging():
        pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C)
        lesson04.call_forward("PositionalEmbedding.forward", pe.forward, x.copy(), T, block_size)
        call("PositionalEmbedding.backward", pe.backward, laid_out(G, layout))
        out.got = pe.dP
        dP = lesson04.expect_grad(
            f"self.dP after backward (T={T}, block_size={block_size})", out.got, (block_size, C), T
        )
        lesson04.dP_diagnosis(np.array(dP, copy=True), want, G, T)
    return out


def run_positional_dx(student, case) -> Outcome:
    (PositionalEmbedding,) = student
    block_size, C, G, x, layout = case["block_size"], case["C"], case["dout"], case["x"], case.get("layout")
    T = x.shape[1]
    out = Outcome(
        f"{_constructor('PositionalEmbedding', block_size=block_size, C=C)}, forward({show(x)}), "
        f"backward({_arg('dout', G, layout)})",
        "gradient for x",
        G.copy(),
    )
    with out.judging():
        pe = call("PositionalEmbedding(block_size, C)", PositionalEmbedding, block_size, C)
        lesson04.call_forward("PositionalEmbedding.forward", pe.forward, x.copy(), T, block_size)
        out.got = call("PositionalEmbedding.backward", pe.backward, laid_out(G, layout))
        if out.got is None:
            raise Diagnosis("wrong-value", "backward returned None; it should return the gradient for x.")
        dx = expect_array("the gradient for x that backward returns", out.got, x.shape)
        if not lesson04.compare("dx", dx, G).ok:
            found = relationship(dx, G, sizes={"B": x.shape[0], "T": T})  # as positional_backward_dx tells it
            raise Diagnosis(*(found or ("wrong-gradient", "The returned gradient for x is not dout.")))
    return out


# ------------------------------------------------------------------------------------------------ lesson 5


def _layer(V, block_size, C) -> str:
    return _constructor("EmbeddingLayer", vocab_size=V, block_size=block_size, C=C)


def run_layer_forward(student, case) -> Outcome:
    (EmbeddingLayer,) = student
    V, block_size, C, idx, E, P = (case[k] for k in ("V", "block_size", "C", "idx", "E", "P"))
    layout = case.get("layout")
    T = idx.shape[1]
    out = Outcome(
        f"{_layer(V, block_size, C)} with E = {show(E)} and P = {show(P)}, forward({_arg('idx', idx, layout)})",
        "forward(idx)",
        E[idx] + P[:T],
    )
    with out.judging():
        layer = call("EmbeddingLayer(vocab_size, block_size, C)", EmbeddingLayer, V, block_size, C)
        if not _set_tables(layer, E=E, P=P):
            return Outcome(out.call, out.name, out.want)
        idx_in = laid_out(idx, layout)
        out.got = lesson05._forward(EmbeddingLayer, layer, idx_in, block_size)
        got = expect_array("forward(idx)", out.got, idx.shape + (C,))
        if not (np.array_equal(np.asarray(layer.E), E) and np.array_equal(np.asarray(layer.P), P)):
            raise Diagnosis("side-effect", "forward changed E or P.")
        if not np.array_equal(idx_in, idx):
            raise Diagnosis("side-effect", "forward changed the ids it was given.")
        lesson05.forward_diagnosis(got, E, P, idx)
    return out


def _layer_backward(EmbeddingLayer, case, name: str) -> Outcome:
    V, block_size, C, idx, G = (case[k] for k in ("V", "block_size", "C", "idx", "dout"))
    layout = case.get("layout")
    T = idx.shape[1]
    want = lesson02.scatter_add(idx, G, V) if name == "dE" else _positions(G, block_size)
    out = Outcome(f"{_layer(V, block_size, C)}, forward({show(idx)}), backward({_arg('dout', G, layout)})", name, want)
    with out.judging():
        layer = call("EmbeddingLayer(vocab_size, block_size, C)", EmbeddingLayer, V, block_size, C)
        lesson05._forward(EmbeddingLayer, layer, idx.copy(), block_size)
        ret = lesson05._backward(layer, G, layout)
        if name == "dE":
            out.got = layer.dE
            dE = np.array(lesson02.expect_gradient_rows("self.dE after backward", out.got, (V, C), idx), copy=True)
            if ret is not None:
                raise Diagnosis("wrong-value", "backward should return None.")
            report = lesson05.compare("dE", dE, want)
            if not report.ok:
                lesson05._dE_diagnosis(EmbeddingLayer, dE, want, idx, report, G)
        else:
            out.got = layer.dP
            dP = lesson05.expect_grad(
                f"self.dP after backward (T={T}, block_size={block_size})", out.got, (block_size, C), T
            )
            lesson05.dP_diagnosis(np.array(dP, copy=True), want, G, T)
    return out


# ------------------------------------------------------------------------------------------------ the spaces

OTHER_BASES = (10.0, 100.0)

SPACES = {
    ("lesson01", "softmax_values"): Space(softmax_cases(), run_softmax),
    ("lesson01", "attention_values"): Space(attention_cases(), run_attention),
    ("lesson01", "permutation_gap_with_pos"): Space(gap_cases(), run_gap),
    ("lesson02", "embedding_forward"): Space(batches(dout=False, tables=("E",)), run_embedding_forward),
    ("lesson02", "embedding_backward"): Space(batches(), run_embedding_backward),
    ("lesson02", "rel_error_values"): Space(pairs(), run_rel_error),
    ("lesson03", "table_even_values"): Space(table_cases(widths=(2, 4)), run_table),
    ("lesson03", "table_odd_values"): Space(table_cases(widths=(1, 3)), run_table),
    ("lesson03", "table_base_and_length"): Space(table_cases(bases=OTHER_BASES + (None,)), run_table),
    ("lesson03", "shift_matrix_values"): Space(shift_cases(), run_shift),
    ("lesson03", "shift_matrix_base"): Space(shift_cases(OTHER_BASES), run_shift),
    ("lesson04", "positional_forward"): Space(batches(False, False, ("P",), inputs=True), run_positional_forward),
    ("lesson04", "positional_backward_dP"): Space(batches(ids=False, inputs=True), run_positional_dP),
    ("lesson04", "positional_backward_dx"): Space(batches(ids=False, inputs=True), run_positional_dx),
    ("lesson05", "layer_forward"): Space(batches(dout=False, tables=("E", "P")), run_layer_forward),
    ("lesson05", "layer_backward_dE"): Space(batches(), lambda student, case: _layer_backward(*student, case, "dE")),
    ("lesson05", "layer_backward_dP"): Space(batches(), lambda student, case: _layer_backward(*student, case, "dP")),
}


def space_of(module: str, check: str) -> Space | None:
    """The case space of a hidden check, or None when it has none (its cases are fixed, or already small)."""
    return SPACES.get((module, check))
