"""What the browser tests need, and what happens without it: docs/browser.md, `make setup` and the tests agree.

`make setup` installs bubblewrap as root but not chromium (a large package that only the browser tests use).
On a machine without chromium, root or not, `make test` skips the browser tests and its summary says why;
CI (.ci/run) installs chromium and sets AUTOGRADER_BROWSER_TESTS=required, so that there a browser test that
did not run is a failure rather than a skip.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .browser import chromium_or_skip
from .conftest import ENV, REPO

BROWSER_TESTS = REPO / "tests" / "test_browser.py"
REQUIRE = "AUTOGRADER_BROWSER_TESTS"  # what .ci/run sets, and tests/browser.py reads


def path_without_chromium(folder: Path) -> str:
    """A PATH with every program of this one but chromium: one folder of links."""
    folder.mkdir()
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not Path(entry).is_dir():
            continue
        for program in Path(entry).iterdir():
            link = folder / program.name
            if program.name.startswith("chromium") or link.exists() or link.is_symlink():
                continue
            link.symlink_to(program)
    return str(folder)


def test_without_chromium_the_browser_tests_are_skipped_with_the_reason(tmp_path):
    """The browser tests' module, run as `make test` runs it, on a PATH without chromium: every test skipped
    with the reason (as root too: this machine's CI user is root), none failed or in error."""
    env = dict(ENV, PATH=path_without_chromium(tmp_path / "bin"))
    env.pop("CHROMIUM", None)
    env.pop(REQUIRE, None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(BROWSER_TESTS)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    tests = len(re.findall(r"^def test_", BROWSER_TESTS.read_text(), re.M))
    assert re.search(rf"\b{tests} skipped\b", out), out[-3000:]
    assert not re.search(r"\b(passed|failed|errors?)\b", out), out[-3000:]
    assert "browser tests skipped: chromium is not installed" in out and "apt-get install chromium" in out, out


def test_ci_asks_for_the_browser_tests_to_run(tmp_path, monkeypatch):
    """Where AUTOGRADER_BROWSER_TESTS=required, a missing chromium fails the browser tests; .ci/run installs
    chromium and asks for that, so CI keeps running them."""
    ci = (REPO / ".ci" / "run").read_text()
    assert "need+=(chromium)" in ci and f"export {REQUIRE}=required" in ci
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv("CHROMIUM", raising=False)
    monkeypatch.setenv(REQUIRE, "required")
    with pytest.raises(pytest.fail.Exception, match="chromium is not installed"):
        chromium_or_skip()
    monkeypatch.delenv(REQUIRE)
    with pytest.raises(pytest.skip.Exception, match="browser tests skipped"):
        chromium_or_skip()
