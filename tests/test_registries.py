"""Registries, one place each: a made-up entry added there reaches everything made from it.

- a memory layout (a boundary class of the input space) is one entry of ``LAYOUTS`` in autograder/channel/wire.py: the
  input space's layout dimensions, the checks' boundary cases, the smallest-case search, the messages and the channel
  are made from it, and an unknown layout is an error, never a silent default;
- a float dtype is one entry of ``FLOAT_RTOL`` in autograder/hidden/space.py (its tolerance with it), and every dtype
  the space draws travels through the channel's allow list;
- an export target is one entry of ``TARGETS`` (autograder/classroom/lms/targets.py): ``--help`` names it;
- a misconception of ``CATALOGUE`` has its row in docs/contract.md (the rest it needs: docs/authors.md).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest

from autograder.channel import wire
from autograder.hidden import boundary, oracle, space
from autograder.voice import CATALOGUE

from .conftest import REPO

SVG_RECT = "{http://www.w3.org/2000/svg}rect"

# A made-up layout, registered before the rest of the kit is imported: every axis reversed (negative strides). Its
# name is one no real layout will have, so a real entry added later is never overwritten by this test.
MADE_UP = r"""
import json, numpy as np
from autograder.channel import wire
assert "made-up-layout" not in wire.LAYOUTS, "the made-up layout's name is a real one: rename it"
wire.LAYOUTS["made-up-layout"] = wire.Layout(
    "a reversed view in memory", "reversed in memory, as a[::-1] gives",
    lambda a: np.flip(a).flags.c_contiguous,
    lambda a: np.ascontiguousarray(np.flip(a)),
    lambda c: np.flip(c),
)
from autograder.hidden import boundary, cases, oracle, space

a = np.arange(6.0).reshape(2, 3)
r = oracle.laid(a, "made-up-layout")
header, arrays = wire.encode(r, lambda obj: None)
back = wire.decode(header, arrays, None)
drawn = set()
for _ in range(200):
    drawn.add(cases.LAYOUT.example())
