"""Names the way clinicians type them: ALL CAPS, all lower case, or a rare surname alone at the start.

names.py finds names that are capitalised like names. Typed questions lose that signal ("zebulon
quartermaine is 64 ...", "LOLITA MORA needs ...", "Quartermaine has pneumonia ..."), so this recognizer
looks at what a name does in the sentence instead: it opens the question and is followed by what a patient
does ("has", "is 64", "'s potassium", "in bay 3"), or it follows a word that introduces a person. Drug names
(a dictionary of 100,000 brand and generic names) and clinical word formations never count.
"""

from __future__ import annotations

import regex as re
from presidio_analyzer import EntityRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts
from spacy.tokens import Doc, Span, Token

from voiceassist.phi.names import _EPONYM_HEADS, _EPONYMS, _MEDICAL_WORD, _PARTICLES, _base_forms, _words
from voiceassist.phi.recognizers import MEDIUM, STRONG

# What a patient does right after being named ("Reed has pneumonia", "romane marques is 64").
_PATIENT_VERBS = _words("""
has had needs needed keeps kept complains complained reports reported denies denied takes took stopped
cannot can't refuses refused wants wanted lives lived died feels felt missed misses asked called paid
underwent undergone
""")
# "is"/"was" only with what describes a patient ("is 64", "is on warfarin"); "X is" alone defines a term.
_STATES = _words("""
on allergic pregnant confused agitated unwell septic hypotensive febrile back still now
""")
# What a patient owns ("Vega's potassium"); eponyms own structures, signs and diagrams instead.
_PATIENT_OWNS = _words("""
potassium sodium creatinine bp inr hb haemoglobin hemoglobin glucose temperature temp pain wound labs
results blood meds medication medications dose sats oxygen saturation weight pulse rash cough fever
urine son daughter wife husband mother father family chart notes symptoms breathing
""")
# Words that put a person next: "seen zebulon quartermaine today", "labs for edda everhart".
_PERSON_BEFORE = _words("""
pt patient client resident seen saw mother father son daughter wife husband sister brother ring call phone
email transfer transferred named mr mrs ms dr miss seeing discussed reviewed examined visited rang phoned
""")
# Who or what opens a question as its subject without being a name.
_NOT_PEOPLE = _words("""
patient patients baby child infant boy girl man woman mother father pulse temperature chest pregnancy
hematocrit haematocrit hemoglobin haemoglobin doctor nurse surgeon resident physician everyone someone
""")
_NOT_NAME_TAGS = ("JJ", "RB")
_VERB_TAGS = ("VB", "IN", "CD", "MD")
_PLACES_IN_WARD = frozenset({"bay", "bed", "room", "op", "ward", "cubicle"})
_CAPITALISED = re.compile(r"\p{Lu}(?:['’]\p{Lu}?)?\p{Ll}+(?:['’-]\p{L}\p{Ll}+)?")
_VOWELS = re.compile(r"[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüý]", re.IGNORECASE)


class TokenNameRecognizer(EntityRecognizer):
    """A PERSON recognizer that reads spaCy's tokens (the NLP engine's Doc); its vocabularies are injected."""

    def __init__(self, name: str) -> None:
        super().__init__(supported_entities=["PERSON"], name=name)

    def load(self) -> None:
        """Nothing to load: the vocabularies are injected."""

    def analyze(self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
                ) -> list[RecognizerResult]:
        if nlp_artifacts is None or not isinstance(nlp_artifacts.tokens, Doc):
            return []
        return [RecognizerResult("PERSON", span.start_char, span.end_char, score)
                for span, score in self.spans(nlp_artifacts.tokens)]

    def spans(self, doc: Doc) -> list[tuple[Span, float]]:
        raise NotImplementedError


