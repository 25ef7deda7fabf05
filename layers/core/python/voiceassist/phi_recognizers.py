"""Clinical PHI recognizers for Presidio: identifiers by pattern, names by NER, cue words and word shape.

Each recognizer aims at the HIPAA Safe Harbor identifiers that show up in a clinician's question (names,
record/account/plan/licence numbers, phone/fax, e-mail, street address, ZIP, dates tied to a person,
ages over 89, URLs and IPs). Clinical text is full of numbers, doses, eponyms and drug names, so every
pattern either needs a shape no dose or lab value has, or a cue word that says what the number is.
"""

from __future__ import annotations

import regex as re
from presidio_analyzer import EntityRecognizer, Pattern, PatternRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts
from spacy.tokens import Doc, Span, Token

# Scores: STRONG needs nothing else; WEAK is a guess that only the strict mode acts on.
STRONG = 0.9
MEDIUM = 0.6
WEAK = 0.4

_ID = r"[A-Z0-9][A-Z0-9-]{3,18}[A-Z0-9]"  # an identifier: at least 5 characters ...
_HAS_DIGITS = r"(?=[A-Z-]*\d[A-Z-]*\d)"  # ... of which at least two are digits
_GLUE = r"(?:\s*(?:number|num|no\.?|nbr|id|#|is|was|of|:)\s*){0,3}\s*"


def _cued(name: str, cues: str, score: float = STRONG) -> Pattern:
    """A value that follows a cue phrase; only the value is the entity (variable-width look-behind)."""
    return Pattern(name, rf"(?<=\b(?:{cues}){_GLUE}){_HAS_DIGITS}{_ID}\b", score)


def identifier_recognizers() -> list[PatternRecognizer]:
    """Record, account, plan and licence numbers, recognised by what precedes them."""
    table = {
        "MEDICAL_RECORD_NUMBER": r"mrn|medical\s+record|med\s+rec|chart|patient\s+id|hospital\s+(?:number|no)"
        r"|case\s+(?:number|no)|encounter|visit\s+(?:number|no|id)|admission\s+(?:number|no)",
        "ACCOUNT_NUMBER": r"account|acct|a/c|billing|invoice|claim",
        "HEALTH_PLAN_ID": r"member|subscriber|policy|insurance|health\s+plan|medicaid|medicare|beneficiary"
        r"|group\s+(?:number|no)|insurer",
        "LICENSE_NUMBER": r"licen[cs]e|certificate|dea|npi|passport|registration",
        "DEVICE_ID": r"serial|device|implant|pacemaker|vehicle|vin|plate",
    }
    recognizers = [
        PatternRecognizer(entity, name=f"{entity.lower()}_cued", patterns=[_cued(entity, cues)])
        for entity, cues in table.items()
    ]
    recognizers.append(PatternRecognizer(
        "US_DRIVER_LICENSE", name="us_driver_license_cued",
        # Scored above the generic licence cue so that a driver's licence keeps its own type.
        patterns=[_cued("driver licence", r"driver'?s?\s+licen[cs]e|driving\s+licen[cs]e|\bDL", 0.95)]))
    return recognizers


_SSN_INVALID = re.compile(r"^(?:000|666|9\d\d)|^\d{3}\D?00|0000$")


class SsnRecognizer(PatternRecognizer):
    """US social security numbers: dashed form on its own, bare nine digits only after a cue."""

    def __init__(self) -> None:
        super().__init__("US_SSN", name="us_ssn_clinical", patterns=[
            Pattern("ssn dashed", r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])", STRONG),
            Pattern("ssn cued", r"(?<=\b(?:ssn|social\s+security)\D{0,25})\b\d{3}[ .-]?\d{2}[ .-]?\d{4}\b",
                    STRONG),
        ])

    def invalidate_result(self, pattern_text: str) -> bool:
        return bool(_SSN_INVALID.search(pattern_text.replace(" ", "").replace(".", "-")))


class PhoneRecognizer(PatternRecognizer):
    """Phone and fax numbers: three or more digit groups, or a bracketed/plus prefix, 7 to 15 digits."""

    def __init__(self) -> None:
        groups = r"(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?(?:\d{2,5}[\s.-]){1,4}\d{2,8}"
        extension = r"(?:\s?(?:x|ext\.?)\s?\d{1,5})?"
        super().__init__("PHONE_NUMBER", name="phone_clinical", patterns=[
            Pattern("phone groups", rf"(?<![\w/.,:-]){groups}{extension}(?![\w/%]|[.,-]\d)", MEDIUM),
        ], context=list(_PHONE_CUES))

    def invalidate_result(self, pattern_text: str) -> bool:
        digits = sum(c.isdigit() for c in pattern_text)
        if not 7 <= digits <= 15:
            return True
        # Two groups joined by a dash or dot read as a range or a decimal ("1500-2000") unless a trunk
        # zero starts them ("06-24312407"); joined by a space they read as a local number ("785 8949").
        two_groups = re.fullmatch(r"(\d+)([.-])\d+", pattern_text.strip())
        iso_date = re.match(r"(?:19|20)\d\d-\d\d-\d\d", pattern_text.strip())
        return bool((two_groups and not two_groups.group(1).startswith("0")) or iso_date)


