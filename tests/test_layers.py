"""The package's shape: imports flow one way, from the entry points down to the hidden checks.

Every import statement of ``autograder/`` (at the top of a module or inside a function) is read with
``ast``; none may reach a layer above its own, and the module graph has no cycle.  A part split into
rooms (subpackages, and modules beside them) orders its rooms the same way.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "autograder"

# Lowest first.  A module may import from its own part of the package or from a layer below, never
# from a layer above, nor from another part of its own layer.
LAYERS = [
    # the words a student reads: NumPy only, copied into every notebook, raised by the kernel's client; and what the
    # package's __init__ leaves out of every kit process's imports, and the private temporary folders named after their
    # process (the standard library only)
    ["lean_imports", "scratch", "voice"],
    ["autograder", "channel"],  # the kernel's public client, the wire format, the checker's proxies
    ["hidden"],  # the hidden checks: run by the checker, or in the kernel in plain nbgrader
    # the vocabulary, the options, reading a notebook file, phase times, how the command line ends
    ["cells", "config", "notebooks", "timing", "leave"],
    ["course"],  # the course's folders and lessons
    ["sandbox", "authoring"],
    ["grading"],  # one submission
    # the whole class; and the student's side, which sits here because `check --thorough` grades the
    # student's own notebook with grading's grade_student, as the instructor's `grade` does
    ["classroom", "student"],
    ["devtools"],  # mutants, personas, demo: never imported by anything above
    ["cli"],
    ["__main__"],  # python -m autograder
]
LAYER = {part: level for level, parts in enumerate(LAYERS) for part in parts}

# A part split by concern into rooms: its subpackages, and any module beside them.  The rooms are floors of
# their own, lowest first, with the same rule: a room imports from itself or from a room below, never from a room
# above, nor from another room of its own row.  So each room can be read with only the rooms below it in mind (how
# a regrade is summarised is in `history` alone, and `lms` or the report never reach into how a class is run), and
# `run` is the one room that puts the class together.  The part's own `__init__` is in no room; it imports nothing.
ROOMS = {
    "classroom": [
        ["history", "svg_charts"],  # every grade run kept, what a regrade changed; charts written as SVG text
        ["lms", "report", "similarity"],  # the round trip with an LMS, the class report, similar submissions
        ["run"],  # grade, grade --dry-run, the pools of graders: the others put together
    ],
}
# A part with subpackages that orders none: devtools' mutant catalogue is data the mutation tool and the demo
# read, and nothing below the command line imports devtools at all.
UNORDERED = {"devtools"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def part(module: str) -> str:
    """The part of the package a module belongs to: ``autograder.grading.judge`` -> ``grading``."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else pieces[0]


