"""The documents say what the code is: links stay inside the repository, named files exist, and the
architecture's floor table, and its table of the rooms of ``classroom``, are the ones ``tests/test_layers.py``
enforces.

In-process and quick: nothing here runs nbgrader or a kernel.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from .test_layers import LAYERS, ROOMS

REPO = Path(__file__).resolve().parent.parent
DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [REPO / "README.md", *DOCS]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# a file of the repository named in backticks: `autograder/grading/grade.py`, `tests/test_layers.py`
NAMED_FILE = re.compile(r"`((?:autograder|tests|benchmarks|assignments|docs)/[\w./-]+\.(?:py|md|png))`")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a Markdown page's headings: lower case, punctuation dropped, spaces -> '-'."""
    found = set()
    for heading in re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M):
        found.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_stays_in_the_repository_and_resolves(page):
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text
    for target in LINK.findall(text):
        if re.match(r"https?://", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.is_relative_to(REPO), f"{page.name}: link {target} leaves the repository"
        assert resolved.exists(), f"{page.name}: link {target} names no file"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved), f"{page.name}: link {target}: no heading #{anchor} in {resolved.name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_file_a_page_names_exists(page):
    missing = sorted(
        {
            name
            for name in NAMED_FILE.findall(page.read_text(encoding="utf-8"))
            if "NN" not in name and not (REPO / name).exists()
        }
    )
    assert not missing, f"{page.name} names files that do not exist: {missing}"


def test_every_document_is_listed_in_the_readme():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    unlisted = [doc.name for doc in DOCS if f"(docs/{doc.name})" not in readme]
    assert not unlisted, f"docs/ pages the README does not link: {unlisted}"


def test_no_spec_is_named_where_none_exists():
    """The contract is docs/contract.md: no file of the repository sends a reader to a "SPEC" it does not hold."""
    word = re.compile(r"(?<![A-Z_])SPEC(?![A-Z_])")
    places = [
        f"{path.relative_to(REPO)}:{n}"
        for folder in ("autograder", "tests", "docs", "assignments", "source", "release", "benchmarks")
        for path in sorted((REPO / folder).rglob("*"))
        if path.suffix in (".py", ".md", ".ipynb", ".txt") and path.is_file()
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if word.search(line) and "test_docs.py" not in path.name
    ]
    assert not places, f"'SPEC' named where the repository has no SPEC (say: the contract, docs/contract.md): {places}"


def documented_floors() -> list[list[str]]:
    """The floor table of docs/architecture.md, lowest floor first, as LAYERS writes it."""
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", (REPO / "docs" / "architecture.md").read_text(encoding="utf-8"), re.M)
    assert rows, "docs/architecture.md has no floor table"
    floors = sorted((int(number), re.findall(r"`([\w]+)`", parts)) for number, parts in rows)
    assert [n for n, _ in floors] == list(range(len(floors))), "the floors are not numbered 0, 1, 2, ..."
    return [parts for _, parts in floors]


def test_the_architecture_floors_are_the_layer_table():
    assert documented_floors() == LAYERS


def test_the_architecture_import_chain_follows_the_floors():
    """The one-line import chain, read top down, names the floors from `cli` down to `voice` in order."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    chain = re.search(r"^`cli` →.*?`voice`\.$", text, re.M | re.S)
    assert chain, "docs/architecture.md has no import chain from `cli` to `voice`"
    named = [re.findall(r"`(\w+)`", step) for step in chain.group(0).split("→")]
    expected = [floor for floor in reversed(LAYERS) if floor not in (["__main__"], ["devtools"])]
    expected = [[p for p in floor if p != "autograder"] for floor in expected]
    assert named == expected


def test_the_architecture_rooms_of_classroom_are_the_rooms_table():
    """The rooms' table names each room of ``classroom`` once, and the one-line chain orders them as ROOMS does."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = re.search(r"^### The rooms of `classroom`$(.*?)(?=^#)", text, re.M | re.S)
    assert section, "docs/architecture.md has no section 'The rooms of `classroom`'"
    rows = re.findall(r"^\| `(\w+)` \|", section.group(1), re.M)
    assert sorted(rows) == sorted(r for row in ROOMS["classroom"] for r in row)
    chain = re.search(r"^Inside `classroom`: (.*)\.$", section.group(1), re.M)
    assert chain, "the rooms of `classroom` have no chain `run` → ... → `history`"
    named = [sorted(re.findall(r"`(\w+)`", step)) for step in chain.group(1).split("→")]
    assert named == [sorted(row) for row in reversed(ROOMS["classroom"])]