_PHONE_CUES = ("phone", "tel", "telephone", "fax", "cell", "mobile", "call", "pager", "reach", "contact")


def cued_phone_recognizer() -> PatternRecognizer:
    """Any 7 to 15 digits right after a phone word: "call 9469 9966" has no other shape to go by."""
    cues = "|".join(_PHONE_CUES)
    return PatternRecognizer("PHONE_NUMBER", name="phone_cued", patterns=[
        Pattern("phone cued", rf"(?<=\b(?:{cues})\D{{0,20}})\+?\d(?:[\s().-]?\d){{6,14}}(?![\d/])", STRONG),
    ])


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")


def date_recognizer() -> PatternRecognizer:
    """Calendar dates precise to the day (a year alone, a duration or '17 weeks' is not PHI).

    A date is PHI when it belongs to a person; without a cue (born, admitted, ...) it is only a guess
    that the strict mode acts on ("as on 31st March 2016" in a statistics question is not a patient's).
    """
    numeric = r"(?<![\d/.-])\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})(?![\d/-]|\.\d)"
    month_first = rf"{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    day_first = rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+\d{{4}}"
    iso = r"(?:19|20)\d\d-[01]\d-[0-3]\d"
    any_date = rf"(?:{numeric}|\b{month_first}\b|\b{day_first}\b|\b{iso}\b)"
    events = r"born|dob|birth|birthday|admitted|admission|discharged|died|deceased|seen|visit"
    cue = rf"(?<=\b(?:{events})(?:\W+[\w']{{1,5}}){{0,3}}\W+)"  # "DOB:", "born on", "date of birth. It's"
    return PatternRecognizer("DATE", name="date_clinical", patterns=[
        Pattern("date", any_date, 0.5),
        Pattern("cued date", cue + any_date, STRONG),
        Pattern("cued day", rf"{cue}{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b", STRONG),
    ])


def age_over_89_recognizer() -> PatternRecognizer:
    """Ages of 90 and over are PHI on their own (Safe Harbor); younger ages are not."""
    unit = r"(?:-|\s)?(?:years?-old|yrs?-old|years?|yrs?|yo|y/o|y\.o\.)(?!\w)"
    return PatternRecognizer("AGE_OVER_89", name="age_over_89", patterns=[
        Pattern("age with unit", rf"\b(?:9\d|1[0-2]\d)\s?{unit}", STRONG),
        Pattern("aged", r"(?<=\b(?:aged?|age\s+of)\s+)(?:9\d|1[0-2]\d)\b", STRONG),
    ], global_regex_flags=re.IGNORECASE)


