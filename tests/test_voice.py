"""autograder/voice.py, the one source of the words a student reads (fast, in-process).

relationship() must name each transform of the right array that the contract lists, and must name nothing
where nothing is there: a right answer with numerical noise, an unrelated array, an all-zero array, an
array constant along an axis (where a shift matches by chance), non-finite values.
"""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from autograder import voice
from autograder.hidden.gradcheck import numerical_gradient  # the kit's own central differences
from autograder.voice import VOICE, Diagnosis, expect_array, expect_close, explain, relationship, say

RNG = np.random.default_rng(2024)
WANT = RNG.standard_normal((5, 4))  # a generic "right" matrix: no two rows or columns alike
CUBE = RNG.standard_normal((2, 3, 4))  # (B, T, C)


def named(got, want=WANT, **kw):
    found = relationship(got, want, **kw)
    assert found is not None, "no relationship named"
    return found


# ----------------------------------------------------------------------------------- scaled


@pytest.mark.parametrize(
    "factor, words",
    [
        (2.0, "exactly 2 times the right values"),
        (0.5, "exactly 1/2 of the right values"),
        (-1.0, "sign flipped"),
        (3.7, "the right values times 3.7"),
    ],
)
def test_a_constant_factor_is_named(factor, words):
    kind, said = named(factor * WANT)
    assert kind == "scaled" and words in said


def test_a_factor_equal_to_a_size_names_the_size():
    kind, said = named(WANT / 3, sizes={"B": 3, "T": 5})
    assert kind == "scaled" and "1/3" in said and "divided by B = 3" in said and "mean where a sum belongs" in said
    kind, said = named(WANT * 5, sizes={"B": 3, "T": 5})
    assert kind == "scaled" and "exactly 5 times" in said and "(T = 5)" in said


def test_a_factor_of_nearly_one_or_zero_is_not_called_a_factor():
    assert relationship(WANT * (1 + 1e-5), WANT) is None  # slightly off, not "times 1"
    assert relationship(WANT * 1e-9, WANT) is None  # nearly all zero, not "times 1e-09"


# ----------------------------------------------------------------------------------- transposed


def test_the_transpose_of_a_matrix_is_named():
    kind, said = named(WANT.T)
    assert kind == "transposed" and "rows and columns swapped (the transpose)" in said
    square = RNG.standard_normal((4, 4))
    assert relationship(square.T, square) == (
        "transposed",
        "the right values with rows and columns swapped (the transpose)",
    )


def test_two_axes_swapped_in_3d_are_named():
    kind, said = named(np.swapaxes(CUBE, 0, 1), CUBE)
    assert kind == "transposed" and "axes 0 and 1 swapped" in said
    kind, said = named(np.swapaxes(CUBE, 1, 2), CUBE)
    assert kind == "transposed" and "axes 1 and 2 swapped" in said


# ----------------------------------------------------------------------------------- shifted


def shift(a, by, axis):
    """``a`` moved ``by`` places along ``axis``, zeros where nothing moved in (no wrap-around)."""
    out = np.zeros_like(a)
    src = [slice(None)] * a.ndim
    dst = [slice(None)] * a.ndim
    src[axis], dst[axis] = (slice(None, -1), slice(1, None)) if by > 0 else (slice(1, None), slice(None, -1))
    out[tuple(dst)] = a[tuple(src)]
    return out


@pytest.mark.parametrize(
    "by, axis, words",
    [
        (1, 0, "shifted forward by one row: your row k holds what belongs in row k - 1"),
        (-1, 0, "shifted back by one row: your row k holds what belongs in row k + 1"),
        (1, 1, "shifted forward by one column: your column k holds what belongs in column k - 1"),
        (-1, 1, "shifted back by one column: your column k holds what belongs in column k + 1"),
    ],
)
def test_a_shift_by_one_row_or_column_is_named(by, axis, words):
    assert relationship(shift(WANT, by, axis), WANT) == ("shifted", "the right values " + words)


def test_a_shift_in_3d_and_1d_reads_as_english():
    kind, said = named(shift(CUBE, 1, 1), CUBE)
    assert kind == "shifted" and "your slice k along axis 1 holds what belongs in slice k - 1 along axis 1" in said
    vector = RNG.standard_normal(6)
    assert relationship(np.roll(vector, -1), vector) == (
        "shifted",
        "the right values shifted back by one entry: your entry k holds what belongs in entry k + 1",
    )


# ----------------------------------------------------------------------------------- wrong rows


def test_rows_in_the_wrong_places_are_named():
    kind, said = named(WANT[[1, 0, 2, 3, 4]])
    assert kind == "wrong-rows" and "your row 0 is what belongs in row 1" in said


