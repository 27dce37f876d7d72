"""Hiding one more folder from kernels is one entry of ``HIDDEN`` (autograder/sandbox/system_view.py), and showing one
more is one entry of ``SHOWN``, nested paths included: a made-up folder added in that one place is hidden from a real
sandboxed kernel, while the folder around it, shown by a nested ``SHOWN`` entry, is seen."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from autograder.sandbox import system_view

from .test_forked_kernels import run_kernel


@pytest.fixture
def made_up():
    """A folder outside everything a kernel sees (/var/tmp/kit-made-up-*/shown), readable by every user, holding a
    file to see and a folder with a secret."""
    base = Path(tempfile.mkdtemp(prefix="kit-made-up-", dir="/var/tmp"))
    try:
        shown = base / "shown"
        (shown / "secret").mkdir(parents=True)
        (shown / "seen.txt").write_text("seen\n")
        (shown / "secret" / "key.txt").write_text("the key\n")
        for path in (base, shown, shown / "secret"):
            path.chmod(0o755)
        for path in (shown / "seen.txt", shown / "secret" / "key.txt"):
            path.chmod(0o644)
        yield shown
    finally:
        shutil.rmtree(base, ignore_errors=True)


def looks(shown: Path) -> str:
    return f"""
import json, os
print(json.dumps({{
    "listed": sorted(os.listdir({str(shown)!r})),
    "seen": open({str(shown / "seen.txt")!r}).read(),
    "secret listed": sorted(os.listdir({str(shown / "secret")!r})) if os.path.isdir({str(shown / "secret")!r}) else None,
    "key": os.path.exists({str(shown / "secret" / "key.txt")!r}),
}}))
"""


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "started"])
def test_a_made_up_folder_added_to_hidden_is_hidden_from_a_real_kernel(made_up, monkeypatch, tmp_path, fork):
    work = tmp_path / "submission"
    work.mkdir()
    monkeypatch.setattr(system_view, "SHOWN", (*system_view.SHOWN, (str(made_up), "a made-up folder (a test)")))
    seen, _ = run_kernel(fork, work, looks(made_up))
    assert seen["seen"] == "seen\n" and seen["key"], f"the nested SHOWN entry is not shown as it is: {seen}"
    monkeypatch.setattr(system_view, "HIDDEN", (*system_view.HIDDEN, (str(made_up / "secret"), "a made-up secret")))
    seen, _ = run_kernel(fork, work, looks(made_up))
    assert seen["seen"] == "seen\n", f"hiding the inner folder hid the shown one around it: {seen}"
    assert not seen["key"] and seen["secret listed"] == [], f"the folder HIDDEN lists is seen by the kernel: {seen}"


@pytest.mark.parametrize(
    ("entry", "words", "tables"),
    [
        ("usr/share", "absolute", ("SHOWN", "HIDDEN")),
        ("/tmp/kit-x", "the sandbox's own", ("SHOWN", "HIDDEN")),
        ("/proc/kit-x", "the sandbox's own", ("HIDDEN",)),  # SHOWN's /proc entries are proc_view's
        ("/usr/../etc/shadow", "normalised", ("SHOWN", "HIDDEN")),
        ("<a folder of the kit's it does not know>", "no folder the kit knows", ("SHOWN", "HIDDEN")),
        # a folder in no shown path is already hidden: covering it would only show an empty folder of its name
        ("/opt/course-secrets", "lies in no path of SHOWN, so it is already not shown", ("HIDDEN",)),
    ],
)
def test_a_path_that_cannot_be_shown_or_hidden_is_refused_saying_why(monkeypatch, entry, words, tables):
    for table in tables:
        with monkeypatch.context() as patch:
            patch.setattr(system_view, table, (*getattr(system_view, table), (entry, "a made-up entry")))
            with pytest.raises(system_view.ViewError) as refused:
                system_view.mounts([])
            said = str(refused.value)
            assert f"{table} in autograder/sandbox/system_view.py" in said and entry in said and words in said, said


def test_the_view_is_mounted_outer_first():
    """A folder shown (the Python environment) comes before what is covered inside it (a course there, debugpy):
    each mount after every one that holds it."""
    course = os.path.join(sys.prefix, "made-up-course")  # a course inside a shown path (mounts() reads no file)
    plan = system_view.mounts([course])
    paths = [path for _, path in plan]
    for i, path in enumerate(paths):
        inner = [p for p in paths[:i] if p != path and p.startswith(path.rstrip("/") + "/")]
        assert not inner, f"{path} is mounted after {inner}, which it holds"
    assert ("cover", os.path.realpath(course)) in plan


def test_a_kits_folder_in_no_shown_path_gets_no_cover():
    """A course root outside every shown path is already hidden: no cover, so no empty folder of its name (nor of
    the folders around it) appears in the kernel; every cover of the plan lies inside a shown path."""
    course = tempfile.mkdtemp(prefix="kit-course-", dir="/var/tmp")
    try:
        plan = system_view.mounts([course])
        assert not [path for _, path in plan if path.startswith("/var")], plan
        shown = [path for kind, path in plan if kind == "show"]
        for kind, path in plan:
            if kind == "cover":
                assert any(path == s or path.startswith(s + "/") for s in shown), f"{path} covered in no shown path"
    finally:
        os.rmdir(course)


def test_a_hidden_folder_the_machine_lacks_is_no_mount():
    """A HIDDEN entry inside a shown path that this machine does not have (nbgrader's exchange where no course uses
    it, say) is left out of bwrap's arguments: a --tmpfs there would fail inside the read-only bind of /usr and stop
    every kernel's start. One that exists is covered."""
    absent, present = "/usr/local/share/kit-made-up-absent", "/usr/share"
    assert not os.path.lexists(absent) and os.path.isdir(present)
    args = system_view.mount_args([("show", "/usr"), ("cover", absent), ("cover", present)])
    assert absent not in args
    assert args[args.index(present) - 1] == "--tmpfs"


def test_the_threat_models_table_lists_every_hidden_folder():
    text = (Path(__file__).resolve().parent.parent / "docs" / "threat-model.md").read_text(encoding="utf-8")
    for what, _ in system_view.HIDDEN:
        assert f"| `{what}` | hidden |" in text, what
    json.dumps(system_view.HIDDEN)  # plain data


def test_the_kits_hidden_folders_are_empty_in_a_real_kernel(tmp_path):
    """Each entry HIDDEN names of the kit's (its repository's tests, debugpy, the kit's devtools in plain mode) is
    an empty folder in a real sandboxed kernel, while what is shown inside the repository (the package) is there."""
    from autograder.sandbox.system_view import PACKAGE_DIR, unused_by_kernel

    work = tmp_path / "submission"
    work.mkdir()
    folders = [*unused_by_kernel(), str(PACKAGE_DIR / "devtools"), str(PACKAGE_DIR.parent / "tests")]
    code = f"""
import json, os
print(json.dumps({{f: sorted(os.listdir(f)) if os.path.isdir(f) else None for f in {folders!r}}}
    | {{"package": os.path.isfile({str(PACKAGE_DIR / "voice.py")!r})}}))
"""
    seen, _ = run_kernel(True, work, code)
    assert seen.pop("package"), "the kit's package is not shown in plain mode"
    assert unused_by_kernel(), "no debugpy to hide here: the test would prove less"
    assert all(not listed for listed in seen.values()), seen
