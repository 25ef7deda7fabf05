"""Group commit: concurrent callers' writes done by one call of a batch writer, as databases batch log writes.

Bulk ingestion runs many pipeline executions at once (voiceassist_local.bulk); their Index and Finalize steps
each write one document to the embedded index. One SQLite transaction per document costs a commit, FTS5's
segment flush and a catch-up of the in-memory copy each time; here a caller that finds a write under way
queues its item, and whoever writes next takes every queued item in one call of `write` (one transaction).
The turns are adapters/turn_taking.py's, as the coalescing embedder's. A failed batch of several items is
written again one item at a time, so each caller sees the outcome its own item would have had alone (and one
bad document never fails another).

Bulk ingestion's executions mostly reach a write one at a time (300 SciFact records: 282 transactions for their
300 index calls), so `gathered()` makes each write first wait a moment for more (TakeTurns' gathering): the
bulk path (voiceassist_local.bulk) writes its documents in groups as the bench's batch build does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from voiceassist.adapters.turn_taking import Gathering, TakeTurns

Item = TypeVar("Item")


@dataclass
class _Request(Generic[Item]):
    item: Item
    finished: bool = False
    error: BaseException | None = None


class GroupCommit(Generic[Item]):
    """`submit(item)` returns once `write` has written a batch holding `item`, or raises what writing it raised."""

    def __init__(self, write: Callable[[Sequence[Item]], None], *, max_items: int = 256) -> None:
        self._write = write
        self._max_items = max_items
        self._turns: TakeTurns[_Request[Item]] = TakeTurns(self._run, self._take)

    def submit(self, item: Item) -> None:
        request = _Request(item)
        self._turns.submit(request)
        if request.error is not None:
            raise request.error

    @contextmanager
    def gathered(self, *, settle: float, limit: float, everyone: Callable[[], bool] | None = None
                 ) -> Iterator[None]:
        """Within the block, a write waits for more items first: until `max_items` are queued, `everyone()` says
        no other caller can come, none arrived for `settle` seconds, or `limit` seconds passed."""
        self._turns.gathering = Gathering(settle=settle, limit=limit, full=self._max_items, everyone=everyone)
        try:
            yield
        finally:
            self._turns.gathering = None

    @property
    def queued(self) -> int:
        """Items waiting for the write under way to finish."""
        return self._turns.queued

    def _take(self, queue: list[_Request[Item]]) -> list[_Request[Item]]:
        batch = queue[: self._max_items]
        del queue[: self._max_items]
        return batch

    def _run(self, batch: list[_Request[Item]]) -> None:
        try:
            self._write([request.item for request in batch])
        except Exception as error:
            if len(batch) == 1:
                batch[0].error = error
            else:
                for number, request in enumerate(batch):  # alone, each item meets only its own failure
                    try:
                        self._write([request.item])
                    except Exception as own:
                        request.error = own
                    except BaseException as stop:
                        for unwritten in batch[number:]:
                            unwritten.error = stop
                        raise
        except BaseException as error:  # Ctrl-C or exit in the writer: every waiting caller sees it
            for request in batch:
                request.error = error
            raise
        finally:
            for request in batch:
                request.finished = True
