"""A kernel client whose heartbeat cannot hold grading hostage.

jupyter_client's heartbeat thread may wait forever on a socket that a dying kernel filled with
garbage (student code can write to any descriptor of its process, the kernel's own ZMQ sockets
included), and ``stop_channels`` joins that thread without a timeout: one submission would stop the
whole batch.  Here the heartbeat is joined for a moment and, if it is stuck, its event loop is
stopped from outside.
"""

from __future__ import annotations

import asyncio

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


class GradingKernelClient(AsyncKernelClient):
    hb_channel_class = Type(BoundedHBChannel)
