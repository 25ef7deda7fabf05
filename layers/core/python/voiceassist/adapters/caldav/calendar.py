"""One person's CalDAV calendar through the `caldav` library: searches expanded by the server or the client
(recurring events become their occurrences), events written as iCalendar with UTC times.

Errors: a missing event is NotFound; anything the server or the network does wrong is WorkspaceUnavailable
in our own words (a server's error text may quote an event).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import Any, TypeVar

from voiceassist.errors import NotFound
from voiceassist.models import new_id
from voiceassist.ports import CalendarEvent, EventFields
from voiceassist.tools.workspace import DavAccount, WorkspaceUnavailable

T = TypeVar("T")
PRODID = "-//VoiceAssist//workspace tools//EN"


class CalDavCalendar:
    def __init__(self, account: DavAccount, *, timeout_s: float = 8.0,
                 client_factory: Callable[..., Any] | None = None) -> None:
        factory = client_factory or _dav_client
        password = account.password.get_secret_value() if account.password else None
        options: dict[str, Any] = {}
        if account.username and password:
            # Basic credentials on the first request: caldav would otherwise send each call's first request
            # without them and retry after the 401, a round trip more per call (and Radicale delays every
            # 401 by a second: bench/workspace_tools.py measured 1.1 s per read before, docs/benchmarks.md).
            from requests.auth import HTTPBasicAuth

            options["auth"] = HTTPBasicAuth(account.username, password)
        self._client = factory(url=account.url, username=account.username, password=password,
                               timeout=max(1, round(timeout_s)), **options)
        self._calendar = self._client.calendar(url=account.url)

    def events(self, start: datetime, end: datetime) -> list[CalendarEvent]:
        with _server_errors("read the calendar"):
            found = self._calendar.search(start=start, end=end, event=True, expand=True)
            events = [_event(item.icalendar_component) for item in found]
        return sorted(events, key=lambda e: _sort_key(e.start))

    def create(self, fields: EventFields) -> CalendarEvent:
        from icalendar import Calendar as ICalendar
        from icalendar import Event as IEvent

        component = IEvent()
        component.add("uid", f"{new_id('evt')}@voiceassist")
        component.add("dtstamp", datetime.now(UTC))
        _apply(component, fields)
        document = ICalendar()
        document.add("prodid", PRODID)
        document.add("version", "2.0")
        document.add_component(component)
        with _server_errors("create the event"):
            saved = self._calendar.save_event(document.to_ical().decode())
            return _event(saved.icalendar_component)

    def update(self, uid: str, fields: EventFields) -> CalendarEvent:
        with _server_errors("update the event"):
            resource = self._find(uid)
            component = resource.icalendar_component
            _apply(component, fields)
            resource.save()
            return _event(component)

    def delete(self, uid: str) -> None:
        with _server_errors("delete the event"):
            self._find(uid).delete()

    def _find(self, uid: str) -> Any:
        from caldav.lib.error import NotFoundError

        try:
            return self._calendar.event_by_uid(uid)
        except NotFoundError as exc:
            raise NotFound(f"no event with uid {uid!r} in this calendar") from exc


def _dav_client(**options: Any) -> Any:
    import caldav

    client: Any = caldav.DAVClient
    return client(**options)


@contextmanager
def _server_errors(doing: str) -> Iterator[None]:
    try:
        yield
    except NotFound:
        raise
    except Exception as exc:  # noqa: BLE001 - the server's failure, in our words (its text may quote an event)
        raise WorkspaceUnavailable(f"could not {doing}: the calendar server failed or is unreachable "
                                   f"({type(exc).__name__})") from exc


def _apply(component: Any, fields: EventFields) -> None:
    values = {"summary": fields.summary, "location": fields.location, "description": fields.description,
              "dtstart": _utc(fields.start), "dtend": _utc(fields.end)}
    for name, value in values.items():
        if value is None:
            continue
        if name in component:
            del component[name]
        if value != "":
            component.add(name, value)


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


def _event(component: Any) -> CalendarEvent:
    recurrence = component.get("recurrence-id")
    start = component.decoded("dtstart") if "dtstart" in component else None
    end = component.decoded("dtend") if "dtend" in component else None
    if end is None and start is not None and "duration" in component:
        end = start + component.decoded("duration")
    return CalendarEvent(uid=str(component.get("uid", "")), summary=str(component.get("summary", "")),
                         start=start, end=end, location=str(component.get("location", "")),
                         description=str(component.get("description", "")),
                         recurrence_id=None if recurrence is None else _iso(recurrence.dt),
                         recurring=recurrence is not None or "rrule" in component)


def _iso(value: date | datetime) -> str:
    return value.isoformat()


def _sort_key(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return datetime.min.replace(tzinfo=UTC)
