"""The one place the kit meets jupyter_client's private steps of a kernel's life.

jupyter_client's ``AsyncKernelManager`` starts a kernel in three private steps (``_async_pre_start_kernel`` builds
the command, ``_async_launch_kernel`` starts the process, ``_async_post_start_kernel`` connects to it), polls a
kernel told to stop with ``_async_wait`` and ends with ``_async_cleanup_resources``; its shutdown interrupts the
kernel (``_async_interrupt_kernel``) before it kills it, which the kit's kill without a wait skips.
:class:`HookedKernelManager` overrides exactly those, here and nowhere else, and hands each to a public hook that a
subclass defines (:class:`~.kernel_manager.SandboxedKernelManager` does).  :data:`HOOKS` records what the pinned
jupyter_client looks like; tests/test_jupyter_hooks.py fails when an upgrade changes a step's signature or the order
``start_kernel`` (or ``shutdown_kernel``) calls them in.
"""

from __future__ import annotations

from jupyter_client.manager import AsyncKernelManager

# jupyter_client's private steps the kit overrides, with their signatures in the pinned version
HOOKS = {
    "_async_pre_start_kernel": "(self, *, transport_encryption: str | None = None, **kw: Any) "
    "-> Tuple[List[str], Dict[str, Any]]",
    "_async_launch_kernel": "(self, kernel_cmd: List[str], **kw: Any) -> None",
    "_async_post_start_kernel": "(self, **kw: Any) -> None",
    "_async_wait": "(self, pollinterval: float = 0.1) -> None",
    "_async_cleanup_resources": "(self, restart: bool = False) -> None",
    "_async_interrupt_kernel": "(self) -> None",
}
# the order ``_async_start_kernel`` calls the three start steps in
START_STEPS = ("_async_pre_start_kernel", "_async_launch_kernel", "_async_post_start_kernel")
# the order ``_async_shutdown_kernel`` interrupts, then kills a kernel shut down ``now``
SHUTDOWN_STEPS = ("_async_interrupt_kernel", "_async_kill_kernel")


class HookedKernelManager(AsyncKernelManager):
    """jupyter_client's kernel manager, its private steps handed to these public hooks (each does nothing here)."""

    wait_interval: float | None = None  # seconds between looks whether a kernel told to stop has ended (None: 0.1)
    killing: bool = False  # in a shutdown ``now``: the kernel is killed, so it is not interrupted first

    def before_command(self) -> None:
        """Before jupyter_client writes the kernel's command and connection file."""

    def command(self, kernel_cmd: list[str], kw: dict) -> tuple[list[str], dict]:
        """The command to start and the ``Popen`` arguments, from jupyter_client's own."""
        return kernel_cmd, kw

    async def launched(self, kw: dict) -> None:
        """After the process is started (``kw``: the ``Popen`` arguments it was started with)."""

    def started(self) -> None:
        """After jupyter_client has connected to the kernel."""

    def before_cleanup(self, restart: bool) -> None:
        """Before jupyter_client cleans up a kernel that ended (``restart``: for a restart of it)."""

    def after_cleanup(self, restart: bool) -> None:
        """After it did."""

    async def launch_process(self, kernel_cmd: list[str], **kw) -> None:
        """jupyter_client's own start of the process (a hook may start another, as the fallback of a fork does)."""
        await AsyncKernelManager._async_launch_kernel(self, kernel_cmd, **kw)

    async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        """jupyter_client's shutdown, without the interrupt it sends a kernel it then kills at once: the kernel
        would answer it (signalling itself) or not, as the kill's race goes, so its last moments would differ from
        one grading to the next."""
        self.killing = now
        try:
            await super().shutdown_kernel(now=now, restart=restart)
        finally:
            self.killing = False

    # --- jupyter_client's private steps: overridden here only -------------------------------------------------

    async def _async_pre_start_kernel(self, **kw):
        self.before_command()
        kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
        return self.command(kernel_cmd, kw)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        await self.launch_process(kernel_cmd, **kw)
        await self.launched(kw)

    async def _async_post_start_kernel(self, **kw) -> None:
        await super()._async_post_start_kernel(**kw)
        self.started()

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        await super()._async_wait(pollinterval=min(pollinterval, self.wait_interval or pollinterval))

    async def _async_interrupt_kernel(self) -> None:
        if not self.killing:  # an interrupt of its own (a cell past its time), not the shutdown's
            await super()._async_interrupt_kernel()

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        self.before_cleanup(restart)
        await super()._async_cleanup_resources(restart=restart)
        self.after_cleanup(restart)

    # nbclient calls cleanup_resources() (not _async_cleanup_resources) when the kernel is already dead
    cleanup_resources = _async_cleanup_resources
