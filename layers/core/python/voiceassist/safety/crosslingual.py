"""Harm with its concealment asked in a language the screen has no rules for (session 13, harm13).

`languages.py` reads harm in fourteen languages, each a row of words someone wrote from a dictionary; a fifteenth
language passes until its row is written. This reading is one rule over a lexicon of many languages at once: the
FreeDict bilingual dictionaries (Debian's dict-freedict-*, written into `_data/safety/harm_lexicon.tsv` by
`voiceassist_local.evaluation.harm_lexicon_data`, which names the English words of each concept and the
licences). The words of every language are pooled, so a cognate read in one language is read in its neighbours
("secretamente" is Portuguese's and Spanish's, "letal" half of Europe's), and the rule needs no language detector
beyond "not English": in a text whose words are mostly not English function words, and within CONCEAL_WINDOW
characters of one another,

- `harm_concealed_lexicon`: a harm sought (step 3: a killing, the `kill` words not beside a reflexive; a lethal
  effect, the `deadly` words, "tödlich", "letal"; or any death, the `lethal` words, when a person of the asker's own
  circle is named, `person_near`) and the act kept from others: a word of `hidden` ("secretly", "unnoticed",
  "without a trace", "undetectable") or a finding-out (`notice`: "notice", "detect", "find out") within SEEM_WINDOW
  characters of a negation ("sin que el forense lo detecte", "a da nitko ne primijeti"); or a killing kept from
  witnesses (`nobody`, or `anyone` beside a negation: "sin que nadie", "ohne dass jemand"). A dying alone, unnoticed,
  is a ward's question (harm13's probes (c): "Wie viele Patienten sterben unbemerkt an einer Lungenembolie?");
- `death_made_to_seem_lexicon`: a harm sought, as above, and a verb of seeming with an accident or a natural cause
  within SEEM_WINDOW characters either side of it ("que ça ressemble à un accident", "zodat het op een ongeluk
  lijkt": the verb stands last in Dutch, German and Turkish);
- `hidden_at_autopsy_lexicon`: a purpose ("so that", "damit", "zodat"), then within CONCEAL_WINDOW the
  examination of the dead with a negation within SEEM_WINDOW of it ("zodat het bij de sectie niet opvalt"),
  the concealment that names a death by what it hides from;
- `never_wakes_lexicon` (session 18, harm18): a purpose ("so that", "sodat", "pour que", "żeby"), then within
  CONCEAL_WINDOW a waking (`wake`: "wake up", "awaken", "wakker", "réveiller", "obudzić") with a negation within
  SEEM_WINDOW before it: the goal of never waking, English's `goal_outcome` "life" ("so he doesn't wake up"), with
  a person of the asker's circle named or a concealment (`nobody`, `hidden`): "Wie viel Propofol, damit der
  Patient nicht zu früh aufwacht?" is an anaesthetist's. `harm_concealed_lexicon` also reads a harm short of death
  (`ill`: sick, unconscious, hurt, poisoned) after a purpose with no negation between, within CONCEAL_WINDOW of a
  concealment, as it reads a killing ("damit der Patient nicht unbemerkt bewusstlos wird" is a ward's). FreeDict
  lacks the commonest purpose connectives of some languages (Dutch "zodat", German "damit"): there neither reads;
- `killing_sought_lexicon` (step 2): the structure harm_goal.py reads in English, a request for an amount ("how
  much", "how many"), a killing as its goal ("kill", "murder", "poison") and, within CONCEAL_WINDOW of it, a person
  of the asker's circle or "someone" ("Berapa banyak morfin untuk membunuh suami saya?"); a death or a
  dying is not a killing ("how many children die of ..." asks a prognosis), a patient or a child is not of the
  asker's circle ("how many iron tablets can kill a toddler" is toxicology), and a killing with a reflexive
  within REFLEXIVE_WINDOW characters is the person's own ("mon mari menace de se tuer : combien de comprimés ...
  sont dangereux ?" asks about a relative at risk; a reflexive written into the verb, Spanish "matarse", is not
  seen, a gap).

A death alone is clinical in any language ("mortalidad", "letale Dosis"), and so is a secret alone ("secreto
profesional"); an autopsy with a negation is a forensic question ("hallazgos de autopsia no específicos") unless
it is the purpose of an act. English text is left to the English readings (harm_goal.py, harm_shapes.py), which
read its structure: the lexicon holds English cognates ("fatal", "natural", "accident") that an English question
uses clinically.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from voiceassist.common_words import common_words
from voiceassist.phi.word_lists import ENGLISH, stop_words
from voiceassist.settings import PACKAGE_DIR

LEXICON_FILE = PACKAGE_DIR / "_data" / "safety" / "harm_lexicon.tsv"
CONCEAL_WINDOW = 80  # characters between the harm and its concealment, as languages.CONCEAL_WINDOW
# a reflexive this close to a killing makes it the person's own ("mon mari menace de se tuer": a relative at risk)
REFLEXIVE_WINDOW = 12
SEEM_WINDOW = 30  # characters between a verb of seeming and its complement, or a negation and what it negates
# A text is read as not English when under this share of its words (of two letters or more) are English words
# (SCOWL's common words, `common_words.py`, or English stop words) and it has MIN_WORDS such words or more; or when
# most of its letters are not Latin. English clinical questions written in full have three in four or more; the
# shorthand of a ward ("warfarin INR target in afib") may have fewer and be read as not English, which the lexicon's
# conjunctions, not this share, keep from a flag (bench/input_screen_crosslingual.py: no benign text of any set is
# flagged). harm13's probes in 14 languages: at most 0.36
ENGLISH_SHARE = 0.5
MIN_WORDS = 4
# a lexicon word of STEM_LETTERS letters or more also matches a word that shares all but its last letter (its last
# two from LONG_WORD letters; at least STEM_LETTERS - 1 letters) and is at most INFLECTION letters longer than it: the
# inflections of languages the reading has no grammar for ("tödlich" in "tödliche", "matar" in "mataría", "ombrengen"
# in "ombrengt"); "mortal" does not reach "mortalidad". Four shared letters for every word (session 13, steps 1-2)
# let words of one language read another's: Slovene "moriti" (kill) read Spanish "morir", Kurdish "merkuj" Dutch
# "merkt"; three letters off made "habitual" a death. A word of four letters also matches with up to
# SHORT_INFLECTION letters after it ("olum" in "olumu"); shorter words match only themselves
STEM_LETTERS = 5
LONG_WORD = 7
INFLECTION = 3
SHORT_INFLECTION = 2



def _inner_marks() -> str:
    """The combining marks (Unicode Mn, Mc) of the scripts that write them inside a word (the Indic scripts, Thai,
    Lao, Tibetan, Myanmar: U+0900-U+109F; Khmer: U+1780-U+17FF). Python's word class holds none of them, so "घातक"
    fell into "घ" and "तक" and no Hindi word of the lexicon with a vowel sign was ever read (session 20, lang20)."""
    return "".join(chr(c) for block in (range(0x0900, 0x10A0), range(0x1780, 0x1800)) for c in block
                   if unicodedata.category(chr(c)) in ("Mn", "Mc"))


_WORD = re.compile(r"[\w" + _inner_marks() + r"]+")
_LETTERS = re.compile(r"[^\W\d_]{2,}")
# scripts written without spaces between words: a lexicon word is found inside the text's characters
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def plain(text: str) -> str:
    """Lower case without accents (NFKD, combining marks dropped), as the lexicon is written."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


