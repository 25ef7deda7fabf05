"""Numbers, quantities, ages and times of day as a question types or says them ("75kg", "0.01 mg/kg", "2am",
"thirty five kilograms", "twenty-four", "72-year-old"): never a topic of the question (query/question_concepts.py),
and a unit said in words is covered by its symbol (`unit_symbols`)."""

from __future__ import annotations

import re

from voiceassist.query.population import CARDINAL_WORDS, NUMBER_WORDS

_NUMBER = re.compile(r"^\d[\d.,/-]*$")
# a number typed with its unit of time ("2wks", "48hrs", "5mins"), read as the stemmed term: a quantity, like a number
_TIME_QUANTITY = re.compile(r"^\d+(?:\.\d+)?(?:min|minut|hr|hour|day|wk|week|mth|month|mo|yr|year)s?$")
# A number typed with its unit of measure ("75kg", "2L", "500mcg", "24h", "140mmHg", "20ml/kg", "10units"), read as
# the surface word in lower case: a quantity, like a number. The units are UCUM's common codes (the Unified Code for
# Units of Measure, Regenstrief Institute) as typed: mass g, mg, ug and its clinical spelling mcg, ng, kg, [lb_av]
# as lb; volume l, ml, dl, ul; length m, cm, mm; amount mol, mmol, umol, nmol, meq; pressure mm[Hg] and cm[H2O] as
# mmhg and cmh2o, kPa; [iU] as iu, U as u or unit; time s is left out ("1990s"), h, d, min, wk, mo and the forms of
# _TIME_QUANTITY; a ratio of them ("1mg/kg/day"). A per cent ("25%") is a number already (% is no word character).
# An ordinal ("1st", "2nd", "4th") is a number too. A word that starts with a letter is never one ("T2DM", "CKD4").
_UNIT = (r"(?:mcg|ug|ng|mg|g|kg|lbs?|ml|dl|ul|l|mm|cm|m|mmol|umol|nmol|mol|meq|mmhg|cmh2o|kpa|iu|units?|u"
         r"|h|d|mins?|minutes?|hrs?|hours?|days?|wks?|weeks?|mths?|months?|mos?|yrs?|years?)")
_ORDINAL_PREFIX = re.compile(r"\d+(?:st|nd|rd|th)-(?=[^\W\d_])", re.I)
_QUANTITY = re.compile(rf"\d+(?:[.,]\d+)?{_UNIT}(?:/\d*(?:[.,]\d+)?{_UNIT}|/dose)*|\d+(?:st|nd|rd|th)")
# the same in running text, glued, spaced or hyphenated as a modifier ("75 kg", "0.01 mg/kg", "24-hour monitor",
# "5-day course": how Whisper writes a spoken "twenty four hour"): its unit is the number's, not an abbreviation.
# A hyphenated "D" is a dimension ("2-D echo", "3-D"), not days.
_QUANTITY_IN_TEXT = re.compile(rf"(?<![\w/.&-])\d+(?:[.,]\d+)?(?:[ \t]?|-(?!d\b)){_UNIT}"
                               rf"(?:/\d*(?:[.,]\d+)?{_UNIT}|/dose)*"
                               rf"(?![\w/&-])", re.I)
# a time of day on the twelve-hour clock ("bleeped at 2am", "11 pm", "2.30pm", "10:15 a.m."): a number, like a quantity
_CLOCK_IN_TEXT = re.compile(r"(?<![\w/.:&-])(?:1[0-2]|0?\d)(?:[:.][0-5]\d)?[ \t]?[ap]\.?m\b\.?", re.I)
# "72-year-old", "58yo", "6mo", and the notes' age and sex "70F", "6yoM" (query/population.py): an age, like a number
_AGE_WORD = re.compile(r"^\d+(?:-(?:year|month|week|day)s?-old|(?:yo|yr|yrs|mo|mos))$|^\d{1,2}(?:yo|y)?[mf]$")

# A unit of measure said or typed in words ("dose per kilogram", "how many millilitres", "500 milligrams"), as a speech
# recogniser writes a spoken unit: covered by its symbol, which a reference writes ("0.01 mg/kg", "20 mL/kg"). The
# names and symbols are UCUM's (the Unified Code for Units of Measure, Regenstrief Institute: the SI prefixes kilo k,
# deci d, centi c, milli m, micro u, nano n before gram g, litre l, mole mol, metre m, equivalent eq, pascal Pa), in
# British and American spelling, with "mcg", the clinical spelling of ug; a plural s is the same unit. A unit without
# a prefix ("gram": g) is left out, a one-letter term being no term here; the symbols are _UNIT's.
_UNIT_NAME = (r"(?:kilo|deci|centi|milli|micro|nano)(?:grammes?|grams?|litres?|liters?|moles?|metres?|meters?"
              r"|equivalents?|pascals?)|kilos?")
# a number typed or said with a unit named in words ("110 kilos", "thirty five kilograms", "2.5 milligrams"): a
# quantity, like "110 kg" (_QUANTITY_IN_TEXT), as a speech recogniser writes a spoken weight or dose
# "every single time": "single" after "every" is an intensive (Merriam-Webster, "single", adjective: "used as an
# intensive", every single one), said for emphasis; "a single dose", "any single agent" keep their word
_EMPHATIC_SINGLE = re.compile(r"(?<=\bevery )single\b", re.I)
_SAID_QUANTITY = re.compile(rf"(?<![\w/.-])(?:\d+(?:[.,]\d+)?|{NUMBER_WORDS})[ \t-]+(?:{_UNIT_NAME})(?![\w/-])", re.I)
_UNIT_PREFIXES = {"kilo": "k", "deci": "d", "centi": "c", "milli": "m", "micro": "u", "nano": "n"}
_UNIT_BASES = {"gram": "g", "gramme": "g", "litre": "l", "liter": "l", "mole": "mol", "metre": "m", "meter": "m",
               "equivalent": "eq", "pascal": "pa"}


def unit_symbols(word: str) -> tuple[str, ...]:
    """The symbols (lower case) of a unit of measure named in words ("kilograms": "kg"; "micrograms": "ug", "mcg")."""
    lower = word.lower()
    base = lower[:-1] if lower.endswith("s") else lower
    for prefix, letter in _UNIT_PREFIXES.items():
        if base.startswith(prefix) and (unit := _UNIT_BASES.get(base[len(prefix):])) is not None:
            symbol = letter + unit
            return (symbol, "mcg") if symbol == "ug" else (symbol,)
    return ()


# The English cardinals said in words: population.CARDINAL_WORDS ("one" to "ninety") and the multipliers ("one in a
# thousand", "two hundred"; Quirk et al. 1985, 6.63), a number as much as digits are
_NUMERALS = CARDINAL_WORDS | frozenset({"hundred", "hundreds", "thousand", "thousands", "million", "millions"})


def _said_number(word: str) -> bool:
    """A compound numeral said in words ("twenty-four", "thirty-eight": English hyphenates the tens and units, Quirk
    R et al., A Comprehensive Grammar of the English Language, 1985, 6.63), read as a number typed in digits is: no
    topic, and no modifier of a condition (query/siblings.py)."""
    parts = word.lower().split("-")
    return len(parts) > 1 and all(part in _NUMERALS for part in parts)
