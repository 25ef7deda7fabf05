"""Gathered group commit (bulk ingestion): callers that arrive one by one are written as one batch, a failed batch
is written again item by item, and outside the block a lone call is written at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from tests.unit.test_local_index_batch import WAIT_SECONDS, wait_until
from voiceassist.adapters.local.group_commit import GroupCommit


def _submit_one_by_one(group: GroupCommit[str], items: Sequence[str], outcomes: dict[str, str]) -> None:
    """Each item from a thread of its own, started once the previous one is queued."""

    def submit(item: str) -> None:
        try:
            group.submit(item)
            outcomes[item] = "written"
        except ValueError as error:
            outcomes[item] = str(error)

    threads = []
    for number, item in enumerate(items):
        thread = threading.Thread(target=submit, args=(item,))
        thread.start()
        threads.append(thread)
        if number + 1 < len(items):  # the last one completes the group, which is then taken from the queue
            wait_until(lambda count=number + 1: group.queued == count)
    for thread in threads:
        thread.join(WAIT_SECONDS)


def test_group_commit_gathered_writes_callers_arriving_one_by_one_as_one_batch() -> None:
    writes: list[list[str]] = []
    group = GroupCommit(lambda items: writes.append(list(items)))
    outcomes: dict[str, str] = {}

    # Each caller arrives after the previous one is queued, with no write under way to queue behind
    with group.gathered(settle=WAIT_SECONDS, limit=WAIT_SECONDS, everyone=lambda: group.queued == 4):
        _submit_one_by_one(group, ["a", "b", "c", "d"], outcomes)

    assert writes == [["a", "b", "c", "d"]]
    assert outcomes == dict.fromkeys("abcd", "written")


def test_group_commit_gathered_batch_that_fails_is_written_again_item_by_item() -> None:
    writes: list[list[str]] = []

    def write(items: Sequence[str]) -> None:
        writes.append(list(items))
        if "bad" in items:
            raise ValueError("cannot write bad")

    group = GroupCommit(write)
    outcomes: dict[str, str] = {}
    with group.gathered(settle=WAIT_SECONDS, limit=WAIT_SECONDS, everyone=lambda: group.queued == 3):
        _submit_one_by_one(group, ["good", "bad", "also good"], outcomes)

    assert writes == [["good", "bad", "also good"], ["good"], ["bad"], ["also good"]]
    assert outcomes == {"good": "written", "bad": "cannot write bad", "also good": "written"}


def test_group_commit_gathering_waits_no_longer_than_its_settle_time_and_ends_with_the_block() -> None:
    writes: list[list[str]] = []
    group = GroupCommit(lambda items: writes.append(list(items)))

    started = time.monotonic()
    with group.gathered(settle=0.05, limit=10 * WAIT_SECONDS):
        group.submit("alone")  # nobody else comes: written once `settle` passed with no arrival
    group.submit("after")  # outside the block: written at once, as before
    assert time.monotonic() - started < WAIT_SECONDS  # neither waited for the 600 s limit

    assert writes == [["alone"], ["after"]]


def test_group_commits_gathering_at_once_each_counting_the_others_queue_both_write() -> None:
    # Given two group commits (the index's writes and activations) whose gathering counts both queues, and whose
    # runners ask at the same moment, each while holding its own turn
    writes: list[str] = []
    indexing = GroupCommit(lambda items: writes.extend(items))
    activating = GroupCommit(lambda items: writes.extend(items))
    asking = {"indexing": threading.Event(), "activating": threading.Event()}

    def everyone(mine: str, other: str) -> bool:
        asking[mine].set()
        asking[other].wait(WAIT_SECONDS)
        return indexing.queued + activating.queued >= 0  # both queues read, as the index's gathering reads them

    threads = [threading.Thread(target=indexing.submit, args=("chunks",), daemon=True),
               threading.Thread(target=activating.submit, args=("activation",), daemon=True)]
    index_side, activation_side = (lambda: everyone("indexing", "activating")), (
        lambda: everyone("activating", "indexing"))
    with indexing.gathered(settle=WAIT_SECONDS, limit=WAIT_SECONDS, everyone=index_side), \
            activating.gathered(settle=WAIT_SECONDS, limit=WAIT_SECONDS, everyone=activation_side):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT_SECONDS)

    # Then neither waits for the other: both items are written
    assert not any(thread.is_alive() for thread in threads)
    assert sorted(writes) == ["activation", "chunks"]
