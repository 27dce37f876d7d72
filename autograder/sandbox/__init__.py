"""The sandbox student code runs in: bubblewrap around the grading kernel.

Inside, the kernel sees what Python and NumPy need of the OS (``/usr``, the linker's cache) and Python
read-only (``system_view``), a private, size-capped /tmp holding its own copy of the submission as its
working folder, and the folder of the checker's socket
(read-only: a socket can be connected to there, nothing written).  Nothing else of the machine is
there: not ``source/`` (the reference solutions), the gradebook, any student's ``submitted/``,
``autograded/`` or ``feedback/``, other checkouts of the kit, or the kit's own hidden checks and
mutants.  Where the kit grades, the kernel finds the public client package of
``autograder.channel.public`` in place of the kit, which forwards every hidden check to the grading
process.  The kernel has no network (its own network namespace) and no view of other processes, no
capability in any set (a user namespace of its own, also when root grades), no way to gain one
(``no_new_privs``), and runs under the kit's system-call filter (``seccomp``).  It talks to nbgrader
over Unix sockets in a size-capped folder of its own inside the sandbox, since TCP cannot cross the
network namespace; the sandbox's root is read-only, and every place it can write is a capped tmpfs.
``limits`` adds the per-notebook resource limits (``cgroups``, ``arguments``, ``watchdog``).

If ``bwrap`` is missing the kit refuses to grade unless sandboxing is switched off explicitly
(``AUTOGRADER_SANDBOX=off``, or ``c.KitConfig.sandbox = False``: see ``autograder.config``), and says so.

This module only hands on the names the rest of the kit uses, all but the kernel manager: import that from
``kernel_manager``, as it imports jupyter_client, which ``grade``'s own process (it starts no kernel) goes without.
The rooms: ``bubblewrap`` (bwrap's command, and whether bubblewrap works here), ``identity`` (whose the kernel is on
the machine: never uid 0), ``system_view`` (what of the machine the kernel sees: an allow list), ``kernel_manager``
(the kernel manager that starts each kernel in its sandbox), ``forked`` and ``forkserver`` (kernels forked into their
sandboxes), ``limits``, ``cgroups``, ``arguments`` and ``watchdog`` (the resource limits), ``seccomp`` (the
system-call filter every kernel runs under: an allow list), ``summary`` (what ``grade`` prints about the limits),
``leftovers`` (what a killed grading process leaves running of its sandboxes, ended).
"""

from .bubblewrap import SandboxUnavailable, bwrap_command, bwrap_path, check_sandbox, choose_sandbox
from .summary import describe
from .system_view import PACKAGE_DIR

__all__ = [
    "PACKAGE_DIR",
    "SandboxUnavailable",
    "bwrap_command",
    "bwrap_path",
    "check_sandbox",
    "choose_sandbox",
    "describe",
]