print(json.dumps({
    "space": sorted(
        {d.name for u in space.UNITS.values() for d in u.dims if "layout" in d.name and "made-up-layout" in d.values}
    ),
    "layout dims": sorted({d.name for u in space.UNITS.values() for d in u.dims if "layout" in d.name}),
    "boundary": list(boundary.LAYOUTS),
    "laid same values": bool(np.array_equal(r, a)), "laid strides": list(r.strides),
    "laid layout": wire.layout_of(r),
    "wire header": header, "wire same values": bool(np.array_equal(back, a)), "wire layout": wire.layout_of(back),
    "described": oracle.described("x", r),
    "words": boundary.layout_words("made-up-layout", "x"),
    "cases draw it": "made-up-layout" in drawn,
    "cases say it": cases.laid("x", "made-up-layout"),
}))
"""


def test_a_made_up_layout_is_one_entry_and_reaches_everything():
    done = subprocess.run([sys.executable, "-c", MADE_UP], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert seen["space"] == seen["layout dims"] and seen["space"], seen  # every layout dimension of every unit
    assert "made-up-layout" in seen["boundary"] and seen["cases draw it"], seen
    assert seen["laid same values"] and seen["laid layout"] == "made-up-layout" and min(seen["laid strides"]) < 0, seen
    assert seen["wire header"] == {"array": 0, "layout": "made-up-layout"}, seen
    assert seen["wire same values"] and seen["wire layout"] == "made-up-layout", seen
    assert "a reversed view in memory" in seen["described"] and "as a[::-1] gives" in seen["words"], seen
    assert "reversed view" in seen["cases say it"], seen


@pytest.mark.parametrize(
    "ask", [lambda: oracle.laid(np.ones((2, 2)), "diagonal"), lambda: boundary.laid_out(np.ones(2), "diag")]
)
def test_an_unknown_layout_is_an_error_not_a_default(ask):
    with pytest.raises(ValueError, match=r"unknown layout .*: the layouts are " + re.escape(", ".join(wire.LAYOUTS))):
        ask()


def test_the_registered_layouts_are_what_they_say():
    a = np.arange(24.0).reshape(2, 3, 4)
    for name in wire.LAYOUTS:
        laid = oracle.laid(a, name)
        assert np.array_equal(laid, a) and wire.layout_of(laid) == (None if name == "contiguous" else name), name
    assert space.LAYOUTS == tuple(wire.LAYOUTS) and boundary.LAYOUTS == space.LAYOUTS[1:]


def test_every_dtype_the_space_draws_crosses_the_channel_and_has_a_tolerance():
    allowed = {np.dtype(t).str for t in space.INT_DTYPES + space.FLOAT_DTYPES}
    assert allowed <= set(wire.DTYPES), allowed - set(wire.DTYPES)
    assert oracle.RTOL is space.FLOAT_RTOL and space.FLOAT_DTYPES == tuple(space.FLOAT_RTOL)


def test_the_help_names_every_export_target_from_the_table(monkeypatch, capsys):
    from autograder import cli
    from autograder.classroom.lms import targets

    monkeypatch.setenv("COLUMNS", "10000")  # argparse's help on one line: no word broken at a hyphen by the wrapping

    made_up = targets.Target(
        help="a made-up LMS's grade centre",
        needs=lambda o: (),
        needs_why=lambda o: "",
        rows=None,
        uses_id="the made-up LMS's column id: the column becomes 'ASSIGNMENT [Total Pts: MAX Score] |ID'",
    )
    assert "made-up-lms" not in targets.TARGETS, "the made-up target's name is a real one: rename it"
    monkeypatch.setitem(targets.TARGETS, "made-up-lms", made_up)
    for argv in (["--help"], ["export", "--help"]):
        with pytest.raises(SystemExit):
            cli.main(argv)
        said = " ".join(capsys.readouterr().out.split())
        assert "a made-up LMS's grade centre" in said and "Canvas's gradebook import" in said, said
    # --assignment-id's help says what each target that takes an id does with it, the made-up one's words too
    assert (
        "made-up-lms: the made-up LMS's column id: the column becomes 'ASSIGNMENT [Total Pts: MAX Score] |ID'" in said
    )
    assert "canvas: Canvas's id of the assignment" in said, said
    # a target with no use for an id refuses one, naming those that take one (the made-up one among them)
    with pytest.raises(ValueError, match=r"--to moodle has no use for --assignment-id .*\bmade-up-lms\b"):
        targets.TARGETS["moodle"].require("moodle", None, targets.ExportOptions("a", assignment_id="7"))
    made_up.require("made-up-lms", None, targets.ExportOptions("a", assignment_id="7"))
    # docs/lms.md's generated table lists it, the bar of its words escaped (the row keeps its four cells)
    from autograder.devtools.doc_tables import checked_table

    row = next(
        line for line in checked_table(targets.table(), Path("docs/lms.md")).splitlines() if "made-up-lms" in line
    )
    assert r"Score] \|ID'" in row, row
    with pytest.raises(ValueError, match=r"docs/lms.md: a generated table's row has 5 cells, not 4"):
        checked_table(targets.table().replace(r"\|ID", "|ID"), Path("docs/lms.md"))


def test_every_catalogued_misconception_has_its_row_in_the_contract():
    text = (REPO / "docs" / "contract.md").read_text(encoding="utf-8")
    section = re.search(r"^## Misconceptions$(.*?)(?=^## |\Z)", text, re.M | re.S).group(1)
    rows = re.findall(r"^\| `([\w-]+)` \|", section, re.M)
    assert sorted(rows) == sorted(CATALOGUE), (
        "docs/contract.md's misconception table and CATALOGUE in autograder/voice.py differ (a new misconception: "
        f"docs/authors.md, 'A new misconception'): {sorted(set(rows) ^ set(CATALOGUE))}"
    )


def test_a_mutants_replace_text_matches_the_cells_last_line_and_a_miss_is_told():
    """A ``replace`` old text written as whole lines matches the reference cell's last line (a notebook keeps a
    cell's source without its last newline); an old text that is not there is an error naming the mutant, its
    notebook and cell and the text; and every mutant of the catalogue applies to its cell and changes it."""
    from autograder.devtools.mutants import Mutant, catalogue
    from autograder.devtools.personas import reference_solutions

    cell = "def f(x):\n    y = x + 1\n    return y"
    last = Mutant(
        "made-up-last-line", "02_token_embeddings", "f", "wrong", replace=(("    return y\n", "    return -y\n"),)
    )
    assert last.cell_source(cell) == "def f(x):\n    y = x + 1\n    return -y"
    assert last.cell_source(cell + "\n") == "def f(x):\n    y = x + 1\n    return -y\n"
    missing = Mutant("made-up-miss", "02_token_embeddings", "f", "wrong", replace=(("return z", "return -z"),))
    with pytest.raises(ValueError) as told:
        missing.cell_source(cell)
    said = str(told.value)
    for needed in ("'made-up-miss'", "02_token_embeddings", "cell 'f'", "'return z'", "is not found"):
        assert needed in said, (needed, said)

    mutants, alternatives = catalogue()
    references = {}
    for m in mutants + alternatives:
        if m.notebook not in references:
            references[m.notebook] = reference_solutions(REPO, m.notebook)
        assert m.cell in references[m.notebook], f"mutant {m.name}: {m.notebook} has no solution cell {m.cell!r}"
        assert m.cell_source(references[m.notebook][m.cell]) != references[m.notebook][m.cell], m.name


def test_every_chart_is_drawn_from_a_made_up_classs_figures(tmp_path, monkeypatch):
    """make test-fast says a new chart works: every entry of CHARTS (a made-up one too) is drawn from a small made-up
    class, with no kernel and no grading, as an SVG the report's page shows."""
    from autograder.classroom import report, svg_charts
    from autograder.grading.results import Status, StudentResult, TestResult

    def made_up_chart(f):
        return svg_charts.bars([("graded", f.graded, f"{f.graded}")], 5, "Graded", "students", "#000")

    assert "made-up.svg" not in report.CHARTS, "the made-up chart's name is a real one: rename it"
    monkeypatch.setitem(report.CHARTS, "made-up.svg", made_up_chart)
    wrong = sorted(CATALOGUE)[0]  # a catalogued misconception, so the misconceptions chart has a bar
    results = [
        StudentResult(
            f"s{i}",
            Status.GRADED,
            score=points,
            max_score=10,
            tests=[TestResult("n1", "t1", points, 10, None if points == 10 else wrong), TestResult("n2", "t2", 5, 5)],
            notebook_seconds={"n1": 1.5 + i, "n2": 0.5},
        )
        for i, points in enumerate((0, 4, 10))
    ]
    folder = tmp_path / "reports"
    page = report.write_report(results, folder, "made-up-assignment").read_text()
    for name in report.CHARTS:
        svg = ElementTree.parse(folder / name).getroot()  # well-formed, or this raises
        assert svg.tag == "{http://www.w3.org/2000/svg}svg" and svg.find(SVG_RECT) is not None, f"{name} is not drawn"
        assert f'<img src="{name}"' in page, f"chart {name} is not on the page"


