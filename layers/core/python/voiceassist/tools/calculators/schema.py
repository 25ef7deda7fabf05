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


def _field_summary(name: str, prop: dict[str, Any]) -> str:
    """"age (years 0-120)", "sex (female|male)", "confusion (bool)": what a model needs to fill a field."""
    number = next((b for b in prop.get("anyOf", [prop]) if b.get("type") in ("number", "integer")), None)
    unit = (prop.get("description") or "").rpartition(",")[2].strip() if "," in (prop.get("description") or "") \
        else ""
    if number is not None and "minimum" in number and "maximum" in number:
        return f"{name} ({unit + ' ' if unit else ''}{number['minimum']:g}-{number['maximum']:g})"
    if prop.get("type") == "boolean":
        return f"{name} (bool)"
    if "enum" in prop:
        return f"{name} ({'|'.join(str(v) for v in prop['enum'])})"
    return name


def compact_listing(specs: dict[str, CalculatorSpec]) -> str:
    """One line per calculator: its fields with unit and range, required ones marked with *."""
    lines = []
    for name in sorted(specs):
        schema, shared = calculator_schema(specs[name])
        required = set(schema.get("required", []))
        fields = []
        for field, prop in schema["properties"].items():
            ref = prop.get("$ref") or next((b.get("$ref") for b in prop.get("anyOf", []) if "$ref" in b), None)
            if ref and ref.rsplit("/", 1)[-1] in shared:
                prop = {**shared[ref.rsplit("/", 1)[-1]], **{k: v for k, v in prop.items() if k != "anyOf"}}
            fields.append(("*" if field in required else "") + _field_summary(field, prop))
        lines.append(f"{name}: {', '.join(fields)}")
    return "\n".join(lines)


def compact_tool_schema(base: dict[str, Any], specs: dict[str, CalculatorSpec]) -> dict[str, Any]:
    """The schema offered to a model (every question carries it): the same fields, units and ranges as a
    listing in `parameters`' description, about a fifth of the full schema's size."""
    schema = {k: v for k, v in base.items() if k != "$defs"}
    properties = dict(schema["properties"])
    properties["calculator"] = {**properties["calculator"], "enum": sorted(specs)}
    properties["parameters"] = {
        "type": "object",
        "description": ("The calculator's inputs by field name (* required; numbers in the unit shown, or "
                        "[value, unit] in another unit; ranges are the plausible ones; an input left out is "
                        "assumed absent or normal, and the result says so):\n" + compact_listing(specs)),
    }
    schema["properties"] = properties
    return schema
