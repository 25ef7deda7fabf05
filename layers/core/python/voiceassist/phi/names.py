"""Person names for Presidio without a name list: spaCy NER, cue phrases and word shape (docs/phi.md).

Clinical text is full of eponyms ("Graves disease"), drug names and capitalised terms, so every guess is
checked against eponym lists, clinical word formations and the words that follow it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import regex as re
from presidio_analyzer import EntityRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts
from spacy.tokens import Doc, Span, Token

from voiceassist.phi.name_scripts import (
    OTHER_SCRIPT_CUES,
    UNSPACED_CUE,
    cased_name_shape,
    caseless_script_word,
    foreign_letters,
    mostly_other_script,
    other_script,
    pronounceable,
)
from voiceassist.phi.name_titles import PLACE_CUE as _PLACE_CUE
from voiceassist.phi.name_titles import TITLE_PATTERN, first_token_from, name_after_title
from voiceassist.phi.not_names import (
    abbreviated_binomial,
    amount_after,
    caseless_english,
    clinical_abbreviations,
    clinical_shorthand,
)
from voiceassist.phi.recognizers import MEDIUM, STRONG, WEAK
from voiceassist.phi.word_lists import GIVEN_NAMES, foreign_function_words, name_words, word_list


def _words(block: str) -> frozenset[str]:
    return frozenset(block.split())


# Words after an eponym that make it a disease, sign or structure, not a person ("Graves disease").
_EPONYM_HEADS = _words("""
disease diseases syndrome syndromes sign signs test tests reflex law laws triad tetrad phenomenon
maneuver manoeuvre classification criteria fracture fractures operation procedure repair score scale
node nodes cell cells body bodies line lines plexus canal duct gland glands ligament space area angle
organ membrane tube catheter method technique stain staining solution effect principle equation rule
index stage staging ulcer ulcers tumor tumour palsy nodule nodules disc disk fascia fossa pouch triangle
nerve artery vein valve muscle ring zone layer corpuscle corpuscles sphincter crest lobe bundle fibers
fibres granules incision approach position view sound murmur spot spots lesion lesions reaction agar
medium pill pump forceps speculum appliance splint cast bur file clasp curette scaler elevator retractor
virus bacillus angina hypothesis theory model analysis matrix curve formula ratio coefficient cycle
pathway receptor antigen antibody factor apparatus
""")
# Heads a person can own ("Maria's test results", "his position"): after a possessive they prove nothing.
_OWNABLE_HEADS = _words("""
test tests score scale stage staging file pill pump position view reaction sound line lines area space
body effect lesion lesions spot spots medium cast approach model analysis matrix cycle
""")
_MEDICAL_SUFFIX = re.compile(r"(?:oma|itis|osis|emia|aemia|pathy|plasia|trophy|algia|ism|iasis|uria|cele"
                             r"|ectomy|otomy|ostomy|plasty|scopy|graphy|gram|cyte|blast|plegia|paresis)s?$")
# Eponyms that stand alone in clinical questions ("a patient with Parkinson's", "described by Virchow").
_EPONYMS = _words("""
alzheimer parkinson crohn hodgkin graves cushing addison huntington tourette asperger raynaud kawasaki
guillain barre barré sjogren sjögren marfan klinefelter wernicke korsakoff hashimoto kaposi ewing wilms
burkitt paget meniere ménière buerger takayasu behcet behçet reiter whipple conn zollinger ellison apgar
gram ziehl neelsen giemsa papanicolaou doppler foley heimlich babinski mcburney rovsing kernig
brudzinski trousseau chvostek tinel phalen lachman mcmurray romberg rinne weber snellen gleason breslow
colles monteggia galeazzi lisfranc hirschsprung meckel fallot eisenmenger ebstein kussmaul virchow
starling fick kiesselbach waldeyer langerhans purkinje schwann ranvier golgi nissl kupffer leydig
sertoli paneth peyer auerbach meissner pacinian broca sylvius willis hesselbach treitz oddi vater
winslow kocher billroth barrett zenker plummer vinson mallory boerhaave krukenberg courvoisier charcot
kayser fleischer down henle duchenne dupuytren digeorge prinzmetal freud piaget erikson mendel pavlov
darwin nernst hardy weinberg bayes coombs wolff wharton stensen bartholin skene cowper graaf eustachian
""")
# Word parts that mark a drug, chemical or clinical term; names almost never have them.
_MEDICAL_WORD = re.compile(
    r"(?i)^(?:hyper|hypo|pseudo|dys|glyco|phospho|fibrino|cervico|mesio|disto|odonto|neuro|cardio|gastro"
    r"|hepato|nephro|osteo|myelo|immuno|histo|hemo|haemo|thrombo|angio|broncho|pneumo|leuko|leuco|erythro)"
    r"|(?<=\w{3})(?:amine|azole|pram|oxacin|mycin|cillin|cycline|pril|sartan|olol|statin|prazole|tidine|vir|mab|nib"
    r"|parin|profen|pine|idine|amide|phate|inine|ase|ogen|genic|cyte|blast|phil|philia|lytics?|lysis|stasis"
    r"|rrh?o?ea|tumou?r|oma|itis|osis|emia|aemia|uria|pathy|plasia|trophy|ectomy|otomy|ostomy|plasty|scopy"
    r"|ology|i[sz]ation|ation|ylation|cal|inal|ical|ous|oid)s?$"
)
# Sentence-initial words that are clinical formations rather than first names ("Subgingival", "Steepest").
_SENTENCE_START_TERM = re.compile(
    r"(?i)^(?:micro|macro|sub|supra|infra|inter|intra|retro|trans|auto|endo|epi|peri|para|poly|mono|pre|post"
    r"|anti|multi|extra|hemi|semi|oligo|pan)|(?<=\w{3})(?:est|al|ic|ive|ous|ol|ate|ite|um|ae|ism|ist|ity|ides?"
    r"|ed|ing|ant|ent)$"
)
_OPENERS = frozenset({".", "!", "?", ":", ";", '"', "“", "(", "[", "-", "–", "—", ">", "*", "'", "‘", "\\"})
_PARTICLES = _words("""
van von de der den del della di da dos das du la le bin ibn al el ten ter st
""")
_RELATIONS = _words("""
address phone number email e-mail daughter son wife husband mother father brother sister child children
family account house home birthday friend partner boss mom dad parents
""")
_STRONG_CUE = re.compile(
    r"(?i)\b(?:(?:my|his|her|their|your|patient'?s?|maiden|first|last|full|family|middle|given)\s+)?"
    r"(?:name(?:d|s)?(?:\s+(?:is|was|are|him|her|them))?\s*[:=?-]?|call(?:s|ed)?\s+(?:me|him|her|them)"
    r"|(?P<title>" + TITLE_PATTERN + r"))\s*"
)

# Who cares for the patient: "follow up with Madison Boyes", "seen by Dr", "referred to Kowalski".
_CARE_CUE = re.compile(
    r"(?i)\b(?:follow(?:ed)?[\s-]*up\s+with|seen\s+by|referred\s+(?:to|by)|consult(?:ed)?\s+with"
    r"|spoke\s+(?:to|with)|attending|surgeon|nurse|physician|gp)\s*[,:]?\s+"
)
# A name addressed at the start of a sentence: "Oscar, can I speak to your boss?", "Anna, please ...".
_VOCATIVE = re.compile(
    r"(?:^|(?<=[.!?]\s))(\p{Lu}[\p{Ll}'’-]+),\s+(?=(?:can|could|would|will|please|i|you|we|do|did|have)\b)",
    re.IGNORECASE,
)
_WEAK_CUE = re.compile(
    r"(?i)\b(?:patient|pt|client|son|daughter|wife|husband|mother|father|brother|sister|friend|partner"
    r"|spouse|guardian|hi|hello|dear|hey|this\s+is|i\s+am|i'm|said|says|told|asked)\s*[,:]?\s+"
)
# "Patient" in other scripts ("Пациент Иван Петров", "المريض محمد"): phi/name_scripts.py
_OTHER_SCRIPT_CUE = re.compile(
    r"(?i)(?<![\p{L}\p{M}])(?:" + "|".join(re.escape(c) for c in sorted(OTHER_SCRIPT_CUES, key=len, reverse=True))
    + r")\s*[,:]?\s+"
)
# A capital inside a word marks an abbreviation or a chemical ("NiTi", "HBsAg"), except after Mc/Mac/O'.
_INNER_CAPITAL = re.compile(r"(?<!^(?:Mc|Mac|O'|O’|D'|De|Di|Da|La|Le|Van|Von|Du))(?<![-'’])(?<=.)\p{Lu}")
# A Greek letter, by its letter or its name, or a word of letters and digits ("a1", "alpha-1", "HbA1c") marks a
# clinical term ("\u03b11-antitrypsin", "\u03b2-blocker", "kappa light chain"), as does a word joined to one
_GREEK_LETTER_NAMES = _words("""
alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi
psi omega
""")
_LETTERS_AND_DIGITS = re.compile(r"^(?=.*\p{L})(?=.*\d)[\p{L}\d-]+$")
_FUNCTION_WORDS = "voiceassist_function_words"  # Doc.user_data key: the text's foreign function words


class PersonNameRecognizer(EntityRecognizer):
    """Person names from spaCy NER, cue phrases and word shape, with eponyms and clinical words kept out.

    known_words is an English vocabulary (the spaCy pipeline's lemma index): a capitalised word that is
    not in it, mid-sentence, is most likely a name; a word that is in it needs NER or a cue to count.
    Text without any capitals has lost that signal, so there unknown words are flagged as weak guesses.
    """

    NER_SCORE = 0.85
    SHAPE_SCORE = 0.55

    def __init__(self, known_words: frozenset[str]) -> None:
        super().__init__(supported_entities=["PERSON"], name="person_clinical")
        self.known_words = known_words

    def load(self) -> None:
        """Nothing to load: the vocabulary is injected."""

    def analyze(self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
                ) -> list[RecognizerResult]:
        if nlp_artifacts is None or not isinstance(nlp_artifacts.tokens, Doc):
            return []
        doc = nlp_artifacts.tokens
        # A question in Spanish, French, German, ...: its function words ("Cuál", "Quelle", "Wie") are words,
        # unless a Census given name or surname is written the same ("Mia", "Dan"): that may still be a name.
        doc.user_data[_FUNCTION_WORDS] = foreign_function_words(t.lower_ for t in doc) - name_words()
        caseless = not any(c.isupper() for c in text)
        foreign = mostly_other_script(text)
        found: dict[tuple[int, int], float] = {}
        for ent in doc.ents:
            ent = self._without_function_words(ent)
            if caseless and ent.label_ == "PERSON":
                ent = self._without_shorthand_ends(ent)
            if len(ent) and ent.label_ == "PERSON" and self._plausible_ner_name(ent, caseless, foreign=foreign):
                lone_word = len(ent) == 1 and self._known(ent[0])  # "Paul", but also "Moon facies"
                self._add(found, ent, self.SHAPE_SCORE if lone_word else self.NER_SCORE)
        for cue, score in ((_STRONG_CUE, STRONG), (_WEAK_CUE, MEDIUM), (_CARE_CUE, MEDIUM), (_PLACE_CUE, MEDIUM),
                           (_OTHER_SCRIPT_CUE, MEDIUM)):
            for match in cue.finditer(text):
                titled = cue is _PLACE_CUE or (cue is _STRONG_CUE and bool(match.group("title")))
                if titled:
                    span = self._name_after_title(doc, match.end(), place=cue is _PLACE_CUE)
                else:
                    span = self._name_after(doc, match.end(), strong=cue is _STRONG_CUE, caseless=caseless)
                if span is None or self._used_as_eponym(span):
                    continue  # a cue outweighs the eponym list ("Mrs. Barrett"), not the context
                if cue is _CARE_CUE and len(span) == 1 and self._known(span[0]):
                    continue  # "referred to Neurology" names a service, not a person
                self._add(found, span, score)
        for match in UNSPACED_CUE.finditer(text):  # "患者王小明，男": no token boundary between the cue and the name
            key = match.span("name")
            found[key] = max(MEDIUM, found.get(key, 0.0))
        for match in _VOCATIVE.finditer(text):
            span = doc.char_span(*match.span(1))
            if span is not None and not span[0].is_stop and not self._used_as_eponym(span):
                self._add(found, span, MEDIUM)
        for token in doc:
            if self._name_shaped(token) and self._followed_by_relation(token):
                self._add(found, self._widen(doc, token.i), STRONG)  # "Mary's daughter", "Ann's address"
            elif score := self._unknown_word_score(token, caseless):
                span = self._widen(doc, token.i)
                if self._mostly_unknown(span) and not self._is_eponym(span):
                    self._add(found, span, score)
        return [RecognizerResult("PERSON", start, end, score) for (start, end), score in found.items()]

    @staticmethod
    def _add(found: dict[tuple[int, int], float], span: Span, score: float) -> None:
        key = (span.start_char, span.end_char)
        found[key] = max(score, found.get(key, 0.0))

    def _known(self, token: Token) -> bool:
        return (token.is_stop or any(form in self.known_words for form in _base_forms(token))
                or self._function_word(token))

    @staticmethod
    def _function_word(token: Token) -> bool:
        """A stop word of the text's language when that is not English (foreign_function_words)."""
        return token.lower_ in token.doc.user_data.get(_FUNCTION_WORDS, frozenset())

    def _without_function_words(self, ent: Span) -> Span:
        """An NER span less the foreign function words at its ends ("Welche Nebenwirkungen": "Welche" asks)."""
        start, end = ent.start, ent.end
        while start < end and self._function_word(ent.doc[start]) and ent.doc[start].lower_ not in _PARTICLES:
            start += 1
        while end > start and self._function_word(ent.doc[end - 1]) and ent.doc[end - 1].lower_ not in _PARTICLES:
            end -= 1
        return ent if (start, end) == (ent.start, ent.end) else Span(ent.doc, start, end, label=ent.label_)

    def _without_shorthand_ends(self, ent: Span) -> Span:
        """An NER span of a text without capitals less the drugs and clinical abbreviations at its ends, and then,
        in a span that had one, the English words ("paracetamol max", "azithromycin dose": the tagger reads a run
        of lower-case words as one name; phi/not_names.py). A Census name stays ("max")."""
        start, end = ent.start, ent.end
        while start < end and clinical_shorthand(ent.doc[start].lower_):
            start += 1
        while end > start and clinical_shorthand(ent.doc[end - 1].lower_):
            end -= 1
        if (start, end) != (ent.start, ent.end):
            while start < end and self._caseless_english(ent.doc[start]):
                start += 1
            while end > start and self._caseless_english(ent.doc[end - 1]):
                end -= 1
        return ent if (start, end) == (ent.start, ent.end) else Span(ent.doc, start, end, label=ent.label_)

    def _caseless_english(self, token: Token) -> bool:
        return token.is_alpha and caseless_english(
            token.lower_, lambda word: any(form in self.known_words for form in _word_forms(word, proper=False)))

    def _mostly_unknown(self, span: Span) -> bool:
        """A name found by shape is mostly unknown words; "Selective Androgen Receptor" is a term.

        Half and half passes ("Scott Deutekom") unless the English word is an adjective, a participle or
        a plural ("Lateral Radiographs", "Increased Monocytic"), which a name never is.
        """
        known = [t for t in span if t.lower_ not in _PARTICLES and self._known(t)]
        unknown = sum(t.lower_ not in _PARTICLES for t in span) - len(known)
        if unknown != len(known):
            return unknown > len(known)
        return not any(self._inflected_or_modifier(t) for t in known)

    def _inflected_or_modifier(self, token: Token) -> bool:
        if token.tag_ in {"JJ", "JJR", "JJS", "VBN", "VBG", "VBD", "NNS", "NNPS"}:
            return True
        return token.lower_ not in self.known_words and self._known(token)  # known once its ending is cut

    def _plausible_ner_name(self, ent: Span, caseless: bool, *, foreign: bool = False) -> bool:
        """NER also tags capitalised clinical words ("Urine output", "Biopsy of ...") as people.

        A word of another script counts when shaped like a name ("Παπαδόπουλος", not "δόση"), or when its script
        has no case and the text is not `foreign` (mostly in other scripts, where the English model's PERSON is
        noise: "मेटफॉर्मिन की").
        """
        words = [t for t in ent if t.lower_ not in _PARTICLES]
        if not words or self._is_eponym(ent) or not all(self._ner_word_shaped(t, caseless, foreign) for t in ent):
            return False
        if any(_MEDICAL_WORD.search(t.text) or _in_lettered_term(t) or abbreviated_binomial(t) for t in words):
            return False
        if len(words) == 1 and _clinical_modifier(words[0], self._known):  # "the max dose", "stat dose"
            return False
        if len(words) == 1 and self._known(words[0]):  # a lone English word: "Urine output", "Joints"
            return not (self._sentence_initial(words[0]) or self._inflected_or_modifier(words[0]))
        return True

    def _ner_word_shaped(self, token: Token, caseless: bool, foreign: bool) -> bool:
        if other_script(token.text) or (foreign and foreign_letters(token.text)):  # "場合、どの": a token, no word
            return cased_name_shape(token.text) or (caseless_script_word(token.text) and not foreign)
        return caseless or self._name_shaped(token)

    @staticmethod
    def _name_shaped(token: Token) -> bool:
        """Capitalised like a name: "Anna", "McKenzie", "O'Brien", "Jean-Luc", "Γιάννης", "Иван"; not "NiTi",
        "HBsAg" or "ΔΝΑ". A word of a script without case is never shaped like a name (phi/name_scripts.py)."""
        text = token.text
        if text.lower() in _PARTICLES:
            return True
        if other_script(text):
            return cased_name_shape(text)
        if not (text[:1].isupper() and pronounceable(text) and all(c.isalpha() or c in "'’-" for c in text)):
            return False
        return _INNER_CAPITAL.search(text) is None and any(c.islower() for c in text)

    def _unknown_word_score(self, token: Token, caseless: bool) -> float:
        """How much a word outside the English vocabulary looks like a name (0 for not at all)."""
        text = token.text
        if len(text) < 3 or not pronounceable(text) or self._known(token) or text.lower() in _EPONYMS:
            return 0.0
        if other_script(text) and (caseless or caseless_script_word(text)):
            return 0.0  # only a capital shows a name by shape; a cue or NER finds the rest ("пациент иван")
        if _MEDICAL_WORD.search(text) or _in_lettered_term(token) or _clinical_modifier(token, self._known):
            return 0.0
        if abbreviated_binomial(token):  # "E. Coli", "h. pylori": an organism, not an initial and a surname
            return 0.0
        if caseless:  # an English word or shorthand is no guess, unless it is a noun a verb follows ("avi has")
            english = self._caseless_english(token) and not _subject_of_verb(token)
            return WEAK if text.isalpha() and not english else 0.0
        if not self._name_shaped(token):
            return 0.0
        if not self._sentence_initial(token):
            return self.SHAPE_SCORE
        # At a sentence start capitals say little (drug names start questions too); letters English never
        # uses, and a "Name:" label, still say a lot.
        next_text = token.doc[token.i + 1].text if token.i + 1 < len(token.doc) else ""
        if other_script(text):  # "Какая", "Ποια" open questions in their scripts as any word does
            return self.SHAPE_SCORE if next_text == ":" else 0.0
        if not text.isascii() or next_text == ":":
            return self.SHAPE_SCORE
        # Otherwise a short word that is no compound's first half, superlative or clinical formation.
        if len(text) > 8 or next_text == "-" or _SENTENCE_START_TERM.search(text):
            return 0.0
        return WEAK

    @staticmethod
    def _sentence_initial(token: Token) -> bool:
        """First word of a sentence, a line, a label or a quotation, where capitals say little."""
        if token.i == 0:
            return True
        before = token.doc[token.i - 1]
        return before.is_space or before.text in _OPENERS

    def _widen(self, doc: Doc, index: int) -> Span:
        """Grow a name over neighbouring capitalised words and particles ("Carry van Bruggen")."""
        start, end = index, index + 1
        while start > 0 and self._name_shaped(doc[start - 1]) and not doc[start - 1].is_stop:
            start -= 1
        while end < len(doc) and self._name_shaped(doc[end]) and (
                not doc[end].is_stop or doc[end].lower_ in _PARTICLES):
            end += 1
        while end - 1 > start and doc[end - 1].lower_ in _PARTICLES:
            end -= 1
        return doc[start:end]

    def _name_after(self, doc: Doc, char: int, *, strong: bool, caseless: bool) -> Span | None:
        """The name that follows a cue ending at `char`: up to three name-like words."""
        start = first_token_from(doc, char)
        if start is None:
            return None
        end = start
        while end < len(doc) and end - start < 3:
            token = doc[end]
            if not (token.is_alpha or other_script(token.text)) or (token.is_stop and token.lower_ not in _PARTICLES):
                break
            if other_script(token.text):  # a capital, or a script without case, in a name's position
                if not (cased_name_shape(token.text) or caseless_script_word(token.text)):
                    break
            elif not (self._name_shaped(token) or (caseless and (strong or not self._known(token)))):
                break
            end += 1
        return doc[start:end] if end > start else None

    def _name_after_title(self, doc: Doc, char: int, *, place: bool = False) -> Span | None:
        return name_after_title(doc, char, particles=_PARTICLES, clinical=self._clinical_word, known=self._known,
                                place=place)

    @staticmethod
    def _clinical_word(token: Token) -> bool:
        word = token.lower_
        return word in _EPONYM_HEADS or word in _EPONYMS or bool(_MEDICAL_WORD.search(token.text))

    def _is_eponym(self, span: Span) -> bool:
        """A listed eponym on its own ("a patient with Parkinson's"), or any name used as one."""
        return (len(span) == 1 and span[0].lower_ in _EPONYMS) or self._used_as_eponym(span)

    def _used_as_eponym(self, span: Span) -> bool:
        """A name followed by a disease, sign, test or structure: 'Graves disease', "Von-Gierke's disease"."""
        possessive = False
        for token in span.doc[span.end:span.end + 5]:
            if token.text in {"'s", "’s", "'", "’", "-"} or self._name_shaped(token):
                possessive = possessive or token.text in {"'s", "’s", "'", "’"}
                continue  # the rest of a compound eponym: "Reed-Sternberg cells", "Kiesselbach's plexus"
            head = token.lower_
            if head in _OWNABLE_HEADS and (possessive or (_given_name_first(span) and _results_follow(token))):
                return False  # "Maria's test", "John Smith test results": a person's, not an eponym's
            return head in _EPONYM_HEADS or bool(_MEDICAL_SUFFIX.search(head) and head not in _RELATIONS)
        return False

    @staticmethod
    def _followed_by_relation(token: Token) -> bool:
        after = token.doc[token.i + 1:token.i + 3]
        return len(after) == 2 and after[0].text in {"'s", "’s"} and after[1].lower_ in _RELATIONS


def _term_marker(token: Token) -> bool:
    """A Greek letter ("\u03b2"), a word of letters and digits ("a1", "alpha-1"), or a Greek letter's name that
    begins a term: joined by a hyphen or followed by a number ("beta-blocker", "alpha 1"), or in lower case ("kappa
    light chain"; a capitalised "Delta" may be a given name, a lower-case one in a text without capitals is read as
    the letter)."""
    text = token.text
    if (len(text) == 1 and unicodedata.name(text, "").startswith("GREEK")) or _LETTERS_AND_DIGITS.match(text):
        return True
    if token.lower_ not in _GREEK_LETTER_NAMES:
        return False
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return (after is not None and not token.whitespace_ and after.text == "-") or (
        after is not None and after.like_num) or token.is_lower


def _in_lettered_term(token: Token) -> bool:
    """The token is a term marker, or follows one (joined by a hyphen, or after a Greek letter's number: "alpha 1
    antitrypsin"), or comes first in a compound whose later half is one."""
    doc, i = token.doc, token.i
    if _term_marker(token):
        return True
    before = [doc[j] for j in range(max(i - 2, 0), i)]
    if before and _term_marker(before[-1]):
        return True
    if len(before) == 2 and before[1].text == "-" and not before[0].whitespace_ and _term_marker(before[0]):
        return True
    if len(before) == 2 and before[1].like_num and before[0].lower_ in _GREEK_LETTER_NAMES:
        return True
    return i + 2 < len(doc) and doc[i + 1].text == "-" and not token.whitespace_ and _term_marker(doc[i + 2])


def _clinical_modifier(token: Token, known: Callable[[Token], bool]) -> bool:
    """A lower-case clinical abbreviation before the word it modifies: "the max dose", "stat dose", "prn morphine".

    "max" and "min" are given names too, and spaCy's NER reads them as people in a text without capitals; before a
    lower-case word that is `known` (English or a drug) and no verb, stop word or person of its own (not "does max
    need", "max has", "sara peres", "max smith" as one span) it is the abbreviation, and so it is before an amount
    ("max eight a day", "max 4 tablets": phi/not_names.py `amount_after`; not an age, "max 55 yo"). A cue or a
    title still finds the name (names.py, name_context.py)."""
    if not token.is_lower or token.lower_ not in clinical_abbreviations():
        return False
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if after is not None and amount_after(after):  # "max eight a day", "max 4 tablets"; not "max 55 yo"
        return True
    return (after is not None and after.is_alpha and after.is_lower and not after.is_stop and known(after)
            and not after.tag_.startswith(("VB", "MD")) and after.ent_type_ != "PERSON")


def _subject_of_verb(token: Token) -> bool:
    """A noun right before a verb or a modal: where a name stands as a sentence's subject ("avi has a fever": "avi"
    is a clinical abbreviation too)."""
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return token.tag_.startswith("NN") and after is not None and after.tag_.startswith(("VB", "MD"))


def _given_name_first(span: Span) -> bool:
    """A capitalised Census given name, then more of the name ("John Smith"): eponyms are mostly surnames
    ("Coombs test", "Hosmer-Lemeshow test"), though not always ("Paul Bunnell test")."""
    first = span[0]
    return len(span) > 1 and first.is_title and first.lower_ in word_list(GIVEN_NAMES)


def _results_follow(head: Token) -> bool:
    """The head's results or report follow ("John Smith test results", "Mary Jones scan report"): a file or a
    question about someone's results, which is how a patient's name reaches a title or a question."""
    after = head.doc[head.i + 1:head.i + 2]
    return len(after) == 1 and after[0].lower_ in {"result", "results", "report", "reports"}


_INFLECTIONS = (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""),
                ("ing", "e"))


