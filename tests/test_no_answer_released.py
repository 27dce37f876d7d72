"""No released notebook holds a graded answer of its release, in any cell, as code or inside a string.

Every solution of source/ (the code between BEGIN and END SOLUTION) is read as code, names, docstrings and
comments aside (normalised AST: every name and argument renamed in order of first use), and cut into the
pieces that give the answer away: its whole body (input conversions such as ``a = np.asarray(a)`` and a
closing ``return None`` left out), every loop or branch holding two statements or more, and every
expression of ten nodes or more that it returns (rel_error's answer is one).  The practice exercises'
solutions (lesson 5's ex1..ex3) are not graded and are left out: they reuse the lesson's own set-up
lines.  Every code cell of every release notebook is read the same way, and so is code inside its
strings (a fix written out in a message) and inside its Markdown (code spans and blocks).  A piece
found anywhere in the release fails, with the cell named.
"""

from __future__ import annotations

import ast
import copy
import functools
import json
import re
import textwrap

import pytest

from autograder.course import ASSIGNMENT, NOTEBOOKS

from .conftest import REPO

SOLUTION = re.compile(r"^[ \t]*### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION", re.M | re.S)
COMPOUND = (ast.For, ast.While, ast.If, ast.With, ast.Try)
PRACTICE = re.compile(r"ex\d")  # the grade_ids of the practice exercises' solution cells
LARGE = 10  # nodes: an expression this big is an answer, not an idiom


class Renamed(ast.NodeTransformer):
    """Names and arguments renamed v0, v1, ... in order of first use; docstrings dropped; attribute names kept."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def _name(self, name: str) -> str:
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(id=self._name(node.id), ctx=ast.Load()), node)

    def visit_arg(self, node):
        return ast.copy_location(ast.arg(arg=self._name(node.arg)), node)

    def visit_FunctionDef(self, node):
        node.name = self._name(node.name)
        node.body = _without_docstring(node.body)
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        node.name = self._name(node.name)
        node.body = _without_docstring(node.body)
        return self.generic_visit(node)


def _without_docstring(body: list) -> list:
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):
            return body[1:] or [ast.Pass()]
    return body


def normal(nodes) -> str:
    """One dump for a node or a run of statements, whatever its names, docstrings and comments."""
    nodes = nodes if isinstance(nodes, list) else [nodes]
    renamer = Renamed()
    module = ast.Module(body=[renamer.visit(copy.deepcopy(n)) for n in nodes], type_ignores=[])
    return ast.dump(module, annotate_fields=False)


def shape(nodes) -> tuple:
    """What renaming leaves of a node or a run of statements at a glance: each one's type and its value's (a
    filter before :func:`normal`: two pieces with one normal dump have one shape)."""
    nodes = nodes if isinstance(nodes, list) else [nodes]
    return tuple((type(n).__name__, type(getattr(n, "value", None)).__name__) for n in nodes)


def size(node) -> int:
    return sum(1 for _ in ast.walk(node))


def _trivial(stmt) -> bool:
    """An input conversion (``a = np.asarray(a, ...)``) or ``return None``: in every solution, no answer."""
    if isinstance(stmt, ast.Return):
        return stmt.value is None or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return isinstance(func, ast.Attribute) and func.attr in ("asarray", "array") and len(stmt.value.args) == 1
    return False


def pieces(code: str) -> dict[str, str]:
    """(kind, length, shape, normal dump) -> the piece's text, for the pieces of one solution that give it away."""
    tree = ast.parse(code)
    found = {}
    body = [s for s in _without_docstring(tree.body) if not _trivial(s)]
    if body:
        found[("run", len(body), shape(body), normal(body))] = ast.unparse(ast.Module(body=body, type_ignores=[]))
    for node in ast.walk(tree):
        if isinstance(node, COMPOUND) and sum(isinstance(n, ast.stmt) for n in ast.walk(node)) >= 3:
            found[("stmt", 1, shape(node), normal(node))] = ast.unparse(node)
        if isinstance(node, ast.Return) and node.value is not None and size(node.value) >= LARGE:
            found[("expr", 1, shape(ast.Expr(node.value)), normal(ast.Expr(node.value)))] = ast.unparse(node.value)
    return found


