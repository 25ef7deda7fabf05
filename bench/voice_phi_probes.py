"""What bench/voice_phi.py speaks: PHI probe sentences with each value's kind, and spoken questions without PHI.

Sets (`--sets`):
- `phi`: the PHI probe sentences of ../shared/eval/phi/pii_sentences.json (presidio-research, synthetic, MIT; at most
  30 words, seeded shuffle as bench/voice_audio.load_set), each labelled span with its kind (PERSON -> name,
  DATE_TIME -> date, PHONE_NUMBER -> phone, ADDRESS and LOCATION -> address, the identifiers -> record; the rest
  -> other). Read for measurement only.
- `records`: clinical questions made here from templates of this file and a seeded random draw (names from the
  shipped US Census lists, record numbers, ages over 89, birth dates, phone numbers, street addresses), each in two
  forms: as a clinician types it ("MRN 4821937", "born 3 March 1950") and as one says it ("M R N four eight two
  ...", "born on the third of March nineteen fifty"). The typed form is the detector's ceiling; the speaker reads
  the said form.
- a spoken answers file (tests/fixtures/answers/*_spoken.jsonl, by path or name): clinical questions with no PHI,
  as a clinician says them; a flag on one is over-routing.
- `clinical`: MedMCQA/MMLU questions without PHI (bench/voice_audio.load_set).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from voice_audio import EVAL, load_set

from voiceassist.phi.word_lists import GIVEN_NAMES, SURNAMES, word_list

KINDS = {"PERSON": "name", "DATE_TIME": "date", "PHONE_NUMBER": "phone", "ADDRESS": "address",
         "LOCATION": "address", "US_SSN": "record", "US_DRIVER_LICENSE": "record", "CREDIT_CARD": "record",
         "IBAN_CODE": "record", "EMAIL_ADDRESS": "record"}
SEED = 31


@dataclass(frozen=True)
class Probe:
    set_name: str
    said: str  # what the speaker reads
    typed: str  # the same question typed
    values: tuple[tuple[str, str, str], ...] = ()  # (kind, value as typed, value as said)


_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
             "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
             "twentieth"]
MONTHS = ["January", "February", "March", "April", "June", "July", "August", "September", "October", "November",
          "December"]  # not May (a verb too)
STREETS = ("Street", "Road", "Avenue", "Lane", "Drive")


def two_digits(n: int) -> str:
    if n < 10:
        return _UNITS[n]
    if n < 20:
        return _TEENS[n - 10]
    return _TENS[n // 10 - 2] + ("" if n % 10 == 0 else "-" + _UNITS[n % 10])


def ordinal(day: int) -> str:
    if day <= 20:
        return _ORDINALS[day - 1]
    return f"{_TENS[day // 10 - 2]}-{_ORDINALS[day % 10 - 1]}" if day % 10 else _TENS[day // 10 - 2][:-1] + "ieth"


def digits(number: str) -> str:
    return " ".join(_UNITS[int(d)] for d in number)


def _name(rng: random.Random) -> tuple[str, str]:
    given = rng.choice(sorted(w for w in word_list(GIVEN_NAMES) if len(w) > 2)).capitalize()
    surname = rng.choice(sorted(w for w in word_list(SURNAMES) if len(w) > 3)).capitalize()
    return given, surname


def records(count: int) -> list[Probe]:
    """`count` clinical PHI probes, the templates in turn (none is a question of any evaluation set)."""
    rng = random.Random(SEED)
    probes: list[Probe] = []
    for index in range(count):
        given, surname = _name(rng)
        title, said_title = rng.choice((("Mr", "Mister"), ("Mrs", "Missus"), ("Dr", "Doctor"), ("Ms", "Miz")))
        number = str(rng.randint(1000000, 9999999))
        age = rng.randint(90, 104)
        day, month, year = rng.randint(1, 28), rng.choice(MONTHS), rng.randint(1925, 1999)
        phone = f"{rng.randint(200, 989)}{rng.randint(200, 989)}{rng.randint(1000, 9999)}"
        house = rng.randint(3, 99)
        street = f"{rng.choice(sorted(word_list(SURNAMES))).capitalize()} {rng.choice(STREETS)}"
        said_age = two_digits(age) if age < 100 else f"one hundred and {two_digits(age - 100)}"
        said_year = f"{two_digits(year // 100)} {two_digits(year % 100)}"
        template = index % 6
        if template == 0:
            typed = f"{title} {surname}, MRN {number}, is on warfarin: can we give ibuprofen for the knee pain?"
            said = f"{said_title} {surname}, M R N {digits(number)}, is on warfarin, can we give ibuprofen for the " \
                   "knee pain?"
            values = (("name", surname, surname), ("record", number, digits(number)))
        elif template == 1:
            typed = f"My patient is {age} years old with an eGFR of 28; is metformin still safe?"
            said = f"My patient is {said_age} years old with an eGFR of 28, is metformin still safe?"
            values = (("age", str(age), ""),)
        elif template == 2:
            typed = f"{given} {surname} was born on {day} {month} {year}; what amoxicillin dose for her pneumonia?"
            said = f"{given} {surname} was born on the {ordinal(day)} of {month} {said_year}, what amoxicillin " \
                   "dose for her pneumonia?"
            values = (("name", f"{given} {surname}", f"{given} {surname}"), ("date", f"{day} {month} {year}", ""))
        elif template == 3:
            typed = f"Please call the daughter of {title} {surname} on {phone[:3]}-{phone[3:6]}-{phone[6:]} about " \
                    "the penicillin allergy."
            said = f"Please call the daughter of {said_title} {surname} on {digits(phone[:3])}, {digits(phone[3:6])}," \
                   f" {digits(phone[6:])} about the penicillin allergy."
            values = (("name", surname, surname), ("phone", phone, ""))
        elif template == 4:
            typed = f"I have a patient named {given} {surname} at {house} {street} with a CURB-65 of 2: which " \
                    "antibiotic?"
            said = f"I have a patient named {given} {surname} at {two_digits(house)} {street} with a CURB-65 of 2, " \
                   "which antibiotic?"
            values = (("name", f"{given} {surname}", ""), ("address", f"{house} {street}", ""))
        else:
            typed = f"Hospital number {number}: the {age}-year-old on lisinopril has a potassium of 6.1, what now?"
            said = f"Hospital number {digits(number)}, the {said_age} year old on lisinopril has a potassium of 6.1, " \
                   "what now?"
            values = (("record", number, ""), ("age", str(age), ""))
        probes.append(Probe("records", said, typed, values))
    return probes


def load(name: str, per_set: int) -> list[Probe]:
    if name == "records":
        return records(per_set or 24)
    if name == "phi":
        probes = [p for p in json.loads((EVAL / "pii_sentences.json").read_text()) if len(p["full_text"].split()) <= 30]
        random.Random(29).shuffle(probes)
        return [Probe("phi", p["full_text"], p["full_text"],
                      tuple((KINDS.get(s["entity_type"], "other"), s["entity_value"], "") for s in p["spans"]))
                for p in probes[:per_set or None]]
    return [Probe(name, s.text, s.text) for s in load_set(name, per_set)]
