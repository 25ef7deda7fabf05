"""Generated PHI evaluation sets from other generators than the development set (docs/phi.md, "Measured").

    .venv/bin/python -m voiceassist_local.evaluation.phi_sets --out build/phi-sets [--seed 18]

writes, per part (`dev`, tuned on, and `holdout`, never tuned on):
- `faker_notes.<part>.json`: clinical notes filled by Faker in several locales (positives);
- `mimesis_notes.<part>.json`: a different voice filled by mimesis (positives);
- `clinician_queries.<part>.json`: terse clinician questions with lower-case, all-caps, hyphenated and lone rare
  names and bare record numbers (positives);
- `hard_negatives.<part>.jsonl`: clinical questions without PHI full of ages, years, eponyms, drugs, genes,
  doses, scores and trial identifiers (negatives).

A template, a locale and every list of filler words falls on one side only (by a stable hash), so the held-out
part has templates, locales and eponyms/drugs the development part never shows. Faker and mimesis are
development dependencies: nothing at run time imports this module.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import string
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import regex as re

from voiceassist_local.evaluation import phi_templates as templates

PARTS = ("dev", "holdout")
HOLDOUT_FRACTION = 0.3
_FIELD = re.compile(r"\{(\w+)(?::(plain))?\}")
GOLD_TYPES = {
    "name": "PERSON", "surname": "PERSON", "name_lower": "PERSON", "name_caps": "PERSON",
    "name_hyphen": "PERSON", "mrn": "MEDICAL_RECORD_NUMBER", "bare_id": "MEDICAL_RECORD_NUMBER",
    "account": "ACCOUNT_NUMBER", "plan": "HEALTH_PLAN_ID", "device": "DEVICE_ID", "dob": "DATE_OF_BIRTH",
    "age90": "AGE_OVER_89", "street": "STREET_ADDRESS", "zip": "ZIP_CODE", "email": "EMAIL_ADDRESS",
    "url": "URL", "phone": "PHONE_NUMBER", "ssn": "US_SSN", "card": "CREDIT_CARD",
}
FAKER_LOCALES = {"dev": ["en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "en_AU"],
                 "holdout": ["en_US", "en_CA", "en_IE", "pt_PT", "da_DK", "sv_SE", "pl_PL", "en_NZ"]}
MIMESIS_LOCALES = {"dev": ["en", "en-gb", "de", "fr", "es", "nl"],
                   "holdout": ["en", "en-au", "en-ca", "it", "pt", "sv", "pl"]}
Values = dict[str, Callable[[], str]]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]


def part_of(key: str, salt: str = "phi-sets") -> str:
    digest = hashlib.sha256(f"{salt}:{key}".encode()).digest()
    return "holdout" if int.from_bytes(digest[:4], "big") / 2**32 < HOLDOUT_FRACTION else "dev"


def fill(template: str, values: Values) -> tuple[str, list[dict[str, Any]]]:
    """The filled text and its gold spans (one per field that has a PHI type)."""
    pieces: list[str] = []
    spans: list[dict[str, Any]] = []
    cursor = length = 0
    for match in _FIELD.finditer(template):
        literal = template[cursor:match.start()]
        pieces.append(literal)
        length += len(literal)
        value = values[match.group(1)]()
        if not match.group(2) and match.group(1) in GOLD_TYPES:
            spans.append({"entity_type": GOLD_TYPES[match.group(1)], "entity_value": value,
                          "start_position": length, "end_position": length + len(value)})
        pieces.append(value)
        length += len(value)
        cursor = match.end()
    pieces.append(template[cursor:])
    return "".join(pieces), spans


def _digits(rng: random.Random, count: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(count))


def _upper(rng: random.Random, count: int) -> str:
    return "".join(rng.choice(string.ascii_uppercase) for _ in range(count))


def identifier_values(rng: random.Random) -> Values:
    """Record, plan, account and device numbers, dates of birth and old ages in many written forms."""
    def mrn() -> str:
        return rng.choice([_digits(rng, rng.randint(6, 10)), f"{_upper(rng, 1)}{_digits(rng, 7)}",
                           f"{_digits(rng, 3)}-{_digits(rng, 3)}-{_digits(rng, 2)}",
                           f"{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 3)}", f"MR{_digits(rng, 8)}"])

    def bare_id() -> str:
        return rng.choice([_digits(rng, rng.randint(6, 10)), f"{_digits(rng, 4)}-{_digits(rng, 4)}",
                           f"{_upper(rng, 2)}{_digits(rng, 6)}"])

    def dob() -> str:
        year, month, day = rng.randint(1925, 2020), rng.randint(1, 12), rng.randint(1, 28)
        months = _MONTHS
        return rng.choice([f"{month:02d}/{day:02d}/{year}", f"{day}.{month}.{year}",
                           f"{year}-{month:02d}-{day:02d}",
                           f"{months[month - 1]} {day}, {year}", f"{day} {months[month - 1][:3]} {year}",
                           f"{month}/{day}/{year % 100:02d}", f"{day}-{months[month - 1][:3]}-{year}"])

    def age90() -> str:
        age = rng.randint(90, 104)
        return rng.choice([f"{age}-year-old", f"{age} y/o", f"aged {age}", f"{age} years old", f"{age}yo",
                           f"{age} yrs"])

    return {
        "mrn": mrn, "bare_id": bare_id, "dob": dob, "age90": age90,
        "account": lambda: rng.choice([_digits(rng, 10), f"AC-{_digits(rng, 7)}",
                                       f"{_digits(rng, 4)}-{_digits(rng, 6)}"]),
        "plan": lambda: rng.choice([f"{_upper(rng, 2)}-{_digits(rng, 8)}", f"{_upper(rng, 3)}{_digits(rng, 9)}",
                                    f"W{_digits(rng, 9)}"]),
        "device": lambda: rng.choice([f"SN-{_digits(rng, 4)}-{_digits(rng, 4)}",
                                      f"PM{_digits(rng, 6)}{_upper(rng, 1)}",
                                      f"{_upper(rng, 2)}{_digits(rng, 2)}-{_digits(rng, 4)}-{_digits(rng, 4)}"]),
    }


def card_with_separators(rng: random.Random, number: str) -> str:
    digits = re.sub(r"\D", "", number)
    separator = rng.choice(["", " ", "-"])
    if len(digits) != 16 or not separator:
        return digits
    return separator.join(digits[i:i + 4] for i in range(0, 16, 4))


def name_variants(rng: random.Random, first: Callable[[], str], last: Callable[[], str]) -> Values:
    """Names as typed: mostly as written, sometimes lower case, all caps or double-barrelled."""
    def full() -> str:
        return f"{first()} {last()}"

    def hyphen() -> str:
        return f"{first()} {last()}-{last()}"

    def any_case() -> str:
        return rng.choices([full, lambda: full().lower(), lambda: full().upper(), hyphen],
                           weights=[7, 1, 1, 1])[0]()

    return {"name": any_case, "surname": last, "name_lower": lambda: full().lower(),
            "name_caps": lambda: full().upper(), "name_hyphen": hyphen}


def faker_values(rng: random.Random, locale: str) -> Values:
    from faker import Faker

    fake = Faker(locale)
    fake.seed_instance(rng.randint(0, 2**31))
    us = Faker("en_US")
    us.seed_instance(rng.randint(0, 2**31))
    values = identifier_values(rng) | name_variants(rng, fake.first_name, fake.last_name)
    return values | {
        "street": lambda: fake.street_address().replace("\n", ", "), "city": fake.city, "zip": fake.postcode,
        "email": fake.email, "url": lambda: f"{fake.url()}{fake.uri_path()}", "phone": fake.phone_number,
        "ssn": us.ssn, "card": lambda: card_with_separators(rng, us.credit_card_number()),
    }


def mimesis_values(rng: random.Random, locale: str) -> Values:
    from mimesis import Address, Internet, Payment, Person
    from mimesis.locales import Locale

    seed = rng.randint(0, 2**31)
    person, address = Person(Locale(locale), seed=seed), Address(Locale(locale), seed=seed)
    internet, payment = Internet(seed=seed), Payment(seed=seed)
    values = identifier_values(rng) | name_variants(rng, person.first_name, person.last_name)
    return values | {
        "street": lambda: rng.choice([address.address(), f"{address.address()}, Apt {rng.randint(1, 999)}"]),
        "city": address.city, "zip": address.postal_code, "email": person.email, "url": internet.url,
        "phone": person.phone_number, "ssn": lambda: f"{rng.randint(101, 665)}-{_digits(rng, 2)}-{_digits(rng, 4)}",
        "card": lambda: card_with_separators(rng, payment.credit_card_number()),
    }


def generate_positives(name: str, texts: Sequence[str], make_values: Callable[[random.Random, str], Values],
                       locales: dict[str, list[str]], count: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(f"{seed}:{name}")
    by_part: dict[str, list[int]] = {p: [] for p in PARTS}
    for index, template in enumerate(texts):
        by_part[part_of(f"{name}:{template}")].append(index)
    rows: dict[str, list[dict[str, Any]]] = {p: [] for p in PARTS}
    for part in PARTS:
        value_sets = [make_values(rng, locale) for locale in locales[part]]
        total = round(count * (HOLDOUT_FRACTION if part == "holdout" else 1 - HOLDOUT_FRACTION))
        for _ in range(total):
            index = rng.choice(by_part[part])
            text, spans = fill(texts[index], rng.choice(value_sets))
            rows[part].append({"full_text": text, "spans": spans, "template_id": f"{name}-{index}"})
    return rows


def generate_negatives(count: int, seed: int) -> dict[str, list[dict[str, str]]]:
    from voiceassist_local.evaluation.phi_fillers import negative_values

    rng = random.Random(f"{seed}:hard_negatives")
    rows: dict[str, list[dict[str, str]]] = {p: [] for p in PARTS}
    for part in PARTS:
        indices = [i for i, t in enumerate(templates.HARD_NEGATIVES) if part_of(f"neg:{t}") == part]
        values = negative_values(rng, part, part_of)
        total = round(count * (HOLDOUT_FRACTION if part == "holdout" else 1 - HOLDOUT_FRACTION))
        for number in range(total):
            index = rng.choice(indices)
            text, _ = fill(templates.HARD_NEGATIVES[index], values)
            rows[part].append({"id": f"neg-{part}-{number}-t{index}", "text": text})
    return rows


def write_sets(out: Path, seed: int = 18, count: int = 600) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    positive_sets = {
        "faker_notes": generate_positives("faker_notes", templates.FAKER_NOTES, faker_values, FAKER_LOCALES,
                                          count, seed),
        "mimesis_notes": generate_positives("mimesis_notes", templates.MIMESIS_NOTES, mimesis_values,
                                            MIMESIS_LOCALES, count, seed),
        "clinician_queries": generate_positives("clinician_queries", templates.CLINICIAN_QUERIES,
                                                mimesis_values, MIMESIS_LOCALES, count, seed),
    }
    for name, parts in positive_sets.items():
        for part, rows in parts.items():
            path = out / f"{name}.{part}.json"
            path.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
            written.append(path)
    for part, negatives in generate_negatives(count, seed).items():
        path = out / f"hard_negatives.{part}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in negatives), encoding="utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--count", type=int, default=600, help="texts per set (both parts together)")
    args = parser.parse_args(argv)
    for path in write_sets(args.out, args.seed, args.count):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
