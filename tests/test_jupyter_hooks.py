"""jupyter_client's private steps of a kernel's life are met in one place (autograder/sandbox/jupyter_hooks.py),
and the pinned jupyter_client still has them as the kit overrides them: an upgrade that changes one fails here,
not in a grading."""

from __future__ import annotations

import ast
import inspect
import re

import pytest
from jupyter_client.manager import AsyncKernelManager

from autograder.sandbox.jupyter_hooks import HOOKS, SHUTDOWN_STEPS, START_STEPS, HookedKernelManager
from autograder.sandbox.kernel_manager import SandboxedKernelManager

from .conftest import REPO

pytestmark = pytest.mark.inprocess


@pytest.mark.parametrize("step", sorted(HOOKS))
def test_each_private_step_has_the_signature_the_kit_overrides(step):
    assert str(inspect.signature(getattr(AsyncKernelManager, step))) == HOOKS[step], (
        f"jupyter_client changed {step}: look at autograder/sandbox/jupyter_hooks.py before upgrading it"
    )


def test_starting_a_kernel_still_calls_the_three_steps_in_order():
    source = inspect.getsource(AsyncKernelManager._async_start_kernel)
    places = [source.find(f"self.{step}(") for step in START_STEPS]
    assert -1 not in places and places == sorted(places), f"_async_start_kernel no longer calls {START_STEPS} in order"


def test_a_shutdown_now_still_interrupts_then_kills():
    """The adapter skips the interrupt of a kernel shut down ``now``: it relies on the shutdown calling it first."""
    source = inspect.getsource(AsyncKernelManager._async_shutdown_kernel)
    places = [source.find(f"self.{step}(") for step in SHUTDOWN_STEPS]
    assert -1 not in places and places == sorted(places), f"_async_shutdown_kernel no longer calls {SHUTDOWN_STEPS}"


def test_the_private_steps_are_overridden_in_the_adapter_alone():
    """No other module of the kit defines a method of jupyter_client's private steps (an ``_async_`` name of
    AsyncKernelManager's): the sandbox's kernel manager uses the adapter's public hooks."""
    private = {name for name in dir(AsyncKernelManager) if name.startswith("_async_")}
    elsewhere = [
        f"{path.relative_to(REPO)}:{node.lineno} {node.name}"
        for path in sorted((REPO / "autograder").rglob("*.py"))
        if path.name != "jupyter_hooks.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in private
    ]
    assert not elsewhere, f"jupyter_client's private steps overridden outside the adapter: {elsewhere}"
    assert issubclass(SandboxedKernelManager, HookedKernelManager)
    assert HookedKernelManager.cleanup_resources is HookedKernelManager._async_cleanup_resources


def test_the_kernel_managers_state_is_declared_in_one_place():
    """Every attribute the sandbox's kernel manager keeps of a kernel is declared on the class, with its default:
    nothing is read back with getattr(self, ...) as if it might not exist."""
    source = inspect.getsource(SandboxedKernelManager)
    assert not re.search(r"getattr\(self,", source)
    assigned = set(re.findall(r"self\.(_\w+) = ", source))
    undeclared = sorted(name for name in assigned if name not in vars(SandboxedKernelManager))
    assert not undeclared, f"state set on the instance but not declared on the class: {undeclared}"
