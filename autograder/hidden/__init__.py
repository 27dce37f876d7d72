"""Hidden checks, called from the hidden test cells of the notebooks (``import autograder.hidden.lessonNN
as _hidden``): one module per lesson, ``diagnostics`` (the misconception catalogue and the ``Diagnosis``
a student sees) and ``gradcheck`` (the numerical-gradient tools).  Of the rest of the kit it imports
only ``channel`` (the floor below: where the kit grades, a check is forwarded to the grading process
over it) and ``voice`` (the words a student reads); it is what a grading kernel loads.

Every check is wrapped by :func:`hidden_check`, which
- runs the student's code with NumPy warnings and stderr silenced (nbgrader zeroes a test cell that
  writes to stderr, so a correct solution that triggers a RuntimeWarning must not lose points),
- turns whatever the student's code raises into a :class:`~autograder.hidden.diagnostics.Diagnosis`, so the
  feedback shows one message and never a traceback into the kit,
- returns ``None``: a test cell never ends in a value nbgrader could read as partial credit.

Cases are drawn at grading time from fresh entropy; ``AUTOGRADER_SEED`` fixes them for debugging.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from ..channel import ENV as CHANNEL_ENV
from ..channel.client import quiet  # warnings and stderr silenced while student code runs
from ..channel.fixtures import watch as watch  # a check that must see its argument changed in place
from ..voice import expect_array as expect_array  # shared with the notebooks' self-checks
from ..voice import explain
from .diagnostics import Diagnosis


def grading_rng() -> np.random.Generator:
    seed = os.environ.get("AUTOGRADER_SEED")
    return np.random.default_rng(int(seed) if seed else None)


def hidden_check(func):
    """Decorate a check so that only its diagnosis reaches the student."""

    @functools.wraps(func)
    def run(*args, **kwargs):
        if os.environ.get(CHANNEL_ENV):
            # graded by the kit: the check runs in its grading process, this kernel only answers it
            from ..channel.client import forward

            return forward(func.__module__.rsplit(".", 1)[-1], func.__name__, args, kwargs)
        diagnosis = None
        try:
            with quiet():
                func(*args, **kwargs)
        except Diagnosis as d:
            diagnosis = d
        except NotImplementedError:
            diagnosis = Diagnosis(
                "not-implemented",
                "A stub still raises NotImplementedError: fill in the YOUR CODE HERE part above.",
            )
        except (Exception, SystemExit) as e:  # student code misbehaved in a way no check foresaw
            diagnosis = Diagnosis("crashed", explain(e))
        if diagnosis is not None:
            raise diagnosis.with_traceback(None) from None
        return None

    return run


def call(what: str, fn, *args, **kwargs):
    """Call student code, naming it in the diagnosis if it raises."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise Diagnosis("not-implemented", f"{what} still raises NotImplementedError: fill in its stub.") from None
    except Diagnosis:
        raise
    except (Exception, SystemExit) as e:
        raise Diagnosis("crashed", explain(e, what)) from None


def expect_raises(what: str, fn, allowed: tuple, hint: str) -> None:
    """``fn()`` must raise one of ``allowed``."""
    try:
        fn()
    except allowed:
        return
    except NotImplementedError:
        raise Diagnosis("not-implemented", f"{what} still raises NotImplementedError: fill in its stub.") from None
    except (Exception, SystemExit) as e:
        names = " or ".join(a.__name__ for a in allowed)
        raise Diagnosis(
            "wrong-error", f"{what} should raise {names} ({hint}), but raised {type(e).__name__}: {e}"
        ) from None
    names = " or ".join(a.__name__ for a in allowed)
    raise Diagnosis("no-error-raised", f"{what} should raise {names} ({hint}), but it returned normally.")


def same_gradient_again(grad: str, first, second) -> None:
    """After two backward calls with the same dout, ``first`` and ``second`` are the gradient ``grad`` ("dE", "dP")
    each left; they must be equal.  grad-accumulates is named only where its model holds, the second twice the first
    (a backward that adds to the last gradient); any other change is told as it is."""
    first, second = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if first.shape == second.shape and np.allclose(second, first):
        return
    from .diagnostics import say

    if first.shape == second.shape and np.allclose(second, 2 * first) and np.any(first != 0):
        raise say(
            "grad-accumulates",
            grad=grad,
            table=grad[1],
            detail=f"A second backward with the same dout changed {grad} (it grew by a factor of 2).",
        )
    change = (
        f"by up to {np.abs(second - first).max():.3g}"
        if first.shape == second.shape
        else f"from shape {first.shape} to {second.shape}"
    )
    raise Diagnosis(
        "wrong-value",
        f"A second backward with the same dout changed {grad} ({change}): the same dout must give the same gradient, "
        "computed afresh from what forward kept at every call.",
    )
