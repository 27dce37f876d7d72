"""A kernel client whose heartbeat cannot hold grading hostage, and that finds a new kernel ready at once.

jupyter_client's heartbeat thread may wait forever on a socket that a dying kernel filled with
garbage (student code can write to any descriptor of its process, the kernel's own ZMQ sockets
included), and ``stop_channels`` joins that thread without a timeout: one submission would stop the
whole batch.  Here the heartbeat is joined for a moment and, if it is stuck, its event loop is
stopped from outside.

A forked kernel (``autograder.sandbox.forked``) answers within a few hundredths of a second of its start,
but jupyter_client would notice only later: its sockets, connected before the kernel has bound its own,
retry every 100 ms, and ``wait_for_ready`` gives each attempt's first IOPub message 0.2 s, missed
whenever the subscription had not yet reached the kernel.  Here the sockets retry every 10 ms, and
readiness (a ``kernel_info`` reply, then an IOPub message) is asked for again every few hundredths of
a second: the same test, made sooner.
"""

from __future__ import annotations

import asyncio
import time
from queue import Empty

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import HBChannel
from traitlets import Type

STOP_WAIT = 2.0


class BoundedHBChannel(HBChannel):
    def run(self) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._async_run())
        except RuntimeError:
            pass  # stopped from outside while it waited on a broken socket
        finally:
            self._loop.close()

    def stop(self) -> None:
        self._running = False
        self._exit.set()
        self.join(STOP_WAIT)
        loop = getattr(self, "_loop", None)
        if self.is_alive() and loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
            self.join(STOP_WAIT)
        if not self.is_alive():
            self.close()


RECONNECT_MS = 10  # how often a socket retries to reach the kernel (ZMQ's default: 100 ms)
READY_POLL = 0.03  # seconds to wait for the IOPub message that follows a kernel_info reply, before asking again


class GradingKernelClient(AsyncKernelClient):
    hb_channel_class = Type(BoundedHBChannel)

    def start_channels(self, *args, **kwargs) -> None:
        self.context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)  # the sockets made from here on
        super().start_channels(*args, **kwargs)

    async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
        """jupyter_client's test of readiness, asked more often: a ``kernel_info`` reply on the shell
        channel, then a message on IOPub (the channel is then connected); a dead kernel raises."""
        deadline = time.time() + (float("inf") if timeout is None else timeout)
        while True:
            self.kernel_info()
            try:
                reply = await self.shell_channel.get_msg(timeout=READY_POLL * 10)
            except Empty:
                reply = None
            if reply is not None and reply["msg_type"] == "kernel_info_reply":
                try:
                    await self.iopub_channel.get_msg(timeout=READY_POLL)
                except Empty:
                    pass
                else:
                    self._handle_kernel_info_reply(reply)
                    break
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.time() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")
        while True:  # what IOPub holds from before is not the notebook's
            try:
                await self.iopub_channel.get_msg(timeout=READY_POLL)
            except Empty:
                break

    wait_for_ready = _async_wait_for_ready