def test_columns_in_the_wrong_places_are_named():
    kind, said = named(WANT[:, [0, 2, 1, 3]])
    assert (
        kind == "wrong-rows"
        and "the right columns in the wrong places: your column 1 is what belongs in column 2" in said
    )


def test_a_misplaced_row_that_holds_something_is_the_one_named():
    """dE has all-zero rows (ids not in the batch): point at the row with a gradient, not at a zero row."""
    want = np.zeros((5, 3))
    want[0], want[3] = RNG.standard_normal(3), RNG.standard_normal(3)
    got = want[[1, 0, 2, 3, 4]]  # row 0's gradient landed in row 1, whose zeros landed in row 0
    kind, said = named(got, want)
    assert kind == "wrong-rows" and "your row 1 is what belongs in row 0" in said


# ----------------------------------------------------------------------------------- wrong axis


def test_a_sum_over_the_wrong_axis_is_named():
    want = CUBE.sum(axis=0)  # dP: the sum over the batch
    kind, said = named(CUBE.sum(axis=1), want, source=CUBE, reduced_axis=0)
    assert kind == "wrong-axis" and said.startswith("the sum over axis 1 (size 3)")
    assert "the right one is the sum over axis 0 (size 2)" in said


def test_a_mean_over_the_wrong_axis_is_named():
    kind, said = named(CUBE.mean(axis=2), CUBE.sum(axis=0), source=CUBE, reduced_axis=0)
    assert kind == "wrong-axis" and said.startswith("the mean over axis 2 (size 4)")


def test_a_mean_over_the_right_axis_is_a_factor_1_over_B():
    kind, said = named(CUBE.mean(axis=0), CUBE.sum(axis=0), sizes={"B": 2}, source=CUBE, reduced_axis=0)
    assert kind == "scaled" and "divided by B = 2" in said


def test_a_same_shape_sum_over_the_wrong_axis_is_named():
    source = RNG.standard_normal((3, 3, 4))
    kind, said = named(source.sum(axis=1), source.sum(axis=0), source=source, reduced_axis=0)
    assert kind == "wrong-axis" and "the sum over axis 1 (size 3)" in said


# ----------------------------------------------------------------------------------- nothing to name


def test_a_right_but_noisy_array_names_nothing():
    x, G = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    numeric = numerical_gradient(lambda: float(np.sum(x * G)), x)  # the true gradient is G
    assert 0 < np.abs(numeric - G).max() < 1e-7
    assert relationship(numeric, G) is None
    assert relationship(G + 1e-9 * RNG.standard_normal(G.shape), G) is None
    expect_close("dx", numeric, G)  # and it passes


def test_an_unrelated_array_names_nothing():
    assert relationship(RNG.standard_normal(WANT.shape), WANT) is None
    assert relationship(RNG.standard_normal((3, 7)), WANT) is None
    assert relationship(RNG.standard_normal(CUBE.shape[1:]), CUBE.sum(axis=0), source=CUBE, reduced_axis=0) is None


def test_an_all_zero_array_names_nothing():
    assert relationship(np.zeros_like(WANT), WANT) is None
    assert relationship(np.zeros(CUBE.shape[1:]), CUBE.sum(axis=0), source=CUBE, reduced_axis=0) is None


def test_a_shift_along_a_constant_axis_is_not_named():
    """Every row equal: got[1:] == want[:-1] holds by chance; the first row is wrong, and that is all."""
    want = np.tile(RNG.standard_normal(3), (5, 1))
    got = want.copy()
    got[0] = RNG.standard_normal(3)
    assert np.allclose(got[1:], want[:-1])  # the coincidence a careless shift test would fall for
    assert relationship(got, want) is None
    constant_columns = np.tile(RNG.standard_normal((5, 1)), (1, 4))
    got = constant_columns.copy()
    got[:, -1] = 7.0
    assert relationship(got, constant_columns) is None


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_name_nothing(bad):
    got = 2 * WANT
    got[1, 2] = bad
    assert relationship(got, WANT) is None
    want = WANT.copy()
    want[0, 0] = bad
    assert relationship(WANT, want) is None


def test_what_is_not_an_array_names_nothing():
    assert relationship(None, WANT) is None
    assert relationship([[1, 2], [3]], WANT) is None
    assert relationship(WANT[0, 0], WANT[0, :1]) is None  # fewer than two numbers: nothing to relate


# ----------------------------------------------------------------------------------- expect_close


def diagnosis_of(got, want=WANT, **kw):
    with pytest.raises(Diagnosis) as caught:
        expect_close("dE", got, want, **kw)
    return caught.value


