"""Tiny float64 numerical-gradient tools, in the spirit of CS231n's gradient_check.py."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PASS_BAR = 1e-5  # the contract: a relative error under this passes; a correct solution reaches ~1e-10
# Denominator floor of the hidden checks' comparison.  Central differences carry ~1e-9 of absolute
# rounding noise, which next to a true gradient entry of ~1e-6 would look like a relative error of
# 1e-3 and fail a correct backward; with this floor such entries are judged on absolute error
# (1e-4 * 1e-5 = 1e-9), while any real mistake (entries of order 1) is still far above the bar.
COMPARE_FLOOR = 1e-4


def rel_error(a, b) -> float:
    """max(|a - b| / max(1e-12, |a| + |b|)) over all entries."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(1e-12, np.abs(a) + np.abs(b))))


def numerical_gradient(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar ``f()`` with respect to every entry of ``x``.

    ``x`` is nudged in place and restored exactly after each entry.
    """
    grad = np.zeros(x.shape, dtype=np.float64)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = float(f())
        x[i] = old - eps
        minus = float(f())
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


@dataclass
class GradReport:
    """How an analytic gradient compares with the numerical one."""

    name: str
    error: float
    worst_index: tuple
    analytic: float
    numeric: float

    @property
    def ok(self) -> bool:
        return self.error < PASS_BAR

    def describe(self, row_label: str = "row") -> str:
        where = ", ".join(str(i) for i in self.worst_index)
        return (
            f"{self.name}: max relative error {self.error:.2e} (bar {PASS_BAR:.0e}); worst entry "
            f"{self.name}[{where}] ({row_label} {self.worst_index[0]}): analytic {self.analytic:.6g}, "
            f"numeric {self.numeric:.6g}"
        )


def compare(name: str, analytic, numeric) -> GradReport:
    """Relative error of ``analytic`` against ``numeric`` and the entry where it is worst."""
    analytic = np.asarray(analytic, dtype=np.float64)
    numeric = np.asarray(numeric, dtype=np.float64)
    per_entry = np.abs(analytic - numeric) / np.maximum(COMPARE_FLOOR, np.abs(analytic) + np.abs(numeric))
    worst = np.unravel_index(int(np.argmax(per_entry)), per_entry.shape)
    worst = tuple(int(i) for i in worst)
    return GradReport(name, float(per_entry[worst]), worst, float(analytic[worst]), float(numeric[worst]))
