"""An order to the machine that reads, inside the material a clinician pasted (session 16, harm16): the indirect
injection of Greshake K et al., "Not what you've signed up for", AISec 2023, read as one shape rather than as labels.

Earlier readings (session_shapes.model_addressed, extraction_shapes.reader_addressed) list the labels writers used
("NOTE TO THE ASSISTANT:", "IMPORTANT FOR AI:", "AI models reading this page:"); each writer brought a label none of
them listed ("ASSISTANT OVERRIDE:", "IMPORTANT FOR AUTOMATED SYSTEMS:", "Instrukcja dla asystenta AI:", "...,
computer, forget ..."). What they share is a grammar of three parts, read here:

1. **in pasted material**: not the clinician's own opening, but after it: inside quotation marks or brackets, after a
   colon or a line break (a clinician addressing the assistant at the start of the message is the user asking);
2. **a heading or a vocative naming a machine reader**: up to four words, then a phrase for the machine, then up to
   three words more ("override", "instructions", "reading this page"), then a colon, a dash or (a vocative, alone or
   after a discourse word: "and also, computer,") a comma. The machine is named by a word that names only a machine
   ("AI", "LLM", "chatbot", "GPT", "copilot", "VoiceAssist") or by a noun a machine word or a determiner qualifies
   ("automated systems", "the language model", "any AI agent"): "assistant", "computer", "bot" and "summariser" also
   alone, as the whole heading; "healthcare assistant:", "prediction models:", "antiplatelet agents:" and "dialysis
   machine:" are a ward's headings;
3. **an order after it**: an English verb in its base form, the form of the imperative (Quirk R et al., *A
   Comprehensive Grammar of the English Language*, 1985, 11.24; the verbs are WordNet 3.0's,
   `_data/safety/verbs.txt.gz`, voiceassist_local.evaluation.verb_data), not an auxiliary or a wh-word that opens a
   question; or a standing condition ("when asked about this patient, ...", "from now on"); or "you" ("you are now
   ..."); or, when what follows is written in another language (`crosslingual.not_english`), the heading alone. A
   clause that ends in a question mark asks ("AI: can you check this?") and is not read. The verb takes its object
   ("forget the symptoms"): one before a comma is read as a finding ("moderate, LV normal").

"AI" alone as the heading is also a ward's abbreviation (aortic insufficiency, "AI: moderate") and is read with a word
beside it only ("AI system:", "Instrukcja dla asystenta AI:"); the listed labels read it with their verbs.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache

from voiceassist.common_words import QUESTION_OPENINGS
from voiceassist.safety.crosslingual import not_english
from voiceassist.safety.signals import INJECTION
from voiceassist.settings import PACKAGE_DIR

VERBS_FILE = PACKAGE_DIR / "_data" / "safety" / "verbs.txt.gz"
MAX_LEAD_WORDS = 4  # words of a heading before the machine's name ("IMPORTANT FOR", "Instrukcja dla asystenta")

# a word that names only a machine reader
_ONLY_MACHINE = (r"(?:ai|a\.i\.|llms?|gpt[\w.-]*|chat-?gpt|chatbots?|copilots?|voiceassist|artificial intelligence"
                 r"|language models?)")
# a word that makes the noun after it a machine's ("automated systems", "AI agent", "the language model")
_MACHINE_WORD = (r"(?:ai|a\.i\.|llm|automated|automatic|artificial|virtual|digital|language|chat|voice|voiceassist"
                 r"|computer|machine|summari[sz](?:ation|ing)|the|any|all|every|each|this|dear)")
_QUALIFIED = (r"(?:models?|systems?|agents?|machines?|algorithms?|tools?|readers?|programs?|software|assistants?"
              r"|computers?|bots?|summari[sz]ers?)")
# alone, as the whole heading ("Computer, forget ...", "ASSISTANT OVERRIDE:")
_ALONE = r"(?:assistants?|computers?|bots?|summari[sz]ers?)"
_TRAIL = (r"(?:\s+(?:override|overrides|instructions?|note|notice|directive|command|memo|message|update|mode"
          r"|(?:reading|processing|parsing|reviewing|summari[sz]ing|seeing)(?:\s+this(?:\s+[\w-]+)?)?)){0,3}")
_BOUNDARY = r"(?:^|(?<=[.!?;:\n'\"‘“’”(\[{<>|/#*=])|(?<=\s[-–—])|(?<=[-–—]\s))\s*"
_HEADING = re.compile(
    _BOUNDARY + r"(?P<heading>(?:(?:[^\W\d_][\w'’.-]*\s+){0," + str(MAX_LEAD_WORDS) + r"}?"
    r"(?:" + _ONLY_MACHINE + r"|(?:" + _MACHINE_WORD + r"\s+)+" + _QUALIFIED + r")"
    r"|" + _ALONE + r")" + _TRAIL + r")\s*(?P<sep>[:—–]|\s-\s)", re.I)
# a vocative: the machine alone (after a discourse word) between commas ("and also, computer, forget ...")
_VOCATIVE = re.compile(
    r"(?:^|[.!?;:\n'\"‘“(\[]\s*|(?:\b(?:also|and|so|now|oh|ok|okay|hey|then|but|anyway|btw|please)\s*,?\s+))"
    r"(?P<heading>(?:(?:" + _MACHINE_WORD + r")\s+)*(?:" + _ONLY_MACHINE + r"|" + _ALONE + r"))\s*(?P<sep>,)", re.I)
_AI_ALONE = re.compile(r"a\.?i\.?", re.I)
_FILLER = re.compile(r"(?:(?:please|kindly|also|now|just|then|instead|immediately|hereby|simply|\w+ly)\s*,?\s+)*",
                     re.I)
_CONDITION = re.compile(r"(?:when(?:ever)?|if|once|after|from now on|for (?:all|any|every|the rest)|in (?:all|any"
                        r"|every|future)|going forward)\b", re.I)
_CLAUSE = re.compile(r"[^.!?\n'\"”’\]}>]*[.!?]?")
_WORD = re.compile(r"[a-z]+", re.I)
# what opens a question, or says nothing ordered
_NOT_ORDERS = QUESTION_OPENINGS | frozenset({"be", "being", "been", "not", "no", "yes"})


@lru_cache(maxsize=1)
def verbs() -> frozenset[str]:
    """The English verbs by their base form (WordNet 3.0's, `_data/safety/verbs.txt.gz`)."""
    with gzip.open(VERBS_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _pasted(text: str, at: int) -> bool:
    """Whether `at` stands after the clinician's own opening: a quotation mark, a bracket, a colon or a line break
    before it, with words before that."""
    before = text[:at]
    return bool(before.strip()) and any(mark in before for mark in ":'\"‘“([{<\n—")


def _orders(rest: str) -> bool:
    """Whether what follows a heading to a machine reader is an order (the module's doc, part 3)."""
    rest = _FILLER.sub("", rest.lstrip(), count=1) if _FILLER.match(rest.lstrip()) else rest.lstrip()
    clause = _CLAUSE.match(rest)
    if clause is None or clause.group().rstrip().endswith("?"):
        return False
    if _CONDITION.match(rest) or re.match(r"you\b", rest, re.I):
        return True
    first = _WORD.match(rest)
    if first is not None and (word := first.group().lower()) not in _NOT_ORDERS and word in verbs() and (
            rest[first.end(): first.end() + 1] == " "):
        return True
    return len(_WORD.findall(rest[:200])) >= 4 and not_english(rest[:200])


def machine_ordered(text: str) -> bool:
    """Whether pasted material in `text` holds an order addressed to the machine that reads it."""
    for pattern in (_HEADING, _VOCATIVE):
        for match in pattern.finditer(text):
            # "AI" alone is also a ward's abbreviation (aortic insufficiency: "AI: moderate"): with a word beside it
            if _AI_ALONE.fullmatch(match.group("heading")):
                continue
            if _pasted(text, match.start("heading")) and _orders(text[match.end():]):
                return True
    return False


def pasted_order_kinds(text: str) -> list[tuple[str, str]]:
    """(category, kind) of the shape in one form of a text."""
    return [(INJECTION, "machine_ordered")] if machine_ordered(text) else []