class NameShapeRecognizer(TokenNameRecognizer):
    """PERSON spans in all caps, in lower case, or as a lone capitalised word that opens a question."""

    def __init__(self, known_words: frozenset[str], drug_words: frozenset[str]) -> None:
        super().__init__(name="person_typed")
        self.known_words = known_words
        self.drug_words = drug_words

    def spans(self, doc: Doc) -> list[tuple[Span, float]]:
        return [*self._caps_runs(doc), *self._lowercase_names(doc), *self._opening_surnames(doc)]

    # --- what a word is -------------------------------------------------------------------------------------

    def _unknown(self, token: Token) -> bool:
        """Not English, not a drug, not a clinical formation: a word only a name would be."""
        word = token.lower_
        return (token.is_alpha and len(word) >= 3 and _VOWELS.search(word) is not None and not token.is_stop
                and word not in self.drug_words and word not in _EPONYMS and not _MEDICAL_WORD.search(word)
                and not any(form in self.known_words for form in _base_forms(token)))

    def _clinical(self, token: Token) -> bool:
        word = token.lower_
        return word in self.drug_words or word in _EPONYMS or bool(_MEDICAL_WORD.search(word))

    def _opens(self, token: Token) -> bool:
        """First word of the text, a line, a sentence or a clause after a colon."""
        if token.i == 0:
            return True
        before = token.doc[token.i - 1]
        return before.is_space or before.text in {".", "!", "?", ":", ";", "-", "–", "(", '"'}

    def _patient_follows(self, doc: Doc, end: int, *, only_strong: bool = False) -> bool:
        """What follows a name: ", 58,", "'s potassium", "in bay 3", "post op" (strong: only a patient is
        followed by these), or a patient's verb ("has", "is 64", "is on warfarin")."""
        if end >= len(doc) or end + 1 >= len(doc):
            return False
        nxt, after = doc[end], doc[end + 1]
        if nxt.text in {"'s", "’s"}:
            return after.lower_ in _PATIENT_OWNS
        if (nxt.text == "," and after.like_num) or (nxt.lower_ in {"in", "post"} and after.lower_ in _PLACES_IN_WARD):
            return True
        if only_strong:
            return False
        if nxt.lower_ in {"is", "was"}:
            return after.like_num or after.lower_ in _STATES
        return nxt.lower_ in _PATIENT_VERBS

    # --- the three shapes ------------------------------------------------------------------------------------

    def _caps_runs(self, doc: Doc) -> list[tuple[Span, float]]:
        """ALL CAPS names: two to four words, one of at least five letters, one not English ("BRET HESTER")."""
        found: list[tuple[Span, float]] = []
        index = 0
        while index < len(doc):
            end = index
            while end < len(doc) and end - index < 4 and doc[end].is_alpha and doc[end].text.isupper() and (
                    len(doc[end]) >= 4 or doc[end].lower_ in _PARTICLES or doc[end].lower_ == "te"):
                end += 1
            run = doc[index:end]
            named = any(self._unknown(t) for t in run) or self._patient_follows(doc, end)
            if (len(run) >= 2 and any(len(t) >= 5 for t in run) and named
                    and not any(self._clinical(t) or t.lower_ in _EPONYM_HEADS for t in run)
                    and not self._shouted(doc) and not self._heading(doc, index, end)):
                found.append((run, MEDIUM))
            index = max(end, index + 1)
        return found

    @staticmethod
    def _heading(doc: Doc, start: int, end: int) -> bool:
        """A label between dashes ("question - AIIMS NICU - neonate") is a heading, not a name."""
        dashes = {"-", "–", "—"}
        return (start > 0 and doc[start - 1].text in dashes) or (end < len(doc) and doc[end].text in dashes)

    @staticmethod
    def _shouted(doc: Doc) -> bool:
        """A text typed in capitals throughout says nothing by its capitals."""
        letters = [c for c in doc.text if c.isalpha()]
        return sum(c.isupper() for c in letters) > 0.6 * len(letters)

    def _lowercase_names(self, doc: Doc) -> list[tuple[Span, float]]:
        """Lower-case names that open a question or follow a person word: "zebulon quartermaine is 64"."""
        found: list[tuple[Span, float]] = []
        for token in doc:
            if not (token.is_lower and token.is_alpha):
                continue
            introduced = token.i > 0 and doc[token.i - 1].lower_ in _PERSON_BEFORE
            joined = token.i > 0 and not doc[token.i - 1].whitespace_  # "non-pulsatile"
            if not (introduced or (self._opens(token) and not joined)):
                continue
            end = token.i
            while end < len(doc) and end - token.i < 3 and doc[end].is_lower and doc[end].is_alpha and (
                    not doc[end].is_stop or doc[end].lower_ in _PARTICLES) and not self._clinical(doc[end]) and (
                    doc[end].lower_ not in _PATIENT_VERBS):
                end += 1
            run = doc[token.i:end]
            words = [t for t in run if t.lower_ not in _PARTICLES]
            unknown = sum(self._unknown(t) for t in words)
            if not unknown or any(t.tag_.startswith(_VERB_TAGS) or (
                    t.tag_.startswith(_NOT_NAME_TAGS) and not self._unknown(t)) for t in words):
                continue
            follows = self._patient_follows(doc, end)
            if (len(words) >= 2 and (unknown == len(words) or follows)) or (introduced and follows):
                found.append((run, MEDIUM))
        return found

    def _opening_surnames(self, doc: Doc) -> list[tuple[Span, float]]:
        """A capitalised word that opens a question and acts like a patient: "Quartermaine has pneumonia"."""
        found: list[tuple[Span, float]] = []
        ner = {t.i: t.ent_type_ for t in doc}
        for token in doc:
            text = token.text
            if not (self._opens(token) and _CAPITALISED.fullmatch(text)):
                continue
            if token.is_stop or self._clinical(token):
                continue
            unknown = self._unknown(token) or (not token.is_alpha and len(text) > 3)  # "O'brien"
            if token.lower_ in _NOT_PEOPLE:
                continue
            # A known word ("Gould", "Short") needs the tagger or NER to call it a name, or a context only a
            # patient has ("Seidel post op", "Flowers's potassium").
            proper = token.tag_ == "NNP" or ner.get(token.i) == "PERSON"
            if unknown or proper:
                follows = self._patient_follows(doc, token.i + 1)
            else:
                follows = self._patient_follows(doc, token.i + 1, only_strong=True)
            if follows:
                found.append((doc[token.i:token.i + 1], MEDIUM if unknown else MEDIUM - 0.05))
        return found


def drop_drug_names(results: list[RecognizerResult], text: str, drug_words: frozenset[str]
                    ) -> list[RecognizerResult]:
    """PERSON guesses made only of drug names ("Xarelto", "Keppra") are not people; cued names stay."""
    def drugs_only(result: RecognizerResult) -> bool:
        words = re.findall(r"[\p{L}'’-]+", text[result.start:result.end].lower())
        return bool(words) and all(w in drug_words for w in words)

    return [r for r in results
            if not (r.entity_type == "PERSON" and r.score < STRONG and drugs_only(r))]


def drug_vocabulary(variants: dict[str, object]) -> frozenset[str]:
    """One-word drug names from drug-named-entity-recognition's dictionary (brand and generic)."""
    return frozenset(v for v in variants if v.isalpha() and len(v) >= 4)
