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

Two readings that need no words of the text's language (session 20, lang20):
- **every script's words**: Python's word class holds no combining mark, so a Thai or Bengali word ("ผู้ช่วย", assistant)
  fell into pieces that counted as four heading words, and the order after a heading was counted in Latin words
  only. The marks (Unicode categories Mn, Mc) are dropped before the shape is read, and the order after a heading
  counts words of any script, a run of an unspaced script (Thai, Lao, Khmer, Myanmar, Chinese, Japanese) as one word
  in UNSPACED_WORD letters;
- **a hidden comment as the heading**: an HTML comment ("<!-- ... -->") is what a page shows no human; a heading of
  up to four words opening one, then a colon, addresses whatever reads the page, in any language: read as a heading
  naming the machine ("<!-- nota para el sistema: ... -->", and the same in a script nobody wrote a row for);
- **the machine named first**: a language whose postposition or genitive follows the noun writes the machine's name
  before the rest of the heading ("AI सहायक के लिए नोट:", a note for the AI assistant; "给AI助手的说明："): read back
  from each colon (a full-width one too) to the heading's opening, up to HEADING_CHARS characters and nine words, a
  word that names only a machine with a word not in Latin letters after it.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
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
# an HTML comment opening, then a heading of up to four words and a colon (the module's doc, session 20)
_COMMENT_HEADING = re.compile(
    r"<!--\s*(?P<heading>(?:[^\W\d_][\w'’.-]*\s+){0," + str(MAX_LEAD_WORDS - 1) + r"}[^\W\d_][\w'’.-]*)\s*(?P<sep>:)")
# the machine named first (the module's doc, session 20): read back from each colon to the heading's opening, not by one
# pattern over the text (words that may touch, as "给AI助手", made such a pattern backtrack without end)
_COLON = re.compile(r"[:：]")
_HEADING_OPENING = re.compile(r"[.!?;:：。\n'\"‘“’”(\[{<>|/#*=]")
_MACHINE_NAMED = re.compile(r"(?<![a-z])" + _ONLY_MACHINE + r"(?![a-z])", re.I)
_NOT_LATIN = re.compile(r"[^\W\d_a-z]", re.I)
HEADING_CHARS = 60  # characters read back from a colon for the heading
_AI_ALONE = re.compile(r"a\.?i\.?", re.I)
_FILLER = re.compile(r"(?:(?:please|kindly|also|now|just|then|instead|immediately|hereby|simply|\w+ly)\s*,?\s+)*",
                     re.I)
_CONDITION = re.compile(r"(?:when(?:ever)?|if|once|after|from now on|for (?:all|any|every|the rest)|in (?:all|any"
                        r"|every|future)|going forward)\b", re.I)
_CLAUSE = re.compile(r"[^.!?\n'\"”’\]}>]*[.!?]?")
_WORD = re.compile(r"[a-z]+", re.I)
_ANY_WORD = re.compile(r"[^\W\d_]+")
# letters of a script written without spaces between words: Thai, Lao, Myanmar, Khmer, kana, CJK ideographs
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]+")
UNSPACED_WORD = 3  # letters counted as one word in a run of an unspaced script (Thai words average 3-4 letters)
MIN_ORDER_WORDS = 4  # words of another language after a heading read as the order
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
    return _words(rest[:200]) >= MIN_ORDER_WORDS and not_english(rest[:200])


def _words(text: str) -> int:
    """Words in `text` in any script: a run of an unspaced script counts one word in UNSPACED_WORD letters."""
    text = _unmarked(text)
    unspaced = _UNSPACED.findall(text)
    spaced = _ANY_WORD.findall(_UNSPACED.sub(" ", text))
    return len(spaced) + sum(max(1, len(run) // UNSPACED_WORD) for run in unspaced)


def _unmarked(text: str) -> str:
    """`text` without its combining marks (Mn, Mc), so that a word of an abugida is one word run."""
    return "".join(c for c in text if unicodedata.category(c) not in ("Mn", "Mc"))


def _machine_first(text: str) -> list[tuple[int, int]]:
    """(start, end) of each heading that names the machine first and holds a word not in Latin letters after it: up
    to 2 * MAX_LEAD_WORDS + 1 words between the heading's opening and a colon; end is after the colon."""
    found = []
    for colon in _COLON.finditer(text):
        before = text[max(0, colon.start() - HEADING_CHARS): colon.start()]
        openings = list(_HEADING_OPENING.finditer(before))
        if not openings:
            continue
        heading = before[openings[-1].end():]
        machine = _MACHINE_NAMED.search(heading)
        if (heading.strip() and len(heading.split()) <= 2 * MAX_LEAD_WORDS + 1 and machine is not None
                and _NOT_LATIN.search(heading[machine.end():])):
            found.append((colon.start() - len(heading.lstrip()), colon.end()))
    return found


def machine_ordered(text: str) -> bool:
    """Whether pasted material in `text` holds an order addressed to the machine that reads it."""
    text = _unmarked(text)
    for start, end in _machine_first(text):
        if _pasted(text, start) and _orders(text[end:]):
            return True
    for pattern in (_HEADING, _VOCATIVE, _COMMENT_HEADING):
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
