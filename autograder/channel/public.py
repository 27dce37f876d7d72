"""The public face of the kit inside the sandbox: a package named ``autograder`` with nothing secret.

``public_package()`` writes, once per process, a folder holding ``autograder/`` with the channel's
public modules (``wire``, ``client``, ``fixtures``), ``voice`` (the words a student reads, copied into
every notebook anyway) and ``autograder/hidden/lessonNN.py`` modules
whose every attribute forwards a hidden call to the checker.  The sandbox mounts it where the kit
is installed, so the notebooks' ``import autograder.hidden.lesson05 as _hidden`` still works, and
the kernel can read no check, case generator, reference computation or mutant.
"""

from __future__ import annotations

import atexit
import compileall
import shutil
from pathlib import Path

from ..scratch import private_folder

CHANNEL_DIR = Path(__file__).resolve().parent
PUBLIC_MODULES = ("__init__.py", "wire.py", "client.py", "fixtures.py")
# the lessons whose checks the kernel may call: one forwarding module for each module of the real checks
LESSONS = tuple(sorted(p.stem for p in (CHANNEL_DIR.parent / "hidden").glob("lesson[0-9]*.py")))

INIT = '"""The public client of the kit\'s hidden checks: the checks themselves run outside this sandbox."""\n'
LESSON = (
    '"""Hidden checks of {name}: each call is forwarded to the kit\'s checker, outside the sandbox."""\n'
    "from autograder.channel.client import forwarding\n\n"
    "__getattr__ = forwarding({name!r})\n"
)

_made: list[Path] = []


def write_public_package(root: Path) -> Path:
    """Write the public ``autograder`` package under ``root``; return its folder."""
    package = Path(root) / "autograder"
    (package / "channel").mkdir(parents=True)
    (package / "hidden").mkdir()
    (package / "__init__.py").write_text(INIT)
    (package / "hidden" / "__init__.py").write_text(INIT)
    for name in PUBLIC_MODULES:
        shutil.copy(CHANNEL_DIR / name, package / "channel" / name)
    shutil.copy(CHANNEL_DIR.parent / "voice.py", package / "voice.py")  # the words, which the notebooks hold too
    for name in LESSONS:
        (package / "hidden" / f"{name}.py").write_text(LESSON.format(name=name))
    # compiled here once: every kernel mounts the folder read-only and would otherwise compile it anew
    compileall.compile_dir(package, quiet=1)
    return package


def public_package() -> Path:
    """The process's copy of the public package (made on first use, removed at exit)."""
    if not _made:
        root = private_folder("public")
        _made.append(write_public_package(root))
        atexit.register(shutil.rmtree, root, True)
    return _made[0]
