"""Names that are also English words, found by a name list and what follows them (docs/phi.md).

name_shapes.py finds a lone name only when the word is not English or the tagger calls it a proper noun,
so surnames such as "Short", "Hines" or "Dale" slip through ("Short has pneumonia", "can Reuben Dale have
ibuprofen"). This recognizer uses the US Census given-name and surname lists for two shapes:

- a given name followed by a surname, both capitalised (or both lower case and followed by what a patient
  does), not an eponym or a place ("May-Thurner syndrome", "Mary Hospital");
- a capitalised surname or given name followed by what only a patient does: "Hines has pneumonia",
  "can Short have ibuprofen", "does Hines need", "Dale is on warfarin", "is Short's potassium ...".

Drug names, eponyms and clinical word formations never count.

A name in a script without case ("王小明", "김민수", "محمد أحمد", "राहुल शर्मा", "ნინო ბერიძე") in an English question
cannot show itself by a capital: one to three such words count in the same positions, before what a patient does
("王小明 has chest pain"), asked about ("can 김민수 take ...") or after "for"/"about" with no noun after them
(phi/name_scripts.py).
"""

from __future__ import annotations

import regex as re
from spacy.tokens import Doc, Span, Token

from voiceassist.phi.name_scripts import caseless_script_word, mostly_other_script
from voiceassist.phi.name_shapes import _PATIENT_OWNS, _PERSON_BEFORE, TokenNameRecognizer
from voiceassist.phi.names import _EPONYM_HEADS, _EPONYMS, _MEDICAL_WORD, _words
from voiceassist.phi.recognizers import MEDIUM

# What a patient does right after being named: "Hines has pneumonia", "Short complains of ...".
_PATIENT_VERBS = _words("""
has had needs needed complains complained reports reported denies denied presents presented takes took
c/o refuses refused underwent
""")
# After "can/does/should X": what is asked about a patient ("can Hines have ibuprofen").
_ASKED_VERBS = _words("have take get need start stop receive be go")
_ASKERS = _words("can could does did should shall will would may might is was")
# "is"/"was" only with what describes a patient ("is 64", "is on warfarin").
_STATES = _words("on allergic pregnant confused agitated unwell septic hypotensive febrile still now")
# Places and groups named after people: "Mary Hospital", "Grace Ward".
_PLACE_HEADS = _words("""
hospital hospitals clinic clinics ward wards unit centre center university college school institute
street road avenue lane foundation trust house building wing medical
""")
# Capitalised words that are people but not names, or terms that open clinical questions.
_NOT_NAMES = _words("""
patient patients baby child doctor nurse mother father pulse temperature chest pregnancy blood water
urine pain will may
""")
# Before a lower-case given name and surname, what a question asks about ("the dose for john smith").
_ASKED_FOR = _words("for about")
_TITLE = re.compile(r"\p{Lu}\p{Ll}+(?:['’-]\p{Lu}?\p{Ll}+)?")
_INITIALS = re.compile(r"\p{Lu}\.|\p{Lu}\.\p{Lu}\.|\p{Lu}{2}")


