"""PHI in a spoken question: the transcript as the PHI detector reads it, and the words heard unsure where PHI sits.

A transcript is not typed text. Whisper writes a phone number or a record number read digit by digit in groups
("408, 351, 716, 7", "2,468, 1,357"), a year said in pairs as two numbers once the number words are digits ("the
3rd of March 19 50"), letters spelled out as separate capitals ("M R N"), and another recognizer (or a client's
corrected transcript) may leave number words as words ("M R N four five six ..."). `detector_text` writes those as
typed ("MRN 4567891", "4083517167", "the 3rd of March 1950"): number words become digits with text2num's
`alpha2digit` (text2num 3.1.0, MIT, the `voice` and `local` extras; a runtime without it keeps number words,
which phi/spoken_dates.py still reads beside a month), spelled capitals are joined, and a run of digit groups
with at least `DIGIT_RUN` digits is one number. The voice routes send that text as the question.

A name heard wrong is not found by any detector ("Mister Barrientez" heard "Mr. Barrientes" is found after the
title; "Alyson Spoon" heard "Alicin Spoon" at a sentence's start is not). The recognizer says where it was unsure:
`phi_doubted_words` lists the words heard below `PHI_UNSURE_WORD` (or known to no vocabulary) in a place PHI
sits: right after a title or a word that introduces a person ("patient", "named"), written as a proper noun (a
capital inside a sentence, or two capitalised words together), or beside a month. A clinical term (a drug,
an abbreviation, a disease: query.concepts.is_clinical) is never doubted. The query pipeline keeps a question
with such words inside the boundary (query/planning.detect_phi; setting `voice_phi_doubt`). Decision 0031,
"PHI in a spoken question" (session 20).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from voiceassist.common_words import common_words
from voiceassist.models import MISHEARD_WORD_MAX_CHARS, MISHEARD_WORDS_MAX
from voiceassist.phi.word_lists import ENGLISH, name_words, stop_words
from voiceassist.query import concepts

if TYPE_CHECKING:
    from voiceassist.speech import TranscribedWord, Transcript

# Measured: bench/voice_phi.py score (docs/benchmarks.md, "Voice", session 20).
PHI_UNSURE_WORD = 0.5
DIGIT_RUN = 7  # a phone number (10 digits) or a record number (7+); "10, 0, 0, 0" (1 in 10,000) stays as heard
DIGIT_RUN_PATTERN = rf"\d{{{DIGIT_RUN},}}"
# Words that put a name after them, as a clinician says them: the English titles of phi/name_titles.TITLES (a test
# checks they are its words) as Whisper writes them, and the words that introduce a person by name.
NAME_CUES = frozenset({"mr", "mrs", "ms", "mx", "miss", "dr", "prof", "mister", "patient", "named", "called", "name"})
MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                    "october", "november", "december"})
_SPELLED = re.compile(r"\b[A-Z](?:\.?\s[A-Z]\b)+\.?")  # "M R N", "M. R. N."
# groups apart by a comma, a space, ". " or " - " ("408, 351, 716, 7"); "6-28-1939" is a date as typed: kept
_GROUPS = re.compile(r"\d+(?:(?:,\s*|\s+|\.\s+|\s+-\s+)\d+)+")
_YEAR = re.compile(r"(?i)(?P<before>\b(?:" + "|".join(sorted(MONTHS)) + r"|born)\b[^.?!\d]{0,12}"
                   r"(?:\d{1,2}(?:st|nd|rd|th)?[^.?!\d]{1,8})?)(?P<century>1[89]|20) (?P<year>\d\d)\b")
# "one hundred and two" as Whisper writes it: "100, and 2" (an age over 89 is PHI)
_HUNDRED_AND = re.compile(r"\b(?P<hundreds>[1-9]00),? and (?P<rest>[1-9]\d?)\b")
_IDENTIFIER = re.compile(rf"(?<![\d.,]){DIGIT_RUN_PATTERN}(?![\d.,]\d)")
_LETTERS = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")
_SENTENCE_END = (".", "?", "!")


NUMBERS_PACKAGE = "text_to_num"  # text2num's module


class NumbersMissing(RuntimeError):
    """text2num is not installed where the voice routes run: number words would reach Detect PHI as words."""


def require() -> None:
    """Fail the cold start of a function that serves the voice routes where text2num is missing (constants/functions
    `serves_voice`: the voice layer, or the PHI image's requirements)."""
    try:
        found = importlib.util.find_spec(NUMBERS_PACKAGE) is not None
    except (ImportError, ValueError):  # a finder that refuses the module (an artefact's blocker) counts as absent
        found = False
    if not found:
        raise NumbersMissing("a transcript is written as typed before Detect PHI with text2num, which is not "
                             "installed: this function must carry the voice layer (constants/functions.py "
                             "serves_voice)")


def _alpha2digit(text: str) -> str:
    try:
        from text_to_num import alpha2digit  # the `voice` and `local` extras
    except ImportError:  # pragma: no cover - a runtime without the extra keeps number words
        return text
    return str(alpha2digit(text, "en"))


def _run(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group())
    return digits if len(digits) >= DIGIT_RUN else match.group()


def detector_text(text: str) -> str:
    """The transcript written as the question would be typed, for the PHI detector and the query."""
    text = _alpha2digit(text)
    text = _SPELLED.sub(lambda m: re.sub(r"[\s.]", "", m.group()), text)
    text = _YEAR.sub(lambda m: f"{m['before']}{m['century']}{m['year']}", text)
    text = _HUNDRED_AND.sub(lambda m: str(int(m["hundreds"]) + int(m["rest"])), text)
    return _GROUPS.sub(_run, text)


def identifier_runs(text: str) -> list[str]:
    """The numbers of `detector_text`'s text with at least DIGIT_RUN digits that are not a round quantity ("1200000"
    units of penicillin ends in 000): identifier-shaped, whether or not the detector names what they are."""
    return [run for run in _IDENTIFIER.findall(text) if not run.endswith("000")]


def _bare(word: str) -> str:
    found = _LETTERS.search(word)
    return found.group().strip("'-") if found else ""


def _capitalised(word: str) -> bool:
    """Written as a name: a capital then not all capitals ("Trembly", not "CURB"), and not the pronoun "I"."""
    return word[:1].isupper() and not word.isupper() and not word.startswith(("I'", "I’"))


def _name_word(lowered: str) -> bool:
    """A US Census given name or surname that English never writes in lower case and that is no stop word ("Patrick";
    not "Well", "So")."""
    return lowered in name_words() and lowered not in common_words() and lowered not in stop_words()[ENGLISH]


def _where_phi_sits(heard: Sequence[TranscribedWord], bare: Sequence[str], i: int) -> bool:
    """Right after a name cue ("Mr. X", "patient X"), or after a cue and a capitalised word ("named Myles X"); a
    capitalised word inside a sentence, or at its start before another capitalised word ("Alicin Spoon was"); beside
    a month's name (a date's day or year). A bare number is not doubted: numbers are a clinical question's values
    (a blood pressure, a score), and a record or phone number is found by the detector once its groups are joined."""
    cue = i >= 1 and bare[i - 1].lower() in NAME_CUES or (
        i >= 2 and bare[i - 2].lower() in NAME_CUES and _capitalised(bare[i - 1]))
    sentence_start = i == 0 or heard[i - 1].word.rstrip().endswith(_SENTENCE_END)
    name_shaped = _capitalised(bare[i]) and (not sentence_start or (i + 1 < len(bare) and _capitalised(bare[i + 1]))
                                             or _name_word(bare[i].lower()))
    month = any(bare[j].lower() in MONTHS for j in (i - 1, i + 1) if 0 <= j < len(bare))
    return cue or name_shaped or month


def phi_doubted_words(transcript: Transcript, threshold: float = PHI_UNSURE_WORD) -> list[str]:
    """The transcript's words heard unsure where PHI sits (the module's docstring), as written, once each."""
    heard = transcript.words
    bare = [_bare(w.word) for w in heard]
    doubted: list[str] = []
    for i, (word, plain) in enumerate(zip(heard, bare, strict=True)):
        if not plain or plain.lower() in doubted or len(plain) > MISHEARD_WORD_MAX_CHARS:
            continue
        lowered = plain.lower()
        if concepts.is_clinical(lowered) or lowered in NAME_CUES:
            continue
        if not (word.confidence < threshold or (plain.isalpha() and not concepts.is_known(lowered))):
            continue
        if _where_phi_sits(heard, bare, i):
            doubted.append(lowered)
    doubted.extend(run for run in identifier_runs(detector_text(transcript.text)) if run not in doubted)
    return doubted[:MISHEARD_WORDS_MAX]
