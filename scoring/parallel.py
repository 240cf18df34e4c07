"""Statistics in a process forked at the start of a command-line run.

Importing numpy costs more than reading a file. A command-line run that needs numpy forks
first: the child imports numpy, warms it up and draws the bootstrap's resamples once it is told
the number of dialogues (:meth:`ForkedStatistics.prepare`), while the parent reads the files;
it then computes the intervals from the per-dialogue counts the parent sends. The child runs
the very same functions on the same inputs, so the numbers and messages are identical to an
in-process run; where ``fork`` is missing or the child fails, the parent does the work itself.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from scoring.stats import PairedTest

_LENGTH = struct.Struct("!Q")


class ForkedStatistics:
    """A ``scoring.stats``-like object whose calls run in a forked child process."""

    def __init__(self, pid: int, to_child: int, from_child: int) -> None:
        self._pid = pid
        self._to_child = to_child
        self._from_child = from_child
        self._broken = False

    @classmethod
    def start(cls, after: Callable[[int | None], object] | None = None) -> ForkedStatistics | None:
        """Fork the child, or None if unsupported. ``after`` runs in the child once the parent
        has closed its end, with the number of dialogues of the last interval asked for (work
        nobody waits for, such as filling a cache)."""
        if not hasattr(os, "fork"):
            return None
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (requests_read, requests_write, replies_read, replies_write):
                os.close(fd)
            return None
        if pid == 0:  # the child: never returns
            os.close(requests_write)
            os.close(replies_read)
            status = 0
            try:
                _detach_standard_streams()
                from scoring import stats  # the slow import, beside the parent's reading

                # The first call of numpy's functions costs as much again: make it now.
                stats.bootstrap_ci({"warm": ([0, 1], [1, 1])}, 10, 0, 0.95)
                dialogues = _serve(requests_read, replies_write)
                if after is not None:
                    after(dialogues)
            except BaseException:
                status = 1
            finally:
                # Leave without running the parent's exit handlers or flushing its buffers.
                os._exit(status)
        os.close(requests_read)
        os.close(replies_write)
        return cls(pid, requests_write, replies_read)

    def prepare(self, n: int, n_boot: int, seed: int) -> None:
        """Have the child draw the resamples of ``n`` dialogues now (no answer is awaited), so
        that the intervals asked for later only sum them."""
        if not self._broken:
            try:
                _send(self._to_child, orjson.dumps(["prepare", [n, n_boot, seed]]))
            except OSError:
                self._broken = True

    def bootstrap_ci(
        self,
        pairs: dict[str, tuple[Sequence[float], Sequence[float]]],
        n_boot: int,
        seed: int,
        level: float,
    ) -> dict[str, tuple[float, float]]:
        reply = self._call("bootstrap_ci", [pairs, n_boot, seed, level])
        if reply is None:
            from scoring import stats

            return stats.bootstrap_ci(pairs, n_boot, seed, level)
        return {name: _floats(interval) for name, interval in reply.items()}

    def paired_test(
        self,
        metric: str,
        numerator_a: Sequence[float],
        numerator_b: Sequence[float],
        denominator: Sequence[float],
        n_boot: int,
        seed: int,
        level: float,
    ) -> PairedTest:
        from scoring.stats import PairedTest

        args = [metric, numerator_a, numerator_b, denominator, n_boot, seed, level]
        reply = self._call("paired_test", args)
        if reply is None:
            from scoring import stats

            return stats.paired_test(*args)  # type: ignore[arg-type]
        reply["ci"] = _floats(reply["ci"])
        return PairedTest(**reply)

    def close(self, wait: bool = True) -> None:
        """End the child (it exits when its request pipe closes) and, with ``wait``, reap it.

        A process about to exit need not wait: the orphaned child is reaped by the system, and
        holds none of the parent's output streams (see :func:`_detach_standard_streams`)."""
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        if wait:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)

    def _call(self, function: str, args: list[Any]) -> Any:
        """The child's answer, or None (compute locally) if the child cannot give one."""
        if self._broken:
            return None
        try:
            _send(self._to_child, orjson.dumps([function, args]))
            status, payload = orjson.loads(_receive(self._from_child))
        except (OSError, EOFError, orjson.JSONDecodeError):
            self._broken = True
            return None
        if status != "ok":
            # The child's error is re-raised by the same call made locally.
            return None
        return payload


def _detach_standard_streams() -> None:
    """Point the child's standard streams at the null device: it never prints, and a reader of
    the parent's output (a pipe) then sees its end as soon as the parent exits."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _serve(requests: int, replies: int) -> int | None:
    """Answer requests until the parent closes its end; returns the number of dialogues of
    the last interval asked for."""
    from scoring import stats  # the slow import, overlapping the parent's reading

    dialogues = None
    while True:
        try:
            function, args = orjson.loads(_receive(requests))
        except EOFError:
            return dialogues
        if function == "prepare":
            with contextlib.suppress(Exception):
                n, n_boot, seed = args
                stats.bootstrap_ci({"draw": ([0] * n, [1] * n)}, n_boot, seed, 0.95)
            continue
        try:
            if function == "bootstrap_ci":
                pairs, *rest = args
                dialogues = len(next(iter(pairs.values()))[0]) if pairs else None
                result: Any = stats.bootstrap_ci(
                    {name: (num, den) for name, (num, den) in pairs.items()}, *rest
                )
            elif function == "paired_test":
                result = stats.paired_test(*args)
            else:
                raise ValueError(function)
            _send(replies, orjson.dumps(["ok", result]))
        except Exception as error:
            _send(replies, orjson.dumps(["error", str(error)]))


def _floats(values: Sequence[float | None]) -> tuple[float, float]:
    # JSON has no NaN: an undefined interval bound travels as null.
    low, high = (float("nan") if v is None else float(v) for v in values)
    return (low, high)


def _send(fd: int, payload: bytes) -> None:
    data = _LENGTH.pack(len(payload)) + payload
    while data:
        written = os.write(fd, data)
        data = data[written:]


def _receive(fd: int) -> bytes:
    header = _read_exactly(fd, _LENGTH.size)
    return _read_exactly(fd, _LENGTH.unpack(header)[0])


def _read_exactly(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
