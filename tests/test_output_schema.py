"""Each output a kernel sends is checked against nbformat's schema compiled once (``autograder/grading/output_schema.py``):
it refuses exactly what nbformat refuses, with nbformat's own error."""

from __future__ import annotations

import copy

import nbformat
import pytest
from nbformat.v4 import nbbase, output_from_msg

from autograder.grading import output_schema

# outputs as a kernel (or a student's code posing as one) may send them: valid ones of every type, and the ways
# one can be wrong (a missing key, an extra key, a wrong type, a bad name or count, not an object at all)
OUTPUTS = [
    {"output_type": "stream", "name": "stdout", "text": "hi\n"},
    {"output_type": "stream", "name": "stderr", "text": ["a\n", "b\n"]},
    {"output_type": "error", "ename": "E", "evalue": "x", "traceback": ["a"]},
    {"output_type": "display_data", "data": {"text/plain": "x"}, "metadata": {}},
    {"output_type": "display_data", "data": {"application/json": {"a": [1]}}, "metadata": {"a": {"b": 1}}},
    {"output_type": "display_data", "data": {"text/html": ["<b>", "x"]}, "metadata": {}},
    {"output_type": "execute_result", "data": {"text/plain": "x"}, "metadata": {}, "execution_count": 3},
    {"output_type": "execute_result", "data": {"text/plain": "x"}, "metadata": {}, "execution_count": None},
    {"output_type": "stream", "name": "stdweird", "text": "hi\n"},
    {"output_type": "stream", "name": "stdout", "text": 3},
    {"output_type": "stream", "name": "stdout"},
    {"output_type": "error", "ename": "E", "evalue": "x"},
    {"output_type": "error", "ename": "E", "evalue": "x", "traceback": "not a list"},
    {"output_type": "bogus"},
    {"output_type": "display_data", "data": {"text/plain": "x"}, "metadata": {}, "extra": 1},
    {"output_type": "display_data", "data": {"text/plain": "x"}, "metadata": {}, "transient": {"display_id": "x"}},
    {"output_type": "display_data", "data": {"image/png": 5}, "metadata": {}},
    {"output_type": "display_data", "data": {"text/plain": "x"}, "metadata": []},
    {"output_type": "execute_result", "data": {"text/plain": "x"}, "metadata": {}, "execution_count": -1},
    {"output_type": "execute_result", "data": {"text/plain": "x"}, "metadata": {}, "execution_count": "3"},
    {},
    "not an object",
    5,
    [],
]


def verdict(check, node) -> str:
    try:
        check(copy.deepcopy(node), ref="output")
    except Exception as e:  # noqa: BLE001 - compared, whatever it is
        return f"{type(e).__name__}: {e}"
    return "valid"


@pytest.mark.parametrize("node", OUTPUTS, ids=range(len(OUTPUTS)))
def test_an_output_is_refused_exactly_as_nbformat_refuses_it(node):
    assert verdict(output_schema.validate, node) == verdict(output_schema._nbformat_validate, node)


def test_the_grading_process_builds_outputs_with_the_compiled_check():
    import autograder.grading.execute  # noqa: F401 - installs it, as in every grading process

    assert nbbase.validate is output_schema.validate
    msg = {"header": {"msg_type": "stream"}, "content": {"name": "stdout", "text": "hi\n"}}
    assert output_from_msg(msg) == {"output_type": "stream", "name": "stdout", "text": "hi\n"}
    bad = {"header": {"msg_type": "error"}, "content": {"ename": "E", "evalue": "x", "traceback": "not a list"}}
    with pytest.raises(nbformat.ValidationError):
        output_from_msg(bad)