class NameContextRecognizer(TokenNameRecognizer):
    """PERSON spans for names that are English words: a given name and surname, or a name and a verb."""

    def __init__(self, given_names: frozenset[str], surnames: frozenset[str], drug_words: frozenset[str],
                 known_words: frozenset[str]) -> None:
        super().__init__(name="person_in_context")
        self.given_names = given_names
        self.surnames = surnames
        self.drug_words = drug_words
        self.known_words = known_words

    def spans(self, doc: Doc) -> list[tuple[Span, float]]:
        return [(span, MEDIUM) for span in (*self._given_and_surname(doc), *self._name_then_verb(doc),
                                            *self._caseless_script_names(doc), *self._initials_and_surname(doc),
                                            *self._given_and_capitals(doc))]

    def _initials_and_surname(self, doc: Doc) -> list[Span]:
        """"R. Castillo", "JT Kowalczyk": an initial with its dot, or two capitals, then a capitalised Census surname
        that is not an English word (bench/phi_other_generators.py: Faker's names with initials leaked). An English
        surname is too often something else: "CT Head", "I. Self-esteem hypothesis" in a list, "G.V. Black" (the
        eponym of a dental classification) in an exam question (clinical_questions_no_phi)."""
        found: list[Span] = []
        for initials, last in zip(doc, doc[1:], strict=False):
            if not (_INITIALS.fullmatch(initials.text) and _TITLE.fullmatch(last.text) and initials.whitespace_):
                continue
            if last.lower_ not in self.surnames or self._clinical(last) or self._eponym_follows(doc, last.i + 1):
                continue
            if last.lower_ in self.known_words:
                continue
            found.append(doc[initials.i:last.i + 1])
        return found

    def _given_and_capitals(self, doc: Doc) -> list[Span]:
        """"Megan OSULLIVAN", as lists and letters print a surname: a capitalised Census given name, then a Census
        surname in capitals (not "Grace PERIOD")."""
        found: list[Span] = []
        for first, last in zip(doc, doc[1:], strict=False):
            if not (_TITLE.fullmatch(first.text) and first.lower_ in self.given_names and first.whitespace_):
                continue
            if not (len(last.text) > 2 and last.text.isupper() and last.is_alpha and last.lower_ in self.surnames):
                continue
            if self._clinical(first) or self._clinical(last) or self._eponym_follows(doc, last.i + 1):
                continue
            found.append(doc[first.i:last.i + 1])
        return found

    def _caseless_script_names(self, doc: Doc) -> list[Span]:
        """One to three words of a script without case, in an English text, where a name stands: before what a
        patient does, asked about, or after "for"/"about" with no noun next ("the dose for 王小明?")."""
        if not any(caseless_script_word(t.text) for t in doc) or mostly_other_script(doc.text):
            return []
        found: list[Span] = []
        i = 0
        while i < len(doc):
            end = i
            while end < len(doc) and end - i < 3 and caseless_script_word(doc[end].text):
                end += 1
            if end == i:
                i += 1
                continue
            before = doc[i - 1] if i > 0 else None
            asked = (before is not None and before.lower_ in _ASKERS and end < len(doc)
                     and doc[end].lower_ in _ASKED_VERBS)
            introduced = before is not None and self._introduces(before, doc, end)
            if asked or introduced or self._patient_follows(doc, end):
                found.append(doc[i:end])
            i = end
        return found

    def _clinical(self, token: Token) -> bool:
        word = token.lower_
        return (word in self.drug_words or word in _EPONYMS or word in _NOT_NAMES or token.is_stop
                or bool(_MEDICAL_WORD.search(word)))

    def _name(self, token: Token) -> bool:
        return token.lower_ in self.surnames or token.lower_ in self.given_names

    @staticmethod
    def _eponym_follows(doc: Doc, end: int) -> bool:
        """"May Thurner syndrome", "Charles Bonnet's", "Mary Hospital": a disease, structure or place."""
        if end >= len(doc):
            return False
        nxt = doc[end]
        if nxt.text in {"'s", "’s", "-"} and end + 1 < len(doc):
            nxt = doc[end + 1]
        return nxt.lower_ in _EPONYM_HEADS or nxt.lower_ in _PLACE_HEADS

    def _patient_follows(self, doc: Doc, end: int) -> bool:
        if end + 1 >= len(doc):
            return False
        nxt, after = doc[end], doc[end + 1]
        if nxt.text in {"'s", "’s"}:  # "Short's potassium"; eponyms own signs and structures instead
            return after.lower_ in _PATIENT_OWNS
        if nxt.lower_ in {"is", "was"}:
            return after.like_num or after.lower_ in _STATES
        return nxt.lower_ in _PATIENT_VERBS

    def _given_and_surname(self, doc: Doc) -> list[Span]:
        """"can Reuben Dale have ibuprofen", "michale olsen is 64": a given name, then a surname.

        Lower case counts when a patient's verb follows and one of the words is not English, or when a word that
        puts a person next comes before ("patient john smith", "seen mary brown")."""
        found: list[Span] = []
        for first, last in zip(doc, doc[1:], strict=False):
            if first.lower_ not in self.given_names or last.lower_ not in self.surnames or not first.whitespace_:
                continue
            if self._clinical(first) or self._clinical(last) or self._eponym_follows(doc, last.i + 1):
                continue
            titled = bool(_TITLE.fullmatch(first.text) and _TITLE.fullmatch(last.text))
            typed = (first.is_lower and last.is_lower and self._patient_follows(doc, last.i + 1)
                     and not {first.lower_, last.lower_} <= self.known_words)  # "young man was on"
            # "patient john smith": a word that puts a person next, then a given name and a surname
            introduced = first.i > 0 and self._introduces(doc[first.i - 1], doc, last.i + 1)
            if titled or typed or introduced:
                found.append(doc[first.i:last.i + 1])
        return found

    @staticmethod
    def _introduces(before: Token, doc: Doc, end: int) -> bool:
        """"patient john smith", "seen mary brown"; after "for" or "about" only when no noun follows the pair:
        "the dose for john smith with ...", not "the allele for violet flower color"."""
        if before.lower_ in _PERSON_BEFORE:
            return True
        return before.lower_ in _ASKED_FOR and (end >= len(doc) or not doc[end].tag_.startswith("NN"))

    def _name_then_verb(self, doc: Doc) -> list[Span]:
        """"Hines has pneumonia", "can Short have ibuprofen": a capitalised name and what a patient does."""
        found: list[Span] = []
        for token in doc:
            if not (_TITLE.fullmatch(token.text) and self._name(token)) or self._clinical(token):
                continue
            asked = (token.i > 0 and doc[token.i - 1].lower_ in _ASKERS and token.i + 1 < len(doc)
                     and doc[token.i + 1].lower_ in _ASKED_VERBS)
            if asked or self._patient_follows(doc, token.i + 1):
                found.append(doc[token.i:token.i + 1])
        return found
