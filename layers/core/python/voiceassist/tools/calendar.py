"""Calendar tools over the person's own CalDAV calendar (tools/workspace.py builds it per user).

In the PHI boundary (`requires_phi: true`): a clinician's calendar names patients, so event text may be sent to
it and every result is marked as carrying PHI. Reading is low risk; creating and updating an event need the
person's confirmation (medium risk), deleting one too (high risk). Times are ISO 8601: a time without an offset
is read in `timezone` (an IANA name, default UTC), and events come back in that zone; recurring events are
expanded into their occurrences within the asked range.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from voiceassist.models import RiskLevel, ToolCategory
from voiceassist.ports import CalendarEvent, EventFields
from voiceassist.tools.registry import Tool, ToolEnvironment, ToolOutput, define
from voiceassist.tools.workspace import Workspace

MAX_RANGE = timedelta(days=366)
RATE_LIMIT = 20  # calls per user per minute (the design's limit for the calendar)
TIMEOUT_S = 8.0


class _Zoned(BaseModel):
    model_config = ConfigDict(extra="forbid")

    timezone: str = Field(default="UTC", max_length=64,
                          description="IANA time zone for times without an offset and for the answer")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError("an IANA time zone name such as Europe/Paris or UTC") from exc
        return value

    def aware(self, value: datetime) -> datetime:
        return value if value.tzinfo else value.replace(tzinfo=ZoneInfo(self.timezone))


class EventRange(_Zoned):
    start: datetime = Field(description="ISO 8601 start of the range, e.g. 2026-03-02T00:00:00+01:00")
    end: datetime = Field(description="ISO 8601 end of the range (at most a year after the start)")

    @model_validator(mode="after")
    def _ordered(self) -> EventRange:
        start, end = self.aware(self.start), self.aware(self.end)
        if end <= start or end - start > MAX_RANGE:
            raise ValueError("end must be after start, and within a year of it")
        return self


class NewEvent(_Zoned):
    summary: str = Field(min_length=1, max_length=300, description="The event's title")
    start: datetime = Field(description="ISO 8601 start")
    end: datetime = Field(description="ISO 8601 end, after the start")
    location: str = Field(default="", max_length=300)
    description: str = Field(default="", max_length=4000)

    @model_validator(mode="after")
    def _ordered(self) -> NewEvent:
        if self.aware(self.end) <= self.aware(self.start):
            raise ValueError("end must be after start")
        return self


class EventChanges(_Zoned):
    uid: str = Field(min_length=1, max_length=300, description="The event's uid (from get_calendar_events)")
    summary: str | None = Field(default=None, min_length=1, max_length=300)
    start: datetime | None = None
    end: datetime | None = None
    location: str | None = Field(default=None, max_length=300)
    description: str | None = Field(default=None, max_length=4000)

    @model_validator(mode="after")
    def _something(self) -> EventChanges:
        if all(v is None for v in (self.summary, self.start, self.end, self.location, self.description)):
            raise ValueError("name at least one field to change")
        if self.start and self.end and self.aware(self.end) <= self.aware(self.start):
            raise ValueError("end must be after start")
        return self


class EventId(BaseModel):
    model_config = ConfigDict(extra="forbid")

    uid: str = Field(min_length=1, max_length=300, description="The event's uid (from get_calendar_events)")


def event_json(event: CalendarEvent, zone: str) -> dict[str, Any]:
    return {"uid": event.uid, "summary": event.summary, "start": _iso(event.start, zone),
            "end": _iso(event.end, zone), "location": event.location, "description": event.description,
            "recurrence_id": event.recurrence_id, "recurring": event.recurring}


def _iso(value: Any, zone: str) -> str | None:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=ZoneInfo(zone))).astimezone(
            ZoneInfo(zone)).isoformat()
    if isinstance(value, date):
        return value.isoformat()  # an all-day event
    return None


def _line(event: dict[str, Any]) -> str:
    where = f" at {event['location']}" if event["location"] else ""
    repeat = " (recurring)" if event["recurring"] else ""
    return f"- {event['start']} to {event['end']}: {event['summary']}{where}{repeat} [uid {event['uid']}]"


def calendar_tools(workspace: Workspace) -> list[Tool]:
    def get_events(params: EventRange, env: ToolEnvironment) -> ToolOutput:
        calendar = workspace.calendar(env.user_id)
        found = calendar.events(params.aware(params.start), params.aware(params.end))
        events = [event_json(e, params.timezone) for e in found]
        content = "\n".join(_line(e) for e in events) if events else "No event in that range."
        return ToolOutput(content=content, data={"events": events, "count": len(events)}, carries_phi=True)

    def create_event(params: NewEvent, env: ToolEnvironment) -> ToolOutput:
        fields = EventFields(summary=params.summary, start=params.aware(params.start),
                             end=params.aware(params.end), location=params.location,
                             description=params.description)
        event = event_json(workspace.calendar(env.user_id).create(fields), params.timezone)
        return ToolOutput(content=f"Created: {_line(event)[2:]}", data={"event": event}, carries_phi=True)

    def update_event(params: EventChanges, env: ToolEnvironment) -> ToolOutput:
        fields = EventFields(summary=params.summary, location=params.location, description=params.description,
                             start=params.aware(params.start) if params.start else None,
                             end=params.aware(params.end) if params.end else None)
        event = event_json(workspace.calendar(env.user_id).update(params.uid, fields), params.timezone)
        return ToolOutput(content=f"Updated: {_line(event)[2:]}", data={"event": event}, carries_phi=True)

    def delete_event(params: EventId, env: ToolEnvironment) -> ToolOutput:
        workspace.calendar(env.user_id).delete(params.uid)
        return ToolOutput(content=f"Deleted the event {params.uid}.", data={"deleted": params.uid},
                          carries_phi=True)

    common: dict[str, Any] = {"category": ToolCategory.CALENDAR, "requires_phi": True, "rate_limit": RATE_LIMIT,
                              "timeout_seconds": TIMEOUT_S}
    return [
        define("get_calendar_events", "List the events of the user's own calendar between two ISO 8601 times "
               "(recurring events expanded). In the PHI boundary.", EventRange, get_events, **common),
        define("create_calendar_event", "Create an event in the user's calendar (asks the user to confirm "
               "first).", NewEvent, create_event, requires_confirmation=True, risk_level=RiskLevel.MEDIUM,
               summarize=lambda p: f"add {p.summary!r} to your calendar, {_when(p.start, p.end, p)}", **common),
        define("update_calendar_event", "Change an event of the user's calendar by uid; a recurring event "
               "changes as a whole series (asks the user to confirm first).", EventChanges, update_event,
               requires_confirmation=True, risk_level=RiskLevel.MEDIUM,
               summarize=lambda p: f"change the calendar event {p.uid}: {_changes(p)}", **common),
        define("delete_calendar_event", "Delete an event (a whole recurring series) from the user's calendar by "
               "uid (asks the user to confirm first).", EventId, delete_event, requires_confirmation=True,
               risk_level=RiskLevel.HIGH, summarize=lambda p: f"delete the calendar event {p.uid}", **common),
    ]


def _when(start: datetime, end: datetime, zoned: _Zoned) -> str:
    return f"{zoned.aware(start).isoformat()} to {zoned.aware(end).isoformat()}"


def _changes(params: EventChanges) -> str:
    named = {"title": params.summary, "start": params.start and params.aware(params.start).isoformat(),
             "end": params.end and params.aware(params.end).isoformat(), "location": params.location,
             "description": params.description}
    return ", ".join(f"{key} -> {value!r}" for key, value in named.items() if value is not None)
