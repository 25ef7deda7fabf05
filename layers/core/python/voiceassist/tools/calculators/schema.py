"""The published input schema of every calculator: its fields, units, accepted alternative units and ranges.

calculate_medical_score takes `{"calculator": name, "parameters": {...}}`; its JSON Schema lists each
calculator's own params schema under `$defs` (by calculator name) and `parameters` is any one of them, so a
client or a model reads the field names (`bun_mg_dl`, not `bun`), the unit each name is in, the units it may
send instead as `[value, unit]`, and the plausible range, instead of guessing. Composition sits inside
`parameters`, never at the schema's top level (some model APIs refuse a top-level anyOf).
"""

from __future__ import annotations

from typing import Any

from voiceassist.tools.calculator_units import FIELD_QUANTITY
from voiceassist.tools.calculators.base import CalculatorSpec
from voiceassist.tools.calculators.plausible_ranges import PHYSIOLOGIC
from voiceassist.tools.calculators.units import accepted_units


def quantity_schema(quantity: str) -> dict[str, Any]:
    """`[value, unit]` in one of the quantity's accepted units (or [5, "ft", 10, "in"]), converted on arrival."""
    return {"type": "array", "minItems": 2, "maxItems": 4, "items": {"type": ["number", "string"]},
            "description": f"[value, unit], unit one of: {', '.join(accepted_units(quantity))}"}


def _drop_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {key: _drop_titles(value) for key, value in schema.items() if key != "title"}
    if isinstance(schema, list):
        return [_drop_titles(item) for item in schema]
    return schema


def _bounded(number: dict[str, Any], field: str) -> dict[str, Any]:
    """A number schema bounded by the tighter of its params model's bounds and the field's physiologic range."""
    plausible = PHYSIOLOGIC.get(field)
    if plausible is None:
        return number
    low = max(plausible.low, number.get("minimum", number.get("exclusiveMinimum", plausible.low)))
    high = min(plausible.high, number.get("maximum", number.get("exclusiveMaximum", plausible.high)))
    kept = {k: v for k, v in number.items() if k not in ("exclusiveMinimum", "exclusiveMaximum")}
    return kept | {"minimum": low, "maximum": high}


def _publish(prop: dict[str, Any], field: str) -> dict[str, Any]:
    """The field's schema with its range, and `[value, unit]` allowed where the field takes other units."""
    if prop.get("type") in ("number", "integer"):
        number, rest = _bounded({k: v for k, v in prop.items() if k in _NUMBER}, field), {
            k: v for k, v in prop.items() if k not in _NUMBER}
    elif "anyOf" in prop:  # an optional number: anyOf [number, null]
        branches = [_bounded(b, field) if b.get("type") in ("number", "integer") else b for b in prop["anyOf"]]
        return prop | {"anyOf": branches}
    else:
        return prop
    quantity = FIELD_QUANTITY.get(field)
    if quantity is None:
        return rest | number
    return rest | {"anyOf": [number, {"$ref": f"#/$defs/{quantity}_with_unit"}]}


_NUMBER = ("type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def calculator_schema(spec: CalculatorSpec) -> tuple[dict[str, Any], dict[str, Any]]:
    """The calculator's params schema (titles dropped, ranges published) and the shared `$defs` it refers to."""
    schema = _drop_titles(spec.params.model_json_schema())
    shared = schema.pop("$defs", {})
    schema["properties"] = {name: _publish(prop, name) for name, prop in schema.get("properties", {}).items()}
    schema["description"] = f"Inputs of {spec.name} ({spec.title}): {spec.description}"
    return schema, shared


def calculate_tool_schema(base: dict[str, Any], specs: dict[str, CalculatorSpec]) -> dict[str, Any]:
    """`base` (the tool's own schema) with `calculator` an enum and `parameters` one of the calculators' schemas."""
    schema = dict(base)
    defs: dict[str, Any] = dict(schema.get("$defs", {}))
    defs |= {f"{quantity}_with_unit": quantity_schema(quantity) for quantity in sorted(set(FIELD_QUANTITY.values()))}
    branches = []
    for name in sorted(specs):
        own, shared = calculator_schema(specs[name])
        defs |= shared
        defs[name] = own
        branches.append({"$ref": f"#/$defs/{name}"})
    properties = dict(schema["properties"])
    properties["calculator"] = {**properties["calculator"], "enum": sorted(specs)}
    properties["parameters"] = {**properties["parameters"], "anyOf": branches}
    properties["parameters"].pop("additionalProperties", None)
    schema["properties"] = properties
    schema["$defs"] = defs
    return schema
