"""Running a tool: a worker thread or a task, a deadline, and the runs that outlive it.

A timed-out thread cannot be killed and a task may ignore cancellation; both are left behind
and counted (``abandoned_calls``) so the server can exit without waiting for them.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread

from mcp_codegen.runtime._call.failures import (
    MAX_TOOL_MESSAGE,
    ToolCallError,
    clip,
    describe,
    describe_exception,
)
from mcp_codegen.runtime._call.plan import PreparedTool

logger = logging.getLogger("mcp_codegen.runtime")


class Outcome:
    """How one tool run ended: a value or the exception it raised, captured where it ran.

    Capturing keeps a tool's ``SystemExit``, ``KeyboardInterrupt`` or own ``CancelledError``
    from crossing into the event loop, where they would stop the server or pose as a cancel.
    """

    __slots__ = ("error", "finished", "value")

    def __init__(self) -> None:
        self.finished = False
        self.value: Any = None
        self.error: BaseException | None = None

    def done(self) -> bool:
        return self.finished

    def run_sync(self, call: Callable[[], Any]) -> None:
        try:
            self.value = call()
        except BaseException as exc:  # the tool's, whatever it is: reported, never re-raised
            self.error = exc
        finally:
            self.finished = True

    async def run_async(self, awaitable: Awaitable[Any]) -> None:
        try:
            self.value = await awaitable
        except BaseException as exc:
            if isinstance(exc, anyio.get_cancelled_exc_class()) and _cancel_requested():
                raise  # a real cancellation (timeout, client cancel, shutdown) propagates
            self.error = exc
        finally:
            self.finished = True


#: Tool runs that outlived their timeout and still run (threads cannot be killed; tasks that
#: ignore cancellation cannot be stopped). ``abandoned_calls`` counts them.
_abandoned: set[Outcome | asyncio.Task[Any]] = set()
_abandoned_lock = threading.Lock()


def abandoned_calls() -> int:
    """How many timed-out tool runs are still running in this process."""
    with _abandoned_lock:
        _abandoned.difference_update([work for work in _abandoned if work.done()])
        return len(_abandoned)


def _abandon(work: Outcome | asyncio.Task[Any]) -> None:
    with _abandoned_lock:
        _abandoned.add(work)


async def run_tool(
    prepared: PreparedTool, args: list[Any], kwargs: dict[str, Any], timeout: float | None
) -> Any:
    """The tool's return value; a ``ToolCallError`` when it raises or runs out of time."""
    name = prepared.binding.name
    deadline = None if timeout is None else anyio.current_time() + timeout
    outcome = Outcome()
    if prepared.is_async:
        await _await_bounded(outcome, prepared.function(*args, **kwargs), deadline)
    else:
        # A worker thread keeps a blocking tool from stalling the server, as MCPServer does.
        await _in_thread_bounded(
            outcome, functools.partial(prepared.function, *args, **kwargs), deadline
        )
        if outcome.finished and outcome.error is None and inspect.isawaitable(outcome.value):
            awaitable, outcome = outcome.value, Outcome()
            await _await_bounded(outcome, awaitable, deadline)
    if (
        outcome.finished
        and outcome.error is None
        and prepared.rules is not None
        and prepared.rules.materializes_generators
        and (inspect.isgenerator(outcome.value) or inspect.isasyncgen(outcome.value))
    ):
        outcome = await _collect(outcome.value, deadline)
    if not outcome.finished:
        raise ToolCallError(f"Tool {name!r} did not finish within {timeout:g} s")
    if outcome.error is not None:
        error = outcome.error
        message = describe(error, MAX_TOOL_MESSAGE)
        raised = f"{type(error).__name__}: {message}" if message else type(error).__name__
        logger.warning("tool %r raised %s", name, clip(raised, 500))
        logger.info("traceback of tool %r", name, exc_info=error)
        rules = prepared.rules
        assert rules is not None
        raise ToolCallError(rules.failure(error, describe_exception))
    return outcome.value


async def _collect(generator: Any, deadline: float | None) -> Outcome:
    """A generator's items as a list, collected under the call's deadline."""
    outcome = Outcome()
    if inspect.isasyncgen(generator):

        async def items() -> list[Any]:
            return [item async for item in generator]

        await _await_bounded(outcome, items(), deadline)
        return outcome
    await _in_thread_bounded(outcome, functools.partial(list, generator), deadline)
    return outcome


async def _in_thread_bounded(
    outcome: Outcome, call: Callable[[], Any], deadline: float | None
) -> None:
    """Run ``call`` in a worker thread until ``deadline``, recording it in ``outcome``."""
    try:
        with anyio.move_on_after(None if deadline is None else deadline - anyio.current_time()):
            await anyio.to_thread.run_sync(outcome.run_sync, call, abandon_on_cancel=True)
    finally:
        if not outcome.finished:  # timed out or cancelled: the thread runs on regardless
            _abandon(outcome)


async def _await_bounded(
    outcome: Outcome, awaitable: Awaitable[Any], deadline: float | None
) -> None:
    """Await a tool into ``outcome``, giving up at ``deadline`` even if it ignores cancels."""
    if deadline is None:
        await outcome.run_async(awaitable)
        return
    remaining = max(deadline - anyio.current_time(), 0)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not asyncio (trio): a tool that ignores cancellation can hang
        with anyio.move_on_after(remaining):
            await outcome.run_async(awaitable)
        return
    # A task of its own, so that a tool which swallows CancelledError (or cleans up for
    # minutes) cannot hold the call past its timeout: the task is cancelled and left behind.
    task = loop.create_task(outcome.run_async(awaitable))
    try:
        await asyncio.wait({task}, timeout=remaining)
    finally:
        if not task.done():
            task.cancel()
            _abandon(task)


def _cancel_requested() -> bool:
    """Whether the current task is being cancelled (not merely handed a tool's CancelledError)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not asyncio: only a real cancellation raises the backend's exception
        return True
    return task is None or task.cancelling() > 0
