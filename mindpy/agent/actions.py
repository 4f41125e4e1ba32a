"""The action manager: one action at a time per agent, interruptible, with a time limit.

An action is a Python callable that drives skills (a command's body, or a mode's reaction). It runs on a
worker thread so the agent keeps receiving messages meanwhile. Starting an action stops the running one.
A mode that interrupts an action can ask for it to be resumed afterwards.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

OUTPUT_LIMIT = 500
ACTION_TIME_LIMIT = 600.0  # seconds an action may run unless its caller says otherwise


def cut_output(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """Keep the first and last halves of long output, as the model sees it."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n...(output cut)...\n{text[-half:]}"


@dataclass
class ActionResult:
    """What an action did: its output for the model and how it ended."""
    success: bool
    message: str
    interrupted: bool = False
    timed_out: bool = False


class _Run:
    """One execution of an action."""

    def __init__(self, label: str, fn: Callable[[], object]):
        self.label = label
        self.fn = fn
        self.stop_requested = threading.Event()
        self.outcome: dict = {}
        self.thread = threading.Thread(target=self._work, name=f"action-{label}", daemon=True)

    def _work(self) -> None:
        try:
            self.outcome["value"] = self.fn()
        except Exception as exc:  # an action's error is output for the model, not a crash
            log.exception("action %s failed", self.label)
            self.outcome["error"] = f"{type(exc).__name__}: {exc}"


class ActionManager:
    """Runs the agent's actions one at a time on a thread, stopping the previous one first."""
    def __init__(self, interrupt: Callable[[], None], take_log: Callable[[], str], name: str = "agent"):
        """`interrupt` stops the bot's running skill; `take_log` returns (and clears) the skills' messages."""
        self._interrupt_skill = interrupt
        self._take_log = take_log
        self.name = name
        self._current: _Run | None = None
        self._lock = threading.RLock()
        self._resume: tuple[str, Callable[[], object], float] | None = None
        self._interrupted_by: dict[int, str] = {}
        self._count_lock = threading.Lock()
        self._starting = 0  # runs between "asked to start" and "thread started" (stopping the previous one)
        self.last_output = ""

    @property
    def executing(self) -> bool:
        run = self._current
        return self._starting > 0 or (run is not None and run.thread.is_alive())

    @property
    def current_label(self) -> str | None:
        run = self._current
        return run.label if run is not None and run.thread.is_alive() else None

    @property
    def stop_requested(self) -> bool:
        """Actions made of several skills check this between steps."""
        run = self._current
        return run is not None and run.stop_requested.is_set()

    def run(self, label: str, fn: Callable[[], object], timeout: float = ACTION_TIME_LIMIT, resume: bool = False,
            by_mode: str | None = None) -> ActionResult:
        """Run `fn` as the agent's action and wait for it; returns its output for the model.

        A running action is stopped first; `by_mode` names the mode doing so (the stopped action's output
        then says it was interrupted by that mode). With `resume`, the action is remembered so the agent can
        start it again after a mode interrupted it.
        """
        with self._count_lock:
            self._starting += 1
        try:
            run, started = self._start(label, fn, timeout, resume, by_mode)
        finally:
            with self._count_lock:
                self._starting -= 1
        return self._finish(run, label, started, timeout)

    def _start(self, label, fn, timeout, resume, by_mode):
        with self._lock:
            previous = self._current
            if previous is not None and previous.thread.is_alive():
                if by_mode:
                    self._interrupted_by[id(previous)] = by_mode
                self._stop(previous, wait=5.0)
            if resume:
                self._resume = (label, fn, timeout)
            self._take_log()  # drop messages of whatever ran before
            run = _Run(label, fn)
            self._current = run
            started = time.monotonic()
            run.thread.start()
            return run, started

    def _finish(self, run: _Run, label: str, started: float, timeout: float) -> ActionResult:
        run.thread.join(timeout)
        timed_out = run.thread.is_alive()
        if timed_out:
            self._stop(run, wait=5.0)
        interrupted = run.stop_requested.is_set() and not timed_out
        output = self._take_log() if self._current is run else ""
        value = run.outcome.get("value")
        if isinstance(value, str) and value.strip():  # a command's own output text (see CommandOutput)
            output = f"{output}\n{value}" if output else value
        if "error" in run.outcome:
            output = (output + "\n" if output else "") + run.outcome["error"]
        if timed_out:
            output += f"\nAction '{label}' timed out after {time.monotonic() - started:.0f} s and was stopped."
        mode = self._interrupted_by.pop(id(run), None)
        if interrupted and mode:
            output += f"\nYour previous action '{label}' was interrupted by {mode}."
        message = cut_output(f"Action output:\n{output.strip()}" if output.strip() else "Action output: (nothing)")
        self.last_output = message
        success = (not (timed_out or interrupted or "error" in run.outcome) and value is not False
                   and getattr(value, "ok", True))
        if not interrupted and self._resume and self._resume[0] == label:
            self._resume = None  # it finished by itself: nothing to resume
        return ActionResult(success, message, interrupted, timed_out)

    def _stop(self, run: _Run, wait: float) -> None:
        run.stop_requested.set()
        try:
            self._interrupt_skill()
        except Exception:
            log.exception("interrupting the skill failed")
        run.thread.join(wait)

    def stop(self, wait: float = 5.0) -> None:
        """Interrupt the running action and wait (up to `wait` s) for it to end."""
        run = self._current
        if run is not None and run.thread.is_alive():
            self._stop(run, wait)

    def cancel_resume(self) -> None:
        self._resume = None

    def resume_pending(self) -> tuple[str, Callable[[], object], float] | None:
        """The action to run again once modes are done, if one was interrupted with resume=True."""
        return self._resume
