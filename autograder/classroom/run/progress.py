"""A progress bar for bulk grading: students done/total, failures, elapsed, ETA; quiet off a terminal."""

from __future__ import annotations

import sys
import time

from ...grading.notes import student_row
from ...grading.results import Status


class Progress:
    def __init__(self, total: int = 0, stream=None, quiet: bool | None = None, lines: bool = True):
        self.stream = stream or sys.stderr
        self.bar = (not quiet) if quiet is not None else self.stream.isatty()
        self.lines = lines
        self.total, self.done, self.failed, self.skipped = total, 0, 0, 0
        self.started = time.monotonic()

    def start(self, total: int, skipped: int = 0) -> None:
        self.total, self.skipped, self.started = total, skipped, time.monotonic()
        if skipped and self.lines:
            print(
                f"skipping {skipped} submission(s) already graded and unchanged, with every grading input "
                "(use --force to regrade)",
                file=sys.stdout,
                flush=True,
            )
        self._draw()

    def advance(self, result) -> None:
        self.done += 1
        self.failed += result.status is Status.FAILED
        if self.lines:
            self._clear()
            if result.status is Status.FAILED:
                line = f"  FAILED {result.student}: {student_row(result.reason)}"
            elif result.status is Status.ERROR:  # the kit's side failed: no grade, graded again next run
                line = f"  ERROR {result.student}: not graded: {result.reason}"
            else:
                shown = student_row(result.reason)  # a point change is said once, in the class report
                line = f"  graded {result.student}: {result.score:g}/{result.max_score:g}" + (
                    f"  ({shown})" if shown else ""
                )
            print(f"{line}  [{result.seconds:.1f}s]", file=sys.stdout, flush=True)
        self._draw()

    def finish(self) -> None:
        self._clear()

    def _clear(self) -> None:
        if self.bar:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

    def _draw(self) -> None:
        if not self.bar or not self.total:
            return
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done * (self.total - self.done) if self.done else float("nan")
        width = 30
        filled = int(width * self.done / self.total)
        eta_text = "--:--" if eta != eta else f"{int(eta) // 60:02d}:{int(eta) % 60:02d}"
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} students"
            f"  failed {self.failed}  elapsed {int(elapsed) // 60:02d}:{int(elapsed) % 60:02d}  ETA {eta_text}"
        )
        self.stream.flush()
