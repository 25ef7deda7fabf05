"""KeyValueState contract: compare-and-set and expiry behave the same on SQLite and on DynamoDB."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from voiceassist.errors import Conflict

if TYPE_CHECKING:
    from tests.contract.conftest import FakeClock, Stores

BREAKER = {"state": "open", "failures": 3, "opened_at": 1740821400.25, "models": ["gpt-4o-mini", "llama"],
           "note": "Zeitüberschreitung — 超时"}


def test_state_get_of_an_absent_key_is_none_at_version_zero(stores: Stores) -> None:
    assert stores.state.get("breaker:openai") == (None, 0)


def test_state_put_then_get_returns_the_value_and_its_version(stores: Stores) -> None:
    assert stores.state.put("breaker:openai", BREAKER, expected_version=0) == 1

    assert stores.state.get("breaker:openai") == (BREAKER, 1)


def test_state_successive_puts_advance_the_version(stores: Stores) -> None:
    stores.state.put("breaker:openai", {"failures": 1}, expected_version=0)

    assert stores.state.put("breaker:openai", {"failures": 2}, expected_version=1) == 2
    assert stores.state.get("breaker:openai") == ({"failures": 2}, 2)


def test_state_put_with_a_stale_version_conflicts_and_keeps_the_value(stores: Stores) -> None:
    stores.state.put("breaker:openai", {"failures": 1}, expected_version=0)
    stores.state.put("breaker:openai", {"failures": 2}, expected_version=1)

    with pytest.raises(Conflict):
        stores.state.put("breaker:openai", {"failures": 99}, expected_version=1)

    assert stores.state.get("breaker:openai") == ({"failures": 2}, 2)


def test_state_creating_an_existing_key_conflicts(stores: Stores) -> None:
    stores.state.put("breaker:openai", {"failures": 1}, expected_version=0)

    with pytest.raises(Conflict):
        stores.state.put("breaker:openai", {"failures": 5}, expected_version=0)


def test_state_put_expecting_a_version_of_an_absent_key_conflicts(stores: Stores) -> None:
    with pytest.raises(Conflict):
        stores.state.put("breaker:openai", {"failures": 1}, expected_version=3)

    assert stores.state.get("breaker:openai") == (None, 0)


def test_state_expired_entry_reads_as_absent_and_can_be_created_again(stores: Stores, clock: FakeClock
                                                                     ) -> None:
    stores.state.put("idem:req-1", {"status": "done"}, expected_version=0, ttl_seconds=60)

    clock.advance(seconds=59)
    assert stores.state.get("idem:req-1") == ({"status": "done"}, 1)

    clock.advance(seconds=1)
    assert stores.state.get("idem:req-1") == (None, 0)
    assert stores.state.put("idem:req-1", {"status": "again"}, expected_version=0, ttl_seconds=60) == 1
    assert stores.state.get("idem:req-1") == ({"status": "again"}, 1)


def test_state_version_held_from_before_expiry_conflicts(stores: Stores, clock: FakeClock) -> None:
    stores.state.put("idem:req-1", {"status": "done"}, expected_version=0, ttl_seconds=60)
    clock.advance(minutes=5)

    with pytest.raises(Conflict):
        stores.state.put("idem:req-1", {"status": "late"}, expected_version=1)


def test_state_entry_without_ttl_never_expires(stores: Stores, clock: FakeClock) -> None:
    stores.state.put("breaker:openai", {"failures": 1}, expected_version=0)

    clock.advance(days=3650)

    assert stores.state.get("breaker:openai") == ({"failures": 1}, 1)


def test_state_put_without_ttl_clears_an_earlier_ttl(stores: Stores, clock: FakeClock) -> None:
    stores.state.put("breaker:openai", {"failures": 1}, expected_version=0, ttl_seconds=60)
    stores.state.put("breaker:openai", {"failures": 2}, expected_version=1)

    clock.advance(hours=1)

    assert stores.state.get("breaker:openai") == ({"failures": 2}, 2)


def test_state_keys_are_independent(stores: Stores) -> None:
    stores.state.put("breaker:openai", {"failures": 1}, expected_version=0)

    assert stores.state.get("breaker:sagemaker") == (None, 0)
    assert stores.state.put("breaker:sagemaker", {"failures": 7}, expected_version=0) == 1