def _base_forms(token: Token) -> tuple[str, ...]:
    """The word and what it may be inflected from ("lesions", "calcified", "dilated", "moves").

    The pipeline runs without spaCy's lemmatizer, which costs more than the rest of the name logic. Like
    the lemmatizer, words tagged as proper nouns keep their form, bar a plural s ("Boyes", "Rosing").
    """
    return _word_forms(token.lower_, proper=token.tag_ in {"NNP", "NNPS"})


def _word_forms(word: str, *, proper: bool) -> tuple[str, ...]:
    inflections = _INFLECTIONS[3:4] if proper else _INFLECTIONS
    forms = [word]
    for suffix, replacement in inflections:
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            forms.append(stem + replacement)
            if suffix in {"ed", "ing"} and _doubled_consonant(stem) and word not in name_words():
                forms.append(stem[:-1])  # "admitted" -> "admit", "referring" -> "refer", "stopped" -> "stop"
    return tuple(dict.fromkeys(forms))


def _doubled_consonant(stem: str) -> bool:
    """English doubles a stem's final consonant before "-ed" and "-ing" ("admit", "admitted"; "refer", "referring"),
    so a stem left ending in two of the same consonant may be the word undoubled. Not for a Census name (the caller):
    "Canning", "Dunning" and "Fanning" are surnames first, though "can", "dun" and "fan" are words."""
    return len(stem) > 3 and stem[-1] == stem[-2] and stem[-1].isalpha() and stem[-1] not in "aeiouy"


def english_vocabulary(lemma_index: dict[str, list[str]]) -> frozenset[str]:
    """Every lower-case word of a lemma index (spaCy's WordNet-derived noun/verb/adj/adv lists)."""
    return frozenset(w.lower() for words in lemma_index.values() for w in words)
