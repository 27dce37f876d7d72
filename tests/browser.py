"""What the browser tests stand on: Debian's chromium driven by Playwright, and real Jupyter servers.

Playwright runs the system's chromium (``/usr/bin/chromium``, Debian's package) and never a browser
of its own, so `playwright install` is not needed and must not be run. A server is a real
``jupyter lab`` process on a free port of 127.0.0.1, started with a command prefix (bubblewrap, to
run it as a student) and stopped with its whole process group.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENS = Path(__file__).resolve().parent.parent / ".screens"  # ignored by git; `make screenshots` copies two to docs/
WAIT_MS = 120_000  # the machine is shared: wait long on selectors, never sleep


# Set to "required" (.ci/run does) to make a missing chromium a failure instead of a skip: CI installs it,
# so there a browser test that did not run is a fault of the set-up, not a machine without a browser.
REQUIRE = "AUTOGRADER_BROWSER_TESTS"
MISSING = (
    "chromium is not installed (Debian's package `chromium`, which `make setup` does not install: "
    "`apt-get install chromium` as root; .ci/run installs it)"
)


def chromium_or_skip() -> str:
    """The system chromium.  Without it the browser tests are skipped with the reason, whoever runs them
    (docs/browser.md), unless AUTOGRADER_BROWSER_TESTS=required asks for them to fail instead."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    if os.environ.get(REQUIRE) == "required":
        pytest.fail(f"{REQUIRE}=required, but {MISSING}")
    pytest.skip(f"browser tests skipped: {MISSING}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lab_settings(folder: Path) -> Path:
    """JupyterLab settings: no question about news, no update check, and every cell of a notebook in
    the page (windowing "none"; the default "full" attaches only the cells in view, so a test could
    not find a cell below the fold without scrolling to it first)."""
    settings = {
        "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
        "notebook-extension/tracker": {"windowingMode": "none"},
    }
    for name, values in settings.items():
        target = folder / "@jupyterlab" / f"{name}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    return folder


class JupyterServer:
    """`jupyter lab` in ``root`` on 127.0.0.1 (it serves Notebook 7's /tree and /notebooks pages too)."""

    def __init__(self, root: Path, env: dict[str, str], log: Path, prefix: list[str] = ()):
        self.port, self.token = free_port(), uuid.uuid4().hex
        scratch = log.parent / f"{log.stem}-lab"
        env = dict(
            env,
            JUPYTERLAB_SETTINGS_DIR=str(lab_settings(scratch / "settings")),
            JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"),
        )
        self.log = log
        command = [
            *prefix,
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--allow-root",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--port-retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={root}",
        ]
        with open(log, "w") as out:
            self.process = subprocess.Popen(
                command, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self._wait_ready()

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}{sep}token={self.token}"

    def _wait_ready(self, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"jupyter lab exited with {self.process.returncode}:\n{self.log.read_text()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise AssertionError(
            f"jupyter lab did not answer on port {self.port} in {timeout:.0f} s:\n{self.log.read_text()[-3000:]}"
        )

    def stop(self) -> None:
        """SIGTERM to the server's process group (it shuts its kernels down), SIGKILL if it lingers."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def launch_chromium(playwright, user_data_dir: Path):
    """A headless Debian chromium with a fresh profile: a persistent context (the profile is ``user_data_dir``)."""
    return playwright.chromium.launch_persistent_context(
        str(user_data_dir),
        executable_path=chromium_or_skip(),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1400, "height": 900},
    )