def imports(module: str) -> set[str]:
    """The kit's modules that ``module`` imports, anywhere in its code."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            # `from pkg import name` imports the submodule pkg.name when there is one, else pkg itself
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:  # `import autograder.hidden.lesson01 as x` names a module
                name = name.rpartition(".")[0]
            if name.startswith("autograder") and name != module:
                found.add(name)
    return found


GRAPH = {module: imports(module) for module in MODULES}


def room(module: str) -> str | None:
    """The room of a module in a part with rooms: ``autograder.classroom.run.batch`` -> ``run``."""
    pieces = module.split(".")
    return pieces[2] if len(pieces) > 2 else None


def test_every_part_of_the_package_has_a_layer():
    assert {part(m) for m in MODULES} <= set(LAYER), {part(m) for m in MODULES} - set(LAYER)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_never_reach_up_a_layer(module):
    mine = part(module)
    wrong = sorted(
        target
        for target in GRAPH[module]
        if part(target) != mine and part(target) != "autograder" and LAYER[part(target)] >= LAYER[mine]
    )
    assert not wrong, f"{module} (layer {LAYER[mine]}, {mine}) imports {wrong} from its own layer or above"


def test_every_module_of_a_part_with_rooms_is_in_a_room():
    for mine, rooms in ROOMS.items():
        named = {r for row in rooms for r in row}
        loose = sorted(m for m in MODULES if part(m) == mine and room(m) is not None and room(m) not in named)
        assert not loose, f"{loose} sit in no room of {mine}: add them to ROOMS[{mine!r}] in tests/test_layers.py"
        assert not GRAPH[f"autograder.{mine}"], (
            f"autograder.{mine} is in no room and imports {GRAPH[f'autograder.{mine}']}"
        )


def test_every_part_with_subpackages_orders_its_rooms():
    split = {part(m) for m in MODULES if MODULES[m].name == "__init__.py" and m.count(".") >= 2}
    assert "classroom" in split  # the test can see a subpackage
    assert split - UNORDERED <= set(ROOMS), (
        f"parts with subpackages and no ROOMS: {sorted(split - UNORDERED - set(ROOMS))}"
    )


ROOMED = sorted(m for m in MODULES if part(m) in ROOMS and room(m) is not None)


@pytest.mark.parametrize("module", ROOMED)
def test_imports_never_reach_up_a_room(module):
    mine, here = part(module), room(module)
    level = {r: n for n, row in enumerate(ROOMS[mine]) for r in row}
    wrong = sorted(
        target
        for target in GRAPH[module]
        if part(target) == mine and room(target) not in (here, None) and level[room(target)] >= level[here]
    )
    assert not wrong, (
        f"{module} (room {level[here]} of {mine}, {here}) imports {wrong} from its own row of rooms or above"
    )


def test_the_import_graph_has_no_cycle():
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(GRAPH[module]):
            if state.get(target) == "open":
                cycle = path[path.index(target) :] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(MODULES):
        if module not in state:
            visit(module, [module])


def test_the_reader_sees_real_imports():
    """The checks above mean something only if the parser finds the imports that are there."""
    assert "autograder.grading.checker" in GRAPH["autograder.grading.execute"]
    assert "autograder.hidden.diagnostics" in GRAPH["autograder.hidden.lesson01"]
    # a lazy import, inside a function
    assert "autograder.sandbox.kernel_manager" in GRAPH["autograder.grading.execute"]
    assert "autograder.hidden.lesson04" in GRAPH["autograder.hidden.lesson05"]
    assert "autograder.classroom.history.changes" in GRAPH["autograder.classroom.report"]  # lazy, one room down


def test_the_sandbox_doorway_only_hands_on_names():
    """``autograder/sandbox/__init__.py`` holds no logic of its own: its functions and classes live in the
    modules named for what they do (bubblewrap, system_view, kernel_manager...), which it re-exports."""
    tree = ast.parse(MODULES["autograder.sandbox"].read_text(encoding="utf-8"))
    docstring = [node for node in tree.body[:1] if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)]
    kept = (ast.Import, ast.ImportFrom, ast.Assign)  # the imports, __all__
    logic = [type(node).__name__ for node in tree.body if not isinstance(node, kept) and node not in docstring]
    assigned = [t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets]
    assert not logic and set(assigned) <= {"__all__"}, (logic, assigned)
    handed_on = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert {"bwrap_command", "check_sandbox", "PACKAGE_DIR"} <= handed_on  # the test reads the imports
    # not the kernel manager: it imports jupyter_client, and grade's own process imports the doorway and starts no kernel
    assert "SandboxedKernelManager" not in handed_on and not any(
        node.module == "kernel_manager" for node in tree.body if isinstance(node, ast.ImportFrom)
    )


def test_devtools_are_out_of_sight_in_the_sandbox(tmp_path):
    """The mutant catalogue and personas sit in the package but a grading kernel cannot read them."""
    import subprocess
    import sys

    from autograder.sandbox import PACKAGE_DIR, bwrap_command
    from autograder.sandbox.identity import hand_over, kernel_ids

    from .conftest import sandbox_or_skip

    sandbox_or_skip()
    hand_over(kernel_ids(), tmp_path)  # the kernel's folder, open to the kernel user (as the kernel manager does)
    assert any((PACKAGE_DIR / "devtools" / "mutants").glob("lesson*.py"))  # there is something to hide
    probe = (
        "import json, os, autograder.hidden.lesson02; "
        f"print(json.dumps([os.listdir({str(PACKAGE_DIR / 'devtools')!r}), os.listdir({str(PACKAGE_DIR)!r})]))"
    )
    result = subprocess.run(
        bwrap_command(tmp_path, [], []) + [sys.executable, "-I", "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    devtools, package = json.loads(result.stdout)
    assert devtools == [] and "hidden" in package and "grading" in package


def test_what_a_kernel_imports_needs_no_hypothesis():
    """The smallest-failing-case search (hidden.cases, grading.shrink) uses Hypothesis in the grading process; the
    modules a kernel loads in plain nbgrader (a lesson's hidden checks and all they import) must not need it."""
    reached, todo = set(), [m for m in MODULES if m.startswith("autograder.hidden.lesson")]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo += GRAPH[module]
    assert "autograder.hidden.lesson05" in reached and "autograder.hidden.cases" not in reached
    needs = sorted(
        m
        for m in reached
        if "hypothesis"
        in {
            (n.module or "").split(".")[0] if isinstance(n, ast.ImportFrom) else alias.name.split(".")[0]
            for n in ast.walk(ast.parse(MODULES[m].read_text(encoding="utf-8")))
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for alias in n.names
        }
    )
    assert not needs, needs
    assert "hypothesis" in MODULES["autograder.hidden.cases"].read_text(encoding="utf-8")  # the test can see it