def network_recognizers() -> list[PatternRecognizer]:
    """URLs that name a host (bare 'e.g.' or 'N. gonorrhoea' never match) and e-mail addresses."""
    url = PatternRecognizer("URL", name="url_clinical", patterns=[
        Pattern("url", r"\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:!?)]", STRONG),
    ])
    email = PatternRecognizer("EMAIL_ADDRESS", name="email_clinical", patterns=[
        Pattern("email", r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b", STRONG),
    ])
    return [url, email]


# Street words that are nothing else, and those that are also English ("she still gardens", "by the way"):
# the second kind counts only capitalised.
_STREET_SUFFIX = r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|parkway|pkwy|highway|hwy|terrace"
_AMBIGUOUS_STREET_SUFFIX = (
    r"Drive|Dr|Court|Ct|Way|Place|Pl|Circle|Cir|Square|Sq|Trail|Crescent|Close|Alley|Plaza|Row|Mews"
    r"|Gardens|Grove"
)
# Continental street words, as a word of their own ("Grote Baan") or the end of one ("Bruggenweg");
# the short ones end English words too ("during 2"), so they count only in a capitalised word.
_STREET_WORD_END = (
    r"stra(?:ss|ß)e|str\.|gasse|gatan|vägen|veien|straat|plein|plaats|dreef|gracht|utca|ulica|allee"
)
_SHORT_STREET_WORD_END = (
    r"weg|vej|gade|gata|väg|vei|laan|baan|kade|singel|tie|katu|kuja|polku|út|tér|platz|damm"
)
_STREET_PREFIX = (
    r"via|viale|piazza|calle|carrer|avenida|av\.|rua|praça|travessa|rue|chemin|ctra\.|paseo|avenue|ul\.|trg"
)
_CAPITAL_WORD = r"(?-i:\p{Lu})[\w'’-]*"
_NAME_WORD = r"(?!(?:the|a|an|of|in|on|at|to|for|with|and|or|by|from|is|was|per)\b)[^\W\d_][\w'’.-]*"


class StreetAddressRecognizer(PatternRecognizer):
    """Street addresses in English and continental forms, unit numbers, PO and military boxes."""

    def __init__(self) -> None:
        patterns = [
            Pattern("number then street", rf"\b\d{{1,6}}[A-Za-z]?,?\s+(?:{_NAME_WORD}\s+){{1,4}}"
                    rf"(?:{_STREET_SUFFIX}|(?-i:{_AMBIGUOUS_STREET_SUFFIX}))\b\.?", MEDIUM),
            Pattern("street then number", rf"\b(?:{_CAPITAL_WORD}\s+){{0,3}}[^\W\d_]*(?:{_STREET_WORD_END})"
                    rf"\s*\d{{1,5}}[A-Za-z]?\b", MEDIUM),
            Pattern("capitalised street then number", rf"\b(?:{_CAPITAL_WORD}\s+){{0,3}}(?-i:\p{{Lu}})\w*"
                    rf"(?:{_SHORT_STREET_WORD_END})\s*\d{{1,5}}[A-Za-z]?\b", MEDIUM),
            Pattern("prefix street", rf"\b(?:{_STREET_PREFIX})\s+(?:{_NAME_WORD}\s+){{1,4}}\d{{1,5}}\b",
                    MEDIUM),
            Pattern("unit", r"\b(?:apt|apartment|suite|ste|unit|flat)\.?\s*#?\s*\d{1,5}[A-Za-z]?\b", MEDIUM),
            Pattern("box", r"\b(?:p\.?\s?o\.?\s+box|box|psc|cmr|unit)\s+\d{2,6}\b", MEDIUM),
            Pattern("military", r"\b(?:apo|fpo|dpo)\s+(?:aa|ae|ap)\b(?:\s+\d{5})?", STRONG),
            Pattern("corner", rf"\bcorner\s+of\s+(?:{_NAME_WORD}\s+){{1,4}}and\s+(?:{_NAME_WORD}\s*){{1,4}}",
                    MEDIUM),
        ]
        super().__init__("STREET_ADDRESS", name="street_address", patterns=patterns,
                         context=["address", "live", "lives", "street", "moved", "send", "mail", "meet"])


def zip_code_recognizer() -> PatternRecognizer:
    """ZIP and postal codes: after a cue, a state code, or a place name that ends an address line."""
    return PatternRecognizer("ZIP_CODE", name="zip_code", patterns=[
        Pattern("cued zip", r"(?i)(?<=\b(?:zip|postal|post)\s*(?:code)?\s*(?:is|:)?\s*)\d{5}(?:-\d{4})?\b",
                STRONG),
        Pattern("state zip", r"(?<=\b[A-Z]{2}\s+)\d{5}(?:-\d{4})?\b", STRONG),  # "IL 62704", "AP 95145"
        Pattern("line end", r"(?<=\p{Lu}\p{Ll}+,?\s)\d{5}(?:-\d{4})?(?=\s*$)", MEDIUM),
    ], global_regex_flags=re.MULTILINE)


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
    r"|(?:mr|mrs|ms|mx|miss|dr|prof|mister)\b\.?)\s*"
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
# A capital inside a word marks an abbreviation or a chemical ("NiTi", "HBsAg"), except after Mc/Mac/O'.
_INNER_CAPITAL = re.compile(r"(?<!^(?:Mc|Mac|O'|O’|D'|De|Di|Da|La|Le|Van|Von|Du))(?<![-'’])(?<=.)\p{Lu}")
_VOWEL = re.compile(r"[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿ]", re.IGNORECASE)


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
        caseless = not any(c.isupper() for c in text)
        found: dict[tuple[int, int], float] = {}
        for ent in doc.ents:
            if ent.label_ == "PERSON" and self._plausible_ner_name(ent, caseless):
                lone_word = len(ent) == 1 and self._known(ent[0])  # "Paul", but also "Moon facies"
                self._add(found, ent, self.SHAPE_SCORE if lone_word else self.NER_SCORE)
        for cue, score in ((_STRONG_CUE, STRONG), (_WEAK_CUE, MEDIUM), (_CARE_CUE, MEDIUM)):
            for match in cue.finditer(text):
                span = self._name_after(doc, match.end(), strong=cue is _STRONG_CUE, caseless=caseless)
                if span is None or self._used_as_eponym(span):
                    continue  # a cue outweighs the eponym list ("Mrs. Barrett"), not the context
                if cue is _CARE_CUE and len(span) == 1 and self._known(span[0]):
                    continue  # "referred to Neurology" names a service, not a person
                self._add(found, span, score)
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
        return token.is_stop or any(form in self.known_words for form in _base_forms(token))

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

    def _plausible_ner_name(self, ent: Span, caseless: bool) -> bool:
        """NER also tags capitalised clinical words ("Urine output", "Biopsy of ...") as people."""
        words = [t for t in ent if t.lower_ not in _PARTICLES]
        if not words or self._is_eponym(ent) or not (caseless or all(self._name_shaped(t) for t in ent)):
            return False
        if any(_MEDICAL_WORD.search(t.text) for t in words):
            return False
        if len(words) == 1 and self._known(words[0]):  # a lone English word: "Urine output", "Joints"
            return not (self._sentence_initial(words[0]) or self._inflected_or_modifier(words[0]))
        return True

    @staticmethod
    def _name_shaped(token: Token) -> bool:
        """Capitalised like a name: "Anna", "McKenzie", "O'Brien", "Jean-Luc"; not "NiTi" or "HBsAg"."""
        text = token.text
        if text.lower() in _PARTICLES:
            return True
        if not (text[:1].isupper() and _VOWEL.search(text) and all(c.isalpha() or c in "'’-" for c in text)):
            return False
        return _INNER_CAPITAL.search(text) is None and any(c.islower() for c in text)

    def _unknown_word_score(self, token: Token, caseless: bool) -> float:
        """How much a word outside the English vocabulary looks like a name (0 for not at all)."""
        text = token.text
        if len(text) < 3 or not _VOWEL.search(text) or self._known(token) or text.lower() in _EPONYMS:
            return 0.0
        if _MEDICAL_WORD.search(text):
            return 0.0
        if caseless:
            return WEAK if text.isalpha() else 0.0
        if not self._name_shaped(token):
            return 0.0
        if not self._sentence_initial(token):
            return self.SHAPE_SCORE
        # At a sentence start capitals say little (drug names start questions too); letters English never
        # uses, and a "Name:" label, still say a lot.
        next_text = token.doc[token.i + 1].text if token.i + 1 < len(token.doc) else ""
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
        start = next((t.i for t in doc if t.idx >= char), None)
        if start is None:
            return None
        end = start
        while end < len(doc) and end - start < 3:
            token = doc[end]
            if not token.is_alpha or (token.is_stop and token.lower_ not in _PARTICLES):
                break
            if not (self._name_shaped(token) or (caseless and (strong or not self._known(token)))):
                break
            end += 1
        return doc[start:end] if end > start else None

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
            if possessive and head in _OWNABLE_HEADS:
                return False
            return head in _EPONYM_HEADS or bool(_MEDICAL_SUFFIX.search(head) and head not in _RELATIONS)
        return False

    @staticmethod
    def _followed_by_relation(token: Token) -> bool:
        after = token.doc[token.i + 1:token.i + 3]
        return len(after) == 2 and after[0].text in {"'s", "’s"} and after[1].lower_ in _RELATIONS


_INFLECTIONS = (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""),
                ("ing", "e"))