def test_the_documents_tables_are_rewritten_from_the_registries_with_a_made_up_layout(tmp_path):
    """A new layout (the made-up one above) reaches docs/contract.md's input-space table by the command the failing
    test names (`python -m autograder build` runs doc_tables): the table is rewritten between its markers, the rest
    of the document kept, and a second run changes nothing."""
    from autograder.devtools.doc_tables import DOCUMENTS, regenerate

    for name in DOCUMENTS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((REPO / name).read_text(encoding="utf-8"), encoding="utf-8")
    stale = regenerate(tmp_path)  # the repository's tables are the generated ones
    assert stale == [], f"{[str(p.relative_to(tmp_path)) for p in stale]}: stale; run python -m autograder build"
    before = (REPO / "docs" / "contract.md").read_text(encoding="utf-8")
    assert "made-up-layout" not in before
    registered = MADE_UP.split("\na = np.arange")[0]  # the made-up layout, registered in a fresh process
    rewrite = "from pathlib import Path\nfrom autograder.devtools.doc_tables import regenerate\n"
    rewrite += f"print(json.dumps([str(p) for p in regenerate(Path({str(tmp_path)!r}))]))"
    said = subprocess.run(
        [sys.executable, "-c", registered + rewrite], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert said.returncode == 0, said.stderr
    assert json.loads(said.stdout) == [str(tmp_path / "docs" / "contract.md")], said.stdout
    after = (tmp_path / "docs" / "contract.md").read_text(encoding="utf-8")
    assert "`made-up-layout`" in after.split(space.BEGIN)[1].split(space.END)[0]
    assert after.split(space.BEGIN)[0] == before.split(space.BEGIN)[0]
    assert after.split(space.END)[1] == before.split(space.END)[1]
    (tmp_path / "docs" / "contract.md").write_text(after.replace(space.END, ""), encoding="utf-8")
    with pytest.raises(ValueError, match="contract.md: the generated table's markers are lost"):
        regenerate(tmp_path)


def test_the_committed_source_is_the_build_of_the_authoring_and_the_kits_words(tmp_path):
    """A student-facing message changed (``VOICE``, or anything else of autograder/voice.py, which every notebook
    carries by ``# kit-include: package:voice.py``) or an authoring source changed, without a rebuild, fails here in
    make test-fast: source/ must be byte for byte what the build writes now (release/ is made from source/ by
    nbgrader: tests/test_build.py's test_rebuild_changes_nothing compares it too).  A change to the hidden checks or
    their diagnostics (autograder/hidden/) needs no rebuild: the notebooks call them from the package."""
    from autograder.authoring.build import build_source
    from autograder.course import ASSIGNMENT, NOTEBOOKS

    shutil.copytree(REPO / "assignments", tmp_path / "assignments")
    shutil.copy(REPO / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    build_source(tmp_path, echo=lambda said: None)
    stale = [
        name
        for name in NOTEBOOKS
        if (tmp_path / "source" / ASSIGNMENT / f"{name}.ipynb").read_bytes()
        != (REPO / "source" / ASSIGNMENT / f"{name}.ipynb").read_bytes()
    ]
    assert not stale, f"source/ is stale for {stale}: run `python -m autograder build` and commit source/ and release/"
