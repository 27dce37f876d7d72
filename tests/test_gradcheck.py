"""The kit's float64 numerical tools and the diagnosis rendering."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.hidden import hidden_check
from autograder.hidden.diagnostics import Diagnosis
from autograder.hidden.gradcheck import PASS_BAR, compare, numerical_gradient, rel_error


def test_numerical_gradient_matches_analytic_and_restores_x():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    before = x.copy()
    g = numerical_gradient(lambda: np.sum(np.sin(x) * x), x)
    assert np.array_equal(x, before)
    assert rel_error(g, np.cos(x) * x + np.sin(x)) < 1e-8


def test_compare_names_the_worst_entry():
    a = np.zeros((3, 2))
    b = np.zeros((3, 2))
    a[2, 1], b[2, 1] = 1.0, 2.0
    report = compare("dE", a, b)
    assert not report.ok and report.worst_index == (2, 1)
    assert "dE[2, 1]" in report.describe("token id") and "token id 2" in report.describe("token id")
    assert compare("dP", b, b).ok and PASS_BAR == 1e-5


def test_rel_error_is_zero_for_two_zero_arrays():
    assert rel_error(np.zeros(3), np.zeros(3)) == 0.0


def test_diagnosis_renders_only_its_message():
    d = Diagnosis("scatter-overwrite", "Row 0 is used twice\nsecond line")
    assert d._render_traceback_() == [
        "\x1b[0;31mDiagnosis [scatter-overwrite]\x1b[0m: Row 0 is used twice",
        "second line",
    ]
    with pytest.raises(ValueError):
        Diagnosis("made-up-id", "x")


def test_hidden_check_turns_student_errors_into_diagnoses(capsys):
    @hidden_check
    def check(fn):
        fn()

    def stub():
        raise NotImplementedError

    def crash():
        np.log(np.zeros(1))  # a RuntimeWarning must stay silent
        raise KeyError("boom")

    with pytest.raises(Diagnosis) as err:
        check(stub)
    assert err.value.misconception == "not-implemented"
    with pytest.raises(Diagnosis) as err:
        check(crash)
    assert err.value.misconception == "crashed" and "KeyError" in str(err.value)
    assert err.value.__traceback__ is None or err.value.__cause__ is None
    assert capsys.readouterr().err == ""
    assert check(lambda: None) is None