def _base_forms(token: Token) -> tuple[str, ...]:
    """The word and what it may be inflected from ("lesions", "calcified", "dilated", "moves").

    The pipeline runs without spaCy's lemmatizer, which costs more than the rest of the name logic. Like
    the lemmatizer, words tagged as proper nouns keep their form, bar a plural s ("Boyes", "Rosing").
    """
    word = token.lower_
    inflections = _INFLECTIONS[3:4] if token.tag_ in {"NNP", "NNPS"} else _INFLECTIONS
    forms = [word]
    for suffix, replacement in inflections:
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            forms.append(word[: -len(suffix)] + replacement)
    return tuple(forms)


def english_vocabulary(lemma_index: dict[str, list[str]]) -> frozenset[str]:
    """Every lower-case word of a lemma index (spaCy's WordNet-derived noun/verb/adj/adv lists)."""
    return frozenset(w.lower() for words in lemma_index.values() for w in words)


def pattern_recognizers() -> list[EntityRecognizer]:
    """Every pattern recognizer of the clinical PHI engine (names are PersonNameRecognizer's job)."""
    return [
        *identifier_recognizers(), SsnRecognizer(), PhoneRecognizer(), cued_phone_recognizer(),
        date_recognizer(), age_over_89_recognizer(), *network_recognizers(), StreetAddressRecognizer(),
        zip_code_recognizer(),
    ]
