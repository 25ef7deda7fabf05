"""Clinical synonyms: the same thing said by a clinician, a patient, a British or an American reference.

A question says "adrenaline", the reference "epinephrine"; "high blood pressure" and "hypertension"; "stomach
upset" and "gastrointestinal effects"; "chest X-ray" and "chest radiograph". Word overlap (BM25, the evidence
score's topic coverage, the extractive composer) cannot see these, and the small sentence embedder sees few.

Each group below lists interchangeable forms of one concept. Where a question uses a form:

- search gets the group's first (clinical) form in brackets after it (like abbreviations, query/expansion.py);
- the evidence score counts the concept as covered by a passage holding any one form (query/evidence.py);
- the extractive composer counts the concept once, whichever form a sentence uses (`concept_terms`).

Forms are matched on whole words (plurals as singular), longest first, so "raised blood pressure" is one
concept, not three words; a group lists the inflections it means ("inject", "injected"). Groups hold general
clinical vocabulary (international and US drug names, lay and clinical terms for conditions, symptoms, tests
and actions), never text of one document; a form with a second common meaning is left out ("cold", "fit").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from voiceassist.query.terms import content_terms, drug_words

GROUPS: tuple[tuple[str, ...], ...] = (
    # drug names: international (INN/BAN) and US (USAN) forms
    ("epinephrine", "adrenaline", "adrenalin"), ("norepinephrine", "noradrenaline"),
    ("acetaminophen", "paracetamol"), ("albuterol", "salbutamol"), ("levalbuterol", "levosalbutamol"),
    ("furosemide", "frusemide"), ("lidocaine", "lignocaine"), ("glyburide", "glibenclamide"),
    ("nitroglycerin", "glyceryl trinitrate", "gtn"), ("meperidine", "pethidine"),
    ("cyclosporine", "ciclosporin"), ("rifampin", "rifampicin"), ("amoxicillin", "amoxycillin"),
    ("cephalexin", "cefalexin"), ("amoxicillin/clavulanate", "amoxicillin-clavulanate", "co-amoxiclav"),
    ("trimethoprim-sulfamethoxazole", "co-trimoxazole", "cotrimoxazole"), ("valproic acid", "valproate"),
    ("isoproterenol", "isoprenaline"), ("phenylephrine", "phenylephrine hydrochloride"),
    ("methimazole", "thiamazole"), ("dicyclomine", "dicycloverine"), ("ipratropium", "ipratropium bromide"),
    ("estradiol", "oestradiol"), ("estrogen", "oestrogen"), ("sulfasalazine", "sulphasalazine"),
    ("bendroflumethiazide", "bendrofluazide"), ("chlorpheniramine", "chlorphenamine"),
    ("acetylsalicylic acid", "aspirin"), ("vitamin b12", "cobalamin", "cyanocobalamin"),
    ("vitamin k", "phytomenadione", "phytonadione"), ("insulin glargine", "glargine"),
    # drug classes
    ("antihypertensive", "antihypertensives", "blood pressure medication", "blood pressure drug",
     "blood pressure lowering"),
    ("ace inhibitor", "angiotensin-converting enzyme inhibitor"),
    ("arb", "angiotensin receptor blocker", "angiotensin ii receptor blocker", "sartan"),
    ("diuretic", "water pill", "water tablet"), ("anticoagulant", "blood thinner"),
    ("antibiotic", "antibacterial", "antimicrobial"), ("antihistamine", "antihistamines", "h1 antihistamine"),
    ("corticosteroid", "steroid", "glucocorticoid"), ("nsaid", "anti-inflammatory", "nonsteroidal"),
    ("painkiller", "analgesic", "pain relief"), ("statin", "cholesterol-lowering"),
    ("intravenous fluid", "fluid bolus", "iv fluid", "crystalloid", "saline bolus"),
    # conditions: lay and clinical
    ("hypertension", "high blood pressure", "raised blood pressure", "elevated blood pressure"),
    ("hypotension", "low blood pressure"), ("myocardial infarction", "heart attack"),
    ("stroke", "cerebrovascular accident", "brain attack"), ("heart failure", "cardiac failure"),
    ("atrial fibrillation", "irregular heartbeat"), ("cardiac arrest", "heart stopped"),
    ("diabetes mellitus", "diabetes", "sugar diabetes"), ("hypoglycaemia", "hypoglycemia", "low blood sugar"),
    ("hyperglycaemia", "hyperglycemia", "high blood sugar"), ("hyperlipidaemia", "hyperlipidemia",
                                                             "high cholesterol"),
    ("anaemia", "anemia"), ("oedema", "edema", "fluid retention", "swelling"),
    ("diarrhoea", "diarrhea", "loose stools"), ("haemorrhage", "hemorrhage", "bleeding"),
    ("paediatric", "pediatric", "children", "child", "kids"), ("oesophagus", "esophagus", "gullet"),
    ("gastrointestinal", "stomach upset", "upset stomach", "stomach", "gut", "digestive", "nausea",
     "abdominal discomfort", "tummy"),
    ("pyrexia", "fever", "febrile", "high temperature"), ("afebrile", "fever-free", "no fever", "fever settles"),
    ("urticaria", "hives", "nettle rash"), ("pruritus", "itching", "itch"), ("dyspnoea", "dyspnea",
                                                                           "breathlessness",
                                                                           "shortness of breath",
                                                                           "breathing difficulty",
                                                                           "difficulty breathing"),
    ("renal", "kidney"), ("hepatic", "liver"), ("pulmonary", "lung"), ("cardiac", "heart"),
    ("cerebral", "brain"), ("cutaneous", "skin"), ("ocular", "eye"), ("renal impairment", "kidney disease",
                                                                       "kidney failure", "renal failure",
                                                                       "renal insufficiency"),
    ("hepatic impairment", "liver disease", "liver failure"), ("pneumonia", "chest infection", "lung infection"),
    ("urinary tract infection", "bladder infection", "uti"), ("anaphylaxis", "anaphylactic reaction",
                                                              "anaphylactic shock", "severe allergic reaction"),
    ("allergy", "allergic", "hypersensitivity"), ("seizure", "convulsion"),
    ("syncope", "fainting", "faint"), ("vomiting", "emesis", "being sick"), ("tachycardia", "fast heart rate",
                                                                             "racing heart"),
    ("bradycardia", "slow heart rate"), ("obesity", "overweight", "excess weight"),
    ("lactic acidosis", "lactic acid build-up"), ("thrombosis", "blood clot", "clot"),
    ("cough", "coughing"), ("fatigue", "tiredness", "tired", "exhaustion"),
    ("hypoxia", "low oxygen", "hypoxaemia", "hypoxemia"), ("sepsis", "blood poisoning"),
    ("smoker", "smokers", "smoking", "tobacco"), ("alcohol", "drinking"), ("pregnancy", "pregnant"),
    ("elderly", "older adults", "older people", "older patients", "aged over 65"),
    # tests and measurements
    ("radiograph", "x-ray", "xray", "chest film"), ("computed tomography", "ct scan", "ct", "cat scan"),
    ("contrast", "contrast dye", "dye", "iodinated contrast", "contrast medium"),
    ("electrolytes", "potassium and sodium", "u&e", "urea and electrolytes", "blood tests", "bloods",
     "blood test", "lab tests", "labs"),
    ("egfr", "glomerular filtration rate", "kidney function", "renal function", "creatinine clearance"),
    ("blood pressure", "bp"), ("heart rate", "pulse"), ("respiratory rate", "breathing rate"),
    ("ambulatory monitoring", "24-hour monitoring", "home monitoring", "out-of-office measurement"),
    ("readings", "measurements", "reading", "measurement"),
    # actions and care
    ("withhold", "withheld", "hold", "held", "pause", "paused", "suspend", "interrupt"),
    ("discontinue", "stop", "stopped", "cease"), ("contraindicated", "must not be used", "not be used",
                                                  "should not be given"),
    ("intramuscular", "intramuscularly", "im", "into the muscle", "injected", "injection", "inject",
     "shot"),
    ("intravenous", "intravenously", "iv", "into a vein", "drip"), ("oral", "orally", "by mouth", "tablet",
                                                                    "tablets", "pill"),
    ("titration", "titrate", "increase the dose", "dose increase", "uptitrate", "step up"),
    ("reassess", "review", "follow-up", "follow up", "recheck", "see again", "reviewed"),
    ("observe", "observation", "monitor", "watch", "observed", "monitoring"),
    ("admission", "hospital care", "hospitalisation", "hospitalization", "admit", "hospital stay"),
    ("outpatient", "at home", "home treatment"), ("intensive care", "icu", "critical care"),
    ("lay flat", "lie flat", "supine", "position", "positioned", "positioning", "lying down", "legs raised"),
    ("oxygen", "o2", "supplemental oxygen"), ("exercise", "physical activity", "aerobic activity", "workout"),
    ("sodium", "salt", "salt intake", "sodium intake"), ("diet", "eating", "nutrition", "food"),
    ("weight loss", "lose weight", "losing weight"), ("lifestyle measures", "lifestyle changes",
                                                      "lifestyle modification", "lifestyle advice",
                                                      "lifestyle"),
    ("with meals", "with food", "after eating", "with breakfast"), ("second-line", "not first-line",
                                                                    "adjunct", "add-on"),
    ("repeat", "repeated", "again", "another dose", "second dose"),
    # "maximal": the same words query/answer_kinds.py reads as a maximum asked or stated (_MAXIMUM)
    ("maximum", "max", "maximal", "highest", "upper limit"), ("starting dose", "initial dose", "start",
                                                           "starting"),
)

_TOKEN = re.compile(r"[a-z0-9]+(?:[-'/&][a-z0-9]+)*")


@dataclass(frozen=True)
class Match:
    start: int  # character span in the text
    end: int
    form: str  # as written in the text
    group: tuple[str, ...]  # every form of the concept


def _singular(token: str) -> str:
    return token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "is", "us")) \
        else token


def _words(text: str) -> tuple[str, ...]:
    """Lower case, plurals singular; nothing more, so that "lower" (the verb) is not "low" (groups list
    the inflections they mean: "inject", "injected")."""
    return tuple(_singular(token) for token in _TOKEN.findall(text.lower()))


@lru_cache(maxsize=1)
def _index() -> dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]]:
    """First word -> (the form's words, its group), longest forms first."""
    index: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for group in GROUPS:
        for form in group:
            words = _words(form)
            if words:
                index.setdefault(words[0], []).append((words, group))
    for entries in index.values():
        entries.sort(key=lambda entry: -len(entry[0]))
    return index


@lru_cache(maxsize=4096)
def find(text: str) -> tuple[Match, ...]:
    """The synonym forms in `text`, left to right, longest first, never overlapping."""
    tokens = list(_TOKEN.finditer(text.lower()))
    words = [_words(t.group())[0] for t in tokens]
    found: list[Match] = []
    position = 0
    while position < len(tokens):
        for form_words, group in _index().get(words[position], ()):
            end = position + len(form_words)
            if tuple(words[position:end]) == form_words:
                start_char, end_char = tokens[position].start(), tokens[end - 1].end()
                found.append(Match(start_char, end_char, text[start_char:end_char], group))
                position = end
                break
        else:
            position += 1
    return tuple(found)


def expand(text: str) -> str:
    """`text` with "(clinical form)" after each other form it uses ("adrenaline (epinephrine)", "high blood
    pressure (hypertension)"): only the group's first form, and only where the text does not hold it already.
    More forms were measured to blur the search and the composer (docs/benchmarks.md)."""
    held = set(_words(text))
    pieces: list[str] = []
    position = 0
    for match in find(text):
        canonical = match.group[0]
        if set(_words(canonical)) <= held or not _worth_searching(match):
            continue
        pieces.append(text[position:match.end] + f" ({canonical})")
        position = match.end
        held |= set(_words(canonical))
    return "".join(pieces) + text[position:]


def _worth_searching(match: Match) -> bool:
    """A phrase ("high blood pressure", "chest X-ray") or a drug's other name ("adrenaline"): single common
    words ("heart" -> "cardiac", "food" -> "diet") widened the keyword search more than they helped it
    (NFCorpus, docs/benchmarks.md), though they still count as one concept in the evidence score."""
    form = match.form.lower()
    return len(form.split()) > 1 or "-" in form or bool({form, match.group[0]} & drug_words())


CONCEPT_MARK = "\u2248"  # "≈hypertension": a term that stands for every form of its group


def mark(group: tuple[str, ...]) -> str:
    return CONCEPT_MARK + group[0]


@lru_cache(maxsize=65536)
def marks(text: str) -> frozenset[str]:
    """One term per synonym group `text` names, whichever form it uses (as a phrase, not as scattered words)."""
    return frozenset(mark(match.group) for match in find(text))


def marks_for(terms: frozenset[str]) -> frozenset[str]:
    """The marks of the groups that one of `terms` (content terms) names on its own form: when a passage's
    "pneumonia" is about a sibling condition, its mark goes too."""
    return frozenset(mark(group) for group in GROUPS for form in _form_terms(group) if form and form <= terms
                     and len(form) == 1)


@lru_cache(maxsize=1)
def _all_form_terms() -> dict[tuple[str, ...], tuple[frozenset[str], ...]]:
    return {group: tuple(content_terms(form) for form in group) for group in GROUPS}


def _form_terms(group: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    return _all_form_terms()[group]


@lru_cache(maxsize=65536)
def concept_terms(text: str) -> frozenset[str]:
    """The content terms of `text` with each synonym form replaced by one term for its group: "high blood
    pressure" and "hypertension" both become "≈hypertension", so a sentence and a question that name one
    concept differently share one term, and a lay phrase's words do not count again on their own."""
    pieces: list[str] = []
    groups: set[str] = set()
    position = 0
    for match in find(text):
        pieces.append(text[position:match.start])
        groups.add(mark(match.group))
        position = match.end
    pieces.append(text[position:])
    return content_terms(" ".join(pieces)) | groups