def test_the_architecture_table_for_a_new_maintainer_names_paths_that_exist():
    """'To change X, look in Y': the things a maintainer changes most are each in a row, and every path a row
    names (a backticked name with a slash, or a file name) is a file or folder of the repository."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = re.search(r"^## To change X, look in Y$(.*?)(?=^#)", text, re.M | re.S)
    assert section, "docs/architecture.md has no section 'To change X, look in Y'"
    rows = re.findall(r"^\| (?!to change |---)([^|]+) \| (.+) \|$", section.group(1), re.M)
    topics = " / ".join(topic for topic, _ in rows)
    for topic in ("message", "points", "case space", "limit", "LMS", "report", "sandbox"):
        assert topic in topics, f"the table has no row for {topic!r}"
    for topic, where in rows:
        paths = [name for name in re.findall(r"`([^`]+)`", where) if "/" in name or name.endswith(".py")]
        assert paths, f"the row {topic!r} names no path"
        missing = [path for path in paths if not (REPO / path).exists()]
        assert not missing, f"the row {topic!r} names paths that do not exist: {missing}"


# "`VOICE` and `CATALOGUE` in `autograder/voice.py`": the names, then the file said to define them
NAMES_IN_FILE = re.compile(r"((?:`[A-Za-z_]\w*`(?:,? and |, )?)+) in `([\w/.-]+\.py)`")
CLASS_FIELD = re.compile(r"`([A-Z]\w*)\.([a-z_]\w*)`")


def top_level_names(path: Path) -> dict[str, ast.AST]:
    """The names a module defines at its top level (functions, classes, assignments), with their nodes."""
    names = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            names.update({t.id: node for t in node.targets if isinstance(t, ast.Name)})
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def class_fields(node: ast.ClassDef) -> set[str]:
    fields = set()
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fields.add(item.name)
        elif isinstance(item, ast.Assign):
            fields.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            fields.add(item.target.id)
    return fields


def test_the_architecture_table_names_the_definition_that_holds_each_thing():
    """'To change X, look in Y' is a map that is true: every row names at least one definition as "`Name` in
    `path`", that file defines it at its top level (not a neighbour module), and every `Class.field` a row names
    is a field of that class in one of the row's files."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = re.search(r"^## To change X, look in Y$(.*?)(?=^#)", text, re.M | re.S).group(1)
    rows = re.findall(r"^\| (?!to change |---)([^|]+) \| (.+) \|$", section, re.M)
    tasks = (
        "misconception",
        "memory",
        "export target",
        "chart",
        "boundary class",
        "hiding one more folder",
        "system calls",
    )
    for topic in tasks:
        assert any(topic in t for t, _ in rows), f"the table has no row for {topic!r}"
    for topic, where in rows:
        named = [(name, path) for names, path in NAMES_IN_FILE.findall(where) for name in re.findall(r"`(\w+)`", names)]
        assert named, f"the row {topic!r} names no definition as `Name` in `path`"
        for name, path in named:
            assert name in top_level_names(REPO / path), f"the row {topic!r}: {path} does not define {name}"
        files = {path for _, path in named}
        for cls, field in CLASS_FIELD.findall(where):
            holders = [top_level_names(REPO / p).get(cls) for p in files]
            holder = next((h for h in holders if isinstance(h, ast.ClassDef)), None)
            assert holder is not None, f"the row {topic!r} names {cls}.{field}, but no file of the row defines {cls}"
            assert field in class_fields(holder), f"the row {topic!r}: {cls} has no field {field}"


# The six maintenance tasks of issue 46, each found from one row of the table: the words of the row's topic, and the
# definitions (name -> the file that defines it) the row must send a maintainer to.
SIX_TASKS = {
    "a message and a new misconception": (
        "misconception",
        {
            "VOICE": "autograder/voice.py",
            "CATALOGUE": "autograder/voice.py",
            "MODELS": "tests/test_verified_diagnoses.py",
        },
    ),
    "the memory limit": ("the memory limit", {"ResourceLimits": "autograder/config.py"}),
    "a Blackboard export": ("Blackboard", {"TARGETS": "autograder/classroom/lms/targets.py"}),
    "a new boundary class": (
        "boundary class",
        {"UNITS": "autograder/hidden/space.py", "LAYOUTS": "autograder/channel/wire.py"},
    ),
    "a chart in the class report": ("chart", {"CHARTS": "autograder/classroom/report.py"}),
    "hiding one more folder from kernels": ("hiding one more folder", {"HIDDEN": "autograder/sandbox/system_view.py"}),
}


def test_each_maintenance_task_has_one_row_naming_the_definition_that_holds_it():
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = re.search(r"^## To change X, look in Y$(.*?)(?=^#)", text, re.M | re.S).group(1)
    rows = re.findall(r"^\| (?!to change |---)([^|]+) \| (.+) \|$", section, re.M)
    for task, (words, definitions) in SIX_TASKS.items():
        found = [where for topic, where in rows if words in topic]
        assert len(found) == 1, f"{task}: {len(found)} rows of the table have {words!r} in their topic"
        named = {
            (name, path) for names, path in NAMES_IN_FILE.findall(found[0]) for name in re.findall(r"`(\w+)`", names)
        }
        for name, path in definitions.items():
            assert (name, path) in named, f"{task}: the row does not name `{name}` in `{path}`"
            assert name in top_level_names(REPO / path), f"{task}: {path} does not define {name}"