@pytest.mark.parametrize(
    "got, kind",
    [
        (2 * WANT, "scaled"),
        (-WANT, "scaled"),
        (WANT.T, "transposed"),
        (shift(WANT, 1, 0), "shifted"),
        (WANT[[4, 1, 2, 3, 0]], "wrong-rows"),
        (np.zeros((3, 3)), "wrong-shape"),
        (RNG.standard_normal(WANT.shape), "wrong-value"),
    ],
)
def test_expect_close_raises_the_id_of_what_it_found(got, kind):
    error = diagnosis_of(got)
    assert error.misconception == kind and error.message.startswith("dE ")


def test_expect_close_names_the_wrong_axis():
    error = diagnosis_of(CUBE.sum(axis=1), CUBE.sum(axis=0), source=CUBE, reduced_axis=0)
    assert error.misconception == "wrong-axis"


def test_expect_close_names_a_mean_where_a_sum_belongs_in_one_sentence():
    error = diagnosis_of(CUBE.mean(axis=0), CUBE.sum(axis=0), sizes={"B": 2}, hint="Sum over the batch.")
    assert error.message == (
        "dE is exactly 1/2 of the right values, as if divided by B = 2 (a mean where a sum "
        "belongs). Sum over the batch."
    )


def test_expect_close_passes_the_right_array_and_ends_with_the_hint():
    expect_close("dE", WANT + 1e-12, WANT)
    error = diagnosis_of(3 * WANT, hint="Did you add dout three times?")
    assert error.message.endswith("Did you add dout three times?")


def test_expect_close_says_where_and_by_how_much():
    got = WANT.copy()
    got[2, 1] += 0.5
    error = diagnosis_of(got)
    assert error.misconception == "wrong-value"
    assert "off by up to 0.5: at [2, 1]" in error.message


def test_expect_close_turns_non_numbers_and_non_finite_values_into_diagnoses():
    """A backward that never set dE leaves None: the student gets a diagnosis, not a TypeError."""
    error = diagnosis_of(None)
    assert error.misconception == "wrong-shape" and "should be an array of shape (5, 4), got None" in error.message
    got = WANT.copy()
    got[3, 0] = np.nan
    error = diagnosis_of(got)
    assert error.misconception == "wrong-value" and "1 non-finite value(s): at [3, 0] it is nan" in error.message


# ----------------------------------------------------------------------------------- say() and the contract's quotes


def contract_quotes() -> dict[str, str]:
    """Each catalogue id whose row in docs/contract.md's misconception table quotes its message (the third column
    opens with a quote in backticks) -> the quote."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "contract.md").read_text(encoding="utf-8")
    table = text[text.index("## Misconceptions") :]
    quotes = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[2].startswith("`"):
            quotes[cells[0].strip("`")] = cells[2].split("`")[1]
    return quotes


def quotes_headline(quote: str, headline: str) -> bool:
    """Whether ``quote`` is the opening of ``headline`` with its ``{placeholders}`` filled by values: the contract
    writes an example's numbers where the headline has a placeholder (a value: numbers, brackets, commas, no
    words), and may stop before its end."""
    value = r"[^A-Za-z]+?"
    parts = re.split(r"(\{\w+\})", headline)  # literal, placeholder, literal, ...
    for i, part in enumerate(parts):
        before = "".join(value if p.startswith("{") else re.escape(p) for p in parts[:i])
        ends = [value] if part.startswith("{") else [re.escape(part[:j]) for j in range(len(part) + 1)]
        if any(re.fullmatch(before + end, quote) for end in ends):
            return True
    return False


def test_every_headline_the_contract_quotes_is_the_one_a_student_reads():
    """docs/contract.md quotes some headlines word for word, with an example's values in the placeholders: the quotes
    are read from there, so changing or adding a quoted headline is VOICE in autograder/voice.py and its quote in the
    contract's misconception table, nothing else."""
    quotes = contract_quotes()
    assert {"scatter-overwrite", "sin-cos-swap", "freq-sign"} <= set(quotes), quotes
    for mistake, quote in quotes.items():
        headline = VOICE[mistake][0]
        assert quotes_headline(quote, headline), (
            f"docs/contract.md's misconception table quotes {mistake} as {quote!r}, but its headline in VOICE in "
            f"autograder/voice.py is {headline!r}: change the two together"
        )
    assert quotes_headline("Row 0 is used twice so its gradient", VOICE["scatter-overwrite"][0])
    assert not quotes_headline("Row 0 is used once", VOICE["scatter-overwrite"][0])
    row = say("scatter-overwrite", row=0, want=np.array([2.0, 2.0]), got=np.array([1.0, 1.0]))
    assert row.message.splitlines()[0] == "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]"
    assert "np.add.at" in row.message


