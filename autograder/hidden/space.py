"""The contract's input space, as data: for every graded unit, each dimension of its input and the values the
checks draw of it, and for the stateful units the calls that may follow each other.

This module is the one place the space is written.  The hidden checks draw from it (``hidden.oracle`` makes a
pairwise covering array of these dimensions from each grading's seed, every value of every dimension and every pair
of values of two dimensions, and random draws on top), the stateful units are driven through random call sequences
of its ``STEPS``, and docs/contract.md's input-space table is generated from it (``python -m autograder build``
rewrites it, by autograder/devtools/doc_tables.py; tests/test_input_space.py fails when the two differ).

A dimension's values come simplest first: the search for a smallest failing case moves every dimension towards its
first value.  ``RULES`` writes down what the contract had left open and a student may rely on.  Data only: a grading
kernel imports it under plain nbgrader.  The memory layouts are the channel's registry (``LAYOUTS`` in
``autograder/channel/wire.py``, which carries them to the kernel); a new float dtype is one entry of ``FLOAT_RTOL``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..channel.wire import LAYOUTS as LAYOUT_REGISTRY

INT_DTYPES = ("int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
# every float dtype the checks hand student code, simplest first, and the relative tolerance its answers are held to
FLOAT_RTOL = {"float64": 1e-9, "float32": 1e-3, "float16": 2e-2}
FLOAT_DTYPES = tuple(FLOAT_RTOL)
LAYOUTS = tuple(LAYOUT_REGISTRY)  # "contiguous" first
# "integer" in the contract: a Python int or any NumPy integer scalar
INTEGER_TYPES = ("int", "int64", "int32", "int16", "uint8", "uint64")


@dataclass(frozen=True)
class Dim:
    name: str
    values: tuple  # simplest first
    says: str  # what the dimension is, in the contract's words
    parts: tuple = ()  # the checks of a unit whose results it can change ((): every one); the others keep its first value


@dataclass(frozen=True)
class Unit:
    name: str  # as the contract names it
    dims: tuple  # of Dim: the valid inputs
    invalid: tuple = ()  # of Dim: the invalid inputs, each to raise one of ``raises``
    raises: tuple = ()  # names of the exception classes the contract allows on invalid input
    steps: tuple = ()  # the calls of a stateful unit that may follow each other (any order, after a forward)
    check: str = ""  # the hidden check whose cell the unit's cases are charged to
    invalid_check: str = ""
    steps_check: str = ""
    # a typical case, one value per dimension: every value of every dimension is also drawn on it (oracle.anchored)
    typical: dict | None = None

    def dim(self, name: str) -> Dim:
        return next(d for d in self.dims + self.invalid if d.name == name)


# the calls of a stateful unit; a backward always follows a forward that returned
STEP_WORDS = {
    "forward same": "forward again with the same ids or x",
    "forward same shape": "forward with another batch of the same shape",
    "forward other shape": "forward with a batch of another shape",
    "backward": "backward with a fresh dout",
    "backward again": "backward again with the same dout (two backwards in a row)",
    "step in place": "the table updated in place by an optimizer step (E -= 0.1 * dE)",
    "replace table": "the table replaced by another array (obj.E = new)",
    "flag": "freeze_positions switched, between any two calls (between a forward and its backward too), both ways",
}
STATE_STEPS = (
    "forward same",
    "forward same shape",
    "forward other shape",
    "backward",
    "backward again",
    "step in place",
    "replace table",
)

SIZES_ONE_ODD = (1, 2, 3, 5)

UNITS = {
    u.name: u
    for u in (
        Unit(
            "softmax(x, axis)",
            (
                Dim("rank", (1, 2, 3), "x of every rank from one axis up"),
                Dim("sizes", ("ones", "odd", "mixed"), "every axis of length 1, odd lengths, or 1 next to others"),
                Dim(
                    "axis",
                    ("default", -1, 0, "last", "-rank", "middle"),
                    "axis left out, or any axis, every negative one too",
                ),
                Dim("layout", LAYOUTS, "x's memory layout"),
                Dim("dtype", ("float64", "float32"), "x of another float dtype (float16 cannot hold scores of 1000)"),
                Dim(
                    "values",
                    ("small", "wide", "very negative", "ties"),
                    "both signs; a spread wider than exp holds (-800 to 800); all near -1000; equal entries",
                ),
                Dim(
                    "before",
                    ("none", "same shape", "other shape"),
                    "called first with another x, whose result the caller still holds (a later call leaves it alone)",
                ),
            ),
            check="softmax_values",
            typical={
                "rank": 2,
                "sizes": "odd",
                "axis": -1,
                "layout": "contiguous",
                "dtype": "float64",
                "values": "small",
                "before": "none",
            },
        ),
        Unit(
            "self_attention(X, Wq, Wk, Wv)",
            (
                Dim("B", (1, 2, 3), "batch"),
                Dim("T", (1, 2, 5), "sequence length"),
                Dim("C", (1, 3, 4), "width"),
                Dim("hs", ("C", 1, 2), "head size, equal to C or not"),
                Dim("layout", LAYOUTS, "X's memory layout"),
                Dim("dtype", ("float64", "float32"), "X and the weights of another float dtype"),
                Dim("scale", ("small", "large"), "X of entries up to 1, or up to 30 (scores around 1000)"),
            ),
            check="attention_values",
        ),
        Unit(
            "permutation_gap(X, perm, Wq, Wk, Wv, P)",
            (
                Dim("B", (1, 2), "batch"),
                Dim("T", (3, 4, 5), "sequence length from 3"),
                Dim("perm", ("cycle", "reverse cycle", "random"), "a permutation that is not its own inverse"),
                Dim("perm dtype", INT_DTYPES, "perm of every integer dtype"),
                Dim("P", ("T rows", "longer", "none"), "P of exactly T rows, of more rows, or left out"),
                Dim("layout", LAYOUTS, "X's memory layout"),
            ),
            check="permutation_gap_with_pos",
        ),
        Unit(
            "Embedding.forward(idx)",
            (
                Dim(
                    "ids",
                    ("(1, 1)", "python int", "numpy scalar", "0-d array", "1-d", "(B, T)", "3-d"),
                    "a single id (a Python int, a NumPy integer scalar, a 0-d array) or an array of any rank",
                ),
                Dim("dtype", INT_DTYPES, "ids of every integer dtype, signed and unsigned"),
                Dim("layout", LAYOUTS, "the ids' memory layout"),
                Dim("V", (1, 2, 7, 24), "vocabulary size from 1"),
                Dim("C", (1, 2, 5), "width from 1, odd or even"),
                Dim(
                    "which ids",
                    ("random", "both ends", "last id only", "repeats"),
                    "any ids; id 0 and the last id V - 1; the last id alone; one id repeated",
                ),
            ),
            invalid=(
                Dim(
                    "bad id",
                    ("V", "V + 3", "-1", "-V", "float 1.5", "float 2.0"),
                    "an id of V or more, a negative id, an id of a float type (whole-valued too)",
                ),
                Dim("bad container", ("python", "numpy scalar", "array"), "the bad id alone or in an array"),
                Dim("float dtype", FLOAT_DTYPES, "the float type of a float id"),
            ),
            raises=("IndexError", "ValueError", "TypeError (for a float id)"),
            steps=STATE_STEPS,
            check="embedding_forward",
            invalid_check="embedding_bad_ids",
            steps_check="embedding_backward_fresh",
        ),
        Unit(
            "Embedding.backward(dout)",
            (
                Dim("ids", ("(1, 1)", "1-d", "(B, T)", "3-d"), "the ids of the forward before"),
                Dim("dtype", INT_DTYPES, "their integer dtype"),
                Dim("V", (1, 2, 7, 24), "vocabulary size"),
                Dim("C", (1, 2, 5), "width"),
                Dim("which ids", ("random", "both ends", "last id only", "repeats"), "repeated ids, ids never used"),
                Dim("dout layout", LAYOUTS, "dout's memory layout"),
                Dim("dout dtype", FLOAT_DTYPES, "dout of every float dtype"),
            ),
            check="embedding_backward",
        ),
        Unit(
            "numerical_gradient(f, x, eps)",
            (
                Dim("rank", (1, 2, 3), "x of every rank"),
                Dim("sizes", ("ones", "odd", "mixed"), "one entry, odd lengths"),
                Dim("layout", LAYOUTS, "x's memory layout: nudged in place whatever it is"),
                Dim("eps", ("default", 1e-5, 1e-4), "eps left out or given"),
            ),
            check="numerical_gradient_values",
        ),
        Unit(
            "rel_error(a, b)",
            (
                Dim("rank", (1, 2, 3), "a and b of every rank, from one entry"),
                Dim("sizes", ("ones", "odd", "mixed"), "one entry, odd lengths"),
                Dim("a layout", LAYOUTS, "a's memory layout"),
                Dim("b layout", LAYOUTS, "b's memory layout"),
                Dim(
                    "signs", ("same", "opposite", "mixed", "zeros"), "either sign, opposite signs, both zero somewhere"
                ),
                Dim("dtype", ("float64", "float32"), "a and b of another float dtype"),
            ),
            check="rel_error_values",
        ),
        Unit(
            "sinusoidal_table(T, C, base)",
            (
                Dim("T", (1, 2, 7, 2048), "T from 1 to several thousand"),
                Dim("C", (1, 2, 3, 8, 9), "C from 1, odd or even"),
                Dim("base", ("default", 10000.0, 100.0, 2.5, "int 100"), "base left out, or any positive base"),
                Dim("int type", INTEGER_TYPES, "T and C as a Python int or any NumPy integer scalar"),
                Dim(
                    "before",
                    ("none", "same T other C", "other T", "other base"),
                    "called first with other arguments (a result kept under too little of its arguments)",
                ),
            ),
            invalid=(
                Dim(
                    "bad", ("T = 0", "C = 0", "T = -2", "T = 2.5", "C = 3.0"), "a T or C that is not a positive integer"
                ),
            ),
            raises=("ValueError",),
            check="table_base_and_length",
            typical={"T": 7, "C": 8, "base": "default", "int type": "int", "before": "none"},
            invalid_check="table_bad_sizes",
        ),
        Unit(
            "shift_matrix(k, C, base)",
            (
                Dim("k", (0, 1, -1, 3, -7, 1_000_000, -1_000_000), "k negative, zero, small and large"),
                Dim("C", (2, 4, 6, 10), "every even C from 2, an odd number of pairs too"),
                Dim("base", ("default", 10000.0, 100.0, 2.5), "base left out, or any positive base"),
                Dim("int type", ("int", "int64", "int32"), "k and C as a Python int or any NumPy integer scalar"),
                Dim("before", ("none", "same k other C", "other k", "other base"), "called first with other arguments"),
            ),
            invalid=(Dim("bad", ("C = 1", "C = 3", "C = 7"), "an odd C"),),
            raises=("ValueError",),
            check="shift_matrix_values",
            typical={"k": 3, "C": 4, "base": "default", "int type": "int", "before": "none"},
            invalid_check="shift_matrix_odd_C",
        ),
        Unit(
            "PositionalEmbedding(block_size, C)",
            (
                Dim("block_size", (1, 4, 7), "block_size from 1"),
                Dim("T", ("block_size", 1, "odd", "block_size - 1"), "T from 1 to block_size: the last position too"),
                Dim("B", (1, 2, 3), "batch from 1"),
                Dim("C", (1, 2, 5), "width from 1"),
                Dim("x layout", LAYOUTS, "x's memory layout"),
                Dim("x dtype", FLOAT_DTYPES, "x of every float dtype"),
                Dim("dout layout", LAYOUTS, "dout's memory layout", parts=("backward",)),
                Dim("dout dtype", FLOAT_DTYPES, "dout of every float dtype", parts=("backward",)),
            ),
            invalid=(
                Dim("too long", ("block_size + 1", "2 * block_size"), "T longer than block_size"),
                Dim("block_size", (1, 4), "block_size"),
                Dim("B", (1, 2, 5), "batch, smaller and larger than T"),
            ),
            raises=("ValueError", "AssertionError"),
            steps=STATE_STEPS,
            check="positional_backward_dP",
            invalid_check="positional_too_long",
            steps_check="positional_backward_fresh",
        ),
        Unit(
            "EmbeddingLayer(vocab_size, block_size, C)",
            (
                Dim("block_size", (1, 4, 7), "block_size from 1"),
                Dim("T", ("block_size", 1, "odd", "block_size - 1"), "T from 1 to block_size: the last position too"),
                Dim("B", (1, 2, 3), "batch from 1"),
                Dim("V", (1, 2, 7, 24), "vocabulary size from 1", parts=("forward", "dE")),
                Dim("C", (1, 2, 5), "width from 1"),
                Dim("dtype", INT_DTYPES, "ids of every integer dtype", parts=("forward", "dE")),
                Dim(
                    "which ids",
                    ("random", "both ends", "last id only", "repeats"),
                    "id 0, the last id, repeats",
                    parts=("forward", "dE"),
                ),
                Dim("ids layout", LAYOUTS, "the ids' memory layout", parts=("forward", "dE")),
                Dim("dout layout", LAYOUTS, "dout's memory layout", parts=("dE", "dP")),
                Dim("dout dtype", FLOAT_DTYPES, "dout of every float dtype", parts=("dE", "dP")),
                Dim("frozen", (False, True), "freeze_positions off or on", parts=("dE", "dP")),
                Dim(
                    "frozen how",
                    ("constructor", "attribute"),
                    "the flag given to the constructor or set afterwards",
                    parts=("dE", "dP"),
                ),
            ),
            invalid=(
                Dim("too long", ("block_size + 1", "2 * block_size"), "T longer than block_size"),
                Dim("block_size", (1, 4), "block_size"),
                Dim("B", (1, 2, 5), "batch, smaller and larger than T"),
            ),
            raises=("ValueError", "AssertionError"),
            steps=STATE_STEPS + ("flag",),
            check="layer_backward_dP",
            invalid_check="layer_too_long",
            steps_check="layer_backward_fresh",
        ),
    )
}

# What the contract had left open, decided: a student may rely on these, and the checks keep to them.
RULES = (
    "Floats may come in any float dtype. A result is judged against the float64 reference computed from the same "
    "input values, at that dtype's precision (float64: 1e-9 relative; float32: 1e-3; float16: 2e-2); the result's "
    "own dtype is free.",
    "Ids may come in any integer dtype, signed or unsigned, and a single id as a Python int, a NumPy integer scalar or "
    "a 0-d array; an integer argument (T, C, k) as a Python int or any NumPy integer scalar.",
    "An array handed to a unit is not changed by the caller afterwards; the unit may keep it (as a cache) without "
    "copying, and must not change it itself.",
    "backward follows a forward that returned; it reads what the last such forward kept. A forward that raised is "
    "followed by another forward before any backward.",
    "Between any two calls the caller may update a table in place (E -= lr * dE) or replace it (obj.E = new): every "
    "call reads the table as it is then.",
    "freeze_positions is read by backward when it runs: switching it between a forward and its backward changes that "
    "backward's dP. forward does not depend on it.",
    "Two backwards in a row give the same gradients for the same dout, and the gradient of the second dout for another.",
    "A result handed out (a return value, self.dE or self.dP after backward) is the caller's: a later call of the unit "
    "does not write into it. A new object starts with self.cache and its gradients None.",
    "A replaced table has the shape of the one it replaces.",
)


def table() -> str:
    """docs/contract.md's input-space table, from ``UNITS``."""
    lines = ["| unit | dimension | the values every grading draws, and every pair of them |", "|---|---|---|"]
    for unit in UNITS.values():
        for i, d in enumerate(unit.dims + unit.invalid):
            bad = " (invalid: raises " + " or ".join(unit.raises) + ")" if d in unit.invalid else ""
            values = ", ".join(f"`{v}`" for v in d.values)
            lines.append(f"| {'`' + unit.name + '`' if i == 0 else ''} | {d.name}: {d.says}{bad} | {values} |")
        if unit.steps:
            steps = "; ".join(STEP_WORDS[s] for s in unit.steps)
            lines.append(f"| | call sequences | after a forward, in any order: {steps} |")
    lines.append("")
    lines.append("What the contract leaves to the checks, decided:")
    lines.append("")
    lines += [f"- {rule}" for rule in RULES]
    return "\n".join(lines)


BEGIN, END = (
    "<!-- input-space table: generated from autograder/hidden/space.py -->",
    "<!-- end of the generated table -->",
)

if __name__ == "__main__":
    print(table())