class _Concept:
    """One concept's words: single words (with their stems), phrases, and words of unspaced scripts."""

    def __init__(self, words: set[str]) -> None:
        self.words = frozenset(w for w in words if " " not in w and not _UNSPACED.search(w))
        self.stems: dict[str, list[tuple[str, int]]] = {}
        for word in self.words:
            if len(word) >= STEM_LETTERS:
                stem = word[: max(STEM_LETTERS - 1, len(word) - (1 if len(word) < LONG_WORD else 2))]
                self.stems.setdefault(stem[: STEM_LETTERS - 1], []).append((stem, len(word) + INFLECTION))
            elif len(word) == STEM_LETTERS - 1:
                self.stems.setdefault(word, []).append((word, len(word) + SHORT_INFLECTION))
        phrases = sorted((w for w in words if " " in w and not _UNSPACED.search(w)), key=len, reverse=True)
        self.phrases = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, phrases)) + r")(?!\w)") if phrases else None
        unspaced = sorted((w for w in words if _UNSPACED.search(w) and len(w) >= 2), key=len, reverse=True)
        self.unspaced = re.compile("|".join(map(re.escape, unspaced))) if unspaced else None

    def spans(self, text: str, tokens: list[re.Match[str]]) -> list[tuple[int, int]]:
        """Where the concept's words stand in `text` (plain), as character spans."""
        found = []
        for token in tokens:
            word = token.group()
            if word in self.words or any(word.startswith(stem) and len(word) <= longest
                                         for stem, longest in self.stems.get(word[: STEM_LETTERS - 1], ())):
                found.append(token.span())
        for pattern in (self.phrases, self.unspaced):
            if pattern is not None:
                found += [match.span() for match in pattern.finditer(text)]
        return found


@lru_cache(maxsize=1)
def lexicon() -> dict[str, _Concept]:
    """Each concept's words, every language's pooled."""
    words: dict[str, set[str]] = {}
    for line in LEXICON_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            concept, _, word = line.split("\t")
            words.setdefault(concept, set()).add(word)
    return {concept: _Concept(found) for concept, found in words.items()}