def test_say_tells_the_smallest_case_from_the_drawn_one():
    """A headline measured on the smallest case and a detail from a larger case are told apart, not one story."""
    message = say(
        "scatter-overwrite",
        row=0,
        want=np.array([2.0, 2.0]),
        got=np.array([1.0, 1.0]),
        smallest="ids [0, 0] with a dout of ones",
        detail="In the batch this check drew, token id 1 occurs 6 times.",
    ).message
    headline, detail = message.splitlines()
    assert headline == "Row 0 is used twice so its gradient should be [2.0, 2.0], got [1.0, 1.0]"
    assert detail.startswith(
        "That is the smallest case, ids [0, 0] with a dout of ones. In the batch this check drew, "
        "token id 1 occurs 6 times. dE[idx] += dout keeps only one write"
    )


def test_say_puts_headline_then_detail_then_fix():
    headline, fix = VOICE["dP-not-summed"]
    message = say("dP-not-summed", detail="Row 0 of dP is dout[0, 0] alone.").message
    assert message == f"{headline}\nRow 0 of dP is dout[0, 0] alone. {fix}"
    assert str(say("freq-sign")).startswith("[freq-sign] Lower dims")


def test_every_catalogue_id_has_words():
    assert set(voice.CATALOGUE) <= set(VOICE) <= set(voice.KNOWN_IDS)
    with pytest.raises(ValueError):
        Diagnosis("not-an-id", "words")


def test_diagnosis_shows_in_ipython_without_a_traceback():
    lines = say("freq-sign")._render_traceback_()
    assert "Diagnosis [freq-sign]" in lines[0] and "Lower dims should oscillate faster" in lines[0]


# ----------------------------------------------------------------------------------- the file itself

SOURCE = voice.__file__


def test_voice_is_fit_to_be_copied_into_a_notebook():
    text = open(SOURCE, encoding="utf-8").read()
    assert "autograder" not in text.lower()  # release notebooks must not contain the word
    tree = ast.parse(text)
    # no `from __future__` (it runs as notebook cell text, where that must be the cell's first statement)
    assert not [line for line in text.splitlines() if line.startswith("from __future__")]
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported == {"numpy"}


def test_voice_runs_on_its_own_as_cell_text():
    """What the build pastes into a notebook works with no kit around it."""
    namespace = {"__name__": "notebook_cell"}
    exec(compile(open(SOURCE, encoding="utf-8").read(), "self-check-helpers", "exec"), namespace)
    assert namespace["relationship"](2 * WANT, WANT)[0] == "scaled"
    with pytest.raises(namespace["Diagnosis"]):
        namespace["expect_close"]("dP", WANT.T, WANT)


def test_rows_in_the_wrong_places_are_searched_only_in_arrays_of_bounded_size():
    """The search pairs every row with every other one: past ``most`` rows it is not tried (a reversed 6000-row
    table must not stall a check), while the shift and transpose tests, linear in size, still run."""
    rows = RNG.standard_normal((9, 4))
    assert voice._moved(rows[::-1], rows, 0, 1.0, most=9) is not None
    assert voice._moved(rows[::-1], rows, 0, 1.0, most=8) is None
    table = RNG.standard_normal((3000, 6))
    assert relationship(table[::-1], table) is None
    assert relationship(table.T, table)[0] == "transposed"


def test_a_classic_crash_is_told_with_its_cause_and_fix():
    """Python's max on an array ("the truth value of an array ... is ambiguous") points to np.maximum and np.where."""
    try:
        max(1e-12, np.ones(3))
    except ValueError as crash:
        told = explain(crash, "rel_error: your code")
    assert told.startswith("rel_error: your code raised ValueError: The truth value of an array")
    assert "Python's max" in told and "np.maximum(a, b)" in told and "np.where(condition, a, b)" in told


@pytest.mark.parametrize(
    "name, got, want, words",
    [
        ("self.dP", (3, 2), (5, 2), ["Axis 0 has 3 entries where 5 belong", "np.zeros_like"]),
        ("forward(idx)", (2, 3), (2, 3, 4), ["1 axis too few", "keepdims=True"]),
        ("dE", (4, 2, 2), (4, 2), ["1 axis too many", "np.zeros_like"]),
        ("table", (4, 3), (3, 4), ["another order", "transpose"]),
    ],
)
def test_every_wrong_shape_gets_a_fix(name, got, want, words):
    with pytest.raises(Diagnosis) as told:
        expect_array(name, np.zeros(got), want)
    assert told.value.misconception == "wrong-shape"
    assert all(w in told.value.message for w in words), told.value.message


def test_a_factor_is_never_told_from_one_entry():
    """With one non-zero entry in the right array, any other value there is "a multiple" of it: no factor is told
    (it says nothing of the formula); with two, a real factor still is."""
    want = np.zeros((2, 3))
    want[1, 2] = 1.5
    got = want * 4.0
    assert relationship(got, want) is None or relationship(got, want)[0] != "scaled"
    want[0, 0] = -0.5
    assert relationship(want * 4.0, want)[0] == "scaled"
