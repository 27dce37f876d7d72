"""The file view is written once (``autograder/sandbox/system_view.py``: SHOWN and NOT_SHOWN, with why), and
docs/threat-model.md's table is made from it; bubblewrap's arguments show nothing of /etc but what SHOWN names."""

from __future__ import annotations

from autograder.sandbox import system_view

from .conftest import REPO


def test_the_threat_models_table_is_the_view_s():
    doc = (REPO / "docs" / "threat-model.md").read_text()
    assert system_view.table() in doc, "docs/threat-model.md's file view is stale: run `python -m autograder build`"


def test_of_etc_only_the_files_shown_are_bound():
    args = system_view.system_binds()
    sources = [args[i + 1] for i, arg in enumerate(args) if arg in ("--ro-bind", "--bind")]
    etc = [path for path in sources if path == "/etc" or path.startswith("/etc/")]
    assert set(etc) <= set(system_view.SYSTEM_FILES) and "/etc" not in etc, etc


def test_every_machine_entry_of_proc_is_covered_but_the_shown():
    import os

    args = system_view.proc_view()
    covered = {
        args[i + 1] if arg == "--tmpfs" else args[i + 2]
        for i, arg in enumerate(args)
        if arg in ("--tmpfs", "--ro-bind")
    }
    machine = {f"/proc/{n}" for n in os.listdir("/proc") if not n.isdigit() and not os.path.islink(f"/proc/{n}")}
    assert machine - covered == {f"/proc/{n}" for n in system_view.PROC_SHOWN}, machine - covered
    assert "/proc/sys" in covered
