"""Reading MedCalc-Bench `Relevant Entities`: names matched loosely, numbers as [value, unit], text options.

Entity names vary in case, punctuation and subscripts ('O₂ saturation percentage' / 'O2 saturation percentage'),
so lookups compare names with everything but letters and digits removed.
"""

from __future__ import annotations

import ast
import datetime as dt
import unicodedata
from collections.abc import Mapping
from typing import Any

from voiceassist.errors import InvalidInput
from voiceassist.tools.calculators.units import convert


def entity_key(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).lower()
    return "".join(character for character in text if character.isalnum())


def parse_entities(raw: str | Mapping[str, Any]) -> dict[str, Any]:
    """The benchmark's Python-literal dict (or an already parsed mapping)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError) as error:
        raise InvalidInput(f"relevant_entities: not a Python/JSON literal dict ({error})") from error
    if not isinstance(value, dict):
        raise InvalidInput("relevant_entities: must be a dict of entity name to value")
    return value


class Entities:
    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = dict(raw)
        self._by_key = {entity_key(name): value for name, value in raw.items()}

    def get(self, *names: str) -> Any:
        for name in names:
            key = entity_key(name)
            if key in self._by_key:
                return self._by_key[key]
        return None

    def has(self, *names: str) -> bool:
        return self.get(*names) is not None

    def keys_starting(self, prefix: str) -> list[str]:
        key = entity_key(prefix)
        return [name for name in self.raw if entity_key(name).startswith(key)]

    def flag(self, *names: str) -> bool:
        """A boolean criterion; a missing one counts as absent."""
        return any(_truthy(self.get(name)) for name in names)

    def number(self, *names: str, quantity: str | None = None) -> float | None:
        value = self.get(*names)
        if value is None:
            return None
        return to_number(value, quantity, field=names[0])

    def text(self, *names: str) -> str | None:
        value = self.get(*names)
        if value is None:
            return None
        if isinstance(value, list | tuple):
            value = value[0]
        return str(value).strip().lower()


def _truthy(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        return value.strip().lower() in {"true", "yes", "present", "1", "y"}
    if isinstance(value, list | tuple) and value:
        return _truthy(value[0])
    return False


def to_number(value: Any, quantity: str | None, *, field: str) -> float:
    """[value, unit] (or [v1, u1, v2, u2] such as 5 ft 10 in) in the quantity's canonical unit; bare numbers as is."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError as error:
            raise InvalidInput(f"{field}: expected a number, got text") from error
    if isinstance(value, list | tuple):
        if len(value) >= 2 and len(value) % 2 == 0 and all(isinstance(unit, str) for unit in value[1::2]):
            pairs = zip(value[0::2], value[1::2], strict=True)
            if quantity is None:
                return float(sum(float(amount) for amount, _ in pairs))
            return sum(convert(float(amount), unit, quantity, field=field) for amount, unit in pairs)
        if len(value) == 1:
            return to_number(value[0], quantity, field=field)
    raise InvalidInput(f"{field}: expected a number or [value, unit]")


def parse_date(value: Any, *, field: str) -> dt.date:
    """MM/DD/YYYY as the benchmark writes dates; ISO dates too."""
    text = str(value[0] if isinstance(value, list | tuple) else value).strip()
    for pattern in ("%m/%d/%Y", "%Y-%m-%d", "%m/%d/%y"):
        try:
            return dt.datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    raise InvalidInput(f"{field}: expected a date as MM/DD/YYYY or YYYY-MM-DD")


def option(text: str | None, choices: list[tuple[tuple[str, ...], str]], default: str) -> str:
    """The first choice one of whose keywords occurs in `text` (keywords are checked in the order given)."""
    if text is None:
        return default
    for keywords, choice in choices:
        if any(keyword in text for keyword in keywords):
            return choice
    return default


BP = ("Systolic Blood Pressure", "Diastolic Blood Pressure")
HEART_RATE = "Heart Rate or Pulse"


def sex(e: Entities) -> str | None:
    text = e.text("sex", "gender")
    if text is None:
        return None
    return "female" if text.startswith(("f", "w")) else "male"


def age(e: Entities) -> float | None:
    return e.number("age", quantity="age")


def weight(e: Entities) -> float | None:
    return e.number("weight", "body weight", quantity="weight")


def height(e: Entities) -> float | None:
    return e.number("height", quantity="height")


def creatinine(e: Entities) -> float | None:
    return e.number("creatinine", "serum creatinine", "Pre-operative creatinine", quantity="creatinine")


def sodium(e: Entities) -> float | None:
    return e.number("Sodium", "serum sodium", quantity="electrolyte")


def glucose(e: Entities) -> float | None:
    return e.number("Glucose", quantity="glucose")


def bun(e: Entities) -> float | None:
    return e.number("Blood Urea Nitrogen (BUN)", "BUN", "Blood urea nitrogen", quantity="bun")


def albumin(e: Entities) -> float | None:
    return e.number("Albumin", quantity="albumin")


def platelets_per_nl(per_ul: float) -> float:
    """Per-µL counts / 1000; a count already in thousands (impossible as a per-µL count) is kept."""
    return per_ul if per_ul < 2000 else per_ul / 1000
