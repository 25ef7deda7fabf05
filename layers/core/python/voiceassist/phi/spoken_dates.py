"""Dates written in words, read as digits: "the fourteenth of March nineteen sixty-one" is "the 14th of March 1961".

The date recognizer (phi/recognizers.py) reads digits; a birth date dictated to a speech recognizer or typed in
words was not found. Number words are read as digits only beside a month's name: an ordinal day before it ("the
fourteenth of March", "fourteenth March"), an ordinal or cardinal day after it ("March the fourteenth", "March
fourteen"), and a year in words after both ("nineteen sixty-one", "nineteen oh five", "two thousand and twelve",
"twenty twenty-three"). Elsewhere a number word stays a word ("the first two weeks", "one May dose").
"""

from __future__ import annotations

import re

_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINAL_UNITS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_ORDINAL_TEENS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                  "seventeenth", "eighteenth", "nineteenth")
_VALUES = {word: value for words, first in ((_UNITS, 1), (_TEENS, 10), (_ORDINAL_UNITS, 1), (_ORDINAL_TEENS, 10))
           for value, word in enumerate(words, first)}
_VALUES |= {word: 20 + 10 * index for index, word in enumerate(_TENS)}
_VALUES |= {"twentieth": 20, "thirtieth": 30, "oh": 0, "o": 0, "zero": 0}


def _any(words: tuple[str, ...] | list[str]) -> str:
    return "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"


_JOIN = r"[\s-]+"
_UNIT, _TEEN, _TEN = _any(_UNITS), _any(_TEENS), _any(_TENS)
# a day of the month: an ordinal ("fourteenth", "twenty-first", "thirtieth") or, after the month, a cardinal
_ORDINAL_DAY = rf"(?:(?:twenty|thirty){_JOIN}{_any(_ORDINAL_UNITS)}|twentieth|thirtieth|{_any(_ORDINAL_TEENS)}" \
               rf"|{_any(_ORDINAL_UNITS)})"
_CARDINAL_DAY = rf"(?:twenty(?:{_JOIN}{_UNIT})?|thirty(?:{_JOIN}one)?|{_TEEN}|{_UNIT})"
_DIGIT_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# a year: "nineteen sixty-one", "nineteen oh five", "nineteen hundred", "twenty twenty-three", "two thousand and
# twelve" (the centuries of a living person's dates)
_TWO_DIGITS = rf"(?:{_TEN}(?:{_JOIN}{_UNIT})?|{_TEEN}|(?:oh|o|zero){_JOIN}{_UNIT})"
_YEAR = rf"(?:(?:eighteen|nineteen|twenty){_JOIN}(?:hundred|{_TWO_DIGITS})" \
        rf"|two{_JOIN}thousand(?:{_JOIN}(?:and{_JOIN})?(?:{_TWO_DIGITS}|{_UNIT}))?)"
_MONTHS = ("january", "february", "march", "april", "june", "july", "august", "september", "october", "november",
           "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
# "may" is also a verb: before a day ("we may first check") only a capital May is the month
_MONTH_BEFORE_DAY = rf"(?:{_any(_MONTHS)}|(?-i:May|MAY))\.?"
_MONTH = rf"(?:{_any(_MONTHS)}|may)\.?"
_YEAR_AFTER = rf"(?:,?\s+(?P<year>{_YEAR}))?"
_DATE = re.compile(
    rf"\b(?:(?P<day>{_ORDINAL_DAY}|{_DIGIT_DAY})(?:\s+of)?\s+{_MONTH}"
    rf"|{_MONTH_BEFORE_DAY}\s+(?:the\s+)?(?P<day_after>{_ORDINAL_DAY}|{_CARDINAL_DAY}|{_DIGIT_DAY})){_YEAR_AFTER}\b",
    re.IGNORECASE)
_WORD = re.compile(r"[a-z]+", re.IGNORECASE)


def _day(words: str) -> str:
    if words[0].isdigit():
        return words
    value = sum(_VALUES[word.lower()] for word in _WORD.findall(words))
    last = words.lower()[-2:]
    return f"{value}{last}" if last in ("st", "nd", "rd", "th") else str(value)


def _year(words: str) -> str:
    spoken = [word.lower() for word in _WORD.findall(words)]
    if spoken[:2] == ["two", "thousand"]:
        return str(2000 + sum(_VALUES.get(word, 0) for word in spoken[2:]))  # ("and" adds nothing)
    if spoken[1:] == ["hundred"]:
        return f"{_VALUES[spoken[0]]}00"
    return f"{_VALUES[spoken[0]]}{sum(_VALUES[word] for word in spoken[1:]):02d}"


def spoken_dates(text: str) -> list[tuple[int, int, str]]:
    """The spans of `text` that are a date's number words, and the digits each reads as, in order."""
    spans: list[tuple[int, int, str]] = []
    for match in _DATE.finditer(text):
        group = "day" if match.group("day") is not None else "day_after"
        day = _day(match.group(group))
        if day != match.group(group) and 1 <= int(day.rstrip("stndrh")) <= 31:
            spans.append((match.start(group), match.end(group), day))
        if match.group("year") is not None:
            spans.append((match.start("year"), match.end("year"), _year(match.group("year"))))
    return spans