def solutions() -> list[tuple[str, str, str]]:
    """(notebook, cell id, solution code) for every graded solution region of source/."""
    out = []
    for name in NOTEBOOKS:
        nb = json.loads((REPO / "source" / ASSIGNMENT / f"{name}.ipynb").read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if PRACTICE.match(cell.get("id", "")):
                continue
            for region in SOLUTION.findall("".join(cell["source"])):
                out.append((name, cell.get("id", "?"), textwrap.dedent(region)))
    return out


FRAGMENT_SPLIT = re.compile(r"\. |: |; |, (?=which|so|not|then|and|or)|\n")
CODE_IN_MARKDOWN = re.compile(r"```(?:python)?\n(.*?)```|`([^`\n]+)`|((?:^    .*\n?)+)", re.S | re.M)


def code_in_text(text: str) -> list[ast.AST]:
    """The code a string or a Markdown cell holds: the whole text, and each fragment between sentence breaks,
    where it parses as Python."""
    trees = []
    for part in [text, *FRAGMENT_SPLIT.split(text)]:
        part = textwrap.dedent(part).strip().removeprefix("Use ").removeprefix("use ")
        try:
            trees.append(ast.parse(part))
        except (SyntaxError, ValueError):
            continue
    return trees


def released_trees() -> list[tuple[str, ast.AST]]:
    """(where, tree) for every released code cell, every string in one, and every code span of the Markdown."""
    out = []
    for name in NOTEBOOKS:
        nb = json.loads((REPO / "release" / ASSIGNMENT / f"{name}.ipynb").read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            where, source = f"release/{ASSIGNMENT}/{name}.ipynb, cell {cell.get('id', '?')}", "".join(cell["source"])
            if cell["cell_type"] == "code":
                tree = ast.parse(source)
                out.append((where, tree))
                strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
                out += [(f"{where} (a string)", t) for s in strings for t in code_in_text(s)]
            else:
                for match in CODE_IN_MARKDOWN.finditer(source):
                    block = next(g for g in match.groups() if g)
                    out += [(f"{where} (Markdown)", t) for t in code_in_text(block)]
    return out


def candidates(tree: ast.AST):
    """Every run of statements of every block, every statement, and every expression of ``tree``: (kind, length, node)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                block = _without_docstring(block)
                for k in range(1, len(block) + 1):
                    for i in range(len(block) - k + 1):
                        yield "run", k, block[i : i + k]
        if isinstance(node, ast.stmt):
            yield "stmt", 1, node
        if isinstance(node, ast.expr) and size(node) >= LARGE:
            yield "expr", 1, ast.Expr(node)


def answers_in(trees, sought) -> list[str]:
    found, trees = [], tuple(trees)
    for (kind, k, form, dump), text in sought.items():
        found += [f"{where}: {text}" for where in normal_forms(trees, kind, k, form).get(dump, [])]
    return found


@functools.cache
def by_shape(trees: tuple) -> dict:
    """(kind, length, shape) -> [(where, candidate)] of ``trees``, made once per process for each tuple of trees."""
    grouped: dict = {}
    for where, tree in trees:
        for kind, k, node in candidates(tree):
            grouped.setdefault((kind, k, shape(node)), []).append((where, node))
    return grouped


@functools.cache
def normal_forms(trees: tuple, kind: str, k: int, form: tuple) -> dict[str, list[str]]:
    """normal dump -> where, for every candidate of ``trees`` of this kind, length and shape.  A candidate is
    normalised only where a piece of its shape is sought, and once per tuple of trees: the twenty solutions look in
    the one release, which is read once, not twenty times."""
    index: dict[str, list[str]] = {}
    for where, node in by_shape(trees).get((kind, k, form), []):
        index.setdefault(normal(node), []).append(where)
    return index


SOLUTIONS = solutions()
RELEASED = released_trees()


def test_every_graded_solution_is_read():
    """The pieces are cut from real solutions: every lesson has some, and the ones issue 44 met are among them."""
    assert {name for name, _, _ in SOLUTIONS} == set(NOTEBOOKS)
    texts = [text for _, _, code in SOLUTIONS for text in pieces(code).values()]
    assert any("np.maximum(1e-12" in t for t in texts), "rel_error's formula is not a piece"
    assert any(t.startswith("for ") and "np.ndindex" in t for t in texts), "numerical_gradient's loop is not a piece"


@pytest.mark.parametrize("notebook, cell, code", SOLUTIONS, ids=[f"{n}:{c}" for n, c, _ in SOLUTIONS])
def test_no_release_notebook_holds_this_solution(notebook, cell, code):
    found = answers_in(RELEASED, pieces(code))
    assert not found, f"the solution of {notebook}:{cell} is in the release:\n" + "\n".join(found)


def test_the_reading_finds_an_answer_renamed_and_in_a_message():
    """The detector itself: rel_error's answer, renamed and commented, and numerical_gradient's loop inside a fix
    string, are found; the lesson's prose formula with other names of calls is not."""
    rel = next(code for name, cell, code in SOLUTIONS if cell == "rel-error")
    grad = next(code for name, cell, code in SOLUTIONS if cell == "numerical-gradient")
    renamed = ast.parse(
        "def compare(p, q):\n    '''how far apart'''\n    # entry by entry\n"
        "    return float(np.max(np.abs(p - q) / np.maximum(1e-12, np.abs(p) + np.abs(q))))\n"
    )
    assert answers_in([("renamed", renamed)], pieces(rel))
    loop = "\n".join(line for line in grad.splitlines() if not line.lstrip().startswith(("grad =", "return")))
    message = ast.parse(f"raise Diagnosis('no-restore', {textwrap.dedent(loop)!r})")
    strings = [n.value for n in ast.walk(message) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert answers_in([("message", t) for s in strings for t in code_in_text(s)], pieces(grad))
    prose = ast.parse("err = np.max(np.abs(a - b))")
    assert not answers_in([("prose", prose)], pieces(rel))


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_the_self_check_helpers_carry_only_this_lessons_catalogue(notebook):
    """The helper cell's catalogue holds exactly the ids this notebook's code names, and no fix of another id is
    anywhere in the notebook."""
    from autograder.voice import VOICE

    nb = json.loads((REPO / "release" / ASSIGNMENT / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    code = {cell.get("id"): "".join(cell["source"]) for cell in nb["cells"] if cell["cell_type"] == "code"}
    namespace: dict = {}
    exec(code["self-check-helpers"], namespace)
    carried = set(namespace["VOICE"])
    named = {i for i in VOICE for text in code.values() if f'"{i}"' in text.replace(code["self-check-helpers"], "")}
    named |= {i for i in VOICE if f'say("{i}"' in code["self-check-helpers"]}
    assert carried == named, f"{notebook}: carries {sorted(carried)}, its code names {sorted(named)}"
    whole = json.dumps(nb)
    others = [i for i in VOICE if i not in carried and json.dumps(VOICE[i][1])[1:-1].split("{")[0] in whole]
    assert not others, f"{notebook} holds the fix of another lesson's mistakes: {others}"
