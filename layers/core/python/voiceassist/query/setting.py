"""Who asks a clinical question and where: words that frame the question, not what it is about.

Clinicians say who they are and where they stand ("nurse here -", "pharmacist q:", "in clinic", "on the
ward", "as a GP"); counted as topics, those words made covered questions abstain. The words are WordNet 3.0's
health professionals and places of care (terminology.setting_words); a word is context only where the
sentence frames the question with it, read from closed-class words alone:

- a place phrase: a preposition of place, an optional determiner, then setting words that end the phrase
  (the question ends, punctuation follows, or a function word or an ordinary English word does, not a
  clinical one it would name a kind of): "in clinic?", "on the ward and", "in clinic counts as", not "in
  clinic bp readings";
- the asker's label opening the question: setting words followed by punctuation or "here", "q", "question",
  "asking": "nurse here - ...", "pharmacist q: ...", "GP: ...", with up to two words before a person saying
  which ("ED nurse here", "community pharmacist q");
- the asker's role after "for/as/am" and a determiner: "as a nurse,", "I'm a pharmacist", "as the on-call
  doctor". An abbreviation is matched in any case inside a frame ("im a gp,");
- the source asked, a word naming a publication or document (WordNet 3.0's publication, document and written
  communication), read in these frames only: after "per" ("per this monograph?", "per guidebook."), after a
  preposition of place and a determiner ("in this reference?", "according to the guide,"), both ending the
  phrase as a place does, or after "does/do/did" and a determiner, not followed by "of" ("does the guide say",
  "what does the reference recommend"; not "does the report of a CURB-65 of 2 ...", a kind of report, the
  topic). Without the determiner the word after "to" or "do" is a verb ("what bloods to check", "to stay
  under": WordNet's check and pass are documents too).

Elsewhere the word is the question's topic and stays one: "nurse-led titration" (joined to another word),
"pharmacist role in metformin counselling" (no frame), "pneumonia in nursing home residents" (a plural, the
patients asked about, is not a setting word: WordNet lists singular lemmas). A context word weighs as an
ordinary word in the evidence score (query/question_concepts.py): little when a passage lacks it, fully when a
passage holds it, so a document that does speak of the setting still counts it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from voiceassist.phi.word_lists import stop_words
from voiceassist.query import terminology

# closed-class words: prepositions of place, determiners, the words that introduce one's own role
PLACE_PREPOSITIONS = frozenset({"in", "at", "on", "from", "into", "within", "to", "inside"})
ROLE_INTRODUCERS = frozenset({"for", "as", "am", "im", "i'm"})  # need a determiner after them ("for the nurse")
DETERMINERS = frozenset({"the", "a", "an", "our", "my", "your", "this", "that", "their", "his", "her"})
MAX_MODIFIERS = 2  # words before the person in an asker's role: "ED nurse", "junior on-call doctor"
# the source asked: "per this monograph", "does the guide say" (an auxiliary needs a determiner after it)
SOURCE_INTRODUCERS = frozenset({"per", "does", "do", "did"})
LABEL_ENDINGS = frozenset({"here", "q", "qn", "question", "query", "asking"})
# a person who acts in the case, not what is asked: the agent of a passive ("started by the NP", "seen by her GP") and
# the subject of a modal or auxiliary verb after a determiner ("the GP should recheck her", "her GP has stopped it");
# closed-class words only. A modal before the person asks about them ("should the GP refer?"), and an indefinite
# subject introduces them ("A psychiatrist is not posted at:"): neither is read.
AGENT_INTRODUCERS = frozenset({"by"})
AUXILIARIES = frozenset({"should", "will", "would", "can", "could", "may", "might", "must", "shall", "is", "was",
                         "has", "had", "does", "did", "wants", "wanted"})
_OPENERS = frozenset({"hi", "hello", "hey", "i", "i'm", "im", "am", "as", "a", "an", "the", "this", "is"})
_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")


def context_words(question: str) -> frozenset[str]:
    """The setting words that frame `question` (lower case), not its topic (see the module's doc)."""
    return _read(question)[0]


def actors(question: str) -> frozenset[str]:
    """The words of the carers who act in the case of `question` ("by the NP", "the GP should"), lower case."""
    return _read(question)[1]


@lru_cache(maxsize=1024)
def _read(question: str) -> tuple[frozenset[str], frozenset[str]]:
    tokens = [(m.group().replace("’", "'"), m.start(), m.end()) for m in _WORD.finditer(question)]
    words = [t[0] for t in tokens]
    found: set[str] = set()
    acting: set[str] = set()

    def gap_after(index: int) -> str:  # the characters between token `index` and the next one
        end = tokens[index + 1][1] if index + 1 < len(tokens) else len(question)
        return question[tokens[index][2]:end]

    def run(start: int, source: bool = False) -> int:
        """The end of the setting words from `start` (or of the source words), one phrase after another, inside
        one clause."""
        at = start
        while at < len(tokens):
            length = _setting_at(words, at, source)
            if not length or (at > start and gap_after(at - 1).strip()):
                break
            at += length
        return at

    def role_run(start: int) -> tuple[int, int]:
        """(first, end) of an asker's role: setting words ending in a person, after at most MAX_MODIFIERS words
        of one clause that say which ("ED nurse", "community pharmacist", "on-call doctor")."""
        for first in range(start, min(start + MAX_MODIFIERS, len(tokens) - 1) + 1):
            if first > start and gap_after(first - 1).strip():
                break
            end = run(first)
            if end > first and _kind(words[end - 1]) == "person":
                return start, end
        return start, run(start)

    def ends_phrase(end: int) -> bool:
        return (end == len(tokens) or bool(gap_after(end - 1).strip(" '"))
                or words[end].lower() in _function_words() or words[end].lower() in terminology.ordinary_words())

    for i, word in enumerate(words):
        lower = word.lower()
        if lower in SOURCE_INTRODUCERS or lower in PLACE_PREPOSITIONS:  # the source asked: "per this monograph"
            start = i + 1
            if start < len(tokens) and words[start].lower() in DETERMINERS and not gap_after(i).strip():
                start += 1
            elif lower != "per":
                start = len(tokens)  # "to check", "do notes": without a determiner a verb or a plural follows
            end = run(start, source=True)
            auxiliary = lower not in PLACE_PREPOSITIONS and lower != "per"
            if (end > start and not gap_after(start - 1).strip()
                    and (end == len(tokens) or words[end].lower() != "of" if auxiliary else ends_phrase(end))):
                found.update(w.lower() for w in words[start:end])
        if lower in PLACE_PREPOSITIONS or lower in ROLE_INTRODUCERS:
            start = i + 1
            if start < len(tokens) and words[start].lower() in DETERMINERS and not gap_after(i).strip():
                start += 1
            elif lower in ROLE_INTRODUCERS:
                continue
            start, end = role_run(start) if lower in ROLE_INTRODUCERS else (start, run(start))
            if end > start and not gap_after(start - 1).strip() and ends_phrase(end):
                found.update(w.lower() for w in words[start:end])
        if lower in AGENT_INTRODUCERS or lower in DETERMINERS:  # "by the NP", "the GP should"
            start = i + 1
            if (lower in AGENT_INTRODUCERS and start < len(tokens) and words[start].lower() in DETERMINERS
                    and not gap_after(i).strip()):
                start += 1
            start, end = role_run(start)
            agent = lower in AGENT_INTRODUCERS and ends_phrase(end)
            subject = (lower in DETERMINERS and lower not in ("a", "an") and end < len(tokens)
                       and not gap_after(end - 1).strip() and words[end].lower() in AUXILIARIES)
            if (end > start and not gap_after(start - 1).strip() and _kind(words[end - 1]) == "person"
                    and (agent or subject)):
                acting.update(w.lower() for w in words[start:end])
    start = 0
    while start < len(tokens) and words[start].lower() in _OPENERS and not gap_after(start).strip(" ,"):
        start += 1
    start, end = role_run(start)
    if end > start and end < len(tokens) and (gap_after(end - 1).strip() or words[end].lower() in LABEL_ENDINGS):
        found.update(w.lower() for w in words[start:end])
    return frozenset(found | acting), frozenset(acting)


def _setting_at(words: list[str], at: int, source: bool = False) -> int:
    """How many words from `at` make one setting word or phrase ("nurse", "maternity ward"), or one source word
    ("monograph", "reference book"), 0 if none."""
    table = _table()
    for length in (3, 2, 1):
        phrase = " ".join(words[at:at + length]).lower()
        if len(words[at:at + length]) == length and phrase in table and (table[phrase] == "source") == source:
            return length
    return 0


def _kind(word: str) -> str | None:
    return _table().get(word.lower())


@lru_cache(maxsize=1)
def _table() -> dict[str, str]:
    """The setting words, lower case ("gp" too: inside a frame it can only be the general practitioner)."""
    return {word.lower(): kind for word, kind in terminology.setting_words().items()}


@lru_cache(maxsize=1)
def _function_words() -> frozenset[str]:
    return frozenset(w for w in stop_words().get("en", frozenset()) if w.isalpha())