def not_english(text: str) -> bool:
    """Whether `text` is written in another language than English: most of its letters not Latin, or MIN_WORDS
    words or more of which under ENGLISH_SHARE are English words."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    if sum(not ("a" <= plain(c) <= "z") for c in letters) * 2 > len(letters):
        return True
    words = _LETTERS.findall(text.lower())
    english = stop_words()[ENGLISH]
    known = common_words()
    return len(words) >= MIN_WORDS and sum(w in known or w in english for w in words) < ENGLISH_SHARE * len(words)


def _near(first: list[tuple[int, int]], second: list[tuple[int, int]], window: int) -> bool:
    """Whether a span of `first` and a span of `second` stand within `window` characters (not overlapping)."""
    return any(0 <= b0 - a1 <= window or 0 <= a0 - b1 <= window for a0, a1 in first for b0, b1 in second)


def _after(first: list[tuple[int, int]], second: list[tuple[int, int]], window: int) -> list[tuple[int, int]]:
    """The spans of `second` that begin within `window` characters after the end of a span of `first`."""
    return [(b0, b1) for b0, b1 in second for _, a1 in first if 0 <= b0 - a1 <= window]


def crosslingual_kinds(text: str) -> list[str]:
    """The kinds of harm with its concealment read in `text` by the multilingual lexicon (the module's doc);
    nothing for English text."""
    if not not_english(text):
        return []
    plain_text = plain(text)
    tokens = list(_WORD.finditer(plain_text))
    concepts = lexicon()
    spans = {name: concept.spans(plain_text, tokens) for name, concept in concepts.items()}
    lethal = spans.get("lethal", [])
    killing = [span for span in spans.get("kill", []) if not _near([span], spans.get("self", []), REFLEXIVE_WINDOW)]
    # a harm sought: a killing or a lethal effect ("tödlich"), or any death when a person of the asker's own circle
    # is named; a dying alone, unnoticed or seeming natural, is a ward's question ("Wie viele Patienten sterben
    # unbemerkt an einer Lungenembolie?", "Hoe voorkom ik dat een patiënt overlijdt zonder dat iemand het merkt?")
    harms = killing + spans.get("deadly", []) + (lethal if spans.get("person_near") else [])
    kinds = []
    unnoticed = [span for span in spans.get("notice", []) if _near([span], spans.get("negation", []), SEEM_WINDOW)]
    unwitnessed = spans.get("nobody", []) + [
        span for span in spans.get("anyone", []) if _near([span], spans.get("negation", []), SEEM_WINDOW)]
    if _near(harms, spans.get("hidden", []) + unnoticed, CONCEAL_WINDOW) or _near(
            killing, unwitnessed, CONCEAL_WINDOW):
        kinds.append("harm_concealed_lexicon")
    seeming = [span for span in spans.get("pretext", []) if _near([span], spans.get("seem", []), SEEM_WINDOW)]
    if _near(harms, seeming, CONCEAL_WINDOW):
        kinds.append("death_made_to_seem_lexicon")
    if killing and spans.get("request") and _near(killing, spans.get("person", []), CONCEAL_WINDOW):
        kinds.append("killing_sought_lexicon")
    # (session 18, harm18) the goal of never waking: a purpose, then a waking with a negation within SEEM_WINDOW
    # before it ("zodat hij niet meer wakker wordt", "pour qu'elle ne se réveille plus", "żeby się nie obudził"); a
    # harm short of death (the `ill` words: sick, unconscious, hurt, poisoned) sought after a purpose and kept from
    # others as above ("para ela passar mal sem ninguém desconfiar")
    purposed = [span for span in spans.get("wake", []) if _after(spans.get("purpose", []), [span], CONCEAL_WINDOW)]
    if (spans.get("person_near") or spans.get("nobody") or spans.get("hidden")) and any(
            _after([n], [w], SEEM_WINDOW) for w in purposed for n in spans.get("negation", [])):
        kinds.append("never_wakes_lexicon")
    ill = [(i0, i1) for i0, i1 in _after(spans.get("purpose", []), spans.get("ill", []), CONCEAL_WINDOW)
           if not any(p1 <= n0 and n1 <= i0 for p0, p1 in spans.get("purpose", []) if 0 <= i0 - p1 <= CONCEAL_WINDOW
                      for n0, n1 in spans.get("negation", []))]
    if _near(ill, spans.get("hidden", []) + unnoticed + unwitnessed, CONCEAL_WINDOW):
        kinds.append("harm_concealed_lexicon")
    examined = _after(spans.get("purpose", []), spans.get("examination", []), CONCEAL_WINDOW)
    if examined and _near(examined, spans.get("negation", []), SEEM_WINDOW):
        kinds.append("hidden_at_autopsy_lexicon")
    return list(dict.fromkeys(kinds))
