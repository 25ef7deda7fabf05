"""The calendar tools through the executor against a real CalDAV server (Radicale, started here)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.support.dav_servers import PASSWORD, USER, DavServer, free_port, make_calendar, radicale
from tests.support.workspace_executor import DOCTOR, Harness
from voiceassist.adapters.caldav.calendar import CalDavCalendar
from voiceassist.errors import InvalidInput
from voiceassist.tools.calendar import calendar_tools
from voiceassist.tools.executor import Caller
from voiceassist.tools.workspace import DavAccount, Workspace, WorkspaceAccount

STANDUP = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//tests//EN
BEGIN:VEVENT
UID:standup-1
DTSTART;TZID=Europe/Paris:20260302T090000
DTEND;TZID=Europe/Paris:20260302T091500
RRULE:FREQ=DAILY;COUNT=5
SUMMARY:Ward round
LOCATION:Ward 3
END:VEVENT
END:VCALENDAR
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DavServer]:
    with radicale(tmp_path_factory.mktemp("radicale")) as running:
        yield running


@pytest.fixture
def calendar_url(server: DavServer) -> str:
    return make_calendar(server, cal_id=f"cal-{uuid.uuid4().hex[:12]}")


def _workspace(url: str, users: tuple[str, ...] = (USER,)) -> Workspace:
    account = WorkspaceAccount(calendar=DavAccount(url=url, username=USER, password=SecretStr(PASSWORD)))

    def files(_account: DavAccount) -> object:
        raise AssertionError("no file tool in these tests")

    return Workspace(lambda user: account if user in users else None,
                     calendar=lambda a: CalDavCalendar(a, timeout_s=5), files=files)  # type: ignore[arg-type]


@pytest.fixture
def harness(tmp_path: Path, calendar_url: str) -> Harness:
    CalDavCalendar(DavAccount(url=calendar_url, username=USER, password=SecretStr(PASSWORD)))._calendar.save_event(
        STANDUP)
    return Harness(tmp_path, calendar_tools(_workspace(calendar_url)))


def test_recurring_events_are_expanded_within_the_range_in_the_asked_time_zone(harness: Harness) -> None:
    result = harness.call("get_calendar_events", start="2026-03-03T00:00:00", end="2026-03-05T00:00:00",
                          timezone="Europe/Paris")

    assert result.status == 200, result.content
    events = result.data["events"]
    assert [e["start"] for e in events] == ["2026-03-03T09:00:00+01:00", "2026-03-04T09:00:00+01:00"]
    assert {e["uid"] for e in events} == {"standup-1"} and all(e["recurring"] for e in events)
    assert events[0]["end"] == "2026-03-03T09:15:00+01:00"
    assert "Ward round at Ward 3 (recurring)" in result.content
    assert result.carries_phi  # a calendar's content is in-boundary data, whatever was asked


def test_times_with_an_offset_are_honoured_and_answered_in_utc_by_default(harness: Harness) -> None:
    result = harness.call("get_calendar_events", start="2026-03-06T08:30:00+01:00",
                          end="2026-03-06T08:45:00+01:00")  # before the last occurrence (09:00 Paris)

    assert result.status == 200 and result.data["count"] == 0

    result = harness.call("get_calendar_events", start="2026-03-06T07:00:00Z", end="2026-03-06T09:00:00Z")

    assert [e["start"] for e in result.data["events"]] == ["2026-03-06T08:00:00+00:00"]


def test_creating_an_event_waits_for_confirmation_then_writes_it(harness: Harness) -> None:
    proposed = harness.call("create_calendar_event", summary="Clinic with John Smith",
                            start="2026-03-10T14:00:00", end="2026-03-10T14:30:00", timezone="America/New_York")

    assert proposed.status == 202 and proposed.pending_action is not None
    assert "Clinic with John Smith" in proposed.pending_action.summary
    assert harness.call("get_calendar_events", start="2026-03-10T00:00:00Z",
                        end="2026-03-11T00:00:00Z").data["count"] == 0  # nothing written before confirming

    done = harness.executor.confirm(proposed.pending_action.action_id, DOCTOR)

    assert done.status == 200, done.content
    assert done.carries_phi  # the PHI detector flagged "John Smith": the in-boundary tool took it, marked
    listed = harness.call("get_calendar_events", start="2026-03-10T00:00:00Z", end="2026-03-11T00:00:00Z",
                          timezone="America/New_York").data["events"]
    assert [(e["summary"], e["start"]) for e in listed] == [("Clinic with John Smith", "2026-03-10T14:00:00-04:00")]


def test_update_and_delete_run_only_once_confirmed(harness: Harness) -> None:
    updated = harness.confirmed("update_calendar_event", uid="standup-1", summary="Ward round (moved)",
                                location="")

    assert updated.status == 200, updated.content
    assert updated.data["event"]["summary"] == "Ward round (moved)" and updated.data["event"]["location"] == ""

    cancelled = harness.call("delete_calendar_event", uid="standup-1")
    assert cancelled.pending_action is not None
    harness.executor.cancel(cancelled.pending_action.action_id, DOCTOR)
    assert harness.call("get_calendar_events", start="2026-03-02T00:00:00Z",
                        end="2026-03-03T00:00:00Z").data["count"] == 1

    deleted = harness.confirmed("delete_calendar_event", uid="standup-1")

    assert deleted.status == 200
    assert harness.call("get_calendar_events", start="2026-03-01T00:00:00Z",
                        end="2026-03-09T00:00:00Z").data["count"] == 0
    again = harness.confirmed("delete_calendar_event", uid="standup-1")
    assert (again.status, again.error) == (404, "not_found")


def test_a_pending_calendar_action_expires(harness: Harness) -> None:
    from voiceassist.tools.errors import ActionExpired

    proposed = harness.call("delete_calendar_event", uid="standup-1")
    assert proposed.pending_action is not None
    harness.clock.advance(minutes=11)

    with pytest.raises(ActionExpired):
        harness.executor.confirm(proposed.pending_action.action_id, DOCTOR)
    assert harness.call("get_calendar_events", start="2026-03-02T00:00:00Z",
                        end="2026-03-03T00:00:00Z").data["count"] == 1


@pytest.mark.parametrize(("arguments", "named"), [
    ({"start": "2026-03-05T00:00:00Z", "end": "2026-03-04T00:00:00Z"}, "end must be after start"),
    ({"start": "2026-03-01T00:00:00Z", "end": "2027-06-01T00:00:00Z"}, "within a year"),
    ({"start": "2026-03-01T00:00:00", "end": "2026-03-02T00:00:00", "timezone": "Mars/Olympus"}, "timezone"),
    ({"start": "next tuesday", "end": "2026-03-02T00:00:00Z"}, "start"),
])
def test_bad_times_are_a_400_naming_the_problem(harness: Harness, arguments: dict[str, str], named: str) -> None:
    result = harness.call("get_calendar_events", **arguments)

    assert (result.status, result.error) == (400, "invalid_input")
    assert named in result.content


def test_a_user_without_a_calendar_is_told_it_is_not_configured(harness: Harness) -> None:
    result = harness.call("get_calendar_events", Caller(user_id="someone-else"), start="2026-03-01T00:00:00Z",
                          end="2026-03-02T00:00:00Z")

    assert (result.status, result.error) == (503, "not_configured")
    assert "no calendar is configured" in result.content


def test_a_calendar_server_that_is_down_is_a_clear_tool_error(tmp_path: Path) -> None:
    harness = Harness(tmp_path, calendar_tools(_workspace(f"http://127.0.0.1:{free_port()}/doc/work/")))

    read = harness.call("get_calendar_events", start="2026-03-01T00:00:00Z", end="2026-03-02T00:00:00Z")
    write = harness.confirmed("delete_calendar_event", uid="standup-1")

    for result in (read, write):
        assert (result.status, result.error) == (502, "workspace_unavailable")
        assert "calendar server failed or is unreachable" in result.content


def test_wrong_credentials_are_a_tool_error_not_a_crash(tmp_path: Path, calendar_url: str) -> None:
    account = WorkspaceAccount(calendar=DavAccount(url=calendar_url, username=USER, password=SecretStr("wrong")))
    workspace = Workspace(lambda _user: account, calendar=lambda a: CalDavCalendar(a, timeout_s=5),
                          files=lambda a: (_ for _ in ()).throw(InvalidInput("unused")))
    harness = Harness(tmp_path, calendar_tools(workspace))

    result = harness.call("get_calendar_events", start="2026-03-01T00:00:00Z", end="2026-03-02T00:00:00Z")

    assert (result.status, result.error) == (502, "workspace_unavailable")


def test_every_calendar_call_is_audited_with_redacted_arguments(harness: Harness) -> None:
    harness.call("create_calendar_event", summary="See John Smith", start="2026-03-10T14:00:00Z",
                 end="2026-03-10T15:00:00Z")

    [record] = harness.audit.list(user_id=USER)
    assert (record.tool, record.tool_status, record.phi_detected) == ("create_calendar_event", 202, True)
    assert "John Smith" not in record.query_redacted and "<PERSON>" in record.query_redacted


def test_phi_in_an_update_goes_to_the_in_boundary_calendar_marked_and_redacted_in_the_audit(
        harness: Harness) -> None:
    done = harness.confirmed("update_calendar_event", uid="standup-1",
                             description="Follow-up for John Smith, MRN 123456")

    assert done.status == 200 and done.carries_phi
    assert done.data["event"]["description"] == "Follow-up for John Smith, MRN 123456"
    records = harness.audit.list(user_id=USER)
    assert sorted(r.tool_status or 0 for r in records) == [200, 202]
    assert all(r.phi_detected and "John Smith" not in r.query_redacted and "123456" not in r.query_redacted
               for r in records)


def test_a_detector_failure_on_a_calendar_argument_counts_as_phi(harness: Harness) -> None:
    proposed = harness.call("create_calendar_event", summary="crash course", start="2026-03-10T14:00:00Z",
                            end="2026-03-10T15:00:00Z")  # the test detector raises on "crash"

    assert proposed.status == 202 and proposed.carries_phi
    [record] = harness.audit.list(user_id=USER)
    assert record.phi_detected and "crash" not in record.query_redacted


def test_an_all_day_event_comes_back_as_dates_among_timed_ones(harness: Harness, calendar_url: str) -> None:
    raw = CalDavCalendar(DavAccount(url=calendar_url, username=USER, password=SecretStr(PASSWORD)))._calendar
    raw.save_event(STANDUP.replace("standup-1", "conference").replace("RRULE:FREQ=DAILY;COUNT=5\n", "")
                   .replace("DTSTART;TZID=Europe/Paris:20260302T090000", "DTSTART;VALUE=DATE:20260304")
                   .replace("DTEND;TZID=Europe/Paris:20260302T091500", "DTEND;VALUE=DATE:20260305")
                   .replace("Ward round", "Conference"))

    result = harness.call("get_calendar_events", start="2026-03-04", end="2026-03-05", timezone="Europe/Paris")

    assert result.status == 200, result.content
    assert [(e["summary"], e["start"], e["end"]) for e in result.data["events"]] == [
        ("Conference", "2026-03-04", "2026-03-05"),
        ("Ward round", "2026-03-04T09:00:00+01:00", "2026-03-04T09:15:00+01:00")]
